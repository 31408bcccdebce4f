"""The motion gate on real footage (issue 16): the two Go sequences with their hand-made truth,
and the real chess-board photographs with the light and the camera disturbed.

Go (``../shared/real/go-kifu``): per transition exactly one stable change, after the hand has
left, its interior cells changed, its edge and corner cells changed or unsure, no other cell
changed, nothing while a hand is over the board. The frames are samples of a phone video a few
per second apart; they are read at 2 frames per second (the rate ``score_watch.py`` uses).

Chess (``../shared/real/chess-webcam``): each photograph, rectified by its hand-marked corners,
is shown as a still board while the exposure swings, a soft shadow crosses it and the camera
shakes by a few pixels, then with a dark disc (a piece's top) on one square: no other square is
ever reported changed, and the disc's square is reported (changed or unsure) once the disc is
there. How many photographs give exactly one change, that square, is a figure of ``assistant
bench vision`` (not all do yet: a dim photograph under the moving shadow can add unsure squares).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from assistant.vision.pipeline import BoardWatcher, manual_grid
from assistant.vision.sources import FolderSource

REAL = Path(__file__).resolve().parents[2].parent / "shared" / "real"
GO = REAL / "go-kifu"
CHESS = REAL / "chess-webcam"
needs_go = pytest.mark.skipif(not (GO / "seq1.truth.json").exists(),
                              reason="needs shared/real/go-kifu beside the repository (real Go frames and their truth)")
needs_chess = pytest.mark.skipif(not (CHESS / "corners.json").exists(),
                                 reason="needs shared/real/chess-webcam beside the repository (real chess photographs)")


def run_go(name: str, fps: float = 2.0):
    """The sequence through the idle path: (truth, events as (1-based frame, changed, unsure))."""
    truth = json.loads((GO / f"{name}.truth.json").read_text())
    corners = np.array([float(v) for v in truth["corners_arg"].split("=", 1)[1].split(",")], np.float32).reshape(4, 2)
    watcher = BoardWatcher(manual_grid(19, 19, corners), fps, manual_corners=corners)
    events = []
    for frame in FolderSource(GO / name, fps):
        out = watcher.process(frame.image, frame.index, frame.t)
        if out.gate.event is not None:
            e = out.gate.event
            events.append((frame.index + truth.get("frame_index_base", 1), set(e.changed), set(e.unsure)))
    return truth, events


@needs_go
@pytest.mark.parametrize("name", ["seq1", "seq2"])
def test_each_go_transition_is_reported_once_with_its_cells(name):
    truth, events = run_go(name)
    hands = {f["index"] for f in truth["per_frame"] if f["hand"]}
    assert not [e for e in events if e[0] in hands], "a change was reported while a hand was over the board"
    transitions = truth["transitions"]
    bounds = [t["prev_still_end_frame"] for t in transitions] + [10 ** 9]
    assert not [e for e in events if e[0] <= bounds[0]], "a change was reported before the first move"
    for k, t in enumerate(transitions):
        mine = [e for e in events if bounds[k] < e[0] <= bounds[k + 1]]
        assert len(mine) == 1, (t["index"], mine)
        frame, changed, unsure = mine[0]
        inner = {tuple(d["cell"]) for d in t["details"] if not (d["edge_cell"] or d["corner_cell"])}
        edge = {tuple(d["cell"]) for d in t["details"]} - inner
        assert inner <= changed and edge <= changed | unsure and changed <= inner | edge, (t["index"], mine[0])
        # after the hand left: 3 still frames (the first included), within the next still segment
        assert t["next_still_start_frame"] <= frame <= t["next_still_start_frame"] + 3


def chess_photos():
    if not (CHESS / "corners.json").exists():
        return []
    return json.loads((CHESS / "corners.json").read_text())["images"]


def _disturbed(image: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """Frame ``k`` of a still board: exposure swinging by +-20 %, a soft shadow crossing, the
    camera shaken by up to 4 px, sensor noise."""
    h, w = image.shape[:2]
    gain = 1.0 + 0.2 * math.sin(k / 3.0)
    mask = np.zeros((h, w), np.float32)
    cv2.circle(mask, (int((k / 24.0) * 1.4 * w - 0.2 * w), h // 2), int(0.3 * min(h, w)), 1.0, -1)
    mask = cv2.GaussianBlur(mask, (0, 0), 0.06 * w)
    out = image.astype(np.float32) * (gain * (1.0 - 0.35 * mask))[..., None]
    dx, dy = rng.uniform(-4, 4, 2)
    out = cv2.warpAffine(out, np.float32([[1, 0, dx], [0, 1, dy]]), (w, h), borderMode=cv2.BORDER_REPLICATE)
    out += rng.normal(0.0, 2.0, out.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


@needs_chess
@pytest.mark.parametrize("photo", chess_photos(), ids=lambda p: p["file"])
def test_a_real_board_under_swinging_light_and_a_shaking_camera_shows_one_piece(photo):
    image = cv2.imread(str(CHESS / photo["file"]))
    corners = np.array(photo["corners"], np.float32)
    scale = min(1.0, 960.0 / max(image.shape[:2]))          # a webcam's resolution
    image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    corners *= scale
    layout = manual_grid(8, 8, corners)
    watcher = BoardWatcher(layout, 10.0, manual_corners=corners)
    # a dark disc, a piece's top seen from above, on square (2, 5) of the grid
    target = (2, 5)
    u, v = (target[1] + 0.5) / 8, (target[0] + 0.5) / 8
    centre = cv2.perspectiveTransform(np.array([[[u * 8, v * 8]]], np.float32),
                                      cv2.getPerspectiveTransform(np.float32([[0, 0], [8, 0], [8, 8], [0, 8]]), corners))[0, 0]
    side = float(np.linalg.norm(corners[1] - corners[0])) / 8
    piece = image.copy()
    cv2.circle(piece, (int(centre[0]), int(centre[1])), int(0.3 * side), (25, 30, 35), -1, cv2.LINE_AA)
    rng = np.random.default_rng(0)
    events = []
    for k in range(48):
        frame = _disturbed(image if k < 30 else piece, k, rng)
        out = watcher.process(frame, k, k / 10.0)
        if out.gate.event is not None:
            events.append((k, out.gate.event.changed, out.gate.event.unsure))
    assert all(changed in ([], [target]) for _, changed, _ in events), events
    assert [k for k, changed, unsure in events if target in changed + unsure and k >= 30], events
    assert all(k >= 30 for k, changed, _ in events if changed), events
