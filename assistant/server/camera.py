"""The camera panel of the referee view: a thread reads the source, follows the mat
(:class:`~assistant.vision.pipeline.BoardWatcher`: registration, rectification, motion gate)
and keeps the newest rectified board as JPEG, with the gate's status written on it.

Feeding the stable changes to the game's tracker is the live pipeline's job; this panel shows
what the assistant sees, so the players can check the camera's view from the tablet.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import cv2
import numpy as np

from ..vision.mats import mat_layout
from ..vision.pipeline import BoardWatcher
from ..vision.sources import FrameSource, SourceError


def panel_jpeg(view: np.ndarray, status: str) -> bytes | None:
    """The camera panel's picture: ``view`` ``(H, W, 3) uint8`` BGR with the gate's ``status``
    written in its top-left corner (drawn in place: pass a copy), as JPEG bytes (quality 80);
    ``None`` when OpenCV cannot encode it. Called when a page asks, not per frame."""
    text = status.replace("_", " ")
    cv2.putText(view, text, (6, 18), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 3, cv2.LINE_AA)
    cv2.putText(view, text, (6, 18), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1, cv2.LINE_AA)
    ok, data = cv2.imencode(".jpg", view, [cv2.IMWRITE_JPEG_QUALITY, 80])
    return data.tobytes() if ok else None


class CameraPanel:
    """Run ``source`` through a :class:`BoardWatcher` on a daemon thread.

    Parameters
    ----------
    source : FrameSource
        Opened with :func:`~assistant.vision.sources.open_source`.
    game_id : str
        Whose mat to look for (its ArUco corner markers).
    fps : float
        Nominal frame rate for the motion gate.

    Attributes
    ----------
    status : str
        The gate's last status (``"board_not_found"``, ``"moving"``, ``"still"``...), or why the
        source stopped.
    """

    def __init__(self, source: FrameSource, game_id: str, fps: float = 30.0):
        self.source, self.status = source, "starting"
        self.watcher = BoardWatcher(mat_layout(game_id), fps)
        self._latest: tuple[np.ndarray, str] | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="camera-panel", daemon=True)

    def start(self) -> "CameraPanel":
        """Start the reading thread; returns ``self``."""
        self.thread.start()
        return self

    def _run(self) -> None:
        index, t0 = 0, time.monotonic()
        while not self._stop.is_set():
            frame = next_frame(self)
            if frame is None:
                return
            out = self.watcher.process(frame.image, index, time.monotonic() - t0)
            index += 1
            self.status = out.status
            picture = out.small if out.small is not None else frame.image
            self._publish(picture, out.status)

    def _publish(self, image: np.ndarray, status: str) -> None:
        with self._lock:                                # encoded only when a page asks (jpeg)
            self._latest = (image, status)

    def jpeg(self) -> bytes | None:
        """The newest panel image as JPEG bytes, or ``None`` before the first frame."""
        with self._lock:
            latest = self._latest
        return None if latest is None else panel_jpeg(latest[0].copy(), latest[1])

    def stop(self) -> None:
        """Stop the thread and close the source."""
        self._stop.set()
        self.source.close()


def next_frame(reader: Any) -> Any:
    """The next frame of ``reader.source`` (a :class:`~..vision.sources.FrameSource`), or ``None``
    when it has ended or failed, with the reason in ``reader.status`` (the camera threads' loop)."""
    try:
        frame = reader.source.read(timeout=5.0)
    except SourceError as exc:
        reader.status = str(exc)
        return None
    if frame is None:
        reader.status = "the camera source stopped"
    return frame
