"""Writing a sequence to a video file and its ground truth to JSON Lines, and reading them back.

The container follows the file name: ``.avi`` is written with Motion-JPEG (``MJPG``), ``.mp4``
with MPEG-4 part 2 (``mp4v``); both work in this OpenCV build (FFmpeg backend), H.264 (``avc1``)
does not (no encoder). Each truth line is :meth:`~.truth.FrameTruth.to_json` of one frame, in
frame order.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

import cv2
import numpy as np

FOURCC = {".avi": "MJPG", ".mp4": "mp4v"}


@dataclass(frozen=True)
class Written:
    """What :func:`write_sequence` wrote."""

    frames: int
    video: Path
    truth: Path | None
    fourcc: str
    fps: float


def write_sequence(frames: Iterable, video_path, truth_path=None, fps: float = 30.0) -> Written:
    """Write frames (``Frame`` tuples ``(index, t, image, truth)``, or bare images) to a video and,
    when ``truth_path`` is given, their truths to JSON Lines.

    Parameters
    ----------
    frames : iterable of Frame or (H, W, 3) uint8
        All of one size.
    video_path : str or Path
        ``.avi`` (MJPG) or ``.mp4`` (mp4v).
    truth_path : str or Path, optional
    fps : float

    Returns
    -------
    Written

    Raises
    ------
    ValueError
        For another extension, no frames, or frames of different sizes.
    OSError
        When the video writer cannot open the file.
    """
    video_path = Path(video_path)
    fourcc = FOURCC.get(video_path.suffix.lower())
    if fourcc is None:
        raise ValueError(f"video must be .avi or .mp4, got {video_path.name!r}")
    video_path.parent.mkdir(parents=True, exist_ok=True)
    writer = None
    out = None
    n = 0
    size = None
    try:
        if truth_path is not None:
            truth_path = Path(truth_path)
            truth_path.parent.mkdir(parents=True, exist_ok=True)
            out = open(truth_path, "w", encoding="utf-8")
        for fr in frames:
            img = fr.image if hasattr(fr, "image") else fr
            if size is None:
                size = (img.shape[1], img.shape[0])
                writer = cv2.VideoWriter(str(video_path), cv2.VideoWriter_fourcc(*fourcc), float(fps), size)
                if not writer.isOpened():
                    raise OSError(f"cannot open a {fourcc} video writer for {video_path}")
            elif (img.shape[1], img.shape[0]) != size:
                raise ValueError(f"frame {n} is {img.shape[1]}x{img.shape[0]}, the video {size[0]}x{size[1]}")
            writer.write(np.ascontiguousarray(img))
            if out is not None and hasattr(fr, "truth"):
                out.write(json.dumps(fr.truth.to_json(), separators=(",", ":")) + "\n")
            n += 1
    finally:
        if writer is not None:
            writer.release()
        if out is not None:
            out.close()
    if n == 0:
        raise ValueError("no frames to write")
    return Written(n, video_path, truth_path, fourcc, float(fps))


def read_video(path) -> Iterator[np.ndarray]:
    """The frames of a video file, ``(H, W, 3) uint8`` BGR each.

    Raises
    ------
    OSError
        When the file cannot be opened.
    """
    cap = cv2.VideoCapture(str(path))
    if not cap.isOpened():
        raise OSError(f"cannot open video {path}")
    try:
        while True:
            ok, img = cap.read()
            if not ok:
                break
            yield img
    finally:
        cap.release()


def read_truth(path) -> list[dict]:
    """The JSON Lines ground truth written by :func:`write_sequence`, one dict per frame.

    Raises
    ------
    OSError
        When the file cannot be read.
    json.JSONDecodeError
        For a malformed line.
    """
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]
