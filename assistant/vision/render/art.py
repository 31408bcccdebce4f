"""The project's own look-alike art for Forbidden Desert, drawn procedurally.

Nothing here is copied or derived from the publisher's images: every picture is built from
``cv2`` primitives and seeded value noise, following only the facts of the rules file (§1) —
which classes exist, where the compass, the corner symbol and the clue arrows sit, and the part
colours. Each class differs from every other in colour *and* layout, so that a classifier can
tell them apart through blur, noise, JPEG and coloured light (``tests/vision/test_render.py``
checks it).

Labels (the ``label`` of a rendered piece and of a cell's content in the ground truth):

- tile backs: ``back:dune_back``, ``back:water_back``, ``back:crash_site``;
- tile faces: ``tile:<kind>`` for ``well mirage tunnel gear launch_pad crash_site`` and
  ``tile:clue_<part>_<axis>`` (14 classes; ``well_1`` and ``well_2`` look alike, as in the game);
- storm cards: ``storm:wind_<d>_<k>``, ``storm:sun_beats_down``, ``storm:storm_picks_up``,
  ``storm:back``; sand markers ``sand:light``, ``sand:dark``; parts ``part:<part>``;
- pawns are tall pieces with a colour: ``pawn:<adventurer>`` (:data:`PAWN_COLOURS`).

Images are ``(H, W, 3) uint8`` BGR, or ``(H, W, 4)`` BGRA for round or cut-out pieces, drawn
upright (the board's north at the top, a face's symbol in the south-east corner) at ``ppm``
px per mm. Storm cards, sand markers and parts live in :mod:`.art_cards`.
"""

from __future__ import annotations

import math

import numpy as np

from . import art_cards
from ._draw import (PART_COLOURS, Pen, canvas, compass, corner_patch, drop, gear_symbol, part_icon, seed_of, tint,
                    triangle, value_noise, vgradient)

TILE_MM = 66.0                   #: side of a tile, mm
PARTS = ("propeller", "solar_crystal", "engine", "navigation_deck")
AXES = ("row", "column")
TILE_KINDS = ("well", "mirage", "tunnel", "gear", "launch_pad", "crash_site")
BACK_LABELS = ("back:dune_back", "back:water_back", "back:crash_site")
FACE_LABELS = tuple(f"tile:{k}" for k in TILE_KINDS) + tuple(f"tile:clue_{p}_{a}" for p in PARTS for a in AXES)

#: Pawn colours (BGR) by adventurer, rules §1.6.
PAWN_COLOURS = {
    "archeologist": (40, 40, 200),       # red
    "climber": (35, 35, 35),             # black
    "explorer": (60, 150, 40),           # green
    "meteorologist": (235, 235, 235),    # white
    "navigator": (30, 215, 240),         # yellow
    "water_carrier": (200, 110, 20),     # blue
}

#: Every label with a flat picture, in a fixed order.
ALL_LABELS = BACK_LABELS + FACE_LABELS + art_cards.STORM_LABELS + art_cards.SAND_LABELS + art_cards.PART_LABELS


def tile_label(tile_id: str, face_up: bool) -> str:
    """The visual class of a tile (rules §1.2 ids): its face or its back.

    Raises
    ------
    KeyError
        For an unknown tile id.

    >>> tile_label("well_2", True), tile_label("mirage", False), tile_label("crash_site", False)
    ('tile:well', 'back:water_back', 'back:crash_site')
    """
    kind = tile_id.rstrip("0123456789").rstrip("_")
    if kind.startswith("clue_"):
        if f"tile:{kind}" not in FACE_LABELS:
            raise KeyError(tile_id)
    elif kind not in TILE_KINDS:
        raise KeyError(tile_id)
    if face_up:
        return f"tile:{kind}"
    if kind == "crash_site":
        return "back:crash_site"
    return "back:water_back" if kind in ("well", "mirage") else "back:dune_back"


# -- tile backs ---------------------------------------------------------------------------------

def _desert(label: str, ppm: float, sky=((200, 170, 150), (215, 205, 200)), horizon: float = 0.42) -> np.ndarray:
    """Sky over dunes, with the compass in the top-left corner."""
    s = TILE_MM
    img = canvas(s, s, ppm)
    hy = int(round(horizon * s * ppm))
    vgradient(img, 0, hy, sky[0], sky[1])
    vgradient(img, hy, img.shape[0], (70, 185, 235), (30, 120, 200))
    pen = Pen(img, ppm)
    rng = np.random.default_rng(seed_of(label))
    for k, (col, base) in enumerate((((60, 160, 225), 0.50), ((40, 140, 215), 0.63), ((25, 110, 190), 0.80))):
        ph, amp = rng.uniform(0, 6.28), rng.uniform(3.0, 5.0)
        xs = np.linspace(0, s, 40)
        ys = base * s + amp * np.sin(xs / s * math.pi * (1.5 + k * 0.7) + ph)
        pen.poly(list(zip(xs, ys)) + [(s, s), (0, s)], col)
    tint(img, value_noise(img.shape[:2], seed_of(label) + 1, 10), 0.06)
    compass(pen, (7.5, 7.5), 5.5)
    return img


def back_image(label: str, ppm: float = 6.0) -> np.ndarray:
    """A tile's desert side, ``(round(66 * ppm),) * 2 + (3,) uint8`` BGR.

    ``back:dune_back``: sky and orange dunes; ``back:water_back``: the dunes with a green tree,
    a blue pool and a water drop in the south-east corner; ``back:crash_site``: the dunes with
    a dark grey wreck and a pawn symbol in the south-west corner. All carry the compass in the
    top-left corner (rules §1.2).

    Raises
    ------
    KeyError
        For another label.
    """
    if label not in BACK_LABELS:
        raise KeyError(label)
    s = TILE_MM
    img = _desert(label, ppm)
    pen = Pen(img, ppm)
    if label == "back:water_back":
        pen.ellipse((30, 52), (16, 5), 0, (200, 150, 40))             # the pool
        pen.ellipse((30, 51), (13, 3.5), 0, (230, 190, 90))
        pen.line((36, 47), (38, 26), (40, 70, 100), 2.0)              # the tree
        for dx, dy, r in ((-8, -2, 8), (0, -6, 9), (8, -2, 8), (2, 2, 7)):
            pen.circle((38 + dx, 24 + dy), r, (40, 130, 60))
        for x in (10, 16, 50, 56):
            pen.circle((x, 47), 3.5, (50, 150, 80))
        corner_patch(pen, (s - 7.5, s - 7.5), 5.5)
        drop(pen, (s - 7.5, s - 7.5), 7.5)
    elif label == "back:crash_site":
        pen.poly([(10, 44), (22, 34), (46, 36), (58, 46), (48, 54), (16, 54)], (60, 62, 70))   # the wreck
        pen.poly([(20, 40), (40, 39), (44, 46), (22, 47)], (95, 100, 110))
        pen.line((26, 38), (54, 18), (50, 50, 55), 2.2)                                          # a rotor blade
        pen.line((30, 36), (12, 26), (50, 50, 55), 1.6)
        corner_patch(pen, (7.5, s - 7.5), 5.5, (200, 200, 200))
        pen.circle((7.5, s - 10.0), 1.6, (40, 40, 150))                                          # pawn symbol
        pen.poly([(5.2, s - 4.2), (7.5, s - 9.0), (9.8, s - 4.2)], (40, 40, 150))
    return img


# -- tile faces ---------------------------------------------------------------------------------

def _face_well(pen: Pen, img: np.ndarray) -> None:
    s = TILE_MM
    img[:] = (120, 150, 110)
    pen.circle((33, 31), 26, (55, 95, 150))          # copper rim
    pen.circle((33, 31), 22, (140, 150, 160))        # stones
    for k in range(16):
        a = 2 * math.pi * k / 16
        pen.circle((33 + 24 * math.cos(a), 31 + 24 * math.sin(a)), 0.9, (30, 60, 100))
    pen.circle((33, 33), 15, (90, 95, 105))
    pen.ellipse((33, 39), (13, 7), 0, (225, 160, 50))  # the water
    corner_patch(pen, (s - 8, s - 8), 7)
    drop(pen, (s - 10.5, s - 7.5), 6.5)
    drop(pen, (s - 5.8, s - 8.5), 6.5)


def _face_mirage(pen: Pen, img: np.ndarray) -> None:
    img[:] = (120, 170, 205)
    rng = np.random.default_rng(seed_of("tile:mirage"))
    for _ in range(14):                               # cracks: random walks
        x, y = rng.uniform(0, TILE_MM, 2)
        pts = [(x, y)]
        a = rng.uniform(0, 2 * math.pi)
        for _ in range(8):
            a += rng.normal(0, 0.6)
            x, y = x + 4.0 * math.cos(a), y + 4.0 * math.sin(a)
            pts.append((x, y))
        pen.polyline(pts, (60, 90, 120), 0.6)
    pen.ellipse((44, 50), (4, 2.5), 0, (50, 70, 90))  # a small dry hole


def _face_tunnel(pen: Pen, img: np.ndarray) -> None:
    s = TILE_MM
    img[:] = (40, 55, 80)
    for k in range(6):                                # ribs of the tunnel
        pen.rect(4 + k * 11, 2, 6 + k * 11, s - 2, (30, 40, 60))
    octa = [(33 + 17 * math.cos(math.radians(22.5 + 45 * k)), 30 + 15 * math.sin(math.radians(22.5 + 45 * k)))
            for k in range(8)]
    pen.poly(octa, (180, 200, 215))                   # the opening
    pen.poly([(16, 33), (50, 33), (48, 44), (18, 44)], (130, 190, 225))
    corner_patch(pen, (8, s - 8), 6.5, (200, 215, 225))
    pen.ellipse((8, s - 8), (3, 3.5), 0, (20, 20, 20), arc=(180, 360))   # tunnel symbol: an arch
    pen.rect(5, s - 8, 11, s - 4.5, (20, 20, 20))
    gear_symbol(pen, (s - 8, s - 8), 6.5)


def _face_gear(pen: Pen, img: np.ndarray) -> None:
    s = TILE_MM
    vgradient(img, 0, img.shape[0], (235, 200, 150), (150, 200, 225))
    for cx, cy, r in ((14, 40, 12), (38, 36, 15), (58, 42, 9)):   # glass domes
        pen.ellipse((cx, cy), (r, r * 1.2), 0, (140, 175, 120), arc=(180, 360))
        pen.ellipse((cx, cy), (r, r * 1.2), 0, (80, 110, 70), 0.6, arc=(180, 360))
    pen.rect(0, 40, s, s, (110, 160, 200))
    pen.rect(6, 40, 52, 47, (60, 80, 105))
    gear_symbol(pen, (s - 8, s - 8), 6.5)


def _face_launch_pad(pen: Pen, img: np.ndarray) -> None:
    s = TILE_MM
    img[:] = (160, 110, 120)                          # purple canyon
    pen.rect(0, 40, s, s, (130, 140, 150))
    band = 5.0
    pen.rect(0, 0, s, s, (20, 20, 20), band * 2)     # black frame ...
    for k in range(-3, 28):                           # ... with yellow hazard stripes
        x = k * 5.0
        for a, b in (((x, 0), (x + 2.5, 0)), ((x, s), (x + 2.5, s))):
            d = band if a[1] == 0 else -band
            pen.poly([a, b, (b[0] + band, b[1] + d), (a[0] + band, a[1] + d)], (20, 200, 240))
        for a, b in (((0, x), (0, x + 2.5)), ((s, x), (s, x + 2.5))):
            d = band if a[0] == 0 else -band
            pen.poly([a, b, (b[0] + d, b[1] + band), (a[0] + d, a[1] + band)], (20, 200, 240))
    pen.ellipse((33, 30), (18, 7), 0, (40, 90, 150))  # the wooden flying machine
    pen.ellipse((33, 28), (14, 4), 0, (70, 140, 200))
    pen.rect(14, 44, 52, 58, (60, 70, 80))            # the pad


def _face_crash_site(pen: Pen, img: np.ndarray) -> None:
    s = TILE_MM
    vgradient(img, 0, img.shape[0], (200, 170, 175), (120, 120, 140))
    for x0, w, h in ((2, 14, 40), (18, 10, 30), (46, 18, 44)):    # grey-violet buildings
        pen.rect(x0, 52 - h, x0 + w, 52, (110, 95, 110))
        for k in range(int(h // 8)):
            pen.rect(x0 + 2, 52 - h + 3 + 8 * k, x0 + w - 2, 52 - h + 6 + 8 * k, (70, 60, 70))
    pen.rect(27, 20, 39, 50, (60, 60, 70))           # the statue on its plinth
    pen.circle((33, 17), 4.5, (60, 60, 70))
    pen.rect(0, 52, s, s, (140, 150, 165))
    gear_symbol(pen, (s - 8, s - 8), 6.5)


def _face_clue(pen: Pen, img: np.ndarray, part: str, axis: str) -> None:
    s = TILE_MM
    col = PART_COLOURS[part]
    img[:] = tuple(int(0.35 * v + 40) for v in col)  # dim room in the part's hue
    rng = np.random.default_rng(seed_of(f"clue:{part}"))
    for _ in range(9):                                # shelves and clutter
        x, y, w, h = rng.uniform(10, 50), rng.uniform(10, 50), rng.uniform(4, 12), rng.uniform(2, 8)
        pen.rect(x, y, x + w, y + h, tuple(int(0.2 * v + 30) for v in col))
    band = 9.0
    edges = ((0, 1), (0, -1)) if axis == "column" else ((1, 0), (-1, 0))   # outward normals
    pen.rect(0, 0, s, s, col, 3.0)                    # thin frame all round
    for nx, ny in edges:
        if ny:
            y0 = 0 if ny < 0 else s - band
            pen.rect(0, y0, s, y0 + band, col)
            for x in (16, 33, 50):
                triangle(pen, (x, y0 + (1.0 if ny < 0 else band - 1.0)), (0, ny), 6.0, (250, 250, 250))
        else:
            x0 = 0 if nx < 0 else s - band
            pen.rect(x0, 0, x0 + band, s, col)
            for y in (16, 33, 50):
                triangle(pen, (x0 + (1.0 if nx < 0 else band - 1.0), y), (nx, 0), 6.0, (250, 250, 250))
    corner_patch(pen, (s - 11, s - 11), 8.5, (240, 245, 245))
    part_icon(pen, part, (s - 11, s - 11), 6.5)


_FACES = {"well": _face_well, "mirage": _face_mirage, "tunnel": _face_tunnel, "gear": _face_gear,
          "launch_pad": _face_launch_pad, "crash_site": _face_crash_site}


def face_image(label: str, ppm: float = 6.0) -> np.ndarray:
    """A tile's city side (``tile:<kind>`` or ``tile:clue_<part>_<axis>``), ``(S, S, 3) uint8`` BGR
    with ``S = round(66 * ppm)``, upright: its symbol in the south-east corner.

    Well: a stone well with blue water, two drops; mirage: cracked tan ground, no symbol;
    tunnel: a dark ribbed tunnel, arch symbol south-west and gear symbol south-east; gear:
    glass domes under a blue sky, gear symbol; launch pad: hazard-striped frame; crash site:
    violet city with a statue, gear symbol; clue: a room in the part's hue, a frame in the
    part's colour with white arrows on the west and east edges (row) or north and south edges
    (column), the part icon in the south-east corner (rules §1.2).

    Raises
    ------
    KeyError
        For another label.
    """
    if label not in FACE_LABELS:
        raise KeyError(label)
    s = TILE_MM
    img = canvas(s, s, ppm)
    pen = Pen(img, ppm)
    name = label.split(":", 1)[1]
    if name.startswith("clue_"):
        part, axis = name[5:].rsplit("_", 1)
        _face_clue(pen, img, part, axis)
    else:
        _FACES[name](pen, img)
    tint(img, value_noise(img.shape[:2], seed_of(label), 12), 0.05)
    return img


def art_image(label: str, ppm: float = 6.0) -> np.ndarray:
    """The picture of any flat class in :data:`ALL_LABELS` (BGR, or BGRA for round or cut-out
    pieces: sand markers and parts), at ``ppm`` px per mm.

    Raises
    ------
    KeyError
        For a label without a flat picture (pawns are tall pieces: see :data:`PAWN_COLOURS`).

    >>> art_image("tile:gear", 2.0).shape, art_image("sand:dark", 2.0).shape
    ((132, 132, 3), (44, 44, 4))
    >>> art_image("pawn:climber")
    Traceback (most recent call last):
    ...
    KeyError: 'pawn:climber'
    """
    if label in BACK_LABELS:
        return back_image(label, ppm)
    if label in FACE_LABELS:
        return face_image(label, ppm)
    return art_cards.card_image(label, ppm)


def size_mm(label: str) -> tuple[float, float]:
    """Physical ``(width, height)`` in mm of a flat class.

    Raises
    ------
    KeyError
        For a label without a flat picture.
    """
    if label in BACK_LABELS or label in FACE_LABELS:
        return (TILE_MM, TILE_MM)
    return art_cards.size_mm(label)


__all__ = ["TILE_MM", "PARTS", "PAWN_COLOURS", "PART_COLOURS", "ALL_LABELS", "BACK_LABELS", "FACE_LABELS",
           "tile_label", "back_image", "face_image", "art_image", "size_mm"]
