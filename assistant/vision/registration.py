"""Board registration: ArUco corner markers -> the homography from mat millimetres to pixels.

:func:`register` fits one homography to every visible marker corner (``cv2.findHomography``
with RANSAC) and fails, falsy and with a reason, when fewer than 3 of the mat's 4 markers are
seen. :class:`BoardTracker` keeps the last good homography through blur and arms (field
reports F1, F9), flags such frames as occluded, re-registers when the board is bumped (F4),
says "board not found" without raising when it is gone (F5), and takes four clicked corners
instead of markers in manual mode.

Markers are detected with sub-pixel corner refinement, so their corners stay within a pixel
of the truth at any in-plane rotation (F2).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .mats import ARUCO_DICTIONARY, MatLayout

MIN_MARKERS = 3
RANSAC_PX = 3.0
BUMP_PX = 2.0          #: a play-area corner moving further than this between registrations is a bump
JITTER_PX = 0.5        #: smaller moves are detection noise and keep the previous homography


def make_detector() -> cv2.aruco.ArucoDetector:
    """An ``ArucoDetector`` for the mats' dictionary with sub-pixel corner refinement."""
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, ARUCO_DICTIONARY))
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    params.cornerRefinementWinSize = 4
    # a window of half a module: the default 0.3 leaves corners up to 1.3 px off at some
    # in-plane angles; 0.5 keeps them within 0.45 px at 0-35 degrees of tilt (field report F2)
    params.relativeCornerRefinmentWinSize = 0.5
    params.cornerRefinementMaxIterations = 40
    params.cornerRefinementMinAccuracy = 0.01
    return cv2.aruco.ArucoDetector(dictionary, params)


#: Markers a mat has; with fewer found, a second pass looks at a sharpened frame.
MAT_MARKERS = 4
#: Unsharp mask of the second pass: Gaussian sigma (px) and amount (out = (1 + a) * g - a * blur).
UNSHARP_SIGMA_PX, UNSHARP_AMOUNT = 2.5, 2.0


def _find(gray: np.ndarray, detector: cv2.aruco.ArucoDetector) -> dict[int, np.ndarray]:
    corners, ids, _rejected = detector.detectMarkers(gray)
    out: dict[int, np.ndarray] = {}
    if ids is None:
        return out
    for quad, marker_id in zip(corners, ids.ravel()):
        pts = quad.reshape(4, 2).astype(np.float32)
        key = int(marker_id)
        if key not in out or cv2.contourArea(pts) > cv2.contourArea(out[key]):
            out[key] = pts
    return out


def unsharp(gray: np.ndarray, sigma_px: float = UNSHARP_SIGMA_PX, amount: float = UNSHARP_AMOUNT) -> np.ndarray:
    """Unsharp mask of a ``(H, W) uint8`` image: ``(1 + amount) * gray - amount * GaussianBlur(gray,
    sigma_px)``, saturated to uint8 (``cv2.addWeighted``). Restores the edge contrast a defocused
    lens (Gaussian blur of 1.5-2.5 px) takes from small markers."""
    return cv2.addWeighted(gray, 1.0 + amount, cv2.GaussianBlur(gray, (0, 0), sigma_px), -amount, 0.0)


def detect_markers(gray: np.ndarray, detector: cv2.aruco.ArucoDetector) -> dict[int, np.ndarray]:
    """Markers in a frame.

    A first pass reads the frame as it is. When it finds fewer than :data:`MAT_MARKERS`, a second
    pass reads an unsharp-masked copy (:func:`unsharp`): a blurred webcam (defocus of about 2 px)
    leaves 30-40 px markers too soft for the adaptive threshold (field report F1); markers found
    by the first pass keep its corners.

    Parameters
    ----------
    gray : (H, W) uint8 or (H, W, 3) uint8 BGR
    detector : cv2.aruco.ArucoDetector

    Returns
    -------
    dict
        Marker id -> ``(4, 2) float32`` image corners (TL, TR, BR, BL of the marker), pixels.
        When an id is seen twice, the larger instance is kept.
    """
    if gray.ndim == 3:
        gray = cv2.cvtColor(gray, cv2.COLOR_BGR2GRAY)
    out = _find(gray, detector)
    if len(out) < MAT_MARKERS:
        for key, pts in _find(unsharp(gray), detector).items():
            out.setdefault(key, pts)
    return out


@dataclass(frozen=True)
class Registration:
    """A fitted board pose.

    Attributes
    ----------
    homography : (3, 3) float64
        Mat millimetres -> image pixels.
    markers : tuple of int
        The ids used.
    rms_px : float
        RMS distance between the detected marker corners and their fitted positions, pixels.
    """

    homography: np.ndarray
    markers: tuple[int, ...]
    rms_px: float

    def __bool__(self) -> bool:
        return True


@dataclass(frozen=True)
class RegistrationFailure:
    """A registration that could not be made; falsy, with a one-sentence ``reason``."""

    reason: str
    markers: tuple[int, ...] = ()

    def __bool__(self) -> bool:
        return False


def register(markers: dict[int, np.ndarray], layout: MatLayout) -> Registration | RegistrationFailure:
    """Fit the homography from the mat's marker corners (mm) to their detected pixels.

    Parameters
    ----------
    markers : dict
        From :func:`detect_markers`.
    layout : MatLayout

    Returns
    -------
    Registration or RegistrationFailure
        Failure when fewer than 3 of the layout's markers are seen ("2 of 4 markers seen") or
        the fit degenerates.
    """
    src, dst, used = [], [], []
    for m in layout.markers:
        if m.id in markers:
            src.append(np.array(m.corners_mm, np.float32))
            dst.append(markers[m.id])
            used.append(m.id)
    if len(used) < MIN_MARKERS:
        return RegistrationFailure(f"{len(used)} of {len(layout.markers)} markers seen", tuple(used))
    src_pts, dst_pts = np.concatenate(src), np.concatenate(dst)
    homography, _inliers = cv2.findHomography(src_pts, dst_pts, cv2.RANSAC, RANSAC_PX)
    if homography is None:
        return RegistrationFailure("the marker corners do not fit one plane", tuple(used))
    fitted = cv2.perspectiveTransform(src_pts.reshape(-1, 1, 2), homography).reshape(-1, 2)
    rms = float(np.sqrt(np.mean(np.sum((fitted - dst_pts) ** 2, axis=1))))
    return Registration(homography, tuple(used), rms)


def manual_registration(corners_px: np.ndarray, layout: MatLayout) -> Registration:
    """A registration from four clicked corners of the play area (no markers needed).

    Parameters
    ----------
    corners_px : (4, 2) array
        Image pixels of the play area's top-left, top-right, bottom-right and bottom-left
        corners (row 0 lies along the first edge).
    layout : MatLayout

    Raises
    ------
    ValueError
        When ``corners_px`` is not four points.
    """
    pts = np.asarray(corners_px, np.float32).reshape(-1, 2)
    if pts.shape != (4, 2):
        raise ValueError(f"manual registration needs 4 corners, got {len(pts)}")
    x0, y0, x1, y1 = layout.play_area_mm
    src = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
    return Registration(cv2.getPerspectiveTransform(src, pts).astype(np.float64), (), 0.0)


def corner_shift_px(h_old: np.ndarray, h_new: np.ndarray, layout: MatLayout) -> float:
    """How far the play area's corners move between two homographies, pixels (the largest)."""
    x0, y0, x1, y1 = layout.play_area_mm
    pts = np.array([[[x0, y0]], [[x1, y0]], [[x1, y1]], [[x0, y1]]], np.float32)
    a = cv2.perspectiveTransform(pts, h_old).reshape(-1, 2)
    b = cv2.perspectiveTransform(pts, h_new).reshape(-1, 2)
    return float(np.max(np.linalg.norm(a - b, axis=1)))


@dataclass(frozen=True)
class TrackState:
    """What the tracker knows after a frame.

    Attributes
    ----------
    status : str
        ``"registered"`` (a fresh or still-valid fit), ``"occluded"`` (fewer than 3 markers
        now; the last good homography is kept), ``"not_found"`` (no fit yet), ``"manual"``.
    homography : (3, 3) float64 or None
    markers_seen : int
        Markers of this mat found in the frame (-1 when the frame was not searched).
    bumped : bool
        This frame re-registered a board that had moved by more than ``BUMP_PX``.
    shift_px : float
        How far the board moved at that bump.
    """

    status: str
    homography: np.ndarray | None
    markers_seen: int
    bumped: bool = False
    shift_px: float = 0.0

    @property
    def ok(self) -> bool:
        """A homography is available (fresh, kept or manual)."""
        return self.homography is not None


class BoardTracker:
    """Follows the board from frame to frame.

    Markers are searched every ``every`` frames (and on every frame until the first fit, or
    when :meth:`request` asks), which keeps the idle path cheap; between searches the last
    homography stands. With fewer than 3 markers in a searched frame the last good homography
    is kept and the frame is ``occluded``. A new fit whose play-area corners moved more than
    ``BUMP_PX`` is a bump: the new homography replaces the old one and the frame says so.

    Parameters
    ----------
    layout : MatLayout
    every : int
        Search period in frames (1 = every frame).
    manual_corners : (4, 2) array, optional
        Clicked play-area corners; the tracker then never searches for markers.
    """

    def __init__(self, layout: MatLayout, every: int = 10, manual_corners: np.ndarray | None = None):
        self.layout = layout
        self.every = max(1, every)
        self.detector = make_detector()
        self._count = 0
        self._due = True
        self.manual = manual_registration(manual_corners, layout) if manual_corners is not None else None
        self.homography = self.manual.homography if self.manual else None
        #: the last marker search found fewer than 3 markers (an arm over them, the board gone)
        self.hidden = False

    def request(self) -> None:
        """Search for the markers on the next frame (e.g. when the scene has just settled)."""
        self._due = True

    def update(self, frame: np.ndarray) -> TrackState:
        """Process one frame ``(H, W, 3) uint8`` BGR (or gray) and report the board's state."""
        if self.manual is not None:
            return TrackState("manual", self.homography, -1)
        self._count += 1
        if not (self._due or self.homography is None or self._count % self.every == 0):
            return TrackState("registered", self.homography, -1)
        self._due = False
        markers = detect_markers(frame, self.detector)
        fit = register(markers, self.layout)
        self.hidden = not fit
        if not fit:
            return TrackState("occluded" if self.homography is not None else "not_found",
                              self.homography, len(fit.markers))
        bumped, shift = False, 0.0
        if self.homography is not None:
            shift = corner_shift_px(self.homography, fit.homography, self.layout)
            bumped = shift > BUMP_PX
            if shift <= JITTER_PX:         # detection noise: keep the rectified image steady
                return TrackState("registered", self.homography, len(fit.markers), False, shift)
        self.homography = fit.homography
        return TrackState("registered", fit.homography, len(fit.markers), bumped, shift)
