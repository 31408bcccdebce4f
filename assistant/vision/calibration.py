"""Camera calibration from views of the ChArUco board: detection, calibration, refusal.

``calibrate(images)`` finds the board in every view (:func:`detect_board`), keeps the views that
help, and fits the pinhole camera with radial and tangential distortion by Zhang's method
(Z. Zhang, "A flexible new technique for camera calibration", IEEE TPAMI 22(11), 2000) as
``cv2.calibrateCamera`` implements it. It returns a :class:`CalibrationResult`, or a falsy
:class:`CalibrationRefusal` with a one-sentence reason; both list every view, accepted or
rejected, with the reason (field report F12: the user must learn which views failed and why).

A view is rejected, in this order, when

1. ``wrong_size``: its image size differs from the first view's;
2. ``not_found``: the board is not in it (or too tilted, blurred or small to be read);
3. ``too_few_corners``: fewer than ``min_corners`` ChArUco corners, or all on one line;
4. ``too_tilted``: the board is tilted more than ``max_tilt_deg`` from the line of sight,
   estimated from a first calibration over all readable views (OpenCV's corner positions are
   poor at grazing angles);
5. ``too_similar``: its corners are within ``min_difference`` of an already accepted view's
   and the board turned less than ``min_turn_deg`` (a pure tilt moves the corners little but
   is what determines the focal length);
6. ``high_error``: after calibration its RMS reprojection error is over ``outlier_factor`` x
   the median and over ``outlier_px`` (a blurred view, a moved board, a bent print).

The whole calibration is refused when fewer than ``min_views`` views remain, when they cover too
little of the image or hold the board in too few orientations (the focal length is then not
determined: Zhang section 3.3), when the RMS error stays over ``max_rms_px``, or when the fitted
camera is implausible (principal point off the image, or a lens model that folds over before
the image corners: :func:`distortion_is_invertible`).

Units: pixels for image points and errors, millimetres for the board, degrees for angles.
Detection is in :mod:`~assistant.vision.calibration_detect` and the measures behind the rules in
:mod:`~assistant.vision.calibration_geometry` (both importable from here too); the YAML file and
undistortion are in :mod:`~assistant.vision.calibration_io`.
"""

from __future__ import annotations

import datetime as _dt
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import cv2
import numpy as np

from .calibration_detect import BoardDetection, as_gray, detect_board, split_boards
from .calibration_geometry import (coverage_grid, distortion_is_invertible, missing_parts, pose_spread_deg,
                                   rotation_difference_deg, rough_pose, tilt_deg, view_difference)
from .charuco import DEFAULT_BOARD, CharucoSpec

__all__ = [
    "BoardDetection", "CalibrationLimits", "CalibrationRefusal", "CalibrationResult", "ViewReport", "as_gray",
    "calibrate", "calibrate_detections", "coverage_grid", "detect_board", "distortion_is_invertible",
    "missing_parts", "pose_spread_deg", "rotation_difference_deg", "rough_pose", "split_boards", "tilt_deg",
    "view_difference",
]

_CRITERIA = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 100, 1e-9)


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class CalibrationLimits:
    """Thresholds of :func:`calibrate`; the defaults suit a 640x480 to 1920x1080 webcam.

    Attributes
    ----------
    min_views : int
        Accepted views needed (6; OpenCV's tutorial asks for at least 10 to be safe).
    min_corners : int
        ChArUco corners a view needs (6 of the default board's 24).
    max_tilt_deg : float
        Largest angle between the board's normal and the line of sight (55 degrees; OpenCV
        still reads the board at 60-70 degrees in clean images, but its corners are poor there,
        and field report F12 saw real boards lost at 50-60).
    min_difference, min_turn_deg : float
        A view whose corners moved less than ``min_difference`` x the image diagonal (0.01: 15 px
        at 1280x720) from an accepted view's *and* whose board turned less than
        ``min_turn_deg`` (5 degrees) is ``too_similar``.
    outlier_factor, outlier_px : float
        A view's RMS error over both ``outlier_factor`` x the median and ``outlier_px`` pixels
        is ``high_error`` (3.0, 1.0 px).
    min_coverage_cells : int
        Parts of the image, of the 9 of a 3x3 grid (:func:`coverage_grid`), that must hold a
        corner of some accepted view (7).
    min_pose_spread_deg : float
        Largest angle between two accepted views' board normals must reach this (20 degrees).
    max_rms_px : float
        Overall RMS reprojection error allowed (1.5 px).
    fix_k3 : bool
        Keep k3 at 0 (``cv2.CALIB_FIX_K3``); useful with few views of a mild lens.
    """

    min_views: int = 6
    min_corners: int = 6
    max_tilt_deg: float = 55.0
    min_difference: float = 0.01
    min_turn_deg: float = 5.0
    outlier_factor: float = 3.0
    outlier_px: float = 1.0
    min_coverage_cells: int = 7
    min_pose_spread_deg: float = 20.0
    max_rms_px: float = 1.5
    fix_k3: bool = False


@dataclass(frozen=True)
class ViewReport:
    """What became of one view.

    ``code`` is ``"accepted"`` or one of ``wrong_size``, ``not_found``, ``too_few_corners``,
    ``too_tilted``, ``too_similar``, ``high_error``; ``reason`` says it in one sentence.
    ``tilt_deg`` (degrees from the line of sight) and ``rms_px`` (reprojection error, pixels)
    are ``None`` when not measured.
    """

    index: int
    name: str
    code: str
    reason: str
    corners: int = 0
    tilt_deg: float | None = None
    rms_px: float | None = None
    warnings: tuple[str, ...] = ()

    @property
    def accepted(self) -> bool:
        """True for a view used in the calibration (in a refusal: one that passed every check of its own)."""
        return self.code == "accepted"

    def line(self) -> str:
        """One line for a terminal: ``name: accepted, 24 corners, tilt 31 deg, error 0.21 px``."""
        if self.accepted:
            text = f"{self.name}: accepted, {self.corners} corners"
            if self.tilt_deg is not None:
                text += f", tilt {self.tilt_deg:.0f} deg"
            if self.rms_px is not None:
                text += f", error {self.rms_px:.2f} px"
        else:
            text = f"{self.name}: rejected ({self.code}): {self.reason}"
        return text + "".join(f"; warning: {w}" for w in self.warnings)


@dataclass(frozen=True, eq=False)
class CalibrationResult:
    """A camera model: intrinsics, distortion and how well they fit.

    Attributes
    ----------
    camera_matrix : (3, 3) float64
        ``K = [[fx, 0, cx], [0, fy, cy], [0, 0, 1]]``, pixels.
    dist_coeffs : (5,) float64
        ``(k1, k2, p1, p2, k3)``, OpenCV's model (Brown-Conrady), dimensionless.
    image_size : (width, height)
        Pixels; the model holds for this size only.
    rms_px : float
        RMS reprojection error over all accepted corners, pixels.
    view_count : int
        Views used.
    date : str
        ISO 8601 time of the calibration.
    board : str
        The board's description (:meth:`CharucoSpec.describe`).
    views : tuple of ViewReport
        Every view given, accepted or not (empty when loaded from a file).
    coverage : float or None
        Fraction of the 9 parts of the image (:func:`coverage_grid`) holding an accepted corner.
    pose_spread_deg : float or None
        Largest angle between two accepted board orientations.
    """

    camera_matrix: np.ndarray
    dist_coeffs: np.ndarray
    image_size: tuple[int, int]
    rms_px: float
    view_count: int
    date: str
    board: str = ""
    views: tuple[ViewReport, ...] = ()
    coverage: float | None = None
    pose_spread_deg: float | None = None

    def __bool__(self) -> bool:
        return True

    @property
    def rejected(self) -> tuple[ViewReport, ...]:
        """The views not used, each with its reason."""
        return tuple(v for v in self.views if not v.accepted)

    def summary(self) -> str:
        """Two lines: the fit, and the intrinsics."""
        fx, fy, cx, cy = (self.camera_matrix[0, 0], self.camera_matrix[1, 1],
                          self.camera_matrix[0, 2], self.camera_matrix[1, 2])
        k = ", ".join(f"{n} {v:+.4f}" for n, v in zip(("k1", "k2", "p1", "p2", "k3"), self.dist_coeffs))
        return (f"{self.view_count} views, RMS reprojection error {self.rms_px:.3f} px, "
                f"image {self.image_size[0]}x{self.image_size[1]}\n"
                f"fx {fx:.1f} fy {fy:.1f} cx {cx:.1f} cy {cy:.1f} px; {k}")


@dataclass(frozen=True)
class CalibrationRefusal:
    """Why no calibration was made: a code, one sentence, and every view's fate. Falsy.

    >>> r = CalibrationRefusal("too_few_views", "Only 2 of 3 views are usable.", ())
    >>> bool(r), r.code
    (False, 'too_few_views')
    """

    code: str
    message: str
    views: tuple[ViewReport, ...] = field(default=())

    def __bool__(self) -> bool:
        return False

    @property
    def rejected(self) -> tuple[ViewReport, ...]:
        """The views not used, each with its reason."""
        return tuple(v for v in self.views if not v.accepted)


# --------------------------------------------------------------------------- calibration


def calibrate(images: Iterable[np.ndarray], board: CharucoSpec = DEFAULT_BOARD, *,
              names: Sequence[str] | None = None,
              limits: CalibrationLimits = CalibrationLimits()) -> CalibrationResult | CalibrationRefusal:
    """Calibrate a camera from views of the ChArUco board.

    Parameters
    ----------
    images : iterable of (H, W) uint8 gray or (H, W, 3) uint8 BGR
        The views, all of one size; read one at a time (a generator keeps memory low).
    board : CharucoSpec
        The printed board; its square size sets the unit of the poses, not the intrinsics.
    names : sequence of str, optional
        A name per view for the reports (file names); default ``"view 1"``, ``"view 2"``, ...
    limits : CalibrationLimits
        Thresholds of the rejection and refusal rules.

    Returns
    -------
    CalibrationResult or CalibrationRefusal
        The refusal is falsy and says, in one sentence, why (see the module docstring); both
        carry a :class:`ViewReport` per view.

    Raises
    ------
    ValueError
        For a view that is not a uint8 image (:func:`as_gray`).

    Notes
    -----
    Detection per view by :func:`detect_board`, then :func:`calibrate_detections`.

    >>> calibrate([np.zeros((48, 64), np.uint8)] * 2).message
    'Only 0 of 2 views are usable and at least 6 are needed: 2 with no board found.'
    """
    detections = [detect_board(img, board) for img in images]
    return calibrate_detections(detections, board, names=names, limits=limits)


def calibrate_detections(detections: Sequence[BoardDetection], board: CharucoSpec = DEFAULT_BOARD, *,
                         names: Sequence[str] | None = None,
                         limits: CalibrationLimits = CalibrationLimits()) -> CalibrationResult | CalibrationRefusal:
    """:func:`calibrate` from detections already made (e.g. while grabbing frames from a camera).

    Takes a sequence of :class:`BoardDetection` (one per view, in order) and returns as
    :func:`calibrate` does. The calibration is ``cv2.calibrateCameraExtended`` with OpenCV's
    5-coefficient model, k3 optionally fixed at 0, run twice: once over every readable view to
    estimate each board's tilt, once over the accepted views, and up to twice more when views
    are dropped as ``high_error``.
    """
    detections = list(detections)
    n = len(detections)
    names = list(names) if names is not None else [f"view {i + 1}" for i in range(n)]
    if len(names) != n:
        raise ValueError(f"{len(names)} names for {n} views")
    if n == 0:
        return CalibrationRefusal("no_views", "No views were given.", ())
    cv_board = board.board()
    size = detections[0].image_size
    diagonal = math.hypot(*size)
    views: list[ViewReport] = []

    def reject(i: int, code: str, reason: str, **extra) -> None:
        views[i] = ViewReport(i, names[i], code, reason, len(detections[i].ids),
                              warnings=detections[i].warnings, **extra)

    # 1-3: readable views
    for i, d in enumerate(detections):
        views.append(ViewReport(i, names[i], "accepted", "", len(d.ids), warnings=d.warnings))
        if d.image_size != size:
            reject(i, "wrong_size", f"the image is {d.image_size[0]}x{d.image_size[1]}, "
                                    f"not {size[0]}x{size[1]} as the first view")
        elif not d:
            reject(i, "not_found", f"board not found: {d.reason} (a board tilted over about 60 deg, blurred, "
                                   f"glared or too small cannot be read)")
        elif d.ids.size < limits.min_corners:
            reject(i, "too_few_corners", f"only {d.ids.size} of {board.corner_count} corners were found "
                                         f"(at least {limits.min_corners} are needed)")
        elif cv_board.checkCharucoCornersCollinear(d.ids.reshape(-1, 1)):
            reject(i, "too_few_corners", f"the {d.ids.size} corners found lie on one line")
    readable = [i for i in range(n) if views[i].accepted]

    # 4: tilt, from the poses of a first calibration over every readable view
    poses = dict(zip(readable, _first_poses([detections[i] for i in readable], board, size, limits)))
    for i in readable:
        tilt = tilt_deg(*poses[i], board)
        if tilt > limits.max_tilt_deg:
            reject(i, "too_tilted", f"the board is tilted {tilt:.0f} deg from the line of sight "
                                    f"(at most {limits.max_tilt_deg:.0f} deg)", tilt_deg=tilt)

    # 5: near-identical views (board neither moved nor turned), against those accepted before
    accepted: list[int] = []
    min_move = limits.min_difference * diagonal
    for i in (i for i in readable if views[i].accepted):
        twins = [(view_difference(detections[i], detections[j]), rotation_difference_deg(poses[i][0], poses[j][0]), j)
                 for j in accepted]
        twins = [t for t in twins if t[0] < min_move and t[1] < limits.min_turn_deg]
        if twins:
            move, turn, j = min(twins)
            reject(i, "too_similar", f"too similar to {names[j]}: the corners moved {move:.1f} px and the board "
                                     f"turned {turn:.1f} deg (at least {min_move:.0f} px or "
                                     f"{limits.min_turn_deg:.0f} deg needed)")
        else:
            accepted.append(i)

    # 6: calibrate; drop views far worse than the rest and calibrate again (at most twice)
    for attempt in range(3):
        if len(accepted) < limits.min_views:
            return CalibrationRefusal(*_too_few(views, len(accepted), limits.min_views), tuple(views))
        fit = _fit([detections[i] for i in accepted], board, size, limits)
        if fit is None:
            return CalibrationRefusal("degenerate", "OpenCV could not calibrate from these views: take views "
                                                    "with the board tilted in different directions.", tuple(views))
        per_view = fit[4]
        cut = max(limits.outlier_factor * float(np.median(per_view)), limits.outlier_px)
        bad = [i for i, e in zip(accepted, per_view) if e > cut] if attempt < 2 else []
        if not bad:
            break
        for i, e in zip(accepted, per_view):
            if e > cut:
                reject(i, "high_error", f"its reprojection error {e:.2f} px is far above the other views' "
                                        f"(limit {cut:.2f} px): blurred, moved or a bent board")
        accepted = [i for i in accepted if i not in bad]
    rms, k, dist, (rvecs, tvecs), per_view = fit
    for i, rvec, tvec, e in zip(accepted, rvecs, tvecs, per_view):
        views[i] = ViewReport(i, names[i], "accepted", "", len(detections[i].ids),
                              tilt_deg=tilt_deg(rvec, tvec, board), rms_px=float(e), warnings=detections[i].warnings)

    # refusals over the whole set
    grid = coverage_grid([detections[i].corners for i in accepted], size)
    spread = pose_spread_deg(rvecs)
    if grid.sum() < limits.min_coverage_cells:
        return CalibrationRefusal(
            "poor_coverage", f"The accepted views leave parts of the image empty ({', '.join(missing_parts(grid))}; "
                             f"{limits.min_coverage_cells} of 9 parts needed): hold the board there too.",
            tuple(views))
    if spread < limits.min_pose_spread_deg:
        return CalibrationRefusal(
            "poor_pose_diversity", f"The board faces the camera the same way in every view (orientations "
                                   f"differ by at most {spread:.0f} deg, {limits.min_pose_spread_deg:.0f} needed): "
                                   f"tilt it 15-45 deg up, down, left and right.", tuple(views))
    if rms > limits.max_rms_px:
        return CalibrationRefusal(
            "high_error", f"The reprojection error is {rms:.2f} px (at most {limits.max_rms_px:.2f} px): use sharp "
                          f"views of a flat, unmoving board.", tuple(views))
    fx, fy, cx, cy = k[0, 0], k[1, 1], k[0, 2], k[1, 2]
    if not (fx > 0 and fy > 0 and 0.5 < fx / fy < 2 and 0 < cx < size[0] and 0 < cy < size[1]):
        return CalibrationRefusal(
            "implausible", f"The fitted camera is implausible (fx {fx:.0f}, fy {fy:.0f}, centre {cx:.0f}, {cy:.0f} "
                           f"px): take more views, tilted in different directions.", tuple(views))
    if not distortion_is_invertible(k, dist, size):
        return CalibrationRefusal(
            "implausible", "The fitted lens distortion folds over near the edges of the image: add views with the "
                           "board in the corners of the picture, or use --fix-k3.", tuple(views))
    return CalibrationResult(k, dist, size, rms, len(accepted),
                             _dt.datetime.now().astimezone().isoformat(timespec="seconds"), board.describe(),
                             tuple(views), float(grid.mean()), spread)


_TOO_FEW_WORDS = {"not_found": "with no board found", "too_few_corners": "with too few corners",
                  "too_tilted": "too tilted", "too_similar": "too similar to another view",
                  "high_error": "with a high error", "wrong_size": "of another size"}


def _too_few(views: list[ViewReport], usable: int, needed: int) -> tuple[str, str]:
    """Code and sentence for too few usable views; the code names the main cause when it is one."""
    counts = Counter(v.code for v in views if not v.accepted)
    parts = ", ".join(f"{c} {_TOO_FEW_WORDS[code]}" for code, c in counts.most_common())
    top = counts.most_common(1)[0][0] if counts else ""
    code = top if top in ("too_tilted", "too_similar") else "too_few_views"
    text = f"Only {usable} of {len(views)} views are usable and at least {needed} are needed"
    return code, text + (f": {parts}." if parts else ".")


def _points(detections: Sequence[BoardDetection], board: CharucoSpec) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Object points ``(N, 1, 3) float32`` mm and image points ``(N, 1, 2) float32`` px per view."""
    all_obj = board.corner_points_mm()
    obj = [all_obj[d.ids].reshape(-1, 1, 3) for d in detections]
    img = [d.corners.reshape(-1, 1, 2).astype(np.float32) for d in detections]
    return obj, img


def _fit(detections: Sequence[BoardDetection], board: CharucoSpec, size: tuple[int, int],
         limits: CalibrationLimits):
    """``(rms, K, dist(5,), (rvecs, tvecs), per_view_rms(N,))`` by ``cv2.calibrateCameraExtended``, or None."""
    obj, img = _points(detections, board)
    flags = cv2.CALIB_FIX_K3 if limits.fix_k3 else 0
    try:
        rms, k, dist, rvecs, tvecs, _, _, per_view = cv2.calibrateCameraExtended(
            obj, img, size, None, None, flags=flags, criteria=_CRITERIA)
    except cv2.error:
        return None
    if not np.isfinite(rms) or not np.all(np.isfinite(k)):
        return None
    dist = np.zeros(5) if dist is None else np.asarray(dist, np.float64).ravel()[:5]
    return float(rms), np.asarray(k, np.float64), dist, (rvecs, tvecs), np.asarray(per_view, np.float64).ravel()


def _first_poses(detections: Sequence[BoardDetection], board: CharucoSpec, size: tuple[int, int],
                 limits: CalibrationLimits) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(rvec, tvec)`` of each view from a first calibration, or :func:`rough_pose` with under 3 views."""
    fit = _fit(detections, board, size, limits) if len(detections) >= 3 else None
    if fit is not None:
        _, _, _, (rvecs, tvecs), _ = fit
        return [(np.asarray(r, np.float64).reshape(3), np.asarray(t, np.float64).reshape(3))
                for r, t in zip(rvecs, tvecs)]
    return [rough_pose(d, board) for d in detections]
