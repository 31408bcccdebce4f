"""A tile's picture laid on its cell and fitted to it: what the picture explains of the cell.

The owner's picture of the tile matched on a cell (:mod:`.desert_flat`: which picture, where,
turned how) predicts what the camera should see there (:func:`place_picture`). A per-channel
gain and offset (the light, the exposure and the white balance of this frame,
:func:`photometric_fit`) fits the prediction to the rectified cell (:func:`cell_crop`); what
the fit leaves is whatever lies on the tile (:class:`Residual`, read by :mod:`.desert_pieces`),
and how much of the tile each candidate picture explains weighs in reading the face
(:func:`explained_shares`).

Coordinates: mat mm; crops ``(H, W, 3)`` at ``PPM`` px per mm, pixel (0, 0) at the crop's
top-left mat point.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, NamedTuple

import cv2
import numpy as np

#: resolution of the cell crops, px per mm
PPM = 1.5
#: half side of a cell crop, mm (a 70 mm cell and a little around it)
HALF_MM = 38.0
#: the tile's border left out of the fit and of the blobs, mm (its edge, its rounded corners)
BORDER_MM = 2.5
#: smoothing applied to both the crop and the predicted tile before comparing, mm
SMOOTH_MM = 0.8
#: :func:`fit_picture` fits every this many rows and columns of the tile (1: every pixel; 2
#: fits a quarter of them, a full-table read about 10 % faster, for the set-up read's 0.5 s)
FIT_STRIDE = 2
#: a pixel is an occluder when its residual exceeds this many robust standard deviations
RESIDUAL_SIGMAS = 4.0


@dataclass(frozen=True)
class Residual:
    """One cell's comparison with its tile's picture.

    Attributes
    ----------
    crop : (H, W, 3) float32
        The rectified cell, BGR 0..255, smoothed.
    predicted : (H, W, 3) float32
        The picture after the photometric fit.
    tile : (H, W) bool
        Where the tile lies (less ``BORDER_MM``).
    occluded : (H, W) bool
        Pixels of the tile the picture does not explain.
    gain, offset : (3,) float32
        The fit: ``crop ~ gain * picture + offset`` per channel.
    origin_mm : (x, y)
        The mat point of the crop's pixel (0, 0).
    noise : float
        Robust standard deviation of the residual on the tile, grey levels.
    """

    crop: np.ndarray
    predicted: np.ndarray
    tile: np.ndarray
    occluded: np.ndarray
    gain: np.ndarray
    offset: np.ndarray
    origin_mm: tuple
    noise: float

    def in_picture_light(self, bgr: np.ndarray) -> np.ndarray:
        """Colours ``(..., 3)`` of this crop brought into the light of the owner's picture
        (the fit undone): ``(bgr - offset) / gain``, float32."""
        return (np.asarray(bgr, np.float32) - self.offset) / np.maximum(self.gain, 1e-3)


def place_picture(picture: np.ndarray, picture_ppm: float, tile_mm: float, turn: int, centre_mm, origin_mm,
                  shape, ppm: float = PPM) -> tuple[np.ndarray, np.ndarray]:
    """The picture of a tile laid on a crop: ``(image (H, W, 3) float32, mask (H, W) bool)``.

    ``picture`` ``(h, w, 3) uint8`` is the flattened picture at ``picture_ppm``; the tile is
    ``tile_mm`` square, turned ``turn`` quarter turns clockwise, centred on ``centre_mm``; the
    crop's pixel (0, 0) is at ``origin_mm`` and its size ``shape`` (H, W) at ``ppm``."""
    img = np.rot90(picture, -turn) if turn % 4 else picture
    side = tile_mm * ppm
    sx, sy = side / img.shape[1], side / img.shape[0]
    cx, cy = (centre_mm[0] - origin_mm[0]) * ppm, (centre_mm[1] - origin_mm[1]) * ppm
    m = np.array([[sx, 0, cx - side / 2], [0, sy, cy - side / 2]], np.float64)
    out = cv2.warpAffine(np.ascontiguousarray(img), m, (shape[1], shape[0]), flags=cv2.INTER_AREA,
                         borderMode=cv2.BORDER_CONSTANT)
    mask = np.zeros(shape[:2], np.uint8)
    inset = BORDER_MM * ppm
    x0, y0 = int(round(cx - side / 2 + inset)), int(round(cy - side / 2 + inset))
    x1, y1 = int(round(cx + side / 2 - inset)), int(round(cy + side / 2 - inset))
    mask[max(y0, 0):max(y1, 0), max(x0, 0):max(x1, 0)] = 1
    return out.astype(np.float32), mask.astype(bool)


def _median(values: np.ndarray):
    """The median along the last axis as ``np.median`` gives it (the mean of the two middle
    values when their number is even): of a 1-D array a scalar, of ``(R, N)`` rows ``(R,)``,
    in ``values``' dtype. One ``np.partition`` at the upper middle ``k = N // 2``; when ``N``
    is even the lower middle value is the largest of those before ``k``: several times faster
    on the few thousand values of a tile than ``np.median`` or a partition at two places."""
    n = values.shape[-1]
    k = n // 2
    part = np.partition(values, k, axis=-1)
    if n % 2:
        return part[..., k]
    return (part[..., :k].max(axis=-1) + part[..., k]) / values.dtype.type(2)


def bounding_box(mask: np.ndarray) -> tuple[slice, slice] | None:
    """The smallest rectangle holding every True pixel of ``mask`` ``(H, W) bool``, as
    ``(rows, columns)`` slices; None when it has none."""
    ys, xs = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    if not len(ys):
        return None
    return slice(ys[0], ys[-1] + 1), slice(xs[0], xs[-1] + 1)


def _rectangle(mask: np.ndarray) -> tuple[slice, slice] | None:
    """The rows and columns of ``mask`` ``(H, W) bool`` when its pixels fill a rectangle (a
    tile's, :func:`place_picture`), else None."""
    box = bounding_box(mask)
    if box and (box[0].stop - box[0].start) * (box[1].stop - box[1].start) == np.count_nonzero(mask):
        return box
    return None


def _channel_rows(image: np.ndarray, mask: np.ndarray, box: tuple | bool = True) -> np.ndarray:
    """The pixels of ``mask`` ``(H, W) bool`` in ``image`` ``(H, W, 3)``, channel by channel:
    ``(3, N)`` contiguous, in row-major pixel order (a rectangle mask is sliced, not indexed).
    ``box``: the mask's :func:`_rectangle` when the caller has it (True: find it here)."""
    box = _rectangle(mask) if box is True else box
    if box:
        return np.ascontiguousarray(image[box].reshape(-1, image.shape[2]).T)
    return np.ascontiguousarray(image[mask].T)


def photometric_fit(crop: np.ndarray, predicted: np.ndarray, mask: np.ndarray,
                    rounds: int = 4) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Per-channel ``crop ~ gain * predicted + offset`` over ``mask``, robust to up to about
    half of the tile being covered: it starts from the median offset at unit gain, then fits by
    least squares over the pixels within 2.5 robust standard deviations (1.4826 x the median
    absolute residual of the last inliers) of the last fit, ``rounds`` times (fewer when the
    inliers stop changing: the rounds left would repeat the last).

    Only the pixels of ``mask`` are looked at (the inliers are always among them): they are
    gathered once, channel by channel (``(3, N)``), and each channel's least-squares line is
    the closed form (covariance over variance, in float64, as ``np.linalg.lstsq`` computes).

    Parameters
    ----------
    crop, predicted : (H, W, 3) float32
    mask : (H, W) bool

    Returns
    -------
    (gain (3,) float32, offset (3,) float32, inliers (H, W) bool, noise float)
        ``noise`` is the robust standard deviation of the inliers' residual, grey levels.
    """
    y_all, x_all = _channel_rows(crop, mask), _channel_rows(predicted, mask)      # (3, N) float32
    gain, offset, use, noise = fit_rows(y_all, x_all, rounds)
    inliers = np.zeros(mask.shape, bool)
    inliers[mask] = use
    return gain, offset, inliers, noise


def fit_rows(y_all: np.ndarray, x_all: np.ndarray, rounds: int = 4) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """:func:`photometric_fit` on the tile's pixels gathered channel by channel: ``y_all``
    (seen) and ``x_all`` (predicted) ``(3, N) float32``. Returns ``(gain (3,) float32, offset
    (3,) float32, inliers (N,) bool, noise float)``."""
    gain = np.ones(3, np.float32)
    offset = np.zeros(3, np.float32)
    n_all = y_all.shape[1]
    if n_all:
        offset = _median(y_all - x_all).astype(np.float32)
    x64, y64 = x_all.astype(np.float64), y_all.astype(np.float64)
    moments = np.concatenate([x64, y64, x64 * x64, x64 * y64])                    # (12, N)
    use = np.ones(n_all, bool)
    noise = 255.0
    d = np.empty_like(y_all)
    for r in range(rounds):
        np.multiply(x_all, gain[:, None], out=d)                # d = |y - (x * gain + offset)|
        d += offset[:, None]
        np.subtract(y_all, d, out=d)
        np.abs(d, out=d)
        res = np.maximum(np.maximum(d[0], d[1]), d[2])
        noise = 1.4826 * float(_median(res[use])) + 1.0 if use.any() else 255.0
        last, use = use, res < 2.5 * noise
        n = int(np.count_nonzero(use))
        if n < 50:
            break
        if r and np.array_equal(use, last):
            # the same inliers as the fit they came from: it would fit the same line, and every
            # later round repeat this one (same residual, noise and inliers): a fixed point
            break
        sums = (moments @ use.astype(np.float64)).tolist()         # over the inliers: x, y, x^2, xy
        for c in range(3):                                   # (Python floats: the same IEEE doubles, faster)
            sx, sy, sxx, sxy = sums[c], sums[3 + c], sums[6 + c], sums[9 + c]
            var, cov = sxx - sx * sx / n, sxy - sx * sy / n
            if var > 1e-9 * max(sxx, 1.0):
                g = cov / var
                o = (sy - g * sx) / n
            else:                                            # a flat picture: the minimum-norm line
                (g, o), *_ = np.linalg.lstsq(np.vstack([x64[c, use], np.ones(n)]).T, y64[c, use], rcond=None)
            gain[c], offset[c] = max(g, 0.05), o
    return gain, offset, use, noise


def residual(frame: np.ndarray, homography: np.ndarray, layout, cell, picture: np.ndarray, picture_ppm: float,
             tile_mm: float, turn: int, centre_mm, ppm: float = PPM) -> Residual:
    """Compare ``cell`` (a key of ``layout``) in an undistorted ``frame`` ``(H, W, 3) uint8``
    (mat mm -> px ``homography``) with the picture of the tile matched there (see
    :func:`place_picture` for the picture's parameters)."""
    crop, origin = cell_crop(frame, homography, layout, cell, ppm)
    return residual_of_fit(crop, origin, fit_picture(crop, picture, picture_ppm, tile_mm, turn, centre_mm, origin, ppm))


class Fit(NamedTuple):
    """A picture laid on a cell crop and fitted to it (:func:`fit_picture`).

    Attributes
    ----------
    predicted : (H, W, 3) float32
        The placed picture, smoothed like the crop (before the fit).
    tile : (H, W) bool
        Where the tile lies, less ``BORDER_MM``.
    gain, offset : (3,) float32
        :func:`photometric_fit`'s result.
    noise : float
        Robust standard deviation of the residual, grey levels (255 when the tile is out of
        the crop).
    """

    predicted: np.ndarray
    tile: np.ndarray
    gain: np.ndarray
    offset: np.ndarray
    noise: float
    #: the tile's pixels, seen and predicted, channel by channel: ``(3, N) float32`` each
    rows: tuple | None = None


def _smoothed(placed: np.ndarray, centre_mm, origin_mm, tile_mm: float, ppm: float) -> np.ndarray:
    """``placed`` ``(H, W, 3) float32`` (:func:`place_picture`'s image: zero outside the tile)
    smoothed by a Gaussian of ``SMOOTH_MM``, as ``cv2.GaussianBlur`` smooths the whole crop, but
    only over the tile and a margin of the kernel's reach around it: outside, the crop is zero
    before and after. In place; returns ``placed``."""
    sigma = SMOOTH_MM * ppm
    reach = tile_mm * ppm / 2 + 4 * sigma + 4         # half the tile, the kernel's radius, the warp's footprint
    cx, cy = (centre_mm[0] - origin_mm[0]) * ppm, (centre_mm[1] - origin_mm[1]) * ppm
    h, w = placed.shape[:2]
    x0, x1 = max(int(cx - reach), 0), min(int(math.ceil(cx + reach)), w)
    y0, y1 = max(int(cy - reach), 0), min(int(math.ceil(cy + reach)), h)
    if x1 <= x0 or y1 <= y0:
        return placed
    placed[y0:y1, x0:x1] = cv2.GaussianBlur(np.ascontiguousarray(placed[y0:y1, x0:x1]), (0, 0), sigma)
    return placed


def fit_picture(crop: np.ndarray, picture: np.ndarray, picture_ppm: float, tile_mm: float, turn: int, centre_mm,
                origin_mm, ppm: float = PPM) -> Fit:
    """Lay a picture on a smoothed cell crop ``(H, W, 3) float32`` (:func:`cell_crop`,
    :func:`place_picture`) and fit it (:func:`photometric_fit`), on every ``FIT_STRIDE``-th
    row and column of the tile (the crop is smoothed over about two pixels, so the pixels left
    out add little the fit's three numbers per channel need)."""
    pred, tile = place_picture(picture, picture_ppm, tile_mm, turn, centre_mm, origin_mm, crop.shape, ppm)
    pred = _smoothed(pred, centre_mm, origin_mm, tile_mm, ppm)
    if not tile.any():
        return Fit(pred, tile, np.ones(3, np.float32), np.zeros(3, np.float32), 255.0)
    box = _rectangle(tile)
    rows = (_channel_rows(crop, tile, box), _channel_rows(pred, tile, box))
    if box and FIT_STRIDE > 1:
        step = tuple(slice(b.start, b.stop, FIT_STRIDE) for b in box)
        gain, offset, _inliers, noise = fit_rows(_channel_rows(crop, tile, step), _channel_rows(pred, tile, step))
    else:
        gain, offset, _inliers, noise = fit_rows(*rows)
    return Fit(pred, tile, gain, offset, noise, rows)


class TableLight(NamedTuple):
    """The light of a whole table (:func:`table_light`): per-channel ``gain``, ``offset``
    ``(3,) float32`` and ``noise`` (grey levels) of the cells whose fits went well."""

    gain: np.ndarray
    offset: np.ndarray
    noise: float


#: a table's light is taken from the fits whose noise is at most this many times the median
#: fit's, and only when there are at least ``LIGHT_CELLS`` of them (a quarter of the 24 tiles;
#: set by judgement, not tuned)
LIGHT_SPREAD, LIGHT_CELLS = 1.5, 6
#: a cell whose fit's noise exceeds this many times the table's is read in the table's light
#: (chosen on development stills, second renderer seeds 5100-5115, and set-up tables 24000-24011:
#: at 3 the dune art of tiles under a sand marker gave pawns that were not there)
BROKEN_FIT = 5.0
#: a cell whose own fit reads a sand marker and whose noise exceeds this many times the table's
#: is read in the table's light too (:meth:`~.forbidden_desert.FDDetector.read_pieces`): a
#: marker of 26-40 mm covers a quarter to a half of a 58-66 mm tile, which leaves a fit noise
#: 2-5 times the table's and, at 4 noises, nothing on the tile counted as occluded, so a pawn
#: standing on the marker left no blob (second renderer's development stills 5300-5329: 27 of
#: the 33 pawns missed stood on a tile with sand; on 5300-5319, 13 of the 21 such misses in a
#: fit 2-5 times the table's, 8 in one under 2 times)
SAND_BROKEN_FIT = 2.0


def table_light(fits: Mapping[tuple, Fit]) -> dict[tuple, TableLight]:
    """The light of the frame, from the fits of its tiles (``fits``: cell ``(r, c)`` ->
    :class:`Fit`): the per-channel median gain and offset, and the median noise, of the good
    fits (noise within ``LIGHT_SPREAD`` of the median fit's), given for every cell of ``fits``.
    Empty when fewer than ``LIGHT_CELLS`` fits are good (a table too empty to say). (The light
    of the cells around each one alone was tried, for a lamp's or the lens's fall-off across the
    table: it read no better on development stills.)"""
    noises = [f.noise for f in fits.values() if f.tile.any()]
    if len(noises) < LIGHT_CELLS:
        return {}
    limit = LIGHT_SPREAD * float(np.median(noises))
    good = [f for f in fits.values() if f.tile.any() and f.noise <= limit]
    if len(good) < LIGHT_CELLS:
        return {}
    light = TableLight(np.median([f.gain for f in good], axis=0).astype(np.float32),
                       np.median([f.offset for f in good], axis=0).astype(np.float32),
                       float(np.median([f.noise for f in good])))
    return {cell: light for cell in fits}


def in_table_light(fit: Fit, light: TableLight | None, always: bool = False) -> Fit:
    """``fit`` itself, or, when its noise exceeds ``BROKEN_FIT`` times the table's (``light``,
    the cell's of :func:`table_light`; None: nothing known) or ``always`` (a caller that has
    reason to think the fit broken without a large noise), the same picture in that light: a
    fit breaks when pieces cover more than about half of the tile (the median-based fit then explains a sand marker
    or a crowd of pawns with a low gain and a large noise, and nothing on the tile counts as
    occluded), while the light of the frame is about the same on every tile. (Only about: the
    owner's pictures were photographed in lights of their own, so the table's gain maps one
    picture less well than another; what that leaves shows as blobs of class ``other``, which
    :meth:`~.forbidden_desert.FDDetector.read_pieces` weighs before believing the reading.)

    Parameters
    ----------
    fit : Fit
        A picture fitted to its cell crop (:func:`fit_picture`; gain and offset ``(3,)
        float32``, noise in grey levels 0-255).
    light : TableLight or None
        The table's gain, offset and noise for this cell (:func:`table_light`).
    always : bool
        Take the table's light whatever the fit's noise.

    Returns
    -------
    Fit
        ``fit`` itself (the same object, so ``is`` tells whether it was replaced), or a copy
        with the table's gain, offset and noise, sharing the picture and the tile mask. Raises
        nothing.
    """
    if light is None or (fit.noise <= BROKEN_FIT * light.noise and not always):
        return fit
    return fit._replace(gain=light.gain, offset=light.offset, noise=light.noise)


def largest_channel(image: np.ndarray) -> np.ndarray:
    """``image.max(axis=2)`` of an ``(H, W, 3)`` array, by two ``np.maximum`` (several times
    faster than reducing a short last axis): ``(H, W)``, same dtype."""
    return np.maximum(np.maximum(image[..., 0], image[..., 1]), image[..., 2])


def residual_of_fit(crop: np.ndarray, origin_mm, fit: Fit) -> Residual:
    """The :class:`Residual` of a fit (:func:`fit_picture`) on ``crop`` ``(H, W, 3) float32``,
    whose pixel (0, 0) is at mat point ``origin_mm``: the occluded pixels are those of the tile
    whose largest channel's residual exceeds ``RESIDUAL_SIGMAS`` noises, opened by a 3 x 3
    square."""
    fitted = fit.predicted * fit.gain + fit.offset
    res = largest_channel(np.abs(crop - fitted))
    occ = (res > RESIDUAL_SIGMAS * fit.noise) & fit.tile
    occ = cv2.morphologyEx(occ.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)) > 0
    return Residual(crop, fitted, fit.tile, occ, fit.gain, fit.offset, origin_mm, fit.noise)


def fit_residual(crop: np.ndarray, picture: np.ndarray, picture_ppm: float, tile_mm: float, turn: int, centre_mm,
                 origin_mm, ppm: float = PPM) -> tuple[np.ndarray, np.ndarray, float]:
    """A picture laid on a cell crop and fitted (:func:`fit_picture`): ``(residual (H, W)
    float32, tile (H, W) bool, noise)``, the residual the largest channel's ``|crop - fit|``.
    ``crop`` is the smoothed rectified cell ``(H, W, 3) float32`` at ``ppm`` with pixel (0, 0)
    at ``origin_mm`` (:func:`cell_crop`)."""
    return residual_parts(crop, fit_picture(crop, picture, picture_ppm, tile_mm, turn, centre_mm, origin_mm, ppm))


def residual_parts(crop: np.ndarray, fit: Fit) -> tuple[np.ndarray, np.ndarray, float]:
    """:func:`fit_residual`'s result from a :class:`Fit` on ``crop``."""
    if not fit.tile.any():
        return np.zeros(crop.shape[:2], np.float32), fit.tile, 255.0
    return largest_channel(np.abs(crop - (fit.predicted * fit.gain + fit.offset))), fit.tile, fit.noise


def tile_residual(crop: np.ndarray, fit: Fit) -> tuple[np.ndarray, np.ndarray, float]:
    """:func:`residual_parts` on the tile's pixels only: ``(residual (N,) float32, (N,) bool
    all True, noise)``, N the tile's pixels in row-major order; what
    :func:`explained_shares` needs, without the crop around the tile."""
    if not fit.tile.any():
        return np.zeros(0, np.float32), np.zeros(0, bool), 255.0
    seen, pred = fit.rows or (_channel_rows(crop, fit.tile), _channel_rows(fit.predicted, fit.tile))   # (3, N)
    res = largest_channel(np.abs(seen - (pred * fit.gain[:, None] + fit.offset[:, None])).T)
    return res, np.ones(len(res), bool), fit.noise


def explained_shares(fits: dict) -> dict:
    """How much of its tile each candidate picture explains, on one scale: ``fits`` maps a
    label to :func:`fit_residual`'s result; the scale is the smallest noise among them (the
    right picture fits best), and a candidate's share is the part of its tile whose residual is
    within ``EXPLAINED_SIGMAS`` of it, 0..1. The right picture explains all of the tile but
    what lies on it (half of a dune back under a sand marker); a wrong one only where its
    colours happen to agree."""
    if not fits:
        return {}                   # (a residual and its tile may also be 1-D: :func:`tile_residual`)
    scale = min(noise for _res, _tile, noise in fits.values())
    return {lab: float((res[tile] < EXPLAINED_SIGMAS * scale).mean()) if tile.any() else 0.0
            for lab, (res, tile, _noise) in fits.items()}


#: see explained_shares
EXPLAINED_SIGMAS = 3.0


def cell_crop(frame: np.ndarray, homography: np.ndarray, layout, cell, ppm: float = PPM) -> tuple[np.ndarray, tuple]:
    """The smoothed rectified cell as :func:`residual` compares it: ``((H, W, 3) float32,
    origin_mm)``."""
    from ..rectify import rectify

    cx, cy = layout.cell(cell).center_mm
    origin = (cx - HALF_MM, cy - HALF_MM)
    crop = rectify(frame, homography, layout, ppm, (*origin, cx + HALF_MM, cy + HALF_MM), cv2.INTER_AREA)
    return cv2.GaussianBlur(crop.astype(np.float32), (0, 0), SMOOTH_MM * ppm), origin
