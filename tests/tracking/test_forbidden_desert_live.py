"""Forbidden Desert from rendered frames: the detector's readings and the live tracker on a
game acted out on the table (the full figures are in ``assistant bench detect``)."""

from __future__ import annotations

import itertools

import pytest

from assistant.vision.detectors import forbidden_desert as fd
from assistant.vision.detectors import synth


@pytest.fixture(scope="module")
def detector(tmp_path_factory):
    """The own-art detector with a pawn change model taught here on a few rendered moves (the
    shipped one is taught on many more: :func:`~assistant.vision.detectors.forbidden_desert.
    teach_pawn_change`), saved and read back."""
    moves = itertools.chain(synth.pawn_moves(1, 50, "train", size=(960, 540)),
                            synth.other_changes(2, 30, "train", size=(960, 540)))
    det = fd.teach(pawn_colour=fd.teach_pawn_change(moves))
    folder = det.save(tmp_path_factory.mktemp("fd") / "model")
    return fd.FDDetector.load(folder)


def test_glare_teaching_light_is_not_the_stress_glare():
    """The ``glare`` teaching light draws its lamp and glare afresh: never the stress set's warm lamp."""
    import random

    from assistant.vision.render.lighting import WARM_LAMP

    rng = random.Random(0)
    for _ in range(50):
        light, _settings = synth._conditions(rng, "glare")
        (lamp,) = light.lamps
        assert lamp.glare_at_mm is not None and lamp != WARM_LAMP.lamps[0] and light.ambient != WARM_LAMP.ambient


def test_faces_and_the_card_are_read_exactly_on_unseen_tables(detector):
    """Tile faces, backs, the storm cell and the storm card are matched against the pictures:
    on own-art tables of seeds nothing was tuned on, every one is right."""
    wrong = total = 0
    for frame, h, k, scene in synth.views(77, 4, "normal", size=(960, 540)):
        truth = fd.truth_of(scene)
        for slot, reading in detector.read(frame, h, k).items():
            if slot[0] in ("face", "card"):
                total += 1
                wrong += reading.label != truth[slot]
    assert total == 4 * 26 and wrong == 0, f"{wrong} of {total}"


def test_what_lies_on_the_tiles_is_read_and_its_wrong_readings_are_unsure(detector):
    """Sand, parts and pawns from one still (what the tile's picture does not explain, read by a
    classifier taught on varied own-art tables, not on these): most readings right, and a
    wrong one is almost never sure (at most one reading in a hundred wrong with confidence
    0.9 or more)."""
    wrong, sure_wrong, total = 0, 0, 0
    for frame, h, k, scene in synth.views(77, 4, "normal", size=(960, 540)):
        truth = fd.truth_of(scene)
        for slot, reading in detector.read(frame, h, k).items():
            if slot[0] in ("sand", "parts", "pawns"):
                total += 1
                wrong += reading.label != truth[slot]
                sure_wrong += reading.label != truth[slot] and reading.confidence >= 0.9
    assert total == 4 * 75 and wrong <= 0.15 * total and sure_wrong <= total // 100, (wrong, sure_wrong, total)


def test_pawns_are_read_from_what_changed(detector):
    """The best reading of a cell a pawn came to or left is the truth (seeds not taught on)."""
    from assistant.vision.mats import mat_layout

    layout = mat_layout("forbidden-desert")
    right = n = 0
    for before, after, _c, _w, cell, s0, s1, _sil, h, k in synth.pawn_moves(78, 12, "normal", size=(960, 540)):
        truth0 = fd.truth_of(s0)
        had = set(filter(None, truth0[("pawns", *cell)].split("+")))
        in_play = {c for slot, label in truth0.items() if slot[0] == "pawns" for c in label.split("+") if c}
        reading = fd.read_pawn_change(detector.pawn_colour, before, after, had, in_play, layout.cell(cell), h, k)
        n += 1
        right += reading.label == fd.truth_of(s1)[("pawns", *cell)]
    assert right / n >= 0.85, f"{right} of {n}"


def test_pawn_colour_model_round_trips(detector, tmp_path):
    """The pixel colour model is saved and read back unchanged; a foreign file is refused."""
    import numpy as np
    import pytest as _pytest

    detector.pawn_colour.save(tmp_path)
    back = fd.PawnPixels.load(tmp_path)
    assert np.array_equal(back.log_lik, detector.pawn_colour.log_lik) and back.pawn_area == detector.pawn_colour.pawn_area
    assert back.blobs is not None
    for name, weights in detector.pawn_colour.blobs.arrays().items():
        assert np.array_equal(getattr(back.blobs, name), weights), name
    np.savez_compressed(tmp_path / "pawn-pixels.npz", log_lik=np.zeros((2, 2, 2, 7)), pawn_area=np.array(1.0),
                        labels=np.array(fd.PawnPixels.labels))
    with _pytest.raises(ValueError):
        fd.PawnPixels.load(tmp_path)


def test_a_game_acted_out_on_the_table_is_tracked_without_wrong_commits(detector):
    """A short game, every visible move done by a hand: committed right or asked, never wrong."""
    from assistant.bench.detect_forbidden_desert import play_game

    result = play_game(detector, 5, events=12, size=(960, 540))
    assert result["wrong"] == 0
    assert result["right"] >= 0.6 * result["visible"], dict(result)
    assert result["latencies"] and max(result["latencies"]) <= 1.0


def test_detect_command_reads_a_still_image(detector, tmp_path):
    """``assistant detect`` on one rendered photo of a table: every slot, mostly right."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    import cv2

    model = detector.save(tmp_path / "model")
    frame, _h, _k, scene = next(synth.views(91, 1, "normal", size=(960, 540)))
    cv2.imwrite(str(tmp_path / "table.png"), frame)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    run = subprocess.run([sys.executable, "-m", "assistant", "detect", str(tmp_path / "table.png"), "--game",
                          "forbidden-desert", "--model", str(model), "--json"], capture_output=True, text=True,
                         env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    rows = [json.loads(line) for line in run.stdout.splitlines()]
    truth = fd.truth_of(scene)
    faces = [r for r in rows if r["slot"][0] == "face"]
    assert len(faces) == 25 and {"label", "confidence", "margin"} <= set(faces[0])
    right = sum(r["label"] == truth[("face", r["slot"][1], r["slot"][2])] for r in faces)
    assert right >= 24
    bad = subprocess.run([sys.executable, "-m", "assistant", "detect", str(tmp_path / "none.png"), "--game",
                          "forbidden-desert", "--model", str(model)], capture_output=True, text=True, env=env)
    assert bad.returncode == 2 and "not a readable image" in bad.stderr


def test_harsh_teaching_light_is_never_a_stress_condition():
    """The ``harsh`` teaching light spans casts, dim rooms and defocus around the stress set, but
    never draws one of the stress set's own conditions (those are for measuring only). It may
    use the warm lamp preset, as the ``train`` light always has, but not at the stress settings."""
    import random

    from assistant.vision.render.lighting import WARM_LAMP

    stress = [synth._conditions(random.Random(i), "stress") for i in range(200)]
    stress_kelvins = {light.camera_kelvin for light, _ in stress if light.name == "cast"}
    assert stress_kelvins == {2600.0, 9000.0}
    stress_defocus = {settings.defocus_px for _, settings in stress if settings.defocus_px}
    dim_ambient = {light.ambient for light, _ in stress if light.name == "dim"}
    rng = random.Random(1)
    harsh = [synth._conditions(rng, "harsh") for _ in range(300)]
    for light, settings in harsh:
        # the parameters that make each stress condition what it is are never drawn as such
        assert light.camera_kelvin not in stress_kelvins and settings.defocus_px not in stress_defocus
        assert not (settings.auto_exposure and light.ambient in dim_ambient)
        assert not (light.lamps and light.lamps == WARM_LAMP.lamps and settings.noise_sigma == 2.0
                    and settings.jpeg_quality == 85)            # the stress glare: this lamp at these settings
    kelvins = [light.camera_kelvin for light, _ in harsh]
    assert min(kelvins) < 3000 and max(kelvins) > 8500      # it does reach strong casts both ways
    assert any(settings.auto_exposure for _, settings in harsh)


def test_a_pawns_shadow_just_outside_its_silhouette_is_taught_as_the_pawn():
    """ChangeBlobs learns from blob labels: a shadow beside a white pawn's silhouette is that pawn
    (taught as "no pawn" it made the white pawn on a pale tile read as nothing); a blob well
    away is no pawn, and a pawn that left is told by its silhouette before."""
    import numpy as np

    silhouette = np.zeros((64, 64), bool)
    silhouette[20:36, 24:34] = True
    shadow = np.zeros((64, 64), bool)
    shadow[24:38, 34 + 1:34 + fd.PAWN_REACH_PX] = True       # a strip within reach, not on the pawn
    far = np.zeros((64, 64), bool)
    far[50:60, 50:60] = True
    k = len(fd.COLOURS)
    came = {"before": {}, "after": {"white": silhouette}}
    assert fd.blob_class(shadow, "white", None, came) == fd.COLOURS.index("white")
    assert fd.blob_class(far, "white", None, came) == 2 * k
    went = {"before": {"red": silhouette}, "after": {}}
    assert fd.blob_class(shadow, None, "red", went) == k + fd.COLOURS.index("red")
    assert fd.blob_class(shadow, "white", None, {"before": {}, "after": {}}) == 2 * k


def test_the_change_classifier_averages_its_members_and_loads_one_member_weights():
    import numpy as np

    rng = np.random.default_rng(0)
    x = rng.normal(size=(120, fd.BLOB_FEATURES))
    y = rng.integers(0, fd.ChangeBlobs.N_CLASSES, 120)
    both = fd.ChangeBlobs.fit(x, y, steps=40, members=2)
    assert both.w1.shape == (2, fd.BLOB_FEATURES, 48)
    alone = [fd.ChangeBlobs(both.w1[i], both.b1[i], both.w2[i], both.b2[i], both.mean, both.scale) for i in range(2)]
    assert alone[0].w1.shape == (1, fd.BLOB_FEATURES, 48)          # 2-d weights: one member
    each = [m.predict(x) for m in alone]
    assert not np.allclose(each[0], each[1])                       # the members differ ...
    np.testing.assert_allclose(both.predict(x), (each[0] + each[1]) / 2, atol=1e-6)   # ... and are averaged
    with pytest.raises(ValueError, match="do not fit"):
        fd.ChangeBlobs(both.w1[:, :5], both.b1, both.w2, both.b2, both.mean, both.scale)


def _cell_geometry():
    from assistant.vision.mats import mat_layout
    from assistant.vision.render.camera import look_at_mat

    layout = mat_layout("forbidden-desert")
    cam = look_at_mat(layout.outline_mm(), (960, 540), 55.0, 20.0, 30.0, 5.0, dist=synth.NO_DIST)
    return layout, cam, layout.cell((1, 2))


def test_the_crops_fill_is_known_from_the_geometry():
    """pawn_crop paints outside the projected prism with one colour: pawn_crop_outside says where."""
    import numpy as np

    _layout, cam, cell = _cell_geometry()
    frame = np.random.default_rng(0).integers(0, 256, (540, 960, 3), dtype=np.uint8)
    crop = fd.pawn_crop(frame, cam.homography(), cam.K, cell)
    outside = fd.pawn_crop_outside(cam.homography(), cam.K, cell)
    assert 200 < outside.sum() < 0.8 * outside.size
    assert len(np.unique(crop[outside], axis=0)) == 1             # the flat fill ...
    assert len(np.unique(crop[~outside], axis=0)) > 1000          # ... and the noisy frame inside


def test_a_tile_washed_out_to_the_fills_colour_still_shows_a_pawn_leaving():
    """Glare saturating most of a tile makes the crop's fill (the median colour) full white too:
    found by colour, the fill swallowed the saturated tile and a dark pawn leaving it was missed."""
    import cv2
    import numpy as np

    _layout, cam, cell = _cell_geometry()
    h, k = cam.homography(), cam.K
    shape = fd.pawn_silhouette(np.asarray(cell.center_mm, float), h, k, cell)
    white = np.full((540, 960, 3), 255, np.uint8)
    before_frame = white.copy()
    mat_centre = cv2.perspectiveTransform(np.float32([[cell.center_mm]]), h)[0, 0]
    cv2.circle(before_frame, tuple(int(v) for v in mat_centre), 9, (30, 30, 30), -1)    # a black pawn from above
    before, after = fd.pawn_crop(before_frame, h, k, cell), fd.pawn_crop(white, h, k, cell)
    area = float(shape.sum())
    outside = fd.pawn_crop_outside(h, k, cell)
    *_rest, blobs = fd.change_blobs(before, after, area, outside)
    assert len(blobs) == 1 and blobs[0].sum() > 0.3 * area
    *_rest, by_colour = fd.change_blobs(before, after, area)      # the fill found by colour: nothing left
    assert by_colour == []


def test_both_cells_of_a_move_read_together_give_the_truth(detector):
    """pawns_by_change reads the cell a pawn left and the one it reached together (seeds not taught on)."""
    from assistant.vision.mats import mat_layout

    layout = mat_layout("forbidden-desert")
    right = n = 0
    rows = iter(synth.pawn_moves(79, 12, "normal", size=(960, 540), frames=2))
    for move in zip(rows, rows):
        truth0, truth1 = fd.truth_of(move[0][5]), fd.truth_of(move[0][6])
        pairs = {}
        for before, after, _c, _w, key, _s0, _s1, _sil, h, k in move:
            cell = layout.cell(key)
            pairs[key] = fd.cell_change(before, after, cell, h, k, filter(None, truth0[("pawns", *key)].split("+")))
        in_play = {c for slot, label in truth0.items() if slot[0] == "pawns" for c in label.split("+") if c}
        readings = fd.pawns_by_change(detector.pawn_colour, pairs, in_play)
        assert set(readings) == set(pairs)
        for key, reading in readings.items():
            n += 1
            right += reading.label == truth1[("pawns", *key)]
    assert n == 24 and right / n >= 0.85, f"{right} of {n}"


def test_a_tile_turned_over_behind_a_pawn_does_not_read_as_the_pawn_leaving(detector):
    """A pawn's crop reaches up over the tile behind its cell; when that tile is excavated, its
    new face there is no pawn going (fresh game video 8864: a white pawn read gone, sure, beside
    an excavation). On 30 random tables the pawns of one cell stay put while the tile that shows
    most in its crop is turned over; every table read together must keep them (leaving the
    turned tile in the crop read the white pawn of table 114 gone, at 0.9)."""
    import random

    from assistant.vision.mats import mat_layout
    from assistant.vision.render.camera import look_at_mat
    from assistant.vision.render.desert import ProceduralArt, excavate
    from assistant.vision.render.renderer import Renderer

    layout, art = mat_layout("forbidden-desert"), ProceduralArt()
    read = 0
    for seed in range(100, 130):
        rng = random.Random(seed)
        scene = synth.random_scene(rng, art, layout)
        cam = look_at_mat(layout.outline_mm(), (960, 540), rng.uniform(50, 62), rng.uniform(5, 30),
                          rng.uniform(0, 360), rng.uniform(-25, 25), dist=synth.NO_DIST)
        h, k = cam.homography(), cam.K
        truth = fd.truth_of(scene)
        pawned = [c.key for c in layout.cells if truth[("pawns", *c.key)]]
        if not pawned:
            continue
        key = rng.choice(pawned)
        shown = fd.tiles_in_crop(h, k, layout.cell(key), layout.cells)
        turned = None
        for other in sorted(shown, key=lambda o: -shown[o].sum()):
            try:
                after = scene
                for action in excavate(scene, other, art):
                    after = action.apply(after)
            except KeyError:                                           # the storm's bare cell
                continue
            if fd.truth_of(after)[("face", *other)] != truth[("face", *other)]:
                turned = other
                break
        if turned is None:
            continue
        renderer = Renderer(cam)
        f0, f1 = renderer.render(scene, seed=seed).image, renderer.render(after, seed=seed + 1).image
        in_play = {c for slot, label in truth.items() if slot[0] == "pawns" for c in label.split("+") if c}
        pairs = {c.key: fd.cell_change(fd.pawn_crop(f0, h, k, c), fd.pawn_crop(f1, h, k, c), c, h, k,
                                       filter(None, truth[("pawns", *c.key)].split("+")), others=layout.cells)
                 for c in layout.cells}
        reading = fd.pawns_by_change(detector.pawn_colour, pairs, in_play)[key]
        assert reading.label == truth[("pawns", *key)], (seed, key, turned, reading)
        read += 1
    assert read == 14          # tables with a pawn and a tile behind it to turn (the others are skipped)


def test_the_still_mean_averages_the_frames_since_the_last_restart():
    import numpy as np

    from assistant.vision.motion import StillMean

    mean = StillMean(skip=1)
    with pytest.raises(ValueError, match="no still frame"):
        mean.mean()
    for v in (200, 10, 20, 40):                                   # the first one still settling
        mean.add(np.full((4, 5, 3), v, np.uint8))
    assert mean.count == 3 and np.all(mean.mean() == 23)          # (10 + 20 + 40) / 3 rounded
    mean.add(np.full((2, 2, 3), 7, np.uint8))                     # another size: starts again
    assert mean.count == 0
    mean.add(np.full((2, 2, 3), 9, np.uint8))
    assert mean.count == 1 and np.all(mean.mean() == 9) and mean.mean().shape == (2, 2, 3)
    mean.restart()
    assert mean.count == 0


class _ReadFrames:
    """The real detector, keeping a copy of every frame the live loop reads."""

    def __init__(self, detector):
        self.detector, self.layout, self.frames = detector, detector.layout, []

    def read(self, frame, *args, **kwargs):
        self.frames.append(frame.copy())
        return self.detector.read(frame, *args, **kwargs)


def test_the_live_loop_reads_pawns_from_the_mean_of_the_still_window(detector):
    """The reference and the frame read after a change are means of the still frames (less
    noisy than any one); a hand over the board starts the still window again."""
    import numpy as np

    from assistant.games import get_game
    from assistant.games.forbidden_desert.simulate import random_game, table_game
    from assistant.tracking.forbidden_desert import ForbiddenDesertTracker
    from assistant.tracking.live import LiveDesert
    from assistant.vision.render.desert import desert_setup, move_pawn
    from assistant.vision.render.renderer import CLEAN, CameraSettings, Renderer

    layout, cam, _cell = _cell_geometry()
    _setup, start, _truth, _physical = table_game(random_game(3, n_players=3, max_events=2))
    spy = _ReadFrames(detector)
    live = LiveDesert(spy, ForbiddenDesertTracker(get_game("forbidden-desert"), start), 30.0, cam.K)
    renderer = Renderer(cam)
    scene = desert_setup(3, layout)
    pawn = sorted(scene.talls, key=lambda p: p.label)[0]
    moved = scene
    for action in move_pawn(scene, pawn.label.split(":", 1)[1], (0, 0) if scene.cell_of(pawn.center_mm) != (0, 0)
                            else (4, 4)):
        moved = action.apply(moved)
    noisy = CameraSettings(noise_sigma=4.0, jpeg_quality=None)
    frames = [renderer.render(scene, settings=noisy, seed=i + 1).image for i in range(14)]
    hand = frames[-1].copy()
    hand[100:440, 200:760] = (60, 90, 140)                        # an arm over the board
    frames += [hand] * 3 + [renderer.render(moved, settings=noisy, seed=100 + i).image for i in range(16)]
    counts = []
    for i, frame in enumerate(frames):
        live.process(frame, i, i / 30.0)
        counts.append(live.still.count)
    assert live.reference is not None and spy.frames, "the board never became still, or the move was not seen"
    assert counts[14] == 0                                         # the arm: the still window starts again
    for seen, clean_scene, single in ((live.reference[0], moved, frames[-1]), (spy.frames[0], moved, frames[-1])):
        clean = renderer.render(clean_scene, settings=CLEAN, seed=0).image.astype(float)
        one, averaged = np.abs(single - clean).mean(), np.abs(seen - clean).mean()
        assert averaged < 0.6 * one, (averaged, one)


def test_a_climber_leaving_its_companions_behind_is_committed_when_the_still_shows_them(detector):
    """The Climber walks off the crash site alone; the other two pawns stay. From the change
    alone this reads the same as a rider the camera missed, so the tracker asks; the live loop
    then reads the still picture's standing pawns, sees the companions still on the crash site
    (a pawn seen standing is there) and commits the walk alone (issue 15)."""
    from assistant.games import get_game
    from assistant.games.base import Event
    from assistant.games.forbidden_desert.simulate import random_game, table_game
    from assistant.tracking.forbidden_desert import ForbiddenDesertTracker
    from assistant.tracking.live import LiveDesert
    from assistant.vision.render.desert_script import scene_of
    from assistant.vision.render.renderer import CameraSettings, Renderer

    game = get_game("forbidden-desert")
    layout, cam, _cell = _cell_geometry()
    played = random_game(3, n_players=3, max_events=1)
    drawn = played.states[0]                                       # tiles known: what the table shows
    _setup, start, _truth, _physical = table_game(played)          # what the table's engine knows
    here = start.cell_of_seat(0)
    legal = game.legal_events(start)
    alone = next(ev for ev in legal if ev.type == "move" and ev.actor == 0 and ev.get("carry") is None)
    assert start.cfg.players[0] == "climber" and Event.make(0, "move", to=alone["to"], carry=1) in legal
    after = game.apply(start, alone)
    renderer = Renderer(cam)
    noisy = CameraSettings(noise_sigma=2.0, jpeg_quality=None)
    frames = [renderer.render(scene_of(drawn, layout=layout), settings=noisy, seed=i + 1).image for i in range(14)]
    hand = frames[-1].copy()
    hand[100:440, 200:760] = (60, 90, 140)                        # an arm over the board
    frames += [hand] * 3 + [renderer.render(scene_of(game.apply(drawn, alone), layout=layout), settings=noisy, seed=50 + i).image
                            for i in range(16)]
    tracker = ForbiddenDesertTracker(game, start)
    live = LiveDesert(detector, tracker, 30.0, cam.K)
    verdicts = [v for i, f in enumerate(frames) if (v := live.process(f, i, i / 30.0).verdict) is not None]
    assert verdicts, "the move was not seen"
    assert [v.kind for v in verdicts] == ["commit"], [(v.kind, v.message) for v in verdicts]
    assert verdicts[0].events == [alone] and "standing" in verdicts[0].message
    assert game.summary(tracker.state) == game.summary(after) and tracker.state.cell_of_seat(1) == here


def test_cells_read_only_for_their_pawns_tell_the_tracker_only_their_pawns(detector):
    """Sand taken off a neighbour of the crash site: the pawns standing on the crash site are
    read too (a pawn that left may have changed the gate's view of a neighbour), but the
    face, sand and parts of that cell, which the gate saw no change in, are not passed to the
    tracker: a misread there (a stress game's sand on C3) is not a move, and a refusal naming
    it would block every later move (issue 15)."""
    from assistant.games import get_game
    from assistant.games.forbidden_desert.simulate import random_game, table_game
    from assistant.tracking.forbidden_desert import ForbiddenDesertTracker
    from assistant.tracking.live import LiveDesert
    from assistant.vision.render.desert_script import scene_of
    from assistant.vision.render.renderer import CameraSettings, Renderer

    game = get_game("forbidden-desert")
    layout, cam, _cell = _cell_geometry()
    played = random_game(3, n_players=3, max_events=1)
    drawn = played.states[0]
    _setup, start, _truth, _physical = table_game(played)
    here = start.cell_of_seat(0)
    dig = next(ev for ev in game.legal_events(start) if ev.type == "remove_sand" and ev["at"] != here)
    renderer = Renderer(cam)
    noisy = CameraSettings(noise_sigma=2.0, jpeg_quality=None)
    frames = [renderer.render(scene_of(drawn, layout=layout), settings=noisy, seed=i + 1).image for i in range(14)]
    hand = frames[-1].copy()
    hand[100:440, 200:760] = (60, 90, 140)                        # an arm over the board
    frames += [hand] * 3 + [renderer.render(scene_of(game.apply(drawn, dig), layout=layout), settings=noisy,
                                            seed=50 + i).image for i in range(16)]
    told = []

    class Told(ForbiddenDesertTracker):
        def explain(self, observed, changed, **kw):
            told.append((dict(observed), set(changed)))
            return super().explain(observed, changed, **kw)

    live = LiveDesert(detector, Told(game, start), 30.0, cam.K)
    for i, f in enumerate(frames):
        live.process(f, i, i / 30.0)
    assert told, "the change was not seen"
    observed, changed = told[0]
    assert here not in changed and ("pawns", *here) in observed
    assert {s for s in observed if s[0] != "pawns" and tuple(s[1:]) not in changed} == set()


@pytest.mark.parametrize("during_motion", [False, True])
def test_a_move_entered_after_the_camera_missed_it_becomes_the_reference_for_the_next_one(detector, during_motion):
    """The camera misses a walk (here: the tracker is told to see nothing) and the players enter
    it on the tablet, while the table stands still or while the next walk's arm is already over
    it. ``resync`` takes the table as it stands (or the last still picture before the arm), with
    the pawns of the entered state, as the reference; the next walk, from where the first one
    ended, is then read and committed. (A game video's bench used to drop the reference
    instead: the next still picture came only after the next walk, and that walk was missed
    too.)"""
    from assistant.games import get_game
    from assistant.games.forbidden_desert.simulate import random_game, table_game
    from assistant.tracking.base import Verdict
    from assistant.tracking.forbidden_desert import ForbiddenDesertTracker, colours_of
    from assistant.tracking.live import LiveDesert
    from assistant.vision.render.desert_script import scene_of
    from assistant.vision.render.renderer import CameraSettings, Renderer

    game = get_game("forbidden-desert")
    layout, cam, _cell = _cell_geometry()
    played = random_game(3, n_players=3, max_events=1)
    drawn = played.states[0]
    _setup, start, _truth, _physical = table_game(played)
    seat = start.active
    here = start.cell_of_seat(seat)

    def walk(state, avoid):
        return next(ev for ev in game.legal_events(state) if ev.type == "move" and ev.actor == seat
                    and ev.get("carry") is None and ev["to"] not in avoid)

    first = walk(start, ())
    second = walk(game.apply(start, first), (here,))
    renderer = Renderer(cam)
    noisy = CameraSettings(noise_sigma=2.0, jpeg_quality=None)

    def still(state, seed):
        return [renderer.render(scene_of(state, layout=layout), settings=noisy, seed=seed + i).image for i in range(16)]

    def arm(frame):
        out = frame.copy()
        out[100:440, 200:760] = (60, 90, 140)                    # an arm over the board
        return [out] * 3

    mid = game.apply(drawn, first)
    frames = still(drawn, 1)
    frames += arm(frames[-1]) + still(mid, 50)
    deaf = [True]

    class Deaf(ForbiddenDesertTracker):
        def explain(self, observed, changed, **kw):
            if deaf[0]:
                deaf[0] = False
                return Verdict("nothing", [], sorted(changed, key=str), "The table is as it was.")
            return super().explain(observed, changed, **kw)

    tracker = Deaf(game, start)
    live = LiveDesert(detector, tracker, 30.0, cam.K)
    for i, f in enumerate(frames):
        live.process(f, i, i / 30.0)
    index = len(frames)
    assert not deaf[0], "the first walk was not seen change at all"
    reach = arm(frames[-1])
    if during_motion:
        for i, f in enumerate(reach, start=index):
            live.process(f, i, i / 30.0)
        index += len(reach)
        assert live.still.count == 0
    assert tracker.apply_tablet(first).kind == "commit"
    live.resync()
    assert live.reference is not None
    assert colours_of(tracker.model.expected(tracker.state)[("pawns", *first["to"])]) <= live.reference[2][first["to"]]
    frames = ([] if during_motion else reach) + still(game.apply(mid, second), 90)
    verdicts = [v for i, f in enumerate(frames, start=index) if (v := live.process(f, i, i / 30.0).verdict) is not None]
    assert [(v.kind, v.events) for v in verdicts] == [("commit", [second])], [(v.kind, v.message) for v in verdicts]


def _storm_begun(game):
    """Game 5's opening (3 players), its turn ended and a wind that slides a tile drawn:
    ``(played, state in the storm, wind)``; ``played.states[0]`` names every tile."""
    from assistant.games.base import Event
    from assistant.games.forbidden_desert.simulate import random_game, table_game
    from assistant.tracking.forbidden_desert import ForbiddenDesertTracker

    played = random_game(5, n_players=3, max_events=1)
    _setup, start, _truth, _physical = table_game(played)
    probe = ForbiddenDesertTracker(game, start)
    wind = next(c for c in ("wind_n_1", "wind_s_1", "wind_e_1", "wind_w_1") if probe._moves_tiles(c))
    state = start
    for ev in (Event.make(start.active, "end_turn"), Event.make("storm", "storm_card", card=wind)):
        state = game.apply(state, ev)
        assert state, state
    assert state.phase == "storm"
    return played, state, wind


def _every_tile_named(state, played):
    """The table of ``state`` with every tile named as ``played`` dealt it (to draw it; the
    tracker knows only their backs)."""
    out = state.copy()
    out.ident = list(played.states[0].ident)
    return out


def test_in_the_storm_the_card_place_is_read_with_every_change(detector):
    """A second wind card with the face of the one showing is laid and its tiles slid: the card
    place looks as it did, so the gate reports the slides only. Where a card is due the live
    loop reads the card place as well, and the tracker is told the card it shows."""
    from assistant.games import get_game
    from assistant.games.base import Event
    from assistant.tracking.forbidden_desert import CARD_CELL, ForbiddenDesertTracker
    from assistant.tracking.live import LiveDesert
    from assistant.vision.render.desert_script import scene_of
    from assistant.vision.render.renderer import CameraSettings, Renderer

    game = get_game("forbidden-desert")
    layout, cam, _cell = _cell_geometry()
    played, s1, wind = _storm_begun(game)
    again = game.apply(s1, Event.make("storm", "storm_card", card=wind))
    assert again, again

    shown1, shown2 = _every_tile_named(s1, played), _every_tile_named(again, played)
    renderer = Renderer(cam)
    noisy = CameraSettings(noise_sigma=2.0, jpeg_quality=None)
    frames = [renderer.render(scene_of(shown1, layout=layout), settings=noisy, seed=i + 1).image for i in range(14)]
    hand = frames[-1].copy()
    hand[100:440, 200:760] = (60, 90, 140)                        # an arm over the board
    frames += [hand] * 3 + [renderer.render(scene_of(shown2, layout=layout), settings=noisy, seed=50 + i).image
                            for i in range(16)]
    told = []

    class Told(ForbiddenDesertTracker):
        def explain(self, observed, changed, **kw):
            told.append((dict(observed), set(changed)))
            return super().explain(observed, changed, **kw)

    tracker = Told(game, s1)
    live = LiveDesert(detector, tracker, 30.0, cam.K)
    for i, f in enumerate(frames):
        live.process(f, i, i / 30.0)
    assert told, "the slides were not seen"
    observed, changed = told[0]
    assert CARD_CELL not in changed and observed[("card",)].label == wind
    assert tracker.log[-1] == Event.make("storm", "storm_card", card=wind)


def test_a_storm_card_the_gate_did_not_see_laid_is_read_off_the_card_place(detector):
    """In the storm a hand lays a card and the gate sees nothing change (two wind cards under a
    lamp's glare look alike to it; a card that moves no tile changes no cell). The live loop
    reads the card place then: a new card read surely is committed; the card shown, or a card
    the reference picture already read there (a misreading that stays), is not."""
    from assistant.games import get_game
    from assistant.games.base import Event
    from assistant.tracking.forbidden_desert import ForbiddenDesertTracker
    from assistant.tracking.live import LiveDesert
    from assistant.vision.render.desert_script import scene_of
    from assistant.vision.render.renderer import CameraSettings, Renderer

    game = get_game("forbidden-desert")
    layout, cam, _cell = _cell_geometry()
    played, s1, _wind = _storm_begun(game)
    sun = Event.make("storm", "storm_card", card="sun_beats_down")
    s2 = game.apply(s1, sun)
    assert s1.phase == "storm" and s2, "the storm draws one card only here: pick another seed"

    def frames(state, seed):
        return [Renderer(cam).render(scene_of(_every_tile_named(state, played), layout=layout),
                                     settings=CameraSettings(noise_sigma=2.0), seed=seed + i).image for i in range(14)]

    def live_on(picture_frames):
        """A live loop whose tracker holds ``s1`` and whose reference is the still ``picture_frames``."""
        live = LiveDesert(detector, ForbiddenDesertTracker(game, s1), 30.0, cam.K)
        steps = [live.process(f, i, i / 30.0) for i, f in enumerate(picture_frames)]
        assert live.reference is not None and steps[-1].watch.track.ok
        return live, steps[-1].watch.track.homography

    before, laid = frames(s1, 1), frames(s2, 40)
    live, homography = live_on(before)
    assert live.look_at_card_place(laid[-1], homography) is None  # no picture from before a hand yet
    hand = (before[-1], homography)                                # the still table before the hand came
    assert live.look_at_card_place(before[-1], homography, before_hand=hand) is None   # the card shown
    verdict = live.look_at_card_place(laid[-1], homography, before_hand=hand)
    assert verdict is not None and verdict.kind == "commit", verdict
    assert live.tracker.log[-1] == sun and live.tracker.state.phase == s2.phase
    stale, homography = live_on(laid)                              # before the hand, the sun was there
    assert stale.look_at_card_place(laid[-1], homography, before_hand=(laid[-1], homography)) is None
    assert stale.tracker.log == []

    class Counted(LiveDesert):
        def look_at_card_place(self, picture, homography, now=None):
            looks.append(len(seen))
            return super().look_at_card_place(picture, homography, now)

    looks, seen = [], []
    counted = Counted(detector, ForbiddenDesertTracker(game, s1), 30.0, cam.K)
    arm = before[-1].copy()
    arm[100:440, 200:760] = (60, 90, 140)                         # an arm over the board, then gone
    for i, f in enumerate(before + [arm] * 3 + before):
        seen.append(counted.process(f, i, i / 30.0))
    assert len(looks) == 1 and looks[0] > len(before) + 3, looks  # once, at the quiet moment after the arm
    assert all(step.verdict is None for step in seen)


def test_the_tiles_a_lamps_glare_washes_out_are_named_and_the_storms_bare_cell_never(detector):
    """A lamp's glare clips one tile to white (and the storm's bare cell, the mat's paper): the
    live loop names that tile as washed out on its reference picture, where the camera cannot
    see a move, and nothing on the same table without the glare."""
    import cv2
    import numpy as np

    from assistant.games import get_game
    from assistant.games.forbidden_desert.simulate import random_game, table_game
    from assistant.tracking.forbidden_desert import ForbiddenDesertTracker
    from assistant.tracking.live import LiveDesert
    from assistant.vision.render.desert_script import scene_of
    from assistant.vision.render.renderer import CameraSettings, Renderer

    game = get_game("forbidden-desert")
    layout, cam, _cell = _cell_geometry()
    played = random_game(5, n_players=3, max_events=1)
    _setup, start, _truth, _physical = table_game(played)
    expected = ForbiddenDesertTracker(game, start).model.expected(start)
    storm = next(slot[1:] for slot, label in expected.items() if slot[0] == "face" and label == "storm")
    lit = next(key for key in ((1, 1), (3, 3)) if key != storm)
    shown = _every_tile_named(start, played)
    clean = [Renderer(cam).render(scene_of(shown, layout=layout), settings=CameraSettings(noise_sigma=2.0),
                                  seed=i + 1).image for i in range(10)]

    def glared(frame):
        out = frame.copy()
        for key in (lit, storm):
            centre = np.asarray(layout.cell(key).center_mm, np.float64)
            (cx, cy), (ex, ey) = cam.project(np.array([[*centre, 0.0], [centre[0] + 36.0, centre[1], 0.0]]))
            cv2.circle(out, (round(cx), round(cy)), round(np.hypot(ex - cx, ey - cy)), (255, 255, 255), -1)
        return out

    for frames, want in ((clean, []), ([glared(f) for f in clean], [lit])):
        live = LiveDesert(detector, ForbiddenDesertTracker(game, start), 30.0, cam.K)
        for i, f in enumerate(frames):
            live.process(f, i, i / 30.0)
        assert live.reference is not None, "the board never became still"
        assert live.washed_out() == want
