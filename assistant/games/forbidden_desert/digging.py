"""Sand, excavation, clues, parts and water actions (§3.4, §3.7).

Each handler checks in the order of §6.4 and returns the first :class:`Refusal`, or ``None``
after applying its effect to the (private) state it was given.
"""

from __future__ import annotations

from collections import Counter

from ..base import Event, Refusal
from .components import WELL_WATER, part_of_clue
from .state import State
from .tiles import reveal


def _sand_target_refusal(state: State, seat: int, at: tuple[int, int]) -> Refusal | None:
    """The target checks shared by ``remove_sand`` and the Dune Blaster (§6.4), in order."""
    if (r := state.cell_refusal(at)) is not None:
        return r
    if at not in state.reach(seat):
        return Refusal("not_adjacent", f"Cell {list(at)} is out of reach.")
    if state.sand[state.slot_at(at)] == 0:
        return Refusal("no_sand", f"The tile at {list(at)} has no sand.")
    return None


def remove_sand(state: State, ev: Event) -> Refusal | None:
    """``remove_sand {at, count?}``: 1 marker, or 1-2 for the Archeologist (default min(2, sand))."""
    seat, at, count = ev.actor, ev["at"], ev.get("count")
    if (r := _sand_target_refusal(state, seat, at)) is not None:
        return r
    slot = state.slot_at(at)
    archeologist = state.adventurer(seat) == "archeologist"
    if count is None:
        count = min(2, state.sand[slot]) if archeologist else 1
    if count not in ((1, 2) if archeologist else (1,)) or count > state.sand[slot]:
        return Refusal("bad_count", f"{state.adventurer(seat)} cannot remove {count} markers here.")
    state.sand[slot] -= count
    state.actions_left -= 1
    return None


def blast(state: State, seat: int, at: tuple[int, int]) -> Refusal | None:
    """Dune Blaster ``{at}``: all sand off a tile in the holder's reach (§3.6)."""
    if (r := _sand_target_refusal(state, seat, at)) is not None:
        return r
    state.sand[state.slot_at(at)] = 0
    return None


def equipment_pool(state: State) -> Counter:
    """Equipment cards not yet seen: the whole deck minus hands and used cards (§5.3)."""
    pool = Counter(state.cfg.equipment_deck)
    pool.subtract(state.equipment_out)
    for hand in state.hands:
        pool.subtract(hand)
    return +pool


def _draw_equipment(state: State, seat: int, draws: str | None) -> Refusal | None:
    if state.cfg.digital_equipment:
        if not state.equip_pile:
            if draws is not None:
                return Refusal("observation_conflict", "The equipment draw pile is empty.")
            return None
        if draws is not None and draws != state.equip_pile[0]:
            return Refusal("observation_conflict", f"The top equipment card is {state.equip_pile[0]}, not {draws}.")
        state.hands[seat].append(state.equip_pile.pop(0))
        return None
    if draws is None:
        return Refusal("observation_missing", "The equipment card drawn must be given as 'draws'.")
    if equipment_pool(state)[draws] <= 0:
        return Refusal("observation_conflict", f"No {draws} card can be left in the equipment deck.")
    state.hands[seat].append(draws)
    return None


def excavate(state: State, ev: Event) -> Refusal | None:
    """``excavate {reveals?, draws?}``: turn the actor's tile face up and apply §3.7."""
    seat = ev.actor
    slot = state.pawn[seat]
    if state.excavated[slot]:
        return Refusal("already_excavated", "This tile is already face up.")
    if state.sand[slot] > 0:
        return Refusal("tile_has_sand", "A tile must be clear of sand to be excavated.")
    reveals = ev.get("reveals")
    if reveals is None and state.ident[slot] is None:
        return Refusal("observation_missing", "The face revealed must be given as 'reveals'.")
    if reveals is not None and (r := reveal(state, slot, reveals)) is not None:
        return r
    kind = state.kind(slot)
    draws = ev.get("draws")
    if kind in ("crash_site", "tunnel", "gear"):
        if (r := _draw_equipment(state, seat, draws)) is not None:
            return r
    elif draws is not None:
        return Refusal("observation_conflict", f"A {kind} tile gives no equipment card.")
    state.excavated[slot] = True
    if kind == "well":
        _water_all(state, slot, WELL_WATER)
    elif kind == "clue":
        place_if_ready(state, part_of_clue(state.ident[slot]))
    state.actions_left -= 1
    return None


def _water_all(state: State, slot: int, amount: int) -> None:
    for seat in state.seats_on(slot):
        state.water[seat] = min(state.cfg.canteen(seat), state.water[seat] + amount)


def secret_water_reserve(state: State, seat: int) -> None:
    """Every pawn on the holder's tile gains 2 water, capped (§3.6)."""
    _water_all(state, state.pawn[seat], WELL_WATER)


def place_if_ready(state: State, part: str) -> None:
    """Place ``part`` where its two clue tiles now point, once both are face up (§3.7)."""
    if part in state.parts_held or part in state.parked or any(part in p for p in state.parts_on):
        return
    slots = {}
    for axis in ("row", "column"):
        slot = state.slot_of_tile(f"clue_{part}_{axis}")
        if slot is None or not state.excavated[slot]:
            return
        slots[axis] = slot
    cell = (state.cell_of[slots["row"]][0], state.cell_of[slots["column"]][1])
    if cell == state.storm:
        state.parked = state.parked | {part}
    else:
        target = state.slot_at(cell)
        state.parts_on[target] = state.parts_on[target] | {part}



def pick_up_part(state: State, ev: Event) -> Refusal | None:
    """``pick_up_part {part?}``: take a placed part from the actor's face-up, unblocked tile."""
    slot = state.pawn[ev.actor]
    here, part = state.parts_on[slot], ev.get("part")
    if not here or (part is not None and part not in here):
        return Refusal("no_part_here", f"No {part or 'part'} lies on this tile.")
    if part is None:
        if len(here) > 1:
            return Refusal("bad_choice", f"Several parts lie here ({', '.join(sorted(here))}); name one.")
        (part,) = here
    if not state.excavated[slot]:
        return Refusal("not_excavated", "The tile must be excavated before its part can be picked up.")
    if state.blocked(slot):
        return Refusal("tile_blocked", "A part cannot be picked up from a tile with 2 or more sand.")
    state.parts_on[slot] = here - {part}
    state.parts_held = state.parts_held | {part}
    state.actions_left -= 1
    return None


def take_water(state: State, ev: Event) -> Refusal | None:
    """``take_water``: the Water Carrier gains 2 water on an excavated well (capped at 5)."""
    seat = ev.actor
    slot = state.pawn[seat]
    if not (state.excavated[slot] and state.kind(slot) == "well"):
        return Refusal("not_a_well", "Water can only be taken on an excavated well.")
    if state.blocked(slot) and not state.cfg.rulings["water_carrier_blocked_well"]:
        return Refusal("tile_blocked", "Under this ruling water cannot be taken from a blocked well.")
    state.water[seat] = min(state.cfg.canteen(seat), state.water[seat] + WELL_WATER)
    state.actions_left -= 1
    return None
