"""Applying one event: the common checks of §6.4 in order, then the event's own handler.

``apply`` copies the state, lets the handler check and change the copy, and returns the copy
or the handler's :class:`Refusal`; the caller's state is never touched, so an illegal event
leaves nothing half-applied.
"""

from __future__ import annotations

from typing import Callable

from ..base import Event, Refusal
from . import digging, free_actions, movement, storm
from .components import PARTS, ROLE_ACTIONS
from .events import ACTIONS, SEAT_PARAMS, TURN_BOUND
from .state import State

Handler = Callable[[State, Event], "Refusal | None"]


def _end_turn(state: State, ev: Event) -> None:
    storm.begin_storm_phase(state)


def _reduce(state: State, ev: Event) -> None:
    state.reductions += 1
    state.actions_left -= 1


def _peek(state: State, ev: Event) -> Refusal | None:
    if (r := storm.peek(state, ev.get("seen"), ev.get("to_bottom"))) is not None:
        return r
    state.actions_left -= 1
    return None


HANDLERS: dict[str, Handler] = {
    "move": movement.move,
    "remove_sand": digging.remove_sand,
    "excavate": digging.excavate,
    "pick_up_part": digging.pick_up_part,
    "take_water": digging.take_water,
    "navigate": movement.navigate,
    "meteorologist_reduce": _reduce,
    "meteorologist_peek": _peek,
    "end_turn": _end_turn,
    "give_water": free_actions.give_water,
    "pass_equipment": free_actions.pass_equipment,
    "play_equipment": free_actions.play_equipment,
    "draw_storm": lambda s, ev: storm.draw_storm(s, ev.get("card")),
    "storm_card": lambda s, ev: storm.storm_card(s, ev["card"]),
    "reshuffle": lambda s, ev: storm.reshuffle(s, ev.get("order")),
}


def common_refusal(state: State, ev: Event) -> Refusal | None:
    """Steps 1-6 of §6.4, shared by every event type; ``None`` when they all pass."""
    # 1. nothing happens after a win or a loss
    if state.result != "ongoing":
        return Refusal("game_over", f"The game is over ({state.result}).")
    # 2. every seat named must play
    n = state.cfg.n
    seats = [("actor", ev.actor)] if ev.actor != "storm" else []
    seats += [(k, ev.get(k)) for k in SEAT_PARAMS if isinstance(ev.get(k), int)]
    for name, seat in seats:
        if not 0 <= seat < n:
            return Refusal("no_such_player", f"Seat {seat} ({name}) does not play; seats are 0 to {n - 1}.")
    # 3. turn and phase
    if ev.type in TURN_BOUND:
        if ev.actor != state.active:
            return Refusal("not_your_turn", f"It is seat {state.active}'s turn, not seat {ev.actor}'s.")
        if state.phase != "actions":
            return Refusal("not_action_phase", "The storm phase is under way; actions wait for the next turn.")
    if ev.type in ("draw_storm", "storm_card"):
        if state.phase != "storm":
            return Refusal("not_storm_phase", "Storm cards are drawn only in the storm phase.")
        if (ev.type == "draw_storm") != state.cfg.digital_storm:
            mode = "the assistant's digital" if state.cfg.digital_storm else "the table's physical"
            return Refusal("wrong_deck_mode", f"This game uses {mode} storm deck.")
    if ev.type not in ACTIONS:
        return None
    # 4. role actions, and carrying, belong to one adventurer
    adventurer = state.adventurer(ev.actor)
    role = ROLE_ACTIONS.get(ev.type)
    if role and adventurer != role:
        return Refusal("wrong_adventurer", f"Only the {role} may {ev.type.replace('_', ' ')}.")
    if ev.type == "move" and ev.get("carry") is not None and adventurer != "climber":
        return Refusal("wrong_adventurer", "Only the Climber may carry another pawn.")
    # 5. an action needs an action left
    if state.actions_left <= 0:
        return Refusal("no_actions_left", "No actions are left this turn.")
    # 6. a buried pawn may only dig out its own tile
    if state.buried(ev.actor) and not (ev.type == "remove_sand" and ev["at"] == state.cell_of_seat(ev.actor)):
        return Refusal("buried", f"Seat {ev.actor} is buried; only removing sand from its own tile is allowed.")
    return None


def apply(state: State, ev: Event) -> State | Refusal:
    """The state after ``ev``, or a :class:`Refusal` with the rules file's reason code.

    Parameters
    ----------
    state : State
        Not modified.
    ev : Event
        A well-formed event (see :func:`events.parse_event`).

    Returns
    -------
    State or Refusal
    """
    if (r := common_refusal(state, ev)) is not None:
        return r
    new = state.copy()
    if (r := HANDLERS[ev.type](new, ev)) is not None:
        return r
    new.events += 1
    if new.result == "ongoing" and won(new):
        new.result = "won"
    return new


def won(state: State) -> bool:
    """All 4 parts held and every pawn on the launch pad with at most 1 sand (§3.9); by the
    ``launch_pad_must_be_excavated`` ruling the pad must be face up, else merely known."""
    if len(state.parts_held) < len(PARTS):
        return False
    pad = state.slot_of_tile("launch_pad")
    if pad is None or state.sand[pad] > 1:
        return False
    if state.cfg.rulings["launch_pad_must_be_excavated"] and not state.excavated[pad]:
        return False
    return all(slot == pad for slot in state.pawn)
