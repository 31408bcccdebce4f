"""The ChArUco calibration target: its specification, and a printable page at true size.

The default board, :data:`DEFAULT_BOARD`, is **5 columns x 7 rows of 30 mm squares with 22 mm
ArUco markers from ``DICT_5X5_100``** (150 x 210 mm, 24 inner corners, 17 markers):

- portrait, it fits A4 (210 x 297 mm) and US Letter (215.9 x 279.4 mm) with at least 30 mm at
  each side and room below it for the 100 mm check ruler;
- an odd number of rows makes OpenCV's pre-4.6 "legacy" pattern and the current one identical,
  so a board printed by any OpenCV version is read the same way (OpenCV issue #23152);
- 5x5 markers are a different dictionary from the small 4x4 markers that mark a game mat, so
  neither detector ever mistakes one target for the other; a marker bit is 3.1 mm, about 5 px at
  a typical webcam distance of 50-60 cm, well above the ~2.3 px a bit needs.

Board coordinates are millimetres ``(x_mm, y_mm)`` from the board's top-left outer corner, x right,
y down, as :func:`cv2.aruco.CharucoBoard.getChessboardCorners` gives them (the coordinate note
of :mod:`assistant.vision`). The top-left square is black; markers sit in the white squares,
numbered row by row, as ``cv2.aruco.CharucoBoard.generateImage`` draws them.

The printed page is rendered here rather than by ``generateImage``, because ``generateImage``
truncates every square to a whole number of pixels (354 px instead of 354.33 px at 300 dpi, so
a 150 mm board comes out 0.14 mm short); here every edge is placed at its own rounded position,
within half a pixel of true size, and a 100 mm ruler lets the user check the print.

>>> DEFAULT_BOARD.size_mm
(150.0, 210.0)
>>> DEFAULT_BOARD.corner_count, DEFAULT_BOARD.marker_count
(24, 17)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

MM_PER_INCH = 25.4

#: Paper sizes, portrait ``(width_mm, height_mm)``.
PAPER_MM: dict[str, tuple[float, float]] = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}

#: Length of the check ruler printed under the board, millimetres.
RULER_MM = 100.0

_MIN_MARGIN_MM = 10.0  # printers cannot print the outer 3-6 mm of a sheet
_GAP_MM = 8.0          # board to ruler
_TICK_MM = (2.0, 3.5, 5.0)  # 1 mm, 5 mm and 10 mm ticks
_LINE_MM = 0.25        # stroke of the ruler
_TEXT_MM = 3.0         # text height (about 8.5 pt)


@dataclass(frozen=True)
class CharucoSpec:
    """A ChArUco board: squares across and down, their size and the markers' size and dictionary.

    Parameters
    ----------
    squares_x, squares_y : int
        Squares across (columns) and down (rows), at least 3 each.
    square_mm, marker_mm : float
        Side of a chessboard square and of the ArUco marker inside a white square, millimetres;
        ``0 < marker_mm < square_mm``.
    dictionary : str
        Name of an OpenCV predefined dictionary, e.g. ``"DICT_5X5_100"``.

    Raises
    ------
    ValueError
        For sizes out of range, an unknown dictionary or one with fewer markers than the board
        needs, with one sentence naming the field.

    >>> CharucoSpec(5, 7, 30.0, 22.0).describe()
    'ChArUco 5 x 7 squares of 30 mm, markers 22 mm, DICT_5X5_100'
    >>> CharucoSpec(5, 7, 30.0, 31.0)
    Traceback (most recent call last):
    ...
    ValueError: marker_mm must be between 0 and square_mm (30.0), got 31.0
    """

    squares_x: int = 5
    squares_y: int = 7
    square_mm: float = 30.0
    marker_mm: float = 22.0
    dictionary: str = "DICT_5X5_100"

    def __post_init__(self) -> None:
        if self.squares_x < 3 or self.squares_y < 3:
            raise ValueError(f"a board needs at least 3 x 3 squares, got {self.squares_x} x {self.squares_y}")
        if not self.square_mm > 0:
            raise ValueError(f"square_mm must be positive, got {self.square_mm}")
        if not 0 < self.marker_mm < self.square_mm:
            raise ValueError(f"marker_mm must be between 0 and square_mm ({self.square_mm}), got {self.marker_mm}")
        if not self.dictionary.startswith("DICT_") or not hasattr(cv2.aruco, self.dictionary):
            raise ValueError(f"unknown ArUco dictionary {self.dictionary!r}")
        size = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.dictionary)).bytesList.shape[0]
        if size < self.marker_count:
            raise ValueError(f"{self.dictionary} has {size} markers but the board needs {self.marker_count}")

    @property
    def size_mm(self) -> tuple[float, float]:
        """Outer size of the board ``(width_mm, height_mm)``."""
        return (self.squares_x * self.square_mm, self.squares_y * self.square_mm)

    @property
    def corner_count(self) -> int:
        """Number of inner chessboard corners (the ChArUco corners), ``(sx - 1) * (sy - 1)``."""
        return (self.squares_x - 1) * (self.squares_y - 1)

    @property
    def marker_count(self) -> int:
        """Number of ArUco markers: one per white square."""
        return self.squares_x * self.squares_y // 2

    def describe(self) -> str:
        """One line naming the board, printed on the page and saved with a calibration."""
        return (f"ChArUco {self.squares_x} x {self.squares_y} squares of {self.square_mm:g} mm, "
                f"markers {self.marker_mm:g} mm, {self.dictionary}")

    def board(self) -> cv2.aruco.CharucoBoard:
        """A new ``cv2.aruco.CharucoBoard`` in millimetres (non-legacy pattern)."""
        dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.dictionary))
        return cv2.aruco.CharucoBoard((self.squares_x, self.squares_y), float(self.square_mm),
                                      float(self.marker_mm), dictionary)

    def corner_points_mm(self) -> np.ndarray:
        """The inner corners in board millimetres, ``(corner_count, 3) float32``, row by row, z = 0.

        Row ``i`` is ChArUco corner id ``i``, as ``CharucoBoard.getChessboardCorners`` returns.
        """
        return np.asarray(self.board().getChessboardCorners(), dtype=np.float32).reshape(-1, 3)


#: The board ``assistant print charuco`` prints and ``assistant calibrate camera`` looks for.
DEFAULT_BOARD = CharucoSpec()


def render_board(spec: CharucoSpec = DEFAULT_BOARD, px_per_mm: float = 300 / MM_PER_INCH) -> np.ndarray:
    """Raster of the board alone, each edge at its true position rounded to the nearest pixel.

    Parameters
    ----------
    spec : CharucoSpec
        The board.
    px_per_mm : float
        Scale, pixels per millimetre (``dpi / 25.4``); 300 dpi is 11.81 px/mm.

    Returns
    -------
    (round(h_mm * px_per_mm), round(w_mm * px_per_mm)) uint8
        0 black, 255 white. Board point ``(x_mm, y_mm)`` is pixel ``(x, y) = (x_mm, y_mm) *
        px_per_mm - 0.5`` (pixel centres at integer coordinates); the image edge is the board's
        outer edge (no margin: put the board on white paper).

    Raises
    ------
    ValueError
        When a marker would be smaller than its bits (``px_per_mm`` too low for the dictionary).

    Notes
    -----
    Same layout as ``cv2.aruco.CharucoBoard.generateImage(..., marginSize=0, borderBits=1)``
    (identical pixels when a square is a whole number of pixels), but without its truncation of
    the square size; markers are drawn by ``cv2.aruco.generateImageMarker``.

    >>> img = render_board(DEFAULT_BOARD, 2.0)
    >>> img.shape, img.dtype.name, int(img[0, 0]), int(img[0, 60])
    ((420, 300), 'uint8', 0, 255)
    """
    board = spec.board()
    w_mm, h_mm = spec.size_mm

    def px(mm: float) -> int:
        return int(round(mm * px_per_mm))

    img = np.full((px(h_mm), px(w_mm)), 255, np.uint8)
    for row in range(spec.squares_y):
        for col in range(spec.squares_x):
            if (row + col) % 2 == 0:
                x0, x1 = px(col * spec.square_mm), px((col + 1) * spec.square_mm)
                y0, y1 = px(row * spec.square_mm), px((row + 1) * spec.square_mm)
                img[y0:y1, x0:x1] = 0
    dictionary = board.getDictionary()
    bits = dictionary.markerSize + 2
    for marker_id, corners in zip(board.getIds().ravel(), board.getObjPoints()):
        (x0_mm, y0_mm), (x1_mm, y1_mm) = corners[0][:2], corners[2][:2]
        x0, y0, x1, y1 = px(x0_mm), px(y0_mm), px(x1_mm), px(y1_mm)
        side = min(x1 - x0, y1 - y0)
        if side < bits:
            raise ValueError(f"at {px_per_mm:.2f} px/mm a marker is {side} px, fewer than its {bits} bits")
        img[y0:y0 + side, x0:x0 + side] = cv2.aruco.generateImageMarker(dictionary, int(marker_id), side,
                                                                         borderBits=1)
    return img


@dataclass(frozen=True, eq=False)
class PrintedPage:
    """A page to print: the raster and where its parts are.

    Attributes
    ----------
    image : (H, W) uint8
        The page, 0 black / 255 white, ``W = round(paper_w_mm * dpi / 25.4)``.
    dpi : float
        Dots per inch the raster is drawn at.
    paper : str
        ``"a4"`` or ``"letter"``.
    board_origin_px : (x, y) int
        Pixel of the board's top-left outer corner on the page (left/top edge of its first pixel).
    ruler_px : ((x0, y), (x100, y))
        Pixel centres of the ruler's 0 mm and 100 mm ticks on its baseline.
    """

    image: np.ndarray
    dpi: float
    paper: str
    board_origin_px: tuple[int, int]
    ruler_px: tuple[tuple[float, float], tuple[float, float]]


def render_page(spec: CharucoSpec = DEFAULT_BOARD, paper: str = "a4", dpi: float = 300) -> PrintedPage:
    """The board on a portrait A4 or Letter page with a 100 mm check ruler and instructions.

    Parameters
    ----------
    spec : CharucoSpec
        The board.
    paper : {"a4", "letter"}
        Sheet size, see :data:`PAPER_MM`.
    dpi : float
        Raster resolution, dots per inch (>= 100; 300 is the usual printer resolution).

    Returns
    -------
    PrintedPage
        The page raster and the positions of the board and the ruler. The board is centred
        horizontally; under it a 100 mm ruler with 1 mm, 5 mm and 1 cm ticks, labelled in cm,
        and the lines "This bar must measure 100 mm ..." and the board's description.

    Raises
    ------
    ValueError
        For an unknown paper, ``dpi < 100``, or a board that does not fit the sheet with 10 mm
        margins and the ruler.
    """
    if paper not in PAPER_MM:
        raise ValueError(f"unknown paper {paper!r}; choose one of {', '.join(PAPER_MM)}")
    if not dpi >= 100:
        raise ValueError(f"dpi must be at least 100, got {dpi}")
    ppm = dpi / MM_PER_INCH
    page_w_mm, page_h_mm = PAPER_MM[paper]
    board_w_mm, board_h_mm = spec.size_mm
    text_block_mm = _TICK_MM[2] + 1.5 + 3 * _TEXT_MM * 1.6  # ticks, labels, two text lines
    needed_h = board_h_mm + _GAP_MM + text_block_mm
    if board_w_mm > page_w_mm - 2 * _MIN_MARGIN_MM or needed_h > page_h_mm - 2 * _MIN_MARGIN_MM:
        raise ValueError(f"a {board_w_mm:g} x {board_h_mm:g} mm board does not fit on {paper} paper "
                         f"with its ruler; use smaller squares or fewer of them")

    def px(mm: float) -> int:
        return int(round(mm * ppm))

    page = Image.new("L", (px(page_w_mm), px(page_h_mm)), 255)
    left_mm = (page_w_mm - board_w_mm) / 2
    top_mm = max(_MIN_MARGIN_MM, (page_h_mm - needed_h) / 2)
    origin = (px(left_mm), px(top_mm))
    page.paste(Image.fromarray(render_board(spec, ppm)), origin)

    draw = ImageDraw.Draw(page)
    draw.fontmode = "1"  # no anti-aliasing: the page stays pure black and white
    font = _font(px(_TEXT_MM))
    stroke = max(1, px(_LINE_MM))
    base_mm = top_mm + board_h_mm + _GAP_MM + _TICK_MM[2]
    x0_mm = (page_w_mm - RULER_MM) / 2
    ruler = ((x0_mm * ppm - 0.5, base_mm * ppm - 0.5), ((x0_mm + RULER_MM) * ppm - 0.5, base_mm * ppm - 0.5))
    half = (stroke - 1) / 2
    draw.rectangle([round(ruler[0][0] - half), round(ruler[0][1] - half),
                    round(ruler[1][0] - half) + stroke - 1, round(ruler[0][1] - half) + stroke - 1], fill=0)
    for mm in range(int(RULER_MM) + 1):
        length = _TICK_MM[2] if mm % 10 == 0 else _TICK_MM[1] if mm % 5 == 0 else _TICK_MM[0]
        xc = (x0_mm + mm) * ppm - 0.5
        draw.rectangle([round(xc - half), px(base_mm - length), round(xc - half) + stroke - 1,
                        round(ruler[0][1] - half)], fill=0)
        if mm % 10 == 0:
            label = f"{mm // 10}" if mm < RULER_MM else f"{mm // 10} cm"
            draw.text((xc - px(0.8), px(base_mm + 1.2)), label, fill=0, font=font)
    lines = ["This bar must measure 100 mm, and each square "
             f"{spec.square_mm:g} mm. Print at 100 % / actual size (not \"fit to page\").",
             f"{spec.describe()} (assistant print charuco). Keep it flat: glue it to card."]
    y_mm = base_mm + 1.2 + _TEXT_MM * 1.8
    for line in lines:
        width = draw.textlength(line, font=font)
        draw.text(((page.width - width) / 2, px(y_mm)), line, fill=0, font=font)
        y_mm += _TEXT_MM * 1.6
    return PrintedPage(np.asarray(page, dtype=np.uint8).copy(), float(dpi), paper, origin, ruler)


def _font(height_px: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    """Pillow's bundled font at about ``height_px`` pixels (its small bitmap font without FreeType)."""
    try:
        return ImageFont.load_default(size=max(8, int(height_px * 1.25)))
    except (ImportError, OSError, TypeError):  # Pillow built without FreeType
        return ImageFont.load_default()


def write_page(page: PrintedPage, prefix: str | Path) -> tuple[Path, Path]:
    """Write ``<prefix>.png`` and ``<prefix>.pdf`` at true physical size.

    Parameters
    ----------
    page : PrintedPage
        From :func:`render_page`.
    prefix : str or Path
        Output path without extension; a trailing ``.png`` or ``.pdf`` is dropped. Missing parent
        folders are created.

    Returns
    -------
    (png_path, pdf_path) : tuple of Path

    Notes
    -----
    The PNG carries the resolution in its ``pHYs`` chunk (``dpi=``), so viewers and print dialogs
    know its size; the PDF is one page of ``W / dpi`` x ``H / dpi`` inches (Pillow's
    ``Image.save(path, "PDF", resolution=dpi)``) holding the bilevel raster, CCITT G4 compressed
    (lossless) when Pillow has libtiff. Raises ``OSError`` when a file cannot be written.
    """
    prefix = Path(prefix)
    if prefix.suffix.lower() in (".png", ".pdf"):
        prefix = prefix.with_suffix("")
    prefix.parent.mkdir(parents=True, exist_ok=True)
    png, pdf = prefix.with_name(prefix.name + ".png"), prefix.with_name(prefix.name + ".pdf")
    image = Image.fromarray(page.image).convert("1", dither=Image.Dither.NONE)
    image.save(png, dpi=(page.dpi, page.dpi))
    image.save(pdf, "PDF", resolution=page.dpi, title=f"ChArUco calibration board ({page.paper})")
    return png, pdf


def page_size_mm(page: PrintedPage) -> tuple[float, float]:
    """Physical size ``(width_mm, height_mm)`` the page raster prints at, from its pixels and dpi."""
    h, w = page.image.shape
    return (w * MM_PER_INCH / page.dpi, h * MM_PER_INCH / page.dpi)

