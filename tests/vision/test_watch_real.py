"""``assistant watch`` on real webcam footage of an empty board: no change events (issue 4)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from assistant.vision.pipeline import BoardWatcher, manual_grid
from assistant.vision.sources import FolderSource, SourceError, open_source

REPO = Path(__file__).resolve().parents[2]
REAL = REPO.parent / "shared" / "real" / "chess-webcam"
VIDEO = REAL / "emptyBoard001.avi"
#: the 8x8 board's outer corners in the video's first frame, read off by eye (TL, TR, BR, BL)
CORNERS = [[141, 8], [508, 8], [508, 377], [141, 377]]
needs_real = pytest.mark.skipif(not VIDEO.exists(), reason="needs shared/real/chess-webcam beside the repository")


@needs_real
def test_watch_prints_no_change_on_an_empty_board():
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    corners = ",".join(str(v) for xy in CORNERS for v in xy)
    run = subprocess.run([sys.executable, "-m", "assistant", "watch", str(VIDEO), "--grid", "8x8", "--corners", corners,
                          "--json"], capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == ""


@needs_real
@pytest.mark.parametrize("offset", [(-5, -4), (0, 0), (6, 3)])
def test_gate_stays_quiet_with_imprecise_corners(offset):
    """Corners clicked a few pixels off still give no events, and the board is seen still."""
    corners = np.array(CORNERS, np.float32) + np.array(offset, np.float32)
    with open_source(str(VIDEO)) as source:
        watcher = BoardWatcher(manual_grid(8, 8, corners), source.fps, manual_corners=corners)
        outs = [watcher.process(f.image, f.index, f.t) for f in source]
    assert len(outs) == 52
    assert not [o for o in outs if o.gate.event is not None]
    assert outs[-1].status == "still"


@needs_real
def test_a_real_change_is_seen(tmp_path):
    """The same footage with a dark square pasted on one cell from frame 30 on: one event, that cell."""
    import cv2
    with open_source(str(VIDEO)) as source:
        frames = [f.image for f in source]
    for i, img in enumerate(frames):
        if i >= 30:
            cv2.rectangle(img, (141 + 46 * 2 + 8, 8 + 46 * 5 + 8), (141 + 46 * 3 - 8, 8 + 46 * 6 - 8), (30, 40, 160), -1)
        cv2.imwrite(str(tmp_path / f"{i:03d}.png"), img)
    source = FolderSource(tmp_path, fps=20.0)
    corners = np.array(CORNERS, np.float32)
    watcher = BoardWatcher(manual_grid(8, 8, corners), source.fps, manual_corners=corners)
    events = [o.gate.event for f in source if (o := watcher.process(f.image, f.index, f.t)).gate.event]
    assert [e.changed for e in events] == [[(5, 2)]]
    assert events[0].frame >= 30


def test_sources_fail_with_one_sentence(tmp_path):
    with pytest.raises(SourceError, match="neither a camera index"):
        open_source(str(tmp_path / "missing.avi"))
    with pytest.raises(SourceError, match="holds no images"):
        open_source(str(tmp_path))
    (tmp_path / "junk.avi").write_bytes(b"not a video")
    with pytest.raises(SourceError, match="cannot open the video file"):
        open_source(str(tmp_path / "junk.avi"))


def test_a_live_source_keeps_only_the_newest_frame(tmp_path):
    """A slow reader of a live source skips frames instead of falling behind (threaded capture)."""
    import time

    import cv2

    from assistant.vision.sources import LiveSource
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 30.0, (160, 120))
    for i in range(200):
        writer.write(np.full((120, 160, 3), i % 256, np.uint8))
    writer.release()
    source = LiveSource(str(path), "a test clip")     # a file read as fast as a camera would deliver
    try:
        first = source.read()
        time.sleep(0.3)                                # a slow consumer
        second = source.read()
        assert first is not None and second is not None and second.index > first.index + 1
        frames = []
        while (f := source.read(timeout=1.0)) is not None:
            frames.append(f.index)
        assert source.stopped and "stopped" in source.stopped
        assert frames == sorted(set(frames))           # never the same frame twice
    finally:
        source.close()
