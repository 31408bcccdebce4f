"""The Scout Pennant printable kit: our own piece art, the kit sheets, ``assistant print kit``.

Pieces (rules ``scout-pennant.md`` §2.3, §2.4), sized to the mat's hexes (circumradius
``mat_layout("scout-pennant").cell_pitch_mm`` = 28 mm, inradius 24.2 mm):

- **clearing**: a round disc, :data:`CLEARING_MM` across, light grey with a thick black ring
  (:data:`RING_INNER_MM` to the rim); the grey middle is where a patrol pawn stands (grey, not
  white: a webcam often clips white paper, and a pawn lifted off a clipped white would change
  nothing the motion gate can measure);
- **forest**: a dark green square, :data:`FOREST_MM` a side, with lighter tree marks and a
  black rim; it covers everything within 14 mm of the cell centre however it is turned;
- **arrow**: a pentagon :data:`ARROW_MM` (length x width): a solid black triangular head and
  a square-ended tail drawn as a black outline round white, laid across the shared side of
  two cells and pointing from one to the other (so just behind the side the arrow crosses it
  is white, just ahead of it black, whichever way it lies);
- **patrol pawn**: a disc :data:`PAWN_MM` across in one of six Okabe-Ito colours (Okabe & Ito
  2008, "Color Universal Design"), with the colour's initial as a second cue for colour-blind
  players (R B G Y P O), inside a black rim :data:`PAWN_RIM_MM` wide: under a light bright
  enough to clip both the pawn's colour and the clearing's grey to white (a lamp close over
  the board), the rim still shows the camera that a pawn is there.

The sizes leave white paper round the middle of every side (a clearing ends 7 mm before the
side's midpoint, a forest's corner at least 4 mm before it), where the arrow's solid head and
hollow tail meet; the detector (:mod:`.scout_pennant_detect`) reads arrows there.

Every drawing function returns ``(h, w, 4) uint8`` BGRA (straight alpha: 0 outside the cut
line) at ``ppm`` pixels per millimetre, north up, arrows pointing to +x (east). The sheets are
``(H, W, 3) uint8`` BGR pages at true size (see :mod:`assistant.vision.printing`).

>>> clearing_image(4.0).shape, arrow_image(4.0).shape, pawn_image("red", 4.0).shape
((136, 136, 4), (48, 72, 4), (72, 72, 4))
>>> pawn_image("black", 4.0)
Traceback (most recent call last):
...
KeyError: "no pawn colour 'black' in the kit (red, blue, green, yellow, purple, orange)"
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from ..mats import mat_layout
from ..printing import MM_PER_INCH, PAGE_MARGIN_MM, PAPER_MM, _text, draw_mat, draw_ruler, tile_pages, write_pdf, write_png

GAME = "scout-pennant"
CLEARING_MM = 34.0          #: clearing disc diameter
RING_INNER_MM = 26.0        #: inner diameter of the clearing's black ring (the ring is 4 mm wide)
FOREST_MM = 28.0            #: forest square side
ARROW_MM = (18.0, 12.0)     #: arrow length (along the arrow) and width
ARROW_RIM_MM = 1.3          #: width of the black outline of the arrow's hollow tail
PAWN_MM = 18.0              #: pawn disc diameter
PAWN_RIM_MM = 1.5           #: width of the pawn's black rim
CUT_GAP_MM = 3.0            #: white space between pieces on a sheet

BLACK = (30, 30, 30)
WHITE = (255, 255, 255)
#: the middle of a clearing: light grey, not paper white, so a camera that clips white paper
#: still sees a pawn come or go there (a change between two clipped whites is invisible)
CLEARING_GREY = (200, 200, 200)
FOREST_DARK = (40, 88, 34)
FOREST_LIGHT = (70, 140, 62)


@dataclass(frozen=True)
class PawnColour:
    """One patrol colour of the kit: ``name`` (the record's seat colour), ``bgr`` (Okabe-Ito),
    ``letter`` (the second cue) and ``ink`` (the letter's colour, for contrast)."""

    name: str
    bgr: tuple[int, int, int]
    letter: str
    ink: tuple[int, int, int]


#: The six patrol colours, in seat order of the engine's simulator (``simulate.COLOURS``).
PAWN_COLOURS: tuple[PawnColour, ...] = (
    PawnColour("red", (0, 94, 213), "R", WHITE),            # Okabe-Ito vermillion #D55E00
    PawnColour("blue", (178, 114, 0), "B", WHITE),          # blue #0072B2
    PawnColour("green", (115, 158, 0), "G", WHITE),         # bluish green #009E73
    PawnColour("yellow", (66, 228, 240), "Y", BLACK),       # yellow #F0E442
    PawnColour("purple", (167, 121, 204), "P", BLACK),      # reddish purple #CC79A7
    PawnColour("orange", (0, 159, 230), "O", BLACK),        # orange #E69F00
)
PAWN_BY_NAME = {p.name: p for p in PAWN_COLOURS}
COLOUR_NAMES = tuple(p.name for p in PAWN_COLOURS)


def _px(v: float, ppm: float) -> int:
    return int(round(v * ppm))


def _canvas(w_mm: float, h_mm: float, ppm: float) -> np.ndarray:
    return np.zeros((_px(h_mm, ppm), _px(w_mm, ppm), 4), np.uint8)


def clearing_image(ppm: float) -> np.ndarray:
    """The clearing disc, ``CLEARING_MM`` across: a black ring round a light grey middle.

    Parameters
    ----------
    ppm : float
        Pixels per millimetre (> 0).

    Returns
    -------
    (h, w, 4) uint8 BGRA
        ``h = w = round(CLEARING_MM * ppm)``; alpha 255 inside the disc, 0 outside.
    """
    img = _canvas(CLEARING_MM, CLEARING_MM, ppm)
    n = img.shape[0]
    c = (int(round((n / 2 - 0.5) * 16)),) * 2
    cv2.circle(img, c, int(round(n / 2 * 16)), (*BLACK, 255), -1, cv2.LINE_AA, 4)
    cv2.circle(img, c, int(round(RING_INNER_MM / 2 * ppm * 16)), (*CLEARING_GREY, 255), -1, cv2.LINE_AA, 4)
    return img


def forest_image(ppm: float) -> np.ndarray:
    """The forest square, ``FOREST_MM`` a side: dark green, nine small tree marks, a black rim.

    Parameters
    ----------
    ppm : float
        Pixels per millimetre (> 0).

    Returns
    -------
    (h, w, 4) uint8 BGRA
        Opaque; ``h = w = round(FOREST_MM * ppm)``.
    """
    img = _canvas(FOREST_MM, FOREST_MM, ppm)
    img[...] = (*FOREST_DARK, 255)
    n = img.shape[0]
    rim = max(1, _px(1.0, ppm))
    cv2.rectangle(img, (0, 0), (n - 1, n - 1), (*BLACK, 255), rim)
    for i in range(3):
        for j in range(3):
            cx, cy = (j + 0.5) * FOREST_MM / 3, (i + 0.5) * FOREST_MM / 3
            tri = np.array([[cx, cy - 3.6], [cx + 3.0, cy + 2.4], [cx - 3.0, cy + 2.4]]) * ppm * 16
            cv2.fillPoly(img, [np.round(tri).astype(np.int32)], (*FOREST_LIGHT, 255), cv2.LINE_AA, 4)
            trunk = np.array([[cx - 0.6, cy + 2.4], [cx + 0.6, cy + 2.4], [cx + 0.6, cy + 3.8], [cx - 0.6, cy + 3.8]])
            cv2.fillPoly(img, [np.round(trunk * ppm * 16).astype(np.int32)], (*FOREST_LIGHT, 255), cv2.LINE_AA, 4)
    return img


def arrow_outline_mm(length: float = ARROW_MM[0], width: float = ARROW_MM[1]) -> np.ndarray:
    """The arrow pentagon ``(5, 2) float64`` in mm about its centre, pointing to +x: a square-ended
    tail ``x in [-length/2, 0]`` and a triangular head ``x in [0, length/2]``.

    Parameters
    ----------
    length, width : float
        The piece's size, mm (default :data:`ARROW_MM`).

    Returns
    -------
    (5, 2) float64
        Corners ``(x, y)`` in mm, y down, in order round the outline.
    """
    h, w = length / 2, width / 2
    return np.array([[-h, -w], [0.0, -w], [h, 0.0], [0.0, w], [-h, w]])


def arrow_image(ppm: float) -> np.ndarray:
    """The arrow piece, ``ARROW_MM`` (length x width), pointing to +x (east): a solid black head
    (``x >= 0``) and a tail outlined in black round a white middle (:data:`ARROW_RIM_MM` wide).

    Parameters
    ----------
    ppm : float
        Pixels per millimetre (> 0).

    Returns
    -------
    (h, w, 4) uint8 BGRA
        ``w = round(length * ppm)``, ``h = round(width * ppm)``; alpha 0 outside the pentagon.
    """
    length, width = ARROW_MM
    img = _canvas(length, width, ppm)
    origin = np.array([length / 2, width / 2])
    pts = (arrow_outline_mm() + origin) * ppm - 0.5
    cv2.fillPoly(img, [np.round(pts * 16).astype(np.int32)], (*BLACK, 255), cv2.LINE_AA, 4)
    rim = ARROW_RIM_MM
    hole = np.array([[-length / 2 + rim, -width / 2 + rim], [0.0, -width / 2 + rim], [0.0, width / 2 - rim],
                     [-length / 2 + rim, width / 2 - rim]])
    pts = (hole + origin) * ppm - 0.5
    cv2.fillPoly(img, [np.round(pts * 16).astype(np.int32)], (*WHITE, 255), cv2.LINE_AA, 4)
    return img


def pawn_image(colour: str, ppm: float) -> np.ndarray:
    """A patrol pawn disc of a kit colour with its letter.

    Parameters
    ----------
    colour : str
        One of :data:`COLOUR_NAMES`.
    ppm : float

    Returns
    -------
    (h, w, 4) uint8 BGRA
        ``h = w = round(PAWN_MM * ppm)``.

    Raises
    ------
    KeyError
        For a colour the kit does not have.
    """
    if colour not in PAWN_BY_NAME:
        raise KeyError(f"no pawn colour {colour!r} in the kit ({', '.join(COLOUR_NAMES)})")
    spec = PAWN_BY_NAME[colour]
    img = _canvas(PAWN_MM, PAWN_MM, ppm)
    n = img.shape[0]
    c = (int(round((n / 2 - 0.5) * 16)),) * 2
    cv2.circle(img, c, int(round(n / 2 * 16)), (*BLACK, 255), -1, cv2.LINE_AA, 4)
    cv2.circle(img, c, int(round((n / 2 - PAWN_RIM_MM * ppm) * 16)), (*spec.bgr, 255), -1, cv2.LINE_AA, 4)
    scale = 5.0 * ppm / 22.0                       # a 5 mm capital (Hershey simplex caps are ~22 units)
    thick = max(1, _px(0.9, ppm))
    (tw, th), _ = cv2.getTextSize(spec.letter, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
    cv2.putText(img, spec.letter, (int(round(n / 2 - tw / 2)), int(round(n / 2 + th / 2))), cv2.FONT_HERSHEY_SIMPLEX,
                scale, (*spec.ink, 255), thick, cv2.LINE_AA)
    return img


def piece_image(label: str, ppm: float) -> np.ndarray:
    """The picture of a kit label: ``"clearing"``, ``"forest"``, ``"arrow"`` or ``"pawn:<colour>"``.

    Parameters
    ----------
    label : str
        A kit label (``<colour>`` one of :data:`COLOUR_NAMES`).
    ppm : float
        Pixels per millimetre (> 0).

    Returns
    -------
    (h, w, 4) uint8 BGRA
        The piece at its printed size (:func:`piece_size_mm` times ``ppm``, rounded); alpha 0
        outside the piece.

    Raises
    ------
    KeyError
        For an unknown label.
    """
    if label == "clearing":
        return clearing_image(ppm)
    if label == "forest":
        return forest_image(ppm)
    if label == "arrow":
        return arrow_image(ppm)
    if label.startswith("pawn:"):
        return pawn_image(label.split(":", 1)[1], ppm)
    raise KeyError(f"no kit piece {label!r}")


def piece_size_mm(label: str) -> tuple[float, float]:
    """Printed ``(width, height)`` in mm of a kit label (see :func:`piece_image`).

    Parameters
    ----------
    label : str
        ``"clearing"``, ``"forest"``, ``"arrow"`` (length along +x, width) or ``"pawn:<colour>"``.

    Returns
    -------
    (float, float)
        Width and height, mm.

    Raises
    ------
    KeyError
        For an unknown label.
    """
    sizes = {"clearing": (CLEARING_MM, CLEARING_MM), "forest": (FOREST_MM, FOREST_MM), "arrow": ARROW_MM}
    if label in sizes:
        return sizes[label]
    if label.startswith("pawn:") and label.split(":", 1)[1] in PAWN_BY_NAME:
        return (PAWN_MM, PAWN_MM)
    raise KeyError(f"no kit piece {label!r}")


# -- sheets ---------------------------------------------------------------------------------------

#: How many of each piece the kit prints (a radius-4 board has 61 cells and 156 edges).
KIT_COUNTS = {"clearing": 64, "forest": 40, "arrow": 120}
PAWNS_PER_COLOUR = 8


def _paste(page: np.ndarray, piece: np.ndarray, x_mm: float, y_mm: float, ppm: float) -> None:
    """Alpha-blend a BGRA piece onto a BGR page with its top-left corner at ``(x_mm, y_mm)``."""
    x, y = _px(x_mm, ppm), _px(y_mm, ppm)
    h, w = piece.shape[:2]
    roi = page[y:y + h, x:x + w]
    a = piece[:roi.shape[0], :roi.shape[1], 3:4].astype(np.float32) / 255.0
    roi[:] = np.round(roi * (1 - a) + piece[:roi.shape[0], :roi.shape[1], :3] * a).astype(np.uint8)


def _cut_line(page: np.ndarray, label: str, x_mm: float, y_mm: float, ppm: float) -> None:
    """A thin grey cut line round a piece placed at ``(x_mm, y_mm)`` (its top-left corner)."""
    w, h = piece_size_mm(label)
    grey, t = (170, 170, 170), max(1, _px(0.15, ppm))
    if label in ("clearing",) or label.startswith("pawn:"):
        c = (_px(x_mm + w / 2, ppm), _px(y_mm + h / 2, ppm))
        cv2.circle(page, c, _px(w / 2 + 0.4, ppm), grey, t, cv2.LINE_AA)
    elif label == "arrow":
        pts = (arrow_outline_mm(w + 0.8, h + 0.8) + (x_mm + w / 2, y_mm + h / 2)) * ppm
        cv2.polylines(page, [np.round(pts).astype(np.int32)], True, grey, t, cv2.LINE_AA)
    else:
        cv2.rectangle(page, (_px(x_mm - 0.4, ppm), _px(y_mm - 0.4, ppm)),
                      (_px(x_mm + w + 0.4, ppm), _px(y_mm + h + 0.4, ppm)), grey, t, cv2.LINE_AA)


def _piece_pages(labels: list[str], title: str, paper: str, ppm: float) -> list[np.ndarray]:
    """Lay ``labels`` out row by row on as many pages as needed (each with title and ruler)."""
    pw, ph = PAPER_MM[paper]
    x0, y0 = PAGE_MARGIN_MM + 2.0, PAGE_MARGIN_MM + 8.0
    x1, y1 = pw - PAGE_MARGIN_MM, ph - PAGE_MARGIN_MM - 22.0          # keep the ruler strip free
    pages: list[np.ndarray] = []
    images: dict[str, np.ndarray] = {}
    page, x, y, row_h = None, x0, y0, 0.0
    for label in labels:
        w, h = piece_size_mm(label)
        if page is not None and x + w > x1:
            x, y, row_h = x0, y + row_h + CUT_GAP_MM, 0.0
        if page is None or y + h > y1:
            page = np.full((_px(ph, ppm), _px(pw, ppm), 3), 255, np.uint8)
            pages.append(page)
            x, y, row_h = x0, y0, 0.0
            _text(page, f"Scout Pennant kit: {title} (sheet {len(pages)}) - cut along the grey lines",
                  (PAGE_MARGIN_MM, PAGE_MARGIN_MM), ppm, 3.5)
            draw_ruler(page, (PAGE_MARGIN_MM, ph - PAGE_MARGIN_MM - 8.0), ppm)
        if label not in images:
            images[label] = piece_image(label, ppm)
        _paste(page, images[label], x, y, ppm)
        _cut_line(page, label, x, y, ppm)
        x += w + CUT_GAP_MM
        row_h = max(row_h, h)
    return pages


def kit_sheets(paper: str = "a4", ppm: float = 200.0 / MM_PER_INCH, with_board: bool = True) -> list[np.ndarray]:
    """Every page of the kit at true size: the board (the mat with its ArUco markers, tiled),
    then the clearings, forests, arrows and the pawns (``PAWNS_PER_COLOUR`` of each colour).

    Parameters
    ----------
    paper : str
        ``"a4"`` or ``"letter"``.
    ppm : float
        Pixels per millimetre (``dpi / 25.4``).
    with_board : bool
        Include the mat's tiles first.

    Returns
    -------
    list of (H, W, 3) uint8 BGR
        Each the full paper size at ``ppm``.

    Raises
    ------
    KeyError
        For an unknown paper name.
    """
    if paper not in PAPER_MM:
        raise KeyError(f"unknown paper {paper!r} (a4 or letter)")
    pages: list[np.ndarray] = []
    if with_board:
        pages += [p.image for p in tile_pages(draw_mat(mat_layout(GAME), ppm), ppm, paper)]
    pages += _piece_pages(["clearing"] * KIT_COUNTS["clearing"], "clearings", paper, ppm)
    pages += _piece_pages(["forest"] * KIT_COUNTS["forest"], "forests", paper, ppm)
    pages += _piece_pages(["arrow"] * KIT_COUNTS["arrow"], "arrows", paper, ppm)
    pawns = [f"pawn:{c}" for c in COLOUR_NAMES for _ in range(PAWNS_PER_COLOUR)]
    pages += _piece_pages(pawns, "patrol pawns R B G Y P O", paper, ppm)
    return pages


def print_kit(prefix: str | Path, paper: str = "a4", dpi: float = 200.0) -> list[Path]:
    """Write the kit: ``PREFIX.pdf`` (every sheet at true size, board first) and one PNG per
    sheet, ``PREFIX-01.png`` ... (each with its dpi set, for a print shop).

    Parameters
    ----------
    prefix : str or Path
        File prefix; a ``.pdf``/``.png`` suffix is dropped; missing folders are made.
    paper : str
        ``"a4"`` or ``"letter"``.
    dpi : float
        Raster resolution (> 0).

    Returns
    -------
    list of Path
        The PDF first, then the PNGs.

    Raises
    ------
    OSError
        When a file cannot be written.
    KeyError
        For an unknown paper name.
    ValueError
        For a non-positive dpi.
    """
    if not dpi > 0:
        raise ValueError(f"dpi must be positive, got {dpi}")
    prefix = Path(prefix)
    if prefix.suffix.lower() in (".pdf", ".png"):
        prefix = prefix.with_suffix("")
    prefix.parent.mkdir(parents=True, exist_ok=True)
    pages = kit_sheets(paper, dpi / MM_PER_INCH)
    pdf = prefix.with_name(prefix.name + ".pdf")
    write_pdf(pdf, pages, dpi)
    out = [pdf]
    for i, page in enumerate(pages, 1):
        png = prefix.with_name(f"{prefix.name}-{i:02d}.png")
        write_png(png, page, dpi)
        out.append(png)
    return out


def print_kit_command(args: argparse.Namespace) -> int:
    """Run ``assistant print kit --game scout-pennant``.

    Parameters
    ----------
    args : argparse.Namespace
        ``output`` (file prefix or ``None``: ``kit-<game>``), ``paper`` (``"a4"``...), ``dpi``
        (float), ``game``.

    Returns
    -------
    int
        The exit status: 0 written, 2 a file could not be written (the message on stderr).
    """
    prefix = args.output or f"kit-{args.game}"
    try:
        files = print_kit(prefix, args.paper, args.dpi)
    except (OSError, ValueError) as exc:
        print(f"cannot write {prefix}: {getattr(exc, 'strerror', None) or exc}", file=sys.stderr)
        return 2
    print(f"wrote {files[0]} ({len(files) - 1} sheets, also as PNG): the {args.game} kit - board, "
          f"{KIT_COUNTS['clearing']} clearings, {KIT_COUNTS['forest']} forests, {KIT_COUNTS['arrow']} arrows, "
          f"{PAWNS_PER_COLOUR} pawns in each of {', '.join(COLOUR_NAMES)}; print at 100 % (actual size) "
          "and check that the ruler measures 100 mm")
    return 0


def arrow_angle(edge_angle_deg: float, forward: bool) -> float:
    """The angle at which to lay the arrow piece on an edge.

    Parameters
    ----------
    edge_angle_deg : float
        The edge's ``a -> b`` direction, degrees clockwise from +x seen from above.
    forward : bool
        The arrow points ``a -> b`` (else ``b -> a``).

    Returns
    -------
    float
        Degrees clockwise from +x, in ``[0, 360)`` when turned back (else ``edge_angle_deg``).
    """
    return edge_angle_deg if forward else (edge_angle_deg + 180.0) % 360.0


def hex_inradius_mm() -> float:
    """The mat's hex inradius (centre to the midpoint of a side), mm: ``sqrt(3) / 2 * pitch``."""
    return math.sqrt(3.0) / 2.0 * mat_layout(GAME).cell_pitch_mm
