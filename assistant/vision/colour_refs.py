"""Colour from the mat, not from the camera: each frame's colours corrected by the printed references.

A webcam's white balance, exposure, tone curve and colour matrix, the room's light and the
printer's inks all move the colour a piece shows; the mat prints, in its band, the kit's inks
beside paper white, three greys and the kit's black (:class:`~.mats.Reference`, two strips).
Seen in the same frame, through the same pipeline, they tell how to undo it
(:func:`colour_frame`):

1. **tone curve**: the neutral patches of a strip give, per channel, the camera's levels for
   known printed reflectances (the greys' sRGB values decoded: 0.52, 0.22, 0.051, the kit's
   black 0.013, paper 1); a monotone piecewise-linear curve through the unclipped ones takes a
   level back to linear light relative to that strip's paper (extrapolated linearly past the
   last, so a brighter spot of the mat reads above 1, and a clipped paper white is estimated
   from the greys);
2. **local white** (von Kries 1902): a colour is divided, channel by channel, by the linear
   light of paper white near it (:meth:`ColourFrame.reflectance`), which takes out the light's
   colour and brightness where the piece lies (a lamp's fall-off, a shadow, a colour cast);
3. **colour matrix**: a 3x3 matrix, least squares over every reference patch (each divided by
   the paper beside it; the neutrals weighted more) towards the inks' nominal linear values,
   pulled towards the identity (ridge) and with rows summing to 1 (paper stays paper), takes out
   what a diagonal correction cannot (the sensor's and the webcam's colour matrices, the
   printer's gamut).

A frame without readable references (an older mat, a strip covered by an arm or washed out by
glare: the neutral levels must rise from black to white in every channel) falls back to the sRGB
curve and the identity matrix, and says so (:attr:`ColourFrame.source`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from .mats import NEUTRALS, MatLayout

PPM = 3.0                     #: sampling resolution of the patches, px per mm
INSET = 0.25                  #: share of a patch's side left out at each edge (its blurred rim)
PAPER_BELOW_MM = 9.0          #: where the paper next to a patch is sampled: this far beyond its edge
MIN_CONTRAST = 25.0           #: white minus black, levels, for a strip to count as read
SATURATED = 250.0             #: a level this high is clipped
PLATEAU = 0.3                 #: a neutral rising less than this share of the step below it is clipped
PLATEAU_MARGIN = 0.1          #: ... and the channel clips from this share of that step under the neutral below
NEUTRAL_WEIGHT = 5.0          #: the neutrals' weight in the colour matrix's fit
RIDGE = 0.005             #: pull of the colour matrix towards the identity (least squares, ridge)


def srgb_to_linear(v: np.ndarray) -> np.ndarray:
    """sRGB-encoded values 0-255 (any shape) -> linear 0-1 (IEC 61966-2-1), ``float64``."""
    c = np.asarray(v, np.float64) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


@dataclass(frozen=True)
class ColourFrame:
    """One frame's colour correction.

    Attributes
    ----------
    levels : (3, K) float64
        Per channel (B, G, R), increasing camera levels (0-255) of the neutral patches.
    linear : (3, K) float64
        The linear light each level stands for, relative to the reference strip's paper.
    matrix : (3, 3) float64
        Applied to white-divided linear colours (column vectors, BGR).
    source : str
        ``"mat references"`` or why the nominal correction is used.
    patches : dict name -> (3,) float64
        Each reference ink as this frame shows it, corrected (:meth:`reflectance`), averaged
        over the strips that were read where no channel of it is clipped (empty without
        references).
    ceiling : (3,) float64
        Per channel, the level from which the camera clips (:data:`SATURATED`, or lower where
        the neutrals showed a plateau).
    """

    levels: np.ndarray
    linear: np.ndarray
    matrix: np.ndarray
    source: str
    patches: dict
    ceiling: np.ndarray = field(default_factory=lambda: np.full(3, SATURATED))

    def clipped(self, bgr: np.ndarray) -> np.ndarray:
        """Which channels of levels ``(..., 3)`` are clipped (at or above the channel's :attr:`ceiling`): ``(..., 3) bool``."""
        return np.asarray(bgr, np.float32) >= self.ceiling.astype(np.float32)

    @property
    def from_mat(self) -> bool:
        """The references were read."""
        return self.source == "mat references"

    def to_linear(self, bgr: np.ndarray) -> np.ndarray:
        """Camera levels ``(..., 3)`` (0-255) -> linear light ``(..., 3) float32`` (relative to
        the strip's paper), through the per-channel curve, extrapolated linearly at both ends."""
        bgr = np.asarray(bgr, np.float32)
        out = np.empty(bgr.shape, np.float32)
        for c in range(3):
            x, y = self.levels[c], self.linear[c]
            v = bgr[..., c]
            lo = y[0] + (v - x[0]) * (y[1] - y[0]) / max(x[1] - x[0], 1e-6)
            hi = y[-1] + (v - x[-1]) * (y[-1] - y[-2]) / max(x[-1] - x[-2], 1e-6)
            out[..., c] = np.where(v < x[0], lo, np.where(v > x[-1], hi, np.interp(v, x, y)))
        return np.maximum(out, 0.0)

    def reflectance(self, bgr: np.ndarray, white_bgr: np.ndarray) -> np.ndarray:
        """Printed reflectance (linear 0-1, paper 1) of colours ``(..., 3)`` levels seen next to
        paper that shows ``white_bgr`` (``(3,)`` levels, or ``(..., 3)`` one per colour).

        Returns
        -------
        (..., 3) float32
            ``matrix @ (to_linear(bgr) / white_linear(white_bgr))``; without the matrix where a
            channel of the colour is clipped (:meth:`clipped`).
        """
        bgr = np.asarray(bgr, np.float32)
        lin = self.to_linear(bgr) / np.maximum(self.white_linear(white_bgr), 1e-4)
        mixed = np.einsum("...c,dc->...d", lin, self.matrix.astype(np.float32))
        # a clipped channel is only a lower bound: the matrix would carry its error into the others
        return np.where(np.any(self.clipped(bgr), axis=-1, keepdims=True), lin, mixed).astype(np.float32)

    def white_linear(self, white_bgr: np.ndarray) -> np.ndarray:
        """Linear light of paper that shows ``white_bgr`` levels ``(..., 3)``. A clipped channel
        (:meth:`clipped`) hides how bright the paper is: it takes the mean of the
        unclipped channels (the references' paper is neutral in these units), or at least 1
        when every channel is clipped.

        Returns
        -------
        (..., 3) float32
        """
        w = np.asarray(white_bgr, np.float32)
        lin = self.to_linear(w)
        clipped = self.clipped(w)
        n = np.sum(~clipped, axis=-1, keepdims=True)
        mean_ok = np.sum(np.where(clipped, 0.0, lin), axis=-1, keepdims=True) / np.maximum(n, 1)
        fill = np.where(n > 0, mean_ok, np.maximum(np.max(lin, axis=-1, keepdims=True), 1.0))
        return np.where(clipped, np.maximum(fill, lin), lin).astype(np.float32)

    def corrected(self, bgr: np.ndarray) -> np.ndarray:
        """Camera levels re-encoded as the mat's references say the print is: sRGB levels of the
        printed reflectance relative to the reference strip's paper (:meth:`to_linear`, then
        :attr:`matrix` where no channel is clipped, then the sRGB curve, IEC 61966-2-1), so a
        frame's colour cast, exposure and tone curve are taken out before a classifier sees it.
        Brighter than the strip's paper (glare) clips to 255. Without references
        (:attr:`from_mat` false) the levels are returned unchanged.

        Parameters
        ----------
        bgr : (..., 3) uint8
            Camera levels, BGR.

        Returns
        -------
        (..., 3) uint8
        """
        bgr = np.asarray(bgr)
        if not self.from_mat:
            return bgr
        lut = self.to_linear(np.repeat(np.arange(256, dtype=np.float32)[:, None], 3, axis=1))   # (256, 3)
        lin = np.stack([lut[bgr[..., c], c] for c in range(3)], axis=-1)
        mixed = np.einsum("...c,dc->...d", lin, self.matrix.astype(np.float32))
        lin = np.where(np.any(self.clipped(bgr), axis=-1, keepdims=True), lin, mixed)
        lin = np.clip(lin, 0.0, 1.0)
        enc = np.where(lin <= 0.0031308, 12.92 * lin, 1.055 * np.power(lin, 1 / 2.4) - 0.055)
        return np.round(enc * 255.0).astype(np.uint8)


def nominal(reason: str = "no colour references") -> ColourFrame:
    """The correction without references: the sRGB curve and the identity matrix."""
    x = np.linspace(0.0, 255.0, 52)
    lin = srgb_to_linear(x)
    return ColourFrame(np.tile(x, (3, 1)), np.tile(lin, (3, 1)), np.eye(3), reason, {})


def _sample(frame: np.ndarray, homography: np.ndarray, rect_mm, ppm: float = PPM) -> np.ndarray:
    """Median BGR levels ``(3,)`` of a mat rectangle (its inner part), warped from the frame."""
    x0, y0, x1, y1 = rect_mm
    w, h = max(2, int(round((x1 - x0) * ppm))), max(2, int(round((y1 - y0) * ppm)))
    k = np.array([[(x1 - x0) / w, 0, x0 + 0.5 * (x1 - x0) / w], [0, (y1 - y0) / h, y0 + 0.5 * (y1 - y0) / h], [0, 0, 1.0]])
    patch = cv2.warpPerspective(frame, np.asarray(homography, np.float64) @ k, (w, h),
                                flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
    return np.median(patch.reshape(-1, 3).astype(np.float64), axis=0)


def _inside(frame_shape, homography: np.ndarray, rect_mm) -> bool:
    x0, y0, x1, y1 = rect_mm
    pts = np.array([[[x0, y0]], [[x1, y0]], [[x1, y1]], [[x0, y1]]], np.float64)
    px = cv2.perspectiveTransform(pts, np.asarray(homography, np.float64)).reshape(-1, 2)
    h, w = frame_shape[:2]
    return bool(np.all(np.isfinite(px)) and np.all(px >= 1) and np.all(px[:, 0] < w - 1) and np.all(px[:, 1] < h - 1))


def read_strips(frame: np.ndarray, homography: np.ndarray, layout: MatLayout) -> list[dict]:
    """The reference strips as the frame shows them.

    Returns
    -------
    list of dict
        One per strip wholly in view: name -> ``((3,) patch levels, (3,) levels of the paper
        next to it)``.
    """
    strips: dict[float, dict] = {}
    y_mid = layout.size_mm[1] / 2
    for ref in layout.references:
        x0, y0, x1, y1 = ref.rect_mm
        if not _inside(frame.shape, homography, ref.rect_mm):
            continue
        d = (x1 - x0) * INSET
        inner = (x0 + d, y0 + d, x1 - d, y1 - d)
        towards_play = 1.0 if y0 < y_mid else -1.0          # paper between the strip and the play area
        py = (y1 + PAPER_BELOW_MM) if towards_play > 0 else (y0 - PAPER_BELOW_MM)
        paper = (x0 + d, py - 1.5, x1 - d, py + 1.5)
        strips.setdefault(y0, {})[ref.name] = (_sample(frame, homography, inner), _sample(frame, homography, paper))
    return [s for s in strips.values() if all(n in s for n, _ in NEUTRALS)]


def _curve(strip: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Per-channel ``(levels, linear, ceiling)`` of one strip's neutrals (module docstring), or
    None when fewer than three neutrals of a channel are kept, or they rise by less than
    :data:`MIN_CONTRAST` from black to the brightest kept.

    A neutral is left out of a channel when its level there is clipped: at or above
    :data:`SATURATED`, or on a *plateau*, rising over the neutral below it by less than
    :data:`PLATEAU` of the step below (a camera whose raw channel clips mixes the clipped value
    through its colour matrix: the channel then tops out below 255); the brighter neutrals go
    with it, and the channel's ``ceiling`` is set :data:`PLATEAU_MARGIN` of the step below under
    the last neutral kept (brighter levels are clipped, :meth:`ColourFrame.clipped`). A neutral out of order in some channel is left out of
    all (glare or a shadow across the strip). Without paper white the curve is extrapolated from
    the greys, and paper reads about 1 still.
    """
    names = [n for n, _ in NEUTRALS]
    target = np.array([srgb_to_linear(np.array(bgr, np.float64)) for _n, bgr in NEUTRALS])       # (5, 3)
    seen = np.array([strip[n][0] for n in names])                                                 # (5, 3)
    order = np.argsort(target[:, 0])                                   # black .. white (neutral: same in every channel)
    ceiling = np.full(3, SATURATED)
    keep = np.ones((len(seen), 3), bool)
    for c in range(3):
        steps = []
        for k, i in enumerate(order):
            level = seen[i, c]
            if k == 0:
                steps.append(level)
                continue
            prev = seen[order[k - 1], c]
            step = level - prev
            if level >= SATURATED:
                keep[order[k:], c] = False
                break
            below = prev - seen[order[k - 2], c] if k >= 2 else 0.0
            if k >= 2 and step < PLATEAU * below:
                keep[order[k:], c] = False
                # the plateau may begin just under the neutral below it: levels near it are clipped too
                ceiling[c] = min(SATURATED, prev - PLATEAU_MARGIN * below)
                break
    whole = np.ones(len(seen), bool)
    for c in range(3):                                                 # out of order anywhere: out everywhere
        x = seen[order, c][keep[order, c]]
        if np.any(np.diff(x) <= 0):
            return None
    levels, linear = [], []
    for c in range(3):
        sel = whole & keep[:, c]
        if sel.sum() < 3:
            return None
        idx = np.argsort(target[sel, c])
        x, y = seen[sel, c][idx], target[sel, c][idx]
        if x[-1] - x[0] < MIN_CONTRAST:
            return None
        levels.append(np.concatenate([[0.0], x]) if x[0] > 0 else x)
        linear.append(np.concatenate([[max(0.0, y[0] - x[0] * (y[1] - y[0]) / (x[1] - x[0]))], y]) if x[0] > 0 else y)
    if len({len(v) for v in levels}) > 1:             # channels clipped differently: resample each on 9 levels
        grids = [np.linspace(x[0], x[-1], 9) for x in levels]
        linear = [np.interp(g, x, y) for g, x, y in zip(grids, levels, linear)]
        levels = grids
    return np.array(levels), np.array(linear), ceiling


def readable_strips(frame: np.ndarray, homography: np.ndarray, layout: MatLayout,
                    strips: list[dict] | None = None) -> list[tuple[dict, tuple]]:
    """The reference strips :func:`colour_frame` trusts: those :func:`read_strips` finds whose
    neutrals give a tone curve (:func:`_curve`; a strip covered, glared or clipped does not).

    Parameters
    ----------
    frame : (H, W, 3) uint8
        BGR.
    homography : (3, 3)
        Mat mm -> frame px.
    layout : MatLayout
    strips : list of dict, optional
        :func:`read_strips` of this frame when already read (it is then not read again).

    Returns
    -------
    list of (dict, tuple)
        Per strip kept, the strip as :func:`read_strips` gives it (name -> ``((3,) patch levels,
        (3,) paper levels)``) and its curve ``(levels, linear, ceiling)``; empty when none is kept.
    """
    if strips is None:
        strips = read_strips(frame, homography, layout)
    curves = [(s, _curve(s)) for s in strips]
    return [(s, c) for s, c in curves if c is not None]


def colour_frame(frame: np.ndarray, homography: np.ndarray | None, layout: MatLayout,
                 strips: list[dict] | None = None) -> ColourFrame:
    """The colour correction of one frame from the mat's references (module docstring).

    Parameters
    ----------
    frame : (H, W, 3) uint8
        BGR.
    homography : (3, 3) or None
        Mat mm -> frame px.
    layout : MatLayout
        A mat with :attr:`~.mats.MatLayout.references` (none: the nominal correction).
    strips : list of dict, optional
        :func:`read_strips` of this frame when already read (it is then not read again).

    Returns
    -------
    ColourFrame
        From the strip with the widest neutral range among those read; the matrix from the
        patches of every strip read.
    """
    if homography is None or not layout.references:
        return nominal()
    curves = readable_strips(frame, homography, layout, strips)
    if not curves:
        return nominal("colour references not readable (covered, out of view, clipped or glared)")
    strip, (levels, lin, ceiling) = max(curves, key=lambda sc: float(np.min(sc[1][0][:, -1] - sc[1][0][:, 0])))
    ceiling = np.min([c[2] for _s, c in curves], axis=0)
    base = ColourFrame(levels, lin, np.eye(3), "mat references", {}, ceiling)
    seen, want, weight = [], [], []
    inks = {r.name: r.bgr for r in layout.references}
    neutral_names = {n for n, _ in NEUTRALS}
    for s, _c in curves:
        for name, (patch, paper) in s.items():
            if np.any(base.clipped(patch)):
                continue
            seen.append(base.reflectance(patch, paper))
            want.append(srgb_to_linear(np.array(inks[name], np.float64)))
            weight.append(NEUTRAL_WEIGHT if name in neutral_names else 1.0)
    a, b, w = np.array(seen, np.float64), np.array(want, np.float64), np.array(weight)[:, None]
    # weighted ridge towards the identity: minimise sum w |M a - b|^2 + RIDGE * n * |M - I|^2, then
    # rows scaled to sum to 1 (paper stays paper: the tone curve already made the neutrals right)
    n = float(w.sum())
    m = np.linalg.solve((a * w).T @ a + RIDGE * n * np.eye(3), (a * w).T @ b + RIDGE * n * np.eye(3)).T
    m = m / np.maximum(m.sum(axis=1, keepdims=True), 1e-3)
    frame_c = ColourFrame(levels, lin, m, "mat references", {}, ceiling)
    patches: dict[str, list] = {}
    for s, _c in curves:
        for name, (patch, paper) in s.items():
            if not np.any(frame_c.clipped(patch)):
                patches.setdefault(name, []).append(frame_c.reflectance(patch, paper))
    return ColourFrame(levels, lin, m, "mat references", {k: np.mean(v, axis=0) for k, v in patches.items()}, ceiling)

