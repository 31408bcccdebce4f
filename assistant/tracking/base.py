"""The move tracker: from stable changes of the board to checked events of the game's record.

The principle (the one that makes live systems in this field work): never re-read the whole
board; explain each stable change as a short sequence of *legal* events from the last
committed state, scored against the readings of the cells that changed, and ask the players
when the evidence does not decide.

A game plugs in with a :class:`TableModel`: which slots a cell has, what the table should show
in a given state (:meth:`TableModel.expected`), which events can show on the table and which
cells each touches, and how to read slots off a frame (a detector). The :class:`Tracker` does
the rest, the same way for every game:

1. read the slots of the changed cells (the others did not change: the motion gate says so);
2. beam-search sequences of visible legal events (each touching only changed cells) whose
   expected table matches the readings and leaves every other slot as it was;
3. commit the unique best explanation; ask when two explanations fit equally or an uncertain
   reading decides; report an illegal move (with the engine's reason code) when only an
   illegal event explains the change; never commit half of a compound move.

Slots are tuples whose first item names their kind, e.g. ``("face", 1, 2)``, ``("sand", 1, 2)``,
``("card",)``; their last items are the cell key they belong to (see :meth:`TableModel.cell_of`).
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Hashable, Iterable, Mapping, Sequence

import numpy as np

from ..games.base import Event, Game

Slot = tuple
Cell = Hashable

#: what fitting a reading's alternative (not its best label) costs an explanation
ALTERNATIVE_COST = 0.3
#: an explanation this close to the table is committed (at most one alternative used)
COMMIT_BELOW = 0.5
#: a reading below this confidence, or with a margin below MIN_MARGIN, does not decide anything
MIN_CONFIDENCE = 0.6
MIN_MARGIN = 0.5
#: ``Verdict.reason`` of a question whose options are only what the readings suggest
#: (:meth:`TableModel.guesses`) where nothing legal fits them: never settled, only answered
GUESSED = "guessed"


@dataclass(frozen=True)
class Reading:
    """What a detector read in one slot: ``label``, ``confidence`` in 0..1, ``margin`` >= 0."""

    label: str
    confidence: float = 1.0
    margin: float = 10.0
    #: other labels the evidence fits as well (e.g. "a red pawn left" or "a blue one came")
    alternatives: tuple[str, ...] = ()

    def fits(self, label: str | None) -> bool:
        """Whether ``label`` agrees with this reading (its label or one of its alternatives)."""
        return label == self.label or label in self.alternatives

    @property
    def sure(self) -> bool:
        """Confident and clear of the second label (see ``MIN_CONFIDENCE``, ``MIN_MARGIN``)."""
        return self.confidence >= MIN_CONFIDENCE and self.margin >= MIN_MARGIN


Observation = Mapping[Slot, Reading]


class TableModel(ABC):
    """How one game looks on the table: slots, expectations, visible events, detection."""

    #: record id of the game
    game: str = ""

    @abstractmethod
    def slots(self, cells: Iterable[Cell]) -> list[Slot]:
        """Every slot of the given cells (a cell may have several: face, sand, pawns...)."""

    @abstractmethod
    def cell_of(self, slot: Slot) -> Cell:
        """The cell a slot belongs to."""

    @abstractmethod
    def expected(self, state: Any) -> dict[Slot, str]:
        """The label every slot of the table should read in ``state`` (what a camera would see)."""

    @abstractmethod
    def visible_events(self, state: Any) -> list[Event]:
        """Legal events that change the table (the rest come from the tablet)."""

    def touched(self, state: Any, event: Event, game: Game | None = None) -> set[Cell]:
        """Cells whose look ``event`` changes in ``state``: the cells of the slots whose expected
        label differs after it (an illegal event touches the cells its parameters name, if the
        game says so by overriding this)."""
        if game is None:
            return set()
        after = game.apply(state, event)
        if not after:
            return set()
        return diff_cells(self, self.expected(state), self.expected(after))

    def read(self, frame: np.ndarray, homography: np.ndarray, slots: Sequence[Slot]) -> dict[Slot, Reading]:
        """Read ``slots`` off a frame ``(H, W, 3) uint8`` BGR with the mat's homography (mm -> px)."""
        raise NotImplementedError(f"{type(self).__name__} has no detector")

    #: whether :meth:`guesses` the engine allows are offered as the options of a question when
    #: nothing legal fits the readings (games whose events hold nothing hidden)
    offers_guesses: bool = False

    def guesses(self, state: Any, before: Mapping[Slot, str], observed: Observation) -> list[Event]:
        """Single events, legal or not, that the change suggests: to name an illegal move, and,
        where :attr:`offers_guesses`, the legal ones as a question's options."""
        return []

    def describe(self, cell: Cell) -> str:
        """A cell's name for people ("B3")."""
        return str(cell)

    #: event fields that name a seat (shown as "player N", counted from 1)
    SEAT_FIELDS = ("target", "seat", "to_seat", "from_seat", "receiver", "giver", "carry")

    def event_text(self, event: Event) -> str:
        """An event for people: ``"player 1: move to C2"``, ``"player 3: navigate target player
        1, to B1"``, ``"storm: storm card wind e 1"`` (cells named by :meth:`describe`, seats
        counted from 1, a field named like the event's last word left unnamed, nested objects
        as ``key value`` pairs)."""
        def shown(key: str, value: Any) -> str:
            if key in self.SEAT_FIELDS and isinstance(value, int):
                return f"player {value + 1}"
            if isinstance(value, (list, tuple)) and len(value) == 2 and all(isinstance(v, int) for v in value):
                return self.describe(tuple(value))
            if isinstance(value, Mapping):
                return " ".join(f"{k.replace('_', ' ')} {shown(k, v)}" for k, v in value.items() if v is not None)
            if isinstance(value, (list, tuple)):
                return " ".join(shown(key, v) for v in value)
            return str(value).replace("_", " ")

        who = f"player {event.actor + 1}" if isinstance(event.actor, int) else str(event.actor)
        words = []
        for key, value in event.to_json().items():
            if key in ("actor", "type") or value is None:
                continue
            named = "" if event.type.endswith(key) else key.replace("_", " ") + " "
            words.append(named + shown(key, value))
        return f"{who}: {event.type.replace('_', ' ')}{' ' + ', '.join(words) if words else ''}"


@dataclass(frozen=True)
class Explanation:
    """A candidate explanation: the events, the state they lead to, and how badly it fits."""

    events: tuple[Event, ...]
    state: Any
    mismatches: float


@dataclass
class Verdict:
    """What the tracker concluded about one stable change.

    Attributes
    ----------
    kind : str
        ``"commit"`` (``events`` were applied), ``"nothing"`` (the change needs no event, e.g.
        a piece lifted and put back), ``"ask"`` (the players must choose among ``options`` or
        fix the cells), ``"illegal"`` (an illegal move: ``reason`` is the rules file's code).
    events : list of Event
    cells : list
        Cells involved (for highlighting).
    message : str
        One sentence for the players.
    reason : str or None
        An ``illegal`` verdict's rules code; on ``nothing``, why nothing was committed yet
        when that is worth telling the table (a game's own constants, e.g. Forbidden Desert's
        ``AWAITING_SLIDES``, Scout Pennant's ``PARTIAL_MOVE``); None otherwise.
    options : list of list of Event
        The explanations the players must choose between (``ask``).
    corrections : list of str
        What to change on the table so it matches the committed state.
    private : str
        A fuller explanation that may name hidden information (a walker's true hex): for the
        seat allowed to know it, never for the public table. Empty when ``message`` says it all.
    """

    kind: str
    events: list[Event] = field(default_factory=list)
    cells: list = field(default_factory=list)
    message: str = ""
    reason: str | None = None
    options: list[list[Event]] = field(default_factory=list)
    corrections: list[str] = field(default_factory=list)
    private: str = ""


def diff_cells(model: TableModel, a: Mapping[Slot, str], b: Mapping[Slot, str]) -> set[Cell]:
    """Cells of the slots whose labels differ between two expected tables."""
    return {model.cell_of(s) for s in set(a) | set(b) if a.get(s) != b.get(s)}


def mismatches(expected: Mapping[Slot, str], observed: Observation, before: Mapping[Slot, str],
               watched: Iterable[Slot], strict: bool = False) -> float:
    """How many slots an expected table gets wrong.

    A sure reading costs 1 when the expected label is neither its label nor (unless ``strict``)
    one of its alternatives, ``ALTERNATIVE_COST`` when it is an alternative; every other slot
    in ``watched`` must keep its label from ``before`` (the gate saw no change there).
    """
    bad = 0.0
    for slot in watched:
        want = expected.get(slot)
        reading = observed.get(slot)
        if reading is not None:
            if not reading.sure or reading.label == want:
                continue
            bad += 1.0 if strict or want not in reading.alternatives else ALTERNATIVE_COST
        elif want != before.get(slot):
            bad += 1.0
    return bad


def search(game: Game, model: TableModel, state: Any, observed: Observation, changed: set[Cell],
           max_depth: int = 6, beam: int = 24) -> list[Explanation]:
    """Beam search for the sequences of visible legal events that best explain a change.

    Parameters
    ----------
    game : Game
    model : TableModel
    state : object
        The last committed state.
    observed : dict slot -> Reading
        Readings of the changed cells' slots.
    changed : set
        Cells the motion gate reported (changed or unsure).
    max_depth : int
        Longest sequence tried (6: a Forbidden Desert turn with a Time Throttle).
    beam : int
        Partial sequences kept per depth.

    Returns
    -------
    list of Explanation
        Every explanation with the fewest mismatches found, shortest first; empty when the
        unchanged table already fits (nothing happened).
    """
    before = model.expected(state)
    watched = list(before)
    if mismatches(before, observed, before, watched, strict=True) == 0:
        return []                                    # the best reading of every slot is as before
    start = mismatches(before, observed, before, watched)
    frontier = [Explanation((), state, start)]
    best: list[Explanation] = []
    best_score = start
    seen = set()
    for _depth in range(max_depth):
        nxt = []
        for node in frontier:
            node_exp = model.expected(node.state)
            live = changed | diff_cells(model, before, node_exp)   # where a change may still go on
            for ev in model.visible_events(node.state):
                after = game.apply(node.state, ev)
                if not after:
                    continue
                exp = model.expected(after)
                if not diff_cells(model, node_exp, exp) & live:
                    continue                          # unrelated to anything the gate saw change
                key = json.dumps(game.summary(after), sort_keys=True, default=str)
                if key in seen:                      # the same position by another order of events
                    continue
                seen.add(key)
                cand = Explanation(node.events + (ev,), after, mismatches(exp, observed, before, watched))
                nxt.append(cand)
                if cand.mismatches < best_score - 1e-9:
                    best = [e for e in best if e.mismatches < cand.mismatches + 0.5] + [cand]
                    best_score = cand.mismatches
                elif cand.mismatches < best_score + 0.5 and cand.mismatches < start:
                    best.append(cand)
        if not nxt or best_score < 1e-9:
            break
        nxt.sort(key=lambda e: e.mismatches)
        frontier = nxt[:beam]
    best.sort(key=lambda e: (e.mismatches, len(e.events)))
    return best if best_score < start or (best and best_score < 1e-9) else []


class Tracker:
    """Commits the events that explain each stable change, for one game in progress.

    Parameters
    ----------
    game : Game
    model : TableModel
    state : object
        The starting state (from the record header).
    max_depth, beam : int
        See :func:`search`.
    """

    def __init__(self, game: Game, model: TableModel, state: Any, max_depth: int = 6, beam: int = 24):
        self.game, self.model, self.state = game, model, state
        self.max_depth, self.beam = max_depth, beam
        self.log: list[Event] = []

    def apply_tablet(self, event: Event) -> Verdict:
        """An event the camera cannot see (water, cards, a sea refusal), entered on the tablet."""
        after = self.game.apply(self.state, event)
        if not after:
            return Verdict("illegal", [event], [], after.message, after.reason)
        self.state = after
        self.log.append(event)
        return Verdict("commit", [event], [], "Entered on the tablet.")

    def explain(self, observed: Observation, changed: Iterable[Cell]) -> Verdict:
        """Explain one stable change from the readings of its cells, and commit when sure.

        Parameters
        ----------
        observed : dict slot -> Reading
            The readings of every slot of the changed cells (see :meth:`TableModel.read`).
        changed : iterable of cells
            The cells the gate reported (changed and unsure).

        Returns
        -------
        Verdict
        """
        changed = set(changed)
        names = ", ".join(self.model.describe(c) for c in sorted(changed, key=str))
        found = search(self.game, self.model, self.state, observed, changed, self.max_depth, self.beam)
        unsure = sorted({self.model.cell_of(s) for s, r in observed.items() if not r.sure}, key=str)
        if not found:
            before = self.model.expected(self.state)
            if mismatches(before, observed, before, list(before), strict=True) == 0:
                return Verdict("nothing", [], sorted(changed, key=str), "The table is as it was.")
            guesses = self.model.guesses(self.state, before, observed)
            for guess in guesses:
                refusal = self.game.apply(self.state, guess)
                if not refusal:
                    return Verdict("illegal", [guess], sorted(changed, key=str), refusal.message, refusal.reason)
            # legal moves the readings suggest, though they fit no better than the table as it
            # was (a pawn's arrival missed): offered where the game has nothing hidden in
            # them (TableModel.offers_guesses), never committed
            offered = [[guess] for guess in guesses] if self.model.offers_guesses else []
            if unsure:
                return Verdict("ask", [], unsure, f"I cannot read {', '.join(map(self.model.describe, unsure))} "
                                                  "clearly: please check those cells.", GUESSED, options=offered)
            return Verdict("ask", [], sorted(changed, key=str),
                           f"No legal move explains the change at {names}: please put it back or enter the move.",
                           GUESSED, options=offered)
        found.sort(key=lambda e: (e.mismatches, len(e.events)))
        best = found[0]                              # the closest fit, then the fewest events
        if best.mismatches >= 1:                     # nothing legal fits: an illegal move the readings name?
            before = self.model.expected(self.state)
            for guess in self.model.guesses(self.state, before, observed):
                refusal = self.game.apply(self.state, guess)
                if not refusal:
                    return Verdict("illegal", [guess], sorted(changed, key=str), refusal.message, refusal.reason)
        rivals = [e for e in found[1:] if len(e.events) == len(best.events) and e.mismatches - best.mismatches < 0.1
                  and self.game.summary(e.state) != self.game.summary(best.state)]
        if best.mismatches >= COMMIT_BELOW and unsure:
            return Verdict("ask", [], unsure, f"I cannot read {', '.join(map(self.model.describe, unsure))} clearly.",
                           options=[list(e.events) for e in found[:4]])
        if rivals:
            return Verdict("ask", [], sorted(changed, key=str), f"Two moves fit what I see at {names}: which one was it?",
                           options=[list(best.events)] + [list(e.events) for e in rivals[:3]])
        if best.mismatches >= COMMIT_BELOW:
            return Verdict("ask", [], sorted(changed, key=str),
                           f"The move at {names} does not fully match the table: please check it.",
                           options=[list(best.events)])
        settled = self.settle(best, observed, changed)
        if isinstance(settled, Verdict):
            return settled
        return self.commit(settled.events, changed, state=settled.state)

    def tables_after(self, options: Sequence[Sequence[Event]]) -> list[dict[Slot, str]] | None:
        """The table each option leaves.

        Parameters
        ----------
        options : sequence of sequences of Event
            Each applied in turn from the committed state.

        Returns
        -------
        list of dict slot -> label, or None
            :meth:`TableModel.expected` of the state after each option, in order; None when the
            engine refuses an event of any option.
        """
        tables = []
        for events in options:
            state = self.state
            for ev in events:
                state = self.game.apply(state, ev)
                if not state:
                    return None
            tables.append(self.model.expected(state))
        return tables

    def commit(self, events: Sequence[Event], changed: Iterable[Cell], seen: str = "", state: Any = None) -> Verdict:
        """Commit ``events`` the camera saw (one explanation of a stable change).

        Parameters
        ----------
        events : sequence of Event
            Legal in turn from the committed state.
        changed : iterable of cells
            The cells of the change (for highlighting).
        seen : str, optional
            How the camera told it apart, added to the message in brackets.
        state : State, optional
            The state ``events`` lead to when the caller has it already (the search's
            explanation); else they are applied here.

        Returns
        -------
        Verdict
            ``commit`` with the events and "Seen: ..." in the game's words; ``illegal`` (nothing
            committed) when the engine refuses one of them now.
        """
        if state is None:
            state = self.state
            for ev in events:
                after = self.game.apply(state, ev)
                if not after:
                    return Verdict("illegal", [ev], sorted(changed, key=str), after.message, after.reason)
                state = after
        self.state = state
        self.log.extend(events)
        told = "; then ".join(self.model.event_text(e) for e in events)
        return Verdict("commit", list(events), sorted(changed, key=str),
                       f"Seen: {told}" + (f" ({seen})." if seen else "."))

    def settle(self, best: Explanation, observed: Observation, changed: set) -> "Explanation | Verdict":
        """The last word before ``best`` (the unique explanation that fits) is committed: a game
        whose legal events may differ only in pieces a camera easily misses checks here that the
        readings saw the difference.

        Returns
        -------
        Explanation or Verdict
            The explanation to commit (by default ``best``), or a verdict (a question) to
            return instead, with nothing committed.
        """
        return best
