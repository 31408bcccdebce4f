"""Forbidden Desert figures for ``assistant bench rules``.

- random-game throughput: seeded random legal games played to the end (choosing each event
  from the enumerated legal ones), in games/s and events/s;
- replay throughput: the same events re-applied by ``assistant check``'s path (events/s);
- storm-loss odds: time per computation for draws of 2..6 cards, over positions taken from
  random games; exact up to 4 cards (target: at most 100 ms on one core), Monte Carlo above.
"""

from __future__ import annotations

import statistics
import time

from ..check import check_record
from ..games.forbidden_desert import odds
from ..games.forbidden_desert.simulate import random_game
from ..records import parse_record, write_record

EXACT_TARGET_MS = 100.0
#: meter tick giving each draw count for 2 players (LADDER[2])
TICK_FOR_CARDS = {2: 0, 3: 1, 4: 4, 5: 8, 6: 11}


def _throughput(seconds: float, seed: int):
    games, events, texts = 0, 0, []
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        game = random_game(seed + games, max_events=2000)
        games += 1
        events += len(game.events)
        if len(texts) < 50:
            texts.append(write_record("forbidden-desert", game.setup, game.rulings, game.events))
    elapsed = time.perf_counter() - start
    return games, events, elapsed, texts


def _replay(texts: list[str]) -> tuple[int, float]:
    records = [parse_record(t) for t in texts]
    start = time.perf_counter()
    n = sum(len(check_record(r).verdicts) for r in records)
    return n, time.perf_counter() - start


def _odds_positions(seed: int, count: int = 40):
    positions = []
    s = seed
    while len(positions) < count:
        game = random_game(s, n_players=2, max_events=2000)
        s += 1
        positions += [st for st in game.states[1::5] if st.phase == "actions" and st.result == "ongoing"]
    return positions[:count]


def run_section(seconds: float, seed: int) -> list[str]:
    """Run the Forbidden Desert benchmarks; returns printable lines."""
    lines = []
    games, events, elapsed, texts = _throughput(seconds, seed)
    lines.append(f"random games      : {games} games, {events} events in {elapsed:.2f} s "
                 f"= {games / elapsed:.1f} games/s, {events / elapsed:.0f} events/s (with legal-event enumeration)")
    n, t = _replay(texts)
    lines.append(f"replay (check)    : {n} events in {t:.2f} s = {n / t:.0f} events/s")
    positions = _odds_positions(seed)
    lines.append(f"storm-loss odds over {len(positions)} positions (2 players):")
    worst_exact = 0.0
    for cards, tick in TICK_FOR_CARDS.items():
        times = []
        for base in positions:
            state = base.copy()
            state.meter, state.reductions = tick, 0
            t0 = time.perf_counter()
            result = odds.storm_loss(state)
            times.append((time.perf_counter() - t0) * 1000)
        method = "exact" if result.exact else f"Monte Carlo, {result.samples} samples, 95% interval"
        if result.exact:
            worst_exact = max(worst_exact, max(times))
        lines.append(f"  {cards} cards ({method}): mean {statistics.mean(times):.1f} ms, "
                     f"median {statistics.median(times):.1f} ms, max {max(times):.1f} ms")
    verdict = "met" if worst_exact <= EXACT_TARGET_MS else "MISSED"
    lines.append(f"exact odds, worst case over 2-4 cards: {worst_exact:.1f} ms "
                 f"(target <= {EXACT_TARGET_MS:.0f} ms: {verdict})")
    return lines
