""""Check the table" for Forbidden Desert: a full read of every slot at a quiet moment, compared
with the engine's state.

The live tracker explains each change from the last committed state and never looks at the whole
table again, so one change it missed or misread would leave it out of step for good. A check
reads every slot (:meth:`~..vision.detectors.forbidden_desert.FDDetector.read`; the pawns by
change against the last committed still when one is given, which a tile's painting cannot
confuse) and compares the readings with what the engine's state should look like
(:meth:`~.forbidden_desert.ForbiddenDesertTable.expected`):

- a difference read very surely (confidence ``CORRECT_SURE`` per slot kind, at least
  ``CHECK_MARGIN`` nats over the runner-up, so over the engine's label too) becomes a
  *correction*: one sentence in the rules' terms saying what to change on the table so that it
  shows the engine's state ("take the sand off C3", "the blue pawn belongs on B2"). A tile's
  or sand's reading lists the other labels ranked behind it as its alternatives (the sand
  network lists every other level), so the engine's label being one of them says nothing: the
  margin does;
- a difference read surely but not that surely becomes a *question* ("Is there sand on C3?");
- a difference read less surely still (the tracker's ``sure``: confidence 0.6, margin 0.5) is
  asked about only when one legal visible event from the engine's state, or two, make the
  table the one read with no sure reading against them: the move the camera missed (two levels
  of a sand stack are hard to tell apart; a legal move that explains the reading makes it worth
  asking);
- anything else says nothing. A correct table checked again and again must raise nothing:
  a wrong correction costs more than a late one.

When legal visible events from the engine's state explain every difference at once (a move the
camera missed), they are offered (:attr:`TableCheck.missed`), for the referee to enter, and each
difference they change is theirs (:attr:`Finding.missed`): it is not traced to a committed event,
so no undo of a right event is suggested. Every other difference is traced to the committed event
that most likely caused it: walking back the record, the most recent event that changed that
slot's expected look, preferring one whose state before shows what the table shows now (the
table never followed it). The referee can undo it when it is the last event
(:meth:`~..referee.session.Session.can_undo`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from ..games.base import Event, Game
from .base import Reading, Slot, search
from .desert_cards import one_move_but_the_card, with_card_drawn, without_card
from .forbidden_desert import CARD, ForbiddenDesertTable, cell_name, colours_of

#: a difference read at least this sure (confidence) becomes a correction, per slot kind (pawns
#: only when read by change against the last committed still: from one still, crowded tiles are
#: misread too often to correct anyone; see :func:`compare_table`)
CORRECT_SURE = {"face": 0.99, "sand": 0.95, "parts": 0.95, "pawns": 0.9}
#: a difference read at least this sure becomes a question (below it: nothing is said)
ASK_SURE = {"face": 0.9, "sand": 0.8, "parts": 0.8, "pawns": 0.9}
#: and with at least this margin (nats over the runner-up) for either
CHECK_MARGIN = 1.0
#: longest sequence of missed events looked for
MISSED_DEPTH = 2


@dataclass(frozen=True)
class Cause:
    """The committed event a difference most likely comes from: ``index`` (1-based, its place in
    the record), the ``event``, ``text`` (for people), ``undoable`` (it is the last event, so the
    referee may undo it; the server sets it from the session), ``stale`` (the table still shows
    what it showed before it: the table never followed it)."""

    index: int
    event: Event
    text: str
    undoable: bool = False
    stale: bool = False


@dataclass(frozen=True)
class Finding:
    """One difference: the ``cell`` ``(r, c)`` (or ``("card",)``), ``kind`` (``"correction"`` or
    ``"question"``), the slots it is about, one ``sentence``, and its ``cause`` (or None when no
    committed event changed that slot: the table differed from the start, or a missed move
    explains it). ``missed`` names the move(s) the camera missed that explain this difference
    (:attr:`TableCheck.missed`; "" when none does): the difference is then theirs, to be entered,
    not a committed event's, to be undone, so ``cause`` is None; unless the missed move only
    takes the table back to how it was before the last event, which undoing that event explains
    as well: then both are given."""

    cell: tuple
    kind: str
    slots: tuple
    sentence: str
    cause: Cause | None = None
    missed: str = ""

    def text(self) -> str:
        """The sentence with its cause: ``"Take the sand off C3 (since event 12: player 1: remove
        sand at C3)."``, or with the missed move that explains it: ``"... (a move the camera
        missed: player 1: move to B2)."``."""
        if self.missed and self.cause is not None:
            return (f"{self.sentence[:-1]} (since event {self.cause.index}: {self.cause.text}; "
                    f"or a move the camera missed: {self.missed}).")
        if self.missed:
            return f"{self.sentence[:-1]} (a move the camera missed: {self.missed})."
        if self.cause is None:
            return self.sentence
        return f"{self.sentence[:-1]} (since event {self.cause.index}: {self.cause.text})."


@dataclass
class TableCheck:
    """What :func:`compare_table` found.

    Attributes
    ----------
    findings : list of Finding
        Corrections first, then questions, each in row-major cell order.
    missed : list of Event
        Legal visible events from the engine's state that explain every sure difference (a
        move the camera missed; at most ``MISSED_DEPTH``); empty when none does, or more than
        one sequence fits. The cells they change are among the findings (questions at least).
    missed_text : str
        One sentence naming them, or "".
    missed_options : list of list of Event
        What the referee may post for them: ``[missed]``; or, when an excavation among them
        draws an equipment card the camera cannot see (a physical deck, rules §5.3), one
        sequence per card still possible (:func:`~.desert_cards.with_card_drawn`), ``missed``
        then leaving the card out. Empty when ``missed`` is.
    """

    findings: list = field(default_factory=list)
    missed: list = field(default_factory=list)
    missed_text: str = ""
    missed_options: list = field(default_factory=list)

    @property
    def corrections(self) -> list[Finding]:
        """The findings that are corrections."""
        return [f for f in self.findings if f.kind == "correction"]

    @property
    def questions(self) -> list[Finding]:
        """The findings that are questions."""
        return [f for f in self.findings if f.kind == "question"]

    @property
    def clean(self) -> bool:
        """Nothing to say: the table matches the engine as far as it was read surely."""
        return not self.findings and not self.missed

    def cells(self) -> list:
        """The cells of the findings, in order, each once."""
        return list(dict.fromkeys(f.cell for f in self.findings))

    def to_json(self) -> dict[str, Any]:
        """``{"corrections": [...], "questions": [...], "missed": [event objects], "missed_text": str,
        "missed_options": [[event objects], ...]}``,
        each finding ``{"cell", "name", "sentence", "cause": {"index", "text", "undoable"} | None,
        "missed": str | None}`` (``missed``: the missed move that explains it, see :class:`Finding`)."""
        def one(f: Finding) -> dict[str, Any]:
            cause = None if f.cause is None else {"index": f.cause.index, "text": f.cause.text,
                                                   "undoable": f.cause.undoable}
            return {"cell": list(f.cell), "name": cell_name(f.cell), "sentence": f.sentence, "cause": cause,
                    "missed": f.missed or None}
        return {"corrections": [one(f) for f in self.corrections], "questions": [one(f) for f in self.questions],
                "missed": [e.to_json() for e in self.missed], "missed_text": self.missed_text,
                "missed_options": [[e.to_json() for e in seq] for seq in self.missed_options]}


def _level(reading: Reading, kind: str) -> str | None:
    """``"correction"``, ``"question"`` or None for a reading of a slot of ``kind`` whose label
    differs from the engine's (``CORRECT_SURE``, ``ASK_SURE``, ``CHECK_MARGIN``; the margin is
    over the runner-up, so the engine's label, whichever alternative it is, is at least as far
    behind)."""
    if reading.margin < CHECK_MARGIN:
        return None
    if reading.confidence >= CORRECT_SURE[kind]:
        return "correction"
    return "question" if reading.confidence >= ASK_SURE[kind] else None


def _sand_sentence(name: str, have: str, need: str, count: int) -> tuple[str, str]:
    """(correction, question) sentences for a cell's sand; ``count`` the engine's markers there."""
    if need == "none":
        return f"Take the sand off {name}.", f"Is there sand on {name}? The game has none there."
    stack = "one sand marker, light side up" if count == 1 else f"{count} sand markers, the top one dark side up"
    if have == "none":
        return f"Put {stack} on {name}.", f"Is {name} bare? The game has {stack} there."
    if need == "dark":
        return (f"Turn the marker on {name} dark side up: the tile holds {count} markers.",
                f"Is the marker on {name} light side up? The game has {count} markers there.")
    return (f"Leave one sand marker on {name}, light side up.",
            f"Does {name} hold more than one sand marker? The game has one there.")


def _face_sentence(name: str, have: str, need: str) -> tuple[str, str]:
    def shown(label: str) -> str:
        if label == "storm":
            return "empty (the storm)"
        return (f"desert side up ({label.replace('_', ' ')})" if label.endswith("_back")
                else f"city side up ({label.replace('_', ' ')})")
    if need == "storm":
        return (f"{name} is the storm: take the tile off it (the tiles slide as the storm cards say).",
                f"Is there a tile on {name}? It is the storm.")
    return (f"The tile on {name} should lie {shown(need)}; it is read {shown(have)}.",
            f"Does the tile on {name} lie {shown(need)}? It is read {shown(have)}.")


def _parts_sentence(name: str, have: str, need: str) -> tuple[str, str]:
    def named(label: str) -> str:
        return " and ".join(p.replace("_", " ") for p in label.split("+")) if label else "no part"
    return (f"{name} should hold {named(need)}; it is read with {named(have)}.",
            f"Does {name} hold {named(have)}? The game has {named(need)} there.")


def _pawn_findings(want: Mapping[Slot, str], readings: Mapping[Slot, Reading], by_change: bool) -> list[tuple]:
    """(cell, level, slots, sentence) for the pawns: a pawn missing from its cell "belongs on"
    it (saying where it is read instead), one read where the game has none is taken off; one
    read where the game has none and also on its own cell (:func:`read_twice`: one of the two
    readings is wrong, the camera cannot say which) is asked about, never corrected."""
    now = {s[1:]: r for s, r in readings.items() if s[0] == "pawns"}
    out = []
    seen_at: dict[str, list] = {}
    for cell, r in now.items():
        for colour in colours_of(r.label) - colours_of(want.get(("pawns", *cell), "")):
            seen_at.setdefault(colour, []).append(cell)
    twice = read_twice(want, readings)
    said: set[str] = set()                          # colours said to belong on their cell
    later = []
    for cell, r in sorted(now.items()):
        need = want.get(("pawns", *cell), "")
        if r.label == need or r.fits(need) and not by_change:
            continue
        level = _level(r, "pawns")
        if level == "correction" and not by_change:
            level = "question"                      # one still: crowded tiles are misread
        if level is None:
            continue
        name = cell_name(cell)
        for colour in sorted(colours_of(need) - colours_of(r.label)):
            where = seen_at.get(colour)
            at = f" (it is read on {', '.join(cell_name(c) for c in where)})" if where else ""
            said.add(colour)
            out.append((cell, level, (("pawns", *cell),), f"The {colour} pawn belongs on {name}{at}." if level ==
                        "correction" else f"Is the {colour} pawn on {name}? The game has it there{at}."))
        later += [(cell, level, colour) for colour in sorted(colours_of(r.label) - colours_of(need))]
    for cell, level, colour in later:
        if colour in said:
            continue                                # said where it belongs
        name, slots = cell_name(cell), (("pawns", *cell),)
        if colour in twice:                         # read on its own cell as well: ask
            home = cell_name(twice[colour])
            out.append((cell, "question", slots, f"Is the {colour} pawn on {name}? The game has it on {home}, "
                                                 "and it is read on both."))
        elif not any(colour in colours_of(want.get(("pawns", *c), "")) for c in now if c != cell):
            out.append((cell, level, slots, f"Take the {colour} pawn off {name}." if level ==
                        "correction" else f"Is the {colour} pawn on {name}? The game has none there."))
    return out


def read_twice(want: Mapping[Slot, str], readings: Mapping[Slot, Reading]) -> dict[str, tuple]:
    """The pawn colours read on a cell where the engine has none while also read on the cell
    where the engine has them (a pawn is one piece: one of the two readings is wrong).

    Parameters
    ----------
    want : dict slot -> label
        The engine's expected table (:meth:`~.forbidden_desert.ForbiddenDesertTable.expected`).
    readings : dict slot -> Reading
        The check's readings (pawn slots ``("pawns", r, c)``, labels as ``"blue+red"``).

    Returns
    -------
    dict colour -> (r, c)
        Each such colour and the cell the engine has it on.
    """
    home = {colour: s[1:] for s, v in want.items() if s[0] == "pawns" for colour in colours_of(v)}
    out = {}
    for slot, r in readings.items():
        if slot[0] != "pawns":
            continue
        for colour in colours_of(r.label) - colours_of(want.get(slot, "")):
            at = readings.get(("pawns", *home.get(colour, ())))
            if colour in home and at is not None and colour in colours_of(at.label):
                out[colour] = home[colour]
    return out


def trace(model: ForbiddenDesertTable, states: Sequence[Any], events: Sequence[Event], slot: Slot,
          label: str) -> Cause | None:
    """The committed event that most likely caused the table to read ``label`` in ``slot`` where
    the engine expects otherwise.

    Parameters
    ----------
    states : list of State
        ``states[i]`` the state before ``events[i]``; ``states[-1]`` the engine's state now
        (``len(states) == len(events) + 1``).
    events : list of Event
        The record's events, in order.
    slot : slot
    label : str
        What the table reads there.

    Returns
    -------
    Cause or None
        Walking back from the last event: the most recent event after which the slot's expected
        label changed and before which it was ``label`` (the table did not follow it:
        ``stale``); failing that, the most recent event that changed the slot's expected label;
        None when none did.
    """
    looks = [model.expected(s).get(slot) for s in states]
    latest = None
    for i in range(len(events) - 1, -1, -1):
        if looks[i] == looks[i + 1]:
            continue
        if latest is None:
            latest = i
        if looks[i] == label:
            return Cause(i + 1, events[i], model.event_text(events[i]), stale=True)
    return None if latest is None else Cause(latest + 1, events[latest], model.event_text(events[latest]))


def compare_table(game: Game, model: ForbiddenDesertTable, start: Any, events: Sequence[Event],
                  readings: Mapping[Slot, Reading], pawns_by_change: bool = False,
                  states: Sequence[Any] | None = None) -> TableCheck:
    """Compare a full read of the table with the engine's state after ``events``.

    Parameters
    ----------
    game : Game
        Forbidden Desert's rules (:func:`~..games.get_game`).
    model : ForbiddenDesertTable
    start : State
        The state at the start of the record.
    events : list of Event
        The record's events (the session's applied events, parsed).
    readings : dict slot -> Reading
        Every slot of the table (:meth:`~..vision.detectors.forbidden_desert.FDDetector.read`).
    pawns_by_change : bool
        Whether the pawn readings were read by change against the last committed still (they
        may then correct; from one still they may only ask).
    states : list of State, optional
        ``states[i]`` before ``events[i]`` and the state now last, when the caller has them;
        default replayed from ``start``.

    Returns
    -------
    TableCheck
        Its findings: each face, sand or parts slot whose reading differs from the engine's
        label by :func:`_level`; the pawns' by :func:`_pawn_findings`; and, when legal visible
        events explain the sure differences (:attr:`TableCheck.missed`), a question on each
        other tile, sand or parts slot they change whose reading they fit. A finding on a slot
        the missed events change carries them (:attr:`Finding.missed`) and no cause (both when
        the missed events only take the table back to before the last event); the others are
        traced (:func:`trace`).

    Raises
    ------
    ValueError
        When an event of ``events`` is illegal from ``start`` (the record was edited).
    """
    if states is None:
        states = [start]
        for ev in events:
            after = game.apply(states[-1], ev)
            if not after:
                raise ValueError(f"event {len(states)} is illegal: {after.message}")
            states.append(after)
    state = states[-1]
    want = model.expected(state)
    found: list[tuple] = []
    for slot, r in sorted(readings.items(), key=lambda kv: str(kv[0])):
        if slot[0] in ("pawns", "card") or slot not in want or r.label in (want[slot], "unknown"):
            continue
        level = _level(r, slot[0])
        if level is not None:
            found.append(_slot_finding(model, state, slot, r.label, level))
    found += _pawn_findings(want, readings, pawns_by_change)
    check = TableCheck()
    check.missed, check.missed_text, after, check.missed_options = _missed(game, model, state, readings,
                                                                           pawns_by_change)
    if after is not None:                           # the cells a missed move explains are asked about
        stated = {f[0] for f in found}
        for slot, r in sorted(readings.items(), key=lambda kv: str(kv[0])):
            if (slot[0] in ("face", "sand", "parts") and slot in want and model.cell_of(slot) not in stated
                    and r.label != want[slot] and after.get(slot) != want[slot] and r.fits(after.get(slot))
                    and (r.sure or r.label == after.get(slot))):
                found.append(_slot_finding(model, state, slot, r.label, "question", want))
    said = "; then ".join(model.event_text(e) for e in check.missed)
    # the missed move only takes the table back to how it was before the last event: undoing that
    # event explains it as well (the camera saw a move that never happened), so both are said
    both = after is not None and len(states) > 1 and _same_table(model.expected(states[-2]), after)
    for cell, level, slots, sentence in found:
        slot = slots[0]
        if after is not None and after.get(slot) != want.get(slot):     # the missed move's: enter it
            cause = trace(model, states, events, slot, readings[slot].label) if both else None
            check.findings.append(Finding(cell, level, slots, sentence, cause, said))
        else:
            check.findings.append(Finding(cell, level, slots, sentence,
                                          trace(model, states, events, slot, readings[slot].label)))
    check.findings.sort(key=lambda f: (f.kind != "correction", f.cell))
    return check


def _same_table(a: Mapping[Slot, str], b: Mapping[Slot, str]) -> bool:
    """Whether two expected tables (:meth:`ForbiddenDesertTable.expected`) agree on every cell
    (the card place aside: a move does not change it)."""
    return {s: v for s, v in a.items() if s != CARD} == {s: v for s, v in b.items() if s != CARD}


def _slot_finding(model: ForbiddenDesertTable, state: Any, slot: Slot, have: str, level: str,
                  want: Mapping[Slot, str] | None = None) -> tuple:
    """``(cell, level, (slot,), sentence)`` for a face, sand or parts ``slot`` read ``have`` where
    the engine's state ``state`` (its expected table ``want``, made when not given) has another
    label: the correction's sentence or the question's, by ``level``."""
    cell = model.cell_of(slot)
    name, need = cell_name(cell), (want or model.expected(state))[slot]
    if slot[0] == "sand":
        tile = state.slot_at(cell)
        pair = _sand_sentence(name, have, need, state.sand[tile] if tile is not None else 0)
    elif slot[0] == "face":
        pair = _face_sentence(name, have, need)
    else:
        pair = _parts_sentence(name, have, need)
    return cell, level, (slot,), pair[0] if level == "correction" else pair[1]


def _missed(game: Game, model: ForbiddenDesertTable, state: Any, readings: Mapping[Slot, Reading],
            pawns_by_change: bool) -> tuple[list[Event], str, dict | None, list[list[Event]]]:
    """Legal visible events from ``state`` that make the engine's table the one read (the
    tracker's search, :func:`~.base.search`, over the cells where a sure reading differs from the
    engine), when exactly one sequence fits with no sure reading against it (sequences that
    differ only in the equipment card an excavation draws are one: the camera cannot see it):
    ``(events, sentence, the table expected after them, what the referee may post)`` (see
    :attr:`TableCheck.missed_options`), or ``([], "", None, [])``. When nothing fits and a pawn
    is read on a new cell and still on its own (:func:`read_twice`), the search is made again
    with its own cell's reading deciding nothing (the reader by change may miss a pawn leaving
    its cell); only then, so that a pawn read where none is does not pull in a move that a
    shorter explanation does without."""
    trusted = {s: r for s, r in readings.items() if s != CARD and (s[0] != "pawns" or pawns_by_change)}
    want = model.expected(state)
    cells = {model.cell_of(s) for s, r in trusted.items()
             if s in want and r.sure and r.label not in (want[s], "unknown")}
    if not cells:
        return [], "", None, []
    found = [e for e in search(game, model, state, trusted, cells, max_depth=MISSED_DEPTH) if e.mismatches < 0.5]
    twice = read_twice(want, trusted) if pawns_by_change and not found else {}
    if twice:                                       # a pawn read twice: its own cell may have been
        for home in twice.values():                 # misread as unchanged, so it decides nothing
            r = trusted[("pawns", *home)]
            trusted[("pawns", *home)] = Reading(r.label, 0.0, 0.0, r.alternatives)
            cells.add(model.cell_of(("pawns", *home)))
        found = [e for e in search(game, model, state, trusted, cells, max_depth=MISSED_DEPTH) if e.mismatches < 0.5]
    if not found:
        return [], "", None, []
    best = [e for e in found if e.mismatches - found[0].mismatches < 0.1 and len(e.events) == len(found[0].events)]
    if len({model.expected(e.state).__repr__() for e in best}) != 1:
        return [], "", None, []
    events = one_move_but_the_card([list(e.events) for e in best]) or list(best[0].events)
    options = with_card_drawn(game, state, events)
    if not options:
        return [], "", None, []
    card = len(options) > 1                         # the card drawn is the referee's to enter
    events = [without_card(e) for e in events] if card else options[0]
    enter = "Enter it with the equipment card drawn" if card else "Enter it"
    return events, ("The table shows what the camera did not see: " + "; then ".join(model.event_text(e) for e in events)
                    + f". {enter}, or put the table back as said."), model.expected(best[0].state), options


def check_table(detector, frame, homography, camera_matrix, game: Game, start: Any, events: Sequence[Event],
                reference: tuple | None = None, states: Sequence[Any] | None = None) -> TableCheck:
    """Read every slot of a still and compare it with the engine (:func:`compare_table`).

    Parameters
    ----------
    detector : FDDetector
    frame : (H, W, 3) uint8
        BGR, undistorted: a still moment (the mean of the live loop's still window).
    homography : (3, 3) float64
        Mat mm -> frame px.
    camera_matrix : (3, 3) float64
        Intrinsics.
    game, start, events, states
        See :func:`compare_table`.
    reference : (frame, homography, pawns), optional
        The last committed still, its homography and the pawn colours the engine put on each
        cell then (the live loop's ``reference``): the pawns are then read by change and may be
        corrected; without it they are read from this still and may only be asked about.

    Returns
    -------
    TableCheck
    """
    readings = detector.read(frame, homography, camera_matrix, None, reference)
    by_change = reference is not None and getattr(detector, "pawn_colour", None) is not None
    return compare_table(game, ForbiddenDesertTable(), start, events, readings, by_change, states)
