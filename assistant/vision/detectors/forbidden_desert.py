"""Forbidden Desert detector: per cell the face, the sand, the pawns and the parts; the storm card.

Teaching: the owner's pieces (their photos, or the project's own art) are laid into many
synthetic table views by the scene renderer (random tiles, sand, pawns and parts on random
cells, random camera angle, light, white balance, noise and blur), and one classifier per slot
kind is fitted on the crops those views give (:func:`teach`). The photos have no sand markers
or pawns, so those come from the project's own art. Reading (:meth:`FDDetector.read`) cuts the
same crops from a real (undistorted) frame and classifies them:

- ``face``: the tile's visible side, 21 labels (3 backs, 17 faces, ``storm`` for the empty cell);
- ``sand``: ``none`` / ``light`` / ``dark`` from a crop around the cell's centre;
- ``pawns``: one present/absent classifier per pawn colour on a perspective-aware crop that
  holds standing pieces (:func:`~..rectify.tall_crop`); the reading joins the colours present;
- ``parts``: one present/absent classifier per part on the cell crop;
- ``card``: the storm card in the mat's card place (14 faces, ``none``).

A joined reading's confidence and margin are the weakest of its parts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from itertools import product
from pathlib import Path
from typing import Iterable, Iterator, Mapping

import cv2
import numpy as np

from ...tracking.base import Reading, Slot
from ..classify import CellClassifier, _label_scores, _whitened, cell_features, fit_classifier, load, save
from ..mats import MatLayout, mat_layout
from ..rectify import cell_crop, square_crop

CROP = 64
SAND_SIDE_MM = 34.0
PAWN_HEIGHT_MM = 32.0
COLOURS = ("red", "black", "green", "white", "yellow", "blue")
PAWN_COLOURS = COLOURS
ADVENTURER_OF = {"red": "archeologist", "black": "climber", "green": "explorer", "white": "meteorologist",
                 "yellow": "navigator", "blue": "water_carrier"}
PARTS = ("engine", "navigation_deck", "propeller", "solar_crystal")


def face_label(render_label: str) -> str:
    """The renderer's visual class of a cell's top piece -> the table's face label."""
    if render_label == "empty":
        return "storm"
    kind, _, name = render_label.partition(":")
    if kind == "back":
        return "crash_site_back" if name == "crash_site" else name
    return name.rstrip("0123456789").rstrip("_") if not name.startswith("clue_") else name


def sand_reading(count: int) -> str:
    """Markers stacked on a cell -> ``none`` / ``light`` / ``dark`` (rules §1.3)."""
    return "none" if count == 0 else ("light" if count == 1 else "dark")


@dataclass(frozen=True)
class Crops:
    """The crops of one frame, per slot kind: ``dict cell -> (64, 64, 3) uint8``."""

    face: dict
    sand: dict
    tall: dict
    card: np.ndarray | None


def card_crop(frame: np.ndarray, homography: np.ndarray, layout: MatLayout, size: int = CROP) -> np.ndarray:
    """The card place, warped to ``(size, size, 3)`` (squashed from its 75 x 100 mm)."""
    x0, y0, x1, y1 = layout.card_place_mm
    src = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32).reshape(-1, 1, 2)
    img = cv2.perspectiveTransform(src, homography).reshape(-1, 2).astype(np.float32)
    dst = np.array([[0, 0], [size - 1, 0], [size - 1, size - 1], [0, size - 1]], np.float32)
    return cv2.warpPerspective(frame, cv2.getPerspectiveTransform(img, dst), (size, size), flags=cv2.INTER_AREA)


def cut(frame: np.ndarray, homography: np.ndarray, camera_matrix: np.ndarray, layout: MatLayout,
        cells: Iterable | None = None, with_card: bool = True) -> Crops:
    """Every crop the detector reads, for ``cells`` (default all) and the card place."""
    cells = list(cells) if cells is not None else [c.key for c in layout.cells]
    face, sand, tall = {}, {}, {}
    for key in cells:
        cell = layout.cell(key)
        face[key] = cell_crop(frame, homography, cell, CROP, inset=0.03)
        sand[key] = square_crop(frame, homography, cell.center_mm, SAND_SIDE_MM, CROP)
        tall[key] = pawn_crop(frame, homography, camera_matrix, cell, CROP)
    card = card_crop(frame, homography, layout) if with_card and layout.card_place_mm else None
    return Crops(face, sand, tall, card)


def pawn_crop(frame: np.ndarray, homography: np.ndarray, camera_matrix: np.ndarray, cell, size: int = CROP,
              inset_mm: float = 4.0) -> np.ndarray:
    """The space a pawn standing on ``cell`` shows in: the tile (the cell less ``inset_mm``, so
    the white gaps of the mat are left out) and the same square lifted by ``PAWN_HEIGHT_MM``,
    projected with the pose of the mat; everything else is painted with the region's median
    colour, so that a neighbour's pawn or the mat does not count. ``(size, size, 3) uint8``."""
    from ..rectify import pose_from_homography

    r, t = pose_from_homography(homography, camera_matrix)
    poly = np.array(cell.polygon_mm, np.float64)
    centre = poly.mean(axis=0)
    poly = centre + (poly - centre) * (1.0 - 2 * inset_mm / float(np.ptp(poly[:, 0])))
    base = np.column_stack([poly, np.zeros(len(poly))])
    pts = np.vstack([base, base - np.array([0.0, 0.0, PAWN_HEIGHT_MM])]) @ r.T + t
    px = (pts @ camera_matrix.T)[:, :2] / pts[:, 2:3]
    x0, y0 = np.floor(px.min(axis=0))
    x1, y1 = np.ceil(px.max(axis=0))
    side = max(x1 - x0, y1 - y0, 1.0)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    scale = size / side
    m = np.array([[scale, 0, -(cx - side / 2) * scale], [0, scale, -(cy - side / 2) * scale]], np.float64)
    crop = cv2.warpAffine(frame, m, (size, size), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
    local = (px * scale + m[:, 2]).astype(np.int32)
    n = len(poly)
    mask = np.zeros((size, size), np.uint8)
    cv2.fillConvexPoly(mask, local[:n], 255)          # one at a time: fillPoly would XOR the overlap
    cv2.fillConvexPoly(mask, local[n:], 255)
    for i in range(n):                                # the sides between the two squares
        j = (i + 1) % n
        cv2.fillConvexPoly(mask, np.array([local[i], local[j], local[n + j], local[n + i]]), 255)
    fill = np.median(crop[mask > 0], axis=0) if mask.any() else np.array([128, 128, 128])
    crop[mask == 0] = fill.astype(np.uint8)
    return crop


HUE_BINS, SAT_BINS, VAL_BINS, GRID = 18, 3, 3, 4


def colour_features(crops: np.ndarray) -> np.ndarray:
    """Where saturated or extreme colours lie in each crop: a hue x saturation x value histogram
    of the whole crop and, per bin, its largest share in any of 4 x 4 sub-blocks (a small
    pawn is a large share of one block), after grey-world balance. ``(N, 2 * 162) float32``."""
    from ..classify import grey_world

    bal = (np.clip(grey_world(crops), 0, 1) * 255).astype(np.uint8)
    out = []
    for img in bal:
        hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
        h = (hsv[..., 0].astype(int) * HUE_BINS) // 180
        s = np.minimum(hsv[..., 1].astype(int) * SAT_BINS // 256, SAT_BINS - 1)
        v = np.minimum(hsv[..., 2].astype(int) * VAL_BINS // 256, VAL_BINS - 1)
        code = (h * SAT_BINS + s) * VAL_BINS + v
        n = HUE_BINS * SAT_BINS * VAL_BINS
        whole = np.bincount(code.ravel(), minlength=n) / code.size
        b = img.shape[0] // GRID
        blocks = [np.bincount(code[i:i + b, j:j + b].ravel(), minlength=n) / (b * b)
                  for i in range(0, GRID * b, b) for j in range(0, GRID * b, b)]
        out.append(np.concatenate([whole, np.max(blocks, axis=0)]))
    return np.sqrt(np.array(out, np.float32))


def _fit(feats: np.ndarray, labels: list[str], name: str) -> CellClassifier:
    """One prototype per label, fitted on features of crops that already carry the nuisances."""
    names = sorted(set(labels))
    index = {n: i for i, n in enumerate(names)}
    proto = np.array([index[lab] for lab in labels])
    return fit_classifier(feats, proto, names, crop_size=CROP, manifest={"game": "forbidden-desert", "slot": name})


def _predict(model: CellClassifier, feats: np.ndarray) -> list[Reading]:
    """Readings for feature rows; the confidence is the softmax share of the top label among
    the labels (no "none of these": every crop here is one of the taught slot contents)."""
    scores = _label_scores(model, _whitened(model, feats))
    order = np.argsort(-scores, axis=1)
    top, second = order[:, 0], order[:, 1]
    rows = np.arange(len(feats))
    z = (scores - scores[rows, top][:, None]) / max(model.temperature, 1e-3)
    conf = 1.0 / np.exp(z).sum(axis=1)
    margin = scores[rows, top] - scores[rows, second]
    return [Reading(model.labels[t], float(c), float(m)) for t, c, m in zip(top, conf, margin)]


class FDDetector:
    """The taught Forbidden Desert classifiers (see the module docstring).

    Attributes
    ----------
    face, sand, card : CellClassifier
    pawns : dict colour -> CellClassifier
        Binary (``present`` / ``absent``) per pawn colour.
    parts : dict part -> CellClassifier
        Binary per part.
    """

    def __init__(self, face, sand, card, pawns, parts, pawn_colour=None, layout: MatLayout | None = None):
        self.face, self.sand, self.card, self.pawns, self.parts = face, sand, card, pawns, parts
        self.pawn_colour = pawn_colour
        self.layout = layout or mat_layout("forbidden-desert")

    def read_crops(self, crops: Crops) -> dict[Slot, Reading]:
        """Readings of every slot the crops cover."""
        out: dict[Slot, Reading] = {}
        keys = list(crops.face)
        if keys:
            f_face = cell_features(np.stack([crops.face[k] for k in keys]))
            f_sand = cell_features(np.stack([crops.sand[k] for k in keys]))
            f_tall = colour_features(np.stack([crops.tall[k] for k in keys]))
            for key, r in zip(keys, _predict(self.face, f_face)):
                out[("face", *key)] = r
            for key, r in zip(keys, _predict(self.sand, f_sand)):
                out[("sand", *key)] = r
            out.update(self._joined("pawns", keys, f_tall, self.pawns, COLOURS))
            out.update(self._joined("parts", keys, f_face, self.parts, PARTS))
        if crops.card is not None:
            out[("card",)] = _predict(self.card, cell_features(crops.card[None]))[0]
        return out

    @staticmethod
    def _joined(kind: str, keys, feats, models: Mapping[str, CellClassifier], order) -> dict[Slot, Reading]:
        per = {name: _predict(models[name], feats) for name in order if name in models}
        out = {}
        for i, key in enumerate(keys):
            present = [n for n in order if n in per and per[n][i].label == "present"]
            conf = min((per[n][i].confidence for n in per), default=1.0)
            margin = min((per[n][i].margin for n in per), default=10.0)
            out[(kind, *key)] = Reading("+".join(sorted(present)), conf, margin)
        return out

    def read(self, frame: np.ndarray, homography: np.ndarray, camera_matrix: np.ndarray,
             slots: Iterable[Slot] | None = None, reference: tuple | None = None) -> dict[Slot, Reading]:
        """Read slots off an undistorted frame ``(H, W, 3) uint8`` BGR.

        Parameters
        ----------
        homography : (3, 3)
            Mat mm -> frame px.
        camera_matrix : (3, 3)
            Intrinsics (for the standing pieces' crops).
        slots : iterable of slots, optional
            Default: every slot of the table.
        reference : (frame, homography, pawns), optional
            The last committed still frame, its homography and the pawn colours the engine
            put on each cell then (``dict cell -> set``). With it (and a taught blob-colour
            model) pawns are read from what changed since (:func:`pawn_changes`), which a
            tile's painting cannot confuse; without it, from the absolute classifiers.
        """
        cells = None if slots is None else sorted({s[1:] for s in slots if s != ("card",)})
        with_card = slots is None or ("card",) in set(slots)
        crops = cut(frame, homography, camera_matrix, self.layout, cells, with_card)
        out = self.read_crops(crops)
        if reference is not None and self.pawn_colour is not None:
            ref_frame, ref_h, ref_pawns = reference
            for key, now in crops.tall.items():
                then = pawn_crop(ref_frame, ref_h, camera_matrix, self.layout.cell(key))
                out[("pawns", *key)] = pawn_reading(set(ref_pawns.get(key, ())),
                                                    pawn_changes(self.pawn_colour, then, now))
        return out

    def save(self, folder: str | Path) -> Path:
        """Write every classifier under ``folder`` (one sub-folder each) and an index."""
        folder = Path(folder)
        parts = {"face": self.face, "sand": self.sand, "card": self.card,
                 **{f"pawn-{c}": m for c, m in self.pawns.items()}, **{f"part-{p}": m for p, m in self.parts.items()}}
        if self.pawn_colour is not None:
            parts["pawn-colour"] = self.pawn_colour
        for name, model in parts.items():
            save(model, folder / name)
        (folder / "detector.json").write_text(json.dumps({"game": "forbidden-desert", "models": sorted(parts)}, indent=1))
        return folder

    @classmethod
    def load(cls, folder: str | Path) -> "FDDetector":
        """Read a detector written by :meth:`save`.

        Raises
        ------
        OSError, ValueError
            When the folder or a model is missing or unreadable.
        """
        folder = Path(folder)
        index = json.loads((folder / "detector.json").read_text())
        models = {name: load(folder / name) for name in index["models"]}
        pawns = {n[len("pawn-"):]: m for n, m in models.items() if n.startswith("pawn-") and n != "pawn-colour"}
        parts = {n[len("part-"):]: m for n, m in models.items() if n.startswith("part-")}
        return cls(models["face"], models["sand"], models["card"], pawns, parts, models.get("pawn-colour"))


# --- teaching on synthetic views ------------------------------------------------------------------

def truth_of(scene) -> dict[Slot, str]:
    """The table labels of a rendered scene (what a perfect reader would say)."""
    out: dict[Slot, str] = {}
    for key, content in scene.contents().items():
        out[("face", *key)] = face_label(content.label)
        out[("sand", *key)] = sand_reading(content.sand)
        colours = sorted({_colour(p) for p in content.pawns})
        out[("pawns", *key)] = "+".join(colours)
        out[("parts", *key)] = "+".join(sorted(p.split(":", 1)[1] for p in content.parts))
    card = next((f.label for f in scene.flats if f.kind == "card"), None)
    out[("card",)] = card.split(":", 1)[1] if card and card != "storm:back" else "none"
    return out


def _colour(pawn_label: str) -> str:
    adventurer = pawn_label.split(":", 1)[1]
    return next(c for c, a in ADVENTURER_OF.items() if a == adventurer)


def teach(views: Iterator, layout: MatLayout | None = None, moves: Iterator | None = None) -> FDDetector:
    """Fit the detector on rendered views.

    Parameters
    ----------
    views : iterator of (frame, homography, camera_matrix, scene)
        Undistorted frames with their truth (see :mod:`assistant.vision.detectors.synth`).
    moves : iterator, optional
        Pawn moves for the blob-colour model (:func:`~.synth.pawn_moves`: tuples whose first
        four items are before crop, after crop, colour that came, colour that left).

    Returns
    -------
    FDDetector

    Raises
    ------
    ValueError
        When a slot kind saw fewer than two labels (too few views).
    """
    layout = layout or mat_layout("forbidden-desert")
    rows: dict[str, list] = {k: [] for k in ("face", "sand", "card", "tall", "facecrop")}
    labels: dict[str, list] = {k: [] for k in ("face", "sand", "card")}
    pawn_truth: list[set] = []
    part_truth: list[set] = []
    for frame, homography, camera_matrix, scene in views:
        crops = cut(frame, homography, camera_matrix, layout)
        truth = truth_of(scene)
        for key in crops.face:
            rows["face"].append(crops.face[key])
            labels["face"].append(truth[("face", *key)])
            rows["sand"].append(crops.sand[key])
            labels["sand"].append(truth[("sand", *key)])
            rows["tall"].append(crops.tall[key])
            pawn_truth.append(set(filter(None, truth[("pawns", *key)].split("+"))))
            part_truth.append(set(filter(None, truth[("parts", *key)].split("+"))))
        if crops.card is not None:
            rows["card"].append(crops.card)
            labels["card"].append(truth[("card",)])
    f_face = cell_features(np.stack(rows["face"]))
    face = _fit(f_face, labels["face"], "face")
    sand = _fit(cell_features(np.stack(rows["sand"])), labels["sand"], "sand")
    card = _fit(cell_features(np.stack(rows["card"])), labels["card"], "card")
    f_tall = colour_features(np.stack(rows["tall"]))
    pawns = {c: _fit(f_tall, ["present" if c in t else "absent" for t in pawn_truth], f"pawn-{c}") for c in COLOURS}
    parts = {p: _fit(f_face, ["present" if p in t else "absent" for t in part_truth], f"part-{p}") for p in PARTS}
    colour = teach_pawn_colours(m[:4] for m in moves) if moves is not None else None
    return FDDetector(face, sand, card, pawns, parts, colour, layout)


# --- pawns by change ----------------------------------------------------------------------------

PAWN_AREA = (12, 1200)           #: pixel area of one pawn's change blob in a 64 px crop (min, max)
NOT_A_PAWN = "none"


def blob_features(pixels: np.ndarray) -> np.ndarray:
    """Colour of a blob's pixels ``(n, 3) uint8`` BGR: mean and spread of Lab and the median
    HSV, ``(9,) float32`` (what tells a plastic pawn from the painting under it)."""
    lab = cv2.cvtColor(pixels.reshape(-1, 1, 3), cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float32)
    hsv = cv2.cvtColor(pixels.reshape(-1, 1, 3), cv2.COLOR_BGR2HSV).reshape(-1, 3).astype(np.float32)
    hue = np.median(hsv[:, 0]) * np.pi / 90.0
    return np.array([*lab.mean(axis=0), *lab.std(axis=0), np.cos(hue) * np.median(hsv[:, 1]),
                     np.sin(hue) * np.median(hsv[:, 1]), np.median(hsv[:, 2])], np.float32)


def _balanced_pair(before: np.ndarray, after: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    gains = before.reshape(-1, 3).astype(np.float32).mean(axis=0)
    gains = gains.mean() / np.maximum(gains, 1.0)
    return (np.clip(before.astype(np.float32) * gains, 0, 255).astype(np.uint8),
            np.clip(after.astype(np.float32) * gains, 0, 255).astype(np.uint8))


def change_blobs(before: np.ndarray, after: np.ndarray, threshold: float = 40.0) -> list[tuple[np.ndarray, np.ndarray]]:
    """Blobs of a pawn's size where two :func:`pawn_crop` crops differ: ``[(pixels before,
    pixels after)]`` (``(n, 3) uint8`` each), largest first. Changes of the whole tile are too
    large to be a pawn and are left out."""
    a, b = _balanced_pair(before, after)
    diff = np.abs(a.astype(np.int16) - b.astype(np.int16)).max(axis=-1)
    mask = cv2.morphologyEx((diff > threshold).astype(np.uint8), cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
    out = []
    for i in sorted(range(1, n), key=lambda i: -stats[i, cv2.CC_STAT_AREA]):
        if PAWN_AREA[0] <= stats[i, cv2.CC_STAT_AREA] <= PAWN_AREA[1]:
            sel = labels == i
            out.append((a[sel], b[sel]))
    return out


def pawn_changes(model: CellClassifier, before: np.ndarray, after: np.ndarray) -> list[tuple]:
    """What each change blob between two crops of one cell may mean.

    Each blob is read on both sides by the taught blob-colour model (labels: the pawn colours
    and ``none``): the pawn colour seen after may have arrived, the one seen before may have
    left; one of the two happened.

    Returns
    -------
    list of ((colour or None, strength), (colour or None, strength))
        Per blob: (what may have come, what may have gone).
    """
    blobs = change_blobs(before, after)
    if not blobs:
        return []
    readings = _predict(model, np.stack([blob_features(p) for pair in blobs for p in pair]))
    out = []
    for i in range(len(blobs)):
        was, now = readings[2 * i], readings[2 * i + 1]
        if was.label == now.label:
            continue
        came = (now.label, now.confidence) if now.label != NOT_A_PAWN else (None, 0.0)
        went = (was.label, was.confidence) if was.label != NOT_A_PAWN else (None, 0.0)
        out.append((came, went))
    return out


def pawn_reading(before: set[str], blobs: list[tuple]) -> Reading:
    """The pawns now on a cell, from those before and the change blobs (:func:`pawn_changes`).

    Every blob is one pawn that came or one that went (a tile's painting under a pawn can look
    like a pawn, so either reading of a blob may be the true one), or neither (a sand marker or
    a turned tile changed there); only pawns that were there can go and only others can come.
    Each consistent combination is a possible set: the most likely is the ``label``, the others
    are ``alternatives``, for the tracker to decide with the other cells' evidence (a pawn that
    leaves one cell arrives at another).
    """
    choices = []
    for (came, s_came), (went, s_went) in blobs:
        if not (came and came not in before) and not (went and went in before):
            continue
        opts = [("", None, 0.0)]                       # neither: sand or a tile's painting changed
        # any pawn may be the one that came or went (colours are easy to misread); the colour
        # read ranks the options
        opts += [("+", c, s_came if c == came else 0.05) for c in PAWN_COLOURS if c not in before]
        opts += [("-", c, s_went if c == went else 0.05) for c in sorted(before)]
        choices.append(opts)
    if not choices:
        return Reading("+".join(sorted(before)), 1.0, 10.0)
    options: dict[str, float] = {}
    for combo in product(*choices):
        now, score = set(before), 0.0
        for sign, colour, strength in combo:
            if sign:
                (now.add if sign == "+" else now.discard)(colour)
            score += strength
        label = "+".join(sorted(now))
        options[label] = max(options.get(label, -1.0), score)
    ranked = sorted(options, key=lambda k: -options[k])
    return Reading(ranked[0], 0.9, 5.0, tuple(ranked[1:]))


def teach_pawn_colours(pairs: Iterator) -> CellClassifier:
    """Fit the blob-colour model on rendered moves.

    Parameters
    ----------
    pairs : iterator of (before crop, after crop, colour arrived or None, colour left or None)
        :func:`pawn_crop` crops of one cell before and after a pawn came or went.

    Returns
    -------
    CellClassifier
        Labels: the pawn colours seen and ``none``; it reads :func:`blob_features`.
    """
    feats, labels = [], []
    for before, after, came, went in pairs:
        blobs = change_blobs(before, after)
        for k, (was, now) in enumerate(blobs):
            main = k == 0                             # the largest blob is the pawn (if one moved)
            feats += [blob_features(was), blob_features(now)]
            labels += [(went if main and went else NOT_A_PAWN), (came if main and came else NOT_A_PAWN)]
    return _fit(np.stack(feats), labels, "pawn-colour")
