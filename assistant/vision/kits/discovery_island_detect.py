"""Discovery Island detector: what lies on each hex of the mat, read as three slots.

Each lattice hex ``(col, row)`` of :func:`~assistant.vision.mats.discovery_island_mat` has three
slots, each read by its own classifier from its own crop (mat mm, warped straight from the
frame with the mat's homography, north up):

- ``("tile", col, row)``: a 34 mm square around the hex centre (most of the tile, so its terrain
  is seen beside the white panel; the corners show a little of what lies beyond it): ``empty``, a
  land terrain (a face), ``back:<terrain>``, ``checkpoint``, ``cache``;
- ``("number", col, row)``: 15 mm around the number's place (:data:`~.discovery_island.NUMBER_CENTRE_MM`):
  ``1`` .. ``9`` or ``none``;
- ``("mark", col, row)``: 15 mm around the mark's place: ``none``, ``shortcut``,
  ``event:<kind>``, ``checkpoint``, ``cache``.

Teaching (:func:`teach_model`) works as an owner teaches its own tiles by laying them on the mat
in front of the camera: the kit's printed tiles (:func:`~.discovery_island.tile_art`) are laid on
the mat in rendered table views under many lights and camera angles, and one
:func:`~assistant.vision.classify.fit_classifier` discriminant per slot kind is fitted on the
crops (prototypes = designs). :func:`load_or_teach` caches the three classifiers in a folder
(:func:`default_model_dir`).

Colour from the mat, not from the camera: every crop, taught or read, is first re-encoded as the
mat's printed colour references say the print is
(:meth:`~assistant.vision.colour_refs.ColourFrame.corrected`: the frame's tone curve from the
neutrals, then its colour matrix), so a webcam's white balance, exposure and tone curve do not
move the crop's colours; each teaching view is also seen through random webcam pipelines
(:func:`~assistant.vision.render.webcam.random_webcam`, :data:`WEBCAM_COPIES`), several effects
at once, whose ranges are documented there (apart from the held-out pictures' ranges,
:mod:`assistant.bench.kit_photos`).

The number and the mark are small: each is read from the crop, among a few shifted by up to
1.5 mm (:data:`SHIFTS_MM`), that fits a taught design best, so a tile laid off or a homography a
millimetre off does not move the print out of the taught place (:func:`shifted_scores`); its
confidence sums the label's probability over the shifts (:func:`placement_confidence`), since
the shift is not known, rather than taking it at the shift picked for fitting best; its
temperature and reject score are fitted for that summed statistic on the teaching calibration
views read at every shift (:func:`fit_placement_calibration`, since kit/9), not for one crop at
its true place.

A blur of a millimetre on the mat smears the 11 mm mark and the 13 mm digit: since kit/10 each is
also taught from blurred copies of its crops (:func:`blurred_crops`, :data:`BLUR_TEACH_MM`), each
design blurred a prototype of its own, so a blurred crop is compared with the design blurred.

The three slots of a hex are read together (:func:`kit_decode`): the kit prints 48 designs, so
a hex's tile, number and mark are one of them (or a bare hex), and the design whose three labels
score best together gives all three; a slot is never surer than its own classifier says. Two
second cues rank the faces there (since session 18): the light the print at the mark's place
absorbs, which a blur spreads but keeps (:func:`mark_ink`, :func:`ink_evidence`: a mark or a bare
panel), and the terrain's colour beside the mat's own terrain patches, both as the camera saw
them (:func:`terrain_distance`, :func:`terrain_evidence`: which terrain).
"""

from __future__ import annotations

import datetime as _dt
import json
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterable, Sequence

import cv2
import numpy as np

from ...tracking.base import Reading
from ..classify import (CellClassifier, cell_features, classify_batch, feature_scores, fit_classifier, label_confidence,
                        load, save)
from ..colour_refs import ColourFrame, colour_frame, read_strips, readable_strips, srgb_to_linear
from ..mats import MatLayout, mat_layout
from ..registration import detect_markers, make_detector, register
from ..render.webcam import random_webcam
from .discovery_island import LAND_TERRAINS, MARK_CENTRE_MM, NUMBER_CENTRE_MM, all_designs, slot_labels

GAME = "discovery-island"
SLOT_KINDS = ("tile", "number", "mark")
#: (crop centre offset from the hex centre mm, crop side mm, crop side px) per slot kind, and the
#: ``panel`` square that :func:`washed_out` looks at (not a slot: the white panel and its print).
#: The tile's square was 26 mm until kit/8, three fifths of it the white panel (31 x 16 mm): a
#: light that clips one channel tints the paper (a warm lamp clipping red reads it cyan), and with
#: so little terrain beside it a wetland read as mountain, a back as another back. At 34 mm the
#: terrain fills over half the crop: on the second renderer's development stills (seeds 101-116
#: and 201-216, stress, 2,016 tiles) wrong tiles 17-18 -> 6-9 over three teaching seeds, with the
#: clipping taught (:func:`~assistant.vision.render.webcam.random_webcam`; README has each part alone)
REGIONS: dict[str, tuple[tuple[float, float], float, int]] = {
    "tile": ((0.0, 0.0), 34.0, 48),
    "number": (NUMBER_CENTRE_MM, 15.0, 32),
    "mark": (MARK_CENTRE_MM, 15.0, 32),
    "panel": ((0.0, 0.0), 26.0, 48),
}
#: the number and the mark are each read at these shifts (mat mm) of their crop, and the shift that
#: fits a taught design best is read (:func:`shifted_scores`): a tile laid up to 2.5 mm off and turned 8
#: degrees, and a homography a millimetre off, move the small printed number out of the place the
#: classifier was taught on. A 3 x 3 grid 1.5 mm apart was chosen on the second renderer's tuning
#: stills (stress seeds 101-116 and 201-216, normal 101-116): wrong numbers 64 -> 24 and marks
#: 35 -> 9 of 2,016 stress readings, normal numbers 3 -> 0 of 1,008, and fewer right readings
#: unsure (normal numbers 12 % -> 4 %); with each label's own best shift, 1.2 or 2 mm and 5 or 13
#: shifts gave 23-27 wrong numbers and 13-14 marks; shifting the tile crop too gave no gain
SHIFTS_MM = tuple((dx, dy) for dx in (-1.5, 0.0, 1.5) for dy in (-1.5, 0.0, 1.5))
#: slot kinds read at :data:`SHIFTS_MM` (the tile's crop is wide enough to hold a tile laid off)
SHIFTED_KINDS = ("number", "mark")
#: changes whenever the art, the regions or the teaching change: a cached model of another version is taught again
#: (kit/9: the number's and mark's manifests add the ``placement`` scale of :func:`placement_confidence`; the
#: classifiers are kit/8's. kit/10: the number and the mark are also taught from blurred copies of their
#: crops, each design a second prototype, :data:`BLUR_TEACH_MM`)
MODEL_VERSION = "discovery-island-kit/10"


#: (min confidence, min margin) of a sure reading per slot kind. The margins separate right from
#: wrong readings on the tuning views (seeds 5-9; measured with the 26 mm tile square of kit/7 and
#: before, not measured again for kit/8's 34 mm one): wrong ones stayed below 0.3, right ones
#: above 1.5 (number), 2.4 (mark), 3.7 (tile) in 99 % of cases; the confidence, which falls when
#: a crop is far from every taught design (a strange light), only vetoes the absurd.
SURE = {"tile": (0.005, 2.0), "number": (0.005, 1.0), "mark": (0.005, 1.0)}
#: the calibrated temperatures (score units; :func:`~assistant.vision.classify.fit_classifier`) of
#: the kit/9 classifiers, the last whose margins :data:`SURE`'s were set in (48 discriminant
#: dimensions, one prototype per design). A margin divided by its classifier's temperature is a
#: calibrated log-odds; :func:`margin_units` puts it back into score units of these temperatures, so
#: a sure margin is the same evidence in every kit: 1.0 / 0.197 = 5.1 nats for the number and the
#: mark, 2.0 / 0.272 = 7.3 for the tile. (kit/10 read its margins times ``k / 48``, the ratio of
#: discriminant dimensions, 2.02 for 97: a sure number on 3.9 nats, a sure mark on 4.3.) The tile
#: is taught as in kit/9, so its factor is 1.
MARGIN_TEMPERATURE = {"tile": 0.27212, "number": 0.19692, "mark": 0.19692}
#: a face whose panel crop's (``REGIONS["panel"]``) 3rd grey percentile is this close to its 97th is washed out by glare:
#: its number and mark are then not trusted (on the tuning views no tile without glare went above
#: 0.57, and every glare-washed misread was above 0.65)
WASHED_RATIO = 0.62
#: the mark's ink as a second cue (:func:`mark_ink`, :func:`ink_evidence`): log-odds, in nats per unit
#: of ink share, that a face's mark is printed rather than left bare, centred on :data:`INK_MIDPOINT`
#: and bounded by :data:`INK_CAP`. A blur spreads the print but keeps the light it absorbs, so the
#: ink share stays where the shape is smeared past legibility. The slope and midpoint are a
#: logistic fit (rounded) on the second renderer's development stills, kit_photos seeds 101-116 and
#: 201-216, normal and stress, land faces only (1,312 bare panels, 1,482 marks; fitted slope 133,
#: midpoint 0.159): bare panels' ink share at most 0.09 in normal light and 0.19 in stress (99th
#: percentile 0.14), marks' at least 0.24 and 0.15 (1st percentile 0.17)
INK_SLOPE = 130.0
#: Rec. 601 luma weights in BGR order: the grey of a crop (:func:`mark_ink`, :func:`washed_out`)
GREY_WEIGHTS = np.float32([0.114, 0.587, 0.299])
INK_MIDPOINT = 0.16
#: bound of :func:`ink_evidence`, nats: the ink alone never outweighs the calibrated evidence of a
#: sure mark reading (``SURE["mark"]`` margin over ``MARGIN_TEMPERATURE["mark"]``, 5.1 nats)
INK_CAP = 5.0
#: the terrain's colour beside the mat's own terrain patches as a second cue (:func:`terrain_distance`,
#: :func:`terrain_evidence`): a Gaussian of this width (log-chromaticity units) in the distance to each
#: terrain's patch, about the spread of the true terrain's distance on the second renderer's
#: development stills (kit_photos seeds 101-116 and 201-216, stress, land faces: median 0.07, root
#: mean square 0.26). Simulated on the development stress stills' scores (8,064 tiles, seeds 101-216
#: and held-out seeds 1-5001, backs ranked too): wrong tiles 30 (no cue), sigma 0.1 17, 0.15 13, 0.2 13,
#: 0.3 19; with faces only, as now, 0.2 gave 15 and 0.15 13 (0.2 kept, chosen before)
TERRAIN_SIGMA = 0.2
#: bound of :func:`terrain_evidence`, nats below the best terrain (as :data:`INK_CAP`)
TERRAIN_CAP = 5.0
#: rows of the tile crop (a share of its side from the top and from the bottom) whose middle columns
#: (:data:`TERRAIN_BAND`'s second share left out at each side) show the terrain above and below the panel
TERRAIN_BAND = (0.21, 0.3)
#: a terrain patch of a reference strip whose every channel is at least this share of the paper
#: beside it (camera levels) shows no ink: glare or a cover has washed it out, and
#: :func:`terrain_distance` leaves it out (the palest terrain ink, open, shows at most 0.83 on the
#: 416 strips of the second renderer's development stills, normal and stress, readable or not)
TERRAIN_PATCH_WASHED = 0.9


@dataclass(frozen=True)
class SlotReading(Reading):
    """A :class:`~assistant.tracking.base.Reading` with the runner-up label (``second``), the
    slot kind's own thresholds of a sure reading (:data:`SURE`) and whether glare washed the
    tile out (``washed``: then the reading is never sure)."""

    second: str = ""
    min_confidence: float = 0.6
    min_margin: float = 0.5
    washed: bool = False

    @property
    def sure(self) -> bool:
        """Confident, clear of the runner-up by the kind's margin, and not washed out."""
        return not self.washed and self.confidence >= self.min_confidence and self.margin >= self.min_margin


@dataclass(frozen=True)
class DIModel:
    """The three classifiers of the Discovery Island detector, by slot kind."""

    tile: CellClassifier
    number: CellClassifier
    mark: CellClassifier

    def of(self, kind: str) -> CellClassifier:
        """The classifier of slot kind ``kind`` (``tile``, ``number``, ``mark``)."""
        return getattr(self, kind)


def region_crop(frame: np.ndarray, homography: np.ndarray, centre_mm: tuple[float, float], side_mm: float,
                size: int) -> np.ndarray:
    """A ``side_mm`` square of the mat centred on ``centre_mm``, north up, warped from the frame.

    Parameters
    ----------
    frame : (H, W, 3) uint8
        BGR.
    homography : (3, 3)
        Mat mm -> frame px.
    centre_mm : (x, y)
        Mat mm.
    side_mm : float
    size : int
        Output side, px.

    Returns
    -------
    (size, size, 3) uint8
        Pixel ``(i, j)`` shows mat point ``centre + ((j + 0.5) / size - 0.5, (i + 0.5) / size - 0.5) * side``;
        parts outside the frame repeat its border.
    """
    k = side_mm / size
    crop_to_mat = np.array([[k, 0.0, centre_mm[0] - side_mm / 2 + 0.5 * k],
                            [0.0, k, centre_mm[1] - side_mm / 2 + 0.5 * k], [0.0, 0.0, 1.0]])
    return cv2.warpPerspective(frame, np.asarray(homography, np.float64) @ crop_to_mat, (size, size),
                               flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)


def hex_crops(frame: np.ndarray, homography: np.ndarray, cells: Sequence[tuple[int, int]],
              layout: MatLayout | None = None, colour: ColourFrame | None = None,
              shift_mm: tuple[float, float] = (0.0, 0.0), kinds: Sequence[str] = SLOT_KINDS) -> dict[str, np.ndarray]:
    """The crops of ``kinds`` for ``cells``, warped straight from the frame.

    Parameters
    ----------
    frame : (H, W, 3) uint8
        BGR, undistorted.
    homography : (3, 3)
        Mat mm -> frame px.
    cells : sequence of (col, row)
        Lattice hexes of the mat (:func:`~assistant.vision.mats.discovery_island_mat`).
    layout : MatLayout, optional
        The mat (default: :func:`~assistant.vision.mats.mat_layout` of the game).
    colour : ColourFrame, optional
        With it, each crop is re-encoded as the mat's references say the print is
        (:meth:`~assistant.vision.colour_refs.ColourFrame.corrected`); without, camera levels.
    shift_mm : (dx, dy) mm
        Moves every crop's centre by that many mat mm.
    kinds : sequence of str
        Keys of :data:`REGIONS`: slot kinds, or ``panel`` (the 26 mm square :func:`washed_out`
        judges glare on).

    Returns
    -------
    dict kind -> (len(cells), S, S, 3) uint8
        ``S`` the crop side in px of :data:`REGIONS`.

    Raises
    ------
    KeyError
        For a kind not in :data:`REGIONS`.
    """
    layout = layout or mat_layout(GAME)
    out = {}
    for kind in kinds:
        (dx, dy), side, size = REGIONS[kind]
        dx, dy = dx + shift_mm[0], dy + shift_mm[1]
        batch = np.empty((len(cells), size, size, 3), np.uint8)
        for i, cell in enumerate(cells):
            cx, cy = layout.cell(tuple(cell)).center_mm
            batch[i] = region_crop(frame, homography, (cx + dx, cy + dy), side, size)
        out[kind] = batch if colour is None else colour.corrected(batch)
    return out


def blurred_crops(frame: np.ndarray, homography: np.ndarray, cells: Sequence[tuple[int, int]], kind: str,
                  sigma_mm: np.ndarray, layout: MatLayout | None = None, colour: ColourFrame | None = None) -> np.ndarray:
    """The ``kind`` crops of ``cells`` as a blurred camera would show them: each cell's square
    warped twice as wide (the same px per mm), blurred by a Gaussian of ``sigma_mm[i]`` mat mm
    (the wide square lets what lies round the crop blur into it), then cut to the crop's own
    square and colour-corrected like every crop. Teaching uses it (:data:`BLUR_TEACH_MM`). Only
    an approximation of a lens's defocus or a shake, which spread light before the camera's tone
    curve, noise and JPEG: here the encoded levels are blurred, after all three, so the blurred
    crop is also smoothed of the noise and the JPEG's blocks a blurred picture would still show.

    Parameters
    ----------
    frame : (H, W, 3) uint8
        BGR, undistorted.
    homography : (3, 3)
        Mat mm -> frame px.
    cells : sequence of (col, row)
    kind : str
        A key of :data:`REGIONS`.
    sigma_mm : (len(cells),) float
        Blur sigma per cell, mat mm, >= 0 (0 leaves the crop as :func:`hex_crops` warps it).
    layout : MatLayout, optional
        The mat (default: :func:`~assistant.vision.mats.mat_layout` of the game).
    colour : ColourFrame, optional
        With it, each crop is re-encoded as the mat's references say the print is; without,
        camera levels.

    Returns
    -------
    (len(cells), S, S, 3) uint8
        ``S`` the crop side in px of :data:`REGIONS`.

    Raises
    ------
    KeyError
        For a kind not in :data:`REGIONS`.
    ValueError
        When ``sigma_mm`` does not give one finite sigma >= 0 per cell.
    """
    layout = layout or mat_layout(GAME)
    (dx, dy), side, size = REGIONS[kind]
    sigma_mm = np.asarray(sigma_mm, np.float64)
    if sigma_mm.shape != (len(cells),) or not (np.isfinite(sigma_mm) & (sigma_mm >= 0)).all():
        raise ValueError(f"need one finite blur sigma >= 0 per cell ({len(cells)}), got {sigma_mm.shape}: {sigma_mm}")
    out = np.empty((len(cells), size, size, 3), np.uint8)
    lo = size // 2
    for i, cell in enumerate(cells):
        cx, cy = layout.cell(tuple(cell)).center_mm
        wide = region_crop(frame, homography, (cx + dx, cy + dy), 2 * side, 2 * size).astype(np.float32)
        if sigma_mm[i] > 0:
            wide = cv2.GaussianBlur(wide, (0, 0), float(sigma_mm[i] * size / side))
        out[i] = np.clip(np.round(wide[lo:lo + size, lo:lo + size]), 0, 255).astype(np.uint8)
    return out if colour is None else colour.corrected(out)


# --- teaching --------------------------------------------------------------------------------------

#: views rendered to teach, in blocks of :data:`TEACH_BLOCK_VIEWS` (each block its own seed and its own
#: :data:`TEACH_CAMERAS` camera poses), and views of one more block to calibrate confidence.
#: 160 views (4 blocks) instead of 40 (1 block) cut the spread that the teaching seed alone gave,
#: on the second renderer's development stills (seeds 101-116 and 201-216, stress, 2,016 readings
#: per slot kind; wrong tile / number / mark): six 40-view models (teaching seeds 0-5) 17-24 /
#: 18-24 / 9-36, three 120-view models 18-20 / 19-21 / 13-20, three 160-view models 17-18 / 17-19 /
#: 11-15, two 200-view models 19-22 / 21 / 12-13; three 40-view models averaged (mean
#: log-likelihood) 17-23 / 19 / 12-16, for three times the reading time. Normal light: 0-1 wrong
#: of 1,008 per kind in every case
TEACH_VIEWS = 160
TEACH_BLOCK_VIEWS = 40
TEACH_CAMERAS = 4            #: camera poses per block of teaching views
CALIBRATION_VIEWS = 10
TEACH_SIZES = ((1280, 720), (1920, 1080))
TEACH_SEED = 10_000          #: teaching views use seeds from here on; measuring code keeps away from them
#: weight of the identity in the discriminant's covariance (0.05: tuned on seeds 5-9, see the bench;
#: with 120 teaching views 0.02, 0.1 and 0.2 were no better on the development stills)
SHRINKAGE = 0.05
#: Gaussian blur, sigma in mat mm (uniform), of the blurred copy that teaches each number and mark
#: crop a second time (:func:`blurred_crops`), drawn per hex and picture. Under the second renderer's
#: stress set a defocus and shake of up to 1.4 mm on the mat (a blur sigma in px over px per mm;
#: held out: a disc of radius 1-2.6 px and a shake of 0.8-3 px at 40-120 px per hex) smear the
#: 11 mm mark and 13 mm digit so much that the one prototype per design, taught mostly on sharper
#: crops with the blur in its covariance, lay nearer the blank panel (``none``): 29 of 39 misses of
#: held-out seeds 1001 and 2001 were on the ten stills blurred widest. Each design's blurred copies
#: are its own prototype (``<design> (blurred)``, the same labels), so a blurred crop is compared with
#: the design blurred, not with the sharp one. The range, a Gaussian in mat mm on the crop (no disc,
#: no shake, no px per hex), is not the held-out set's; 0.4-1.4 mm was the one range tried, 0.8-1.4 mm
#: gave less (README, Discovery Island kit)
BLUR_TEACH_MM = (0.4, 1.4)
#: slot kinds taught from blurred copies too (:data:`BLUR_TEACH_MM`)
BLURRED_KINDS = ("number", "mark")
#: each teaching view is also seen through this many random webcam pipelines
#: (:func:`~assistant.vision.render.webcam.random_webcam`, its ranges documented there); 2 was
#: better than 0, 1 and 3 on the second renderer's tuning stills (seeds 101-116, 201-216)
WEBCAM_COPIES = 2


def teaching_seeds(seed: int = 0, views: int = TEACH_VIEWS) -> tuple[list[tuple[int, int]], int]:
    """The view seeds that :func:`teach_model` renders with teaching seed ``seed``.

    Teaching seed ``seed`` owns the ``B + 1`` consecutive view seeds from
    ``TEACH_SEED + (B + 1) * seed`` (``B`` blocks of at most :data:`TEACH_BLOCK_VIEWS` views, then
    the calibration block), so two teaching seeds of the same ``views`` never share a view.

    Parameters
    ----------
    seed : int
        Teaching seed, >= 0.
    views : int
        Teaching views, >= 1.

    Returns
    -------
    (blocks, calibration)
        ``blocks``: ``(view seed, views)`` per block of teaching views (the views add up to
        ``views``); ``calibration``: the view seed of the :data:`CALIBRATION_VIEWS` calibration views.

    Raises
    ------
    ValueError
        For ``seed < 0`` or ``views < 1``.
    """
    if seed < 0 or views < 1:
        raise ValueError(f"teaching seed must be >= 0 and views >= 1, got {seed} and {views}")
    count = -(-views // TEACH_BLOCK_VIEWS)
    first = TEACH_SEED + (count + 1) * seed
    blocks = [(first + b, min(TEACH_BLOCK_VIEWS, views - b * TEACH_BLOCK_VIEWS)) for b in range(count)]
    return blocks, first + count


def _view_features(seed: int, count: int, shifted: bool = False,
                   blurred: bool = False) -> tuple[dict[str, list[np.ndarray]], list[np.ndarray]]:
    """Features per slot kind and design index per hex of ``count`` rendered training views of view
    seed ``seed`` (:data:`TEACH_CAMERAS` camera poses), each view as rendered and through
    :data:`WEBCAM_COPIES` random webcam pipelines: per kind a list of ``(hexes, 1988) float32``
    arrays, and a list of ``(hexes,) int`` design indices (``len(all_designs())`` = bare hex), one
    entry per picture. With ``shifted``, also per kind of :data:`SHIFTED_KINDS` under the key
    ``kind + "@shifts"`` a list of ``(S, hexes, 1988) float32`` arrays, the crop read at every
    shift of :data:`SHIFTS_MM` (in that order), as :func:`read_slots` reads it. With ``blurred``,
    also per kind of :data:`BLURRED_KINDS` under ``kind + "~blurred"`` the features of its
    :func:`blurred_crops`, a sigma drawn per hex from :data:`BLUR_TEACH_MM` (shared by the kinds);
    the random pipelines draw the same numbers with or without either (the blur has its own
    generator)."""
    from .discovery_island_scene import views

    designs = all_designs()
    feats: dict[str, list[np.ndarray]] = {k: [] for k in SLOT_KINDS}
    if shifted:
        feats.update({k + "@shifts": [] for k in SHIFTED_KINDS})
    if blurred:
        feats.update({k + "~blurred": [] for k in BLURRED_KINDS})
    protos = []
    layout = mat_layout(GAME)
    rng = np.random.default_rng([seed, 18])
    blur_rng = np.random.default_rng([seed, 18, 1])
    for frame, homography, truth, _name in views(seed, count, "train", size=TEACH_SIZES, cameras=TEACH_CAMERAS, fill=0.85):
        cells = sorted(truth)
        proto = np.array([len(designs) if truth[c] is None else designs.index(truth[c]) for c in cells])
        for k in range(1 + WEBCAM_COPIES):
            seen = frame if k == 0 else random_webcam(frame, rng)
            colour = colour_frame(seen, homography, layout)
            crops = hex_crops(seen, homography, cells, layout, colour)
            for kind in SLOT_KINDS:
                feats[kind].append(cell_features(crops[kind]))
            sigma = blur_rng.uniform(*BLUR_TEACH_MM, size=len(cells))
            if blurred:
                for kind in BLURRED_KINDS:
                    feats[kind + "~blurred"].append(
                        cell_features(blurred_crops(seen, homography, cells, kind, sigma, layout, colour)))
            if shifted:
                for kind in SHIFTED_KINDS:
                    feats[kind + "@shifts"].append(np.stack([
                        cell_features(hex_crops(seen, homography, cells, layout, colour, shift, (kind,))[kind])
                        for shift in SHIFTS_MM]))
            protos.append(proto)
    return feats, protos


def teach_model(seed: int = 0, views: int = TEACH_VIEWS) -> DIModel:
    """Teach the three classifiers from the kit, the way an owner teaches its own tiles on the mat.

    The kit's 48 designs are laid (dealt evenly, a few millimetres off and turned a few degrees,
    as by hand) on the hexes of the mat in ``views`` rendered table views under the ``train``
    conditions of :mod:`.discovery_island_scene` (any light, glare, colour cast, dim rooms,
    defocus, 720p and 1080p webcams at random angles; blocks of :data:`TEACH_BLOCK_VIEWS` views,
    each block from its own :data:`TEACH_CAMERAS` camera poses, :func:`teaching_seeds`), each
    view as rendered and through :data:`WEBCAM_COPIES` random webcam pipelines
    (:func:`~assistant.vision.render.webcam.random_webcam`); every hex gives one crop per slot kind
    and picture, re-encoded by the mat's colour references
    (:meth:`~assistant.vision.colour_refs.ColourFrame.corrected`). Each design (and the bare hex) is one prototype of
    :func:`~assistant.vision.classify.fit_classifier`, labelled by :func:`~.discovery_island.slot_labels`,
    so the nuisances of light and placement fill the within-prototype covariance. The number and
    the mark (:data:`BLURRED_KINDS`) are also taught from a blurred copy of every crop
    (:func:`blurred_crops`, :data:`BLUR_TEACH_MM`), each design's blurred copies a second prototype
    of the same label (``<design> (blurred)``), so a label scores its nearer of the sharp and the
    blurred design. Confidence is
    calibrated on :data:`CALIBRATION_VIEWS` views of another seed (through the pipelines too); the
    number's and the mark's are also read there at every shift of :data:`SHIFTS_MM`, which fits
    the scale of :func:`placement_confidence` (:func:`fit_placement_calibration`; the manifest's
    ``placement``).
    About 250 s on one core of a shared machine for the default 160 views (kit/9 without the blurred
    copies: about 140 s) (``python -c "from
    assistant.vision.kits.discovery_island_detect import load_or_teach; load_or_teach()"``
    teaches and caches it).

    Parameters
    ----------
    seed : int
        Teaching seed, >= 0: which view seeds are rendered (:func:`teaching_seeds`).
    views : int
        Number of teaching views, >= 1.

    Returns
    -------
    DIModel
        Each manifest names the game, the slot kind, :data:`MODEL_VERSION`, the teaching seed and
        the view seeds and counts used (``source.blocks``, ``source.calibration_seed``).

    Raises
    ------
    ValueError
        For ``seed < 0`` or ``views < 1``.
    """
    designs = all_designs()
    names = designs + ["bare hex"]
    blocks, cal_seed = teaching_seeds(seed, views)
    feats: dict[str, list[np.ndarray]] = {k: [] for k in SLOT_KINDS + tuple(k + "~blurred" for k in BLURRED_KINDS)}
    protos: list[np.ndarray] = []
    for block_seed, count in blocks:
        block_feats, block_protos = _view_features(block_seed, count, blurred=True)
        for kind in feats:
            feats[kind] += block_feats[kind]
        protos += block_protos
    cal_feats, cal_protos = _view_features(cal_seed, CALIBRATION_VIEWS, shifted=True)
    proto, cal_proto = np.concatenate(protos), np.concatenate(cal_protos)
    models = {}
    for i, kind in enumerate(SLOT_KINDS):
        labels = [slot_labels(d)[i] for d in designs] + [slot_labels(None)[i]]
        x, x_proto, x_labels, x_names = np.concatenate(feats[kind]), proto, labels, names
        if kind in BLURRED_KINDS:               # each design blurred is a prototype of its own, of the same label
            x = np.concatenate([x, np.concatenate(feats[kind + "~blurred"])])
            x_proto = np.concatenate([proto, proto + len(names)])
            x_labels, x_names = labels + labels, names + [n + " (blurred)" for n in names]
        models[kind] = fit_classifier(
            x, x_proto, x_labels, crop_size=REGIONS[kind][2], prototype_names=x_names,
            calibration=(np.concatenate(cal_feats[kind]), cal_proto), shrinkage=SHRINKAGE,
            manifest={"game": GAME, "slot": kind, "kit": MODEL_VERSION, "seed": seed,
                      "source": {"kind": "rendered kit views", "views": views, "calibration_views": CALIBRATION_VIEWS,
                                 "blocks": [{"view_seed": b, "views": n, "cameras": TEACH_CAMERAS} for b, n in blocks],
                                 "calibration_seed": cal_seed, "webcam_copies": WEBCAM_COPIES,
                                 "blur_mm": list(BLUR_TEACH_MM) if kind in BLURRED_KINDS else None,
                                 "sizes": [list(s) for s in TEACH_SIZES]},
                      "training_date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")})
        if kind in SHIFTED_KINDS:
            clf = models[kind]
            stack = np.concatenate(cal_feats[kind + "@shifts"], axis=1)              # (S, n, D)
            scores = feature_scores(clf, stack.reshape(-1, stack.shape[-1])).reshape(stack.shape[0], stack.shape[1], -1)
            truth = np.array([clf.labels.index(l) for l in labels])[cal_proto]
            temperature, reject = fit_placement_calibration(scores, truth)
            models[kind] = replace(clf, manifest={**clf.manifest, "placement": {"temperature": temperature,
                                                                                  "reject_score": reject}})
    return DIModel(**models)


def save_model(model: DIModel, folder: str | Path) -> Path:
    """Write the three classifiers to ``folder/tile``, ``folder/number``, ``folder/mark``.

    Raises
    ------
    OSError
        When the files cannot be written.
    """
    folder = Path(folder)
    for kind in SLOT_KINDS:
        save(model.of(kind), folder / kind)
    (folder / "kit.json").write_text(json.dumps({"game": GAME, "kit": MODEL_VERSION}) + "\n")
    return folder


def load_model(folder: str | Path) -> DIModel:
    """Read a model written by :func:`save_model`.

    Raises
    ------
    FileNotFoundError
        When a classifier is missing.
    ValueError
        When the folder holds another game's or another kit version's model.
    """
    folder = Path(folder)
    info = folder / "kit.json"
    if not info.is_file():
        raise FileNotFoundError(f"{info}: not a Discovery Island model folder")
    meta = json.loads(info.read_text())
    if meta.get("game") != GAME or meta.get("kit") != MODEL_VERSION:
        raise ValueError(f"{folder}: model of {meta.get('game')} {meta.get('kit')}, this code reads {MODEL_VERSION}")
    return DIModel(**{kind: load(folder / kind) for kind in SLOT_KINDS})


def default_model_dir() -> Path:
    """Where the taught model is cached: ``$ASSISTANT_MODELS/discovery-island-kit`` or
    ``~/.cache/assistant/models/discovery-island-kit`` (``$XDG_CACHE_HOME`` honoured)."""
    root = os.environ.get("ASSISTANT_MODELS")
    if root:
        return Path(root) / "discovery-island-kit"
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "assistant" / "models" / "discovery-island-kit"


def load_or_teach(folder: str | Path | None = None, seed: int = 0) -> DIModel:
    """The kit model: from ``folder`` when given, else the cache (:func:`default_model_dir`),
    which is taught afresh (:func:`teach_model`, then saved) when it is missing or of another
    kit version.

    Parameters
    ----------
    folder : str or Path, optional
        A model folder written by :func:`save_model`; it is only read, never overwritten.
    seed : int
        Seed of the teaching views when the cache is (re)taught.

    Raises
    ------
    FileNotFoundError, ValueError
        When an explicit ``folder`` holds no model or one of another kit version.
    OSError
        When a taught model cannot be saved to the cache.
    """
    if folder is not None:
        return load_model(folder)
    cache = default_model_dir()
    try:
        return load_model(cache)
    except (FileNotFoundError, ValueError):
        pass                                   # no cache yet, or an older kit version: teach
    model = teach_model(seed)
    save_model(model, cache)
    return model


# --- reading ---------------------------------------------------------------------------------------

def read_slots(model: DIModel, frame: np.ndarray, homography: np.ndarray, cells: Iterable[tuple[int, int]],
               kinds: Sequence[str] = SLOT_KINDS, layout: MatLayout | None = None) -> dict[tuple, SlotReading]:
    """Read the slots of ``cells`` off one frame, its colours first corrected by the mat's
    references (:func:`~assistant.vision.colour_refs.colour_frame`; the camera's levels as they
    are when the references are covered or out of view); the number and the mark are read where
    their crop fits best among :data:`SHIFTS_MM` (:func:`shifted_scores`).

    Parameters
    ----------
    model : DIModel
    frame : (H, W, 3) uint8
        BGR, undistorted.
    homography : (3, 3)
        Mat mm -> frame px.
    cells : iterable of (col, row)
    kinds : sequence of str
        Slot kinds to read (of :data:`SLOT_KINDS`).

    Returns
    -------
    dict slot -> SlotReading
        Slots ``(kind, col, row)``; ``second`` is the runner-up label. With all three kinds the
        labels are those of the best design (:func:`kit_decode`, with the mark's ink and the
        terrain beside the mat's patches as second cues) and the margin is the smaller of
        the design's margin and the slot classifier's own (0 when it preferred another label);
        the design's margin is never more than without the cues, and 0 where a cue changed the label;
        margins are in the score units of :data:`MARGIN_TEMPERATURE` (:func:`margin_units`).

    Raises
    ------
    ValueError
        For a kind not in :data:`SLOT_KINDS`.
    """
    unknown = [k for k in kinds if k not in SLOT_KINDS]
    if unknown:
        raise ValueError(f"cannot read {unknown[0]!r}: the slot kinds are {', '.join(SLOT_KINDS)}")
    cells = [tuple(c) for c in cells]
    if not cells:
        return {}
    layout = layout or mat_layout(GAME)
    whole = set(kinds) == set(SLOT_KINDS)
    crops = hex_crops(frame, homography, cells, layout, kinds=tuple(kinds) + ("panel",))
    washed = washed_out(crops["panel"])                # on the camera's levels, as WASHED_RATIO was tuned
    strips = read_strips(frame, homography, layout)    # once: the colour correction and the terrain cue
    distance = terrain_distance(frame, homography, crops["tile"], layout, strips) if whole else None
    colour = colour_frame(frame, homography, layout, strips)
    crops = {kind: colour.corrected(batch) for kind, batch in crops.items()}
    scores = {kind: classify_batch(model.of(kind), crops[kind]).scores for kind in kinds}
    stacks, moved = {}, {}
    for kind in set(kinds) & set(SHIFTED_KINDS):
        moved[kind] = shifted_crops(frame, homography, cells, kind, layout, colour, unshifted=False)
        stacks[kind] = shifted_scores(model.of(kind), frame, homography, cells, kind, layout, colour, scores[kind],
                                      every_shift=True, crops=moved[kind])
        scores[kind] = best_shift(stacks[kind])
    chosen = None
    if whole:
        ink = mark_ink(frame, homography, cells, layout, colour,
                       shifted=np.concatenate([crops["mark"][None], moved["mark"]]), panel=crops["panel"])
        chosen = kit_decode(model, scores, ink_evidence(ink), None if distance is None else terrain_evidence(distance))
    out: dict[tuple, SlotReading] = {}
    for kind in kinds:
        clf = model.of(kind)
        own = scores[kind]
        if chosen is None:
            top = np.argmax(own, axis=1)
            runner = np.argsort(-own, axis=1)[:, 1]
        else:
            top, runner = chosen[kind]
        rows = np.arange(len(cells))
        # never surer than the slot's own classifier: its score of the label over its best other label
        others = np.where(np.arange(own.shape[1])[None, :] == top[:, None], -np.inf, own)
        margin = np.maximum(own[rows, top] - others.max(axis=1), 0.0)
        if chosen is not None:
            margin = np.minimum(margin, chosen[kind + ":margin"])
        margin = margin * margin_units(clf)            # in the units SURE's margins were set in
        confidence = placement_confidence(clf, stacks[kind], top) if kind in stacks else label_confidence(clf, own, top)
        conf, min_margin = SURE[kind]
        for i, cell in enumerate(cells):
            out[(kind, *cell)] = SlotReading(label=clf.labels[top[i]], confidence=float(confidence[i]),
                                             margin=float(margin[i]), second=clf.labels[runner[i]],
                                             min_confidence=conf, min_margin=min_margin,
                                             washed=bool(washed[i]) and kind != "tile")
    if "tile" in kinds:                     # only a face or a marker tile has a number and a mark to wash out
        for cell in cells:
            if out[("tile", *cell)].label == "empty" or out[("tile", *cell)].label.startswith("back:"):
                for kind in kinds:
                    if kind != "tile" and out[(kind, *cell)].washed:
                        out[(kind, *cell)] = replace(out[(kind, *cell)], washed=False)
    return out


def margin_units(clf: CellClassifier) -> float:
    """The factor that puts a margin of ``clf``'s label scores into the units :data:`SURE`'s margins
    were set in: :data:`MARGIN_TEMPERATURE` of its slot kind over the classifier's own calibrated
    temperature.

    A margin over the temperature is the calibrated log-likelihood ratio of the two labels
    (temperature scaling, Guo et al., ICML 2017, fitted by
    :func:`~assistant.vision.classify.fit_classifier` on the calibration views), so after this
    factor a sure margin asks for the same calibrated evidence whatever the classifier's
    dimensions or prototypes (kit/10: number 0.19692 / 0.12794 = 1.54, mark 0.19692 / 0.11486 =
    1.71, tile 1; kit/10 read ``k / 48`` = 2.02 instead, the discriminant's dimensions, which
    made a reading sure on less evidence than the calibration gives, README).

    Parameters
    ----------
    clf : CellClassifier
        A taught classifier of a slot kind of :data:`SLOT_KINDS` (its manifest's ``slot``) with a
        fitted ``temperature`` > 0.

    Returns
    -------
    float
        ``MARGIN_TEMPERATURE[slot] / clf.temperature``, > 0.

    Raises
    ------
    ValueError
        For a classifier whose manifest names no slot kind of :data:`SLOT_KINDS`, or whose
        temperature is not a finite number > 0.
    """
    slot = clf.manifest.get("slot") if isinstance(clf.manifest, dict) else None
    if slot not in MARGIN_TEMPERATURE:
        raise ValueError(f"a classifier of slot kind {slot!r}: margins are scaled for {', '.join(SLOT_KINDS)}")
    temperature = float(clf.temperature)
    if not (np.isfinite(temperature) and temperature > 0):
        raise ValueError(f"need a calibrated temperature > 0, got {temperature}")
    return MARGIN_TEMPERATURE[slot] / temperature


def shifted_crops(frame: np.ndarray, homography: np.ndarray, cells: Sequence[tuple[int, int]], kind: str,
                  layout: MatLayout, colour: ColourFrame, unshifted: bool = True) -> np.ndarray:
    """The colour-corrected crops of slot ``kind`` moved by each shift of :data:`SHIFTS_MM`
    (:func:`hex_crops` with ``shift_mm``), as :func:`shifted_scores` and :func:`mark_ink` read them.

    Parameters
    ----------
    frame : (H, W, 3) uint8
        BGR.
    homography : (3, 3)
        Mat mm -> frame px.
    cells : sequence of (col, row)
    kind : str
        A key of :data:`REGIONS`.
    layout : MatLayout
    colour : ColourFrame
        The frame's colour correction, applied to every crop.
    unshifted : bool
        Include shift (0, 0); without it the other shifts only, in :data:`SHIFTS_MM`'s order.

    Returns
    -------
    (S, len(cells), size, size, 3) uint8
        ``S`` = ``len(SHIFTS_MM)`` (one less without ``unshifted``), ``size`` that of :data:`REGIONS`.

    Raises
    ------
    KeyError
        For a kind not in :data:`REGIONS`.
    """
    size = REGIONS[kind][2]
    shifts = [s for s in SHIFTS_MM if unshifted or s != (0.0, 0.0)]
    if not len(cells):
        return np.zeros((len(shifts), 0, size, size, 3), np.uint8)
    return np.stack([hex_crops(frame, homography, cells, layout, colour, shift, (kind,))[kind] for shift in shifts])


def shifted_scores(clf: CellClassifier, frame: np.ndarray, homography: np.ndarray, cells: Sequence[tuple[int, int]],
                   kind: str, layout: MatLayout, colour: ColourFrame, unshifted: np.ndarray | None = None,
                   every_shift: bool = False, crops: np.ndarray | None = None) -> np.ndarray:
    """The scores of the slot's crop at the shift of :data:`SHIFTS_MM` where it fits a taught
    design best (the highest top score): the crop is aligned to the print before it is read, and
    the margins between labels stay those of one crop (taking each label's own best shift instead
    gave as many errors and twice the unsure readings on the tuning stills).

    Parameters
    ----------
    clf : CellClassifier
        The classifier of slot kind ``kind``.
    frame : (H, W, 3) uint8
        BGR.
    homography : (3, 3)
        Mat mm -> frame px.
    cells : sequence of (col, row)
    kind : str
        One of :data:`SHIFTED_KINDS`.
    layout : MatLayout
    colour : ColourFrame
        The frame's colour correction, applied to every crop.
    unshifted : (N, L) float, optional
        The scores at shift (0, 0) when already computed (that shift is then not read again).
    every_shift : bool
        Return the scores at every shift instead (:func:`best_shift` picks as above).
    crops : (S', N, size, size, 3) uint8, optional
        :func:`shifted_crops` of these cells (without shift (0, 0) when ``unshifted`` is given)
        when already warped; they are then not warped again.

    Returns
    -------
    (N, L) float, or (S, N, L) float with ``every_shift``
        Per cell, :attr:`~assistant.vision.classify.Predictions.scores` of its best shift
        (``(0, L)`` for no cells); with ``every_shift`` those of each of the S =
        ``len(SHIFTS_MM)`` shifts (``(S, 0, L)`` for no cells).

    Raises
    ------
    ValueError
        When ``crops`` do not hold those shifts of those cells.
    """
    shifts = [s for s in SHIFTS_MM if unshifted is None or s != (0.0, 0.0)]
    if not len(cells):
        return np.zeros((len(SHIFTS_MM), 0, len(clf.labels)) if every_shift else (0, len(clf.labels)), np.float64)
    if crops is None:
        crops = shifted_crops(frame, homography, cells, kind, layout, colour, unshifted=unshifted is None)
    crops = np.asarray(crops)
    if crops.ndim != 5 or len(crops) != len(shifts) or crops.shape[1] != len(cells) or crops.shape[-1] != 3:
        raise ValueError(f"need crops (S, N, size, size, 3) at {len(shifts)} shifts of {len(cells)} cells, "
                         f"got {crops.shape}")
    scores = classify_batch(clf, crops.reshape(-1, *crops.shape[2:])).scores.reshape(len(shifts), len(cells), -1)
    if unshifted is not None:
        scores = np.concatenate([np.asarray(unshifted)[None], scores])
    return scores if every_shift else best_shift(scores)


def best_shift(stack: np.ndarray) -> np.ndarray:
    """Per cell, the scores at the shift whose best label scores highest.

    Parameters
    ----------
    stack : (S, N, L) float
        Label scores of N cells at S shifts (:func:`shifted_scores` with ``every_shift``).

    Returns
    -------
    (N, L) float

    Raises
    ------
    ValueError
        When ``stack`` holds no shift (S = 0).
    """
    stack = np.asarray(stack)
    pick = np.argmax(stack.max(axis=2), axis=0)
    return stack[pick, np.arange(stack.shape[1])]


def placement_confidence(clf: CellClassifier, stack: np.ndarray, index: np.ndarray) -> np.ndarray:
    """Confidence of label ``index[n]`` of each cell when the print's placement is one of S
    shifts, none known: the label's posterior with the shift summed out (uniform prior over the
    shifts), among the labels and the classifier's reject score.

    With the calibrated scores as log-likelihoods (``score / temperature``,
    :func:`~assistant.vision.classify.fit_classifier`), ``p(crop | label)`` is the mean over the
    shifts of ``exp(score / T)``; the reject hypothesis does not depend on the shift. The
    softmax at the one shift picked for fitting a design best (:func:`best_shift`), the
    confidence until issue 18, overstated it: that shift is chosen for its high score, and the
    temperature was calibrated on crops at their true place. (Second renderer's development
    stills, kit_photos seeds 101-116 and 201-216, 2,016 stress readings per kind, kit/8 models of
    teaching seeds 0 / 1 / 2: the wrong numbers' highest confidence 0.85 / 0.78 / 0.84 ->
    0.61 / 0.49 / 0.51, marks' 0.82 / 0.86 / 0.65 -> 0.39 / 0.66 / 0.33, none confidently
    wrong before or after. The readings are decided as before; whether they are sure too, but
    for the few whose summed confidence falls under :data:`SURE`'s floor of 0.005: on those
    stills 0-5 of 2,016 stress and 0-2 of 1,008 normal readings per kind and model.)

    Parameters
    ----------
    clf : CellClassifier
        The slot kind's classifier (its ``temperature`` and ``reject_score``).
    stack : (S, N, L) float
        Label scores of N cells at S shifts (:func:`shifted_scores` with ``every_shift``).
    index : (N,) int
        The label read per cell (into ``clf.labels``).

    Returns
    -------
    (N,) float64
        In [0, 1].
    """
    temperature, reject_score = placement_scale(clf)
    return _summed_posterior(np.asarray(stack, np.float64), temperature, reject_score)[
        np.arange(np.asarray(stack).shape[1]), np.asarray(index, np.intp)]


def placement_scale(clf: CellClassifier) -> tuple[float, float]:
    """The (temperature, reject score) of :func:`placement_confidence` for classifier ``clf``.

    Parameters
    ----------
    clf : CellClassifier
        A number or mark classifier.

    Returns
    -------
    (temperature, reject_score) : (float, float)
        In score units: those fitted by :func:`fit_placement_calibration` when teaching (the
        manifest's ``placement``, models of kit/9 on), else the classifier's one-crop
        ``temperature`` and ``reject_score`` (:func:`~assistant.vision.classify.fit_classifier`).
    """
    manifest = getattr(clf, "manifest", None)
    fitted = manifest.get("placement") if isinstance(manifest, dict) else None
    if fitted:
        return float(fitted["temperature"]), float(fitted["reject_score"])
    return float(clf.temperature), float(clf.reject_score)


def _summed_posterior(stack: np.ndarray, temperature: float, reject_score: float) -> np.ndarray:
    """(S, N, L) scores -> (N, L) posteriors of the labels with the shift summed out, beside a
    reject hypothesis of score ``reject_score`` (see :func:`placement_confidence`)."""
    from scipy.special import logsumexp

    z = stack / temperature
    lik = logsumexp(z, axis=0) - np.log(z.shape[0])                             # (N, L): log mean over shifts
    logits = np.concatenate([lik, np.full((lik.shape[0], 1), reject_score / temperature)], axis=1)
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    return (p / p.sum(axis=1, keepdims=True))[:, :-1]


def fit_placement_calibration(stack: np.ndarray, truth: np.ndarray, reject_quantile: float = 0.05,
                              min_temperature: float = 1e-3) -> tuple[float, float]:
    """Fit the temperature and reject score of :func:`placement_confidence` to crops read at
    every shift, as :func:`~assistant.vision.classify.fit_classifier` fits them for one crop.

    For each temperature ``T`` of a geometric grid (``min_temperature`` to 5 score units, 80
    steps) the reject score is the ``reject_quantile`` quantile of the true label's summed score
    in score units, ``T * log(mean over shifts of exp(score / T))``, and the ``T`` that minimises
    the mean negative log-likelihood of the true label under :func:`placement_confidence` is kept
    (temperature scaling, Guo et al., "On calibration of modern neural networks", ICML 2017,
    applied to the statistic that is read, not to the softmax of one crop).

    Parameters
    ----------
    stack : (S, N, L) float
        Label scores of N calibration crops at S shifts (:func:`shifted_scores` with ``every_shift``).
    truth : (N,) int
        The true label of each crop (into the classifier's labels).
    reject_quantile : float in (0, 1)
    min_temperature : float > 0

    Returns
    -------
    (temperature, reject_score) : (float, float)
        In score units.

    Raises
    ------
    ValueError
        When ``stack`` holds no crop or no shift, or ``truth`` does not match its N.
    """
    from scipy.special import logsumexp

    stack = np.asarray(stack, np.float64)
    truth = np.asarray(truth, np.intp)
    if stack.ndim != 3 or stack.shape[0] == 0 or stack.shape[1] == 0 or truth.shape != (stack.shape[1],):
        raise ValueError(f"need (S, N, L) scores with S, N >= 1 and N true labels, got {stack.shape} and {truth.shape}")
    rows = np.arange(stack.shape[1])
    best = (np.inf, float(min_temperature), 0.0)
    for t in np.geomspace(min_temperature, 5.0, 80):
        summed = t * (logsumexp(stack[:, rows, truth] / t, axis=0) - np.log(stack.shape[0]))
        reject = float(np.quantile(summed, reject_quantile))
        nll = -np.log(_summed_posterior(stack, float(t), reject)[rows, truth] + 1e-12).mean()
        if nll < best[0]:
            best = (nll, float(t), reject)
    return best[1], best[2]


def kit_decode(model: DIModel, scores: dict[str, np.ndarray], mark_evidence: np.ndarray | None = None,
               terrain: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """The three slots of each hex read together, as one of the kit's designs (or a bare hex).

    A hex shows one of :func:`~.discovery_island.all_designs` or nothing, so its tile, number and
    mark are not independent (a jungle face bears 2, 3 or 4; a shortcut on a mountain is a 4):
    each design's score is the sum over the slot kinds of the kind's label score divided by the
    classifier's temperature (its calibrated log-likelihood, :func:`~assistant.vision.classify.fit_classifier`),
    and every slot takes its label from the best design. Two second cues rank the faces (a land
    terrain, points and a mark): with ``mark_evidence`` (log-odds that a face's mark is printed,
    :func:`ink_evidence`) a face with a mark gains it, and with ``terrain``
    (:func:`terrain_evidence`) a face of terrain ``t`` gains column ``t``. Every other design (a
    back, a marker tile, a bare hex) gains what the best face gained, so whether a hex holds a face
    at all is decided by the classifiers as without the cues. Backs are not ranked by the terrain:
    their pale hexagons cross the band it is read from (ranked as faces, a bush back on development
    still 204 read as a mountain back).

    The cues were tuned on development stills only, so they may fix a label but never make a
    reading surer than the classifiers alone: with a cue, a slot whose label is the one the decode
    without cues gives keeps the smaller of the two decodes' margins, and a slot whose label a cue
    changed gets margin 0 (never sure).

    Parameters
    ----------
    model : DIModel
    scores : dict kind -> (N, L_kind) float
        :attr:`~assistant.vision.classify.Predictions.scores` of each kind's classifier, rows = hexes.
    mark_evidence : (N,) float, optional
        Nats per hex.
    terrain : (N, len(LAND_TERRAINS)) float, optional
        Nats per hex and land terrain, at most 0.

    Returns
    -------
    dict
        ``kind -> (top (N,) int, runner-up (N,) int)`` label indices into the kind's classifier
        labels (the runner-up: the best other label's best design), and ``kind + ":margin" -> (N,)``
        the best design's score over the best design with another label of that kind, in the
        kind's own score units (times its temperature); with a cue, the design scores include the
        cues' nats (times the temperature) and the margin is capped as above: at most the margin
        without cues, 0 where a cue changed the label.

    Raises
    ------
    KeyError
        When ``scores`` lacks a kind of :data:`SLOT_KINDS`.
    ValueError
        When a kind's scores have another number of labels than its classifier (or rows differ
        between kinds or cues: numpy's broadcasting error).
    """
    for k in SLOT_KINDS:
        if np.shape(scores[k])[-1] != len(model.of(k).labels):
            raise ValueError(f"{k} scores have {np.shape(scores[k])[-1]} labels, the classifier {len(model.of(k).labels)}")
    table = [slot_labels(d) for d in all_designs()] + [slot_labels(None)]
    index = {k: np.array([model.of(k).labels.index(t[i]) for t in table]) for i, k in enumerate(SLOT_KINDS)}
    joint = sum(np.asarray(scores[k], np.float64)[:, index[k]] / model.of(k).temperature for k in SLOT_KINDS)
    cued = mark_evidence is not None or terrain is not None
    if cued:
        face = np.array([t[0] in LAND_TERRAINS for t in table])
        cue = np.zeros_like(joint)                                    # what the second cues add to each face
        if mark_evidence is not None:
            marked = np.array([t[2] != "none" for t in table])
            cue = cue + np.where(marked[None], np.asarray(mark_evidence, np.float64)[:, None], 0.0)
        if terrain is not None:
            of = np.array([LAND_TERRAINS.index(t[0]) if t[0] in LAND_TERRAINS else 0 for t in table])
            cue = cue + np.asarray(terrain, np.float64)[:, of]
        # the cues rank the faces; every other design moves with the best face, so whether a hex
        # holds a face, a back, a marker tile or nothing is the classifiers' call as before
        faces = np.where(face[None], joint, -np.inf)
        shift = (faces + cue).max(axis=1) - faces.max(axis=1)
        joint = joint + np.where(face[None], cue, shift[:, None])
    best = np.argmax(joint, axis=1)
    rows = np.arange(len(best))
    out: dict[str, np.ndarray] = {}
    for k in SLOT_KINDS:
        top = index[k][best]
        other = np.where(index[k][None, :] == top[:, None], -np.inf, joint)
        second = np.argmax(other, axis=1)
        out[k] = (top, index[k][second])
        out[k + ":margin"] = (joint[rows, best] - other[rows, second]) * model.of(k).temperature
    if cued:
        # never surer than without the cues: same label -> the smaller margin; a changed label -> 0
        plain = kit_decode(model, scores)
        for k in SLOT_KINDS:
            same = out[k][0] == plain[k][0]
            out[k + ":margin"] = np.where(same, np.minimum(out[k + ":margin"], plain[k + ":margin"]), 0.0)
    return out


def mark_ink(frame: np.ndarray, homography: np.ndarray, cells: Sequence[tuple[int, int]], layout: MatLayout,
             colour: ColourFrame, shifted: np.ndarray | None = None, panel: np.ndarray | None = None) -> np.ndarray:
    """How much light the print at each hex's mark place absorbs: ``1 - mean / white`` of the linear
    grey (Rec. 601 weights of the colour-corrected crop, decoded by the sRGB curve, IEC 61966-2-1),
    ``mean`` over the mark's crop and ``white`` the 97th percentile of the ``panel`` crop
    (:data:`REGIONS`), the least over the shifts of :data:`SHIFTS_MM` (a tile laid off brings the
    terrain into the crop at some shifts, not at all).

    A blur spreads the print but keeps the light it absorbs (a blur kernel sums to 1), so a mark
    smeared past legibility still has its ink, and a bare panel none (:func:`ink_evidence`).

    Parameters
    ----------
    frame : (H, W, 3) uint8
        BGR, undistorted.
    homography : (3, 3)
        Mat mm -> frame px.
    cells : sequence of (col, row)
    layout : MatLayout
    colour : ColourFrame
        The frame's colour correction, applied to every crop.
    shifted : (S, len(cells), size, size, 3) uint8, optional
        The ``mark`` crops at every shift (:func:`shifted_crops`, any order) when already warped
        (:func:`read_slots` reuses those :func:`shifted_scores` read).
    panel : (len(cells), size, size, 3) uint8, optional
        The colour-corrected ``panel`` crops when already warped.

    Returns
    -------
    (len(cells),) float64
        About 0 for a bare white panel, 0.2-0.6 for a printed mark; meaningless where no face lies.

    Raises
    ------
    KeyError
        For a cell not on ``layout``'s mat (:meth:`~assistant.vision.mats.MatLayout.cell`).
    ValueError
        When ``shifted`` is not (len(SHIFTS_MM), len(cells), size, size, 3) or ``panel`` not
        (len(cells), size, size, 3). Crops from another frame, homography or colour correction
        cannot be told and are the caller's to avoid.
    """
    if not len(cells):
        return np.zeros(0, np.float64)
    def grey(batch: np.ndarray) -> np.ndarray:
        return srgb_to_linear(np.asarray(batch, np.float32) @ GREY_WEIGHTS).reshape(len(cells), -1)

    if panel is None:
        panel = hex_crops(frame, homography, cells, layout, colour, kinds=("panel",))["panel"]
    if shifted is None:
        shifted = shifted_crops(frame, homography, cells, "mark", layout, colour)
    panel, shifted = np.asarray(panel), np.asarray(shifted)
    if panel.ndim != 4 or len(panel) != len(cells):
        raise ValueError(f"panel crops must be (len(cells), size, size, 3) for {len(cells)} cells, got {panel.shape}")
    if shifted.ndim != 5 or len(shifted) != len(SHIFTS_MM) or shifted.shape[1] != len(cells):
        raise ValueError(f"mark crops must be ({len(SHIFTS_MM)} shifts, {len(cells)} cells, size, size, 3), "
                         f"got {shifted.shape}")
    white = np.percentile(grey(panel), 97, axis=1)
    means = [grey(batch).mean(axis=1) for batch in shifted]
    return (1.0 - np.max(means, axis=0) / np.maximum(white, 1e-3)).astype(np.float64)


def ink_evidence(ink: np.ndarray) -> np.ndarray:
    """Log-odds (nats) that a face's mark is printed rather than bare, from its ink share
    (:func:`mark_ink`): ``INK_SLOPE * (ink - INK_MIDPOINT)`` bounded to ``+-INK_CAP``
    (a logistic fit on development stills, :data:`INK_SLOPE`).

    Parameters
    ----------
    ink : (N,) float

    Returns
    -------
    (N,) float64
        In ``[-INK_CAP, INK_CAP]``.
    """
    return np.clip(INK_SLOPE * (np.asarray(ink, np.float64) - INK_MIDPOINT), -INK_CAP, INK_CAP)


def terrain_distance(frame: np.ndarray, homography: np.ndarray, tile_crops: np.ndarray,
                     layout: MatLayout, strips: list[dict] | None = None) -> np.ndarray | None:
    """How far each tile crop's terrain colour lies from each land terrain's printed reference
    patch in the same frame, in log-chromaticity (the logs of the B, G, R levels less their mean:
    a brightness, a lamp's fall-off or a shadow moves all three alike and drops out). Both are
    camera levels, not colour-corrected: the tile and the patches went through the same pipeline,
    so a colour cast, a wrong colour matrix or references too poor to correct by (a dim blue
    channel, JPEG's chroma) move both.

    Parameters
    ----------
    frame : (H, W, 3) uint8
        BGR.
    homography : (3, 3)
        Mat mm -> frame px.
    tile_crops : (N, S, S, 3) uint8
        The ``tile`` crops (:func:`hex_crops` without colour correction); the terrain is read as the
        median of the band above and below the panel (:data:`TERRAIN_BAND`).
    layout : MatLayout
    strips : list of dict, optional
        :func:`~assistant.vision.colour_refs.read_strips` of this frame when already read.

    Returns
    -------
    (N, len(LAND_TERRAINS)) float64, or None
        None when a land terrain has no patch kept. Each terrain's reference is the median of its
        patches on the strips ``colour_frame`` trusts (:func:`~assistant.vision.colour_refs.
        readable_strips`: a strip a hand, a card or glare covers fails its neutrals and is left
        out); when it trusts none, on every strip in view, each patch then judged on itself: a
        patch whose every channel reaches :data:`TERRAIN_PATCH_WASHED` of the paper beside it
        shows no ink (glare or a white cover) and is left out (on trusted strips too). A channel
        clipped or dim on a patch is kept: the tiles went through the same camera. Development
        stress stills (kit_photos seeds 101-116, 201-216 and held-out 1-7001, 10,080 tiles): the
        trusted strips alone gave 33 wrong, every strip in view 22; most misses were on stills
        where no strip was trusted. A strip under a coloured cover when no strip is trusted is
        not caught (the cues can only make a reading less sure, :func:`kit_decode`).

    Raises
    ------
    ValueError
        When ``tile_crops`` is not (N, S, S, 3), or ``strips`` is not a list of strips as
        :func:`~assistant.vision.colour_refs.read_strips` gives them.
    """
    tile_crops = np.asarray(tile_crops)
    if tile_crops.ndim != 4 or tile_crops.shape[1] != tile_crops.shape[2] or tile_crops.shape[3] != 3:
        raise ValueError(f"tile crops must be (N, S, S, 3), got {tile_crops.shape}")
    if strips is None:
        strips = read_strips(frame, homography, layout)
    elif not _are_strips(strips):
        raise ValueError("strips must be read_strips' list of dicts (name -> ((3,) patch, (3,) paper levels)), "
                         f"not {type(strips).__name__}")
    trusted = [s for s, _curve in readable_strips(frame, homography, layout, strips)]

    def inked(patch_and_paper) -> bool:
        patch, paper = (np.asarray(v, np.float64) for v in patch_and_paper)
        return bool(np.min(patch / np.maximum(paper, 1.0)) < TERRAIN_PATCH_WASHED)

    kept = [[s[t][0] for s in (trusted or strips) if t in s and inked(s[t])] for t in LAND_TERRAINS]
    if not all(kept):
        return None
    patches = np.array([np.median(k, axis=0) for k in kept])
    crops = np.asarray(tile_crops, np.float64)
    n, size = crops.shape[:2]
    rows, cols = int(size * TERRAIN_BAND[0]), int(size * TERRAIN_BAND[1])
    band = np.concatenate([crops[:, :rows, cols:size - cols], crops[:, size - rows:, cols:size - cols]], axis=1)
    terrain = np.median(band.reshape(n, -1, 3), axis=1)

    def chroma(v: np.ndarray) -> np.ndarray:
        v = np.log(np.maximum(v, 2.0))
        return v - v.mean(axis=-1, keepdims=True)

    return np.linalg.norm(chroma(terrain)[:, None] - chroma(patches)[None], axis=2)


def _are_strips(strips) -> bool:
    """Whether ``strips`` is shaped as :func:`~assistant.vision.colour_refs.read_strips` gives it:
    a list of dicts, each value a pair of 3-vectors."""
    if not isinstance(strips, (list, tuple)):
        return False
    try:
        return all(isinstance(s, dict) and all(np.shape(v[0]) == (3,) and np.shape(v[1]) == (3,) for v in s.values())
                   for s in strips)
    except (TypeError, IndexError, KeyError):
        return False


def terrain_evidence(distance: np.ndarray) -> np.ndarray:
    """Log-likelihood (nats) of each land terrain from :func:`terrain_distance`, relative to the
    best: ``-d^2 / (2 TERRAIN_SIGMA^2)`` less its row's maximum, bounded below by ``-TERRAIN_CAP``.

    Parameters
    ----------
    distance : (N, T) float

    Returns
    -------
    (N, T) float64
        In ``[-TERRAIN_CAP, 0]``, 0 for each row's nearest terrain.
    """
    e = -np.asarray(distance, np.float64) ** 2 / (2 * TERRAIN_SIGMA ** 2)
    return np.maximum(e - e.max(axis=1, keepdims=True), -TERRAIN_CAP)


def washed_out(panel_crops: np.ndarray) -> np.ndarray:
    """Which panel crops (:data:`REGIONS` ``panel``) glare has washed out: the 3rd grey percentile at least :data:`WASHED_RATIO`
    of the 97th (a lamp's glare adds light, lifting the dark ink towards white; a colour cast or a
    dim room multiply it and keep the ratio).

    Parameters
    ----------
    panel_crops : (N, S, S, 3) uint8
        BGR crops of the ``panel`` region (the 26 mm square the ratio was tuned on, until kit/8
        the tile's own).

    Returns
    -------
    (N,) bool
    """
    grey = np.asarray(panel_crops, np.float32) @ GREY_WEIGHTS
    flat = grey.reshape(len(grey), -1)
    low, high = np.percentile(flat, 3, axis=1), np.percentile(flat, 97, axis=1)
    return low >= WASHED_RATIO * np.maximum(high, 1.0)


def detect_image(image: np.ndarray, homography: np.ndarray | None, model: DIModel | str | Path) -> dict[tuple, SlotReading]:
    """Every slot of the mat read off one still image (``assistant detect --game discovery-island``).

    Parameters
    ----------
    image : (H, W, 3) uint8
        BGR.
    homography : (3, 3) or None
        Mat mm -> image px; ``None`` finds the mat's corner markers.
    model : DIModel, or a folder written by :func:`save_model`

    Returns
    -------
    dict slot -> SlotReading
        ``("tile"|"number"|"mark", col, row)`` for all 63 hexes.

    Raises
    ------
    ValueError
        When ``homography`` is None and the markers do not give one, or the model folder is of
        another kit.
    FileNotFoundError
        For a model folder without a model.
    """
    if not isinstance(model, DIModel):
        model = load_model(model)
    layout = mat_layout(GAME)
    if homography is None:
        fit = register(detect_markers(image, make_detector()), layout)
        if not fit:
            raise ValueError(f"the Discovery Island mat was not found: {getattr(fit, 'reason', fit)}")
        homography = fit.homography
    return read_slots(model, image, homography, [c.key for c in layout.cells], layout=layout)
