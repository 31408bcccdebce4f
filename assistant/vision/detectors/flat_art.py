"""Flat printed art read by matching the owner's pictures of it, with no teaching.

A tile face, a tile back or a card is a flat print: what the camera sees of it is the picture
the owner took of it, turned, scaled, lit and blurred differently. So it is read by comparing
the rectified mat (the frame seen from straight above through the mat's homography,
:func:`~..rectify.rectify`) with every picture directly, not through a classifier taught on
rendered tables (which learns the renderer's look as much as the pieces').

The comparison is normalised cross-correlation (``cv2.matchTemplate`` with
``TM_CCOEFF_NORMED``, Lewis 1995) of *normalised gradient images*: the x and y derivatives of
a lightly smoothed grey image, each divided by the local mean gradient magnitude
(:func:`gradient_image`). Dividing by the local magnitude cancels the exposure, the white
balance and slow light gradients (a lamp's falloff, a shadow's soft edge) and keeps the
drawing's shape; the correlation's mean subtraction and normalisation do the rest. Each
picture is trimmed to its piece (:func:`piece_outline`), its border left out (``KEEP``: the
centre 86 % of the side by default, so that a few millimetres of table in a photo, a rounded
corner or a piece a little larger or smaller than assumed matter little; Forbidden Desert's tiles
keep 94 %, :data:`~.desert_flat.TILE_KEEP`, as sand lies on their middle) and matched in its four quarter
turns where the piece may lie any way round.

Matching runs twice: coarsely (``COARSE_PPM`` px per mm) over a search window around each
place a piece may lie, which also finds where the piece lies in its cell (players push tiles
about), then finely (``FINE_PPM``) at that place for the best few labels.

Coordinates: mat millimetres (x right, y down) as :mod:`..mats`; images ``(H, W, C)`` as numpy.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Iterable, Mapping, NamedTuple, Sequence

import cv2
import numpy as np

from . import fine_batch
from .correlation import Spectra, block_cut, block_template, correlate_planes, prepared_block_nccs, template_spectrum

#: resolutions of the two passes, px per mm of the mat
COARSE_PPM, FINE_PPM = 0.5, 1.0
#: the share of a piece's side (centred) that is compared: its border is left out
KEEP = 0.86
#: fine search around the coarse position, mm (half a coarse pixel and some)
FINE_SEARCH_MM = 3.0
#: Gaussian smoothing before differentiating, mm of the mat (the same for the picture and the
#: frame, so a sharp photo and a soft webcam frame meet in the middle)
SMOOTH_MM = 1.0
#: the local gradient magnitude divides over this many mm (sigma), plus a floor that keeps flat
#: regions (no drawing) from blowing up noise
NORM_SIGMA_MM, NORM_FLOOR = 4.0, 2.0
#: smoothing of the colour images, mm
CHROMA_SMOOTH_MM = 2.0
#: weight of the colour correlation in a fine score (the gradient's weight is 1)
COLOUR_WEIGHT = 0.5


def gradient_image(image: np.ndarray, ppm: float = FINE_PPM) -> np.ndarray:
    """The normalised gradient of a picture: ``(H, W, 2) float32``, ``(gx, gy) / m`` where
    ``gx, gy`` are Sobel derivatives of the grey image smoothed by ``SMOOTH_MM`` (Gaussian
    sigma) and ``m`` is the local mean gradient magnitude (Gaussian, sigma ``NORM_SIGMA_MM``)
    plus ``NORM_FLOOR``.

    Parameters
    ----------
    image : (H, W, 3) uint8 BGR or (H, W) uint8 grey
    ppm : float
        The image's px per mm (of the mat, or of the piece in a flattened picture).

    >>> img = np.zeros((20, 20, 3), np.uint8); img[:, 10:] = 200
    >>> g = gradient_image(img)
    >>> g.shape, g.dtype, bool(g[10, 10, 0] > 0.5), bool(abs(g[10, 10, 1]) < 1e-3)
    ((20, 20, 2), dtype('float32'), True, True)
    """
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    grey = cv2.GaussianBlur(grey.astype(np.float32), (0, 0), SMOOTH_MM * ppm)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1)
    mag = cv2.GaussianBlur(cv2.magnitude(gx, gy), (0, 0), NORM_SIGMA_MM * ppm) + NORM_FLOOR
    return np.dstack([gx / mag, gy / mag])


def chroma_image(image: np.ndarray, ppm: float = FINE_PPM) -> np.ndarray:
    """The colour of a picture without its brightness: the CIE a* and b* of its Lab image
    (``cv2.COLOR_BGR2Lab`` on float input), smoothed over ``CHROMA_SMOOTH_MM``:
    ``(H, W, 2) float32``. Matched with normalised cross-correlation, a white balance shift (a
    constant added to a* and b*) drops out.

    Parameters
    ----------
    image : (H, W, 3) uint8 BGR
    ppm : float
        The image's px per mm.
    """
    lab = cv2.cvtColor(image.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
    return cv2.GaussianBlur(np.ascontiguousarray(lab[..., 1:]), (0, 0), CHROMA_SMOOTH_MM * ppm)


def coarse_image(image: np.ndarray, ppm: float = COARSE_PPM) -> np.ndarray:
    """What the coarse pass matches: the normalised gradient and the chroma of a picture side
    by side, ``(H, W, 4) float32`` (:func:`gradient_image`, :func:`chroma_image`), so that a
    smooth piece (a dune back: sky above sand) is found by its colours when a marker's edges
    on it outshine its drawing."""
    return np.dstack([gradient_image(image, ppm), chroma_image(image, ppm)])


def piece_outline(photo: np.ndarray, least: float = 0.6, most: float = 0.985,
                  max_turn_deg: float = 8.0) -> np.ndarray | None:
    """Where the piece lies in a photo of one piece with a little table around it: the
    corners ``(4, 2) float32`` px (TL, TR, BR, BL) of the rotated rectangle
    (``cv2.minAreaRect``) around the largest outline ``cv2.Canny`` finds, or None when that
    rectangle is not a plausible piece: covering less than ``least`` or more than ``most`` of
    the photo, turned more than ``max_turn_deg`` from upright, or reaching outside the photo
    (the piece fills the photo, or the table is too busy to tell; the caller then trims a
    fixed border).

    Parameters
    ----------
    photo : (H, W, 3) uint8 BGR
    """
    h, w = photo.shape[:2]
    grey = cv2.GaussianBlur(cv2.cvtColor(photo[..., :3], cv2.COLOR_BGR2GRAY), (0, 0), max(h, w) / 400.0)
    edges = cv2.Canny(grey, 30, 90)
    edges = cv2.dilate(edges, np.ones((3, 3), np.uint8), iterations=max(1, round(max(h, w) / 300.0)))
    contours, _ = cv2.findContours(edges, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    rect = cv2.minAreaRect(max(contours, key=cv2.contourArea))
    rw, rh = rect[1]
    turn = abs(((rect[2] + 45.0) % 90.0) - 45.0)
    box = cv2.boxPoints(rect)
    inside = (box[:, 0] >= -0.01 * w).all() and (box[:, 0] <= 1.01 * w).all() and \
        (box[:, 1] >= -0.01 * h).all() and (box[:, 1] <= 1.01 * h).all()
    if not (least * w * h <= rw * rh <= most * w * h) or turn > max_turn_deg or not inside:
        return None
    return _order_corners(box)


def _order_corners(box: np.ndarray) -> np.ndarray:
    """Four points -> TL, TR, BR, BL (by the sums and differences of their coordinates)."""
    box = np.asarray(box, np.float32).reshape(4, 2)
    s, d = box.sum(axis=1), box[:, 0] - box[:, 1]
    return np.array([box[np.argmin(s)], box[np.argmax(d)], box[np.argmax(s)], box[np.argmin(d)]], np.float32)


def flatten_piece(photo: np.ndarray, size_mm: tuple[float, float], ppm: float, trim: float = 0.02) -> tuple[np.ndarray, bool]:
    """A photo of one piece as the piece itself, seen from above at ``ppm`` px per mm:
    ``((round(h_mm ppm), round(w_mm ppm), 3) uint8 BGR, outline_found)``.

    The piece's outline (:func:`piece_outline`) is warped to the rectangle; when none is found
    the photo is taken as the piece less ``trim`` of each side. A photo whose proportions are
    turned against ``size_mm`` (a landscape photo of a portrait card) is turned first.
    """
    w_mm, h_mm = size_mm
    dst_w, dst_h = max(1, int(round(w_mm * ppm))), max(1, int(round(h_mm * ppm)))
    img = photo
    corners = piece_outline(img)
    if corners is None:
        h, w = img.shape[:2]
        dy, dx = h * trim, w * trim
        corners = np.array([[dx, dy], [w - dx, dy], [w - dx, h - dy], [dx, h - dy]], np.float32)
    side_a = np.linalg.norm(corners[1] - corners[0])
    side_b = np.linalg.norm(corners[3] - corners[0])
    if (side_a > side_b) != (w_mm > h_mm) and abs(w_mm - h_mm) > 1e-6 and abs(side_a - side_b) > 0.05 * max(side_a, side_b):
        corners = np.roll(corners, 1, axis=0)          # a quarter turn: the photo lies across
    dst = np.array([[0, 0], [dst_w, 0], [dst_w, dst_h], [0, dst_h]], np.float32)
    m = cv2.getPerspectiveTransform(corners, dst)
    out = cv2.warpPerspective(img[..., :3], m, (dst_w, dst_h), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
    return out, piece_outline(photo) is not None


@dataclass(frozen=True)
class Picture:
    """One picture of one flat piece, flattened (:func:`flatten_piece`).

    Attributes
    ----------
    label : str
        What a slot showing it reads (``"gear"``, ``"dune_back"``, ``"wind_n_2"``).
    name : str
        Where it came from (``"tiles/gear_5"``), for messages.
    image : (h, w, 3) uint8
        BGR at ``ppm`` px per mm, upright.
    ppm : float
    """

    label: str
    name: str
    image: np.ndarray
    ppm: float


class Template(NamedTuple):
    label: str
    name: str
    turn: int                 #: quarter turns clockwise
    coarse: np.ndarray        #: (h, w, 4) float32 :func:`coarse_image` at COARSE_PPM (centre KEEP only)
    fine: np.ndarray          #: (h, w, 2) float32 at FINE_PPM
    colour: np.ndarray        #: (h, w, 2) float32 chroma image at FINE_PPM (:func:`chroma_image`)
    picture: int              #: index into :attr:`ArtBank.pictures`


class Match(NamedTuple):
    """The best place and score of one label in one window."""

    label: str
    score: float              #: normalised cross-correlation, -1..1
    template: int             #: index into :attr:`ArtBank.templates`
    centre_mm: tuple[float, float]


def _turn(img: np.ndarray, k: int) -> np.ndarray:
    return np.ascontiguousarray(np.rot90(img, -k)) if k % 4 else img


def _core(img: np.ndarray, keep: float) -> np.ndarray:
    h, w = img.shape[:2]
    my, mx = int(round(h * (1 - keep) / 2)), int(round(w * (1 - keep) / 2))
    return img[my:h - my, mx:w - mx]


@dataclass
class ArtBank:
    """Every picture of a set of flat pieces, ready to match (see the module docstring).

    Parameters
    ----------
    pictures : sequence of Picture
    size_mm : (w, h)
        The pieces' size on the table, mm (every picture is scaled to it).
    turns : tuple of int
        Quarter turns a piece may lie in (``(0, 1, 2, 3)`` for tiles; ``(0,)`` for a card laid
        upright in its place).
    keep : float
        Share of each side compared (``KEEP``).
    blocks : int
        :func:`block_score` cuts a template into ``blocks`` x ``blocks`` blocks.
    blocks_kept : int
        Of those blocks, how many best ones count
        (fewer: more robust to pieces lying on the art, less able to tell pictures apart that
        differ in one block; 9 for cards, which nothing covers).
    """

    pictures: Sequence[Picture]
    size_mm: tuple[float, float]
    turns: tuple[int, ...] = (0, 1, 2, 3)
    keep: float = KEEP
    blocks_kept: int = 7
    blocks: int = 3
    templates: list = field(default_factory=list, init=False)
    #: :func:`contrast`'s comparison masks per pair of template indices, made on first use
    pair_masks: dict = field(default_factory=dict, init=False, repr=False)
    #: per (template index, "coarse" | "fine" | "colour"): its channels as contiguous planes; per
    #: (index, "blocks"): its side of block_score
    _planes: dict = field(default_factory=dict, init=False, repr=False)
    #: (board, its channel planes) of the last ``RECENT_BOARDS`` boards any bank matched, newest last
    _recent_boards: ClassVar[list] = []

    def __post_init__(self):
        if not self.pictures:
            raise ValueError("an art bank needs at least one picture")
        for index, pic in enumerate(self.pictures):
            for k in self.turns:
                grads = []
                for ppm, describe in ((COARSE_PPM, coarse_image), (FINE_PPM, gradient_image)):
                    w, h = (int(round(s * ppm)) for s in self.size_mm)
                    img = _turn(cv2.resize(pic.image, (w, h), interpolation=cv2.INTER_AREA), k)
                    grads.append(_core(describe(img, ppm), self.keep))
                colour = _core(chroma_image(img, FINE_PPM), self.keep)
                self.templates.append(Template(pic.label, pic.name, k, *grads, colour, index))

    @property
    def labels(self) -> list[str]:
        """The labels the pictures stand for, sorted."""
        return sorted({p.label for p in self.pictures})

    def coarse(self, board: np.ndarray, origin_mm: tuple[float, float],
               windows: Mapping[object, tuple[float, float, float]]) -> dict[object, dict[str, Match]]:
        """The best match of every label in every window, at ``COARSE_PPM``.

        Parameters
        ----------
        board : (H, W, 4) float32
            :func:`coarse_image` of the rectified mat at ``COARSE_PPM``, its pixel (0, 0) at
            mat point ``origin_mm``.
        windows : dict key -> (cx, cy, radius) mm
            Where a piece's centre may lie: within ``radius`` (a square) of ``(cx, cy)``.

        Returns
        -------
        dict key -> dict label -> Match
            Windows whose search area falls outside ``board`` get no entry.
        """
        return self._search(board, origin_mm, COARSE_PPM, windows, range(len(self.templates)), "coarse")

    def fine(self, board: np.ndarray, colour: np.ndarray, origin_mm: tuple[float, float],
             candidates: Iterable[Match], search_mm: float = FINE_SEARCH_MM) -> dict[str, Match]:
        """Each candidate's label scored again at ``FINE_PPM``: its template (the picture and
        turn that matched best coarsely) within ``search_mm`` of the candidate's centre, the
        best of the gradient correlation plus ``COLOUR_WEIGHT`` times the colour correlation at
        the same place (:func:`~.correlation.correlate_planes`; several labels in one window at
        once by :mod:`.fine_batch`, the same to float32 rounding).

        Parameters
        ----------
        board : (H, W, 2) float32
            :func:`gradient_image` of the rectified mat at ``FINE_PPM``, pixel (0, 0) at
            ``origin_mm``.
        colour : (H, W, 2) float32
            :func:`chroma_image` of the same rectified mat.
        candidates : iterable of Match
            From :meth:`coarse`.

        Returns
        -------
        dict label -> Match
            ``score`` is :func:`block_score` at the place where ``(gradient + COLOUR_WEIGHT *
            colour) / (1 + COLOUR_WEIGHT)`` correlates best.
        """
        out: dict[str, Match] = {}
        bh, bw = board.shape[:2]
        jobs = []                                        # (template index, u0, v0, u1, v1)
        for cand in candidates:
            box = fine_batch.search_box(cand.centre_mm, self.templates[cand.template].fine.shape, origin_mm,
                                        search_mm, FINE_PPM, (bh, bw))
            if box is not None:
                jobs.append((cand.template, *box))
        for (i, u0, v0, _u1, _v1), both in zip(jobs, self._fine_responses(board, colour, jobs)):
            t = self.templates[i]
            th, tw = t.fine.shape[:2]
            _, _, _, (du, dv) = cv2.minMaxLoc(both)
            u, v = u0 + du, v0 + dv
            score = block_score(board[v:v + th, u:u + tw], t.fine, colour[v:v + th, u:u + tw], t.colour,
                                self.blocks_kept, self.blocks, self.block_templates(i))
            if t.label not in out or score > out[t.label].score:
                centre = (origin_mm[0] + (u + tw / 2) / FINE_PPM, origin_mm[1] + (v + th / 2) / FINE_PPM)
                out[t.label] = Match(t.label, float(score), i, centre)
        return out

    def _fine_responses(self, board: np.ndarray, colour: np.ndarray, jobs: list[tuple]) -> list[np.ndarray]:
        """:meth:`fine`'s responses ``(gradient + COLOUR_WEIGHT * colour) / (1 + COLOUR_WEIGHT)``
        per job ``(template index, u0, v0, u1, v1)`` (top-left places searched, inclusive),
        ``(v1 - v0 + 1, u1 - u0 + 1) float32`` each: jobs :func:`.fine_batch.batched` gathers share
        one :func:`.fine_batch.window_nccs`, the rest (and a flat template's) ``cv2.matchTemplate``."""
        out: list = [None] * len(jobs)
        n_grad = board.shape[2]
        shapes = [self.templates[i].fine.shape[:2] if self.unit_template(i) is not None else None for i, *_ in jobs]
        for group, (u0, v0, u1, v1) in fine_batch.batched(jobs, shapes):
            th, tw = self.templates[jobs[group[0]][0]].fine.shape[:2]
            planes = [p[v0:v1 + th, u0:u1 + tw] for p in self.board_planes(board) + self.board_planes(colour)]
            ncc = fine_batch.window_nccs(planes, np.stack([self.unit_template(jobs[k][0]) for k in group]), (th, tw))
            grad, col = ncc[:n_grad].sum(axis=0) / n_grad, ncc[n_grad:].sum(axis=0) / (len(planes) - n_grad)
            both = (grad + COLOUR_WEIGHT * col) / (1.0 + COLOUR_WEIGHT)
            for k, resp in zip(group, both):
                _i, a0, b0, a1, b1 = jobs[k]
                out[k] = resp[b0 - v0:b1 - v0 + 1, a0 - u0:a1 - u0 + 1]
        for k, (i, u0, v0, u1, v1) in enumerate(jobs):
            if out[k] is None:
                th, tw = self.templates[i].fine.shape[:2]
                grad = correlate_planes([p[v0:v1 + th, u0:u1 + tw] for p in self.board_planes(board)],
                                        self.template_planes(i, "fine"))
                col = correlate_planes([p[v0:v1 + th, u0:u1 + tw] for p in self.board_planes(colour)],
                                       self.template_planes(i, "colour"))
                out[k] = (grad + COLOUR_WEIGHT * col) / (1.0 + COLOUR_WEIGHT)
        return out

    def unit_template(self, index: int) -> np.ndarray | None:
        """Template ``index``'s :func:`.fine_batch.unit_template` (its fine and colour planes
        stacked, each zero-mean and unit-norm: ``(C, h * w) float32``), made once; None when a
        plane is flat."""
        if (index, "unit") not in self._planes:
            try:
                got = fine_batch.unit_template(self.template_planes(index, "fine")
                                               + self.template_planes(index, "colour"))
            except ValueError:
                got = None
            self._planes[(index, "unit")] = got
        return self._planes[(index, "unit")]

    def template_planes(self, index: int, which: str) -> list[np.ndarray]:
        """Template ``index``'s ``which`` image (``"coarse"``, ``"fine"`` or ``"colour"``) as a
        list of contiguous ``(h, w) float32`` channel planes, made once."""
        got = self._planes.get((index, which))
        if got is None:
            img = getattr(self.templates[index], which)
            got = self._planes[(index, which)] = [np.ascontiguousarray(img[..., c]) for c in range(img.shape[2])]
        return got

    def block_templates(self, index: int) -> tuple:
        """Template ``index``'s side of :func:`block_score` (its fine gradient and colour
        images cut into ``blocks`` x ``blocks``), made once."""
        got = self._planes.get((index, "blocks"))
        if got is None:
            t = self.templates[index]
            cut = block_cut(*t.fine.shape[:2], self.blocks)
            got = self._planes[(index, "blocks")] = (cut, block_template([t.fine, t.colour], cut))
        return got

    def template_spectra(self, index: int, which: str, size: tuple[int, int]) -> list[tuple[np.ndarray, float]]:
        """Template ``index``'s ``which`` channel planes as :func:`template_spectrum` gives them
        for DFTs of ``size`` (rows, columns), made once per size."""
        got = self._planes.get((index, which, size))
        if got is None:
            got = self._planes[(index, which, size)] = [template_spectrum(p, size)
                                                       for p in self.template_planes(index, which)]
        return got

    @staticmethod
    def board_planes(board: np.ndarray) -> list[np.ndarray]:
        """A board ``(H, W, C) float32`` as a list of contiguous ``(H, W)`` channel planes; the
        planes of the last ``RECENT_BOARDS`` boards are kept for every bank (a read matches the
        same few boards over and over, its gradient and colour images with the tile pictures
        at each size)."""
        recent = ArtBank._recent_boards
        for seen, planes in recent:
            if seen is board:
                return planes
        planes = [np.ascontiguousarray(board[..., c]) for c in range(board.shape[2])]
        recent[:] = recent[1 - RECENT_BOARDS:] + [(board, planes)]
        return planes

    def _search(self, board, origin_mm, ppm, windows, templates, which) -> dict:
        out: dict = {}
        bh, bw = board.shape[:2]
        boxes = {key: ((cx - r - origin_mm[0]) * ppm, (cy - r - origin_mm[1]) * ppm,
                       (cx + r - origin_mm[0]) * ppm, (cy + r - origin_mm[1]) * ppm)
                 for key, (cx, cy, r) in windows.items()}
        if not boxes:
            return out
        # many windows: one correlation over the box around them all, then a look into each
        union = (min(b[0] for b in boxes.values()), min(b[1] for b in boxes.values()),
                 max(b[2] for b in boxes.values()), max(b[3] for b in boxes.values()))
        groups = {None: union} if len(boxes) > 3 else {key: box for key, box in boxes.items()}
        spectral: dict = {}                 # (group, template shape) -> the image's Spectra there
        for i in templates:
            t = self.templates[i]
            tpl = getattr(t, which)
            th, tw = tpl.shape[:2]
            for group, (x0, y0, x1, y1) in groups.items():
                # template top-left pixels whose centre lies in the box
                u0, v0 = max(int(np.floor(x0 - tw / 2)), 0), max(int(np.floor(y0 - th / 2)), 0)
                u1, v1 = min(int(np.ceil(x1 - tw / 2)), bw - tw), min(int(np.ceil(y1 - th / 2)), bh - th)
                if u1 < u0 or v1 < v0:
                    continue
                got = spectral.get((group, th, tw))
                if got is None:
                    image = Spectra([p[v0:v1 + th, u0:u1 + tw] for p in self.board_planes(board)], (th, tw))
                    keys = list(boxes) if group is None else [group]
                    got = spectral[(group, th, tw)] = (image, _Looks(boxes, keys, u0, v0, th, tw, image.out_shape))
                image, looks = got
                resp = image.correlate(self.template_spectra(i, which, image.size))
                for key, score, du, dv in looks.bests(resp):
                    best = out.setdefault(key, {}).get(t.label)
                    if best is None or score > best.score:
                        centre = (origin_mm[0] + (u0 + du + tw / 2) / ppm, origin_mm[1] + (v0 + dv + th / 2) / ppm)
                        out[key][t.label] = Match(t.label, score, i, centre)
        return out


class _Looks:
    """Where :meth:`ArtBank._search` looks in a correlation response: per window key, the
    template top-left pixels whose centre lies in its box, as a part of the response whose
    pixel (0, 0) is the board's ``(u0, v0)``; windows of one shape are gathered by one index."""

    def __init__(self, boxes: Mapping, keys: list, u0: int, v0: int, th: int, tw: int, shape: tuple[int, int]):
        self.parts = []                                  # (key, a0, b0, rows, columns), non-empty only
        for key in keys:
            bx0, by0, bx1, by1 = boxes[key]
            a0, b0 = max(int(np.floor(bx0 - tw / 2)) - u0, 0), max(int(np.floor(by0 - th / 2)) - v0, 0)
            a1, b1 = int(np.ceil(bx1 - tw / 2)) - u0, int(np.ceil(by1 - th / 2)) - v0
            rows, cols = len(range(shape[0])[b0:b1 + 1]), len(range(shape[1])[a0:a1 + 1])   # as numpy slices
            if rows and cols:
                self.parts.append((key, a0, b0, rows, cols))
        sizes = {(rows, cols) for _k, _a, _b, rows, cols in self.parts}
        self.index = None
        if len(sizes) == 1 and len(self.parts) > 1:
            rows, cols = sizes.pop()
            self.width = cols
            self.index = (np.array([b for _k, _a, b, _r, _c in self.parts])[:, None, None] + np.arange(rows)[None, :, None],
                          np.array([a for _k, a, _b, _r, _c in self.parts])[:, None, None] + np.arange(cols)[None, None, :])

    def bests(self, resp: np.ndarray) -> list[tuple]:
        """Per window (in the keys' order), its best response: ``(key, score float, du, dv)``,
        ``(du, dv)`` from the response's pixel (0, 0); the first best in row-major order, as
        ``cv2.minMaxLoc`` finds it."""
        if self.index is None:
            out = []
            for key, a0, b0, rows, cols in self.parts:
                _, score, _, (du, dv) = cv2.minMaxLoc(resp[b0:b0 + rows, a0:a0 + cols])
                out.append((key, float(score), a0 + du, b0 + dv))
            return out
        looks = resp[self.index].reshape(len(self.parts), -1)
        at = looks.argmax(axis=1)
        scores = looks[np.arange(len(at)), at].tolist()
        return [(key, score, a0 + k % self.width, b0 + k // self.width)
                for (key, a0, b0, _r, _c), score, k in zip(self.parts, scores, at.tolist())]


#: how many boards' channel planes :meth:`ArtBank.board_planes` keeps (a whole-table read
#: matches six: the coarse, gradient and colour images of the table and of the card place)
RECENT_BOARDS = 6


#: block_score splits a template into BLOCKS x BLOCKS blocks
BLOCKS = 3


def block_score(grad: np.ndarray, tpl_grad: np.ndarray, colour: np.ndarray, tpl_colour: np.ndarray,
                kept: int = BLOCKS * BLOCKS, blocks: int = BLOCKS, prepared: tuple | None = None) -> float:
    """How well a patch shows a template, robust to things lying on it (a sand marker, a pawn
    cover part of a tile): the template is cut into ``BLOCKS`` x ``BLOCKS`` blocks, each
    block's normalised cross-correlation with the patch (gradient channels plus
    ``COLOUR_WEIGHT`` times colour channels, over ``1 + COLOUR_WEIGHT``) is taken, and the best
    ``kept`` are averaged: the blocks an occluder spoils count for nothing, whichever label is
    tried.

    All four arrays are ``(h, w, 2) float32`` of one size (:func:`gradient_image`,
    :func:`chroma_image`). Returns a float in -1..1. Every block's correlation comes from its
    sums (:func:`~.correlation.prepared_block_nccs`), all blocks of both images at once;
    ``prepared``, the template's side made beforehand (``(block_cut(...),
    block_template([tpl_grad, tpl_colour], cut))``), spares making it again."""
    if prepared is None:
        cut = block_cut(*tpl_grad.shape[:2], blocks)
        prepared = (cut, block_template([tpl_grad, tpl_colour], cut))
    cut, both_templates = prepared
    ncc = prepared_block_nccs([grad, colour], both_templates, cut)
    both = (ncc[0] + COLOUR_WEIGHT * ncc[1]) / (1.0 + COLOUR_WEIGHT)
    return float(np.sort(both, axis=None)[-kept:].sum() / kept)          # (as .mean() divides)


#: the share of a template pair's pixels, where they differ most, that :meth:`ArtBank.contrast`
#: compares; and the weight of that comparison in a score
CONTRAST_SHARE, CONTRAST_WEIGHT = 0.2, 1.0


def _patch(board: np.ndarray, origin_mm, centre_mm, shape) -> np.ndarray | None:
    """The ``shape``-sized patch of a ``FINE_PPM`` board image centred on ``centre_mm``."""
    th, tw = shape[:2]
    u = int(round((centre_mm[0] - origin_mm[0]) * FINE_PPM - tw / 2))
    v = int(round((centre_mm[1] - origin_mm[1]) * FINE_PPM - th / 2))
    if u < 0 or v < 0 or v + th > board.shape[0] or u + tw > board.shape[1]:
        return None
    return board[v:v + th, u:u + tw]


def _centred(b: np.ndarray) -> tuple[np.ndarray, np.float32]:
    """``b`` less its mean, and the sum of the squares of that (a template's side of :func:`_ncc`)."""
    b = b - b.mean()
    return b, (b * b).sum()


def _ncc(a: np.ndarray, b: tuple[np.ndarray, np.float32]) -> float:
    """The normalised cross-correlation of ``a`` and a template's values ``b`` given centred
    (:func:`_centred`), both ``(n, 2) float32``: -1..1, 0 when either is flat."""
    a = a - a.mean()
    b, bb = b
    den = float(np.sqrt((a * a).sum() * bb))
    return float((a * b).sum() / den) if den > 1e-9 else 0.0


def _pair_mask(bank: "ArtBank", i: int, j: int) -> tuple[np.ndarray, tuple, tuple]:
    """Where templates ``i`` and ``j`` of ``bank`` (fine gradients of one size) differ most:
    ``(mask (h, w) bool, template i there, template j there)``, each template's values there
    ``(n, 2) float32`` centred (:func:`_centred`); the mask is the ``CONTRAST_SHARE`` of pixels
    where ``|a - b|`` (summed over x and y, smoothed) is largest; computed once per pair and
    kept in :attr:`ArtBank.pair_masks`."""
    got = bank.pair_masks.get((i, j))
    if got is None and (j, i) in bank.pair_masks:           # the same pair the other way round
        mask, cj, ci = bank.pair_masks[(j, i)]             # (|a - b| and |b - a| are equal bit for bit)
        got = bank.pair_masks[(i, j)] = (mask, ci, cj)
    if got is None:
        ta, tb = bank.templates[i].fine, bank.templates[j].fine
        apart = np.abs(ta - tb)
        diff = cv2.GaussianBlur(apart[..., 0] + apart[..., 1], (0, 0), 1.5)   # (the sum over x and y spelt out)
        mask = diff >= np.quantile(diff, 1.0 - CONTRAST_SHARE)
        got = bank.pair_masks[(i, j)] = (mask, _centred(ta[mask]), _centred(tb[mask]))
    return got


def contrast(bank: "ArtBank", board: np.ndarray, origin_mm, matches: Sequence[Match]) -> dict[str, float]:
    """Tell close labels apart where their pictures differ.

    For every pair of ``matches`` (fine matches of different labels, e.g. ``wind_n_1`` and
    ``wind_s_1``, whose pictures share most of their drawing), the ``CONTRAST_SHARE`` of
    template pixels where the two gradient templates differ most (``|a - b|`` summed over x and
    y, smoothed) is compared again with the board at each match's place; each label gains the
    mean, over its pairs, of its correlation there less the other's, times
    ``CONTRAST_WEIGHT``. Pairs whose templates differ in size are skipped.

    Returns
    -------
    dict label -> float
        The amount to add to each label's score (0 for a label without a comparable pair).
    """
    gains = {m.label: [] for m in matches}
    for i, a in enumerate(matches):
        ta = bank.templates[a.template].fine
        pa = _patch(board, origin_mm, a.centre_mm, ta.shape)
        for b in matches[i + 1:]:
            tb = bank.templates[b.template].fine
            pb = _patch(board, origin_mm, b.centre_mm, tb.shape)
            if ta.shape != tb.shape or pa is None or pb is None:
                continue
            mask, ma, mb = _pair_mask(bank, a.template, b.template)
            d = _ncc(pa[mask], ma) - _ncc(pb[mask], mb)
            gains[a.label].append(d)
            gains[b.label].append(-d)
    return {lab: CONTRAST_WEIGHT * float(np.mean(v)) if v else 0.0 for lab, v in gains.items()}
