"""Several templates of one size correlated with one board window at once (issue 21's read time).

:meth:`~.flat_art.ArtBank.fine` scores a cell's shortlist (eight labels or more) in windows that
mostly coincide (all of them when the tile's outline placed the labels). One
``cv2.matchTemplate`` per label and channel makes OpenCV plan a transform and sum the window
again every time; here the window's template-sized patches are gathered once and every label's
normalised cross-correlation (``TM_CCOEFF_NORMED`` per channel, as
:func:`~.correlation.correlate_planes` takes it) comes from one matrix product per channel,
about three times faster for eight labels. The products are float32 and the window sums float64
(integral images), so the values differ from OpenCV's by rounding only (about 1e-5); the best
place, and so the score taken there, is the same but for ties that close
(tests/vision/test_fast_primitives.py).
"""

from __future__ import annotations

from typing import Sequence

import cv2
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

#: a window whose variance about its mean (sum of squares, float64) is at most this is flat:
#: correlation 0 there, as OpenCV has it
FLAT_VARIANCE = 1e-12


def unit_template(planes: Sequence[np.ndarray]) -> np.ndarray:
    """One template's channel planes (C of them, ``(h, w) float32``) ready for
    :func:`window_nccs`: ``(C, h * w) float32``, each plane less its mean over its norm about
    the mean (computed in float64). Raises ValueError on a flat plane (no spread: OpenCV's
    answer there is not a correlation)."""
    rows = np.stack([np.asarray(p, np.float64).ravel() for p in planes])
    rows -= rows.mean(axis=1, keepdims=True)
    norms = np.sqrt((rows * rows).sum(axis=1))
    if (norms < 1e-9).any():
        raise ValueError("a template plane is flat; it has no normalised correlation")
    return (rows / norms[:, None]).astype(np.float32)


def window_nccs(planes: Sequence[np.ndarray], units: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """The normalised cross-correlation of each of K templates with every place of an image
    window, channel by channel.

    Parameters
    ----------
    planes : list of C (H, W) float32
        The window's channel planes (views are fine), ``H >= h``, ``W >= w``.
    units : (K, C, h * w) float32
        The templates, :func:`unit_template` each.
    shape : (h, w)
        The templates' size.

    Returns
    -------
    (C, K, H - h + 1, W - w + 1) float32
        ``sum((I - mean_I) (T - mean_T)) / (|I - mean_I| |T - mean_T|)`` over each place's
        ``(h, w)`` window, 0 where the window is flat (``FLAT_VARIANCE``).
    """
    h, w = shape
    stack = np.stack([np.asarray(p, np.float32) for p in planes])          # (C, H, W)
    n_ch, height, width = stack.shape
    rows, cols = height - h + 1, width - w + 1
    patches = sliding_window_view(stack, (h, w), axis=(1, 2)).reshape(n_ch, rows * cols, h * w)
    # sum(I T_unit) is sum((I - mean_I) T_unit): the unit template sums to 0
    num = np.matmul(units.transpose(1, 0, 2), patches.transpose(0, 2, 1))  # (C, K, places)
    inverse = np.empty((n_ch, rows * cols), np.float32)
    for c in range(n_ch):
        s1, s2 = cv2.integral2(stack[c], sdepth=cv2.CV_64F)
        w1 = s1[h:, w:] - s1[:-h, w:] - s1[h:, :-w] + s1[:-h, :-w]
        w2 = s2[h:, w:] - s2[:-h, w:] - s2[h:, :-w] + s2[:-h, :-w]
        var = np.maximum(w2 - w1 * w1 / (h * w), 0.0).ravel()
        flat = var <= FLAT_VARIANCE
        inverse[c] = np.where(flat, 0.0, 1.0 / np.sqrt(np.where(flat, 1.0, var)))
    return (num * inverse[:, None, :]).reshape(n_ch, len(units), rows, cols)


def search_box(centre_mm, shape, origin_mm, search_mm: float, ppm: float,
               board_shape) -> tuple[int, int, int, int] | None:
    """The top-left places ``(u0, v0, u1, v1)`` (px, inclusive) of a template of ``shape``
    ``(h, w, ...)`` whose centre lies within ``search_mm`` (a square) of ``centre_mm`` on a
    board of ``board_shape`` ``(H, W, ...)`` at ``ppm`` px per mm, pixel (0, 0) at mat point
    ``origin_mm``, clipped to the board; None when none fits."""
    th, tw = shape[:2]
    cx, cy = centre_mm
    u0 = int(np.floor((cx - search_mm - origin_mm[0]) * ppm - tw / 2))
    v0 = int(np.floor((cy - search_mm - origin_mm[1]) * ppm - th / 2))
    u1 = int(np.ceil((cx + search_mm - origin_mm[0]) * ppm - tw / 2))
    v1 = int(np.ceil((cy + search_mm - origin_mm[1]) * ppm - th / 2))
    u0, v0, u1, v1 = max(u0, 0), max(v0, 0), min(u1, board_shape[1] - tw), min(v1, board_shape[0] - th)
    return (u0, v0, u1, v1) if u1 >= u0 and v1 >= v0 else None


#: :func:`batched` gathers jobs of one template shape, at least ``BATCH_MIN`` of them, whose
#: windows' union holds at most ``UNION_PLACES`` times the places of the largest window. On this
#: machine eight labels in one 5 x 5 window took 0.7 ms here and 2.2 ms by cv2.matchTemplate,
#: one or two labels longer here than there; the product's cost grows with the places, OpenCV's
#: hardly (a cell's labels at their own coarse places span 25-50 px each way: left to OpenCV)
BATCH_MIN, UNION_PLACES = 4, 2.0


def batched(jobs: Sequence[tuple], shapes: Sequence[tuple[int, int]]) -> list[tuple[list[int], tuple]]:
    """Which of :meth:`~.flat_art.ArtBank.fine`'s jobs ``(template index, u0, v0, u1, v1)``
    (top-left places searched, inclusive) to correlate together, job ``k``'s template of
    shape ``shapes[k]`` ``(h, w)`` (None: never batched): ``[(job indices, union box (u0, v0,
    u1, v1))]`` (see ``BATCH_MIN``, ``UNION_PLACES``); jobs in no group are left out."""
    by_shape: dict = {}
    for k, shape in enumerate(shapes):
        if shape is not None:
            by_shape.setdefault(tuple(shape), []).append(k)
    out = []
    for group in by_shape.values():
        if len(group) < BATCH_MIN:
            continue
        box = (min(jobs[k][1] for k in group), min(jobs[k][2] for k in group),
               max(jobs[k][3] for k in group), max(jobs[k][4] for k in group))
        union = (box[2] - box[0] + 1) * (box[3] - box[1] + 1)
        largest = max((jobs[k][3] - jobs[k][1] + 1) * (jobs[k][4] - jobs[k][2] + 1) for k in group)
        if union <= UNION_PLACES * largest:
            out.append((group, box))
    return out
