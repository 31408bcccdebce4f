"""Storm-phase risk: the chance that the next storm phase loses the game (§5.4 item 3).

Only what the *players* know is used: the discard pile, the cards a Meteorologist or Storm
Tracker has seen (and where they now lie), and the revealed tiles; never the assistant's own
digital deck order. The figure assumes, as §5.4 does, that nobody plays a free action during
the phase. It is exact for every draw the game can ask for (1-6 cards): :mod:`.odds_exact`
holds the memoised recursion, and the shade of each pawn is judged as each Sun Beats Down
resolves (§3.8.3), which matters under ``blocked_tunnel_shelters: false``: a tunnel that slides
into its second sand marker stops sheltering its pawns in the middle of the phase.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Any

from .components import STORM_CARDS
from .odds_exact import Phase, Tunnel, solve
from .state import State
from .storm import shielded

CAUSES = ("thirst", "sand_supply", "storm_meter")


@dataclass(frozen=True)
class StormLoss:
    """The chance that the next storm phase loses the game.

    Attributes
    ----------
    probability : float
        In 0..1.
    low, high : float
        Kept for the views' JSON: both equal ``probability`` (the figure is exact).
    exact : bool
        Always ``True``.
    cards : int
        Storm cards still to be drawn in that phase.
    by_cause : dict
        ``{"thirst": p, "sand_supply": p, "storm_meter": p}``, the chance that each is the loss
        reached (they sum to ``probability``).
    samples : int
        0 (no sampling).
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


def cards_due(state: State) -> int:
    """The storm cards the next (or current) storm phase still draws (§3.3)."""
    return state.to_draw if state.phase == "storm" else max(0, state.draw_count - state.reductions)


def phase_of(state: State) -> Phase:
    """What the next storm phase acts on, from the players' knowledge (§5.4, §3.8).

    Shade (§3.8.3): a shield covers its seats for the whole phase (pawns ride their tiles, so
    the pawns on the holder's tile do not change); an open tunnel shades with any sand under
    the default ruling, and under ``blocked_tunnel_shelters: false`` only while it holds at most
    1 marker, which a wind can change mid-phase.

    Returns
    -------
    Phase
    """
    slots, hidden = players_pile(state)
    # the pile a mid-phase reshuffle would bring (§3.8.1): the discard pile at that moment
    refill = Counter(state.discard)
    if state.cfg.rulings["reshuffle_includes_this_turns_cards"]:
        refill.update(c for c in slots if c is not None)
        refill.update(hidden)
    covered = shielded(state)
    any_sand = state.cfg.rulings["blocked_tunnel_shelters"]
    drinkers, tunnels = [], {}
    for seat, slot in enumerate(state.pawn):
        if seat in covered:
            continue
        if state.open_tunnel(slot) and (any_sand or state.sand[slot] <= 1):
            if not any_sand:
                tunnels[slot] = min(tunnels.get(slot, math.inf), state.water[seat])
            continue
        drinkers.append(state.water[seat])
    return Phase(
        cards=cards_due(state), slots=slots, hidden=tuple(hidden[c] for c in STORM_CARDS),
        refill=tuple(refill[c] for c in STORM_CARDS), storm=state.storm, supply=state.supply,
        meter_left=len(state.cfg.ladder) - state.meter, drinkers_water=min(drinkers, default=None),
        tunnels=tuple(Tunnel(state.cell_of[slot], state.sand[slot], water) for slot, water in sorted(tunnels.items())))


def storm_loss(state: State) -> StormLoss:
    """The chance that the next storm phase (or the rest of the current one) loses the game.

    Parameters
    ----------
    state : State

    Returns
    -------
    StormLoss
        Exact for any draw (1-6 cards); split by the first loss reached.
    """
    if state.result != "ongoing":
        lost = float(state.result.startswith("lost"))
        cause = {c: float(state.result == f"lost:{c}") for c in CAUSES}
        return StormLoss(lost, lost, lost, True, 0, cause)
    phase = phase_of(state)
    parts = solve(phase)
    total = sum(parts)
    return StormLoss(total, total, total, True, phase.cards, dict(zip(CAUSES, parts)))
