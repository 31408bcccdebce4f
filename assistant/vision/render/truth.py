"""Ground truth of a rendered frame: where the mat, its markers and cells are in the image,
what lies on each cell, and what the arm hides.

Image positions come from :meth:`~.camera.Camera.project` (OpenCV's model, distortion
included): marker corners in the order ``cv2.aruco`` reports them (TL, TR, BR, BL of the
marker's own square, black border included), cell polygons as their mat corners projected
(with lens distortion the true edges bend slightly between those corners). The homography maps
mat mm to *undistorted* pixels (``K [r1 r2 t] P``, Hartley & Zisserman 8.1.1, with ``P`` the
mat's pose on the table); with no distortion that is the image itself.

Occlusion comes from the arm layer's alpha: a cell is *covered* when at least
``cover_fraction`` of its image area lies under alpha >= 0.5, *touched* when any of its pixels
has alpha >= 0.05; a marker is covered when any pixel of its square or quiet zone has alpha >=
0.05; the marker band (between the play area and the mat's edge, which the motion gate
watches) likewise.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from ..mats import QUIET_MM, MatLayout
from .camera import Camera, apply_pose
from .hands import ArmLayer
from .scene import CellContent, Scene

COVER_ALPHA, TOUCH_ALPHA = 0.5, 0.05


def homography(camera: Camera, pose: np.ndarray) -> np.ndarray:
    """Mat mm ``(x, y, 1)`` to undistorted pixels, ``(3, 3) float64`` normalised to ``H[2, 2] = 1``."""
    h = camera.homography() @ pose
    return h / h[2, 2]


def dense_outline(polygon_mm, per_edge: int = 8) -> np.ndarray:
    """A closed polygon's edges sampled ``per_edge`` times each, ``(N * per_edge, 2)`` mm."""
    p = np.asarray(polygon_mm, np.float64)
    return np.concatenate([np.linspace(p[i], p[(i + 1) % len(p)], per_edge, endpoint=False) for i in range(len(p))])


def _expand(square, by: float) -> np.ndarray:
    sq = np.asarray(square, np.float64)
    c = sq.mean(axis=0)
    d = np.sign(sq - c)
    return sq + d * by


@dataclass
class Regions:
    """Label images of the mat's regions for one camera and pose (see :func:`regions`)."""

    cells: np.ndarray            # (H, W) int16: cell index, -1 outside
    cell_area: np.ndarray        # (N,) int: pixels per cell
    markers: np.ndarray          # (H, W) int8: marker index (square + quiet zone), -1 outside
    band: np.ndarray             # (H, W) bool: mat minus play area


def regions(camera: Camera, layout: MatLayout, pose: np.ndarray) -> Regions:
    """Rasterise the cells, the markers (with their quiet zones) and the marker band in the image
    (edges sampled 8 times so lens distortion bends them)."""
    w, h = camera.size
    cells = np.full((h, w), -1, np.int16)
    for i, cell in enumerate(layout.cells):
        px = camera.project(apply_pose(pose, dense_outline(cell.polygon_mm)))
        if np.all(np.isfinite(px)) and np.all(np.abs(px) < 1e5):
            cv2.fillPoly(cells, [np.round(px).astype(np.int32)], int(i))
    markers = np.full((h, w), -1, np.int8)
    for i, m in enumerate(layout.markers):
        px = camera.project(apply_pose(pose, dense_outline(_expand(m.corners_mm, QUIET_MM))))
        if np.all(np.isfinite(px)) and np.all(np.abs(px) < 1e5):
            cv2.fillPoly(markers, [np.round(px).astype(np.int32)], int(i))
    band = np.zeros((h, w), np.uint8)
    outer = camera.project(apply_pose(pose, dense_outline(layout.outline_mm(), 24)))
    x0, y0, x1, y1 = layout.play_area_mm
    inner = camera.project(apply_pose(pose, dense_outline([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], 24)))
    if np.all(np.isfinite(outer)) and np.all(np.abs(outer) < 1e5):
        cv2.fillPoly(band, [np.round(outer).astype(np.int32)], 1)
        if np.all(np.isfinite(inner)) and np.all(np.abs(inner) < 1e5):
            cv2.fillPoly(band, [np.round(inner).astype(np.int32)], 0)
    area = np.bincount(cells.ravel() + 1, minlength=len(layout.cells) + 1)[1:]
    return Regions(cells, area, markers, band.astype(bool))


@dataclass
class ArmTruth:
    """What the arm hides in one frame."""

    present: bool = False
    hand_px: tuple[float, float] | None = None
    hand_mm: tuple[float, float, float] | None = None
    speed_mm_s: float = 0.0
    blur_px: float = 0.0
    cell_fraction: dict = field(default_factory=dict)     # key -> fraction under alpha >= 0.5
    covered_cells: tuple = ()
    touched_cells: tuple = ()
    markers_covered: tuple = ()
    band_touched: bool = False

    def to_json(self) -> dict:
        """A JSON-ready dict (cell keys as lists)."""
        return {"present": self.present, "hand_px": self.hand_px, "hand_mm": self.hand_mm,
                "speed_mm_s": self.speed_mm_s, "blur_px": self.blur_px,
                "covered_cells": [list(k) for k in self.covered_cells],
                "touched_cells": [list(k) for k in self.touched_cells],
                "markers_covered": list(self.markers_covered), "any_marker_covered": bool(self.markers_covered),
                "band_touched": self.band_touched}


def arm_truth(layer: ArmLayer | None, layout: MatLayout, reg: Regions, cover_fraction: float = 0.1,
              hand_mm=None, speed_mm_s: float = 0.0) -> ArmTruth:
    """Which cells and markers an arm layer hides (module docstring for the thresholds).

    Parameters
    ----------
    layer : ArmLayer or None
    layout : MatLayout
    reg : Regions
        From :func:`regions` for the same camera and pose.
    cover_fraction : float
        Share of a cell's image area that must be under the arm for it to count as covered.
    hand_mm, speed_mm_s
        Copied into the result.
    """
    if layer is None or not np.any(layer.alpha >= TOUCH_ALPHA):
        return ArmTruth(False, None, None if hand_mm is None else tuple(map(float, hand_mm)), float(speed_mm_s))
    x0, y0, x1, y1 = layer.box
    a = layer.alpha
    lab = reg.cells[y0:y1, x0:x1]
    n = len(layout.cells)
    under = np.bincount(lab[a >= COVER_ALPHA].ravel() + 1, minlength=n + 1)[1:]
    touched = np.bincount(lab[a >= TOUCH_ALPHA].ravel() + 1, minlength=n + 1)[1:]
    frac = {layout.cells[i].key: float(under[i] / reg.cell_area[i]) for i in range(n) if reg.cell_area[i] and under[i]}
    covered = tuple(layout.cells[i].key for i in range(n)
                    if reg.cell_area[i] and under[i] / reg.cell_area[i] >= cover_fraction)
    touch = tuple(layout.cells[i].key for i in range(n) if touched[i])
    mk = reg.markers[y0:y1, x0:x1][a >= TOUCH_ALPHA]
    markers = tuple(layout.markers[i].id for i in sorted(set(mk[mk >= 0].tolist())))
    band = bool(np.any(reg.band[y0:y1, x0:x1] & (a >= TOUCH_ALPHA)))
    return ArmTruth(True, layer.hand_px, None if hand_mm is None else tuple(map(float, hand_mm)), float(speed_mm_s),
                    layer.blur_px, frac, covered, touch, markers, band)


@dataclass
class FrameTruth:
    """Everything known about one frame. :meth:`to_json` gives the JSON Lines record."""

    index: int
    t: float
    image_size: tuple[int, int]
    K: np.ndarray
    dist: np.ndarray
    homography: np.ndarray
    mat_pose: tuple[float, float, float]
    markers: dict            # id -> {"corners": (4, 2), "in_view": bool, "side_px": float}
    cells: dict              # key -> {"polygon": (4, 2), "center": (2,), "in_view": bool}
    contents: dict           # key -> CellContent
    card_place: str
    arm: ArmTruth
    board_present: bool
    board_in_view: float
    flags: dict
    events: list
    lighting: str
    exposure_s: float
    pawns: dict = field(default_factory=dict)    # piece_id -> {"base_px", "top_px", "cell"}

    @property
    def board_visible(self) -> bool:
        """The board is on the table and some of it is in the picture."""
        return self.board_present and self.board_in_view > 0

    def to_json(self) -> dict:
        """A JSON-ready dict: arrays as nested lists (pixels rounded to 1/1000), cell keys as lists."""
        r = lambda a: np.round(np.asarray(a, np.float64), 3).tolist()   # noqa: E731
        return {
            "index": self.index, "t": round(self.t, 6), "image_size": list(self.image_size),
            "K": r(self.K), "dist": r(self.dist), "homography": np.asarray(self.homography).tolist(),
            "mat_pose": list(self.mat_pose), "lighting": self.lighting, "exposure_s": self.exposure_s,
            "flags": dict(self.flags, board_visible=self.board_visible), "board_in_view": round(self.board_in_view, 4),
            "markers": [{"id": i, "corners": r(m["corners"]), "in_view": m["in_view"],
                         "side_px": round(m["side_px"], 2)} for i, m in self.markers.items()],
            "cells": [{"key": list(k), "polygon": r(c["polygon"]), "center": r(c["center"]), "in_view": c["in_view"],
                       **self.contents[k].to_json(), "arm_fraction": round(self.arm.cell_fraction.get(k, 0.0), 4),
                       "arm_covered": k in self.arm.covered_cells} for k, c in self.cells.items()],
            "pawns": [{"piece_id": i, "base_px": r(p["base_px"]), "top_px": r(p["top_px"]),
                       "cell": None if p["cell"] is None else list(p["cell"])} for i, p in self.pawns.items()],
            "card_place": self.card_place, "arm": self.arm.to_json(), "events": self.events,
        }


@dataclass
class Geometry:
    """Where the mat lies in the image for one camera and pose (see :func:`geometry`)."""

    homography: np.ndarray       # (3, 3) mat mm -> undistorted px
    markers: dict                # id -> {"corners": (4, 2) px, "in_image": bool, "side_px": float}
    cells: dict                  # key -> {"polygon": (4, 2) px, "center": (2,) px, "in_image": bool}
    board_in_view: float         # share of the mat's area inside the picture (21 x 21 samples)


def geometry(camera: Camera, layout: MatLayout, pose: np.ndarray) -> Geometry:
    """Project the mat's markers, cells and area for ``camera`` and ``pose`` (one projection
    call for all points)."""
    ids, corners = layout.marker_points()
    polys = np.array([c.polygon_mm for c in layout.cells], np.float64)            # (N, k, 2)
    centres = np.array([c.center_mm for c in layout.cells], np.float64)
    w, h = layout.size_mm
    grid = np.stack(np.meshgrid(np.linspace(0, w, 21), np.linspace(0, h, 21)), axis=2).reshape(-1, 2)
    pts = np.concatenate([corners.reshape(-1, 2).astype(np.float64), polys.reshape(-1, 2), centres, grid])
    px = camera.project(apply_pose(pose, pts))
    inside = camera.in_image(px)
    nm, npoly = corners.size // 2, polys.shape[0] * polys.shape[1]
    m_px, p_px = px[:nm].reshape(-1, 4, 2), px[nm:nm + npoly].reshape(polys.shape)
    c_px = px[nm + npoly:nm + npoly + len(centres)]
    m_in, p_in = inside[:nm].reshape(-1, 4), inside[nm:nm + npoly].reshape(polys.shape[:2])
    markers = {}
    for k, i in enumerate(ids.tolist()):
        q = m_px[k]
        side = float(np.mean(np.linalg.norm(q - np.roll(q, 1, axis=0), axis=1))) if np.all(np.isfinite(q)) else 0.0
        markers[i] = {"corners": q, "in_image": bool(np.all(m_in[k])), "side_px": side}
    cells = {cell.key: {"polygon": p_px[k], "center": c_px[k], "in_image": bool(np.all(p_in[k]))}
             for k, cell in enumerate(layout.cells)}
    return Geometry(homography(camera, pose), markers, cells, float(np.mean(inside[nm + npoly + len(centres):])))


def frame_truth(index: int, t: float, camera: Camera, scene: Scene, geom: Geometry, mat_pose: tuple,
                arm: ArmTruth, flags: dict, events: list, lighting: str, exposure_s: float,
                pawn_px: dict | None = None) -> FrameTruth:
    """Assemble a :class:`FrameTruth` from the frame's :class:`Geometry` and the scene's contents.

    Parameters
    ----------
    index, t : int, float (s)
    camera : Camera
    scene : Scene
    geom : Geometry
        :func:`geometry` of this camera and mat pose.
    mat_pose : (dx_mm, dy_mm, dtheta_deg)
    arm : ArmTruth
    flags : dict
    events : list of dict
    lighting : str
    exposure_s : float
    pawn_px : dict piece_id -> (2, 2) px, optional
        Base and top centre of each pawn (:attr:`~.renderer.Rendered.pawn_px`).
    """
    present = scene.board_present
    markers = {i: {"corners": m["corners"], "in_view": m["in_image"] and present, "side_px": m["side_px"]}
               for i, m in geom.markers.items()}
    cells = {k: {"polygon": c["polygon"], "center": c["center"], "in_view": c["in_image"] and present}
             for k, c in geom.cells.items()}
    layout = scene.layout
    contents = scene.contents() if present else {c.key: CellContent() for c in layout.cells}
    return FrameTruth(index, t, camera.size, camera.K.copy(), camera.dist.copy(), geom.homography,
                      tuple(float(v) for v in mat_pose), markers, cells, contents,
                      scene.card_place_label() if present else "empty", arm, present,
                      geom.board_in_view if present else 0.0, flags, events, lighting, float(exposure_s),
                      {p.piece_id: {"base_px": pawn_px[p.piece_id][0], "top_px": pawn_px[p.piece_id][1],
                                    "cell": scene.cell_of(p.center_mm)}
                       for p in scene.talls if pawn_px and p.piece_id in pawn_px})
