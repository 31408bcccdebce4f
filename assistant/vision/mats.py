"""Play mats as data: where the ArUco corner markers, the cells and the card place lie, in mm.

A mat is the printed sheet the game is played on. Four ArUco markers (dictionary
``DICT_4X4_50``) sit in its corners, outside the play area, each with a white quiet zone of at
least one module; their ids tell which game's mat is on the table (Forbidden Desert 0-3,
Discovery Island 4-7, Scout Pennant 8-11, in the order top-left, top-right, bottom-right,
bottom-left). Inside lie the cells: a 5x5 square grid plus a place for the drawn storm card
(Forbidden Desert) or a flat-topped hex lattice (the other two games). The hex mats also print
two strips of colour references in the band (:class:`Reference`: paper white, greys, the kit's
black and inks), which the kit detectors read to take the light and the camera's colour
pipeline out of each frame (:mod:`.colour_refs`).

Everything here is millimetres in mat coordinates (see the package note); nothing depends on
a camera. :func:`mat_layout` gives the layout of each game.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

ARUCO_DICTIONARY = "DICT_4X4_50"
MARKER_MM = 40.0            #: printed side of a corner marker (6 modules of 6.67 mm incl. its black border)
QUIET_MM = 10.0             #: white margin around a marker, >= one module (rules of the issue; F1, F2)
MARKER_ZONE_MM = QUIET_MM + MARKER_MM + QUIET_MM   #: from the mat edge to the play area
FIRST_MARKER_ID = {"forbidden-desert": 0, "discovery-island": 4, "scout-pennant": 8}

SQRT3 = math.sqrt(3.0)


@dataclass(frozen=True)
class Marker:
    """One corner marker: its ArUco id and its four corners in mm (TL, TR, BR, BL of the
    marker's own square, the order ``cv2.aruco`` reports them in)."""

    id: int
    corners_mm: tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class Cell:
    """One place a piece can lie on.

    Attributes
    ----------
    key : tuple
        The game's cell key (see the package note).
    center_mm : (float, float)
    polygon_mm : tuple of (float, float)
        The cell's outline: 4 corners (square, clockwise from top-left) or 6 (flat-top hex,
        clockwise from the east vertex).
    """

    key: tuple
    center_mm: tuple[float, float]
    polygon_mm: tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class Edge:
    """The shared side of two neighbouring hex cells (where a Scout Pennant arrow lies).

    ``a`` and ``b`` are cell keys; ``angle_deg`` is the direction from ``a``'s centre to
    ``b``'s centre (0 = +x, 90 = +y, i.e. down the mat).
    """

    a: tuple
    b: tuple
    midpoint_mm: tuple[float, float]
    angle_deg: float


@dataclass(frozen=True)
class Reference:
    """A printed colour reference: a square patch of known ink in the band round the play area.

    ``name`` says what it stands for (``"white"``, ``"grey50"``, a terrain or pawn colour),
    ``rect_mm`` is ``(x0, y0, x1, y1)`` in mat mm and ``bgr`` the sRGB ink it is printed with
    (0-255, the same values the kit's art uses, so the camera shows each piece's colour beside
    the patch printed with it).
    """

    name: str
    rect_mm: tuple[float, float, float, float]
    bgr: tuple[int, int, int]


#: neutral patches of every reference strip: paper white, three greys, the kit's black
NEUTRALS: tuple[tuple[str, tuple[int, int, int]], ...] = (
    ("white", (255, 255, 255)), ("grey75", (191, 191, 191)), ("grey50", (128, 128, 128)),
    ("grey25", (64, 64, 64)), ("black", (30, 30, 30)))
#: the kit inks each game's mat prints beside the neutrals (the values of the kits' art:
#: ``kits.discovery_island.TERRAIN_BGR`` / ``NUMBER_INK`` and ``kits.scout_pennant.PAWN_COLOURS``,
#: checked equal by ``tests/vision/test_mats.py``)
REFERENCE_INKS: dict[str, tuple[tuple[str, tuple[int, int, int]], ...]] = {
    "discovery-island": (
        ("open", (96, 208, 232)), ("jungle", (50, 118, 34)), ("mountain", (150, 108, 120)),
        ("wetland", (190, 128, 40)), ("bush", (45, 112, 210)), ("checkpoint", (40, 210, 250)),
        ("cache", (40, 40, 200)), ("ink:blue", (170, 70, 20)), ("ink:green", (40, 120, 20)),
        ("ink:red", (30, 30, 180)), ("ink:orange", (0, 110, 220)), ("event", (30, 200, 250)),
        ("shortcut", (50, 160, 40))),
    "scout-pennant": (
        ("red", (0, 94, 213)), ("blue", (178, 114, 0)), ("green", (115, 158, 0)), ("yellow", (66, 228, 240)),
        ("purple", (167, 121, 204)), ("orange", (0, 159, 230)), ("forest", (40, 88, 34)),
        ("forest:light", (70, 140, 62)), ("clearing", (200, 200, 200))),
}
REFERENCE_MM = 14.0          #: side of a reference patch
REFERENCE_GAP_MM = 2.0       #: white paper between patches (the local white of each)


def _references(game: str, width: float, height: float) -> tuple[Reference, ...]:
    """Two strips of reference patches, one in the band above the play area and one, in the
    other order, in the band below it, centred between the corner markers (a colour is thus
    printed in two places, so glare or a shadow on one strip leaves the other)."""
    if game not in REFERENCE_INKS:
        return ()
    inks = NEUTRALS + REFERENCE_INKS[game]
    pitch = REFERENCE_MM + REFERENCE_GAP_MM
    x_start = (width - (len(inks) * pitch - REFERENCE_GAP_MM)) / 2
    y_top = MARKER_ZONE_MM / 2 - REFERENCE_MM / 2
    y_bottom = height - MARKER_ZONE_MM / 2 - REFERENCE_MM / 2 + 3.0      # clear of the title line
    out = []
    for row, (y, order) in enumerate(((y_top, inks), (y_bottom, inks[::-1]))):
        for i, (name, bgr) in enumerate(order):
            x = x_start + i * pitch
            out.append(Reference(name, (x, y, x + REFERENCE_MM, y + REFERENCE_MM), bgr))
    return tuple(out)


@dataclass(frozen=True)
class MatLayout:
    """A game's mat.

    Attributes
    ----------
    game : str
        Record id of the game.
    size_mm : (float, float)
        Width and height of the whole mat.
    markers : tuple of Marker
        Top-left, top-right, bottom-right, bottom-left.
    cells : tuple of Cell
    edges : tuple of Edge
        Neighbouring cell pairs (hex lattices only).
    play_area_mm : (x0, y0, x1, y1)
        The rectangle holding every cell; the band between it and the mat edge holds only the
        markers and must stay empty during play (the motion gate watches it for arms).
    card_place_mm : (x0, y0, x1, y1) or None
        Where the drawn storm card lies face up (Forbidden Desert).
    references : tuple of Reference
        Printed colour references in the band (Discovery Island and Scout Pennant; see
        :mod:`~.colour_refs`).
    cell_pitch_mm : float
        Square side, or hex circumradius.
    kind : str
        ``"square"`` or ``"hex"``.
    """

    game: str
    size_mm: tuple[float, float]
    markers: tuple[Marker, ...]
    cells: tuple[Cell, ...]
    play_area_mm: tuple[float, float, float, float]
    cell_pitch_mm: float
    kind: str
    edges: tuple[Edge, ...] = ()
    card_place_mm: tuple[float, float, float, float] | None = None
    references: tuple[Reference, ...] = ()
    _index: dict = field(default_factory=dict, compare=False, repr=False)

    def cell(self, key: tuple) -> Cell:
        """The cell with ``key``.

        Raises
        ------
        KeyError
            When the mat has no such cell.
        """
        if not self._index:
            self._index.update({c.key: c for c in self.cells})
        return self._index[key]

    def marker_points(self) -> tuple[np.ndarray, np.ndarray]:
        """All marker corners: ids ``(4,) int`` and corners ``(4, 4, 2) float32`` in mm."""
        ids = np.array([m.id for m in self.markers], dtype=np.int32)
        pts = np.array([m.corners_mm for m in self.markers], dtype=np.float32)
        return ids, pts

    def outline_mm(self) -> np.ndarray:
        """The mat's four corners ``(4, 2) float32`` in mm: TL, TR, BR, BL."""
        w, h = self.size_mm
        return np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float32)


def _markers(game: str, width: float, height: float) -> tuple[Marker, ...]:
    first = FIRST_MARKER_ID[game]
    q, s = QUIET_MM, MARKER_MM
    origins = [(q, q), (width - q - s, q), (width - q - s, height - q - s), (q, height - q - s)]
    return tuple(Marker(first + i, ((x, y), (x + s, y), (x + s, y + s), (x, y + s)))
                 for i, (x, y) in enumerate(origins))


def square_grid(rows: int, cols: int, pitch: float, x0: float, y0: float) -> tuple[Cell, ...]:
    """A ``rows x cols`` grid of square cells of side ``pitch`` mm, keys ``(row, col)``,
    row 0 at the top (the edge between the top-left and top-right markers)."""
    cells = []
    for r in range(rows):
        for c in range(cols):
            x, y = x0 + c * pitch, y0 + r * pitch
            poly = ((x, y), (x + pitch, y), (x + pitch, y + pitch), (x, y + pitch))
            cells.append(Cell((r, c), (x + pitch / 2, y + pitch / 2), poly))
    return tuple(cells)


def hex_polygon(cx: float, cy: float, s: float) -> tuple[tuple[float, float], ...]:
    """A flat-topped hexagon of circumradius ``s`` mm: 6 vertices clockwise from the east one
    (y grows downwards)."""
    return tuple((cx + s * math.cos(math.radians(60 * i)), cy + s * math.sin(math.radians(60 * i))) for i in range(6))


def _hex_cells(centres: dict[tuple, tuple[float, float]], s: float) -> tuple[Cell, ...]:
    return tuple(Cell(key, c, hex_polygon(c[0], c[1], s)) for key, c in centres.items())


def _hex_edges(centres: dict[tuple, tuple[float, float]], s: float) -> tuple[Edge, ...]:
    """Every pair of cells whose centres are one hex width apart (sqrt(3) * s)."""
    keys = sorted(centres)
    out = []
    step = SQRT3 * s
    for i, a in enumerate(keys):
        ax, ay = centres[a]
        for b in keys[i + 1:]:
            bx, by = centres[b]
            if abs(math.hypot(bx - ax, by - ay) - step) < 1e-6:
                out.append(Edge(a, b, ((ax + bx) / 2, (ay + by) / 2), math.degrees(math.atan2(by - ay, bx - ax))))
    return tuple(out)


def forbidden_desert_mat(cell_mm: float = 70.0) -> MatLayout:
    """5x5 cells of ``cell_mm`` (default 70 mm: a 66 mm tile with room around it) and a storm
    card place (75 x 100 mm) to the right of the grid."""
    z = MARKER_ZONE_MM
    grid = 5 * cell_mm
    card = (z + grid + 20.0, z, z + grid + 95.0, z + 100.0)
    width = card[2] + z
    height = z + grid + z
    return MatLayout("forbidden-desert", (width, height), _markers("forbidden-desert", width, height),
                     square_grid(5, 5, cell_mm, z, z), (z, z, z + grid, z + grid), cell_mm, "square",
                     card_place_mm=card)


def discovery_island_mat(hex_mm: float = 25.0, cols: int = 9, rows: int = 7) -> MatLayout:
    """An odd-q lattice of ``cols x rows`` flat-topped hexes of circumradius ``hex_mm``, keys
    ``(col, row)`` (the walker's area where the opponent lays its tiles)."""
    z, s = MARKER_ZONE_MM, hex_mm
    centres = {}
    for col in range(cols):
        for row in range(rows):
            cx = z + s + 1.5 * s * col
            cy = z + SQRT3 / 2 * s + SQRT3 * s * (row + 0.5 * (col & 1))
            centres[(col, row)] = (cx, cy)
    area = (z, z, z + 1.5 * s * (cols - 1) + 2 * s, z + SQRT3 * s * (rows + 0.5))
    width, height = area[2] + z, area[3] + z
    return MatLayout("discovery-island", (width, height), _markers("discovery-island", width, height),
                     _hex_cells(centres, s), area, s, "hex", edges=_hex_edges(centres, s),
                     references=_references("discovery-island", width, height))


def scout_pennant_mat(hex_mm: float = 28.0, radius: int = 4) -> MatLayout:
    """The radius-``radius`` hex board of Scout Pennant, flat-topped hexes of circumradius
    ``hex_mm``, keys axial ``(q, r)``, the finish (0, 0) in the middle, north up."""
    z, s = MARKER_ZONE_MM, hex_mm
    cx0 = z + s + 1.5 * s * radius
    cy0 = z + SQRT3 * s * (radius + 0.5)
    centres = {}
    for q in range(-radius, radius + 1):
        for r in range(-radius, radius + 1):
            if abs(q) + abs(r) + abs(q + r) <= 2 * radius:
                centres[(q, r)] = (cx0 + 1.5 * s * q, cy0 + SQRT3 * s * (r + q / 2))
    area = (z, z, z + 1.5 * s * 2 * radius + 2 * s, z + SQRT3 * s * (2 * radius + 1))
    width, height = area[2] + z, area[3] + z
    return MatLayout("scout-pennant", (width, height), _markers("scout-pennant", width, height),
                     _hex_cells(centres, s), area, s, "hex", edges=_hex_edges(centres, s),
                     references=_references("scout-pennant", width, height))


def grid_mat(rows: int, cols: int, width_mm: float = 100.0 * 8, height_mm: float | None = None) -> MatLayout:
    """A plain ``rows x cols`` grid filling a rectangle (no markers): the board of
    ``assistant watch --grid RxC --corners ...``, whose four clicked corners are the rectangle's."""
    height_mm = height_mm if height_mm is not None else width_mm * rows / cols
    pitch_x, pitch_y = width_mm / cols, height_mm / rows
    cells = []
    for r in range(rows):
        for c in range(cols):
            x, y = c * pitch_x, r * pitch_y
            cells.append(Cell((r, c), (x + pitch_x / 2, y + pitch_y / 2),
                              ((x, y), (x + pitch_x, y), (x + pitch_x, y + pitch_y), (x, y + pitch_y))))
    return MatLayout("grid", (width_mm, height_mm), (), tuple(cells), (0.0, 0.0, width_mm, height_mm),
                     min(pitch_x, pitch_y), "square")


def grid_over(layout: MatLayout, rows: int, cols: int) -> MatLayout:
    """``layout`` with its cells replaced by a ``rows x cols`` grid over its play area (keys
    ``(row, col)``); the markers, the band and the card place stay."""
    x0, y0, x1, y1 = layout.play_area_mm
    pitch_x, pitch_y = (x1 - x0) / cols, (y1 - y0) / rows
    cells = []
    for r in range(rows):
        for c in range(cols):
            ax, ay = x0 + c * pitch_x, y0 + r * pitch_y
            cells.append(Cell((r, c), (ax + pitch_x / 2, ay + pitch_y / 2),
                              ((ax, ay), (ax + pitch_x, ay), (ax + pitch_x, ay + pitch_y), (ax, ay + pitch_y))))
    return MatLayout(layout.game, layout.size_mm, layout.markers, tuple(cells), layout.play_area_mm,
                     min(pitch_x, pitch_y), "square", card_place_mm=layout.card_place_mm,
                     references=layout.references)


MATS = {"forbidden-desert": forbidden_desert_mat, "discovery-island": discovery_island_mat,
        "scout-pennant": scout_pennant_mat}


def mat_layout(game: str) -> MatLayout:
    """The default mat of ``game`` (a record id).

    Raises
    ------
    KeyError
        For a game without a mat.
    """
    return MATS[game]()


def game_of_marker(marker_id: int) -> str | None:
    """Which game's mat a corner marker id belongs to, or ``None``."""
    for game, first in FIRST_MARKER_ID.items():
        if first <= marker_id < first + 4:
            return game
    return None
