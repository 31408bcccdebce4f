"""The Forbidden Desert event vocabulary (§6.3): parsing JSON objects into :class:`Event`.

Malformed means: an unknown ``type``, a missing required parameter, a wrong JSON type or an
unknown id. Values of the right type that are merely impossible (a cell off the board, a seat
that does not play, a count of 3) are well-formed and refused later with a reason code.
Parameters the type does not define are kept in ``Event.extra`` and not judged.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from .. import fields as F
from ..base import Event, MalformedError
from .components import EQUIPMENT_IDS, PARTS, STORM_CARDS, STORM_TRACKER, TILE_IDS, NUMBERED_KINDS

Parser = Callable[[Any, str], Any]


def _seat(v: Any, f: str) -> int:
    return F.integer(v, f)


def _cell(v: Any, f: str) -> tuple[int, int]:
    return F.int_pair(v, f)


def _cells(v: Any, f: str) -> tuple[tuple[int, int], ...]:
    return tuple(F.int_pair(x, f"{f}[{i}]") for i, x in enumerate(F.array(v, f)))


def _storm_card(v: Any, f: str) -> str:
    return F.one_of(v, f, STORM_CARDS, "storm card")


def _storm_cards(v: Any, f: str) -> tuple[str, ...]:
    return tuple(_storm_card(x, f"{f}[{i}]") for i, x in enumerate(F.array(v, f)))


def _equipment(v: Any, f: str) -> str:
    return F.one_of(v, f, EQUIPMENT_IDS, "equipment card")


def _tile_obs(v: Any, f: str) -> str:
    return F.one_of(v, f, TILE_IDS + NUMBERED_KINDS, "tile id or kind")


def _part(v: Any, f: str) -> str:
    return F.one_of(v, f, PARTS, "part")


def _to_bottom(v: Any, f: str) -> int | None:
    return None if v is None else F.integer(v, f)


# type -> (actor kind, {param: (parser, required)})
SEAT, STORM = "seat", "storm"
VOCABULARY: dict[str, tuple[str, dict[str, tuple[Parser, bool]]]] = {
    "move": (SEAT, {"to": (_cell, True), "carry": (_seat, False)}),
    "remove_sand": (SEAT, {"at": (_cell, True), "count": (F.integer, False)}),
    "excavate": (SEAT, {"reveals": (_tile_obs, False), "draws": (_equipment, False)}),
    "pick_up_part": (SEAT, {"part": (_part, False)}),
    "take_water": (SEAT, {}),
    "navigate": (SEAT, {"target": (_seat, True), "to": (_cell, True), "path": (_cells, False),
                        "carry": (_seat, False)}),
    "meteorologist_reduce": (SEAT, {}),
    "meteorologist_peek": (SEAT, {"seen": (_storm_cards, False), "to_bottom": (_to_bottom, False)}),
    "end_turn": (SEAT, {}),
    "give_water": (SEAT, {"to": (_seat, True), "amount": (F.integer, True)}),
    "pass_equipment": (SEAT, {"to": (_seat, True), "card": (_equipment, True)}),
    "play_equipment": (SEAT, {"card": (_equipment, True)}),
    "draw_storm": (STORM, {"card": (_storm_card, False)}),
    "storm_card": (STORM, {"card": (_storm_card, True)}),
    "reshuffle": (STORM, {"order": (_storm_cards, False)}),
}

#: extra parameters of play_equipment, per card (§6.3)
CARD_PARAMS: dict[str, dict[str, tuple[Parser, bool]]] = {
    "dune_blaster": {"at": (_cell, True)},
    "jet_pack": {"to": (_cell, True), "carry": (_seat, False)},
    "terrascope": {"at": (_cell, True), "sees": (_tile_obs, False)},
    "storm_tracker": {"seen": (_storm_cards, False), "to_bottom": (_to_bottom, False)},
}

#: the action-costing events of §3.4 (``end_turn`` is turn-bound but costs nothing)
ACTIONS = frozenset({"move", "remove_sand", "excavate", "pick_up_part", "take_water", "navigate",
                     "meteorologist_reduce", "meteorologist_peek"})
TURN_BOUND = ACTIONS | {"end_turn"}
#: parameters that name seats (checked for ``no_such_player``, §6.4 step 2)
SEAT_PARAMS = ("carry", "target", "to")


def parse_event(obj: Mapping[str, Any], storm_tracker_card: bool = False) -> Event:
    """Validate one Forbidden Desert event object.

    Parameters
    ----------
    obj : dict
        The decoded JSON event line.
    storm_tracker_card : bool
        Whether the ``storm_tracker`` card exists in this game (ruling).

    Returns
    -------
    Event
        With cells as ``(row, col)`` tuples and lists as tuples.

    Raises
    ------
    MalformedError
        For an unknown type, a missing or mistyped parameter or an unknown id.
    """
    kind = obj.get("type")
    if not isinstance(kind, str):
        raise MalformedError("type", "missing or not a string")
    if kind not in VOCABULARY:
        raise MalformedError("type", f"unknown event type {kind!r}")
    actor_kind, spec = VOCABULARY[kind]
    if "actor" not in obj:
        raise MalformedError("actor", "required field is missing")
    actor = obj["actor"]
    if actor_kind == STORM and actor != "storm":
        raise MalformedError("actor", f"a {kind} event is made by \"storm\", got {actor!r}")
    if actor_kind == SEAT and not F.is_int(actor):
        raise MalformedError("actor", f"a {kind} event is made by a seat index, got {actor!r}")
    params = _params(obj, spec)
    if kind == "play_equipment":
        spec = {**spec, **CARD_PARAMS.get(params["card"], {})}
        params = _params(obj, spec)
    for key in ("card", "draws"):            # pass_equipment's card, excavate's draws
        if params.get(key) == STORM_TRACKER and not storm_tracker_card:
            raise MalformedError(key, "storm_tracker exists only with the storm_tracker_card ruling")
    extra = {k: v for k, v in obj.items() if k not in spec and k not in ("actor", "type")}
    return Event.make(actor, kind, extra=extra, **params)


def _params(obj: Mapping[str, Any], spec: Mapping[str, tuple[Parser, bool]]) -> dict[str, Any]:
    out = {}
    for name, (parse, required) in spec.items():
        if name not in obj:
            if required:
                raise MalformedError(name, "required parameter is missing")
            continue
        value = parse(obj[name], name)
        if value is not None:
            out[name] = value
    return out
