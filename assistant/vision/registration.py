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

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from .marker_search import (CandidateRead, blur_px, known_marker, read_candidates, read_expected, refine_corners,
                            reread, small_marker_detector, survey)
from .mats import ARUCO_DICTIONARY, FIRST_MARKER_ID, MatLayout, game_of_marker, mat_layout

MIN_MARKERS = 3
RANSAC_PX = 3.0
FIT_SHARE = 0.2         #: a marker corner further than this share of the markers' side from the fit is off
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
    plain ``dict`` with four more attributes: ``alternates`` (id -> other places the same id was
    read, e.g. a forest tile read as a marker beside the true one), ``candidates`` (the quads
    ArUco rejected, image px), ``gray`` (the frame searched) and ``thorough`` (the search's flag),
    so :func:`register` can choose the places that fit the mat together, look for the missing
    markers where the others put them and say why a board was not found."""

    candidates: list
    gray: np.ndarray | None
    thorough: bool
    alternates: dict

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.candidates = []
        self.gray = None
        self.thorough = False
        self.alternates = {}


def _find(gray: np.ndarray, detector: cv2.aruco.ArucoDetector, scale: float = 1.0,
          rejected: list | None = None, every: bool = False) -> dict:
    """ArUco's markers in ``gray`` (coordinates divided by ``scale``): id -> corners, the larger
    instance of a repeated id (``every``: id -> list of every instance); rejected quads are
    appended to ``rejected``."""
    corners, ids, rej = detector.detectMarkers(gray)
    if rejected is not None:
        rejected += [np.asarray(q, np.float32).reshape(4, 2) / scale for q in rej]
    out: dict = {}
    if ids is None:
        return out
    for quad, marker_id in zip(corners, ids.ravel()):
        pts = quad.reshape(4, 2).astype(np.float32) / scale
        key = int(marker_id)
        if every:
            out.setdefault(key, []).append(pts)
        elif key not in out or cv2.contourArea(pts) > cv2.contourArea(out[key]):
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
    a marker these passes decode is read again against the mats' known pictures
    (:func:`~.marker_search.reread`: loose parameters can decode a soft marker as another id);
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
    seen: dict[int, list[np.ndarray]] = {}
    _add(seen, _find(gray, detector, rejected=rejected))
    first = set(seen)
    if _fitting(seen) < MAT_MARKERS:
        _add(seen, _find(unsharp(gray), detector))
    if _fitting(seen) < MAT_MARKERS and thorough:
        small = _small_detector()
        big = cv2.resize(gray, None, fx=ENLARGE, fy=ENLARGE, interpolation=cv2.INTER_CUBIC)
        for img in (big, unsharp(big, 1.5 * ENLARGE, 1.5)):
            if _fitting(seen) >= MAT_MARKERS:
                break
            _add(seen, _find(img, small, ENLARGE, rejected, every=True))
    checked: dict[int, list[np.ndarray]] = {}
    for key, quads in seen.items():
        for quad in quads:
            if key in first:               # the first pass reads with ArUco's own strict parameters
                known = known_marker(gray, key, quad)
            else:                          # the loose passes' bits can decode a soft marker as another id
                known = reread(gray, quad)
                if known is None:
                    rejected.append(quad)
                    continue
            soft = sum(blur_px(known.blur, _quad_side(quad))) > SOFT_PX or key not in first
            # a soft marker's outline lies a pixel or two inside: align its picture
            _add(checked, {known.marker_id: refine_corners(gray, known) if soft else quad})
    seen = checked
    if _fitting(seen) < MAT_MARKERS and thorough:
        fresh = [q for q in rejected if all(_new_quad(q, {0: x}) for xs in seen.values() for x in xs)]
        fitting = _fit_set(seen)
        for read in read_candidates(gray, fresh, fitting or {k: v[0] for k, v in seen.items()}):
            _add(seen, {read.marker_id: refine_corners(gray, read)})
    out = Markers({key: quads[0] for key, quads in seen.items()})
    out.alternates = {key: quads[1:] for key, quads in seen.items() if len(quads) > 1}
    out.gray, out.candidates, out.thorough = gray, rejected, thorough
    return out


def _add(seen: dict[int, list[np.ndarray]], found: dict[int, np.ndarray | list]) -> None:
    """Add markers to ``seen`` (id -> instances), each instance once (another place counts anew)."""
    for key, quads in found.items():
        for quad in (quads if isinstance(quads, list) else [quads]):
            have = seen.setdefault(key, [])
            if all(_new_quad(quad, {0: q}) for q in have):
                have.append(np.asarray(quad, np.float32).reshape(4, 2))


def _fit_set(seen: dict[int, list[np.ndarray]]) -> dict[int, np.ndarray]:
    """The markers of the commonest mat among ``seen`` that fit that mat's default layout together."""
    games = [g for g in (game_of_marker(k) for k in seen) if g]
    if not games:
        return {}
    layout = mat_layout(max(set(games), key=games.count))
    return _consistent({k: v for k, v in seen.items() if k in {m.id for m in layout.markers}}, layout)


def _fitting(seen: dict[int, list[np.ndarray]]) -> int:
    """How many markers of the commonest mat among ``seen`` fit that mat's default layout together."""
    return len(_fit_set(seen))


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
    With fewer than four of the layout's markers fitting in a thorough :class:`Markers`, the
    quads read as another mat's markers or not read at all are read again as this mat's
    (:func:`~.marker_search.read_candidates`), and the missing ones are looked for where the
    others put them (:func:`predicted_markers`).

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
    alternates = getattr(markers, "alternates", {})
    found = {m.id: [np.asarray(markers[m.id], np.float32).reshape(4, 2)] + list(alternates.get(m.id, []))
             for m in layout.markers if m.id in markers}
    found = _consistent(found, layout)
    thorough = getattr(markers, "thorough", False) and getattr(markers, "gray", None) is not None
    if len(found) < len(layout.markers) and thorough and layout.game in FIRST_MARKER_ID:
        # read again, as this mat's markers only: quads read as another mat's, and unread ones
        quads = [np.asarray(q, np.float32) for k, q in markers.items() if k not in found]
        quads += [q for k, qs in alternates.items() if k not in found for q in qs]
        quads += [q for q in getattr(markers, "candidates", []) if _new_quad(q, found)]
        pool = {k: [q] for k, q in found.items()}
        for read in read_candidates(markers.gray, quads, found, game=layout.game):
            _add(pool, {read.marker_id: refine_corners(markers.gray, read)})
        found = _consistent(pool, layout)
    if 2 <= len(found) < len(layout.markers) and thorough:
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


def _consistent(found: dict[int, np.ndarray | list], layout: MatLayout) -> dict[int, np.ndarray]:
    """``found`` (id -> corners, or a list of places the id was read) without the markers read
    in the wrong place: with three or more ids, a RANSAC homography over every corner of every
    place (threshold :data:`RANSAC_PX` or :data:`FIT_SHARE` of the
    markers' side, whichever is larger: a lens left uncalibrated bends the mat by a few pixels,
    a marker read in the wrong place is off by more than its side); each id keeps the place with
    the most corners on it, if at least three, else it is left out."""
    pool = [(m.id, np.asarray(q, np.float32).reshape(4, 2), np.array(m.corners_mm, np.float32))
            for m in layout.markers if m.id in found for q in (found[m.id] if isinstance(found[m.id], list) else [found[m.id]])]
    if len({i for i, _q, _m in pool}) < MIN_MARKERS:     # too few to check: the first place of each
        return {i: q for i, q, _m in reversed(pool)}
    src = np.concatenate([m for _i, _q, m in pool])
    dst = np.concatenate([q for _i, q, _m in pool])
    side = float(np.median([_quad_side(q) for _i, q, _m in pool]))
    h, inliers = cv2.findHomography(src, dst, cv2.RANSAC, max(RANSAC_PX, FIT_SHARE * side))
    if h is None:
        return {}
    counts = inliers.reshape(len(pool), 4).sum(axis=1)
    out: dict[int, tuple[int, np.ndarray]] = {}
    for (i, q, _m), n in zip(pool, counts):
        if n >= 3 and (i not in out or n > out[i][0]):
            out[i] = (int(n), q)
    return {i: q for i, (_n, q) in out.items()}


def predicted_markers(markers: "Markers", layout: MatLayout, found: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
    """The layout's markers not found, read where the found ones put them.

    A homography fitted to the found markers' corners predicts each missing marker's quad (two
    markers place the rest within a fraction of a marker's side); from there, and from every
    rejected quad whose centre lies within 0.8 of a side of it, the marker's known picture is
    aligned to the frame (:func:`~.marker_search.refine_corners`, blurred as the found markers
    look) and compared with it (:func:`~.marker_search.read_expected`); the best place that is
    that marker (:data:`~.marker_search.MIN_SCORE`, clear of its other turns) is kept. For a
    marker whose outline ArUco did not see or could not read (a blur of sigma 3 px on a 20 px
    marker, the far side of a tilted mat).

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
    gray = markers.gray
    blur = Counter(known_marker(gray, k, q).blur for k, q in found.items()).most_common(1)[0][0]
    for m in layout.markers:
        if m.id in found:
            continue
        quad = cv2.perspectiveTransform(np.array(m.corners_mm, np.float64).reshape(-1, 1, 2), h).reshape(4, 2)
        quad = quad.astype(np.float32)
        side = _quad_side(quad)
        tries = [quad] + [q for q in getattr(markers, "candidates", [])
                          if np.linalg.norm(q.mean(axis=0) - quad.mean(axis=0)) < 0.8 * side]
        best = None
        for q in tries:
            q = _turned_like(q, quad)
            start = CandidateRead(m.id, q, 0.0, 0.0, blur)
            read = read_expected(gray, refine_corners(gray, start), m.id)
            if read is not None and (best is None or read.score > best.score):
                best = read
        if best is not None:
            out[m.id] = refine_corners(gray, best)
    return out


def _turned_like(quad: np.ndarray, like: np.ndarray) -> np.ndarray:
    """``quad``'s corners in the cyclic order (clockwise) closest to ``like``'s."""
    q = np.asarray(quad, np.float32).reshape(4, 2)
    x, y = q[:, 0], q[:, 1]
    if 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y)) < 0:
        q = q[::-1].copy()
    return min((np.roll(q, -k, axis=0) for k in range(4)), key=lambda r: float(np.sum((r - like) ** 2)))


def not_found_reason(markers: dict[int, np.ndarray], layout: MatLayout, used: list[int]) -> str:
    """One sentence on why the board was not found, from what :func:`detect_markers` saw.

    With a :class:`Markers` it measures the marker-like squares of the frame
    (:func:`~.marker_search.survey`): markers smeared by motion beyond :data:`MAX_SMEAR_PX` or
    blurred beyond :data:`MAX_BLUR_PX` (Gaussian sigma) are too blurred (named first: a blurred
    marker's outline also looks smaller); markers narrower than :data:`MIN_MARKER_PX` make the
    mat too small or too far; otherwise the missing markers are covered or out of view (or,
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
        return (f"{head}: no marker-like square is in the picture: show the mat's four corner markers to the camera, "
                f"each at least {MIN_MARKER_PX:.0f} px wide (a mat in view but smaller is too far)")
    if seen.smear_px > MAX_SMEAR_PX:
        return (f"{head}: the markers are smeared by motion (about {seen.smear_px:.0f} px): hold the camera and "
                "the mat still, or light the table better so the camera can shorten its exposure")
    if seen.blur_px > MAX_BLUR_PX:
        return (f"{head}: the markers are too blurred (their edges spread like a blur of about {seen.blur_px:.1f} px, "
                f"at most {MAX_BLUR_PX:.0f} px can be read): focus the camera on the mat")
    if seen.side_px < MIN_MARKER_PX:
        return (f"{head}: the mat is too small or too far in the picture (its markers measure about "
                f"{seen.side_px:.0f} px, at least {MIN_MARKER_PX:.0f} px are needed): bring the camera closer, "
                "zoom in or use a higher resolution")
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


#: quick marker searches in a row that find no board before one thorough search is tried
#: (:class:`BoardTracker`): an arm over the markers costs one slow search in this many
SOFT_AFTER = 3


class BoardTracker:
    """Follows the board from frame to frame.

    Markers are searched every ``every`` frames (and on every frame until the first fit, or
    when :meth:`request` asks), which keeps the idle path cheap; between searches the last
    homography stands. The first fit is found by the thorough search of :func:`detect_markers`;
    later searches are quick, unless the quick passes could not find the board on the first
    fit's frame (``soft``: markers small or blurred), or ``SOFT_AFTER`` quick searches in a row
    failed and a thorough one then found the board (a webcam gone soft), when they stay
    thorough (:func:`detect_markers` runs its slow passes only when the quick ones fall
    short). A quick search that :meth:`request` asked for (the scene settling) and that misses
    is followed at once by one thorough search, and by no other in the same settle until the
    board is found again. With fewer than 3 markers in a searched frame the last good homography is kept
    and the frame is ``occluded``. A new fit whose play-area corners moved more than
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
        #: this camera's markers are too small or soft for the quick passes of
        #: :func:`detect_markers` (learnt on the first fit): every search is then thorough
        self.soft = False
        self._quick_misses = 0
        #: a thorough search asked for as the scene settled found nothing: no other in this settle
        self._settle_tried = False

    def request(self, settle_begins: bool = False) -> None:
        """Search for the markers on the next frame (e.g. when the scene has just settled).

        Parameters
        ----------
        settle_begins : bool
            The first settling frame after motion: the scene may look otherwise than when the
            last thorough search asked for this way found nothing, so another may be tried.
        """
        self._due = True
        if settle_begins:
            self._settle_tried = False

    def update(self, frame: np.ndarray) -> TrackState:
        """Process one frame ``(H, W, 3) uint8`` BGR (or gray) and report the board's state."""
        if self.manual is not None:
            return TrackState("manual", self.homography, -1)
        self._count += 1
        if not (self._due or self.homography is None or self._count % self.every == 0):
            return TrackState("registered", self.homography, -1)
        settling, self._due = self._due, False
        first = self.homography is None
        markers = detect_markers(frame, self.detector, thorough=first or self.soft)
        fit = register(markers, self.layout)
        if fit and first:
            # would the quick passes have found the board? If not (a dim, defocused or distant
            # webcam), a quick search would later call the markers hidden on every still frame
            self.soft = not register(detect_markers(frame, self.detector, thorough=False), self.layout)
        if not fit and not first and not self.soft:
            self._quick_misses += 1
            if self._quick_misses >= SOFT_AFTER:
                # the quick passes keep failing: an arm, or a webcam gone soft (focus, dimmer
                # light)? One thorough search of this frame tells; found, it stays thorough
                self._quick_misses = 0
                again = register(detect_markers(frame, self.detector, thorough=True), self.layout)
                if again:
                    fit, self.soft = again, True
            elif settling and not self._settle_tried:
                # the picture the gate is about to compare (asked for by request(): the arm has
                # just left), and a miss now would hold the gate until the next search: one
                # thorough search per settle, or until the board is found (an arm resting over a
                # marker costs one, not one per settling frame); it does not make the tracker thorough
                self._settle_tried = True
                fit = register(detect_markers(frame, self.detector, thorough=True), self.layout) or fit
        elif fit:
            self._quick_misses = 0
        if fit:
            self._settle_tried = False
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
