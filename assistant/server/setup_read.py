"""``assistant serve --game G --source S`` without ``--setup``: the camera reads the opening table
and the referee confirms it on the new-game page before the game starts (Forbidden Desert, Scout
Pennant, Discovery Island).

:class:`TableReader` reads the source on a daemon thread through the board watcher (the motion
gate). At the first still moment it reads the whole table with the game's opening kit
(:class:`~..tracking.opening.OpeningKit`) from the mean of the still frames, and again whenever
the referee asks ("Read again"). The referee corrects slots from the lists of labels the kit
allows (:attr:`~..tracking.opening.OpeningKit.allowed`); the flags are worked out again on the
corrected table, against the set-up the referee asked for once the lobby knows it
(:attr:`TableReader.context`). When the referee starts the game
(:meth:`~..referee.lobby.Lobby.start_from_table`), the same thread hands the source to the game's
live loop (:class:`.live.LiveTable`), which follows the game from then on. The reading is the
referee's only: it reaches pages through :func:`~..referee.door.lobby`.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

import numpy as np

from ..tracking.base import Reading
from ..tracking.opening import CorrectionError, OpeningKit
from ..vision.motion import GateParams, StillMean
from ..vision.pipeline import BoardWatcher
from ..vision.sources import FrameSource
from .camera import next_frame, panel_jpeg

__all__ = ["CorrectionError", "STILL_FRAMES", "TableReader"]

#: still frames averaged before the table is read (the first left out, as the live loop does)
STILL_FRAMES = 5


class TableReader:
    """The camera before the game: the opening table read, corrected and handed to the live loop.

    Parameters
    ----------
    source : FrameSource
    kit : OpeningKit
        The game's opening kit (its detector, slots, flags and set-up).
    fps : float
        The source's frame rate (the motion gate's stillness is counted in seconds).
    camera_matrix : (3, 3) float64, optional
        Intrinsics of the (undistorted) frames (Forbidden Desert's standing pawns need them).
    undistort : callable, optional
        ``(H, W, 3) uint8 -> (H, W, 3) uint8``, applied to every frame first.
    live_of : callable
        ``live_of(session, source) -> LiveTable`` (not started): the live loop that follows the
        game once it starts.

    Attributes
    ----------
    reading : dict slot -> Reading, or None
        The last reading (None before the table was first still).
    corrections : dict slot -> str
        The referee's corrections of :attr:`reading`.
    context : object or None
        :meth:`~..tracking.opening.OpeningKit.context` of the set-up the referee asked for
        (set by the lobby when the referee asks to start), against which the flags are worked
        out and with which the reading is shown and started (the kit's
        :meth:`~..tracking.opening.OpeningKit.given`: Forbidden Desert's players' pawns expected
        on the crash site); None before.
    status : str
        The motion gate's last status, or why the source stopped.
    """

    def __init__(self, source: FrameSource, kit: OpeningKit, fps: float, camera_matrix: np.ndarray | None = None,
                 undistort: Callable | None = None, live_of: Callable[[Any, FrameSource], Any] | None = None):
        self.source, self.kit, self.fps = source, kit, fps
        self.camera_matrix = None if camera_matrix is None else np.asarray(camera_matrix, np.float64)
        self.undistort, self.live_of = undistort, live_of
        self.watcher = BoardWatcher(kit.layout, fps, undistort=undistort, params=GateParams(still_frames=STILL_FRAMES))
        self.still = StillMean()
        self.reading: dict | None = None
        self.corrections: dict[tuple, str] = {}
        self.context: Any = None
        self.revision = 0                                  #: bumped at every reading and correction
        self.status = "starting"
        self.wanted = True                                 #: read at the next still moment
        self._fresh = False                                #: restart the still mean first ("Read again")
        self.live = None                                   #: the LiveTable once the game started
        self._session = None
        self._small: tuple | None = None
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self.read_done = threading.Event()                 #: set after every reading
        #: called (no argument, no lock held) after every new reading: the lobby's live stream
        self.on_change: Callable[[], None] | None = None
        self.thread = threading.Thread(target=self._run, name="table-reader", daemon=True)

    def start(self) -> "TableReader":
        """Start the reading thread; returns ``self``."""
        self.thread.start()
        return self

    def stop(self, timeout: float = 30.0) -> None:
        """Stop reading (and the live loop, once started), close the source, and wait up to
        ``timeout`` seconds for the threads to end (a read in progress finishes first), so that
        none is left inside OpenCV when the program exits."""
        self._stop.set()
        if self.live is not None:
            self.live.stop()
        self.source.close()
        for thread in (self.thread, getattr(self.live, "thread", None)):
            if thread is not None and thread.is_alive() and thread is not threading.current_thread():
                thread.join(timeout)

    # -- what the referee does ------------------------------------------------------------------------

    def read_again(self) -> None:
        """Read the table again at the next still moment, from frames taken after this request
        only (the table may have been put right without a hand in view); the corrections are
        dropped with the old reading."""
        with self._lock:
            self.wanted = self._fresh = True
            self.read_done.clear()

    def correct(self, cell: Any, kind: Any, label: Any) -> None:
        """The referee's correction: the slot ``kind`` of ``cell`` (a list of integers: the
        cell's key, e.g. ``[r, c]``; both cells' keys for a slot between two cells) is
        ``label`` (one of the kit's ``allowed[kind]``).

        Raises
        ------
        CorrectionError
            No reading yet, or a cell, kind or label not allowed (one sentence;
            :meth:`~..tracking.opening.OpeningKit.check_slot`).
        """
        slot = self.kit.check_slot(cell, kind, label)
        with self._lock:
            if self.reading is None:
                raise CorrectionError("The table has not been read yet: keep it still a moment.")
            self.corrections[slot] = label
            self.revision += 1

    def set_context(self, context: Any) -> None:
        """Work the flags out against ``context`` from now on (see :attr:`context`)."""
        with self._lock:
            self.context = context

    def labels(self) -> dict:
        """The table as read with the referee's corrections: slot -> label."""
        with self._lock:
            read = self.kit.given(self.reading, self.context) if self.reading else {}
            return {**{s: r.label for s, r in read.items()}, **self.corrections}

    def _readings(self) -> dict:
        """The readings with the corrections as sure readings (the caller holds the lock)."""
        readings = self.kit.given(self.reading, self.context) if self.reading else {}
        readings.update({slot: Reading(label) for slot, label in self.corrections.items()})
        return readings

    def flags(self, context: Any = None) -> list:
        """The kit's flags of the corrected table (a corrected slot counts as sure) against
        ``context`` (default :attr:`context`); empty before the first reading."""
        with self._lock:
            if self.reading is None:
                return []
            readings, context = self._readings(), self.context if context is None else context
        return self.kit.flags(readings, context)

    def confirmable(self, context: Any) -> tuple[int, dict, list] | None:
        """One consistent look at the table for starting the game: ``(revision, labels,
        flags against context)``, all of the same reading and corrections; None before the first
        reading. Sets :attr:`context`."""
        with self._lock:
            if self.reading is None:
                return None
            self.context = context
            revision, readings = self.revision, self._readings()
        return revision, {s: r.label for s, r in readings.items()}, self.kit.flags(readings, context)

    def view(self) -> dict[str, Any]:
        """What the referee's new-game page shows: ``{"game", "status", "revision", "reading":
        the kit's view (cells with their corrected labels and slots, flags of the corrected
        table, board) or None, "corrected": [[kind, *cell], ...], "allowed": kind -> labels}``."""
        with self._lock:
            out: dict[str, Any] = {"game": self.kit.game_id, "status": "reading" if self.wanted else self.status,
                                   "revision": self.revision, "reading": None,
                                   "corrected": [list(s) for s in self.corrections], "allowed": self.kit.allowed}
            if self.reading is None:
                return out
            readings, corrections, context = self.kit.given(self.reading, self.context), dict(self.corrections), self.context
        out["reading"] = self.kit.view(readings, self.flags(context), corrections)
        return out

    def follow(self, session: Any) -> None:
        """Hand the source to the live loop of ``session`` (the game started from this table);
        done on the reading thread at its next frame."""
        with self._lock:
            self._session = session

    # -- the thread -------------------------------------------------------------------------------------

    def jpeg(self) -> bytes | None:
        """The newest camera-panel image (JPEG bytes): the live loop's once the game started,
        else the rectified board the gate sees; ``None`` before the first frame."""
        if self.live is not None:
            return self.live.jpeg()
        small = self._small
        return None if small is None else panel_jpeg(small[0].copy(), small[1])

    def _run(self) -> None:
        index = 0
        while not self._stop.is_set():
            if self._session is not None and self.live_of is not None:
                self.live = self.live_of(self._session, self.source).start()
                return
            frame = next_frame(self)
            if frame is None:
                return
            try:
                self.step(frame.image, index, frame.t)
            except Exception as exc:                       # keep watching the table; say what broke
                self.status = f"error: {type(exc).__name__}: {exc}"
            index += 1

    def step(self, image: np.ndarray, index: int, t: float) -> None:
        """One frame ``(H, W, 3) uint8`` BGR at ``t`` seconds: the motion gate, the still mean
        and, when a reading is wanted and the table is still, the whole table read."""
        frame = self.undistort(image) if self.undistort is not None else image
        out = self.watcher.process(image, index, t)
        self.status = out.status
        if out.small is not None:
            self._small = (out.small, out.status)
        if out.gate is None or not out.track.ok or out.track.bumped or out.status != "still":
            self.still.restart()
            return
        if self._fresh:                                    # "Read again": only frames from now on
            self.still.restart()
            self._fresh = False
        self.still.add(frame)
        if not self.wanted or self.still.count < STILL_FRAMES - 1:
            return
        with self._lock:
            context = self.context
        reading = self.kit.read(self.still.mean(), out.track.homography, self.camera_matrix, context)
        with self._lock:
            self.reading, self.corrections, self.wanted = reading, {}, False
            self.revision += 1
        self.read_done.set()
        if self.on_change is not None:
            self.on_change()

