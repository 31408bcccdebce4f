"""Teaching (enrolment): learn the owner's pieces from a few photos or crops of them.

The owner shows each piece once (a photo per piece, or the pieces laid out on the mat in a
prescribed arrangement); every example is turned into a few dozen *augmented* crops -- the
rotations that do not change what it is, small rotations, a crop a few per cent off, perspective,
warm and cool light, uneven light, a lamp's glare, blur, motion blur, noise, JPEG -- and
:func:`assistant.vision.classify.fit_classifier` learns from those what does not matter.

Orientation is a per-class option (``ROTATIONS``): ``"quarter"`` for a tile whose meaning does not
change when it is turned (a gear is a gear), ``"half"`` when a half turn keeps the meaning (a
clue column tile upside down is still a column clue, turned 90 degrees it looks like a row clue),
``"fixed"`` when any turn changes it (a wind N card turned 90 degrees reads as wind E), ``"any"``
for a piece that lies at any angle (a flying-machine part). Each example and orientation is its
own prototype, so a class never has to be one blurred average of its rotations.

Crops and images are BGR ``uint8`` as everywhere in :mod:`assistant.vision`; an ``(H, W, 4)``
BGRA cut-out is put on a jittered plain background (sand-coloured by default).
"""

from __future__ import annotations

import datetime as _dt
import math
import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Callable, Hashable, Mapping, Sequence

import cv2
import numpy as np

from .classify import (DEFAULT_CROP_SIZE, FEATURE_VERSION, CellClassifier, cell_features, fit_classifier,
                       prepare_crop, save)

__all__ = [
    "ROTATIONS", "AugmentSettings", "Example", "augment", "teach", "teach_from_images", "teach_from_crops",
    "image_examples", "printed_cell_example", "forbidden_desert_label", "prescribed_arrangement",
    "forbidden_desert_arrangement", "collect_round_crops", "format_arrangement", "add_teach_command", "teach_main",
]

#: rotation mode -> the orientations (degrees, clockwise as seen from above) taught as prototypes
ROTATIONS: dict[str, tuple[float, ...]] = {
    "fixed": (0.0,), "half": (0.0, 180.0), "quarter": (0.0, 90.0, 180.0, 270.0),
    "any": tuple(float(a) for a in range(0, 360, 45)),
}
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")
SAND_BGR = (120, 175, 215)
EMPTY = "empty"  #: label of a bare cell of the printed mat

#: a label rule: (folder name, file stem) -> (label, rotation mode), or None to skip the file
LabelRule = Callable[[str, str], "tuple[str, str] | None"]


@dataclass(frozen=True)
class AugmentSettings:
    """How teaching varies each example; every range is (low, high), sampled uniformly.

    ``per_orientation`` crops are made per example and orientation (fewer per example when a label
    has several examples, at least 8), and at least ``min_total`` in all (see :func:`teach`). Geometry: ``small_rotation`` (degrees, +-; 22.5 is used for
    rotation mode ``"any"``), ``scale`` (+- fraction), ``shift`` (+- fraction of the crop side),
    ``tilt`` (degrees, perspective of a camera turned about the crop centre, focal length
    1.5 crop sides). Light: ``temperature`` interpolates channel gains between ``warm_gains``
    (about a 3000 K lamp on a daylight-balanced camera) and ``cool_gains`` (about 6500 K), BGR;
    ``brightness``, ``contrast`` (about the mean), ``gamma``; ``ramp`` a linear fall-off of up to
    that fraction across the crop; ``glare`` a white Gaussian blob of ``glare_sigma`` crop sides
    mixing up to ``glare_strength`` towards white. Optics: ``blur_sigma`` (px), ``motion_length``
    (px), ``noise_sigma`` (grey levels), ``jpeg_quality``. ``p_*`` are the probabilities of each
    effect. ``background`` is the BGR colour behind cut-outs, jittered by +-``background_jitter``.
    """

    per_orientation: int = 40
    min_total: int = 2000
    small_rotation: float = 8.0
    scale: float = 0.07
    shift: float = 0.07
    tilt: float = 15.0
    warm_gains: tuple[float, float, float] = (0.6, 0.88, 1.12)
    cool_gains: tuple[float, float, float] = (1.18, 1.02, 0.86)
    brightness: tuple[float, float] = (0.6, 1.35)
    contrast: tuple[float, float] = (0.75, 1.25)
    gamma: tuple[float, float] = (0.8, 1.25)
    ramp: float = 0.3
    glare_sigma: tuple[float, float] = (0.06, 0.18)
    glare_strength: tuple[float, float] = (0.3, 0.85)
    blur_sigma: tuple[float, float] = (0.3, 1.3)
    motion_length: tuple[int, int] = (3, 7)
    noise_sigma: tuple[float, float] = (1.0, 6.0)
    jpeg_quality: tuple[int, int] = (50, 95)
    p_temperature: float = 0.8
    p_ramp: float = 0.3
    p_glare: float = 0.3
    p_blur: float = 0.35
    p_motion: float = 0.2
    p_noise: float = 0.5
    p_jpeg: float = 0.4
    background: tuple[int, int, int] = SAND_BGR
    background_jitter: int = 25

    def to_dict(self) -> dict[str, Any]:
        """The settings as a JSON-able dict (for the manifest)."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}

    def stronger(self) -> "AugmentSettings":
        """Harder settings for the calibration set: 1.4x the geometry, more glare, blur and JPEG."""
        return replace(self, small_rotation=self.small_rotation * 1.4, scale=self.scale * 1.4, shift=self.shift * 1.4,
                       tilt=self.tilt * 1.4, p_glare=0.5, glare_strength=(0.5, 0.95), blur_sigma=(0.5, 1.8), p_blur=0.5,
                       jpeg_quality=(35, 80), p_jpeg=0.6)


@dataclass(frozen=True, eq=False)
class Example:
    """One taught example: ``image`` ((H, W, 3) uint8 BGR or (H, W, 4) BGRA cut-out) of ``label``.

    ``name`` tells examples apart (file stem, or crop key and index), ``rotation`` is a key of
    :data:`ROTATIONS`, ``source`` says where it came from (path or ``"crop"``).
    """

    name: str
    label: str
    image: np.ndarray
    rotation: str = "fixed"
    source: str = "crop"


# --- augmentation --------------------------------------------------------------------------

def _homography(rng: np.random.Generator, size: int, src: int, angle: float, jitter: float,
                s: AugmentSettings) -> np.ndarray:
    """3x3 map from source pixels (src x src) to crop pixels (size x size)."""
    to_unit = np.array([[1 / src, 0, -0.5], [0, 1 / src, -0.5], [0, 0, 1]])
    to_crop = np.array([[size, 0, size / 2], [0, size, size / 2], [0, 0, 1]])
    theta = math.radians(angle + rng.uniform(-jitter, jitter))
    k = 1.0 + rng.uniform(-s.scale, s.scale)
    tx, ty = rng.uniform(-s.shift, s.shift, 2)
    sim = np.array([[k * math.cos(theta), -k * math.sin(theta), tx], [k * math.sin(theta), k * math.cos(theta), ty],
                    [0, 0, 1]])
    tilt, axis = math.radians(rng.uniform(0, s.tilt)), rng.uniform(0, 2 * math.pi)
    rvec = np.array([math.cos(axis), math.sin(axis), 0.0]) * tilt
    f = 1.5
    cam = np.diag([f, f, 1.0])
    persp = cam @ cv2.Rodrigues(rvec)[0] @ np.linalg.inv(cam)
    centre = persp @ np.array([0.0, 0.0, 1.0])
    recentre = np.array([[1, 0, -centre[0] / centre[2]], [0, 1, -centre[1] / centre[2]], [0, 0, 1]])
    return to_crop @ recentre @ persp @ sim @ to_unit


def _photometric(rng: np.random.Generator, img: np.ndarray, s: AugmentSettings) -> np.ndarray:
    """Light and optics on one (S, S, 3) float32 BGR crop (0..255); returns uint8."""
    size = img.shape[0]
    if rng.random() < s.p_temperature:
        t = rng.uniform(-1, 1)
        end = np.array(s.warm_gains if t > 0 else s.cool_gains)
        gains = 1.0 + abs(t) * (end - 1.0)
        img = img * gains.astype(np.float32)
    img = img * np.float32(rng.uniform(*s.brightness))
    mean = img.mean()
    img = (img - mean) * np.float32(rng.uniform(*s.contrast)) + mean
    img = 255.0 * (np.clip(img, 0, 255) / 255.0) ** np.float32(rng.uniform(*s.gamma))
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) / size - 0.5
    if rng.random() < s.p_ramp:
        a = rng.uniform(0, 2 * math.pi)
        img = img * (1.0 + rng.uniform(0, s.ramp) * (math.cos(a) * xx + math.sin(a) * yy))[..., None]
    if rng.random() < s.p_glare:
        cx, cy = rng.uniform(-0.4, 0.4, 2)
        blob = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * rng.uniform(*s.glare_sigma) ** 2))
        img = img + (255.0 - img) * (rng.uniform(*s.glare_strength) * blob)[..., None]
    if rng.random() < s.p_blur:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(*s.blur_sigma))
    if rng.random() < s.p_motion:
        length = int(rng.integers(s.motion_length[0], s.motion_length[1] + 1))
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2, :] = 1.0 / length
        rot = cv2.getRotationMatrix2D(((length - 1) / 2, (length - 1) / 2), rng.uniform(0, 180), 1.0)
        kernel = cv2.warpAffine(kernel, rot, (length, length))
        img = cv2.filter2D(img, -1, kernel / max(kernel.sum(), 1e-6))
    if rng.random() < s.p_noise:
        img = img + rng.normal(0, rng.uniform(*s.noise_sigma), img.shape).astype(np.float32)
    out = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < s.p_jpeg:
        q = int(rng.integers(s.jpeg_quality[0], s.jpeg_quality[1] + 1))
        out = cv2.imdecode(cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])[1], cv2.IMREAD_COLOR)
    return out


def _source(image: np.ndarray, size: int, object_fraction: float) -> np.ndarray:
    """Square source at twice the crop size; a BGRA cut-out is padded so its object spans
    ``object_fraction`` of the side."""
    if image.ndim == 3 and image.shape[2] == 4:
        alpha = image[..., 3]
        ys, xs = np.nonzero(alpha > 16)
        if len(ys) == 0:
            raise ValueError("the cut-out's alpha channel is empty")
        obj = image[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
        side = int(math.ceil(max(obj.shape[:2]) / object_fraction))
        canvas = np.zeros((side, side, 4), np.uint8)
        y0, x0 = (side - obj.shape[0]) // 2, (side - obj.shape[1]) // 2
        canvas[y0:y0 + obj.shape[0], x0:x0 + obj.shape[1]] = obj
        return cv2.resize(canvas, (2 * size, 2 * size), interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(prepare_crop(image, 2 * size), (0, 0), 0.5)


def augment(image: np.ndarray, n: int, *, size: int = DEFAULT_CROP_SIZE, angle: float = 0.0,
            rotation_jitter: float | None = None, settings: AugmentSettings = AugmentSettings(),
            rng: np.random.Generator | int = 0, object_fraction: float = 0.75) -> np.ndarray:
    """Render ``n`` varied crops of one example; the first is the clean crop at ``angle``.

    Parameters
    ----------
    image : (H, W, 3) uint8 BGR, or (H, W, 4) uint8 BGRA cut-out
        The example (any size; squashed to a square as :func:`~assistant.vision.classify.prepare_crop`).
    n : int
        Number of crops, >= 1.
    size : int
        Crop side S (px).
    angle : float
        Orientation (degrees clockwise) of the prototype these crops belong to.
    rotation_jitter : float, optional
        +- degrees around ``angle``; default ``settings.small_rotation``.
    settings : AugmentSettings
    rng : numpy Generator or int seed
    object_fraction : float
        For cut-outs: the object's share of the crop side before scale jitter.

    Returns
    -------
    crops : (n, size, size, 3) uint8, BGR

    Raises
    ------
    ValueError
        If ``image`` is not (H, W, 3|4) uint8, ``n`` < 1 or a cut-out is fully transparent.
    """
    image = np.asarray(image)
    if image.ndim != 3 or image.shape[2] not in (3, 4) or image.dtype != np.uint8:
        raise ValueError(f"image must be (H, W, 3) BGR or (H, W, 4) BGRA uint8, got {image.shape} {image.dtype}")
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    jitter = settings.small_rotation if rotation_jitter is None else rotation_jitter
    return _render(_source(image, size, object_fraction), n, size, angle, jitter, settings, np.random.default_rng(rng))


def _render(src: np.ndarray, n: int, size: int, angle: float, jitter: float, settings: AugmentSettings,
            rng: np.random.Generator) -> np.ndarray:
    """:func:`augment` on a prepared source (see :func:`_source`)."""
    cutout = src.shape[2] == 4
    out = np.empty((n, size, size, 3), np.uint8)
    clean = replace(settings, scale=0.0, shift=0.0, tilt=0.0)
    for i in range(n):
        h = _homography(rng, size, src.shape[0], angle, 0.0 if i == 0 else jitter, clean if i == 0 else settings)
        border = cv2.BORDER_CONSTANT if cutout else cv2.BORDER_REFLECT_101
        warped = cv2.warpPerspective(src, h, (size, size), flags=cv2.INTER_LINEAR, borderMode=border).astype(np.float32)
        if cutout:
            colour = np.asarray(settings.background, np.float32)
            if i:
                colour = colour + rng.uniform(-settings.background_jitter, settings.background_jitter, 3)
            ground = np.broadcast_to(colour, warped[..., :3].shape)
            if i:
                texture = rng.normal(1, 0.08, (size, size)).astype(np.float32)
                ground = ground * cv2.GaussianBlur(texture, (0, 0), 2)[..., None]
            a = warped[..., 3:4] / 255.0
            warped = warped[..., :3] * a + ground * (1 - a)
        out[i] = np.clip(warped, 0, 255).astype(np.uint8) if i == 0 else _photometric(rng, warped, settings)
    return out


# --- teaching ------------------------------------------------------------------------------

def teach(examples: Sequence[Example], *, size: int = DEFAULT_CROP_SIZE,
          settings: AugmentSettings = AugmentSettings(), seed: int = 0,
          manifest: Mapping[str, Any] | None = None) -> CellClassifier:
    """Learn a classifier from examples: augment each in each allowed orientation, then fit.

    One prototype per example and orientation of :data:`ROTATIONS` ``[example.rotation]``; with k
    examples of its label and P prototypes in all, a prototype gets
    ``max(8, ceil(per_orientation / k), ceil(min_total / P))`` crops (the first one clean), so the
    covariance sees at least ``min_total`` crops. A second, harder set (:meth:`AugmentSettings.stronger`,
    seed + 1, a quarter as many crops) calibrates confidence.

    Parameters
    ----------
    examples : sequence of Example
        At least two distinct labels.
    size : int
        Crop side S of the model (px), a multiple of 16, >= 32.
    settings : AugmentSettings
    seed : int
        Seed of every random draw; the same inputs and seed give the same model.
    manifest : mapping, optional
        Extra manifest fields (game, slot, source...).

    Returns
    -------
    CellClassifier
        Its manifest also holds ``training_date`` (UTC, ISO 8601), ``examples_per_label``,
        ``augmentation`` and ``seed``.

    Raises
    ------
    ValueError
        On an unknown rotation mode, fewer than two labels, a bad image, or ``size`` not a
        multiple of 16 from 32 up.
    """
    if size < 32 or size % 16:
        raise ValueError(f"crop size must be a multiple of 16 from 32 up, got {size}")
    per_label: dict[str, int] = {}
    for ex in examples:
        if ex.rotation not in ROTATIONS:
            raise ValueError(f"{ex.name}: unknown rotation mode {ex.rotation!r}; use one of {sorted(ROTATIONS)}")
        per_label[ex.label] = per_label.get(ex.label, 0) + 1
    if len(per_label) < 2:
        raise ValueError(f"need at least two labels to teach, got {sorted(per_label)}")
    hard = settings.stronger()
    n_protos = sum(len(ROTATIONS[ex.rotation]) for ex in examples)
    crops, proto, cal_crops, cal_proto, proto_labels, proto_names = [], [], [], [], [], []
    for e, ex in enumerate(examples):
        image = np.asarray(ex.image)
        if image.ndim != 3 or image.shape[2] not in (3, 4) or image.dtype != np.uint8:
            raise ValueError(f"{ex.name}: image must be (H, W, 3) BGR or (H, W, 4) BGRA uint8, "
                             f"got {image.shape} {image.dtype}")
        src = _source(image, size, 0.75)
        jitter = 22.5 if ex.rotation == "any" else settings.small_rotation
        n = max(8, math.ceil(settings.per_orientation / per_label[ex.label]), math.ceil(settings.min_total / n_protos))
        for o, angle in enumerate(ROTATIONS[ex.rotation]):
            p = len(proto_labels)
            proto_labels.append(ex.label)
            proto_names.append(f"{ex.name}@{angle:g}")
            crops.append(_render(src, n, size, angle, jitter, settings, np.random.default_rng([seed, e, o])))
            m = max(2, n // 4)
            cal_crops.append(_render(src, m + 1, size, angle, jitter * 1.4, hard,
                                     np.random.default_rng([seed + 1, e, o]))[1:])
            proto += [p] * n
            cal_proto += [p] * m
    meta = {**(manifest or {}), "training_date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "examples_per_label": dict(sorted(per_label.items())), "augmentation": settings.to_dict(), "seed": seed,
            "rotation_of_label": {ex.label: ex.rotation for ex in examples},
            "examples": [{"name": ex.name, "label": ex.label, "source": ex.source} for ex in examples]}
    return fit_classifier(_features(np.concatenate(crops)), np.array(proto), proto_labels, crop_size=size,
                          prototype_names=proto_names, manifest=meta,
                          calibration=(_features(np.concatenate(cal_crops)), np.array(cal_proto)))


def _features(crops: np.ndarray, chunk: int = 1024) -> np.ndarray:
    return np.concatenate([cell_features(crops[i:i + chunk]) for i in range(0, len(crops), chunk)])


def forbidden_desert_label(folder: str, stem: str) -> tuple[str, str] | None:
    """Label and rotation mode of a Forbidden Desert piece, from its file stem (and folder).

    Names as in ``shared/components/forbidden-desert``, whatever the owner's folder is called:

    - a tile id gives the tile's *face*, ``gear_3`` -> ``gear``, ``well_1`` -> ``well``, otherwise the
      id (:func:`assistant.games.forbidden_desert.components.face_of`): tiles of one kind are the same
      piece for the rules even when their art differs; ``"half"`` for clue tiles, else ``"quarter"``;
    - backs: ``dune`` / ``dune_back`` -> ``dune_back``, ``water`` / ``water_back`` -> ``water_back``,
      ``crash_site_back``, and ``crash_site`` inside a folder called ``tile-backs`` (``"quarter"``);
    - storm cards: ``wind_N_1`` -> ``wind_n_1`` (the engine's spelling), ``sun_beats_down``,
      ``storm_picks_up``, and ``back`` in ``storm-cards`` -> ``storm_back`` (``"fixed"``);
    - parts and the flying machine by name (``"any"``: they lie at any angle);
    - in ``equipment-cards`` / ``adventurer-cards`` the stem, their backs ``equipment_back`` and
      ``adventurer_back`` (``"fixed"``).

    Returns ``None`` for anything else (``storm_spiral_texture``, the storm meter), which
    teaching skips.
    """
    from assistant.games.forbidden_desert.components import KIND_OF_TILE, PARTS, STORM_CARDS, face_of

    low = stem.lower()
    if folder == "tile-backs" and stem == "crash_site":
        return "crash_site_back", "quarter"
    if stem in KIND_OF_TILE:
        return face_of(stem), ("half" if stem.startswith("clue_") else "quarter")
    if low in ("dune", "water", "dune_back", "water_back", "crash_site_back"):
        return (low if low.endswith("_back") else f"{low}_back"), "quarter"
    if low in STORM_CARDS:
        return low, "fixed"
    if stem in PARTS or stem == "flying_machine":
        return stem, "any"
    if folder in ("storm-cards", "equipment-cards", "adventurer-cards"):
        back = folder.split("-")[0] + "_back"
        return (back if low.startswith("back") else stem), "fixed"
    return None


#: game id -> (label rule, slot kind -> the component folders it reads)
GAME_RULES: dict[str, tuple[LabelRule, dict[str, tuple[str, ...]]]] = {
    "forbidden-desert": (forbidden_desert_label, {
        "tile": ("tiles", "tile-backs"), "storm-card": ("storm-cards",), "part": ("parts",),
        "equipment-card": ("equipment-cards",), "adventurer-card": ("adventurer-cards",)}),
}


def _read_image(path: Path) -> np.ndarray:
    image = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if image is None:
        raise ValueError(f"{path}: not a readable image")
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.dtype != np.uint8:
        image = (image / 257).astype(np.uint8)
    return image


def printed_cell_example(game: str, label: str = EMPTY) -> Example:
    """What an empty cell looks like: the centre cell of ``game``'s printed mat, as an example.

    Drawn with :func:`assistant.vision.printing.draw_mat` at 256 px per cell and cut to the cell's
    bounding box as :func:`assistant.vision.rectify.cell_crop` cuts crops (white paper, the grey
    outline, the small cell key). Teaching it gives bare cells a class of their own; without one
    a bare cell is read as the most texture-less piece (the mirage) with high confidence.
    Rotation mode ``"fixed"``: the mat does not turn in the rectified image.

    Returns
    -------
    Example
        ``image`` (256, 256, 3) uint8 BGR, ``source`` ``"printed mat"``.

    Raises
    ------
    ValueError
        If ``game`` has no mat.
    """
    from .mats import mat_layout
    from .printing import draw_mat

    try:
        layout = mat_layout(game)
    except KeyError:
        raise ValueError(f"{game!r} has no printed mat to take an empty cell from") from None
    cell = layout.cells[len(layout.cells) // 2]
    poly = np.asarray(cell.polygon_mm, np.float64)
    side = float(max(np.ptp(poly[:, 0]), np.ptp(poly[:, 1])))
    ppm = 256.0 / side
    mat = draw_mat(layout, ppm)
    x0, y0 = (int(round((c - side / 2) * ppm)) for c in cell.center_mm)
    image = np.ascontiguousarray(mat[y0:y0 + 256, x0:x0 + 256])
    return Example(f"printed_{label}", label, image, "fixed", "printed mat")


def image_examples(source: str | Path | Sequence[str | Path] | Mapping[str, str | Path | Sequence[str | Path]], *,
                   game: str | None = None, slot: str | None = None, rotation: str = "fixed",
                   label_rule: LabelRule | None = None) -> list[Example]:
    """The examples found in image files, labelled by file stem (or by a game's rule).

    Parameters
    ----------
    source : folder, sequence of folders, or mapping label -> file(s)
        A folder holds image files (``.jpg .jpeg .png .bmp .webp``) whose stem is the label, or
        component folders (``tiles/``, ``storm-cards/``...) of which ``slot`` picks the ones of
        ``GAME_RULES[game]``. A mapping names the label of each file itself.
    game, slot : str, optional
        With a game of :data:`GAME_RULES`, its rule labels folder files (e.g. ``gear_3`` ->
        ``gear``) and ``slot`` selects sub-folders.
    rotation : str
        Rotation mode when no rule applies (a game without rules, or a mapping); files that a
        game's rule does not know (it returns ``None``) are skipped.
    label_rule : callable, optional
        ``(folder name, stem) -> (label, rotation) | None``; overrides the game's rule.

    Returns
    -------
    list of Example, in sorted path order.

    Raises
    ------
    FileNotFoundError
        If a folder or file does not exist.
    ValueError
        If no image is found, a file cannot be read, or the slot is unknown for the game.
    """
    rule, slots = GAME_RULES.get(game or "", (None, {}))
    rule = label_rule or rule
    if slot and slots and slot not in slots:
        raise ValueError(f"unknown slot {slot!r} for {game}; use one of {sorted(slots)}")
    out: list[Example] = []
    if isinstance(source, Mapping):
        for label, paths in source.items():
            for path in [paths] if isinstance(paths, (str, Path)) else paths:
                path = Path(path)
                if not path.is_file():
                    raise FileNotFoundError(f"{path}: no such image")
                out.append(Example(path.stem, label, _read_image(path), rotation, str(path)))
        return out
    folders = [Path(source)] if isinstance(source, (str, Path)) else [Path(p) for p in source]
    for folder in folders:
        if not folder.is_dir():
            raise FileNotFoundError(f"{folder}: no such folder")
        files = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not files:
            wanted = slots.get(slot or "", None)
            subs = sorted(p for p in folder.iterdir() if p.is_dir() and (wanted is None or p.name in wanted))
            out += image_examples(subs, game=game, slot=slot, rotation=rotation, label_rule=label_rule) if subs else []
            continue
        for path in files:
            found = rule(folder.name, path.stem) if rule else None
            if rule and found is None:
                continue
            label, rot = found if found else (path.stem, rotation)
            out.append(Example(path.stem, label, _read_image(path), rot, str(path)))
    if not out:
        raise ValueError(f"no piece images found in {', '.join(str(f) for f in folders)}")
    return out


def teach_from_images(source: str | Path | Sequence[str | Path] | Mapping[str, Any], *, game: str | None = None,
                      slot: str | None = None, rotation: str = "fixed", label_rule: LabelRule | None = None,
                      empty_cell: bool = False, size: int = DEFAULT_CROP_SIZE,
                      settings: AugmentSettings = AugmentSettings(), seed: int = 0) -> CellClassifier:
    """Teach from photos: :func:`image_examples` then :func:`teach`.

    With ``empty_cell``, the printed mat's bare cell (:func:`printed_cell_example`) is taught as
    ``"empty"`` too, unless a photo is already labelled so. Other parameters and the errors are
    those of the two functions (``ValueError`` also for ``empty_cell`` with a game without a mat).
    The manifest records ``game``, ``slot``, ``source`` (``"images"``) and the folders or files
    read. The model keeps feature statistics only, never the images.
    """
    examples = image_examples(source, game=game, slot=slot, rotation=rotation, label_rule=label_rule)
    if empty_cell and not any(ex.label == EMPTY for ex in examples):
        examples.append(printed_cell_example(game or ""))
    where = [str(source)] if isinstance(source, (str, Path)) else (
        sorted({ex.source for ex in examples}) if isinstance(source, Mapping) else [str(s) for s in source])
    return teach(examples, size=size, settings=settings, seed=seed,
                 manifest={"game": game, "slot": slot, "source": {"kind": "images", "paths": where}})


def teach_from_crops(crops: Mapping[str, Sequence[np.ndarray]], *, game: str | None = None, slot: str | None = None,
                     rotation: str = "fixed", label_rule: LabelRule | None = None,
                     size: int = DEFAULT_CROP_SIZE, settings: AugmentSettings = AugmentSettings(),
                     seed: int = 0, source: str = "mat") -> CellClassifier:
    """Teach from crops sampled off the mat: ``{key: [crop, ...]}``, every crop one example.

    Parameters
    ----------
    crops : mapping str -> sequence of (h, w, 3) uint8 BGR
        The key is what was laid there (from :func:`prescribed_arrangement`): a label, or an id
        that the game's rule maps to a label (``"gear_3"`` -> ``"gear"`` for Forbidden Desert
        tiles, with ``slot="tile"``).
    game, slot, rotation, label_rule, size, settings, seed
        As :func:`teach_from_images`; the rule is asked with an empty folder name, and keys it
        does not know keep their own name as label and ``rotation``.
    source : str
        Recorded in the manifest (e.g. the camera).

    Raises
    ------
    ValueError
        As :func:`teach`, or when a key has no crops.
    """
    rule = label_rule or GAME_RULES.get(game or "", (None, {}))[0]
    examples = []
    for key, items in crops.items():
        if len(items) == 0:
            raise ValueError(f"{key}: no crops")
        label, rot = (rule("", key) if rule else None) or (key, rotation)
        examples += [Example(f"{key}/{i}", label, np.asarray(c), rot, source) for i, c in enumerate(items)]
    return teach(examples, size=size, settings=settings, seed=seed,
                 manifest={"game": game, "slot": slot, "source": {"kind": "crops", "from": source}})


# --- the prescribed arrangement --------------------------------------------------------------

def prescribed_arrangement(labels: Sequence[str], cells: Sequence[Hashable]) -> list[dict[Hashable, str]]:
    """Where the owner should lay each piece: round r fills ``cells`` in order with the next labels.

    Parameters
    ----------
    labels : sequence of str
        What to lay out (a label may repeat: two copies of one piece).
    cells : sequence of cell keys
        The free cells in laying order, in the game's own keys (``(row, col)`` for Forbidden Desert).

    Returns
    -------
    list of dict cell -> label
        ``ceil(len(labels) / len(cells))`` rounds; the last may be partial.

    Raises
    ------
    ValueError
        If ``cells`` is empty or repeats a cell.

    >>> prescribed_arrangement(["a", "b", "c"], [(0, 0), (0, 1)])
    [{(0, 0): 'a', (0, 1): 'b'}, {(0, 0): 'c'}]
    >>> prescribed_arrangement(["a"], [])
    Traceback (most recent call last):
    ...
    ValueError: no cells to lay the pieces on
    """
    if not cells:
        raise ValueError("no cells to lay the pieces on")
    if len(set(cells)) != len(cells):
        raise ValueError("cells repeat")
    n = len(cells)
    return [dict(zip(cells, labels[i:i + n])) for i in range(0, len(labels), n)]


def forbidden_desert_arrangement() -> list[dict[tuple[int, int], str]]:
    """The two teaching rounds of Forbidden Desert tiles on the 5x5 grid.

    Round 1: the 24 tiles face up, tile ids in the engine's order (``crash_site``, ``well_1`` ...)
    on every cell but the storm's ``(2, 2)``, row by row. Round 2: each tile flipped where it lies,
    so the cell's label is the tile's back (``crash_site_back``, ``water_back``, ``dune_back``).
    In both rounds the storm's cell stays bare: ``(2, 2)`` is ``"empty"``, so the empty mat is
    taught in the owner's own light as well.

    >>> rounds = forbidden_desert_arrangement()
    >>> len(rounds[0]), rounds[0][(0, 0)], rounds[1][(0, 0)], rounds[0][(2, 2)]
    (25, 'crash_site', 'crash_site_back', 'empty')
    """
    from assistant.games.forbidden_desert.components import SIZE, START_STORM, TILE_IDS, back_of

    cells = [(r, c) for r in range(SIZE) for c in range(SIZE) if (r, c) != START_STORM]
    faces = prescribed_arrangement(list(TILE_IDS), cells)[0]
    backs = {cell: ("crash_site_back" if back_of(t) == "crash_site" else back_of(t)) for cell, t in faces.items()}
    return [{**faces, START_STORM: EMPTY}, {**backs, START_STORM: EMPTY}]


def collect_round_crops(rounds: Sequence[Mapping[Hashable, str]],
                        crops: Sequence[Mapping[Hashable, np.ndarray]]) -> dict[str, list[np.ndarray]]:
    """Pair each round's cell crops with what was laid there: the input of :func:`teach_from_crops`.

    Parameters
    ----------
    rounds : sequence of dict cell -> key
        From :func:`prescribed_arrangement` or :func:`forbidden_desert_arrangement`.
    crops : sequence of dict cell -> (S, S, 3) uint8 BGR
        One per round, as :func:`assistant.vision.rectify.cell_crops` returns them for a still
        frame of that round (cells not in the round are ignored).

    Returns
    -------
    dict key -> list of crops, in round order.

    Raises
    ------
    ValueError
        If the numbers of rounds differ or a round's crops miss one of its cells.
    """
    if len(rounds) != len(crops):
        raise ValueError(f"{len(rounds)} rounds laid out but {len(crops)} sets of crops")
    out: dict[str, list[np.ndarray]] = {}
    for r, (placed, got) in enumerate(zip(rounds, crops), 1):
        missing = [cell for cell in placed if cell not in got]
        if missing:
            raise ValueError(f"round {r}: no crop of cell(s) {missing}")
        for cell, key in placed.items():
            out.setdefault(key, []).append(got[cell])
    return out


def format_arrangement(rounds: Sequence[Mapping[tuple[int, int], str]]) -> str:
    """Text grids, one per round, of an arrangement on ``(row, col)`` cells (cells left out as ``.``).

    Columns are as wide as the round's longest label.

    >>> print(format_arrangement([{(0, 0): "a", (1, 1): "bb"}]))
    round 1
    a  .
    .  bb
    """
    blocks = []
    for r, placed in enumerate(rounds, 1):
        width = max(len(label) for label in placed.values())
        rows = 1 + max(k[0] for k in placed)
        cols = 1 + max(k[1] for k in placed)
        lines = [" ".join(placed.get((y, x), ".").ljust(width) for x in range(cols)).rstrip() for y in range(rows)]
        blocks.append(f"round {r}\n" + "\n".join(lines))
    return "\n\n".join(blocks)


# --- command line ---------------------------------------------------------------------------

def add_teach_command(subparsers: Any) -> None:
    """Register ``assistant teach`` on an ``argparse`` sub-parser collection (sets ``func``)."""
    p = subparsers.add_parser(
        "teach", help="teach the assistant your pieces, from photos or laid out on the mat",
        description="Learn a piece classifier from one photo per piece (file stem = label) and save it "
                    "as model.npz + manifest.json. Models taught on a publisher's artwork stay on your machine.")
    from ..games import game_ids

    p.add_argument("--game", required=True, choices=game_ids(), help="game id, e.g. forbidden-desert")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--images", action="append", metavar="DIR", help="folder of photos (repeatable)")
    src.add_argument("--source", metavar="S", help="camera index or video to sample the laid-out pieces from")
    p.add_argument("--slot", help="slot kind, e.g. tile, storm-card, part (Forbidden Desert picks folders by it); "
                                  "'table' teaches Forbidden Desert's whole-table detector for `assistant detect`")
    p.add_argument("-o", "--output", help="model folder (default models/<game>-<slot>)")
    p.add_argument("--size", type=int, default=DEFAULT_CROP_SIZE, help="crop side in px (multiple of 16)")
    p.add_argument("--rotation", choices=sorted(ROTATIONS), default="fixed",
                   help="rotation mode of pieces the game's rule does not cover")
    p.add_argument("--crops", type=int, default=AugmentSettings.min_total,
                   help="at least this many augmented crops in all (fewer: faster, less robust)")
    p.add_argument("--no-empty", dest="empty", action="store_false",
                   help="do not teach the printed mat's bare cell as 'empty' (taught for cells by default)")
    p.add_argument("--seed", type=int, default=0, help="seed of the augmentation")
    p.set_defaults(func=teach_main)


def _teach_table(args: Any, out: Path, started: float) -> int:
    """``--slot table`` for Forbidden Desert: the whole-table detector. Tile faces and backs, the
    storm cards and the parts are read by matching the owner's photos directly (``--images
    DIR``, file names as in the component folder; :mod:`.detectors.desert_flat`), or the
    project's own art (``--images own-art``); what lies on the tiles and the pawns' moves are
    read by the models shipped with the project, taught on varied tables of its own art. Prints
    one sentence per thing the owner should know about the folder, and a progress bar."""
    from .detectors import forbidden_desert as fd
    from .detectors.desert_flat import DesertFlat, desert_pictures
    from .render.desert import ProceduralArt

    folder = args.images[0]
    if folder != "own-art" and not Path(folder).is_dir():
        print(f"teach: no component photos under {folder}", file=sys.stderr)
        return 2
    steps = ("reading your photos", "preparing the pictures to match", "saving")
    bar = _progress(len(steps))
    try:
        bar(steps[0])
        pictures = desert_pictures(None if folder == "own-art" else folder, ProceduralArt())
        for note in pictures.notes:
            print(f"note: {note}", flush=True)
        bar(steps[1])
        flat = DesertFlat(pictures.tiles, pictures.cards, parts=pictures.parts)
        flat.bank()
        det = fd.teach(flat)
        bar(steps[2])
        det.save(out)
    except (OSError, ValueError) as exc:
        print(f"\nteach: {exc}", file=sys.stderr)
        return 2
    print(f"taught the forbidden-desert table detector from {len(pictures.tiles)} tile, {len(pictures.cards)} "
          f"storm-card and {len(pictures.parts)} part pictures in {time.perf_counter() - started:.0f} s -> {out}")
    return 0


def _progress(total: int) -> Callable[[str], None]:
    """A progress bar on standard error: each call advances it one step and names the step."""
    done = [0]

    def step(what: str) -> None:
        done[0] += 1
        filled = round(20 * done[0] / total)
        print(f"\r[{'#' * filled}{'.' * (20 - filled)}] {done[0]}/{total} {what}".ljust(70),
              end="\n" if done[0] == total else "", file=sys.stderr, flush=True)

    return step


def _teach_from_source(args: Any, slot: str | None) -> CellClassifier:
    """Print the arrangement, photograph its rounds from ``args.source`` and teach from them.

    Raises
    ------
    ValueError
        For a game or slot without a prescribed arrangement.
    RuntimeError
        When the source cannot be opened or ends before every round was photographed.
    """
    from .enrol import capture_rounds
    from .mats import mat_layout
    from .sources import open_source

    if args.game != "forbidden-desert" or slot != "tile":
        raise ValueError("teaching from the camera has a prescribed arrangement for forbidden-desert tiles only; "
                         "use --images DIR for other pieces")
    rounds = forbidden_desert_arrangement()
    print(format_arrangement(rounds), flush=True)
    with open_source(args.source) as source:
        crops = capture_rounds(source, mat_layout(args.game), rounds, source.fps, args.size,
                               report=lambda line: print(line, flush=True))
    return teach_from_crops(collect_round_crops(rounds, crops), game=args.game, slot=slot, size=args.size,
                            seed=args.seed, settings=AugmentSettings(min_total=args.crops))


def teach_main(args: Any) -> int:
    """Run ``assistant teach``; returns the exit status (0 taught, 2 bad input or not available).

    Prints one line per label taught and the model folder; errors go to standard error as one
    line. For the cells of a game with a printed mat (slot ``tile`` or none) the bare cell is
    taught as ``empty`` unless ``--no-empty``.
    ``--source`` prints the prescribed arrangement (Forbidden Desert tiles), photographs each
    round as it is laid on the mat (:mod:`.enrol`) and teaches from the cell crops.
    """
    slot = args.slot or ("tile" if args.game in GAME_RULES else None)
    out = Path(args.output or f"models/{args.game}-{slot or 'pieces'}")
    started = time.perf_counter()
    from .mats import MATS

    if args.game == "forbidden-desert" and slot == "table" and args.images:
        return _teach_table(args, out, started)
    try:
        if args.source is not None:
            model = _teach_from_source(args, slot)
        else:
            model = teach_from_images(args.images, game=args.game, slot=slot, rotation=args.rotation,
                                      empty_cell=args.empty and args.game in MATS and slot in (None, "tile"),
                                      size=args.size, seed=args.seed,
                                      settings=AugmentSettings(min_total=args.crops))
        save(model, out)
    except (OSError, ValueError, RuntimeError) as exc:
        print(f"teach: {exc}", file=sys.stderr)
        return 2
    for label, count in model.manifest["examples_per_label"].items():
        print(f"{label}: {count} example(s), rotation {model.manifest['rotation_of_label'][label]}")
    print(f"taught {len(model.labels)} labels in {time.perf_counter() - started:.1f} s -> {out} "
          f"({FEATURE_VERSION}, {model.crop_size} px crops)")
    return 0

