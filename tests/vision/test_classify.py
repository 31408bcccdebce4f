"""The teaching classifier: API, storage, teaching helpers, and held-out accuracy on real photos.

Synthetic shapes drawn here keep the API tests always running. The accuracy tests read the
photographs of the real Forbidden Desert pieces from ``../shared/components`` beside the
repository (the publisher's artwork: read there, never copied here; models go to tmp_path) and
skip when they are absent. Evaluation crops come from degradations written in this module, not
from the teaching augmentation, with their own seeds and stronger or other settings: a tilted
camera (perspective up to 25 degrees) seeing the neighbours, crops off-centre by 5-8 %, warm,
cool, dim and point light (F3), a large glare blob (F8), strong Gaussian or motion blur (F9),
JPEG 40, and all of them at once.

Run ``pytest tests/vision/test_classify.py -q -s`` to see the per-condition tables.
"""

from __future__ import annotations

import argparse
import json
import math
import zlib
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, settings as hsettings, strategies as st

from assistant.vision.classify import (FEATURE_VERSION, cell_features, classify, classify_batch, fit_classifier,
                                       grey_world, hog_batch, label_confidence, load, prepare_crop, save)
from assistant.vision.teach import (AugmentSettings, Example, add_teach_command, augment, collect_round_crops,
                                    format_arrangement, forbidden_desert_arrangement, image_examples,
                                    prescribed_arrangement, printed_cell_example, teach, teach_from_crops,
                                    teach_from_images)

COMPONENTS = Path(__file__).resolve().parents[2].parent / "shared" / "components"
FD = COMPONENTS / "forbidden-desert"
needs_photos = pytest.mark.skipif(
    not (FD / "tiles").is_dir(),
    reason="needs the photos of the real Forbidden Desert pieces in ../shared/components/forbidden-desert "
           "beside the repository (publisher's artwork: read from there, never copied into the repository)")
S = 64
EVAL_SEED = 20240611          # not a seed the teaching uses (0 and 1) nor the one used while developing
CONDITIONS = ("clean", "tilt25", "offcentre8", "warm", "cool", "point", "dim", "glare", "blur", "jpeg40", "combined")
FAST = AugmentSettings(per_orientation=12, min_total=300)


# --- synthetic pieces ----------------------------------------------------------------------

def _shape(kind: str, size: int = 96) -> np.ndarray:
    """A coloured shape on a speckled beige card, (size, size, 3) uint8 BGR."""
    rng = np.random.default_rng(zlib.crc32(kind.encode()))
    img = np.full((size, size, 3), (170, 200, 215), np.uint8)
    img = np.clip(img + rng.normal(0, 6, img.shape), 0, 255).astype(np.uint8)
    c, r = size // 2, size // 3
    if kind == "red_disc":
        cv2.circle(img, (c, c), r, (40, 40, 200), -1)
    elif kind == "blue_square":
        cv2.rectangle(img, (c - r, c - r), (c + r, c + r), (190, 80, 30), -1)
    elif kind == "green_triangle":
        cv2.fillPoly(img, [np.array([(c, c - r), (c + r, c + r), (c - r, c + r)], np.int32)], (40, 160, 40))
    elif kind == "yellow_ring":
        cv2.circle(img, (c, c), r, (30, 200, 230), 8)
    elif kind in ("arrow_up", "arrow_right"):
        pts = np.array([(c, c - r), (c + r, c), (c + r // 3, c), (c + r // 3, c + r), (c - r // 3, c + r),
                        (c - r // 3, c), (c - r, c)], np.int32)
        if kind == "arrow_right":
            pts = np.stack([size - 1 - pts[:, 1], pts[:, 0]], 1).astype(np.int32)
        cv2.fillPoly(img, [pts], (60, 60, 70))
    return img


SYNTH = {"red_disc": "quarter", "blue_square": "quarter", "green_triangle": "quarter", "yellow_ring": "quarter",
         "arrow_up": "fixed", "arrow_right": "fixed"}


@pytest.fixture(scope="module")
def synth_model():
    examples = [Example(k, k, _shape(k), rot) for k, rot in SYNTH.items()]
    examples.append(printed_cell_example("forbidden-desert"))
    return teach(examples, size=S, settings=FAST, seed=0, manifest={"game": "demo", "slot": "cell"})


def _synth_views(seed: int, per: int = 6) -> tuple[np.ndarray, list[str]]:
    """Held-out views of the synthetic pieces: light, blur, offset, tilt, JPEG (test-side code)."""
    rng = np.random.default_rng(seed)
    crops, truth = [], []
    for kind, rot in SYNTH.items():
        for _ in range(per):
            img = np.rot90(_shape(kind), -int(rng.integers(4)) if rot == "quarter" else 0).copy()
            examples = [Example(kind, kind, img)]
            crop = _view(_scene(examples, 0, rng, "storm", 0), rng, S, rng.uniform(0, 20), rng.uniform(0, 0.06))
            crop = _light(crop, rng, ("warm", "cool", "point", "dim")[int(rng.integers(4))])
            crops.append(_jpeg(cv2.GaussianBlur(crop, (0, 0), rng.uniform(0.3, 1.2)), 50))
            truth.append(kind)
    return np.stack(crops), truth


# --- held-out degradations (independent of the teaching augmentation) ---------------------

CELL = 128  # scene pixels per cell


def _square(img: np.ndarray, side: int) -> np.ndarray:
    return cv2.resize(img, (side, side), interpolation=cv2.INTER_AREA)


def _cutout_on(rgba: np.ndarray, ground: np.ndarray, frac: float, angle: float) -> np.ndarray:
    ys, xs = np.nonzero(rgba[..., 3] > 16)
    obj = rgba[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    side = ground.shape[0]
    k = frac * side / max(obj.shape[:2])
    obj = cv2.resize(obj, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
    canvas = np.zeros((side, side, 4), np.uint8)
    y0, x0 = (side - obj.shape[0]) // 2, (side - obj.shape[1]) // 2
    canvas[y0:y0 + obj.shape[0], x0:x0 + obj.shape[1]] = obj
    canvas = cv2.warpAffine(canvas, cv2.getRotationMatrix2D((side / 2, side / 2), -angle, 1.0), (side, side))
    alpha = canvas[..., 3:4].astype(np.float32) / 255
    return canvas[..., :3] * alpha + ground * (1 - alpha)


def _scene(examples, i: int, rng, family: str, quarter: int) -> np.ndarray:
    """3 x 3 cells around example i: other tiles around a tile, a wooden table around a card,
    textured sand around a part."""
    c = CELL
    sc = np.zeros((3 * c, 3 * c, 3), np.float32)
    if family == "tiles":
        for r in range(3):
            for q in range(3):
                j = i if (r, q) == (1, 1) else int(rng.integers(len(examples)))
                im = _square(examples[j].image[..., :3], c).astype(np.float32)
                sc[r * c:(r + 1) * c, q * c:(q + 1) * c] = np.rot90(im, -quarter) if (r, q) == (1, 1) else im
        return sc
    if family == "storm":
        tex = cv2.GaussianBlur(rng.normal(1, 0.15, (3 * c, 3 * c)).astype(np.float32), (0, 0), 3)
        sc[:] = np.float32([60, 95, 140]) * tex[..., None]
        sc[c:2 * c, c:2 * c] = np.rot90(_square(examples[i].image[..., :3], c), -quarter)
        return sc
    sand = np.float32([105, 160, 205]) + rng.uniform(-15, 15, 3).astype(np.float32)
    tex = cv2.GaussianBlur(rng.normal(1, 0.12, (3 * c, 3 * c)).astype(np.float32), (0, 0), 1.5)
    sc[:] = sand * tex[..., None]
    sc[c:2 * c, c:2 * c] = _cutout_on(examples[i].image, sc[c:2 * c, c:2 * c], rng.uniform(0.55, 0.85),
                                      rng.uniform(0, 360))
    return sc


def _view(sc: np.ndarray, rng, size: int, tilt: float, offset: float) -> np.ndarray:
    """The centre cell seen by a camera turned ``tilt`` degrees about a random axis in the board
    plane (focal length 2 cells), the crop off-centre by ``offset`` of its side."""
    to_unit = np.array([[1 / CELL, 0, -1.5], [0, 1 / CELL, -1.5], [0, 0, 1]])
    axis = rng.uniform(0, 2 * math.pi)
    rot = cv2.Rodrigues(np.array([math.cos(axis), math.sin(axis), 0]) * math.radians(tilt))[0]
    k = np.diag([2.0, 2.0, 1.0])
    persp = k @ rot @ np.linalg.inv(k)
    centre = persp @ np.array([0, 0, 1.0])
    d = rng.normal(size=2)
    d = d / np.linalg.norm(d) * offset
    shift = np.array([[1, 0, -centre[0] / centre[2] + d[0]], [0, 1, -centre[1] / centre[2] + d[1]], [0, 0, 1]])
    to_crop = np.array([[size, 0, size / 2], [0, size, size / 2], [0, 0, 1]])
    return cv2.warpPerspective(sc, to_crop @ shift @ persp @ to_unit, (size, size), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


def _light(img: np.ndarray, rng, kind: str) -> np.ndarray:
    """F3: a 2700 K-like lamp, a cool overcast sky, a dim room, or a warm point light off the crop."""
    size = img.shape[0]
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) / size - 0.5
    if kind == "warm":
        return img * np.float32([0.5, 0.8, 1.15]) * rng.uniform(0.7, 1.0)
    if kind == "cool":
        return img * np.float32([1.25, 1.03, 0.8]) * rng.uniform(0.8, 1.1)
    if kind == "point":
        cx, cy = rng.uniform(-1, 1, 2)
        fall = 1.0 / (1.0 + ((xx - cx) ** 2 + (yy - cy) ** 2) / 0.35)
        return img * (fall / fall.max() * 1.2)[..., None] * np.float32([0.65, 0.88, 1.1])
    if kind == "dim":
        return img * 0.45
    return img


def _glare(img: np.ndarray, rng, strength=(0.7, 1.0), sigma=(0.1, 0.22)) -> np.ndarray:
    """F8: an elliptical saturated lamp reflection, up to 44 % of the crop across."""
    size = img.shape[0]
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) / size - 0.5
    cx, cy = rng.uniform(-0.35, 0.35, 2)
    sx, sy = rng.uniform(*sigma, 2)
    a = rng.uniform(0, math.pi)
    u = (xx - cx) * math.cos(a) + (yy - cy) * math.sin(a)
    v = -(xx - cx) * math.sin(a) + (yy - cy) * math.cos(a)
    blob = np.clip(1.3 * np.exp(-(u ** 2 / (2 * sx ** 2) + v ** 2 / (2 * sy ** 2))), 0, 1) * rng.uniform(*strength)
    return img + (255 - img) * blob[..., None]


def _blur(img: np.ndarray, rng) -> np.ndarray:
    """F9: Gaussian sigma 1.5-2.2 px or a 7-11 px motion streak (the teaching stops at 1.3 and 7)."""
    if rng.random() < 0.5:
        return cv2.GaussianBlur(img, (0, 0), rng.uniform(1.5, 2.2))
    n = int(rng.integers(7, 12))
    kernel = np.zeros((n, n), np.float32)
    ang = rng.uniform(0, math.pi)
    for t in np.linspace(-(n - 1) / 2, (n - 1) / 2, 4 * n):
        kernel[int(round((n - 1) / 2 + t * math.sin(ang))), int(round((n - 1) / 2 + t * math.cos(ang)))] = 1
    return cv2.filter2D(img, -1, kernel / kernel.sum())


def _jpeg(img: np.ndarray, quality: int) -> np.ndarray:
    u8 = np.clip(img, 0, 255).astype(np.uint8)
    return cv2.imdecode(cv2.imencode(".jpg", u8, [cv2.IMWRITE_JPEG_QUALITY, quality])[1], cv2.IMREAD_COLOR)


def _degraded(examples, i: int, rng, family: str, kind: str, quarter: int) -> np.ndarray:
    sc = _scene(examples, i, rng, family, quarter)
    tilt = {"tilt25": rng.uniform(15, 25), "combined": rng.uniform(0, 25)}.get(kind, 0.0)
    off = {"offcentre8": rng.uniform(0.05, 0.08), "combined": rng.uniform(0, 0.08)}.get(kind, 0.0)
    img = _view(sc, rng, S, tilt, off)
    if kind in ("warm", "cool", "point", "dim"):
        img = _light(img, rng, kind)
    elif kind == "glare":
        img = _glare(img, rng)
    elif kind == "blur":
        img = _blur(img, rng)
    elif kind == "combined":
        img = _light(img, rng, ("warm", "cool", "point", "none")[int(rng.integers(4))])
        if rng.random() < 0.5:
            img = _glare(img, rng, (0.5, 0.9))
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.5, 1.5))
        img = img + rng.normal(0, 4, img.shape).astype(np.float32)
    return _jpeg(img, 40 if kind in ("jpeg40", "combined") else 92)


def _small(image: np.ndarray, side: int = 256) -> np.ndarray:
    """Downscale a photo so its longer side is ``side`` px (teaching reads 2 S = 128 px anyway)."""
    k = side / max(image.shape[:2])
    return cv2.resize(image, None, fx=k, fy=k, interpolation=cv2.INTER_AREA) if k < 1 else image


def _family(name: str) -> list[Example]:
    slot = {"tiles": "tile", "storm": "storm-card", "parts": "part"}[name]
    examples = image_examples(FD, game="forbidden-desert", slot=slot)
    drop = {"tiles": (), "storm": ("storm_back",), "parts": ("flying_machine",)}[name]
    return [Example(e.name, e.label, _small(e.image), e.rotation, e.source) for e in examples if e.label not in drop]


def _evaluate(name: str, per: int):
    """Teach a family (seed 0), then classify held-out degraded views (EVAL_SEED)."""
    examples = _family(name)
    model = teach(examples, size=S, seed=0)
    rng = np.random.default_rng(EVAL_SEED)
    crops, truth, kinds = [], [], []
    for kind in CONDITIONS:
        for i, ex in enumerate(examples):
            for _ in range(per):
                turns = {"quarter": int(rng.integers(4)), "half": 2 * int(rng.integers(2))}.get(ex.rotation, 0)
                crops.append(_degraded(examples, i, rng, name, kind, turns))
                truth.append(ex.label)
                kinds.append(kind)
    preds = classify_batch(model, np.stack(crops))
    return {"examples": examples, "model": model, "crops": np.stack(crops), "truth": np.array(truth),
            "kinds": np.array(kinds), "preds": preds, "ok": np.array(preds.labels) == np.array(truth)}


def _table(name: str, r) -> dict[str, float]:
    ok, kinds, conf = r["ok"], r["kinds"], r["preds"].confidence
    acc = {k: float(ok[kinds == k].mean()) for k in CONDITIONS}
    acc["all"] = float(ok.mean())
    sure = conf >= 0.9
    print(f"\n{name}: {len(r['model'].labels)} labels, {len(ok)} held-out crops; accuracy "
          + " ".join(f"{k} {v:.3f}" for k, v in acc.items()))
    print(f"{name}: confidence >= 0.9 on {sure.mean():.3f} of crops, accuracy there {ok[sure].mean():.4f}; "
          f"median confidence right {np.median(conf[ok]):.3f}, wrong {np.median(conf[~ok]) if (~ok).any() else 0:.3f}; "
          f"confusions {Counter(zip(r['truth'][~ok], np.array(r['preds'].labels)[~ok])).most_common(4)}")
    return acc


@pytest.fixture(scope="module")
def tiles():
    return _evaluate("tiles", 4)


@pytest.fixture(scope="module")
def storm():
    return _evaluate("storm", 6)


@pytest.fixture(scope="module")
def parts():
    return _evaluate("parts", 20)


# --- features ------------------------------------------------------------------------------

def test_hog_batch_equals_skimage_hog():
    from skimage.feature import hog

    rng = np.random.default_rng(3)
    grey = rng.random((3, 64, 72))
    grey[1] = cv2.GaussianBlur(grey[1], (0, 0), 2)
    for cell in (8, 16):
        ours = hog_batch(grey, cell)
        ref = np.stack([hog(g, orientations=9, pixels_per_cell=(cell, cell), cells_per_block=(2, 2),
                            block_norm="L2-Hys") for g in grey])
        assert ours.shape == ref.shape and np.abs(ours - ref).max() < 1e-5


def test_grey_world_makes_colour_and_layout_features_ignore_a_light_cast():
    crop = prepare_crop(_shape("green_triangle"), S)
    warm = np.clip(crop * np.float32([0.55, 0.85, 1.15]) * 0.7, 0, 255).astype(np.uint8)
    assert np.abs(grey_world(crop[None]) - grey_world(warm[None])).mean() < 0.02
    f = cell_features(np.stack([crop, warm, prepare_crop(_shape("red_disc"), S)]))
    colour = slice(0, 192 + 26)                           # layout and colour blocks
    assert np.linalg.norm(f[0, colour] - f[1, colour]) < 0.25 * np.linalg.norm(f[0, colour] - f[2, colour])
    assert f.shape == (3, 1988) and f.dtype == np.float32


def test_prepare_crop_and_shape_errors(synth_model):
    assert prepare_crop(np.zeros((700, 500, 3), np.uint8), 96).shape == (96, 96, 3)
    assert prepare_crop(np.zeros((20, 30, 3), np.uint8), 64).shape == (64, 64, 3)
    with pytest.raises(ValueError, match=r"\(H, W, 3\) uint8"):
        prepare_crop(np.zeros((20, 30), np.uint8))
    with pytest.raises(ValueError, match=r"crops must be"):
        cell_features(np.zeros((2, 40, 40, 3), np.uint8))
    with pytest.raises(ValueError, match=r"crop must be \(64, 64, 3\) uint8"):
        classify(synth_model, np.zeros((64, 64, 3), np.float32))
    with pytest.raises(ValueError, match=r"crops must be \(N, 64, 64, 3\)"):
        classify_batch(synth_model, np.zeros((2, 96, 96, 3), np.uint8))


# --- the API on synthetic pieces -----------------------------------------------------------

def test_batch_equals_single_margin_and_confidence_ranges(synth_model):
    crops, truth = _synth_views(seed=7, per=2)
    batch = classify_batch(synth_model, crops)
    assert len(batch) == len(crops) and batch.scores.shape == (len(crops), len(SYNTH) + 1)
    assert set(batch.labels) <= set(synth_model.labels) and synth_model.labels == tuple(sorted([*SYNTH, "empty"]))
    for i, crop in enumerate(crops):
        one = classify(synth_model, crop)
        assert one.label == batch.labels[i] == batch[i].label
        assert one.confidence == pytest.approx(batch.confidence[i], abs=1e-6)
        assert one.margin == pytest.approx(batch.margin[i], rel=1e-5, abs=1e-5)
    assert np.all(batch.margin >= 0) and np.all((batch.confidence >= 0) & (batch.confidence <= 1))
    assert [p.label for p in batch] == list(batch.labels)
    top = np.array([synth_model.labels.index(l) for l in batch.labels])
    assert np.allclose(label_confidence(synth_model, batch.scores, top), batch.confidence)
    other = (top + 1) % len(synth_model.labels)              # another label is never more likely than the top one
    assert np.all(label_confidence(synth_model, batch.scores, other) <= batch.confidence + 1e-12)


@hsettings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 5))
def test_any_crop_gets_a_label_a_confidence_in_0_1_and_a_non_negative_margin(synth_model, seed, n):
    rng = np.random.default_rng(seed)
    crops = rng.integers(0, 256, (n, S, S, 3), dtype=np.uint8)
    crops[: n // 2] = cv2.GaussianBlur(crops[0], (0, 0), float(rng.uniform(0.5, 6)))  # smooth ones too
    preds = classify_batch(synth_model, crops)
    assert len(preds) == n and all(label in synth_model.labels for label in preds.labels)
    assert np.all(np.isfinite(preds.confidence)) and np.all((preds.confidence >= 0) & (preds.confidence <= 1))
    assert np.all(preds.margin >= 0)


def test_synthetic_pieces_are_read_under_held_out_conditions(synth_model):
    crops, truth = _synth_views(seed=11)
    preds = classify_batch(synth_model, crops)
    assert np.mean(np.array(preds.labels) == np.array(truth)) >= 0.95
    # "fixed" pieces keep their orientation: an up arrow turned a quarter clockwise reads as a right arrow
    up = prepare_crop(_shape("arrow_up"), S)
    assert classify(synth_model, np.rot90(up, -1).copy()).label == "arrow_right"
    assert classify(synth_model, up).label == "arrow_up"



def test_confidence_and_margin_fall_as_a_piece_gets_unreadable(synth_model):
    """F9: the more blur, the lower the confidence and the margin, so the tracker asks."""
    crops = np.stack([prepare_crop(_shape(k), S) for k in SYNTH])
    conf, margin = [], []
    for sigma in (0, 4, 8, 12):
        blurred = crops if sigma == 0 else np.stack([cv2.GaussianBlur(c, (0, 0), sigma) for c in crops])
        preds = classify_batch(synth_model, blurred)
        conf.append(preds.confidence.mean())
        margin.append(np.median(preds.margin))
    assert conf[0] > 0.9 and conf[-1] < conf[0] - 0.2
    assert margin[0] > margin[1] > margin[2] > margin[3]


def test_bare_cells_read_as_empty_when_the_printed_cell_is_taught(synth_model):
    """A bare cell of the printed mat (white paper, grey outline) under warm, cool and dim light."""
    rng = np.random.default_rng(5)
    paper = np.full((8, S, S, 3), 235, np.uint8)
    for p in paper:
        cv2.rectangle(p, (0, 0), (S - 1, S - 1), (150, 150, 150), 2)
    lit = paper * rng.uniform([0.45, 0.75, 0.8], [1.2, 1.1, 1.1], (8, 1, 1, 3)) * rng.uniform(0.5, 1.0, (8, 1, 1, 1))
    lit = np.stack([_jpeg(cv2.GaussianBlur(c, (0, 0), 0.8) + rng.normal(0, 3, c.shape), 60) for c in lit])
    preds = classify_batch(synth_model, lit)
    assert set(preds.labels) == {"empty"} and preds.confidence.min() > 0.5


def test_save_load_round_trip_and_manifest(synth_model, tmp_path):
    folder = save(synth_model, tmp_path / "demo-cell")
    assert sorted(p.name for p in folder.iterdir()) == ["manifest.json", "model.npz"]
    manifest = json.loads((folder / "manifest.json").read_text())
    for key in ("game", "slot", "labels", "crop_size", "feature_version", "training_date", "examples_per_label",
                "augmentation", "rotation_of_label", "examples", "temperature", "reject_score", "seed"):
        assert key in manifest, key
    assert manifest["game"] == "demo" and manifest["crop_size"] == S and manifest["feature_version"] == FEATURE_VERSION
    assert manifest["examples_per_label"] == {**{k: 1 for k in SYNTH}, "empty": 1}
    assert manifest["augmentation"]["tilt"] == FAST.tilt and manifest["examples"][-1]["source"] == "printed mat"
    loaded = load(folder)
    crops, _ = _synth_views(seed=13, per=1)
    a, b = classify_batch(synth_model, crops), classify_batch(loaded, crops)
    assert a.labels == b.labels and np.allclose(a.confidence, b.confidence) and np.allclose(a.margin, b.margin)
    assert loaded.manifest["game"] == "demo" and loaded.labels == synth_model.labels

    with pytest.raises(FileNotFoundError, match="model.npz"):
        load(tmp_path / "nowhere")
    manifest["feature_version"] = "cell-features/0"
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match="teach it again"):
        load(folder)


def test_bad_teaching_input_raises():
    f = np.zeros((4, 1988), np.float32)
    with pytest.raises(ValueError, match="at least two labels"):
        fit_classifier(f, np.array([0, 0, 1, 1]), ["a", "a"], crop_size=S)
    with pytest.raises(ValueError, match="without examples"):
        fit_classifier(f, np.array([0, 0, 0, 0]), ["a", "b"], crop_size=S)
    with pytest.raises(ValueError, match="unknown rotation mode 'sideways'"):
        teach([Example("a", "a", _shape("red_disc"), "sideways"), Example("b", "b", _shape("blue_square"))])
    with pytest.raises(ValueError, match="n must be at least 1"):
        augment(_shape("red_disc"), 0)
    with pytest.raises(ValueError, match="alpha channel is empty"):
        augment(np.zeros((10, 10, 4), np.uint8), 1)


# --- teaching from images and from the mat --------------------------------------------------

def test_teach_from_images_folder_and_mapping(tmp_path):
    for kind in ("red_disc", "blue_square", "arrow_up"):
        cv2.imwrite(str(tmp_path / f"{kind}.png"), _shape(kind))
    (tmp_path / "notes.txt").write_text("not an image")
    model = teach_from_images(tmp_path, game="demo", slot="cell", settings=FAST)
    assert model.labels == ("arrow_up", "blue_square", "red_disc")
    assert model.manifest["source"] == {"kind": "images", "paths": [str(tmp_path)]}
    assert classify(model, prepare_crop(_shape("blue_square"), S)).label == "blue_square"
    mapped = teach_from_images({"disc": tmp_path / "red_disc.png", "square": [tmp_path / "blue_square.png"]},
                               settings=FAST)
    assert mapped.labels == ("disc", "square")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError, match="no piece images found"):
        image_examples(empty)
    with pytest.raises(FileNotFoundError):
        image_examples(tmp_path / "missing")


def test_teach_from_crops_maps_tile_ids_to_faces():
    crops = {"gear_1": [prepare_crop(_shape("red_disc"), S)], "gear_2": [prepare_crop(_shape("yellow_ring"), S)],
             "mirage": [prepare_crop(_shape("blue_square"), S)],
             "dune_back": [prepare_crop(_shape("green_triangle"), S)] * 2}
    model = teach_from_crops(crops, game="forbidden-desert", slot="tile", settings=FAST, source="camera 0")
    assert model.labels == ("dune_back", "gear", "mirage")
    assert model.manifest["examples_per_label"] == {"dune_back": 2, "gear": 2, "mirage": 1}
    assert "gear_2/0@90" in model.prototype_names and model.manifest["rotation_of_label"]["gear"] == "quarter"
    # two different gear arts, one face: both read as "gear"
    assert classify(model, prepare_crop(_shape("yellow_ring"), S)).label == "gear"
    with pytest.raises(ValueError, match="no crops"):
        teach_from_crops({"a": [], "b": [crops["mirage"][0]]})


def test_prescribed_arrangement_for_forbidden_desert():
    from assistant.games.forbidden_desert.components import TILE_IDS

    rounds = forbidden_desert_arrangement()
    faces, backs = rounds
    assert len(rounds) == 2 and set(faces) == set(backs) and len(faces) == 25
    assert faces[(2, 2)] == backs[(2, 2)] == "empty"          # the storm's cell stays bare
    assert sorted(t for t in faces.values() if t != "empty") == sorted(TILE_IDS)
    assert Counter(backs.values()) == {"dune_back": 20, "water_back": 3, "crash_site_back": 1, "empty": 1}
    assert all(backs[c] == "water_back" for c, t in faces.items() if t.startswith("well") or t == "mirage")
    text = format_arrangement(rounds)
    assert text.startswith("round 1\ncrash_site") and "round 2" in text and len(text.splitlines()) == 13
    assert prescribed_arrangement(list("abcde"), [(0, 0), (0, 1)]) == [
        {(0, 0): "a", (0, 1): "b"}, {(0, 0): "c", (0, 1): "d"}, {(0, 0): "e"}]
    with pytest.raises(ValueError, match="cells repeat"):
        prescribed_arrangement(["a"], [(0, 0), (0, 0)])
    # the sampler's crops of each round, keyed by cell, become teaching crops keyed by what lay there
    crop = np.zeros((S, S, 3), np.uint8)
    got = collect_round_crops(rounds, [{cell: crop for cell in faces}, {cell: crop for cell in backs}])
    assert len(got["gear_3"]) == 1 and len(got["dune_back"]) == 20 and len(got["empty"]) == 2
    with pytest.raises(ValueError, match=r"round 2: no crop of cell\(s\) \[\(0, 0\), \(0, 1\)"):
        collect_round_crops(rounds, [{cell: crop for cell in faces}, {(2, 2): crop}])


def test_teach_command(tmp_path, capsys):
    for kind in ("red_disc", "blue_square"):
        cv2.imwrite(str(tmp_path / f"{kind}.png"), _shape(kind))
    parser = argparse.ArgumentParser(prog="assistant")
    add_teach_command(parser.add_subparsers(dest="command", required=True))
    out = tmp_path / "models" / "demo"
    args = parser.parse_args(["teach", "--game", "scout-pennant", "--images", str(tmp_path), "-o", str(out), "--seed", "3",
                              "--crops", "300"])
    assert args.func(args) == 0
    printed = capsys.readouterr().out
    assert "red_disc: 1 example(s), rotation fixed" in printed and str(out) in printed
    assert load(out).manifest["seed"] == 3
    args = parser.parse_args(["teach", "--game", "forbidden-desert", "--source", str(tmp_path / "no-camera.avi")])
    assert args.func(args) == 2                     # the arrangement is printed, then the source fails
    captured = capsys.readouterr()
    assert "neither a camera index" in captured.err and captured.out.startswith("round 1")
    args = parser.parse_args(["teach", "--game", "scout-pennant", "--images", str(tmp_path / "missing")])
    assert args.func(args) == 2 and "no such folder" in capsys.readouterr().err


# --- the real Forbidden Desert pieces --------------------------------------------------------

@needs_photos
def test_tiles_are_taught_by_face_and_same_kind_photos_compared():
    """gear_1..8 are different paintings (one prototype each, one label); well_1/well_2 are the same art."""
    examples = _family("tiles")
    assert len(examples) == 27
    labels = Counter(e.label for e in examples)
    assert labels["gear"] == 8 and labels["well"] == 2 and labels["tunnel"] == 3 and len(labels) == 17

    def ncc(a: str, b: str) -> float:
        ga, gb = (cv2.cvtColor(prepare_crop(next(e.image for e in examples if e.name == n), 32), cv2.COLOR_BGR2GRAY)
                  .astype(np.float64).ravel() for n in (a, b))
        ga, gb = ga - ga.mean(), gb - gb.mean()
        return float(ga @ gb / np.sqrt((ga @ ga) * (gb @ gb)))

    wells = ncc("well_1", "well_2")
    tunnels = [ncc("tunnel_1", "tunnel_2"), ncc("tunnel_1", "tunnel_3"), ncc("tunnel_2", "tunnel_3")]
    gears = [ncc(f"gear_{i}", f"gear_{j}") for i in range(1, 9) for j in range(i + 1, 9)]
    print(f"\nphoto similarity (NCC of 32 px grey): well_1/well_2 {wells:.2f}; tunnels {np.round(tunnels, 2)}; "
          f"gear pairs mean {np.mean(gears):.2f}, max {max(gears):.2f}")
    assert wells > 0.8 and max(gears) < 0.6       # same art for the wells; eight different paintings of gears


@needs_photos
def test_tiles_and_backs_under_held_out_conditions(tiles):
    acc = _table("tiles+backs", tiles)
    assert acc["all"] >= 0.95
    assert min(v for k, v in acc.items() if k not in ("combined", "all")) >= 0.9
    assert acc["combined"] >= 0.8
    sure = tiles["preds"].confidence >= 0.9
    assert tiles["ok"][sure].mean() >= 0.99 and sure.mean() >= 0.9


@needs_photos
def test_storm_cards_under_held_out_conditions(storm):
    acc = _table("storm cards", storm)
    assert acc["all"] >= 0.95
    assert min(v for k, v in acc.items() if k not in ("glare", "combined", "all")) >= 0.95
    assert acc["glare"] >= 0.85 and acc["combined"] >= 0.7
    sure = storm["preds"].confidence >= 0.9
    assert storm["ok"][sure].mean() >= 0.99 and sure.mean() >= 0.8


@needs_photos
def test_storm_card_orientation_matters(storm):
    """Storm cards are taught "fixed": a card lying turned is never confidently read as itself."""
    winds = [e for e in storm["examples"] if e.label.startswith("wind_")]
    turn = {"n": "e", "e": "s", "s": "w", "w": "n"}
    for code, name in ((cv2.ROTATE_90_CLOCKWISE, "quarter"), (cv2.ROTATE_180, "half")):
        crops = np.stack([prepare_crop(cv2.rotate(e.image, code), S) for e in winds])
        preds = classify_batch(storm["model"], crops)
        as_itself = [p.confidence for p, e in zip(preds, winds) if p.label == e.label]
        if name == "quarter":
            turned = np.mean([p.label == f"wind_{turn[e.label[5]]}_{e.label[7]}" for p, e in zip(preds, winds)])
            print(f"\nwind cards turned a quarter: {turned:.2f} read as the direction their arrow now shows", end="")
        upright = np.median(storm["preds"].confidence)
        print(f"\nwind cards turned a {name}: {len(as_itself)} of {len(winds)} read as themselves, "
              f"median confidence {np.median(preds.confidence):.2f} (upright: {upright:.2f})")
        print("  " + ", ".join(f"{e.label}->{p.label} {p.confidence:.2f}" for p, e in zip(preds, winds)))
        assert len(as_itself) <= 1 and np.median(preds.confidence) < 0.7


@needs_photos
def test_parts_on_sand_under_held_out_conditions(parts):
    acc = _table("parts on sand", parts)
    assert acc["all"] >= 0.93
    assert acc["clean"] >= 0.95


@needs_photos
def test_uncertain_and_unknown_crops_get_low_confidence(tiles, storm):
    """Wrong answers come with low confidence and small margins; pieces the model was not taught
    (equipment and adventurer cards, storm cards shown to the tile model) mostly too."""
    for r in (tiles, storm):
        ok, preds = r["ok"], r["preds"]
        if (~ok).any():
            assert np.median(preds.confidence[~ok]) < 0.75
            assert np.median(preds.margin[~ok]) < np.median(preds.margin[ok]) / 3
    others = image_examples([FD / "equipment-cards", FD / "adventurer-cards", FD / "storm-cards"],
                            game="forbidden-desert")
    unknown = np.concatenate([augment(_small(e.image), 3, size=S, rng=i) for i, e in enumerate(others)])
    conf = classify_batch(tiles["model"], unknown).confidence
    print(f"\nunknown pieces shown to the tile model: median confidence {np.median(conf):.3f}, "
          f">= 0.9 on {(conf >= 0.9).mean():.3f}, >= 0.5 on {(conf >= 0.5).mean():.3f}")
    assert np.median(conf) < 0.5 and (conf >= 0.9).mean() <= 0.05
    # known limitation, reported not asserted: without an "empty" class a bare cell is the mirage
    bare = classify_batch(tiles["model"], np.full((1, S, S, 3), 235, np.uint8))[0]
    print(f"a bare white cell shown to the 27-class tile model: {bare.label} with confidence {bare.confidence:.2f}")


def test_feature_scores_are_the_scores_of_the_crops(synth_model):
    """``feature_scores`` scores features already extracted exactly as ``classify_batch`` scores
    the crops they came from (Discovery Island's teaching scores cached shifted features with it)."""
    from assistant.vision.classify import feature_scores

    crops, _truth = _synth_views(5, per=2)
    np.testing.assert_allclose(feature_scores(synth_model, cell_features(crops)),
                               classify_batch(synth_model, crops).scores, rtol=1e-6, atol=1e-9)
