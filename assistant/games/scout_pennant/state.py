"""The Scout Pennant position and the board queries every rule uses (rules §2.3, §3.9, §4.1).

A :class:`State` is frozen: rules build a new one with :func:`dataclasses.replace` and fresh
containers for whatever changed, so a state handed out is never modified afterwards. The
mappings inside are plain dicts for speed; treat them as read-only.

The board is held as a Petri net (§4.1): ``kinds`` maps every cell holding a piece to
``"clearing"`` or ``"forest"`` (the finish and the seated players' start clearings included),
and each forest's pre-set (input clearings) and post-set (output clearings) are tuples in
direction order around the forest. The marking is ``patrols`` (clearing -> seat). Bases are
never stored: ``base(c) = pawns_per_player - on_board(c)`` (§3.9).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from .geometry import FINISH, Cell, cell_count, on_board

CLEARING, FOREST = "clearing", "forest"
PIECES = (CLEARING, FOREST)
#: Move kinds (§3.1); ``pass`` is not a move.
BUILD, FIRE, ENTER, TAKE = "build", "fire", "enter", "take_from_finish"
MOVE_KINDS = (BUILD, FIRE, ENTER, TAKE)
ALL_KINDS = frozenset(MOVE_KINDS)
#: Supply keys in the order of the summary (§5.4).
SUPPLY_KEYS = ("clearing", "forest", "arrow")


def other_piece(piece: str) -> str:
    """``"forest"`` for ``"clearing"`` and the reverse: the kind an arrow of ``piece`` joins (§2.3)."""
    return FOREST if piece == CLEARING else CLEARING


@dataclass(frozen=True)
class Config:
    """What the header fixes for the whole game (§5.1); never changes during play.

    Attributes
    ----------
    radius : int
        Board radius ``R`` (>= 2).
    colours : tuple of str
        Colour of each seat, in seat order.
    starts : tuple of Cell
        Start clearing of each seat, axial ``(q, r)``.
    pawns : int
        ``pawns_per_player``.
    variant : str
        ``"free"`` or ``"d8"``.
    first_player : int
    rolls : tuple of int or None
        The header's ``rolls`` (d8 only); hidden from every view.
    supply : tuple of (int or None) or None
        The header's ``supply`` as ``(clearing, forest, arrow)``, ``None`` per unlimited kind;
        ``None`` when the header gave no ``supply``.
    rulings : dict
        Every ruling of §3.10, defaults filled in.
    """

    radius: int
    colours: tuple[str, ...]
    starts: tuple[Cell, ...]
    pawns: int
    variant: str
    first_player: int
    rolls: tuple[int, ...] | None
    supply: tuple[int | None, int | None, int | None] | None
    rulings: Mapping[str, Any]
    start_seat: Mapping[Cell, int] = field(default_factory=dict)

    @property
    def n(self) -> int:
        """Number of seats (2-6, §2.4)."""
        return len(self.colours)

    @property
    def cells(self) -> int:
        """Number of cells of the board, ``3R(R+1) + 1`` (§2.1)."""
        return cell_count(self.radius)

    def on_board(self, cell: Cell) -> bool:
        """True when ``cell`` is on this board (§2.1)."""
        return on_board(cell, self.radius)

    def fixed(self, cell: Cell) -> bool:
        """True for the finish and the seated players' start clearings (never built on, §3.2)."""
        return cell == FINISH or cell in self.start_seat


@dataclass(frozen=True, eq=False)
class State:
    """A Scout Pennant position plus the control state (turn, roll, results).

    Attributes
    ----------
    cfg : Config
    kinds : dict Cell -> str
        ``"clearing"`` or ``"forest"`` for every cell holding a piece.
    pre, post : dict Cell -> tuple of Cell
        Per forest, its input and output clearings, in direction order (N..NW) from it.
    arrows : int
        Number of arrows on the board.
    patrols : dict Cell -> int
        The marking: the seat whose patrol stands on each occupied clearing.
    on_board : tuple of int
        Patrols on the board per seat.
    pennants : frozenset of int
        Seats that have won their pennant (§3.5).
    finishing_order : tuple of int
        Seats in the order they finished (§3.7).
    to_move : int or None
        The seat to act; ``None`` once the game is over.
    roll : int or None
        d8 variant: this turn's roll while it waits for its move.
    rolls_made : int
        Roll events applied so far (indexes ``cfg.rolls``).
    supply : tuple of (int or None)
        Pieces left ``(clearing, forest, arrow)``; ``None`` is unlimited.
    events : int
        Events applied.
    game_over, deadlock : bool
    """

    cfg: Config
    kinds: Mapping[Cell, str]
    pre: Mapping[Cell, tuple[Cell, ...]]
    post: Mapping[Cell, tuple[Cell, ...]]
    arrows: int
    patrols: Mapping[Cell, int]
    on_board: tuple[int, ...]
    pennants: frozenset
    finishing_order: tuple[int, ...]
    to_move: int | None
    roll: int | None = None
    rolls_made: int = 0
    supply: tuple[int | None, int | None, int | None] = (None, None, None)
    events: int = 0
    game_over: bool = False
    deadlock: bool = False

    # --- players (§3.9) -------------------------------------------------------------------
    def base(self, seat: int) -> int:
        """Pawns in ``seat``'s base: ``pawns_per_player - patrols on the board`` (§3.9)."""
        return self.cfg.pawns - self.on_board[seat]

    def finished(self, seat: int) -> bool:
        """True once ``seat`` has finished (§3.7)."""
        return seat in self.finishing_order

    def unfinished(self) -> list[int]:
        """Seats that have not finished (§3.7), in seat order."""
        return [s for s in range(self.cfg.n) if s not in self.finishing_order]

    def patrols_of(self, seat: int) -> list[Cell]:
        """Cells ``(q, r)`` of ``seat``'s patrols, sorted by ``q`` then ``r`` (§5.4)."""
        return sorted(cell for cell, s in self.patrols.items() if s == seat)

    def on_finish(self, seat: int) -> bool:
        """True when ``seat``'s patrol stands on the finish (§3.1, §3.5)."""
        return self.patrols.get(FINISH) == seat

    @property
    def result(self) -> str:
        """``"won"`` once someone finished, ``"lost:deadlock"`` after a deadlock with no
        finisher, else ``"ongoing"`` (§5.4)."""
        if self.finishing_order:
            return "won"
        return "lost:deadlock" if self.deadlock else "ongoing"

    @property
    def winner(self) -> int | None:
        """The first finisher's seat, or ``None`` (§3.7)."""
        return self.finishing_order[0] if self.finishing_order else None

    # --- board (§2.3) ---------------------------------------------------------------------
    def kind(self, cell: Cell) -> str | None:
        """``"clearing"``, ``"forest"`` or ``None`` (empty or off the board) for a cell ``(q, r)`` (§2.3)."""
        return self.kinds.get(cell)

    def forests(self) -> list[Cell]:
        """Every forest cell, sorted by ``q`` then ``r`` (the transitions of §4.1)."""
        return sorted(self.pre)

    def clearings(self) -> list[Cell]:
        """Every clearing (start clearings and the finish included), sorted by ``q`` then ``r``
        (the places of §4.1)."""
        return sorted(c for c, k in self.kinds.items() if k == CLEARING)

    def empty_count(self) -> int:
        """Number of empty cells on the board (§2.3, §5.4)."""
        return self.cfg.cells - len(self.kinds)

    def arrow_list(self) -> list[tuple[Cell, Cell]]:
        """Every arrow as a ``(from, to)`` pair of cells, grouped by forest in cell order, inputs
        first (the arcs of §4.1)."""
        out = []
        for forest in sorted(self.pre):
            out += [(c, forest) for c in self.pre[forest]]
            out += [(forest, c) for c in self.post[forest]]
        return out

    def supply_left(self, key: str) -> int | None:
        """Pieces of ``key`` (``"clearing"``, ``"forest"``, ``"arrow"``) left; ``None`` = unlimited (§2.4, §5.1).

        Raises
        ------
        ValueError
            For another key.
        """
        return self.supply[SUPPLY_KEYS.index(key)]
