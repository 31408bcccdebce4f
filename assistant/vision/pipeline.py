"""The idle path: capture -> registration -> rectification -> motion gate, frame by frame.

:class:`BoardWatcher` wires a :class:`~.registration.BoardTracker` to a
:class:`~.motion.MotionGate` over a small rectified board. It never raises on a bad frame: a
frame with no board says ``board_not_found``, one with the markers hidden says ``occluded``
and keeps the last homography, a bump is reported and re-registered.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .mats import MatLayout, grid_mat
from .lean import LeanModel, camera_pose
from .motion import GateOutput, GateParams, MotionGate
from .rectify import rectify
from .registration import BoardTracker, TrackState

SMALL_PX_PER_MM = 1.0
MANUAL_RING = 0.1       #: ring around a clicked grid watched for arms, as a share of its size
#: the tallest standing piece of each game's mat, mm (games not listed have flat pieces only)
STANDING_PIECE_MM = {"forbidden-desert": 35.0}
#: on a bare grid (``assistant watch --corners``), standing pieces up to this many cells tall (a
#: chess king is about 1.7 squares)
GRID_PIECE_CELLS = 1.7


@dataclass(frozen=True)
class WatchOutput:
    """One frame through the idle path.

    Attributes
    ----------
    index, t : int, float
        Frame number and seconds.
    track : TrackState
    gate : GateOutput or None
        ``None`` while the board has never been found.
    status : str
        ``"board_not_found"``, ``"occluded"``, ``"moving"``, ``"settling"``, ``"still"``,
        ``"starting"``.
    small : ndarray or None
        The small rectified board the gate saw ``(h, w, 3) uint8``.
    """

    index: int
    t: float
    track: TrackState
    gate: GateOutput | None
    status: str
    small: np.ndarray | None = None


class BoardWatcher:
    """Registration, rectification and the motion gate for one board.

    Parameters
    ----------
    layout : MatLayout
        A game's mat, or :func:`~.mats.grid_mat` for a bare grid with ``manual_corners``.
    fps : float
    manual_corners : (4, 2) array, optional
        Clicked corners of the play area (no markers needed).
    search_every : int
        Marker search period in frames (see :class:`~.registration.BoardTracker`).
    params : GateParams, optional
    undistort : callable, optional
        Applied to every frame first, e.g. an :class:`~.calibration_io.Undistorter` built from
        ``calibration/camera.yaml`` (precomputed maps; cheap lenses bend the image corners by
        40-50 px, which no homography can fix); its ``new_camera_matrix`` gives the intrinsics
        for where standing pieces lean (:mod:`.lean`).
    piece_height_mm : float, optional
        The tallest standing piece, mat mm (0: flat pieces only); by default the game's
        (:data:`STANDING_PIECE_MM`), or :data:`GRID_PIECE_CELLS` cells on a bare grid.
    """

    def __init__(self, layout: MatLayout, fps: float, manual_corners: np.ndarray | None = None,
                 search_every: int = 10, params: GateParams | None = None, px_per_mm: float = SMALL_PX_PER_MM,
                 undistort=None, piece_height_mm: float | None = None):
        self.layout = layout
        self.undistort = undistort
        if piece_height_mm is None:
            piece_height_mm = (GRID_PIECE_CELLS * layout.cell_pitch_mm if layout.game == "grid"
                               else STANDING_PIECE_MM.get(layout.game, 0.0))
        self.piece_height_mm = piece_height_mm
        self.tracker = BoardTracker(layout, search_every, manual_corners)
        if manual_corners is not None:
            x0, y0, x1, y1 = layout.play_area_mm
            ring = MANUAL_RING * max(x1 - x0, y1 - y0)
            self.region = (x0 - ring, y0 - ring, x1 + ring, y1 + ring)
            margin = ring * 0.8
        else:
            self.region = (0.0, 0.0, *layout.size_mm)
            margin = layout.play_area_mm[0] - 2.0
        self.px_per_mm = px_per_mm
        self.gate = MotionGate(layout, px_per_mm, self.region, fps, margin, params)
        self._last_gate_state = "starting"
        self._inside_key = None
        self._inside = None

    def _in_view(self, homography: np.ndarray, frame_hw: tuple[int, int]) -> np.ndarray | None:
        """Rectified pixels inside the camera frame ``(h, w) uint8`` (255 in view), or None when
        all are; recomputed only when the homography changes."""
        key = (homography.tobytes(), frame_hw)
        if self._inside_key != key:
            inside = rectify(np.full(frame_hw, 255, np.uint8), homography, self.layout, self.px_per_mm, self.region,
                             interpolation=cv2.INTER_NEAREST)
            # the frame's own border row is half board, half black after interpolation: leave it out
            inside = cv2.erode(inside, np.ones((3, 3), np.uint8))
            self._inside, self._inside_key = (None if inside.all() else inside), key
            self.gate.lean = self._lean(homography, frame_hw)
        return self._inside

    def _lean(self, homography: np.ndarray, frame_hw: tuple[int, int]) -> LeanModel | None:
        """Where standing pieces lean under this registration (None for flat pieces, or when
        the camera's pose cannot be had from it)."""
        if self.piece_height_mm <= 0:
            return None
        matrix = getattr(self.undistort, "new_camera_matrix", None)
        try:
            nadir, height = camera_pose(homography, (frame_hw[1], frame_hw[0]), matrix)
        except ValueError:
            return None
        return LeanModel(self.layout, self.gate.blocks, self.region, nadir, height, self.piece_height_mm)

    def process(self, image: np.ndarray, index: int, t: float) -> WatchOutput:
        """Run one frame ``(H, W, 3) uint8`` BGR through the idle path."""
        if self.undistort is not None:
            image = self.undistort(image)
        track = self.tracker.update(image)
        if not track.ok:
            return WatchOutput(index, t, track, None, "board_not_found")
        if track.bumped:
            self.gate.note_bump()
        small = rectify(image, track.homography, self.layout, self.px_per_mm, self.region)
        gate = self.gate.update(small, index, t, hold=self.tracker.hidden,
                                inside=self._in_view(track.homography, image.shape[:2]))
        if gate.state == "settling":
            # the scene is settling: was the board bumped? And the frames the gate is about to
            # compare (its next reference among them) are rectified with their own fit, so a
            # camera that shakes does not put the reference a few pixels off the cells
            self.tracker.request(settle_begins=self._last_gate_state != "settling")
        self._last_gate_state = gate.state
        status = "occluded" if track.status == "occluded" and gate.state != "still" else gate.state
        return WatchOutput(index, t, track, gate, status, small)


def manual_grid(rows: int, cols: int, corners_px: np.ndarray | None = None) -> MatLayout:
    """The layout of a bare ``rows x cols`` grid located by four clicked corners.

    Its "millimetres" are nominal: with ``corners_px`` a cell measures about as many units as
    the camera sees pixels across it (so the gate's 5-unit blocks span several camera pixels
    and average their noise); without, cells are 50 units.
    """
    if corners_px is None:
        pitch = 50.0
    else:
        c = np.asarray(corners_px, np.float64).reshape(4, 2)
        width = (np.linalg.norm(c[1] - c[0]) + np.linalg.norm(c[2] - c[3])) / 2
        height = (np.linalg.norm(c[3] - c[0]) + np.linalg.norm(c[2] - c[1])) / 2
        pitch = max(20.0, min(width / cols, height / rows))
    return grid_mat(rows, cols, width_mm=pitch * cols, height_mm=pitch * rows)
