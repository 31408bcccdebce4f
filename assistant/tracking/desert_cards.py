"""The equipment card an excavation draws, which the camera cannot see (Forbidden Desert).

Excavating the crash site, a tunnel or a gear tile draws one equipment card (rules §3.7 and the
tile table of §1). With a physical equipment deck (a game set up from the table: no
``setup.equipment_deck``) the ``excavate`` event must name it (``draws``, rules §5.3: required,
and still in the unknown pool); the card goes into a hand, where no camera reads it. So an
excavation the camera saw, or one a check of the table finds missed, is known except for its
card: the tracker's search lists one explanation per card still possible, all showing the same
table. Picking one of them would commit a card nobody saw (or ask about four of twelve). Here
such explanations are folded into one move without its card (:func:`without_card`) and offered
with every card still possible (:func:`with_card_drawn`) for the referee, who saw it drawn, to
choose on the tablet.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..games.base import Event, Game
from ..games.forbidden_desert.digging import equipment_pool
from ..games.forbidden_desert.hidden import gives_equipment

#: most completed sequences offered (two excavations in a row: 12 x 12 would not fit a tablet)
MAX_OFFERS = 24


def without_card(event: Event) -> Event:
    """``event`` without its ``draws`` (the equipment card drawn); any other event as it is."""
    if event.type != "excavate" or event.get("draws") is None:
        return event
    return Event.from_params(event.actor, event.type, {k: v for k, v in event.params if k != "draws"},
                             dict(event.extra))


def _cards(state: Any, event: Event) -> list[str] | None:
    """The cards an ``excavate`` in ``state`` may draw when the card must be named (a physical
    deck and a tile that gives one), each name once, sorted; None when no card is to be named."""
    if event.type != "excavate" or state.cfg.digital_equipment or state.phase != "actions":
        return None
    slot = state.pawn[event.actor]
    face = event.get("reveals") or state.ident[slot]
    if face is None or not gives_equipment(face):
        return None
    return sorted(set(equipment_pool(state)))               # copies of a card are one choice


def with_card_drawn(game: Game, state: Any, events: Sequence[Event]) -> list[list[Event]]:
    """Every legal way to complete ``events`` (visible events from ``state``, in order) with the
    equipment card each card-drawing excavation among them draws.

    Parameters
    ----------
    game : Game
        Forbidden Desert's rules.
    state : State
        The state ``events`` start from.
    events : list of Event
        With or without ``draws`` (a card given is replaced by each card still possible).

    Returns
    -------
    list of list of Event
        One sequence per combination of cards the engine accepts, in card order, at most
        :data:`MAX_OFFERS`; ``[list(events)]`` when no excavation among them draws a card that
        must be named (a digital deck, a tile that gives none); ``[]`` when no completion is
        legal.
    """
    plain = [without_card(e) for e in events]
    out: list[list[Event]] = []
    named = False

    def walk(at: Any, done: list[Event]) -> None:
        # depth first: each excavation's cards are those still possible after the cards its own
        # prefix drew (a second excavation may draw what another order gave the first)
        nonlocal named
        if len(out) >= MAX_OFFERS:
            return
        if len(done) == len(plain):
            out.append(done)
            return
        ev = plain[len(done)]
        cards = _cards(at, ev)
        named = named or cards is not None
        steps = [ev] if cards is None else [
            Event.from_params(ev.actor, ev.type, {**dict(ev.params), "draws": c}, dict(ev.extra)) for c in cards]
        for step in steps:
            after = game.apply(at, step)
            if after:
                walk(after, done + [step])

    walk(state, [])
    if not named:
        return [list(events)] if _legal(game, state, events) else []
    return out


def _legal(game: Game, state: Any, events: Sequence[Event]) -> bool:
    for ev in events:
        state = game.apply(state, ev)
        if not state:
            return False
    return True


def one_move_but_the_card(options: Sequence[Sequence[Event]]) -> list[Event] | None:
    """When every sequence of ``options`` is the same but for the card an excavation draws:
    that sequence without the card (:func:`without_card`); else None (one sequence, or
    sequences that differ in what the camera sees)."""
    plain = {tuple(without_card(e) for e in seq) for seq in options}
    if len(options) < 2 or len(plain) != 1:
        return None
    seq = next(iter(plain))
    return list(seq) if any(e.type == "excavate" for e in seq) else None
