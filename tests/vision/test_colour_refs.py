"""Colour from the mat: the printed references undo a camera's colour pipeline (issue 18)."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.vision.colour_refs import colour_frame, nominal, read_strips, readable_strips, srgb_to_linear
from assistant.vision.mats import mat_layout
from assistant.vision.printing import draw_mat

from .test_registration import TEX_PPM, camera_homography, render


def _webcam(image: np.ndarray, gains, gamma: float, mix: float, lift: float) -> np.ndarray:
    """A crude other pipeline: per-channel gains (white balance), channel crosstalk, a power
    tone curve and a black lift, on the image's own levels."""
    x = image.astype(np.float64) / 255.0
    m = np.eye(3) * (1 - 2 * mix) + mix
    x = np.clip((x @ m.T) * np.asarray(gains), 0, 1) ** gamma
    return np.clip(255 * (lift + (1 - lift) * x), 0, 255).astype(np.uint8)


@pytest.mark.parametrize("game", ["discovery-island", "scout-pennant"])
@pytest.mark.parametrize("gains, gamma, mix, lift", [((0.7, 0.95, 1.0), 0.8, 0.08, 0.05),
                                                     ((1.0, 0.9, 0.72), 1.25, 0.12, 0.0)])
def test_references_undo_a_colour_pipeline(game, gains, gamma, mix, lift):
    layout = mat_layout(game)
    h = camera_homography(layout, 20, 30, distance_mm=1100.0)
    image = _webcam(render(layout, h, draw_mat(layout, TEX_PPM)), gains, gamma, mix, lift)
    cf = colour_frame(image, h, layout)
    assert cf.from_mat, cf.source
    inks = {r.name: srgb_to_linear(np.array(r.bgr, np.float64)) for r in layout.references}
    err = np.array([np.max(np.abs(cf.patches[n] - inks[n])) for n in cf.patches])
    plain = nominal()
    strip = read_strips(image, h, layout)[0]
    before = np.array([np.max(np.abs(plain.reflectance(*strip[n]) - inks[n])) for n in cf.patches])
    # five neutrals make a piecewise-linear tone curve: about 0.04 of reflectance is left, and
    # at least half of what the nominal sRGB reading is off by is taken out
    assert np.median(err) < 0.05 and np.max(err) < 0.15
    assert np.median(err) < 0.5 * np.median(before)


def test_no_references_fall_back_and_say_so():
    layout = mat_layout("forbidden-desert")
    h = camera_homography(layout, 10, 0)
    cf = colour_frame(render(layout, h), h, layout)
    assert not cf.from_mat and cf.source == "no colour references"
    assert np.allclose(cf.reflectance(np.array([128.0, 128, 128]), np.array([255.0, 255, 255])),
                       srgb_to_linear(np.array([128.0, 128, 128])), atol=1e-3)


def test_covered_references_are_not_trusted():
    """An arm over the strips (a flat brown block over both) gives the nominal correction, not a wrong one."""
    import cv2

    layout = mat_layout("scout-pennant")
    h = camera_homography(layout, 15, 0)
    image = render(layout, h)
    for ref in layout.references:
        x0, y0, x1, y1 = ref.rect_mm
        pts = cv2.perspectiveTransform(np.array([[[x0 - 3, y0 - 3]], [[x1 + 3, y0 - 3]], [[x1 + 3, y1 + 3]], [[x0 - 3, y1 + 3]]],
                                                np.float64), h).reshape(-1, 2)
        cv2.fillConvexPoly(image, np.round(pts).astype(np.int32), (60, 90, 140))
    assert not colour_frame(image, h, layout).from_mat


def test_corrected_levels_show_the_print_whatever_the_pipeline():
    """The mat's paper and its printed inks, re-encoded by :meth:`ColourFrame.corrected`, come
    back near their printed sRGB levels after a tinted, crosstalking, gamma-shifted pipeline."""
    layout = mat_layout("discovery-island")
    h = camera_homography(layout, 20, 30, distance_mm=1100.0)
    image = _webcam(render(layout, h, draw_mat(layout, TEX_PPM)), (0.7, 0.95, 1.0), 0.8, 0.08, 0.05)
    cf = colour_frame(image, h, layout)
    assert cf.from_mat, cf.source
    strip = read_strips(image, h, layout)[0]
    names = sorted(strip)
    seen = np.array([strip[n][0] for n in names])                                  # (K, 3) camera levels
    want = np.array([next(r.bgr for r in layout.references if r.name == n) for n in names], np.float64)
    got = cf.corrected(np.round(seen).astype(np.uint8)).astype(np.float64)
    assert got.shape == want.shape
    # camera levels are off by 26 levels (median over patches and channels), corrected ones by 5
    assert np.median(np.abs(seen - want)) > 3 * np.median(np.abs(got - want))
    assert np.median(np.abs(got - want)) < 8
    assert nominal().corrected(np.uint8([[1, 2, 3]])).tolist() == [[1, 2, 3]]     # no references: unchanged


def test_a_glared_strip_is_read_but_not_trusted():
    """``readable_strips``: glare washing one strip out (near-white over all its patches) leaves it
    among the strips read but out of those ``colour_frame`` trusts; the other strip stays."""
    import cv2

    layout = mat_layout("discovery-island")
    h = camera_homography(layout, 20, 30, distance_mm=1100.0)
    image = render(layout, h, draw_mat(layout, TEX_PPM))
    assert len(readable_strips(image, h, layout)) == len(read_strips(image, h, layout)) == 2
    y0 = max(r.rect_mm[1] for r in layout.references)
    refs = [r.rect_mm for r in layout.references if r.rect_mm[1] == y0]
    x0, x1, y1 = min(r[0] for r in refs) - 1, max(r[2] for r in refs) + 1, max(r[3] for r in refs) + 1
    pts = cv2.perspectiveTransform(np.float64([[[x0, y0 - 1]], [[x1, y0 - 1]], [[x1, y1]], [[x0, y1]]]), h)
    cv2.fillConvexPoly(image, np.round(pts.reshape(-1, 2)).astype(np.int32), (252, 252, 252))
    kept = readable_strips(image, h, layout)
    assert len(read_strips(image, h, layout)) == 2 and len(kept) == 1
    top = read_strips(image, h, layout)[0]                               # the strip nearer y = 0, not glared
    assert all(np.array_equal(kept[0][0][n][0], top[n][0]) for n in top)
