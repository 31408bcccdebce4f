"""Forbidden Desert's flat pieces read against the owner's pictures: tile faces and backs, the
storm cell, the storm card.

Every picture the owner gives is used (:func:`desert_pictures`): all eight gear tiles, each
tunnel, well and clue, several photos of one piece (other light, another copy), and the storm
cards. They are matched on the rectified mat (:mod:`.flat_art`): per cell, where the tile lies
in and around its 70 mm cell (players push tiles about; a tile up to ``SEARCH_MM`` off its
cell's centre is found) and which pictures fit it best. Where the tile lies is taken from its
outline against the bare mat when that is clear (:mod:`.tile_outline`), so that every picture is
compared at the same place and a wrong one cannot slide to where a sand marker's edges suit it.

Scores become readings in two ways:

- one cell at a time (:func:`cell_posterior`): a softmax over the labels shortlisted for the
  cell, ``storm`` (no tile: the best tile score is low) and ``unknown`` (nothing taught fits),
  optionally with a prior per cell (:func:`single_readings`: during a turn the live loop
  favours what the rules let each changed cell show);
- the whole table at once (:func:`table_readings`), with the rules as a prior (rules §1.2,
  §3.1): exactly one storm cell; 24 tiles, each shown once, face up or face down, and only the
  faces its back allows (20 dune backs, 3 water backs, 1 crash site). The most likely table is
  an assignment problem over per-cell log-probabilities (``scipy.optimize.
  linear_sum_assignment``); a cell's confidence comes from how much likelier the best table is
  than the best table that reads the cell otherwise (a max-marginal). With a prior that places the
  table (the set-up's rules, the faces the engine expects after a storm card) each cell's
  evidence is weighed by the share of it the camera did not clip nor a glare lift to the mat's
  own white (:func:`clipped_share`): a tile washed out by glare is then what the rules leave
  for it, unsure.

Before either, the labels fitted to a cell are told apart in the table's light (the light of
the frame, from every tile's best fit): the backs where their pictures differ
(:meth:`DesertFlat.tell_backs`), and every label by how many of the tile's pixels its picture
explains (:meth:`DesertFlat.tell_labels`), which is what a tile half under sand still shows.

Confidences are the model's probabilities, with the weights of the evidence (``WEIGHTS``,
``STORM_WEIGHTS``) fitted by maximum likelihood on renders made with the teaching ranges (:mod:`.synth`), never on the measuring
pictures (:mod:`~...bench.detect_forbidden_desert`); margins are log-odds (nats) between the
reading and its runner-up. The weights of the telling apart in the table's light
(``BACK_TELL_NATS``, ``TELL_NATS_PER_PX``) were chosen by counting wrong readings on the second
renderer's development stills and tables, not fitted for calibration: they move a cell's labels by
a few nats (median 4-6 over a cell's labels on development stills) and made wrong readings sure,
so a whole-table reading is believed no more than the table read without the pixels' telling
allows (:func:`_no_surer_than_untold`).
"""

from __future__ import annotations

import importlib
import math
from dataclasses import dataclass, field, replace
from itertools import accumulate
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import cv2
import numpy as np

from ...games.forbidden_desert.components import TILE_IDS
from ..mats import MatLayout, mat_layout
from ..rectify import rectify
from .flat_art import (COARSE_PPM, FINE_PPM, ArtBank, Match, Picture, chroma_image, coarse_image, contrast,
                       flatten_piece, gradient_image)
from .tile_outline import bare_likeness, locate_tiles, outline_size

#: tile sizes tried when the size is estimated from a table (mm); 62 is the published tile
TILE_SIZES_MM = (56.0, 58.0, 60.0, 62.0, 64.0, 66.0, 68.0)
DEFAULT_TILE_MM = 62.0
CARD_MM = (63.0, 88.0)
#: quarter turns a tile may lie in (rules §1.2: all upright)
TILE_TURNS = (0,)
#: the share of a tile picture's side that is compared (:data:`~.flat_art.KEEP` for pieces in
#: general): about 2 mm of each side of a 62 mm tile is left out (a rounded corner, the photo's
#: trim, the tile size estimated to within 1 mm a side). Sand markers lie on the middle of a
#: tile, so its border is what stays in view: left out wider (0.86, 4-5 mm a side), it cost a
#: tile under sand its best evidence. Chosen on the second renderer's development stills
#: (seeds 5100-5115, 6100-6115, 7100-7107: faces wrong 24 / 79 / 21 at 0.86; 12 / 58 / 17 at
#: 0.92-0.94, 12 / 60 / 13 at 0.95, 11 / 61 / 16 at 0.97, 13 / 69 / 15 at 1.0)
TILE_KEEP = 0.94
#: a tile's fine score: its picture cut into n x n blocks, the best k counted (sand markers of
#: up to 40 mm lie on the middle of a 58-66 mm tile: its border blocks stay in view)
TILE_BLOCKS = (4, 11)
#: a tile's centre is looked for within this many mm of its cell's centre (a square window)
SEARCH_MM = 22.0
#: labels scored again at the fine resolution, per cell; the best of them compared where their
#: pictures differ (:func:`~.flat_art.contrast`)
SHORTLIST, CONTRASTED = 8, 4
#: the fine score of "nothing taught" (``unknown``); a card's softmax temperature (score units)
UNKNOWN_LEVEL = 0.22
CARD_TEMPERATURE = 0.03
#: the card place: "none" (no card) is as likely as a card when the best card scores this
CARD_NONE_LEVEL, CARD_NONE_SPREAD = 0.55, 0.04
#: :func:`card_reading`: an empty card place shows the bare mat over at least this share of
#: the ``2 * CARD_BARE_HALF_MM`` square at its centre (second renderer, development stills 5100-5115,
#: 6100-6115, 7100-7107 and set-up tables 23300-23359, 24000-24059, 24500-24559: with no card laid
#: median 1.0, 5th percentile 0.96, 4 of 182 under 0.6 (a lamp's glare on the place); under a
#: card median 0, 95th percentile 0.21, at most 0.34 (a card the glare washed out, read "none")):
#: set by judgement between the two, not tuned
CARD_BARE_FULL, CARD_BARE_HALF_MM = 0.6, 25.0
#: :func:`card_reading`: the labels a reading's alternatives leave out are together less likely
#: than this, so that a tracker told "one card, or none" knows no other card was close
CARD_RIVAL_P = 0.01
#: :func:`card_posterior`: the least share of bare mat its odds of "no card" are scaled by (a
#: place nothing of the mat shows in still leaves "no card" 1 in 30 of its odds from the scores)
CARD_BARE_FLOOR = 0.02
#: fewer cells than this with some tile scoring over UNKNOWN_LEVEL: no table is in view
LEAST_TILES = 12
#: a label whose evidence without the share explained (:func:`label_logit`) is more than this
#: many nats under its cell's best is not fitted (:meth:`DesertFlat.explain`; its share counts
#: 0, which moves it by at most |WEIGHTS["share"]| nats). Chosen on 12 set-up tables of
#: ``assistant bench setup``'s seeds (8 own-renderer, 4 second-renderer): at 8 every reading
#: stayed the same (labels; confidences within 0.003); at 5 within 0.007; at 2 ten changed.
EXPLAIN_NATS = 8.0
#: a tile's outline (:func:`~.tile_outline.locate_tiles`) decides where every label is matched
#: when its best place stands at least this far above the rest of its window (None: each label
#: always finds its own place); then each label's fine search looks this many mm around it.
#: Chosen on second-renderer stills of seeds 5100-5107, 6100-6107, 7100-7103 and own-renderer
#: tables of seed 91 (none of them measuring seeds): at 0.35, 1 badly placed tile (> 5 mm off)
#: of 331 was let through, 315 of 333 well placed ones used; on own renders, where tiles fill
#: their cells and their outlines are faint, most cells keep their own search
OUTLINE_PEAK, OUTLINE_SEARCH_MM = 0.35, 2.0

BACK_OF_KIND = {"well": "water_back", "mirage": "water_back", "crash_site": "crash_site_back"}
FACE_LABELS = ("well", "mirage", "tunnel", "gear", "launch_pad", "crash_site") + tuple(
    f"clue_{p}_{a}" for p in ("engine", "navigation_deck", "propeller", "solar_crystal") for a in ("row", "column"))
BACK_LABELS = ("dune_back", "water_back", "crash_site_back")
CARD_LABELS = tuple(f"wind_{d}_{k}" for d in "nesw" for k in (1, 2, 3)) + ("sun_beats_down", "storm_picks_up")
PART_LABELS = ("engine", "navigation_deck", "propeller", "solar_crystal")


def tile_kind(tile_id: str) -> str:
    """A tile id (rules §1.2) -> the face label it shows: ``gear_5`` -> ``gear``,
    ``clue_engine_row`` -> itself.

    >>> tile_kind("gear_5"), tile_kind("clue_engine_row"), tile_kind("well_2")
    ('gear', 'clue_engine_row', 'well')
    """
    return tile_id if tile_id.startswith("clue_") else tile_id.rstrip("0123456789").rstrip("_")


def back_of(tile_id: str) -> str:
    """The back a tile shows face down (rules §1.2): ``dune_back``, ``water_back`` or
    ``crash_site_back``."""
    return BACK_OF_KIND.get(tile_kind(tile_id), "dune_back")


# --- the owner's pictures ----------------------------------------------------------------------

PICTURE_PPM = 4.0           #: pictures are kept flattened at this many px per mm
EXTENSIONS = (".png", ".jpg", ".jpeg", ".webp")


@dataclass
class PictureReport:
    """What :func:`desert_pictures` made of a folder: the pictures, and one sentence per thing
    the owner should know (missing, unreadable, doubtful, falling back to the project's art)."""

    tiles: list = field(default_factory=list)
    cards: list = field(default_factory=list)
    parts: list = field(default_factory=list)
    notes: list = field(default_factory=list)


def _label_of(folder: str, stem: str) -> str | None:
    """The slot label a photo file stands for, or None when its name means nothing here.
    A stem may carry ``@anything`` after the id for a second photo of the same piece."""
    ident = stem.split("@", 1)[0].lower()
    if folder == "tiles":
        kind = tile_kind(ident)
        return kind if kind in FACE_LABELS and (ident in TILE_IDS or ident == kind) else None
    if folder == "tile-backs":
        return {"dune": "dune_back", "water": "water_back", "crash_site": "crash_site_back"}.get(ident)
    if folder == "storm-cards":
        return ident if ident in CARD_LABELS else ("none" if ident == "back" else None)
    return None


def desert_pictures(root: str | Path | None, fallback=None) -> PictureReport:
    """Every tile and storm-card picture under ``root`` (the layout of the component folder:
    ``tiles/``, ``tile-backs/``, ``storm-cards/``; file stem = id, e.g. ``tiles/gear_5.jpg``,
    a second photo ``tiles/gear_5@lamp.jpg``), flattened to the piece (:func:`~.flat_art.
    flatten_piece`). Labels with no picture are drawn by ``fallback`` (an object with
    ``load(label)`` in the renderer's labels, e.g. :class:`~..render.desert.ProceduralArt`), and
    the report says so; with ``root`` None every picture comes from ``fallback``.

    Raises
    ------
    ValueError
        When neither the folder nor the fallback gives a picture of some label.
    """
    report = PictureReport()
    have: dict[str, int] = {}
    if root is not None:
        root = Path(root)
        for folder, size, into in (("tiles", (DEFAULT_TILE_MM,) * 2, report.tiles),
                                   ("tile-backs", (DEFAULT_TILE_MM,) * 2, report.tiles),
                                   ("storm-cards", CARD_MM, report.cards)):
            for path in sorted((root / folder).glob("*")) if (root / folder).is_dir() else []:
                if path.suffix.lower() not in EXTENSIONS:
                    continue
                label = _label_of(folder, path.stem)
                if label is None:
                    if not (folder == "tile-backs" and path.stem.startswith("storm_spiral")):
                        report.notes.append(f"{folder}/{path.name}: the name is no piece of the game, so it was left out.")
                    continue
                img = cv2.imread(str(path), cv2.IMREAD_COLOR)
                if img is None:
                    report.notes.append(f"{folder}/{path.name}: not a readable picture, left out.")
                    continue
                if min(img.shape[:2]) < 120:
                    report.notes.append(f"{folder}/{path.name}: only {min(img.shape[:2])} px across; "
                                        "a photo of at least 300 px reads better.")
                flat, found = flatten_piece(img, size, PICTURE_PPM)
                if found and folder != "storm-cards" and label != "none":
                    pass
                into.append(Picture(label, f"{folder}/{path.stem}", flat, PICTURE_PPM))
                have[label] = have.get(label, 0) + 1
        for path in sorted((root / "parts").glob("*")) if (root / "parts").is_dir() else []:
            label = path.stem.split("@", 1)[0].lower()
            if path.suffix.lower() not in EXTENSIONS or label not in PART_LABELS:
                if path.suffix.lower() in EXTENSIONS and label != "flying_machine":
                    report.notes.append(f"parts/{path.name}: the name is no part of the flying machine, so it was left out.")
                continue
            img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
            if img is None or img.ndim != 3:
                report.notes.append(f"parts/{path.name}: not a readable colour picture, left out.")
                continue
            if img.shape[2] != 4:
                report.notes.append(f"parts/{path.name}: no transparent background, so its colour is taken from "
                                    "its middle; a cut-out (PNG with alpha) reads better.")
            report.parts.append(Picture(label, f"parts/{path.stem}", img, PICTURE_PPM))
            have[label] = have.get(label, 0) + 1
    wanted = ([(lab, "tile") for lab in FACE_LABELS + BACK_LABELS] + [(lab, "card") for lab in CARD_LABELS]
              + [(lab, "part") for lab in PART_LABELS])
    missing = [lab for lab, _ in wanted if lab not in have]
    if root is not None and missing:
        report.notes.append(f"no photo of {', '.join(missing)}: the project's own art stands in for "
                            f"{'it' if len(missing) == 1 else 'them'}, which reads the real piece less surely.")
    for label, kind in wanted:
        if label in have:
            continue
        if fallback is None:
            raise ValueError(f"no picture of {label} and no art to fall back on")
        if kind == "part":
            report.parts.append(Picture(label, f"own-art/{label}", fallback.load(f"part:{label}"), PICTURE_PPM))
            continue
        art = fallback.load(_art_label(label))
        size = (DEFAULT_TILE_MM,) * 2 if kind == "tile" else CARD_MM
        flat = cv2.resize(art[..., :3], (round(size[0] * PICTURE_PPM), round(size[1] * PICTURE_PPM)),
                          interpolation=cv2.INTER_AREA)
        (report.tiles if kind == "tile" else report.cards).append(Picture(label, f"own-art/{label}", flat, PICTURE_PPM))
    return report


def _art_label(label: str) -> str:
    """A slot label -> the renderer's art label (:mod:`..render.art`)."""
    if label in BACK_LABELS:
        return "back:crash_site" if label == "crash_site_back" else f"back:{label}"
    if label in CARD_LABELS:
        return f"storm:{label}"
    return f"tile:{label}"


# --- reading ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class CellScores:
    """What the pictures say of one cell.

    Attributes
    ----------
    matches : dict label -> Match
        The shortlisted labels' best fine matches (where the tile lies, which picture, turned
        how, the fine score).
    gains : dict label -> float
        What telling the closest labels apart added (:func:`~.flat_art.contrast`).
    shares : dict label -> float
        The share of the tile each label's picture explains (:meth:`DesertFlat.explained`);
        0 for a label too far behind to be fitted (``EXPLAIN_NATS``).
    best : float
        The best fine score (0 when nothing was scored).
    empty : float
        The share of the cell's centre that looks like the bare mat around the grid
        (:func:`bare_share`): about 1 on the empty storm cell, about 0 under a tile.
    told : dict label -> float
        What telling the labels apart in the table's light added, nats: the backs where their
        pictures differ (:meth:`DesertFlat.tell_backs`) plus the pixels each fitted picture
        explains (:meth:`DesertFlat.tell_labels`); summing to 0 over the cell's fitted labels,
        empty when neither was done (no table light: a read of fewer than
        ``desert_fit.LIGHT_CELLS`` cells, as the live loop's reads of the changed cells are).
    told_pixels : dict label -> float
        The part of ``told`` that :meth:`DesertFlat.tell_labels` added (nats; empty when it did
        not tell the cell): :func:`table_readings` reads no cell surer than the table without it.
    clipped : float
        The share of the cell's centre (:func:`clipped_share`) where the camera clipped or a
        glare lifted the art to the mat's own white (:func:`wash_levels`): what the rules weigh
        against the camera's evidence (:func:`table_readings`).
    saturated : float
        The share of the cell centre's channel values at ``CLIP_LEVEL`` or above (the sensor's
        own clipping, whatever the mat's white): how far a cell read alone may be believed
        (:func:`single_readings`).
    fitted : (crop, origin_mm, dict label -> Fit) or None
        The pictures of the labels near the cell's best fitted to the cell
        (:func:`~.desert_fit.fit_picture` on :func:`~.desert_fit.cell_crop`), kept so that what
        lies on the tile is read without fitting it again
        (:meth:`~.forbidden_desert.FDDetector.read_pieces`).
    """

    matches: dict
    gains: dict
    shares: dict
    best: float
    empty: float = 0.0
    fitted: tuple | None = field(default=None, compare=False, repr=False)
    told: dict = field(default_factory=dict)
    clipped: float = 0.0
    told_pixels: dict = field(default_factory=dict)
    saturated: float = 0.0

    @property
    def scores(self) -> dict[str, float]:
        """Each label's score: its weighted evidence (``WEIGHTS``), in nats."""
        return {lab: label_logit(self, lab) for lab in self.matches}

    def match(self, label: str | None = None) -> Match | None:
        """The match of ``label`` (default the best-scoring label), or None."""
        if label is None:
            scores = self.scores
            label = max(scores, key=scores.get) if scores else None
        return self.matches.get(label)


class DesertFlat:
    """The tile and card pictures, ready to match (see the module docstring).

    Parameters
    ----------
    tiles, cards, parts : lists of Picture
        From :func:`desert_pictures` (a part's picture may be BGRA: a cut-out).
    layout : MatLayout, optional
        Default: the Forbidden Desert mat.
    tile_mm : float
        The tiles' side, mm; :meth:`read` re-estimates it on whole-table reads.
    """

    def __init__(self, tiles: list[Picture], cards: list[Picture], layout: MatLayout | None = None,
                 tile_mm: float = DEFAULT_TILE_MM, parts: list[Picture] = ()):
        self.tile_pictures, self.card_pictures, self.part_pictures = list(tiles), list(cards), list(parts)
        self.layout = layout or mat_layout("forbidden-desert")
        self.tile_mm = float(tile_mm)
        #: the tiles' side their outlines fit best (:func:`~.tile_outline.outline_size`), set
        #: by a whole-table read; None before one
        self.outline_mm: float | None = None
        self._banks: dict[float, ArtBank] = {}
        self.cards = ArtBank([p for p in cards if p.label != "none"], CARD_MM, turns=(0,), blocks_kept=9)

    def save(self, folder: str | Path) -> Path:
        """Write the pictures (PNG, flattened at ``PICTURE_PPM``; a part's cut-out keeps its
        alpha) and an index ``pictures.json`` under ``folder``; returns the folder."""
        import json

        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        index = {"tile_mm": self.tile_mm, "ppm": PICTURE_PPM, "pictures": []}
        for kind, pics in (("tile", self.tile_pictures), ("card", self.card_pictures), ("part", self.part_pictures)):
            for i, pic in enumerate(pics):
                name = f"{kind}-{i:02d}.png"
                cv2.imwrite(str(folder / name), pic.image)
                index["pictures"].append({"kind": kind, "label": pic.label, "name": pic.name, "file": name})
        (folder / "pictures.json").write_text(json.dumps(index, indent=1))
        return folder

    @classmethod
    def load(cls, folder: str | Path, layout: MatLayout | None = None) -> "DesertFlat":
        """Read what :meth:`save` wrote.

        Raises
        ------
        OSError, ValueError
            When the index or a picture is missing or unreadable.
        """
        import json

        folder = Path(folder)
        index = json.loads((folder / "pictures.json").read_text())
        lists: dict[str, list] = {"tile": [], "card": [], "part": []}
        for entry in index["pictures"]:
            flag = cv2.IMREAD_UNCHANGED if entry["kind"] == "part" else cv2.IMREAD_COLOR
            img = cv2.imread(str(folder / entry["file"]), flag)
            if img is None or entry["kind"] not in lists:
                raise ValueError(f"{folder / entry['file']}: unreadable picture")
            lists[entry["kind"]].append(Picture(entry["label"], entry["name"], img, float(index["ppm"])))
        return cls(lists["tile"], lists["card"], layout, float(index.get("tile_mm", DEFAULT_TILE_MM)),
                   lists["part"])

    def prepare(self) -> "DesertFlat":
        """Build now what the first whole-table read would otherwise build: the tile pictures at
        every size of ``TILE_SIZES_MM`` (:meth:`bank`), their channel planes and block sums
        (:meth:`~.flat_art.ArtBank.template_planes`, :meth:`~.flat_art.ArtBank.block_templates`,
        :meth:`~.flat_art.ArtBank.unit_template`),
        and the card pictures'; and imports what :func:`table_readings` solves with (SciPy's
        optimiser: about a second, once); returns self."""
        importlib.import_module("scipy.optimize")
        for bank in [self.bank(size) for size in TILE_SIZES_MM] + [self.cards]:
            for i in range(len(bank.templates)):
                for which in ("coarse", "fine", "colour"):
                    bank.template_planes(i, which)
                bank.block_templates(i), bank.unit_template(i)
        return self

    def bank(self, tile_mm: float | None = None) -> ArtBank:
        """The tile pictures at ``tile_mm`` (default the current estimate), built once per size."""
        size = float(tile_mm or self.tile_mm)
        if size not in self._banks:
            # upright only: every tile is laid with its compass (or, face up, its symbol's
            # corner) where the rules say (rules §1.2, "Orientation"), and the rectified mat
            # has the grid's north at the top whatever side the camera looks from
            self._banks[size] = ArtBank(self.tile_pictures, (size, size), turns=TILE_TURNS, blocks=TILE_BLOCKS[0],
                                        blocks_kept=TILE_BLOCKS[1], keep=TILE_KEEP)
        return self._banks[size]

    def region(self, cells: Iterable) -> tuple[float, float, float, float]:
        """The mat region (mm) that holds every search window of ``cells`` and a tile there."""
        reach = SEARCH_MM + max(TILE_SIZES_MM) / 2 + 2.0
        xs = [self.layout.cell(c).center_mm[0] for c in cells]
        ys = [self.layout.cell(c).center_mm[1] for c in cells]
        return (min(xs) - reach, min(ys) - reach, max(xs) + reach, max(ys) + reach)

    def score_cells(self, frame: np.ndarray, homography: np.ndarray, cells: Iterable | None = None) -> dict:
        """Fine scores of the shortlisted labels per cell: ``dict cell -> CellScores``.

        ``frame`` ``(H, W, 3) uint8`` BGR (undistorted), ``homography`` mat mm -> px. On a
        read of 20 cells or more the tile size is estimated first (:meth:`estimate_size`)."""
        cells = [c.key for c in self.layout.cells] if cells is None else list(cells)
        if not cells:
            return {}
        region = self.region(cells)
        coarse = coarse_image(rectify(frame, homography, self.layout, COARSE_PPM, region, cv2.INTER_AREA))
        fine_img = rectify(frame, homography, self.layout, FINE_PPM, region, cv2.INTER_AREA)
        fine, colour = gradient_image(fine_img, FINE_PPM), chroma_image(fine_img, FINE_PPM)
        windows = {c: (*self.layout.cell(c).center_mm, SEARCH_MM) for c in cells}
        bare = self.bare_colour(frame, homography)
        empty = {c: bare_share(fine_img, region[:2], self.layout.cell(c).center_mm, bare) for c in cells}
        squares = {c: _centre_square(fine_img, region[:2], self.layout.cell(c).center_mm) for c in cells}
        levels = wash_levels(bare, [float(q.mean()) for q in squares.values() if q.size])
        clipped = {c: _share_reaching(q, levels) for c, q in squares.items()}
        saturated = {c: _share_reaching(q, CLIP_LEVEL) for c, q in squares.items()}
        found = None
        if len(cells) >= 20:
            found = self.bank(DEFAULT_TILE_MM).coarse(coarse, region[:2], windows)
            self.estimate_size(coarse, fine, colour, region, windows, found)
        bank = self.bank()
        if found is None or self.tile_mm != DEFAULT_TILE_MM:
            found = bank.coarse(coarse, region[:2], windows)
        centres = {c: self.layout.cell(c).center_mm for c in cells}
        placed = {}
        if OUTLINE_PEAK is not None:
            likeness = bare_likeness(fine_img, bare)          # made once for both
            if len(cells) >= 20:
                self.outline_mm = outline_size(fine_img, bare, region[:2], FINE_PPM, centres, SEARCH_MM,
                                               likeness=likeness)
            placed = locate_tiles(fine_img, bare, region[:2], FINE_PPM, centres, self.outline_mm or self.tile_mm,
                                  SEARCH_MM, likeness=likeness)
        out = {}
        for cell in cells:
            ranked = sorted(found.get(cell, {}).values(), key=lambda m: -m.score)
            # the backs always: the commonest tiles, and the plainest (a marker's edges on a
            # back can outshine its drawing in the coarse pass)
            shortlist = ranked[:SHORTLIST] + [m for m in ranked[SHORTLIST:] if m.label in BACK_LABELS]
            where = placed.get(cell)
            if where is not None and where[2] >= OUTLINE_PEAK:
                # every label at the one place the tile's outline gives (:mod:`.tile_outline`)
                shortlist = [m._replace(centre_mm=where[0]) for m in shortlist]
                fine_scores = bank.fine(fine, colour, region[:2], shortlist, search_mm=OUTLINE_SEARCH_MM)
            else:
                fine_scores = bank.fine(fine, colour, region[:2], shortlist)
            if not fine_scores:
                out[cell] = CellScores({}, {}, {}, 0.0, empty[cell], clipped=clipped[cell],
                                       saturated=saturated[cell])
                continue
            top = max(fine_scores.values(), key=lambda m: m.score)
            close = sorted(fine_scores.values(), key=lambda m: -m.score)[:CONTRASTED]
            gain = contrast(bank, fine, region[:2], close)
            # the share explained weighs at most |WEIGHTS["share"]| nats: only the labels within
            # EXPLAIN_NATS of the cell's best are fitted; the others count as explaining nothing
            before = {lab: label_logit(CellScores(fine_scores, gain, {}, top.score), lab) for lab in fine_scores}
            near = [m for lab, m in fine_scores.items() if before[lab] >= max(before.values()) - EXPLAIN_NATS]
            share, (crop, origin, fits) = self.explain(frame, homography, cell, near)
            share = {lab: share.get(lab, 0.0) for lab in fine_scores}
            scores = CellScores(fine_scores, gain, share, top.score, empty[cell], clipped=clipped[cell],
                                saturated=saturated[cell])
            out[cell] = replace(scores, fitted=(crop, origin, fits))
        return self.tell_labels(self.tell_backs(out))

    def tell_backs(self, scores: dict) -> dict:
        """:meth:`score_cells`'s scores with the tile backs told apart in the table's light.

        A water back differs from a dune back by its tree, its drop of water and where its
        dunes rise; a sand marker set on it at set-up (rules §3.1) hides the tree, and the
        block correlation then hardly tells them apart (a marker's outline suits one picture's
        edges as well as the other's). Here each back label fitted to a cell is laid in the
        table's light (:func:`~.desert_fit.table_light` of every cell's best label; a tile's
        own fit would explain a marker covering half of it with a low gain and a large noise)
        and compared pixel by pixel where the backs' pictures differ (by more than
        ``BACK_APART_SIGMAS`` of the table's noise), leaving out what none of them explains
        (beyond ``RESIDUAL_SIGMAS``: what lies on the tile). Each label gets the mean
        Gaussian log-likelihood of those pixels (the residual capped at ``RESIDUAL_SIGMAS``,
        a robust loss) times ``BACK_TELL_NATS``, less the mean over the cell's back labels: the
        backs' evidence summed is unchanged and every other label's untouched (a back told
        worse than the others loses odds against the faces too; keeping the best back's odds
        against the faces instead read worse on the development stress tables).

        Parameters
        ----------
        scores : dict (r, c) -> CellScores
            :meth:`score_cells`'s scores with ``fitted`` (crops ``(H, W, 3) float32`` BGR at
            ``desert_fit.PPM`` px/mm and their fits); cells without ``fitted`` are passed over.

        Returns
        -------
        dict (r, c) -> CellScores
            A new dict: ``told`` (label -> nats, summing to 0 over the cell's backs) set on each
            cell with at least two fitted backs and pixels where they differ; the others as
            given. With fewer tiles than the table's light needs (``desert_fit.LIGHT_CELLS``: a
            live read of a few cells), the same scores. Raises nothing of its own."""
        from .desert_fit import RESIDUAL_SIGMAS, bounding_box, largest_channel

        again = dict(scores)
        for cell, sc, light in _lit_cells(scores):
            crop, _origin, fits = sc.fitted
            backs = [lab for lab in BACK_LABELS if lab in fits and fits[lab].tile.any()]
            if len(backs) < 2:
                continue
            sigma = max(light.noise, 1.0)
            tile = np.logical_and.reduce([fits[lab].tile for lab in backs])
            box = bounding_box(tile)
            if box is None:
                continue
            tile, seen = tile[box], crop[box]          # only the pixels every back's tile covers count
            lit = {lab: fits[lab].predicted[box] * light.gain + light.offset for lab in backs}
            res = {lab: largest_channel(np.abs(seen - lit[lab])) for lab in backs}
            apart = np.zeros(tile.shape, bool)
            for i, a in enumerate(backs):
                for b in backs[i + 1:]:
                    apart |= largest_channel(np.abs(lit[a] - lit[b])) > BACK_APART_SIGMAS * sigma
            covered = np.logical_and.reduce([res[lab] > RESIDUAL_SIGMAS * sigma for lab in backs])
            use = apart & tile & ~covered
            if not use.any():
                continue
            cap = RESIDUAL_SIGMAS * sigma
            ll = {lab: -float(np.mean(np.minimum(res[lab][use], cap) ** 2)) / (2.0 * sigma * sigma) for lab in backs}
            mean = sum(ll.values()) / len(ll)
            told = dict(sc.told)
            for lab, v in ll.items():
                told[lab] = told.get(lab, 0.0) + BACK_TELL_NATS * (v - mean)
            again[cell] = replace(sc, told=told)
        return again

    def tell_labels(self, scores: dict) -> dict:
        """:meth:`score_cells`'s scores with every fitted label weighed by how many of the
        tile's pixels its picture explains in the table's light.

        The block correlation looks at the drawing's edges, each block normalised on its own; a
        tile half under a sand marker keeps few whole blocks, and a wrong picture whose edges
        suit the marker's can outscore the right one. Here each label fitted to a cell
        (:meth:`explain`) is laid in the table's light (:func:`~.desert_fit.table_light`, as in
        :meth:`tell_backs`) and each tile pixel that some label explains (residual, largest
        channel, within ``RESIDUAL_SIGMAS`` of the table's noise sigma for at least one of them)
        counts for each label as a truncated Gaussian log-likelihood, ``-min(r, c)^2 / (2
        sigma^2)`` with ``c = TELL_CAP_SIGMAS * sigma``: a pixel off by more than ``c`` costs
        the same whatever lies there (a marker, a pawn, a picture that does not fit), so the
        cost counts the pixels a picture leaves unexplained rather than how far off they are.
        The sum, times ``TELL_NATS_PER_PX`` (the pixels of a crop are far from independent: it
        is smoothed and resampled from a coarser frame), less its mean over the cell's fitted
        labels, is added to each one's ``told``: the fitted labels' evidence summed is
        unchanged and labels not fitted are untouched.

        Parameters
        ----------
        scores : dict (r, c) -> CellScores
            As :meth:`tell_backs` takes and returns them (crops ``(H, W, 3) float32`` BGR at
            ``desert_fit.PPM`` px/mm).

        Returns
        -------
        dict (r, c) -> CellScores
            A new dict, what was added also kept apart in each cell's ``told_pixels``; cells
            with fewer than two fitted labels, fewer than ``TELL_LEAST_PX``
            pixels compared, or no table light (fewer tiles than ``desert_fit.LIGHT_CELLS``)
            as given, and every cell when ``TELL_NATS_PER_PX`` is 0. Raises nothing of its own."""
        from .desert_fit import RESIDUAL_SIGMAS, bounding_box, largest_channel

        if not TELL_NATS_PER_PX:
            return dict(scores)
        again = dict(scores)
        for cell, sc, light in _lit_cells(scores):
            crop, _origin, fits = sc.fitted
            labels = [lab for lab, f in fits.items() if f.tile.any()]
            if len(labels) < 2:
                continue
            sigma = max(light.noise, 1.0)
            tile = np.logical_and.reduce([fits[lab].tile for lab in labels])
            box = bounding_box(tile)
            if box is None:
                continue
            tile, seen = tile[box], crop[box]          # only the pixels every label's tile covers count
            res = {lab: largest_channel(np.abs(seen - (fits[lab].predicted[box] * light.gain + light.offset)))
                   for lab in labels}
            covered = np.logical_and.reduce([res[lab] > RESIDUAL_SIGMAS * sigma for lab in labels])
            use = tile & ~covered
            if int(use.sum()) < TELL_LEAST_PX:
                continue
            cap = TELL_CAP_SIGMAS * sigma
            ll = {lab: -float(np.sum(np.minimum(res[lab][use], cap) ** 2)) / (2.0 * sigma * sigma) for lab in labels}
            mean = sum(ll.values()) / len(ll)
            told, pixels = dict(sc.told), dict(sc.told_pixels)
            for lab, v in ll.items():
                nats = TELL_NATS_PER_PX * (v - mean)
                pixels[lab] = pixels.get(lab, 0.0) + nats
                told[lab] = told.get(lab, 0.0) + nats
            again[cell] = replace(sc, told=told, told_pixels=pixels)
        return again

    def explained(self, frame: np.ndarray, homography: np.ndarray, cell, matches) -> dict[str, float]:
        """Per match, the share of the tile its picture explains
        (:func:`~.desert_pieces.explained_shares`)."""
        return self.explain(frame, homography, cell, matches)[0]

    def explain(self, frame: np.ndarray, homography: np.ndarray, cell, matches) -> tuple[dict[str, float], tuple]:
        """:meth:`explained` and what it fitted: ``(dict label -> share, (crop (H, W, 3)
        float32, origin_mm, dict label -> Fit))`` (:func:`~.desert_fit.cell_crop`,
        :func:`~.desert_fit.fit_picture`)."""
        from .desert_fit import cell_crop, explained_shares, fit_picture, tile_residual

        crop, origin = cell_crop(frame, homography, self.layout, cell)
        bank = self.bank()
        fits = {}
        for m in matches:
            t = bank.templates[m.template]
            pic = bank.pictures[t.picture]
            fits[m.label] = fit_picture(crop, pic.image, pic.ppm, self.tile_mm, t.turn, m.centre_mm, origin)
        return explained_shares({lab: tile_residual(crop, f) for lab, f in fits.items()}), (crop, origin, fits)

    def bare_colour(self, frame: np.ndarray, homography: np.ndarray) -> np.ndarray:
        """The colour of the bare mat (or table) just around the grid: the median BGR
        ``(3,) float32`` of a band ``BARE_BAND_MM`` outside the play area (tiles pushed over the
        grid's edge cover little of it)."""
        x0, y0, x1, y1 = self.layout.play_area_mm
        near, far = BARE_BAND_MM
        img = rectify(frame, homography, self.layout, COARSE_PPM, (x0 - far, y0 - far, x1 + far, y1 + far),
                      cv2.INTER_AREA)
        h, w = img.shape[:2]
        band = np.ones((h, w), bool)
        m = int(round((far - near) * COARSE_PPM))
        band[m:h - m, m:w - m] = False
        return np.median(img[band].astype(np.float32), axis=0)

    def estimate_size(self, coarse, fine, colour, region, windows, found: dict | None = None) -> float:
        """The tiles' side (mm) that fits a whole table best: the 10 cells the default size
        matches best, each scored again with its best picture at every size of
        ``TILE_SIZES_MM``; sets and returns :attr:`tile_mm`. ``found``: the default size's
        coarse matches in ``windows`` when the caller has them (:meth:`~.flat_art.ArtBank.coarse`)."""
        if found is None:
            found = self.bank(DEFAULT_TILE_MM).coarse(coarse, region[:2], windows)
        tops = sorted((max(m.values(), key=lambda x: x.score) for m in found.values() if m),
                      key=lambda x: -x.score)[:10]
        if len(tops) < 5:
            return self.tile_mm
        totals = {}
        for size in TILE_SIZES_MM:
            other = self.bank(size)
            totals[size] = sum(s.score for s in (other.fine(fine, colour, region[:2], [m], search_mm=4.0).get(m.label)
                                                 for m in tops) if s is not None)
        self.tile_mm = max(totals, key=totals.get)
        return self.tile_mm

    def score_card(self, frame: np.ndarray, homography: np.ndarray) -> tuple[dict[str, float], float, float, float]:
        """Scores of the storm-card pictures in the mat's card place: ``(dict label -> fine
        score plus what telling the closest apart added, the best fine score before that, the
        share of the place's centre that looks like the bare mat, the share of its channel values
        the camera clipped)`` (:func:`bare_share` over a ``2 * CARD_BARE_HALF_MM`` square
        against :meth:`bare_colour`; :func:`clipped_share` at ``CLIP_LEVEL`` over the
        ``2 * CLIP_HALF_MM`` square at the place's centre; ``({}, 0.0, 1.0, 0.0)`` when the
        layout has no card place)."""
        if self.layout.card_place_mm is None:
            return {}, 0.0, 1.0, 0.0
        x0, y0, x1, y1 = self.layout.card_place_mm
        pad = 14.0
        region = (x0 - pad, y0 - pad, x1 + pad, y1 + pad)
        c_img = rectify(frame, homography, self.layout, COARSE_PPM, region, cv2.INTER_AREA)
        f_img = rectify(frame, homography, self.layout, FINE_PPM, region, cv2.INTER_AREA)
        window = {0: ((x0 + x1) / 2, (y0 + y1) / 2, pad)}
        found = self.cards.coarse(coarse_image(c_img), region[:2], window).get(0, {})
        f_grad = gradient_image(f_img, FINE_PPM)
        fine = self.cards.fine(f_grad, chroma_image(f_img, FINE_PPM), region[:2], found.values())
        close = sorted(fine.values(), key=lambda m: -m.score)[:CONTRASTED]
        gain = contrast(self.cards, f_grad, region[:2], close)
        best = max((m.score for m in fine.values()), default=0.0)
        centre = ((x0 + x1) / 2, (y0 + y1) / 2)
        bare = bare_share(f_img, region[:2], centre, self.bare_colour(frame, homography), CARD_BARE_HALF_MM)
        clipped = clipped_share(f_img, region[:2], centre)
        return {lab: m.score + gain.get(lab, 0.0) for lab, m in fine.items()}, best, bare, clipped


#: :meth:`DesertFlat.tell_backs`: the backs' pictures are compared where they differ by more
#: than this many of the table's noise; a unit of mean log-likelihood there is worth this many
#: nats (chosen on development set-up tables of the second renderer, 24000-24059 and
#: 24500-24559)
BACK_APART_SIGMAS, BACK_TELL_NATS = 3.0, 0.5
#: :meth:`DesertFlat.tell_labels`: a pixel's cost is capped at this many sigmas of the table's
#: noise; nats per crop pixel (``desert_fit.PPM`` = 1.5 px/mm: about 0.016 nats per mm^2, one
#: independent look per 8 x 8 mm); fewer pixels compared than this, nothing is told. Chosen on
#: the second renderer's development stills (5100-5115, 6100-6115, 7100-7107, with TILE_KEEP
#: 0.94: faces wrong 12 / 58 / 17 without; with a cap of 1 sigma and 0.005 / 0.007 / 0.01 nats
#: 8 / 59 / 13, 7 / 57 / 14, 6 / 55 / 18; a cap of 1.5 sigmas 11 / 63 / -, 0.75 sigma 9 / 58 / 13);
#: TELL_LEAST_PX (about 22 mm^2) set by judgement, not tuned
TELL_CAP_SIGMAS, TELL_NATS_PER_PX, TELL_LEAST_PX = 1.0, 0.007, 50


#: the band around the grid whose colour is the bare mat's (mm outside the play area: from, to)
BARE_BAND_MM = (6.0, 18.0)
#: a pixel looks bare when each channel is within this ratio of the bare colour; the patch
#: looked at is the cell's centre, this many mm each way (a tile up to SEARCH_MM off its cell
#: still covers it)
BARE_RATIO, BARE_HALF_MM = 0.12, 8.0


def _lit_cells(scores: Mapping[object, "CellScores"]) -> list[tuple]:
    """The cells of ``scores`` with fits and a table light: ``(cell, CellScores, TableLight)``
    each, the light (:func:`~.desert_fit.table_light`) taken from every cell's best-scoring
    fitted label; empty when the table has too few tiles for a light."""
    from .desert_fit import table_light

    best = {}
    for cell, sc in scores.items():
        m = sc.match() if sc.fitted is not None else None
        if m is not None and m.label in sc.fitted[2]:
            best[cell] = sc.fitted[2][m.label]
    lights = table_light(best)
    return [(cell, sc, lights[cell]) for cell, sc in scores.items() if cell in lights and sc.fitted is not None]


def bare_share(image: np.ndarray, origin_mm, centre_mm, bare: np.ndarray, half_mm: float = BARE_HALF_MM) -> float:
    """The share of pixels, in the square of ``half_mm`` each way (default ``BARE_HALF_MM``)
    around ``centre_mm`` of a ``FINE_PPM`` rectified image ``(H, W, 3) uint8`` (pixel (0, 0) at
    ``origin_mm``), whose colour is within ``BARE_RATIO`` of ``bare`` in every channel: 0..1."""
    cx = (centre_mm[0] - origin_mm[0]) * FINE_PPM
    cy = (centre_mm[1] - origin_mm[1]) * FINE_PPM
    r = half_mm * FINE_PPM
    patch = image[int(cy - r):int(cy + r) + 1, int(cx - r):int(cx + r) + 1].astype(np.float32)
    if patch.size == 0:
        return 0.0
    ratio = (patch + 4.0) / (np.asarray(bare, np.float32) + 4.0)
    return float((np.abs(np.log(ratio)) < np.log1p(BARE_RATIO)).all(axis=-1).mean())


#: a channel value of ``CLIP_LEVEL`` grey levels or more counts as clipped (8-bit sensors
#: saturate at 255; JPEG ringing spreads that by a few levels); the share is taken over the
#: ``2 * CLIP_HALF_MM`` square at the cell's centre (most of a 58-66 mm tile). Counted per channel
#: value, so that a pixel with only its red clipped still counts for what its green and blue show
#: (on development set-up tables, second renderer 24500-24559 stress, the share of whole pixels
#: with any channel clipped read as many tables right, 57 of 60, but flagged 275 cells read right
#: against 231, and on own-art stress renders 900-939 95 against 31)
CLIP_LEVEL, CLIP_HALF_MM = 250, 28.0
#: a lamp's veiling glare need not clip: it lifts a tile towards the white of the mat, and a value
#: within ``VEIL_SHARE`` of the bare mat's colour around the grid (per channel) is counted with the
#: clipped ones. That is a coarse cue, not a proof of glare: the bare storm cell counts as washed
#: whole (its evidence is then the prior's, where a prior is given), and the lightest tile art
#: (the water backs' and some dunes' sky) counts in part where the light falls off towards the
#: mat's edge (second renderer, development table 24000, normal light: tiles 0-0.19). Chosen on
#: development set-up tables of the second renderer among 0.85-1.0 (see the README)
VEIL_SHARE = 0.9


def _centre_square(image: np.ndarray, origin_mm, centre_mm) -> np.ndarray:
    """The ``2 * CLIP_HALF_MM`` square around ``centre_mm`` of a ``FINE_PPM`` rectified image
    (pixel (0, 0) at ``origin_mm``), clipped to the image: ``(h, w, 3)``, possibly empty."""
    cx = (centre_mm[0] - origin_mm[0]) * FINE_PPM
    cy = (centre_mm[1] - origin_mm[1]) * FINE_PPM
    r = CLIP_HALF_MM * FINE_PPM
    return image[max(int(cy - r), 0):max(int(cy + r) + 1, 0), max(int(cx - r), 0):max(int(cx + r) + 1, 0)]


def wash_levels(bare: np.ndarray, cell_means: Sequence[float]) -> np.ndarray:
    """Per channel, the level at or above which a value counts as washed out (:func:`clipped_share`).

    Parameters
    ----------
    bare : (3,) float
        The bare surround's BGR (:meth:`DesertFlat.bare_colour`), 0-255.
    cell_means : sequence of float
        Each cell's mean grey level (0-255) over its centre square.

    Returns
    -------
    (3,) float32
        ``min(CLIP_LEVEL, VEIL_SHARE * bare)`` where the surround is lighter than the median
        cell (the mat's white paper); ``CLIP_LEVEL`` in every channel otherwise (a dark bare
        table is no white reference) and for an empty ``cell_means``. On a read of a few cells
        the median rests on those cells alone (the storm cell read alone gives ``CLIP_LEVEL``);
        only whole-table reads with a prior use the share (:func:`table_readings`).

    Raises
    ------
    ValueError
        When ``bare`` does not hold 3 values.
    """
    bare = np.asarray(bare, np.float32).reshape(3)
    if not len(cell_means) or float(bare.mean()) <= float(np.median(cell_means)):
        return np.full(3, CLIP_LEVEL, np.float32)
    return np.minimum(np.float32(CLIP_LEVEL), np.float32(VEIL_SHARE) * bare)


def clipped_share(image: np.ndarray, origin_mm, centre_mm, levels: float | np.ndarray = CLIP_LEVEL) -> float:
    """The share of channel values, in the ``CLIP_HALF_MM`` square around ``centre_mm`` of a
    ``FINE_PPM`` rectified image ``(H, W, 3) uint8`` (pixel (0, 0) at ``origin_mm``), that
    reach ``levels`` (a number, or ``(3,)`` per channel, :func:`wash_levels`): 0..1 (0 for a
    square outside the image). Under a lamp's glare a tile's art washes out to the white of the
    mat: where the camera clipped, or the glare lifted the art to the mat's own white, it
    cannot tell a tile from the bare mat, nor one tile from another (a clipped value says only
    "this bright or brighter", a censored observation)."""
    return _share_reaching(_centre_square(image, origin_mm, centre_mm), levels)


def clipped_shares(frame: np.ndarray, homography: np.ndarray, layout: MatLayout,
                   cells: Iterable[tuple]) -> dict[tuple, float]:
    """Each cell's share of clipped channel values (:data:`CLIP_LEVEL`, :func:`clipped_share`)
    in its centre square (``2 * CLIP_HALF_MM``): how far a lamp's glare washes it out. From
    :data:`SATURATED_UNSURE` the detector reads a cell alone no surer than
    :data:`SATURATED_CONFIDENCE`, so a marker taken off or a tile turned over there is not to be
    trusted to the camera (a clipped value says only "this bright or brighter").

    Parameters
    ----------
    frame : (H, W, 3) uint8
        BGR, undistorted.
    homography : (3, 3)
        Mat mm -> frame px.
    layout : MatLayout
    cells : iterable of (row, col)
        The cells to look at (the storm's bare cell shows the mat's white paper, which a bright
        picture clips too).

    Returns
    -------
    dict (row, col) -> float
        0..1 per cell; empty when ``cells`` is.

    Raises
    ------
    KeyError
        For a cell not on ``layout``.
    """
    keys = sorted(cells)
    if not keys:
        return {}
    centres = {key: layout.cell(key).center_mm for key in keys}
    xs, ys = [c[0] for c in centres.values()], [c[1] for c in centres.values()]
    pad = CLIP_HALF_MM + 1.0
    region = (min(xs) - pad, min(ys) - pad, max(xs) + pad, max(ys) + pad)
    fine = rectify(frame, homography, layout, FINE_PPM, region, cv2.INTER_AREA)
    return {key: clipped_share(fine, region[:2], centres[key]) for key in keys}


def _share_reaching(patch: np.ndarray, levels) -> float:
    """The share of ``patch``'s channel values at or above ``levels`` (0 for an empty patch)."""
    if patch.size == 0:
        return 0.0
    return float((patch >= np.asarray(levels, np.float32)).mean())


def _softmax(z: Mapping[str, float]) -> dict[str, float]:
    top = max(z.values())
    e = {k: math.exp(v - top) for k, v in z.items()}
    total = sum(e.values())
    return {k: v / total for k, v in e.items()}


#: the weights of a label's evidence (nats per unit): its fine score, what telling it apart
#: from the closest labels added, the share of the tile its picture explains, and a constant
#: for the backs; the storm's: a constant, the bare share of the cell's centre and the best
#: tile score (fitted by maximum likelihood on teaching-range renders, see the module docstring)
WEIGHTS = {"fine": 16.2, "gain": 2.1, "share": -0.3, "back": 0.0}
STORM_WEIGHTS = {"constant": 6.0, "empty": 3.8, "best": -2.7}


def label_logit(scores: CellScores, label: str) -> float:
    """The evidence for ``label`` on a cell (nats, up to a constant shared by the cell's labels)."""
    m = scores.matches[label]
    return (WEIGHTS["fine"] * m.score + WEIGHTS["gain"] * scores.gains.get(label, 0.0)
            + WEIGHTS["share"] * scores.shares.get(label, 0.0) + WEIGHTS["back"] * (label in BACK_LABELS)
            + scores.told.get(label, 0.0))


def cell_logits(scores: CellScores) -> dict[str, float]:
    """Log-odds (unnormalised, nats) of every label a cell may read: the shortlisted labels by
    their evidence (:func:`label_logit`), ``storm`` by the bare share of its centre and how low
    the best tile score is, ``unknown`` at ``UNKNOWN_LEVEL`` times the fine weight."""
    z = scores.scores
    z["storm"] = (STORM_WEIGHTS["constant"] + STORM_WEIGHTS["empty"] * scores.empty
                  + STORM_WEIGHTS["best"] * scores.best)
    z["unknown"] = WEIGHTS["fine"] * UNKNOWN_LEVEL
    return z


def cell_posterior(scores: CellScores) -> dict[str, float]:
    """Probabilities of every label of :func:`cell_logits` for one cell read alone."""
    return _softmax(cell_logits(scores))


def card_posterior(scores: Mapping[str, float], best: float, bare: float = 1.0) -> dict[str, float]:
    """Probabilities of the card place's labels: ``none`` (no card laid) by how low the best
    fine score ``best`` is, odds of ``exp((CARD_NONE_LEVEL - best) / CARD_NONE_SPREAD)``, and by
    how little of the place looks like the bare mat (``bare``, :meth:`DesertFlat.score_card`):
    under ``CARD_BARE_FULL`` those odds are multiplied by ``max(bare, CARD_BARE_FLOOR) /
    CARD_BARE_FULL`` (something covers the place: a card blurred or in a dim light matches its
    picture less well, but it still hides the mat); the cards share the rest by a softmax of
    their scores. Returns ``dict label -> probability`` summing to 1.

    Raises
    ------
    ValueError
        When ``best`` is not a finite number (NaN or infinite)."""
    z = (CARD_NONE_LEVEL - best) / CARD_NONE_SPREAD + math.log(min(1.0, max(bare, CARD_BARE_FLOOR) / CARD_BARE_FULL))
    if not math.isfinite(z):
        raise ValueError(f"the card place's best fine score must be a number, not {best!r}")
    p_none = 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0
    out = {lab: (1.0 - p_none) * p for lab, p in _softmax({k: v / CARD_TEMPERATURE for k, v in scores.items()}).items()} \
        if scores else {}
    out["none"] = p_none if scores else 1.0
    return out


# --- the whole table with the rules as a prior ----------------------------------------------------

@dataclass(frozen=True)
class FlatReading:
    """One slot's reading: ``label``, ``confidence`` (probability), ``margin`` (nats over the
    runner-up) and the runner-up label(s)."""

    label: str
    confidence: float
    margin: float
    alternatives: tuple = ()


#: cost of a label a cell's shortlist left out: this far (score units) under its weakest entry
UNLISTED_PENALTY = 0.1
_HUGE = 1e6
_FORCE = 1e4


def _log_probs(scores: CellScores, censored: bool = False) -> dict[str, float]:
    """A cell's log-probabilities (:func:`cell_logits`); ``censored``: the evidence weighed by
    the share of the cell the camera did not clip (``1 - scores.clipped``, a tempered
    likelihood), so that where glare washed a tile out the rules decide."""
    z = cell_logits(scores)
    if censored:
        z = {k: (1.0 - scores.clipped) * v for k, v in z.items()}
    top = max(z.values())
    norm = top + math.log(sum(math.exp(v - top) for v in z.values()))
    return {k: v - norm for k, v in z.items()}


def unlisted_floor(z: Mapping[str, float], weight: float = 1.0) -> float:
    """The log-odds (nats, on the scale of ``z``) of a label a cell's shortlist left out: the
    weakest listed tile label's, less ``weight`` times ``UNLISTED_PENALTY`` fine-score units
    (``unknown``'s where no tile label is listed).

    Parameters
    ----------
    z : dict label -> float
        A cell's log-odds or log-probabilities (:func:`cell_logits`, :func:`_log_probs`).
    weight : float
        How much the shortlist counts (1; less where the camera was washed out).

    Returns
    -------
    float
        Nats on the scale of ``z``.

    Raises
    ------
    KeyError
        When ``z`` lists no tile label and no ``unknown`` (:func:`cell_logits` always gives
        ``unknown``).
    """
    listed = [v for k, v in z.items() if k not in ("storm", "unknown")]
    return (min(listed) if listed else z["unknown"]) - weight * UNLISTED_PENALTY * WEIGHTS["fine"]


def _columns() -> list[tuple[str, tuple[str, ...]]]:
    """The table's pieces as assignment columns: each tile (its two sides' labels), the storm
    cell, and one ``unknown`` per cell (a cell nothing taught fits)."""
    cols = [(tid, (back_of(tid), tile_kind(tid))) for tid in TILE_IDS]
    cols.append(("storm", ("storm",)))
    cols.extend((f"unknown{i}", ("unknown",)) for i in range(25))
    return cols


def table_readings(scores: Mapping[object, CellScores],
                   prior: Mapping[object, Mapping[str, float]] | None = None) -> dict[object, FlatReading]:
    """The most likely whole table (see the module docstring) and each cell's confidence in it.

    Parameters
    ----------
    scores : dict cell -> CellScores
        Every cell of the table (:meth:`DesertFlat.score_cells`).
    prior : dict cell -> dict label -> float, optional
        What else is known of the table: nats added to a label's log-probability on a cell
        (labels not named get 0), e.g. the set-up rules' "every tile desert side up"
        (:func:`~assistant.tracking.desert_setup.face_prior`). Default: the rules' counts only.
        With a prior, each cell's evidence is weighed by the share of it the camera did not clip
        (:func:`_log_probs`): a tile washed out by glare is then what the prior says, unsure.

    Returns
    -------
    dict cell -> FlatReading
        The face slot's reading per cell, no surer than the table read without what
        :meth:`DesertFlat.tell_labels` added (:func:`_no_surer_than_untold`). When fewer than
        ``LEAST_TILES`` cells show any tile (no table in view, a blank frame), every cell reads
        ``unknown`` with confidence 0.
    """
    cells = list(scores)
    if sum(s.best >= UNKNOWN_LEVEL for s in scores.values()) < min(LEAST_TILES, len(cells)):
        return {c: FlatReading("unknown", 0.0, 0.0) for c in cells}
    seen, belief = _joint(scores, prior, censored=False)
    if not prior or not any(s.clipped > 0.0 for s in scores.values()):
        return _no_surer_than_untold(seen, scores, prior)
    # with a prior that says where things lie (the set-up; the faces the engine expects after a
    # storm card) the camera's evidence counts only where it did not clip, and a cell read
    # otherwise than from the whole evidence is believed only as far as that reading left room;
    # without a prior the rules' counts cannot place what the camera cannot see (tried on
    # development stills 5105, 5106: the storm went to a tile when the white mat clipped)
    # and never surer than the whole evidence: where the two agree, the smaller confidence (the
    # tempered evidence weighs less against the prior's label, review finding); where they
    # differ, at most what the whole reading left (its max-marginal even where it reads
    # ``unknown``, which shows confidence 0), with no margin
    ruled, _ = _joint(scores, prior, censored=True)
    return _no_surer_than_untold(_no_surer(ruled, seen, belief), scores, prior)


def _no_surer(readings: Mapping, other: Mapping, other_belief: Mapping) -> dict:
    """``readings`` never surer than ``other`` (readings of the same cells from other evidence,
    with ``other_belief`` the probability of each of its readings): where the two agree, the
    smaller confidence; where they differ, at most what ``other`` left for the reading (``1 -
    other_belief``), with no margin."""
    out = {}
    for c, r in readings.items():
        if r.label == other[c].label:
            out[c] = r if r.confidence <= other[c].confidence else other[c]
        else:
            out[c] = replace(r, confidence=min(r.confidence, 1.0 - other_belief[c]), margin=0.0)
    return out


def _no_surer_than_untold(readings: Mapping, scores: Mapping[object, CellScores], prior) -> dict:
    """``readings`` of :func:`table_readings` never surer than the table read without what
    :meth:`DesertFlat.tell_labels` added (each cell's ``told_pixels`` taken off its ``told``),
    by :func:`_no_surer`: from the whole evidence and, where a prior is given and some cell was
    clipped, also from the evidence weighed by what the camera did not clip (the two readings
    :func:`table_readings` makes); the labels stay. Telling the labels apart by the pixels each
    picture explains reads more tiles right under sand, but its weight was chosen by counting
    wrong readings, not fitted for calibration, and it made wrong readings sure: on the second
    renderer's development stills (stress 6300-6399, normal 5300-5399, bare table 7300-7349)
    faces wrong with confidence >= 0.9 were 25 / 5 / 4 of 2,500 / 2,500 / 1,250 with it, 13 in
    stress without it (then 95 more faces wrong), 7 / 4 / 1 capped so. Readings as given where
    no cell was told so (no table light: fewer than ``desert_fit.LIGHT_CELLS`` tiles; too few
    pixels compared; ``TELL_NATS_PER_PX`` 0)."""
    if not any(s.told_pixels for s in scores.values()):
        return dict(readings)
    untold = {c: replace(s, told={k: v - s.told_pixels.get(k, 0.0) for k, v in s.told.items()}, told_pixels={})
              for c, s in scores.items()}
    out = _no_surer(readings, *_joint(untold, prior, censored=False))
    if prior and any(s.clipped > 0.0 for s in untold.values()):
        out = _no_surer(out, *_joint(untold, prior, censored=True))
    return out


def _joint(scores: Mapping[object, CellScores], prior: Mapping[object, Mapping[str, float]] | None,
           censored: bool) -> tuple[dict[object, FlatReading], dict[object, float]]:
    """:func:`table_readings`' assignment and max-marginals, each cell's evidence tempered by its
    clipped share when ``censored`` (:func:`_log_probs`): the readings, and per cell the
    probability of its reading from the max-marginal (also where the reading is ``unknown``,
    whose confidence is reported as 0)."""
    from scipy.optimize import linear_sum_assignment

    cells = list(scores)
    logp = {c: _log_probs(scores[c], censored) for c in cells}
    cols = _columns()

    # per cell: the log-probability of a label not listed; the shortlist is evidence too,
    # tempered like the rest where the camera was washed out
    floor = {c: unlisted_floor(logp[c], 1.0 - scores[c].clipped if censored else 1.0) for c in cells}

    prior = prior or {}

    def lp(cell, label) -> float:
        got = logp[cell].get(label)
        return (floor[cell] if got is None else got) + prior.get(cell, {}).get(label, 0.0)

    def best_side(cell, labels, banned=None) -> tuple[float, str]:
        options = [(lp(cell, lab), lab) for lab in labels if lab != banned]
        return max(options) if options else (-_HUGE, "")

    # exactly one storm cell (rules §3.1): the storm column is made cheaper than any other by
    # the same amount in every row, so that it is always used and the ranking is unchanged
    storm_col = [name for name, _ in cols].index("storm")
    cost = np.array([[-best_side(c, labels)[0] for _, labels in cols] for c in cells])
    cost[:, storm_col] -= _FORCE
    rows, picked = linear_sum_assignment(cost)
    total = float(cost[rows, picked].sum())
    out, belief = {}, {}
    for i, cell in enumerate(cells):
        label = best_side(cell, cols[picked[i]][1])[1]
        alt = cost.copy()                       # only this cell's row changes: its reading is banned
        alt[i] = [-best_side(cell, labels, label)[0] for _, labels in cols]
        alt[i, storm_col] -= _FORCE
        r2, p2 = linear_sum_assignment(alt)
        delta = max(0.0, float(alt[r2, p2].sum()) - total)
        runner = best_side(cell, cols[p2[i]][1], label)[1]
        conf = 1.0 / (1.0 + math.exp(-min(delta, 50.0)))
        belief[cell] = conf
        if label == "unknown":
            conf, delta = 0.0, 0.0
        out[cell] = FlatReading(label, conf, delta, (runner,) if runner and runner != label else ())
    return out, belief


#: a cell read alone whose centre has at least this share of its channel values saturated
#: (``CLIP_LEVEL``, :attr:`CellScores.saturated`) reads no surer than ``SATURATED_CONFIDENCE``
#: with no margin (:func:`single_readings`): under a lamp's glare core the camera cannot tell a
#: tile from the bare mat, nor one tile from another. Chosen on the live loop's reads of
#: changed cells in development stress games 8837-8842 (second renderer): of 122 face
#: readings, the 94 sure right ones had at most 0.2 saturated; the three sure wrong ones
#: (a dune back under the glare read ``storm`` at 0.96-0.99) had 0.41-0.56
SATURATED_UNSURE, SATURATED_CONFIDENCE = 0.3, 0.5


def single_readings(scores: Mapping[object, CellScores],
                    prior: Mapping[object, Mapping[str, float]] | None = None) -> dict[object, FlatReading]:
    """Each cell read alone (:func:`cell_posterior`, weighed by ``prior``): the best label, its
    probability, the log-odds over the runner-up, and the runner-up as the alternative; where
    the camera saturated at least ``SATURATED_UNSURE`` of the cell's centre, the probability
    capped at ``SATURATED_CONFIDENCE`` and the margin at 0 (the label kept: unsure, not unknown).

    Parameters
    ----------
    scores : dict cell -> CellScores
        The cells read (:meth:`DesertFlat.score_cells`).
    prior : dict cell -> dict label -> float, optional
        What the rules allow on a cell, nats added to a label's log-odds (labels not named get
        0); a label the cell's shortlist left out enters at :func:`unlisted_floor` (plus its
        nats: it can then beat the listed labels the prior does not favour, so a caller guards
        the result against the camera's own reading, as
        :meth:`~.forbidden_desert.FDDetector.read` does with ``guarded_by``). E.g. the live
        loop's :func:`~assistant.tracking.live.turn_prior`: in a turn's actions a tile only
        turns over, to a face its back still allows. Cells not named read as without.

    Returns
    -------
    dict cell -> FlatReading
    """
    out = {}
    for cell, s in scores.items():
        z = cell_logits(s)
        favoured = (prior or {}).get(cell)
        if favoured:
            floor = unlisted_floor(z)
            z = {**z, **{k: z.get(k, floor) + n for k, n in favoured.items()}}
        r = _reading(_softmax(z))
        if s.saturated >= SATURATED_UNSURE and r.confidence > SATURATED_CONFIDENCE:
            r = replace(r, confidence=SATURATED_CONFIDENCE, margin=min(r.margin, 0.0))
        out[cell] = r
    return out


def _reading(post: Mapping[str, float]) -> FlatReading:
    ranked = sorted(post.items(), key=lambda kv: -kv[1])
    (label, p), (second, q) = ranked[0], ranked[1] if len(ranked) > 1 else ("", 0.0)
    margin = math.log(max(p, 1e-12) / max(q, 1e-12))
    if label == "unknown":
        return FlatReading("unknown", 0.0, 0.0)
    return FlatReading(label, float(p), float(margin), (second,) if second else ())


def card_reading(scored: tuple) -> FlatReading:
    """The card place's reading from :meth:`DesertFlat.score_card`'s ``(scores, best, bare,
    clipped)`` (``clipped`` may be left out: 0) (:func:`card_posterior`), never surer than the
    scores alone allow: the bare share says
    whether something covers the place, not which card it is, so a label it changes keeps at
    most the probability the scores alone gave that label (margin 0), and a label it keeps at
    most the scores' own confidence and margin. And ``none`` is never surer than the place's
    look allows: an empty place shows the bare mat, so with a bare share under
    ``CARD_BARE_FULL`` a ``none`` is believed at most ``0.5 + 0.5 * bare / CARD_BARE_FULL`` (a
    card washed out by a lamp's glare, or blurred past matching, is not surely "no card"; a
    place out of the frame, rectified black, reads so too); and where the camera clipped a share
    ``clipped`` of the place's channel values, at most ``0.5 + 0.5 * (1 - clipped)``: a card
    the glare washed to the sensor's white looks like the bare mat (second renderer,
    development stress stills 6300-6399: the three cards read "none" at 1.0 had 0.79-1.0 of
    their values clipped; of the 17 places with no card, 12 had none clipped and five 0.33-1.0,
    where the exposure clipped the white mat itself). Its alternatives are the runner-up, then
    the other labels, most likely first, until those left out are together less likely than
    ``CARD_RIVAL_P``.

    Raises
    ------
    ValueError
        When ``best`` is not a finite number (:func:`card_posterior`)."""
    scores, best, bare = scored[:3]
    clipped = float(scored[3]) if len(scored) > 3 else 0.0
    alone, post = card_posterior(scores, best), card_posterior(scores, best, bare)
    r, own = _reading(post), _reading(alone)
    if r.label == own.label:
        r = replace(r, confidence=min(r.confidence, own.confidence), margin=min(r.margin, own.margin))
    else:
        r = replace(r, confidence=min(r.confidence, alone.get(r.label, 0.0)), margin=0.0)
    others = sorted(((p, label) for label, p in post.items() if label != r.label), reverse=True)
    left = list(accumulate(p for p, _ in reversed(others)))[::-1]   # this label's and every less likely one's
    rivals = tuple(label for (_p, label), rest in zip(others, left) if rest >= CARD_RIVAL_P
                   and label not in r.alternatives)
    r = replace(r, alternatives=r.alternatives + rivals)
    cap = 0.5 + 0.5 * min(1.0, max(bare, 0.0) / CARD_BARE_FULL, 1.0 - min(max(clipped, 0.0), 1.0))
    if r.label != "none" or r.confidence <= cap:
        return r
    return FlatReading("none", cap, min(r.margin, math.log(cap / (1.0 - cap))), r.alternatives)
