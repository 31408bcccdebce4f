"""Storm-phase risk: the chance that the next storm phase loses the game (§5.4 item 3).

Only what the *players* know is used: the discard pile, the cards a Meteorologist or Storm
Tracker has seen (and where they now lie), and the revealed tiles; never the assistant's own
digital deck order. Pawns ride their tiles, so who is sheltered from the sun is fixed for the
whole phase, and the loss depends only on the storm cell, the sand supply, the meter and the
number of suns drawn: a small state that a memoised recursion explores exactly. For draws of
more than :data:`EXACT_MAX_CARDS` cards the figure is estimated by Monte Carlo sampling with a
95 % Wilson score interval.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .components import STORM_CARDS, VEC, on_board, wind_of
from .state import State
from .storm import sheltered

EXACT_MAX_CARDS = 4
MC_SAMPLES = 10_000
CAUSES = ("thirst", "sand_supply", "storm_meter")
_CARD_INDEX = {card: i for i, card in enumerate(STORM_CARDS)}


@dataclass(frozen=True)
class StormLoss:
    """The chance that the next storm phase loses the game.

    Attributes
    ----------
    probability : float
        In 0..1.
    low, high : float
        The 95 % interval; both equal ``probability`` when it is exact.
    exact : bool
        ``True`` for the exact recursion, ``False`` for Monte Carlo.
    cards : int
        Storm cards still to be drawn in that phase.
    by_cause : dict
        ``{"thirst": p, "sand_supply": p, "storm_meter": p}``, the chance that each is the loss
        reached (they sum to ``probability``).
    samples : int
        Monte Carlo draws used (0 when exact).
    """

    probability: float
    low: float
    high: float
    exact: bool
    cards: int
    by_cause: dict[str, float]
    samples: int = 0

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready copy."""
        return {"probability": self.probability, "low": self.low, "high": self.high, "exact": self.exact,
                "cards": self.cards, "by_cause": dict(self.by_cause), "samples": self.samples}


def players_pile(state: State) -> tuple[tuple[str | None, ...], Counter]:
    """The draw pile as the players know it: peeked slots named, the rest unknown.

    Returns
    -------
    (tuple, collections.Counter)
        Slots top first (a card id or ``None``), and the cards hidden in the ``None`` slots.
    """
    slots = tuple(card if seen else None for card, seen in zip(state.pile, state.pile_seen))
    hidden = Counter(state.pool)
    hidden.update(card for card, seen in zip(state.pile, state.pile_seen) if not seen and card is not None)
    return slots, +hidden


def _effect(card: str, storm: tuple[int, int], supply: int, meter: int, suns: int):
    """One card's effect on the loss-relevant state: (storm, supply, meter, suns)."""
    w = wind_of(card)
    if w is None:
        return (storm, supply, meter, suns + 1) if card == "sun_beats_down" else (storm, supply, meter + 1, suns)
    dr, dc = VEC[w[0]]
    moved = 0
    r, c = storm
    for _ in range(w[1]):
        if not on_board((r - dr, c - dc)):
            break
        r, c = r - dr, c - dc
        moved += 1
    return (r, c), supply - moved, meter, suns


def _cause(supply: int, meter: int, suns: int, thirst_limit: float, skull: int) -> int:
    """Index into CAUSES of the loss now reached, or -1."""
    if suns > thirst_limit:
        return 0
    if supply < 0:
        return 1
    if meter >= skull:
        return 2
    return -1


def _phase_inputs(state: State):
    k = state.to_draw if state.phase == "storm" else max(0, state.draw_count - state.reductions)
    shade = sheltered(state)
    limit = min((state.water[s] for s in range(state.cfg.n) if s not in shade), default=math.inf)
    slots, hidden = players_pile(state)
    # the pile a mid-phase reshuffle would bring (§3.8.1): the discard pile at that moment
    refill = Counter(state.discard)
    if state.cfg.rulings["reshuffle_includes_this_turns_cards"]:
        refill.update(c for c in slots if c is not None)
        refill.update(hidden)
    return k, limit, slots, hidden, refill


def storm_loss(state: State, seed: int = 0) -> StormLoss:
    """The chance that the next storm phase (or the rest of the current one) loses the game.

    Parameters
    ----------
    state : State
    seed : int
        Seed of the Monte Carlo sampler, used only for more than 4 cards.

    Returns
    -------
    StormLoss
        Exact for a draw of at most 4 cards, otherwise sampled (``MC_SAMPLES`` draws).
    """
    if state.result != "ongoing":
        lost = float(state.result.startswith("lost"))
        cause = {c: float(state.result == f"lost:{c}") for c in CAUSES}
        return StormLoss(lost, lost, lost, True, 0, cause)
    k = _phase_inputs(state)[0]
    if k <= EXACT_MAX_CARDS:
        return _exact(state)
    return _sampled(state, MC_SAMPLES, seed)


def _exact(state: State) -> StormLoss:
    k, limit, slots, hidden, refill = _phase_inputs(state)
    skull = len(state.cfg.ladder)
    refill_t = tuple(refill[c] for c in STORM_CARDS)
    zero = (0.0, 0.0, 0.0)

    @lru_cache(maxsize=None)
    def p(k, storm, supply, meter, suns, i, pool, refilled):
        """(thirst, sand, meter) loss chances of drawing k more cards; slots[i] is the top
        until the pile runs out, then the reshuffled ``refill`` pile (all unknown)."""
        if k == 0:
            return zero
        if not refilled and i == len(slots):
            return p(k, storm, supply, meter, suns, 0, refill_t, True) if any(refill_t) else zero
        if refilled and not any(pool):
            return zero
        head = None if refilled else slots[i]
        if head is not None:
            opts = [(1.0, head, pool)]
        else:
            total = sum(pool)
            opts = [(n / total, STORM_CARDS[j], pool[:j] + (n - 1,) + pool[j + 1:])
                    for j, n in enumerate(pool) if n]
        acc = [0.0, 0.0, 0.0]
        for pr, card, pool2 in opts:
            st2, sup2, m2, su2 = _effect(card, storm, supply, meter, suns)
            cause = _cause(sup2, m2, su2, limit, skull)
            if cause >= 0:
                acc[cause] += pr
            else:
                sub = p(k - 1, st2, sup2, m2, su2, i + 1, pool2, refilled)
                for c in range(3):
                    acc[c] += pr * sub[c]
        return tuple(acc)

    pool0 = tuple(hidden[c] for c in STORM_CARDS)
    parts = p(k, state.storm, state.supply, state.meter, 0, 0, pool0, False)
    total = sum(parts)
    return StormLoss(total, total, total, True, k, dict(zip(CAUSES, parts)))


def _sampled(state: State, samples: int, seed: int) -> StormLoss:
    k, limit, slots, hidden, refill = _phase_inputs(state)
    skull = len(state.cfg.ladder)
    rng = random.Random(seed)
    counts = [0, 0, 0]
    for _ in range(samples):
        unknown = sorted(hidden.elements())   # sorted: the sample must not depend on hidden order
        rng.shuffle(unknown)
        pile = [s if s is not None else unknown.pop() for s in slots]
        extra = sorted(refill.elements())
        rng.shuffle(extra)
        pile += extra
        storm, supply, meter, suns = state.storm, state.supply, state.meter, 0
        for card in pile[:k]:
            storm, supply, meter, suns = _effect(card, storm, supply, meter, suns)
            cause = _cause(supply, meter, suns, limit, skull)
            if cause >= 0:
                counts[cause] += 1
                break
    hits = sum(counts)
    low, high = wilson_interval(hits, samples)
    return StormLoss(hits / samples, low, high, False, k, {c: n / samples for c, n in zip(CAUSES, counts)}, samples)


def wilson_interval(hits: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (95 % for the default ``z``).

    Returns
    -------
    (float, float)
        Lower and upper bounds in 0..1. Source: E. B. Wilson, JASA 22 (1927) 209-212.
    """
    if n == 0:
        return 0.0, 1.0
    p = hits / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)
