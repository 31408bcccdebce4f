"""Run the brute-force oracles of the test suite over many more random positions than CI does.

    .venv/bin/python tests/oracle_sweep.py storm --positions 500
    .venv/bin/python tests/oracle_sweep.py island --positions 500

``storm`` compares the storm-loss odds per cause (rules §5.4) with the oracle of
``tests/forbidden_desert/test_storm_oracle.py`` under the default rulings and under each
alternative storm ruling (§4), ``--positions`` stressed positions each (draws of 1-6 cards).
``island`` compares possible positions, possible landings and possible treasure caches (rules §6.2)
with the oracles of ``tests/discovery_island/test_knowledge_oracle.py`` under the default
rulings and each alternative ruling of §5.11 that the filter reads, at least ``--positions``
positions per figure each. Prints one line per ruling set with the counts and disagreements;
exits 1 on any disagreement. Not collected by pytest (no ``test_`` prefix; nothing runs on import).
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _load(relative: str):
    spec = importlib.util.spec_from_file_location(Path(relative).stem, HERE / relative)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def sweep_storm(count: int, seed: int, only: list[str] | None = None) -> int:
    oracle = _load("forbidden_desert/test_storm_oracle.py")
    sets = [("default", {})] + [(f"{k}={v[1]}", {k: v[1]}) for k, v in oracle.STORM_RULINGS.items()]
    sets.append(("every alternative at once", {k: v[1] for k, v in oracle.STORM_RULINGS.items()}))
    sets = [(name, r) for name, r in sets if not only or name in only]
    bad = 0
    for name, rulings in sets:
        start, checked, wrong, by_cards = time.perf_counter(), 0, 0, collections.Counter()
        game_seed = seed
        while checked < count:
            for state in oracle.positions(game_seed, rulings, 10):
                if checked == count:
                    break
                checked += 1
                by_cards[state.to_draw if state.phase == "storm" else state.draw_count - state.reductions] += 1
                if not oracle.agrees(state):
                    wrong += 1
                    print(f"  disagreement: game seed {game_seed}, {rulings}", flush=True)
            game_seed += 1
        bad += wrong
        cards = ", ".join(f"{k}: {n}" for k, n in sorted(by_cards.items()))
        print(f"storm odds, {name}: {checked} positions (cards {cards}), {wrong} disagreements, "
              f"{time.perf_counter() - start:.0f} s", flush=True)
    return bad


def sweep_island(count: int, seed: int, only: list[str] | None = None) -> int:
    oracle = _load("discovery_island/test_knowledge_oracle.py")
    from assistant.games.discovery_island.simulate import random_game

    sets = [("default", {})]
    for key, values in oracle.ISLAND_RULINGS.items():
        sets += [(f"{key}={v}", {key: v}) for v in values[1:]]
    sets.append(("every first alternative at once", {k: v[1] for k, v in oracle.ISLAND_RULINGS.items()}))
    sets = [(name, r) for name, r in sets if not only or name in only]
    bad = 0
    for name, rulings in sets:
        start, games, totals, wrong = time.perf_counter(), 0, collections.Counter(), 0
        game_seed = seed
        while min(totals[k] for k in ("positions", "landings", "treasures")) < count:
            game = random_game(game_seed, rulings=rulings, max_events=120)
            try:
                totals.update(oracle.compare_game(game))
            except AssertionError as exc:
                wrong += 1
                print(f"  disagreement: game seed {game_seed}, {rulings}: {exc}", flush=True)
            games += 1
            game_seed += 1
        bad += wrong
        print(f"island, {name}: {games} games, positions {totals['positions']}, landings {totals['landings']}, "
              f"treasure caches {totals['treasures']} compared, {wrong} games with a disagreement, "
              f"{time.perf_counter() - start:.0f} s", flush=True)
    return bad


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("figure", choices=["storm", "island"])
    parser.add_argument("--positions", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--only", action="append", help="run only this ruling set (as printed); repeatable")
    args = parser.parse_args(argv)
    sys.setrecursionlimit(10_000)
    sweep = sweep_storm if args.figure == "storm" else sweep_island
    bad = sweep(args.positions, args.seed, args.only)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
