"""What lies on a Forbidden Desert tile, found as what the tile's own picture does not explain.

Once a cell's tile is matched to the owner's picture of it (:mod:`.desert_flat`: which picture,
where, turned how), the picture predicts what the camera should see there. Fitting that
prediction to the rectified cell with a per-channel gain and offset (the light, the exposure
and the white balance of this frame, :func:`~.desert_fit.photometric_fit`) leaves, as residual, whatever
lies on the tile: sand markers, pawns, parts, a hand. The residual's blobs are described by
what does not depend on our renderer's look (:func:`blob_features`): their size and shape in
millimetres, their lean away from the camera (a standing pawn's image stretches away from the
camera's foot point on the mat; a flat marker's does not), and their colour *in the picture's
light* (the fit's gains undone), so that a warm lamp or an unbalanced webcam does not move them.

Coordinates: mat mm; crops ``(H, W, 3)`` at ``PPM`` px per mm, pixel (0, 0) at the crop's
top-left mat point.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .desert_fit import PPM, Residual

#: blobs smaller than this are noise, mm^2
LEAST_BLOB_MM2 = 25.0


# --- blobs ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Blob:
    """One region of a cell's residual (:func:`blobs`): a connected region, or the part of one
    in a colour of its own (:func:`colour_regions`).

    Attributes
    ----------
    mask : (H, W) bool
        Its pixels in the cell crop.
    features : (BLOB_FEATURES,) float32
        :func:`blob_features`.
    colour : (3,) float32
        Its mean colour in the picture's light, BGR 0..255 (:meth:`Residual.in_picture_light`).
    """

    mask: np.ndarray
    features: np.ndarray
    colour: np.ndarray


BLOB_FEATURES = 16


def foot_point(homography: np.ndarray, camera_matrix: np.ndarray) -> tuple[np.ndarray, float]:
    """Where the camera stands over the mat: its foot point ``(x, y)`` mm on the mat plane and
    its height above it, mm (:func:`~..rectify.pose_from_homography`)."""
    from ..rectify import pose_from_homography

    r, t = pose_from_homography(homography, camera_matrix)
    centre = -r.T @ t
    return np.array(centre[:2], np.float64), float(abs(centre[2]))


def _lab(bgr: np.ndarray) -> np.ndarray:
    """BGR 0..255 floats ``(..., 3)`` -> CIE Lab (L 0..100)."""
    arr = np.clip(np.asarray(bgr, np.float32).reshape(-1, 1, 3) / 255.0, 0, 1)
    return cv2.cvtColor(arr, cv2.COLOR_BGR2Lab).reshape(np.shape(bgr))


def blob_features(res: Residual, mask: np.ndarray, foot_mm: np.ndarray, height_mm: float,
                  tile_centre_mm, tile_mm: float, ppm: float = PPM,
                  edge: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """What a blob's class is judged by, free of any renderer's look: ``(features
    (BLOB_FEATURES,) float32, mean colour in the picture's light (3,) float32)``.

    The features: area (log mm^2); elongation (sqrt of the ratio of the principal second
    moments); lean (the spread along the direction away from the camera's foot point over the
    spread across it, and that excess in mm over the stretch a 30 mm tall piece would show
    there, ``30 * distance / camera height``); solidity (area over its convex hull's); the
    distance of its centre from the tile's centre (in tile sides); its mean colour in the
    picture's light as Lab (scaled to about 0..1), that colour's chroma and its spread in L;
    the Lab difference between it and what the picture predicted there (how it stands out);
    and the share of its pixels at the tile's edge (``edge`` ``(H, W) bool``, :func:`tile_edge`
    of ``res``, when the caller has it)."""
    ys, xs = np.nonzero(mask)
    area = len(xs) / ppm ** 2
    pts = np.column_stack([xs, ys]).astype(np.float64) / ppm + np.asarray(res.origin_mm)
    centre = pts.mean(axis=0)
    cov = np.cov(pts.T) + np.eye(2) * 1e-3 if len(pts) > 2 else np.eye(2)
    evals = np.sort(np.linalg.eigvalsh(cov))
    elong = float(np.sqrt(evals[1] / max(evals[0], 1e-6)))
    away = centre - foot_mm
    dist = float(np.linalg.norm(away))
    d = away / dist if dist > 1e-6 else np.array([1.0, 0.0])
    along = float(np.sqrt(d @ cov @ d))
    across = float(np.sqrt(np.array([-d[1], d[0]]) @ cov @ np.array([-d[1], d[0]])))
    stretch = 30.0 * dist / max(height_mm, 1.0)
    hull = cv2.convexHull(np.column_stack([xs, ys]).astype(np.int32))
    solidity = len(xs) / max(cv2.contourArea(hull) + len(hull) / 2, 1.0)
    off = float(np.linalg.norm(centre - np.asarray(tile_centre_mm))) / tile_mm
    pixels = res.crop[mask]                                                   # (n, 3)
    colour = res.in_picture_light(pixels.mean(axis=0))
    lab = _lab(colour)
    lab_pred = _lab(res.in_picture_light(res.predicted[mask].mean(axis=0)))
    l_spread = float(_lab(res.in_picture_light(pixels))[..., 0].std())
    edge = tile_edge(res) if edge is None else edge
    feats = np.array([np.log(area + 1.0), elong, along / max(across, 0.5), (along - across) / max(stretch, 1.0),
                      solidity, off, lab[0] / 100, lab[1] / 100, lab[2] / 100, np.hypot(lab[1], lab[2]) / 100,
                      l_spread / 50, (lab[0] - lab_pred[0]) / 100, (lab[1] - lab_pred[1]) / 100,
                      (lab[2] - lab_pred[2]) / 100, float((edge & mask).sum()) / len(xs), stretch / 30.0],
                     np.float32)
    return feats, colour.astype(np.float32)


def tile_edge(res: Residual) -> np.ndarray:
    """The tile's edge in a residual's crop: ``(H, W) bool``, the pixels within 2 px of the
    tile's outline or off the tile (the tile eroded by a 5 x 5 square, negated)."""
    return cv2.erode(res.tile.astype(np.uint8), np.ones((5, 5), np.uint8)) == 0


def blobs(res: Residual, foot_mm: np.ndarray, height_mm: float, tile_centre_mm, tile_mm: float,
          ppm: float = PPM) -> list[Blob]:
    """The residual's blobs of at least ``LEAST_BLOB_MM2`` (holes filled: a marker's face may
    match the tile's art in places), each cut where its colour changes
    (:func:`colour_regions`), each part of at least ``LEAST_BLOB_MM2`` with its features
    (:func:`blob_features`)."""
    occ = res.occluded.astype(np.uint8)
    occ = cv2.morphologyEx(occ, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(occ)
    out, edge = [], None
    h, w = labels.shape
    for i in range(1, n):
        if stats[i, cv2.CC_STAT_AREA] < LEAST_BLOB_MM2 * ppm ** 2:
            continue
        # its outline traced and filled in its bounding box and 1 px around (the image's own
        # edge where the box reaches it): the same outline as in the whole crop, moved
        x, y, bw, bh = stats[i, :4]
        box = (slice(max(y - 1, 0), min(y + bh + 1, h)), slice(max(x - 1, 0), min(x + bw + 1, w)))
        m = (labels[box] == i).astype(np.uint8)
        contours, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        filled = np.zeros_like(m)
        cv2.drawContours(filled, contours, -1, 1, cv2.FILLED)
        mask = np.zeros((h, w), bool)
        mask[box] = filled.astype(bool) & res.tile[box]
        if mask.sum() < LEAST_BLOB_MM2 * ppm ** 2:
            continue
        edge = tile_edge(res) if edge is None else edge
        for part in colour_regions(res, mask, ppm):
            if part.sum() < LEAST_BLOB_MM2 * ppm ** 2:
                continue
            feats, colour = blob_features(res, part, foot_mm, height_mm, tile_centre_mm, tile_mm, ppm, edge)
            out.append(Blob(part, feats, colour))
    return out


#: a blob is split into regions whose mean colours (CIE Lab, in the picture's light) differ by
#: more than this (Delta E 1976): two pawns side by side, a pawn on a sand marker, a white pawn
#: beside a cream marker (chosen on development set-up tables, second renderer seeds
#: 24000-24011: 18 left white pawns in the marker; 10 cut the art into false pawns)
SPLIT_DELTA_E = 14.0
#: the superpixels a blob is first cut into are about this large, mm^2: a fifth of a pawn's top
#: (150-300 mm^2 as the residual shows a pawn on the second renderer's development stills)
SUPERPIXEL_MM2 = 60.0
#: a blob smaller than this (mm^2) is not cut: one pawn seen from above covers about 150-300
SPLIT_LEAST_MM2 = 350.0
#: SLIC's k-means rounds (its default is 10; 5 read the development set-up tables 24000-24011
#: the same, in half the time)
SLIC_ROUNDS = 5
#: SLIC's weight of closeness against colour (Lab units per superpixel side; scikit-image's
#: default is 10): 3, 8 and 20 read the development set-up tables 24000-24011 alike
SLIC_COMPACTNESS = 8.0


def colour_regions(res: Residual, mask: np.ndarray, ppm: float = PPM) -> list[np.ndarray]:
    """A blob ``mask`` ``(H, W) bool`` of ``res`` cut where its colour changes: pieces that
    touch (pawns crowded on the crash site, a pawn beside or on a sand marker) merge into one
    blob of the residual, but they differ in colour. The blob is cut into superpixels of about
    ``SUPERPIXEL_MM2`` (SLIC, scikit-image, on Lab in the picture's light, over the blob's
    bounding box; the pixels outside the blob are then dropped), and neighbouring
    superpixels whose mean colours are at most ``SPLIT_DELTA_E`` apart are joined again (single
    linkage over the region adjacency graph, as :func:`skimage.graph.cut_threshold` joins
    below its threshold, by SciPy's connected components; a region may then be disconnected
    when two of its superpixels meet only through another of the same colour). Returns the regions' masks ``(H, W) bool`` (the blob itself
    when it is one colour or smaller than ``SPLIT_LEAST_MM2``)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components
    from skimage import segmentation

    area = float(mask.sum()) / ppm ** 2
    if area < SPLIT_LEAST_MM2:
        return [mask]
    n = int(area / SUPERPIXEL_MM2)
    ys, xs = np.nonzero(mask)
    box = (slice(ys.min(), ys.max() + 1), slice(xs.min(), xs.max() + 1))
    inside = mask[box]
    lab = _lab(res.in_picture_light(res.crop[box])).astype(np.float64)
    # the bounding box cut whole (several times faster than SLIC's masked mode), kept in the blob
    seg = segmentation.slic(lab, n_segments=max(n * inside.size // int(inside.sum()), 2), compactness=SLIC_COMPACTNESS,
                            max_num_iter=SLIC_ROUNDS, convert2lab=False, start_label=1, channel_axis=-1)
    seg[~inside] = 0
    k = int(seg.max())
    if k < 2:
        return [mask]
    counts = np.bincount(seg.ravel(), minlength=k + 1)[1:].astype(np.float64)
    means = np.stack([np.bincount(seg.ravel(), lab[..., c].ravel(), k + 1)[1:] for c in range(3)], 1)
    means /= np.maximum(counts, 1.0)[:, None]
    pairs = np.concatenate([np.stack([seg[:, :-1].ravel(), seg[:, 1:].ravel()], 1),
                            np.stack([seg[:-1, :].ravel(), seg[1:, :].ravel()], 1)])
    pairs = pairs[(pairs[:, 0] > 0) & (pairs[:, 1] > 0) & (pairs[:, 0] != pairs[:, 1])] - 1
    close = np.linalg.norm(means[pairs[:, 0]] - means[pairs[:, 1]], axis=1) <= SPLIT_DELTA_E
    pairs = pairs[close]
    adjacency = coo_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(k, k))
    _n, group = connected_components(adjacency, directed=False)
    out = []
    for g in np.unique(group[counts > 0]):
        region = np.zeros_like(mask)
        region[box] = np.isin(seg, np.flatnonzero(group == g) + 1)
        out.append(region)
    return out


# --- the blob classifier and the cell readings ------------------------------------------------------

PAWN_COLOURS = ("red", "black", "green", "white", "yellow", "blue")
#: a blob is read as a part only this surely (a stray blob of a tile's art is the commoner error)
PART_LEAST = 0.6
#: the most a reading of "no pawn" or "no part" is trusted: a small piece the residual missed
#: leaves no blob to doubt (on own-art renders about one pawn in ten was missed that way)
NOTHING_SEEN = 0.85
CLASSES = ("other", "sand_light", "sand_dark") + tuple(f"pawn_{c}" for c in PAWN_COLOURS) + ("part",)


def blob_class(mask: np.ndarray, footprints: dict, truth: dict, share: float = 0.3) -> int:
    """The class index (``CLASSES``) a teaching blob is taught as: that of the piece whose
    footprint covers the most of it, when that is at least ``share`` of the blob; else
    ``other`` (a shadow, a neighbour's edge, a misfit)."""
    best, cover = "other", 0.0
    area = float(mask.sum())
    for pid, fp in footprints.items():
        c = float((fp & mask).sum()) / max(area, 1.0)
        if c > cover:
            best, cover = truth[pid], c
    return CLASSES.index(best) if cover >= share else 0


#: softmax temperature of the blob and sand perceptrons: taught on our own renders they are sure
#: of readings that pictures made otherwise prove wrong. Chosen on held-out own-render rows
#: (seed 400, not the second renderer): at 1, 12 of 748 sand rows and 17 of 748 blob rows were
#: wrong with confidence >= 0.9; at 2, 0 of the 419 sand rows and 3 of the 144 blob rows still
#: that sure were wrong. The sand network taught again with its edge features
#: (:mod:`.teach_sand`) keeps it: at 2, none of its readings on the second renderer's
#: development stills (seeds 5100-5115, 6100-6115, 7100-7107) was wrong that surely.
TEMPERATURE = 2.0


class PieceBlobs:
    """What lies on a tile: what each residual blob is (:data:`CLASSES`, from
    :func:`blob_features`), and the cell's sand (:data:`SAND_CLASSES`, from
    :func:`sand_features`), each by a few averaged perceptrons (:class:`~..mlp.Perceptrons`)
    taught on varied tables (:mod:`.desert_variety`); and which part a part blob is by its
    colour against the owner's part pictures (``part_colours``: part -> Lab of its picture)."""

    def __init__(self, net, sand_net, part_colours: dict | None = None):
        self.net, self.sand_net = net, sand_net
        self.part_colours = dict(part_colours or {})

    def sand(self, feats: np.ndarray) -> np.ndarray:
        """Probabilities of ``SAND_CLASSES`` ``(3,)`` from one cell's :func:`sand_features`."""
        return self.sand_net.predict(np.asarray(feats, np.float32).reshape(1, SAND_FEATURES), TEMPERATURE)[0]

    def predict(self, feats: np.ndarray) -> np.ndarray:
        """Class probabilities ``(n, len(CLASSES))`` of feature rows ``(n, BLOB_FEATURES)``."""
        if len(feats) == 0:
            return np.zeros((0, len(CLASSES)), np.float32)
        return self.net.predict(np.asarray(feats, np.float32), TEMPERATURE)

    def which_part(self, colour_bgr: np.ndarray) -> tuple[str, float]:
        """The part whose picture's colour is nearest a blob's (in the picture's light), and
        the Lab distance's share of the second nearest (0 sure .. 1 a toss-up)."""
        if not self.part_colours:
            return "", 1.0
        lab = _lab(colour_bgr)
        dist = sorted((float(np.linalg.norm((lab - np.asarray(c)) * (0.5, 1.0, 1.0))), p)
                      for p, c in self.part_colours.items())
        return dist[0][1], (dist[0][0] / dist[1][0]) if len(dist) > 1 and dist[1][0] > 0 else 0.0

    def save(self, path) -> None:
        """Write the weights and the part colours to ``path`` (``.npz``)."""
        parts = sorted(self.part_colours)
        np.savez_compressed(path, **self.net.arrays(), **{f"sand_{k}": v for k, v in self.sand_net.arrays().items()},
                            part_names=np.array(parts),
                            part_lab=np.array([self.part_colours[p] for p in parts], np.float32).reshape(-1, 3),
                            classes=np.array(CLASSES))

    @classmethod
    def load(cls, path) -> "PieceBlobs":
        """Read what :meth:`save` wrote.

        Raises
        ------
        OSError
            When the file is missing or unreadable.
        ValueError
            When it was written for other classes or features.
        """
        from ..mlp import Perceptrons

        with np.load(path) as z:
            missing = [k for k in ("classes", "part_names", "part_lab", *Perceptrons.FIELDS,
                                   *(f"sand_{f}" for f in Perceptrons.FIELDS)) if k not in z.files]
            if missing:
                raise ValueError(f"{path} was written by another version (no {', '.join(missing)})")
            if tuple(z["classes"].tolist()) != CLASSES:
                raise ValueError(f"{path} was taught for other classes")
            net = Perceptrons(*(z[f] for f in Perceptrons.FIELDS))
            sand = Perceptrons(*(z[f"sand_{f}"] for f in Perceptrons.FIELDS))
            if net.features != BLOB_FEATURES or sand.features != SAND_FEATURES:
                raise ValueError(f"{path} was taught on other features")
            parts = dict(zip(z["part_names"].tolist(), z["part_lab"].tolist()))
        return cls(net, sand, parts)


def part_colour(picture: np.ndarray) -> np.ndarray:
    """The mean Lab ``(3,) float32`` of a part's picture (BGRA: over its cut-out; BGR: its
    centre half)."""
    img = np.asarray(picture)
    if img.shape[2] == 4:
        sel = img[..., 3] > 127
        bgr = img[..., :3][sel].astype(np.float32)
    else:
        h, w = img.shape[:2]
        bgr = img[h // 4:3 * h // 4, w // 4:3 * w // 4].reshape(-1, 3).astype(np.float32)
    return _lab(bgr.mean(axis=0))


def confidence_margin(p: float) -> tuple[float, float]:
    """A probability -> ``(confidence, margin)``: ``p`` kept within 1e-6 of 0 and 1, and its
    log-odds over the complement in nats (negative below 0.5)."""
    p = float(np.clip(p, 1e-6, 1 - 1e-6))
    return p, float(np.log(p / (1 - p)))


def pawns_seen(probs: np.ndarray) -> dict[str, float]:
    """The pawn colours blobs are likeliest to be, each with the highest such probability.

    Parameters
    ----------
    probs : (n, len(CLASSES)) float
        The blobs' class probabilities (:meth:`PieceBlobs.predict`).

    Returns
    -------
    dict colour -> float
        Only colours some blob's likeliest class is (a pawn the camera misses is not in it).
    """
    out: dict[str, float] = {}
    for row in np.asarray(probs).reshape(-1, len(CLASSES)):
        name = CLASSES[int(np.argmax(row))]
        if name.startswith("pawn_"):
            out[name[5:]] = max(out.get(name[5:], 0.0), float(row.max()))
    return out


def cell_readings(found: list[Blob], probs: np.ndarray, model: PieceBlobs,
                  sand: np.ndarray | None = None, pawn_least: float = 0.0,
                  pawn_least_mm2: float = 0.0) -> dict[str, tuple]:
    """The sand, pawn and part readings of one cell from its blobs, their class probabilities
    ``(n, len(CLASSES))`` and the cell's sand probabilities ``(3,)`` (``SAND_CLASSES``):
    ``dict kind -> (label, confidence, margin, alternatives)``.

    - ``sand``: the likeliest of ``SAND_CLASSES``, the others as alternatives;
    - ``pawns``: the colours of the blobs whose likeliest class is a pawn with a probability
      of at least ``pawn_least`` (0..1) and an area of at least ``pawn_least_mm2`` (mm^2 at
      ``PPM``; ``LIT_PAWN_LEAST`` and ``LIT_PAWN_LEAST_MM2`` for a tile read in the table's
      light under sand); its confidence the least sure of every blob's call (pawn or not,
      which colour), a pawn-like blob below either least counting as a doubt, as a blob some
      pawn colour nearly won does (at most one minus its pawn classes' sum, the colour an
      alternative);
    - ``parts``: the blobs whose likeliest class is ``part``, each named by its colour
      (:meth:`PieceBlobs.which_part`).

    Raises AttributeError when ``pawn_least_mm2`` is set and a blob has no ``mask``.
    """
    k_part = CLASSES.index("part")
    pawn_idx = [CLASSES.index(f"pawn_{c}") for c in PAWN_COLOURS]
    out = {}
    if sand is not None:
        order = np.argsort(-sand)
        conf, margin = float(sand[order[0]]), float(np.log(max(sand[order[0]], 1e-6) / max(sand[order[1]], 1e-6)))
        out["sand"] = (SAND_CLASSES[order[0]], conf, margin, tuple(SAND_CLASSES[i] for i in order[1:]))
    colours, sure, alts = set(), 1.0, []
    parts, part_sure = set(), 1.0
    for i, b in enumerate(found):
        best = int(np.argmax(probs[i]))
        p_pawn = probs[i, pawn_idx]
        if best in pawn_idx and probs[i, best] >= pawn_least and (
                not pawn_least_mm2 or float(b.mask.sum()) / PPM ** 2 >= pawn_least_mm2):
            colour = PAWN_COLOURS[pawn_idx.index(best)]
            colours.add(colour)
            sure = min(sure, float(probs[i, best]))
            second = PAWN_COLOURS[int(np.argsort(-p_pawn)[1])]
            alts.append(("swap", colour, second))
        else:
            sure = min(sure, 1.0 - float(p_pawn.sum()))
            if float(p_pawn.max()) > 0.2:
                alts.append(("add", PAWN_COLOURS[int(np.argmax(p_pawn))], None))
        if best == k_part and probs[i, k_part] >= PART_LEAST:
            part, toss = model.which_part(b.colour)
            if part:
                parts.add(part)
                part_sure = min(part_sure, float(probs[i, k_part]) * (1.0 - 0.5 * toss))
        else:
            part_sure = min(part_sure, 1.0 - float(probs[i, k_part]))
    if not colours:
        sure = min(sure, NOTHING_SEEN)
    if not parts:
        part_sure = min(part_sure, NOTHING_SEEN)
    label = "+".join(sorted(colours))
    options = []
    for kind, colour, other in alts:
        now = set(colours)
        if kind == "swap":
            now.discard(colour)
            options.append("+".join(sorted(now)))
            options.append("+".join(sorted(now | {other})))
        else:
            options.append("+".join(sorted(now | {colour})))
    conf, margin = confidence_margin(sure)
    out["pawns"] = (label, conf, margin, tuple(dict.fromkeys(o for o in options if o != label)))
    conf, margin = confidence_margin(part_sure)
    out["parts"] = ("+".join(sorted(parts)), conf, margin, ())
    return out


#: :func:`misplaced_share` names a slot kind holding at least this share of a blob's sum
KIND_SHARE = 0.25


def misplaced_share(probs: np.ndarray, pawns_allowed: bool) -> tuple[float, tuple[str, ...]]:
    """How likely one blob of a tile is a piece that may not lie on that tile at set-up
    (rules §3.1: no part on the board, every marker light side up, every pawn on the crash
    site), summed over those classes, so that a blob the classifier cannot place among them
    (a pawn on a marker reads part dark marker, part pawn, part part) still counts whole.

    Parameters
    ----------
    probs : (n, len(CLASSES)) float
        The tile's blobs' class probabilities (:meth:`PieceBlobs.predict`).
    pawns_allowed : bool
        Whether pawns may stand on the tile (the crash site).

    Returns
    -------
    (float, tuple of str)
        The largest such sum over the blobs (0..1; 0.0 with no blob) and the slot kinds
        (``"sand"``, ``"pawns"``, ``"parts"``) holding at least ``KIND_SHARE`` of it in that blob,
        the biggest share first (empty with no blob, or when the sum is 0).

    Raises
    ------
    ValueError
        When ``probs`` cannot be shaped ``(n, len(CLASSES))``.
    """
    probs = np.asarray(probs, np.float64).reshape(-1, len(CLASSES))
    if not len(probs):
        return 0.0, ()
    shares = {"sand": probs[:, CLASSES.index("sand_dark")], "parts": probs[:, CLASSES.index("part")]}
    if not pawns_allowed:
        shares["pawns"] = probs[:, [CLASSES.index(f"pawn_{c}") for c in PAWN_COLOURS]].sum(axis=1)
    total = sum(shares.values())
    i = int(np.argmax(total))
    if total[i] <= 0.0:
        return 0.0, ()
    kinds = sorted((k for k in shares if shares[k][i] >= KIND_SHARE * total[i]), key=lambda k: -shares[k][i])
    return float(total[i]), tuple(kinds)


#: a blob is read as a pawn only when its colour is at least this likely, more likely than all
#: the other classes together (:func:`cell_readings`; below, the reading stays unsure with the
#: colour as an alternative): whether a pawn of that colour stands there is a yes-or-no
#: question, and the likeliest class of several alone can be a minority
PAWN_LEAST = 0.5
#: and only when the blob covers at least this much of the tile, mm^2 (a disc 8.7 mm across):
#: a pawn seen from above covers 150-300. Chosen with ``PAWN_LEAST`` on the second renderer's
#: development stills (5300-5339 normal, 6300-6339 stress, 7300-7349 bare table), pawn slots
#: wrong: without either 45 / 88 / 211; 0.5 alone 46 / 89 / 157; 60 mm^2 alone 41 / 87 / 169;
#: both 45 / 87 / 138 (pawns seen where there is none 24 / 28 / 192 -> 10 / 13 / 63, pawns
#: found 92 / 54 / 100 -> 82 / 41 / 81)
PAWN_LEAST_MM2 = 60.0
#: a tile read in the table's light (:func:`~.desert_fit.in_table_light`) is believed only when
#: at most this share of what its picture leaves unexplained is in blobs of class ``other``
#: (0.3 and 0.15 read development stills 5100-5115 and set-up tables 24000-24011 alike; without
#: it, tiles whose face was misread gave pawns that were not there)
LIT_UNEXPLAINED = 0.3
#: on a tile read in the table's light a blob is read as a pawn only when its colour is at
#: least this likely; below, the reading stays unsure with the colour as an alternative
#: (:func:`cell_readings`). Read in the table's light, a sand marker's fit is cut where its
#: print changes, and the network calls some of those pieces pawns: on the second renderer's
#: development stills (5300-5339 normal, 6300-6339 stress) the pawn-like blobs of the tiles
#: that ``SAND_BROKEN_FIT`` adds were 22 pawns and 44 pieces of marker or art in normal light,
#: 15 and 52 in stress; at 0.6, 21 and 8, 11 and 11
LIT_PAWN_LEAST = 0.6
#: and only when the blob covers at least this much of the tile, mm^2: a pawn seen from above
#: covers 150-300 (its top and the side the camera sees); what is smaller there is mostly the
#: marker's print (the bare-table development stills 7300-7349: 24 pawns and 60 pieces of
#: marker at ``LIT_PAWN_LEAST``, 22 and 13 at 80 mm^2 too; 5300-5339 21 and 8 -> 21 and 6;
#: 6300-6339 11 and 11 -> 10 and 6)
LIT_PAWN_LEAST_MM2 = 80.0


def unexplained_share(found: list[Blob], probs: np.ndarray) -> float:
    """The share of the blobs' area (``found``, class probabilities ``probs`` ``(n,
    len(CLASSES))``) in blobs whose likeliest class is ``other``: 0 when every blob is a piece
    (or there is none), 1 when none is."""
    areas = np.array([b.mask.sum() for b in found], np.float64)
    if not len(found) or areas.sum() == 0:
        return 0.0
    return float(areas[np.argmax(probs, axis=1) == CLASSES.index("other")].sum() / areas.sum())


# --- sand, read at the tile's centre ---------------------------------------------------------------

SAND_CLASSES = ("none", "light", "dark")
#: 14 of the residual's colour (:func:`sand_features`) and ``STRUCTURE_FEATURES`` of its edges
#: (:func:`sand_structure`)
SAND_FEATURES = 23
#: radii (mm) around the tile's centre where the residual is looked at: a sand marker (18 mm
#: or more across) lies on the centre, a stack within a few mm of it
SAND_RADII_MM = (5.0, 9.0, 13.0)


def sand_features(res: Residual, tile_centre_mm, ppm: float = PPM) -> np.ndarray:
    """What a cell's sand is judged by, at its tile's centre: ``(SAND_FEATURES,) float32``.

    The share of the tile the picture does not explain within ``SAND_RADII_MM`` of the tile's
    centre (3); the mean colour there (radius 9 mm) in the picture's light as Lab (3), its
    spread in L (1), the same of what the picture predicted there (3 + 1); the mean residual
    there over the fit's noise (1); the fit's noise (1) and the share of the whole tile it
    explains (1). A stack of markers shows only its top one, so its colour decides light or
    dark; a pawn or a part at the tile's corner does not reach the centre. Then what the
    marker does to the tile's edges, whatever its colour (:func:`sand_structure`, 9): a brown
    stack on brown art barely changes the colour there, but it hides the art's edges and adds
    its own outline."""
    h, w = res.tile.shape
    cx = (tile_centre_mm[0] - res.origin_mm[0]) * ppm
    cy = (tile_centre_mm[1] - res.origin_mm[1]) * ppm
    near = _window((h, w), cx, cy, max(*SAND_RADII_MM, 9.0) * ppm + 1.0)     # holds every radius looked at
    yy, xx = np.arange(near[0].start, near[0].stop)[:, None], np.arange(near[1].start, near[1].stop)[None, :]
    r2 = ((xx - cx) ** 2 + (yy - cy) ** 2) / ppm ** 2
    tile = res.tile[near]
    within = [(r2 <= r * r) & tile for r in SAND_RADII_MM]
    shares = [float(res.occluded[near][sel].mean()) if sel.any() else 0.0 for sel in within]
    centre = (r2 <= 81.0) & tile
    if not centre.any():
        return np.zeros(SAND_FEATURES, np.float32)
    crop, predicted = res.crop[near][centre], res.predicted[near][centre]            # (n, 3)
    seen = _lab(res.in_picture_light(crop))
    pred = _lab(res.in_picture_light(predicted))
    resid = np.abs(crop - predicted).max(axis=1).mean() / max(res.noise, 1.0)
    explained = float((~res.occluded & res.tile).sum()) / max(float(res.tile.sum()), 1.0)
    return np.array([*shares, *(seen.mean(axis=0) / 100), seen[:, 0].std() / 50, *(pred.mean(axis=0) / 100),
                     pred[:, 0].std() / 50, min(resid / 10, 3.0), res.noise / 50, explained,
                     *sand_structure(res, tile_centre_mm, ppm)], np.float32)


def _window(shape: tuple, cx: float, cy: float, half: float) -> tuple[slice, slice]:
    """The rows and columns of an image of ``shape`` (H, W) within ``half`` px of ``(cx, cy)``
    (px): ``(rows, columns)`` slices, clipped to the image (empty when it lies outside)."""
    rows = slice(min(max(int(np.floor(cy - half)), 0), shape[0]), max(min(int(np.ceil(cy + half)) + 1, shape[0]), 0))
    cols = slice(min(max(int(np.floor(cx - half)), 0), shape[1]), max(min(int(np.ceil(cx + half)) + 1, shape[1]), 0))
    return rows, cols


#: rings (mm from the tile's centre) where the edges seen are compared with the picture's: the
#: marker's face, its outline (18-40 mm markers), and around it
EDGE_RINGS_MM = ((0.0, 9.0), (9.0, 16.0), (16.0, 23.0))
STRUCTURE_FEATURES = 9


def sand_structure(res: Residual, tile_centre_mm, ppm: float = PPM) -> np.ndarray:
    """What a sand marker changes in the tile's edges, whatever its colour: ``(STRUCTURE_FEATURES,)
    float32``.

    From the normalised gradients of the crop and of the predicted picture
    (:func:`~.flat_art.gradient_image`, unit-free) the mean of half their difference's length
    (0 the same edges .. about 1 none alike) within ``SAND_RADII_MM`` and 18 mm of the tile's
    centre (4), and that mean over the whole tile (1, how well the picture fits anywhere). From
    the raw grey gradient magnitudes (grey levels per px, seen and predicted are in the same light
    after the fit) the log ratio of seen to predicted mean magnitude in each of ``EDGE_RINGS_MM``
    (3: a marker plainer than the art lowers it on its face, its outline raises it at its edge);
    and the share of the extra edge energy in the 8-22 mm ring that points to or from the centre
    (1: an outline round the centre is radial, the art's own edges are not)."""
    from .flat_art import gradient_image

    tile = res.tile
    if not tile.any():
        return np.zeros(STRUCTURE_FEATURES, np.float32)
    cx = (tile_centre_mm[0] - res.origin_mm[0]) * ppm
    cy = (tile_centre_mm[1] - res.origin_mm[1]) * ppm
    # every ring and radius looked at lies in this window (1 px spare): the per-pixel work is
    # done there, not over the whole crop (same values pixel for pixel)
    near = _window(tile.shape, cx, cy, max(*SAND_RADII_MM, 18.0, 22.0, EDGE_RINGS_MM[-1][1]) * ppm + 1.0)
    dx = np.arange(near[1].start, near[1].stop).astype(np.float32)[None, :] - cx       # (1, w) and (h, 1)
    dy = np.arange(near[0].start, near[0].stop).astype(np.float32)[:, None] - cy
    r = np.hypot(dx, dy) / ppm
    seen = cv2.cvtColor(np.clip(res.crop, 0, 255).astype(np.float32), cv2.COLOR_BGR2GRAY)
    pred = cv2.cvtColor(np.clip(res.predicted, 0, 255).astype(np.float32), cv2.COLOR_BGR2GRAY)
    change = gradient_image(seen, ppm) - gradient_image(pred, ppm)
    # half its length; the sum of squares spelt out as np.linalg.norm(axis=2) adds them (5x faster)
    diff = 0.5 * np.sqrt(change[..., 0] * change[..., 0] + change[..., 1] * change[..., 1])
    tile_near = tile[near]

    def mean_in(values, sel):
        sel = sel & tile_near
        return float(values[near][sel].mean()) if sel.any() else 0.0

    out = [mean_in(diff, r <= radius) for radius in (*SAND_RADII_MM, 18.0)] + [float(diff[tile].mean())]
    mags = []
    for grey in (seen, pred):
        gx, gy = cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1)
        mags.append((gx[near], gy[near], cv2.magnitude(gx, gy)))
    out += [float(np.log((mean_in(mags[0][2], (r >= a) & (r < b)) + 1.0) / (mean_in(mags[1][2], (r >= a) & (r < b)) + 1.0)))
            for a, b in EDGE_RINGS_MM]
    gx, gy, m = mags[0][0], mags[0][1], mags[0][2][near]
    extra = np.maximum(m ** 2 - mags[1][2][near] ** 2, 0.0) * ((r >= 8.0) & (r < 22.0) & tile_near)
    radial = (gx * dx + gy * dy) ** 2 / np.maximum(m ** 2 * (dx ** 2 + dy ** 2), 1e-6)
    # both sums over the whole crop's shape, zero outside the window, as numpy's pairwise
    # summation of the whole crop adds them
    towards = extra * radial
    whole_extra, whole_towards = np.zeros(tile.shape, extra.dtype), np.zeros(tile.shape, towards.dtype)
    whole_extra[near], whole_towards[near] = extra, towards
    total = whole_extra.sum()
    out.append(float(whole_towards.sum() / total) if total > 0 else 0.5)
    return np.array(out, np.float32)
