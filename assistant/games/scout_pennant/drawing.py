"""The Scout Pennant board as SVG for the tablet, from the engine's public view: the hexes of
radius R in axial coordinates ``[q, r]`` (flat-topped), clearings as discs, forests as squares,
arrows between neighbours, patrols as lettered discs in their player's colour.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from ..svg import OKABE_ITO, document, el, flat_hex, text

SIZE = 34.0                       #: hex circumradius in drawing units
#: player colour -> fill (the seat number is the second cue)
FILL = {"red": OKABE_ITO["vermillion"], "blue": OKABE_ITO["blue"], "green": OKABE_ITO["bluish_green"],
        "yellow": OKABE_ITO["yellow"], "purple": OKABE_ITO["reddish_purple"], "orange": OKABE_ITO["orange"]}


def centre(q: int, r: int) -> tuple[float, float]:
    """Axial ``(q, r)`` -> drawing units of the hex centre (flat-topped layout)."""
    return SIZE * 1.5 * q, SIZE * math.sqrt(3) * (r + q / 2)


def board_svg(view: Mapping[str, Any], highlight: set | frozenset = frozenset()) -> str:
    """The board of one Scout Pennant view (:func:`~.views.view`) as an SVG document.

    Parameters
    ----------
    view : dict
        ``radius``, ``layout`` (``finish``, ``starts``, ``clearings``, ``forests``, ``arrows``,
        ``patrols``) and ``players`` (``seat``, ``colour``).
    highlight : set of (q, r)
        Hexes to outline.

    Returns
    -------
    str
        ``<svg>`` with one ``<g data-cell="q,r">`` per hex.
    """
    radius, layout = int(view.get("radius", 4)), view.get("layout", {})
    colour = {p["seat"]: p["colour"] for p in view.get("players", [])}
    clearings = {tuple(c) for c in layout.get("clearings", [])} | {tuple(c) for c in layout.get("starts", [])}
    finish = tuple(layout.get("finish", (0, 0)))
    forests = {tuple(f["cell"]) for f in layout.get("forests", [])}
    patrols: dict[tuple, list[int]] = {}
    for p in layout.get("patrols", []):
        patrols.setdefault(tuple(p["cell"]), []).append(p["seat"])
    half = SIZE * (1.5 * radius + 1.2)
    ox, oy = half, SIZE * math.sqrt(3) * (radius + 0.7)
    parts = []
    for q in range(-radius, radius + 1):
        for r in range(max(-radius, -q - radius), min(radius, -q + radius) + 1):
            x, y = centre(q, r)
            x, y = x + ox, y + oy
            body = [el("polygon", points=flat_hex(x, y, SIZE - 1), fill="#F7F3E8",
                       stroke="#000000" if (q, r) in highlight else "#9A9A9A",
                       stroke_width=4 if (q, r) in highlight else 1)]
            if (q, r) in forests:
                body.append(el("rect", x=x - 15, y=y - 15, width=30, height=30, fill="#2E7D32", rx=3))
            elif (q, r) in clearings or (q, r) == finish:
                body.append(el("circle", cx=x, cy=y, r=17, fill="#FFE9A8" if (q, r) == finish else "#DCEFD0",
                               stroke="#6B8E23"))
            for k, seat in enumerate(patrols.get((q, r), [])):
                px, py = x - 10 + 10 * (k % 3), y - 6 + 12 * (k // 3)
                body.append(el("circle", cx=px, cy=py, r=6.5, fill=FILL.get(colour.get(seat, ""), "#888888"),
                               stroke="#000000"))
                body.append(text(px, py, str(seat + 1), 8))
            parts.append(el("g", "".join(body), data_cell=f"{q},{r}"))
    for a in layout.get("arrows", []):
        (x0, y0), (x1, y1) = centre(*a["from"]), centre(*a["to"])
        mx, my, dx, dy = (x0 + x1) / 2 + ox, (y0 + y1) / 2 + oy, x1 - x0, y1 - y0
        n = math.hypot(dx, dy) or 1.0
        ux, uy = dx / n, dy / n
        tip = (mx + 9 * ux, my + 9 * uy)
        left = (mx - 7 * ux - 6 * uy, my - 7 * uy + 6 * ux)
        right = (mx - 7 * ux + 6 * uy, my - 7 * uy - 6 * ux)
        parts.append(el("polygon", points=" ".join(f"{px:.1f},{py:.1f}" for px, py in (tip, left, right)),
                        fill="#000000"))
    return document(2 * half, 2 * oy, parts, "Scout Pennant board")
