"""The Forbidden Desert board as SVG for the tablet, drawn from the engine's view (never the
camera image): 5x5 cells ``[row, col]`` named by column letter and row number (``C2``), the
storm hole, each tile's visible side, sand counts, pawns as lettered discs, parts placed.
"""

from __future__ import annotations

from typing import Any, Mapping

from ..svg import OKABE_ITO, document, el, text
from .components import ADVENTURERS

CELL = 100                       #: drawing units per cell
#: pawn colour of the real pieces -> fill on the tablet (the letter is the second cue)
PAWN_FILL = {"red": OKABE_ITO["vermillion"], "black": "#222222", "green": OKABE_ITO["bluish_green"],
             "white": "#FFFFFF", "yellow": OKABE_ITO["yellow"], "blue": OKABE_ITO["blue"]}
BACK_FILL = {"dune_back": "#E8C887", "water_back": "#9CCBE6", "crash_site": "#C9A27A"}
FACE_FILL = "#F4E9D0"


def cell_name(row: int, col: int) -> str:
    """``(1, 2)`` -> ``"C2"``: column letter A-E, row number 1-5."""
    return f"{'ABCDE'[col]}{row + 1}"


def board_svg(view: Mapping[str, Any], highlight: set | frozenset = frozenset()) -> str:
    """The board of one Forbidden Desert view (:func:`~.views.view`) as an SVG document.

    Parameters
    ----------
    view : dict
        ``tiles`` (5x5 labels; ``None`` in the storm), ``storm``, ``sand`` (``[row, col, n]``),
        ``pawns`` (``[row, col]`` per seat), ``players`` (adventurer ids), ``parts_placed``.
    highlight : set of (row, col)
        Cells to outline (a warning's cells).

    Returns
    -------
    str
        ``<svg>``, 500 x 530 drawing units, one ``<g data-cell="C2">`` per cell.
    """
    sand = {(r, c): n for r, c, n in view.get("sand", [])}
    storm = tuple(view.get("storm", (2, 2)))
    colours = [ADVENTURERS[a].colour for a in view.get("players", [])]
    parts_at: dict[tuple, list[str]] = {}
    for part, cell in (view.get("parts_placed") or {}).items():
        parts_at.setdefault(tuple(cell), []).append(part)
    parts = []
    for r, row in enumerate(view.get("tiles", [])):
        for c, label in enumerate(row):
            x, y, name = c * CELL, r * CELL, cell_name(r, c)
            body = []
            if (r, c) == storm:
                body.append(el("rect", x=x + 2, y=y + 2, width=CELL - 4, height=CELL - 4, fill="#555555", rx=8))
                body.append(text(x + 50, y + 50, "storm", 16, fill="#FFFFFF"))
            else:
                fill = BACK_FILL.get(label or "", FACE_FILL)
                body.append(el("rect", x=x + 2, y=y + 2, width=CELL - 4, height=CELL - 4, fill=fill,
                               stroke="#000000" if (r, c) in highlight else "#7A5C3A",
                               stroke_width=6 if (r, c) in highlight else 1.5, rx=8))
                shown = (label or "?").replace("_back", "").replace("_", " ")
                # long faces ("clue propeller column") shrink to stay clear of the cell name
                body.append(text(x + 44, y + 16, shown, round(min(11.0, 11.0 * 13 / max(len(shown), 1)), 1)))
                n = sand.get((r, c), 0)
                if n:
                    body.append(el("rect", x=x + 30, y=y + 30, width=40, height=40, rx=6,
                                   fill="#B5651D" if n >= 2 else "#F0D9A8", stroke="#5B3A1A"))
                    body.append(text(x + 50, y + 50, str(n), 20, fill="#FFFFFF" if n >= 2 else "#000000",
                                     font_weight="bold"))
                for k, part in enumerate(parts_at.get((r, c), [])):
                    body.append(text(x + 50, y + 84 - 12 * k, part.replace("_", " "), 10, fill="#333333"))
            for seat, cell in enumerate(view.get("pawns", [])):
                if tuple(cell) == (r, c):
                    colour = colours[seat] if seat < len(colours) else "white"
                    px, py = x + 14 + 18 * seat, y + 86
                    body.append(el("circle", cx=px, cy=py, r=9, fill=PAWN_FILL[colour], stroke="#000000"))
                    body.append(text(px, py, str(seat + 1), 10,
                                     fill="#FFFFFF" if colour in ("black", "blue", "red") else "#000000"))
            body.append(text(x + 88, y + 16, name, 10, fill="#555555"))
            parts.append(el("g", "".join(body), data_cell=name))
    meter = f"storm meter {view.get('meter', '?')} / {view.get('skull', '?')}   sand left {view.get('sand_supply', '?')}"
    parts.append(text(250, 515, meter, 14))
    return document(5 * CELL, 5 * CELL + 30, parts, "Forbidden Desert board")
