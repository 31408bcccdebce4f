"""The motion gate: from rectified frames to stable changes of the board.

The gate waits while anything moves over the board (hands, arms, a bump), then, once the
board has been still for a short window, compares every cell with the last committed still
picture and reports the cells that changed. Three guards keep false changes out:

- **light**: per-cell brightness ratios are fitted with a smooth gain field (a plane in log
  brightness, refitted without outliers), so a lamp switched on, a cloud or a warmer white
  balance changes no cell (field report F3); such a frame is reported as a light change;
- **arms at rest**: the band around the play area must hold nothing new (the mat's margin, or
  a ring around a manually clicked grid): an arm lying across it keeps the gate waiting (F9);
- **flicker**: frame-to-frame motion is measured on brightness-normalised, slightly blurred
  images, so exposure steps and sensor noise do not count as motion.

Everything works on a small rectified board (``px_per_mm`` about 1), so the gate costs a few
milliseconds per frame.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from .mats import MatLayout


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
    cell_threshold : float
        Cell change score (mean absolute difference, 0..1) above which a cell changed.
    margin_threshold : float
        Same for a segment of the band around the play area (an arm across it).
    recheck_seconds : float
        While still, the board is compared again this often (slow changes, light drift).
    """

    still_seconds: float = 0.35
    motion_fraction: float = 0.004
    pixel_delta: float = 18.0
    cell_threshold: float = 0.07
    margin_threshold: float = 0.08
    recheck_seconds: float = 2.0


@dataclass(frozen=True)
class StableChange:
    """Cells that differ from the last still picture, found once the board was still again.

    Attributes
    ----------
    frame : int
    t : float
        Seconds.
    changed : list of tuple
        Cell keys (the layout's), sorted.
    light_change : bool
        The lighting changed too (compensated; it changed no cell by itself).
    scores : dict
        Cell key -> change score (0..1) for every cell, for overlays and the tracker.
    """

    frame: int
    t: float
    changed: list[tuple]
    light_change: bool = False
    scores: dict = field(default_factory=dict, compare=False)

    def to_json(self) -> dict:
        """``{"frame": N, "t": seconds, "changed": [[...], ...]}`` (the ``watch --json`` line)."""
        return {"frame": self.frame, "t": round(self.t, 3), "changed": [list(k) for k in self.changed]}


@dataclass(frozen=True)
class GateOutput:
    """The gate's verdict on one frame.

    ``state`` is ``"moving"``, ``"settling"``, ``"still"``, ``"occluded"`` (still, but
    something lies across the margin band) or ``"starting"`` (no still picture yet).
    """

    state: str
    motion: float
    event: StableChange | None = None
    light_change: bool = False


class _Regions:
    """Pixel regions of the small rectified board: one per cell, and margin-band segments."""

    def __init__(self, layout: MatLayout, px_per_mm: float, origin_mm: tuple[float, float],
                 size: tuple[int, int], margin_mm: float):
        self.keys = [c.key for c in layout.cells]
        ppm, (ox, oy) = px_per_mm, origin_mm
        w, h = size
        self.cells = []
        for cell in layout.cells:
            poly = np.asarray(cell.polygon_mm)
            half = 0.5 * float(min(np.ptp(poly[:, 0]), np.ptp(poly[:, 1]))) * (0.62 if layout.kind == "hex" else 0.76)
            cx, cy = cell.center_mm
            self.cells.append(self._box(cx - half, cy - half, cx + half, cy + half, ppm, ox, oy, w, h))
        if layout.card_place_mm:
            self.keys.append(("card",))
            x0, y0, x1, y1 = layout.card_place_mm
            self.cells.append(self._box(x0 + 3, y0 + 3, x1 - 3, y1 - 3, ppm, ox, oy, w, h))
        self.band = np.zeros((h, w), np.uint8)
        x0, y0, x1, y1 = layout.play_area_mm
        cv2.rectangle(self.band, self._pt(x0 - margin_mm, y0 - margin_mm, ppm, ox, oy),
                      self._pt(x1 + margin_mm, y1 + margin_mm, ppm, ox, oy), 255, -1)
        cv2.rectangle(self.band, self._pt(x0 - 2, y0 - 2, ppm, ox, oy), self._pt(x1 + 2, y1 + 2, ppm, ox, oy), 0, -1)
        for m in layout.markers:                       # markers are printed, not empty: leave them out
            (mx0, my0), _, (mx1, my1), _ = m.corners_mm
            cv2.rectangle(self.band, self._pt(mx0 - 3, my0 - 3, ppm, ox, oy), self._pt(mx1 + 3, my1 + 3, ppm, ox, oy), 0, -1)
        if layout.card_place_mm:
            x0, y0, x1, y1 = layout.card_place_mm
            cv2.rectangle(self.band, self._pt(x0 - 8, y0 - 8, ppm, ox, oy), self._pt(x1 + 8, y1 + 12, ppm, ox, oy), 0, -1)
        ys, xs = np.nonzero(self.band)
        self.segments = []
        if len(xs):
            cx, cy = (w - 1) / 2, (h - 1) / 2
            angle = np.arctan2(ys - cy, xs - cx)
            bins = np.floor((angle + np.pi) / (2 * np.pi) * 16).astype(int) % 16
            for b in range(16):
                sel = bins == b
                if sel.sum() > 20:
                    self.segments.append((ys[sel], xs[sel]))

    @staticmethod
    def _pt(x, y, ppm, ox, oy):
        return int(round((x - ox) * ppm)), int(round((y - oy) * ppm))

    @staticmethod
    def _box(x0, y0, x1, y1, ppm, ox, oy, w, h):
        c0, r0 = int(round((x0 - ox) * ppm)), int(round((y0 - oy) * ppm))
        c1, r1 = int(round((x1 - ox) * ppm)), int(round((y1 - oy) * ppm))
        return slice(max(r0, 0), min(max(r1, r0 + 1), h)), slice(max(c0, 0), min(max(c1, c0 + 1), w))


PATCH = 8


def _cell_features(img: np.ndarray, regions: _Regions) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per cell: mean luminance ``(N,)``, mean chroma ``(N, 2)`` and an 8x8 luminance patch ``(N, 8, 8)``."""
    lab = cv2.cvtColor(img, cv2.COLOR_BGR2LAB).astype(np.float32)
    means, chroma, patches = [], [], []
    for rows, cols in regions.cells:
        block = lab[rows, cols]
        means.append(block[..., 0].mean() + 1.0)
        chroma.append(block[..., 1:].reshape(-1, 2).mean(axis=0))
        patches.append(cv2.resize(block[..., 0], (PATCH, PATCH), interpolation=cv2.INTER_AREA))
    return np.array(means), np.array(chroma), np.array(patches)


def gain_field(ref_means: np.ndarray, cur_means: np.ndarray, centres: np.ndarray) -> tuple[np.ndarray, bool]:
    """A smooth brightness gain per cell: a plane fitted to log(cur / ref), outliers dropped.

    Parameters
    ----------
    ref_means, cur_means : (N,) float
        Mean luminance per cell (> 0).
    centres : (N, 2) float
        Cell centres (any unit).

    Returns
    -------
    (gains, light_changed)
        ``(N,)`` gains to apply to the reference, and whether the fitted light change is
        noticeable (more than 6 % anywhere).
    """
    y = np.log(cur_means / ref_means)
    a = np.column_stack([np.ones(len(y)), centres])
    keep = np.ones(len(y), bool)
    coef = np.zeros(3)
    for _ in range(3):
        if keep.sum() < 4:
            break
        coef, *_ = np.linalg.lstsq(a[keep], y[keep], rcond=None)
        resid = np.abs(y - a @ coef)
        keep = resid < max(0.05, 2.5 * np.median(resid[keep]))
    fitted = a @ coef
    return np.exp(fitted), bool(np.max(np.abs(fitted)) > 0.06)


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
        size = (int(round((region_mm[2] - region_mm[0]) * px_per_mm)), int(round((region_mm[3] - region_mm[1]) * px_per_mm)))
        self.regions = _Regions(layout, px_per_mm, region_mm[:2], size, margin_mm)
        self.centres = np.array([[(c.start + c.stop) / 2, (r.start + r.stop) / 2] for r, c in self.regions.cells], float)
        self.centres /= max(size)
        self.still_frames = max(2, int(round(self.params.still_seconds * fps)))
        self._prev: np.ndarray | None = None
        self._still = 0
        self._state = "starting"
        self._ref: np.ndarray | None = None
        self._ref_feats = None
        self._last_check = -1e9

    def _normalised(self, img: np.ndarray) -> np.ndarray:
        gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY) if img.ndim == 3 else img
        gray = cv2.GaussianBlur(gray, (5, 5), 0).astype(np.float32)
        return gray * (128.0 / max(float(gray.mean()), 1.0))

    def _margin_occupied(self, img: np.ndarray, gains_mean: float) -> bool:
        if not self.regions.segments or self._ref is None:
            return False
        cur = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float32)
        ref = cv2.cvtColor(self._ref, cv2.COLOR_BGR2GRAY).astype(np.float32) * gains_mean
        for ys, xs in self.regions.segments:
            if float(np.mean(np.abs(cur[ys, xs] - ref[ys, xs]))) / 255.0 > self.params.margin_threshold:
                return True
        return False

    def compare(self, img: np.ndarray) -> tuple[dict, list[tuple], bool, float]:
        """Compare a still board with the reference: (scores, changed keys, light change, mean gain)."""
        means, chroma, patches = _cell_features(img, self.regions)
        rmeans, rchroma, rpatches = self._ref_feats
        gains, light = gain_field(rmeans, means, self.centres)
        diff = np.abs(patches - rpatches * gains[:, None, None]).mean(axis=(1, 2)) / 255.0
        diff += np.abs(chroma - rchroma).sum(axis=1) / 255.0
        scores = {k: float(s) for k, s in zip(self.regions.keys, diff)}
        changed = sorted(k for k, s in scores.items() if s > self.params.cell_threshold)
        return scores, changed, light, float(np.median(gains))

    def _commit(self, img: np.ndarray, frame: int, t: float, state: str, motion: float) -> GateOutput:
        scores, changed, light, gain = self.compare(img)
        if self._margin_occupied(img, gain):
            return GateOutput("occluded", motion)
        self._ref, self._ref_feats = img.copy(), _cell_features(img, self.regions)
        self._last_check = t
        self._state = "still"
        event = StableChange(frame, t, changed, light, scores) if changed else None
        return GateOutput(state if event is None else "still", motion, event, light)

    def update(self, img: np.ndarray, frame: int, t: float) -> GateOutput:
        """Feed one small rectified board.

        Parameters
        ----------
        img : (h, w, 3) uint8 BGR
            The rectified ``region_mm`` at ``px_per_mm`` (see :func:`.rectify.rectify`).
        frame : int
            Frame number (reported in events).
        t : float
            Seconds (reported in events).

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
        if self._ref is None:                       # the first still picture is the baseline
            self._ref, self._ref_feats = img.copy(), _cell_features(img, self.regions)
            self._state, self._last_check = "still", t
            return GateOutput("still", motion)
        if self._state in ("moving", "settling") or t - self._last_check >= self.params.recheck_seconds:
            self._state = "settling"
            return self._commit(img, frame, t, "still", motion)
        return GateOutput("still", motion)
