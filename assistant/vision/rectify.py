"""Rectification and sampling: from a frame and a homography to a top-down board and per-cell crops.

Each crop is warped straight from the camera frame (one interpolation, not two) with the
homography composed with the crop's own placement on the mat; squares and flat-top hexes get a
square crop of their bounding box, an edge of a hex lattice a rectangle across the shared
side, and a tall piece a crop that also covers where its top projects (perspective-aware).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from .mats import Cell, Edge, MatLayout


def _scale(px_per_mm: float, x0: float = 0.0, y0: float = 0.0) -> np.ndarray:
    """Mat mm -> output px for an output image whose top-left is mat point (x0, y0)."""
    return np.array([[px_per_mm, 0, -x0 * px_per_mm], [0, px_per_mm, -y0 * px_per_mm], [0, 0, 1]], np.float64)


def rectify(frame: np.ndarray, homography: np.ndarray, layout: MatLayout, px_per_mm: float,
            region_mm: tuple[float, float, float, float] | None = None,
            interpolation: int = cv2.INTER_LINEAR) -> np.ndarray:
    """The board seen from straight above.

    Parameters
    ----------
    frame : (H, W) or (H, W, 3) uint8
    homography : (3, 3)
        Mat mm -> frame px (see :mod:`.registration`).
    layout : MatLayout
    px_per_mm : float
        Output resolution.
    region_mm : (x0, y0, x1, y1), optional
        The part of the mat to produce (default: the whole mat).

    Returns
    -------
    ndarray
        ``(round((y1-y0) * px_per_mm), round((x1-x0) * px_per_mm)[, 3])``, same dtype as
        ``frame``; pixel ``(x, y)`` shows mat point ``(x0 + x / px_per_mm, y0 + y / px_per_mm)``.
        Parts outside the frame are black.
    """
    x0, y0, x1, y1 = region_mm or (0.0, 0.0, *layout.size_mm)
    size = (int(round((x1 - x0) * px_per_mm)), int(round((y1 - y0) * px_per_mm)))
    out_to_frame = homography @ np.linalg.inv(_scale(px_per_mm, x0, y0))
    return cv2.warpPerspective(frame, out_to_frame, size, flags=interpolation | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_CONSTANT)


def square_crop(frame: np.ndarray, homography: np.ndarray, centre: tuple[float, float], side_mm: float,
                 size: int, angle_deg: float = 0.0, aspect: float = 1.0) -> np.ndarray:
    """A ``size``-pixel-wide crop of a ``side_mm`` (x ``side_mm * aspect``) rectangle of the mat
    centred on ``centre`` (mm) and rotated by ``angle_deg``, warped straight from the frame.

    Returns
    -------
    (round(size * aspect), size[, 3]) uint8
    """
    c, s = math.cos(math.radians(angle_deg)), math.sin(math.radians(angle_deg))
    half_w, half_h = side_mm / 2, side_mm * aspect / 2
    height = max(1, int(round(size * aspect)))
    # crop px -> mat mm: rotate/translate the unit square of the crop
    k = side_mm / size
    crop_to_mat = np.array([[c * k, -s * k, centre[0] - c * half_w + s * half_h],
                            [s * k, c * k, centre[1] - s * half_w - c * half_h],
                            [0, 0, 1]], np.float64)
    return cv2.warpPerspective(frame, homography @ crop_to_mat, (size, height),
                               flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)


def cell_crop(frame: np.ndarray, homography: np.ndarray, cell: Cell, size: int = 64, inset: float = 0.0) -> np.ndarray:
    """A square crop of one cell.

    Parameters
    ----------
    frame : (H, W[, 3]) uint8
    homography : (3, 3)
        Mat mm -> frame px.
    cell : Cell
    size : int
        Output side in pixels.
    inset : float
        Fraction of the cell's bounding box trimmed on each side (0.05 drops the outline).

    Returns
    -------
    (size, size[, 3]) uint8
        The cell's axis-aligned bounding box in mat coordinates (for a hex, the square of its
        width) with mat north up.
    """
    poly = np.asarray(cell.polygon_mm)
    side = float(max(np.ptp(poly[:, 0]), np.ptp(poly[:, 1]))) * (1.0 - 2 * inset)
    return square_crop(frame, homography, cell.center_mm, side, size)


def cell_crops(frame: np.ndarray, homography: np.ndarray, layout: MatLayout, size: int = 64,
               inset: float = 0.0) -> dict[tuple, np.ndarray]:
    """:func:`cell_crop` for every cell of the layout, keyed by cell key."""
    return {cell.key: cell_crop(frame, homography, cell, size, inset) for cell in layout.cells}


def edge_crop(frame: np.ndarray, homography: np.ndarray, edge: Edge, pitch_mm: float, size: int = 48) -> np.ndarray:
    """A crop across the shared side of two hex cells (where a Scout Pennant arrow lies).

    The crop is ``pitch_mm`` long along the line from cell ``a`` to cell ``b`` and half as wide,
    rotated so that ``a -> b`` points to the right of the crop.

    Returns
    -------
    (size // 2, size[, 3]) uint8
    """
    return square_crop(frame, homography, edge.midpoint_mm, pitch_mm, size, edge.angle_deg, aspect=0.5)


def pose_from_homography(homography: np.ndarray, camera_matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The mat's pose from the homography and the intrinsics (Zhang 2000, sec. 3.1).

    Returns
    -------
    (R, t)
        ``(3, 3)`` rotation and ``(3,)`` translation in mm such that a mat point ``(x, y, 0)``
        is at ``R @ [x, y, 0] + t`` in camera coordinates.
    """
    a = np.linalg.inv(camera_matrix) @ homography
    scale = 1.0 / np.linalg.norm(a[:, 0])
    r1, r2, t = a[:, 0] * scale, a[:, 1] * scale, a[:, 2] * scale
    if t[2] < 0:                                     # the board lies in front of the camera
        r1, r2, t = -r1, -r2, -t
    r = np.column_stack([r1, r2, np.cross(r1, r2)])
    u, _s, vt = np.linalg.svd(r)                     # nearest true rotation
    return u @ vt, t


def tall_crop(frame: np.ndarray, homography: np.ndarray, camera_matrix: np.ndarray, cell: Cell,
              height_mm: float, size: int = 64) -> np.ndarray:
    """A crop that holds a piece standing ``height_mm`` tall on ``cell``, wherever its top projects.

    The cell's footprint and the same outline lifted by ``height_mm`` towards the camera are
    projected with the pose of :func:`pose_from_homography`; the crop is their bounding box in
    the frame, resized to ``size x size`` (pieces seen obliquely lean away from the camera,
    which a flat cell crop would cut off).

    Parameters
    ----------
    camera_matrix : (3, 3)
        Intrinsics of an undistorted frame (from calibration; ``f = 0.9 * width`` is a fair
        guess for a webcam).

    Returns
    -------
    (size, size[, 3]) uint8
    """
    r, t = pose_from_homography(homography, camera_matrix)
    base = np.array([[x, y, 0.0] for x, y in cell.polygon_mm])
    # mat z points into the table (x right, y down), so "up" is -z
    top = base - np.array([0.0, 0.0, height_mm])
    pts = np.vstack([base, top]) @ r.T + t
    px = (pts @ camera_matrix.T)[:, :2] / pts[:, 2:3]
    x0, y0 = np.floor(px.min(axis=0)).astype(int)
    x1, y1 = np.ceil(px.max(axis=0)).astype(int)
    side = max(x1 - x0, y1 - y0, 1)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    src = np.array([[cx - side / 2, cy - side / 2], [cx + side / 2, cy - side / 2], [cx + side / 2, cy + side / 2]],
                   np.float32)
    dst = np.array([[0, 0], [size, 0], [size, size]], np.float32)
    return cv2.warpAffine(frame, cv2.getAffineTransform(src, dst), (size, size), flags=cv2.INTER_AREA,
                          borderMode=cv2.BORDER_REPLICATE)


def grid_corners_px(homography: np.ndarray, layout: MatLayout) -> np.ndarray:
    """Every cell corner of the layout projected into the frame, ``(N, 2) float64`` pixels,
    in cell order then polygon order (used to measure registration accuracy)."""
    pts = np.array([p for cell in layout.cells for p in cell.polygon_mm], np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(pts, homography).reshape(-1, 2)
