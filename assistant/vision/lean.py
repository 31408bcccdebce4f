"""Where standing pieces lean in the rectified board, so that a tall piece is not taken for a
change of the cell behind it.

Rectification maps the table plane; anything above it lands where the camera's ray through it
meets the plane. A point at height ``z`` above mat point ``p`` lands at
``p + (p - n) * z / (h - z)``, where ``n`` is the camera's nadir (the mat point under the camera
centre) and ``h`` the camera's height over the mat (central projection onto ``z = 0``). A
standing piece therefore spreads from its base away from the nadir, over the next cell when it
is tall (a chess queen seen from the side of the table), and its image there is not a change of
that cell.

The camera's pose comes from the registration homography ``H`` (mat mm -> image px) and the
intrinsics ``K``: ``K^-1 H ~ [r1 r2 t]`` (Zhang, "A flexible new technique for camera
calibration", IEEE PAMI 22(11), 2000, section 2.3). Without a calibration, ``K`` has its
principal point at the image centre and the one focal length that makes ``r1`` and ``r2``
orthogonal (the same paper's constraints, solved for the focal length alone); a camera looking
straight down leaves it undetermined, and a focal length of one image width is assumed.

:class:`LeanModel` marks, per cell, the blocks the piece standing on it can cover (its base
disc, swept away from the nadir up to ``height_mm``). A cell whose changed blocks all lie in the
lean zone of a changed neighbour nearer the nadir, in the same blob, is the neighbour's piece
leaning over it: the gate reports it as unsure, not changed (the detectors, which look closer,
decide). Shadows of standing pieces are light and change no cell already (:mod:`.change`).
"""

from __future__ import annotations

import cv2
import numpy as np

from .change import BLOCK_MM, BlockGrid
from .mats import MatLayout

BASE_SHARE = 0.35       #: radius of a standing piece's base, as a share of the cell pitch
MIN_INSIDE = 0.9        #: share of a cell's changed blocks that must lie in a neighbour's lean zone


def camera_pose(homography: np.ndarray, image_size: tuple[int, int],
                camera_matrix: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """The camera's nadir on the mat and its height over it, from the registration.

    Parameters
    ----------
    homography : (3, 3)
        Mat mm -> image px.
    image_size : (width, height)
        Of the (undistorted) frames, px.
    camera_matrix : (3, 3), optional
        Intrinsics; estimated when None (module docstring).

    Returns
    -------
    (nadir, height)
        ``(2,) float64`` mat mm of the point under the camera centre, and its height over the
        mat, mm (> 0).

    Raises
    ------
    ValueError
        When the homography is degenerate.
    """
    h = np.asarray(homography, np.float64)
    if camera_matrix is None:
        cx, cy = image_size[0] / 2.0, image_size[1] / 2.0
        centred = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1]], np.float64) @ h
        a, b = centred[:, 0], centred[:, 1]
        f2 = -(a[0] * b[0] + a[1] * b[1]) / (a[2] * b[2]) if abs(a[2] * b[2]) > 1e-12 else -1.0
        if not np.isfinite(f2) or f2 <= 0:
            denom = b[2] ** 2 - a[2] ** 2
            f2 = (a[0] ** 2 + a[1] ** 2 - b[0] ** 2 - b[1] ** 2) / denom if abs(denom) > 1e-12 else -1.0
        f = float(np.sqrt(f2)) if np.isfinite(f2) and f2 > 0 else float(image_size[0])
        f = min(max(f, 0.3 * image_size[0]), 5.0 * image_size[0])
        camera_matrix = np.array([[f, 0, cx], [0, f, cy], [0, 0, 1]], np.float64)
    m = np.linalg.solve(np.asarray(camera_matrix, np.float64), h)
    norm = np.linalg.norm(m[:, 0])
    if not np.isfinite(norm) or norm < 1e-12:
        raise ValueError("the homography is degenerate")
    m = m / norm
    if m[2, 2] < 0:                                  # the mat lies in front of the camera
        m = -m
    r1, r2, t = m[:, 0], m[:, 1] / max(np.linalg.norm(m[:, 1]), 1e-12), m[:, 2]
    r3 = np.cross(r1, r2)
    rot = np.stack([r1, r2, r3], axis=1)
    u, _, vt = np.linalg.svd(rot)                    # the nearest rotation
    rot = u @ vt
    centre = -rot.T @ t
    return centre[:2].copy(), float(abs(centre[2]))


class LeanModel:
    """Each cell's lean zone in the gate's block grid (see the module docstring).

    Parameters
    ----------
    layout : MatLayout
    grid : BlockGrid
        The gate's blocks.
    region_mm : (x0, y0, x1, y1)
        The part of the mat the block grid covers.
    nadir : (2,) mat mm
    camera_height_mm : float
    height_mm : float
        The tallest standing piece of the game, mm (mat units).
    """

    def __init__(self, layout: MatLayout, grid: BlockGrid, region_mm, nadir, camera_height_mm: float,
                 height_mm: float):
        self.grid = grid
        self.nadir = np.asarray(nadir, np.float64)
        bh, bw = grid.shape
        x0, y0 = region_mm[0], region_mm[1]
        z = min(height_mm, 0.8 * camera_height_mm)
        reach = z / max(camera_height_mm - z, 1e-6)          # the top lands (p - n) * reach further out
        radius = BASE_SHARE * layout.cell_pitch_mm / BLOCK_MM
        self.zones: dict = {}
        self.distance: dict = {}
        centres = {cell.key: np.asarray(cell.center_mm, np.float64) for cell in layout.cells}
        for key in grid.keys:
            if key not in centres:
                continue
            c = centres[key]
            top = c + (c - self.nadir) * reach
            a = (c - (x0, y0)) / BLOCK_MM
            b = (top - (x0, y0)) / BLOCK_MM
            zone = np.zeros((bh, bw), np.uint8)
            # the base disc swept from the base to where the top lands: a capsule
            cv2.line(zone, tuple(int(round(v)) for v in a), tuple(int(round(v)) for v in b), 1,
                     thickness=max(1, int(round(2 * radius))), lineType=cv2.LINE_8)
            cv2.circle(zone, tuple(int(round(v)) for v in a), int(round(radius)), 1, -1)
            self.zones[key] = zone.astype(bool)
            self.distance[key] = float(np.linalg.norm(c - self.nadir))

    def leaning(self, changed_keys: list, changed: np.ndarray) -> set:
        """The changed cells whose change a nearer changed neighbour's standing piece explains.

        Parameters
        ----------
        changed_keys : list of cell keys
            The cells the gate found changed.
        changed : (bh, bw) bool
            The changed blocks.

        Returns
        -------
        set of cell keys
            Cells (a subset of ``changed_keys``) to report as unsure instead.
        """
        if len(changed_keys) < 2:
            return set()
        count, labels = cv2.connectedComponents(changed.astype(np.uint8), connectivity=8)
        boxes = dict(zip(self.grid.keys, self.grid.cells))
        order = sorted((k for k in changed_keys if k in self.zones), key=lambda k: self.distance[k])
        kept: list = []
        out = set()
        for key in order:
            rows, cols = boxes[key]
            mine = changed[rows, cols]
            blobs_here = set(np.unique(labels[rows, cols][mine])) - {0}
            explained = False
            for near in kept:
                zone = self.zones[near][rows, cols]
                near_rows, near_cols = boxes[near]
                near_blobs = set(np.unique(labels[near_rows, near_cols][changed[near_rows, near_cols]])) - {0}
                if blobs_here & near_blobs and np.count_nonzero(mine & zone) >= MIN_INSIDE * np.count_nonzero(mine):
                    explained = True
                    break
            if explained:
                out.add(key)
            else:
                kept.append(key)
        return out
