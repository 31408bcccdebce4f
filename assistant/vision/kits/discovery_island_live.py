"""Discovery Island from frames to verdicts, and scripted games played through it.

:class:`LiveIsland` runs each frame through the idle path (:class:`~assistant.vision.pipeline.BoardWatcher`)
and, after each stable change, reads the changed hexes (and those the tracker still has to
explain) with the detector and lets the :class:`~assistant.tracking.discovery_island.DiscoveryIslandTracker`
explain them.

:func:`play_scripted` plays a scripted game (:func:`~.discovery_island_script.scripted_moves`)
on the rendered table: each table move is an arm reaching the hex (entering from a random edge),
laying or clearing tiles while it rests there and leaving, followed by still frames; tablet moves
go straight to the tracker. The simulated players answer every question truthfully (they choose
the true option, or enter the move on the tablet), so the game goes on; every verdict is scored
against the truth.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ...games.base import Event
from ...tracking.base import Verdict
from ...tracking.discovery_island import DiscoveryIslandTracker, TableState
from ..mats import mat_layout
from ..motion import StableChange
from ..pipeline import BoardWatcher, WatchOutput
from ..render.camera import Camera
from ..render.lighting import DAYLIGHT, Lighting
from ..render.renderer import CameraSettings, Renderer
from ..render.scene import Scene
from ..render.sequence import Hold, Reach, Sequence as FrameSequence
from .discovery_island_detect import DIModel
from .discovery_island_script import Move

GAME = "discovery-island"
EDGES = ("bottom", "top", "left", "right")


@dataclass
class Step:
    """One frame through :class:`LiveIsland`: the idle path's output, and a verdict after a stable change.

    ``seconds`` is the wall time spent reading and explaining (0 without a verdict).
    """

    watch: WatchOutput
    verdict: Verdict | None = None
    seconds: float = 0.0


class LiveIsland:
    """Frames -> motion gate -> readings of the changed hexes -> tracker verdicts.

    Parameters
    ----------
    tracker : DiscoveryIslandTracker
        Made with the detector's model (``DiscoveryIslandTracker(state, detector=model)``).
    fps : float
    undistort : callable, optional
        Applied to every frame first (see :class:`~assistant.vision.pipeline.BoardWatcher`).
    """

    def __init__(self, tracker: DiscoveryIslandTracker, fps: float, undistort=None):
        self.tracker = tracker
        self.undistort = undistort
        self.watcher = BoardWatcher(mat_layout(GAME), fps, undistort=undistort)
        self._moved = False

    def process(self, image: np.ndarray, index: int, t: float) -> Step:
        """Run one frame ``(H, W, 3) uint8`` BGR; a verdict comes after each stable change, and
        after each time the board was still again after motion (an arm) even when the gate saw
        no change: a white panel turning into another white panel can slip through its blocks,
        so the hexes at stake are read then too."""
        out = self.watcher.process(image, index, t)
        state = out.gate.state if out.gate else None
        self._moved = self._moved or state == "moving"
        event = out.gate.event if out.gate else None
        if event is None and self._moved and state == "still" and out.track.ok:
            event = StableChange(index, t, [])
        if event is None or not out.track.ok:
            return Step(out)
        self._moved = False
        start = time.perf_counter()
        frame = self.undistort(image) if self.undistort is not None else image
        verdict = self.tracker.on_change(frame, out.track.homography, event)
        return Step(out, verdict, time.perf_counter() - start if verdict is not None else 0.0)


@dataclass
class PlayResult:
    """What a scripted game gave.

    Attributes
    ----------
    table_moves : int
        Moves made on the table (tiles laid, the mat cleared).
    correct : int
        Table moves whose events the camera committed, right, without a question.
    asked : int
        Questions (``ask`` verdicts, and ``illegal`` ones for legal moves), answered by the players.
    wrong : int
        Commits that did not match the truth (silent wrong commits).
    pending : int
        Table moves still uncommitted at the end (a tile like the one under it, undecided).
    latencies : list of float
        Seconds from the last frame with an arm over the board to each committed table move's
        verdict (frame time plus the wall time of reading and explaining).
    verdicts : list of (Move index, Verdict)
    """

    table_moves: int = 0
    correct: int = 0
    asked: int = 0
    wrong: int = 0
    pending: int = 0
    latencies: list = field(default_factory=list)
    verdicts: list = field(default_factory=list)


def _visible(evs: Sequence[Event]) -> list[Event]:
    return [e for e in evs if e.type != "skip_march"]


class _Referee:
    """Scores verdicts against the true events and answers the tracker's questions truthfully."""

    def __init__(self, tracker: DiscoveryIslandTracker, result: PlayResult):
        self.tracker, self.result = tracker, result
        self.truth: list[Event] = []
        self.table_truth: set[int] = set()        # indices in truth of table events

    def expect(self, move: Move) -> None:
        for ev in move.events:
            if move.kind == "table":
                self.table_truth.add(len(_visible(self.truth)))
            self.truth.append(ev)

    def missing(self) -> list[Event]:
        return _visible(self.truth)[len(_visible(self.tracker.log)):]

    def judge(self, verdict: Verdict, by_camera: bool) -> int:
        """Score one verdict; returns how many table moves it committed correctly."""
        done = len(_visible(self.tracker.log)) - len(_visible(verdict.events)) if verdict.kind == "commit" else None
        if verdict.kind == "commit":
            got = _visible(verdict.events)
            want = _visible(self.truth)[done:done + len(got)]
            if got != want:
                self.result.wrong += 1
                self.resync()
                return 0
            return sum(1 for i in range(done, done + len(got)) if i in self.table_truth) if by_camera else 0
        if verdict.kind in ("ask", "illegal"):
            self.result.asked += 1
            self.answer(verdict)
        return 0

    def answer(self, verdict: Verdict) -> None:
        """The players choose the true option, or enter the missing moves on the tablet."""
        missing = self.missing()
        for option in verdict.options:
            if _visible(option) == missing:
                self.tracker.choose(option)
                return
        if missing:
            self.tracker.choose(missing)

    def resync(self) -> None:
        """After a wrong commit: start again from the true table (counted once as wrong)."""
        raise _Resync()


class _Resync(Exception):
    pass


def play_scripted(start: TableState, scene: Scene, moves: Sequence[Move], model: DIModel, camera: Camera,
                  lighting: Lighting = DAYLIGHT, settings: CameraSettings = CameraSettings(), fps: float = 30.0,
                  seed: int = 0, hold_frames: int = 16, renderer: Renderer | None = None) -> PlayResult:
    """Play ``moves`` on the rendered table through :class:`LiveIsland`.

    Parameters
    ----------
    start, scene : TableState, Scene
        The table before the first move (from :func:`~.discovery_island_script.scripted_moves`).
    moves : sequence of Move
    model : DIModel
    camera : Camera
    lighting, settings, fps, seed
        The rendering (seed: arms and sensor noise).
    hold_frames : int
        Still frames after each arm leaves.
    renderer : Renderer, optional
        Reused for its caches.

    Returns
    -------
    PlayResult
        After a wrong commit the tracker is restarted from the true table (the game goes on).
    """
    rng = random.Random(seed)
    tracker = DiscoveryIslandTracker(start, detector=model)
    live = LiveIsland(tracker, fps)
    result = PlayResult()
    referee = _Referee(tracker, result)
    renderer = renderer or Renderer(camera)
    index, t0 = 0, 0.0

    def run(steps, scene):
        nonlocal index, t0
        seq = FrameSequence(scene, camera, steps, lighting, settings, fps, seed * 1000 + index, renderer)
        states = seq.states()
        last_arm, out = None, []
        for st in states:
            frame = seq.render_state(st)
            t = t0 + st.t
            if st.arm is not None:
                last_arm = t
            step = live.process(frame.image, index + st.index, t)
            if step.verdict is not None:
                out.append((t, step))
        index += len(states)
        t0 += len(states) / fps
        return states[-1].scene, last_arm, out

    scene, _, _ = run([Hold(12)], scene)
    for k, move in enumerate(moves):
        referee.expect(move)
        try:
            if move.kind == "tablet":
                verdict = tracker.apply_tablet(move.events[0])
                result.verdicts.append((k, verdict))
                referee.judge(verdict, by_camera=False)
                continue
            result.table_moves += 1
            steps = [Reach(move.cell, move.actions, entry=rng.choice(EDGES), speed_mm_s=rng.uniform(700, 1100),
                           dwell_frames=rng.randint(4, 8)), Hold(hold_frames)]
            scene, last_arm, verdicts = run(steps, scene)
            for t, step in verdicts:
                result.verdicts.append((k, step.verdict))
                good = referee.judge(step.verdict, by_camera=True)
                result.correct += good
                if good and last_arm is not None:
                    result.latencies.extend([t - last_arm + step.seconds] * good)
        except _Resync:
            tracker = DiscoveryIslandTracker(move.state, detector=model)
            live.tracker = tracker
            referee.tracker, referee.truth, referee.table_truth = tracker, [], set()
    result.pending = len(referee.missing())
    return result
