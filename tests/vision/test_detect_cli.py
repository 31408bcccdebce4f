"""``assistant detect IMAGE --game G`` on rendered photos of the two printable kits, through the
real command line: every slot printed, the laid pieces read right, bad input refused in one line."""

import json
import random

import cv2
import numpy as np
import pytest

from assistant.cli import main
from assistant.games import get_game
from assistant.tracking.scout_pennant import ScoutPennantTable
from assistant.vision.kits.discovery_island import slot_labels
from assistant.vision.kits.discovery_island_scene import random_board, random_camera
from assistant.vision.kits.scout_pennant_scene import table_scene
from assistant.vision.mats import mat_layout
from assistant.vision.render.camera import look_at_mat
from assistant.vision.render.lighting import DAYLIGHT
from assistant.vision.render.renderer import Renderer


def _run(capsys, *argv):
    status = main(["detect", *map(str, argv)])
    out = capsys.readouterr()
    return status, [json.loads(line) for line in out.out.splitlines()], out.err


def test_discovery_island_photo(tmp_path, capsys):
    rng = random.Random(4242)                         # a board and camera of no other test
    scene, truth = random_board(rng, fill=0.5)
    frame = Renderer(random_camera(rng, (1280, 720))).render(scene, seed=2).image
    cv2.imwrite(str(tmp_path / "island.png"), frame)
    status, rows, err = _run(capsys, tmp_path / "island.png", "--game", "discovery-island", "--json")
    assert status == 0, err
    tiles = {tuple(r["slot"][1:]): r["label"] for r in rows if r["slot"][0] == "tile"}
    assert len(tiles) == len(mat_layout("discovery-island").cells)
    wrong = [c for c, design in truth.items() if tiles[tuple(c)] != slot_labels(design)[0]]
    assert wrong == []


def test_scout_pennant_photo(tmp_path, capsys):
    game = get_game("scout-pennant")
    state = game.new_state({"players": [{"seat": 0, "colour": "red"}, {"seat": 1, "colour": "blue"}]}, {})
    table = ScoutPennantTable().expected(state)
    assert any(label not in ('none', 'empty') for label in table.values())   # start clearings and pawns
    layout = mat_layout("scout-pennant")
    cam = look_at_mat(layout.outline_mm(), (1280, 720), 60.0, 20.0, 10.0, 3.0)
    frame = Renderer(cam).render(table_scene(table, seed=11), lighting=DAYLIGHT, seed=5).image
    cv2.imwrite(str(tmp_path / "pennant.png"), frame)
    status, rows, err = _run(capsys, tmp_path / "pennant.png", "--game", "scout-pennant", "--json")
    assert status == 0, err
    read = {tuple(r["slot"]): r["label"] for r in rows}
    assert {s: read.get(tuple(s)) for s in table} == dict(table)


@pytest.mark.parametrize("game", ["forbidden-desert", "discovery-island", "scout-pennant"])
def test_an_unreadable_image_is_one_line_on_stderr(tmp_path, capsys, game):
    (tmp_path / "broken.png").write_bytes(b"not a png")
    status, rows, err = _run(capsys, tmp_path / "broken.png", "--game", game, "--model", tmp_path)
    assert status == 2 and rows == [] and len(err.strip().splitlines()) == 1


def test_forbidden_desert_without_a_model_says_what_to_do(tmp_path, capsys):
    cv2.imwrite(str(tmp_path / "grey.png"), np.full((480, 640, 3), 128, np.uint8))
    status, rows, err = _run(capsys, tmp_path / "grey.png", "--game", "forbidden-desert",
                             "--corners", "10,10,600,10,600,460,10,460")
    assert status == 2 and "assistant teach" in err


def test_a_photo_without_the_mat_says_so(tmp_path, capsys):
    """F5: no board is a clear one-line answer, not an empty listing or a traceback."""
    cv2.imwrite(str(tmp_path / "table.png"), np.full((720, 1280, 3), 90, np.uint8))
    for game in ("discovery-island", "scout-pennant"):
        status, rows, err = _run(capsys, tmp_path / "table.png", "--game", game)
        assert status == 2 and rows == [] and ("not found" in err or "mat found" in err), err
