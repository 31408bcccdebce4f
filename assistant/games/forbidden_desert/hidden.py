"""What Forbidden Desert hides and who fills it in (§5.1-§5.3, §6.3).

An event's *observations* are the parameters that report hidden information as the table saw
it: the face an excavation or a Terrascope shows (``reveals``, ``sees``), the equipment card
drawn (``draws``), the storm cards peeked at or drawn (``seen``, ``card``) and a digital
reshuffle's new ``order``. A player's token never supplies them: where the assistant holds the
answer (a layout naming the faces, digital decks) the engine reads it when the event leaves it
out, and :func:`complete` draws a digital reshuffle's order; at a physical table the camera or
the referee enters them.

:func:`event_view` is what each seat may see of an applied event: a Terrascope's sighting is the
holder's alone (§5.1) and a reshuffle's new order is nobody's.
"""

from __future__ import annotations

import random
from typing import Any, Mapping

from ..base import Event
from .components import KIND_OF_TILE, NUMBERED_KINDS, face_of
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


def complete(state: State, ev: Event, rng: random.Random | None = None) -> Event:
    """``ev`` with what the engine must draw itself: a digital ``reshuffle``'s new ``order`` (the
    discard pile shuffled by ``rng``, or as it lies with ``rng=None``) when none is given.

    Every other observation the assistant holds needs no filling: :func:`~.rules.apply` reads a
    named layout's face, a digital deck's top card or a known peek when the event leaves it out
    (§5.1-§5.3), so the record keeps the event as it was posted.

    Parameters
    ----------
    state : State
        The position the event is about to be applied to (not modified).
    ev : Event
        A well-formed event.
    rng : random.Random, optional

    Returns
    -------
    Event
        ``ev`` itself when there is nothing to draw.
    """
    if ev.type != "reshuffle" or ev.get("order") is not None or not state.cfg.digital_storm or state.pile:
        return ev
    order = list(state.discard)
    if rng is not None:
        rng.shuffle(order)
    return Event.make("storm", "reshuffle", extra=dict(ev.extra), order=tuple(order))


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
