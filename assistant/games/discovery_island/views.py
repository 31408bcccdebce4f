"""What leaves the Discovery Island engine: the referee's summary (rules §7.3) and the views (§6.1).

The summary is the referee's full account. A player's view holds only what that player may
know: the opponent's true position and march (that player lays the opponent's tiles), the
terrain to lay for each direction the opponent may name, its own candidate set and possible
landing hexes, its own clues, card counters and the caches the clues still allow, and of the
opponent only which checkpoint labels were taken and which cards were used. It never holds the
player's own true position, the treasure or the opponent's clue contents. The table view
(``seat=None``) holds only what both players see.
"""

from __future__ import annotations

from typing import Any

from .geometry import DIRECTION_NAMES, Hex, step, to_offset
from .knowledge import possible_landings, possible_treasures
from .state import State


def _cell(h: Hex) -> list[int]:
    return list(to_offset(*h))


def summary(state: State) -> dict[str, Any]:
    """The §7.3 summary: result, winner (when won), events, marches, position, clues,
    candidates, skips_pending; lists indexed by player, hexes as ``[col, row]``."""
    out: dict[str, Any] = {"result": state.result}
    if state.result == "won":
        out["winner"] = state.winner
    out.update({
        "events": state.events,
        "marches": list(state.marches),
        "position": [_cell(h) for h in state.pos],
        "clues": [{**{lab: None for lab, who in state.taken.items() if who == p}, **state.clues[p]} for p in (0, 1)],
        "candidates": [len(c) for c in state.candidates],
        "skips_pending": list(state.skips),
    })
    return out


def _claimant_knows(state: State, label: str) -> bool:
    """Whether the player who took checkpoint ``label`` knows its label (the opponent always
    does): at once under ``label_revealed = on_entry``, else once it has paid for the clue."""
    return state.rule("label_revealed") == "on_entry" or label in state.clues[state.taken[label]]


def _public(state: State) -> dict[str, Any]:
    p = state.walker
    return {
        "result": state.result,
        "winner": state.winner,
        "events": state.events,
        "to_move": p,
        "march_sum": state.sums[p],
        "march_over": state.over,
        "pending": state.pending[0] if state.pending else None,
        "marches": list(state.marches),
        "skips_pending": list(state.skips),
        "checkpoints_taken": {label: who for label, who in sorted(state.taken.items()) if _claimant_knows(state, label)},
        "empty_caches": sorted(state.empty_caches),
        "cards_used": [list(u) for u in state.used_cards],
    }


def _cards(state: State, p: int) -> dict[str, Any]:
    return {name: {"terrain_left": dict(c.terrain_left), "march_left": c.march_left,
                   "used_this_march": c.used_this_march, "discarded": c.discarded}
            for name, c in state.cards[p].items()}


def view(state: State, seat: int | None) -> dict[str, Any]:
    """What ``seat`` (0 or 1) may know; ``None`` is the table both players see.

    Returns
    -------
    dict
        The public fields (``to_move``, ``march_sum``, ``marches``, ``skips_pending``,
        ``checkpoints_taken``, ``empty_caches``, ``cards_used``...) and, for a seat:
        ``opponent_position`` and ``opponent_path`` (``[col, row]``), ``lay_next``
        (direction -> terrain the opponent's next step would show, while the opponent walks),
        ``candidates`` and ``possible_landings`` (sorted ``[col, row]`` lists), ``clues``,
        ``cards`` (counters) and ``possible_treasures`` (cache labels).
    """
    out = _public(state)
    if seat is None:
        return out
    island, rulings = state.cfg.island, state.cfg.rulings
    other = 1 - seat
    out["seat"] = seat
    out["checkpoints_taken"] = {label: who for label, who in sorted(state.taken.items())
                                if who == other or _claimant_knows(state, label)}
    out["opponent_position"] = _cell(state.pos[other])
    out["opponent_path"] = [_cell(h) for h in state.paths[other]]
    out["lay_next"] = ({d: island.terrain(step(state.pos[other], d)) for d in DIRECTION_NAMES}
                       if state.walker == other and state.result == "ongoing" else {})
    out["candidates"] = sorted(_cell(h) for h in state.candidates[seat])
    out["possible_landings"] = sorted(_cell(h) for h in possible_landings(island, rulings, state.observations[seat]))
    out["clues"] = dict(state.clues[seat])
    out["cards"] = _cards(state, seat)
    out["possible_treasures"] = possible_treasures(island, state.clues[seat].values(), state.empty_caches)
    return out


#: One sentence per reason code (rules §7.4) that the whole table may hear: the engine's own
#: messages name island hexes, and the walker must not learn where it stands (§6.1).
TABLE_SENTENCES = {
    "off_map": "That step leaves the map.",
    "direction_into_sea": "The map shows sea that way: the opponent should have said \"hav\".",
    "not_sea": "That way is land, not sea.",
    "wrong_step_type": "The hex that way is not what the tile says (a checkpoint, a cache, or plain land).",
    "label_mismatch": "The label does not match the map there.",
    "wrong_terrain_laid": "The terrain of the tile laid is not the map's terrain that way.",
    "points_out_of_range": "The tile's number is outside its terrain's range.",
    "tile_not_in_supply": "No tile like that is in the supply.",
    "march_not_over": "The march is not over yet: it needs 12 points or an event that ends it.",
    "march_already_over": "The march is already over.",
    "not_your_march": "It is not that player's march.",
    "resolution_pending": "The event on the last tile must be resolved first.",
    "relocation_too_far": "The new start is too far from where the walker got lost.",
    "relocation_into_sea": "The new start is in the sea.",
    "relocation_on_feature": "The new start may not be a checkpoint or a cache.",
    "relocation_same_hex": "The new start may not be the hex where the walker got lost.",
}


def table_sentence(reason: str) -> str:
    """What the table may hear about an illegal move with rules reason code ``reason``: a fixed
    sentence that names no island hex (the engine's message goes to the opponent only)."""
    return TABLE_SENTENCES.get(reason, f"That move is not allowed ({reason.replace('_', ' ')}).")
