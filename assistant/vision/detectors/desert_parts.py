"""Forbidden Desert's parts found by matching the owner's cut-out photos on each cell's crop.

A part lying on a tile is flat printed art as far as a camera overhead can tell, like the tiles
(:mod:`.desert_flat`), so it is looked for the way the tiles are: the owner's photo of it (a
cut-out, its alpha the mask) compared by masked normalised cross-correlation with the rectified
cell, at several widths and turns. This does not rest on the tile's photometric fit
(:mod:`.desert_pieces`): a part that fit explains away, or that lies on a tile whose fit broke,
is still found.

The correlation is OpenCV's ``TM_CCOEFF_NORMED`` with a mask (each channel's mean taken over the
cut-out, the spreads of image and photo multiplied over it), computed from plain single-channel
``TM_CCORR`` calls (:func:`~.correlation.masked_ncc`). Two stages:

1. *Coarse*, over the whole cell at ``COARSE_PPM``: per part, the best place, width and turn.
   (In grey it was nearly twice as fast, and found 3 parts of 21 on the bare-table development
   stills 7300-7315 where colour found 8, the propeller then still matched.)
2. *Fine*, at the crop's own ``PPM``, within ``FINE_MM`` of the coarse place, at the
   coarse width and turn and their neighbours: the part's score.

Whether a part is there is judged on the whole table (:func:`table_z`): a part's score on a cell
against its scores over the table's cells (median and median absolute deviation), since
most cells hold none of a given part. The level a photo correlates with tiles it is not on
depends on the photo (the engine's metal correlates at about 0.8 with busy tile art, the
navigation deck's disc at about 0.55) and on the light; the table's own cells measure it for
this photo, this camera and this light, which a fixed threshold on the score cannot.

Coordinates: crops ``(H, W, 3)`` float32 BGR 0..255 at ``PPM`` px per mm (:mod:`.desert_fit`);
places are crop px, ``(x, y)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import cv2
import numpy as np

from .correlation import Pattern, masked_ncc, pattern
from .desert_fit import PPM

#: widths a part's picture is matched at, mm (the whole picture's width, as the owner cut it
#: out; the second renderer lays the component photos 24-34 mm wide)
WIDTHS_MM = (24.0, 29.0, 34.0)
#: turns a part is matched at, degrees, evenly spaced (a part lies any way round; the fine
#: stage also tries the turns either side of the coarse one). 20 degrees: a first look at 30
#: (cv2's masked matching, the propeller still matched; development stills 5300-5329 in normal
#: light) found 19 parts of 36 against 22, and read 4 where there was none against 1
TURNS_DEG = tuple(float(a) for a in range(0, 360, 20))
#: resolution of the coarse stage, px per mm (half the crops'; the templates are 18-26 px wide)
COARSE_PPM = 0.75
#: the fine stage looks this far around the coarse place, mm (a coarse pixel is 1.3 mm)
FINE_MM = 3.0
#: a part is read on a cell when its score stands this many robust deviations above its
#: median over the table's cells (:func:`table_z`). Chosen on the development stills
#: (5300-5329, 6300-6329, 7300-7315, second renderer): there the parts not there stood at most
#: 5.5 (one solar crystal), most parts found at 5-18
Z_PRESENT = 5.0
#: below :data:`Z_PRESENT` but at least this, the cell's "no part" is unsure (confidence <= 0.5)
Z_DOUBT = 3.5
#: :func:`z_confidence` is 0.9 here (0.75 at ``Z_PRESENT``); the detector caps a part only
#: matching saw at ``NOTHING_SEEN`` of :mod:`.desert_pieces` (the blob reader saw none there)
Z_SURE = 6.5
#: a cut-out covering less than this share of its convex hull is not matched: a thin, spread
#: shape (the propeller's blades, 0.57; the other parts 0.89-1.0) matches busy tile art and
#: wood about as well as itself (development stills 5300-5329, 6300-6329, 7300-7315: 1 of 21
#: propellers found, 4 read where there was none)
LEAST_SOLIDITY = 0.75
#: two parts matched on one cell overlap when their centres lie closer than this share of their
#: mean width (:func:`apart`); two parts side by side on a 62 mm tile lie further apart
OVERLAP = 0.75
#: the least cells a table statistic is taken over: half the table, so that the median is a
#: cell without the part even if several cells hold one (a read of a few cells has none)
LEAST_CELLS = 12
#: the least robust deviation of a part's scores, correlation units: a table whose cells all
#: score alike (a blank or uniform frame) then gives no huge deviations
LEAST_DEVIATION = 0.01


@dataclass(frozen=True)
class Template:
    """One part's photo at one width and turn.

    Attributes
    ----------
    part : str
        Its part id (``PART_LABELS`` of :mod:`.desert_flat`).
    width_mm, turn_deg : float
    coarse : Pattern
        BGR at ``COARSE_PPM``.
    fine : Pattern
        BGR at ``PPM``.
    """

    part: str
    width_mm: float
    turn_deg: float
    coarse: Pattern
    fine: Pattern


def solidity(mask: np.ndarray) -> float:
    """A ``(h, w)`` bool cut-out's area over its convex hull's (0 for an empty one; 1 for a
    convex shape; independent of the turn)."""
    ys, xs = np.nonzero(mask)
    if len(xs) < 3:
        return 0.0
    hull = cv2.contourArea(cv2.convexHull(np.column_stack([xs, ys]).astype(np.int32)))
    return float(len(xs) / hull) if hull > 0 else 0.0


def _turned(picture: np.ndarray, width_px: int, turn_deg: float) -> tuple[np.ndarray, np.ndarray] | None:
    """A BGRA cut-out scaled to ``width_px`` wide and turned ``turn_deg`` anticlockwise, cut to its
    cut-out's bounding box: ``(bgr (h, w, 3) float32, mask (h, w) bool)``; None when less than 4
    pixels of the cut-out are left at that size."""
    h = max(1, int(round(width_px * picture.shape[0] / picture.shape[1])))
    small = cv2.resize(picture, (width_px, h), interpolation=cv2.INTER_AREA)
    side = int(np.ceil(np.hypot(width_px, h))) + 2
    canvas = np.zeros((side, side, 4), np.uint8)
    y0, x0 = (side - h) // 2, (side - width_px) // 2
    canvas[y0:y0 + h, x0:x0 + width_px] = small
    turn = cv2.getRotationMatrix2D((side / 2, side / 2), turn_deg, 1.0)
    out = cv2.warpAffine(canvas, turn, (side, side), flags=cv2.INTER_LINEAR)
    mask = out[..., 3] > 127
    ys, xs = np.nonzero(mask)
    if len(ys) < 4:
        return None
    box = (slice(ys.min(), ys.max() + 1), slice(xs.min(), xs.max() + 1))
    return out[box][..., :3].astype(np.float32), mask[box]


def templates(pictures, widths_mm=WIDTHS_MM, turns_deg=TURNS_DEG) -> list[Template]:
    """Every part picture at every width and turn.

    Parameters
    ----------
    pictures : iterable of :class:`~.flat_art.Picture`
        The owner's part pictures (several of one part are all used; ``image`` BGRA). Only
        cut-outs (alpha > 127 on the part) can be matched. Left out: a picture without alpha,
        or whose cut-out is empty or thinner than ``LEAST_SOLIDITY`` (:func:`solidity`); a
        width at which less than 4 pixels of the cut-out are left. (The blob reader still
        names every part by colour, :meth:`~.desert_pieces.PieceBlobs.which_part`.)
    widths_mm, turns_deg : sequences of float

    Returns
    -------
    list of Template
        Empty when no picture is a cut-out.
    """
    out = []
    for pic in pictures:
        img = np.asarray(pic.image)
        if img.ndim != 3 or img.shape[2] != 4 or solidity(img[..., 3] > 127) < LEAST_SOLIDITY:
            continue
        for width in widths_mm:
            for turn in turns_deg:
                fine = _turned(img, max(2, int(round(width * PPM))), turn)
                coarse = _turned(img, max(2, int(round(width * COARSE_PPM))), turn)
                if fine is None or coarse is None:        # a small part in a large picture
                    continue
                out.append(Template(pic.label, float(width), float(turn), pattern(*coarse), pattern(*fine)))
    return out


def _best(scores: np.ndarray) -> tuple[float, int, int]:
    """The highest score of a :func:`masked_ncc` result and its place ``(score, x, y)``."""
    y, x = np.unravel_index(int(np.argmax(scores)), scores.shape)
    return float(scores[y, x]), int(x), int(y)


def _neighbours(bank: list[Template], near: Template) -> list[Template]:
    """The templates of ``near``'s part at its width and the next ones, and its turn and the
    next ones."""
    widths = sorted({t.width_mm for t in bank if t.part == near.part})
    k = widths.index(near.width_mm)
    widths = widths[max(k - 1, 0):k + 2]
    turns = sorted({t.turn_deg for t in bank if t.part == near.part})
    step = 360.0 / max(len(turns), 1)
    return [t for t in bank if t.part == near.part and t.width_mm in widths
            and abs((t.turn_deg - near.turn_deg + 180.0) % 360.0 - 180.0) <= step + 1e-6]


def part_scores(crop: np.ndarray, bank: list[Template]) -> dict[str, tuple[float, tuple[float, float], float]]:
    """How well each part's photo matches somewhere on one cell's crop.

    Parameters
    ----------
    crop : (H, W, 3) float
        The rectified cell, BGR 0..255, at ``PPM`` px per mm (:attr:`~.desert_fit.Residual.crop`).
    bank : list of Template
        From :func:`templates`.

    Returns
    -------
    dict part -> (score, (x, y), width_mm)
        The best masked correlation (-1..1, :func:`masked_ncc`) of the part's templates after
        the two stages (module docstring), where that template's centre lies (crop px) and its
        width (mm). A part none of whose templates fits in the crop is absent. Raises nothing
        of its own.
    """
    crop = np.ascontiguousarray(crop, np.float32)
    small = cv2.resize(crop, None, fx=COARSE_PPM / PPM, fy=COARSE_PPM / PPM, interpolation=cv2.INTER_AREA)
    coarse: dict[str, tuple[float, Template, float, float]] = {}
    for t in bank:
        h, w = t.coarse.mask.shape
        if h > small.shape[0] or w > small.shape[1]:
            continue
        s, x, y = _best(masked_ncc(small, t.coarse))
        if s > coarse.get(t.part, (-2.0,))[0]:
            coarse[t.part] = (s, t, (x + w / 2) * PPM / COARSE_PPM, (y + h / 2) * PPM / COARSE_PPM)
    out = {}
    pad = int(round(FINE_MM * PPM))
    height, width = crop.shape[:2]
    for part, (_s, near, cx, cy) in coarse.items():
        best = None
        for t in _neighbours(bank, near):
            h, w = t.fine.mask.shape
            if h > height or w > width:
                continue
            # the window: FINE_MM around the coarse place, moved back inside the crop at its edges
            x0 = int(np.clip(round(cx - w / 2) - pad, 0, width - w))
            y0 = int(np.clip(round(cy - h / 2) - pad, 0, height - h))
            x1, y1 = min(width, x0 + w + 2 * pad), min(height, y0 + h + 2 * pad)
            s, x, y = _best(masked_ncc(crop[y0:y1, x0:x1], t.fine))
            if best is None or s > best[0]:
                best = (s, (x0 + x + w / 2, y0 + y + h / 2), t.width_mm)
        if best is not None:
            out[part] = best
    return out


def table_z(scores: Mapping[tuple, Mapping[str, tuple]]) -> dict[tuple, dict[str, float]]:
    """Each part's score on each cell in robust deviations from its scores over the table.

    Parameters
    ----------
    scores : dict (r, c) -> dict part -> (score, (x, y), width_mm)
        :func:`part_scores` of the cells read.

    Returns
    -------
    dict (r, c) -> dict part -> float
        ``(score - median) / (1.4826 * MAD)`` over the cells that scored the part, the cell
        itself among them (the factor makes the median absolute deviation a standard
        deviation's estimate for normal scores; the deviation is at least
        ``LEAST_DEVIATION``). A part scored on fewer than ``LEAST_CELLS`` cells has no values;
        the dict is empty when fewer cells are given (no statistic to judge by).
    """
    if len(scores) < LEAST_CELLS:
        return {}
    out: dict[tuple, dict[str, float]] = {key: {} for key in scores}
    parts = sorted({p for got in scores.values() for p in got})
    for part in parts:
        cells = [key for key, got in scores.items() if part in got]
        if len(cells) < LEAST_CELLS:
            continue
        s = np.array([scores[key][part][0] for key in cells], np.float64)
        med = float(np.median(s))
        dev = max(1.4826 * float(np.median(np.abs(s - med))), LEAST_DEVIATION)
        for key, v in zip(cells, s):
            out[key][part] = (float(v) - med) / dev
    return out


def apart(standing: Mapping[str, float], scores: Mapping[str, tuple]) -> dict[str, float]:
    """Of the parts ``standing`` on one cell (part -> :func:`table_z` value), those not matched
    over a part standing higher: two parts cannot lie in one place, and a photo of busy art
    (the engine's) also matches, less well, over the edge of another part.

    Parameters
    ----------
    standing : dict part -> float
    scores : dict part -> (score, (x, y), width_mm)
        The cell's :func:`part_scores` (places in crop px at ``PPM``).

    Returns
    -------
    dict part -> float
        A subset of ``standing``: taken from the highest down, a part is left out when its
        centre lies closer to a kept part's than ``OVERLAP`` times their mean width.
    """
    kept: dict[str, float] = {}
    for part, v in sorted(standing.items(), key=lambda kv: -kv[1]):
        (x, y), width = scores[part][1:]
        if all(np.hypot(x - scores[k][1][0], y - scores[k][1][1]) >= OVERLAP * (width + scores[k][2]) / 2 * PPM
               for k in kept):
            kept[part] = v
    return kept


def z_confidence(z: float) -> float:
    """How sure a part is there given its :func:`table_z` deviation ``z``: a logistic that is 0.5
    at ``Z_DOUBT`` and 0.9 at ``Z_SURE`` (about 0.75 at ``Z_PRESENT``)."""
    k = np.log(9.0) / (Z_SURE - Z_DOUBT)
    return float(1.0 / (1.0 + np.exp(-k * (z - Z_DOUBT))))
