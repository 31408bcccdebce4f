"""Forbidden Desert detector: per cell the face, the sand, the pawns and the parts; the storm card.

Nothing here learns the look of the owner's tiles and cards from rendered tables:

- ``face`` (21 labels: 3 backs, 17 faces, ``storm`` for the empty cell) and ``card`` (the storm
  card in the mat's card place, 14 faces, ``none``) are read by matching the owner's photos
  on the rectified mat (:mod:`.desert_flat`), the whole table jointly under the rules' counts;
- ``sand`` (``none`` / ``light`` / ``dark``), ``parts`` and ``pawns`` from one still are what
  the matched tile's picture does not explain (:mod:`.desert_pieces`), classified by their
  size, shape, lean and colour in the picture's light by a classifier taught on varied tables
  of the project's own art (:mod:`.desert_variety`), shipped in ``data/``;
- ``pawns`` in the live loop are read by change against the last committed still frame: per
  cell, the pixels that changed in a perspective-aware crop that holds standing pieces
  (:func:`pawn_crop`) are classified by a per-pixel colour model taught on rendered pawns
  (:class:`PawnPixels`), and each changed blob is judged a pawn of some colour that came, one
  that went, or no pawn by five small taught networks averaged (:class:`ChangeBlobs`,
  :func:`colour_shifts`) from those colours, the blob's colour against the cell's own light,
  and two colour-blind cues: which crop's blob rim breaks the tile around it
  (:func:`piece_side`: the piece is on that side) and how well the blob fits a standing pawn's
  projected silhouette (:func:`shape_fit`); a pawn seen arriving makes its leaving its old
  cell the likelier reading there (shipped in ``data/`` too, :func:`teach_pawn_change`).

"""

from __future__ import annotations

import json
import math
from itertools import product
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Mapping, NamedTuple

import cv2
import numpy as np

from ...tracking.base import Reading, Slot
from ..mats import MatLayout, mat_layout

if TYPE_CHECKING:
    from .desert_pieces import PieceBlobs

CROP = 64
#: written into a saved detector; another version's folder is refused with a sentence
DETECTOR_VERSION = "fd-detector/11"
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


def pawn_crop_frame(homography: np.ndarray, camera_matrix: np.ndarray, cell, size: int = CROP,
                    inset_mm: float = 4.0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Where :func:`pawn_crop` cuts: ``(m, r, t, local)``.

    ``m`` ``(2, 3) float64`` maps frame px to crop px; ``r`` ``(3, 3)`` and ``t`` ``(3,)`` mm are
    the mat's pose (:func:`~..rectify.pose_from_homography`); ``local`` ``(2 n, 2) int32`` are the
    crop px of the inset cell polygon (first ``n``) and of the same polygon lifted by
    ``PAWN_HEIGHT_MM`` (last ``n``).
    """
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
    local = (px * scale + m[:, 2]).astype(np.int32)
    return m, r, t, local


def project_to_crop(points_mm: np.ndarray, homography: np.ndarray, camera_matrix: np.ndarray, cell,
                    size: int = CROP) -> np.ndarray:
    """Mat points ``(N, 3)`` mm (z < 0 above the mat) -> px ``(N, 2) float64`` in ``cell``'s
    :func:`pawn_crop` of that size (e.g. to outline a standing piece there)."""
    m, r, t, _local = pawn_crop_frame(homography, camera_matrix, cell, size)
    pts = np.asarray(points_mm, np.float64) @ r.T + t
    px = (pts @ camera_matrix.T)[:, :2] / pts[:, 2:3]
    return px @ m[:, :2].T + m[:, 2]


def guarded_by(camera: Reading, told: Reading, nats: float) -> Reading:
    """A face reading of the camera alone (``camera``) weighed with the engine's expectation
    (``told``: the same cell read with the expected faces favoured by ``nats``), as the set-up's
    rules are weighed (:func:`~...tracking.desert_setup.with_prior`). Where they agree, ``told``.
    Where they differ, the camera's reading stands when it is surer than the prior alone can
    overturn (``e^nats / (1 + e^nats)``, 0.953 at 3 nats); else ``told``'s label, believed only
    as far as the camera left room for it (confidence ``min(told, 1 - camera)``, margin 0, the
    camera's label as the alternative), so the prior never makes the expected face sure against
    a camera that was fairly sure of another (on still 5108 an uncapped prior read a sand-covered
    dune back the engine took for a water back as water back at 0.96-0.98). Raises nothing."""
    if told.label == camera.label:
        return told
    if camera.confidence > 1.0 / (1.0 + math.exp(-nats)):
        return camera
    return Reading(told.label, min(told.confidence, 1.0 - camera.confidence), 0.0, (camera.label,))


def pawn_crop(frame: np.ndarray, homography: np.ndarray, camera_matrix: np.ndarray, cell, size: int = CROP,
              inset_mm: float = 4.0) -> np.ndarray:
    """The space a pawn standing on ``cell`` shows in: the tile (the cell less ``inset_mm``, so
    the white gaps of the mat are left out) and the same square lifted by ``PAWN_HEIGHT_MM``,
    projected with the pose of the mat; everything else is painted with the region's median
    colour, so that a neighbour's pawn or the mat does not count. ``(size, size, 3) uint8``."""
    m, _r, _t, local = pawn_crop_frame(homography, camera_matrix, cell, size, inset_mm)
    crop = cv2.warpAffine(frame, m, (size, size), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
    mask = prism_mask(local, size)
    fill = np.median(crop[mask > 0], axis=0) if mask.any() else np.array([128, 128, 128])
    crop[mask == 0] = fill.astype(np.uint8)
    return crop


def pawn_crop_outside(homography: np.ndarray, camera_matrix: np.ndarray, cell, size: int = CROP,
                      inset_mm: float = 4.0) -> np.ndarray:
    """Where :func:`pawn_crop` painted its flat fill (outside the projected prism):
    ``(size, size) bool``. Known from the geometry, so a tile washed out to the fill's colour
    (glare saturating it to white) is not taken for the fill."""
    return prism_mask(pawn_crop_frame(homography, camera_matrix, cell, size, inset_mm)[3], size) == 0


def prism_mask(local: np.ndarray, size: int) -> np.ndarray:
    """The projected prism of :func:`pawn_crop_frame`'s ``local`` points: ``(size, size) uint8``
    255 inside (the base, the lifted top and the sides between them)."""
    n = len(local) // 2
    mask = np.zeros((size, size), np.uint8)
    cv2.fillConvexPoly(mask, local[:n], 255)          # one at a time: fillPoly would XOR the overlap
    cv2.fillConvexPoly(mask, local[n:], 255)
    for i in range(n):                                # the sides between the two squares
        j = (i + 1) % n
        cv2.fillConvexPoly(mask, np.array([local[i], local[j], local[n + j], local[n + i]]), 255)
    return mask


#: a blob lies on a part matched on its cell when at least this share of its pixels lies
#: within half the part's width of the match's centre (:meth:`FDDetector._pawns_off_parts`)
ON_PART = 0.5


class Covering(NamedTuple):
    """What lies on one tile (:meth:`FDDetector._covering`).

    Attributes
    ----------
    found : list of Blob
        The blobs of what the tile's picture does not explain (:func:`~.desert_pieces.blobs`).
    probs : (n, len(CLASSES)) float
        Their class probabilities (:data:`~.desert_pieces.CLASSES`).
    res : Residual
        The tile's own fit (:func:`~.desert_fit.residual_of_fit`): the sand is read from it.
    match : Match
        The picture laid on the cell.
    own : (list of Blob, (m, len(CLASSES)) float) or None
        When the blobs come from the tile read in the table's light because a sand marker
        broke its own fit by less than ``BROKEN_FIT`` (``SAND_BROKEN_FIT``,
        :meth:`FDDetector._broken_fit_sand`), the own fit's blobs and probabilities: the parts are
        read from them, as before that light was tried (the pieces of a marker the table's light
        leaves read as parts about as often as the parts there are found), and a pawn from
        ``found`` only at ``LIT_PAWN_LEAST`` and ``LIT_PAWN_LEAST_MM2``. None otherwise.
    sand : (3,) float or None
        The sand network's probabilities (``SAND_CLASSES``) on ``res`` when
        :meth:`FDDetector._broken_fit_sand` already asked it (a fit above ``SAND_BROKEN_FIT``
        times the table's noise), so :meth:`FDDetector.read_pieces` does not ask again; None
        otherwise.
    """

    found: list
    probs: np.ndarray
    res: object
    match: object
    own: tuple | None = None
    sand: np.ndarray | None = None

    def pawn_least(self, crowd: bool = False) -> dict[str, float]:
        """What a blob needs to be read as a pawn, as keywords of
        :func:`~.desert_pieces.cell_readings`: ``pawn_least`` (probability 0..1) and
        ``pawn_least_mm2`` (area, mm^2): the stricter ``LIT_PAWN_LEAST`` and
        ``LIT_PAWN_LEAST_MM2`` when read in the table's light under sand, else ``PAWN_LEAST``
        and ``PAWN_LEAST_MM2``, or none (empty: the likeliest class decides) with ``crowd``
        (see :meth:`FDDetector.read_pieces`). Raises nothing."""
        from . import desert_pieces as dp

        if self.own is not None:
            return {"pawn_least": dp.LIT_PAWN_LEAST, "pawn_least_mm2": dp.LIT_PAWN_LEAST_MM2}
        if crowd:
            return {}
        return {"pawn_least": dp.PAWN_LEAST, "pawn_least_mm2": dp.PAWN_LEAST_MM2}


class FDDetector:
    """The Forbidden Desert table reader (see the module docstring).

    Attributes
    ----------
    flat : DesertFlat
        The owner's tile, storm-card and part pictures: faces, backs, the storm cell and the
        card are read by matching them (:mod:`.desert_flat`), not by a taught classifier.
    blobs : PieceBlobs
        What lies on a tile, from what its picture does not explain (:mod:`.desert_pieces`):
        sand, pawns (from one still) and parts.
    pawn_colour : PawnPixels or None
        The pixel colour model that reads pawns by change (:func:`pawn_changes`).
    """

    def __init__(self, flat, blobs, pawn_colour=None, layout: MatLayout | None = None):
        self.flat, self.blobs, self.pawn_colour = flat, blobs, pawn_colour
        self.layout = layout or mat_layout("forbidden-desert")
        self.flat.prepare()                 # the pictures at every tile size, before the first read
        self._part_bank: list | None = None

    def part_bank(self) -> list:
        """The owner's part cut-outs at every width and turn (:func:`~.desert_parts.templates`),
        built on first use; empty when none can be matched."""
        if self._part_bank is None:
            from . import desert_parts

            self._part_bank = desert_parts.templates(self.flat.part_pictures)
        return self._part_bank

    def read_flat(self, frame: np.ndarray, homography: np.ndarray, cells: list | None,
                  with_card: bool, prior: Mapping | None = None) -> tuple[dict[Slot, Reading], dict]:
        """Face readings of ``cells`` (default all) and the card place's, by matching the
        pictures (:mod:`.desert_flat`): the whole table read jointly under the rules' counts when
        every cell is asked for (``prior``, dict cell -> dict label -> nats, adds what else is
        known, :func:`~.desert_flat.table_readings`), each cell alone otherwise. Returns the
        readings and each cell's :class:`~.desert_flat.CellScores`."""
        from . import desert_flat

        out: dict[Slot, Reading] = {}
        all_cells = cells is None or len(cells) == len(self.layout.cells)
        scores = self.flat.score_cells(frame, homography, cells)
        reads = desert_flat.table_readings(scores, prior) if all_cells else desert_flat.single_readings(scores)
        for key, r in reads.items():
            out[("face", *key)] = Reading(r.label, r.confidence, r.margin, r.alternatives)
        if with_card:
            r = desert_flat.card_reading(self.flat.score_card(frame, homography))
            out[("card",)] = Reading(r.label, r.confidence, r.margin, r.alternatives)
        return out, scores

    def read_pieces(self, frame: np.ndarray, homography: np.ndarray, camera_matrix: np.ndarray, scores: Mapping,
                    faces: Mapping[Slot, Reading], relit: Iterable = (),
                    blob_probs: dict | None = None, match_parts: bool = False,
                    crowd: bool = False) -> dict[Slot, Reading]:
        """Sand, pawn and part readings of the cells of ``scores``: each cell's tile laid from
        the picture of its face reading (``faces``) and what it does not explain read as blobs
        (:func:`~.desert_pieces.cell_readings`), cut where their colour changes
        (:func:`~.desert_pieces.colour_regions`). A tile whose own fit broke under what covers
        it is read in the light of the other tiles (:func:`~.desert_fit.in_table_light`) when
        what that leaves unexplained is mostly pieces; its sand is read from its own fit (the
        sand network was taught on such fits; the table's light needs ``LIGHT_CELLS`` tiles, so a
        read of a few cells, as the live loop makes, never uses it). A cell read as the storm
        holds nothing; its readings say so with the face reading's confidence. A cell read
        unknown reads so too, but for its sand (:meth:`_sand_of_unknown`).
        The cells ``(r, c)`` in ``relit`` are read in the table's light whatever their fit's
        noise (with the same check of what that leaves): a crowd of pawns can break a fit
        with a gain so low that its noise stays below ``BROKEN_FIT`` times the table's. So is
        a tile whose fit a sand marker broke (its noise above ``SAND_BROKEN_FIT`` times the
        table's, a marker more likely than not, :meth:`_broken_fit_sand`): its pawns are read from
        what the table's light leaves, at the stricter leasts, its parts from its own fit.

        When ``blob_probs`` (a dict) is given, it is filled with each cell's blob class
        probabilities, ``(r, c) -> (n, len(CLASSES)) float`` (:data:`~.desert_pieces.CLASSES`;
        ``n = 0`` for a cell that holds nothing), the evidence the readings were made from
        (the set-up check weighs it whole, :func:`~...tracking.desert_setup.read_setup`).

        A blob is read as a pawn only at ``PAWN_LEAST`` and ``PAWN_LEAST_MM2``
        (:meth:`Covering.pawn_least`), except with ``crowd`` (the set-up read, where every pawn
        starts on one tile, :func:`~...tracking.desert_setup.read_setup`): pawns crowded on a
        tile hide each other, so their blobs are smaller and split, and the crowd is found by
        them (on development set-up tables the leasts hid the crowd: exact with the players 57
        -> 56 of 60, stress); a tile read in the table's light under sand keeps its stricter
        leasts either way.

        With ``match_parts`` the parts are also looked for by matching the owner's cut-outs
        (:meth:`_matched_parts`), on a read of at least ``LEAST_CELLS`` tiles, and a cell's
        pawns read again without the blobs on a part it adds (:meth:`_pawns_off_parts`); about
        30 ms of CPU a tile, so the set-up read (no part is out at the start) and the live loop
        leave it."""
        from . import desert_pieces as dp

        out: dict[Slot, Reading] = {}
        crops: dict[tuple, np.ndarray] = {}
        found_of: dict[tuple, Covering] = {}
        for key, got in self._covering(frame, homography, camera_matrix, scores, faces, frozenset(relit)):
            if isinstance(got, Reading):
                for kind, label in (("sand", "none"), ("pawns", ""), ("parts", "")):
                    out[(kind, *key)] = Reading(label, got.confidence, got.margin)
                sand = self._sand_of_unknown(frame, homography, key, scores[key], faces.get(("face", *key)))
                if sand is not None:
                    out[("sand", *key)] = sand
                if blob_probs is not None:
                    blob_probs[key] = np.zeros((0, len(dp.CLASSES)))
                continue
            crops[key], found_of[key] = got.res.crop, got
            if blob_probs is not None:
                # under sand, the blobs the table's light leaves (the own fit's instead: on
                # development set-up tables laid with a mistake, caught 39 -> 38 of 40, flags on
                # cells read right unchanged)
                blob_probs[key] = np.asarray(got.probs, np.float64).reshape(-1, len(dp.CLASSES))
            sand = got.sand
            if sand is None:
                sand = self.blobs.sand(dp.sand_features(got.res, got.match.centre_mm))
            readings = dp.cell_readings(got.found, got.probs, self.blobs, sand, **got.pawn_least(crowd))
            if got.own is not None:
                readings["parts"] = dp.cell_readings(*got.own, self.blobs)["parts"]
            for kind, (label, conf, margin, alts) in readings.items():
                out[(kind, *key)] = Reading(label, conf, margin, alts)
        if match_parts:
            parts, places = self._matched_parts(crops, out)
            out.update(parts)
            out.update(self._pawns_off_parts(found_of, places, out, crowd))
        return out

    def _matched_parts(self, crops: Mapping[tuple, np.ndarray],
                       readings: Mapping[Slot, Reading]) -> tuple[dict[Slot, Reading], dict[tuple, list]]:
        """The parts readings of the tiles ``crops`` (``(r, c) -> (H, W, 3)`` float32 rectified
        cell, :attr:`~.desert_fit.Residual.crop`) with what matching the owner's cut-outs finds
        (:mod:`.desert_parts`) joined to the blob readings ``readings`` (``("parts", r, c)``).

        A part whose score stands at least ``Z_PRESENT`` robust deviations above its median over
        the table (:func:`~.desert_parts.table_z`) is added to the cell's label, unless a part
        standing higher was matched at the same place (:func:`~.desert_parts.apart`). Its
        confidence is :func:`~.desert_parts.z_confidence`, at most the blob reading's when that
        names parts, and at most ``NOTHING_SEEN`` when it names none (two readers disagree:
        matching alone never makes a sure reading). A part standing at least ``Z_DOUBT`` and
        not read (below ``Z_PRESENT``, or matched over a higher one) makes the reading at most
        ``1 - z_confidence`` sure and is added to its alternatives. Labels are only ever added
        to; only ``parts`` slots change. Returns the readings it changes and, per cell, where
        the parts it added lie (``(r, c) -> [(x, y, width_mm), ...]``, crop px); both empty when
        the bank is empty or fewer than ``LEAST_CELLS`` tiles are given."""
        from . import desert_parts as dparts
        from . import desert_pieces as dp

        bank = self.part_bank()
        if not bank or len(crops) < dparts.LEAST_CELLS:
            return {}, {}
        scores = {key: dparts.part_scores(crop, bank) for key, crop in crops.items()}
        z = dparts.table_z(scores)
        out: dict[Slot, Reading] = {}
        places: dict[tuple, list] = {}
        for key, by_part in z.items():
            slot = ("parts", *key)
            old = readings[slot]
            have = set(filter(None, old.label.split("+")))
            seen = dparts.apart({p: v for p, v in by_part.items() if v >= dparts.Z_PRESENT and p not in have},
                                scores[key])
            doubt = {p: v for p, v in by_part.items()
                     if v >= dparts.Z_DOUBT and p not in have and p not in seen}
            if not seen and not doubt:
                continue
            label = "+".join(sorted(have | set(seen)))
            conf = old.confidence
            if seen:
                conf = min(min(dparts.z_confidence(v) for v in seen.values()),
                           old.confidence if have else dp.NOTHING_SEEN)
            alts = [old.label] if seen else []
            if doubt:                       # another part may lie there too
                part, v = max(doubt.items(), key=lambda kv: kv[1])
                conf = min(conf, 1.0 - dparts.z_confidence(v))
                alts.append("+".join(sorted(have | set(seen) | {part})))
            alts += [a for a in old.alternatives if a not in alts and a != label]
            out[slot] = Reading(label, *dp.confidence_margin(conf), tuple(alts))
            if seen:
                places[key] = [(*scores[key][p][1], scores[key][p][2]) for p in seen]
        return out, places

    def _pawns_off_parts(self, found_of: Mapping[tuple, "Covering"], places: Mapping[tuple, list],
                         readings: Mapping[Slot, Reading], crowd: bool = False) -> dict[Slot, Reading]:
        """The pawns readings of the cells where matching added a part, read again without the
        blobs that lie on the part: a part's picture on a tile leaves a blob the piece
        classifier may call a pawn (a navigation deck a red pawn).

        Parameters
        ----------
        found_of : dict (r, c) -> Covering
            Each cell's :class:`~.desert_pieces.Blob` list, class probabilities and whether
            they were read in the table's light (:class:`Covering`).
        places : dict (r, c) -> list of (x, y, width_mm)
            Where :meth:`_matched_parts` added parts (crop px at ``PPM``).
        readings : dict slot -> Reading
            The readings so far (``("pawns", r, c)``, ``("parts", r, c)``).
        crowd : bool
            As :meth:`read_pieces` was given (which least a pawn blob needs,
            :meth:`Covering.pawn_least`).

        Returns
        -------
        dict slot -> Reading
            The ``pawns`` readings that change: a blob lies on a part when at least
            ``ON_PART`` of its pixels lie within half the part's width of its matched centre;
            the reading is :func:`~.desert_pieces.cell_readings`' of the other blobs, at most as
            sure as the cell's parts reading, the reading before as an alternative.
        """
        from . import desert_fit
        from . import desert_pieces as dp

        out: dict[Slot, Reading] = {}
        for key, where in places.items():
            found, probs = found_of[key].found, found_of[key].probs
            if not found:
                continue
            h, w = found[0].mask.shape
            yy, xx = np.mgrid[0:h, 0:w]
            on = np.zeros((h, w), bool)
            for x, y, width in where:
                on |= np.hypot(xx - x, yy - y) <= width / 2 * desert_fit.PPM
            keep = [i for i, b in enumerate(found) if (b.mask & on).sum() < ON_PART * max(b.mask.sum(), 1)]
            if len(keep) == len(found):
                continue
            label, conf, _margin, alts = dp.cell_readings([found[i] for i in keep], np.asarray(probs)[keep],
                                                         self.blobs, **found_of[key].pawn_least(crowd))["pawns"]
            old = readings[("pawns", *key)]
            if label == old.label:
                continue
            conf = min(conf, readings[("parts", *key)].confidence)
            out[("pawns", *key)] = Reading(label, *dp.confidence_margin(conf),
                                           tuple(dict.fromkeys(a for a in (old.label, *alts) if a != label)))
        return out

    def pawns_standing(self, frame: np.ndarray, homography: np.ndarray, camera_matrix: np.ndarray,
                       cells: Iterable) -> dict[tuple, dict[str, float]]:
        """The pawns one still picture shows standing on ``cells``, colour by colour.

        Parameters
        ----------
        frame : (H, W, 3) uint8
            BGR, undistorted.
        homography : (3, 3)
            Mat mm -> frame px.
        camera_matrix : (3, 3)
            Intrinsics.
        cells : iterable of (row, col)

        Returns
        -------
        dict (row, col) -> dict colour -> float
            For each colour some blob of the cell is likeliest to be
            (:func:`~.desert_pieces.pawns_seen`), the highest such probability; empty for a
            cell with none. A cell read as the storm or unknown (nothing could be looked for on
            it) is left out.

        Raises
        ------
        KeyError
            For a cell not on the mat's layout.
        """
        from . import desert_pieces as dp

        cells = sorted(cells)
        faces, scores = self.read_flat(frame, homography, cells, False)
        out = {key: {} for key in cells}
        for key, got in self._covering(frame, homography, camera_matrix, scores, faces):
            if isinstance(got, Reading):
                out.pop(key, None)
            else:
                out[key] = dp.pawns_seen(got.probs)
        return out

    def _sand_of_unknown(self, frame: np.ndarray, homography: np.ndarray, key: tuple, cs,
                         face: Reading | None) -> Reading | None:
        """The sand a cell whose face reads ``unknown`` shows, when it shows some.

        A face reads unknown mostly where sand markers stacked over the middle of the tile
        leave no picture likely enough; the markers are then what the residual shows, whichever
        close picture is laid. So the picture of the cell's best-scoring match is fitted to the
        cell (:meth:`_fit`) and its residual read by the sand network, as a named tile's is
        (:func:`~.desert_pieces.sand_features`, :func:`~.desert_pieces.cell_readings`). Only a
        marker seen is reported: a reading of ``none`` would lend a confidence to a cell the
        camera could not name, so the cell keeps ``none`` at the face reading's confidence.

        Parameters
        ----------
        frame : (H, W, 3) uint8
            BGR, undistorted.
        homography : (3, 3)
            Mat mm -> frame px.
        key : (r, c)
            The cell.
        cs : CellScores
            The cell's scores (:meth:`~.desert_flat.DesertFlat.score_cells`).
        face : Reading or None
            The cell's face reading.

        Returns
        -------
        Reading or None
            ``light`` or ``dark`` with the sand network's confidence, margin (nats) and the
            other sand labels as ranked alternatives; None when ``face`` is not ``unknown``, no
            picture matched, the matched tile lies outside the cell's crop, or the network's
            likeliest label is ``none``. Raises nothing of its own.
        """
        from . import desert_fit
        from . import desert_pieces as dp

        m = cs.match() if face is not None and face.label == "unknown" else None
        if m is None:
            return None
        crop, origin, fit = self._fit(frame, homography, key, cs, m)
        if not fit.tile.any():
            return None
        sand = self.blobs.sand(dp.sand_features(desert_fit.residual_of_fit(crop, origin, fit), m.centre_mm))
        label, conf, margin, alts = dp.cell_readings([], np.zeros((0, len(dp.CLASSES))), self.blobs, sand)["sand"]
        return Reading(label, conf, margin, alts) if label != "none" else None

    def _covering(self, frame: np.ndarray, homography: np.ndarray, camera_matrix: np.ndarray, scores: Mapping,
                  faces: Mapping[Slot, Reading], relit: frozenset = frozenset()):
        """What lies on each cell of ``scores``: yields ``(key, Reading)`` for a cell that holds
        nothing (no picture fits, or read as the storm or unknown: the face reading's
        confidence), else ``(key, Covering)`` (see :meth:`read_pieces`; the cells in ``relit``,
        and those whose fit broke under a sand marker, :meth:`_broken_fit_sand`, read in the table's
        light)."""
        from . import desert_fit
        from . import desert_pieces as dp

        foot, height = dp.foot_point(homography, camera_matrix)
        laid = {}
        for key, cs in scores.items():
            face = faces.get(("face", *key))
            # the picture the face reading chose; the cell's best when the rules' counts gave the
            # cell a label it had no match for (desert_flat.table_readings' unlisted labels)
            m = (cs.match(face.label) or cs.match()) if face is not None else None
            if m is None or face.label in ("storm", "unknown"):
                yield key, (Reading("", face.confidence, face.margin) if face is not None else Reading("", 0.0, 0.0))
                continue
            laid[key] = (m, *self._fit(frame, homography, key, cs, m))
        lights = desert_fit.table_light({key: fit for key, (_m, _crop, _origin, fit) in laid.items()})
        for key, (m, crop, origin, fit) in laid.items():
            res = desert_fit.residual_of_fit(crop, origin, fit)
            light = lights.get(key)
            lit = desert_fit.in_table_light(fit, light, key in relit)
            # a fit that broke under a sand marker less than BROKEN_FIT shows
            sand_probs = self._broken_fit_sand(res, m, fit, light) if lit is fit else None
            sand = sand_probs is not None and float(sand_probs[0]) < 0.5
            lit = desert_fit.in_table_light(fit, light, True) if sand else lit
            got = None
            if lit is not fit:
                # a broken fit: what lies on the tile in the table's light, unless most of it is
                # none of the pieces (then the picture itself is more likely wrong)
                got = self._blobs(desert_fit.residual_of_fit(crop, origin, lit), foot, height, m)
                got = got if dp.unexplained_share(*got) <= dp.LIT_UNEXPLAINED else None
            own = self._blobs(res, foot, height, m) if got is None or sand else None   # only when used
            found, probs = got if got is not None else own
            yield key, Covering(found, probs, res, m, own if sand and got is not None else None, sand_probs)

    def _broken_fit_sand(self, res, m, fit, light) -> np.ndarray | None:
        """The sand network's probabilities ``(3,) float`` (``SAND_CLASSES``) on a tile's own
        fit (``fit``, its residual ``res``, laid by match ``m``) whose noise exceeds
        ``SAND_BROKEN_FIT`` times the table's (``light``, :class:`~.desert_fit.TableLight` or
        None); None for a fit within it or without the table's light. The fit broke under a
        sand marker when ``none`` is below one half there (a marker more likely than not; the
        cell's sand reading is the likeliest of the three, so with ``none`` at 0.45 the tile is
        read in the table's light while its sand reads ``none``). Raises nothing."""
        from . import desert_fit
        from . import desert_pieces as dp

        if light is None or fit.noise <= desert_fit.SAND_BROKEN_FIT * light.noise:
            return None
        return self.blobs.sand(dp.sand_features(res, m.centre_mm))

    def _blobs(self, res, foot, height: float, m) -> tuple[list, np.ndarray]:
        """The blobs of a residual ``res`` (:class:`~.desert_fit.Residual`;
        :func:`~.desert_pieces.blobs`, with the camera's foot point ``foot`` (2,) mm and height
        mm, the tile placed by match ``m``) and their class probabilities ``(n,
        len(CLASSES)) float``."""
        from . import desert_pieces as dp

        found = dp.blobs(res, foot, height, m.centre_mm, self.flat.tile_mm)
        return found, self.blobs.predict(np.array([b.features for b in found]).reshape(-1, dp.BLOB_FEATURES))

    def _fit(self, frame: np.ndarray, homography: np.ndarray, key, cs, m) -> tuple:
        """The picture of match ``m`` (:class:`~.flat_art.Match`) laid on cell ``key`` ``(r, c)``
        of an undistorted ``frame`` (mat mm -> px ``homography``, cell scores ``cs``) and fitted:
        ``(crop (H, W, 3) float32, origin_mm, Fit)``, the fit the faces were scored with when there is one
        (:attr:`~.desert_flat.CellScores.fitted`)."""
        from . import desert_fit

        if cs.fitted is not None and m.label in cs.fitted[2]:
            return (*cs.fitted[:2], cs.fitted[2][m.label])
        crop, origin = cs.fitted[:2] if cs.fitted is not None else desert_fit.cell_crop(frame, homography, self.layout, key)
        bank = self.flat.bank()
        t = bank.templates[m.template]
        pic = bank.pictures[t.picture]
        return crop, origin, desert_fit.fit_picture(crop, pic.image, pic.ppm, self.flat.tile_mm, t.turn, m.centre_mm, origin)

    def read(self, frame: np.ndarray, homography: np.ndarray, camera_matrix: np.ndarray,
             slots: Iterable[Slot] | None = None, reference: tuple | None = None,
             prior: Mapping | None = None, match_parts: bool = False) -> dict[Slot, Reading]:
        """Read slots off an undistorted frame ``(H, W, 3) uint8`` BGR.

        Parameters
        ----------
        homography : (3, 3)
            Mat mm -> frame px.
        camera_matrix : (3, 3)
            Intrinsics (for the standing pieces).
        slots : iterable of slots, optional
            Default: every slot of the table.
        reference : (frame, homography, pawns), optional
            The last committed still frame, its homography and the pawn colours the engine
            put on each cell then (``dict cell -> set``). With it (and a taught pixel colour
            model, :class:`PawnPixels`) pawns are read from what changed since
            (:func:`pawn_changes`, paired across cells by :meth:`_pawns_by_change`), which a
            tile's painting cannot confuse; without it, from the one still.
        prior : dict (r, c) -> dict label -> float, optional
            On a whole-table read (``slots`` None), what the engine expects of the faces, nats
            added to a label's log-probability (:func:`~.desert_flat.table_readings`), guarded
            (:func:`guarded_by`, each cell by the most nats its prior gives): it may make a face the
            camera reads as expected surer, or one it reads otherwise, not surely, the expected
            face unsure; never the expected face sure against the camera. On a read of some
            slots, each cell read alone with its labels weighed by its prior
            (:func:`~.desert_flat.single_readings`; the live loop's
            :func:`~...tracking.live.turn_prior`: what the rules let a tile show during a
            turn), guarded the same way.
        match_parts : bool
            Also look for the parts by matching the owner's cut-outs (:meth:`read_pieces`);
            only a read of the whole table, or of at least ``LEAST_CELLS`` tiles, uses it.
        """
        cells = None if slots is None else sorted({s[1:] for s in slots if s != ("card",)})
        with_card = slots is None or ("card",) in set(slots)
        out, scores = self.read_flat(frame, homography, cells, with_card)
        some = cells is not None and len(cells) < len(self.layout.cells)
        if prior is not None and (cells is None or some):
            from . import desert_flat

            weighed = desert_flat.table_readings(scores, prior) if cells is None else \
                desert_flat.single_readings(scores, prior)
            for key, r in weighed.items():
                told = Reading(r.label, r.confidence, r.margin, r.alternatives)
                nats = max(prior.get(key, {}).values(), default=0.0)
                out[("face", *key)] = guarded_by(out[("face", *key)], told, nats)
        out.update(self.read_pieces(frame, homography, camera_matrix, scores, out, match_parts=match_parts))
        if reference is not None and self.pawn_colour is not None:
            keys = [c.key for c in self.layout.cells] if cells is None else cells
            tall = {key: pawn_crop(frame, homography, camera_matrix, self.layout.cell(key), CROP) for key in keys}
            out.update(self._pawns_by_change(tall, homography, camera_matrix, reference))
        return out

    def _pawns_by_change(self, tall: Mapping, homography, camera_matrix, reference) -> dict[Slot, Reading]:
        """Pawn readings of the cells of ``tall`` (crops now) against the reference frame
        (:func:`pawns_by_change`)."""
        ref_frame, ref_h, ref_pawns = reference
        in_play = set().union(*ref_pawns.values()) if ref_pawns else None
        read = [self.layout.cell(key) for key in tall]
        pairs = {key: cell_change(pawn_crop(ref_frame, ref_h, camera_matrix, self.layout.cell(key)), tall[key],
                                  self.layout.cell(key), homography, camera_matrix, ref_pawns.get(key, ()), ref_h,
                                  read)
                 for key in tall}
        return {("pawns", *key): r for key, r in pawns_by_change(self.pawn_colour, pairs, in_play).items()}

    def save(self, folder: str | Path) -> Path:
        """Write the pictures (``pictures/``), the blob classifier and the pawn change model
        under ``folder``, and an index ``detector.json``."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        self.flat.save(folder / "pictures")
        self.blobs.save(folder / "piece-blobs.npz")
        if self.pawn_colour is not None:
            self.pawn_colour.save(folder)
        (folder / "detector.json").write_text(json.dumps({"game": "forbidden-desert", "version": DETECTOR_VERSION,
                                                          "pawn_change": self.pawn_colour is not None}, indent=1))
        return folder

    @classmethod
    def load(cls, folder: str | Path) -> "FDDetector":
        """Read a detector written by :meth:`save`.

        Raises
        ------
        OSError, ValueError
            When the folder or a model is missing or unreadable, or was written by another
            version (the sentence says to teach again).
        """
        from .desert_flat import DesertFlat
        from .desert_pieces import PieceBlobs

        folder = Path(folder)
        index = json.loads((folder / "detector.json").read_text())
        if index.get("version") != DETECTOR_VERSION:
            raise ValueError(f"{folder} was taught by another version of the assistant: teach the pieces again "
                             "(assistant teach --game forbidden-desert --slot table)")
        colour = PawnPixels.load(folder) if index.get("pawn_change") else None
        return cls(DesertFlat.load(folder / "pictures"), PieceBlobs.load(folder / "piece-blobs.npz"), colour)


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


DATA = Path(__file__).resolve().parent / "data"


def shipped_blobs() -> "PieceBlobs":
    """The blob classifier shipped with the project (``data/piece-blobs.npz``), taught on
    varied tables drawn with the project's own art (:mod:`.desert_variety`)."""
    from .desert_pieces import PieceBlobs

    return PieceBlobs.load(DATA / "piece-blobs.npz")


def shipped_pawn_change() -> "PawnPixels":
    """The pawn change model shipped with the project (``data/pawn-pixels.npz``), taught on
    rendered pawn moves with the project's own art (:func:`teach_pawn_change`)."""
    return PawnPixels.load(DATA)


def teach(flat=None, blobs=None, pawn_colour=None, layout: MatLayout | None = None) -> FDDetector:
    """Put a detector together from the owner's pictures.

    Parameters
    ----------
    flat : DesertFlat, optional
        The tile, storm-card and part pictures (:func:`~.desert_flat.desert_pictures`);
        default the project's own art.
    blobs : PieceBlobs, optional
        Default :func:`shipped_blobs`, told the colours of ``flat``'s part pictures.
    pawn_colour : PawnPixels, optional
        Default :func:`shipped_pawn_change`.

    Returns
    -------
    FDDetector

    Raises
    ------
    OSError, ValueError
        When a shipped model is missing or unreadable.
    """
    from .desert_flat import DesertFlat, desert_pictures
    from .desert_pieces import PieceBlobs, part_colour

    layout = layout or mat_layout("forbidden-desert")
    if flat is None:
        from ..render.desert import ProceduralArt

        pictures = desert_pictures(None, ProceduralArt())
        flat = DesertFlat(pictures.tiles, pictures.cards, layout, parts=pictures.parts)
    base = blobs or shipped_blobs()
    colours = {p.label: part_colour(p.image) for p in flat.part_pictures} or base.part_colours
    return FDDetector(flat, PieceBlobs(base.net, base.sand_net, colours), pawn_colour or shipped_pawn_change(), layout)


def teach_pawn_change(moves: Iterable[tuple], layout: MatLayout | None = None) -> "PawnPixels":
    """The pawn change model (:class:`PawnPixels` with its :class:`ChangeBlobs`) taught on
    rendered changes of one cell (:func:`~.synth.pawn_moves`, :func:`~.synth.other_changes`
    tuples).

    Raises
    ------
    ValueError
        When a pawn colour or the change classifier got nothing to learn from.
    """
    layout = layout or mat_layout("forbidden-desert")
    moves = list(moves)
    colour = PawnPixels.teach((m[0], m[1], m[7]) for m in moves)
    colour.blobs = ChangeBlobs.teach(colour, moves, layout)
    return colour


# --- pawns by change ----------------------------------------------------------------------------

NOT_A_PAWN = "none"
LAB_BINS = 32                    #: bins per Lab axis of the pixel colour model
#: a colour's change counts as a pawn that came or went when it covers this share of the area
#: a pawn shows in the crop (``PawnPixels.teach`` measures it on rendered moves)
PAWN_SHARE = 0.15
#: the change threshold: DIFF_NOISE x the noise of a crop pair, within DIFF_RANGE (grey levels)
DIFF_NOISE, DIFF_RANGE = 5.0, (22.0, 40.0)
#: a blob read as a pawn this weakly or less is more likely no pawn (see pawn_reading)
NEITHER_BELOW = 0.3
#: a pawn read arriving this strongly makes its leaving its old cell likelier by PAIR_PRIOR x strength
PAIR_STRENGTH, PAIR_PRIOR, PAIR_STRENGTH_SHARE = 0.5, 0.3, 0.8
#: changed pixels over this many pawns' area: the tile itself changed (dug, slid), pawns are not judged
#: (rendered pawn moves changed at most 3.4 pawns' area under a lamp, a turned tile at least 5.3:
#: about midway on a log scale)
TILE_CHANGE_PAWNS = 4.2
#: how strongly the side a blob's piece is on (:func:`piece_side`, -1..1) moves the came/went odds
SIDE_GAIN = 2.0
#: a blob that fits a pawn's silhouette better than SHAPE_FROM (IoU) makes "no pawn" up to
#: SHAPE_WEIGHT less likely (at a perfect fit)
SHAPE_FROM, SHAPE_WEIGHT = 0.5, 0.6
#: a pawn-shaped blob without pawn colour counts as a pawn of up to this strength (keep it
#: under NEITHER_BELOW: an alternative only, never the reading); 0 drops it
OUTLINE_ONLY = 0.28


def _diff_mask(a: np.ndarray, b: np.ndarray, threshold: float | None = None,
               valid: np.ndarray | None = None) -> np.ndarray:
    """Pixels where two balanced crops ``(H, W, 3) uint8`` differ by more than ``threshold`` in
    some channel, specks removed: ``(H, W) bool``. By default the threshold follows the noise
    of the pair: ``DIFF_NOISE`` times the robust spread of the differences (most pixels did not
    change) over the ``valid`` pixels ``(H, W) bool`` (default all), within ``DIFF_RANGE``."""
    diff = np.abs(a.astype(np.int16) - b.astype(np.int16)).max(axis=-1)
    if threshold is None:
        seen = diff[valid] if valid is not None and valid.any() else diff
        spread = 1.4826 * float(np.median(seen))            # |difference| of unchanged pixels ~ noise
        threshold = float(np.clip(DIFF_NOISE * spread, *DIFF_RANGE))
    return cv2.morphologyEx((diff > threshold).astype(np.uint8), cv2.MORPH_OPEN, np.ones((2, 2), np.uint8)) > 0


def pawn_silhouette(center_mm, homography: np.ndarray, camera_matrix: np.ndarray, cell, size: int = CROP,
                    radius_mm: float = 8.0, height_mm: float = 30.0) -> np.ndarray:
    """Where a pawn standing at mat point ``center_mm`` (x, y mm) shows in ``cell``'s
    :func:`pawn_crop`: the convex hull of its base circle and its top, ``(size, size) bool``."""
    a = np.linspace(0.0, 2 * np.pi, 16, endpoint=False)
    ring = np.column_stack([np.cos(a), np.sin(a)])
    pts = [np.column_stack([center_mm + radius_mm * ring, np.zeros(16)]),
           np.column_stack([center_mm + 0.55 * radius_mm * ring, np.full(16, -0.8 * height_mm)]),
           np.column_stack([center_mm + 0.5 * radius_mm * ring, np.full(16, -height_mm)])]
    px = project_to_crop(np.vstack(pts), homography, camera_matrix, cell, size)
    mask = np.zeros((size, size), np.uint8)
    hull = cv2.convexHull(np.round(px).astype(np.int32))
    cv2.fillConvexPoly(mask, hull, 1)
    return mask > 0


def pawn_area(homography: np.ndarray, camera_matrix: np.ndarray, cell, size: int = CROP) -> float:
    """Crop px a pawn standing in the middle of ``cell`` covers in its :func:`pawn_crop`."""
    return float(pawn_silhouette(np.asarray(cell.center_mm, float), homography, camera_matrix, cell, size).sum())


class PawnPixels:
    """Which pawn colour a pixel shows: a Bayes classifier on a ``LAB_BINS ** 3``-bin histogram
    of grey-world balanced Lab (balanced with the gains of the *before* crop of a pair, so both
    crops of a change share them), one histogram per pawn colour and one for ``none`` (tiles,
    sand, parts, the mat, shadows), smoothed over neighbouring bins.

    Attributes
    ----------
    log_lik : (LAB_BINS, LAB_BINS, LAB_BINS, 7) float32
        ``log p(bin | label)`` for ``labels``.
    labels : tuple of str
        ``COLOURS`` then ``"none"``.
    pawn_area : float
        Median crop px a pawn covers (measured when teaching), for reference.
    """

    labels = COLOURS + (NOT_A_PAWN,)

    def __init__(self, log_lik: np.ndarray, pawn_area: float = 0.0, blobs: "ChangeBlobs | None" = None):
        self.log_lik = np.asarray(log_lik, np.float32)
        self.pawn_area = float(pawn_area)
        self.blobs = blobs

    @staticmethod
    def _bins(pixels: np.ndarray) -> tuple:
        if len(pixels) == 0:
            return (np.zeros(0, np.int32),) * 3
        lab = cv2.cvtColor(pixels.reshape(-1, 1, 3), cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.int32)
        q = lab * LAB_BINS // 256
        return q[:, 0], q[:, 1], q[:, 2]

    def posterior(self, pixels: np.ndarray) -> np.ndarray:
        """``p(label | pixel)`` with equal priors, for balanced BGR ``(n, 3) uint8`` pixels:
        ``(n, 7) float32`` (columns in ``labels`` order)."""
        if len(pixels) == 0:
            return np.zeros((0, len(self.labels)), np.float32)
        ll = self.log_lik[self._bins(np.ascontiguousarray(pixels, np.uint8))]
        ll = ll - ll.max(axis=1, keepdims=True)
        p = np.exp(ll)
        return p / p.sum(axis=1, keepdims=True)

    @classmethod
    def teach(cls, samples: Iterable[tuple[np.ndarray, np.ndarray, Mapping[str, np.ndarray]]],
              smooth: float = 1.0) -> "PawnPixels":
        """Fit on crop pairs.

        Parameters
        ----------
        samples : iterable of (before crop, after crop, silhouettes)
            :func:`pawn_crop` crops ``(64, 64, 3) uint8`` of one cell before and after a change,
            and per crop (``"before"``, ``"after"``) a ``dict colour -> (64, 64) bool`` of the
            pawns standing there (:func:`pawn_silhouette`). Pixels inside a silhouette teach its
            colour (the rim left out), pixels well outside every silhouette teach ``none``.
        smooth : float
            Gaussian smoothing of the histograms, bins.

        Raises
        ------
        ValueError
            When a pawn colour got no pixels.
        """
        from scipy.ndimage import gaussian_filter

        counts = np.zeros((LAB_BINS,) * 3 + (len(cls.labels),), np.float64)
        areas = []
        kernel = np.ones((3, 3), np.uint8)
        for before, after, sil in samples:
            b, a = _balanced_pair(before, after)
            for img, masks in ((b, sil.get("before", {})), (a, sil.get("after", {}))):
                fill = _fill_mask(img)
                near = np.zeros(img.shape[:2], bool)
                cover = np.zeros(img.shape[:2], np.int32)
                for m in masks.values():
                    cover += m
                for colour, m in masks.items():
                    core = (cv2.erode(m.astype(np.uint8), kernel) > 0) & (cover == 1)   # one pawn, not its rim
                    near |= cv2.dilate(m.astype(np.uint8), kernel, iterations=2) > 0
                    areas.append(int(m.sum()))
                    _add(counts, cls._bins(img[core & ~fill]), cls.labels.index(colour))
                _add(counts, cls._bins(img[~near & ~fill][::3]), len(COLOURS))
        missing = [c for i, c in enumerate(cls.labels) if counts[..., i].sum() == 0]
        if missing:
            raise ValueError(f"no pixels of {missing} to teach the pawn colours")
        log_lik = np.empty_like(counts, dtype=np.float32)
        for i in range(len(cls.labels)):
            h = gaussian_filter(counts[..., i], smooth, mode="constant") + 1e-3
            log_lik[..., i] = np.log(h / h.sum())
        return cls(log_lik, float(np.median(areas)) if areas else 0.0)

    def save(self, folder: str | Path) -> Path:
        """Write ``pawn-pixels.npz`` under ``folder`` (created if missing); returns its path."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "pawn-pixels.npz"
        blobs = {} if self.blobs is None else {f"blob_{k}": v for k, v in self.blobs.arrays().items()}
        np.savez_compressed(path, log_lik=self.log_lik, pawn_area=np.array(self.pawn_area),
                            labels=np.array(self.labels), **blobs)
        return path

    @classmethod
    def load(cls, folder: str | Path) -> "PawnPixels":
        """Read what :meth:`save` wrote.

        Raises
        ------
        OSError
            When the file is missing or unreadable.
        ValueError
            When its labels or shape are not this version's.
        """
        with np.load(Path(folder) / "pawn-pixels.npz") as z:
            if tuple(z["labels"].tolist()) != cls.labels or z["log_lik"].shape != (LAB_BINS,) * 3 + (len(cls.labels),):
                raise ValueError("pawn-pixels.npz was written by another version")
            blobs = None
            if "blob_weights" in z.files:
                raise ValueError("pawn-pixels.npz was taught by an older version of the assistant: teach the "
                                 "pieces again (assistant teach)")
            if "blob_w1" in z.files:
                try:
                    blobs = ChangeBlobs(*(z[f"blob_{k}"] for k in ChangeBlobs.FIELDS))
                except (KeyError, ValueError) as err:
                    raise ValueError(f"pawn-pixels.npz was written by another version ({err})") from None
            return cls(z["log_lik"], float(z["pawn_area"]), blobs)


def _fill_mask(img: np.ndarray, least: int = 200) -> np.ndarray:
    """Pixels of :func:`pawn_crop`'s flat fill (the commonest exact colour, when it covers at
    least ``least`` px): ``(H, W) bool``."""
    flat = img.reshape(-1, 3).astype(np.int32)
    code = (flat[:, 0] << 16) | (flat[:, 1] << 8) | flat[:, 2]     # one integer per exact colour
    vals, counts = np.unique(code, return_counts=True)
    top = int(np.argmax(counts))
    if counts[top] < least:
        return np.zeros(img.shape[:2], bool)
    return (code == vals[top]).reshape(img.shape[:2])


def _add(counts: np.ndarray, bins: tuple, label: int) -> None:
    np.add.at(counts, (*bins, np.full(len(bins[0]), label)), 1.0)


def _changed(before: np.ndarray, after: np.ndarray, outside: np.ndarray | None) -> tuple:
    """The balanced pair, the fill and the changed pixels of two :func:`pawn_crop` crops (see
    :func:`change_blobs`): ``(before, after, fill, changed)``."""
    b, a = _balanced_pair(before, after)
    fill = (_fill_mask(b) | _fill_mask(a)) if outside is None else np.asarray(outside, bool)
    # the fill's edge too: the crop's resampling there differs from frame to frame
    near_fill = cv2.dilate(fill.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    return b, a, fill, _diff_mask(b, a, valid=~fill) & ~near_fill


def change_blobs(before: np.ndarray, after: np.ndarray, pawn_area: float,
                 outside: np.ndarray | None = None) -> tuple:
    """Where two :func:`pawn_crop` crops ``(64, 64, 3) uint8`` of one cell differ, blob by blob.

    The pair is balanced (:func:`_balanced_pair`), the changed pixels found (:func:`_diff_mask`;
    :func:`pawn_crop`'s flat fill and the pixels next to it left out: ``outside``
    ``(64, 64) bool`` from :func:`pawn_crop_outside`, or when not given the commonest exact
    colour of either crop, :func:`_fill_mask`) and split into 8-connected blobs
    (``cv2.connectedComponentsWithStats``); blobs under a tenth of ``pawn_area`` (crop px of one
    pawn) are specks (noise, a pawn's rim) and dropped.

    Returns
    -------
    (before, after, fill, changed, blobs)
        The balanced crops ``(64, 64, 3) uint8``, the flat fill and every changed pixel
        ``(64, 64) bool``, and the blobs, a list of ``(64, 64) bool`` masks.
    """
    b, a, fill, changed = _changed(before, after, outside)
    if not changed.any():
        return b, a, fill, changed, []
    n, labels, stats, _ = cv2.connectedComponentsWithStats(changed.astype(np.uint8))
    blobs = [labels == i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= 0.1 * pawn_area]
    return b, a, fill, changed, blobs


def colour_shifts(model: PawnPixels, before: np.ndarray, after: np.ndarray, pawn_area: float,
                  had: Iterable[str] | None = None, in_play: Iterable[str] | None = None,
                  prior: Mapping[tuple, float] | None = None, shape: np.ndarray | None = None,
                  outside: np.ndarray | None = None) -> dict[tuple, float]:
    """Which pawns came to or went from where two :func:`pawn_crop` crops of one cell differ
    (:func:`change_blobs`; ``outside`` is passed on to it).

    The changed pixels (:func:`_diff_mask`; :func:`pawn_crop`'s flat fill left out) fall into
    blobs; each blob is one pawn that came (its pixels show that colour after), one that went
    (they showed it before), or no pawn. Per blob, every ``(sign, colour)`` gets the share of
    the blob's pixels that show the colour on its side (``p(colour | pixel)``,
    :class:`PawnPixels`), averaged with the share that shows no pawn colour on the other side;
    "no pawn" gets the mean share of no pawn colour on both sides. The best hypothesis takes
    the blob (a blob where "no pawn" is best counts for nothing), weighted by its area in pawns (``pawn_area`` crop px is
    one pawn, a blob counts up to 1.5 pawns) and by that share. With ``had`` (the colours on
    the cell before) only those can go and only others can come; with ``in_play`` (the colours
    in the game) only those can come. ``prior`` adds to a hypothesis' share in every blob (e.g.
    a pawn seen arriving elsewhere makes its leaving this cell likelier, :meth:`FDDetector.read`).
    Which side the piece is on (:func:`piece_side`) scales the came and went hypotheses; with
    ``shape`` (a pawn's silhouette on this cell, :func:`pawn_silhouette`, ``(64, 64) bool``) a
    blob shaped like a standing pawn (:func:`shape_fit` over ``SHAPE_FROM``) makes "no pawn"
    less likely by up to ``SHAPE_WEIGHT`` of its share, and the pawn read there surer (as if
    either its colour or its outline were enough: white and yellow pawns on pale tiles under
    glare or in dim light have too little colour to tell them from the tile).

    When ``model`` carries a taught :class:`ChangeBlobs` (detectors taught since it came) and
    ``shape`` is given (as the live read does), it replaces the hand-weighted rule above: each blob's class probabilities (came / went per
    colour, no pawn), restricted to what ``had`` and ``in_play`` allow and raised by ``prior``,
    give the best hypothesis and its value (the probability); blobs best read as no pawn count
    for nothing.

    Returns
    -------
    dict (sign, colour) -> float
        ``sign`` is ``"+"`` (came) or ``"-"`` (went); the value is how many pawns' worth of
        changed pixels that hypothesis explains (about 1.0 for one clearly seen pawn).
    """
    b, a, fill, changed, blobs = change_blobs(before, after, pawn_area, outside)
    out: dict[tuple, float] = {}
    k = len(COLOURS)
    had = None if had is None else set(had)
    in_play = set(COLOURS) if in_play is None else set(in_play)
    can_come = np.array([c in in_play and (had is None or c not in had) for c in COLOURS], float)
    can_go = np.array([had is None or c in had for c in COLOURS], float)
    if model.blobs is not None and shape is not None:
        allowed = np.concatenate([can_come, can_go, [1.0]])
        for sel in blobs:
            p = model.blobs.predict(blob_features(model, b, a, sel, changed, fill, shape, pawn_area,
                                                  (before, after))[None])[0]
            p = p * allowed
            for (sign, colour), bonus in (prior or {}).items():
                p[COLOURS.index(colour) + (0 if sign == "+" else k)] += bonus
            p = p / max(float(p.sum()), 1e-9)
            best = int(np.argmax(p))
            if best == 2 * k:
                continue                              # no pawn: sand, a part, a shadow
            hyp = ("+" if best < k else "-", COLOURS[best % k])
            out[hyp] = max(out.get(hyp, 0.0), float(p[best]))
        return out
    for sel in blobs:
        area = int(sel.sum())
        pa, pb = model.posterior(a[sel]).mean(axis=0), model.posterior(b[sel]).mean(axis=0)
        # a pawn that came shows its colour after and something that is no pawn before (and the
        # reverse for one that went): a pale tile revealed by a red pawn is not a white pawn
        share = np.concatenate([(pa[:k] + pb[k]) / 2, (pb[:k] + pa[k]) / 2])
        # which side holds the piece: its outline breaks the tile around it there (colour-blind,
        # so a pale tile revealed by a leaving pawn does not pass for a white pawn arriving);
        # the favoured side keeps its share, the other loses up to all of it
        came = float(np.clip(0.5 + SIDE_GAIN * piece_side(b, a, sel, changed, fill=fill), 0.0, 1.0))
        share[:k] *= came / max(came, 1.0 - came)
        share[k:] *= (1.0 - came) / max(came, 1.0 - came)
        for (sign, colour), bonus in (prior or {}).items():
            share[COLOURS.index(colour) + (0 if sign == "+" else k)] += bonus
        share[:k] *= can_come
        share[k:] *= can_go
        best = int(np.argmax(share))
        nothing = (pa[k] + pb[k]) / 2
        like = 0.0                                    # how much the blob's outline says "a pawn"
        if shape is not None:
            fit = shape_fit(sel, shape)
            like = SHAPE_WEIGHT * float(np.clip((fit - SHAPE_FROM) / (1.0 - SHAPE_FROM), 0.0, 1.0))
            nothing *= 1.0 - like
        if share[best] <= nothing:
            # no pawn colour on either side; a blob outlined like a standing pawn may still be
            # one too pale to tell from the tile (white or yellow under glare): kept as a weak
            # pawn (an alternative to "no pawn", see pawn_reading), never as the reading
            if OUTLINE_ONLY and like > 0.0 and share[best] > 0.0:
                hyp = ("+" if best < k else "-", COLOURS[best % k])
                weak = OUTLINE_ONLY * min(1.0, 2.0 * like / SHAPE_WEIGHT)
                out[hyp] = out.get(hyp, 0.0) + float(min(area, pawn_area) / pawn_area * weak)
            continue
        hyp = ("+" if best < k else "-", COLOURS[best % k])
        sure = 1.0 - (1.0 - min(share[best], 1.0)) * (1.0 - like)     # colour or outline
        out[hyp] = out.get(hyp, 0.0) + float(min(area, 1.5 * pawn_area) / pawn_area * sure)
    return out


def blob_features(model: PawnPixels, before: np.ndarray, after: np.ndarray, blob: np.ndarray, changed: np.ndarray,
                  fill: np.ndarray, shape: np.ndarray | None, pawn_area: float,
                  raw: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """What :class:`ChangeBlobs` judges a changed blob by: ``(BLOB_FEATURES,) float32``.

    ``before`` and ``after`` are a balanced pair (:func:`_balanced_pair`) of :func:`pawn_crop`
    crops ``(64, 64, 3) uint8``; ``blob``, ``changed`` and ``fill`` ``(64, 64) bool`` are the
    blob, every changed pixel and the crop's flat fill; ``shape`` a pawn's silhouette on the
    cell (:func:`pawn_silhouette`; None: no outline cue); ``raw`` the crops before and after as
    cut, without the balancing. The features: the mean pixel colour posteriors
    (:meth:`PawnPixels.posterior`) after and before (7 + 7), which side holds the piece
    (:func:`piece_side`), the fit of the blob to the silhouette (:func:`shape_fit`), the blob's
    area in pawns (at most 3), the mean and spread of its balanced Lab values (scaled to 0..1)
    after and before (3 + 3 + 3 + 3), and, from the raw crops, the blob's mean Lab after and
    before less the median Lab of the unchanged pixels before (the cell's own light and cast,
    which the grey-world balance of a strongly coloured tile gets wrong), and that median
    (3 + 3 + 3)."""
    pa, pb = model.posterior(after[blob]).mean(axis=0), model.posterior(before[blob]).mean(axis=0)
    side = piece_side(before, after, blob, changed, fill=fill)
    fit = shape_fit(blob, shape) if shape is not None else 0.0
    la = cv2.cvtColor(after, cv2.COLOR_BGR2LAB)[blob].astype(np.float32) / 255.0
    lb = cv2.cvtColor(before, cv2.COLOR_BGR2LAB)[blob].astype(np.float32) / 255.0
    rb, ra = (cv2.cvtColor(img, cv2.COLOR_BGR2LAB).astype(np.float32) / 255.0 for img in raw)
    context = np.median(rb[~changed & ~fill], axis=0) if (~changed & ~fill).any() else rb.reshape(-1, 3).mean(axis=0)
    return np.concatenate([pa, pb, [side, fit, min(float(blob.sum()) / max(pawn_area, 1.0), 3.0)],
                           la.mean(axis=0), lb.mean(axis=0), la.std(axis=0), lb.std(axis=0),
                           ra[blob].mean(axis=0) - context, rb[blob].mean(axis=0) - context, context]).astype(np.float32)


BLOB_FEATURES = 2 * (len(COLOURS) + 1) + 3 + 12 + 9
#: how far outside a pawn's silhouette (crop px) a changed blob still belongs to the pawn when
#: :class:`ChangeBlobs` is taught: its shadow and blurred rim (chosen on tuning seeds 5-8 and
#: the seen draws 411, 412, 512 among 3, 4, 5 and 8 px; 0 px taught shadow blobs as "no pawn")
PAWN_REACH_PX = 4


class ChangeBlobs:
    """What one changed blob of a cell is: a pawn of some colour that came, one that went, or no
    pawn (sand, a part, a turned tile, a shadow).

    A few perceptrons (``M`` members, the same rows, different starting weights) with one
    hidden layer of ``tanh`` units and a softmax over ``2 * 6 + 1`` classes (came per colour in
    ``COLOURS`` order, went per colour, none), on the standardised :func:`blob_features`; their
    probabilities are averaged (one member's errors on the tuning draws came and went with its
    starting weights, between 2 and 6 in 760 stress cells; the average of five kept to the
    best). Each is fitted by full-batch Adam (Kingma and Ba, ICLR 2015) on the class-balanced
    cross-entropy plus an L2 penalty on the weights. It learns how far to trust
    each cue (colour after and before, relative to the crop's own light, the outline's side and
    shape) and how they combine: a white pawn under a warm cast is bluer than the tile around
    it but far brighter than a blue pawn, which one straight boundary per class cannot weigh.

    Attributes
    ----------
    w1 : (M, BLOB_FEATURES, H) float32
    b1 : (M, H) float32
    w2 : (M, H, 13) float32
    b2 : (M, 13) float32
        One member's weights per row of the first axis (a file with one member's 2-d weights
        loads as ``M = 1``).
    mean, scale : (BLOB_FEATURES,) float32
        Standardisation of the features.
    """

    N_CLASSES = 2 * len(COLOURS) + 1
    FIELDS = ("w1", "b1", "w2", "b2", "mean", "scale")

    def __init__(self, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray, b2: np.ndarray, mean: np.ndarray,
                 scale: np.ndarray):
        from ..mlp import Perceptrons

        try:
            self.net = Perceptrons(w1, b1, w2, b2, mean, scale)
        except ValueError:
            raise ValueError("the pawn change classifier's weights do not fit this version's features") from None
        if self.net.features != BLOB_FEATURES or self.net.w2.shape[-1] != self.N_CLASSES:
            raise ValueError("the pawn change classifier's weights do not fit this version's features")

    def __getattr__(self, name):
        if name in self.FIELDS:                     # w1 ... scale, as before
            return getattr(self.__dict__["net"], name)
        raise AttributeError(name)

    def predict(self, feats: np.ndarray) -> np.ndarray:
        """Class probabilities for feature rows ``(n, BLOB_FEATURES)``, the members' mean:
        ``(n, 13) float32``."""
        return self.net.predict(feats)

    def arrays(self) -> dict[str, np.ndarray]:
        """The weights by name (``FIELDS``), for saving with ``np.savez``."""
        return self.net.arrays()

    @classmethod
    def fit(cls, feats: np.ndarray, classes: np.ndarray, hidden: int = 48, l2: float = 1e-3, steps: int = 2000,
            rate: float = 0.01, seed: int = 0, members: int = 5) -> "ChangeBlobs":
        """Fit on feature rows ``(n, BLOB_FEATURES)`` and class indices ``(n,) int`` (0..12)
        (:meth:`~..mlp.Perceptrons.fit`).

        Raises
        ------
        ValueError
            When there are no rows, or ``members`` is below 1.
        """
        from ..mlp import Perceptrons

        if len(feats) == 0:
            raise ValueError("no changed blobs to teach the pawn change classifier")
        net = Perceptrons.fit(feats, classes, cls.N_CLASSES, hidden, l2, steps, rate, seed, members)
        return cls(*(getattr(net, f) for f in cls.FIELDS))

    @classmethod
    def teach(cls, model: PawnPixels, samples: Iterable[tuple], layout: MatLayout) -> "ChangeBlobs":
        """Fit on rendered changes of one cell (:func:`~.synth.pawn_moves`,
        :func:`~.synth.other_changes` tuples: before crop, after crop, colour that came, colour
        that went, cell, ..., silhouettes, homography, camera matrix); each blob is taught as
        :func:`blob_class` says."""
        feats, classes = [], []
        for before, after, came, went, key, _s0, _s1, sil, homography, camera_matrix in samples:
            cell = layout.cell(key)
            shape = pawn_silhouette(np.asarray(cell.center_mm, float), homography, camera_matrix, cell)
            area = float(shape.sum())
            b, a, fill, changed, blobs = change_blobs(before, after, area,
                                                      pawn_crop_outside(homography, camera_matrix, cell))
            for sel in blobs:
                feats.append(blob_features(model, b, a, sel, changed, fill, shape, area, (before, after)))
                classes.append(blob_class(sel, came, went, sil))
        return cls.fit(np.array(feats), np.array(classes))


def blob_class(blob: np.ndarray, came: str | None, went: str | None,
               silhouettes: Mapping[str, Mapping[str, np.ndarray]]) -> int:
    """The :class:`ChangeBlobs` class a changed ``blob`` ``(64, 64) bool`` is taught as.

    ``silhouettes`` is ``{"before": {colour: mask}, "after": {colour: mask}}`` (the pawns'
    :func:`~.synth.silhouettes` on the cell, ``(64, 64) bool``). The blob is the pawn that
    ``came`` (index ``COLOURS.index(came)``) when more than 30 % of it lies within
    ``PAWN_REACH_PX`` of that pawn's silhouette after the change, else the pawn that ``went``
    (``len(COLOURS) + COLOURS.index(went)``) by its silhouette before, else no pawn
    (``2 * len(COLOURS)``): its shadow and blurred rim fall just outside the silhouette, and a
    white pawn on a pale tile often shows as little else."""
    reach = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * PAWN_REACH_PX + 1,) * 2)
    k = len(COLOURS)
    for colour, side, offset in ((came, "after", 0), (went, "before", k)):
        mask = silhouettes.get(side, {}).get(colour) if colour else None
        if mask is not None and (cv2.dilate(mask.astype(np.uint8), reach).astype(bool) & blob).sum() > 0.3 * blob.sum():
            return offset + COLOURS.index(colour)
    return 2 * k


def shape_fit(blob: np.ndarray, shape: np.ndarray) -> float:
    """How well a changed blob ``(H, W) bool`` matches a pawn's silhouette ``(H, W) bool``
    (:func:`pawn_silhouette`) moved onto it centroid to centroid: intersection over union, 0..1."""
    ys, xs = np.nonzero(blob)
    sy, sx = np.nonzero(shape)
    if len(ys) == 0 or len(sy) == 0:
        return 0.0
    m = np.float32([[1, 0, round(xs.mean() - sx.mean())], [0, 1, round(ys.mean() - sy.mean())]])
    moved = cv2.warpAffine(shape.astype(np.uint8), m, (blob.shape[1], blob.shape[0]), flags=cv2.INTER_NEAREST) > 0
    return float((blob & moved).sum() / max((blob | moved).sum(), 1))


def piece_side(before: np.ndarray, after: np.ndarray, blob: np.ndarray, changed: np.ndarray,
               ring_px: int = 3, window: int = 9, fill: np.ndarray | None = None) -> float:
    """Which of two balanced crops ``(H, W, 3) uint8`` holds the piece that makes the changed
    ``blob`` ``(H, W) bool``: the one where the blob's rim differs more from the unchanged pixels
    just outside it (a piece's outline breaks the tile; the tile itself runs on across the rim).

    ``changed`` ``(H, W) bool`` is every changed pixel (left out of the outside ring); the rim is
    the blob's outer 2 px, each rim pixel compared with the mean of the ring pixels (up to
    ``ring_px`` px outside the blob) in its ``window`` x ``window`` neighbourhood. ``fill``
    ``(H, W) bool`` is where the crops hold :func:`pawn_crop`'s flat fill (as :func:`change_blobs`
    returns it; when not given, found by colour in ``before``), left out of the ring.

    Returns
    -------
    float
        In -1..1: > 0 the piece is in ``after`` (it came), < 0 in ``before`` (it went); 0 when
        the blob has no usable rim.
    """
    k3 = np.ones((3, 3), np.uint8)
    m = blob.astype(np.uint8)
    ring = (cv2.dilate(m, k3, iterations=ring_px) > 0) & ~(cv2.dilate(changed.astype(np.uint8), k3) > 0)
    ring &= ~(_fill_mask(before) if fill is None else fill)
    rim = blob & ~(cv2.erode(m, k3, iterations=2) > 0)
    weight = ring.astype(np.float32)
    count = cv2.boxFilter(weight, -1, (window, window), normalize=False)
    use = rim & (count > 0)
    if use.sum() < 5:
        return 0.0
    steps = []
    for img in (before, after):
        f = img.astype(np.float32)
        near = cv2.boxFilter(f * weight[..., None], -1, (window, window), normalize=False) / np.maximum(count, 1.0)[..., None]
        steps.append(float(np.abs(f - near)[use].max(axis=-1).mean()))
    d_before, d_after = steps
    return (d_after - d_before) / max(d_after + d_before, 1e-3)


def tile_changed(model, before: np.ndarray, after: np.ndarray, pawn_area: float | None = None,
                 outside: np.ndarray | None = None) -> bool:
    """Whether more of the crop changed than pawns can explain (``TILE_CHANGE_PAWNS`` pawns'
    area): the tile was turned over or replaced, and colour changes there say little of pawns.
    The changed pixels as :func:`change_blobs` finds them (``outside`` passed on)."""
    changed = _changed(before, after, outside)[3]
    return bool(changed.sum() > TILE_CHANGE_PAWNS * (pawn_area if pawn_area else model.pawn_area))


def pawn_changes(model, before: np.ndarray, after: np.ndarray, pawn_area: float | None = None,
                 had: Iterable[str] | None = None, in_play: Iterable[str] | None = None,
                 prior: Mapping[tuple, float] | None = None, shape: np.ndarray | None = None,
                 outside: np.ndarray | None = None) -> list[tuple]:
    """What the change between two crops of one cell may mean, pawn by pawn.

    Parameters
    ----------
    model : PawnPixels
    before, after : (64, 64, 3) uint8
        :func:`pawn_crop` crops of one cell.
    pawn_area : float, optional
        Crop px of one pawn on this cell (:func:`pawn_area`); default the model's median.
    had, in_play : iterables of colours, optional
        The pawns on the cell before and the pawns in the game (see :func:`colour_shifts`).
    prior : dict (sign, colour) -> float, optional
        See :func:`colour_shifts`.
    shape : (64, 64) bool, optional
        A pawn's silhouette on this cell (:func:`pawn_silhouette`), see :func:`colour_shifts`.
    outside : (64, 64) bool, optional
        Where the crops hold :func:`pawn_crop`'s fill (:func:`pawn_crop_outside`); default found
        by colour (see :func:`change_blobs`).

    Returns
    -------
    list of ((colour or None, strength), (colour or None, strength))
        One entry per pawn that came or went by at least ``PAWN_SHARE`` of a pawn's worth of
        evidence (:func:`colour_shifts`), strongest first: ((colour, strength), (None, 0.0))
        for one that came, ((None, 0.0), (colour, strength)) for one that went; strength in
        0..1 (1 from a full, clearly coloured pawn).
    """
    area = pawn_area if pawn_area else model.pawn_area
    out = []
    for (sign, colour), d in sorted(colour_shifts(model, before, after, area, had, in_play, prior, shape,
                                                               outside).items(),
                                    key=lambda kv: -kv[1]):
        if d < PAWN_SHARE:
            continue
        strength = float(min(1.0, d))
        out.append(((colour, strength), (None, 0.0)) if sign == "+" else ((None, 0.0), (colour, strength)))
    return out


def read_pawn_change(model: "PawnPixels", before: np.ndarray, after: np.ndarray, had: Iterable[str],
                     in_play: Iterable[str], cell, homography: np.ndarray, camera_matrix: np.ndarray) -> Reading:
    """The pawns on one cell after a change, read from that cell alone, as the live read does for
    a cell without a pairing prior (:meth:`FDDetector._pawns_by_change`).

    ``before`` and ``after`` are :func:`pawn_crop` crops ``(64, 64, 3) uint8`` of ``cell`` (a
    :class:`~..mats.Cell`) in two frames seen through ``homography`` (mat mm -> px, 3x3) and
    ``camera_matrix`` (3x3 intrinsics); ``had`` the colours on the cell before, ``in_play`` the
    colours in the game. The pawn's silhouette at the cell's centre (:func:`pawn_silhouette`)
    gives the pawn area and the outline cue; :func:`pawn_changes` finds the pawns that came or
    went and :func:`pawn_reading` joins them into a :class:`~...tracking.base.Reading`."""
    c = cell_change(before, after, cell, homography, camera_matrix, had)
    return pawn_reading(c.had, pawn_changes(model, before, after, float(c.shape.sum()), c.had, in_play,
                                            shape=c.shape, outside=c.outside))


class CellChange(NamedTuple):
    """One cell's change, as :func:`pawns_by_change` reads it (build it with :func:`cell_change`)."""

    before: np.ndarray    #: :func:`pawn_crop` before, ``(64, 64, 3) uint8``
    after: np.ndarray     #: :func:`pawn_crop` after, ``(64, 64, 3) uint8``
    shape: np.ndarray     #: a pawn's silhouette there, ``(64, 64) bool`` (:func:`pawn_silhouette`)
    outside: np.ndarray   #: where the crops hold the fill, ``(64, 64) bool`` (:func:`pawn_crop_outside`)
    had: set              #: the colours on the cell before
    #: where other cells' tiles show in the crops: cell key -> ``(64, 64) bool`` (:func:`tiles_in_crop`)
    beside: Mapping | None = None


def cell_change(before: np.ndarray, after: np.ndarray, cell, homography: np.ndarray, camera_matrix: np.ndarray,
                had: Iterable[str], before_homography: np.ndarray | None = None,
                others: Iterable = ()) -> CellChange:
    """The :class:`CellChange` of ``cell`` (a :class:`~..mats.Cell`) from its :func:`pawn_crop`
    crops ``(64, 64, 3) uint8``, cut through ``homography`` (mat mm -> px, 3x3; the crop before
    through ``before_homography`` when it differs) and ``camera_matrix`` (3x3 intrinsics): the
    pawn's silhouette at the cell's centre, the fill of either crop, and where the tiles of
    ``others`` (the :class:`~..mats.Cell` read with it; ``cell`` itself may be among them) show
    in either crop (:func:`tiles_in_crop`). Raises nothing."""
    shape = pawn_silhouette(np.asarray(cell.center_mm, float), homography, camera_matrix, cell)
    outside = pawn_crop_outside(homography, camera_matrix, cell)
    others = list(others)
    beside = tiles_in_crop(homography, camera_matrix, cell, others)
    if before_homography is not None and not np.array_equal(before_homography, homography):
        outside = outside | pawn_crop_outside(before_homography, camera_matrix, cell)
        then = tiles_in_crop(before_homography, camera_matrix, cell, others)
        beside = {key: beside.get(key, False) | then.get(key, False) for key in beside.keys() | then.keys()}
    return CellChange(before, after, shape, outside, set(had), beside)


def tiles_in_crop(homography: np.ndarray, camera_matrix: np.ndarray, cell, others: Iterable,
                  size: int = CROP) -> dict[tuple, np.ndarray]:
    """Where the tiles of ``others`` (:class:`~..mats.Cell`; ``cell`` itself among them is
    skipped) show in ``cell``'s :func:`pawn_crop` of that size: their polygons on the mat
    (z = 0) projected through the mat's pose (``homography`` mat mm -> px and
    ``camera_matrix``, both 3x3, :func:`project_to_crop`), within the crop's prism (not
    :func:`pawn_crop_outside`). The prism reaches up ``PAWN_HEIGHT_MM``, so from a slanted
    camera it holds the tiles behind the cell (from 65 degrees on, the tile two cells behind too).
    Returns cell key -> ``(size, size) bool``, only the cells that show there. Raises nothing."""
    others = [o for o in others if o.key != cell.key]
    if not others:
        return {}
    polys = [np.asarray(o.polygon_mm, np.float64) for o in others]
    px = project_to_crop(np.column_stack([np.vstack(polys), np.zeros(sum(map(len, polys)))]),
                         homography, camera_matrix, cell, size)
    inside = ~pawn_crop_outside(homography, camera_matrix, cell, size)
    out, at = {}, 0
    for other, poly in zip(others, polys):
        mask = np.zeros((size, size), np.uint8)
        cv2.fillConvexPoly(mask, np.round(px[at:at + len(poly)]).astype(np.int32), 1)
        at += len(poly)
        shown = (mask > 0) & inside
        if shown.any():
            out[other.key] = shown
    return out


def pawns_by_change(model: "PawnPixels", pairs: Mapping, in_play: Iterable[str] | None = None) -> dict:
    """The pawns on several cells after a change, each cell read from what changed there and the
    cells read together, as the live read does (:meth:`FDDetector.read` with a reference).

    Parameters
    ----------
    model : PawnPixels
        With its :class:`ChangeBlobs`.
    pairs : dict cell key -> CellChange
        Per cell its crops before and after, a pawn's silhouette there, where the crops hold the
        fill, the colours on it before and where other cells' tiles show in the crops
        (:func:`cell_change`; a plain tuple in that order will do).
    in_play : iterable of str, optional
        The colours in the game (default: those in ``had`` of some cell, or all when none).

    Returns
    -------
    dict cell key -> Reading
        :func:`pawn_reading` per cell. A cell whose tile was turned over or replaced
        (:func:`tile_changed`) is left out of the crops of the other cells where its tile shows
        there (``beside``): a pawn's crop reaches over the tiles behind it, and a tile turned
        there is no pawn coming or going (game video 8864, event 3: an excavation behind
        a cell read as its white pawn leaving, sure). Two passes: a pawn seen clearly arriving
        on one cell (strength >= ``PAIR_STRENGTH``) left the cell it stood on, so the second
        pass reads that cell with a prior of ``PAIR_PRIOR`` times the arrival's strength for its
        leaving (when that cell is among ``pairs``); when that cell's own reading then sees it
        leave, the leaving is at least ``PAIR_STRENGTH_SHARE`` times as strong as the arrival.
    """
    cells = {key: CellChange(*p) for key, p in pairs.items()}
    if in_play is None:
        in_play = set().union(*(c.had for c in cells.values())) or None
    turned = {key for key, c in cells.items()
              if tile_changed(model, c.before, c.after, float(c.shape.sum()), c.outside)}
    outside = {key: _less_turned(c, turned) for key, c in cells.items()}

    def read(key, prior=None) -> list[tuple]:
        c = cells[key]
        return pawn_changes(model, c.before, c.after, float(c.shape.sum()), c.had, in_play, prior, c.shape,
                            outside[key])

    where = {colour: key for key, c in cells.items() for colour in c.had}
    changes = {key: read(key) for key in cells}
    priors: dict = {}
    for key, found in changes.items():
        for (came, strength), _went in found:
            src = where.get(came)
            if came and strength >= PAIR_STRENGTH and src in cells and src != key:
                priors.setdefault(src, {})[("-", came)] = PAIR_PRIOR * strength
    for key, prior in priors.items():
        # its own cell saw it go too: the two readings back each other (a pawn on a tile of
        # its own colour changes few pixels when it leaves)
        changes[key] = [((c, sc), (w, max(sw, PAIR_STRENGTH_SHARE * prior[("-", w)] / PAIR_PRIOR)
                                   if ("-", w) in prior else sw)) for (c, sc), (w, sw) in read(key, prior)]
    return {key: pawn_reading(c.had, changes[key], key in turned) for key, c in cells.items()}


def _less_turned(c: CellChange, turned: set) -> np.ndarray | None:
    """``c.outside`` with the tiles of the cells in ``turned`` that show in the crops
    (``c.beside``) added: ``(64, 64) bool``; ``c.outside`` as it is where none shows, or where it
    is None (a plain tuple without the geometry: the fill is then found by colour)."""
    masks = [m for key, m in (c.beside or {}).items() if key in turned]
    return c.outside if not masks or c.outside is None else np.logical_or.reduce([c.outside, *masks])


def _balanced_pair(before: np.ndarray, after: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both crops ``(H, W, 3) uint8`` times the grey-world gains of ``before`` (so that a change
    between them is not balanced away): ``(before, after)``, uint8."""
    gains = before.reshape(-1, 3).astype(np.float32).mean(axis=0)
    gains = gains.mean() / np.maximum(gains, 1.0)
    return (np.clip(before.astype(np.float32) * gains, 0, 255).astype(np.uint8),
            np.clip(after.astype(np.float32) * gains, 0, 255).astype(np.uint8))


def pawn_reading(before: set[str], blobs: list[tuple], tile_changed: bool = False) -> Reading:
    """The pawns now on a cell, from those before and the change blobs (:func:`pawn_changes`).

    Every blob is one pawn that came or one that went (a tile's painting under a pawn can look
    like a pawn, so either reading of a blob may be the true one), or neither (a sand marker or
    a turned tile changed there, scored ``2 * NEITHER_BELOW - strength``, so a pawn read weaker
    than ``NEITHER_BELOW`` is only an alternative); only pawns that were there can go and
    only others can come.
    Each consistent combination is a possible set: the most likely is the ``label``, the others
    are ``alternatives``, for the tracker to decide with the other cells' evidence (a pawn that
    leaves one cell arrives at another).

    With ``tile_changed`` (:func:`tile_changed`) the colours are no evidence: the reading is the
    pawns before, unsure (confidence 0.5, margin 0), with one pawn more or less as alternatives.
    Otherwise confidence 0.9 and margin 5.
    """
    if tile_changed:
        alts = ["+".join(sorted(before | {c})) for c in PAWN_COLOURS if c not in before]
        alts += ["+".join(sorted(before - {c})) for c in sorted(before)]
        return Reading("+".join(sorted(before)), 0.5, 0.0, tuple(alts))
    choices = []
    for (came, s_came), (went, s_went) in blobs:
        if not (came and came not in before) and not (went and went in before):
            continue
        # neither (sand or a tile's painting changed, a neighbour's pawn showed): as likely as
        # the colour read is weak
        opts = [("", None, max(0.0, 2 * NEITHER_BELOW - max(s_came, s_went)))]
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
