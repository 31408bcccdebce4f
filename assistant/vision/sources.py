"""Frame sources: a camera index, a video file, an image folder or a stream URL.

Live sources (a camera, a stream) are read on a background thread that keeps only the newest
frame, so a slow consumer never falls behind the table; files are read in order, every frame,
with time stamps from the frame rate, so a recording replays the same way every time.

Every source knows its rate (``fps``): a video file its own (or the one given), an image folder
the one given (the images carry none; 30 by default), a camera or a stream the rate its frames
actually arrive at, measured over the last second or so (the device's nominal rate until then).
Opening a source that does not exist raises :class:`SourceError` with one sentence saying
what is wrong; a source that stops mid-way ends with ``read() -> None`` and ``stopped`` says
why.
"""

from __future__ import annotations

import collections
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

DEFAULT_FOLDER_FPS = 30.0   #: rate of an image folder when none is given
MEASURE_FRAMES = 30         #: a live source's rate is measured over this many arrivals
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")
STREAM_PREFIXES = ("rtsp://", "rtmp://", "http://", "https://", "udp://", "tcp://")


class SourceError(RuntimeError):
    """A source that cannot be opened or read; the message is one sentence."""


@dataclass(frozen=True)
class Frame:
    """One captured frame.

    Attributes
    ----------
    index : int
        0-based number of the frame in its source (live sources count every frame captured,
        including the ones dropped because a newer one arrived).
    t : float
        Seconds since the source opened (files: ``index / fps``).
    image : (H, W, 3) uint8
        BGR.
    """

    index: int
    t: float
    image: np.ndarray


class FrameSource:
    """Common interface: ``read()`` returns the next :class:`Frame` or ``None`` at the end."""

    fps: float = 30.0
    stopped: str | None = None   #: why the source ended, once it has

    def read(self, timeout: float = 5.0) -> Frame | None:
        """The next frame, or ``None`` when the source has ended (see ``stopped``)."""
        raise NotImplementedError

    def close(self) -> None:
        """Release the device or file."""

    def __iter__(self):
        while (frame := self.read()) is not None:
            yield frame

    def __enter__(self) -> "FrameSource":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class FileSource(FrameSource):
    """A video file read frame by frame (every frame; time from the file's frame rate, or from
    ``fps`` when given: a file that states no rate, or a time-lapse)."""

    def __init__(self, path: str | Path, fps: float | None = None):
        self.path = str(path)
        self._cap = cv2.VideoCapture(self.path)
        if not self._cap.isOpened():
            raise SourceError(f"cannot open the video file {self.path}: OpenCV could not decode it.")
        own = self._cap.get(cv2.CAP_PROP_FPS)
        self.fps = float(fps) if fps else (own if own and np.isfinite(own) and 0 < own < 1000 else 30.0)
        self._index = 0

    def read(self, timeout: float = 5.0) -> Frame | None:
        ok, image = self._cap.read()
        if not ok:
            self.stopped = f"the video file {self.path} ended after {self._index} frames."
            return None
        frame = Frame(self._index, self._index / self.fps, image)
        self._index += 1
        return frame

    def close(self) -> None:
        self._cap.release()


class FolderSource(FrameSource):
    """The images of a folder in name order, one frame each, ``fps`` frames per second."""

    def __init__(self, folder: str | Path, fps: float = DEFAULT_FOLDER_FPS):
        self.folder = Path(folder)
        self.files = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.files:
            raise SourceError(f"the folder {self.folder} holds no images ({', '.join(IMAGE_SUFFIXES)}).")
        self.fps = fps
        self._index = 0

    def read(self, timeout: float = 5.0) -> Frame | None:
        while self._index < len(self.files):
            path = self.files[self._index]
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            index = self._index
            self._index += 1
            if image is not None:
                return Frame(index, index / self.fps, image)
            self.stopped = f"{path.name} is not a readable image; skipped."
        self.stopped = f"the folder {self.folder} ended after {len(self.files)} images."
        return None


class LiveSource(FrameSource):
    """A camera or stream read on a thread that keeps only the newest frame; ``fps`` is the rate
    frames arrive at, measured (see the module docstring)."""

    def __init__(self, spec: int | str, what: str):
        self.what = what
        self._cap = cv2.VideoCapture(spec)
        if not self._cap.isOpened():
            raise SourceError(f"cannot open {what}: no such device or stream, or it is busy.")
        nominal = self._cap.get(cv2.CAP_PROP_FPS)
        self._nominal = nominal if nominal and np.isfinite(nominal) and 0 < nominal < 1000 else 30.0
        self._arrivals: collections.deque[float] = collections.deque(maxlen=MEASURE_FRAMES)
        self._lock = threading.Condition()
        self._latest: Frame | None = None
        self._delivered = -1
        self._running = True
        self._t0 = time.monotonic()
        self._thread = threading.Thread(target=self._loop, name=f"capture {what}", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        index = 0
        failures = 0
        while self._running:
            ok, image = self._cap.read()
            if not ok:
                failures += 1
                if failures >= 30:
                    with self._lock:
                        self.stopped = f"{self.what} stopped sending frames."
                        self._running = False
                        self._lock.notify_all()
                    return
                time.sleep(0.01)
                continue
            failures = 0
            now = time.monotonic()
            with self._lock:
                self._arrivals.append(now)
                self._latest = Frame(index, now - self._t0, image)
                self._lock.notify_all()
            index += 1

    @property
    def fps(self) -> float:
        """Frames per second as they arrive (median interval over the last ``MEASURE_FRAMES``),
        or the device's nominal rate before 10 frames have arrived."""
        with self._lock:
            times = list(self._arrivals)
        if len(times) < 10:
            return self._nominal
        gaps = np.diff(times)
        gap = float(np.median(gaps[gaps > 0])) if (gaps > 0).any() else 0.0
        return 1.0 / gap if gap > 0 else self._nominal

    def read(self, timeout: float = 5.0) -> Frame | None:
        with self._lock:
            ok = self._lock.wait_for(lambda: (self._latest is not None and self._latest.index > self._delivered)
                                     or not self._running, timeout)
            if not ok:
                self.stopped = f"{self.what} sent no frame for {timeout:.0f} s."
                return None
            if self._latest is None or self._latest.index <= self._delivered:
                return None
            self._delivered = self._latest.index
            return self._latest

    def close(self) -> None:
        self._running = False
        self._thread.join(timeout=2.0)
        self._cap.release()


def open_source(spec: str | int, fps: float | None = None) -> FrameSource:
    """Open a source from a command-line style spec.

    Parameters
    ----------
    spec : str or int
        A camera index (``0``, ``"1"``), a stream URL (``rtsp://``, ``http://``...), a folder
        of images, or a video file.
    fps : float, optional
        The rate of an image folder (default 30) or a video file (default: the file's own);
        cameras and streams measure theirs and ignore it.

    Returns
    -------
    FrameSource

    Raises
    ------
    SourceError
        When it does not exist or cannot be opened, in one sentence.
    """
    text = str(spec)
    if text.isdigit():
        return LiveSource(int(text), f"camera {text}")
    if text.startswith(STREAM_PREFIXES):
        return LiveSource(text, f"the stream {text}")
    if fps is not None and not (np.isfinite(fps) and fps > 0):
        raise SourceError(f"the frame rate must be a positive number of frames per second, got {fps}.")
    path = Path(text)
    if path.is_dir():
        return FolderSource(path, fps or DEFAULT_FOLDER_FPS)
    if not path.exists():
        raise SourceError(f"{text} is neither a camera index, a stream URL, a folder nor an existing video file.")
    return FileSource(path, fps)
