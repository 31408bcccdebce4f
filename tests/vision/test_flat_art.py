"""Flat printed art read by matching pictures (assistant.vision.detectors.flat_art), the
Forbidden Desert table read under the rules' counts (desert_flat) and what lies on a tile
(desert_pieces): synthetic boards whose truth is known by construction."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assistant.vision.detectors import desert_flat as D
from assistant.vision.detectors import desert_fit as F
from assistant.vision.detectors import desert_pieces as P
from assistant.vision.detectors.flat_art import (COARSE_PPM, FINE_PPM, ArtBank, Picture, chroma_image, coarse_image,
                                                 contrast, flatten_piece, gradient_image, piece_outline)


def _texture(seed: int, size: int = 160) -> np.ndarray:
    """A picture with drawing at every scale (smoothed noise in colour), ``(size, size, 3) uint8``."""
    import cv2

    rng = np.random.default_rng(seed)
    img = np.zeros((size, size, 3), np.float32)
    for sigma in (2.0, 6.0, 14.0):
        img += cv2.GaussianBlur(rng.normal(0, 60, (size, size, 3)).astype(np.float32), (0, 0), sigma) * sigma / 6
    return np.clip(img + 128, 0, 255).astype(np.uint8)


def _board(pictures, places, size_mm=(160.0, 160.0), tile_mm=40.0, ppm=FINE_PPM, gain=1.0, offset=0.0):
    """A rectified board at ``ppm`` with ``pictures`` laid at ``places`` ((x, y) mm, quarter
    turns), lit by ``gain`` and ``offset``."""
    import cv2

    w, h = int(size_mm[0] * ppm), int(size_mm[1] * ppm)
    board = np.full((h, w, 3), 200, np.uint8)
    side = int(round(tile_mm * ppm))
    for pic, ((x, y), turn) in zip(pictures, places):
        img = np.rot90(cv2.resize(pic, (side, side), interpolation=cv2.INTER_AREA), -turn)
        u, v = int(round(x * ppm - side / 2)), int(round(y * ppm - side / 2))
        board[v:v + side, u:u + side] = img
    return np.clip(board.astype(np.float32) * gain + offset, 0, 255).astype(np.uint8)


def test_a_picture_is_found_where_it_lies_and_turned_as_it_lies():
    pics = [Picture(f"p{i}", f"p{i}", _texture(i), 4.0) for i in range(3)]
    bank = ArtBank(pics, (40.0, 40.0))
    board = _board([pics[1].image], [((75.0, 82.0), 3)], gain=0.6, offset=30.0)     # darker, a cast of grey
    coarse = bank.coarse(coarse_image(_board([pics[1].image], [((75.0, 82.0), 3)], ppm=COARSE_PPM, gain=0.6,
                                             offset=30.0), COARSE_PPM), (0.0, 0.0), {"cell": (80.0, 80.0, 12.0)})
    best = max(coarse["cell"].values(), key=lambda m: m.score)
    assert best.label == "p1" and bank.templates[best.template].turn == 3
    fine = bank.fine(gradient_image(board, FINE_PPM), chroma_image(board, FINE_PPM), (0.0, 0.0), [best])
    assert abs(fine["p1"].centre_mm[0] - 75.0) <= 1.0 and abs(fine["p1"].centre_mm[1] - 82.0) <= 1.0
    assert fine["p1"].score > 0.8


def test_contrast_tells_apart_pictures_that_differ_in_one_corner():
    base = _texture(7)
    other = base.copy()
    other[:50, :50] = _texture(8)[:50, :50]
    pics = [Picture("a", "a", base, 4.0), Picture("b", "b", other, 4.0)]
    bank = ArtBank(pics, (40.0, 40.0), turns=(0,), blocks_kept=9)
    board = _board([other], [((80.0, 80.0), 0)])
    grad, col = gradient_image(board, FINE_PPM), chroma_image(board, FINE_PPM)
    found = bank.coarse(coarse_image(_board([other], [((80.0, 80.0), 0)], ppm=COARSE_PPM), COARSE_PPM), (0.0, 0.0),
                        {0: (80.0, 80.0, 6.0)})[0]
    fine = bank.fine(grad, col, (0.0, 0.0), found.values())
    gain = contrast(bank, grad, (0.0, 0.0), list(fine.values()))
    assert gain["b"] > 0.2 > -0.2 > gain["a"]


def test_a_photo_is_flattened_to_its_outline_or_trimmed():
    import cv2

    card = _texture(3, 200)
    photo = np.full((240, 230, 3), (30, 90, 140), np.uint8)        # a plain table around the card
    photo[20:220, 15:215] = card
    corners = piece_outline(photo)
    assert corners is not None and np.abs(corners - [[15, 20], [215, 20], [215, 220], [15, 220]]).max() <= 6
    flat, found = flatten_piece(photo, (50.0, 50.0), 4.0)
    assert found and flat.shape == (200, 200, 3)
    assert cv2.matchTemplate(flat, card[10:190, 10:190], cv2.TM_CCOEFF_NORMED).max() > 0.8
    assert piece_outline(card) is None                               # the piece fills the photo: trimmed


def _scores(best: float, labels: dict[str, float], empty: float = 0.0) -> D.CellScores:
    from assistant.vision.detectors.flat_art import Match

    return D.CellScores({k: Match(k, v, 0, (0.0, 0.0)) for k, v in labels.items()}, {}, {}, best, empty)


def test_the_table_has_exactly_one_storm_cell_and_each_tile_once():
    """Every cell looks most like a dune back, one a little more like the crash site's back and
    one bare: the joint reading keeps 20 dune backs at most and one storm (rules §1.2, §3.1)."""
    cells = [(r, c) for r in range(5) for c in range(5)]
    scores = {cell: _scores(0.8, {"dune_back": 0.8, "water_back": 0.7, "crash_site_back": 0.6}) for cell in cells}
    scores[(2, 2)] = _scores(0.2, {"dune_back": 0.2}, empty=1.0)
    reads = D.table_readings(scores)
    labels = [r.label for r in reads.values()]
    assert labels.count("storm") == 1 and reads[(2, 2)].label == "storm"
    assert labels.count("dune_back") == 20 and labels.count("water_back") == 3 and labels.count("crash_site_back") == 1
    # which four are not dune backs the pictures cannot tell: none of them is sure
    assert all(r.confidence < 0.9 for r in reads.values() if r.label != "storm")


def test_a_tile_the_camera_clipped_is_what_the_prior_says_and_unsure():
    """A dune back washed out by glare looks like the bare storm cell (clipped: its picture fits
    nowhere, its centre looks like the mat), more so than the storm cell itself half in shadow.
    With a prior that places the storm (the set-up's), the clipped cell's evidence is weighed by
    what the camera did not clip and the rules decide, believed only as far as the whole
    evidence left room; without a prior the evidence is taken whole."""
    cells = [(r, c) for r in range(5) for c in range(5)]
    scores = {cell: _scores(0.8, {"dune_back": 0.8, "water_back": 0.5, "crash_site_back": 0.45}) for cell in cells}
    scores[(2, 2)] = _scores(0.3, {"dune_back": 0.3}, empty=0.3)                 # the storm cell
    scores[(4, 4)] = replace(_scores(0.1, {"dune_back": 0.1, "gear": 0.11}, empty=1.0), clipped=0.95)
    prior = {cell: ({"storm": 3.0} if cell == (2, 2) else {"dune_back": 3.0, "water_back": 3.0,
                                                            "crash_site_back": 3.0}) for cell in cells}
    assert D.table_readings(scores, None)[(4, 4)].label == "storm"      # no prior: the evidence whole
    whole, _belief = D._joint(scores, prior, censored=False)
    assert whole[(4, 4)].label == "storm" and whole[(2, 2)].label != "storm"     # even against the prior
    ruled = D.table_readings(scores, prior)
    assert ruled[(2, 2)].label == "storm" and ruled[(4, 4)].label in ("dune_back", "water_back", "crash_site_back")
    assert ruled[(4, 4)].confidence <= 1.0 - whole[(4, 4)].confidence + 1e-12 and ruled[(4, 4)].margin == 0.0
    # never surer than the whole evidence where the two agree (review finding: the tempered cell's
    # evidence weighed less against the prior's label, and a flagged cell went silent)
    for cell, r in ruled.items():
        if r.label == whole[cell].label:
            assert r.confidence <= whole[cell].confidence + 1e-12, cell
    # a clear view: nothing changes
    unwashed = {cell: replace(s, clipped=0.0) for cell, s in scores.items()}
    assert D.table_readings(unwashed, prior) == D._joint(unwashed, prior, censored=False)[0]


def test_a_cell_read_alone_under_the_glare_core_is_unsure_whatever_it_looks_like():
    """A dune back whose centre the sensor saturated looks like the bare mat: read alone, its
    best label (here the storm) is kept but unsure, with no margin; the same evidence with a
    little saturation reads as surely as before."""
    washed = replace(_scores(0.1, {"dune_back": 0.1, "gear": 0.05}, empty=1.0), saturated=D.SATURATED_UNSURE)
    clear = replace(washed, saturated=D.SATURATED_UNSURE / 2)
    alone, seen = D.single_readings({(2, 1): washed})[(2, 1)], D.single_readings({(2, 1): clear})[(2, 1)]
    assert seen.label == alone.label == "storm" and seen.confidence > 0.9
    assert alone.confidence == D.SATURATED_CONFIDENCE and alone.margin == 0.0
    assert seen == D._reading(D.cell_posterior(clear))


def test_a_cell_read_alone_with_the_rules_prior_weighs_only_what_the_rules_allow():
    """The crash site excavated under three pawns fits its face barely better than a gear tile
    (the live loop's read of a development stress game, 0.51 against about 0.49): alone it is
    unsure; with the faces the rules allow there favoured (its back or the crash site's face)
    it reads surely. A label the rules favour that the shortlist left out enters at the
    shortlist's floor plus the prior's nats (the detector's read guards the result against
    the camera's own reading: `test_a_read_of_some_cells_never_makes_the_prior_sure_against_the_camera`)."""
    covered = _scores(0.5, {"crash_site": 0.50, "gear": 0.499, "tunnel": 0.45, "crash_site_back": 0.2})
    alone = D.single_readings({(1, 1): covered})[(1, 1)]
    assert alone.label == "crash_site" and alone.confidence < 0.6
    allowed = {"crash_site_back": 4.0, "crash_site": 4.0, "unknown": 4.0}
    ruled = D.single_readings({(1, 1): covered}, {(1, 1): allowed})[(1, 1)]
    assert ruled.label == "crash_site" and ruled.confidence > 0.95
    # the back left off the shortlist enters at its floor, under the weakest listed label: the
    # face is then only as sure as that floor leaves it (the camera did not weigh the back)
    unlisted = _scores(0.5, {"crash_site": 0.50, "gear": 0.499, "tunnel": 0.45})
    z = D.cell_logits(unlisted)
    floor = D.unlisted_floor(z)
    assert floor == min(z[k] for k in unlisted.matches) - D.UNLISTED_PENALTY * D.WEIGHTS["fine"]
    told = D.single_readings({(1, 1): unlisted}, {(1, 1): allowed})[(1, 1)]
    assert told.label == "crash_site" and told.margin == pytest.approx(z["crash_site"] - floor)
    assert told.confidence < ruled.confidence
    # cells the prior does not name read as without it; a prior lifting every label changes nothing
    other = _scores(0.8, {"dune_back": 0.8, "gear": 0.6})
    both = D.single_readings({(1, 1): covered, (0, 0): other}, {(1, 1): allowed})
    assert both[(0, 0)] == D.single_readings({(0, 0): other})[(0, 0)]
    flat = {k: 2.0 for k in D.cell_logits(covered)}
    assert D.single_readings({(1, 1): covered}, {(1, 1): flat})[(1, 1)].label == alone.label


def test_a_clipped_cell_the_whole_evidence_reads_unknown_is_capped_by_that_reading():
    """``unknown`` reports confidence 0; the cap on a cell the tempered evidence reads otherwise
    uses the whole reading's own probability (review finding: ``1 - 0`` let the prior's label
    through unsure of nothing)."""
    cells = [(r, c) for r in range(5) for c in range(5)]
    scores = {cell: _scores(0.8, {"dune_back": 0.8, "water_back": 0.5, "crash_site_back": 0.45}) for cell in cells}
    scores[(2, 2)] = _scores(0.2, {"dune_back": 0.2}, empty=1.0)                 # the storm cell
    scores[(0, 0)] = replace(_scores(0.05, {"gear": 0.05}, empty=0.0), clipped=0.9)   # nothing fits, washed
    prior = {cell: ({"storm": 3.0} if cell == (2, 2) else {"dune_back": 3.0, "water_back": 3.0,
                                                            "crash_site_back": 3.0}) for cell in cells}
    whole, belief = D._joint(scores, prior, censored=False)
    assert whole[(0, 0)].label == "unknown" and whole[(0, 0)].confidence == 0.0 and belief[(0, 0)] > 0.5
    ruled = D.table_readings(scores, prior)
    assert ruled[(0, 0)].label in ("dune_back", "water_back", "crash_site_back")
    assert ruled[(0, 0)].confidence <= 1.0 - belief[(0, 0)] + 1e-12 and ruled[(0, 0)].confidence < 0.5


def test_a_washed_cells_shortlist_is_tempered_like_its_scores():
    """A label left off a cell's shortlist costs ``UNLISTED_PENALTY`` under the weakest listed
    one; where the camera saw nothing (clipped share 1) that cost is tempered away with the rest
    of the evidence, so the prior decides even for a label the shortlist left out."""
    cells = [(r, c) for r in range(5) for c in range(5)]
    # backs nearly alike everywhere, so that the rules' counts cost little whichever cell gives way
    scores = {cell: _scores(0.8, {"dune_back": 0.8, "water_back": 0.79, "crash_site_back": 0.78}) for cell in cells}
    scores[(2, 2)] = _scores(0.2, {"dune_back": 0.2}, empty=1.0)                 # the storm cell
    scores[(0, 0)] = replace(_scores(0.8, {"dune_back": 0.8, "water_back": 0.8, "crash_site_back": 0.8}), clipped=1.0)
    prior = {(0, 0): {"gear": 1.0}}                                     # e.g. the face the engine expects
    seen, belief = D._joint(scores, prior, censored=False)
    ruled, _ = D._joint(scores, prior, censored=True)
    assert seen[(0, 0)].label != "gear"                                  # the untempered penalty outweighs 1 nat
    assert ruled[(0, 0)].label == "gear"
    final = D.table_readings(scores, prior)[(0, 0)]
    assert final.label == "gear" and final.confidence <= 1.0 - belief[(0, 0)] + 1e-12


def test_no_face_is_surer_than_the_table_read_without_the_pixel_telling():
    """What :meth:`DesertFlat.tell_labels` adds may choose a face (here a gear the fine scores
    alone put just under a tunnel), but the reading is believed at most as far as the table
    without it left room; where both agree, the smaller confidence; nothing told, nothing
    changes."""
    cells = [(r, c) for r in range(5) for c in range(5) if (r, c) not in ((0, 0), (2, 2))]
    backs = ["water_back"] * 3 + ["crash_site_back"] + ["dune_back"] * 19          # rules §1.1, one tile face up
    scores = {cell: _scores(0.8, {back: 0.8, "dune_back" if back != "dune_back" else "water_back": 0.4})
              for cell, back in zip(cells, backs)}
    scores[(2, 2)] = _scores(0.2, {"dune_back": 0.2}, empty=1.0)                 # the storm cell
    scores[(0, 0)] = _scores(0.92, {"gear": 0.9, "tunnel": 0.92})
    assert D.table_readings(scores) == D._joint(scores, None, censored=False)[0]
    pixels = {"gear": 3.0, "tunnel": -3.0}
    scores[(0, 0)] = replace(_scores(0.92, {"gear": 0.9, "tunnel": 0.92}), told=dict(pixels), told_pixels=pixels)
    told, _ = D._joint(scores, None, censored=False)
    untold = {**scores, (0, 0): replace(scores[(0, 0)], told={"gear": 0.0, "tunnel": 0.0}, told_pixels={})}
    plain, belief = D._joint(untold, None, censored=False)
    assert told[(0, 0)].label == "gear" and told[(0, 0)].confidence > 0.8
    assert plain[(0, 0)].label != "gear" and belief[(0, 0)] > 0.5
    reads = D.table_readings(scores)
    assert reads[(0, 0)].label == "gear"                                 # the label stays
    assert reads[(0, 0)].confidence <= 1.0 - belief[(0, 0)] + 1e-12 and reads[(0, 0)].margin == 0.0
    for cell, r in reads.items():
        assert r.label == told[cell].label
        if r.label == plain[cell].label:
            assert r.confidence == pytest.approx(min(told[cell].confidence, plain[cell].confidence)), cell


@settings(max_examples=150, deadline=None)
@given(st.floats(0.5, 0.95), st.floats(0.5, 0.95), st.floats(-4.0, 4.0), st.floats(0.0, 1.0),
       st.lists(st.floats(-3.0, 3.0), min_size=3, max_size=3))
def test_with_a_prior_and_glare_no_face_is_surer_than_either_untold_reading(gear, tunnel, told, clipped, prior_nats):
    """With a prior and a clipped cell :func:`table_readings` reads twice (the whole evidence,
    and the evidence weighed by what the camera did not clip); without the pixel telling it
    must be no surer than either of those readings of the untold table (review finding: only
    the whole-evidence one capped it, and random tables like these broke the bound about one
    time in three)."""
    cells = [(r, c) for r in range(5) for c in range(5) if (r, c) not in ((0, 0), (2, 2))]
    backs = ["water_back"] * 3 + ["crash_site_back"] + ["dune_back"] * 19
    scores = {cell: _scores(0.8, {back: 0.8, "dune_back" if back != "dune_back" else "water_back": 0.5})
              for cell, back in zip(cells, backs)}
    scores[(2, 2)] = _scores(0.2, {"dune_back": 0.2}, empty=1.0)
    pixels = {"gear": told, "tunnel": -told}
    scores[(0, 0)] = replace(_scores(max(gear, tunnel), {"gear": gear, "tunnel": tunnel, "dune_back": 0.6}),
                             told=dict(pixels), told_pixels=pixels, clipped=clipped)
    prior = {(0, 0): dict(zip(("gear", "tunnel", "dune_back"), prior_nats))}
    reads = D.table_readings(scores, prior)
    untold = {**scores, (0, 0): replace(scores[(0, 0)], told={"gear": 0.0, "tunnel": 0.0}, told_pixels={})}
    for censored in (False, True):
        other, belief = D._joint(untold, prior, censored=censored)
        for cell, r in reads.items():
            bound = other[cell].confidence if r.label == other[cell].label else 1.0 - belief[cell]
            assert r.confidence <= bound + 1e-9, (cell, censored)


def test_the_clipped_share_counts_each_saturated_channel_value():
    image = np.full((200, 200, 3), 120, np.uint8)
    image[:100, :, 2] = 255                                          # the top half: red clipped
    centre = (100 / D.FINE_PPM, 100 / D.FINE_PPM)
    assert D.clipped_share(image, (0.0, 0.0), centre) == pytest.approx(0.5 / 3, abs=0.02)
    image[:100] = 255                                                # the top half washed out white
    assert D.clipped_share(image, (0.0, 0.0), centre) == pytest.approx(0.5, abs=0.05)
    assert D.clipped_share(np.full_like(image, 249), (0.0, 0.0), centre) == 0.0
    assert D.clipped_share(image, (0.0, 0.0), (-500.0, -500.0)) == 0.0              # outside the image


def test_a_glare_lifting_the_art_to_the_mats_white_counts_as_washed():
    """Veiling glare need not clip: values within VEIL_SHARE of the mat's own white count, per
    channel; a surround no lighter than the tiles (a dark bare table) is no white reference."""
    image = np.full((200, 200, 3), 120, np.uint8)
    image[:100] = (215, 222, 226)                                    # the top half lifted near the mat's white
    centre = (100 / D.FINE_PPM, 100 / D.FINE_PPM)
    assert D.clipped_share(image, (0.0, 0.0), centre) == 0.0          # nothing clipped
    mat = np.float32([230, 236, 240])
    levels = D.wash_levels(mat, [120.0, 125.0, 230.0])
    assert levels == pytest.approx(D.VEIL_SHARE * mat)
    assert D.clipped_share(image, (0.0, 0.0), centre, levels) == pytest.approx(0.5, abs=0.05)
    assert D.clipped_share(np.full_like(image, 200), (0.0, 0.0), centre, levels) == 0.0   # bright art, not washed
    dark_table = D.wash_levels(np.float32([60, 80, 100]), [120.0, 125.0, 130.0])
    assert list(dark_table) == [D.CLIP_LEVEL] * 3
    assert list(D.wash_levels(mat, [])) == [D.CLIP_LEVEL] * 3
    assert list(D.wash_levels(np.float32([255, 255, 255]), [120.0])) == pytest.approx([D.VEIL_SHARE * 255] * 3)


def test_a_blank_frame_reads_unknown_everywhere():
    """Nothing fits anywhere (a black frame with corners given): no storm, no tile, no confidence."""
    cells = [(r, c) for r in range(5) for c in range(5)]
    reads = D.table_readings({cell: _scores(0.05, {"gear": 0.05}) for cell in cells})
    assert {r.label for r in reads.values()} == {"unknown"} and max(r.confidence for r in reads.values()) == 0.0


def test_the_photometric_fit_ignores_what_lies_on_the_tile():
    rng = np.random.default_rng(0)
    pred = rng.uniform(20, 230, (60, 60, 3)).astype(np.float32)
    crop = pred * np.float32([0.7, 0.9, 1.2]) + np.float32([10, -5, 3]) + rng.normal(0, 2, pred.shape).astype(np.float32)
    crop[15:45, 15:45] = 250.0                                       # a marker over a quarter of the tile
    mask = np.ones((60, 60), bool)
    gain, offset, inliers, noise = F.photometric_fit(crop, pred, mask)
    assert np.allclose(gain, [0.7, 0.9, 1.2], atol=0.03) and np.allclose(offset, [10, -5, 3], atol=3)
    assert not inliers[20:40, 20:40].any() and noise < 6


def test_piece_models_round_trip_and_refuse_a_foreign_file(tmp_path):
    from assistant.vision.detectors import forbidden_desert as fd

    model = fd.shipped_blobs()
    model.save(tmp_path / "b.npz")
    back = P.PieceBlobs.load(tmp_path / "b.npz")
    feats = np.zeros((2, P.BLOB_FEATURES), np.float32)
    assert np.allclose(back.predict(feats), model.predict(feats))
    assert back.part_colours.keys() == model.part_colours.keys()
    np.savez(tmp_path / "x.npz", w1=np.zeros(3))
    with pytest.raises(ValueError):
        P.PieceBlobs.load(tmp_path / "x.npz")


def test_tiles_pushed_20_mm_off_their_cells_read_as_well_as_centred_ones():
    """A rendered own-art table with every tile 20 mm off its cell's centre (some a whole row
    pushed after a storm slide): faces and backs read as on a tidy table."""
    import math
    import random

    from assistant.vision.detectors import forbidden_desert as fd
    from assistant.vision.detectors import synth
    from assistant.vision.mats import mat_layout
    from assistant.vision.render.camera import look_at_mat
    from assistant.vision.render.desert import ProceduralArt
    from assistant.vision.render.renderer import Renderer

    det = fd.teach()
    layout = mat_layout("forbidden-desert")
    rng = random.Random(4)
    wrong = total = 0
    for view in range(2):
        scene = synth.random_scene(rng, ProceduralArt(), layout, part_rate=0.0)
        for piece in [p for p in scene.flats if p.kind == "tile"]:
            a = rng.uniform(0, 2 * math.pi) if view == 0 else 0.0       # view 1: every row pushed east
            scene = scene.move(piece.piece_id, (piece.center_mm[0] + 20 * math.cos(a), piece.center_mm[1] + 20 * math.sin(a)))
            for sand in [p for p in scene.flats if p.kind == "sand" and abs(p.center_mm[0] - piece.center_mm[0]) < 10
                         and abs(p.center_mm[1] - piece.center_mm[1]) < 10]:
                scene = scene.move(sand.piece_id, (sand.center_mm[0] + 20 * math.cos(a), sand.center_mm[1] + 20 * math.sin(a)))
        cam = look_at_mat(layout.outline_mm(), (1280, 720), 55.0, 15.0, 30.0 * view, 0.0, dist=synth.NO_DIST)
        frame = Renderer(cam).render(scene, seed=view).image
        truth = fd.truth_of(scene)
        faces, _scores = det.read_flat(frame, cam.homography(), None, False)
        for slot, reading in faces.items():
            total += 1
            wrong += reading.label != truth[slot]
    assert total == 50 and wrong == 0, f"{wrong} of {total}"


def _art_and_marker(ppm=F.PPM, side_mm=76.0):
    """A textured tile's art (grey-brown blotches) and the same with a plain 30 mm disc on its
    centre of the art's own mean colour and a thin darker rim: what colour alone barely shows."""
    import cv2

    rng = np.random.default_rng(3)
    n = int(side_mm * ppm)
    art = cv2.GaussianBlur(rng.normal(0, 1, (n, n)).astype(np.float32), (0, 0), 2.0)
    art = np.dstack([90 + 60 * art, 110 + 60 * art, 140 + 60 * art]).clip(0, 255).astype(np.float32)
    seen = art + rng.normal(0, 1.5, art.shape).astype(np.float32)
    marked = seen.copy()
    centre = (n // 2, n // 2)
    cv2.circle(marked, centre, int(15 * ppm), tuple(float(c) for c in art.reshape(-1, 3).mean(axis=0)), -1)
    cv2.circle(marked, centre, int(15 * ppm), tuple(float(c) * 0.8 for c in art.reshape(-1, 3).mean(axis=0)), 2)
    return art, seen, marked, (side_mm / 2, side_mm / 2)


def test_sand_structure_sees_a_marker_of_the_art_s_own_colour():
    """The edge features tell a plain marker from the busy art under it though their mean colours
    are equal: the normalised gradients differ on its face, its face is plainer, its outline radial."""
    art, seen, marked, centre = _art_and_marker()
    tile = np.ones(art.shape[:2], bool)

    def features(crop):
        res = F.Residual(crop, art, tile, np.zeros_like(tile), np.ones(3, np.float32), np.zeros(3, np.float32),
                         (0.0, 0.0), 1.5)
        return P.sand_structure(res, centre)

    bare, covered = features(seen), features(marked)
    assert bare.shape == covered.shape == (P.STRUCTURE_FEATURES,) and bare.dtype == np.float32
    assert np.all(covered[:4] > bare[:4] + 0.2)               # the centre's gradients no longer the art's
    assert covered[5] < bare[5] - 0.5                          # a plain face: fewer edges than the art
    assert covered[8] > 0.6 and abs(bare[8] - 0.5) < 0.2      # the extra edges point to the centre
    full = P.sand_features(F.Residual(marked, art, tile, np.zeros_like(tile), np.ones(3, np.float32),
                                      np.zeros(3, np.float32), (0.0, 0.0), 1.5), centre)
    assert full.shape == (P.SAND_FEATURES,) and np.allclose(full[-P.STRUCTURE_FEATURES:], covered)


def test_the_sand_teaching_command_writes_a_model_that_keeps_the_blob_network(tmp_path):
    """``python -m assistant.vision.detectors.teach_sand`` on one table per seed: a loadable
    model whose sand network reads the new features and whose blob network is the shipped one."""
    from assistant.vision.detectors import forbidden_desert as fd
    from assistant.vision.detectors import teach_sand

    assert teach_sand.main(["--tables", "1", "-o", str(tmp_path / "m.npz")]) == 0
    got, shipped = P.PieceBlobs.load(tmp_path / "m.npz"), fd.shipped_blobs()
    assert got.sand_net.features == P.SAND_FEATURES and got.part_colours == shipped.part_colours
    assert all(np.array_equal(a, b) for a, b in zip(got.net.arrays().values(), shipped.net.arrays().values()))
    probs = got.sand(np.zeros(P.SAND_FEATURES, np.float32))
    assert probs.shape == (3,) and abs(float(probs.sum()) - 1) < 1e-5


def test_a_tile_covered_more_than_half_is_read_in_the_table_s_light():
    """Pawns and a marker over most of a tile break its own fit (the median-based fit explains
    them with a wrong gain and a large noise); in the light of the tiles around it what lies on
    it is found again, and tiles that fitted well keep their own fit."""
    rng = np.random.default_rng(1)
    fits, crops = {}, {}
    for r in range(3):
        for c in range(4):
            gain, offset = np.float32([0.8, 0.9, 1.1]) * (1 + 0.02 * c), np.float32([6, -4, 2])
            pred = rng.uniform(30, 220, (60, 60, 3)).astype(np.float32)
            crop = pred * gain + offset + rng.normal(0, 2, pred.shape).astype(np.float32)
            if (r, c) == (1, 0):
                crop[5:55, 5:45] = np.float32([40, 200, 60])                # a crowd over two thirds of it
            tile = np.ones((60, 60), bool)
            g, o, _inl, noise = F.photometric_fit(crop, pred, tile)
            fits[(r, c)], crops[(r, c)] = F.Fit(pred, tile, g, o, noise), crop
    lights = F.table_light(fits)
    assert set(lights) == set(fits) and all(lights[k].noise < 6 for k in fits)
    assert np.allclose(lights[(1, 0)].gain, np.float32([0.8, 0.9, 1.1]) * 1.03, atol=0.04)   # a lamp's slight fall-off
    covered = fits[(1, 0)]
    assert covered.noise > F.BROKEN_FIT * lights[(1, 0)].noise             # its own fit broke
    res = F.residual_of_fit(crops[(1, 0)], (0.0, 0.0), F.in_table_light(covered, lights[(1, 0)]))
    assert res.occluded[8:52, 8:42].mean() > 0.95 and res.occluded[:, 48:].mean() < 0.05
    assert all(F.in_table_light(f, lights[k]) is f for k, f in fits.items() if k != (1, 0))
    assert F.table_light(dict(list(fits.items())[:F.LIGHT_CELLS - 1])) == {}      # too few tiles to say


def test_touching_pieces_of_different_colours_are_cut_apart():
    """A blob of the residual that is two pieces side by side (a red and a blue pawn, a white
    pawn on a cream marker) is cut where the colour changes; a piece of one colour, shaded
    across, stays whole."""
    import cv2

    def residual(colours):
        crop = np.full((90, 90, 3), 120, np.float32)
        mask = np.zeros((90, 90), np.uint8)
        for (x, colour) in colours:
            cv2.circle(crop, (x, 45), 16, colour, -1)
            cv2.circle(mask, (x, 45), 16, 1, -1)
        crop = cv2.GaussianBlur(crop, (0, 0), 1.2)
        tile = np.ones((90, 90), bool)
        ones = np.ones(3, np.float32)
        return F.Residual(crop, crop, tile, mask.astype(bool), ones, np.zeros(3, np.float32), (0.0, 0.0), 2.0), mask.astype(bool)

    def two_pieces(regions, blob):
        """The two largest regions each hold most of one disc; the rest are slivers of the
        blurred seam between them (a colour neither piece has)."""
        left = np.zeros_like(blob)
        left[:, :44] = True
        big = sorted(regions, key=lambda r: -r.sum())
        return (len(big) >= 2 and {bool((b & left).sum() > 0.9 * b.sum()) for b in big[:2]} == {True, False}
                and all(b.sum() > 0.3 * blob.sum() for b in big[:2]) and sum(b.sum() for b in big[2:]) < 0.2 * blob.sum())

    res, blob = residual([(30, (40, 40, 200)), (58, (200, 60, 40))])       # BGR: red beside blue
    assert two_pieces(P.colour_regions(res, blob), blob)
    res, blob = residual([(30, (150, 220, 235)), (58, (245, 245, 245))])   # cream beside white
    assert two_pieces(P.colour_regions(res, blob), blob)
    res, blob = residual([(30, (40, 150, 40)), (58, (40, 150, 40))])       # one green piece
    res.crop[..., 1] += np.linspace(-12, 12, 90, dtype=np.float32)[None, :]   # shaded across
    assert len(P.colour_regions(res, blob)) == 1


def test_five_pawns_and_a_marker_on_the_crash_site_are_each_read():
    """An opening table (own renderer, development seed 24502): five pawns and a sand marker
    cover most of the crash site. The tile's own fit breaks under them, so the reader used to
    see nothing there ('' at 0.85); read in the light of the other tiles, with the blob cut
    where its colour changes, every pawn is found as the set-up reads it (``crowd``: the
    likeliest class decides), and the cell is not called sure. A whole-table read with the
    pawn leasts (``PAWN_LEAST``, ``PAWN_LEAST_MM2``) leaves the pawn whose blob is a minority
    class or a speck an unsure alternative: the crowd whole is among the alternatives."""
    from assistant.bench.desert_setup import own_openings
    from assistant.vision.detectors import forbidden_desert as fd

    det = fd.teach()
    frame, homography, camera_matrix, truth = next(own_openings(24502, 1, "normal"))
    crowded = [s for s, v in truth.items() if s[0] == "pawns" and v]
    assert crowded == [("pawns", 4, 3)] and truth[crowded[0]] == "black+blue+green+red+yellow"
    matches, own_blobs = [], det._blobs
    det._blobs = lambda res, foot, height, m: matches.append(m) or own_blobs(res, foot, height, m)
    readings = det.read(frame, homography, camera_matrix)
    # each tile's blobs found once: the crowded tile's own broken fit is not looked into when
    # the table's light is used (issue 21: it cost a second blob search there)
    assert len(matches) == len({id(m) for m in matches}) and len(matches) >= 20
    got = readings[crowded[0]]
    assert got.confidence < 0.5 and truth[crowded[0]] in (got.label, *got.alternatives)
    faces, scores = det.read_flat(frame, homography, None, True)
    readings = {**faces, **det.read_pieces(frame, homography, camera_matrix, scores, faces, crowd=True)}
    assert readings[crowded[0]].label == truth[crowded[0]]
    assert readings[crowded[0]].confidence < 0.5                   # so many blobs: the referee confirms
    assert all(r.label == "" for s, r in readings.items() if s[0] == "pawns" and s not in crowded)
