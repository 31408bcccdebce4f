"""What Forbidden Desert hides and who fills it in (§5.1-§5.3, §6.3).

An event's *observations* are the parameters that report hidden information as the table saw
it: the face an excavation or a Terrascope shows (``reveals``, ``sees``), the equipment card
drawn (``draws``), the storm cards peeked at or drawn (``seen``, ``card``) and a digital
reshuffle's new ``order``. A player's token never supplies them: where the assistant holds the
answer (a layout naming the faces, digital decks) :func:`complete` fills them in before the
event is applied; at a physical table the camera or the referee enters them.

:func:`event_view` is what each seat may see of an applied event: a Terrascope's sighting is the
holder's alone (§5.1) and a reshuffle's new order is nobody's.
"""

from __future__ import annotations

import random
from typing import Any, Mapping

from ..base import Event
from .components import KIND_OF_TILE, NUMBERED_KINDS, face_of, on_board
from .state import State

#: event type -> its observation parameters; ``play_equipment`` by card in :data:`CARD_OBSERVATIONS`
OBSERVATIONS: dict[str, tuple[str, ...]] = {
    "excavate": ("reveals", "draws"), "meteorologist_peek": ("seen",), "draw_storm": ("card",),
    "storm_card": ("card",), "reshuffle": ("order",)}
CARD_OBSERVATIONS: dict[str, tuple[str, ...]] = {"terrascope": ("sees",), "storm_tracker": ("seen",)}


def observations(event: Event) -> tuple[str, ...]:
    """The observation parameters of ``event`` (see the module docstring), present or not."""
    if event.type == "play_equipment":
        return CARD_OBSERVATIONS.get(event.get("card"), ())
    return OBSERVATIONS.get(event.type, ())


def gives_equipment(face: str) -> bool:
    """Whether excavating ``face`` (a tile id or a numbered kind) draws an equipment card (§3.7)."""
    kind = face if face in NUMBERED_KINDS else KIND_OF_TILE[face]
    return kind in ("crash_site", "tunnel", "gear")


def _face_here(state: State, slot: int) -> str | None:
    """The face of ``slot`` when the assistant holds it and the tile is still face down."""
    tile = state.ident[slot]
    return face_of(tile) if tile is not None and not state.excavated[slot] else None


def complete(state: State, ev: Event, rng: random.Random | None = None) -> Event:
    """``ev`` with every observation the assistant holds filled in (§5.1-§5.3).

    Filled, when absent: an excavation's ``reveals`` (the face, never a numbered id: which gear
    a tile is tells where the others lie) and, with a digital equipment deck, ``draws`` (the top
    card); a Terrascope's ``sees``; a peek's ``seen`` when every card looked at is known; a
    digital ``draw_storm``'s ``card``; a digital ``reshuffle``'s ``order`` (the discard pile
    shuffled by ``rng``, or as it lies with ``rng=None``).

    Parameters
    ----------
    state : State
        The position the event is about to be applied to (not modified).
    ev : Event
        A well-formed event (its seats and cells may still be out of range: nothing is filled
        then, and :func:`~.rules.apply` refuses it).
    rng : random.Random, optional

    Returns
    -------
    Event
        ``ev`` itself when there is nothing to fill.
    """
    params: dict[str, Any] = dict(ev.params)
    n = state.cfg.n
    seat_ok = isinstance(ev.actor, int) and 0 <= ev.actor < n
    if ev.type == "excavate" and seat_ok:
        slot = state.pawn[ev.actor]
        face = _face_here(state, slot)
        if "reveals" not in params and face is not None:
            params["reveals"] = face
        shown = params.get("reveals") or face
        if ("draws" not in params and shown is not None and gives_equipment(shown)
                and state.cfg.digital_equipment and state.equip_pile and not state.excavated[slot]):
            params["draws"] = state.equip_pile[0]
    elif ev.type == "play_equipment" and ev.get("card") == "terrascope" and "sees" not in params:
        at = ev.get("at")
        slot = state.slot_at(at) if at is not None and on_board(at) else None
        if slot is not None and _face_here(state, slot) is not None:
            params["sees"] = _face_here(state, slot)
    elif ev.type in ("meteorologist_peek", "play_equipment") and "seen" in observations(ev) and "seen" not in params:
        m = min(state.draw_count, len(state.pile))
        if all(card is not None for card in state.pile[:m]):
            params["seen"] = tuple(state.pile[:m])
    elif ev.type == "draw_storm" and "card" not in params and state.cfg.digital_storm and state.pile:
        params["card"] = state.pile[0]
    elif ev.type == "reshuffle" and "order" not in params and state.cfg.digital_storm and not state.pile:
        order = list(state.discard)
        if rng is not None:
            rng.shuffle(order)
        params["order"] = tuple(order)
    if params == dict(ev.params):
        return ev
    return Event.from_params(ev.actor, ev.type, params, dict(ev.extra))


def event_view(event: Mapping[str, Any], seat: int | None) -> dict[str, Any]:
    """What ``seat`` (``None``: the table) may see of one applied event, given as its JSON
    object: a Terrascope's ``sees`` goes to its holder only (§5.1), a reshuffle's ``order`` to
    nobody, and a face shown is named as a face (``gear``), never as a numbered id."""
    shown = dict(event)
    if shown.get("type") == "play_equipment" and shown.get("card") == "terrascope" and seat != shown.get("actor"):
        shown.pop("sees", None)
    if shown.get("type") == "reshuffle":
        shown.pop("order", None)
    for key in ("reveals", "sees"):
        if shown.get(key) in KIND_OF_TILE:
            shown[key] = face_of(shown[key])
    return shown
