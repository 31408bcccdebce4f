"""Pawn movement: single steps, ``move``, ``navigate`` and the Jet Pack flight (§3.4, §3.6).

Each function checks in the order of §6.4 and returns the first :class:`Refusal`, or ``None``
after applying the effect to the (private) state it was given.
"""

from __future__ import annotations

from ..base import Event, Refusal
from .components import ALL_CELLS, Cell, neighbours, on_board
from .state import State

MAX_NAVIGATE_STEPS = 3


def step_refusal(state: State, seat: int, a: Cell, b: Cell) -> Refusal | None:
    """Why pawn ``seat`` may not step from cell ``a`` to cell ``b`` (``None``: it may).

    This is §3.4 ``step_ok`` with its two failures told apart: ``target_blocked`` when ``b`` is
    a neighbour (diagonals for the Explorer) or an open-tunnel hop but has 2+ sand and this
    pawn may not enter it; ``not_adjacent`` otherwise.
    """
    slot_b = state.slot_at(b)
    if slot_b is None:
        return Refusal("not_adjacent", f"No tile lies at {list(b)}.")
    climber = state.adventurer(seat) == "climber"
    if neighbours(a, b, diagonal=state.adventurer(seat) == "explorer"):
        if state.blocked(slot_b) and not climber:
            return Refusal("target_blocked", f"The tile at {list(b)} is blocked by sand.")
        return None
    if state.open_tunnel(state.slot_at(a)) and state.open_tunnel(slot_b):
        if state.blocked(slot_b) and not (climber and state.cfg.rulings["climber_tunnels_to_blocked_tunnel"]):
            return Refusal("target_blocked", f"The tunnel at {list(b)} is blocked by sand.")
        return None
    return Refusal("not_adjacent", f"{list(b)} is neither a neighbour of {list(a)} nor an open tunnel hop away.")


def _passenger_refusal(state: State, mover: int, carry: int | None) -> Refusal | None:
    if carry is None:
        return None
    if carry == mover:
        return Refusal("self_target", "A pawn cannot carry itself.")
    if state.pawn[carry] != state.pawn[mover]:
        return Refusal("passenger_not_here", f"Seat {carry} is not on the mover's tile.")
    return None


def _relocate(state: State, seats: list[int], to: Cell) -> None:
    slot = state.slot_at(to)
    for seat in seats:
        state.pawn[seat] = slot


def move(state: State, ev: Event) -> Refusal | None:
    """``move {to, carry?}``: one step, or a tunnel hop; the Climber may bring a passenger."""
    seat, to, carry = ev.actor, ev["to"], ev.get("carry")
    if (r := state.cell_refusal(to)) is not None:
        return r
    here = state.cell_of_seat(seat)
    if to == here:
        return Refusal("no_move", "The pawn is already on that tile.")
    if (r := _passenger_refusal(state, seat, carry)) is not None:
        return r
    if (r := step_refusal(state, seat, here, to)) is not None:
        return r
    _relocate(state, [seat] + ([carry] if carry is not None else []), to)
    state.actions_left -= 1
    return None


def paths(state: State, seat: int, max_steps: int = MAX_NAVIGATE_STEPS) -> dict[Cell, list[Cell]]:
    """Every cell pawn ``seat`` can reach in 1..``max_steps`` legal steps, with one shortest path.

    Returns
    -------
    dict
        cell -> list of cells stepped on (start excluded, ending at that cell). The pawn's own
        cell is left out.
    """
    start = state.cell_of_seat(seat)
    best: dict[Cell, list[Cell]] = {start: []}
    frontier = [start]
    for _ in range(max_steps):
        nxt = []
        for a in frontier:
            for b in ALL_CELLS:
                if b in best or b == state.storm or step_refusal(state, seat, a, b) is not None:
                    continue
                best[b] = best[a] + [b]
                nxt.append(b)
        frontier = nxt
    del best[start]
    return best


def navigate(state: State, ev: Event) -> Refusal | None:
    """``navigate {target, to, path?, carry?}``: the Navigator moves another pawn 1-3 steps."""
    target, to, path, carry = ev["target"], ev["to"], ev.get("path"), ev.get("carry")
    if target == ev.actor:
        return Refusal("self_target", "The Navigator moves other pawns, not itself.")
    if (r := state.cell_refusal(to)) is not None:
        return r
    if to == state.cell_of_seat(target):
        return Refusal("no_move", "The target is already on that tile.")
    if carry is not None:
        if state.adventurer(target) != "climber":
            return Refusal("wrong_adventurer", "Only a navigated Climber may carry a passenger.")
        if (r := _passenger_refusal(state, target, carry)) is not None:
            return r
    if state.buried(target) and not state.cfg.rulings["navigator_moves_buried_pawn"]:
        return Refusal("buried", f"Seat {target} is buried and cannot be navigated.")
    if path is not None:
        ok = 1 <= len(path) <= MAX_NAVIGATE_STEPS and path[-1] == to
        a = state.cell_of_seat(target)
        for b in path if ok else ():
            if not on_board(b) or b == state.storm or step_refusal(state, target, a, b) is not None:
                ok = False
                break
            a = b
        if not ok:
            return Refusal("no_path", f"The given path is not {MAX_NAVIGATE_STEPS} or fewer legal steps to {list(to)}.")
    elif to not in paths(state, target):
        return Refusal("no_path", f"Seat {target} cannot reach {list(to)} in {MAX_NAVIGATE_STEPS} legal steps.")
    _relocate(state, [target] + ([carry] if carry is not None else []), to)
    state.actions_left -= 1
    return None


def jet_pack(state: State, ev: Event) -> Refusal | None:
    """Jet Pack ``{to, carry?}``: fly to any unblocked tile, with one pawn from the tile."""
    seat, to, carry = ev.actor, ev["to"], ev.get("carry")
    if state.buried(seat) and not state.cfg.rulings["jet_pack_while_buried"]:
        return Refusal("buried", "A buried holder may not use the Jet Pack under this ruling.")
    if (r := state.cell_refusal(to)) is not None:
        return r
    if to == state.cell_of_seat(seat):
        return Refusal("no_move", "A Jet Pack must land on another tile.")
    if state.blocked(state.slot_at(to)):
        return Refusal("target_blocked", f"The tile at {list(to)} is blocked by sand.")
    if (r := _passenger_refusal(state, seat, carry)) is not None:
        return r
    _relocate(state, [seat] + ([carry] if carry is not None else []), to)
    return None
