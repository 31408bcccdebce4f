"""The motion gate: from rectified frames to stable changes of the board.

The gate waits while anything moves over the board (hands, arms, a bump), then, once the board
has looked the same for a few frames (:attr:`GateParams.still_frames`, 0.15 s at 20 fps) with
nothing over it, compares it with the last picture it reported from and reports the cells that
changed. The comparison (:mod:`.change`) is light-invariant: block colours against a local light
model, the local detail of the picture against the reference's, and chromaticity; exposure and
white-balance steps, codec brightness steps and people's soft shadows change no cell
(field report F3). Before comparing, the frame is aligned to the reference
(:mod:`.align`), so a camera or mat that shakes by a few pixels is not a change. A blob of
change counts only with *evidence* a shadow cannot give: a new hue, new detail (an outline,
print hidden), or a step beyond what a shadow darkens (:attr:`GateParams.shadow_residual`).
The last :data:`WINDOW_FRAMES` frames of the still run are compared together (:func:`_combine`).

- **Motion** is a change between consecutive frames: first compared under one gain per channel
  (cheap: the idle path), then, when that finds something, under the local light, and at last
  after aligning the two frames, so that neither a shadow nor a shake is motion.
- **Arms**: a blob of difference from the reference that reaches the edge of the board's part in
  view and is larger than a piece (:func:`~.change.arms`), or anything new lying across the band
  around a mat's play area (F9), is a hand or an arm over the board, even resting still: the gate
  waits ("occluded").
- **Never lose a change**: the reference is replaced only when the gate reports from a new
  still picture; after any disturbance (motion, arms, hidden markers) the still board is
  compared with the last reported picture, so moves made during a long disturbance come out
  together in one change, never dropped.
- **Cells partly out of view** are read from their part in view; a cell whose visible part is
  too small to be sure of is unsure when anything changed there.
- **Tall pieces**: a cell whose change lies within the lean of a changed neighbour nearer the
  camera's nadir, in the same blob, is that piece leaning over it: unsure, not changed
  (:class:`~.lean.LeanModel`); a piece's shadow is light, and changes no cell.

While the board is still, a reader that looks closer than the gate can average the frames of
the still window (:class:`StillMean`): the table does not change from frame to frame, the
camera's noise does.
"""

from __future__ import annotations

import collections
from dataclasses import dataclass, field

import cv2
import numpy as np

from .align import Aligner, Alignment, warp_back
from .change import (BlockGrid, arm_blocks, View, arms, block_means, blobs, largest_blob, log_blocks, quick_change,
                     residuals, structure, structure_change, visible_blocks, with_evidence)
from .mats import MatLayout

MIN_CHANGE_BLOCKS = 6      #: changed blocks (5 mm) that make a cell changed: 150 mm², a sand marker is 300
#: changed blocks that make a cell unsure in games with standing pieces (``GateParams.faint_blocks``):
#: a white pawn stepping onto a pale sky changes little more than this from above; 2 blocks is
#: half of the smallest blob the opening keeps
FAINT_CHANGE_BLOCKS = 2
VISIBLE_SHARE = 0.2        #: a block counts as in view when this share of its pixels is
#: a cell with less than this share of its blocks in view is unsure when anything changed in it;
#: with more, it is read from its part in view
MIN_CELL_SHARE = 0.15
#: a cell with less than this share in view is changed only with a full change in view, and
#: unsure with a change of at least this share of :data:`MIN_CHANGE_BLOCKS`
PARTIAL_CELL_SHARE = 0.5
WINDOW_FRAMES = 3          #: the last frames of a still run compared together (see :func:`_combine`)


@dataclass(frozen=True)
class GateParams:
    """Thresholds of the gate (defaults suit 640x480..1920x1080 cameras and image folders at 1-60 fps).

    Attributes
    ----------
    still_frames : int
        Frames the board must look the same (the first after motion counts) before it is compared.
    still_seconds : float
        ... and for at least this long, from the first of them to the last (s, by the frames'
        time stamps): at 60 fps the window is 7 frames, not 3.
    motion_blocks : int
        A blob (8-connected) of this many blocks changed between consecutive frames is motion.
    change_threshold : float
        Residual change of a colour channel (natural log of the ratio, after the local light
        is taken out) that makes a block changed; 0.2 is about a fifth brighter or darker.
    chroma_threshold : float
        The same for the log chromaticities ``log(B/G)``, ``log(R/G)`` (a change of hue a grey
        light change cannot make).
    same_detail : float
        A block whose detail (a print, grid lines, grain) is still there, correlating with the
        reference's better than ``1 - same_detail``, shows the same surface: a brightness change
        there, up to ``shadow_residual``, is light (a shadow's edge), not a piece.
    shadow_residual : float
        The largest residual (log ratio) a shadow's edge is taken to explain (0.4: 1.5 times
        darker or brighter than its neighbourhood's light).
    new_detail : float
        Detail changed by more than this (``1 - correlation``) counts towards an arm.
    recheck_seconds : float
        While still, the board is compared again this often (slow changes, light drift).
    faint_blocks : int
        A cell with at least this many changed blocks, but fewer than ``MIN_CHANGE_BLOCKS``,
        is reported as unsure (0: never). For games with standing pieces, whose colour may be
        close to the tile's (``FAINT_CHANGE_BLOCKS``); flat tiles and discs change enough.
    light_window_cells : float or None
        Neighbourhood of the local light in cells (``None``: :data:`~.change.LIGHT_WINDOW_MM`,
        150 mat units: about two cells of a real mat, five of a bare grid located in a picture).
    """

    still_frames: int = 3
    still_seconds: float = 0.1
    motion_blocks: int = MIN_CHANGE_BLOCKS
    change_threshold: float = 0.2
    chroma_threshold: float = 0.1
    same_detail: float = 0.5
    shadow_residual: float = 0.4
    new_detail: float = 0.6
    recheck_seconds: float = 2.0
    faint_blocks: int = 0
    light_window_cells: float | None = None


@dataclass(frozen=True)
class StableChange:
    """Cells that differ from the last reported still picture, found once the board was still again.

    Attributes
    ----------
    frame : int
    t : float
        Seconds.
    changed : list of tuple
        Cell keys (the layout's), sorted; ``("card",)`` is the card place.
    light_change : bool
        The light changed unevenly too (a lamp, a hotspot; compensated).
    unsure : list of tuple
        Cells that look different but may not have changed: glare, a faint change (too small to
        be sure of, e.g. a pale pawn on a pale tile), a cell mostly out of view or behind a
        taller piece's lean, or anything under a new light or after a bump the new picture could
        not be aligned across (standing pieces look different then); not listed in ``changed``.
    bumped : bool
        The board moved against the camera since the last still picture (the registration
        found it elsewhere).
    scores : dict
        Cell key -> changed area of every cell, in units of ``MIN_CHANGE_BLOCKS`` blocks (1.0 and
        more is a change).
    since : int
        The frame of the still picture the cells were compared with (the last one reported).
    """

    frame: int
    t: float
    changed: list[tuple]
    light_change: bool = False
    unsure: list[tuple] = field(default_factory=list)
    bumped: bool = False
    scores: dict = field(default_factory=dict, compare=False)
    since: int = -1

    def to_json(self) -> dict:
        """``{"frame": N, "t": seconds, "changed": [[...], ...]}`` plus ``"unsure"`` when some cells
        are (the ``watch --json`` line)."""
        out = {"frame": self.frame, "t": round(self.t, 3), "changed": [list(k) for k in self.changed]}
        if self.unsure:
            out["unsure"] = [list(k) for k in self.unsure]
        return out


@dataclass(frozen=True)
class GateOutput:
    """The gate's verdict on one frame.

    ``state`` is ``"moving"``, ``"settling"``, ``"still"``, ``"occluded"`` (still, but an arm
    rests over the board or lies across the margin band, or the markers are hidden) or
    ``"starting"``. ``motion`` is the share of the board's blocks that changed since the previous
    frame; ``moved`` says whether that was motion (:attr:`GateParams.motion_blocks`).
    """

    state: str
    motion: float
    event: StableChange | None = None
    light_change: bool = False
    moved: bool = False


@dataclass(frozen=True)
class _Verdict:
    """One still frame against the reference: per cell key ``(state, score)`` with ``state``
    one of ``"changed"``, ``"unsure"``, ``"same"``, ``"unseen"`` (too little of it in view to
    say anything); whether the light changed unevenly; whether an arm is over the board; the
    alignment used."""

    cells: dict
    light: bool
    occupied: bool
    alignment: Alignment | None = None


def _combine(verdicts: list[_Verdict]) -> tuple[dict, list[tuple], list[tuple], bool]:
    """The frames of a still window together: a cell is changed when most frames that saw it
    say so, unsure when at least half of them say changed or unsure (a shake may hide a cell at
    the edge of the view from one frame and show it in the next; the first frame after motion may
    still be settling). Returns ``(scores, changed, unsure, light)``
    with ``scores`` the largest per cell; under an uneven new light every change is unsure."""
    scores, changed, unsure = {}, [], []
    for key in verdicts[-1].cells:
        states = [v.cells[key][0] for v in verdicts if v.cells.get(key, ("unseen",))[0] != "unseen"]
        scores[key] = max(v.cells[key][1] for v in verdicts if key in v.cells)
        moved = states.count("changed")
        if 2 * moved > len(states):
            changed.append(key)
        elif 2 * (moved + states.count("unsure")) >= len(states) > 0:
            unsure.append(key)
    light = any(v.light for v in verdicts)
    if light:
        # under a new, uneven light, shadows of standing pieces and reflections move too: a move
        # made in the same moment cannot be told from them, so the tracker gets it as unsure
        changed, unsure = [], unsure + changed
    return scores, sorted(changed, key=_key_order), sorted(unsure, key=_key_order), light


def _key_order(key: tuple) -> tuple:
    """Cells first in their own order, then named places such as ``("card",)``."""
    return (isinstance(key[0], str), tuple(str(k) for k in key) if isinstance(key[0], str) else key)


@dataclass
class _Picture:
    """What the gate keeps of one rectified board: the image, its view mask, its block means and
    (computed when first needed) its detail."""

    image: np.ndarray
    inside: np.ndarray
    blocks: np.ndarray
    frame: int = -1
    detail: np.ndarray | None = None
    full: bool = False                  #: every pixel is in view (``inside`` is all 255)
    logs: np.ndarray | None = None      #: :func:`~.change.log_blocks` of ``blocks``
    own: np.ndarray | None = None       #: a reference's pixels from its own frame (the rest filled in)


class MotionGate:
    """Turns a stream of small rectified boards into :class:`StableChange` events.

    Parameters
    ----------
    layout : MatLayout
    px_per_mm : float
        Resolution of the images given to :meth:`update`.
    region_mm : (x0, y0, x1, y1)
        The part of the mat those images show (must contain the play area and the band).
    fps : float
        Nominal frame rate of the source (the still window and the rechecks go by the frames'
        time stamps).
    margin_mm : float
        Width of the band around the play area watched for arms.
    params : GateParams, optional
    lean : LeanModel, optional
        Where standing pieces lean (:class:`~.lean.LeanModel`; the :class:`~.pipeline.BoardWatcher`
        sets it from the registration): a cell changed only by a nearer piece's lean is unsure.
    """

    def __init__(self, layout: MatLayout, px_per_mm: float, region_mm: tuple[float, float, float, float],
                 fps: float, margin_mm: float = 30.0, params: GateParams | None = None, lean=None):
        self.params = p = params or GateParams()
        self.fps = fps
        window = None if p.light_window_cells is None else p.light_window_cells * layout.cell_pitch_mm
        self.blocks = BlockGrid(layout, region_mm, margin_mm, window)
        self.px_per_mm = px_per_mm
        self.lean = lean
        self._prev: _Picture | None = None
        self._ref: _Picture | None = None
        self._aligner: Aligner | None = None
        self._hint: np.ndarray | None = None      #: the last warp found against the reference
        self._run, self._run_start = 0, 0.0
        #: the last frames of the still run (they are compared together: see :func:`_combine`)
        self._window: collections.deque[_Picture] = collections.deque(maxlen=WINDOW_FRAMES)
        self._state = "starting"
        self._last_check = -1e9
        self._bumped = False
        self._views: dict = {}
        self._full: np.ndarray | None = None

    # -- helpers -------------------------------------------------------------------------------
    def note_bump(self) -> None:
        """The board moved against the camera: the next stable change says so, and reports its
        differences as unsure when the new picture cannot be aligned on the reference."""
        self._bumped = True

    def visible_blocks(self, inside: np.ndarray) -> np.ndarray:
        """Blocks in view, from a ``(h, w) uint8`` mask of the rectified pixels that come from
        inside the camera frame (255) or from outside it (0): ``(bh, bw) bool``."""
        return visible_blocks(inside, self.blocks.shape, VISIBLE_SHARE)

    def _view(self, ref: _Picture, cur: _Picture) -> View:
        """The blocks both pictures show (cached: the view changes only with the homography)."""
        if ref.full and cur.full:
            inside, key = ref.inside, ("full", ref.inside.shape)
        else:
            inside = cv2.bitwise_and(ref.inside, cur.inside)
            key = (inside.shape, cv2.countNonZero(inside), inside[::7, ::7].tobytes())
        view = self._views.get(key)
        if view is None:
            if len(self._views) > 8:
                self._views.clear()
            view = self._views[key] = View(self.blocks, self.visible_blocks(inside))
        return view

    def _picture(self, img: np.ndarray, inside: np.ndarray | None, frame: int) -> _Picture:
        if inside is None:
            if self._full is None or self._full.shape != img.shape[:2]:
                self._full = np.full(img.shape[:2], 255, np.uint8)
            blocks = block_means(img, self.blocks.shape)
            return _Picture(img, self._full, blocks, frame, full=True, logs=log_blocks(blocks))
        blocks = block_means(img, self.blocks.shape, inside)
        return _Picture(img, inside, blocks, frame, logs=log_blocks(blocks))

    def _detail(self, pic: _Picture) -> np.ndarray:
        if pic.detail is None:
            pic.detail = structure(pic.image, self.px_per_mm, pic.inside)
        return pic.detail

    def _difference(self, ref: _Picture, cur: _Picture, aligned: bool) -> dict:
        """Blocks that changed from ``ref`` to ``cur`` (already on ``ref``'s pixels when
        ``aligned``), with and without the detail test (see :class:`GateParams`)."""
        p, grid = self.params, self.blocks
        view = self._view(ref, cur)
        # a block explained by one of its neighbours in the other picture has not changed: what is
        # left of a shake (a pixel or two after alignment, a few before) moves edges by less
        residual, chroma, glare, light = residuals(ref.blocks, cur.blocks, grid.light_k, view, tolerance=1)
        # what light cannot do: change the hue, or the brightness by more than a shadow does
        evidence = (chroma > p.chroma_threshold) | (residual > p.shadow_residual)
        strong = (residual > p.change_threshold) | (chroma > p.chroma_threshold)
        anything = strong
        if aligned:
            ref_detail = self._detail(ref)
            if cur.inside is not ref.inside and cv2.countNonZero(cv2.subtract(ref.inside, cur.inside)):
                # the aligned picture sees less than the reference (a shake moved part of the board
                # out of view): the reference's detail is taken over the same view, or its edge of
                # the view (the table beyond, a border) is a change of detail the other lacks
                ref_detail = structure(ref.image, self.px_per_mm, cur.inside)
            detail, textured = structure_change(ref_detail, self._detail(cur), grid.shape)
            detail = np.where(view.visible, detail, 0.0)
            lit = textured & (detail < p.same_detail) & (residual < p.shadow_residual)
            strong = (chroma > p.chroma_threshold) | ((residual > p.change_threshold) & ~lit)
            anything = strong | (residual > p.change_threshold) | (detail > p.new_detail)
            # ... or its detail: a piece's outline, print hidden under a hand
            evidence |= detail > p.new_detail
        evidence &= view.visible
        return {"view": view, "changed": with_evidence(blobs(strong) & view.visible, evidence),
                "anything": blobs(anything) & view.visible, "reach": anything & view.visible, "evidence": evidence,
                "raw": with_evidence(strong & view.visible, evidence), "glare": glare, "light": light,
                "residual": residual}

    def _aligned(self, ref: _Picture, cur: _Picture, aligner: Aligner | None,
                 hint: np.ndarray | None = None) -> tuple[_Picture, Alignment] | None:
        """``cur`` resampled onto ``ref``'s pixels (and the warp), or None when the alignment is
        not trusted. ``hint``: a warp to start from (the last one found against ``ref``; a shake
        often stays), identity failing that."""
        aligner = aligner or Aligner(ref.image, ref.own if ref.own is not None else ref.inside)
        found = aligner.align(cur.image, hint) if hint is not None else None
        if found is None or found.correlation < aligner.min_correlation:
            plain = aligner.align(cur.image)
            if plain is not None and (found is None or plain.correlation > found.correlation):
                found = plain
        if found is None:
            return None
        image = warp_back(cur.image, found)
        inside = cv2.bitwise_and(warp_back(cur.inside, found, cv2.INTER_NEAREST), ref.inside)
        return _Picture(image, inside, block_means(image, self.blocks.shape, inside), cur.frame), found

    # -- motion ----------------------------------------------------------------------------------
    def _motion(self, cur: _Picture) -> tuple[float, bool]:
        """Share of blocks that changed since the previous frame, and whether that is motion:
        one blob of at least :attr:`GateParams.motion_blocks` blocks (a hand, an arm, a piece
        falling). Blobs of sensor noise, a few blocks each here and there across a dim picture,
        add up to more than that without being anything that moves."""
        prev, p = self._prev, self.params
        if prev is None or prev.image.shape != cur.image.shape:
            return 1.0, True
        view = self._view(prev, cur)
        mask = quick_change(prev.logs, cur.logs, view.visible, p.change_threshold, p.chroma_threshold)
        if largest_blob(mask) >= p.motion_blocks:
            # a local light (a shadow) and a shake can look like this: look closer
            diff = self._difference(prev, cur, aligned=False)
            mask = with_evidence(diff["anything"], diff["evidence"])
        if largest_blob(mask) >= p.motion_blocks:
            # a shake, a shadow's edge or an exposure step can look like this: align and look again
            aligned = self._aligned(prev, cur, None)
            if aligned is not None:
                diff = self._difference(prev, aligned[0], aligned=True)
                # anything that changed in a way light cannot (hue, detail, a big step) is motion
                mask = with_evidence(diff["anything"], diff["evidence"])
        visible = max(1, int(np.count_nonzero(view.visible)))
        moved = largest_blob(mask) >= p.motion_blocks
        return int(np.count_nonzero(mask)) / visible, moved

    # -- comparison with the reference -----------------------------------------------------------
    def _judge(self, cur: _Picture) -> _Verdict:
        """One still frame against the reference: each cell's state (see :class:`_Verdict`)."""
        p, b, ref = self.params, self.blocks, self._ref
        diff = self._difference(ref, cur, aligned=False)
        alignment = None
        if np.count_nonzero(diff["anything"]):
            if self._aligner is None:
                self._aligner = Aligner(ref.image, ref.own if ref.own is not None else ref.inside)
            aligned = self._aligned(ref, cur, self._aligner, self._hint)
            if aligned is not None:
                alignment = aligned[1]
                self._hint = alignment.warp
                diff = self._difference(ref, aligned[0], aligned=True)
            elif not self._aligner.textured:
                # a plain board has nothing to align on, and nothing a shake would misplace
                diff = self._difference(ref, cur, aligned=True)
        view, plain, raw, glare, light = diff["view"], diff["changed"], diff["raw"], diff["glare"], diff["light"]
        arm = arms(diff["reach"], view, arm_blocks(b.cell_blocks), diff["evidence"], MIN_CHANGE_BLOCKS)
        # an arm across the band covers a good part of a segment; a lamp's edge only a few blocks
        band = not light and any(np.count_nonzero(diff["anything"][ys, xs]) >= max(10, 0.3 * len(ys))
                                 for ys, xs in b.segments)
        if arm.any() or band:
            return _Verdict({}, light, True, alignment)
        cells = {}
        for key, (rows, cols), share in zip(b.keys, b.cells, view.share):
            n_plain = np.count_nonzero(plain[rows, cols])
            # a blob cut by the edge of the view may be thinner than the opening keeps: count raw blocks
            n_raw = np.count_nonzero(raw[rows, cols]) if share < PARTIAL_CELL_SHARE else n_plain
            if share < MIN_CELL_SHARE:
                state = "unsure" if n_raw >= 2 else "unseen"
            elif n_plain >= MIN_CHANGE_BLOCKS:
                state = "changed"
            elif share < PARTIAL_CELL_SHARE and n_raw >= max(2.0, MIN_CHANGE_BLOCKS * share):
                state = "unsure"
            elif np.count_nonzero(glare[rows, cols]) >= MIN_CHANGE_BLOCKS or (
                    p.faint_blocks and n_plain >= p.faint_blocks):
                state = "unsure"
            else:
                state = "same"
            cells[key] = (state, float(n_plain / MIN_CHANGE_BLOCKS))
        if self.lean is not None:
            # a tall piece leaning over the cell behind it is not a change of that cell
            for key in self.lean.leaning([k for k, (s, _) in cells.items() if s == "changed"], plain):
                cells[key] = ("unsure", cells[key][1])
        return _Verdict(cells, light, False, alignment)

    def _take_reference(self, window: list[_Picture], verdicts: list[_Verdict], reported: list[tuple]) -> None:
        """Make the last frame of the still window the reference. Parts of the board it does not
        show (out of the frame after a shake) are taken from the other frames of the window,
        newest first, and failing that kept from the old reference, all moved onto its pixels:
        a change there was compared on another frame, or has not been seen yet, and must not be
        taken in unseen. In the ``reported`` cells (changed or unsure now) the old reference is
        outdated: what no frame of the window showed of them is left unknown."""
        cur, old = window[-1], self._ref
        if old is None or old.image.shape != cur.image.shape:
            self._ref, self._aligner, self._hint = cur, None, None
            return
        h, w = cur.image.shape[:2]
        to_cur = verdicts[-1].alignment.warp if verdicts[-1].alignment is not None else np.eye(3)
        # (picture, homography from its pixels to cur's): the window newest first, then the old reference
        sources = [(pic, to_cur @ np.linalg.inv(v.alignment.warp if v.alignment is not None else np.eye(3)))
                   for pic, v in zip(window[-2::-1], verdicts[-2::-1])] + [(old, to_cur)]
        image, inside = cur.image, cur.inside
        stale = np.zeros((h, w), np.uint8)
        bh, bw = self.blocks.shape
        for key, (rows, cols) in zip(self.blocks.keys, self.blocks.cells):
            if key in reported:
                stale[rows.start * h // bh:rows.stop * h // bh, cols.start * w // bw:cols.stop * w // bw] = 255
        for i, (pic, warp) in enumerate(sources):
            there = cv2.warpPerspective(pic.inside, warp, (w, h), flags=cv2.INTER_NEAREST)
            if i == len(sources) - 1:
                there = cv2.bitwise_and(there, cv2.bitwise_not(stale))
            fill = cv2.bitwise_and(there, cv2.bitwise_not(inside))
            if cv2.countNonZero(fill):
                moved = cv2.warpPerspective(pic.image, warp, (w, h), flags=cv2.INTER_LINEAR)
                image = np.where(fill[..., None] > 0, moved, image)
                inside = cv2.bitwise_or(inside, fill)
        if inside is not cur.inside:
            cur = _Picture(image, inside, block_means(image, self.blocks.shape, inside), cur.frame, own=cur.inside)
            cur.logs = log_blocks(cur.blocks)
        self._ref, self._aligner, self._hint = cur, None, None

    def _commit(self, cur: _Picture, frame: int, t: float, motion: float, moved: bool) -> GateOutput:
        verdicts = [self._judge(pic) for pic in self._window]
        light = any(v.light for v in verdicts)
        if any(v.occupied for v in verdicts):
            self._state = "occluded"
            return GateOutput("occluded", motion, None, light, moved)
        scores, changed, unsure, light = _combine(verdicts)
        since = self._ref.frame if self._ref is not None else -1
        self._take_reference(list(self._window), verdicts, changed + unsure)
        self._last_check = cur_t = t
        self._state = "still"
        bumped, self._bumped = self._bumped, False
        if bumped and verdicts[-1].alignment is None:
            # the board moved against the camera and the new picture could not be laid on the old
            # one: what differs may be the move itself (standing pieces seen from elsewhere)
            changed, unsure = [], sorted(changed + unsure, key=_key_order)
        event = StableChange(frame, cur_t, changed, light, unsure, bumped, scores, since) if changed or unsure else None
        return GateOutput("still", motion, event, light, moved)

    def update(self, img: np.ndarray, frame: int, t: float, hold: bool = False,
               inside: np.ndarray | None = None) -> GateOutput:
        """Feed one small rectified board.

        Parameters
        ----------
        img : (h, w, 3) uint8 BGR
            The rectified ``region_mm`` at ``px_per_mm`` (see :func:`.rectify.rectify`).
        frame : int
            Frame number (reported in events).
        t : float
            Seconds (reported in events).
        hold : bool
            Do not commit now (the registration says the markers are hidden).
        inside : (h, w) uint8, optional
            Rectified pixels that come from inside the camera frame (255) or from outside it (0);
            cells out of view are read from their part in view (module docstring).

        Returns
        -------
        GateOutput
        """
        cur = self._picture(img, inside, frame)
        motion, moved = self._motion(cur)
        self._prev = cur
        if moved:
            self._window.clear()
        self._window.append(cur)
        if moved:
            self._run, self._run_start = 1, t
            if self._state != "starting":
                self._state = "moving"
            return GateOutput(self._state, motion, moved=True)
        self._run += 1
        if self._run < self.params.still_frames or t - self._run_start < self.params.still_seconds - 1e-9:
            return GateOutput("settling" if self._state != "starting" else "starting", motion)
        if hold:
            if self._state != "starting":
                self._state = "occluded"
            return GateOutput("occluded", motion)
        if self._ref is None:                       # the first still picture is the baseline
            self._ref, self._aligner, self._hint = cur, None, None
            self._state, self._last_check = "still", t
            return GateOutput("still", motion)
        if self._state in ("moving", "settling", "occluded") or t - self._last_check >= self.params.recheck_seconds:
            self._state = "settling"
            return self._commit(cur, frame, t, motion, False)
        return GateOutput("still", motion)


class StillMean:
    """The mean of the frames added since the last :meth:`restart`, less the first ``skip`` of
    them (a hand's shadow or the camera's exposure may still be settling just after motion).

    Kept as a running ``float32`` sum of one frame's size (``cv2.accumulate``), so the memory
    does not grow with the length of the still window.
    """

    def __init__(self, skip: int = 1):
        self.skip = skip
        self._sum: np.ndarray | None = None
        self.count = 0
        self._seen = 0

    def restart(self) -> None:
        """Forget the frames added so far."""
        self._sum, self.count, self._seen = None, 0, 0

    def add(self, frame: np.ndarray) -> None:
        """Add one frame ``(H, W, 3) uint8``; a frame of another size starts the sum again."""
        if self._sum is not None and self._sum.shape != frame.shape:
            self.restart()
        self._seen += 1
        if self._seen <= self.skip:
            return
        if self._sum is None:
            self._sum, self.count = frame.astype(np.float32), 1
        else:
            cv2.accumulate(frame, self._sum)
            self.count += 1

    def mean(self) -> np.ndarray:
        """The mean frame ``(H, W, 3) uint8``.

        Raises
        ------
        ValueError
            When no frame was added since the last restart.
        """
        if self._sum is None:
            raise ValueError("no still frame to average")
        return np.clip(self._sum / self.count + 0.5, 0, 255).astype(np.uint8)
