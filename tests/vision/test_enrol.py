"""Teaching from the camera (``assistant teach --source``): the arrangement laid on the mat in
two rounds, photographed, taught, and the model read back on another view of the table."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from assistant.vision.classify import classify, load
from assistant.vision.enrol import EnrolmentError, capture_rounds
from assistant.vision.mats import mat_layout
from assistant.vision.rectify import cell_crops
from assistant.vision.render.camera import look_at_mat
from assistant.vision.render.desert import Place, ProceduralArt, Remove, tile_piece
from assistant.vision.render.lighting import DAYLIGHT, WARM_LAMP
from assistant.vision.render.renderer import Renderer
from assistant.vision.render.scene import Scene
from assistant.vision.render.sequence import Do, Hold, Sequence
from assistant.vision.render.video import write_sequence
from assistant.vision.teach import (collect_round_crops, forbidden_desert_arrangement, forbidden_desert_label,
                                    teach_from_crops)

REPO = Path(__file__).resolve().parents[2]
LAYOUT = mat_layout("forbidden-desert")
ART = ProceduralArt()
NO_DIST = (0.0, 0.0, 0.0, 0.0, 0.0)


def round_scene(face_up: bool) -> Scene:
    faces = forbidden_desert_arrangement()[0]
    return Scene(LAYOUT).place(*[tile_piece(LAYOUT, cell, tid, face_up, ART) for cell, tid in faces.items()
                                 if tid != "empty"])


def flip_all() -> tuple:
    faces = forbidden_desert_arrangement()[0]
    acts = []
    for cell, tid in faces.items():
        if tid != "empty":
            acts += [Remove(f"tile:{tid}"), Place(tile_piece(LAYOUT, cell, tid, False, ART))]
    return tuple(acts)


def two_rounds(size=(800, 600), tilt=20.0):
    cam = look_at_mat(LAYOUT.outline_mm(), size, 60.0, tilt, 0.0, 3.0, dist=NO_DIST)
    return Sequence(round_scene(True), cam, [Hold(20), Do(flip_all()), Hold(20)], fps=30, seed=3)


@pytest.fixture(scope="module")
def crops():
    return capture_rounds(iter(two_rounds()), LAYOUT, forbidden_desert_arrangement(), 30.0)


def test_both_rounds_are_photographed(crops):
    assert len(crops) == 2
    assert set(crops[0]) == {c.key for c in LAYOUT.cells}
    # round 2 shows the backs: the crops of a cell differ between the rounds
    assert np.abs(crops[0][(0, 0)].astype(int) - crops[1][(0, 0)]).mean() > 10


def test_a_model_taught_on_the_mat_reads_another_view(crops):
    rounds = forbidden_desert_arrangement()
    model = teach_from_crops(collect_round_crops(rounds, crops), game="forbidden-desert", slot="tile")
    hits = total = 0
    for face_up, lighting in ((True, DAYLIGHT), (False, WARM_LAMP)):
        cam = look_at_mat(LAYOUT.outline_mm(), (1024, 768), 55.0, 30.0, 0.0, -25.0, dist=NO_DIST)
        frame = Renderer(cam).render(round_scene(face_up), lighting=lighting, seed=9).image
        got = cell_crops(frame, cam.homography(), LAYOUT, model.crop_size)
        for cell, key in rounds[0 if face_up else 1].items():
            want = (forbidden_desert_label("tiles", key) or (key, None))[0]     # tile id -> face
            total += 1
            hits += classify(model, got[cell]).label == want
    assert hits / total >= 0.9, f"{hits} of {total}"


def test_the_source_must_show_every_round():
    seq = Sequence(round_scene(True), look_at_mat(LAYOUT.outline_mm(), (640, 480), 60.0, 20.0, 0.0, 0.0, dist=NO_DIST),
                   [Hold(20)], fps=30)
    with pytest.raises(EnrolmentError, match="1 of 2 rounds"):
        capture_rounds(iter(seq), LAYOUT, forbidden_desert_arrangement(), 30.0)


def test_teach_command_from_a_video(tmp_path):
    video = tmp_path / "rounds.avi"
    write_sequence(two_rounds((800, 600)), video, fps=30)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    run = subprocess.run([sys.executable, "-m", "assistant", "teach", "--game", "forbidden-desert", "--source",
                          str(video), "-o", str(tmp_path / "model"), "--crops", "600"],
                         capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "round 2 of 2 photographed" in run.stdout
    model = load(tmp_path / "model")
    assert "dune_back" in model.labels and "gear" in model.labels
