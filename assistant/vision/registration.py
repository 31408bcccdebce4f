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
from functools import lru_cache

import cv2
import numpy as np

from .marker_search import blur_px, known_marker, read_candidates, read_expected, refine_corners, small_marker_detector, survey
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


#: Markers a mat has; with fewer found, further passes look again.
MAT_MARKERS = 4
#: Unsharp mask of the second pass: Gaussian sigma (px) and amount (out = (1 + a) * g - a * blur).
UNSHARP_SIGMA_PX, UNSHARP_AMOUNT = 2.5, 2.0
#: The thorough passes enlarge the frame this much (small markers get more pixels per module).
ENLARGE = 2.0
#: What the thorough passes promise (tests/vision/test_registration.py): every marker at least
#: this wide (px) with a Gaussian blur up to this sigma (px) is found.
MIN_MARKER_PX, MAX_BLUR_PX = 20.0, 3.0
#: A marker blurred more than this (sigma or smear, px) has its corners refined against its picture.
SOFT_PX = 0.8
#: A marker whose edges differ in blur by a motion smear longer than this (px) was moved.
MAX_SMEAR_PX = 5.0


class Markers(dict):
    """Marker id -> ``(4, 2) float32`` image corners, as :func:`detect_markers` found them; a
    plain ``dict`` with three more attributes: ``candidates`` (the quads ArUco rejected, image
    px), ``gray`` (the frame searched) and ``thorough`` (the search's flag), so :func:`register`
    can look for the missing markers where the others put them and say why a board was not found."""

    candidates: list
    gray: np.ndarray | None
    thorough: bool

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.candidates = []
        self.gray = None
        self.thorough = False


def _find(gray: np.ndarray, detector: cv2.aruco.ArucoDetector, scale: float = 1.0,
          rejected: list | None = None) -> dict[int, np.ndarray]:
    corners, ids, rej = detector.detectMarkers(gray)
    if rejected is not None:
        rejected += [np.asarray(q, np.float32).reshape(4, 2) / scale for q in rej]
    out: dict[int, np.ndarray] = {}
    if ids is None:
        return out
    for quad, marker_id in zip(corners, ids.ravel()):
        pts = quad.reshape(4, 2).astype(np.float32) / scale
        key = int(marker_id)
        if key not in out or cv2.contourArea(pts) > cv2.contourArea(out[key]):
            out[key] = pts
    return out


def unsharp(gray: np.ndarray, sigma_px: float = UNSHARP_SIGMA_PX, amount: float = UNSHARP_AMOUNT) -> np.ndarray:
    """Unsharp mask of a ``(H, W) uint8`` image: ``(1 + amount) * gray - amount * GaussianBlur(gray,
    sigma_px)``, saturated to uint8 (``cv2.addWeighted``). Restores the edge contrast a defocused
    lens (Gaussian blur of 1.5-2.5 px) takes from small markers."""
    return cv2.addWeighted(gray, 1.0 + amount, cv2.GaussianBlur(gray, (0, 0), sigma_px), -amount, 0.0)


@lru_cache(maxsize=1)
def _small_detector() -> cv2.aruco.ArucoDetector:
    return small_marker_detector()


def _new_quad(quad: np.ndarray, found: dict[int, np.ndarray]) -> bool:
    centre = quad.mean(axis=0)
    return all(np.linalg.norm(centre - q.mean(axis=0)) > 0.5 * _quad_side(q) for q in found.values())


def _quad_side(quad: np.ndarray) -> float:
    return float(np.mean(np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)))


def detect_markers(gray: np.ndarray, detector: cv2.aruco.ArucoDetector, thorough: bool = True) -> Markers:
    """Markers in a frame, looked for in passes until the mat's four are found.

    1. the frame as it is, with ``detector``;
    2. an unsharp-masked copy (:func:`unsharp`): a blurred webcam (defocus of about 2 px) leaves
       30-40 px markers too soft for the adaptive threshold (field report F1);
    3. (``thorough``) the frame enlarged :data:`ENLARGE` times, with parameters for small and
       soft markers (:func:`~.marker_search.small_marker_detector`), plain and unsharp-masked;
    then every marker that looks blurred beyond :data:`SOFT_PX` (the blur of the known picture
    it matches best, :func:`~.marker_search.known_marker`) has its corners refined by aligning
    that picture to the frame (:func:`~.marker_search.refine_corners`): a soft marker's outline,
    where ArUco puts its corners, lies a pixel or two inside;
    4. (``thorough``) the quads still unread are compared with the mats' known marker pictures
       at a range of blurs (:func:`~.marker_search.read_candidates`) and refined the same way.

    Together they find every marker at least :data:`MIN_MARKER_PX` wide under a Gaussian blur
    up to :data:`MAX_BLUR_PX` (sigma, px), at any in-plane angle, its corners within about a
    pixel (``tests/vision/test_registration.py``).

    Parameters
    ----------
    gray : (H, W) uint8 or (H, W, 3) uint8 BGR
    detector : cv2.aruco.ArucoDetector
        From :func:`make_detector`.
    thorough : bool
        Run passes 3 and 4 when the first two find fewer than four markers (about 0.1-0.5 s on
        a 720p frame; a live loop that still holds a homography passes False).

    Returns
    -------
    Markers
        A dict: marker id -> ``(4, 2) float32`` image corners (TL, TR, BR, BL of the marker),
        pixels; when an id is seen twice, the larger instance is kept. Its ``candidates`` are
        the quads ArUco rejected (for :func:`register`'s reason).
    """
    if gray.ndim == 3:
        gray = cv2.cvtColor(gray, cv2.COLOR_BGR2GRAY)
    rejected: list[np.ndarray] = []
    out = Markers(_find(gray, detector, rejected=rejected))
    out.gray = gray
    later: dict[int, np.ndarray] = {}
    if len(out) < MAT_MARKERS:
        later.update(_find(unsharp(gray), detector))
    if len(out) + len(set(later) - set(out)) < MAT_MARKERS and thorough:
        small = _small_detector()
        big = cv2.resize(gray, None, fx=ENLARGE, fy=ENLARGE, interpolation=cv2.INTER_CUBIC)
        for img in (big, unsharp(big, 1.5 * ENLARGE, 1.5)):
            if len(out) + len(set(later) - set(out)) >= MAT_MARKERS:
                break
            for key, pts in _find(img, small, ENLARGE, rejected).items():
                later.setdefault(key, pts)
    for key, pts in later.items():
        out.setdefault(key, pts)
    for key in list(out):               # a soft marker's outline lies a pixel or two inside: align its picture
        known = known_marker(gray, key, out[key])
        if sum(blur_px(known.blur, _quad_side(out[key]))) > SOFT_PX:
            out[key] = refine_corners(gray, known)
    if len(out) < MAT_MARKERS and thorough:
        for read in read_candidates(gray, [q for q in rejected if _new_quad(q, out)], out):
            out[read.marker_id] = refine_corners(gray, read)
    out.candidates = rejected
    out.thorough = thorough
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

    ``cv2.findHomography`` with RANSAC (:data:`RANSAC_PX`) over every corner; a marker with more
    than one corner off the fit (read in the wrong place) is left out and the rest refitted.
    With two or three of the layout's markers in a thorough :class:`Markers`, the missing ones
    are first looked for where those put them (:func:`predicted_markers`).

    Parameters
    ----------
    markers : dict
        From :func:`detect_markers` (any dict id -> ``(4, 2)`` image corners will do; a
        :class:`Markers` also lets the failure say why).
    layout : MatLayout

    Returns
    -------
    Registration or RegistrationFailure
        Failure when fewer than 3 of the layout's markers are seen or fit one plane; its
        one-sentence reason names the cause a :class:`Markers` shows (:func:`not_found_reason`):
        "2 of 4 markers seen: the mat is too small or too far in the picture (its markers measure
        about 14 px, at least 20 px are needed): ...".
    """
    found = {m.id: np.asarray(markers[m.id], np.float32).reshape(4, 2) for m in layout.markers if m.id in markers}
    found = _consistent(found, layout)
    if 2 <= len(found) < len(layout.markers) and getattr(markers, "thorough", False):
        found.update(predicted_markers(markers, layout, found))
        found = _consistent(found, layout)
    used = [m.id for m in layout.markers if m.id in found]
    if len(used) < MIN_MARKERS:
        return RegistrationFailure(not_found_reason(markers, layout, used), tuple(used))
    src = [np.array(m.corners_mm, np.float32) for m in layout.markers if m.id in found]
    dst = [found[m.id] for m in layout.markers if m.id in found]
    homography, _ = cv2.findHomography(np.concatenate(src), np.concatenate(dst), 0)
    if homography is None:
        return RegistrationFailure("the marker corners do not fit one plane", tuple(used))
    src_pts, dst_pts = np.concatenate(src), np.concatenate(dst)
    fitted = cv2.perspectiveTransform(src_pts.reshape(-1, 1, 2), homography).reshape(-1, 2)
    rms = float(np.sqrt(np.mean(np.sum((fitted - dst_pts) ** 2, axis=1))))
    return Registration(homography, tuple(used), rms)


def _consistent(found: dict[int, np.ndarray], layout: MatLayout) -> dict[int, np.ndarray]:
    """``found`` without the markers read in the wrong place: with three or more, a RANSAC
    homography (:data:`RANSAC_PX`) over every corner, and a marker with more than one corner
    off it is left out."""
    if len(found) < MIN_MARKERS:
        return found
    ids = [m.id for m in layout.markers if m.id in found]
    src = np.concatenate([np.array(m.corners_mm, np.float32) for m in layout.markers if m.id in found])
    dst = np.concatenate([found[i] for i in ids])
    h, inliers = cv2.findHomography(src, dst, cv2.RANSAC, RANSAC_PX)
    if h is None:
        return {}
    good = inliers.reshape(len(ids), 4).sum(axis=1) >= 3
    return {i: found[i] for i, g in zip(ids, good) if g}


def predicted_markers(markers: "Markers", layout: MatLayout, found: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
    """The layout's markers not found, read where the found ones put them.

    A homography fitted to the found markers' corners (two markers are enough to place the
    rest within a few pixels) predicts each missing marker's quad; the frame there is compared
    with that marker's known picture (:func:`~.marker_search.candidate_scores`) and, when it is
    that marker (:data:`~.marker_search.MIN_SCORE`, clear of its other turns), its corners are
    refined against the picture. For a marker whose outline ArUco did not even see (a blur of
    sigma 3 px on a 20 px marker).

    Returns
    -------
    dict id -> (4, 2) float32
        The markers read there.
    """
    src = np.concatenate([np.array(m.corners_mm, np.float32) for m in layout.markers if m.id in found])
    dst = np.concatenate([found[m.id] for m in layout.markers if m.id in found])
    h, _ = cv2.findHomography(src, dst, 0)
    if h is None:
        return {}
    out = {}
    for m in layout.markers:
        if m.id in found:
            continue
        quad = cv2.perspectiveTransform(np.array(m.corners_mm, np.float64).reshape(-1, 1, 2), h).reshape(4, 2)
        read = read_expected(markers.gray, quad.astype(np.float32), m.id)
        if read is not None:
            out[m.id] = refine_corners(markers.gray, read)
    return out


def not_found_reason(markers: dict[int, np.ndarray], layout: MatLayout, used: list[int]) -> str:
    """One sentence on why the board was not found, from what :func:`detect_markers` saw.

    With a :class:`Markers` it measures the marker-like squares of the frame
    (:func:`~.marker_search.survey`): markers narrower than :data:`MIN_MARKER_PX` make the mat
    too small or too far; edges blurred beyond :data:`MAX_BLUR_PX` (Gaussian sigma) or smeared
    by motion make it too blurred; otherwise the missing markers are covered or out of view (or,
    when more were read than fit the mat together, another print of them is in view).

    Parameters
    ----------
    markers : dict
        What was found (a :class:`Markers` or a plain dict).
    layout : MatLayout
    used : list of int
        The layout's markers among them.

    Returns
    -------
    str
        ``"N of 4 markers seen"`` followed, when the frame is known, by the cause with the
        measured size or blur and what to do.
    """
    seen_ids = [m.id for m in layout.markers if m.id in markers]
    head = f"{len(used)} of {len(layout.markers)} markers seen"
    rest = "the others are covered or out of the picture: clear the mat's corners and show all four markers"
    if len(seen_ids) > len(used):                    # read, but not where the mat puts them
        head = f"{len(seen_ids)} of {len(layout.markers)} markers seen, {len(used)} of them fit the mat together"
        rest = "show the mat flat and whole, without another print of its markers in view"
    gray = getattr(markers, "gray", None)
    if gray is None:
        return f"{head}: {rest}" if len(seen_ids) > len(used) else head
    found = {k: np.asarray(v, np.float32).reshape(4, 2) for k, v in markers.items() if k in seen_ids}
    seen = survey(gray, found, [q for q in getattr(markers, "candidates", []) if _new_quad(q, found)])
    if seen.squares == 0:
        return f"{head}: no marker-like square is in the picture: show the mat's four corner markers to the camera"
    if seen.side_px < MIN_MARKER_PX:
        return (f"{head}: the mat is too small or too far in the picture (its markers measure about "
                f"{seen.side_px:.0f} px, at least {MIN_MARKER_PX:.0f} px are needed): bring the camera closer, "
                "zoom in or use a higher resolution")
    if seen.smear_px > MAX_SMEAR_PX:
        return (f"{head}: the markers are smeared by motion (about {seen.smear_px:.0f} px): hold the camera and "
                "the mat still, or light the table better so the camera can shorten its exposure")
    if seen.blur_px > MAX_BLUR_PX:
        return (f"{head}: the markers are too blurred (their edges spread like a blur of about {seen.blur_px:.1f} px, "
                f"at most {MAX_BLUR_PX:.0f} px can be read): focus the camera on the mat")
    return f"{head}: {rest}"


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
        markers = detect_markers(frame, self.detector, thorough=self.homography is None)
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
