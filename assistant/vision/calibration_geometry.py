"""Measures of views and poses behind the rejection and refusal rules of :func:`~assistant.vision.calibration.calibrate`.

How far a board moved (:func:`view_difference`) or turned (:func:`rotation_difference_deg`)
between views, how tilted it is (:func:`tilt_deg`), how varied the orientations are
(:func:`pose_spread_deg`), which parts of the image the views reach (:func:`coverage_grid`),
a pose before calibration (:func:`rough_pose`), and whether a fitted lens model is one-to-one
over the image (:func:`distortion_is_invertible`). Pixels, millimetres, degrees.
"""

from __future__ import annotations

import math
from typing import Sequence

import cv2
import numpy as np

from .calibration_detect import BoardDetection
from .charuco import DEFAULT_BOARD, CharucoSpec


def view_difference(a: BoardDetection, b: BoardDetection) -> float:
    """How far the board moved between two views: mean displacement of shared corners, pixels.

    Returns ``inf`` when the views share fewer than 4 corners or less than half of the smaller
    view's corners (they show different parts of the board, so they differ). Used to drop
    near-identical views; a pure image-space measure, so it needs no calibration.

    >>> v = BoardDetection(np.array([[0, 0], [10, 0], [0, 10], [10, 10]], np.float32),
    ...                    np.arange(4, dtype=np.int32), (100, 100))
    >>> w = BoardDetection(v.corners + 3, v.ids, (100, 100))
    >>> round(view_difference(v, w), 3)
    4.243
    """
    common, ia, ib = np.intersect1d(a.ids, b.ids, return_indices=True)
    if common.size < 4 or common.size < 0.5 * min(a.ids.size, b.ids.size):
        return math.inf
    return float(np.linalg.norm(a.corners[ia] - b.corners[ib], axis=1).mean())


def rough_pose(detection: BoardDetection, board: CharucoSpec = DEFAULT_BOARD) -> tuple[np.ndarray, np.ndarray]:
    """Board pose in a camera of guessed intrinsics, for comparing views before calibration.

    Parameters
    ----------
    detection : BoardDetection
        At least 4 corners, not on one line.
    board : CharucoSpec
        The board.

    Returns
    -------
    (rvec (3,) float64, tvec (3,) float64)
        ``cv2.solvePnP`` with ``fx = fy = 0.9 * max(width, height)`` (a 58 deg horizontal field of
        view, a typical webcam), the principal point at the image centre and no distortion;
        rotations are good to a few degrees, translations only up to the unknown focal length.
        Zeros when ``solvePnP`` fails or there are fewer than 4 corners.
    """
    w, h = detection.image_size
    f = 0.9 * max(w, h)
    k = np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1]])
    if detection.ids.size < 4:
        return np.zeros(3), np.zeros(3)
    obj = board.corner_points_mm()[detection.ids].astype(np.float64)
    try:
        ok, rvec, tvec = cv2.solvePnP(obj, detection.corners.astype(np.float64), k, None)
    except cv2.error:
        ok = False
    if not ok:
        return np.zeros(3), np.zeros(3)
    return np.asarray(rvec, np.float64).reshape(3), np.asarray(tvec, np.float64).reshape(3)


def rotation_difference_deg(rvec_a: np.ndarray, rvec_b: np.ndarray) -> float:
    """Angle of the rotation between two orientations (Rodrigues vectors), degrees, 0..180.

    >>> round(rotation_difference_deg(np.zeros(3), np.array([0.0, 0.0, math.radians(12)])), 6)
    12.0
    """
    ra, _ = cv2.Rodrigues(np.asarray(rvec_a, np.float64).reshape(3))
    rb, _ = cv2.Rodrigues(np.asarray(rvec_b, np.float64).reshape(3))
    cos = (np.trace(ra.T @ rb) - 1) / 2
    return math.degrees(math.acos(max(-1.0, min(1.0, float(cos)))))


def distortion_is_invertible(camera_matrix: np.ndarray, dist_coeffs: np.ndarray, image_size: tuple[int, int]) -> bool:
    """True when the lens model maps the undistorted image one-to-one onto the whole frame.

    Parameters
    ----------
    camera_matrix : (3, 3) float
        ``K``, pixels.
    dist_coeffs : (n,) float
        OpenCV distortion coefficients.
    image_size : (width, height)
        Pixels.

    Returns
    -------
    bool
        False when undistorting the frame's corners and edge midpoints (``cv2.undistortPoints``)
        and distorting them back (``cv2.projectPoints``) misses by over 1 px, or when the radial
        polynomial ``r (1 + k1 r^2 + k2 r^4 + k3 r^6)`` stops growing before the corners' radius.
        A polynomial fitted from views that never reached the image corners can fold over there
        (typically through k3), and every undistortion map built from it is then wrong.

    >>> k = np.array([[500.0, 0, 320], [0, 500, 240], [0, 0, 1]])
    >>> distortion_is_invertible(k, np.array([-0.3, 0.1, 0, 0, 0]), (640, 480))
    True
    >>> distortion_is_invertible(k, np.array([-0.3, 0.1, 0, 0, -2.0]), (640, 480))
    False
    """
    k = np.asarray(camera_matrix, np.float64)
    dist = np.asarray(dist_coeffs, np.float64).ravel()
    w, h = image_size
    border = np.array([[0, 0], [w - 1, 0], [0, h - 1], [w - 1, h - 1], [(w - 1) / 2, 0], [(w - 1) / 2, h - 1],
                       [0, (h - 1) / 2], [w - 1, (h - 1) / 2]], np.float64)
    ideal = cv2.undistortPoints(border.reshape(-1, 1, 2), k, dist,
                                criteria=(cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 100, 1e-12)).reshape(-1, 2)
    if not np.all(np.isfinite(ideal)):
        return False
    back, _ = cv2.projectPoints(np.column_stack([ideal, np.ones(len(ideal))]), np.zeros(3), np.zeros(3), k, dist)
    if np.abs(back.reshape(-1, 2) - border).max() > 1.0:
        return False
    if dist.size >= 4:
        k1, k2 = dist[0], dist[1]
        k3 = dist[4] if dist.size >= 5 else 0.0
        r2 = np.linspace(0.0, float(np.max(np.sum(ideal ** 2, axis=1))) * 1.1, 400)
        if dist.size <= 5 and np.any(1 + 3 * k1 * r2 + 5 * k2 * r2 ** 2 + 7 * k3 * r2 ** 3 <= 0):
            return False
    return True


def tilt_deg(rvec: np.ndarray, tvec: np.ndarray, board: CharucoSpec = DEFAULT_BOARD) -> float:
    """Angle between the board's normal and the line of sight to its centre, degrees.

    Parameters
    ----------
    rvec, tvec : (3,) or (3, 1) float
        Board pose in the camera, as ``cv2.solvePnP`` or ``cv2.calibrateCamera`` return it
        (Rodrigues vector; translation in the board's unit, mm).
    board : CharucoSpec
        For the position of the board's centre.

    Returns
    -------
    float
        0 for a board facing the camera squarely, 90 for one seen edge-on. Unlike the angle to
        the optical axis, it counts a fronto-parallel board in an image corner as tilted, which
        is what foreshortens its squares.

    >>> rvec = np.array([math.radians(30), 0, 0])  # turned 30 deg about x, centre 500 mm ahead
    >>> tvec = np.array([0, 0, 500.0]) - cv2.Rodrigues(rvec)[0] @ np.array([75.0, 105, 0])
    >>> round(tilt_deg(rvec, tvec), 1)
    30.0
    """
    r, _ = cv2.Rodrigues(np.asarray(rvec, np.float64).reshape(3))
    centre = np.array([board.size_mm[0] / 2, board.size_mm[1] / 2, 0.0])
    sight = r @ centre + np.asarray(tvec, np.float64).reshape(3)
    cos = abs(float(r[:, 2] @ sight)) / float(np.linalg.norm(sight))
    return math.degrees(math.acos(min(1.0, cos)))


def pose_spread_deg(rvecs: Sequence[np.ndarray]) -> float:
    """Largest angle between the board normals of any two poses, degrees (0 for fewer than 2).

    All normals parallel means Zhang's equations cannot separate the focal length from the
    distance (Zhang 2000, section 3.3, degenerate configurations).

    >>> round(pose_spread_deg([np.zeros(3), np.array([0.0, math.radians(25), 0])]), 1)
    25.0
    """
    normals = np.array([cv2.Rodrigues(np.asarray(r, np.float64).reshape(3))[0][:, 2] for r in rvecs])
    if len(normals) < 2:
        return 0.0
    cos = np.clip(np.abs(normals @ normals.T), 0.0, 1.0)
    return float(np.degrees(np.arccos(cos.min())))


def coverage_grid(corner_sets: Sequence[np.ndarray], image_size: tuple[int, int], cells: int = 3) -> np.ndarray:
    """Which parts of the image hold a corner of some view: a ``cells x cells`` grid.

    Parameters
    ----------
    corner_sets : sequence of (N, 2) float
        Corner pixels ``(x, y)`` of each view.
    image_size : (width, height)
        Pixels.
    cells : int
        Grid size; 3 gives the image's corners, edges and centre.

    Returns
    -------
    (cells, cells) bool
        ``[row, col]`` is True when a corner falls in that part of the image. Distortion is
        largest far from the centre, so calibration needs corners in the image's corners too.

    >>> coverage_grid([np.array([[10.0, 10.0], [290.0, 150.0]])], (300, 300)).astype(int)
    array([[1, 0, 0],
           [0, 0, 1],
           [0, 0, 0]])
    """
    w, h = image_size
    grid = np.zeros((cells, cells), bool)
    for corners in corner_sets:
        p = np.asarray(corners, np.float64).reshape(-1, 2)
        col = np.clip((p[:, 0] + 0.5) * cells // w, 0, cells - 1).astype(int)
        row = np.clip((p[:, 1] + 0.5) * cells // h, 0, cells - 1).astype(int)
        grid[row, col] = True
    return grid


_PART_NAMES = (("top-left", "top", "top-right"), ("left", "centre", "right"),
               ("bottom-left", "bottom", "bottom-right"))


def missing_parts(grid: np.ndarray) -> list[str]:
    """Names of the empty cells of a 3x3 :func:`coverage_grid` ("top-left", "centre", ...).

    >>> missing_parts(np.array([[1, 1, 0], [1, 1, 1], [0, 1, 1]], bool))
    ['top-right', 'bottom-left']
    """
    return [_PART_NAMES[r][c] for r, c in zip(*np.nonzero(~np.asarray(grid, bool)))]
