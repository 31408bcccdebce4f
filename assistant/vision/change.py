"""Comparing two pictures of a board block by block, whatever the light does.

The comparison works on a grid of small blocks (5 mm, :data:`BLOCK_MM`). For each colour channel
it takes the log ratio of the two pictures' block means and removes the *local light*: the
median of that log ratio over a neighbourhood about two cells wide. Light multiplies a surface's
colour (von Kries): a lamp switched on, a warmer white balance, an exposure step, a cloud, a
hotspot or a person's soft shadow change whole neighbourhoods smoothly and leave no residual
(field report F3); a piece laid, lifted or turned over changes its own blocks only, a minority of
the neighbourhood. Blocks out of the camera's view take the log ratio of the nearest block in view,
so the light at the edge of the view is estimated from the board, not from the black outside it.

With a ``tolerance`` of one block, a block counts as changed only when no block of the other
picture's 3x3 neighbourhood explains it, both ways (a new piece is darker or brighter than
everything that was around it; a removed one than everything that is around it now): what is left
of a shake of a few pixels after alignment (:mod:`.align`) and JPEG noise on grid lines then
changes nothing, while a piece, several blocks wide, still does.

Changed blocks must form blobs (an opening drops isolated blocks). :func:`arms` finds the blobs
that reach the edge of the board's part in view and are larger than a piece: a hand or an arm,
resting or moving, not a move.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from .mats import MatLayout

BLOCK_MM = 5.0
LIGHT_WINDOW_MM = 150.0     #: neighbourhood of the local light estimate (about two cells of a real mat)
CLIPPED = 254               #: a pixel with a channel this bright is clipped (glare, overexposure)
#: added to the channels before their chromaticity is taken: a dark block's blue channel, a few
#: grey levels, moves by a third with the camera's colour noise; 24 levels of headroom keep that
#: noise under the chroma threshold (a webcam's dark squares of a chess board, issue 16)
CHROMA_OFFSET = 24.0
RIM_MM = 10.0               #: the rim of the rectified board left out of every comparison
#: a blob reaching the edge of the view is an arm when it covers this many cells' worth of blocks
#: (cell boxes), or ``ARM_MM2`` (:func:`arm_blocks`)
ARM_CELLS = 2.5
ARM_MM2 = 6000.0
#: the inner part of the margin band (this share of its width, at least 4 mm) is not watched for
#: arms: a tile pushed a little over the play area's edge after a slide, or a pawn on an edge
#: cell leaning over it in a tilted view, lies there still and would hold the gate for good; an
#: arm comes from outside the mat and crosses the outer part
BAND_INNER_SHARE = 0.25


class BlockGrid:
    """Block-grid regions of the small rectified board: one box per cell, margin-band segments.

    Parameters
    ----------
    layout : MatLayout
    region_mm : (x0, y0, x1, y1)
        The part of the mat the rectified board shows.
    margin_mm : float
        Width of the band around the play area watched for arms.
    light_window_mm : float, optional
        Neighbourhood of the local light (default :data:`LIGHT_WINDOW_MM`).

    Attributes
    ----------
    shape : (bh, bw)
    keys : list of tuple
        Cell keys, then ``("card",)`` when the mat has a card place.
    cells : list of (slice, slice)
        Each key's box of blocks.
    segments : list of (ys, xs)
        The band around the play area (but its inner part, :data:`BAND_INNER_SHARE`) cut into
        16 angular segments (block indices).
    light_k : int
        Light window in blocks (odd).
    cell_blocks : float
        Blocks in a typical cell box (the median).
    """

    def __init__(self, layout: MatLayout, region_mm, margin_mm: float, light_window_mm: float | None = None):
        ox, oy = region_mm[0], region_mm[1]
        self.shape = (max(1, int(round((region_mm[3] - oy) / BLOCK_MM))), max(1, int(round((region_mm[2] - ox) / BLOCK_MM))))
        h, w = self.shape

        def box(x0, y0, x1, y1):
            c0, r0 = int(round((x0 - ox) / BLOCK_MM)), int(round((y0 - oy) / BLOCK_MM))
            c1, r1 = int(round((x1 - ox) / BLOCK_MM)), int(round((y1 - oy) / BLOCK_MM))
            return slice(max(r0, 0), min(max(r1, r0 + 1), h)), slice(max(c0, 0), min(max(c1, c0 + 1), w))

        self.keys, self.cells = [], []
        for cell in layout.cells:
            poly = np.asarray(cell.polygon_mm)
            half = 0.5 * float(min(np.ptp(poly[:, 0]), np.ptp(poly[:, 1]))) * (0.7 if layout.kind == "hex" else 0.84)
            cx, cy = cell.center_mm
            self.keys.append(cell.key)
            self.cells.append(box(cx - half, cy - half, cx + half, cy + half))
        if layout.card_place_mm:
            x0, y0, x1, y1 = layout.card_place_mm
            self.keys.append(("card",))
            self.cells.append(box(x0 + 2, y0 + 2, x1 - 2, y1 - 2))
        band = np.zeros(self.shape, np.uint8)

        def rect(x0, y0, x1, y1, value):
            rows, cols = box(x0, y0, x1, y1)
            band[rows, cols] = value

        x0, y0, x1, y1 = layout.play_area_mm
        rect(x0 - margin_mm, y0 - margin_mm, x1 + margin_mm, y1 + margin_mm, 1)
        inner = max(4.0, BAND_INNER_SHARE * margin_mm)
        rect(x0 - inner, y0 - inner, x1 + inner, y1 + inner, 0)
        for m in layout.markers:                       # markers are printed, not empty: leave them out
            (mx0, my0), _, (mx1, my1), _ = m.corners_mm
            rect(mx0 - 4, my0 - 4, mx1 + 4, my1 + 4, 0)
        if layout.card_place_mm:
            cx0, cy0, cx1, cy1 = layout.card_place_mm
            rect(cx0 - 10, cy0 - 10, cx1 + 10, cy1 + 14, 0)
        ys, xs = np.nonzero(band)
        self.segments = []
        if len(xs):
            angle = np.arctan2(ys - (h - 1) / 2, xs - (w - 1) / 2)
            bins = np.floor((angle + np.pi) / (2 * np.pi) * 16).astype(int) % 16
            self.segments = [(ys[bins == b], xs[bins == b]) for b in range(16) if (bins == b).sum() >= 6]
        window = LIGHT_WINDOW_MM if light_window_mm is None else light_window_mm
        self.light_k = max(3, int(window / BLOCK_MM) | 1)
        areas = [(r.stop - r.start) * (c.stop - c.start) for r, c in self.cells[:len(layout.cells)]]
        self.cell_blocks = float(np.median(areas)) if areas else 1.0


class View:
    """Which blocks of a :class:`BlockGrid` the camera sees, and what follows from it.

    Parameters
    ----------
    grid : BlockGrid
    visible : (bh, bw) bool
        Blocks inside the camera frame.

    Attributes
    ----------
    visible : (bh, bw) bool
        ``visible`` less the rim of the rectified board (:data:`RIM_MM`): a camera shaking by a
        few pixels brings the table in there and takes it out again.
    share : list of float
        Per cell box (``grid.cells`` order), the share of its blocks in view (0..1).
    edge : (bh, bw) bool
        Visible blocks on the edge of the part in view (next to a block out of view or to the
        border of the rectified board): where an arm comes in.
    nearest : (bh * bw,) int or None
        Flat index of the nearest visible block of every block (None when all are visible).
    """

    def __init__(self, grid: BlockGrid, visible: np.ndarray):
        self.visible = np.asarray(visible, bool).copy()
        # the outer rim of the rectified board shows the table when the camera shakes
        rim = max(1, int(round(RIM_MM / BLOCK_MM)))
        self.visible[:rim], self.visible[-rim:], self.visible[:, :rim], self.visible[:, -rim:] = False, False, False, False
        self.share = [float(self.visible[rows, cols].mean()) for rows, cols in grid.cells]
        padded = np.pad(self.visible.astype(np.uint8), 1)
        inner = cv2.erode(padded, np.ones((3, 3), np.uint8))[1:-1, 1:-1].astype(bool)
        self.edge = self.visible & ~inner
        self.nearest = None
        if not self.visible.all() and self.visible.any():
            hidden = (~self.visible).astype(np.uint8)
            _, labels = cv2.distanceTransformWithLabels(hidden, cv2.DIST_L2, 3, labelType=cv2.DIST_LABEL_PIXEL)
            # label of each visible block -> its flat index; every block -> nearest visible's index
            index_of = np.zeros(labels.max() + 1, np.int64)
            vis_flat = np.flatnonzero(self.visible)
            index_of[labels.ravel()[vis_flat]] = vis_flat
            self.nearest = index_of[labels.ravel()]


def block_means(img: np.ndarray, shape: tuple[int, int], inside: np.ndarray | None = None) -> np.ndarray:
    """Per block (``BLOCK_MM``): mean B, G, R after a light blur (so a slight defocus changes
    nothing) and, per channel, the share of clipped pixels.

    Parameters
    ----------
    img : (h, w, 3) uint8
        The rectified board.
    shape : (bh, bw)
    inside : (h, w) uint8, optional
        Pixels that come from inside the camera frame (255) or from outside it (0); the means
        are then taken over the pixels inside only (normalised convolution), so a block half in
        view has the colour of its half in view, not half of it.

    Returns
    -------
    (bh, bw, 6) float32
        Means 0..255, then clipped shares 0..1.
    """
    sigma = max(0.5, 0.5 * img.shape[1] / (shape[1] * BLOCK_MM / 2))
    k = 2 * int(math.ceil(2.5 * sigma)) + 1          # the kernel OpenCV would take for sigma, a little shorter
    size = (shape[1], shape[0])
    if inside is None:
        soft = cv2.GaussianBlur(img, (k, k), sigma)
        means = cv2.resize(soft, size, interpolation=cv2.INTER_AREA).astype(np.float32)
    else:
        weight = (inside > 0).astype(np.float32)
        soft = cv2.GaussianBlur(img.astype(np.float32) * weight[..., None], (k, k), sigma)
        norm = cv2.GaussianBlur(weight, (k, k), sigma)
        means = (cv2.resize(soft, size, interpolation=cv2.INTER_AREA)
                 / np.maximum(cv2.resize(norm, size, interpolation=cv2.INTER_AREA), 1e-3)[..., None])
    # every channel against the level: a threshold (OpenCV 5.1's cv2.compare with a Python
    # number tests the first channel only, and the others against 0); 0.04 ms, numpy's where 1 ms
    clipped = cv2.threshold(img, CLIPPED - 1, 255, cv2.THRESH_BINARY)[1]
    share = cv2.resize(clipped, size, interpolation=cv2.INTER_AREA).astype(np.float32) * (1.0 / 255.0)
    return np.dstack([means, share]).astype(np.float32)


def visible_blocks(inside: np.ndarray, shape: tuple[int, int], share: float = 0.5) -> np.ndarray:
    """Blocks with at least ``share`` of their pixels inside the camera frame, from a ``(h, w)
    uint8`` mask (255 inside). ``(bh, bw) bool``."""
    inside_share = cv2.resize((inside > 0).astype(np.float32), (shape[1], shape[0]), interpolation=cv2.INTER_AREA)
    return inside_share >= share


def _local_median(x: np.ndarray, k: int, scale: float) -> np.ndarray:
    """Median of ``x`` over a ``k x k`` block neighbourhood (via 8-bit ``cv2.medianBlur``)."""
    q = np.clip(np.round(x * scale + 128.0), 0, 255).astype(np.uint8)
    k = min(k, 2 * ((min(x.shape[:2]) - 1) // 2) + 1)
    return (cv2.medianBlur(q, max(3, k)).astype(np.float32) - 128.0) / scale


_BOX3 = np.ones((3, 3), np.uint8)


def _beyond_below(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """How far each value of ``a`` lies below every value of ``b`` in its 3x3 neighbourhood
    (0 when it does not); per channel."""
    return np.maximum(0.0, cv2.erode(b, _BOX3) - a)


def _strays(now: np.ndarray, then: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """How much darker and how much brighter ``now`` is than ``then`` allows with one block of
    play, both ways: darker than every block around it in ``then``, or ``then`` brighter than
    every block around it in ``now`` (a piece laid, a piece lifted); per channel, >= 0."""
    darker = np.maximum(_beyond_below(now, then), _beyond_below(-then, -now))
    brighter = np.maximum(_beyond_below(-now, -then), _beyond_below(then, now))
    return darker, brighter


def _most(x: np.ndarray) -> np.ndarray:
    """The largest value over the last (short) axis of ``x``: a chain of ``np.maximum`` over the
    channels, an order of magnitude faster than ``x.max(axis=-1)`` on interleaved channels."""
    out = x[..., 0]
    for c in range(1, x.shape[-1]):
        out = np.maximum(out, x[..., c])
    return out


def log_blocks(blocks: np.ndarray) -> np.ndarray:
    """``log(B + 8)``, ``log(G + 8)``, ``log(R + 8)`` and the chromaticities
    ``log((B + c) / (G + c))``, ``log((R + c) / (G + c))`` (``c`` = :data:`CHROMA_OFFSET`) of
    block means (:func:`block_means`): ``(bh, bw, 5) float32``. A light's gain is an offset of
    the first three; a grey gain leaves the last two (and a camera's colour noise in the dark
    moves them little, thanks to ``c``)."""
    means = np.ascontiguousarray(blocks[..., :3], np.float32)
    log = cv2.log(means + np.float32(8.0))
    soft = cv2.log(means + np.float32(CHROMA_OFFSET))
    return np.dstack([log, soft[..., 0] - soft[..., 1], soft[..., 2] - soft[..., 1]])


def quick_change(before: np.ndarray, after: np.ndarray, visible: np.ndarray | None, threshold: float,
                 chroma_threshold: float) -> np.ndarray:
    """Blocks that changed between two frames under one gain per channel for the whole board
    (an exposure or white-balance step), in blobs, allowing a shift of one block: the cheap test
    of the idle path. A soft shadow or a shake may pass it; :func:`residuals` and the alignment
    look closer at what it finds.

    Parameters
    ----------
    before, after : (bh, bw, 5) float32
        :func:`log_blocks` of the two frames.
    visible : (bh, bw) bool or None
    threshold, chroma_threshold : float
        As :func:`residuals`' residual and chroma.

    Returns
    -------
    (bh, bw) bool
    """
    ratio = after - before
    pool = ratio[visible] if visible is not None else ratio.reshape(-1, 5)
    gain = np.median(pool[:: max(1, len(pool) // 2000)], axis=0) if len(pool) else np.zeros(5, np.float32)
    # most frames of a still board: no block strays that far even without the one-block allowance
    strays = np.abs(ratio - gain.astype(np.float32))
    if (_most(strays[..., :3]) <= threshold).all() and (_most(strays[..., 3:]) <= chroma_threshold).all():
        return np.zeros(ratio.shape[:2], bool)
    darker, brighter = _strays(after, before + gain.astype(np.float32))
    diff = np.maximum(darker, brighter)
    mask = (_most(diff[..., :3]) > threshold) | (_most(diff[..., 3:]) > chroma_threshold)
    if visible is not None:
        mask &= visible
    return blobs(mask)


def residuals(ref: np.ndarray, cur: np.ndarray, k: int, view: View | None = None,
              tolerance: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """Per-block change that the local light does not explain.

    Parameters
    ----------
    ref, cur : (bh, bw, 6) float32
        Block means and clipped shares (:func:`block_means`).
    k : int
        Light neighbourhood in blocks (odd).
    view : View, optional
        Blocks in view; the others take the nearest visible block's log ratio for the light
        estimate and have residual 0.
    tolerance : int
        0: block against block; 1: a block is changed only if no block of the other picture's
        3x3 neighbourhood explains it, both ways (module docstring).

    Returns
    -------
    (residual, chroma, glare, light_changed)
        ``(bh, bw) float32`` largest |log ratio - local log gain| (natural log units) over the
        channels clipped in neither picture; ``(bh, bw) float32`` the same for the log
        chromaticities ``log(B/G)``, ``log(R/G)`` (a grey gain leaves them; a piece of another
        colour, or a hand, does not); ``(bh, bw) bool`` blocks clipped in every channel whose
        clipping changed (glare: nothing can be said there); whether the light changed
        unevenly (a lamp, a hotspot: the local gain differs from its median over the board by
        more than 8 % in some channel over a quarter of the board; an exposure or white-balance
        step changes the gain everywhere alike and is not counted).
    """
    lr, lc = log_blocks(ref), log_blocks(cur)
    if view is not None and view.nearest is not None:
        # blocks out of view take the values of the nearest block in view (light, neighbourhoods)
        lr = lr.reshape(-1, 5)[view.nearest].reshape(lr.shape)
        lc = lc.reshape(-1, 5)[view.nearest].reshape(lc.shape)
    ratio = lc - lr
    light = np.dstack([_local_median(np.ascontiguousarray(ratio[..., c]), k, 100.0) for c in range(5)])
    lit = lr + light                         # the reference as the new light would show it
    if tolerance:
        darker, brighter = _strays(lc, lit)
    else:
        darker, brighter = np.maximum(0.0, lit - lc), np.maximum(0.0, lc - lit)
    diff = np.maximum(darker, brighter)
    # a channel clipped in both pictures (glare, overexposure) says nothing; clipped in one only,
    # it still bounds the ratio: a block that was clipped white and is now darker than the light
    # explains (an arm over a white margin) has changed; so has one now clipped that was darker.
    # The light there is the smooth light of the unclipped board (:func:`smooth_light`): a clipped
    # neighbourhood's own ratios are bounds too, and a lamp's fall-off towards a white margin is
    # no arm
    ref_clip, cur_clip = ref[..., 3:] >= 0.1, cur[..., 3:] >= 0.1
    usable = ~ref_clip & ~cur_clip
    inside = view.visible if view is not None else np.ones(ratio.shape[:2], bool)
    usable_all = usable[..., 0] & usable[..., 1] & usable[..., 2]
    pool = usable_all & inside
    expected = smooth_light(ratio[..., :3], pool)
    one_sided = np.where(ref_clip & ~cur_clip, np.maximum(0.0, expected - ratio[..., :3]),
                         np.where(cur_clip & ~ref_clip, np.maximum(0.0, ratio[..., :3] - expected), 0.0))
    residual = _most(np.where(usable, diff[..., :3], one_sided))
    chroma = np.where(usable_all, _most(diff[..., 3:]), 0.0)
    # glare: a block clipped in every channel in one picture, whose clipping changed more than the
    # light explains (an exposure step clips and unclips whole bright areas; a lamp's reflection
    # whitens a spot the light around it does not)
    expected = np.exp(lit[..., :3]) - 8.0                 # the reference under the new light
    unexplained = (cur_clip & ~ref_clip & (expected < 0.94 * CLIPPED)) | (ref_clip & ~cur_clip & (cur[..., :3] < 0.85 * expected))
    glare = (~(usable[..., 0] | usable[..., 1] | usable[..., 2]) & (_most(np.abs(cur[..., 3:] - ref[..., 3:])) > 0.25)
             & (unexplained[..., 0] | unexplained[..., 1] | unexplained[..., 2]))
    gain = light[..., :3].reshape(-1, 3)
    if view is not None:
        residual = np.where(view.visible, residual, 0.0)
        chroma = np.where(view.visible, chroma, 0.0)
        glare &= view.visible
        gain = light[..., :3][view.visible] if view.visible.any() else np.zeros((1, 3), np.float32)
    spread = _most(np.abs(gain - np.median(gain, axis=0)))
    return (residual.astype(np.float32), chroma.astype(np.float32), glare,
            bool(np.percentile(spread, 75) > 0.08))


#: smallest number of unclipped blocks a quadratic light field is fitted on (fewer: the median)
SMOOTH_MIN_BLOCKS = 60
SMOOTH_OUTLIER = 0.1        #: blocks further than this (log ratio) from the first fit are left out of the second


def smooth_light(ratio: np.ndarray, pool: np.ndarray) -> np.ndarray:
    """The light's log gain as a smooth field over the whole board: a quadratic in the block
    coordinates, fitted by least squares to the log ratios of the ``pool`` blocks, then again
    without the blocks further than :data:`SMOOTH_OUTLIER` from the first fit (pieces, a hand).

    A lamp, a warmer white balance or a cloud multiply the board by a gain that varies slowly
    (von Kries; a lamp's pool falls off over the whole mat), so the field extends from the
    unclipped board to its clipped white margins; an arm over a margin is a local step off it.
    Its values are kept within the range the pool shows, so the fit is never extrapolated far.

    Parameters
    ----------
    ratio : (bh, bw, c) float32
        Log ratios of the block means (current over reference), per channel.
    pool : (bh, bw) bool
        Blocks whose ratios are measured (in view, clipped in neither picture).

    Returns
    -------
    (bh, bw, c) float32
        The fitted log gain; the pool's median everywhere when it has fewer than
        :data:`SMOOTH_MIN_BLOCKS` blocks; zeros when it is empty.
    """
    h, w, c = ratio.shape
    n = int(np.count_nonzero(pool))
    if n == 0:
        return np.zeros((h, w, c), np.float32)
    values = ratio[pool]
    median = np.median(values, axis=0)
    if n < SMOOTH_MIN_BLOCKS:
        return np.broadcast_to(median.astype(np.float32), (h, w, c)).copy()
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    ys, xs = 2 * ys / max(1, h - 1) - 1, 2 * xs / max(1, w - 1) - 1
    design = np.dstack([np.ones_like(xs), xs, ys, xs * xs, xs * ys, ys * ys])
    a, step = design[pool], max(1, n // 3000)
    a, b = a[::step], values[::step]
    keep = np.ones(len(a), bool)
    for _ in range(2):
        coef = np.linalg.lstsq(a[keep], b[keep], rcond=None)[0]
        off = np.abs(a @ coef - b).max(axis=1)
        keep = off <= SMOOTH_OUTLIER
        if keep.sum() < SMOOTH_MIN_BLOCKS:
            return np.broadcast_to(median.astype(np.float32), (h, w, c)).copy()
    field = design.reshape(-1, 6) @ coef
    field = np.clip(field, values.min(axis=0), values.max(axis=0))
    return field.reshape(h, w, c).astype(np.float32)


_OPEN = cv2.getStructuringElement(cv2.MORPH_RECT, (2, 2))


def blobs(mask: np.ndarray) -> np.ndarray:
    """The blocks of ``mask`` ``(bh, bw) bool`` that belong to a blob at least 2x2 blocks wide (a
    morphological opening drops isolated blocks: sensor and compression noise). ``(bh, bw) bool``."""
    return cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_OPEN, _OPEN).astype(bool)


def largest_blob(mask: np.ndarray) -> int:
    """The number of blocks in the largest 8-connected blob of ``mask`` ``(bh, bw) bool``
    (0 when it is empty)."""
    if not mask.any():
        return 0
    _count, _labels, stats, _centroids = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
    return int(stats[1:, cv2.CC_STAT_AREA].max())


def with_evidence(mask: np.ndarray, evidence: np.ndarray, min_blocks: int = 1) -> np.ndarray:
    """The blobs (8-connected) of ``mask`` that hold at least ``min_blocks`` blocks of
    ``evidence`` (both ``(bh, bw) bool``). A soft shadow darkens a blob of blocks but changes
    neither their hue nor their detail; a piece, a hand or an arm does. ``(bh, bw) bool``."""
    if not mask.any():
        return mask
    count, labels = cv2.connectedComponents(mask.astype(np.uint8), connectivity=8)
    hits = np.bincount(labels[evidence & mask], minlength=count)
    keep = hits >= min_blocks
    keep[0] = False
    return keep[labels]


def arms(changed: np.ndarray, view: View, min_blocks: float, evidence: np.ndarray | None = None,
         min_evidence: int = 1) -> np.ndarray:
    """The blobs of changed blocks that reach the edge of the view and whose core (what a 2x2
    opening keeps of them: :func:`blobs`) covers at least ``min_blocks`` blocks: an arm or a hand
    over the board (it comes in from outside), not a piece, and not the thin seam a shake leaves
    along the edge of the view.

    Parameters
    ----------
    changed : (bh, bw) bool
        Changed blocks, thin parts included.
    view : View
    min_blocks : float
        See :func:`arm_blocks`.
    evidence : (bh, bw) bool, optional
        Blocks changed in a way light cannot change them (hue, detail); a blob needs
        ``min_evidence`` of them: a person's soft shadow reaching in from the edge is no arm.

    Returns
    -------
    (bh, bw) bool
        The blocks of those blobs (all False when there is none).
    """
    count, labels = cv2.connectedComponents(changed.astype(np.uint8), connectivity=8)
    if count <= 1:
        return np.zeros_like(changed, bool)
    touching = np.unique(labels[view.edge & changed])
    core = np.bincount(labels[blobs(changed)], minlength=count)
    hits = np.bincount(labels[changed & evidence], minlength=count) if evidence is not None else core
    big = [lab for lab in touching if lab and core[lab] >= min_blocks and hits[lab] >= min_evidence]
    return np.isin(labels, big) if big else np.zeros_like(changed, bool)


def arm_blocks(cell_blocks: float) -> float:
    """How many blocks a blob reaching in from the edge must cover to be an arm: ``ARM_CELLS``
    cells (boxes of ``cell_blocks``), or ``ARM_MM2`` if that is less (a hand over a board of big
    cells covers fewer of them). A piece, a stone or a tile on an edge cell covers one cell at most."""
    return min(ARM_CELLS * cell_blocks, ARM_MM2 / BLOCK_MM ** 2)


TEXTURE_BLUR_MM = 2.0       #: pre-blur of the structure picture (a shake of a pixel or two decorrelates nothing)
TEXTURE_SCALE_MM = 5.0      #: what the structure picture keeps: detail finer than this (lines, print, edges)
TEXTURE_CONTRAST = 0.04     #: local contrast (share of the local mean) below which a block is plain


def structure(img: np.ndarray, px_per_mm: float, inside: np.ndarray | None = None) -> np.ndarray:
    """Local-contrast-normalised detail of a rectified board: ``(g - G_s * g) / (G_l * g + 8)``
    of its blurred grey ``g`` (``G_s``, ``G_l``: Gaussian blurs of ``TEXTURE_SCALE_MM`` and twice
    that). A gain of the light divides out, and a soft shadow's slow ramp has no detail, so the
    result changes under a new light only where a shadow's edge is sharp. Pixels out of the
    camera frame (``inside`` 0) first take the blurred colour of those in it, so the edge of the
    view is no detail. ``(h, w) float32``."""
    gray = (cv2.cvtColor(img, cv2.COLOR_BGR2GRAY) if img.ndim == 3 else img).astype(np.float32)
    if inside is not None and not inside.all():
        weight = (inside > 0).astype(np.float32)
        sigma = 2 * TEXTURE_SCALE_MM * px_per_mm
        fill = cv2.GaussianBlur(gray * weight, (0, 0), sigma) / np.maximum(cv2.GaussianBlur(weight, (0, 0), sigma), 1e-3)
        gray = np.where(weight > 0, gray, fill)
    g = cv2.GaussianBlur(gray, (0, 0), TEXTURE_BLUR_MM * px_per_mm)
    low = cv2.GaussianBlur(g, (0, 0), TEXTURE_SCALE_MM * px_per_mm)
    wide = cv2.GaussianBlur(g, (0, 0), 2 * TEXTURE_SCALE_MM * px_per_mm)
    return (g - low) / (wide + 8.0)


def structure_change(ref: np.ndarray, cur: np.ndarray, shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """How much the detail of each block's 3x3-block neighbourhood changed, light aside.

    Parameters
    ----------
    ref, cur : (h, w) float32
        :func:`structure` of the two pictures (aligned).
    shape : (bh, bw)
        The block grid.

    Returns
    -------
    (change, textured)
        ``(bh, bw) float32`` one minus the normalised correlation of the two details (0: the
        same pattern, whatever its contrast; 1: unrelated), 0 where neither has detail;
        ``(bh, bw) bool`` blocks where both pictures have detail (a local contrast above
        :data:`TEXTURE_CONTRAST`): there, an unchanged pattern means an unchanged surface.
    """
    size = (shape[1], shape[0])
    prods = np.dstack([ref * ref, cur * cur, ref * cur])
    sums = cv2.boxFilter(cv2.resize(prods, size, interpolation=cv2.INTER_AREA), -1, (3, 3),
                         borderType=cv2.BORDER_REPLICATE)
    rr, cc, rc = sums[..., 0], sums[..., 1], sums[..., 2]
    floor = TEXTURE_CONTRAST ** 2
    zncc = rc / np.sqrt(np.maximum(rr, floor) * np.maximum(cc, floor))
    detail_r, detail_c = rr > floor, cc > floor
    change = np.where(detail_r | detail_c, 1.0 - zncc, 0.0).astype(np.float32)
    return change, detail_r & detail_c
