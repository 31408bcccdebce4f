"""The whole pipeline behind ``assistant serve --source S``: frames -> the game's live loop (motion
gate, detector, tracker) -> the session the tablets follow.

A verdict of the tracker becomes:

- ``commit``: its events are posted to the session with the referee's authority (the rules check
  them again there), and the tracker's announcement is shown as an ``info`` notice;
- ``illegal``: a notice with the rules' reason code and the cells to highlight (the table view
  gets it in the words :mod:`assistant.referee.door` lets through: never a secret);
- ``ask``: a notice showing the cells, until the players fix the table or enter the move;
- corrections after a storm card: one ``info`` notice each.

Events entered on a tablet (water, cards, a sea refusal) reach the tracker through its
``apply_tablet``; after an undo the tracker is rebuilt from the session's state. The camera panel
shows the rectified board the loop sees, with the motion gate's status and the cells of the last
verdict outlined (committed, asked, illegal).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

import cv2
import numpy as np

from ..referee.session import Session, SessionError
from ..tracking.base import Verdict
from ..tracking.forbidden_desert import AWAITING_SLIDES, VISIBLE_ACTIONS
from ..vision.pipeline import BoardWatcher, WatchOutput
from ..vision.sources import FrameSource
from .camera import next_frame, panel_jpeg


#: tablet entries that are moves on the table (Forbidden Desert's visible actions): entered, they
#: tell the live loop that the table shows them already (its ``resync``); a card play entered
#: before it is carried out does not
TABLE_MOVES = frozenset(VISIBLE_ACTIONS)


@dataclass
class LoopStep:
    """One frame through a live loop: the idle path's output and, after a change, a verdict."""

    watch: WatchOutput
    verdict: Verdict | None = None


class PennantLoop:
    """Scout Pennant's live loop: board watcher, then ``tracker.see`` on each stable change.

    Parameters
    ----------
    tracker : ScoutPennantTracker
    fps : float
        Frames per second of the source (the motion gate's stillness window is in seconds).
    undistort : callable, optional
        ``(H, W, 3) uint8 -> (H, W, 3) uint8``, applied to every frame first.
    """

    def __init__(self, tracker: Any, fps: float, undistort: Callable | None = None):
        from ..vision.mats import mat_layout

        self.tracker, self.undistort = tracker, undistort
        self.watcher = BoardWatcher(mat_layout("scout-pennant"), fps, undistort=undistort)

    def process(self, image: np.ndarray, index: int, t: float) -> LoopStep:
        """Run one frame ``(H, W, 3) uint8`` BGR; a verdict follows each stable change."""
        out = self.watcher.process(image, index, t)
        event = out.gate.event if out.gate else None
        if event is None or not out.track.ok:
            return LoopStep(out)
        frame = self.undistort(image) if self.undistort is not None else image
        return LoopStep(out, self.tracker.see(frame, out.track.homography, [*event.changed, *event.unsure]))


def make_loop(game_id: str, state: Any, model: str | None, fps: float, camera_matrix: np.ndarray | None,
              undistort: Callable | None = None) -> Any:
    """The live loop of ``game_id`` starting from the engine state ``state``.

    Parameters
    ----------
    model : str or None
        Forbidden Desert: the detector folder taught by ``assistant teach --slot table``
        (required); Discovery Island: a kit model folder (default: the cached kit model);
        Scout Pennant: not used.
    camera_matrix : (3, 3) or None
        Intrinsics of the (undistorted) frames, for Forbidden Desert's standing pawns.

    Raises
    ------
    ValueError
        Forbidden Desert without a model or without intrinsics.
    OSError
        A model folder that cannot be read.
    """
    if game_id == "forbidden-desert":
        from ..games import get_game
        from ..tracking.forbidden_desert import ForbiddenDesertTracker
        from ..tracking.live import LiveDesert
        from ..vision.detectors.forbidden_desert import FDDetector

        if not model or camera_matrix is None:
            raise ValueError("Forbidden Desert live needs --model (assistant teach --slot table) and the camera's intrinsics")
        tracker = ForbiddenDesertTracker(get_game(game_id), state)
        return LiveDesert(FDDetector.load(model), tracker, fps, camera_matrix, undistort=undistort)
    if game_id == "discovery-island":
        from ..tracking.discovery_island import DiscoveryIslandTracker
        from ..vision.kits.discovery_island_detect import load_or_teach
        from ..vision.kits.discovery_island_live import LiveIsland

        return LiveIsland(DiscoveryIslandTracker(state, detector=load_or_teach(model)), fps, undistort=undistort)
    if game_id == "scout-pennant":
        from ..tracking.scout_pennant import ScoutPennantTracker

        return PennantLoop(ScoutPennantTracker(state), fps, undistort=undistort)
    raise ValueError(f"no live loop for {game_id!r}")


class LiveTable:
    """Read ``source`` on a daemon thread through the game's live loop into ``session``.

    Parameters
    ----------
    session : Session
    source : FrameSource
    loop_of : callable
        ``loop_of(state) -> live loop`` (see :func:`make_loop`), called at the start and after
        an undo.
    fps : float
        Frame rate of the source (a file is read as fast as it decodes); the live loop gets each
        frame's own time stamp (a file's index / fps, a camera's arrival time).
    before_frame : callable, optional
        Called with each frame's index before it is processed (a recording's tablet entries).

    Attributes
    ----------
    status : str
        The gate's last status, or why the source stopped.
    verdicts : list of Verdict
        Every verdict so far (for tests and the log).
    """

    def __init__(self, session: Session, source: FrameSource, loop_of: Callable[[Any], Any], fps: float = 30.0,
                 before_frame: Callable[[int], None] | None = None):
        self.session, self.source, self.loop_of, self.fps = session, source, loop_of, fps
        self.before_frame = before_frame
        #: (frame index, verdict, seconds spent reading and explaining) of every verdict
        self.log: list[tuple[int, Verdict, float]] = []
        with session.changed:
            self.loop = loop_of(session.state)
            self.seen = len(session.applied)
            self.rewinds = session.rewinds
        self.status = "starting"
        self.verdicts: list[Verdict] = []
        self._marked: tuple[str, list] = ("", [])
        self._washed: list = []                       #: the tiles last announced as washed out
        self.checker = None                           #: Forbidden Desert's TableChecker, made on first use
        self._latest: tuple | None = None             #: (rectified board, gate status, marked cells)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="live-table", daemon=True)

    def start(self) -> "LiveTable":
        """Start the reading thread; returns ``self``."""
        self.thread.start()
        return self

    def stop(self) -> None:
        """Stop reading and close the source."""
        self._stop.set()
        self.source.close()

    def jpeg(self) -> bytes | None:
        """The newest camera-panel image (JPEG bytes), or ``None`` before the first frame."""
        with self._lock:
            latest = self._latest
        if latest is None:
            return None
        small, status, marked = latest
        view = small.copy()
        self._outline(view, marked)
        return panel_jpeg(view, status)

    def _look_again(self, image: np.ndarray, watch: WatchOutput, index: int) -> Verdict | None:
        """Re-read the cells the referee asked for on this still frame and explain them, as if
        the motion gate had reported them (the game's loop reads them its own way)."""
        with self.session.changed:
            cells, self.session.reread = list(self.session.reread), []
        if not cells:
            return None
        loop, homography = self.loop, watch.track.homography
        frame = loop.undistort(image) if getattr(loop, "undistort", None) is not None else image
        tracker = loop.tracker
        if hasattr(tracker, "see"):                                   # Scout Pennant
            return tracker.see(frame, homography, cells)
        if hasattr(tracker, "on_change"):                             # Discovery Island
            from ..vision.motion import StableChange

            return tracker.on_change(frame, homography, StableChange(index, index / self.fps, cells))
        from ..tracking.live import turn_prior                         # Forbidden Desert

        slots = tracker.model.slots(cells)
        readings = loop.detector.read(frame, homography, loop.camera_matrix, slots, loop.reference,
                                      turn_prior(tracker, set(cells)))
        return tracker.explain(readings, cells)

    def _sync(self) -> None:
        """Give the tracker the events entered on tablets; rebuild it after an undo. In Forbidden
        Desert, when the last entry that changes the table is a move on it (``TABLE_MOVES``: a
        move the camera missed, entered after it was made), the live loop takes the table as it
        stands for its reference (``LiveDesert.resync``); a card play entered before it is
        carried out (a Jet Pack) leaves the reference as it is."""
        with self.session.changed:
            applied = list(self.session.applied)
            state = self.session.state
            rewinds = self.session.rewinds
        if rewinds != self.rewinds or len(applied) < self.seen:
            self.loop, self.rewinds = self.loop_of(state), rewinds
        else:
            desert, moved = self.session.game.id == "forbidden-desert", False
            for a in applied[self.seen:]:
                event = self.session.game.parse_event(a.obj, self.session.start_state)
                tracker = self.loop.tracker
                was = tracker.model.expected(tracker.state) if desert else None
                if not tracker.apply_tablet(event).kind == "commit":
                    self.loop = self.loop_of(state)        # the tracker disagrees: start again from the rules
                    break
                if desert and tracker.model.expected(tracker.state) != was:
                    moved = event.type in TABLE_MOVES
            else:
                if moved:
                    self.loop.resync()
        self.seen = len(applied)

    def deliver(self, verdict: Verdict) -> None:
        """Pass one verdict to the session (see the module docstring)."""
        self.verdicts.append(verdict)
        s = self.session
        if verdict.kind == "commit":
            for event in verdict.events:
                try:
                    with s.changed:                      # no tablet event can slip in between
                        s.submit(event.to_json(), "referee")
                        self.seen = len(s.applied)
                except SessionError as exc:            # the rules refuse what the tracker thought legal
                    s.notify("illegal", f"The camera saw {event.type}, but: {exc}", verdict.cells, exc.reason)
                    with s.changed:
                        self.loop, self.seen = self.loop_of(s.state), len(s.applied)
                    return
            if verdict.message:
                s.notify("info", verdict.message, verdict.cells)
            for line in verdict.corrections:
                s.notify("info", line, verdict.cells)
        elif verdict.kind == "illegal":
            s.notify("illegal", verdict.message, verdict.cells, verdict.reason, private=verdict.private)
        elif verdict.kind == "ask":
            s.notify("ask", verdict.message or "Please check these cells.", verdict.cells,
                     options=[[e.to_json() for e in option] for option in verdict.options])
        elif verdict.kind == "nothing" and verdict.reason == AWAITING_SLIDES:
            s.notify("info", verdict.message, verdict.cells)      # why a laid storm card is not in yet
        for line in verdict.corrections if verdict.kind != "commit" else ():
            s.notify("info", line, verdict.cells)

    def _run(self) -> None:
        index = 0
        while not self._stop.is_set():
            frame = next_frame(self)
            if frame is None:
                return
            try:
                self._step(frame, index)
            except Exception as exc:                       # keep following the table; say what broke
                self.status = f"error: {type(exc).__name__}: {exc}"
                self.session.set_device("camera", self.status)
            index += 1

    def _step(self, frame, index: int) -> None:
        """One frame: tablet sync, the live loop, a verdict delivered, the camera panel."""
        if self.before_frame is not None:
            self.before_frame(index)
        self._sync()
        started = time.perf_counter()
        # the frame's own time: a file's index / fps, a camera's arrival time (frames may be skipped)
        step = self.loop.process(frame.image, index, frame.t)
        self.status = step.watch.status
        verdict = step.verdict
        if verdict is None and self.session.reread and step.watch.status == "still" and step.watch.track.ok:
            verdict = self._look_again(frame.image, step.watch, index)
        if verdict is not None:
            self.log.append((index, verdict, time.perf_counter() - started))
            self.deliver(verdict)
            self._marked = (verdict.kind, list(verdict.cells))
        else:
            self._check_table(step.watch, index)
        self._say_washed_out()
        self._publish(step.watch)

    def _say_washed_out(self) -> None:
        """Forbidden Desert: tell the players, once each time it changes, which tiles a lamp's
        glare washes out on the table as last committed (``LiveDesert.washed_out``), where the
        camera cannot see their moves, and when it sees every tile again."""
        washed_out = getattr(self.loop, "washed_out", None)
        if washed_out is None or self.loop.reference is None:
            return                                    # not Forbidden Desert, or no still table yet
        cells = washed_out()
        if cells == self._washed:
            return
        self._washed = cells
        if cells:
            from ..tracking.forbidden_desert import cell_name

            names = [cell_name(c) for c in cells]
            listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
            self.session.notify("info", f"A lamp's glare washes out {listed}: the camera cannot see what happens "
                                        "there. Move the lamp or the camera, or enter those moves on the tablet.",
                                cells)
        else:
            self.session.notify("info", "The camera sees every tile again.")

    def _check_table(self, watch: WatchOutput, index: int) -> None:
        """Forbidden Desert: start a check of the whole table against the game, on a worker
        thread, when the referee asked or a turn is over, once the table has been still and no
        check runs (:class:`.table_check.TableChecker`)."""
        if self.session.game.id != "forbidden-desert" or not watch.track.ok:
            return
        from .table_check import TableChecker

        if self.checker is None:
            self.checker = TableChecker(self.session, self.fps)
        if self.checker.due(self.loop, watch.status):
            self.checker.start(self.loop, watch.track.homography, index)

    def finish_check(self, timeout: float | None = None) -> bool:
        """Wait up to ``timeout`` seconds for a running check of the table (see
        :meth:`_check_table`); returns whether none runs."""
        return self.checker is None or self.checker.join(timeout)

    def _outline(self, view: np.ndarray, marked: tuple[str, list]) -> None:
        """Outline the cells ``marked`` (a verdict's kind and cells) on the rectified board
        ``view`` ``(h, w, 3) uint8`` BGR, in place (Okabe-Ito: commit bluish green, ask blue,
        illegal vermillion)."""
        kind, cells = marked
        watcher = getattr(self.loop, "watcher", None)
        if watcher is None or not cells:
            return
        colour = {"commit": (115, 158, 0), "ask": (178, 114, 0), "illegal": (0, 94, 213)}.get(kind, (128, 128, 128))
        x0, y0 = watcher.region[0], watcher.region[1]
        by_key = {cell.key: cell for cell in watcher.layout.cells}
        for key in cells:
            cell = by_key.get(tuple(key) if isinstance(key, (list, tuple)) else key)
            if cell is None:
                continue
            poly = (np.asarray(cell.polygon_mm, np.float64) - (x0, y0)) * watcher.px_per_mm
            cv2.polylines(view, [np.round(poly).astype(np.int32)], True, colour, 2, cv2.LINE_AA)

    def _publish(self, watch: WatchOutput) -> None:
        if watch.small is not None:                     # drawn and encoded only when a page asks (jpeg)
            with self._lock:
                self._latest = (watch.small, watch.status, self._marked)
