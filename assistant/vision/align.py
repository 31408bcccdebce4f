"""Aligning a rectified board to a reference picture of it, so that a few pixels of shake are not
taken for a change.

A wobbly camera mount, a mat nudged by an elbow, or a registration that re-fits its corners on
every frame all move the rectified board by a few pixels from frame to frame: every grid line and
tile edge then looks changed. :class:`Aligner` estimates the residual warp between a reference
picture and a new one with OpenCV's enhanced correlation coefficient maximisation
(``cv2.findTransformECC``, Evangelidis and Psarakis, IEEE PAMI 30(10), 2008), coarse to fine at a
quarter and half of the rectified resolution, masked to the part of the board the camera sees,
with a homography as the motion model (one corner of the picture may move while the others stay,
as when a tracker re-fits one corner). It aligns the high-passed log of the grey pictures: a gain
of the light is an offset in the log and the high-pass removes it, together with soft shadows and
hotspots, which would otherwise pull the warp; ECC itself is invariant to a gain and an offset of
the whole picture. Hands and new pieces are a small part of the picture and barely pull it.

A warp that moves the board further than ``max_shift_px``, or a correlation below
``min_correlation`` after it, is not trusted: the caller then compares without alignment (and a
board that really moved is a bump, reported as such).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

#: ECC passes: (resolution as a share of the rectified board's, iterations); coarse to fine
ALIGN_PASSES = ((0.25, 20), (0.5, 5))
ALIGN_EPS = 1e-3
#: the aligned pictures keep detail finer than this (as a share of the board's side): a person's
#: soft shadow or a lamp's hotspot is slower and drops out, so it cannot pull the warp
HIGHPASS_SIGMA = 0.04
MAX_SHIFT_PX = 40.0         #: a warp moving a corner of the board further than this is not trusted
MIN_CORRELATION = 0.5       #: ECC's correlation coefficient below which the warp is not trusted


@dataclass(frozen=True)
class Alignment:
    """A warp between the reference and a new picture of the board.

    Attributes
    ----------
    warp : (3, 3) float64
        Homography from reference pixels to new-picture pixels (rectified-board pixels).
    shift_px : float
        How far it moves the corners of the board's part in view, the largest, rectified pixels.
    correlation : float
        ECC's correlation coefficient after warping (1.0: identical up to gain and offset).
    """

    warp: np.ndarray
    shift_px: float
    correlation: float


def _detail(img: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """High-passed log grey of ``img`` at ``size`` (w, h): ``log(g + 8) - G * log(g + 8)`` with a
    Gaussian ``G`` of ``HIGHPASS_SIGMA`` times the board's side (computed at an eighth of the
    size: it is smooth). ``(h, w) float32``."""
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY) if img.ndim == 3 else img
    log = np.log(cv2.resize(gray, size, interpolation=cv2.INTER_AREA).astype(np.float32) + 8.0)
    tiny = (max(4, size[0] // 8), max(4, size[1] // 8))
    sigma = HIGHPASS_SIGMA * max(tiny)
    low = cv2.GaussianBlur(cv2.resize(log, tiny, interpolation=cv2.INTER_AREA), (0, 0), sigma)
    return log - cv2.resize(low, size, interpolation=cv2.INTER_LINEAR)


class Aligner:
    """Aligns new pictures of the board to one reference picture.

    Parameters
    ----------
    reference : (h, w, 3) or (h, w) uint8
        The rectified reference board.
    inside : (h, w) bool or uint8, optional
        Pixels of the rectified board that come from inside the camera frame (default: all).
    max_shift_px, min_correlation : float
        See the module docstring.
    """

    def __init__(self, reference: np.ndarray, inside: np.ndarray | None = None,
                 max_shift_px: float = MAX_SHIFT_PX, min_correlation: float = MIN_CORRELATION):
        h, w = reference.shape[:2]
        self.shape = (h, w)
        inside = np.ones((h, w), np.uint8) if inside is None else (np.asarray(inside) > 0).astype(np.uint8)
        fine = max(scale for scale, _ in ALIGN_PASSES)
        self.size = (max(16, int(round(w * fine))), max(16, int(round(h * fine))))
        detail = _detail(reference, self.size)
        mask = cv2.resize(inside, self.size, interpolation=cv2.INTER_NEAREST)
        self.passes = []
        for scale, iterations in ALIGN_PASSES:
            size = (max(8, int(round(w * scale))), max(8, int(round(h * scale))))
            # keep off the edge of the view: pixels there mix board and black
            m = cv2.erode(cv2.resize(mask, size, interpolation=cv2.INTER_NEAREST), np.ones((5, 5), np.uint8))
            self.passes.append((size, iterations, cv2.resize(detail, size, interpolation=cv2.INTER_AREA), m))
        ys, xs = np.nonzero(inside)
        if len(xs):
            x0, x1, y0, y1 = xs.min(), xs.max(), ys.min(), ys.max()
        else:
            x0, y0, x1, y1 = 0, 0, w - 1, h - 1
        self.corners = np.array([[[x0, y0]], [[x1, y0]], [[x1, y1]], [[x0, y1]]], np.float64)
        self.max_shift_px, self.min_correlation = max_shift_px, min_correlation
        size, _, ref, m = self.passes[-1]
        self.textured = bool(m.any()) and float(ref[m > 0].std()) > 0.02
        self._window: np.ndarray | None = None

    def align(self, image: np.ndarray, start: np.ndarray | None = None) -> Alignment | None:
        """Estimate the warp from the reference to ``image``.

        Parameters
        ----------
        image : (h, w, 3) or (h, w) uint8
            A rectified board of the reference's size.
        start : (3, 3), optional
            A first guess (e.g. the previous frame's warp); by default the shift phase
            correlation finds between the two pictures (``cv2.phaseCorrelate``: a camera that
            shakes mostly shifts the picture, by more than ECC reaches from no guess).

        Returns
        -------
        Alignment or None
            None when the reference has no texture to align on, ECC does not converge, or the
            warp is not trusted (see the module docstring).
        """
        if not self.textured or image.shape[:2] != self.shape:
            return None
        detail = _detail(image, self.size)
        full = self._shift(detail) if start is None else np.asarray(start, np.float64)
        cc = 0.0
        for size, iterations, ref, mask in self.passes:
            scale = np.diag([size[0] / self.shape[1], size[1] / self.shape[0], 1.0])
            warp = (scale @ full @ np.linalg.inv(scale)).astype(np.float32)
            cur = cv2.resize(detail, size, interpolation=cv2.INTER_AREA)
            try:
                cc, warp = cv2.findTransformECC(ref, cur, warp, cv2.MOTION_HOMOGRAPHY,
                                                (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, iterations,
                                                 ALIGN_EPS), mask, 3)
            except cv2.error:
                return None
            full = np.linalg.inv(scale) @ warp.astype(np.float64) @ scale
            if not np.isfinite(full).all():
                return None
        moved = cv2.perspectiveTransform(self.corners, full) - self.corners
        shift = float(np.max(np.linalg.norm(moved.reshape(-1, 2), axis=1)))
        if shift > self.max_shift_px or cc < self.min_correlation:
            return None
        return Alignment(full, shift, float(cc))


    def _shift(self, detail: np.ndarray) -> np.ndarray:
        """The translation (a homography) phase correlation finds from the reference to
        ``detail`` at the coarsest pass's resolution; identity when it is not clear."""
        size, _, ref, mask = self.passes[0]
        cur = cv2.resize(detail, size, interpolation=cv2.INTER_AREA)
        if self._window is None:
            self._window = cv2.createHanningWindow(size, cv2.CV_32F) * (mask > 0)
        (dx, dy), response = cv2.phaseCorrelate(ref * (mask > 0), cur * (mask > 0), self._window)
        if not (np.isfinite(dx) and np.isfinite(dy)) or response < 0.05:
            return np.eye(3)
        sx, sy = self.shape[1] / size[0], self.shape[0] / size[1]
        return np.array([[1.0, 0.0, dx * sx], [0.0, 1.0, dy * sy], [0.0, 0.0, 1.0]])


def warp_back(image: np.ndarray, alignment: Alignment, interpolation: int = cv2.INTER_LINEAR) -> np.ndarray:
    """``image`` resampled onto the reference's pixels: pixel ``x`` of the result is pixel
    ``warp(x)`` of ``image`` (black outside it). Same shape and dtype as ``image``."""
    h, w = image.shape[:2]
    return cv2.warpPerspective(image, alignment.warp, (w, h), flags=interpolation | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_CONSTANT)
