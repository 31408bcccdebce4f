"""Forbidden Desert from rendered frames: the detector's readings and the live tracker on a
game acted out on the table (the full figures are in ``assistant bench detect``)."""

from __future__ import annotations

import itertools

import pytest

from assistant.vision.detectors import forbidden_desert as fd
from assistant.vision.detectors import synth


@pytest.fixture(scope="module")
def detector(tmp_path_factory):
    moves = itertools.chain(synth.pawn_moves(1, 50, "train", size=(960, 540)),
                            synth.other_changes(2, 30, "train", size=(960, 540)))
    part_views = synth.views(3, 12, "glare", size=(960, 540), part_rate=0.8)
    det = fd.teach(synth.views(1, 40, "train", size=(960, 540)), moves=moves, part_views=part_views)
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


def test_faces_sand_parts_and_card_are_read_on_unseen_tables(detector):
    wrong = total = 0
    for frame, h, k, scene in synth.views(77, 4, "normal", size=(960, 540)):
        truth = fd.truth_of(scene)
        for slot, reading in detector.read(frame, h, k).items():
            if slot[0] != "pawns":
                total += 1
                wrong += reading.label != truth[slot]
    assert total == 4 * (25 * 3 + 1) and wrong / total <= 0.01, f"{wrong} of {total}"


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
