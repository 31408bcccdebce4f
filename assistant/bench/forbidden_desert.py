"""Forbidden Desert figures for ``assistant bench rules``.

- random-game throughput: seeded random legal games played to the end (choosing each event
  from the enumerated legal ones), in games/s and events/s;
- replay throughput: the same events re-applied by ``assistant check``'s path (events/s);
- storm-loss odds (exact for every draw): time per computation for draws of 1..6 cards, over
  positions taken from random games and positions built to be hard (a pile that must be
  reshuffled before the first card, so every card is unknown; a low sand supply; pawns on open
  tunnels whose shade can end mid-phase under ``blocked_tunnel_shelters: false``; peeked cards;
  the meter near the skull); target: worst case at most 100 ms on one core.
"""

from __future__ import annotations

import os
import random
import statistics
import time

from ..check import check_record
from ..games.forbidden_desert import odds
from ..games.forbidden_desert.simulate import random_game
from ..records import parse_record, write_record

EXACT_TARGET_MS = 100.0
#: meter tick giving each draw count for 2 players (LADDER[2]); 1 card = 2 with one reduction
TICK_FOR_CARDS = {1: 0, 2: 0, 3: 1, 4: 4, 5: 8, 6: 11}


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


def _hard(base, rng: random.Random, cards: int, tunnel_rulings):
    """``base`` at ``cards`` cards (2 players), made hard for the odds (see the module docstring)."""
    state = base.copy()
    state.meter, state.reductions = TICK_FOR_CARDS[cards], int(cards == 1)
    if rng.random() < 0.5:                        # every card unknown: the pile is reshuffled first
        state.discard.extend(c for c in state.pile if c is not None)
        state.pile, state.pile_seen = [], []
    elif rng.random() < 0.5:                      # a peek: the top cards are known
        for i in range(min(len(state.pile), rng.randint(1, 3))):
            state.pile_seen[i] = True
    spare = [t for t in range(len(state.sand)) if t not in state.pawn]
    state.sand[rng.choice(spare)] += max(0, state.supply - rng.randint(3 * cards // 2, 3 * cards))
    state.water = [rng.randint(0, 3) for _ in state.water]
    if rng.random() < 0.5:                        # both pawns on an open tunnel with 0 or 1 sand
        tunnel = state.ident.index("tunnel_1")
        state.excavated[tunnel] = True
        state.sand[tunnel] = rng.randint(0, 1)
        state.pawn = [tunnel] * len(state.pawn)
        state.cfg = tunnel_rulings(state.cfg)
    return state


def _odds_timings(seed: int) -> tuple[list[str], float]:
    """Per draw count, the time of each odds computation (ms, one core) over random-game and
    built positions; returns printable lines and the worst case (process time)."""
    from dataclasses import replace

    def tunnel_rulings(cfg):
        return replace(cfg, rulings={**cfg.rulings, "blocked_tunnel_shelters": False})

    rng = random.Random(seed)
    positions = _odds_positions(seed)
    lines, worst = [], 0.0
    lines.append(f"storm-loss odds (exact) over {len(positions)} random-game positions and {len(positions)} built "
                 f"ones per draw (2 players; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores):")
    for cards, tick in TICK_FOR_CARDS.items():
        cpu, wall = [], []
        for base in positions:
            easy = base.copy()
            easy.meter, easy.reductions = tick, int(cards == 1)
            for state in (easy, _hard(base, rng, cards, tunnel_rulings)):
                t0, c0 = time.perf_counter(), time.process_time()
                result = odds.storm_loss(state)
                cpu.append((time.process_time() - c0) * 1000)
                wall.append((time.perf_counter() - t0) * 1000)
                assert result.exact and result.cards == cards
        worst = max(worst, max(cpu))
        lines.append(f"  {cards} card{'s' if cards > 1 else ' '}: median {statistics.median(cpu):.2f} ms, "
                     f"mean {statistics.mean(cpu):.2f} ms, max {max(cpu):.1f} ms of process time "
                     f"(wall: median {statistics.median(wall):.2f} ms, max {max(wall):.1f} ms)")
    return lines, worst


def run_section(seconds: float, seed: int) -> list[str]:
    """Run the Forbidden Desert benchmarks; returns printable lines."""
    lines = []
    games, events, elapsed, texts = _throughput(seconds, seed)
    lines.append(f"random games      : {games} games, {events} events in {elapsed:.2f} s "
                 f"= {games / elapsed:.1f} games/s, {events / elapsed:.0f} events/s (with legal-event enumeration)")
    n, t = _replay(texts)
    lines.append(f"replay (check)    : {n} events in {t:.2f} s = {n / t:.0f} events/s")
    odds_lines, worst = _odds_timings(seed)
    lines += odds_lines
    verdict = "met" if worst <= EXACT_TARGET_MS else "MISSED"
    lines.append(f"exact odds, worst case over 1-6 cards: {worst:.1f} ms of process time "
                 f"(target <= {EXACT_TARGET_MS:.0f} ms: {verdict})")
    return lines
