"""A tile under a sand marker is read from its border (issue 15): the tile pictures are compared
up to about 2 mm from their edge (``desert_flat.TILE_KEEP``), since a marker lies on the middle of
the tile and its border is what stays in view. The still here is a development still of the
second renderer (looked at while choosing the share), so this is a regression test, not evidence:
the figures are in ``assistant bench detect``."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.vision.detectors import desert_flat

PHOTOS = Path(__file__).resolve().parents[2].parent / "shared" / "components" / "forbidden-desert"
needs_photos = pytest.mark.skipif(not PHOTOS.is_dir(), reason=f"the component photos are not beside the checkout "
                                                               f"({PHOTOS})")
#: development still 5114 (normal light): two dune backs under sand markers, B1 (a light marker
#: over half the tile) and C2 (a light marker of about 40 mm over the middle)
CELLS = {(0, 1): "dune_back", (1, 2): "dune_back"}


def _faces(monkeypatch=None, keep=None) -> tuple[dict, dict]:
    from assistant.bench.detect_desert_unseen import photo_detector
    from assistant.bench.second_renderer import still
    from assistant.vision.mats import mat_layout
    from assistant.vision.registration import detect_markers, make_detector, register

    if keep is not None:
        monkeypatch.setattr(desert_flat, "TILE_KEEP", keep)
    pic = still(5114, PHOTOS)
    fit = register(detect_markers(pic.image, make_detector()), mat_layout("forbidden-desert"))
    assert fit, fit.reason
    readings = photo_detector().read(pic.image, fit.homography, pic.camera_matrix)
    return {cell: readings[("face", *cell)].label for cell in CELLS}, pic.truth


@needs_photos
def test_tiles_under_sand_are_read_from_their_border():
    faces, truth = _faces()
    for cell, label in CELLS.items():
        assert truth[("face", *cell)] == label and truth[("sand", *cell)] != "none"
    assert faces == CELLS


@needs_photos
def test_leaving_the_border_out_misreads_them(monkeypatch):
    # the share compared before (0.86 of the side, 4-5 mm of each border left out) reads
    # both as faces: the test above would fail with it
    faces, _truth = _faces(monkeypatch, keep=0.86)
    assert all(faces[cell] != label for cell, label in CELLS.items())
