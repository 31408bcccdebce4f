"""Discovery Island on the table: the walker's march on the mat, and the tracker that follows it.

**How tiles lie on the mat** (printed in the kit's instructions, :mod:`assistant.vision.kits.discovery_island`).
The mat (:func:`~assistant.vision.mats.discovery_island_mat`) is an odd-q lattice of 9 x 7
hexes ``(col, row)``; it shows the day march in progress:

1. the centre hex :data:`CENTRE` holds the walker's start tile, back up (its terrain; a walker
   standing on a checkpoint or cache has that tile, the same on both sides);
2. a step in direction ``d`` lays the new tile face up on the lattice hex next to the last
   tile in direction ``d`` (the lattice path is the walk, translated); crossing one's own path
   lays the new tile on top;
3. when that hex is off the mat, every tile is taken off but the last, which moves to the
   centre, and the new tile goes next to it in direction ``d`` (*recentring*);
4. at the end of the march the mat is cleared and the start tile of the player who walks next
   (after any skipped marches) is put back up on the centre hex.

Everything else (``sea_refused``, ``learn_clue``, ``open_cache``, ``event_resolved``,
``relocate``, and ``skip_march``, which the tracker also applies by itself when it is due:
the player has no choice) comes from the tablet. ``end_march`` is seen (the mat is cleared)
or entered.

**Slots** of hex ``(col, row)``: ``("tile", col, row)`` (``empty``, a land terrain for a face,
``back:<terrain>``, ``checkpoint``, ``cache``), ``("number", col, row)`` (``1``..``9`` or
``none``) and ``("mark", col, row)`` (``none``, ``shortcut``, ``event:<kind>``, ``checkpoint``,
``cache``), see :func:`~assistant.vision.kits.discovery_island.slot_labels`.

**The tracker** (:class:`DiscoveryIslandTracker`) explains each stable change with sequences of
steps whose tiles are *read off the table* (the lattice hex a step covers gives its direction,
its readings give the tile), checked by the engine: the terrain against the map from the
walker's true position (``wrong_terrain_laid``), the tile against the supply, the turn
order. It commits only when every reading it relies on is sure and a single explanation fits;
it asks (showing the cells) when a reading is unsure or two explanations fit; it reports an
illegal move with the rules' reason code and the hex. Cells left unexplained stay *dirty* and
are read again with the next change, so nothing is forgotten and a misread never reaches the
committed state. Verdict messages announce each tile's cost, the march sum and its end.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from itertools import product
from typing import Any, Iterable, Mapping, Sequence

from ..games.base import Event, Refusal
from ..games.discovery_island import GAME, views
from ..games.discovery_island.views import table_sentence
from ..games.discovery_island.data import LAND_TERRAINS
from ..games.discovery_island.geometry import DIRECTION_NAMES, step, to_axial, to_offset
from ..games.discovery_island.setup import MARCH_TARGET
from ..games.discovery_island.state import State
from ..vision.kits.discovery_island import MARKERS, MARKS, back_design, face_design, slot_labels
from .base import Cell, Observation, Reading, Slot, TableModel, Tracker, Verdict, diff_cells

COLS, ROWS = 9, 7
CENTRE = (4, 3)
KINDS = ("tile", "number", "mark")
MARKER_POINTS = 4                        #: the number printed on the kit's checkpoint and cache tiles
STEPS = ("choose_direction", "enter_checkpoint", "enter_cache")


# --- the mat as a function of the game ------------------------------------------------------------

def on_mat(cell: tuple[int, int]) -> bool:
    """Whether ``(col, row)`` is a hex of the 9 x 7 lattice."""
    return 0 <= cell[0] < COLS and 0 <= cell[1] < ROWS


def lattice_step(cell: tuple[int, int], direction: str) -> tuple[int, int]:
    """The lattice hex next to ``cell`` in ``direction`` (odd-q, as the island; may be off the mat)."""
    return to_offset(*step(to_axial(*cell), direction))


def start_design(state: State, player: int) -> str:
    """The start tile of ``player`` where it stands: its terrain's back, or the marker tile."""
    info = state.cfg.island.info(state.pos[player])
    if info.marker is not None:
        return face_design("-", MARKER_POINTS, info.marker)
    return back_design(info.terrain)


@dataclass(frozen=True)
class TableState:
    """The engine's state and the mat that goes with it.

    Attributes
    ----------
    game : State
        The engine state (the referee's account).
    mat : tuple of ((col, row), design)
        The top tile of every covered hex, sorted.
    cursor : (col, row)
        The hex of the last tile laid (the centre at the start of a march).
    auto : tuple of Event
        Events the last transition applied by itself (skipped marches after an ``end_march``).
    """

    game: State
    mat: tuple[tuple[tuple[int, int], str], ...]
    cursor: tuple[int, int] = CENTRE
    auto: tuple[Event, ...] = ()

    @classmethod
    def start(cls, state: State) -> "TableState":
        """The table at the start of the mover's march: its start tile on the centre hex."""
        return cls(state, ((CENTRE, start_design(state, state.to_move)),), CENTRE)

    def board(self) -> dict[tuple[int, int], str]:
        """Hex -> design of the top tile."""
        return dict(self.mat)


def _forced_skips(state: State) -> tuple[State, tuple[Event, ...]]:
    """Apply the ``skip_march`` events that are due (the only legal event then)."""
    done = []
    for _ in range(8):
        p = state.to_move
        if state.result != "ongoing" or state.skips[p] == 0 or state.begun:
            break
        ev = Event.make(p, "skip_march")
        after = GAME.apply(state, ev)
        if not after:
            break
        state = after
        done.append(ev)
    return state, tuple(done)


def target_cell(ts: TableState, direction: str) -> tuple[tuple[int, int], bool]:
    """Where a step in ``direction`` lays its tile: ``(hex, recentred)``."""
    nxt = lattice_step(ts.cursor, direction)
    if on_mat(nxt):
        return nxt, False
    return lattice_step(CENTRE, direction), True


def advance(ts: TableState, ev: Event) -> TableState | Refusal:
    """The table after ``ev``: the engine checks it, then the mat follows the rules above.

    Returns
    -------
    TableState or Refusal
        The engine's refusal (with the rules' reason code) for an illegal event.
    """
    after = GAME.apply(ts.game, ev)
    if not after:
        return after
    if ev.type in STEPS:
        cell, recentred = target_cell(ts, ev["dir"])
        board = {CENTRE: ts.board()[ts.cursor]} if recentred else ts.board()
        if ev.type == "choose_direction":
            tile = ev["tile"]
            design = face_design(tile["terrain"], tile["points"], tile["mark"])
        else:
            design = face_design("-", MARKER_POINTS, ev.type.split("_", 1)[1])
        board[cell] = design
        return TableState(after, tuple(sorted(board.items())), cell)
    if ev.type == "end_march":
        after, skips = _forced_skips(after)
        return TableState(after, ((CENTRE, start_design(after, after.to_move)),), CENTRE, skips)
    if ev.type == "skip_march":
        return TableState(after, ((CENTRE, start_design(after, after.to_move)),), CENTRE)
    return TableState(after, ts.mat, ts.cursor)


class TableGame:
    """:class:`TableState` behind the :class:`~assistant.games.base.Game` calls the tracker uses
    (``apply``, ``summary``, ``legal_events``), so the generic :class:`~.base.Tracker` works too."""

    id = GAME.id

    def apply(self, ts: TableState, ev: Event) -> TableState | Refusal:
        """:func:`advance`."""
        return advance(ts, ev)

    def summary(self, ts: TableState) -> dict[str, Any]:
        """The engine's summary plus the mat."""
        return {**views.summary(ts.game), "mat": [[list(c), d] for c, d in ts.mat], "cursor": list(ts.cursor)}

    def legal_events(self, ts: TableState) -> list[Event]:
        """The engine's legal events."""
        return GAME.legal_events(ts.game)


TABLE_GAME = TableGame()


class DiscoveryIslandTable(TableModel):
    """The Discovery Island mat: three slots per hex, what a state shows, the detector.

    Parameters
    ----------
    model : DIModel, optional
        The detector's classifiers (:func:`~assistant.vision.kits.discovery_island_detect.load_or_teach`),
        needed only by :meth:`read`.
    """

    game = "discovery-island"
    CELLS = tuple((c, r) for c in range(COLS) for r in range(ROWS))

    def __init__(self, model: Any = None):
        self.detector = model

    def slots(self, cells: Iterable[Cell]) -> list[Slot]:
        return [(k, *c) for c in cells for k in KINDS]

    def cell_of(self, slot: Slot) -> Cell:
        return tuple(slot[1:])

    def expected(self, state: TableState) -> dict[Slot, str]:
        board = state.board()
        out = {}
        for cell in self.CELLS:
            for k, label in zip(KINDS, slot_labels(board.get(cell))):
                out[(k, *cell)] = label
        return out

    def visible_events(self, state: TableState) -> list[Event]:
        """Steps (one per supply tile of the target terrain) and ``end_march``, when legal."""
        return [ev for ev in GAME.legal_events(state.game) if ev.type in STEPS + ("end_march",)]

    def touched(self, state: TableState, event: Event, game: Any = None) -> set[Cell]:
        """The hex a step covers (and, when it recentres, every hex whose look changes), or the
        hexes whose look an ``end_march`` changes (a start tile like the last one changes nothing);
        nothing for the tablet's events."""
        if event.type in STEPS:
            cell, recentred = target_cell(state, event["dir"])
            if not recentred:
                return {cell}
        elif event.type != "end_march":
            return set()
        after = advance(state, event)
        if not after:
            return set(target_cell(state, event["dir"])[:1]) if event.type in STEPS else set()
        changed = diff_cells(self, self.expected(state), self.expected(after))
        return changed | ({target_cell(state, event["dir"])[0]} if event.type in STEPS else set())

    def read(self, frame, homography, slots: Sequence[Slot]) -> dict[Slot, Reading]:
        """Read ``slots`` with the detector (all three kinds of each slot's hex are read)."""
        from ..vision.kits.discovery_island_detect import read_slots

        if self.detector is None:
            raise NotImplementedError("DiscoveryIslandTable was made without a detector model")
        cells = sorted({self.cell_of(s) for s in slots})
        got = read_slots(self.detector, frame, homography, cells)
        return {s: got[s] for s in slots}

    def guesses(self, state: TableState, before: Mapping[Slot, str], observed: Observation) -> list[Event]:
        """Steps the readings name, legal or not: for each direction whose hex reads as a tile
        face (or a marker tile), the step laying it."""
        out = []
        for d in DIRECTION_NAMES:
            cell, _ = target_cell(state, d)
            for tile in _tiles_read(observed, cell, alternatives=False):
                out.append(_step_event(state, d, tile))
        return [ev for ev in out if ev is not None]

    def describe(self, cell: Cell) -> str:
        return f"hex ({cell[0]},{cell[1]})"


# --- candidate steps from the readings --------------------------------------------------------------

def _labels(reading: Reading | None, alternatives: bool) -> list[str]:
    if reading is None:
        return []
    out = [reading.label]
    second = getattr(reading, "second", "")
    if alternatives and not reading.sure and second:
        out.append(second)
    return out


def _tiles_read(observed: Observation, cell: Cell, alternatives: bool = True) -> list[tuple[str, int, str]]:
    """Tiles ``(terrain, points, mark)`` (terrain ``-`` for a marker tile) that the readings of
    ``cell`` name; with ``alternatives``, unsure slots also offer their runner-up."""
    tiles = _labels(observed.get(("tile", *cell)), alternatives)
    numbers = _labels(observed.get(("number", *cell)), alternatives)
    marks = _labels(observed.get(("mark", *cell)), alternatives)
    out = []
    for t, n, m in product(tiles, numbers, marks):
        if not n.isdigit() or m not in MARKS:
            continue
        if t in MARKERS and m == t:
            out.append(("-", int(n), m))
        elif t in LAND_TERRAINS and m not in MARKERS:
            out.append((t, int(n), m))
    return out


def _step_event(ts: TableState, direction: str, tile: tuple[str, int, str]) -> Event | None:
    """The step laying ``tile`` in ``direction``: ``enter_*`` (with the map's label, or ``?``
    when the hex there is not that marker) for a marker tile, else ``choose_direction``."""
    state = ts.game
    p = state.walker
    terrain, points, mark = tile
    if terrain == "-":
        n = step(state.pos[p], direction)
        info = state.cfg.island.info(n) if state.cfg.island.on_map(n) else None
        label = info.label if info is not None and info.marker == mark else "?"
        return Event.make(p, f"enter_{mark}", dir=direction, label=label)
    return Event.make(p, "choose_direction", dir=direction, tile={"terrain": terrain, "points": points, "mark": mark})


@dataclass(frozen=True)
class _Node:
    events: tuple[Event, ...]
    state: TableState
    touched: frozenset
    fresh: bool = False                   # a step read off the table now was taken: no re-laid steps after it
    unseen: int = 0                       # re-laid steps nothing pointed at


@dataclass(frozen=True)
class Fit:
    """How well an explanation fits: ``mismatches`` (sure readings it contradicts, or unchanged
    hexes it changes), ``doubts`` (slots it relies on whose reading is unsure), ``doubt_cells``,
    and ``unseen``: steps it assumes were taken unseen (a tile like the one there laid on top)
    on a hex no earlier change pointed at (the fewer the likelier)."""

    mismatches: int
    doubts: int
    doubt_cells: tuple = ()
    unseen: int = 0

    @property
    def rank(self) -> tuple[int, int, int]:
        """Sort key: fewer mismatches, then fewer doubts, then fewer unseen steps."""
        return self.mismatches, self.doubts, self.unseen


def score(model: DiscoveryIslandTable, before: Mapping[Slot, str], after: Mapping[Slot, str],
          observed: Observation, watched: set, touched: set, unseen: int = 0) -> Fit:
    """Compare an explanation's table with the readings.

    A slot of a watched hex (one the gate reported, or left unexplained before) counts as a
    mismatch when its reading is sure and differs; as a doubt when its reading is unsure and
    either differs or belongs to a hex the explanation changes (a commit must not rest on it).
    Any other hex must look as before.
    """
    bad, doubts, cells = 0, 0, set()
    for slot, want in after.items():
        cell = model.cell_of(slot)
        reading = observed.get(slot)
        if cell not in watched or reading is None:
            if want != before.get(slot):
                bad += 1
            continue
        if reading.sure:
            bad += reading.label != want
        elif reading.label != want or cell in touched:
            doubts += 1
            cells.add(cell)
    return Fit(bad, doubts, tuple(sorted(cells)), unseen)


def explanations(ts: TableState, observed: Observation, watched: set, max_depth: int = 5,
                 model: DiscoveryIslandTable | None = None, early: set = frozenset(),
                 early_readings: Observation | None = None) -> list[tuple[tuple[Event, ...], TableState, Fit]]:
    """Every sequence of visible legal events (up to ``max_depth`` steps and an ``end_march``)
    whose hexes all lie among ``watched``, with its fit, the empty sequence first.

    Steps are generated from the readings: a direction whose next lattice hex is watched and
    reads as a tile (with the runner-up labels of unsure slots) gives the step laying that tile.
    A tile like the one on top may have been laid unseen (crossing one's own path, the motion
    gate seeing no change): such re-laid steps come before every step read off the table now,
    onto an ``early`` hex with the tile ``early_readings`` showed at an earlier change, or onto
    any watched hex with its committed top tile (counted in :attr:`Fit.unseen`).
    """
    model = model or DiscoveryIslandTable()
    before = model.expected(ts)
    relay = {s: Reading(before[s]) for s in model.slots(watched) if s in before}
    relay.update(early_readings or {})
    out = [((), ts, score(model, before, before, observed, watched, set()))]
    frontier = [_Node((), ts, frozenset())]
    seen = {_key(ts)}
    for _ in range(max_depth + 1):
        nxt = []
        for node in frontier:
            for ev, kind in _candidates(node.state, observed, watched, set(early), relay, node.fresh):
                touched = model.touched(node.state, ev)
                if not touched <= watched:
                    continue
                after = advance(node.state, ev)
                if not after:
                    continue
                key = _key(after)
                if key in seen:
                    continue
                seen.add(key)
                child = _Node(node.events + (ev,) + after.auto, after, node.touched | touched,
                              node.fresh or kind == "now", node.unseen + (kind == "unseen"))
                nxt.append(child)
                out.append((child.events, after, score(model, before, model.expected(after), observed, watched,
                                                       set(child.touched), child.unseen)))
        frontier = nxt
        if not frontier:
            break
    return out


def _key(ts: TableState) -> str:
    return json.dumps(TABLE_GAME.summary(ts), sort_keys=True, default=str)


def _candidates(ts: TableState, observed: Observation, watched: set, early: set, relay: Observation,
                fresh: bool) -> list[tuple[Event, str]]:
    """``(event, kind)`` pairs: ``"now"`` for steps read off the watched hexes now; unless a
    ``now`` step was taken (``fresh``), re-laid steps: ``"early"`` onto ``early`` hexes with what
    they showed then, ``"unseen"`` onto other watched hexes with their committed tile."""
    state = ts.game
    if state.result != "ongoing" or state.pending is not None:
        return []
    if state.over:
        return [(Event.make(state.walker, "end_march"), "now")]
    out: dict[Event, str] = {}
    for d in DIRECTION_NAMES:
        cell, _ = target_cell(ts, d)
        if cell not in watched:
            continue
        for tile in _tiles_read(observed, cell):
            out.setdefault(_step_event(ts, d, tile), "now")
        if not fresh:
            for tile in _tiles_read({**observed, **relay}, cell, alternatives=False):
                out.setdefault(_step_event(ts, d, tile), "early" if cell in early else "unseen")
    return list(out.items())


# --- the tracker ----------------------------------------------------------------------------------

def _who(p: int) -> str:
    return f"player {p}"


def announce(ts: TableState, events: Sequence[Event], after: TableState) -> str:
    """Sentences for the players about committed events: each tile's cost, the march sum, its
    end and what is due next (an event to resolve, a clue to learn, the next walker)."""
    parts = []
    state = ts.game
    for ev in events:
        nxt = GAME.apply(state, ev)
        if not nxt:                           # cannot happen for committed events
            break
        p = state.walker
        if ev.type == "choose_direction":
            tile = ev["tile"]
            cost = 1 if tile["mark"] == "shortcut" else tile["points"]
            extra = " (shortcut)" if tile["mark"] == "shortcut" else ""
            parts.append(f"{_who(p)} walks {ev['dir']} onto {tile['terrain']} {tile['points']}{extra}: +{cost}, "
                         f"march {nxt.sums[p]}/{MARCH_TARGET}.")
            if tile["mark"].startswith("event:"):
                parts.append(f"Event {tile['mark'][6:]}: resolve it on the tablet (a card or none).")
        elif ev.type in ("enter_checkpoint", "enter_cache"):
            kind = ev.type.split("_", 1)[1]
            # under label_revealed = on_payment the walker learns the label only by paying (§5.11)
            name = f"{kind} {ev['label']}" if state.rule("label_revealed") == "on_entry" else f"a {kind}"
            parts.append(f"{_who(p)} walks {ev['dir']} onto {name}: +{nxt.sums[p] - state.sums[p]}, "
                         f"march {nxt.sums[p]}/{MARCH_TARGET}.")
        elif ev.type == "end_march":
            parts.append(f"{_who(p)}'s march ended at {state.sums[p]} points.")
        elif ev.type == "skip_march":
            parts.append(f"{_who(p)} skips this march.")
        elif ev.type in ("learn_clue", "open_cache"):
            parts.append(f"{_who(p)} pays {nxt.sums[p] - state.sums[p]} at {ev['label']}: march {nxt.sums[p]}/{MARCH_TARGET}.")
        if nxt.over and not state.over and nxt.result == "ongoing":
            lost = nxt.sums[p] - MARCH_TARGET
            if nxt.sums[p] >= MARCH_TARGET:
                parts.append(f"March over at {nxt.sums[p]}" + (f" ({lost} lost)" if lost > 0 else "") +
                             ": clear the mat.")
            else:
                parts.append(f"March over at {nxt.sums[p]} by the event: clear the mat.")
        state = nxt
    if after.game.result == "won":
        parts.append(f"{_who(after.game.winner)} found the treasure and wins!")
    elif any(ev.type in ("end_march", "skip_march") for ev in events):
        parts.append(f"{_who(after.game.to_move)} walks next: its start tile goes back up on the centre hex.")
    return " ".join(parts)


class DiscoveryIslandTracker(Tracker):
    """Commits the events that explain each stable change of the Discovery Island mat.

    Parameters
    ----------
    state : State or TableState
        The engine state (from the record header; the mat then holds the mover's start tile)
        or a table state.
    detector : DIModel, optional
        For :meth:`on_change` (reading frames); :meth:`explain` takes readings.
    max_depth : int
        Longest run of steps explained by one stable change (quick successive tiles, F6).
    """

    def __init__(self, state: State | TableState, detector: Any = None, max_depth: int = 5):
        ts = state if isinstance(state, TableState) else TableState.start(state)
        super().__init__(TABLE_GAME, DiscoveryIslandTable(detector), ts, max_depth)
        #: hexes whose change no committed event explains yet (asked about, illegal): read again
        self.dirty: set[Cell] = set()
        #: hexes that changed without a visible difference but next to the walker's last tile: a
        #: tile like the one there may have been laid on top (crossing one's own path); the next
        #: change decides, with these hexes watched again
        self.maybe: set[Cell] = set()
        self._maybe_readings: dict[Slot, Reading] = {}
        self._held: dict[Slot, Reading] = {}

    # -- state ---------------------------------------------------------------------------
    def cells_to_read(self, changed: Iterable[Cell]) -> list[Cell]:
        """The hexes to read after a stable change: the changed ones, those still unexplained,
        and the hexes at stake (every covered hex, the centre, where the next step goes): the
        motion gate can miss a change where white turns to white, and a reading that differs
        from the committed table is then taken as a change."""
        stake = {c for c, _ in self.state.mat} | {CENTRE} | {target_cell(self.state, d)[0] for d in DIRECTION_NAMES}
        return sorted(set(changed) | self.dirty | self.maybe | stake)

    def _keep(self, observed: Observation) -> None:
        """Hold the readings of the unexplained and maybe-hexes for the next change."""
        keep = self.dirty | self.maybe
        self._held = {s: r for s, r in observed.items() if self.model.cell_of(s) in keep}

    def _commit(self, after: TableState, events: Sequence[Event], cells: Iterable[Cell], message: str) -> Verdict:
        before = self.state
        self.state = after
        self.log.extend(events)
        self.dirty, self.maybe, self._held, self._maybe_readings = set(), set(), {}, {}
        text = announce(before, events, after)
        return Verdict("commit", list(events), sorted(cells), (message + " " + text).strip())

    # -- the tablet ----------------------------------------------------------------------------
    def apply_tablet(self, event: Event) -> Verdict:
        """An event the camera cannot see, entered on the tablet.

        A ``skip_march`` the tracker already applied by itself is answered ``nothing``. While a
        tile may have been laid on top of a like one unseen (:attr:`maybe`), the event is tried
        with and without those steps: legal one way only, that way is committed; both ways, the
        players are asked. After an accepted event, a change left unexplained (a tile laid
        before its event was resolved) is explained again; the verdict then carries both.
        """
        if event.type == "skip_march" and self.log and any(e.type == "skip_march" and e.actor == event.actor
                                                           for e in self.state.auto):
            return Verdict("nothing", [], [], f"{_who(event.actor)}'s skipped march was already entered.")
        legal = []
        for evs, ts in self._worlds():
            after = advance(ts, event)
            if after:
                legal.append((evs, after))
        if not legal:
            refusal = advance(self.state, event)
            return Verdict("illegal", [event], [], table_sentence(refusal.reason), refusal.reason,
                           private=refusal.message)
        if len(legal) > 1:
            cells = sorted(self.maybe)
            return Verdict("ask", [], cells, f"Was a tile like the one at {', '.join(map(self.model.describe, cells))} "
                                             f"laid on top before {event.type}?",
                           options=[list(evs) + [event] for evs, _ in legal])
        evs, after = legal[0]
        held, dirty = self._held, self.dirty
        verdict = self._commit(after, [*evs, event, *after.auto], _touched(self.model, self.state, evs),
                               "Entered on the tablet.")
        self._held, self.dirty = {s: r for s, r in held.items() if self.model.cell_of(s) in dirty}, dirty
        if self.dirty:
            again = self.explain({}, set())
            if again.kind == "commit":
                return Verdict("commit", verdict.events + again.events, again.cells, f"{verdict.message} {again.message}")
        return verdict

    def _worlds(self) -> list[tuple[tuple[Event, ...], TableState]]:
        """The committed state, and the states after what may have happened unseen: tiles like
        the ones under them (:attr:`maybe`), or an ``end_march`` whose start tiles look alike."""
        found = explanations(self.state, self._maybe_readings, set(self.maybe), self.max_depth, self.model,
                             early=self.maybe, early_readings=self._maybe_readings)
        return [(evs, ts) for evs, ts, f in found if f.mismatches == 0]

    def choose(self, option: Sequence[Event]) -> Verdict:
        """Commit one of the options of an ``ask`` verdict (the players chose it on the tablet).

        Returns
        -------
        Verdict
            ``commit`` with the option's events, or ``illegal`` when one is refused now.
        """
        ts = self.state
        applied: list[Event] = []
        cells: set = set()
        for ev in option:
            if ev.type == "skip_march" and any(e is ev or e == ev for e in ts.auto):
                continue
            cells |= self.model.touched(ts, ev)
            nxt = advance(ts, ev)
            if not nxt:
                return Verdict("illegal", [ev], sorted(cells), table_sentence(nxt.reason), nxt.reason,
                               private=nxt.message)
            applied += [ev, *nxt.auto]
            ts = nxt
        return self._commit(ts, applied, cells, "Chosen on the tablet.")

    # -- the camera ---------------------------------------------------------------------------
    def on_change(self, frame, homography, change) -> Verdict | None:
        """Read and explain one :class:`~assistant.vision.motion.StableChange` of a frame.

        Returns
        -------
        Verdict or None
            None when the change names no hex and none is left unexplained (a light change).
        """
        cells = self.cells_to_read(list(change.changed) + list(change.unsure))
        if not cells:
            return None
        readings = self.model.read(frame, homography, self.model.slots(cells))
        return self.explain(readings, set(change.changed) | set(change.unsure))

    def explain(self, observed: Observation, changed: Iterable[Cell]) -> Verdict:
        """Explain the readings of the changed hexes (and of those left unexplained before).

        Parameters
        ----------
        observed : dict slot -> Reading
            Readings of every slot of the hexes to read (:meth:`cells_to_read`); readings kept
            from earlier are used for unexplained hexes not read again. A hex the gate did not
            report counts as changed only when a sure reading of it differs from the table.
        changed : iterable of (col, row)
            The hexes the motion gate reported (changed and unsure).

        Returns
        -------
        Verdict
            ``commit`` (the unique explanation, every reading it rests on sure), ``nothing``,
            ``ask`` (unsure readings or rival explanations: ``cells`` and ``options``), or
            ``illegal`` (``reason`` from the rules, ``cells`` the hex).
        """
        observed = {**self._held, **observed}
        changed = set(changed)
        expected = self.model.expected(self.state)
        seen = {self.model.cell_of(s) for s, r in observed.items() if r.sure and r.label != expected.get(s)}
        watched = set(changed) | self.dirty | self.maybe | seen
        names = ", ".join(self.model.describe(c) for c in sorted(watched))
        found = explanations(self.state, observed, watched, self.max_depth, self.model, early=self.maybe,
                             early_readings=self._maybe_readings)
        best_fit = min(f.rank for _, _, f in found)
        best = [(evs, ts, f) for evs, ts, f in found if f.rank == best_fit]
        if best_fit == (0, 0, 0) and best[0][0] == ():
            relays = {c for evs, _, _ in best[1:] for c in _touched(self.model, self.state, evs)}
            self.dirty = set()
            self._maybe_readings.update({s: r for s, r in observed.items()
                                         if self.model.cell_of(s) in relays - self.maybe})
            self.maybe |= relays
            self._keep(observed)
            ended = any(e.type == "end_march" for evs, _, _ in best[1:] for e in evs)
            note = ("" if not relays else " (or the march ended: the start tiles look alike; the next move will tell)"
                    if ended else " (or a tile like it was laid on top: the next move will tell)")
            return Verdict("nothing", [], sorted(watched), "The table is as it was" + note + ".")
        self.dirty |= watched - self.maybe
        self._keep(observed)
        if best_fit[:2] == (0, 0) and best_fit[2] > 0:      # only if tiles were laid that no one saw
            cells = sorted({c for evs, _, _ in best for c in _touched(self.model, self.state, evs)})
            return Verdict("ask", [], cells, f"I may have missed a tile laid at {', '.join(map(self.model.describe, cells))}"
                                             ": please confirm the moves.", options=[list(evs) for evs, _, _ in best[:4]])
        if best_fit[:2] == (0, 0):
            finals = {_key(ts): (evs, ts) for evs, ts, _ in best}
            shortest = min(best, key=lambda x: len(x[0]))
            look = self.model.expected(shortest[1])
            tails = [(evs, ts) for evs, ts, _ in best if evs[:len(shortest[0])] == shortest[0]]
            if len(finals) == 1 or (len(tails) == len(best) and all(self.model.expected(ts) == look for _, ts in tails)):
                # one story; or one story and steps after it that leave the table as it looks (a tile
                # like the one there laid on top): commit the story, keep the rest in mind
                evs, ts, _ = shortest
                story = _touched(self.model, self.state, evs)
                extra = {c for more, _ in tails if len(more) > len(evs) for c in _touched(self.model, ts, more[len(evs):])}
                extra &= set(changed) - story             # only where the gate saw a change the story leaves unexplained
                verdict = self._commit(ts, evs, story, "")
                if extra:
                    self.maybe = extra
                    self._maybe_readings = {s: r for s, r in observed.items() if self.model.cell_of(s) in extra}
                    self._keep(observed)
                return verdict
            return Verdict("ask", [], sorted(watched), f"Two moves fit what I see at {names}: which one was it?",
                           options=[list(evs) for evs, _ in list(finals.values())[:4]])
        if best_fit[0] == 0:                      # fits, but rests on unsure readings
            cells = sorted({c for _, _, f in best for c in f.doubt_cells})
            legal = [list(evs) for evs, _, _ in best if evs][:4]
            return Verdict("ask", [], cells, f"I cannot read {', '.join(map(self.model.describe, cells))} clearly: "
                                             "please check the tile" + ("s" if len(cells) > 1 else "") + ".",
                           options=legal)
        illegal = self._illegal(observed, watched, [ts for _, ts, _ in best] + [self.state])
        if illegal is not None:
            return illegal
        unsure = sorted({self.model.cell_of(s) for s, r in observed.items() if not r.sure
                         and self.model.cell_of(s) in watched})
        if unsure:
            return Verdict("ask", [], unsure, f"I cannot read {', '.join(map(self.model.describe, unsure))} clearly: "
                                              "please check those hexes.")
        return Verdict("ask", [], sorted(watched), f"No legal move explains the change at {names}: "
                                                   "please put it back as it was, or enter the move on the tablet.")

    def _illegal(self, observed: Observation, watched: set, starts: Sequence[TableState]) -> Verdict | None:
        """An illegal move the sure readings name, from the committed state or after the legal
        steps that fit best (nothing is committed): a step (the engine's reason code and the
        hex of its tile), or the mat cleared while the march goes on (``march_not_over``)."""
        for state in starts:
            for d in DIRECTION_NAMES:
                cell, _ = target_cell(state, d)
                slots = [(k, *cell) for k in KINDS]
                if cell not in watched or not all(s in observed and observed[s].sure for s in slots):
                    continue
                for tile in _tiles_read(observed, cell, alternatives=False):
                    ev = _step_event(state, d, tile)
                    refusal = advance(state, ev)
                    if not refusal:
                        what = "The tile" if tile[0] != "-" else f"The {tile[2]} tile"
                        return Verdict("illegal", [ev], [cell], f"{what} at {self.model.describe(cell)}: "
                                                                f"{table_sentence(refusal.reason)}", refusal.reason,
                                       private=refusal.message)
        state = self.state
        cleared = [c for c, _ in state.mat if c != CENTRE and ("tile", *c) in observed
                   and observed[("tile", *c)].sure and observed[("tile", *c)].label == "empty"]
        if cleared:
            ev = Event.make(state.game.walker, "end_march")
            refusal = advance(state, ev)
            if not refusal:
                return Verdict("illegal", [ev], sorted(cleared), f"The mat was cleared: {table_sentence(refusal.reason)}",
                               refusal.reason, private=refusal.message)
        return None


def _touched(model: DiscoveryIslandTable, ts: TableState, events: Sequence[Event]) -> set:
    cells: set = set()
    for ev in events:
        if ev.type == "skip_march" and any(e == ev for e in ts.auto):
            continue
        cells |= model.touched(ts, ev)
        nxt = advance(ts, ev)
        if not nxt:
            break
        ts = nxt
    return cells
