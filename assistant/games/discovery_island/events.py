"""The Discovery Island event vocabulary (rules §7.2): JSON objects -> :class:`Event`.

Malformed (§7.3) means: an unknown event type or direction, or a missing or ill-typed
parameter. Values of the right type that are wrong for the position (a label that is not
there, a card the player does not hold) are refused later with a reason code.
Hexes stay in record coordinates ``(col, row)``; the rules convert them.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from .. import fields as F
from ..base import Event, MalformedError, thaw
from .geometry import DIRECTION_NAMES
from .setup import parse_clue

Parser = Callable[[Any, str], Any]


def _dir(v: Any, f: str) -> str:
    return F.one_of(v, f, DIRECTION_NAMES, "direction")


def _tile(v: Any, f: str) -> dict[str, Any]:
    tile = F.obj(v, f)
    for key in ("terrain", "points", "mark"):
        if key not in tile:
            raise MalformedError(f"{f}.{key}", "required field is missing")
    return {"terrain": F.string(tile["terrain"], f"{f}.terrain"), "points": F.integer(tile["points"], f"{f}.points"),
            "mark": F.string(tile["mark"], f"{f}.mark")}


def _nullable_string(v: Any, f: str) -> str | None:
    return None if v is None else F.string(v, f)


WALKER = ("choose_direction", "sea_refused", "enter_checkpoint", "learn_clue", "enter_cache", "open_cache",
          "event_resolved", "end_march", "skip_march")
#: type -> {param: (parser, required)}
VOCABULARY: dict[str, dict[str, tuple[Parser, bool]]] = {
    "choose_direction": {"dir": (_dir, True), "tile": (_tile, True)},
    "sea_refused": {"dir": (_dir, True)},
    "enter_checkpoint": {"dir": (_dir, True), "label": (F.string, True)},
    "learn_clue": {"label": (F.string, True)},
    "enter_cache": {"dir": (_dir, True), "label": (F.string, True)},
    "open_cache": {"label": (F.string, True), "found": (F.boolean, False)},
    "event_resolved": {"kind": (F.string, False), "equipment": (_nullable_string, True)},
    "relocate": {"to": (F.int_pair, True)},
    "end_march": {},
    "skip_march": {},
}


def parse_event(obj: Mapping[str, Any], rulings: Mapping[str, Any], digital: bool = False) -> Event:
    """Validate one Discovery Island event object.

    Parameters
    ----------
    obj : dict
        The decoded JSON event.
    rulings : dict
        The game's rulings: ``lost_reveals_terrain`` makes ``relocate.terrain`` required and
        ``neighbour_clue_direction`` makes a terrain clue carry ``dir``.
    digital : bool
        A digital checkometer: ``open_cache.found`` may be left out (the assistant, which holds
        the treasure, fills it in); with a physical one it is required (rules §7.2).

    Returns
    -------
    Event
        ``tile`` and ``clue`` as :class:`~assistant.games.base.FrozenDict`; ``equipment`` is
        ``None`` for JSON ``null``.

    Raises
    ------
    MalformedError
    """
    kind = obj.get("type")
    if not isinstance(kind, str):
        raise MalformedError("type", "missing or not a string")
    if kind not in VOCABULARY:
        raise MalformedError("type", f"unknown event type {kind!r}")
    if "actor" not in obj:
        raise MalformedError("actor", "required field is missing")
    if not F.is_int(obj["actor"]) or obj["actor"] not in (0, 1):
        raise MalformedError("actor", f"must be player 0 or 1, got {obj['actor']!r}")
    spec = dict(VOCABULARY[kind])
    params: dict[str, Any] = {}
    for name, (parse, required) in spec.items():
        if name not in obj:
            if required:
                raise MalformedError(name, "required parameter is missing")
            continue
        params[name] = parse(obj[name], name)
    if kind == "open_cache" and "found" not in params and not digital:
        raise MalformedError("found", "required with a physical checkometer: whether the treasure was found")
    if kind == "learn_clue" and obj.get("clue") is not None:
        params["clue"] = parse_clue(obj["clue"], "clue", rulings["neighbour_clue_direction"])
    if kind == "relocate" and (rulings["lost_reveals_terrain"] or "terrain" in obj):
        if "terrain" not in obj:
            raise MalformedError("terrain", "required: the start tile laid at the new hex (lost_reveals_terrain)")
        params["terrain"] = F.string(obj["terrain"], "terrain")
    defined = set(spec) | {"actor", "type"} | {"learn_clue": {"clue"}, "relocate": {"terrain"}}.get(kind, set())
    extra = {k: v for k, v in obj.items() if k not in defined}
    return Event.from_params(obj["actor"], kind, params, extra)


def clue_of(ev: Event) -> dict[str, Any] | None:
    """The ``clue`` parameter of a ``learn_clue`` event as a plain dict, or ``None``."""
    clue = ev.get("clue")
    return thaw(clue) if clue is not None else None
