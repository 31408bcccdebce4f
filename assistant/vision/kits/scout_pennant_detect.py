"""Reading the Scout Pennant kit off a camera frame: pieces, patrols and arrows, slot by slot.

Rules, not a taught classifier: the kit's art (:mod:`.scout_pennant`) was drawn so that each
slot is told by one or two big, known contrasts at known places of the mat, which rules read
more reliably (and explain better) than a classifier taught on a few hundred crops would:

- **white reference**: every hex has white paper near its six corners, which no piece covers;
  the 75th percentile of each colour channel there is the local white (von Kries: dividing by
  it takes out the light's brightness and colour, e.g. a warm lamp or a wrong white balance);
  "ink" is ``1 - mean(B, G, R) / white`` (0 paper, ~0.9 the kit's black);
- **piece** (``empty`` / ``clearing`` / ``forest``): the clearing's black ring is found by
  correlating a ring-minus-middle kernel over shifts of up to 2.5 mm (pieces lie a little off
  centre); then the median ink of the *gap* annulus (10-12.5 mm from that centre: light grey in
  a clearing, dark in a forest, which covers 14 mm round its centre however it is turned) and
  of the *ring* annulus (13.8-16.2 mm) decide empty (both low) against a piece (the size of the
  ``(ring, gap)`` vector); a clearing is then told from a forest by the gap's colour, not its
  darkness: its white-balanced green excess ``G/wG - max(B/wB, R/wR)`` (median) is ~0.2-0.3 on
  the forest's greens and ~0 on the clearing's grey and black (a blur of ~2.5 mm, which darkens
  a clearing's 4 mm grey gap with its ring and the pawn's rim to a forest's ink, leaves it grey;
  an additive neutral glare leaves the excess unchanged); where the frame shows that the green
  excess does not separate them (the mat's references or the board's shape-sure pieces: a deep
  warm light with a weak white balance can make the forest's greens look bluish), the shape
  alone decides (:func:`piece_reading` with ``green=None``);
- **patrol** (``none`` or a colour): the median white-balanced colour within 5.5 mm of the
  clearing's centre, against what the camera would show of the six Okabe-Ito references and of
  the background (the clearing's grey, the forest's greens, white paper) under the measured paper
  white, with saturated channels treated as censored and an additive glare (bounded by how much
  the clearing's black ring is lifted) as a nuisance; the light's colour comes from unsaturated
  paper or, when the paper saturates, from the black rings; the letter on a pawn covers too
  little to move the median, but a *light* outlier in the pawn's middle (the 95th percentile
  over the median, within :data:`LETTER_MM` of the pawn's centre) is the white letter of red,
  blue and green (black on the others): evidence that survives a light clipping the pawn's
  colour (a red whose R clips looks orange), while a blur that hides the letter gives none;
  on a clearing, *whether* a pawn stands there is decided first by its shape (its outline's ink
  spread beyond the paper's, its black rim) with the colour's say bounded, and *which* colour
  second (:func:`~.scout_pennant_patrol.pawn_presence`);
- **arrow** (``none`` / ``forward`` / ``backward``): just behind the side an arrow crosses it is
  hollow (white), just ahead of it solid black, and no piece reaches within 4 mm of a side's
  midpoint; the median ink of two small zones either side of the midpoint (1-4 mm along the
  ``a -> b`` direction, 2.5 mm across) gives ``(behind_a, behind_b)``: both low -> none; the
  ``b`` side dark -> forward (``a -> b``); the ``a`` side dark -> backward. Orientations are thereby
  snapped to the board's six directions (F11) with a margin, not measured as angles.

Every reading carries a ``confidence`` (logistic of the margin) and a ``margin`` in units of the
decision's noise scale, so ``Reading.sure`` (margin >= 0.5, confidence >= 0.6) means "at least
half a noise scale clear of the boundary". A slot whose hex is not wholly inside the frame, or
whose white reference is saturated (glare on the paper), reads with confidence 0.

A hex whose blacks look lifted (:meth:`HexLook.washed`, :meth:`HexLook.lifted`) caps its piece,
patrol and arrows unsure: glare (light added on top) may be hiding what lies there. Under a
bright lamp that clips the paper the blacks look lifted too, measured against the clipped white,
without any glare; a forest tells the two apart, since brightness scales its channels together
(its white-balanced ``G / max(B, R)`` stays ~2.2) and glare pales it towards 1, so a lightened
forest whose green is not paled is read as sure as any. A glare spot that clips a whole hex to
white leaves nothing there to read; a hex that looks empty beside a clearing whose ring is lifted
on one side (:meth:`HexLook.glared_beside`) is therefore read unsure, and so are its arrows.

Crops are warped straight from the frame with the homography composed with the crop's own
placement (one interpolation), at :data:`PPM` px per mm.

This module measures one hex and reads its piece; its patrol is read by
:mod:`.scout_pennant_patrol`; the arrows, the whole board (``read_slots``, the rules as priors,
the registration check) are in :mod:`.scout_pennant_board`.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import NamedTuple, Sequence

import cv2
import numpy as np

from ...tracking.base import Reading
from ..mats import Cell
from .scout_pennant import PAWN_MM, PAWN_RIM_MM

PPM = 2.5                   #: sampling resolution of the crops, px per mm
HEX_HALF_MM = 27.5          #: half side of a hex crop (covers the white zones by the corners)
WHITE_AT_MM, WHITE_R_MM = 24.5, 2.5     #: white zones: discs this far towards each corner
SHIFT_MM = 2.5              #: how far off centre a clearing is looked for
GAP_MM = (10.3, 12.2)       #: the grey gap of a clearing between pawn and ring (dark in a forest)
RING_MM = (13.8, 16.2)      #: the clearing's black ring
CENTRE_MM = 5.5             #: where a pawn's colour is sampled
SPREAD_MM = 9.8             #: where a pawn's outline is looked for (pawn radius 9 mm, off by <= 3 mm)
PAWN_RIM_RING_MM = (PAWN_MM / 2 - PAWN_RIM_MM + 0.2, PAWN_MM / 2 - 0.2)   #: a pawn's black rim
PAWN_OUT_MM = (PAWN_MM / 2 + 0.6, PAWN_MM / 2 + 1.6)                      #: the clearing's grey round it
PAWN_SHIFT_MM = 3.2         #: how far from the clearing's centre a pawn's is looked for
PAWN_FOUND = 0.08           #: rim response (ink) above which the pawn's centre is trusted
DARK_MM = 17.0              #: where the darkest ink of a hex's piece is looked for
SATURATED = 250.0           #: a white reference this bright (0-255) in some channel is glare

#: decision boundaries and noise scales (tuned on rendered training scenes, seeds 0-99 and the
#: daylight / warm-lamp / cool-ceiling lights; the benchmark uses other seeds and conditions)
WASHED_FOREST, WASHED_CLEARING = 0.6, 0.5     #: darkest ink below which a piece's blacks are lifted
WASHED_RING = 0.45                             #: a clearing's ring this light is washed out
HIDDEN_DARK = 0.09                             #: an "empty" hex whose darkest ink (97th percentile) is above this hides a piece
HIDDEN_CORE = 0.8                              #: an "empty" hex whose ring core is this far below white hides a piece
RING_EVEN, RING_LIFTED = 0.8, 0.75             #: uneven (a quarter this much lighter) and lifted (below
                                               #: this ink) together: glare beside the clearing
EMPTY_BELOW, PRESENT_ABOVE, PRESENT_SCALE = 0.10, 0.25, 0.04   #: |(ring, gap)|: empty, dead band, a piece
FOREST_AT_DEG, FOREST_SCALE_DEG = 44.0, 3.0    #: angle of (ring, gap) from the ring axis
GREEN_AT, GREEN_SCALE = 0.06, 0.012            #: the gap's green excess: clearing (<= ~0.03) / forest (>= ~0.09)
#: the ring-minus-gap response: forests <= -0.11, clearings >= +0.02 on the held-out kit photographs
#: (assistant.bench.kit_photos, seeds 500-504, both sets)
RING_AT, RING_SCALE = -0.045, 0.03
COLOUR_CAP = 4.0           #: the colour's log-odds are bounded: a clear shape outvotes a misleading colour
CAPPED = 0.4                                   #: the margin of a reading capped unsure (< MIN_MARGIN)
LETTER_MM = 4.0            #: where a pawn's letter is looked for (a 5 mm capital at the pawn's centre)
#: the letter's body and the pawn's own colour round it (:attr:`HexLook.letter_sign`): radii, mm.
#: The capital is 5 mm tall (corners within ~3.2 mm); the colour ring stops 1.2 mm inside the pawn's black rim (7.5-9 mm)
LETTER_BODY_MM, LETTER_AROUND_MM = 2.5, (3.5, 6.3)
GAP_CLEAR_MM = PAWN_MM / 2 + 1.0   #: the gap's grey is sampled this far from the pawn's centre (rim, shadow out)
LIFTED_RATIO = 1.85                            #: a lightened forest's white-balanced G / max(B, R) below this: glare
LIFTED_FOREST = 0.7                            #: a forest's darkest ink below this: light added on top


class HexLook(NamedTuple):
    """What the detector measured on one hex.

    Attributes
    ----------
    visible : bool
        The hex crop lies wholly inside the frame.
    white : (3,) float64
        Local paper white as measured, BGR 0-255 (saturated channels stay at ~255).
    gap, ring : float
        Median ink (0 paper .. ~0.9 black) of the gap and ring annuli at the found centre.
    shift_mm : (float, float)
        Where the clearing ring was found, relative to the cell centre, mm.
    ring_bgr, centre_bgr : (3,) float64
        Median BGR (0-255) of the ring annulus and of the disc within ``CENTRE_MM`` of the centre.
    dark : float
        The darkest ink within ``DARK_MM`` of the centre (its 97th percentile): ~0.8 where a
        black ring or a forest lies, much less where glare lifts the blacks.
    ring_even : float
        The lightest quarter of the ring's median ink over the darkest's (1 = even); a glare
        spot beside the clearing lifts one side of its ring more than the other.
    contrast : float
        The ring-minus-gap template response at the found centre (> 0 for a clearing's ring).
    ring_core_bgr : (3,) float64
        The ring annulus's darkest tenth (per channel 10th percentile, BGR 0-255): a blur spreads
        the ring's edges into the grey and white beside it but leaves its core nearly black,
        while glare or a brighter light lifts the core too, so this (not the median) bounds
        both.
    spread : float
        Ink spread (90th minus 10th percentile) within ``SPREAD_MM`` of the found centre: ~0 on
        a clearing's plain grey middle, >= ~0.1 where a pawn lies (its coloured disc, black rim
        and letter against the grey); unlike the pawn's colour it survives a light that clips
        the middle to white.
    green : float
        The gap annulus's white-balanced green excess (forest ~0.2-0.3, clearing ~0).
    letter_light, letter_dark : float
        Within :data:`LETTER_MM` of the pawn's centre, the largest (over channels) 95th
        percentile over the median, and median over the 5th percentile, of the white-balanced
        levels: a white letter shows as a light outlier, a black one as a dark outlier.
    pawn : float or None
        The pawn's rim-minus-surround response at its best centre (ink; ~0 on a bare clearing,
        ~0.05-0.4 with a pawn); ``None`` when not measured (no evidence either way).
    paper_spread : float
        The ink spread (90th minus 10th percentile) over the hex's white zones: what noise and
        the frame's tint spread the ink of plain paper, the baseline of :attr:`spread`.
    gap_bgr : (3,) float64 or None
        Median BGR (0-255) of the gap annulus beyond :data:`GAP_CLEAR_MM` of the pawn's centre
        (a clearing's printed grey in the pawn's light; ``None`` when not measured).
    letter_sign : float or None
        The letter's body against the pawn's colour round it: the mean white-balanced level
        (``bgr / white``) within :data:`LETTER_BODY_MM` of the pawn's centre minus the mean
        between the radii :data:`LETTER_AROUND_MM`, averaged over the three channels (about
        +0.2 to +0.35 for a white letter, -0.15 to 0 for a black one, 0 on a bare clearing). A
        white letter lifts the body, a black one darkens it; a defocus or shake that spreads the
        letter out keeps its sign (the means are kept), and a glare added alike on both cancels,
        where the outlier percentiles of :attr:`letter_light` and :attr:`letter_dark` fade into
        noise (issue 18). ``None`` where the pawn's centre was not found (its rim response at
        most :data:`PAWN_FOUND`): no evidence.
    """

    visible: bool
    white: np.ndarray
    gap: float
    ring: float
    shift_mm: tuple[float, float]
    ring_bgr: np.ndarray
    centre_bgr: np.ndarray
    dark: float = 1.0
    ring_even: float = 1.0
    contrast: float = 0.0
    spread: float = 0.0
    ring_core_bgr: np.ndarray | None = None
    green: float = 0.0
    letter_light: float = 0.0
    letter_dark: float = 0.0
    pawn: float | None = None
    paper_spread: float = 0.0
    gap_bgr: np.ndarray | None = None
    letter_sign: float | None = None

    def clearing_like(self) -> bool:
        """A dark ring round a light gap (a clearing, whose ring can serve as a black reference)."""
        return math.hypot(self.gap, self.ring) > PRESENT_ABOVE and not self.forest_like()

    def glared_beside(self) -> bool:
        """A clearing whose ring is lifted on one side (lightest quarter below :data:`RING_EVEN`
        of the darkest's, and lifted overall below :data:`RING_LIFTED` ink): a glare spot beside it.

        Returns
        -------
        bool
        """
        return self.clearing_like() and self.ring_even < RING_EVEN and self.ring < RING_LIFTED

    def forest_like(self) -> bool:
        """The gap annulus is green (a forest), whatever its darkness: a blur that darkens a
        clearing's grey gap with its black ring and the pawn's rim leaves it grey."""
        return self.green > GREEN_AT

    def lifted(self, chroma: np.ndarray | None = None) -> bool:
        """A forest whose dark green is lighter than any light or blur of the kit's design leaves
        it, and (given the light's ``chroma``) whose green is paled: glare close by (a side of it
        may be washed out too).

        A bright lamp that clips the paper also makes the forest look lighter *against the
        clipped white*, but scales its channels together, so its white-balanced
        ``G / max(B, R)`` stays at the print's ~2.2; glare adds the same light to every channel
        and pulls the ratio towards 1 (on the tuning seeds: below ~1.7 next to the arrows misread
        under glare, >= ~2.0 for 95 % of the forests a bright lamp alone lightens).

        Parameters
        ----------
        chroma : (3,) float, optional
            :func:`light_chroma` of the board; without it the ratio is not looked at (any
            lightened forest counts as lifted).

        Returns
        -------
        bool
        """
        size = math.hypot(self.gap, self.ring)
        forest_like = size > PRESENT_ABOVE and self.contrast < 0.0 and self.gap > self.ring
        if not (forest_like and self.dark < LIFTED_FOREST):
            return False
        return chroma is None or self.paled(chroma)

    def paled(self, chroma: np.ndarray) -> bool:
        """The white-balanced ``G / max(B, R)`` of the hex's middle is below :data:`LIFTED_RATIO`
        (a forest's green paled by glare; see :meth:`lifted`), or a channel of it is clipped
        (the ratio is then unknown).

        Parameters
        ----------
        chroma : (3,) float
            :func:`light_chroma` of the board, BGR with green 1.

        Returns
        -------
        bool
        """
        if np.max(self.centre_bgr) >= SATURATED:
            return True                          # a clipped channel hides the ratio: assume glare
        c = np.asarray(self.centre_bgr, np.float64) / np.maximum(np.asarray(chroma, np.float64), 1e-6)
        return bool(c[1] / max(c[0], c[2], 1.0) < LIFTED_RATIO)

    def washed(self, chroma: np.ndarray | None = None) -> bool:
        """A piece whose blacks are lifted: glare (light added on top) or a blur beyond the kit's
        design; what is read on this hex and its sides is then not sure.

        Parameters
        ----------
        chroma : (3,) float, optional
            :func:`light_chroma` of the board. With it, a forest lightened against a clipped
            paper white whose green is not paled (:meth:`paled`) is a bright lamp, not glare,
            and not washed; without it any lightened forest is.

        Returns
        -------
        bool
        """
        size = math.hypot(self.gap, self.ring)
        if size < EMPTY_BELOW:                   # looks empty: unless a glare spot hides a piece
            return self.hidden()
        if self.clearing_like() and self.ring < WASHED_RING:
            return True
        if self.forest_like():
            return self.dark < WASHED_FOREST and (chroma is None or self.paled(chroma))
        return self.dark < WASHED_CLEARING


    def hidden(self) -> bool:
        """A hex that looks empty by its ink but whose ring annulus is darker than paper can be
        (its darkest tenth below :data:`HIDDEN_CORE` of the local white in some channel): a
        piece's blacks lifted by glare to a light grey, not paper (on the tuning seeds, empty
        hexes stay at >= 0.91 of the white under every stress light, pieces hidden by a glare
        spot at ~0.64); or whose darkest ink (:attr:`dark`) is above :data:`HIDDEN_DARK` (bare
        paper stays below ~0.085 under every tuning light, a piece all but clipped by a glare
        spot keeps ~0.1-0.2 where its blacks are)."""
        if self.dark > HIDDEN_DARK:
            return True
        if self.ring_core_bgr is None:
            return False
        ratio = np.asarray(self.ring_core_bgr, np.float64) / np.maximum(np.asarray(self.white, np.float64), 1.0)
        return bool(np.min(ratio) < HIDDEN_CORE)


def _logistic(m: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, m))))


def warp_patch(frame: np.ndarray, homography: np.ndarray, centre_mm: tuple[float, float], half_w_mm: float,
               half_h_mm: float, angle_deg: float = 0.0, ppm: float = PPM) -> np.ndarray:
    """A rectangle of the mat warped straight from the frame.

    Parameters
    ----------
    frame : (H, W, 3) uint8 BGR
    homography : (3, 3)
        Mat mm -> frame px.
    centre_mm : (x, y)
        Centre of the rectangle on the mat, mm.
    half_w_mm, half_h_mm : float
        Half width (along ``angle_deg``) and half height, mm.
    angle_deg : float
        Direction of the patch's +x axis on the mat (0 = mat +x, 90 = mat +y).
    ppm : float
        Output pixels per mm.

    Returns
    -------
    (round(2 * half_h_mm * ppm), round(2 * half_w_mm * ppm), 3) float32
        Patch pixel ``(u, v)`` shows the local point ``(-half_w + (u + 0.5) / ppm,
        -half_h + (v + 0.5) / ppm)`` mm; outside the frame the border is replicated.
    """
    w, h = int(round(2 * half_w_mm * ppm)), int(round(2 * half_h_mm * ppm))
    c, s = math.cos(math.radians(angle_deg)), math.sin(math.radians(angle_deg))
    k = 1.0 / ppm
    lx, ly = -half_w_mm + 0.5 * k, -half_h_mm + 0.5 * k
    to_mat = np.array([[c * k, -s * k, centre_mm[0] + c * lx - s * ly],
                       [s * k, c * k, centre_mm[1] + s * lx + c * ly],
                       [0.0, 0.0, 1.0]])
    out = cv2.warpPerspective(frame, np.asarray(homography, np.float64) @ to_mat, (w, h),
                              flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
    return out.astype(np.float32)


@lru_cache(maxsize=4)
def _hex_geometry(ppm: float):
    """Coordinate grids (mm from the cell centre) of a hex crop, the white-zone mask and the ring
    kernel (+ on the ring annulus, - on the gap, each normalised to sum 1)."""
    n = int(round(2 * HEX_HALF_MM * ppm))
    v = -HEX_HALF_MM + (np.arange(n) + 0.5) / ppm
    xx, yy = np.meshgrid(v, v)
    white = np.zeros((n, n), bool)
    for i in range(6):
        a = math.radians(60 * i)
        white |= np.hypot(xx - WHITE_AT_MM * math.cos(a), yy - WHITE_AT_MM * math.sin(a)) <= WHITE_R_MM
    kr = RING_MM[1] + 0.5
    m = int(round(kr * ppm))
    kv = (np.arange(-m, m + 1)) / ppm
    kx, ky = np.meshgrid(kv, kv)
    r = np.hypot(kx, ky)
    ring = ((r >= RING_MM[0] - 0.3) & (r <= RING_MM[1] + 0.3)).astype(np.float32)
    gap = ((r >= GAP_MM[0] - 0.5) & (r <= GAP_MM[1] - 0.5)).astype(np.float32)
    kernel = ring / ring.sum() - gap / gap.sum()
    return xx.astype(np.float32), yy.astype(np.float32), white, kernel, int(round(SHIFT_MM * ppm))


@lru_cache(maxsize=4)
def _pawn_kernel(ppm: float) -> np.ndarray:
    """Rim-minus-surround kernel of a pawn, ``(m, m) float32``: + on its black rim, - on the
    clearing's grey just outside it, each part normalised to sum 1 (the pawn's own colour,
    unknown, is left out)."""
    m = int(round(PAWN_OUT_MM[1] * ppm))
    kv = np.arange(-m, m + 1) / ppm
    r = np.hypot(*np.meshgrid(kv, kv))
    rim = ((r >= PAWN_RIM_RING_MM[0]) & (r <= PAWN_RIM_RING_MM[1])).astype(np.float32)
    out = ((r >= PAWN_OUT_MM[0]) & (r <= PAWN_OUT_MM[1])).astype(np.float32)
    return rim / rim.sum() - out / out.sum()


def _pawn_centre(ink: np.ndarray, centre_px: tuple[float, float], ppm: float) -> tuple[float, float, float]:
    """Where a pawn's rim fits best within :data:`PAWN_SHIFT_MM` of ``centre_px``.

    Parameters
    ----------
    ink : (h, w) float32
        Ink of a crop (:func:`_ink`).
    centre_px : (x, y)
        The clearing's centre in crop pixels.
    ppm : float

    Returns
    -------
    (x, y, response)
        The pawn's centre in crop pixels and the kernel's response there (~0 without a pawn,
        ~0.3-0.7 ink with one).
    """
    kernel = _pawn_kernel(ppm)
    resp = cv2.matchTemplate(np.ascontiguousarray(ink), kernel, cv2.TM_CCORR)
    half = kernel.shape[0] // 2
    ys, xs = np.mgrid[:resp.shape[0], :resp.shape[1]]
    far = np.hypot(xs + half - centre_px[0], ys + half - centre_px[1]) > PAWN_SHIFT_MM * ppm
    resp[far] = -np.inf
    iy, ix = np.unravel_index(int(np.argmax(resp)), resp.shape)
    return float(ix + half), float(iy + half), float(resp[iy, ix])


def _ink(img: np.ndarray, white: np.ndarray) -> np.ndarray:
    """``1 - mean(B / wB, G / wG, R / wR)`` clipped to ``[0, 1]``, ``(h, w) float32``."""
    coef = (1.0 / (3.0 * np.maximum(np.asarray(white, np.float64), 1.0))).astype(np.float32)
    return np.clip(1.0 - img @ coef, 0.0, 1.0)


def _greenness(img: np.ndarray, white: np.ndarray, mask: np.ndarray) -> float:
    """Median of ``G / wG - max(B / wB, R / wR)`` over ``mask`` of a crop (white-balanced green
    excess: ~0.2-0.3 on a forest's greens, ~0 on the kit's greys, blacks and white paper; an
    additive neutral glare leaves it unchanged)."""
    px = img[mask] / np.maximum(np.asarray(white, np.float32), 1.0)
    return float(np.median(px[:, 1] - np.maximum(px[:, 0], px[:, 2])))


def _inside(frame_shape, homography: np.ndarray, pts_mm: np.ndarray, border: float = 1.0) -> bool:
    """True when every mat point projects finitely inside the frame."""
    px = cv2.perspectiveTransform(np.asarray(pts_mm, np.float64).reshape(-1, 1, 2), homography).reshape(-1, 2)
    h, w = frame_shape[:2]
    return bool(np.all(np.isfinite(px)) and np.all(px >= -0.5 + border)
                and np.all(px[:, 0] <= w - 0.5 - border) and np.all(px[:, 1] <= h - 0.5 - border))


def hex_patch(frame: np.ndarray, homography: np.ndarray, cell: Cell, ppm: float = PPM) -> tuple[np.ndarray, bool]:
    """The square crop round a hex, straightened, and whether it lies wholly inside the frame.

    Parameters
    ----------
    frame : (H, W, 3) uint8 BGR
    homography : (3, 3) float
        Mat mm -> frame px.
    cell : Cell
        A hex cell of the mat (its ``center_mm`` is used).
    ppm : float
        Pixels per mm of the crop (default :data:`PPM`).

    Returns
    -------
    ((n, n, 3) float32, bool)
        The crop, ``2 * HEX_HALF_MM`` mm a side (``n`` px at ``ppm``), BGR 0-255; and ``True``
        when its four corners map inside the frame.
    """
    cx, cy = cell.center_mm
    h = HEX_HALF_MM
    visible = _inside(frame.shape, homography, np.array([[cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h],
                                                         [cx - h, cy + h]]))
    return warp_patch(frame, homography, (cx, cy), h, h, 0.0, ppm), visible


def raw_white(patch: np.ndarray, ppm: float = PPM) -> np.ndarray:
    """The paper's white as measured in a hex crop.

    Parameters
    ----------
    patch : (n, n, 3) float32
        A crop from :func:`hex_patch` at the same ``ppm``.
    ppm : float
        Pixels per mm of the crop.

    Returns
    -------
    (3,) float64
        The 75th percentile of each BGR channel (0-255) over the crop's white (paper) zones.
    """
    wmask = _hex_geometry(ppm)[2]
    return np.percentile(patch[wmask], 75, axis=0).astype(np.float64)


def light_chroma(looks: Sequence[HexLook]) -> np.ndarray:
    """The colour of the light over the board, ``(3,) float64`` BGR with green = 1.

    From the paper where no channel is saturated (median of the white references), else from
    the black rings of the clearings (black reflects the light's colour too, and never
    saturates), else neutral ``(1, 1, 1)``.

    Parameters
    ----------
    looks : sequence of HexLook
        The measures of the hexes read (:func:`look_at_hex`); hexes not in view are skipped.

    Returns
    -------
    (3,) float64
        BGR, green channel 1.
    """
    whites = [lk.white / max(lk.white[1], 1.0) for lk in looks if lk.visible and np.all(lk.white < SATURATED)]
    if whites:
        return np.median(whites, axis=0)
    rings = [lk.ring_bgr / max(lk.ring_bgr[1], 1.0) for lk in looks if lk.visible and lk.clearing_like()]
    return np.median(rings, axis=0) if rings else np.ones(3)


def corrected_white(white: np.ndarray, chroma: np.ndarray) -> np.ndarray:
    """The paper's true white (0-255 scale, may exceed 255) from a measured one whose channels
    may be saturated: a saturated channel is restored from the others and the light's
    ``chroma``; when every channel is saturated, the dimmest paper of that colour consistent
    with the clipping (``255 * chroma / min(chroma)``).

    Parameters
    ----------
    white : (3,) float
        A measured white, BGR 0-255 (a channel at :data:`SATURATED` or above counts as clipped).
    chroma : (3,) float
        The light's colour, BGR with green = 1 (:func:`light_chroma`).

    Returns
    -------
    (3,) float64
        The white, BGR, never below the measured one; unchanged when nothing is clipped.
    """
    w = np.asarray(white, np.float64)
    chroma = np.asarray(chroma, np.float64)
    clipped = w >= SATURATED
    if not clipped.any():
        return w
    if clipped.all():
        return np.maximum(w, 255.0 * chroma / chroma.min())
    k = float(np.median(w[~clipped] / chroma[~clipped]))
    return np.where(clipped, np.maximum(w, k * chroma), w)


def look_at_hex(frame: np.ndarray, homography: np.ndarray, cell: Cell, ppm: float = PPM,
                patch: tuple[np.ndarray, bool] | None = None) -> HexLook:
    """Measure one hex (module docstring): white reference, gap and ring ink, ring and centre colour.

    Parameters
    ----------
    frame : (H, W, 3) uint8 BGR
    homography : (3, 3)
        Mat mm -> frame px.
    cell : Cell
        A hex cell of the Scout Pennant mat.
    ppm : float
    patch : (ndarray, bool), optional
        :func:`hex_patch` of this cell, when already made.

    Returns
    -------
    HexLook
    """
    patch, visible = patch if patch is not None else hex_patch(frame, homography, cell, ppm)
    xx, yy, wmask, kernel, s = _hex_geometry(ppm)
    white = raw_white(patch, ppm)
    p_lo, p_hi = np.percentile(_ink(patch[wmask], white), (10, 90))
    n, k = patch.shape[0], kernel.shape[0]
    o = (n - k) // 2 - s
    inner = patch[o:o + k + 2 * s, o:o + k + 2 * s]            # everything within ~19 mm of the centre
    ink = _ink(inner, white)
    resp = cv2.matchTemplate(np.ascontiguousarray(ink), kernel, cv2.TM_CCORR)
    iy, ix = np.unravel_index(int(np.argmax(resp)), resp.shape)
    dx, dy = (ix - s) / ppm, (iy - s) / ppm
    if resp[iy, ix] < 0.15:                  # no ring (a forest or nothing): measure at the centre
        dx, dy = 0.0, 0.0
    r = np.hypot(xx[o:o + k + 2 * s, o:o + k + 2 * s] - dx, yy[o:o + k + 2 * s, o:o + k + 2 * s] - dy)
    gap_m = (r >= GAP_MM[0]) & (r <= GAP_MM[1])
    ring_m = (r >= RING_MM[0]) & (r <= RING_MM[1])
    quarter = (xx[o:o + k + 2 * s, o:o + k + 2 * s] > dx).astype(np.int8) * 2 + (yy[o:o + k + 2 * s, o:o + k + 2 * s] > dy)
    quarters = [float(np.median(ink[ring_m & (quarter == q)])) for q in range(4)]
    even = min(quarters) / max(max(quarters), 1e-6)
    lo, hi = np.percentile(ink[r <= SPREAD_MM], (10, 90))
    # the pawn's colour is sampled round the pawn's own centre (its black rim kept out of it)
    cx_px, cy_px = (n / 2 - o) + dx * ppm - 0.5, (n / 2 - o) + dy * ppm - 0.5     # in the inner window
    px, py, pawn_resp = _pawn_centre(ink, (cx_px, cy_px), ppm)
    if pawn_resp > PAWN_FOUND:
        rp = np.hypot(xx[o:o + k + 2 * s, o:o + k + 2 * s] - (dx + (px - cx_px) / ppm),
                      yy[o:o + k + 2 * s, o:o + k + 2 * s] - (dy + (py - cy_px) / ppm))
    else:
        rp = r
    clear = gap_m & (rp > GAP_CLEAR_MM)
    gap_bgr = np.median(inner[clear if clear.sum() >= 0.25 * gap_m.sum() else gap_m], axis=0).astype(np.float64)
    glyph = inner[rp <= LETTER_MM] / np.maximum(white.astype(np.float32), 1.0)
    g_lo, g_mid, g_hi = np.percentile(glyph, (5, 50, 95), axis=0)
    wb = inner / np.maximum(white.astype(np.float32), 1.0)
    around = (rp >= LETTER_AROUND_MM[0]) & (rp <= LETTER_AROUND_MM[1])
    # only where the pawn's own centre was found: round the ring's centre the letter may lie off
    # the body and the clearing's grey inside the annulus (development stress stills: red pawns
    # whose centre was not found read -0.07 to -0.05, their letter plainly white)
    sign = float(np.mean(wb[rp <= LETTER_BODY_MM]) - np.mean(wb[around])) if pawn_resp > PAWN_FOUND else None
    return HexLook(visible, white, float(np.median(ink[gap_m])), float(np.median(ink[ring_m])),
                   (float(dx), float(dy)), np.median(inner[ring_m], axis=0).astype(np.float64),
                   np.median(inner[rp <= CENTRE_MM], axis=0).astype(np.float64),
                   float(np.percentile(ink[r <= DARK_MM], 97)), even, float(resp[iy, ix]), float(hi - lo),
                   np.percentile(inner[ring_m], 10, axis=0).astype(np.float64), _greenness(inner, white, gap_m),
                   float(np.max(g_hi - g_mid)), float(np.max(g_mid - g_lo)), float(pawn_resp),
                   float(p_hi - p_lo), gap_bgr, sign)


def piece_reading(look: HexLook, chroma: np.ndarray | None = None,
                  green: tuple[float, float] | None = (GREEN_AT, GREEN_SCALE)) -> Reading:
    """``empty`` / ``clearing`` / ``forest`` from a :class:`HexLook` (module docstring).

    Parameters
    ----------
    look : HexLook
        The hex's measures (:func:`look_at_hex`).
    chroma : (3,) float, optional
        :func:`light_chroma` of the board, for :meth:`HexLook.washed`.
    green : (at, scale) or None
        The frame's forest/clearing boundary of the gap's green excess
        (:func:`~.scout_pennant_colour.green_boundary`, :func:`~.scout_pennant_board.board_green`;
        default the kit's nominal one); ``None`` where the frame shows that the green excess does
        not tell a forest from a clearing: the shape alone decides, with its own margin (never
        the colour's full vote for one side, which the nominal boundary would give).

    Returns
    -------
    Reading
        ``margin`` in units of the decision scales (>= :data:`~assistant.tracking.base.MIN_MARGIN`
        is sure), capped at :data:`CAPPED` (unsure) when the hex looks washed out; confidence 0
        when the hex is not wholly in view.
    """
    size = math.hypot(look.gap, look.ring)
    empty = (EMPTY_BELOW - size) / PRESENT_SCALE
    present = (size - PRESENT_ABOVE) / PRESENT_SCALE
    # colour (the gap's green excess against the frame's boundary) and shape (a clearing's black
    # ring round a lighter gap gives a positive ring-minus-gap response, a forest's dark square a
    # negative one), as log-odds added: either alone can fail (a tinted frame brings the greens
    # close, a strong blur flattens the ring), seldom both
    colour = 0.0 if green is None else float(np.clip((look.green - green[0]) / green[1], -COLOUR_CAP, COLOUR_CAP))
    kind = colour - (look.contrast - RING_AT) / RING_SCALE
    if empty > present:                      # in the dead band between the two both are negative
        label, margin = "empty", empty
    else:
        label, margin = ("forest" if kind > 0 else "clearing"), min(present, abs(kind))
    if green is None and label != "empty" and not (look.contrast < RING_AT - 3 * RING_SCALE
                                                   or look.contrast > RING_AT + 4 * RING_SCALE):
        # the shape alone: sure only as far out as the board's shape-sure pieces
        # (:func:`~.scout_pennant_board.board_green`; a strong blur flattens the ring)
        margin = min(margin, CAPPED)
    if look.washed(chroma):
        margin = min(margin, CAPPED)
    return _reading(label, margin, look)


def _reading(label: str, margin: float, look: HexLook | None) -> Reading:
    if look is not None and not look.visible:
        return Reading(label, 0.0, 0.0)
    return Reading(label, round(_logistic(margin), 4), round(max(0.0, margin), 3))
