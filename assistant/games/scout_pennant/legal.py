"""Legal-event enumeration for Scout Pennant (rules §3.1-§3.8, §5.2).

Events are generated straight from the rules, not by trying candidates, so enumeration stays
fast on a crowded board; the property tests check it against :func:`.rules.apply` both ways
(everything listed is accepted, everything left out is refused).

One canonical form per build: a ``build``'s arrows are listed in direction order (N, NE, SE,
S, SW, NW) around the new piece. The same arrows in another list order are the same move and
are accepted too, but are not listed again.
"""

from __future__ import annotations

from itertools import product
from typing import Iterator

from ..base import Event
from . import build as B
from . import net, rules
from .events import build as build_event
from .state import BUILD, CLEARING, ENTER, FIRE, FOREST, TAKE, State

#: ways an arrow between a new piece and one neighbour may go: none, into it, out of it
_WAYS = (None, "from", "to")


def builds(state: State, seat: int) -> Iterator[Event]:
    """Every legal ``build`` of ``seat`` as a move (turn checks aside), canonical arrow order.

    For each empty cell next to a piece of the other kind, each piece the supply allows, and
    each non-empty assignment of {none, from, to} to the neighbours of the other kind, with at
    most as many arrows as the supply holds (§3.2). Sorted by cell, then piece, then assignment.
    """
    arrows_left = state.supply_left("arrow")
    if arrows_left is not None and arrows_left < 1:
        return
    for piece in (CLEARING, FOREST):
        left = state.supply_left(piece)
        if left is not None and left < 1:
            continue
        for cell, others in B.build_sites(state, piece):
            for ways in product(_WAYS, repeat=len(others)):
                arrows = [(w, nb) for w, nb in zip(ways, others) if w is not None]
                if arrows and (arrows_left is None or len(arrows) <= arrows_left):
                    yield build_event(seat, cell, piece, arrows)


def fires(state: State, seat: int) -> list[Event]:
    """A ``fire`` event for every forest enabled for ``seat`` (§4.1), sorted by cell."""
    return [Event.make(seat, FIRE, cell=f) for f in net.enabled_forests(state, seat)]


def moves(state: State, seat: int, kinds) -> Iterator[Event]:
    """Every legal move of ``seat`` among ``kinds`` (a set of move kinds), ignoring turn
    control (§3.2-§3.5): takes, enters, fires, then builds."""
    if TAKE in kinds and state.on_finish(seat):
        yield Event.make(seat, TAKE)
    if ENTER in kinds and net.enter_refusal(state, seat) is None:
        yield Event.make(seat, ENTER)
    if FIRE in kinds:
        yield from fires(state, seat)
    if BUILD in kinds:
        yield from builds(state, seat)


def roll_values(state: State) -> list[int]:
    """The roll values the header still allows: the next entry of ``setup.rolls``, or 1-8
    once the list is used up or absent (§5.1)."""
    rolls = state.cfg.rolls
    if rolls is not None and state.rolls_made < len(rolls):
        return [rolls[state.rolls_made]]
    return list(range(1, 9))


def legal_events(state: State) -> list[Event]:
    """Every event :func:`.rules.apply` accepts in ``state``, in a stable order.

    Returns
    -------
    list of Event
        Empty once the game is over; the ``roll`` events when a d8 turn waits for its roll;
        else the legal moves (only the take when it is mandatory), or a single ``pass`` when
        there is none (§3.1, §3.8).
    """
    if state.game_over or state.to_move is None:
        return []
    c = state.to_move
    if rules.must_take(state):
        return [Event.make(c, TAKE)]
    if state.cfg.variant == "d8" and state.roll is None:
        return [Event.make(c, "roll", value=v) for v in roll_values(state)]
    out = list(moves(state, c, rules.allowed_kinds(state)))
    return out or [Event.make(c, "pass")]


def count_moves(state: State) -> dict[str, int]:
    """How many legal events of each type ``state`` offers, as ``{type: count}`` (a
    perft-style figure over :func:`legal_events`, §3.1)."""
    counts: dict[str, int] = {}
    for ev in legal_events(state):
        counts[ev.type] = counts.get(ev.type, 0) + 1
    return counts
