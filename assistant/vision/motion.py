"""The motion gate: from rectified frames to stable changes of the board.

The gate waits while anything moves over the board (hands, arms, a bump), then, once the
board has been still for a short window, compares it with the last committed still picture
and reports the cells that changed.

The comparison works on a grid of small blocks (5 mm). For each colour channel it fits the
*local light* as a gain and an offset over a neighbourhood about two cells wide (a local
linear model) and keeps what the light does not explain. A lamp switched on, a
warmer white balance, a cloud or a hotspot change whole neighbourhoods smoothly and leave no
residual (field report F3); a piece laid, lifted or turned over changes its own blocks only.
Changed blocks must form blobs (an opening drops isolated noisy blocks), and a cell changed
when at least 150 mm² of it did, so a sand marker (about 300 mm²) is seen while noise is not. Blocks that went to full white where they were not are
glare, not a change (F8): a cell changed only by glare is reported as unsure, not as changed.
In games with standing pieces a cell with a smaller blob of change (a third of that area) is
unsure too: a white pawn on a pale tile changes little from above, and the detectors, which
look closer, decide.

Two more guards keep false changes out: the band around the play area (the mat's margin, or a
ring around a clicked grid) must hold nothing new, so an arm lying across it keeps the gate
waiting (F9); and frame-to-frame motion is measured on brightness-normalised, slightly blurred
images, so exposure steps and sensor noise do not count as motion.

While the board is still, a reader that looks closer than the gate can average the frames of
the still window (:class:`StillMean`): the table does not change from frame to frame, the
camera's noise does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from .mats import MatLayout

BLOCK_MM = 5.0
LIGHT_WINDOW_MM = 150.0     #: neighbourhood of the local light estimate (about two cells)
MIN_CHANGE_BLOCKS = 6      #: changed blocks (5 mm) that make a cell changed: 150 mm², a sand marker is 300
#: changed blocks that make a cell unsure in games with standing pieces (``GateParams.faint_blocks``):
#: a white pawn stepping onto a pale sky changes little more than this from above; 2 blocks is
#: half of the smallest blob the opening keeps
FAINT_CHANGE_BLOCKS = 2
CLIPPED = 254              #: a pixel with a channel this bright is clipped (glare, overexposure)


@dataclass(frozen=True)
class GateParams:
    """Thresholds of the gate (defaults suit a 640x480..1920x1080 webcam at 15-60 fps).

    Attributes
    ----------
    still_seconds : float
        How long the board must be still before it is compared (s).
    motion_fraction : float
        Share of changed pixels between consecutive frames that counts as motion.
    pixel_delta : float
        Brightness step (0..255, after normalisation) that makes a pixel "changed".
    change_threshold : float
        Residual change of a colour channel (natural log of the ratio, after the local light
        is taken out) that makes a block changed; 0.2 is about a fifth brighter or darker.
    recheck_seconds : float
        While still, the board is compared again this often (slow changes, light drift).
    faint_blocks : int
        A cell with at least this many changed blocks, but fewer than ``MIN_CHANGE_BLOCKS``,
        is reported as unsure (0: never). For games with standing pieces, whose colour may be
        close to the tile's (``FAINT_CHANGE_BLOCKS``); flat tiles and discs change enough.
    """

    still_seconds: float = 0.35
    motion_fraction: float = 0.004
    pixel_delta: float = 18.0
    change_threshold: float = 0.2
    recheck_seconds: float = 2.0
    faint_blocks: int = 0


@dataclass(frozen=True)
class StableChange:
    """Cells that differ from the last still picture, found once the board was still again.

    Attributes
    ----------
    frame : int
    t : float
        Seconds.
    changed : list of tuple
        Cell keys (the layout's), sorted; ``("card",)`` is the card place.
    light_change : bool
        The lighting changed too (compensated; it changed no cell by itself).
    unsure : list of tuple
        Cells that look different but may not have changed: glare, a faint change (too small to
        be sure of, e.g. a pale pawn on a pale tile), a new light, a part of the board out of
        view, or anything after a bump (standing pieces look different from a new
        angle); not listed in ``changed``.
    bumped : bool
        The board moved against the camera since the last still picture.
    scores : dict
        Cell key -> changed area of every cell, in units of ``MIN_CHANGE_BLOCKS`` blocks (1.0 and
        more is a change).
    """

    frame: int
    t: float
    changed: list[tuple]
    light_change: bool = False
    unsure: list[tuple] = field(default_factory=list)
    bumped: bool = False
    scores: dict = field(default_factory=dict, compare=False)

    def to_json(self) -> dict:
        """``{"frame": N, "t": seconds, "changed": [[...], ...]}`` (the ``watch --json`` line)."""
        return {"frame": self.frame, "t": round(self.t, 3), "changed": [list(k) for k in self.changed]}


@dataclass(frozen=True)
class GateOutput:
    """The gate's verdict on one frame.

    ``state`` is ``"moving"``, ``"settling"``, ``"still"``, ``"occluded"`` (still, but
    something lies across the margin band, or the markers are hidden) or ``"starting"``.
    """

    state: str
    motion: float
    event: StableChange | None = None
    light_change: bool = False


def _key_order(key: tuple) -> tuple:
    """Cells first in their own order, then named places such as ``("card",)``."""
    return (isinstance(key[0], str), tuple(str(k) for k in key) if isinstance(key[0], str) else key)


class _Blocks:
    """Block-grid regions of the small rectified board: one per cell, and margin-band segments."""

    def __init__(self, layout: MatLayout, px_per_mm: float, region_mm, margin_mm: float):
        ox, oy = region_mm[0], region_mm[1]
        self.shape = (max(1, int(round((region_mm[3] - oy) / BLOCK_MM))), max(1, int(round((region_mm[2] - ox) / BLOCK_MM))))
        h, w = self.shape

        def box(x0, y0, x1, y1):
            c0, r0 = int(round((x0 - ox) / BLOCK_MM)), int(round((y0 - oy) / BLOCK_MM))
            c1, r1 = int(round((x1 - ox) / BLOCK_MM)), int(round((y1 - oy) / BLOCK_MM))
            return slice(max(r0, 0), min(max(r1, r0 + 1), h)), slice(max(c0, 0), min(max(c1, c0 + 1), w))

        self.keys, self.cells = [], []
        for cell in layout.cells:
            poly = np.asarray(cell.polygon_mm)
            half = 0.5 * float(min(np.ptp(poly[:, 0]), np.ptp(poly[:, 1]))) * (0.7 if layout.kind == "hex" else 0.84)
            cx, cy = cell.center_mm
            self.keys.append(cell.key)
            self.cells.append(box(cx - half, cy - half, cx + half, cy + half))
        if layout.card_place_mm:
            x0, y0, x1, y1 = layout.card_place_mm
            self.keys.append(("card",))
            self.cells.append(box(x0 + 2, y0 + 2, x1 - 2, y1 - 2))
        band = np.zeros(self.shape, np.uint8)

        def rect(x0, y0, x1, y1, value):
            rows, cols = box(x0, y0, x1, y1)
            band[rows, cols] = value

        x0, y0, x1, y1 = layout.play_area_mm
        rect(x0 - margin_mm, y0 - margin_mm, x1 + margin_mm, y1 + margin_mm, 1)
        rect(x0 - 4, y0 - 4, x1 + 4, y1 + 4, 0)
        for m in layout.markers:                       # markers are printed, not empty: leave them out
            (mx0, my0), _, (mx1, my1), _ = m.corners_mm
            rect(mx0 - 4, my0 - 4, mx1 + 4, my1 + 4, 0)
        if layout.card_place_mm:
            cx0, cy0, cx1, cy1 = layout.card_place_mm
            rect(cx0 - 10, cy0 - 10, cx1 + 10, cy1 + 14, 0)
        ys, xs = np.nonzero(band)
        self.segments = []
        if len(xs):
            angle = np.arctan2(ys - (h - 1) / 2, xs - (w - 1) / 2)
            bins = np.floor((angle + np.pi) / (2 * np.pi) * 16).astype(int) % 16
            self.segments = [(ys[bins == b], xs[bins == b]) for b in range(16) if (bins == b).sum() >= 6]
        self.light_k = max(3, int(LIGHT_WINDOW_MM / BLOCK_MM) | 1)


def _block_means(img: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """Per block (``BLOCK_MM``): mean B, G, R after a light blur (so a slight defocus changes
    nothing) and, per channel, the share of clipped pixels: ``(h, w, 6) float32`` (0..255,
    then 0..1)."""
    sigma = max(0.5, 0.5 * img.shape[1] / (shape[1] * BLOCK_MM / 2))
    soft = cv2.GaussianBlur(img, (0, 0), sigma)
    means = cv2.resize(soft, (shape[1], shape[0]), interpolation=cv2.INTER_AREA).astype(np.float32)
    clipped = (img >= CLIPPED).astype(np.float32)
    share = cv2.resize(clipped, (shape[1], shape[0]), interpolation=cv2.INTER_AREA)
    return np.dstack([means, share])


def _local_median(x: np.ndarray, k: int, scale: float) -> np.ndarray:
    """Median of ``x`` over a ``k x k`` block neighbourhood (via 8-bit ``cv2.medianBlur``)."""
    q = np.clip(np.round(x * scale + 128.0), 0, 255).astype(np.uint8)
    k = min(k, 2 * ((min(x.shape[:2]) - 1) // 2) + 1)
    return (cv2.medianBlur(q, max(3, k)).astype(np.float32) - 128.0) / scale


def residuals(ref: np.ndarray, cur: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, bool]:
    """Per-block change that the local light does not explain.

    The light is modelled as a gain per colour channel that varies smoothly over the table
    (von Kries): brightness, white balance and lamp hotspots all multiply a block's B, G and R.
    The local gain is the median of the per-channel log ratio over a ``k x k`` neighbourhood;
    what remains is the piece.

    Parameters
    ----------
    ref, cur : (h, w, 6) float32
        Block means and clipped shares (see :func:`_block_means`).
    k : int
        Light neighbourhood in blocks (odd).

    Returns
    -------
    (residual, glare, light_changed)
        ``(h, w)`` largest |log ratio - local log gain| (natural log units) over the channels
        clipped in neither picture, a boolean ``(h, w)`` mask of blocks clipped in every
        channel whose clipping changed (glare: nothing can be said there), and
        whether the local light changed noticeably (more than 8 % in some channel over most
        of the board).
    """
    ratio = np.log((cur[..., :3] + 8.0) / (ref[..., :3] + 8.0))
    light = np.stack([_local_median(ratio[..., c], k, 100.0) for c in range(3)], axis=-1)
    # a clipped channel (glare, overexposure) says nothing; the other channels still do
    usable = np.maximum(cur[..., 3:], ref[..., 3:]) < 0.1
    residual = np.where(usable, np.abs(ratio - light), 0.0).max(axis=-1)
    glare = ~usable.any(axis=-1) & (np.abs(cur[..., 3:] - ref[..., 3:]).max(axis=-1) > 0.25)
    return residual, glare, bool(np.percentile(np.abs(light).max(axis=-1), 75) > 0.08)


_OPEN = cv2.getStructuringElement(cv2.MORPH_RECT, (2, 2))


def changed_blocks(residual: np.ndarray, threshold: float) -> np.ndarray:
    """Blocks whose residual exceeds ``threshold`` and that belong to a blob at least 2x2
    blocks wide (a morphological opening drops isolated blocks: sensor and compression noise).

    Returns
    -------
    (h, w) bool
    """
    strong = (residual > threshold).astype(np.uint8)
    return cv2.morphologyEx(strong, cv2.MORPH_OPEN, _OPEN).astype(bool)


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
        Frame rate, for the still window.
    margin_mm : float
        Width of the band around the play area watched for arms.
    params : GateParams, optional
    """

    def __init__(self, layout: MatLayout, px_per_mm: float, region_mm: tuple[float, float, float, float],
                 fps: float, margin_mm: float = 30.0, params: GateParams | None = None):
        self.params = params or GateParams()
        self.fps = fps
        self.blocks = _Blocks(layout, px_per_mm, region_mm, margin_mm)
        self.still_frames = max(2, int(round(self.params.still_seconds * fps)))
        self._prev: np.ndarray | None = None
        self._still = 0
        self._state = "starting"
        self._ref: np.ndarray | None = None
        self._last_check = -1e9
        self._bumped = False

    def note_bump(self) -> None:
        """The board moved against the camera: the next comparison reports differences as unsure."""
        self._bumped = True

    def visible_blocks(self, inside: np.ndarray) -> np.ndarray:
        """Blocks fully inside the camera frame, from a ``(h, w) uint8`` mask of the rectified
        pixels that come from inside the frame (255) or from outside it (0)."""
        share = cv2.resize(inside.astype(np.float32) / 255.0, (self.blocks.shape[1], self.blocks.shape[0]),
                           interpolation=cv2.INTER_AREA)
        return share > 0.99

    def _normalised(self, img: np.ndarray) -> np.ndarray:
        gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY) if img.ndim == 3 else img
        gray = cv2.GaussianBlur(gray, (5, 5), 0).astype(np.float32)
        return gray * (128.0 / max(float(gray.mean()), 1.0))

    def compare(self, img: np.ndarray, visible: np.ndarray | None = None) -> tuple[dict, list[tuple], list[tuple], bool, bool]:
        """Compare a still board with the reference.

        Parameters
        ----------
        img : (h, w, 3) uint8
        visible : (bh, bw) bool, optional
            Blocks inside the camera frame (default: all).

        Returns
        -------
        (scores, changed, unsure, light_change, margin_occupied)
            ``scores`` maps every cell key to its changed area (1.0 = ``MIN_CHANGE_BLOCKS``
            blocks); a cell partly out of view, changed only by glare, or changed faintly
            (``params.faint_blocks`` blocks or more, fewer than ``MIN_CHANGE_BLOCKS``) is unsure.
        """
        p, b = self.params, self.blocks
        cur = _block_means(img, b.shape)
        visible = np.ones(b.shape, bool) if visible is None else visible
        residual, glare, light = residuals(np.where(visible[..., None], self._ref, cur), cur, b.light_k)
        residual = np.where(visible, residual, 0.0)
        plain = changed_blocks(residual, p.change_threshold)
        glare &= visible
        scores, changed, unsure = {}, [], []
        for key, (rows, cols) in zip(b.keys, b.cells):
            s_plain = np.count_nonzero(plain[rows, cols]) / MIN_CHANGE_BLOCKS
            s_glare = np.count_nonzero(glare[rows, cols]) / MIN_CHANGE_BLOCKS
            scores[key] = float(s_plain)
            if visible[rows, cols].mean() < 0.9:
                unsure.append(key)
            elif s_plain >= 1.0:
                changed.append(key)
            elif s_glare >= 1.0 or (p.faint_blocks and s_plain * MIN_CHANGE_BLOCKS >= p.faint_blocks):
                unsure.append(key)
        # an arm across the band covers a good part of a segment; a lamp's edge only a few blocks
        # (a new light reshapes shadows and hotspots on the band too: then the band is not judged)
        occupied = not light and any(np.count_nonzero(plain[ys, xs]) >= max(10, 0.3 * len(ys)) for ys, xs in b.segments)
        if light:
            # under a new light, shadows of standing pieces and reflections move too: a move
            # made in the same moment cannot be told from them, so the tracker gets it as unsure
            changed, unsure = [], unsure + changed
        return scores, sorted(changed, key=_key_order), sorted(unsure, key=_key_order), light, occupied

    def _commit(self, img: np.ndarray, frame: int, t: float, motion: float, visible: np.ndarray | None) -> GateOutput:
        scores, changed, unsure, light, occupied = self.compare(img, visible)
        if occupied:
            return GateOutput("occluded", motion)
        cur = _block_means(img, self.blocks.shape)
        self._ref = cur if visible is None else np.where(visible[..., None], cur, self._ref)
        self._last_check = t
        self._state = "still"
        bumped, self._bumped = self._bumped, False
        if bumped:
            changed, unsure = [], sorted(changed + unsure, key=_key_order)
        event = StableChange(frame, t, changed, light, unsure, bumped, scores) if changed or unsure else None
        return GateOutput("still", motion, event, light)

    def update(self, img: np.ndarray, frame: int, t: float, hold: bool = False,
               visible: np.ndarray | None = None) -> GateOutput:
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
        visible : (bh, bw) bool, optional
            Blocks of the board inside the camera frame (see :meth:`visible_blocks`); cells
            out of view are unsure and keep their reference.

        Returns
        -------
        GateOutput
        """
        norm = self._normalised(img)
        if self._prev is None:
            motion = 1.0
        else:
            moving_px = np.count_nonzero(cv2.absdiff(norm, self._prev) > self.params.pixel_delta)
            motion = moving_px / norm.size
        self._prev = norm
        if motion > self.params.motion_fraction:
            self._still = 0
            if self._state != "starting":
                self._state = "moving"
            return GateOutput(self._state, motion)
        self._still += 1
        if self._still < self.still_frames:
            return GateOutput("settling" if self._state != "starting" else "starting", motion)
        if hold:
            return GateOutput("occluded", motion)
        if self._ref is None:                       # the first still picture is the baseline
            self._ref = _block_means(img, self.blocks.shape)
            self._state, self._last_check = "still", t
            return GateOutput("still", motion)
        if self._state in ("moving", "settling") or t - self._last_check >= self.params.recheck_seconds:
            self._state = "settling"
            return self._commit(img, frame, t, motion, visible)
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
