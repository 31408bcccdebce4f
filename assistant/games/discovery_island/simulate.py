"""Seeded random Discovery Island games, for property tests and the benchmark.

Both players walk at random; the opponent draws each tile at random from the supply rows of
the right terrain (weighted by their counts), resolves events with a random eligible card or
none, and relocates a lost walker to a random allowed hex. Walkers learn clues and open caches
now and then, so games end when someone opens the treasure cache or after ``max_events``.
"""

from __future__ import annotations

import random
from typing import Any

from ..base import Event
from ..simulation import RandomGame, play_out
from . import rules, setup
from .data import EQUIPMENT_BUDGET, load_bundle
from .geometry import DIRECTION_NAMES, step, to_offset
from .island import Island, load_map
from .knowledge import relocation_targets
from .state import State


def random_setup(rng: random.Random, island: Island, map_ref: str = "example",
                 rulings: dict[str, Any] | None = None) -> dict[str, Any]:
    """A legal header ``setup``: random landings, cards within the budget, a digital deal.

    Under ``start_on_feature`` a landing may be a checkpoint or cache hex (half of the games);
    under ``neighbour_clue_direction`` the terrain clues name their direction."""
    rulings = rulings or {}
    bundle = load_bundle("default")
    land = island.featureless_land
    if rulings.get("start_on_feature") and rng.random() < 0.5:
        land = island.land
    landing = [list(to_offset(*h)) for h in rng.sample(sorted(land), 2)]
    equipment = []
    for _ in range(2):
        names = sorted(bundle.cards)
        rng.shuffle(names)
        chosen, cost = [], 0
        for name in names:
            if cost + bundle.cards[name].cost <= EQUIPMENT_BUDGET:
                chosen.append(name)
                cost += bundle.cards[name].cost
        equipment.append(chosen)
    return {"map": map_ref, "data": "default", "equipment": equipment, "landing": landing,
            "checkometer": setup.deal_checkometer(island, rng, bool(rulings.get("neighbour_clue_direction"))),
            "first_player": rng.randrange(2)}


def _tile(rng: random.Random, state: State, terrain: str) -> dict[str, Any]:
    rows = [(k, n) for k, n in state.cfg.bundle.tiles.items() if k[0] == terrain]
    (t, points, mark), _ = rng.choices(rows, weights=[n for _, n in rows])[0]
    return {"terrain": t, "points": points, "mark": mark}


def choose(rng: random.Random, state: State) -> Event:
    """A random legal event for the position (the walker's or, for a relocation, the opponent's)."""
    island, p = state.cfg.island, state.walker
    if state.pending is not None and state.pending[0] == "event":
        kind, h = state.pending[1], state.pending[2]
        usable = [c for c in state.cards[p] if rules.eligible(state, p, c, kind, island.terrain(h))]
        name = rng.choice(usable) if usable and rng.random() < 0.7 else None
        if name is None and usable and not state.cfg.rulings["equipment_optional"]:
            name = usable[0]
        return Event.from_params(p, "event_resolved", {"kind": kind, "equipment": name})
    if state.pending is not None:
        to = rng.choice(sorted(relocation_targets(island, state.cfg.rulings, state.pending[1])))
        return Event.from_params(1 - p, "relocate", {"to": to_offset(*to), "terrain": island.terrain(to)})
    if state.skips[p] and not state.begun:
        return Event.make(p, "skip_march")
    if state.over:
        return Event.make(p, "end_march")
    here = island.info(state.pos[p])
    if here.marker == "checkpoint" and state.taken.get(here.label) is None and rng.random() < 0.6:
        return Event.make(p, "learn_clue", label=here.label)
    if here.marker == "cache" and rng.random() < 0.4:
        return Event.make(p, "open_cache", label=here.label, found=here.label == state.cfg.treasure)
    d = rng.choice(DIRECTION_NAMES)
    info = island.info(step(state.pos[p], d))
    if info.terrain == "sea":
        return Event.make(p, "sea_refused", dir=d)
    if info.marker is not None:
        return Event.make(p, f"enter_{info.marker}", dir=d, label=info.label)
    return Event.make(p, "choose_direction", dir=d, tile=_tile(rng, state, info.terrain))


def random_game(seed: int, island: Island | None = None, map_ref: str = "example",
                rulings: dict[str, Any] | None = None, max_events: int = 300) -> RandomGame:
    """Play a random legal game until the treasure is found or ``max_events`` events.

    Parameters
    ----------
    seed : int
    island : Island, optional
        Default: the example island (``map_ref`` must then name it for the header).
    rulings : dict, optional

    Returns
    -------
    RandomGame

    Raises
    ------
    AssertionError
        If random play ever produced an illegal event (a bug in the engine or here).
    """
    rng = random.Random(seed)
    island = island or load_map("example")
    rulings = dict(rulings or {})
    setup_obj = random_setup(rng, island, map_ref, rulings)
    return play_out(setup_obj, rulings, setup.new_state(setup_obj, rulings, island=island), lambda s: choose(rng, s),
                    rules.apply, lambda s: s.result != "ongoing", max_events)

