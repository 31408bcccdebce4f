"""Where a tile lies in and around its cell, found from its outline alone, whatever is printed on it.

A tile is an opaque square laid on a bare mat (or table): inside its outline nothing looks like
the bare surface; just outside it, the bare surface shows (tiles lie in cells with gaps between
them). So where the tile lies can be found before asking what it shows, from one map of "how
much this pixel looks like the bare surface" (:func:`bare_likeness`): the square of the tiles'
side whose inside looks least bare and whose four thin outside strips look more bare than the
strips just inside them (:func:`locate_tiles`).

Matching each label's picture freely within the cell's whole search window lets a wrong picture
slide to wherever a sand marker's edges or a neighbour's drawing suit it; matching every label
at the one place the outline gives compares them fairly. Found on the rectified mat at
``FINE_PPM``, every sum from one integral image (``cv2.integral``): all places of all cells cost
a few milliseconds.

Coordinates: mat millimetres (x right, y down) as :mod:`..mats`; images ``(H, W, C)`` as numpy.
"""

from __future__ import annotations

from typing import Mapping

import cv2
import numpy as np

from .desert_fit import largest_channel

#: the width of the strips compared on either side of an outline, mm
STRIP_MM = 3.0
#: a pixel's largest per-channel log-ratio to the bare colour at which it looks half bare
#: (a Gaussian of this sigma; 0.12 is about 12 % in every channel, as ``desert_flat.BARE_RATIO``)
BARE_SIGMA = 0.12


def bare_likeness(image: np.ndarray, bare: np.ndarray, sigma: float = BARE_SIGMA) -> np.ndarray:
    """How much each pixel looks like the bare mat: ``exp(-d**2 / (2 sigma**2))`` where ``d``
    is the largest absolute log-ratio, over the three channels, of the pixel to ``bare``
    (both offset by 4 so that black does not divide by zero).

    Parameters
    ----------
    image : (H, W, 3) uint8 or float32
        BGR, e.g. the rectified mat.
    bare : (3,) float
        The bare surface's BGR (``DesertFlat.bare_colour``).
    sigma : float
        The log-ratio at which a pixel counts as ``exp(-1/2)`` bare.

    Returns
    -------
    (H, W) float32
        0..1, 1 where the pixel has the bare colour.

    >>> img = np.full((2, 2, 3), 200, np.uint8); img[0, 0] = (60, 90, 120)
    >>> np.round(bare_likeness(img, np.array([200.0, 200.0, 200.0])), 2).tolist()
    [[0.0, 1.0], [1.0, 1.0]]
    """
    f = image.astype(np.float32)
    ref = np.asarray(bare, np.float32).reshape(1, 1, 3)
    d = largest_channel(np.abs(np.log((f + 4.0) / (ref + 4.0))))
    return np.exp(-0.5 * (d / sigma) ** 2).astype(np.float32)


def outline_scores(bare: np.ndarray, side_px: int, strip_px: int) -> np.ndarray:
    """The outline score of a ``side_px`` square at every top-left pixel of a bare-likeness map.

    The score is the mean, over the square's four sides, of how much more bare the
    ``strip_px`` strip just outside the side looks than the strip just inside it, plus how
    little bare the whole square looks: about 2 for a tile alone on the mat, lower for a square
    off the tile, a tile touching a neighbour on one side still near 1.75.

    Parameters
    ----------
    bare : (H, W) float32
        :func:`bare_likeness`.
    side_px, strip_px : int
        The tile's side and the strips' width, pixels.

    Returns
    -------
    (H, W) float32
        Entry ``[v, u]`` scores the square whose top-left pixel is ``(u, v)``; ``-inf`` where
        the square and its outer strips do not fit in the map.
    """
    n, w = int(side_px), int(strip_px)
    h_, w_ = bare.shape
    out = np.full((h_, w_), -np.inf, np.float32)
    if h_ < n + 2 * w + 1 or w_ < n + 2 * w + 1:
        return out
    ii = cv2.integral(bare, sdepth=cv2.CV_32F)
    rows, cols = h_ - n - 2 * w, w_ - n - 2 * w          # top-left pixels (w..) whose square fits

    def box(r0: int, c0: int, r1: int, c1: int) -> np.ndarray:
        # the sums over rows v+r0 .. v+r1, columns u+c0 .. u+c1 for every top-left (u, v)
        def at(r, c):
            return ii[w + r:w + r + rows, w + c:w + c + cols]
        return at(r1, c1) - at(r0, c1) - at(r1, c0) + at(r0, c0)

    sides = ((box(0, -w, n, 0) - box(0, 0, n, w))             # left: outside less inside
             + (box(0, n, n, n + w) - box(0, n - w, n, n))    # right
             + (box(-w, 0, 0, n) - box(0, 0, w, n))           # top
             + (box(n, 0, n + w, n) - box(n - w, 0, n, n))    # bottom
             ) / (4.0 * n * w)
    inside = 1.0 - box(0, 0, n, n) / float(n * n)
    out[w:w + rows, w:w + cols] = sides + inside
    return out


def locate_tiles(image: np.ndarray, bare: np.ndarray, origin_mm, ppm: float, centres_mm: Mapping,
                 side_mm: float, search_mm: float, likeness: np.ndarray | None = None) -> dict:
    """Where each tile lies: per cell, the centre of the square of side ``side_mm`` within
    ``search_mm`` (a square window) of the cell's centre with the best :func:`outline_scores`.

    Parameters
    ----------
    image : (H, W, 3) uint8
        The rectified mat at ``ppm`` px per mm, pixel (0, 0) at mat point ``origin_mm``.
    bare : (3,) float
        The bare surface's BGR.
    centres_mm : dict key -> (x, y)
        The cells' centres, mm.
    side_mm, search_mm : float
        The tiles' side; how far off its cell's centre a tile may lie.
    likeness : (H, W) float32, optional
        :func:`bare_likeness` of ``image`` and ``bare`` when the caller has it already.

    Returns
    -------
    dict key -> ((x, y) mm, score, peak)
        The best place, its score (see :func:`outline_scores`) and how far that stands above
        the median score of the cell's window (a clear outline stands out; on a flat or
        ambiguous cell every place scores alike); cells whose window falls outside ``image``
        get no entry.
    """
    n = int(round(side_mm * ppm))
    likeness = bare_likeness(image, bare) if likeness is None else likeness
    scores = outline_scores(likeness, n, max(1, int(round(STRIP_MM * ppm))))
    out = {}
    for key, centre in centres_mm.items():
        got = _window_best(scores, origin_mm, ppm, centre, search_mm, n)
        if got[0] is not None:
            out[key] = got
    return out


def _window_best(scores: np.ndarray, origin_mm, ppm: float, centre_mm, search_mm: float, n: int) -> tuple:
    """The best :func:`outline_scores` entry for a tile centred within ``search_mm`` of
    ``centre_mm``: ``((x, y) mm, score, peak)`` where ``peak`` is how far the score stands
    above the window's median, or ``(None, -inf, 0.0)`` when the window is outside."""
    rows, cols = _window(origin_mm, ppm, centre_mm, search_mm, n)
    win = scores[rows, cols]
    if win.size == 0 or not np.isfinite(win).any():
        return None, -np.inf, 0.0
    dv, du = np.unravel_index(int(np.argmax(win)), win.shape)
    u, v = cols.start + du, rows.start + dv
    peak = float(win[dv, du]) - float(np.median(win[np.isfinite(win)]))
    return (origin_mm[0] + (u + n / 2) / ppm, origin_mm[1] + (v + n / 2) / ppm), float(win[dv, du]), peak


def _window(origin_mm, ppm: float, centre_mm, search_mm: float, n: int) -> tuple[slice, slice]:
    """The rows and columns of :func:`outline_scores` (top-left pixels of an ``n`` px square)
    whose square is centred within ``search_mm`` of ``centre_mm``, clipped at the top and left
    (numpy clips the bottom and right)."""
    cx, cy = centre_mm
    u0 = int(np.floor((cx - search_mm - origin_mm[0]) * ppm - n / 2))
    v0 = int(np.floor((cy - search_mm - origin_mm[1]) * ppm - n / 2))
    u1 = int(np.ceil((cx + search_mm - origin_mm[0]) * ppm - n / 2))
    v1 = int(np.ceil((cy + search_mm - origin_mm[1]) * ppm - n / 2))
    return slice(max(v0, 0), max(v1 + 1, 0)), slice(max(u0, 0), max(u1 + 1, 0))


def window_tops(scores: np.ndarray, origin_mm, ppm: float, centres_mm: Mapping, search_mm: float,
                n: int) -> list[float]:
    """Each cell's best :func:`outline_scores` entry, as :func:`_window_best` gives it (``-inf``
    for a window outside the map or without a fitting square), in the order of ``centres_mm``;
    windows of one shape are stacked and looked at together. ``scores`` ``(H, W) float32``;
    arguments as :func:`locate_tiles`'s, ``n`` the tile's side in px."""
    wins = [scores[_window(origin_mm, ppm, c, search_mm, n)] for c in centres_mm.values()]
    if wins and wins[0].size and all(w.shape == wins[0].shape for w in wins):
        return np.stack(wins).reshape(len(wins), -1).max(axis=1).tolist()
    return [float(w.max()) if w.size else -np.inf for w in wins]


#: the tile sides tried by :func:`outline_size`, mm (the rules' tiles are 62 mm; copies, prints
#: and a homography a little off the mat's true scale make them 54-70 mm on the rectified mat)
OUTLINE_SIZES_MM = tuple(float(s) for s in range(54, 71))


def outline_size(image: np.ndarray, bare: np.ndarray, origin_mm, ppm: float, centres_mm: Mapping,
                 search_mm: float, sizes_mm=OUTLINE_SIZES_MM, likeness: np.ndarray | None = None) -> float:
    """The tiles' side that their outlines fit best: of ``sizes_mm`` (evenly spaced), the one
    whose :func:`locate_tiles` scores summed over ``centres_mm`` are highest (arguments as
    there, ``likeness`` too), looked for among every other size and then beside the best of
    those. Returns a side in mm; the middle of ``sizes_mm`` when no cell's window fits the image."""
    likeness = bare_likeness(image, bare) if likeness is None else likeness
    strip = max(1, int(round(STRIP_MM * ppm)))
    totals: dict[float, float] = {}

    def total(size: float) -> float:
        if size not in totals:
            n = int(round(size * ppm))
            scores = outline_scores(likeness, n, strip)
            totals[size] = sum(window_tops(scores, origin_mm, ppm, centres_mm, search_mm, n))
        return totals[size]

    sizes = sorted(sizes_mm)
    best = max(sizes[::2], key=total)                        # every other size, then the best's neighbours
    i = sizes.index(best)
    best = max(sizes[max(i - 1, 0):i + 2], key=total)
    if not np.isfinite(totals[best]):
        return float(sizes[len(sizes) // 2])
    return best
