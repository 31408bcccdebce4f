""""Check the table" in the live loop (Forbidden Desert): on the referee's button
(``POST /api/check``) and by itself once per turn, after the storm phase, when the table has been
still for ``QUIET_S`` seconds.

The check (:func:`~..tracking.desert_check.check_table`) reads every slot of the still mean the
live loop keeps and compares it with the session's state; its findings go to the referee view as
referee-only notices (:meth:`~..referee.session.Session.notify`, shown through
:mod:`~..referee.door`, which keeps them off the table and the players' pages): a correction as
``info``, a question as ``ask``, a move the camera missed as ``ask`` with that move as the option
the referee may post. A difference traced to the last event says that it can be undone.
"""

from __future__ import annotations

from typing import Any

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

    def _turn(self) -> int:
        return sum(1 for a in self.session.applied if a.obj.get("type") == "end_turn")

    def due(self, loop: Any, status: str) -> bool:
        """Whether a check should run on this frame: the referee asked, or a turn's storm phase
        is over (the engine is in an action phase, no storm card's slides are awaited) and this
        turn was not checked yet; and in both cases the table has been still ``QUIET_S``."""
        tracker = getattr(loop, "tracker", None)
        still = getattr(loop, "still", None)
        if tracker is None or still is None or status != "still" or getattr(loop, "detector", None) is None:
            return False
        if still.count < max(1, round(QUIET_S * self.fps)):
            return False
        if self.session.check_requested:
            return True
        state = tracker.state
        return (getattr(tracker, "awaiting", None) is None and state.phase == "actions"
                and state.result == "ongoing" and self._turn() != self.checked_turn)

    def run(self, loop: Any, homography, index: int):
        """Check the table on the loop's still mean ``(H, W, 3) uint8`` seen through
        ``homography`` (mat mm -> px, 3x3) and post the findings (:meth:`deliver`); returns
        the :class:`~..tracking.desert_check.TableCheck`."""
        from ..tracking.desert_check import check_table

        s = self.session
        with s.changed:
            asked, s.check_requested = s.check_requested, False
            start = s.start_state
            events = [s.game.parse_event(a.obj, start) for a in s.applied]
        self.checked_turn = self._turn()
        check = check_table(loop.detector, loop.still.mean(), homography, loop.camera_matrix, s.game, start, events,
                            loop.reference)
        self.log.append((index, check))
        self.deliver(check, asked)
        return check

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
        if check.missed:
            s.notify("ask", check.missed_text, check.cells(), options=[[e.to_json() for e in check.missed]],
                     referee_only=True)
