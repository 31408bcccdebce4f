"""The storm: the storm deck as a real deck, card effects, peeks and the turn cycle (§3.3, §3.8, §5.2).

The draw pile is a list of slots, top first; a slot holds a known card or ``None``, and a pool
counts the cards in the ``None`` slots. With the assistant's own (digital) deck every slot is
known; with the table's physical deck the engine learns each card as it is drawn or peeked.
All functions here mutate the state they are given (a private copy made by ``rules.apply``).
"""

from __future__ import annotations

from collections import Counter

from ..base import Refusal
from .components import START_ACTIONS, VEC, on_board, wind_of
from .state import State


# --- turn cycle (§3.3) ----------------------------------------------------------------------
def start_turn(state: State, seat: int) -> None:
    """Begin ``seat``'s action phase: 4 actions, no reductions, its own Solar Shield ends."""
    state.active, state.phase = seat, "actions"
    state.actions_left, state.reductions, state.to_draw = START_ACTIONS, 0, 0
    state.shields.pop(seat, None)


def begin_storm_phase(state: State) -> None:
    """``end_turn``: draw ``max(0, draw_count - reductions)`` cards, or pass the turn at once."""
    state.phase = "storm"
    state.to_draw = max(0, state.draw_count - state.reductions)
    if state.to_draw == 0:
        _end_storm_phase(state)


def _end_storm_phase(state: State) -> None:
    state.discard.extend(state.set_aside)
    state.set_aside.clear()
    start_turn(state, (state.active + 1) % state.cfg.n)


# --- the draw pile (§5.2) -------------------------------------------------------------------
def _reshuffle_unknown(state: State) -> None:
    """Physical deck: the discard pile becomes a face-down pile of unknown order."""
    state.pool = Counter(state.discard)
    state.pile = [None] * len(state.discard)
    state.pile_seen = [False] * len(state.discard)
    state.discard = []


def draw_storm(state: State, card: str | None) -> Refusal | None:
    """``draw_storm``: take the top card of the digital pile; ``card``, if given, must match."""
    if not state.pile:
        return Refusal("reshuffle_required", "The storm draw pile is empty; a reshuffle event must come first.")
    top = state.pile[0]
    if card is not None and card != top:
        return Refusal("observation_conflict", f"The top storm card is {top}, not {card}.")
    _pop_top(state)
    resolve_card(state, top)
    return None


def storm_card(state: State, card: str) -> Refusal | None:
    """``storm_card``: the table's physical deck showed ``card``; it must be possible."""
    if not state.pile:
        _reshuffle_unknown(state)
    top = state.pile[0] if state.pile else None
    if top is not None and top != card:
        return Refusal("observation_conflict", f"The top storm card is known to be {top}, not {card}.")
    if top is None and state.pool[card] <= 0:
        return Refusal("observation_conflict", f"No {card} card can be left in the storm draw pile.")
    if top is None:
        state.pool[card] -= 1
    _pop_top(state)
    resolve_card(state, card)
    return None


def _pop_top(state: State) -> None:
    state.pile.pop(0)
    state.pile_seen.pop(0)


def reshuffle(state: State, order: tuple[str, ...] | None) -> Refusal | None:
    """``reshuffle``: legal only on an empty pile; a digital deck needs the new ``order``."""
    if state.pile:
        return Refusal("bad_reshuffle", f"The storm draw pile still holds {len(state.pile)} cards.")
    if not state.cfg.digital_storm:
        if order is not None:
            return Refusal("bad_reshuffle", "A physical deck is shuffled by hand; the event carries no order.")
        _reshuffle_unknown(state)
        return None
    if order is None or Counter(order) != Counter(state.discard):
        return Refusal("bad_reshuffle", "The order must be a permutation of the discard pile.")
    state.pile, state.pile_seen, state.discard = list(order), [False] * len(order), []
    return None


def peek(state: State, seen: tuple[str, ...] | None, to_bottom: int | None) -> Refusal | None:
    """Meteorologist peek or Storm Tracker (§3.8.5): see the top ``draw_count`` cards (fewer
    when the pile is short, none when it is empty) and optionally send one to the bottom."""
    m = min(state.draw_count, len(state.pile))
    if seen is None and any(state.pile[i] is None for i in range(m)):
        return Refusal("observation_missing", f"The {m} cards seen must be given as 'seen'.")
    if seen is not None:
        if len(seen) != m:
            return Refusal("observation_conflict", f"The peek shows exactly {m} cards, not {len(seen)}.")
        pool = Counter(state.pool)
        for i, card in enumerate(seen):
            if state.pile[i] is None:
                if pool[card] <= 0:
                    return Refusal("observation_conflict", f"No {card} card can be left in the storm draw pile.")
                pool[card] -= 1
            elif state.pile[i] != card:
                return Refusal("observation_conflict", f"Card {i} from the top is {state.pile[i]}, not {card}.")
        state.pool = pool
        state.pile[:m] = list(seen)
    if to_bottom is not None and not 0 <= to_bottom < m:
        return Refusal("bad_choice", f"'to_bottom' must index one of the {m} cards seen.")
    for i in range(m):
        state.pile_seen[i] = True
    if to_bottom is not None:
        state.pile.append(state.pile.pop(to_bottom))
        state.pile_seen.append(state.pile_seen.pop(to_bottom))
    return None


# --- card effects (§3.8.2-§3.8.4) ------------------------------------------------------------
def resolve_card(state: State, card: str) -> None:
    """Resolve one drawn storm card in full, discard it, and end the phase after the last one."""
    w = wind_of(card)
    if w:
        wind(state, *w)
    elif card == "sun_beats_down":
        sun(state)
    else:
        storm_picks_up(state)
    if state.cfg.rulings["reshuffle_includes_this_turns_cards"]:
        state.discard.append(card)
    else:
        state.set_aside.append(card)
    state.to_draw -= 1
    if state.result == "ongoing" and state.to_draw == 0:
        _end_storm_phase(state)


def wind(state: State, d: str, k: int) -> None:
    """Slide up to ``k`` tiles in direction ``d`` into the storm, then 1 sand on each mover."""
    dr, dc = VEC[d]
    moved = []
    for _ in range(k):
        src = (state.storm[0] - dr, state.storm[1] - dc)
        if not on_board(src):
            break                                  # respite: the rest of the card is void
        slot = state.grid[src[0]][src[1]]
        state.grid[state.storm[0]][state.storm[1]] = slot
        state.grid[src[0]][src[1]] = None
        state.cell_of[slot] = state.storm
        if state.parked:                           # a parked part boards the first arrival
            state.parts_on[slot] = state.parts_on[slot] | state.parked
            state.parked = frozenset()
        state.storm = src
        moved.append(slot)
    for slot in moved:
        if state.supply == 0:
            state.result = "lost:sand_supply"
            return
        state.sand[slot] += 1


def shielded(state: State) -> set[int]:
    """Seats a Solar Shield covers now: the covered seats fixed at play (``at_play``), or the
    holder and the pawns on its tile (``at_sun``, §4)."""
    shade: set[int] = set()
    for holder, covered in state.shields.items():
        shade |= covered if covered is not None else {holder, *state.seats_on(state.pawn[holder])}
    return shade


def sheltered(state: State) -> set[int]:
    """Seats that do not drink on Sun Beats Down now: open tunnels and Solar Shields (§3.8.3)."""
    need_unblocked = not state.cfg.rulings["blocked_tunnel_shelters"]
    shade = {s for s, slot in enumerate(state.pawn)
             if state.open_tunnel(slot) and not (need_unblocked and state.blocked(slot))}
    return shade | shielded(state)


def sun(state: State) -> None:
    """Every unsheltered pawn drinks 1; one that must drink at 0 loses the game (thirst)."""
    shade = sheltered(state)
    dry = False
    for seat in range(state.cfg.n):
        if seat in shade:
            continue
        if state.water[seat] == 0:
            dry = True
        else:
            state.water[seat] -= 1
    if dry:
        state.result = "lost:thirst"


def storm_picks_up(state: State) -> None:
    """The meter climbs one tick; the skull loses the game (§3.8.4)."""
    state.meter += 1
    if state.meter >= len(state.cfg.ladder):
        state.result = "lost:storm_meter"
