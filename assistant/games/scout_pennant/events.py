"""The Scout Pennant event vocabulary (rules §5.2) and the malformed checks of §5.3.

Malformed means: an unknown ``type``, an ``actor`` that is not a seat, a missing or ill-typed
field, a cell that is not two integers, an arrow object without exactly one of ``to`` /
``from``, a ``piece`` other than ``"clearing"`` / ``"forest"``, or a ``roll`` value outside
1-8. Values of the right type that are merely impossible (a cell off the board, an arrow to
a non-neighbour, a ``roll`` in the free variant) are well-formed and refused later with a
reason code. Fields the type does not define are kept in ``Event.extra`` and not judged.

>>> ev = parse_event({"actor": 0, "type": "build", "cell": [0, 3], "piece": "forest",
...                   "arrows": [{"from": [0, 4]}]})
>>> ev["cell"], arrow_pairs(ev["arrows"])
((0, 3), (('from', (0, 4)),))
>>> ev.to_json()
{'actor': 0, 'type': 'build', 'arrows': [{'from': [0, 4]}], 'cell': [0, 3], 'piece': 'forest'}
>>> parse_event({"actor": 0, "type": "roll", "value": 9})
Traceback (most recent call last):
...
assistant.games.base.MalformedError: value: must be between 1 and 8, got 9
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from .. import fields as F
from ..base import Event, MalformedError
from .geometry import Cell
from .state import PIECES

#: The two ways of an arrow in a ``build`` (§5.2): ``from`` = other cell -> built cell.
WAYS = ("from", "to")


def arrow(way: str, cell: Cell) -> dict[str, Cell]:
    """One arrow of a ``build`` as the record writes it: ``{"to": cell}`` (built cell -> ``cell``)
    or ``{"from": cell}`` (``cell`` -> built cell), §5.2.

    >>> arrow("to", (0, -1))
    {'to': (0, -1)}

    Raises
    ------
    ValueError
        For a ``way`` other than ``"to"`` and ``"from"``.
    """
    if way not in WAYS:
        raise ValueError(f"an arrow's way is 'to' or 'from', got {way!r}")
    return {way: (cell[0], cell[1])}


def _cell(v: Any, f: str) -> Cell:
    return F.int_pair(v, f)


def _piece(v: Any, f: str) -> str:
    return F.one_of(v, f, PIECES, "piece")


def _arrows(v: Any, f: str) -> tuple[dict[str, Cell], ...]:
    out = []
    for i, item in enumerate(F.array(v, f)):
        field = f"{f}[{i}]"
        F.obj(item, field)
        ways = [w for w in WAYS if w in item]
        if len(ways) != 1:
            raise MalformedError(field, "an arrow needs exactly one of 'to' and 'from'")
        F.known_keys(item, field, WAYS)
        out.append(arrow(ways[0], F.int_pair(item[ways[0]], f"{field}.{ways[0]}")))
    return tuple(out)


def _roll(v: Any, f: str) -> int:
    return F.integer(v, f, 1, 8)


Parser = Callable[[Any, str], Any]
#: type -> {parameter: parser}; every parameter is required (§5.2).
VOCABULARY: dict[str, dict[str, Parser]] = {
    "build": {"cell": _cell, "piece": _piece, "arrows": _arrows},
    "fire": {"cell": _cell},
    "enter": {},
    "take_from_finish": {},
    "roll": {"value": _roll},
    "pass": {},
}


def parse_event(obj: Mapping[str, Any], n_seats: int | None = None, dealt_rolls: bool = False) -> Event:
    """Validate one Scout Pennant event object (§5.2, malformed list of §5.3).

    Parameters
    ----------
    obj : dict
        The decoded JSON event line.
    n_seats : int, optional
        Number of seats; when given, ``actor`` must be ``0 .. n_seats - 1``.
    dealt_rolls : bool
        The header deals the d8 rolls (``setup.rolls``): a ``roll`` may leave out its
        ``value``, which the assistant fills in.

    Returns
    -------
    Event
        Cells as ``(q, r)`` tuples; ``arrows`` as the shared event form of a list of
        ``{"to" | "from": cell}`` objects (read it with :func:`arrow_pairs`).

    Raises
    ------
    MalformedError
        With the field (``type``, ``actor``, ``cell``, ``arrows[1].to``, ``value``...) at fault.
    """
    kind = obj.get("type")
    if not isinstance(kind, str):
        raise MalformedError("type", "missing or not a string")
    if kind not in VOCABULARY:
        raise MalformedError("type", f"unknown event type {kind!r}")
    if "actor" not in obj:
        raise MalformedError("actor", "required field is missing")
    actor = obj["actor"]
    if not F.is_int(actor) or actor < 0 or (n_seats is not None and actor >= n_seats):
        seats = f"0 to {n_seats - 1}" if n_seats is not None else "a seat index"
        raise MalformedError("actor", f"must be a seat ({seats}), got {actor!r}")
    spec = VOCABULARY[kind]
    params = {}
    for name, parse in spec.items():
        if name not in obj and kind == "roll" and dealt_rolls:
            continue
        if name not in obj:
            raise MalformedError(name, "required parameter is missing")
        params[name] = parse(obj[name], name)
    extra = {k: v for k, v in obj.items() if k not in spec and k not in ("actor", "type")}
    return Event.make(actor, kind, extra=extra, **params)


def arrow_pairs(arrows) -> tuple[tuple[str, Cell], ...]:
    """A ``build``'s ``arrows`` parameter (§5.2) as ``(way, cell)`` pairs, in list order.

    Accepts any mapping with a ``get`` method: plain dicts, and the hashable form in which
    the shared :class:`~assistant.games.base.Event` keeps JSON objects, so the engine does
    not depend on how events store nested objects.

    >>> arrow_pairs([arrow("from", (0, 4)), {"to": [1, 2]}])
    (('from', (0, 4)), ('to', (1, 2)))
    """
    out = []
    for a in arrows:
        for way in WAYS:
            v = a.get(way)
            if v is not None:
                out.append((way, (v[0], v[1])))
                break
    return tuple(out)


def build(actor: int, cell: Cell, piece: str, arrows) -> Event:
    """A ``build`` event of seat ``actor`` putting ``piece`` on ``cell``; ``arrows`` is an
    iterable of ``(way, cell)`` pairs, in list order (§5.2).

    >>> build(0, (0, 3), "forest", [("from", (0, 4))]).to_json()["arrows"]
    [{'from': [0, 4]}]
    """
    return Event.make(actor, "build", cell=cell, piece=piece, arrows=tuple(arrow(w, c) for w, c in arrows))
