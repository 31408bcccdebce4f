"""Scout Pennant figures for ``assistant bench``: random-game throughput and legal-move
enumeration time on a full radius-4 board.

- random games: seeded random legal games (random headers: 2-6 players, radius 2-4, free or
  d8), each event chosen from the enumerated legal events and applied, up to 200 events a game;
- enumeration on a full board: :func:`~assistant.games.scout_pennant.simulate.full_board`
  fills every cell of a radius-4 board (4 players) with random legal builds, then plays random
  legal events on it; every position of that play is timed, and so is every position of the
  filling (a board going from empty to full, where builds dominate).
"""

from __future__ import annotations

import random
import statistics
import time

from ..games.scout_pennant import legal, rules, setup
from ..games.scout_pennant.simulate import COLOURS, full_board, random_build, random_game


def _ms(times: list[float]) -> str:
    return (f"mean {statistics.mean(times):.3f} ms, median {statistics.median(times):.3f} ms, "
            f"max {max(times):.3f} ms over {len(times)} positions")


def _time_enumeration(states) -> tuple[list[float], int]:
    times, events = [], 0
    for state in states:
        t0 = time.perf_counter()
        events += len(legal.legal_events(state))
        times.append((time.perf_counter() - t0) * 1000)
    return times, events


def _filling_positions(seed: int):
    """Every position while a radius-4 board is filled by random builds (empty -> full)."""
    rng = random.Random(seed)
    state = setup.new_state({"players": [{"seat": i, "colour": COLOURS[i]} for i in range(4)]}, {})
    out = [state]
    while state.empty_count() > 0:
        state = rules.apply(state, random_build(rng, state, state.to_move))
        out.append(state)
    return out


def run_section(seconds: float, seed: int) -> list[str]:
    """Run the Scout Pennant benchmark (rules engine of ``scout-pennant.md`` §3) for about
    ``seconds`` (throughput part) and return its printable lines.

    Parameters
    ----------
    seconds : float
        Time budget of the random-game throughput run, in seconds (at least one game runs).
    seed : int
        First seed; game ``k`` uses ``seed + k``, board ``k`` uses ``seed + k``.

    Returns
    -------
    list of str
        One line per figure, no trailing newlines.
    """
    lines = []
    games = events = ended = 0
    start = time.perf_counter()
    while games == 0 or time.perf_counter() - start < seconds:
        game = random_game(seed + games, max_events=200)
        games += 1
        events += len(game.events)
        ended += game.final.game_over
    elapsed = time.perf_counter() - start
    lines.append(f"random games      : {games} games ({ended} played to the end, the rest cut at 200 events), "
                 f"{events} events in {elapsed:.2f} s = {games / elapsed:.1f} games/s, "
                 f"{events / elapsed:.0f} events/s (with legal-event enumeration)")
    full_states = []
    for k in range(5):
        full, after = full_board(seed + k, radius=4, n_players=4, play_after=80)
        full_states += [full, *after]
    times, n_listed = _time_enumeration(full_states)
    lines.append(f"legal moves, full: {_ms(times)}, {n_listed / len(times):.1f} events listed on average "
                 "(radius 4, all 61 cells built by random legal builds, 4 players, then random play)")
    filling = [s for k in range(3) for s in _filling_positions(seed + k)]
    times, n_listed = _time_enumeration(filling)
    lines.append(f"legal moves, filling: {_ms(times)}, {n_listed / len(times):.1f} events listed on average "
                 "(every position while a 4-player radius-4 board goes from its 5 opening clearings to 61 pieces)")
    return lines


if __name__ == "__main__":  # pragma: no cover - manual run
    print("\n".join(run_section(3.0, 1)))
