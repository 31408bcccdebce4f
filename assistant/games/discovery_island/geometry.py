"""Hex geometry of the island (rules §2): flat-topped hexes in odd-q offset files, axial inside.

Coordinate note: files and records write a hex as ``[col, row]`` ("odd-q" offset: odd columns
sit half a hex lower); the engine works in axial ``(q, r)``, where the six neighbours are fixed
vectors. Convert only at the edges with :func:`to_axial` and :func:`to_offset`.
"""

from __future__ import annotations

Hex = tuple[int, int]  #: axial (q, r)

#: direction name -> axial (dq, dr), in the rules' order N, NE, SE, S, SW, NW
DIRECTIONS: dict[str, Hex] = {
    "N": (0, -1), "NE": (1, -1), "SE": (1, 0), "S": (0, 1), "SW": (-1, 1), "NW": (-1, 0),
}
DIRECTION_NAMES = tuple(DIRECTIONS)


def to_axial(col: int, row: int) -> Hex:
    """Odd-q offset ``(col, row)`` -> axial ``(q, r)``: ``(col, row - (col - (col & 1)) / 2)``."""
    return col, row - (col - (col & 1)) // 2


def to_offset(q: int, r: int) -> tuple[int, int]:
    """Axial ``(q, r)`` -> odd-q offset ``(col, row)``: ``(q, r + (q - (q & 1)) / 2)``."""
    return q, r + (q - (q & 1)) // 2


def step(h: Hex, direction: str) -> Hex:
    """The neighbour of axial hex ``h`` in ``direction`` (one of N NE SE S SW NW)."""
    dq, dr = DIRECTIONS[direction]
    return h[0] + dq, h[1] + dr


def neighbours(h: Hex) -> list[Hex]:
    """The six neighbours of ``h`` in direction order N, NE, SE, S, SW, NW."""
    return [(h[0] + dq, h[1] + dr) for dq, dr in DIRECTIONS.values()]


def distance(a: Hex, b: Hex) -> int:
    """Hex distance in single steps, sea ignored: ``(|dq| + |dr| + |dq + dr|) / 2`` (§2)."""
    dq, dr = a[0] - b[0], a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def disc(h: Hex, radius: int) -> list[Hex]:
    """Every hex at distance 0..``radius`` from ``h``."""
    out = []
    for dq in range(-radius, radius + 1):
        for dr in range(max(-radius, -dq - radius), min(radius, -dq + radius) + 1):
            out.append((h[0] + dq, h[1] + dr))
    return out


def lines(h: Hex, radius: int) -> list[Hex]:
    """``h`` and the hexes ``h + k * dir`` for k = 1..``radius`` along the six directions."""
    out = [h]
    for dq, dr in DIRECTIONS.values():
        out += [(h[0] + k * dq, h[1] + k * dr) for k in range(1, radius + 1)]
    return out
