"""Printable mats at true physical size: a raster of the whole mat, and A4/Letter tiles.

:func:`draw_mat` turns a :class:`~.mats.MatLayout` into a ``(H, W, 3) uint8`` BGR raster at a
given resolution (the renderer uses the same function for its table scenes).
:func:`tile_pages` cuts it into printer sheets with alignment crosses and a cut line, and
:func:`write_pdf` saves pages at their true size (Pillow writes the dpi into the PDF, so a
printer at "100 % / actual size" reproduces millimetres exactly). Every sheet carries a 100 mm
ruler to check the print.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

from .mats import ARUCO_DICTIONARY, MatLayout

PAPER_MM = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
PAGE_MARGIN_MM = 10.0
OVERLAP_MM = 10.0
MM_PER_INCH = 25.4
INK = (40, 40, 40)
LINE = (150, 150, 150)
#: Okabe-Ito orange, the mark of the card place
CARD_COLOUR = (0, 159, 230)


def _px(v: float, ppm: float) -> int:
    return int(round(v * ppm))


def _text(img: np.ndarray, text: str, org_mm: tuple[float, float], ppm: float, height_mm: float = 4.0,
          colour=INK) -> None:
    scale = height_mm * ppm / 22.0
    cv2.putText(img, text, (_px(org_mm[0], ppm), _px(org_mm[1], ppm)), cv2.FONT_HERSHEY_SIMPLEX, scale, colour,
                max(1, int(round(scale * 1.6))), cv2.LINE_AA)


def marker_image(marker_id: int, side_px: int) -> np.ndarray:
    """An ArUco marker of the mats' dictionary, ``(side_px, side_px) uint8`` (0 black, 255 white),
    drawn by ``cv2.aruco.generateImageMarker`` with a one-bit black border."""
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, ARUCO_DICTIONARY))
    return cv2.aruco.generateImageMarker(dictionary, marker_id, side_px, borderBits=1)


def draw_ruler(img: np.ndarray, origin_mm: tuple[float, float], ppm: float, length_mm: float = 100.0) -> None:
    """A ``length_mm`` scale with cm and mm ticks and the words to check the print, in place."""
    x0, y0 = origin_mm
    cv2.rectangle(img, (_px(x0, ppm), _px(y0, ppm)), (_px(x0 + length_mm, ppm), _px(y0 + 1.0, ppm)), INK, -1)
    for mm in range(int(length_mm) + 1):
        tick = 5.0 if mm % 10 == 0 else (3.5 if mm % 5 == 0 else 2.0)
        x = _px(x0 + mm, ppm)
        cv2.line(img, (x, _px(y0, ppm)), (x, _px(y0 + 1.0 + tick, ppm)), INK, max(1, _px(0.2, ppm)))
        if mm % 10 == 0:
            _text(img, str(mm // 10), (x0 + mm - 1.0, y0 + 10.5), ppm, 3.0)
    _text(img, f"this bar must measure {length_mm:.0f} mm: print at 100 % (actual size)", (x0, y0 - 2.5), ppm, 3.0)


def draw_mat(layout: MatLayout, px_per_mm: float, labels: bool = True) -> np.ndarray:
    """The mat as seen from above.

    Parameters
    ----------
    layout : MatLayout
    px_per_mm : float
        Resolution; ``dpi / 25.4`` for printing.
    labels : bool
        Print the cell keys and the title (small grey text).

    Returns
    -------
    (H, W, 3) uint8 BGR
        ``H = round(height_mm * px_per_mm)``, ``W`` likewise; white paper, black markers
        (each with its quiet zone left white), grey cell outlines, the colour reference
        patches (:attr:`~.mats.MatLayout.references`) in their inks.
    """
    ppm = px_per_mm
    w_mm, h_mm = layout.size_mm
    img = np.full((_px(h_mm, ppm), _px(w_mm, ppm), 3), 255, np.uint8)
    for m in layout.markers:
        (x0, y0), (x1, _), (_, y1), _ = m.corners_mm
        side = _px(x1, ppm) - _px(x0, ppm)
        img[_px(y0, ppm):_px(y0, ppm) + side, _px(x0, ppm):_px(x0, ppm) + side] = marker_image(m.id, side)[..., None]
    thick = max(1, _px(0.6, ppm))
    for cell in layout.cells:
        pts = np.round(np.array(cell.polygon_mm) * ppm).astype(np.int32)
        cv2.polylines(img, [pts], True, LINE, thick, cv2.LINE_AA)
        if labels:
            key = ",".join(str(k) for k in cell.key)
            cx, cy = cell.center_mm
            _text(img, key, (cx - 1.2 * len(key), cy + layout.cell_pitch_mm * 0.42 - 1.0), ppm, 2.5, LINE)
    for ref in layout.references:
        x0, y0, x1, y1 = ref.rect_mm
        cv2.rectangle(img, (_px(x0, ppm), _px(y0, ppm)), (_px(x1, ppm) - 1, _px(y1, ppm) - 1), ref.bgr, -1)
    if layout.references and labels:
        x0, y0 = layout.references[0].rect_mm[:2]
        _text(img, "colour references: keep uncovered and clean", (x0, y0 - 2.0), ppm, 2.5, LINE)
    if layout.card_place_mm:
        x0, y0, x1, y1 = layout.card_place_mm
        cv2.rectangle(img, (_px(x0, ppm), _px(y0, ppm)), (_px(x1, ppm), _px(y1, ppm)), CARD_COLOUR, thick * 2)
        _text(img, "storm card", (x0 + 3, y1 + 6), ppm, 4.0, CARD_COLOUR)
    if labels and layout.markers:
        px0, py0, px1, py1 = layout.play_area_mm
        _text(img, f"{layout.game} mat  {w_mm:.0f} x {h_mm:.0f} mm", (px0, py1 + 8), ppm, 4.0)
    return img


@dataclass(frozen=True)
class Page:
    """One printer sheet: its raster and which part of the mat it shows (mm, x0 y0 x1 y1)."""

    image: np.ndarray
    region_mm: tuple[float, float, float, float]
    index: tuple[int, int]


def tile_pages(mat: np.ndarray, px_per_mm: float, paper: str = "a4") -> list[Page]:
    """Cut a mat raster into printer sheets.

    Each sheet shows a region of the mat inside a 10 mm page margin; neighbouring regions
    overlap by 10 mm. A dashed line marks where to cut each overlap, crosses at the four
    corners of each sheet's own part let the sheets be aligned, and every sheet names its
    place ("sheet 2,1 of 3 x 2") and carries the 100 mm check ruler in its bottom margin
    strip when the sheet has room, else in the overlap.

    Parameters
    ----------
    mat : (H, W, 3) uint8
    px_per_mm : float
    paper : str
        ``"a4"`` or ``"letter"``; the orientation needing fewer sheets is chosen.

    Returns
    -------
    list of Page
        Row-major; each image is the full paper size at ``px_per_mm``.

    Raises
    ------
    KeyError
        For an unknown paper name.
    """
    ppm = px_per_mm
    mat_h_mm, mat_w_mm = mat.shape[0] / ppm, mat.shape[1] / ppm
    best = None
    for pw, ph in (PAPER_MM[paper], PAPER_MM[paper][::-1]):
        uw, uh = pw - 2 * PAGE_MARGIN_MM, ph - 2 * PAGE_MARGIN_MM - 12.0   # 12 mm strip for the ruler
        step_w, step_h = uw - OVERLAP_MM, uh - OVERLAP_MM
        cols = max(1, math.ceil((mat_w_mm - OVERLAP_MM) / step_w))
        rows = max(1, math.ceil((mat_h_mm - OVERLAP_MM) / step_h))
        if best is None or cols * rows < best[0]:
            best = (cols * rows, pw, ph, uw, uh, step_w, step_h, cols, rows)
    _, pw, ph, uw, uh, step_w, step_h, cols, rows = best
    pages = []
    for r in range(rows):
        for c in range(cols):
            page = np.full((_px(ph, ppm), _px(pw, ppm), 3), 255, np.uint8)
            x0, y0 = c * step_w, r * step_h
            x1, y1 = min(x0 + uw, mat_w_mm), min(y0 + uh, mat_h_mm)
            crop = mat[_px(y0, ppm):_px(y1, ppm), _px(x0, ppm):_px(x1, ppm)]
            oy, ox = _px(PAGE_MARGIN_MM, ppm), _px(PAGE_MARGIN_MM, ppm)
            page[oy:oy + crop.shape[0], ox:ox + crop.shape[1]] = crop
            _alignment(page, ppm, x0, y0, x1, y1, c < cols - 1, r < rows - 1)
            _text(page, f"sheet {r + 1},{c + 1} of {rows} x {cols}  (mat x {x0:.0f}-{x1:.0f} mm, y {y0:.0f}-{y1:.0f} mm)",
                  (PAGE_MARGIN_MM, PAGE_MARGIN_MM - 3), ppm, 3.0)
            draw_ruler(page, (PAGE_MARGIN_MM, ph - PAGE_MARGIN_MM - 8.0), ppm)
            pages.append(Page(page, (x0, y0, x1, y1), (r, c)))
    return pages


def _alignment(page: np.ndarray, ppm: float, x0, y0, x1, y1, overlap_right: bool, overlap_below: bool) -> None:
    """Cut lines (dashed) through the overlaps and crosses at the corners of the sheet's own part."""
    m = PAGE_MARGIN_MM
    own_x1 = x1 - OVERLAP_MM / 2 if overlap_right else x1
    own_y1 = y1 - OVERLAP_MM / 2 if overlap_below else y1
    thick = max(1, _px(0.3, ppm))
    colour = (200, 0, 180)
    if overlap_right:
        x = m + own_x1 - x0
        for yy in np.arange(m, m + (y1 - y0), 4.0):
            cv2.line(page, (_px(x, ppm), _px(yy, ppm)), (_px(x, ppm), _px(min(yy + 2.0, m + y1 - y0), ppm)), colour, thick)
    if overlap_below:
        y = m + own_y1 - y0
        for xx in np.arange(m, m + (x1 - x0), 4.0):
            cv2.line(page, (_px(xx, ppm), _px(y, ppm)), (_px(min(xx + 2.0, m + x1 - x0), ppm), _px(y, ppm)), colour, thick)
    for cx in (x0 + OVERLAP_MM / 2 if x0 > 0 else x0, own_x1):
        for cy in (y0 + OVERLAP_MM / 2 if y0 > 0 else y0, own_y1):
            px, py = m + cx - x0, m + cy - y0
            cv2.line(page, (_px(px - 3, ppm), _px(py, ppm)), (_px(px + 3, ppm), _px(py, ppm)), colour, thick)
            cv2.line(page, (_px(px, ppm), _px(py - 3, ppm)), (_px(px, ppm), _px(py + 3, ppm)), colour, thick)


def write_pdf(path: str | Path, pages: list[np.ndarray], dpi: float) -> None:
    """Save BGR pages as one PDF whose pages measure their true size at ``dpi``.

    Raises
    ------
    OSError
        When the file cannot be written.
    ValueError
        When ``pages`` is empty.
    """
    if not pages:
        raise ValueError("no pages to write")
    images = [Image.fromarray(cv2.cvtColor(p, cv2.COLOR_BGR2RGB)) for p in pages]
    images[0].save(str(path), "PDF", resolution=float(dpi), save_all=True, append_images=images[1:])


def write_png(path: str | Path, image: np.ndarray, dpi: float) -> None:
    """Save a BGR raster as PNG with its physical resolution (``pHYs``) set to ``dpi``."""
    Image.fromarray(cv2.cvtColor(image, cv2.COLOR_BGR2RGB)).save(str(path), "PNG", dpi=(dpi, dpi))


def print_mat(layout: MatLayout, prefix: str | Path, paper: str = "a4", dpi: float = 200.0) -> list[Path]:
    """Write ``PREFIX.png`` (the whole mat, for a print shop) and ``PREFIX.pdf`` (tiled sheets).

    Returns
    -------
    list of Path
        The files written.
    """
    ppm = dpi / MM_PER_INCH
    mat = draw_mat(layout, ppm)
    whole = np.full((mat.shape[0] + _px(25, ppm), mat.shape[1], 3), 255, np.uint8)
    whole[:mat.shape[0]] = mat
    draw_ruler(whole, (layout.play_area_mm[0], layout.size_mm[1] + 8.0), ppm)
    prefix = Path(prefix)
    prefix.parent.mkdir(parents=True, exist_ok=True)
    png, pdf = prefix.with_suffix(".png"), prefix.with_suffix(".pdf")
    write_png(png, whole, dpi)
    write_pdf(pdf, [p.image for p in tile_pages(mat, ppm, paper)], dpi)
    return [png, pdf]
