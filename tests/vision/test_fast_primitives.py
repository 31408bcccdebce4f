"""The fast forms of the table read's primitives give what their plain forms give
(assistant.vision.detectors: correlation's block correlation, desert_fit's median and
photometric fit, tile_outline's best place per window): random inputs, answers computed the
slow and obvious way."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.vision.detectors import correlation as C
from assistant.vision.detectors import desert_fit as F
from assistant.vision.detectors import tile_outline as T


def _plain_block_ncc(a: np.ndarray, b: np.ndarray, ys, xs) -> np.ndarray:
    """Each block's normalised cross-correlation over its pixels and channels, one at a time."""
    out = np.zeros((len(ys) - 1, len(xs) - 1))
    for i in range(len(ys) - 1):
        for j in range(len(xs) - 1):
            x = a[ys[i]:ys[i + 1], xs[j]:xs[j + 1]].astype(np.float64).ravel()
            y = b[ys[i]:ys[i + 1], xs[j]:xs[j + 1]].astype(np.float64).ravel()
            x, y = x - x.mean(), y - y.mean()
            den = np.sqrt((x * x).sum() * (y * y).sum())
            out[i, j] = (x * y).sum() / den if den > 1e-9 else 0.0
    return out


@pytest.mark.parametrize("shape", [(54, 54, 2), (31, 40), (20, 23, 3)])
def test_block_correlation_is_each_block_s_own(shape):
    rng = np.random.default_rng(len(shape) * 7 + shape[0])
    a, b = rng.normal(size=shape).astype(np.float32), rng.normal(size=shape).astype(np.float32)
    b[:6, :6] = 1.0                                   # a flat block: 0
    ys, xs = np.linspace(0, shape[0], 5).astype(int), np.linspace(0, shape[1], 5).astype(int)
    assert np.allclose(C.block_ncc(a, b, ys, xs), _plain_block_ncc(a, b, ys, xs), atol=1e-12)


def test_pairs_prepared_together_are_each_pair_s_correlation():
    """A view into a larger board (rows with a stride) and two templates prepared in one stack."""
    rng = np.random.default_rng(3)
    board = rng.normal(size=(80, 80, 2)).astype(np.float32)
    grad, colour = board[3:57, 5:59], board[10:64, 20:74]
    tg, tc = (rng.normal(size=(54, 54, 2)).astype(np.float32) for _ in range(2))
    cut = C.block_cut(54, 54, 4)
    got = C.prepared_block_nccs([grad, colour], C.block_template([tg, tc], cut), cut)
    assert got.shape == (2, 4, 4)
    assert np.allclose(got[0], _plain_block_ncc(grad, tg, cut.ys, cut.xs), atol=1e-12)
    assert np.allclose(got[1], _plain_block_ncc(colour, tc, cut.ys, cut.xs), atol=1e-12)


@pytest.mark.parametrize("n", [1, 2, 5, 6400, 6401])
def test_the_median_is_numpy_s_to_the_bit(n):
    rng = np.random.default_rng(n)
    for dtype in (np.float32, np.float64):
        rows = (rng.normal(size=(3, n)) * 10).astype(dtype)
        rows[:, ::3] = np.round(rows[:, ::3])           # ties
        got = F._median(rows)
        assert got.dtype == dtype and np.array_equal(got, np.median(rows, axis=1).astype(dtype))
        assert F._median(rows[1]) == np.median(rows[1]).astype(dtype)


def _plain_fit(y: np.ndarray, x: np.ndarray, rounds: int):
    """The photometric fit with every round run and each channel's line by least squares."""
    gain, offset = np.ones(3, np.float32), np.median(y - x, axis=1).astype(np.float32)
    use, noise = np.ones(y.shape[1], bool), 255.0
    for _ in range(rounds):
        res = np.abs(y - (x * gain[:, None] + offset[:, None])).max(axis=0)
        noise = 1.4826 * float(np.median(res[use])) + 1.0
        use = res < 2.5 * noise
        if use.sum() < 50:
            break
        for c in range(3):
            g, o = np.polyfit(x[c, use].astype(np.float64), y[c, use].astype(np.float64), 1)
            gain[c], offset[c] = max(g, 0.05), o
    return gain, offset, use, noise


def test_the_photometric_fit_stopping_at_a_fixed_point_is_the_fit_of_every_round():
    rng = np.random.default_rng(5)
    for trial in range(20):
        n = int(rng.integers(300, 5000))
        x = rng.uniform(0, 255, (3, n)).astype(np.float32)
        y = (x * rng.uniform(0.5, 1.5, (3, 1)) + rng.uniform(-20, 20, (3, 1))
             + rng.normal(0, 3, (3, n))).astype(np.float32)
        y[:, :n // 3] = rng.uniform(0, 255)                  # a third of the tile covered
        for rounds in (2, 4, 8):
            gain, offset, use, noise = F.fit_rows(y, x, rounds)
            want = _plain_fit(y, x, rounds)
            assert np.allclose(gain, want[0], rtol=1e-4) and np.allclose(offset, want[1], atol=1e-2)
            assert np.array_equal(use, want[2]) and noise == pytest.approx(want[3], rel=1e-6)


def test_each_window_s_top_is_its_best_place_s_score():
    """Windows inside the map, one clipped at its edge, one outside it, one of -inf only."""
    rng = np.random.default_rng(9)
    scores = rng.normal(size=(200, 220)).astype(np.float32)
    scores[:, 150:] = -np.inf
    centres = {"a": (60.0, 70.0), "b": (100.0, 90.0), "edge": (8.0, 20.0), "out": (400.0, 400.0),
               "blank": (190.0, 60.0)}
    for cells in (centres, {k: centres[k] for k in ("a", "b")}):
        tops = T.window_tops(scores, (0.0, 0.0), 1.0, cells, 6.0, 20)
        assert tops == [T._window_best(scores, (0.0, 0.0), 1.0, c, 6.0, 20)[1] for c in cells.values()]


def _smooth(rng, shape, sigma=2.0) -> np.ndarray:
    import cv2

    return cv2.GaussianBlur(rng.normal(0, 1, shape).astype(np.float32), (0, 0), sigma)


@pytest.mark.parametrize("search", [5, 7, 9])
def test_labels_correlated_together_are_each_label_s_own_correlation(search):
    """fine_batch.window_nccs against cv2.matchTemplate (TM_CCOEFF_NORMED) channel by channel:
    the values to float32 rounding and the best place the same, templates cut from the image
    (a clear peak) and unrelated ones (a flat response)."""
    import cv2

    from assistant.vision.detectors import fine_batch as B

    rng = np.random.default_rng(search)
    h, w = 54, 50
    image = [_smooth(rng, (h + search - 1, w + search - 1)) * (c + 1) + 3 * c for c in range(4)]
    templates = [[p[k % search:k % search + h, 2:2 + w] + 0.2 * _smooth(rng, (h, w)) for p in image] for k in range(4)]
    templates += [[_smooth(rng, (h, w)) for _ in image] for _ in range(3)]
    got = B.window_nccs(image, np.stack([B.unit_template(t) for t in templates]), (h, w))
    assert got.shape == (4, len(templates), search, search)
    for k, tpl in enumerate(templates):
        want = [cv2.matchTemplate(p, t, cv2.TM_CCOEFF_NORMED) for p, t in zip(image, tpl)]
        assert np.allclose(got[:, k], want, atol=5e-5)
        if k < 4:
            assert np.unravel_index(got[:, k].mean(axis=0).argmax(), (search, search)) == \
                np.unravel_index(np.mean(want, axis=0).argmax(), (search, search))
    with pytest.raises(ValueError):
        B.unit_template([np.ones((h, w), np.float32)])


def test_a_cell_s_labels_batched_match_as_one_by_one():
    """ArtBank.fine with its labels correlated together (fine_batch) finds every label's place
    and score as with one cv2.matchTemplate per label and channel (batching off)."""
    from assistant.vision.detectors import fine_batch as B
    from assistant.vision.detectors.flat_art import FINE_PPM, ArtBank, Match, Picture, chroma_image, gradient_image

    rng = np.random.default_rng(4)
    pics = []
    for i in range(5):
        img = np.clip(128 + 40 * np.stack([_smooth(rng, (160, 160), s) for s in (2.0, 5.0, 9.0)], axis=2), 0, 255)
        pics.append(Picture(f"p{i}", f"p{i}", img.astype(np.uint8), 4.0))
    bank = ArtBank(pics, (40.0, 40.0))
    board = np.full((120, 120, 3), 200, np.uint8)
    import cv2

    board[38:78, 41:81] = cv2.resize(pics[2].image, (40, 40), interpolation=cv2.INTER_AREA)
    grad, colour = gradient_image(board, FINE_PPM), chroma_image(board, FINE_PPM)
    cands = [Match(t.label, 0.0, i, (61.0, 58.0)) for i, t in enumerate(bank.templates)]
    batched = bank.fine(grad, colour, (0.0, 0.0), cands, search_mm=3.0)
    old = B.BATCH_MIN
    try:
        B.BATCH_MIN = 10 ** 6
        single = bank.fine(grad, colour, (0.0, 0.0), cands, search_mm=3.0)
    finally:
        B.BATCH_MIN = old
    assert batched.keys() == single.keys() and len(batched) == 5
    for label in single:
        assert batched[label].centre_mm == single[label].centre_mm and batched[label].score == single[label].score
    assert max(batched.values(), key=lambda m: m.score).label == "p2"


@pytest.mark.parametrize("centre", [(38.0, 38.0), (30.0, 45.0), (5.0, 70.0), (-40.0, 38.0)])
def test_the_placed_picture_smoothed_around_its_tile_is_the_whole_crop_smoothed(centre):
    """``fit_picture`` smooths only the tile and the kernel's reach around it (the rest is 0):
    the same as smoothing the whole crop, for a tile in the middle, off centre, over the crop's
    edge and wholly outside it."""
    import cv2

    rng = np.random.default_rng(int(abs(centre[0]) * 10 + centre[1]))
    picture = rng.integers(0, 256, (90, 90, 3)).astype(np.uint8)
    shape = (114, 114, 3)
    for turn in (0, 1):
        placed, _tile = F.place_picture(picture, 1.5, 62.0, turn, centre, (0.0, 0.0), shape)
        whole = cv2.GaussianBlur(placed, (0, 0), F.SMOOTH_MM * F.PPM)
        local = F._smoothed(placed.copy(), centre, (0.0, 0.0), 62.0, F.PPM)
        assert np.allclose(local, whole, atol=1e-4)


def test_the_fit_on_every_second_row_and_column_is_the_fit_on_every_pixel():
    """``fit_picture`` fits a quarter of the tile's pixels (``FIT_STRIDE``): on a smoothed crop
    (the picture in another light, noise, a marker over a third of it) gain, offset and noise
    come out as the fit of every pixel gives them, to a few per cent."""
    import cv2

    rng = np.random.default_rng(11)
    for trial in range(10):
        picture = cv2.GaussianBlur(rng.uniform(0, 255, (90, 90, 3)).astype(np.float32), (0, 0), 3).astype(np.uint8)
        placed, tile = F.place_picture(picture, 1.5, 62.0, 0, (38.0, 38.0), (0.0, 0.0), (114, 114, 3))
        gain, offset = rng.uniform(0.6, 1.4, 3).astype(np.float32), rng.uniform(-25, 25, 3).astype(np.float32)
        crop = placed * gain + offset + rng.normal(0, 3, placed.shape).astype(np.float32)
        crop[40:80, 30:75] = rng.uniform(0, 255, 3)                 # a marker
        crop = cv2.GaussianBlur(crop, (0, 0), F.SMOOTH_MM * F.PPM)
        strided = F.fit_picture(crop, picture, 1.5, 62.0, 0, (38.0, 38.0), (0.0, 0.0))
        rows = strided.rows
        full_gain, full_offset, _use, full_noise = F.fit_rows(*rows)
        assert np.allclose(strided.gain, full_gain, rtol=0.03)
        assert np.allclose(strided.offset, full_offset, atol=3.0)
        assert strided.noise == pytest.approx(full_noise, rel=0.1)
        assert np.allclose(strided.gain, gain, rtol=0.05)           # and both find the light
