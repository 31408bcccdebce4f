"""Forbidden Desert's parts found by matching the owner's cut-outs (assistant/vision/detectors/desert_parts.py).

The synthetic cut-outs here are drawn by the test (no publisher's art); the last test reads a
second-renderer still of the real part photos and skips without ../shared."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from assistant.vision.detectors import desert_parts as dparts
from assistant.vision.detectors.correlation import masked_ncc, pattern
from assistant.vision.detectors.desert_fit import PPM
from assistant.vision.detectors.flat_art import Picture

PHOTOS = Path(__file__).resolve().parents[2].parent / "shared" / "components" / "forbidden-desert"
needs_photos = pytest.mark.skipif(not PHOTOS.is_dir(), reason=f"the component photos are not beside the checkout "
                                                               f"({PHOTOS})")


@pytest.mark.parametrize("seed", range(6))
def test_masked_ncc_is_opencv_s_masked_ccoeff_normed(seed):
    rng = np.random.default_rng(seed)
    h, w = rng.integers(5, 25, size=2)
    image = (rng.random((40, 45, 3)) * 255).astype(np.float32)
    image[5:20, 10:30] = image[5:20, 10:30] * 0.2 + 90            # a low-contrast patch too
    tmpl = (rng.random((h, w, 3)) * 255).astype(np.float32)
    mask = rng.random((h, w)) > 0.4
    mask[0, 0] = True
    want = cv2.matchTemplate(image, tmpl, cv2.TM_CCOEFF_NORMED, mask=np.repeat(mask[..., None], 3, 2).astype(np.float32))
    got = masked_ncc(image, pattern(tmpl, mask))
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, atol=2e-4)


def test_a_flat_window_scores_minus_one_and_an_empty_cut_out_is_refused():
    image = np.full((30, 30, 3), 120.0, np.float32)
    image[:, 20:] = np.random.default_rng(0).random((30, 10, 3)) * 255
    pat = pattern(np.random.default_rng(1).random((8, 8, 3)) * 255, np.ones((8, 8), bool))
    got = masked_ncc(image, pat)
    assert np.all(got[:, :5] == -1.0) and np.all(got[:, -3:] > -1.0)
    with pytest.raises(ValueError, match="cut-out"):
        pattern(np.zeros((8, 8, 3)), np.zeros((8, 8), bool))


def _cut_out(kind: str, size: int = 200) -> np.ndarray:
    """A BGRA cut-out drawn here: ``disc`` an asymmetric striped disc with a notch, ``cross`` three
    thin blades."""
    img = np.zeros((size, size, 4), np.uint8)
    c = size // 2
    if kind == "disc":
        cv2.circle(img, (c, c), int(size * 0.45), (40, 30, 140, 255), -1)
        for k in range(0, size, 64):
            cv2.line(img, (k, 0), (k + 40, size), (90, 180, 230, 255), 22)
        alpha = np.zeros((size, size), np.uint8)
        cv2.circle(alpha, (c, c), int(size * 0.45), 255, -1)
        cv2.rectangle(alpha, (c, c - 12), (size, c + 12), 0, -1)                  # the notch
        cv2.circle(img, (c - 40, c - 30), 18, (230, 230, 240, 255), -1)
        img[..., 3] = alpha
    else:
        for ang in (0, 120, 240):
            end = (int(c + 0.48 * size * np.cos(np.radians(ang))), int(c + 0.48 * size * np.sin(np.radians(ang))))
            cv2.line(img, (c, c), end, (20, 200, 230, 255), 9)
    return img


def test_templates_leave_out_pictures_that_cannot_be_matched():
    disc, cross = _cut_out("disc"), _cut_out("cross")
    assert dparts.solidity(disc[..., 3] > 127) > 0.9 > dparts.LEAST_SOLIDITY > dparts.solidity(cross[..., 3] > 127)
    pictures = [Picture("engine", "parts/engine", disc, 4.0),
                Picture("propeller", "parts/propeller", cross, 4.0),                # too thin
                Picture("solar_crystal", "own-art/solar_crystal", disc[..., :3].copy(), 4.0)]   # no alpha
    bank = dparts.templates(pictures, widths_mm=(24.0, 34.0), turns_deg=(0.0, 90.0, 180.0))
    assert {t.part for t in bank} == {"engine"} and len(bank) == 6
    t = bank[0]
    assert t.fine.mask.shape[1] == pytest.approx(0.9 * 24 * PPM, abs=2)        # the disc spans 0.9 of its picture
    assert abs(float(t.fine.channels[:, t.fine.mask > 0].sum())) < 1.0          # zero-mean on the cut-out


def test_a_small_part_in_a_large_picture_is_left_out_at_widths_it_vanishes():
    big = np.zeros((400, 400, 4), np.uint8)
    big[190:210, 190:210] = (40, 60, 200, 255)                   # 5 % of the picture's width
    bank = dparts.templates([Picture("engine", "parts/engine", big, 4.0)], widths_mm=(24.0, 300.0),
                            turns_deg=(0.0,))
    assert [t.width_mm for t in bank] == [300.0]


def _tile_crop(seed: int, side: int = 114) -> np.ndarray:
    """A busy, tile-like cell crop: smoothed coloured noise, BGR float32."""
    rng = np.random.default_rng(seed)
    noise = cv2.resize((rng.random((side // 6, side // 6, 3)) * 255).astype(np.float32), (side, side),
                       interpolation=cv2.INTER_CUBIC)
    return np.clip(noise * 0.6 + 60, 0, 255).astype(np.float32)


def _paste(crop: np.ndarray, cut_out: np.ndarray, width_mm: float, turn: float, centre) -> np.ndarray:
    """``crop`` with the cut-out laid at ``centre`` (px), ``width_mm`` wide, turned ``turn`` degrees."""
    bgr, mask = dparts._turned(cut_out, int(round(width_mm * PPM)), turn)
    out = crop.copy()
    h, w = mask.shape
    y0, x0 = int(centre[1] - h / 2), int(centre[0] - w / 2)
    region = out[y0:y0 + h, x0:x0 + w]
    region[mask] = bgr[mask] * 0.8 + 20                                   # another light than the photo's
    return out


def _table(paste_at=(1, 3)) -> dict:
    """24 tile-like cell crops (no storm cell), the disc cut-out laid on ``paste_at`` 31 mm wide,
    turned 50 degrees (between the widths and turns matched)."""
    crops = {(r, c): _tile_crop(10 * r + c) for r in range(5) for c in range(5) if (r, c) != (2, 2)}
    crops[paste_at] = _paste(crops[paste_at], _cut_out("disc"), 31.0, 50.0, (60, 52))
    return crops


def test_a_laid_part_is_found_where_it_lies_and_stands_out_of_the_table():
    bank = dparts.templates([Picture("navigation_deck", "parts/disc", _cut_out("disc"), 4.0)])
    scores = {key: dparts.part_scores(crop, bank) for key, crop in _table().items()}
    score, (x, y), width = scores[(1, 3)]["navigation_deck"]
    assert score > 0.5 and abs(x - 60) <= 3 and abs(y - 52) <= 3 and width in (29.0, 34.0)
    z = dparts.table_z(scores)
    assert z[(1, 3)]["navigation_deck"] >= dparts.Z_PRESENT
    assert max(v["navigation_deck"] for key, v in z.items() if key != (1, 3)) < dparts.Z_DOUBT
    assert dparts.table_z({key: scores[key] for key in list(scores)[:dparts.LEAST_CELLS - 1]}) == {}
    some = {key: ({} if k >= dparts.LEAST_CELLS - 1 else got) for k, (key, got) in enumerate(scores.items())}
    assert dparts.table_z(some) == {key: {} for key in some}       # scored on too few cells


def test_parts_matched_over_one_another_keep_the_higher():
    scores = {"navigation_deck": (0.9, (60.0, 52.0), 29.0), "engine": (0.6, (81.0, 57.0), 29.0),
              "solar_crystal": (0.5, (10.0, 100.0), 24.0)}
    got = dparts.apart({"navigation_deck": 22.0, "engine": 10.5, "solar_crystal": 6.0}, scores)
    assert got == {"navigation_deck": 22.0, "solar_crystal": 6.0}
    far = {**scores, "engine": (0.6, (60.0 + 30 * PPM, 52.0), 29.0)}             # 30 mm apart: side by side
    assert dparts.apart({"navigation_deck": 22.0, "engine": 10.5}, far) == {"navigation_deck": 22.0, "engine": 10.5}


def test_z_confidence_is_half_at_doubt_and_sure_from_z_sure():
    assert dparts.z_confidence(dparts.Z_DOUBT) == pytest.approx(0.5)
    assert dparts.z_confidence(dparts.Z_SURE) == pytest.approx(0.9)
    assert 0.5 < dparts.z_confidence(dparts.Z_PRESENT) < 0.9
    assert dparts.z_confidence(0.0) < 0.1


@needs_photos
def test_matching_joins_the_blob_readings_without_making_them_surer():
    """The detector's joining of matches to the blob readings (FDDetector._matched_parts), with
    the owner's navigation deck photo laid on one synthetic cell: a part matching alone sees is
    read, never surer than the blob reader's "no part" cap; a blob reading's part is kept; the
    other cells' labels stay."""
    from assistant.bench.detect_desert_unseen import photo_detector
    from assistant.tracking.base import Reading
    from assistant.vision.detectors.desert_pieces import NOTHING_SEEN

    det = photo_detector()
    deck = next(p for p in det.flat.part_pictures if p.label == "navigation_deck")
    crops = {(r, c): _tile_crop(10 * r + c) for r in range(5) for c in range(5) if (r, c) != (2, 2)}
    crops[(1, 3)] = _paste(crops[(1, 3)], deck.image, 29.0, 40.0, (60, 52))
    nothing = {("parts", *key): Reading("", NOTHING_SEEN, 1.7) for key in crops}
    got, places = det._matched_parts(crops, nothing)
    assert list(places) == [(1, 3)] and abs(places[(1, 3)][0][0] - 60) <= 3 and abs(places[(1, 3)][0][1] - 52) <= 3
    assert got[("parts", 1, 3)].label == "navigation_deck"
    assert got[("parts", 1, 3)].confidence <= NOTHING_SEEN and "" in got[("parts", 1, 3)].alternatives
    for slot, r in got.items():
        assert slot[0] == "parts" and (slot == ("parts", 1, 3) or r.label == "")
        assert r.confidence <= nothing[slot].confidence or slot == ("parts", 1, 3)
    engine = {**nothing, ("parts", 1, 3): Reading("engine", 0.6, 0.4)}
    both = det._matched_parts(crops, engine)[0][("parts", 1, 3)]
    assert both.label == "engine+navigation_deck" and both.confidence <= 0.6
    assert det._matched_parts(dict(list(crops.items())[:5]), nothing) == ({}, {})


@needs_photos
def test_a_pawn_blob_on_a_matched_part_is_read_again_without_it():
    """FDDetector._pawns_off_parts: a blob lying on a part matching added (a disc at its place)
    no longer counts as a pawn; one beside it still does; the reading is no surer than the
    cell's parts reading and keeps the old one as an alternative."""
    from assistant.bench.detect_desert_unseen import photo_detector
    from assistant.tracking.base import Reading
    from assistant.vision.detectors import desert_pieces as dp
    from assistant.vision.detectors.forbidden_desert import Covering

    det = photo_detector()
    yy, xx = np.mgrid[0:114, 0:114]
    on_part, beside = np.hypot(xx - 60, yy - 52) <= 12, np.hypot(xx - 15, yy - 15) <= 8
    found = [dp.Blob(on_part, np.zeros(dp.BLOB_FEATURES, np.float32), np.zeros(3, np.float32)),
             dp.Blob(beside, np.zeros(dp.BLOB_FEATURES, np.float32), np.zeros(3, np.float32))]
    probs = np.full((2, len(dp.CLASSES)), 0.01)
    probs[0, dp.CLASSES.index("pawn_red")] = probs[1, dp.CLASSES.index("pawn_blue")] = 0.9
    readings = {("pawns", 1, 3): Reading("blue+red", 0.9, 2.2), ("parts", 1, 3): Reading("navigation_deck", 0.8, 1.4)}
    got = det._pawns_off_parts({(1, 3): Covering(found, probs, None, None)}, {(1, 3): [(60.0, 52.0, 29.0)]}, readings)
    pawns = got[("pawns", 1, 3)]
    assert pawns.label == "blue" and pawns.confidence <= 0.8 and "blue+red" in pawns.alternatives
    far = det._pawns_off_parts({(1, 3): Covering(found, probs, None, None)}, {(1, 3): [(100.0, 100.0, 24.0)]}, readings)
    assert far == {}


@needs_photos
def test_the_detector_reads_a_part_the_blobs_miss():
    """Development still 5302 (second renderer, normal light): the navigation deck on cell (2, 0)
    is read only when the owner's cut-outs are matched. Matching only adds parts to the blob
    readings, or makes a reading less sure and names what else may lie there; every other slot
    reads the same. (How often it reads a part that is not there is the benchmark's to count,
    not one still's.)"""
    from assistant.bench.detect_desert_unseen import PHOTOS as BENCH_PHOTOS, photo_detector
    from assistant.bench.second_renderer import still
    from assistant.vision.mats import mat_layout
    from assistant.vision.registration import detect_markers, make_detector, register

    pic = still(5302, BENCH_PHOTOS, stress=False, mat=True)
    fit = register(detect_markers(pic.image, make_detector()), mat_layout("forbidden-desert"))
    assert fit, "the board of development still 5302 is found"
    det = photo_detector()
    plain = det.read(pic.image, fit.homography, pic.camera_matrix)
    matched = det.read(pic.image, fit.homography, pic.camera_matrix, match_parts=True)
    assert pic.truth[("parts", 2, 0)] == "navigation_deck"
    assert "navigation_deck" not in plain[("parts", 2, 0)].label
    assert "navigation_deck" in matched[("parts", 2, 0)].label
    for slot, r in matched.items():
        if slot[0] != "parts":
            assert r == plain[slot]
        elif r != plain[slot]:
            before, after = set(filter(None, plain[slot].label.split("+"))), set(filter(None, r.label.split("+")))
            assert before < after or (before == after and r.confidence <= plain[slot].confidence
                                      and set(r.alternatives) > set(plain[slot].alternatives)), slot
