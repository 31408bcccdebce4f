"""The Discovery Island map as SVG for the tablets: the island's terrain by hex (odd-q offset
``[col, row]`` as printed), checkpoints and caches by label; for a seat, also what that seat
may know (rules §6.1): the opponent's true path and position, and the seat's own possible
positions. The public drawing shows neither player's position.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from ..svg import OKABE_ITO, document, el, flat_hex, text
from .geometry import to_offset

SIZE = 10.0                                   #: hex circumradius in drawing units
TERRAIN_FILL = {"sea": "#CFE8F5", "open": "#F3E6A0", "jungle": "#5FA35F", "mountain": "#9C8FB5",
                "wetland": "#7FB8D9", "bush": "#D9A066"}


def centre(col: int, row: int) -> tuple[float, float]:
    """Offset ``(col, row)`` (odd-q: odd columns shifted down half a hex) -> drawing units."""
    return SIZE * (1 + 1.5 * col), SIZE * math.sqrt(3) * (row + 0.5 * (col % 2) + 0.6)


def board_svg(island: Any, view: Mapping[str, Any], landable: set | frozenset = frozenset()) -> str:
    """The island with what ``view`` (:func:`~.views.view`, public or a seat's) shows.

    Parameters
    ----------
    island : Island
        The validated map (``state.cfg.island``).
    view : dict
        Used keys: ``opponent_path``, ``opponent_position``, ``candidates`` (a seat's),
        ``empty_caches``, ``checkpoints_taken``.
    landable : set of (col, row)
        Hexes a player may choose as the opponent's landing (rules §5.1: land without a
        feature); their polygons get ``class="landable"`` (the choice form taps them).

    Returns
    -------
    str
        ``<svg>`` of the island's rectangle, one ``<polygon data-cell="col,row">`` per hex.
    """
    path = {tuple(c) for c in view.get("opponent_path", [])}
    here = tuple(view["opponent_position"]) if view.get("opponent_position") else None
    maybe = {tuple(c) for c in view.get("candidates", [])}
    empty = set(view.get("empty_caches", []))
    taken = set(view.get("checkpoints_taken", {}))
    parts = []
    for h, info in island.hexes.items():
        col, row = to_offset(*h)
        x, y = centre(col, row)
        mark = {"class_": "landable"} if (col, row) in landable else {}
        parts.append(el("polygon", points=flat_hex(x, y, SIZE - 0.4), fill=TERRAIN_FILL.get(info.terrain, "#DDDDDD"),
                        stroke="#FFFFFF", stroke_width=0.6, data_cell=f"{col},{row}", **mark))
        if info.label:
            done = info.label in empty or info.label in taken
            parts.append(text(x, y, info.label, 6.5, fill="#777777" if done else "#000000"))
        if (col, row) in maybe:
            parts.append(el("circle", cx=f"{x:.1f}", cy=f"{y:.1f}", r=3.2, fill="none", class_="candidate",
                            stroke=OKABE_ITO["reddish_purple"], stroke_width=1.6))
        if (col, row) in path:
            parts.append(el("circle", cx=f"{x:.1f}", cy=f"{y:.1f}", r=2.0, fill=OKABE_ITO["vermillion"]))
    if here:
        x, y = centre(*here)
        parts.append(el("polygon", points=flat_hex(x, y, SIZE - 1.5), fill="none", stroke="#000000", stroke_width=2.2))
        parts.append(text(x, y, "X", 8, font_weight="bold"))
    width, height = centre(island.width, island.height)
    return document(width + SIZE, height + SIZE, parts, "Discovery Island map")
