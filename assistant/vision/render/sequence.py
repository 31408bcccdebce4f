"""Scripted frame sequences with ground truth.

A sequence is a starting scene, a camera and a list of *steps*; iterating it yields
``Frame(index, t, image, truth)`` tuples (``t`` in seconds at ``fps``, ``image`` ``(H, W, 3)
uint8`` BGR, ``truth`` a :class:`~.truth.FrameTruth`). Steps:

- :class:`Hold` ``(frames)``: nothing moves;
- :class:`Do` ``(actions)``: the scene changes between two frames, no arm (a teleport);
- :class:`Reach` ``(cell, actions)``: an arm comes in from an image edge to a cell, rests there
  ``dwell_frames`` while the actions happen (in the middle of the rest), and leaves;
- :class:`Sweep` ``(start_mm, end_mm)``: a hand crosses the table at ``speed_mm_s`` (1 m/s
  sweeps, field report F9);
- :class:`Bump` ``(dx_mm, dy_mm, dtheta_deg)``: the mat slides and turns on the table (F4);
- :class:`MoveCamera` ``(dx_mm, dy_mm, droll_deg)``: the camera shifts (half the board out of
  view, F5) or turns;
- :class:`SetLight` ``(lighting)``: the light switches (F3); :class:`SetBoard` ``(present)``:
  the board is lifted off the table or put back (F5); :class:`SetCamera` ``(settings)``: the
  camera's exposure, blur or noise change (defocus for F1, a longer exposure for F9).

Everything is deterministic for a given ``seed``: arm styles from ``default_rng([seed, 1000 +
step])``, sensor noise from ``default_rng([seed, frame_index])``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Iterator, NamedTuple

import numpy as np

from .camera import Camera, apply_pose, plane_pose
from .hands import Arm, ArmStyle, entry_point, random_style
from .lighting import DAYLIGHT, Lighting
from .renderer import CameraSettings, Renderer
from .scene import Scene
from .truth import FrameTruth, arm_truth, frame_truth, geometry, regions


@dataclass(frozen=True)
class Hold:
    """``frames`` frames with nothing moving."""

    frames: int = 1


@dataclass(frozen=True)
class Do:
    """Scene actions applied before the next frame, without an arm."""

    actions: tuple = ()


@dataclass(frozen=True)
class Reach:
    """An arm reaches a cell (or a mat point), rests while ``actions`` happen, and leaves.

    Attributes
    ----------
    cell : tuple or None
        Target cell key; or ``at_mm`` (mat mm).
    actions : tuple
        Applied at the middle frame of the rest.
    entry : str
        Image edge the arm comes from: ``bottom``, ``top``, ``left``, ``right``.
    speed_mm_s : float
        Hand speed in and out, mm/s.
    dwell_frames : int
    hand_height_mm, travel_height_mm : float
        Palm height over the table at the target and at the image edge, mm.
    style : ArmStyle or None
        Random (by the sequence's seed) when None.
    """

    cell: tuple | None = None
    actions: tuple = ()
    at_mm: tuple[float, float] | None = None
    entry: str = "bottom"
    speed_mm_s: float = 800.0
    dwell_frames: int = 6
    hand_height_mm: float = 35.0
    travel_height_mm: float = 110.0
    style: ArmStyle | None = None


@dataclass(frozen=True)
class Sweep:
    """A hand moving in a straight line from ``start_mm`` to ``end_mm`` (mat mm; either may lie
    off the picture) at ``speed_mm_s``, the arm rooted beyond the ``entry`` edge."""

    start_mm: tuple[float, float]
    end_mm: tuple[float, float]
    speed_mm_s: float = 1000.0
    entry: str = "bottom"
    hand_height_mm: float = 90.0
    style: ArmStyle | None = None


@dataclass(frozen=True)
class Bump:
    """The mat slides by ``(dx_mm, dy_mm)`` table mm and turns by ``dtheta_deg`` (clockwise seen
    from above, about its centre) over ``frames`` frames."""

    dx_mm: float = 0.0
    dy_mm: float = 0.0
    dtheta_deg: float = 0.0
    frames: int = 2


@dataclass(frozen=True)
class MoveCamera:
    """The camera's centre shifts by ``(dx_mm, dy_mm)`` in the table plane and it turns about its
    optical axis by ``droll_deg`` (the picture turns clockwise), over ``frames`` frames."""

    dx_mm: float = 0.0
    dy_mm: float = 0.0
    droll_deg: float = 0.0
    frames: int = 1


@dataclass(frozen=True)
class SetLight:
    """Switch to ``lighting`` before the next frame."""

    lighting: Lighting


@dataclass(frozen=True)
class SetCamera:
    """Use other :class:`~.renderer.CameraSettings` from the next frame on."""

    settings: CameraSettings


@dataclass(frozen=True)
class SetBoard:
    """Lift the board off the table (``present=False``) or put it back, before the next frame."""

    present: bool


class Frame(NamedTuple):
    """One frame: ``(index, t, image, truth)``."""

    index: int
    t: float
    image: np.ndarray
    truth: FrameTruth


@dataclass
class FrameState:
    """What one frame shows, before rendering."""

    index: int
    t: float
    scene: Scene
    mat_pose: tuple[float, float, float]
    camera: Camera
    lighting: Lighting
    arm: Arm | None
    events: list
    flags: dict
    settings: CameraSettings = CameraSettings()


def _move_camera(camera: Camera, dx: float, dy: float, droll: float) -> Camera:
    c = camera.center_mm + np.array([dx, dy, 0.0])
    a = math.radians(droll)
    rz = np.array([[math.cos(a), -math.sin(a), 0.0], [math.sin(a), math.cos(a), 0.0], [0.0, 0.0, 1.0]])
    r = rz @ camera.R
    return camera.with_pose(r, -r @ c)


class _Path:
    """Piecewise-linear hand positions over time: keyframes ``(t, xyz)``."""

    def __init__(self, keys: list[tuple[float, np.ndarray]]):
        self.t = np.array([k[0] for k in keys])
        self.p = np.array([k[1] for k in keys])

    @property
    def duration(self) -> float:
        return float(self.t[-1])

    def at(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        i = int(np.clip(np.searchsorted(self.t, t, side="right") - 1, 0, len(self.t) - 2))
        t0, t1 = self.t[i], self.t[i + 1]
        f = 0.0 if t1 <= t0 else float(np.clip((t - t0) / (t1 - t0), 0.0, 1.0))
        vel = (self.p[i + 1] - self.p[i]) / (t1 - t0) if t1 > t0 else np.zeros(3)
        return self.p[i] + f * (self.p[i + 1] - self.p[i]), vel


class Sequence:
    """Frames of a scripted scene.

    Parameters
    ----------
    scene : Scene
        The starting scene.
    camera : Camera
    steps : sequence of steps (module docstring)
    lighting : Lighting
    settings : CameraSettings
    fps : float
        Frames per second (default 30).
    seed : int
    renderer : Renderer, optional
        Reused (its caches) when given; its camera is replaced by ``camera``.
    cover_fraction : float
        See :func:`~.truth.arm_truth`.

    Raises
    ------
    ValueError
        For a non-positive fps or an unknown step.

    Examples
    --------
    >>> from assistant.vision.render import desert, camera as cam
    >>> s = desert.desert_setup(0)
    >>> c = cam.look_at_mat(s.layout.outline_mm(), (160, 120), 60.0)
    >>> seq = Sequence(s, c, [Hold(2), Bump(5.0, 0.0, 1.0, frames=1)], fps=10)
    >>> [(f.index, f.t, f.image.shape, f.truth.flags["bumped"]) for f in seq]
    [(0, 0.0, (120, 160, 3), False), (1, 0.1, (120, 160, 3), False), (2, 0.2, (120, 160, 3), True)]
    """

    def __init__(self, scene: Scene, camera: Camera, steps, lighting: Lighting = DAYLIGHT,
                 settings: CameraSettings = CameraSettings(), fps: float = 30.0, seed: int = 0,
                 renderer: Renderer | None = None, cover_fraction: float = 0.1):
        if fps <= 0:
            raise ValueError(f"fps must be positive, got {fps}")
        self.scene, self.camera, self.steps = scene, camera, list(steps)
        self.lighting, self.settings, self.fps, self.seed = lighting, settings, float(fps), int(seed)
        self.cover_fraction = cover_fraction
        self.renderer = renderer
        self._states: list[FrameState] | None = None
        self._regions: dict = {}

    # -- states ------------------------------------------------------------------------------
    def states(self) -> list[FrameState]:
        """Every frame's :class:`FrameState` (computed once; no rendering)."""
        if self._states is None:
            self._states = list(self._plan())
        return self._states

    def __len__(self) -> int:
        return len(self.states())

    def _plan(self) -> Iterator[FrameState]:
        scene, cam, light, settings = self.scene, self.camera, self.lighting, self.settings
        pose = [0.0, 0.0, 0.0]
        pending: list = []
        index = 0
        prev: dict = {}

        def emit(arm=None, events=None):
            nonlocal index, pending, prev
            ev = pending + (events or [])
            pending = []
            now = {"pose": tuple(pose), "cam": cam.key(), "light": light, "scene": (scene.flat_key(), scene.talls,
                                                                                  scene.board_present)}
            flags = {"bumped": bool(prev) and now["pose"] != prev["pose"],
                     "camera_moved": bool(prev) and now["cam"] != prev["cam"],
                     "light_change": bool(prev) and now["light"] != prev["light"],
                     "scene_changed": bool(prev) and now["scene"] != prev["scene"],
                     "board_present": scene.board_present}
            prev = now
            st = FrameState(index, index / self.fps, scene, tuple(pose), cam, light, arm, ev, flags, settings)
            index += 1
            return st

        def apply(actions):
            nonlocal scene
            out = []
            for a in actions:
                out.append(a.describe(scene))
                scene = a.apply(scene)
            return out

        for si, step in enumerate(self.steps):
            if isinstance(step, Hold):
                for _ in range(step.frames):
                    yield emit()
            elif isinstance(step, Do):
                pending += apply(step.actions)
            elif isinstance(step, SetLight):
                light = step.lighting
            elif isinstance(step, SetCamera):
                settings = step.settings
            elif isinstance(step, SetBoard):
                scene = scene.with_board(step.present)
            elif isinstance(step, Bump):
                start = list(pose)
                for k in range(1, step.frames + 1):
                    f = k / step.frames
                    pose[:] = [start[0] + f * step.dx_mm, start[1] + f * step.dy_mm, start[2] + f * step.dtheta_deg]
                    yield emit()
            elif isinstance(step, MoveCamera):
                for _ in range(step.frames):
                    cam = _move_camera(cam, step.dx_mm / step.frames, step.dy_mm / step.frames,
                                       step.droll_deg / step.frames)
                    yield emit()
            elif isinstance(step, (Reach, Sweep)):
                style = step.style or random_style(np.random.default_rng([self.seed, 1000 + si]))
                pose3 = self._pose(scene, pose)
                path, shoulder, act_t = self._arm_path(step, cam, pose3)
                n = max(2, int(math.floor(path.duration * self.fps + 1e-9)) + 1)
                done = False
                for k in range(n):
                    t = k / self.fps
                    events = []
                    if isinstance(step, Reach) and not done and t >= act_t:
                        events, done = apply(step.actions), True
                    p, v = path.at(t)
                    yield emit(Arm(tuple(shoulder), tuple(p), tuple(v), style), events)
                if isinstance(step, Reach) and not done:
                    pending += apply(step.actions)
            else:
                raise ValueError(f"unknown step {step!r}")

    def _pose(self, scene: Scene, pose) -> np.ndarray:
        w, h = scene.layout.size_mm
        return plane_pose(pose[0], pose[1], pose[2], (w / 2.0, h / 2.0))

    def _arm_path(self, step, cam: Camera, pose3: np.ndarray):
        if isinstance(step, Reach):
            if step.at_mm is not None:
                target_mat = np.asarray(step.at_mm, np.float64)
            elif step.cell is not None:
                target_mat = np.asarray(self.scene.layout.cell(tuple(step.cell)).center_mm, np.float64)
            else:
                raise ValueError("Reach needs a cell or at_mm")
            tw = apply_pose(pose3, target_mat[None])[0]
            target = np.array([tw[0], tw[1], -step.hand_height_mm])
            tpx = cam.project(np.array([[tw[0], tw[1], 0.0]]))[0]
            start = entry_point(cam, step.entry, tpx if np.all(np.isfinite(tpx)) else (0.0, 0.0), step.travel_height_mm)
            d = np.linalg.norm(target - start)
            t1 = d / step.speed_mm_s
            t2 = t1 + step.dwell_frames / self.fps
            path = _Path([(0.0, start), (t1, target), (t2, target), (t2 + t1, start)])
            act_t = t1 + 0.5 * step.dwell_frames / self.fps
        else:
            a = apply_pose(pose3, np.asarray([step.start_mm, step.end_mm], np.float64))
            p0 = np.array([a[0, 0], a[0, 1], -step.hand_height_mm])
            p1 = np.array([a[1, 0], a[1, 1], -step.hand_height_mm])
            mid = cam.project(((p0 + p1) / 2)[None])[0]
            start = entry_point(cam, step.entry, mid if np.all(np.isfinite(mid)) else (0.0, 0.0), step.hand_height_mm)
            target = (p0 + p1) / 2
            path = _Path([(0.0, p0), (np.linalg.norm(p1 - p0) / step.speed_mm_s, p1)])
            act_t = math.inf
        u = start[:2] - target[:2]
        u = u / max(np.linalg.norm(u), 1e-9)
        height = min(300.0, 0.7 * -cam.center_mm[2])
        shoulder = np.array([start[0] + 350.0 * u[0], start[1] + 350.0 * u[1], -height])
        return path, shoulder, act_t

    # -- rendering ---------------------------------------------------------------------------
    def render_state(self, st: FrameState) -> Frame:
        """Render one :class:`FrameState` into a :class:`Frame`."""
        if self.renderer is None:
            self.renderer = Renderer(st.camera)
        elif self.renderer.camera is not st.camera:
            self.renderer.camera = st.camera
        pose3 = self._pose(st.scene, st.mat_pose)
        out = self.renderer.render(st.scene, pose3, st.lighting, st.arm, st.settings,
                                   np.random.default_rng([self.seed, st.index]))
        key = (st.camera.key(), pose3.tobytes(), st.scene.layout)
        if key not in self._regions:
            if len(self._regions) > 4:
                self._regions.pop(next(iter(self._regions)))
            self._regions[key] = (regions(st.camera, st.scene.layout, pose3),
                                  geometry(st.camera, st.scene.layout, pose3))
        reg, geom = self._regions[key]
        layer = out.arm
        speed = float(np.linalg.norm(st.arm.velocity_mm_s)) if st.arm is not None else 0.0
        at = arm_truth(layer, st.scene.layout, reg, self.cover_fraction,
                       None if st.arm is None else st.arm.hand_mm, speed)
        if not st.scene.board_present:
            at = replace(at, cell_fraction={}, covered_cells=(), touched_cells=(), markers_covered=(),
                         band_touched=False)
        flags = dict(st.flags, arm_present=at.present)
        truth = frame_truth(st.index, st.t, st.camera, st.scene, geom, st.mat_pose, at, flags, st.events,
                            st.lighting.name, out.exposure_s, out.pawn_px)
        return Frame(st.index, st.t, out.image, truth)

    def __iter__(self) -> Iterator[Frame]:
        for st in self.states():
            yield self.render_state(st)
