"""The tile locator that works from a tile's outline alone (assistant/vision/detectors/tile_outline.py)."""

import numpy as np
import pytest

from assistant.vision.detectors.tile_outline import bare_likeness, locate_tiles, outline_size

MAT = np.array([225.0, 230.0, 235.0])


def _table(centres, side, drawing=None, size=(300, 300)):
    """A bare mat at 1 px/mm with dark square tiles of ``side`` mm; ``drawing(img, x0, y0)``
    adds art on each tile."""
    img = np.empty((*size, 3), np.uint8)
    img[:] = MAT.astype(np.uint8)
    for cx, cy in centres:
        x0, y0 = int(round(cx - side / 2)), int(round(cy - side / 2))
        img[y0:y0 + side, x0:x0 + side] = (60, 120, 170)
        if drawing:
            drawing(img, x0, y0)
    return img


def _stripes(img, x0, y0):
    # strong straight edges inside the tile, as a drawing's horizon or a panel give
    img[y0 + 20:y0 + 24, x0 + 2:x0 + 58] = 250
    img[y0 + 8:y0 + 52, x0 + 40:x0 + 43] = 10


@pytest.mark.parametrize("offset", [(0, 0), (15, -12), (-20, 0), (9, 19)])
def test_finds_a_tile_off_its_cell_whatever_is_drawn_on_it(offset):
    cell = (150.0, 150.0)
    truth = (cell[0] + offset[0], cell[1] + offset[1])
    img = _table([truth], 60, _stripes)
    got = locate_tiles(img, MAT, (0.0, 0.0), 1.0, {"c": cell}, 60.0, 22.0)
    (x, y), score, peak = got["c"]
    assert abs(x - truth[0]) <= 1.0 and abs(y - truth[1]) <= 1.0
    assert score > 1.8                       # a tile alone on the mat: close to the top score 2
    assert peak > 0.35                       # and it stands out of its window (desert_flat.OUTLINE_PEAK)


def test_a_sand_marker_on_the_tile_does_not_move_it():
    cell = (150.0, 150.0)

    def marker(img, x0, y0):                 # a light 36 mm marker a little off the tile's middle
        img[y0 + 16:y0 + 52, x0 + 10:x0 + 46] = (170, 215, 235)

    img = _table([(158.0, 143.0)], 62, marker)
    (x, y), _, _ = locate_tiles(img, MAT, (0.0, 0.0), 1.0, {"c": cell}, 62.0, 22.0)["c"]
    assert abs(x - 158.0) <= 1.0 and abs(y - 143.0) <= 1.0


def test_an_empty_cell_scores_low():
    img = _table([], 60)
    _, score, peak = locate_tiles(img, MAT, (0.0, 0.0), 1.0, {"c": (150.0, 150.0)}, 60.0, 22.0)["c"]
    assert score < 0.5 and peak < 0.1


def test_outline_size_measures_the_tiles_side():
    centres = [(80.0 + 70 * i, 80.0 + 70 * j) for i in range(3) for j in range(3)]
    img = _table(centres, 65, _stripes, size=(320, 320))
    cells = {k: c for k, c in enumerate(centres)}
    assert outline_size(img, MAT, (0.0, 0.0), 1.0, cells, 10.0) in (64.0, 65.0, 66.0)


def test_bare_likeness_is_one_on_the_bare_colour_and_small_elsewhere():
    img = _table([(150.0, 150.0)], 60)
    like = bare_likeness(img, MAT)
    assert like.shape == img.shape[:2] and like.dtype == np.float32
    assert like[5, 5] == pytest.approx(1.0) and like[150, 150] < 0.01


def test_a_window_outside_the_image_gives_no_place():
    img = _table([], 60, size=(100, 100))
    assert locate_tiles(img, MAT, (0.0, 0.0), 1.0, {"far": (900.0, 900.0)}, 60.0, 22.0) == {}
