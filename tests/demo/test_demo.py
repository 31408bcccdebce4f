"""``assistant demo``: the bundled recordings through the whole pipeline, and the recording format."""

from __future__ import annotations

import json

import pytest

from assistant.check import check_record
from assistant.cli import main
from assistant.demo.make_pennant import make
from assistant.demo.recording import SCRIPT, bundled, load_recording
from assistant.demo.run import run_recording


def test_the_bundled_scout_pennant_recording_is_tracked_exactly():
    folders = bundled("scout-pennant")
    if not folders:
        pytest.skip("no bundled Scout Pennant recording in this checkout (examples/recordings/)")
    rec = load_recording(folders[0])
    assert rec.video.stat().st_size < 15e6
    types = {e.type for _, e in rec.truth.events}
    assert len(rec.truth.events) >= 20 and {"fire", "take_from_finish", "build"} <= types
    assert rec.illegal and {c["what"].split(":")[0] for c in rec.conditions} >= {"light", "the mat bumped by 7 mm and 1.5 degrees"}
    result = run_recording(rec)
    assert result.ok and result.matching == result.truth == result.committed
    assert result.illegal_flagged == result.illegal_expected == 1
    assert result.latencies and max(result.latencies) <= 1.0


def test_the_bundled_discovery_island_recording_is_tracked_exactly():
    folders = bundled("discovery-island")
    if not folders:
        pytest.skip("no bundled Discovery Island recording in this checkout (examples/recordings/)")
    rec = load_recording(folders[0])
    events = [e for _, e in rec.truth.events]
    marches = [sum(1 for e in events if e.type == "end_march" and e.actor == p) for p in (0, 1)]
    assert min(marches) >= 3 and {"sea_refused", "learn_clue", "event_resolved"} <= {e.type for e in events}
    result = run_recording(rec)
    assert result.ok and result.matching == result.truth == result.committed
    assert result.illegal_flagged == result.illegal_expected == 1


def _check_desert(result) -> None:
    """The checks every Forbidden Desert recording must pass (bundled, or rendered from photos)."""
    assert result.ok and result.matching == result.truth == result.committed, result.lines()
    assert result.illegal_flagged == result.illegal_expected == 1
    assert result.storm_caught == result.storm_wrong == 1
    assert result.latencies and max(result.latencies) <= 1.0


def _desert_recording_is_complete(rec) -> None:
    events = [e for _, e in rec.truth.events]
    table = [e for e in events if e.type != "end_turn" and e.to_json() not in [t for _, t in rec.tablet]]
    assert len(table) >= 30 and sum(e.type == "storm_card" for e in events) >= 5
    assert {c["what"].split(":")[0] for c in rec.conditions} >= {"light", "an arm sweeps across at 1 m/s",
                                                                  "the mat bumped by 5 mm and 1 degree"}
    assert rec.illegal and rec.storm_wrong and rec.camera_matrix is not None


def test_the_bundled_forbidden_desert_recording_is_tracked_exactly():
    """Own art, the shipped own-art detector: every event in order, the illegal move flagged, the
    wind card carried out wrongly caught with a correction, latency within a second."""
    folders = bundled("forbidden-desert")
    if not folders:
        pytest.skip("no bundled Forbidden Desert recording in this checkout (examples/recordings/)")
    rec = load_recording(folders[0])
    _desert_recording_is_complete(rec)
    _check_desert(run_recording(rec))


def test_the_forbidden_desert_script_rendered_from_the_real_photos_passes_the_same_checks(tmp_path):
    """The unbundled run: the same script rendered with the publisher's component photos (never
    copied into the repository), a detector taught from them, the same checks."""
    from pathlib import Path

    from assistant.demo.make_desert import make as make_desert
    from assistant.vision.detectors import forbidden_desert as fd
    from assistant.vision.detectors.desert_flat import DesertFlat, desert_pictures
    from assistant.vision.render.desert import ProceduralArt
    from assistant.vision.render.photos import ComponentImages

    photos = Path(__file__).resolve().parents[2].parent / "shared" / "components" / "forbidden-desert"
    if not photos.is_dir():
        pytest.skip(f"the component photos are not beside the checkout ({photos})")
    images = ComponentImages(photos, fallback=ProceduralArt())
    pictures = desert_pictures(photos, ProceduralArt())
    model = fd.teach(DesertFlat(pictures.tiles, pictures.cards, parts=pictures.parts)).save(tmp_path / "model")
    rec = load_recording(make_desert(tmp_path / "rec", images=images))
    _desert_recording_is_complete(rec)
    _check_desert(run_recording(rec, str(model)))


def test_the_bundled_recordings_fit_the_size_budget():
    total = sum(f.stat().st_size for folder in bundled() for f in folder.iterdir())
    assert total <= 30e6


def test_demo_headless_exits_0_prints_the_game_and_drives_an_led_board(capsys):
    """``demo --headless --leds loop://``: exit status 0, the game's report printed, and the LED
    board (pyserial's loopback) following the session while the recording runs (a frame per
    change of the lit cells, not just the first one on connecting). One run of the recording
    checks both: each run costs about a minute and a half of CI."""
    if not bundled("scout-pennant"):
        pytest.skip("no bundled Scout Pennant recording in this checkout")
    assert main(["demo", "--headless", "--game", "scout-pennant", "--leds", "loop://"]) == 0
    out = capsys.readouterr().out
    assert "scout-pennant: 20 of 20 true events committed in order" in out and "fps" in out
    sent = [line for line in out.splitlines() if "LED board:" in line]
    assert sent and int(sent[0].split(":")[1].split()[0]) >= 10


def test_a_short_recording_is_made_and_read_back(tmp_path):
    folder = make(tmp_path / "rec", seed=3, moves=4)
    rec = load_recording(folder)
    assert check_record(rec.truth).status == 0
    assert len(rec.moves) == len(rec.truth.events) - len(rec.tablet)
    assert all(0 < m["arm_end"] < 2000 for m in rec.moves)


def test_a_broken_recording_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="table.mp4"):
        load_recording(tmp_path)
    folder = make(tmp_path / "rec", seed=3, moves=3)
    (folder / SCRIPT).write_text(json.dumps({"fps": 30}))
    with pytest.raises(ValueError, match="script.json"):
        load_recording(folder)
