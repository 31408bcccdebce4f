"""Tiles under sand markers (issue 15). A marker lies on the middle of a tile, so the tile is read
from what stays in view: its pictures are compared up to about 2 mm from their edge
(``desert_flat.TILE_KEEP``), and each picture fitted to the cell is weighed by how many of the
tile's pixels it explains in the table's light (``DesertFlat.tell_labels``). The stills here are
development stills of the second renderer (looked at while building both), so these are
regression tests, not evidence: the figures are in ``assistant bench detect``."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.vision.detectors import desert_flat

PHOTOS = Path(__file__).resolve().parents[2].parent / "shared" / "components" / "forbidden-desert"
needs_photos = pytest.mark.skipif(not PHOTOS.is_dir(), reason=f"the component photos are not beside the checkout "
                                                               f"({PHOTOS})")
#: development still 5114 (normal light): two dune backs under light sand markers, B1 (a marker
#: over half the tile) and C2 (a marker of about 40 mm over the middle)
BORDER_CELLS = {(0, 1): "dune_back", (1, 2): "dune_back"}
#: development still 5108 (normal light): B4 and D4 dune backs, C5 the crash site's back, each
#: under a stack of markers (dark side up) that hides what tells the backs apart
PIXEL_CELLS = {(3, 1): "dune_back", (3, 3): "dune_back", (4, 2): "crash_site_back"}


def _faces(seed: int, cells: dict) -> tuple[dict, dict]:
    from assistant.bench.detect_desert_unseen import photo_detector
    from assistant.bench.second_renderer import still
    from assistant.vision.mats import mat_layout
    from assistant.vision.registration import detect_markers, make_detector, register

    pic = still(seed, PHOTOS)
    fit = register(detect_markers(pic.image, make_detector()), mat_layout("forbidden-desert"))
    assert fit, fit.reason
    readings = photo_detector().read(pic.image, fit.homography, pic.camera_matrix)
    for cell, label in cells.items():
        assert pic.truth[("face", *cell)] == label and pic.truth[("sand", *cell)] != "none"
    return {cell: readings[("face", *cell)].label for cell in cells}, pic.truth


@needs_photos
def test_tiles_under_sand_are_read_from_their_border(monkeypatch):
    # the border alone (no pixels explained weighed: DesertFlat.tell_labels reads these two
    # right by itself too) reads both
    monkeypatch.setattr(desert_flat, "TELL_NATS_PER_PX", 0.0)
    assert _faces(5114, BORDER_CELLS)[0] == BORDER_CELLS


@needs_photos
def test_leaving_the_border_out_misreads_them(monkeypatch):
    # the share compared before (0.86 of the side, 4-5 mm of each border left out) reads both as
    # other faces: the test above fails with it
    monkeypatch.setattr(desert_flat, "TILE_KEEP", 0.86)
    monkeypatch.setattr(desert_flat, "TELL_NATS_PER_PX", 0.0)
    faces = _faces(5114, BORDER_CELLS)[0]
    assert all(faces[cell] != label for cell, label in BORDER_CELLS.items())


@needs_photos
def test_backs_under_a_stack_are_read_by_the_pixels_their_picture_explains():
    assert _faces(5108, PIXEL_CELLS)[0] == PIXEL_CELLS


@needs_photos
def test_without_the_pixels_explained_the_stacks_are_misread(monkeypatch):
    monkeypatch.setattr(desert_flat, "TELL_NATS_PER_PX", 0.0)
    faces = _faces(5108, PIXEL_CELLS)[0]
    assert all(faces[cell] != label for cell, label in PIXEL_CELLS.items())


@needs_photos
def test_the_pixels_explained_move_only_the_fitted_labels_odds_among_themselves(monkeypatch):
    """What :meth:`DesertFlat.tell_labels` adds sums to 0 over each cell's fitted labels and leaves
    every other label's evidence as it was; with too few cells for a table's light (a live read of
    the changed cells) it adds nothing."""
    from assistant.bench.detect_desert_unseen import photo_detector
    from assistant.bench.second_renderer import still
    from assistant.vision.mats import mat_layout
    from assistant.vision.registration import detect_markers, make_detector, register

    pic = still(5108, PHOTOS)
    homography = register(detect_markers(pic.image, make_detector()), mat_layout("forbidden-desert")).homography
    flat = photo_detector().flat
    told = flat.score_cells(pic.image, homography)
    monkeypatch.setattr(desert_flat, "TELL_NATS_PER_PX", 0.0)
    plain = flat.score_cells(pic.image, homography)
    moved = 0
    for cell, sc in told.items():
        fitted = set(sc.fitted[2]) if sc.fitted is not None else set()
        extra = {lab: sc.told.get(lab, 0.0) - plain[cell].told.get(lab, 0.0) for lab in sc.matches}
        assert sum(extra[lab] for lab in fitted & set(extra)) == pytest.approx(0.0, abs=1e-6)
        assert all(v == 0.0 for lab, v in extra.items() if lab not in fitted)
        moved += any(abs(v) > 0.5 for v in extra.values())
    assert moved >= 10                                    # it does move most tiles of a full table
    monkeypatch.setattr(desert_flat, "TELL_NATS_PER_PX", 0.007)
    few = [(3, 1), (3, 3), (4, 2)]
    again = flat.score_cells(pic.image, homography, few)
    monkeypatch.setattr(desert_flat, "TELL_NATS_PER_PX", 0.0)
    assert {c: again[c].told for c in few} == {c: flat.score_cells(pic.image, homography, few)[c].told for c in few}


@needs_photos
def test_a_whole_table_read_weighs_the_faces_the_engine_expects_but_never_against_the_camera(monkeypatch):
    """After a storm card the live loop reads the whole table with the faces the engine expects
    as a prior (``tracking.live.expected_faces``, ``STORM_PRIOR_NATS``), guarded
    (``forbidden_desert.guarded_by``). On still 5108 (``tell_labels`` off): the three stacks the
    camera misreads are no longer sure of another face (no slide is "corrected" that the players
    made right); a tile under sand the engine wrongly expects to be a water back (a wrong slide)
    is never read as a water back surely unless the camera alone reads one there; every face the
    camera reads as expected stays so."""
    from assistant.bench.detect_desert_unseen import photo_detector
    from assistant.bench.second_renderer import still
    from assistant.tracking.live import STORM_PRIOR_NATS, expected_faces
    from assistant.vision.mats import mat_layout
    from assistant.vision.registration import detect_markers, make_detector, register

    monkeypatch.setattr(desert_flat, "TELL_NATS_PER_PX", 0.0)
    pic = still(5108, PHOTOS)
    homography = register(detect_markers(pic.image, make_detector()), mat_layout("forbidden-desert")).homography
    det = photo_detector()
    truth = {s: v for s, v in pic.truth.items() if s[0] == "face"}
    plain = det.read(pic.image, homography, pic.camera_matrix)
    assert all(plain[("face", *c)].label != label and plain[("face", *c)].sure for c, label in PIXEL_CELLS.items())
    told = det.read(pic.image, homography, pic.camera_matrix, None, None, expected_faces(truth, STORM_PRIOR_NATS))
    assert not any(told[("face", *c)].sure and told[("face", *c)].label != label for c, label in PIXEL_CELLS.items())
    assert all(told[s].label == v for s, v in truth.items() if plain[s].label == v)
    covered = [s for s, v in sorted(truth.items()) if v == "dune_back" and pic.truth[("sand", *s[1:])] != "none"]
    assert len(covered) >= 5
    for slot in covered:
        wrong = det.read(pic.image, homography, pic.camera_matrix, None, None,
                         expected_faces({**truth, slot: "water_back"}, STORM_PRIOR_NATS))
        # a water back read surely only where the camera alone reads one there too
        assert not (wrong[slot].label == "water_back" and wrong[slot].sure) or plain[slot].label == "water_back", slot


@needs_photos
def test_a_read_of_some_cells_never_makes_the_prior_sure_against_the_camera(monkeypatch):
    """During a turn the live loop reads the changed cells with the faces the rules allow there
    favoured (``tracking.live.turn_prior``), guarded as the whole-table read is
    (``forbidden_desert.guarded_by``). On still 5108 (``tell_labels`` off), dune backs under sand
    read a few at a time: with only a water back's faces favoured (as if the engine held a water
    back there: a tile slid unseen) none reads as one of them surely unless the camera alone
    does; with the dune back's faces favoured, every face the camera reads right stays right."""
    from assistant.bench.detect_desert_unseen import photo_detector
    from assistant.bench.second_renderer import still
    from assistant.tracking.live import TURN_PRIOR_NATS
    from assistant.vision.mats import mat_layout
    from assistant.vision.registration import detect_markers, make_detector, register

    monkeypatch.setattr(desert_flat, "TELL_NATS_PER_PX", 0.0)
    pic = still(5108, PHOTOS)
    homography = register(detect_markers(pic.image, make_detector()), mat_layout("forbidden-desert")).homography
    det = photo_detector()
    covered = [s[1:] for s, v in sorted(pic.truth.items())
               if s[0] == "face" and v == "dune_back" and pic.truth[("sand", *s[1:])] != "none"]
    assert len(covered) >= 5
    water = ("water_back", "well", "mirage", "unknown")
    dune = ("dune_back", "gear", "tunnel", "launch_pad", "unknown")
    flipped = 0
    for cells in (covered[:3], covered[3:6]):
        slots = [("face", *c) for c in cells]
        plain = det.read(pic.image, homography, pic.camera_matrix, slots)
        wrong = det.read(pic.image, homography, pic.camera_matrix, slots, None,
                         {c: dict.fromkeys(water, TURN_PRIOR_NATS) for c in cells})
        right = det.read(pic.image, homography, pic.camera_matrix, slots, None,
                         {c: dict.fromkeys(dune, TURN_PRIOR_NATS) for c in cells})
        for slot in slots:
            assert not (wrong[slot].label in water and wrong[slot].sure) or plain[slot].label == wrong[slot].label, slot
            flipped += wrong[slot].label in water
            assert right[slot].label == "dune_back" or plain[slot].label != "dune_back", slot
    assert flipped >= 1                 # the prior does move some of them: the guard is what keeps them unsure


#: development still 5308 (normal light): a red pawn on C4 and a black one on A2, each on a
#: stack of dark-side markers whose tile fits 4.5-4.8 times noisier than the table's
PAWNS_ON_SAND = {(1, 3): "red", (0, 1): "black"}
#: development stills 5301 and 5303: tiles under dark markers with no pawn, where the table's
#: light leaves pieces of marker a little likelier a pawn than not (0.52-0.58)
MARKER_PIECES = {5301: (2, 0), 5303: (1, 4)}


def _pieces(seed: int) -> tuple[dict, dict]:
    from assistant.bench.detect_desert_unseen import photo_detector
    from assistant.bench.second_renderer import still
    from assistant.vision.mats import mat_layout
    from assistant.vision.registration import detect_markers, make_detector, register

    pic = still(seed, PHOTOS)
    fit = register(detect_markers(pic.image, make_detector()), mat_layout("forbidden-desert"))
    assert fit, fit.reason
    return photo_detector().read(pic.image, fit.homography, pic.camera_matrix), pic.truth


def test_a_pawn_like_blob_below_the_least_is_a_doubt_not_a_pawn():
    """``cell_readings``' ``pawn_least``: a blob a pawn colour wins at 0.55 is that pawn at 0,
    and at 0.6 no pawn, unsure (at most one minus its pawn classes), the colour an alternative;
    a blob above the least is read either way."""
    import numpy as np

    from assistant.vision.detectors.desert_pieces import CLASSES, cell_readings

    probs = np.zeros((1, len(CLASSES)))
    probs[0, CLASSES.index("pawn_red")], probs[0, CLASSES.index("pawn_yellow")] = 0.55, 0.10
    probs[0, CLASSES.index("sand_dark")] = 0.35
    assert cell_readings([None], probs, None)["pawns"][0] == "red"
    label, conf, _margin, alts = cell_readings([None], probs, None, pawn_least=0.6)["pawns"]
    assert label == "" and conf <= 1.0 - 0.65 + 1e-9 and "red" in alts
    probs[0] = 0.0
    probs[0, CLASSES.index("pawn_red")], probs[0, CLASSES.index("sand_dark")] = 0.8, 0.2
    assert cell_readings([None], probs, None, pawn_least=0.6)["pawns"][0] == "red"


def test_a_pawn_like_blob_smaller_than_the_least_area_is_a_doubt():
    """``pawn_least_mm2``: a blob of 8 x 8 mm (64 mm^2) a pawn colour wins surely is no pawn at
    80 mm^2 (unsure, the colour an alternative); one of 12 x 12 mm is read."""
    import numpy as np

    from assistant.vision.detectors.desert_pieces import CLASSES, PPM, Blob, cell_readings

    probs = np.zeros((1, len(CLASSES)))
    probs[0, CLASSES.index("pawn_black")], probs[0, CLASSES.index("sand_dark")] = 0.7, 0.3

    def square(mm: float) -> Blob:
        mask = np.zeros((114, 114), bool)
        mask[:round(mm * PPM), :round(mm * PPM)] = True
        return Blob(mask, np.zeros(16, np.float32), np.zeros(3, np.float32))

    label, conf, _margin, alts = cell_readings([square(8.0)], probs, None, pawn_least_mm2=80.0)["pawns"]
    assert label == "" and conf <= 0.3 + 1e-9 and "black" in alts
    assert cell_readings([square(12.0)], probs, None, pawn_least_mm2=80.0)["pawns"][0] == "black"


@needs_photos
def test_pawns_on_a_marker_that_broke_the_fit_are_read_in_the_tables_light():
    readings, truth = _pieces(5308)
    for cell, colour in PAWNS_ON_SAND.items():
        assert truth[("pawns", *cell)] == colour and truth[("sand", *cell)] != "none"
        assert readings[("pawns", *cell)].label == colour, cell


@needs_photos
def test_without_the_sand_rule_those_pawns_are_missed(monkeypatch):
    # a fit 4.5-4.8 times the table's stays below BROKEN_FIT: read in its own light, nothing on
    # the tile counts as occluded
    from assistant.vision.detectors import desert_fit

    monkeypatch.setattr(desert_fit, "SAND_BROKEN_FIT", desert_fit.BROKEN_FIT)
    readings, _truth = _pieces(5308)
    assert all(readings[("pawns", *cell)].label == "" for cell in PAWNS_ON_SAND)


@needs_photos
@pytest.mark.parametrize("seed", sorted(MARKER_PIECES))
def test_pieces_of_a_marker_in_the_tables_light_are_unsure_not_pawns(seed, monkeypatch):
    from assistant.vision.detectors import desert_pieces

    cell = MARKER_PIECES[seed]
    readings, truth = _pieces(seed)
    assert truth[("pawns", *cell)] == "" and truth[("sand", *cell)] == "dark"
    got = readings[("pawns", *cell)]
    assert got.label == "" and got.confidence < 0.6 and got.alternatives
    # without the leasts, the same blobs read as a pawn
    monkeypatch.setattr(desert_pieces, "LIT_PAWN_LEAST", 0.0)
    monkeypatch.setattr(desert_pieces, "LIT_PAWN_LEAST_MM2", 0.0)
    assert _pieces(seed)[0][("pawns", *cell)].label != ""
