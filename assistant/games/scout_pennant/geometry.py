"""Hex geometry of the Scout Pennant board (rules §2.1, §2.2).

Cells are **flat-topped** hexes in **axial coordinates** ``(q, r)`` (Red Blob Games), held as
``tuple[int, int]``; the third cube coordinate is ``s = -q - r``. North is the top of the
referee view and ``y`` grows downwards. The board of radius ``R`` is every cell at distance
``<= R`` from the centre ``(0, 0)``, which is the finish.

>>> neighbours((0, 0))[0], DIRECTION_NAMES[direction_index((0, 0), (1, -1))]
((0, -1), 'NE')
>>> distance((-4, 4)), cell_count(4), default_starts(3, 4)
(4, 61, ((0, 4), (-4, 0), (4, -4)))
"""

from __future__ import annotations

import math

Cell = tuple[int, int]

#: The finish: the centre clearing (§2.1).
FINISH: Cell = (0, 0)

#: Direction names, in the fixed order used wherever an order is needed (§2.1).
DIRECTION_NAMES: tuple[str, ...] = ("N", "NE", "SE", "S", "SW", "NW")
#: ``(dq, dr)`` of each direction, same order.
DIRECTIONS: tuple[Cell, ...] = ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0))
_INDEX = {d: i for i, d in enumerate(DIRECTIONS)}

#: Default start corner of each seat, per player count (§2.2).
DEFAULT_START_CORNERS: dict[int, tuple[str, ...]] = {
    2: ("S", "N"),
    3: ("S", "NW", "NE"),
    4: ("S", "SW", "N", "NE"),
    5: ("S", "SW", "NW", "N", "NE"),
    6: ("S", "SW", "NW", "N", "NE", "SE"),
}


def distance(cell: Cell) -> int:
    """Steps from the centre: ``(|q| + |r| + |q + r|) / 2`` (§2.1).

    Takes an axial cell ``(q, r)``; returns a non-negative integer.
    """
    q, r = cell
    return (abs(q) + abs(r) + abs(q + r)) // 2


def on_board(cell: Cell, radius: int) -> bool:
    """True when ``cell`` lies on the board of ``radius`` (``distance <= radius``, §2.1)."""
    return distance(cell) <= radius


def cell_count(radius: int) -> int:
    """Number of cells of the board of ``radius``: ``3R(R+1) + 1`` (61 for ``R = 4``, §2.1)."""
    return 3 * radius * (radius + 1) + 1


def board_cells(radius: int) -> list[Cell]:
    """Every cell of the board of ``radius``, sorted by ``q`` then ``r`` (§2.1)."""
    return [(q, r) for q in range(-radius, radius + 1)
            for r in range(max(-radius, -q - radius), min(radius, -q + radius) + 1)]


def neighbours(cell: Cell) -> tuple[Cell, ...]:
    """The six cells around ``cell`` in direction order N, NE, SE, S, SW, NW (§2.1).

    Some may lie off the board; the caller filters with :func:`on_board`.
    """
    q, r = cell
    return tuple((q + dq, r + dr) for dq, dr in DIRECTIONS)


def direction_index(a: Cell, b: Cell) -> int | None:
    """Index (0 = N .. 5 = NW) of the direction from ``a`` to neighbour ``b``; ``None`` when
    ``b`` is not a neighbour of ``a`` (§2.1)."""
    return _INDEX.get((b[0] - a[0], b[1] - a[1]))


def are_neighbours(a: Cell, b: Cell) -> bool:
    """True when ``b - a`` is one of the six direction vectors (§2.1)."""
    return (b[0] - a[0], b[1] - a[1]) in _INDEX


def corners(radius: int) -> dict[str, Cell]:
    """The six corner cells, ``radius`` steps from the centre in each direction (§2.2).

    >>> corners(4)["SW"]
    (-4, 4)
    """
    return {name: (dq * radius, dr * radius) for name, (dq, dr) in zip(DIRECTION_NAMES, DIRECTIONS)}


def default_starts(players: int, radius: int) -> tuple[Cell, ...]:
    """Default start clearing of each seat for 2..6 ``players`` (§2.2 table).

    Raises
    ------
    KeyError
        For a player count outside 2..6.
    """
    c = corners(radius)
    return tuple(c[name] for name in DEFAULT_START_CORNERS[players])


def sort_around(centre: Cell, cells) -> tuple[Cell, ...]:
    """``cells`` (neighbours of ``centre``) as a tuple ordered by their direction from ``centre``
    (N first, §2.1); used for pre-sets, post-sets and PNML arcs (§4.2 item 4).

    Raises
    ------
    KeyError
        When a cell is not a neighbour of ``centre``.
    """
    return tuple(sorted(cells, key=lambda c: _INDEX[(c[0] - centre[0], c[1] - centre[1])]))


def pixel(cell: Cell, size: float) -> tuple[float, float]:
    """Centre of ``cell`` in a view with hex size ``size`` (y down, §2.1):
    ``x = s·(3/2)·q``, ``y = s·√3·(r + q/2)``; returns ``(x, y)`` in the view's units."""
    q, r = cell
    return size * 1.5 * q, size * math.sqrt(3) * (r + q / 2)
