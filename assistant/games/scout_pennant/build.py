"""``build``: laying out the route (rules §3.2; reason codes and their order §5.3).

A build puts one clearing or forest on an empty cell together with at least one arrow on the
new piece's own edges, each arrow joining it to a neighbour of the other kind. In Petri-net
terms it adds one node and its arcs (§4.1); nothing is ever removed.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from ..base import Refusal
from .geometry import Cell, are_neighbours, neighbours, sort_around
from .state import CLEARING, FOREST, SUPPLY_KEYS, State, other_piece


def build_refusal(state: State, cell: Cell, piece: str, arrows: Sequence[tuple[str, Cell]]) -> Refusal | None:
    """Why ``piece`` with ``arrows`` may not be built on ``cell`` now, or ``None`` (§3.2).

    Checks, in the order of §5.3: ``off_board``, ``cell_occupied``, ``cell_not_empty``,
    ``no_arrow``, then each arrow in list order through ``off_board``, ``not_neighbour``,
    ``duplicate_arrow``, ``arrow_to_empty_cell``, ``arrow_between_same_kind``, and last
    ``supply_exhausted``. Turn and roll checks are made by :mod:`.rules` before this.

    Parameters
    ----------
    state : State
    cell : Cell
        The cell to build on, axial ``(q, r)``.
    piece : str
        ``"clearing"`` or ``"forest"``.
    arrows : sequence of (str, Cell)
        ``("from", Y)`` for an arrow ``Y -> cell``, ``("to", Y)`` for ``cell -> Y``
        (see :func:`.events.arrow_pairs`).

    Returns
    -------
    Refusal or None
    """
    cfg = state.cfg
    if not cfg.on_board(cell):
        return Refusal("off_board", f"Cell {list(cell)} is off the board of radius {cfg.radius}.")
    if cfg.fixed(cell):
        what = "the finish" if cell not in cfg.start_seat else f"seat {cfg.start_seat[cell]}'s start clearing"
        return Refusal("cell_occupied", f"Cell {list(cell)} is {what}, which can never be built on.")
    if cell in state.kinds:
        return Refusal("cell_not_empty", f"Cell {list(cell)} already holds a {state.kinds[cell]}.")
    if not arrows:
        return Refusal("no_arrow", f"A new {piece} needs at least one arrow.")
    seen: set[Cell] = set()
    want = other_piece(piece)
    for _way, other in arrows:
        if not cfg.on_board(other):
            return Refusal("off_board", f"The arrow's other cell {list(other)} is off the board.")
        if not are_neighbours(cell, other):
            return Refusal("not_neighbour", f"Cell {list(other)} is not a neighbour of {list(cell)}.")
        if other in seen:
            return Refusal("duplicate_arrow", f"Two arrows name cell {list(other)}; an edge holds one arrow.")
        seen.add(other)
        kind = state.kinds.get(other)
        if kind is None:
            return Refusal("arrow_to_empty_cell", f"Cell {list(other)} is empty; an arrow needs a piece at each end.")
        if kind != want:
            return Refusal("arrow_between_same_kind",
                           f"Cell {list(other)} holds a {kind}; an arrow joins a clearing and a forest.")
    left_piece, left_arrows = state.supply_left(piece), state.supply_left("arrow")
    if left_piece is not None and left_piece < 1:
        return Refusal("supply_exhausted", f"No {piece} piece is left in the supply.")
    if left_arrows is not None and left_arrows < len(arrows):
        return Refusal("supply_exhausted", f"The build needs {len(arrows)} arrows and the supply has {left_arrows}.")
    return None


def apply_build(state: State, cell: Cell, piece: str, arrows: Sequence[tuple[str, Cell]]) -> State:
    """The state with ``piece`` and its ``arrows`` added (§3.2); the caller has checked
    :func:`build_refusal`. Turn bookkeeping is left to :mod:`.rules`.

    ``{"from": Y}`` is an arrow ``Y -> cell`` and ``{"to": Y}`` an arrow ``cell -> Y`` (§5.2).
    """
    kinds = dict(state.kinds)
    kinds[cell] = piece
    pre, post = dict(state.pre), dict(state.post)
    if piece == FOREST:
        pre[cell] = sort_around(cell, [y for way, y in arrows if way == "from"])
        post[cell] = sort_around(cell, [y for way, y in arrows if way == "to"])
    else:
        for way, y in arrows:
            table = pre if way == "to" else post            # to: clearing -> forest = input
            table[y] = sort_around(y, (*table[y], cell))
    supply = list(state.supply)
    for key, used in ((piece, 1), ("arrow", len(arrows))):
        i = SUPPLY_KEYS.index(key)
        if supply[i] is not None:
            supply[i] -= used
    return replace(state, kinds=kinds, pre=pre, post=post, arrows=state.arrows + len(arrows),
                   supply=(supply[0], supply[1], supply[2]))


def build_sites(state: State, piece: str) -> list[tuple[Cell, tuple[Cell, ...]]]:
    """Every empty cell where ``piece`` could be built, with its neighbours of the other kind
    in direction order (§3.2); sorted by cell. Supply is not considered here."""
    want = other_piece(piece)
    sites: dict[Cell, None] = {}
    for cell, kind in state.kinds.items():
        if kind != want:
            continue
        for nb in neighbours(cell):
            if nb not in state.kinds and state.cfg.on_board(nb):
                sites[nb] = None
    return [(cell, tuple(nb for nb in neighbours(cell) if state.kinds.get(nb) == want))
            for cell in sorted(sites)]


def can_build(state: State) -> bool:
    """True when some build is possible for the player to move (§3.2): supply allows a piece
    and one arrow, and an empty cell touches a piece of the other kind.

    With an unlimited supply this is "at least one cell is empty" (the board is connected and
    always holds the finish), which is what the fast path uses.
    """
    arrows = state.supply_left("arrow")
    if arrows is not None and arrows < 1:
        return False
    pieces = [p for p in (CLEARING, FOREST) if (state.supply_left(p) is None or state.supply_left(p) > 0)]
    if len(pieces) == 2:
        return state.empty_count() > 0
    return any(build_sites(state, p) for p in pieces)
