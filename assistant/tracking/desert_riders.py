"""Forbidden Desert moves that differ only in a pawn taken along (a rider).

The Climber may take one pawn from its tile along on each move, also when the Navigator moves
it, and a Jet Pack may carry a passenger (rules: the Climber's power, ``navigate`` and
``jet_pack`` with ``carry``). The same move with another rider, or with none, changes the
table only in the rider's pawn: it leaves one cell and arrives at another, or stays. A pawn
the camera misses (a pale pawn on a pale tile, a dim room) reads as if it had not moved, so an
explanation that fits the readings best may still be the wrong one.

The tracker therefore commits such a move only when the readings *saw* the difference: a
reading of a cell where the two explanations disagree about a pawn that shows that pawn
arriving or leaving (a change from the table before) speaks for the explanation that expects
the change; a reading that shows the cell as it was, or one that is unsure, speaks for
neither. When the readings speak for the best explanation only, it is committed; otherwise
the players are asked, in the game's words, whether the pawn went along. A pawn that stayed
reads the same as one the camera missed, so from the change alone a Climber that leaves a
shared tile alone is always asked about.

Before asking, the live loop looks once more (:func:`seen_present`): the still picture after
the move, read without the picture before it, shows which pawns stand where. A pawn it sees
standing on a cell is very likely there (a missed pawn reads as absent, never as present; see
``SEEN_AT`` for how rarely a pawn is seen where there is none), so rider colours seen where
exactly one option puts them decide between the options. Not seeing a pawn decides nothing by
itself; it only lets a fainter sighting of that pawn on the other cell in dispute count
(``SEEN_ALONE_AT``), a cell read as the storm or unknown never counting as one where it was not
seen.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ..games.base import Event, Game
from ..games.forbidden_desert.components import ADVENTURERS
from .base import Observation, Slot

#: events that may take a rider along (``carry``), and the parameter naming the pawn that moves
CARRIERS = {"move": None, "navigate": "target", "play_equipment": None}
COLOUR = {a.id: a.colour for a in ADVENTURERS.values()}
#: a pawn seen standing in one still picture with at least this probability (the blob
#: classifier's, :func:`~..vision.detectors.desert_pieces.pawns_seen`) is taken to be there.
#: Chosen on the second renderer's development stills (5100-5115, 6100-6115, 7100-7107; cells
#: read two at a time, as the live loop reads them): at 0.8 a colour was seen on 2 of 1,000
#: cells that did not hold it and 22 of 137 pawns were seen; at 0.7, 5 and 28; at 0.9, 0 and 5
SEEN_AT = 0.8
#: a disputed colour seen standing on one of the slots disputed for it with at least this
#: probability, and not at all on the others (each read in the same picture), is taken to be
#: there: a pawn is seldom seen where there is none, and seldom in place of one it stands
#: beside. Measured with cells read two at a time, a colour on one of two neighbouring cells:
#: on the development stills above (429 cases) seen alone on its own cell at 0.4 or more 136
#: times, on the other cell never; 0.4 was first chosen so, but on other stills (5850-5865,
#: 6850-6865, 7650-7657; 430 cases) a blue pawn was seen alone on its neighbour at 0.53 (a
#: bare table in stress light), 123 right and that one wrong at 0.4. At 0.6: 88 and 0 on the
#: development stills, 91 and 0 on those (they chose this value, so they are development
#: stills now); at 0.8 (``SEEN_AT`` alone) 40 and 0, 46 and 0
SEEN_ALONE_AT = 0.6


def mover_of(event: Event) -> int:
    """The seat whose pawn an event moves: the ``target`` of a ``navigate``, else the actor."""
    field = CARRIERS.get(event.type)
    return event[field] if field else event.actor


def rider_variants(game: Game, state: Any, events: tuple[Event, ...]) -> list[tuple[tuple[Event, ...], Any]]:
    """The sequences that are ``events`` with one event's rider (``carry``) changed, legal from
    ``state`` to the end.

    Parameters
    ----------
    game : Game
        The Forbidden Desert engine.
    state : State
        The state before ``events``.
    events : tuple of Event
        A legal sequence (an explanation of one change).

    Returns
    -------
    list of (tuple of Event, State)
        Each variant with the state it leads to; empty when no event of ``events`` could take
        another rider (no ``move``, ``navigate`` or Jet Pack, or no other pawn on the mover's
        tile, or the engine refuses the carry: only the Climber carries when walking).
    """
    out = []
    states = [state]
    for ev in events:
        states.append(game.apply(states[-1], ev))
    for i, ev in enumerate(events):
        if ev.type not in CARRIERS or (ev.type == "play_equipment" and ev.get("card") != "jet_pack"):
            continue
        here = states[i]
        mover = mover_of(ev)
        riders = [None] + [s for s in here.seats_on(here.pawn[mover]) if s != mover]
        params = {k: v for k, v in ev.params if k != "carry"}
        for carry in riders:
            if carry == ev.get("carry"):
                continue
            other = Event.make(ev.actor, ev.type, **params, carry=carry)
            after = game.apply(here, other)
            for later in events[i + 1:]:
                if not after:
                    break
                after = game.apply(after, later)
            if after:
                out.append((events[:i] + (other,) + events[i + 1:], after))
    return out


def seen_for(before: Mapping[Slot, str], best: Mapping[Slot, str], rival: Mapping[Slot, str],
             observed: Observation) -> tuple[bool, bool] | None:
    """Which of two expected tables that differ only in pawns the readings saw.

    Parameters
    ----------
    before, best, rival : dict slot -> label
        The table before the change and the two explanations' tables (pawn labels are colours
        joined by ``+``).
    observed : dict slot -> Reading
        The readings of the change; a slot without one reads as before (the gate saw no change).

    Returns
    -------
    (bool, bool) or None
        Whether a sure reading showed a pawn arriving or leaving that only ``best``, resp.
        ``rival``, expects (per colour, on each pawn slot where they differ); None when the
        tables differ in any slot that is not a pawn slot, or do not differ.
    """
    differ = [s for s in set(best) | set(rival) if best.get(s) != rival.get(s)]
    if not differ or any(s[0] != "pawns" for s in differ):
        return None
    for_best = for_rival = False
    for slot in differ:
        was, b, r = (set(filter(None, t.get(slot, "").split("+"))) for t in (before, best, rival))
        reading = observed.get(slot)
        if reading is not None and not reading.sure:
            continue
        now = set(filter(None, reading.label.split("+"))) if reading is not None else was
        for colour in b ^ r:
            if (colour in now) == (colour in was):
                continue                           # as it was: a missed pawn reads the same
            if (colour in now) == (colour in b):
                for_best = True
            else:
                for_rival = True
    return for_best, for_rival


def rider_question(model, game: Game, state: Any, options: list[tuple[Event, ...]]) -> str:
    """One sentence asking which rider went along, for ``options`` (sequences from ``state``
    that differ in one event's ``carry``): "Did the black pawn take the yellow pawn along to D2, or did the
    yellow pawn stay on D4?" for two options, one with no rider; "Which pawn went along with
    the black pawn to D2: yellow, green or none?" otherwise; when the options take a rider at
    different steps of a walk, each whole option in words (``model.event_text``): "Which of
    these happened? 1) ...; 2) ...". Colours and cells as the table shows them
    (``model.expected``, ``model.describe``)."""
    places = [i for i, evs in enumerate(zip(*options)) if len(set(evs)) > 1]
    if len(places) > 1 or any(len(o) != len(options[0]) for o in options):
        # the options take a rider at different steps of a walk: name each whole option
        told = [f"{i}) " + ", then ".join(model.event_text(ev) for ev in opt) for i, opt in enumerate(options, 1)]
        return f"Which of these happened? {'; '.join(told)}."
    first = places[0]
    for ev in options[0][:first]:
        state = game.apply(state, ev)               # the pawns as they stood before the move
    evs = [opt[first] for opt in options]
    sample = evs[0]
    mover = mover_of(sample)
    colour = COLOUR[state.adventurer(mover)]
    to = model.describe(tuple(sample["to"]))
    riders = list(dict.fromkeys(e.get("carry") for e in evs))
    names = ["none" if r is None else f"the {COLOUR[state.adventurer(r)]} pawn" for r in riders]
    if len(riders) == 2 and None in riders:
        rider = next(r for r in riders if r is not None)
        name = COLOUR[state.adventurer(rider)]
        home = model.describe(state.cell_of_seat(rider))
        return (f"Did the {colour} pawn take the {name} pawn along to {to}, or did the {name} pawn stay on "
                f"{home}?")
    return f"Which pawn went along with the {colour} pawn to {to}: {', '.join(names[:-1])} or {names[-1]}?"


def carry_only(options: Sequence[Sequence[Event]]) -> bool:
    """Whether ``options`` (two or more event sequences) differ only in the riders they take
    along (the ``carry`` of their events), as :func:`rider_question`'s options do."""
    def bare(option):
        return tuple((ev.actor, ev.type, tuple((k, v) for k, v in ev.params if k != "carry")) for ev in option)

    return len(options) >= 2 and len({bare(o) for o in options}) == 1 and len({tuple(o) for o in options}) > 1


def disputed_pawns(tables: Sequence[Mapping[Slot, str]]) -> dict[Slot, set[str]]:
    """The pawn slots where expected tables disagree, each with the colours in dispute there
    (on the slot in some table and off it in another).

    Parameters
    ----------
    tables : sequence of dict slot -> label
        Expected tables (:meth:`~.forbidden_desert.ForbiddenDesertTable.expected`).

    Returns
    -------
    dict slot -> set of str
    """
    out: dict[Slot, set[str]] = {}
    for slot in sorted({s for t in tables for s in t if s[0] == "pawns"}, key=str):
        held = [set(filter(None, t.get(slot, "").split("+"))) for t in tables]
        disputed = set().union(*held) - set.intersection(*held)
        if disputed:
            out[slot] = disputed
    return out


def seen_present(tables: Sequence[Mapping[Slot, str]], standing: Mapping[Slot, Mapping[str, float]],
                 least: float | None = None) -> int | None:
    """The one table a still picture's pawns speak for, by pawns seen standing.

    A disputed colour (:func:`disputed_pawns`) seen standing on a slot with a probability of at
    least ``least``, or of at least ``SEEN_ALONE_AT`` where it is not seen at all on the other
    slots disputed for it (all of them read: a slot left out of ``standing`` was not), rules out
    every table without it there; a colour not seen rules out nothing by itself (a pawn the
    camera misses reads as absent).

    Parameters
    ----------
    tables : sequence of dict slot -> label
        The options' expected tables.
    standing : dict slot -> dict colour -> float
        The pawns one still picture after the move shows on each pawn slot, with their
        probabilities (:meth:`~...vision.detectors.forbidden_desert.FDDetector.pawns_standing`;
        no comparison with the picture before).
    least : float, optional
        Default ``SEEN_AT``; a colour seen on one slot alone counts from ``min(least,
        SEEN_ALONE_AT)``.

    Returns
    -------
    int or None
        The index of the only table left that agrees with at least one seen pawn; None when
        nothing disputed was seen, or more or fewer than one table is left.
    """
    least = SEEN_AT if least is None else least
    disputed = disputed_pawns(tables)
    left, seen = set(range(len(tables))), False

    def seen_there(slot: Slot, colour: str) -> bool:
        p = standing.get(slot, {}).get(colour, 0.0)
        others = [s for s, colours in disputed.items() if colour in colours and s != slot]
        alone = bool(others) and all(s in standing and colour not in standing[s] for s in others)
        return p >= least or (alone and p >= min(least, SEEN_ALONE_AT))

    for slot, colours in disputed.items():
        for colour in sorted(colours):
            if seen_there(slot, colour):
                seen = True
                left = {i for i in left if colour in tables[i].get(slot, "").split("+")}
    return next(iter(left)) if seen and len(left) == 1 else None
