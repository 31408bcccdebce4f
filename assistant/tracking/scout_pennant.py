"""Scout Pennant on the table: slots, what each state should look like, and the tracker glue.

Slots (rules ``scout-pennant.md`` §2.3; the kit is :mod:`assistant.vision.kits.scout_pennant`):

- ``("piece", q, r)``: ``empty``, ``clearing`` or ``forest``;
- ``("patrol", q, r)``: ``none`` or the kit colour of the patrol standing there (``red``,
  ``blue``, ``green``, ``yellow``, ``purple``, ``orange``; see :func:`kit_colours`);
- ``("arrow", q1, r1, q2, r2)`` for each pair of neighbouring cells with ``(q1, r1) < (q2, r2)``:
  ``none``, ``forward`` (an arrow from the first cell to the second) or ``backward``.

Every cell of the printed mat (radius 4, 61 cells, 156 edges) has its slots, whatever the
game's radius: cells beyond a smaller board simply stay empty.

**Edges and the motion gate.** The gate reports hex cells (the middle of each hex), and an
arrow lies on the side between two hexes, outside both middles. An arrow is only ever laid
with a new piece (§3.2), whose own cell the gate sees change, so an arrow slot belongs to
both of its hexes: :meth:`ScoutPennantTable.slots` of a cell includes the slots of its six
edges, and :meth:`ScoutPennantTable.cell_of` of an edge is its first hex.

**Visible events** are the legal moves (``build``, ``fire``, ``enter``, ``take_from_finish``);
``pass`` and the d8 ``roll`` come from the tablet. While :class:`ScoutPennantTracker` explains
a change, builds are only listed on the cells the gate reported (a build changes its own cell),
which keeps a search over a full board quick.

**Positions.** The shared search tells positions apart by the game's summary; the §5.4
summary counts arrows but does not say where they are, so two builds that differ only in
their arrows would look alike. :class:`PositionGame` adds the whole net to the summary.

>>> from assistant.games.scout_pennant import GAME
>>> state = GAME.new_state({"players": [{"seat": 0, "colour": "red"}, {"seat": 1, "colour": "blue"}]}, {})
>>> model = ScoutPennantTable()
>>> exp = model.expected(state)
>>> exp[("piece", 0, 4)], exp[("patrol", 0, 4)], exp[("arrow", 0, 3, 0, 4)]
('clearing', 'none', 'none')
>>> len(model.slots([(0, 0)])), model.cell_of(("arrow", 0, -1, 0, 0))
(8, (0, -1))
"""

from __future__ import annotations

import json
from itertools import product
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from ..games.base import Event
from ..games.scout_pennant import GAME as PENNANT
from ..games.scout_pennant import legal, rules
from ..games.scout_pennant.events import arrow_pairs
from ..games.scout_pennant.events import build as build_event
from ..games.scout_pennant.geometry import FINISH, neighbours
from ..games.scout_pennant.state import BUILD, CLEARING, ENTER, FIRE, FOREST, TAKE, State
from ..vision.kits.scout_pennant import COLOUR_NAMES
from ..vision.mats import MatLayout, mat_layout
from .base import Cell, Observation, Reading, Slot, TableModel, Tracker, Verdict

GAME_ID = "scout-pennant"
PIECE_LABELS = ("empty", CLEARING, FOREST)
ARROW_LABELS = ("none", "forward", "backward")
PATROL_LABELS = ("none",) + COLOUR_NAMES
_WAYS = (None, "from", "to")
#: ``Verdict.reason`` of a question between forests whose firing looks the same (same inputs, same outputs)
TWIN_FORESTS = "twin_forests"
#: ``Verdict.reason`` of a question about a move that rests on unsure readings (the cells to check)
UNSURE_READING = "unsure_reading"
#: ``Verdict.reason`` of a "nothing" verdict for a move seen half done (its cells stay pending)
PARTIAL_MOVE = "partial_move"
#: ``Verdict.reason`` of a "nothing" verdict while the board is not found
NOT_IN_VIEW = "board_not_in_view"


def kit_colours(colours: Sequence[str]) -> tuple[str, ...]:
    """The kit pawn colour of each seat: the seat's own colour when the kit has it, else the
    first kit colour no other seat uses (in kit order), so every seat gets a distinct colour.

    Parameters
    ----------
    colours : sequence of str
        The seats' colours, seat 0 first (any names).

    Returns
    -------
    tuple of str
        One kit colour (of :data:`COLOUR_NAMES`) per seat.

    >>> kit_colours(["red", "blue"]), kit_colours(["black", "red", "white"])
    (('red', 'blue'), ('blue', 'red', 'green'))
    """
    taken = {c for c in colours if c in COLOUR_NAMES}
    spare = [c for c in COLOUR_NAMES if c not in taken]
    return tuple(c if c in COLOUR_NAMES else spare.pop(0) for c in colours)


def arrow_slot(tail: Cell, head: Cell) -> tuple[Slot, str]:
    """The slot and label of an arrow from ``tail`` to ``head`` (neighbouring cells).

    Parameters
    ----------
    tail, head : (q, r)

    Returns
    -------
    (tuple, str)
        ``("arrow", q1, r1, q2, r2)`` with the smaller cell first, and ``"forward"`` when the
        arrow points from the first cell to the second, else ``"backward"``.

    >>> arrow_slot((0, 4), (0, 3))
    (('arrow', 0, 3, 0, 4), 'backward')
    """
    if tail < head:
        return ("arrow", *tail, *head), "forward"
    return ("arrow", *head, *tail), "backward"


class ScoutPennantTable(TableModel):
    """The Scout Pennant table (module docstring for the slots).

    Parameters
    ----------
    layout : MatLayout, optional
        The mat (default ``mat_layout("scout-pennant")``).
    """

    game = GAME_ID

    def __init__(self, layout: MatLayout | None = None):
        self.layout = layout or mat_layout(GAME_ID)
        self.cells = [c.key for c in self.layout.cells]
        self.edges = [(e.a, e.b) if e.a < e.b else (e.b, e.a) for e in self.layout.edges]
        self._edge_slots: dict[Cell, list[Slot]] = {c: [] for c in self.cells}
        for a, b in self.edges:
            self._edge_slots[a].append(("arrow", *a, *b))
            self._edge_slots[b].append(("arrow", *a, *b))
        self._blank: dict[Slot, str] = {}
        for c in self.cells:
            self._blank[("piece", *c)] = "empty"
            self._blank[("patrol", *c)] = "none"
        for a, b in self.edges:
            self._blank[("arrow", *a, *b)] = "none"
        self._colours: dict[int, tuple] = {}
        #: cells a change is being explained on (set by the tracker): builds are listed there only
        self.focus: set | None = None

    # -- slots --------------------------------------------------------------------------------
    def slots(self, cells: Iterable[Cell]) -> list[Slot]:
        """Piece and patrol slots of each cell, and the arrow slots of every edge touching one
        (each once), in the order given; cells not on the mat are skipped."""
        out: list[Slot] = []
        seen: set = set()
        for cell in cells:
            cell = tuple(cell)
            if cell not in self._edge_slots:
                continue
            for slot in [("piece", *cell), ("patrol", *cell), *self._edge_slots[cell]]:
                if slot not in seen:
                    seen.add(slot)
                    out.append(slot)
        return out

    def all_slots(self) -> list[Slot]:
        """Every slot of the mat: 61 pieces, 61 patrols, 156 arrows."""
        return list(self._blank)

    def cell_of(self, slot: Slot) -> Cell:
        """``(q, r)`` of a piece or patrol slot; the first hex of an arrow slot."""
        return (slot[1], slot[2])

    def describe(self, cell: Cell) -> str:
        """``(0, -3)`` -> ``"0,-3"`` (the label printed on the mat's cell)."""
        return ",".join(str(v) for v in cell)

    # -- expectations -------------------------------------------------------------------------
    def seat_colours(self, state: State) -> tuple[str, ...]:
        """:func:`kit_colours` of the state's seats (cached per configuration)."""
        key = id(state.cfg)
        hit = self._colours.get(key)
        if hit is None or hit[0] is not state.cfg:
            hit = (state.cfg, kit_colours(state.cfg.colours))
            if len(self._colours) > 16:
                self._colours.clear()
            self._colours[key] = hit
        return hit[1]

    def expected(self, state: State) -> dict[Slot, str]:
        """Every slot's label in ``state`` (pieces, patrols by kit colour, arrows)."""
        out = dict(self._blank)
        for cell, kind in state.kinds.items():
            slot = ("piece", *cell)
            if slot in out:
                out[slot] = kind
        colours = self.seat_colours(state)
        for cell, seat in state.patrols.items():
            slot = ("patrol", *cell)
            if slot in out:
                out[slot] = colours[seat]
        for forest, ins in state.pre.items():
            for c in ins:
                slot, label = arrow_slot(c, forest)
                if slot in out:
                    out[slot] = label
        for forest, outs in state.post.items():
            for c in outs:
                slot, label = arrow_slot(forest, c)
                if slot in out:
                    out[slot] = label
        return out

    # -- events -------------------------------------------------------------------------------
    def builds_at(self, state: State, seat: int, cells: Iterable[Cell]) -> list[Event]:
        """Every legal ``build`` of ``seat`` on ``cells`` (turn checks aside, §3.2), arrows in
        direction order as :func:`~assistant.games.scout_pennant.legal.builds` lists them.

        Parameters
        ----------
        state : State
        seat : int
        cells : iterable of (q, r)
            Cells to build on (occupied, off-board and fixed cells are skipped).

        Returns
        -------
        list of Event
            Empty when the arrow supply is out.
        """
        out: list[Event] = []
        arrows_left = state.supply_left("arrow")
        if arrows_left is not None and arrows_left < 1:
            return out
        for cell in sorted(set(map(tuple, cells))):
            if cell in state.kinds or not state.cfg.on_board(cell) or state.cfg.fixed(cell):
                continue
            for piece in (CLEARING, FOREST):
                left = state.supply_left(piece)
                if left is not None and left < 1:
                    continue
                want = FOREST if piece == CLEARING else CLEARING
                others = [nb for nb in neighbours(cell) if state.kinds.get(nb) == want]
                for ways in product(_WAYS, repeat=len(others)):
                    arrows = [(w, nb) for w, nb in zip(ways, others) if w is not None]
                    if arrows and (arrows_left is None or len(arrows) <= arrows_left):
                        out.append(build_event(seat, cell, piece, arrows))
        return out

    def visible_events(self, state: State) -> list[Event]:
        """The legal moves of the player to move (§3.1-§3.5): the mandatory take, or the
        enters, fires and builds the turn allows; none while a d8 turn waits for its roll.
        With :attr:`focus` set, builds only on those cells."""
        if state.game_over or state.to_move is None:
            return []
        c = state.to_move
        if rules.must_take(state):
            return [Event.make(c, TAKE)]
        if state.cfg.variant == "d8" and state.roll is None:
            return []
        kinds = rules.allowed_kinds(state)
        out = list(legal.moves(state, c, kinds - {BUILD}))
        if BUILD in kinds:
            out += self.builds_at(state, c, self.focus) if self.focus is not None else list(legal.builds(state, c))
        return out

    def touched(self, state: State, event: Event, game: Any = None) -> set[Cell]:
        """Cells an event involves, legal or not: a build's cell and its arrows' other cells; a
        fire's forest, inputs and outputs; the mover's start for ``enter``; the finish for a take."""
        if event.type == BUILD:
            return {tuple(event["cell"])} | {c for _w, c in arrow_pairs(event["arrows"])}
        if event.type == FIRE:
            f = tuple(event["cell"])
            return {f, *state.pre.get(f, ()), *state.post.get(f, ())}
        if event.type == ENTER and isinstance(event.actor, int) and event.actor < len(state.cfg.starts):
            return {state.cfg.starts[event.actor]}
        if event.type == TAKE:
            return {FINISH}
        return set()

    # -- reading ------------------------------------------------------------------------------
    def read(self, frame: np.ndarray, homography: np.ndarray, slots: Sequence[Slot]) -> dict[Slot, Reading]:
        """Read ``slots`` off a frame ``(H, W, 3) uint8`` BGR with the mat's homography (mat mm
        -> px), with the kit detector (:func:`~assistant.vision.kits.scout_pennant_board.read_slots`)."""
        from ..vision.kits.scout_pennant_board import read_slots

        return read_slots(frame, homography, slots, self.layout)

    def guesses(self, state: State, before: Mapping[Slot, str], observed: Observation) -> list[Event]:
        """Single moves the sure readings suggest, legal or not, to name an illegal move: a new
        piece with the arrows read round it is a ``build``; patrols gone from the inputs or
        come onto the outputs of one forest a ``fire`` by the player to move; a pawn on a start
        clearing that player's ``enter``; a pawn gone from the finish its owner's take.

        Parameters
        ----------
        state : State
            The committed state.
        before : dict slot -> str
            :meth:`expected` of ``state``.
        observed : dict slot -> Reading
            Unsure readings are ignored.

        Returns
        -------
        list of Event
            Unchecked events (the engine's refusal names an illegal one), builds first.
        """
        sure = {s: r.label for s, r in observed.items() if r.sure}
        c = state.to_move if state.to_move is not None else 0
        out: list[Event] = []
        colours = self.seat_colours(state)
        for slot, label in sorted(sure.items()):
            if slot[0] == "piece" and label != "empty" and before.get(slot) == "empty":
                cell = (slot[1], slot[2])
                arrows = []
                for edge in self._edge_slots.get(cell, ()):
                    way = sure.get(edge, before.get(edge))
                    if way in ("forward", "backward") and way != before.get(edge):
                        a, b = (edge[1], edge[2]), (edge[3], edge[4])
                        tail, other = (a, b) if way == "forward" else (b, a)
                        arrows.append(("to", other) if tail == cell else ("from", tail))
                out.append(build_event(c, cell, label, arrows))
        removed = {(s[1], s[2]) for s, v in sure.items() if s[0] == "patrol" and v == "none"
                   and before.get(s, "none") != "none"}
        added = {(s[1], s[2]): v for s, v in sure.items() if s[0] == "patrol" and v != "none"
                 and before.get(s) != v}
        moved = removed | set(added)
        if moved:
            fits = []
            for forest in state.forests():
                ins, outs = set(state.pre[forest]), set(state.post[forest])
                if removed <= ins and set(added) <= outs:
                    fits.append((-len(moved & (ins | outs)), forest))
            out += [Event.make(c, FIRE, cell=f) for _n, f in sorted(fits)]
        for cell, colour in sorted(added.items()):
            if cell in state.cfg.starts and colour in colours:
                out.append(Event.make(colours.index(colour), ENTER))
        if FINISH in removed and state.patrols.get(FINISH) is not None:
            out.append(Event.make(state.patrols[FINISH], TAKE))
        return out


class PositionGame:
    """The Scout Pennant engine with a summary that names the whole net (pieces and arrows), so
    the shared search and its rival check tell apart builds that differ only in their arrows
    (the §5.4 summary only counts them). Everything else is delegated to the engine."""

    def __init__(self, game=PENNANT):
        self._game = game

    def __getattr__(self, name: str):
        return getattr(self._game, name)

    def summary(self, state: State) -> dict[str, Any]:
        """The §5.4 summary plus ``net``: sorted pieces and arrows of the position."""
        out = dict(self._game.summary(state))
        out["net"] = {"pieces": sorted((list(c), k) for c, k in state.kinds.items()),
                      "arrows": [[list(a), list(b)] for a, b in state.arrow_list()]}
        return out


class ScoutPennantTracker(Tracker):
    """The shared tracker for Scout Pennant (see :class:`~assistant.tracking.base.Tracker`), plus:

    - builds are searched only on the cells the gate reported;
    - a change whose only readings are unsure asks (it is never dropped as "nothing");
    - uncertain evidence never commits: a move that rests on an unsure reading (one of a cell
      it touches, or one that disagrees with the table it leaves) is asked about instead, with
      ``reason`` :data:`UNSURE_READING` and the cells to check (:meth:`doubts`);
    - an illegal move highlights the cells it involves (a fire: its forest, inputs, outputs);
    - firing one of two forests with the same inputs and outputs asks which (``reason`` is
      :data:`TWIN_FORESTS`): the positions are the same, so the shared search would keep one
      of them and commit it, but the record must name the forest that was fired;
    - cells of a change left unexplained stay *pending* and are read again with the next
      change (:meth:`cells_to_read`, :meth:`see`): the motion gate re-baselines at every still
      moment, so a move the gate saw in two halves is only explained by both halves together;
    - a change that is the first part of a legal move (a pawn taken off an input, a forest laid
      before its arrows) is "nothing" with ``reason`` :data:`PARTIAL_MOVE`, not a question.

    Parameters
    ----------
    state : State
        The starting state (from the record header).
    layout : MatLayout, optional
    max_depth : int
        Longest run of moves found between two still moments (default 4).
    beam : int
    """

    def __init__(self, state: State, layout: MatLayout | None = None, max_depth: int = 4, beam: int = 24):
        super().__init__(PositionGame(), ScoutPennantTable(layout), state, max_depth, beam)
        #: cells of changes not explained yet (a move half done, a question open): read again next time
        self.pending: set = set()

    def cells_to_read(self, changed: Iterable[Cell]) -> list[Cell]:
        """The cells whose slots :meth:`explain` needs readings of: ``changed`` and :attr:`pending`."""
        return sorted({tuple(c) for c in changed} | self.pending)

    def see(self, frame: np.ndarray, homography: np.ndarray | None, changed: Iterable[Cell]) -> Verdict:
        """Read the cells of a stable change (and the pending ones) off ``frame`` and explain it.

        Parameters
        ----------
        frame : (H, W, 3) uint8 BGR
            The still frame of the change.
        homography : (3, 3) or None
            Mat mm -> frame px; ``None`` when the board is not found (nothing is read; the
            cells stay pending).
        changed : iterable of cells
            The gate's ``changed`` and ``unsure`` cells.

        Returns
        -------
        Verdict
        """
        cells = self.cells_to_read(changed)
        observed = self.model.read(frame, homography, self.model.slots(cells)) if homography is not None else {}
        if cells and not observed:
            self.pending = set(cells)
            return Verdict("nothing", [], cells, "The board is not in view: waiting.", reason=NOT_IN_VIEW)
        return self.explain(observed, cells)

    def explain(self, observed: Observation, changed: Iterable[Cell]) -> Verdict:
        """As :meth:`Tracker.explain`, with the additions of the class docstring. ``observed``
        must hold the slots of ``changed`` and of the :attr:`pending` cells (:meth:`cells_to_read`)."""
        changed = {tuple(c) for c in changed} | self.pending
        before = self.state
        now = self.model.expected(before)
        # a build shows as a new piece: search builds only where no sure reading says "as before"
        self.model.focus = {c for c in changed if not (observed.get(("piece", *c)) is not None
                                                       and observed[("piece", *c)].sure
                                                       and observed[("piece", *c)].label == now.get(("piece", *c)))}
        try:
            verdict = super().explain(observed, changed)
            if verdict.kind == "commit":
                doubts = self.doubts(before, verdict.events, observed)
                twins = [] if doubts else self._twins(before, verdict.events)
                if doubts or twins:          # undo the shared tracker's commit
                    self.state = before
                    del self.log[len(self.log) - len(verdict.events):]
                if doubts:                   # the move rests on readings that are not sure: ask
                    names = ", ".join(map(self.model.describe, doubts))
                    verdict = Verdict("ask", [], doubts, f"I cannot read {names} clearly: please check "
                                      + ("that cell." if len(doubts) == 1 else "those cells."),
                                      reason=UNSURE_READING, options=[list(verdict.events)])
                elif twins:                  # two forests with the same arrows: the table cannot tell
                    verdict = Verdict("ask", [], sorted(changed), "Forests with the same arrows fit what I see: "
                                      "which one was fired?", reason=TWIN_FORESTS,
                                      options=[list(verdict.events)] + twins)
            elif (verdict.kind in ("ask", "illegal") and len(verdict.options) < 2
                  and all(r.sure for r in observed.values() if r.label != "none") and self._partial(observed)):
                verdict = Verdict("nothing", [], sorted(changed), "Part of a move so far: waiting for the rest.",
                                  reason=PARTIAL_MOVE)
        finally:
            self.model.focus = None
        unsure = sorted({self.model.cell_of(s) for s, r in observed.items() if not r.sure})
        if verdict.kind == "nothing" and verdict.reason is None and unsure:
            names = ", ".join(map(self.model.describe, unsure))
            verdict = Verdict("ask", [], unsure, f"I cannot read {names} clearly: please check those cells.")
        if verdict.kind == "illegal" and verdict.events:
            cells = self.model.touched(self.state, verdict.events[0]) | changed
            verdict.cells = sorted(cells)
        done = verdict.kind == "commit" or (verdict.kind == "nothing" and verdict.reason is None)
        self.pending = set() if done else set(changed)
        return verdict

    def doubts(self, state: State, events: Sequence[Event], observed: Observation) -> list[Cell]:
        """The cells whose unsure readings a commit of ``events`` from ``state`` would rest on.

        The shared search ignores unsure readings (:func:`~assistant.tracking.base.mismatches`),
        so an explanation it finds may rest on them; this check runs on the explanation it
        would commit. A reading counts against the commit when it is unsure and

        - its slot belongs to a cell the events touch (:meth:`ScoutPennantTable.touched`: a
          build's cell and its arrows' cells, a fire's forest, inputs and outputs, a start, the
          finish), or its expected label changes, whatever the reading says: the move is only
          known from those slots, and an unsure label that agrees with it is no better evidence
          than a coin that came up right (the players confirm instead); or
        - its label differs from what the table shows after the events (it may be part of
          another move).

        An unsure reading of an untouched cell that agrees with the table is harmless.

        Parameters
        ----------
        state : State
            The committed state before the events.
        events : sequence of Event
            The explanation (legal events, applied in order).
        observed : dict slot -> Reading
            The readings the explanation was found from.

        Returns
        -------
        list of (q, r)
            Sorted cells to show the players (an arrow's hex on the touched side); empty when
            every reading the explanation needs is sure.
        """
        s, touched = state, set()
        for ev in events:
            touched |= self.model.touched(s, ev)
            s = self.game.apply(s, ev)
        before, after = self.model.expected(state), self.model.expected(s)
        relied = set(self.model.slots(touched)) | {k for k in after if after[k] != before.get(k)}
        out = set()
        for slot, reading in observed.items():
            if reading.sure or (slot not in relied and reading.label == after.get(slot)):
                continue
            cell = self.model.cell_of(slot)
            if slot[0] == "arrow" and cell not in touched and (slot[3], slot[4]) in touched:
                cell = (slot[3], slot[4])
            out.add(cell)
        return sorted(out)

    def _partial(self, observed: Observation) -> bool:
        """True when every sure reading that differs from the committed table agrees with what one
        visible legal move would show (a move seen half done: a pawn taken off an input, a piece
        laid before its arrows)."""
        before = self.model.expected(self.state)
        diffs = {s: r.label for s, r in observed.items() if r.sure and r.label != before.get(s)}
        if not diffs:
            return False
        for ev in self.model.visible_events(self.state):
            after = self.game.apply(self.state, ev)
            if after:
                exp = self.model.expected(after)
                if all(exp.get(s) == label for s, label in diffs.items()):
                    return True
        return False

    def _twins(self, state: State, events: list[Event]) -> list[list[Event]]:
        """Other event sequences leading to the same position as ``events`` from ``state`` by
        firing another forest with the same inputs and outputs at some step (the shared search
        keeps one sequence per position, so such a twin is never offered as a rival)."""
        out: list[list[Event]] = []
        s = state
        for i, ev in enumerate(events):
            after = self.game.apply(s, ev)
            if ev.type == FIRE:
                key = position_key(after)
                for other in legal.fires(s, ev.actor):
                    if other != ev:
                        alt = self.game.apply(s, other)
                        if alt and position_key(alt) == key:
                            out.append(list(events[:i]) + [other] + list(events[i + 1:]))
            s = after
        return out


def tracker_for(setup: Mapping[str, Any], rulings: Mapping[str, Any] | None = None,
                layout: MatLayout | None = None) -> ScoutPennantTracker:
    """A tracker starting from a record header's ``setup`` and ``rulings``.

    Parameters
    ----------
    setup : dict
        The header's ``setup`` (players, radius, variant, optional position).
    rulings : dict, optional
        The header's ``rulings`` (default none).
    layout : MatLayout, optional
        The mat (default the printed one).

    Returns
    -------
    ScoutPennantTracker

    Raises
    ------
    MalformedError
        For a bad header (see :meth:`~assistant.games.scout_pennant.ScoutPennant.new_state`).
    """
    return ScoutPennantTracker(PENNANT.new_state(setup, rulings or {}), layout)


def position_key(state: State) -> str:
    """A string naming a position completely (the :class:`PositionGame` summary as JSON).

    Parameters
    ----------
    state : State

    Returns
    -------
    str
        Equal for two states exactly when their summaries are equal (the §5.4 summary: players,
        board, turn, roll, result; and the whole net).
    """
    return json.dumps(PositionGame().summary(state), sort_keys=True, default=str)


__all__ = ["ScoutPennantTable", "ScoutPennantTracker", "PositionGame", "kit_colours", "arrow_slot", "tracker_for",
           "TWIN_FORESTS", "PARTIAL_MOVE", "UNSURE_READING", "NOT_IN_VIEW",
           "position_key", "PIECE_LABELS", "ARROW_LABELS", "PATROL_LABELS"]
