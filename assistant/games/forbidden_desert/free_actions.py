"""Free actions: giving water, passing and playing equipment (§3.5, §3.6).

Free actions cost no action and are open to every seat at every moment while the game is on,
buried or not. Each handler checks in the order of §6.4 and returns the first
:class:`Refusal`, or ``None`` after applying its effect to the (private) state.
"""

from __future__ import annotations

from ..base import Event, Refusal
from .components import TIME_THROTTLE_ACTIONS
from .digging import blast, secret_water_reserve
from .movement import jet_pack
from .state import State
from .storm import peek
from .tiles import reveal


def give_water(state: State, ev: Event) -> Refusal | None:
    """``give_water {to, amount}``: same tile, or an orthogonal neighbour for the Water Carrier."""
    giver, to, amount = ev.actor, ev["to"], ev["amount"]
    if to == giver:
        return Refusal("self_target", "A pawn cannot give water to itself.")
    a, b = state.cell_of_seat(giver), state.cell_of_seat(to)
    adjacent = abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1
    if a != b and not (adjacent and state.adventurer(giver) == "water_carrier"):
        return Refusal("not_same_tile", f"Seat {to} is out of range for giving water.")
    if amount < 1:
        return Refusal("bad_amount", "At least 1 water must be given.")
    if state.water[giver] < amount:
        return Refusal("not_enough_water", f"Seat {giver} has only {state.water[giver]} water.")
    if state.water[to] + amount > state.cfg.canteen(to):
        return Refusal("over_capacity", f"Seat {to}'s canteen holds at most {state.cfg.canteen(to)}.")
    state.water[giver] -= amount
    state.water[to] += amount
    return None


def pass_equipment(state: State, ev: Event) -> Refusal | None:
    """``pass_equipment {to, card}``: hand a card to a pawn on the same tile."""
    giver, to, card = ev.actor, ev["to"], ev["card"]
    if to == giver:
        return Refusal("self_target", "A pawn cannot pass a card to itself.")
    if card not in state.hands[giver]:
        return Refusal("card_not_held", f"Seat {giver} does not hold {card}.")
    if state.pawn[giver] != state.pawn[to]:
        return Refusal("not_same_tile", f"Seat {to} is not on the same tile.")
    state.hands[giver].remove(card)
    state.hands[to].append(card)
    return None


def _terrascope(state: State, seat: int, at: tuple[int, int], sees: str | None) -> Refusal | None:
    if (r := state.cell_refusal(at)) is not None:
        return r
    slot = state.slot_at(at)
    if state.excavated[slot]:
        return Refusal("already_excavated", "The Terrascope looks under face-down tiles only.")
    if sees is not None and (r := reveal(state, slot, sees)) is not None:
        return r
    if state.ident[slot] is not None:     # the holder now knows this face (§5.1)
        state.scoped = state.scoped[:seat] + [state.scoped[seat] | {slot}] + state.scoped[seat + 1:]
    return None


def _time_throttle(state: State, seat: int) -> Refusal | None:
    if seat != state.active:
        return Refusal("not_your_turn", f"Time Throttle is played on the holder's own turn (seat {state.active} is active).")
    if state.phase != "actions":
        return Refusal("not_action_phase", "Time Throttle is played in the action phase.")
    state.actions_left += TIME_THROTTLE_ACTIONS
    return None


def _solar_shield(state: State, seat: int) -> None:
    at_play = state.cfg.rulings["solar_shield_judged"] == "at_play"
    state.shields[seat] = frozenset({seat, *state.seats_on(state.pawn[seat])}) if at_play else None


def play_equipment(state: State, ev: Event) -> Refusal | None:
    """``play_equipment {card, ...}``: the holder plays a card, which then leaves the game."""
    seat, card = ev.actor, ev["card"]
    if card not in state.hands[seat]:
        return Refusal("card_not_held", f"Seat {seat} does not hold {card}.")
    r: Refusal | None = None
    if card == "dune_blaster":
        r = blast(state, seat, ev["at"])
    elif card == "jet_pack":
        r = jet_pack(state, ev)
    elif card == "solar_shield":
        _solar_shield(state, seat)
    elif card == "terrascope":
        r = _terrascope(state, seat, ev["at"], ev.get("sees"))
    elif card == "secret_water_reserve":
        secret_water_reserve(state, seat)
    elif card == "time_throttle":
        r = _time_throttle(state, seat)
    elif card == "storm_tracker":
        r = peek(state, ev.get("seen"), ev.get("to_bottom"))
    if r is not None:
        return r
    state.hands[seat].remove(card)
    state.equipment_out.append(card)
    return None
