""""Check the table" in the live loop (Forbidden Desert): on the referee's button
(``POST /api/check``) and by itself once per turn, after the storm phase, when the table has been
still for ``QUIET_S`` seconds.

The check (:func:`~..tracking.desert_check.check_table`, a full-table read of a few seconds) runs
on a worker thread, one at a time, so the frames never wait for it: the live loop's thread only
takes what the check needs (its still mean, the last committed still, the session's events) and
goes on. The check never changes the game: it reads a private copy of the detector (a
whole-table read sets the tile size the detector estimates) and its findings go to the referee
view as referee-only notices (:meth:`~..referee.session.Session.notify`, shown through
:mod:`~..referee.door`, which keeps them off the table and the players' pages): a correction as
``info``, a question as ``ask``, a move the camera missed as ``ask`` with that move as the option
the referee may post. A difference traced to the last event says that it can be undone; one
that a missed move explains names that move instead (the last event was right). Findings
about a game that moved on while the check ran are dropped (the referee, who asked, is told so);
the referee asking while a check runs is answered by that check.
"""

from __future__ import annotations

import copy
import threading
from typing import Any

import numpy as np

from ..referee.session import Session

#: seconds the table must have been still before a check runs by itself
QUIET_S = 1.0


class TableChecker:
    """When to check the Forbidden Desert table, and where the answer goes.

    Parameters
    ----------
    session : Session
    fps : float
        The source's frame rate (stillness is counted in frames of the live loop's still mean).
    """

    def __init__(self, session: Session, fps: float):
        self.session, self.fps = session, fps
        #: the turn last checked by itself: (end_turn events applied so far); None before the first
        self.checked_turn: int | None = None
        #: every check run: (frame index, TableCheck)
        self.log: list[tuple[int, Any]] = []
        #: every check that failed: (frame index, the exception it raised)
        self.failures: list[tuple[int, Exception]] = []
        #: the thread of the last check started (None before the first)
        self.worker: threading.Thread | None = None

    @property
    def running(self) -> bool:
        """Whether a check is running now."""
        return self.worker is not None and self.worker.is_alive()

    def join(self, timeout: float | None = None) -> bool:
        """Wait up to ``timeout`` seconds for a running check; returns whether none runs."""
        if self.worker is not None:
            self.worker.join(timeout)
        return not self.running

    def _turn(self) -> int:
        return sum(1 for a in self.session.applied if a.obj.get("type") == "end_turn")

    def due(self, loop: Any, status: str) -> bool:
        """Whether a check should run on this frame: the referee asked, or a turn's storm phase
        is over (the engine is in an action phase, no storm card's slides are awaited) and this
        turn was not checked yet; and in both cases the table has been still ``QUIET_S`` and no
        check runs."""
        tracker = getattr(loop, "tracker", None)
        still = getattr(loop, "still", None)
        if (tracker is None or still is None or status != "still" or getattr(loop, "detector", None) is None
                or self.running):
            return False
        if still.count < max(1, round(QUIET_S * self.fps)):
            return False
        if self.session.check_requested:
            return True
        state = tracker.state
        return (getattr(tracker, "awaiting", None) is None and state.phase == "actions"
                and state.result == "ongoing" and self._turn() != self.checked_turn)

    def start(self, loop: Any, homography, index: int) -> threading.Thread:
        """Take what a check needs from the live loop, on the loop's thread: its still mean
        ``(H, W, 3) uint8`` seen through ``homography`` (mat mm -> px, 3x3), its last committed
        still, a private copy of its detector (:func:`own_detector`) and the session's events;
        then check the table on a worker thread and post the findings (:meth:`deliver`).
        ``index`` is the frame's (for :attr:`log`). Returns the started worker thread."""
        s = self.session
        with s.changed:
            asked, s.check_requested = s.check_requested, False
            s.check_running = True
            start = s.start_state
            events = [s.game.parse_event(a.obj, start) for a in s.applied]
            at = (len(s.applied), s.rewinds)
            self.checked_turn = self._turn()
        job = (own_detector(loop.detector), loop.still.mean(), np.array(homography, np.float64),
               np.array(loop.camera_matrix, np.float64), start, events, loop.reference)
        self.worker = threading.Thread(target=self._work, args=(index, job, asked, at), name="table-check",
                                       daemon=True)
        self.worker.start()
        return self.worker

    def _work(self, index: int, job: tuple, asked: bool, at: tuple[int, int]) -> None:
        """The worker: read and compare, then post the findings if the game is still where it
        was when the still was taken (``at``: events applied, rewinds). A request of the
        referee's that came while it ran is answered by this check."""
        from ..tracking.desert_check import check_table

        s = self.session
        detector, frame, homography, camera_matrix, start, events, reference = job
        try:
            check = check_table(detector, frame, homography, camera_matrix, s.game, start, events, reference)
        except Exception as exc:                    # say what broke; the live loop goes on
            check = exc
        else:
            self.log.append((index, check))
        with s.changed:                             # no event or request slips in between
            asked, s.check_requested = asked or s.check_requested, False
            s.check_running = False
            if isinstance(check, Exception):            # one sentence; the error itself stays in the log
                self.failures.append((index, check))
                s.notify("info", f"The check of the table failed ({type(check).__name__}) and the game is as it was: "
                                 "ask again when the table is still.", referee_only=True)
            elif (len(s.applied), s.rewinds) == at:
                self.deliver(check, asked)
            elif asked:
                s.notify("info", "The game moved on while the table was checked; ask again when it is still.",
                         referee_only=True)

    def deliver(self, check: Any, asked: bool = False) -> None:
        """Post a check's findings as referee-only notices (nothing for a clean automatic check;
        "The table matches the game." for a clean one the referee asked for)."""
        s = self.session
        if check.clean:
            if asked:
                s.notify("info", "The table matches the game.", referee_only=True)
            return
        last = len(s.applied)
        for f in check.findings:
            text = f.text()
            if f.cause is not None and f.cause.index == last and s.can_undo("referee"):
                text += " It is the last event: undo it if it was wrong."
            s.notify("info" if f.kind == "correction" else "ask", text, [f.cell], referee_only=True)
        if check.missed:                            # one option per equipment card an excavation may have drawn
            options = check.missed_options or [check.missed]
            s.notify("ask", check.missed_text, check.cells(), options=[[e.to_json() for e in seq] for seq in options],
                     referee_only=True)


def own_detector(detector: Any) -> Any:
    """A shallow copy of ``detector`` (an ``FDDetector``) with its own copy of the tile reader,
    so that a check's whole-table read, which sets the tile size the reader estimates
    (:meth:`~..vision.detectors.desert_flat.DesertFlat.estimate_size`), leaves the live loop's detector as it was. The pictures
    and models are shared: reading does not change them."""
    mine = copy.copy(detector)
    if getattr(detector, "flat", None) is not None:
        mine.flat = copy.copy(detector.flat)
    return mine
