"""Teaching the Forbidden Desert table from the owner's photos (``assistant teach --slot table``)
and the second renderer the benchmark measures on. Tests that need the component photos skip
when ``shared/components/forbidden-desert`` is not beside the checkout."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

PHOTOS = Path(__file__).resolve().parents[2].parent / "shared" / "components" / "forbidden-desert"
needs_photos = pytest.mark.skipif(not PHOTOS.is_dir(), reason=f"the component photos are not beside the checkout "
                                                               f"({PHOTOS})")


def _teach(folder: Path, out: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "assistant", "teach", "--game", "forbidden-desert", "--slot", "table",
                           "--images", str(folder), "-o", str(out)], capture_output=True, text=True, timeout=600,
                          cwd=Path(__file__).resolve().parents[2])


@needs_photos
def test_every_photo_is_taught_and_the_folder_is_checked(tmp_path):
    """All eight gear tiles, each tunnel and clue, a second photo of one piece; a stray file, an
    unreadable one and a missing card are each named in one sentence; the rest falls back to
    the project's art, and the detector reads back."""
    from assistant.vision.detectors import forbidden_desert as fd

    folder = tmp_path / "photos"
    shutil.copytree(PHOTOS, folder)
    shutil.copy(folder / "tiles" / "gear_5.jpg", folder / "tiles" / "gear_5@lamp.jpg")
    (folder / "storm-cards" / "wind_N_1.jpg").unlink()
    (folder / "tiles" / "broken.jpg").write_bytes(b"not a picture")
    (folder / "tiles" / "clue_engine_diagonal.jpg").write_bytes((folder / "tiles" / "gear_1.jpg").read_bytes())
    run = _teach(folder, tmp_path / "model")
    assert run.returncode == 0, run.stderr
    notes = [line for line in run.stdout.splitlines() if line.startswith("note: ")]
    assert any("broken.jpg" in n and "no piece" in n for n in notes)
    assert any("clue_engine_diagonal.jpg" in n for n in notes)
    assert any("wind_n_1" in n and "own art" in n for n in notes)
    det = fd.FDDetector.load(tmp_path / "model")
    names = {p.name for p in det.flat.tile_pictures}
    assert {f"tiles/gear_{i}" for i in range(1, 9)} | {"tiles/tunnel_3", "tiles/gear_5@lamp"} <= names
    assert "own-art/wind_n_1" in {p.name for p in det.flat.card_pictures}
    assert {p.label for p in det.flat.part_pictures} == {"engine", "navigation_deck", "propeller", "solar_crystal"}


def test_a_missing_folder_is_one_sentence(tmp_path):
    run = _teach(tmp_path / "nowhere", tmp_path / "model")
    assert run.returncode == 2 and run.stderr.count("\n") == 1 and "no component photos" in run.stderr


@needs_photos
def test_the_second_renderer_is_deterministic_and_its_truth_is_a_table():
    from assistant.bench.second_renderer import still

    a, b = still(3, PHOTOS), still(3, PHOTOS)
    assert np.array_equal(a.image, b.image) and a.truth == b.truth
    faces = [v for k, v in a.truth.items() if k[0] == "face"]
    assert len(faces) == 25 and faces.count("storm") == 1
    assert faces.count("dune_back") + faces.count("water_back") + faces.count("crash_site_back") <= 24
    assert a.truth[("card",)] == "none" or a.truth[("card",)].startswith(("wind_", "sun_", "storm_"))
    bare = still(3, PHOTOS, mat=False)
    assert bare.truth == a.truth and not np.array_equal(bare.image, a.image)


@needs_photos
def test_a_blank_frame_with_corners_reads_nothing_surely(tmp_path):
    """A black or grey frame given four corners: no storm, no tile, nothing sure (the issue's
    blank frame read 25 storm cells at confidence 1.0)."""
    import cv2

    from assistant.vision.mats import mat_layout
    from assistant.vision.registration import manual_registration

    from assistant.bench.detect_desert_unseen import photo_detector

    det = photo_detector(PHOTOS)
    layout = mat_layout("forbidden-desert")
    corners = np.array([[340, 120], [940, 120], [940, 620], [340, 620]], np.float64)
    h = manual_registration(corners, layout).homography
    k = np.array([[1100.0, 0, 640], [0, 1100.0, 360], [0, 0, 1]])
    for level in (0, 128):
        frame = np.full((720, 1280, 3), level, np.uint8)
        frame = cv2.add(frame, np.random.default_rng(level).integers(0, 3, frame.shape).astype(np.uint8))
        readings = det.read(frame, h, k)
        faces = {s: r for s, r in readings.items() if s[0] == "face"}
        assert {r.label for r in faces.values()} == {"unknown"}
        assert max(r.confidence for r in readings.values() if r.label not in ("", "none")) < 0.9


def test_the_demo_detector_carries_the_shipped_piece_networks():
    """``models/forbidden-desert-own-art`` is what ``assistant teach --images own-art`` writes:
    its piece networks are the package's (a model taught again must be copied there too, or the
    bundled recording is read with a network of other features)."""
    root = Path(__file__).resolve().parents[2]
    shipped = root / "assistant" / "vision" / "detectors" / "data" / "piece-blobs.npz"
    demo = root / "models" / "forbidden-desert-own-art" / "piece-blobs.npz"
    assert demo.read_bytes() == shipped.read_bytes()


@needs_photos
def test_the_second_renderer_acts_a_game_out_on_video():
    """A game's video: the opening table still (frames differ only by sensor noise), an arm
    reaching in for each table the game shows, every piece kept in its place between states,
    and the same seed giving the same frames."""
    from assistant.bench import desert_games_unseen as g
    from assistant.games.forbidden_desert.simulate import random_game

    game = random_game(5, n_players=3, max_events=8)
    parts = g.acted_parts(game.states, game.events)
    assert parts and all(p["tables"] for p in parts)
    size = (320, 180)
    frames = list(g.video(5, parts, game.states[0], False, PHOTOS, size))
    per_table = 2 * g.REACH + g.DWELL + g.HOLD
    assert len(frames) == g.HOLD + 6 + per_table * sum(len(p["tables"]) for p in parts)
    opening = [img.astype(float) for p, img in frames if p == 0]
    arm = frames[g.HOLD + 6 + g.REACH][1].astype(float)           # the hand over the first cell

    def changed(a, b):                        # share of pixels changed by more than noise can
        return float((np.abs(a - b).max(axis=2) > 40).mean())

    assert changed(opening[1], opening[2]) < 0.002 and changed(arm, opening[2]) > 0.01
    again = list(g.video(5, parts[:1], game.states[0], False, PHOTOS, size))
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(again, frames))
    table = g.GameTable(5, PHOTOS)
    first, last = game.states[0], game.states[-1]

    def centres(state):                       # tile id -> where its picture lies, mm
        flats = table.pieces(state)[0]
        tiles = [f for f in flats if f[2][0] == table.tile_mm]
        return dict(zip(state.ident, (f[1] for f in tiles)))

    a, b = centres(first), centres(last)
    stayed = [t for s, t in enumerate(first.ident) if last.cell_of[last.ident.index(t)] == first.cell_of[s]]
    moved = [t for t in first.ident if t not in stayed]
    assert stayed and all(a[t] == b[t] for t in stayed)          # a tile keeps its place in its cell
    assert all(a[t] != b[t] for t in moved)
