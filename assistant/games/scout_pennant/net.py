"""The board as a coloured Petri net: pre-sets, post-sets, enabling and firing (rules §3.3-§3.5, §4.1).

Places are clearings (capacity 1), transitions are forests, arrows are arcs. The marking
``M : P -> {empty} ∪ Seats`` is ``State.patrols``; each player's base ``β(c)`` is derived.

- Enabled ``(t, c)``: every ``p ∈ •t`` holds ``c``, every ``p ∈ t•`` is empty, and
  ``β(c) + |•t| >= |t•|``.
- Fire ``(t, c)``: empty ``•t``, put ``c`` on ``t•``; ``β'(c) = β(c) + |•t| - |t•|``.

``enter`` (``base_c -> start_c``) and ``take_from_finish`` (``finish -> base_c``, setting the
pennant) are the two other transitions of a player (§4.1 remarks); they live here too.
"""

from __future__ import annotations

from dataclasses import replace

from ..base import Refusal
from .geometry import FINISH, Cell
from .state import FOREST, State


def preset(state: State, forest: Cell) -> tuple[Cell, ...]:
    """``•t``: the input clearings of ``forest``, in direction order from it (§4.1)."""
    return state.pre[forest]


def postset(state: State, forest: Cell) -> tuple[Cell, ...]:
    """``t•``: the output clearings of ``forest``, in direction order from it (§4.1)."""
    return state.post[forest]


def skips_occupied(state: State, forest: Cell) -> bool:
    """True for a source forest under ruling ``guides_need_empty_outputs = false``: its
    guides skip occupied outputs instead of being blocked by them (§3.3, §3.10)."""
    return not state.pre[forest] and not state.cfg.rulings["guides_need_empty_outputs"]


def targets(state: State, forest: Cell) -> tuple[Cell, ...]:
    """The clearings that firing ``forest`` fills: ``t•``, without the occupied ones when
    :func:`skips_occupied` (§3.3, §3.10)."""
    outs = state.post[forest]
    if skips_occupied(state, forest):
        return tuple(c for c in outs if c not in state.patrols)
    return outs


def fire_refusal(state: State, forest: Cell, seat: int) -> Refusal | None:
    """Why ``seat`` may not fire the forest on ``forest`` now, or ``None`` (§3.3, §4.1).

    Checks, in the order of §5.3: ``off_board``, ``not_a_forest``, ``forest_not_enabled``
    (an input is empty), ``input_not_yours``, ``output_occupied`` (under
    ``guides_need_empty_outputs = false`` a source forest fails only if every output is
    occupied), ``base_too_small`` (``base + |•t| < outputs to fill``).

    Parameters
    ----------
    state : State
    forest : Cell
        Axial ``(q, r)`` of the forest.
    seat : int
        The player firing (the player to move).

    Returns
    -------
    Refusal or None
    """
    if not state.cfg.on_board(forest):
        return Refusal("off_board", f"Cell {list(forest)} is off the board of radius {state.cfg.radius}.")
    if state.kinds.get(forest) != FOREST:
        return Refusal("not_a_forest", f"Cell {list(forest)} holds no forest.")
    inputs = state.pre[forest]
    for p in inputs:
        if p not in state.patrols:
            return Refusal("forest_not_enabled", f"Input clearing {list(p)} of forest {list(forest)} is empty.")
    for p in inputs:
        if state.patrols[p] != seat:
            return Refusal("input_not_yours",
                           f"Input clearing {list(p)} holds seat {state.patrols[p]}'s patrol, not seat {seat}'s.")
    fill = targets(state, forest)
    if not skips_occupied(state, forest):
        for p in fill:
            if p in state.patrols:
                return Refusal("output_occupied", f"Output clearing {list(p)} of forest {list(forest)} holds a patrol.")
    elif not fill:
        return Refusal("output_occupied", f"Every output clearing of source forest {list(forest)} holds a patrol.")
    if state.base(seat) + len(inputs) < len(fill):
        return Refusal("base_too_small", f"Seat {seat} has {state.base(seat)} pawns in the base and "
                       f"{len(inputs)} coming in, but {len(fill)} outputs to fill.")
    return None


def enabled(state: State, forest: Cell, seat: int) -> bool:
    """True when ``(forest, seat)`` is enabled (§4.1); ``forest`` must hold a forest."""
    patrols = state.patrols
    inputs = state.pre[forest]
    for p in inputs:
        if patrols.get(p) != seat:
            return False
    fill = targets(state, forest)
    if not skips_occupied(state, forest):
        for p in fill:
            if p in patrols:
                return False
    elif not fill:
        return False
    return state.base(seat) + len(inputs) >= len(fill)


def fire(state: State, forest: Cell, seat: int) -> State:
    """The marking after ``seat`` fires ``forest`` (§3.3); the caller has checked
    :func:`fire_refusal`. Pawns left over return to the base, missing ones come from it.

    Under ruling ``patrol_leaving_finish_counts = true`` firing a forest whose inputs include
    the finish gives ``seat`` the pennant (§3.10).
    """
    patrols = dict(state.patrols)
    inputs, fill = state.pre[forest], targets(state, forest)
    for p in inputs:
        del patrols[p]
    for p in fill:
        patrols[p] = seat
    counts = list(state.on_board)
    counts[seat] += len(fill) - len(inputs)
    pennants = state.pennants
    if FINISH in inputs and state.cfg.rulings["patrol_leaving_finish_counts"]:
        pennants = pennants | {seat}
    return replace(state, patrols=patrols, on_board=tuple(counts), pennants=pennants)


def enter_refusal(state: State, seat: int) -> Refusal | None:
    """``no_pawn_in_base`` or ``start_occupied`` (in that order, §3.4, §5.3), else ``None``."""
    if state.base(seat) <= 0:
        return Refusal("no_pawn_in_base", f"Seat {seat} has no pawn left in the base.")
    start = state.cfg.starts[seat]
    if start in state.patrols:
        return Refusal("start_occupied", f"Seat {seat}'s start clearing {list(start)} holds a patrol.")
    return None


def enter(state: State, seat: int) -> State:
    """One pawn from ``seat``'s base onto its own start clearing (§3.4); checked by the caller."""
    patrols = dict(state.patrols)
    patrols[state.cfg.starts[seat]] = seat
    counts = list(state.on_board)
    counts[seat] += 1
    return replace(state, patrols=patrols, on_board=tuple(counts))


def take_refusal(state: State, seat: int) -> Refusal | None:
    """``no_patrol_on_finish`` when ``seat`` has no patrol on the finish (§3.5), else ``None``."""
    if not state.on_finish(seat):
        return Refusal("no_patrol_on_finish", f"Seat {seat} has no patrol on the finish.")
    return None


def take(state: State, seat: int) -> State:
    """``seat``'s patrol from the finish back to its base, winning the pennant (§3.5)."""
    patrols = dict(state.patrols)
    del patrols[FINISH]
    counts = list(state.on_board)
    counts[seat] -= 1
    return replace(state, patrols=patrols, on_board=tuple(counts), pennants=state.pennants | {seat})


def enabled_forests(state: State, seat: int) -> list[Cell]:
    """Every forest ``seat`` could fire now, sorted by cell (§4.1)."""
    return [f for f in sorted(state.pre) if enabled(state, f, seat)]


def can_fire(state: State, seat: int) -> bool:
    """True when ``seat`` has at least one enabled forest (§4.1)."""
    return any(enabled(state, f, seat) for f in state.pre)
