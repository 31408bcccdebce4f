"""Discovery Island figures for ``assistant bench rules``.

- random-game throughput on the example island (events/s, every event checked by the engine);
- the possible-position filter (§6.2) on a generated 1,000-land-hex island: the time to
  update one walker's candidate set over a 40-step walk (every step starts from the full
  landing set of its terrain, the worst case), and the time to recompute the possible landing
  hexes from those 40 observations.
"""

from __future__ import annotations

import random
import statistics
import time

from ..games.discovery_island.generator import generate_island
from ..games.discovery_island.geometry import DIRECTION_NAMES, step
from ..games.discovery_island.knowledge import observe, possible_landings, start_set
from ..games.discovery_island.setup import RULINGS
from ..games.discovery_island.simulate import random_game

WALK_STEPS = 40
ISLAND_LAND = 1000


def _walk(island, rng: random.Random):
    """A random 40-step walk over land: the observations a walker would make."""
    here = rng.choice(sorted(island.featureless_land))
    observations = [("start", island.terrain(here))]
    while len(observations) < WALK_STEPS + 1:
        d = rng.choice(DIRECTION_NAMES)
        n = step(here, d)
        info = island.info(n)
        if info.terrain == "sea":
            observations.append(("hav", d))
        elif info.marker:
            observations.append(("marker", d, info.marker, info.label))
            here = n
        else:
            observations.append(("step", d, info.terrain))
            here = n
    return observations


def run_section(seconds: float, seed: int) -> list[str]:
    """Run the Discovery Island benchmarks; returns printable lines."""
    lines = []
    games = events = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        game = random_game(seed + games, max_events=400)
        games += 1
        events += len(game.events)
    elapsed = time.perf_counter() - start
    lines.append(f"random games      : {games} games, {events} events in {elapsed:.2f} s = {events / elapsed:.0f} events/s "
                 f"(example island, 399 land hexes)")
    island = generate_island(ISLAND_LAND, seed)
    rulings = {k: v[0] for k, v in RULINGS.items()}
    rng = random.Random(seed)
    walk_times, landing_times, sizes = [], [], []
    for _ in range(20):
        observations = _walk(island, rng)
        c = start_set(island, observations[0][1], False)
        sizes.append(len(c))
        t0 = time.perf_counter()
        for obs in observations[1:]:
            c = observe(island, rulings, c, obs)
        walk_times.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        possible_landings(island, rulings, tuple(observations))
        landing_times.append((time.perf_counter() - t0) * 1000)
    lines.append(f"candidate filter  : {WALK_STEPS}-step walk on a generated {ISLAND_LAND}-land-hex island "
                 f"(start sets of {min(sizes)}-{max(sizes)} hexes): mean {statistics.mean(walk_times):.2f} ms, "
                 f"max {max(walk_times):.2f} ms per walk")
    lines.append(f"possible landings : from the same {WALK_STEPS} observations: mean {statistics.mean(landing_times):.1f} ms, "
                 f"max {max(landing_times):.1f} ms")
    return lines
