"""Building the starting state from a record header (rules §5.1 set-up, §7.1 header, §7.4 codes).

Every set-up problem is malformed (exit 2); the message starts with the rules' set-up code,
e.g. ``setup.equipment[0]: equipment_over_budget (26 points, limit 24)``.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, Mapping

from .. import fields as F
from ..base import MalformedError
from .data import EQUIPMENT_BUDGET, TERRAINS, DataError, load_bundle
from .geometry import DIRECTION_NAMES, step, to_axial
from .island import CHECKPOINT_LABELS, SYMBOLS, Island, load_map
from .knowledge import start_set
from .state import CardState, Config, State

#: §5.11: key -> (default, allowed values)
RULINGS = {
    "first_tile_points_count": (False, (False, True)),
    "march_overflow": ("lost", ("lost", "carry")),
    "early_stop": (False, (False, True)),
    "lost_relocation_distance": (4, tuple(range(0, 21))),
    "lost_relocation_shape": ("disc", ("disc", "line")),
    "lost_relocation_same_hex": (True, (True, False)),
    "lost_reveals_terrain": (True, (True, False)),
    "start_on_feature": (False, (False, True)),
    "checkpoint_entry_cost": (4, tuple(range(0, 13))),
    "cache_entry_cost": (4, tuple(range(0, 13))),
    "clue_cost": (7, tuple(range(0, 13))),
    "cache_open_cost": (7, tuple(range(0, 13))),
    "label_revealed": ("on_entry", ("on_entry", "on_payment")),
    "checkpoint_claimed_by": ("learn", ("learn", "entry")),
    "revisit_checkpoint": ("gone_for_both", ("gone_for_both", "owner_may_reread")),
    "event_on_last_tile": ("applies", ("applies", "ignored")),
    "equipment_optional": (True, (True, False)),
    "equipment_march_count": ("per_march", ("per_march", "per_use")),
    "neighbour_clue_direction": (False, (False, True)),
}
SETUP_FIELDS = ("map", "data", "equipment", "landing", "checkometer", "first_player", "landing_points")
MARCH_TARGET = 12  #: a day march consists of at least twelve points (§5.4)


def _code(field: str, code: str, detail: str = "") -> MalformedError:
    return MalformedError(field, f"{code} ({detail})" if detail else code)


def parse_clue(value: Any, field: str, directed: bool) -> dict:
    """Validate a clue object (§7.1 ``CLUE``) and return it normalised.

    Raises
    ------
    MalformedError
        A clue that is not a terrain, symbol or empty clue of the right shape.
    """
    clue = F.obj(value, field)
    kind = clue.get("type")
    if kind == "terrain":
        F.one_of(clue.get("terrain"), f"{field}.terrain", TERRAINS, "terrain")
        out = {"type": "terrain", "terrain": clue["terrain"]}
        if directed or "dir" in clue:
            out["dir"] = F.one_of(clue.get("dir"), f"{field}.dir", DIRECTION_NAMES, "direction")
        return out
    if kind == "symbol":
        return {"type": "symbol", "symbol": F.one_of(clue.get("symbol"), f"{field}.symbol", SYMBOLS, "symbol")}
    if kind == "empty":
        return {"type": "empty"}
    raise MalformedError(f"{field}.type", f"must be terrain, symbol or empty, got {kind!r}")


def expected_deal(island, treasure: str, directed: bool) -> Counter:
    """The seven clues plus the empty checkpoint that a treasure at ``treasure`` deals (§5.1 step 4)."""
    h = island.labels[treasure]
    items: Counter = Counter()
    for d in DIRECTION_NAMES:
        clue = {"type": "terrain", "terrain": island.terrain(step(h, d))}
        if directed:
            clue["dir"] = d
        items[_key(clue)] += 1
    items[_key({"type": "symbol", "symbol": island.info(h).feature})] += 1
    items[_key({"type": "empty"})] += 1
    return items


def _key(clue: Mapping[str, Any]) -> tuple:
    return tuple(sorted(clue.items()))


def new_state(setup: Mapping[str, Any], given_rulings: Mapping[str, Any], base_dir: Path | None = None,
              island: Island | None = None) -> State:
    """The state before the first march.

    ``island``, when given, is the already loaded map that ``setup.map`` names (simulations
    of generated islands use it instead of writing the map to a file).

    Raises
    ------
    MalformedError
        With the field and the §7.4 set-up code: ``map_invalid``, ``data_invalid``,
        ``unknown_equipment``, ``duplicate_equipment``, ``equipment_over_budget``,
        ``landing_into_sea``, ``landing_on_feature``, ``bad_checkometer``, ``off_map``.
    """
    rulings = F.rulings(given_rulings, RULINGS)
    F.known_keys(setup, "setup", SETUP_FIELDS)
    for key in ("map", "equipment", "landing", "checkometer", "first_player"):
        if key not in setup:
            raise MalformedError(f"setup.{key}", "required field is missing")
    try:
        island = island or load_map(F.string(setup["map"], "setup.map"), base_dir)
    except DataError as exc:
        raise _code("setup.map", "map_invalid", str(exc))
    data = F.string(setup.get("data", "default"), "setup.data")
    if data != "default" and base_dir is not None and not Path(data).is_absolute():
        data = str(base_dir / data)
    try:
        bundle = load_bundle(data, rulings["checkpoint_entry_cost"], rulings["cache_entry_cost"])
    except DataError as exc:
        raise _code("setup.data", "data_invalid", str(exc))
    equipment = _equipment(setup["equipment"], bundle)
    landing = _landing(setup["landing"], island, rulings)
    digital, treasure, deal = _checkometer(setup["checkometer"], island, rulings["neighbour_clue_direction"])
    first = F.integer(setup["first_player"], "setup.first_player", 0, 1)
    landing_points = _landing_points(setup, rulings, island, bundle, landing)
    cfg = Config(island, bundle, rulings, equipment, landing, digital, treasure, deal, first, landing_points)
    cards = [{name: CardState(bundle.cards[name].terrain_uses, bundle.cards[name].march_uses) for name in chosen}
             for chosen in equipment]
    starts = [("start", island.terrain(h)) for h in landing]
    return State(cfg=cfg, pos=list(landing), to_move=first, sums=list(landing_points or (0, 0)), cards=cards,
                 candidates=[start_set(island, obs[1], rulings["start_on_feature"]) for obs in starts],
                 observations=[(obs,) for obs in starts], paths=[(h,) for h in landing])


def _equipment(value: Any, bundle) -> tuple[tuple[str, ...], tuple[str, ...]]:
    lists = F.array(value, "setup.equipment", 2)
    out = []
    for p, chosen in enumerate(lists):
        field = f"setup.equipment[{p}]"
        F.array(chosen, field)
        for i, name in enumerate(chosen):
            F.string(name, f"{field}[{i}]")
            if name not in bundle.cards:
                raise _code(f"{field}[{i}]", "unknown_equipment", f"no card {name!r} in the deck")
        dup = [n for n, k in Counter(chosen).items() if k > 1]
        if dup:
            raise _code(field, "duplicate_equipment", f"{dup[0]} chosen twice")
        cost = sum(bundle.cards[n].cost for n in chosen)
        if cost > EQUIPMENT_BUDGET:
            raise _code(field, "equipment_over_budget", f"{cost} points, limit {EQUIPMENT_BUDGET}")
        out.append(tuple(chosen))
    return out[0], out[1]


def _landing(value: Any, island, rulings) -> tuple:
    hexes = []
    for p, item in enumerate(F.array(value, "setup.landing", 2)):
        field = f"setup.landing[{p}]"
        col, row = F.int_pair(item, field)
        h = to_axial(col, row)
        if not island.on_map(h):
            raise _code(field, "off_map", f"{col},{row} is outside the {island.width}x{island.height} map")
        info = island.info(h)
        if info.terrain == "sea":
            raise _code(field, "landing_into_sea", f"{col},{row} is sea")
        if info.feature != "none" and not rulings["start_on_feature"]:
            raise _code(field, "landing_on_feature", f"{col},{row} is {info.label}")
        hexes.append(h)
    return hexes[0], hexes[1]


def _landing_points(setup, rulings, island, bundle, landing) -> tuple[int, int] | None:
    """``landing_points`` (only with ``first_tile_points_count``): a tile of the landing terrain."""
    if not rulings["first_tile_points_count"]:
        if "landing_points" in setup:
            raise MalformedError("setup.landing_points", "given only with the first_tile_points_count ruling")
        return None
    if "landing_points" not in setup:
        raise MalformedError("setup.landing_points", "required with the first_tile_points_count ruling")
    out = []
    for p, value in enumerate(F.array(setup["landing_points"], "setup.landing_points", 2)):
        field = f"setup.landing_points[{p}]"
        points = F.integer(value, field)
        terrain = island.terrain(landing[p])
        if not any(t == terrain and pts == points for (t, pts, _m) in bundle.tiles):
            raise _code(field, "points_out_of_range", f"no {terrain} tile shows {points} points")
        out.append(points)
    return out[0], out[1]


def _checkometer(value: Any, island, directed: bool) -> tuple[bool, str | None, dict]:
    spec = F.obj(value, "setup.checkometer")
    kind = spec.get("kind")
    if kind == "physical":
        return False, None, {}
    if kind != "digital":
        raise MalformedError("setup.checkometer.kind", f"must be physical or digital, got {kind!r}")
    treasure = spec.get("treasure")
    if not isinstance(treasure, str) or treasure not in island.caches():
        raise _code("setup.checkometer.treasure", "bad_checkometer", f"{treasure!r} is not a cache on this map")
    given = spec.get("checkpoints")
    if not isinstance(given, dict) or sorted(given) != sorted(CHECKPOINT_LABELS):
        raise _code("setup.checkometer.checkpoints", "bad_checkometer", "the deal must be an object over A1..A6, B1, B2")
    try:
        deal = {lab: parse_clue(given[lab], f"setup.checkometer.checkpoints.{lab}", directed)
                for lab in CHECKPOINT_LABELS}
    except MalformedError as exc:
        raise _code(exc.field, "bad_checkometer", exc.reason)
    if Counter(_key(c) for c in deal.values()) != expected_deal(island, treasure, directed):
        raise _code("setup.checkometer.checkpoints", "bad_checkometer",
                    f"not the six neighbour terrains, the symbol and the empty card of {treasure}")
    return True, treasure, deal



def deal_checkometer(island, rng, directed: bool = False) -> dict[str, Any]:
    """A digital checkometer dealt in secret (§5.1 step 4), as the header's ``checkometer`` object.

    Parameters
    ----------
    island : Island
    rng : random.Random
        The source of the secret: a uniform treasure among the map's caches, then a shuffle of
        the six neighbour terrains, the symbol and the empty card over A1..A6, B1, B2.
    directed : bool
        The ``neighbour_clue_direction`` ruling: terrain clues also name their direction.
    """
    treasure = rng.choice(sorted(island.caches()))
    h = island.labels[treasure]
    items: list[dict[str, Any]] = []
    for d in DIRECTION_NAMES:
        clue = {"type": "terrain", "terrain": island.terrain(step(h, d))}
        if directed:
            clue["dir"] = d
        items.append(clue)
    items += [{"type": "symbol", "symbol": island.info(h).feature}, {"type": "empty"}]
    rng.shuffle(items)
    return {"kind": "digital", "treasure": treasure, "checkpoints": dict(zip(CHECKPOINT_LABELS, items))}
