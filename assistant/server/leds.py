"""What the LED board shows during a refereed session (``assistant serve --leds PORT``).

After every change of the session the cells to light are worked out from it and handed to the
:class:`~assistant.leds.driver.LedBoard` (which animates and resends by itself):

- an illegal move's cells blink vermillion; a question's cells pulse blue; the cells of a
  correction to make (where a tile must go after a storm card) pulse bluish green;
- the current player's legal targets (the cells their legal events name: ``to``, ``cell``,
  ``at``) glow yellow.

The board is seen by the whole table, so it shows what the table view shows: the public notices
and the public list of legal events (:mod:`assistant.referee.door`), never more;
- with a layout under a Discovery Island map (``surface = "island"``), the walker's possible
  positions (rules §6.2: deduced from what the walker has seen, so no secret) glow sky blue.

Colours are Okabe-Ito; blinking and pulsing are the second cue. Cells the layout does not map
(a Discovery Island island hex, say) are left out. The board's status (connected, unplugged,
reconnecting) is shown on the referee view.
"""

from __future__ import annotations

import threading
from typing import Any

from ..referee import door
from ..referee.session import Session

NOTICE_LIGHT = {"illegal": ("#D55E00", "blink"), "ask": ("#0072B2", "pulse"), "info": ("#009E73", "pulse")}
TARGET_LIGHT = ("#F0E442", "solid")
POSSIBLE_LIGHT = ("#56B4E9", "solid")
#: Parameters of an event that name a cell of the board.
CELL_PARAMS = ("to", "cell", "at")
#: Only this many of the newest notices light cells.
NOTICES_SHOWN = 4


def _key(value: Any):
    """A layout cell key from a JSON cell: ``[r, c]`` -> ``(r, c)``; a name stays a name."""
    if isinstance(value, (list, tuple)):
        return tuple(_key(v) for v in value) if any(isinstance(v, (list, tuple)) for v in value) else tuple(value)
    return value


def _hashable(key: Any) -> bool:
    try:
        hash(key)
    except TypeError:
        return False
    return True


def lights(session: Session, mapped: set, surface: str = "mat") -> dict:
    """The cells to light now: ``{cell key: (colour, effect)}`` over the keys in ``mapped``.

    Notices outrank legal targets on a cell; newer notices outrank older ones. On an
    ``"island"`` surface only the walker's possible positions are shown (the notices and targets
    name mat cells).
    """
    with session.changed:
        notices = door.notices(session, None)[-NOTICES_SHOWN:]
        state = session.state
        mover = session.game.to_move(state)
        if surface == "island":
            seat_view = session.game.view(state, mover) if isinstance(mover, int) else {}
            return {tuple(c): POSSIBLE_LIGHT for c in seat_view.get("candidates", []) if tuple(c) in mapped}
        events = session.legal(None)
    out: dict = {}
    for event in events:
        for name in CELL_PARAMS:
            key = _key(event.get(name))
            if _hashable(key) and key in mapped:
                out[key] = TARGET_LIGHT
    for notice in notices:
        for cell in notice["cells"]:
            key = _key(cell)
            key = key[0] if isinstance(key, tuple) and len(key) == 1 and isinstance(key[0], str) else key
            if _hashable(key) and key in mapped:
                out[key] = NOTICE_LIGHT.get(notice["kind"], NOTICE_LIGHT["info"])
    return out


class LedView:
    """Keep ``board`` showing :func:`lights` of ``session`` and its status on the referee view.

    Parameters
    ----------
    session : Session
    board : LedBoard
        Started by the caller; this view only calls ``show`` and reads ``status``.
    """

    def __init__(self, session: Session, board: Any):
        self.session, self.board = session, board
        self.mapped = set(board.layout.cells)
        self.surface = getattr(board.layout, "surface", "mat")
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="led-view", daemon=True)

    def start(self) -> "LedView":
        """Start following the session; returns ``self``."""
        self.thread.start()
        return self

    def stop(self) -> None:
        """Stop following (the board itself is stopped by its owner)."""
        self._stop.set()

    def _run(self) -> None:
        revision, shown_status = -1, None
        while not self._stop.is_set():
            now = self.session.wait(revision, 1.0)
            try:
                if now != revision:
                    revision = now
                    self.board.show(lights(self.session, self.mapped, self.surface))
                if self.board.status != shown_status:
                    shown_status = self.board.status
                    self.session.set_device("LED board", shown_status)   # the next round re-lights: harmless
            except Exception as exc:                       # keep the view alive; say what broke
                shown_status = f"error: {type(exc).__name__}: {exc}"
                self.session.set_device("LED board", shown_status)
