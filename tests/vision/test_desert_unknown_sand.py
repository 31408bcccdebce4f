"""The sand on a tile whose face reads ``unknown`` (issue 15): sand markers stacked over the
middle of a tile can leave no picture likely enough to name the face, but they are still what
the residual of the closest picture shows. The still here is a development still of the second
renderer (looked at while building), so this is a regression test, not evidence; the figures
are in the README (Forbidden Desert on pictures made differently)."""

from __future__ import annotations

from pathlib import Path

import pytest

PHOTOS = Path(__file__).resolve().parents[2].parent / "shared" / "components" / "forbidden-desert"
needs_photos = pytest.mark.skipif(not PHOTOS.is_dir(), reason=f"the component photos are not beside the checkout "
                                                               f"({PHOTOS})")


@pytest.fixture(scope="module")
def read_still():
    """Development still 5105 of the second renderer (normal light, on the mat), read whole:
    ``(truth, readings)``."""
    from assistant.bench.detect_desert_unseen import photo_detector
    from assistant.bench.second_renderer import still
    from assistant.vision.mats import mat_layout
    from assistant.vision.registration import detect_markers, make_detector, register

    pic = still(5105, PHOTOS, stress=False, mat=True)
    fit = register(detect_markers(pic.image, make_detector()), mat_layout("forbidden-desert"))
    assert fit, fit.reason
    return pic.truth, photo_detector().read(pic.image, fit.homography, pic.camera_matrix)


@needs_photos
def test_a_dark_stack_on_an_unknown_face_reads_dark(read_still):
    truth, readings = read_still
    # B1 (a well) under a stack of sand markers: face unknown. (C1, a tunnel under a stack, read
    # unknown too until the tiles' border was compared and their pixels explained weighed,
    # test_desert_under_sand.py: it now reads tunnel, with its sand dark.)
    assert truth[("face", 0, 2)] == "tunnel" == readings[("face", 0, 2)].label
    assert truth[("sand", 0, 2)] == "dark" == readings[("sand", 0, 2)].label
    for cell in ((0, 1),):
        assert truth[("sand", *cell)] == "dark"
        assert readings[("face", *cell)].label == "unknown"
        sand = readings[("sand", *cell)]
        assert sand.label == "dark", (cell, sand)
        assert sand.confidence > 0.4 and sand.alternatives    # the sand network's ranking, not a copy of the face's
        # nothing is claimed of the pawns and parts of a tile that could not be named
        assert readings[("pawns", *cell)].label == "" and readings[("parts", *cell)].label == ""


@needs_photos
def test_the_storm_still_holds_no_sand(read_still):
    truth, readings = read_still
    storm = [slot[1:] for slot, label in truth.items() if slot[0] == "face" and label == "storm"]
    assert len(storm) == 1
    assert readings[("face", *storm[0])].label == "storm"
    assert readings[("sand", *storm[0])].label == "none"
