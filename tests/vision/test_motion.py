"""The motion gate on rendered sequences: hands, sweeps, quick compound moves, light, bumps,
a board taken away (field reports F3-F7, F9). The truth of each sequence says which cells a
piece really changed; the gate must report exactly those, and nothing for the rest."""

from __future__ import annotations

import pytest

from assistant.vision.pipeline import BoardWatcher
from assistant.vision.render.camera import WEBCAM_DISTORTION, look_at_mat
from assistant.vision.render.desert import desert_setup, excavate, move_pawn, set_sand
from assistant.vision.render.lighting import COOL_CEILING, DAYLIGHT, POINT_LIGHT, WARM_LAMP
from assistant.vision.render.sequence import Bump, Hold, MoveCamera, Reach, Sequence, SetBoard, SetLight, Sweep

SIZE = (960, 540)


def run(steps, scene=None, seed=0, tilt=25.0, roll=5.0, distortion=None):
    """Play a sequence through the idle path; returns (events, truth events by frame, outputs)."""
    scene = scene or desert_setup(seed)
    cam = look_at_mat(scene.layout.outline_mm(), SIZE, 60.0, tilt, 0.0, roll,
                      dist=distortion if distortion is not None else (0.0, 0.0, 0.0, 0.0, 0.0))
    seq = Sequence(scene, cam, steps, fps=30, seed=seed)
    watcher = BoardWatcher(scene.layout, 30.0)
    events, truth, outs = [], [], []
    for f in seq:
        out = watcher.process(f.image, f.index, f.t)
        outs.append(out)
        if out.gate and out.gate.event:
            events.append(out.gate.event)
        for e in f.truth.to_json().get("events") or []:
            truth.append((f.index, tuple(e["cell"]), tuple(e["to_cell"]) if e.get("to_cell") else None))
    return events, truth, outs


def cells_of(truth):
    out = set()
    for _i, cell, to in truth:
        out.add(cell)
        if to:
            out.add(to)
    return out


@pytest.fixture(scope="module")
def scene():
    return desert_setup(0)


def test_a_move_under_a_hand_is_reported_once_after_the_hand_leaves(scene):
    events, truth, outs = run([Hold(12), Reach((1, 3), excavate(scene, (1, 3)), dwell_frames=8), Hold(15)], scene)
    assert [e.changed for e in events] == [sorted(cells_of(truth))]
    changed_at = min(i for i, *_ in truth)
    assert events[0].frame > changed_at
    # nothing is committed while the arm is over the board
    arm_frames = [o for o in outs if o.status == "moving"]
    assert arm_frames and all(o.gate.event is None for o in arm_frames)


def test_a_sweep_at_one_metre_per_second_changes_nothing(scene):
    """F9: an arm sweeping across the board with motion blur commits no change."""
    events, truth, _ = run([Hold(12), Sweep((-150.0, 260.0), (720.0, 200.0), speed_mm_s=1000.0), Hold(15)], scene)
    assert truth == [] and [e for e in events if e.changed] == []


def test_two_quick_moves_with_a_short_still_between_are_each_reported(scene):
    """F6/F7: a pawn moved, then two sand markers laid, the board still for only 0.2 s between the
    two arms (6 frames at 30 fps): each move is its own stable change, with its own cells, each
    after its arm has left."""
    pawn = scene.talls[0].label.split(":", 1)[1]
    crash = scene.cell_of(scene.talls[0].center_mm)
    target = (3, 3) if crash != (3, 3) else (3, 1)
    steps = [Hold(12), Reach(target, move_pawn(scene, pawn, target), dwell_frames=3, speed_mm_s=1400.0),
             Reach((0, 4), set_sand(scene, (0, 4), 2), dwell_frames=3, speed_mm_s=1400.0, entry="right"), Hold(15)]
    events, truth, _ = run(steps, scene)
    first, second = truth[0], truth[-1]
    assert [set(e.changed) for e in events] == [cells_of([first]), cells_of([second])]
    assert all(e.unsure == [] for e in events)
    assert first[0] < events[0].frame < second[0] < events[1].frame


@pytest.mark.parametrize("light", [WARM_LAMP, COOL_CEILING, POINT_LIGHT], ids=["warm", "cool", "point"])
def test_switching_the_light_changes_no_cell(scene, light):
    """F3: a lamp, a cool ceiling light or a point light: the board is re-baselined, nothing
    is reported as changed (cells that look different are only unsure)."""
    events, truth, _ = run([Hold(12), SetLight(light), Hold(15), SetLight(DAYLIGHT), Hold(15)], scene)
    assert truth == [] and all(e.changed == [] for e in events)


def test_a_move_under_a_new_light_is_still_found(scene):
    events, truth, _ = run([SetLight(WARM_LAMP), Hold(12), Reach((3, 1), excavate(scene, (3, 1)), dwell_frames=6),
                            Hold(15)], scene)
    assert [e.changed for e in events] == [sorted(cells_of(truth))]


def test_a_bump_is_re_registered_and_changes_nothing(scene):
    """F4: the board nudged on the table: reported, re-registered, no cell changed."""
    events, truth, outs = run([Hold(12), Bump(14.0, -9.0, 4.0, frames=3), Hold(20)], scene)
    assert any(o.track.bumped for o in outs)
    assert truth == [] and all(e.changed == [] for e in events)


def test_board_taken_away_and_half_out_of_view(scene):
    """F5: no exception, no change; the board is followed again when it comes back."""
    steps = [Hold(12), MoveCamera(dx_mm=320.0, frames=8), Hold(12), MoveCamera(dx_mm=-320.0, frames=8), Hold(12),
             SetBoard(False), Hold(12), SetBoard(True), Hold(15)]
    events, truth, outs = run(steps, scene)
    assert all(e.changed == [] for e in events)
    assert outs[-1].status == "still"


def test_lens_distortion_without_calibration_still_gates(scene):
    """With a cheap lens the grid bends a little, but a move is still found in the right cell."""
    events, truth, _ = run([Hold(12), Reach((2, 1), excavate(scene, (2, 1)), dwell_frames=6), Hold(15)], scene,
                           distortion=WEBCAM_DISTORTION)
    assert [e.changed for e in events] == [sorted(cells_of(truth))]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_moves_on_other_tables(seed):
    """Different tile layouts, camera angles and arm styles: each move found, nothing else."""
    scene = desert_setup(seed)
    cells = [(0, 1), (4, 3)] if seed != 2 else [(1, 0), (3, 4)]
    steps = [Hold(12)]
    current = scene
    for cell in cells:
        actions = excavate(current, cell)
        for a in actions:
            current = a.apply(current)
        steps += [Reach(cell, actions, dwell_frames=6, entry=("bottom", "left", "top")[seed % 3]), Hold(14)]
    events, truth, _ = run(steps, scene, seed=seed, tilt=10.0 + 8 * seed, roll=40.0 * seed)
    assert [e.changed for e in events] == [[c] for c in cells]


def _gate_event(patch_mm: float, brighter: float = 1.6, faint: bool = True):
    """Feed a plain rectified board, then the same board with a square patch of ``patch_mm``
    a little brighter at a cell's centre; returns the stable change the gate reports (or None)
    and the cell."""
    import numpy as np

    from assistant.vision.mats import mat_layout
    from assistant.vision.motion import FAINT_CHANGE_BLOCKS, GateParams, MotionGate

    layout = mat_layout("forbidden-desert")
    region = (0.0, 0.0, *layout.size_mm)
    gate = MotionGate(layout, 1.0, region, 30.0, params=GateParams(faint_blocks=FAINT_CHANGE_BLOCKS if faint else 0))
    h, w = int(round(region[3])), int(round(region[2]))
    rng = np.random.default_rng(0)
    board = np.clip(rng.normal(120.0, 2.0, (h, w, 3)), 0, 255).astype(np.uint8)
    cell = layout.cells[7]
    cx, cy = (int(round(v)) for v in cell.center_mm)
    after = board.copy()
    half = int(patch_mm) // 2
    # aligned to the 5 mm blocks so the patch covers whole blocks
    x0, y0 = (cx // 5) * 5, (cy // 5) * 5
    after[y0:y0 + 2 * half, x0:x0 + 2 * half] = np.clip(board[y0:y0 + 2 * half, x0:x0 + 2 * half] * brighter, 0, 255)
    event, i = None, 0
    for img, frames in ((board, 30), (after, 90)):       # a still board is compared again every 2 s
        for _ in range(frames):
            out = gate.update(img, i, i / 30.0)
            i += 1
            if out.event is not None and img is after:
                event = out.event
    return event, cell.key


def test_a_faint_change_makes_its_cell_unsure_and_a_speck_nothing():
    """With ``faint_blocks`` (games with standing pieces), a 10 mm square that changed (4 blocks: less than a sure change, e.g. a white pawn stepping
    onto a pale sky) makes the cell unsure, for the detectors to look closer; a 5 mm speck (one
    block) is noise and reports nothing; a 20 mm square is a change."""
    faint, key = _gate_event(10.0)
    assert faint is not None and faint.changed == [] and faint.unsure == [key]
    assert _gate_event(10.0, faint=False)[0] is None      # games of flat pieces do not ask for it
    speck, _ = _gate_event(5.0)
    assert speck is None
    sure, key = _gate_event(20.0)
    assert sure is not None and sure.changed == [key]


def test_a_warm_lamp_switched_on_over_a_still_board_is_light_and_the_gate_settles(scene):
    """F3: a warm lamp switched on over the whole board (its pool falling off towards the mat's
    margins) is light, not an arm: the gate takes a new still picture within half a second and
    reports the next move, exactly its cells (the bundled Scout Pennant recording stayed
    "occluded" after its lamp, issue 16)."""
    steps = [Hold(12), SetLight(WARM_LAMP), Hold(20), Reach((3, 1), excavate(scene, (3, 1)), dwell_frames=6),
             Hold(15)]
    events, truth, outs = run(steps, scene)
    assert [o.status for o in outs[12 + 15:12 + 20]] == ["still"] * 5
    assert [e.changed for e in events if e.changed] == [sorted(cells_of(truth))]


def test_clipping_is_counted_channel_by_channel():
    """A block saturated in blue only is clipped in blue only: the clipped shares of
    :func:`~assistant.vision.change.block_means` are each channel's own. A guard for OpenCV
    5.1, whose ``cv2.compare`` of a colour image with a number tests the first channel only (the
    old code fails this there; on the pinned 5.0 it passed too)."""
    import numpy as np

    from assistant.vision.change import CLIPPED, block_means

    img = np.full((40, 40, 3), 120, np.uint8)
    img[:20, :, 0] = 255                       # the top half clipped in blue
    img[:, :20, 2] = CLIPPED - 1               # the left half just below the level in red
    shares = block_means(img, (2, 2))[..., 3:]
    assert np.allclose(shares[0, :, 0], 1.0) and np.allclose(shares[1, :, 0], 0.0)
    assert np.allclose(shares[..., 1:], 0.0)


def test_noise_specks_across_the_board_are_not_motion_one_blob_is():
    """Motion is one blob of ``motion_blocks`` changed blocks between two frames. A dim webcam's
    noise leaves specks of 2x2 blocks here and there, 12 blocks in all: the gate still settles
    (a stress-light game never did after a move); a hand's edge of 3x2 blocks in one place is
    motion."""
    import numpy as np

    from assistant.vision.mats import mat_layout
    from assistant.vision.motion import FAINT_CHANGE_BLOCKS, GateParams, MotionGate

    layout = mat_layout("forbidden-desert")
    region = (0.0, 0.0, *layout.size_mm)
    gate = MotionGate(layout, 1.0, region, 30.0, params=GateParams(faint_blocks=FAINT_CHANGE_BLOCKS))
    h, w = int(round(region[3])), int(round(region[2]))
    board = np.clip(np.random.default_rng(0).normal(120.0, 2.0, (h, w, 3)), 0, 255).astype(np.uint8)

    def brighter(spots, size):
        img = board.copy()
        for x, y in spots:                        # corners on the 5 mm blocks; redder (a hue light cannot give)
            img[y:y + size[1], x:x + size[0], 2] = np.clip(board[y:y + size[1], x:x + size[0], 2] * 1.6, 0, 255)
        return img

    cells = [layout.cells[k].center_mm for k in (1, 9, 17)]
    specks = brighter([(int(x) // 5 * 5, int(y) // 5 * 5) for x, y in cells], (10, 10))
    blob = brighter([(int(x) // 5 * 5, int(y) // 5 * 5) for x, y in cells[:1]], (15, 10))
    for i in range(10):
        gate.update(board, i, i / 30.0)
    assert not gate.update(specks, 10, 10 / 30.0).moved           # 3 specks of 4 blocks
    assert not gate.update(board, 11, 11 / 30.0).moved
    assert gate.update(blob, 12, 12 / 30.0).moved                 # one blob of 6 blocks


def test_a_tile_edge_over_the_play_area_does_not_hold_the_gate_an_arm_across_the_band_does():
    """Column E's tiles pushed 8 mm over the play area's edge (a slid row at a stress-light
    table) lie in the margin band for good: the gate still reports the change and settles, where
    before it called them an arm resting there and reported nothing for the rest of the game.
    A strip lying across the band beside them (an arm resting still) holds it."""
    import numpy as np

    from assistant.vision.mats import mat_layout
    from assistant.vision.motion import FAINT_CHANGE_BLOCKS, GateParams, MotionGate

    layout = mat_layout("forbidden-desert")
    region = (0.0, 0.0, *layout.size_mm)
    x0, y0, x1, y1 = layout.play_area_mm
    h, w = int(round(region[3])), int(round(region[2]))
    board = np.clip(np.random.default_rng(0).normal(120.0, 2.0, (h, w, 3)), 0, 255).astype(np.uint8)

    def states(strip):
        gate = MotionGate(layout, 1.0, region, 30.0, x0 - 2.0, GateParams(faint_blocks=FAINT_CHANGE_BLOCKS))
        after = board.copy()
        ys, xs = strip
        after[ys, xs] = (40, 60, 150)                       # a tile's reddish edge, or an arm
        out = [gate.update(board, i, i / 30.0) for i in range(20)]
        out += [gate.update(after, 20 + i, (20 + i) / 30.0) for i in range(20)]
        return out

    cy = int((y0 + y1) / 2)
    # column E pushed 8 mm east: its tiles' edges over the band, from their east sides to x1 + 8
    edge = states((slice(int(y0) + 5, int(y1) - 5), slice(int(x1) - 20, int(x1) + 8)))
    assert edge[-1].state == "still" and any(o.event is not None for o in edge[20:])
    # a forearm resting across the band beside E3, short of the mat's edge (so that only the
    # band, not an arm reaching the edge of the view, can tell)
    arm = states((slice(cy - 30, cy + 30), slice(int(x1) + 10, w - 40)))
    assert arm[-1].state == "occluded" and all(o.event is None for o in arm[20:])
