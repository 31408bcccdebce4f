"""Discovery Island: our own printable terrain-tile kit, drawn procedurally.

The commercial tiles are not public, so the assistant ships its own (rules §4.4: the default
supply, ours too). Nothing here is copied from the publisher: every picture is built from
``cv2`` primitives. Each tile is a flat-topped hexagon of circumradius :data:`TILE_R_MM` (23.5
mm: the mat's hexes are 25 mm, :func:`~assistant.vision.mats.discovery_island_mat`, so a tile
lies inside its hex with room to spare).

**Face.** The terrain fills the hexagon, each in its own colour *and* texture (open: straw
yellow with grass tufts; jungle: deep green with leaves; mountain: slate violet with peaks;
wetland: blue with waves and reeds; bush: orange with shrub dots). Across the middle lies a
white panel (:data:`PANEL_MM`): the day-march number on its left half (:data:`NUMBER_CENTRE_MM`,
13 mm tall, each in its own ink; 6 and 9 underlined), the mark on its right half (:data:`MARK_CENTRE_MM`, 13 mm):
nothing, a shortcut (white double arrow on a green disc) or an event (a pictogram on a yellow
square, one colour and shape per kind). A small arrow at the top edge points to the mat's north.

**Back.** The same terrain texture with two pale concentric hexagons and no panel: a start tile
shows only its terrain (rules §5.3). The checkpoint tile (yellow and black checks, a yellow
star on black) and the cache tile (red and white stripes, a white cross on red) show 4 and are
the same on both sides.

Names: a *design* is ``"<terrain>/<points>/<mark>"`` for a face (``"jungle/3/event:fever"``,
``"-/4/checkpoint"``) or ``"back:<terrain>"``; the detector's slot labels derive from it
(:func:`slot_labels`). Images are BGR ``uint8`` (or BGRA with the hexagon as alpha), north up,
``ppm`` px per mm, the tile's centre at the image centre.

Printing (:func:`print_kit`): an instruction sheet, then the 210 tiles of the supply on A4 or
Letter sheets, each followed by its backs mirrored for double-sided printing (flip on the long
edge), all at true size with a 100 mm check ruler; and a PNG catalogue of the 48 designs.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from ...games.discovery_island.data import LAND_TERRAINS, load_bundle
from ..printing import MM_PER_INCH, PAPER_MM, draw_ruler, write_pdf, write_png
from ..render._draw import Pen, seed_of, star, value_noise

TILE_R_MM = 23.5                                  #: tile circumradius, mm
TILE_W_MM, TILE_H_MM = 2 * TILE_R_MM, math.sqrt(3.0) * TILE_R_MM
PANEL_MM = (-15.5, -8.0, 15.5, 8.0)               #: white panel, tile mm (x0, y0, x1, y1), centre origin
NUMBER_CENTRE_MM = (-7.75, 0.0)                    #: centre of the number, tile mm
MARK_CENTRE_MM = (7.75, 0.0)                       #: centre of the mark, tile mm
ICON_SCALE = 1.18                                 #: marks are drawn 1.18 x their 11 mm design size on a face
MARKERS = ("checkpoint", "cache")
EVENT_KINDS = ("thicket", "fall", "sprain", "snakebite", "fever", "thirst", "sinking", "lost", "storm")
MARKS = ("none", "shortcut") + tuple(f"event:{k}" for k in EVENT_KINDS) + MARKERS
NO_NUMBER = "none"                                #: number label of a back, a bare hex, or no tile

#: base colour and texture colour of each terrain and marker tile, BGR
TERRAIN_BGR = {
    "open": ((96, 208, 232), (40, 130, 150)),
    "jungle": ((50, 118, 34), (95, 200, 85)),
    "mountain": ((150, 108, 120), (95, 55, 70)),
    "wetland": ((190, 128, 40), (245, 215, 150)),
    "bush": ((45, 112, 210), (20, 55, 105)),
    "checkpoint": ((40, 210, 250), (30, 30, 30)),
    "cache": ((245, 245, 245), (40, 40, 200)),
}
INK = (30, 30, 30)
WHITE = (255, 255, 255)
#: ink of each day-march number, BGR (black, blue, green, red, orange): numbers whose shapes blur
#: alike (3 5 6 8 9, 1 7, 2 7) differ in colour
NUMBER_INK = {1: INK, 2: (170, 70, 20), 3: (40, 120, 20), 4: INK, 5: (30, 30, 180), 6: (170, 70, 20),
              7: (0, 110, 220), 8: INK, 9: (40, 120, 20)}


# --- names ---------------------------------------------------------------------------------------

def face_design(terrain: str, points: int, mark: str) -> str:
    """The design name of a face: ``face_design("jungle", 3, "none") == "jungle/3/none"``;
    marker tiles are ``"-/4/checkpoint"`` and ``"-/4/cache"``."""
    return f"{terrain}/{points}/{mark}"


def back_design(terrain: str) -> str:
    """The design name of a terrain tile's back, ``"back:<terrain>"``."""
    return f"back:{terrain}"


def parse_design(design: str) -> tuple[str, int | None, str | None]:
    """``(terrain, points, mark)`` of a design; a back gives ``(terrain, None, None)``.

    Raises
    ------
    ValueError
        For a name that is neither ``back:<terrain>`` nor ``<terrain>/<points>/<mark>``.
    """
    if design.startswith("back:"):
        terrain = design[5:]
        if terrain not in LAND_TERRAINS:
            raise ValueError(f"unknown back {design!r}")
        return terrain, None, None
    parts = design.split("/")
    if len(parts) != 3 or not parts[1].isdigit() or parts[2] not in MARKS:
        raise ValueError(f"not a tile design: {design!r}")
    if (parts[0] == "-") != (parts[2] in MARKERS) or (parts[0] != "-" and parts[0] not in LAND_TERRAINS):
        raise ValueError(f"not a tile design: {design!r} (a land terrain, or '-' for a marker tile)")
    return parts[0], int(parts[1]), parts[2]


def slot_labels(design: str | None) -> tuple[str, str, str]:
    """What the three slots of a hex read when ``design`` lies on top (``None``: a bare hex).

    Returns
    -------
    (tile, number, mark) : tuple of str
        ``tile`` is ``"empty"``, a land terrain (a face), ``"back:<terrain>"``, ``"checkpoint"``
        or ``"cache"``; ``number`` is ``"1"``..``"9"`` or ``"none"``; ``mark`` one of :data:`MARKS`.

    >>> slot_labels("wetland/6/event:sinking"), slot_labels("back:bush"), slot_labels(None)
    (('wetland', '6', 'event:sinking'), ('back:bush', 'none', 'none'), ('empty', 'none', 'none'))
    >>> slot_labels("-/4/cache")
    ('cache', '4', 'cache')
    """
    if design is None:
        return "empty", NO_NUMBER, "none"
    terrain, points, mark = parse_design(design)
    if points is None:
        return design, NO_NUMBER, "none"
    return (mark if mark in MARKERS else terrain), str(points), mark


def supply_designs(data: str = "default") -> dict[str, int]:
    """Face design -> count of the tile supply (rules §4.4), marker tiles included (printed 4)."""
    bundle = load_bundle(data)
    return {face_design(t, p, m): n for (t, p, m), n in sorted(bundle.tiles.items())}


def all_designs(data: str = "default") -> list[str]:
    """Every distinct design of the kit: the supply's faces, then the five terrain backs (48 with the default data)."""
    return list(supply_designs(data)) + [back_design(t) for t in LAND_TERRAINS]


# --- drawing -------------------------------------------------------------------------------------

def hexagon_mm(cx: float, cy: float, r: float) -> list[tuple[float, float]]:
    """Vertices of a flat-topped hexagon of circumradius ``r`` mm, clockwise from the east one."""
    return [(cx + r * math.cos(math.radians(60 * i)), cy + r * math.sin(math.radians(60 * i))) for i in range(6)]


def _texture(pen: Pen, kind: str, w: float, h: float) -> None:
    """Fill the canvas (``w`` x ``h`` mm) with the texture of a terrain or marker tile."""
    base, ink = TERRAIN_BGR[kind]
    pen.img[:] = base
    rng = np.random.default_rng(seed_of(kind))
    noise = value_noise(pen.img.shape[:2], seed_of(kind) + 1, cells=10)
    pen.img[:] = np.clip(pen.img.astype(np.float32) * (1.0 + 0.06 * noise)[..., None], 0, 255).astype(np.uint8)
    if kind == "open":                            # grass tufts: three strokes fanning upwards
        for _ in range(70):
            x, y = rng.uniform(0, w), rng.uniform(2, h)
            for a in (-25, 0, 25):
                t = math.radians(a - 90)
                pen.line((x, y), (x + 2.6 * math.cos(t), y + 2.6 * math.sin(t)), ink, 0.45)
    elif kind == "jungle":                        # leaves: light ellipses with a dark vein
        for _ in range(55):
            x, y, a = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(0, 180)
            pen.ellipse((x, y), (2.6, 1.1), a, ink)
            t = math.radians(a)
            pen.line((x - 2.2 * math.cos(t), y - 2.2 * math.sin(t)), (x + 2.2 * math.cos(t), y + 2.2 * math.sin(t)),
                     (25, 70, 20), 0.3)
    elif kind == "mountain":                      # rows of peaks with pale caps
        for row, y in enumerate(np.arange(5.0, h + 6, 7.0)):
            for x in np.arange(-2.0 + 4.0 * (row % 2), w + 8, 8.0):
                pen.poly([(x - 4.0, y), (x, y - 6.0), (x + 4.0, y)], ink)
                pen.poly([(x - 1.3, y - 4.0), (x, y - 6.0), (x + 1.3, y - 4.0)], (235, 225, 230))
    elif kind == "wetland":                       # waves and reeds
        for y in np.arange(2.0, h + 2, 4.0):
            pts = [(x, y + 0.8 * math.sin(x * 1.1 + y)) for x in np.arange(0, w + 1, 0.8)]
            pen.polyline(pts, ink, 0.55)
        for _ in range(18):
            x, y = rng.uniform(0, w), rng.uniform(3, h)
            pen.line((x, y), (x + 0.4, y - 3.2), (60, 80, 20), 0.45)
    elif kind == "bush":                          # clusters of shrub dots
        for _ in range(40):
            x, y = rng.uniform(0, w), rng.uniform(0, h)
            for dx, dy in ((0, 0), (1.5, 0.6), (0.6, -1.3)):
                pen.circle((x + dx, y + dy), 0.95, ink)
    elif kind == "checkpoint":                    # yellow and black checks, 5 mm
        for i, x in enumerate(np.arange(0, w, 5.0)):
            for j, y in enumerate(np.arange(0, h, 5.0)):
                if (i + j) % 2:
                    pen.rect(x, y, x + 5.0, y + 5.0, ink)
    elif kind == "cache":                         # red diagonal stripes
        for x in np.arange(-h, w + h, 5.0):
            pen.poly([(x, 0), (x + 2.5, 0), (x + 2.5 + h, h), (x + h, h)], ink)
    else:
        raise KeyError(kind)


def _digit(pen: Pen, text: str, c: tuple[float, float], height: float, colour=INK, weight: float = 1.5) -> None:
    """Text centred at ``c`` (mm) whose capital height is ``height`` mm (Hershey duplex)."""
    font = cv2.FONT_HERSHEY_DUPLEX
    thick = max(1, int(round(weight * pen.ppm)))
    (tw, th), _ = cv2.getTextSize(text, font, 1.0, 1)
    scale = height * pen.ppm / th
    (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    org = (int(round(c[0] * pen.ppm - tw / 2)), int(round(c[1] * pen.ppm + th / 2)))
    cv2.putText(pen.img, text, org, font, scale, colour, thick, cv2.LINE_AA)


def _icon(pen: Pen, mark: str, c: tuple[float, float]) -> None:
    """The picture of ``mark`` centred at ``c`` (tile mm on the canvas), about 11 mm across."""
    x, y = c
    if mark == "none":
        return
    if mark == "shortcut":                        # white double arrow on a green disc
        pen.circle(c, 5.4, (50, 160, 40))
        for dx in (-2.6, 0.4):
            pen.poly([(x + dx, y - 3.0), (x + dx + 3.0, y), (x + dx, y + 3.0)], WHITE)
        return
    if mark == "checkpoint":                      # a yellow star on a black disc
        pen.circle(c, 5.4, INK)
        pen.poly(star(x, y + 0.4, 4.4, 1.8, 5), (40, 210, 250))
        return
    if mark == "cache":                           # a white cross on a red disc, as on a treasure map
        pen.circle(c, 5.4, (40, 40, 200))
        pen.line((x - 3.2, y - 3.2), (x + 3.2, y + 3.2), WHITE, 1.7)
        pen.line((x - 3.2, y + 3.2), (x + 3.2, y - 3.2), WHITE, 1.7)
        return
    kind = mark.split(":", 1)[1]
    pen.poly([(x - 5.3, y - 5.3), (x + 5.3, y - 5.3), (x + 5.3, y + 5.3), (x - 5.3, y + 5.3)], (30, 200, 250))
    pen.poly([(x - 5.3, y - 5.3), (x + 5.3, y - 5.3), (x + 5.3, y + 5.3), (x - 5.3, y + 5.3)], INK, False, 0.4)
    if kind == "thicket":                         # crossed green branches with leaves
        for s in (-1, 1):
            pen.line((x - 3.5, y - 3.5 * s), (x + 3.5, y + 3.5 * s), (30, 120, 30), 1.1)
            for t in (-2.0, 2.0):
                pen.ellipse((x + t, y + t * s), (1.3, 0.7), 45 * s, (40, 160, 40))
    elif kind == "fall":                          # a black arrow down onto a ledge
        pen.rect(x - 0.8, y - 4.2, x + 0.8, y + 0.6, INK)
        pen.poly([(x - 2.8, y + 0.2), (x + 2.8, y + 0.2), (x, y + 3.2)], INK)
        pen.rect(x - 4.2, y + 3.6, x + 4.2, y + 4.4, INK)
    elif kind == "sprain":                        # a red zigzag
        pen.polyline([(x - 3.6, y - 3.2), (x + 0.6, y - 1.2), (x - 1.0, y + 0.6), (x + 3.6, y + 3.4)],
                     (30, 30, 210), 1.3)
    elif kind == "snakebite":                     # a brown snake with a head
        pts = [(x + 2.4 * math.sin(t * 1.6), y - 3.8 + t * 1.9) for t in np.linspace(0, 4, 24)]
        pen.polyline(pts, (20, 70, 120), 1.1)
        pen.circle(pts[0], 1.2, (20, 70, 120))
    elif kind == "fever":                         # a magenta thermometer
        pen.rect(x - 0.9, y - 4.2, x + 0.9, y + 1.6, (160, 40, 200))
        pen.circle((x, y + 2.4), 1.9, (160, 40, 200))
        for k in range(3):
            pen.line((x + 1.2, y - 3.2 + 1.4 * k), (x + 2.4, y - 3.2 + 1.4 * k), INK, 0.35)
    elif kind == "thirst":                        # a blue drop
        pen.circle((x, y + 1.4), 2.6, (200, 110, 20))
        pen.poly([(x, y - 4.3), (x - 2.45, y + 0.6), (x + 2.45, y + 0.6)], (200, 110, 20))
    elif kind == "sinking":                       # three teal waves
        for k in (-2.6, 0.0, 2.6):
            pts = [(xx, y + k + 0.8 * math.sin((xx - x) * 1.6)) for xx in np.linspace(x - 4.0, x + 4.0, 20)]
            pen.polyline(pts, (160, 140, 0), 0.8)
    elif kind == "lost":                          # a black question mark
        _digit(pen, "?", (x, y), 7.5, INK, 1.1)
    elif kind == "storm":                         # a dark cloud with rain
        for cx_, cy_, r in ((-1.8, -0.8, 1.9), (0.6, -1.8, 2.3), (2.4, -0.4, 1.6)):
            pen.circle((x + cx_, y + cy_), r, (90, 80, 70))
        pen.rect(x - 3.6, y - 0.6, x + 4.0, y + 1.2, (90, 80, 70))
        for k in (-2.0, 0.0, 2.0):
            pen.line((x + k, y + 2.0), (x + k - 0.8, y + 4.2), (200, 110, 20), 0.5)
    else:
        raise KeyError(mark)


def tile_art(design: str, ppm: float = 8.0) -> np.ndarray:
    """The picture of one tile, north up.

    Parameters
    ----------
    design : str
        A name of :func:`all_designs` (any ``<terrain>/<points>/<mark>`` with a land terrain,
        points 1-9 and a mark of :data:`MARKS` is drawn, in the supply or not).
    ppm : float
        Resolution, px per mm.

    Returns
    -------
    (H, W, 4) uint8
        BGRA; ``W = round(47 * ppm)``, ``H = round(40.7 * ppm)``; alpha 255 inside the hexagon
        (anti-aliased edge), 0 outside.

    Raises
    ------
    ValueError
        For a name that is not a design.
    """
    terrain, points, mark = parse_design(design)
    if points is not None and not 1 <= points <= 9:
        raise ValueError(f"a tile shows 1-9 day-march points, not {points}")
    w, h = TILE_W_MM, TILE_H_MM
    img = np.zeros((int(round(h * ppm)), int(round(w * ppm)), 3), np.uint8)
    pen = Pen(img, ppm)
    cx, cy = w / 2, h / 2
    _texture(pen, mark if mark in MARKERS else terrain, w, h)
    if points is None:                            # a back: two pale hexagons, no panel
        for r in (15.0, 8.5):
            pen.poly(hexagon_mm(cx, cy, r), (235, 235, 235), False, 1.3)
    else:
        x0, y0, x1, y1 = PANEL_MM
        pen.poly(_rounded_rect(cx + x0, cy + y0, cx + x1, cy + y1, 2.0), WHITE)
        pen.poly(_rounded_rect(cx + x0, cy + y0, cx + x1, cy + y1, 2.0), INK, False, 0.4)
        nc = (cx + NUMBER_CENTRE_MM[0], cy + NUMBER_CENTRE_MM[1])
        ink = NUMBER_INK[points]
        _digit(pen, str(points), (nc[0], nc[1] - 0.7 if points in (6, 9) else nc[1]), 12.0 if points in (6, 9) else 13.0,
               ink)
        if points in (6, 9):
            pen.rect(nc[0] - 3.0, cy + 6.0, nc[0] + 3.0, cy + 7.1, ink)
        _icon(Pen(img, ppm * ICON_SCALE), mark, ((cx + MARK_CENTRE_MM[0]) / ICON_SCALE, (cy + MARK_CENTRE_MM[1]) / ICON_SCALE))
    pen.poly([(cx - 1.6, 2.6), (cx + 1.6, 2.6), (cx, 0.9)], WHITE)      # the north arrow
    pen.poly(hexagon_mm(cx, cy, TILE_R_MM - 0.3), INK, False, 0.6)
    alpha = np.zeros(img.shape[:2], np.uint8)
    cv2.fillPoly(alpha, [Pen(alpha, ppm).pts(hexagon_mm(cx, cy, TILE_R_MM))], 255, cv2.LINE_AA, 4)
    return np.dstack([img, alpha])


def _rounded_rect(x0: float, y0: float, x1: float, y1: float, r: float) -> list[tuple[float, float]]:
    pts = []
    for (cx, cy), a0 in (((x1 - r, y0 + r), -90), ((x1 - r, y1 - r), 0), ((x0 + r, y1 - r), 90), ((x0 + r, y0 + r), 180)):
        pts += [(cx + r * math.cos(math.radians(a)), cy + r * math.sin(math.radians(a))) for a in range(a0, a0 + 91, 15)]
    return pts


# --- the printable kit ---------------------------------------------------------------------------

INSTRUCTIONS = (
    "Discovery Island tile kit - our own art, not the publisher's tiles",
    "",
    "Print at 100 % (actual size) and check that the bar at the bottom measures 100 mm.",
    "Print double-sided, flipping on the long edge: every tile sheet is followed by its backs.",
    "(Single-sided: print the tile sheets and one backs sheet, and use those as start tiles.)",
    "Cut along the hexagons (23.5 mm to a corner). Keep one face-down pile per terrain.",
    "",
    "Laying tiles on the mat (what the camera expects):",
    "1  The centre hex (4,3) holds the walker's start tile, back up.",
    "2  Each step: lay the drawn tile face up on the hex next to the last tile, in the",
    "   direction named; number upright (the small arrow points to the mat's top edge).",
    "3  Onto a checkpoint or a cache: lay that tile (the same on both sides).",
    "4  Crossing your own path: lay the new tile on top of the old one.",
    "5  No room (the next hex would be off the mat): take every tile off except the",
    "   last, move that one to the centre hex, and lay the new tile next to it.",
    "6  March over: clear the mat. The walker keeps its last tile (back up); the player",
    "   who walks next puts its own start tile, back up, on the centre hex.",
    "7  Enter on the tablet what the mat cannot show: 'hav' (sea), clues, opening a",
    "   cache, how an event is resolved, where a lost walker is put, skipped marches.",
    "",
    "Marks (right half of the white panel):",
)


def _text(img: np.ndarray, text: str, org_mm: tuple[float, float], ppm: float, height_mm: float = 3.5,
          colour=INK) -> None:
    scale = height_mm * ppm / 22.0
    cv2.putText(img, text, (int(round(org_mm[0] * ppm)), int(round(org_mm[1] * ppm))), cv2.FONT_HERSHEY_SIMPLEX,
                scale, colour, max(1, int(round(scale * 1.6))), cv2.LINE_AA)


def _paste(page: np.ndarray, tile: np.ndarray, centre_mm: tuple[float, float], ppm: float) -> None:
    """Alpha-composite a BGRA tile picture onto a BGR page, centred at ``centre_mm``."""
    h, w = tile.shape[:2]
    x0, y0 = int(round(centre_mm[0] * ppm - w / 2)), int(round(centre_mm[1] * ppm - h / 2))
    roi = page[y0:y0 + h, x0:x0 + w]
    a = tile[..., 3:4].astype(np.float32) / 255.0
    roi[:] = np.clip(tile[..., :3] * a + roi * (1 - a), 0, 255).astype(np.uint8)


def sheet_slots(paper: str = "a4") -> list[tuple[float, float]]:
    """Tile centres (mm, from the sheet's top-left corner) of one printed sheet, portrait,
    in a honeycomb with 2 mm between tiles inside a 10 mm margin, a 14 mm title band and a
    24 mm ruler band.

    Raises
    ------
    KeyError
        For a paper name not in :data:`~assistant.vision.printing.PAPER_MM`.
    """
    pw, ph = PAPER_MM[paper]
    gap = 2.0
    dx, dy = 1.5 * TILE_R_MM + gap * math.sqrt(3) / 2, TILE_H_MM + gap
    x0, y0, x1, y1 = 10.0, 14.0, pw - 10.0, ph - 24.0
    out = []
    col = 0
    while x0 + TILE_R_MM + col * dx + TILE_R_MM <= x1:
        cx = x0 + TILE_R_MM + col * dx
        cy = y0 + TILE_H_MM / 2 + (dy / 2 if col % 2 else 0.0)
        while cy + TILE_H_MM / 2 <= y1:
            out.append((cx, cy))
            cy += dy
        col += 1
    return out


def kit_sheets(paper: str = "a4", dpi: float = 200.0, data: str = "default") -> list[np.ndarray]:
    """The kit's printer sheets: instructions, then each tile sheet followed by its mirrored backs.

    Parameters
    ----------
    paper : str
        ``"a4"`` or ``"letter"``.
    dpi : float
        Resolution of the sheets.
    data : str
        The data bundle whose tile supply is printed (``"default"``: 210 tiles).

    Returns
    -------
    list of (H, W, 3) uint8
        BGR sheets, each exactly the paper's size at ``dpi`` (portrait).

    Raises
    ------
    KeyError
        For an unknown paper.
    """
    ppm = dpi / MM_PER_INCH
    pw, ph = PAPER_MM[paper]
    size = (int(round(ph * ppm)), int(round(pw * ppm)), 3)
    art = {d: tile_art(d, ppm) for d in all_designs(data)}
    tiles = [d for d, n in supply_designs(data).items() for _ in range(n)]
    slots = sheet_slots(paper)
    first = np.full(size, 255, np.uint8)
    y = 20.0
    for line in INSTRUCTIONS:
        _text(first, line, (12.0, y), ppm, 3.6 if line and not line[0].isdigit() else 3.3)
        y += 7.0
    legend = [m for m in MARKS if m != "none"]
    for i, mark in enumerate(legend):
        cx, cy = 24.0 + (i % 2) * 92.0, y + 6.0 + (i // 2) * 16.0
        pen = Pen(first, ppm)
        _icon(pen, mark, (cx, cy))
        _text(first, mark.replace("event:", "event: "), (cx + 9.0, cy + 1.5), ppm, 3.4)
    draw_ruler(first, (12.0, ph - 18.0), ppm)
    sheets = [first]
    per = len(slots)
    count = math.ceil(len(tiles) / per)
    for s in range(count):
        front = np.full(size, 255, np.uint8)
        back = np.full(size, 255, np.uint8)
        for (cx, cy), design in zip(slots, tiles[s * per:(s + 1) * per]):
            _paste(front, art[design], (cx, cy), ppm)
            terrain, _, mark = parse_design(design)
            _paste(back, art[design] if mark in MARKERS else art[back_design(terrain)], (pw - cx, cy), ppm)
        _text(front, f"Discovery Island tiles, sheet {s + 1} of {count} (faces)", (10.0, 9.0), ppm, 3.4)
        _text(back, f"Discovery Island tiles, sheet {s + 1} of {count} (backs: print on the reverse)", (10.0, 9.0),
              ppm, 3.4)
        for img in (front, back):
            draw_ruler(img, (10.0, ph - 14.0), ppm)
        sheets += [front, back]
    return sheets


def catalogue(dpi: float = 200.0, data: str = "default", columns: int = 7) -> np.ndarray:
    """Every design once, at true size, in rows of ``columns`` with its name and a ruler.

    Returns
    -------
    (H, W, 3) uint8
        BGR, ``dpi`` dots per inch (write it with :func:`~assistant.vision.printing.write_png`).
    """
    ppm = dpi / MM_PER_INCH
    designs = all_designs(data)
    pitch_x, pitch_y = TILE_W_MM + 6.0, TILE_H_MM + 10.0
    rows = math.ceil(len(designs) / columns)
    w_mm, h_mm = 10.0 + columns * pitch_x, 10.0 + rows * pitch_y + 28.0
    img = np.full((int(round(h_mm * ppm)), int(round(w_mm * ppm)), 3), 255, np.uint8)
    for i, design in enumerate(designs):
        cx, cy = 10.0 + (i % columns + 0.5) * pitch_x, 10.0 + (i // columns) * pitch_y + TILE_H_MM / 2
        _paste(img, tile_art(design, ppm), (cx, cy), ppm)
        _text(img, design, (cx - TILE_R_MM, cy + TILE_H_MM / 2 + 4.5), ppm, 2.6)
    draw_ruler(img, (10.0, h_mm - 16.0), ppm)
    return img


def print_kit(prefix: str | Path, paper: str = "a4", dpi: float = 200.0) -> list[Path]:
    """Write ``PREFIX.pdf`` (the kit's sheets at true size) and ``PREFIX.png`` (the catalogue).

    Parameters
    ----------
    prefix : str or Path
        File prefix; parent folders are created.
    paper : str
        ``"a4"`` or ``"letter"``.
    dpi : float
        Resolution (the PDF's pages measure the paper's size exactly at this dpi).

    Returns
    -------
    list of Path
        ``[png, pdf]``.

    Raises
    ------
    OSError
        When a file cannot be written.
    KeyError
        For an unknown paper.
    """
    prefix = Path(prefix)
    prefix.parent.mkdir(parents=True, exist_ok=True)
    png, pdf = prefix.with_suffix(".png"), prefix.with_suffix(".pdf")
    write_png(png, catalogue(dpi), dpi)
    write_pdf(pdf, kit_sheets(paper, dpi), dpi)
    return [png, pdf]


def print_kit_command(args: Any) -> int:
    """Run ``assistant print kit --game discovery-island``: 0 written, 2 an unwritable file."""
    prefix = args.output or "kit-discovery-island"
    try:
        files = print_kit(prefix, args.paper, args.dpi)
    except OSError as exc:
        print(f"cannot write {prefix}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(f"wrote {', '.join(map(str, files))}: the Discovery Island tile kit (210 tiles, hexagons of "
          f"{TILE_R_MM} mm); print at 100 % (actual size), double-sided, and check that the ruler measures 100 mm")
    return 0
