"""Building the starting state from a record header (rules §2.2, §3.10, §5.1).

Every check of §5.1 is made here and reported as a :class:`MalformedError` whose field is the
path inside the header (``setup.players[1].colour``, ``setup.position.arrows[2]``,
``rulings.turn_order``). A ``position`` must satisfy the invariants of §3.9; whether it could
have arisen from real play is not judged.
"""

from __future__ import annotations

from typing import Any, Mapping

from .. import fields as F
from ..base import MalformedError
from .geometry import FINISH, Cell, are_neighbours, default_starts, distance, sort_around
from .state import CLEARING, FOREST, SUPPLY_KEYS, Config, State

#: The rulings of §3.10: key -> (default, allowed values).
RULINGS: dict[str, tuple[Any, tuple[Any, ...]]] = {
    "finish_removal_after_pennant": ("mandatory", ("mandatory", "optional")),
    "build_on_start_or_finish": (False, (False,)),
    "guides_need_empty_outputs": (True, (True, False)),
    "patrol_leaving_finish_counts": (False, (False, True)),
    "continue_after_first_finisher": ("rank", ("rank", "stop")),
    "d8_finish_priority": ("on_eight", ("on_eight", "always")),
    "turn_order": ("clockwise", ("clockwise", "counterclockwise")),
    "deadlock_ends_game": (True, (True, False)),
}

SETUP_FIELDS = ("radius", "players", "pawns_per_player", "variant", "first_player", "rolls", "supply",
                "position")
PLAYER_FIELDS = ("seat", "colour", "start")
POSITION_FIELDS = ("clearings", "forests", "arrows", "patrols", "pennants")
VARIANTS = ("free", "d8")


def new_state(setup: Mapping[str, Any], given_rulings: Mapping[str, Any]) -> State:
    """The state at the start of play described by a header (§5.1).

    Parameters
    ----------
    setup : dict
        The header's ``setup`` object.
    given_rulings : dict
        The header's ``rulings`` object; absent keys take the §3.10 defaults.

    Returns
    -------
    State
        With ``first_player`` to move and every pawn not listed in ``position.patrols`` in its
        player's base.

    Raises
    ------
    MalformedError
        With the field path of the first problem: radius < 2, not 2-6 players, seats out of
        order, duplicate or empty colours, starts given for some players only, duplicate or
        unequal-distance starts, ``rolls`` outside 1-8 or in the free variant, a bad
        ``supply``, an invalid ``position``, an unknown ruling key or value.
    """
    rulings = F.rulings(given_rulings, RULINGS)
    F.obj(setup, "setup")
    F.known_keys(setup, "setup", SETUP_FIELDS)
    radius = _at_least(setup.get("radius", 4), "setup.radius", 2)
    if "players" not in setup:
        raise MalformedError("setup.players", "required field is missing")
    colours, starts = _players(setup["players"], radius)
    n = len(colours)
    pawns = _at_least(setup.get("pawns_per_player", 4), "setup.pawns_per_player", 1)
    variant = F.one_of(setup.get("variant", "free"), "setup.variant", VARIANTS, "variant")
    first = F.integer(setup.get("first_player", 0), "setup.first_player", 0, n - 1)
    rolls = None
    if "rolls" in setup:
        if variant != "d8":
            raise MalformedError("setup.rolls", "rolls are given only in the d8 variant")
        rolls = tuple(F.integer(v, f"setup.rolls[{i}]", 1, 8)
                      for i, v in enumerate(F.array(setup["rolls"], "setup.rolls")))
    supply = _supply(setup["supply"]) if "supply" in setup else None
    cfg = Config(radius=radius, colours=colours, starts=starts, pawns=pawns, variant=variant,
                 first_player=first, rolls=rolls, supply=supply, rulings=rulings,
                 start_seat={cell: seat for seat, cell in enumerate(starts)})
    kinds: dict[Cell, str] = {FINISH: CLEARING, **{cell: CLEARING for cell in starts}}
    state = State(cfg=cfg, kinds=kinds, pre={}, post={}, arrows=0, patrols={}, on_board=(0,) * n,
                  pennants=frozenset(), finishing_order=(), to_move=first,
                  supply=supply or (None, None, None))
    if "position" in setup:
        state = _position(state, F.obj(setup["position"], "setup.position"))
    return state


def _at_least(value: Any, field: str, low: int) -> int:
    value = F.integer(value, field)
    if value < low:
        raise MalformedError(field, f"must be at least {low}, got {value}")
    return value


def _players(value: Any, radius: int) -> tuple[tuple[str, ...], tuple[Cell, ...]]:
    players = F.array(value, "setup.players")
    if not 2 <= len(players) <= 6:
        raise MalformedError("setup.players", f"must list 2 to 6 players, got {len(players)}")
    colours: list[str] = []
    given: list[Cell] = []
    for i, p in enumerate(players):
        field = f"setup.players[{i}]"
        F.obj(p, field)
        F.known_keys(p, field, PLAYER_FIELDS)
        for key in ("seat", "colour"):
            if key not in p:
                raise MalformedError(f"{field}.{key}", "required field is missing")
        if F.integer(p["seat"], f"{field}.seat") != i:
            raise MalformedError(f"{field}.seat", f"must equal the list index {i}, got {p['seat']}")
        colour = F.string(p["colour"], f"{field}.colour")
        if not colour:
            raise MalformedError(f"{field}.colour", "must not be empty")
        if colour in colours:
            raise MalformedError(f"{field}.colour", f"colour {colour!r} is already used by seat {colours.index(colour)}")
        colours.append(colour)
        if ("start" in p) != ("start" in players[0]):
            raise MalformedError(f"{field}.start", "give a start for every player or for none")
        if "start" in p:
            cell = F.int_pair(p["start"], f"{field}.start")
            if not 1 <= distance(cell) <= radius:
                raise MalformedError(f"{field}.start", f"cell {list(cell)} is not 1 to {radius} steps from the centre")
            if cell in given:
                raise MalformedError(f"{field}.start", f"cell {list(cell)} is already seat {given.index(cell)}'s start")
            if distance(cell) != distance(given[0] if given else cell):
                raise MalformedError(f"{field}.start", f"every start must lie {distance(given[0])} steps from the centre")
            given.append(cell)
    starts = tuple(given) if given else default_starts(len(players), radius)
    return tuple(colours), starts


def _supply(value: Any) -> tuple[int | None, int | None, int | None]:
    obj = F.obj(value, "setup.supply")
    F.known_keys(obj, "setup.supply", SUPPLY_KEYS)
    out = []
    for key in SUPPLY_KEYS:
        v = obj.get(key)
        out.append(None if v is None else _at_least(v, f"setup.supply.{key}", 0))
    return out[0], out[1], out[2]


def _cell(value: Any, field: str, state: State) -> Cell:
    cell = F.int_pair(value, field)
    if not state.cfg.on_board(cell):
        raise MalformedError(field, f"cell {list(cell)} is off the board of radius {state.cfg.radius}")
    return cell


def _position(state: State, position: Mapping[str, Any]) -> State:
    """Pieces, arrows, patrols and pennants of a mid-game ``position`` (§5.1, §3.9)."""
    P = "setup.position"
    F.known_keys(position, P, POSITION_FIELDS)
    cfg = state.cfg
    kinds = dict(state.kinds)
    listed_at: dict[Cell, str] = {}
    for key, piece in (("clearings", CLEARING), ("forests", FOREST)):
        for i, item in enumerate(F.array(position.get(key, []), f"{P}.{key}")):
            field = f"{P}.{key}[{i}]"
            cell = _cell(item, field, state)
            if cfg.fixed(cell):
                raise MalformedError(field, f"cell {list(cell)} is the finish or a start clearing; they are implicit")
            if cell in kinds:
                raise MalformedError(field, f"cell {list(cell)} is listed twice")
            kinds[cell] = piece
            listed_at[cell] = field
    pre: dict[Cell, list[Cell]] = {c: [] for c, k in kinds.items() if k == FOREST}
    post: dict[Cell, list[Cell]] = {c: [] for c in pre}
    edges: set[frozenset] = set()
    arrowed: set[Cell] = set()
    for i, item in enumerate(F.array(position.get("arrows", []), f"{P}.arrows")):
        field = f"{P}.arrows[{i}]"
        F.obj(item, field)
        F.known_keys(item, field, ("from", "to"))
        for key in ("from", "to"):
            if key not in item:
                raise MalformedError(f"{field}.{key}", "required field is missing")
        a = _cell(item["from"], f"{field}.from", state)
        b = _cell(item["to"], f"{field}.to", state)
        if not are_neighbours(a, b):
            raise MalformedError(field, f"cells {list(a)} and {list(b)} are not neighbours")
        ka, kb = kinds.get(a), kinds.get(b)
        if {ka, kb} != {CLEARING, FOREST}:
            raise MalformedError(field, f"an arrow joins a clearing and a forest, not {ka or 'empty'} and {kb or 'empty'}")
        if frozenset((a, b)) in edges:
            raise MalformedError(field, f"the edge between {list(a)} and {list(b)} already has an arrow")
        edges.add(frozenset((a, b)))
        if ka == FOREST:
            post[a].append(b)
        else:
            pre[b].append(a)
        arrowed.update((a, b))
    for cell, field in listed_at.items():
        if cell not in arrowed:
            raise MalformedError(field, f"the {kinds[cell]} at {list(cell)} has no arrow (§3.9)")
    patrols: dict[Cell, int] = {}
    counts = [0] * cfg.n
    for i, item in enumerate(F.array(position.get("patrols", []), f"{P}.patrols")):
        field = f"{P}.patrols[{i}]"
        F.obj(item, field)
        F.known_keys(item, field, ("seat", "cell"))
        for key in ("seat", "cell"):
            if key not in item:
                raise MalformedError(f"{field}.{key}", "required field is missing")
        seat = F.integer(item["seat"], f"{field}.seat", 0, cfg.n - 1)
        cell = _cell(item["cell"], f"{field}.cell", state)
        if kinds.get(cell) != CLEARING:
            raise MalformedError(f"{field}.cell", f"cell {list(cell)} is not a clearing")
        if cell in patrols:
            raise MalformedError(f"{field}.cell", f"clearing {list(cell)} already holds a patrol")
        counts[seat] += 1
        if counts[seat] > cfg.pawns:
            raise MalformedError(field, f"seat {seat} has only {cfg.pawns} pawns")
        patrols[cell] = seat
    pennants = []
    for i, item in enumerate(F.array(position.get("pennants", []), f"{P}.pennants")):
        field = f"{P}.pennants[{i}]"
        seat = F.integer(item, field, 0, cfg.n - 1)
        if seat in pennants:
            raise MalformedError(field, f"seat {seat} is listed twice")
        if counts[seat] == 0:
            raise MalformedError(field, f"seat {seat} has the pennant and no patrol on the board, so it would have finished")
        pennants.append(seat)
    return State(cfg=cfg, kinds=kinds,
                 pre={f: sort_around(f, cs) for f, cs in pre.items()},
                 post={f: sort_around(f, cs) for f, cs in post.items()},
                 arrows=len(edges), patrols=patrols, on_board=tuple(counts), pennants=frozenset(pennants),
                 finishing_order=(), to_move=state.to_move, supply=state.supply)
