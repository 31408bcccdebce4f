"""``assistant serve --game forbidden-desert --source S`` without ``--setup``: the camera reads the
opening table and the referee confirms it on the new-game page before the game starts.

:class:`TableReader` reads the source on a daemon thread through the board watcher (the motion
gate). At the first still moment it reads the whole table
(:func:`~..tracking.desert_setup.read_setup`) from the mean of the still frames, and again
whenever the referee asks ("Read again"). The referee corrects cells from the lists of labels the
set-up allows there (:data:`ALLOWED`); the flags are worked out again on the corrected table.
When the referee starts the game (:meth:`~..referee.lobby.Lobby.start_from_table`), the same
thread hands the source to the game's live loop (:class:`.live.LiveTable`), which follows the
game from then on. The reading is the referee's only: it reaches pages through
:func:`~..referee.door.lobby`.
"""

from __future__ import annotations

import itertools
import threading
from typing import Any, Callable

import numpy as np

from ..games.forbidden_desert.components import ADVENTURERS, SIZE
from ..tracking.base import Reading
from ..tracking.desert_setup import BACK_FACES, KINDS, SetupReading, read_setup, setup_flags
from ..tracking.forbidden_desert import cell_name
from ..vision.motion import GateParams, StillMean
from ..vision.pipeline import BoardWatcher
from ..vision.sources import FrameSource
from .camera import next_frame, panel_jpeg

_COLOURS = sorted({a.colour for a in ADVENTURERS.values()})
#: the labels the referee may give each kind of slot at set-up (rules §3.1): a tile's desert side
#: or the empty storm cell; no sand, one marker light side up, or more (dark side up); no pawn or
#: any set of pawns (colours ``+``-joined, sorted); parts only beside the board
ALLOWED = {"face": [*BACK_FACES, "storm"], "sand": ["none", "light", "dark"],
           "pawns": ["", *("+".join(c) for n in range(1, len(_COLOURS) + 1)
                           for c in itertools.combinations(_COLOURS, n))],
           "parts": [""]}
#: still frames averaged before the table is read (the first left out, as the live loop does)
STILL_FRAMES = 5


class CorrectionError(ValueError):
    """A correction that cannot be used; ``str(exc)`` is one sentence."""


class TableReader:
    """The camera before the game: the opening table read, corrected and handed to the live loop.

    Parameters
    ----------
    source : FrameSource
    detector : FDDetector
        The Forbidden Desert table reader (``--model``).
    fps : float
        The source's frame rate (the motion gate's stillness is counted in seconds).
    camera_matrix : (3, 3) float64
        Intrinsics of the (undistorted) frames.
    undistort : callable, optional
        ``(H, W, 3) uint8 -> (H, W, 3) uint8``, applied to every frame first.
    live_of : callable
        ``live_of(session, source) -> LiveTable`` (not started): the live loop that follows the
        game once it starts.

    Attributes
    ----------
    reading : SetupReading or None
        The last reading (None before the table was first still).
    corrections : dict slot -> str
        The referee's corrections of :attr:`reading`.
    status : str
        The motion gate's last status, or why the source stopped.
    """

    def __init__(self, source: FrameSource, detector: Any, fps: float, camera_matrix: np.ndarray,
                 undistort: Callable | None = None, live_of: Callable[[Any, FrameSource], Any] | None = None):
        self.source, self.detector, self.fps = source, detector, fps
        self.camera_matrix, self.undistort, self.live_of = np.asarray(camera_matrix, np.float64), undistort, live_of
        self.watcher = BoardWatcher(detector.layout, fps, undistort=undistort,
                                    params=GateParams(still_frames=STILL_FRAMES))
        self.still = StillMean()
        self.reading: SetupReading | None = None
        self.corrections: dict[tuple, str] = {}
        self.revision = 0                                  #: bumped at every reading and correction
        self.status = "starting"
        self.wanted = True                                 #: read at the next still moment
        self.live = None                                   #: the LiveTable once the game started
        self._session = None
        self._small: tuple | None = None
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self.read_done = threading.Event()                 #: set after every reading
        self.thread = threading.Thread(target=self._run, name="table-reader", daemon=True)

    def start(self) -> "TableReader":
        """Start the reading thread; returns ``self``."""
        self.thread.start()
        return self

    def stop(self) -> None:
        """Stop reading (and the live loop, once started) and close the source."""
        self._stop.set()
        if self.live is not None:
            self.live.stop()
        self.source.close()

    # -- what the referee does ------------------------------------------------------------------------

    def read_again(self) -> None:
        """Read the table again at the next still moment (the corrections are dropped with the old reading)."""
        with self._lock:
            self.wanted = True
            self.read_done.clear()

    def correct(self, cell: Any, kind: Any, label: Any) -> None:
        """The referee's correction: ``kind`` (``face``, ``sand``, ``pawns``, ``parts``) of
        ``cell`` (``[r, c]``, 0-based) is ``label`` (one of :data:`ALLOWED` ``[kind]``).

        Raises
        ------
        CorrectionError
            No reading yet, or a cell, kind or label not allowed (one sentence).
        """
        if (not isinstance(cell, list) or len(cell) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x < SIZE for x in cell)):
            raise CorrectionError(f"A cell is [row, column], each from 0 to {SIZE - 1}.")
        if kind not in ALLOWED:
            raise CorrectionError(f"Correct one of {', '.join(ALLOWED)}.")
        if label not in ALLOWED[kind]:
            raise CorrectionError(f"That {kind} is not one a set-up may show on {cell_name(tuple(cell))}.")
        with self._lock:
            if self.reading is None:
                raise CorrectionError("The table has not been read yet: keep it still a moment.")
            self.corrections[(kind, *cell)] = label
            self.revision += 1

    def labels(self) -> dict:
        """The table as read with the referee's corrections: slot -> label."""
        with self._lock:
            return {**(self.reading.labels() if self.reading else {}), **self.corrections}

    def flags(self, players: list[str] | None = None) -> list:
        """:func:`~..tracking.desert_setup.setup_flags` of the corrected table (a corrected slot
        counts as sure); ``players`` as there."""
        with self._lock:
            if self.reading is None:
                return []
            readings = dict(self.reading.readings)
            readings.update({slot: Reading(label) for slot, label in self.corrections.items()})
        return setup_flags(readings, players)

    def view(self) -> dict[str, Any]:
        """What the referee's new-game page shows: ``{"status", "revision", "reading": {"cells",
        "card", "flags"} or None, "corrected": [[kind, r, c], ...], "allowed": ALLOWED}``; the
        reading's cells carry the corrected labels and the flags are those of the corrected table."""
        with self._lock:
            out: dict[str, Any] = {"status": "reading" if self.wanted else self.status, "revision": self.revision,
                                   "reading": None, "corrected": [list(s) for s in self.corrections],
                                   "allowed": ALLOWED}
            if self.reading is None:
                return out
            shown = SetupReading(self.reading.readings, self.flags())
            data = shown.to_json()
        for row in data["cells"]:
            for kind in KINDS:
                key = (kind, *row["cell"])
                if key in self.corrections:
                    row[kind] = self.corrections[key]
        out["reading"] = data
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
        self.still.add(frame)
        if not self.wanted or self.still.count < STILL_FRAMES - 1:
            return
        reading = read_setup(self.detector, self.still.mean(), out.track.homography, self.camera_matrix)
        with self._lock:
            self.reading, self.corrections, self.wanted = reading, {}, False
            self.revision += 1
        self.read_done.set()

