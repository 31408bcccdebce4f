"""Reading a whole Scout Pennant board off a frame: every slot from the hexes' measures
(:mod:`.scout_pennant_detect`), and the judgements that take the whole board into account.

- the **light's colour** and the **forest/clearing green boundary** from the board itself
  (:func:`board_green`) and from the mat's references (:mod:`.scout_pennant_colour`);
- **the rules as a prior**: a patrol only on a clearing (:func:`patrol_prior`), an arrow only
  between a clearing and a forest (:func:`arrow_prior`);
- **arrows**: each edge's two zones either side of its midpoint (:func:`arrow_reading`);
- **registration**: the clearings' rings, found where they lie, tell a homography that is off
  (moved or turned) from pieces a hand laid a little off their places
  (:func:`registration_suspect`); with a suspect homography nothing is read sure.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Sequence

import numpy as np

from ...tracking.base import MIN_MARGIN, Reading
from ..mats import Edge, MatLayout, mat_layout
from .scout_pennant import GAME
from .scout_pennant_colour import green_boundary, pennant_refs
from .scout_pennant_detect import (CAPPED, EMPTY_BELOW, GREEN_AT, GREEN_SCALE, PPM, PRESENT_ABOVE, RING_AT,
                                   RING_SCALE, HexLook, _ink, _logistic, _reading, light_chroma, look_at_hex,
                                   piece_reading, warp_patch)
from .scout_pennant_patrol import board_grey, patrol_reading

SHIFT_SUSPECT_MM = 1.2      #: the clearings' common shift beyond which the homography is suspect (if significant)
PLACE_MM = 2.5              #: how far off its place a hand lays a piece (uniform in a disc; the kit photographs' stress range)
SUSPECT_Z = 3.0             #: standard errors of hand placement beyond which the clearings' shifts doubt the homography

ARROW_ZONE_MM = (1.0, 4.0, 2.5)        #: along from, along to, half across
ARROW_NONE_BELOW, ARROW_ABOVE, ARROW_SCALE = 0.17, 0.40, 0.05   #: darker zone's ink: none, dead band, arrow
ARROW_SIDE_SCALE = 0.08                        #: ink difference of the two zones
#: the two zones' ink difference over the edge's clearing ring's ink (the print's black as this
#: frame shows it) above which an edge the absolute inks leave unsure reads an arrow, and its scale;
#: no such reading below a ring ink of ARROW_BLACK_MIN (no black to compare with). Tuned on the
#: development stress stills 3,000-3,239 (issue 18): bare edges between pieces read one clearing
#: and one forest reach 0.36 (99.9th percentile of 3,363; largest 0.49), drawn arrows 0.55 (0.1th
#: percentile of 13,576; the ring taken against its own white). The darker zone must also reach
#: ARROW_NONE_BELOW (an absolute floor: a faint shadow of ink 0.1 beside paper is no head, whatever
#: the ring's ink); on those stills the drawn arrows so read have a darker zone of 0.175 or more
#: (144 of 144 kept)
ARROW_REL_AT, ARROW_REL_SCALE, ARROW_BLACK_MIN = 0.45, 0.1, 0.15


def ring_black(ring: float, ring_white: np.ndarray, edge_white: np.ndarray) -> float:
    """A clearing's ring ink re-expressed against the white an edge's zones are measured with.

    :attr:`HexLook.ring` is ink against the clearing's own paper white ``ring_white`` (``1 -
    mean(B / wB, G / wG, R / wR)``), an edge's zones against ``edge_white`` (the mean of its two
    hexes' whites); where these differ the ratio of the two inks would be biased (whites 200 and
    250 inflate it 1.33x). Taking the ring's black as grey (the same level ``1 - ring`` of each
    channel's white), its ink against ``edge_white`` is ``1 - (1 - ring) * mean(w_c / e_c)``.

    Parameters
    ----------
    ring : float
        The ring's median ink (0-1) against ``ring_white``.
    ring_white, edge_white : (3,) float
        BGR paper whites (0-255); values below 1 count as 1.

    Returns
    -------
    float
        The ring's ink against ``edge_white``, clipped to ``[0, 1]``.
    """
    scale = np.maximum(np.asarray(ring_white, np.float64), 1.0) / np.maximum(np.asarray(edge_white, np.float64), 1.0)
    return float(np.clip(1.0 - (1.0 - ring) * float(np.mean(scale)), 0.0, 1.0))


@lru_cache(maxsize=4)
def _arrow_zones(ppm: float):
    """Masks of the zones behind ``a`` (x < 0) and behind ``b`` (x > 0) on an edge crop."""
    x0, x1, half = ARROW_ZONE_MM
    hw, hh = x1 + 0.5, half + 0.5
    w, h = int(round(2 * hw * ppm)), int(round(2 * hh * ppm))
    xs = -hw + (np.arange(w) + 0.5) / ppm
    ys = -hh + (np.arange(h) + 0.5) / ppm
    xx, yy = np.meshgrid(xs, ys)
    across = np.abs(yy) <= half
    return hw, hh, across & (xx <= -x0) & (xx >= -x1), across & (xx >= x0) & (xx <= x1)


def arrow_reading(frame: np.ndarray, homography: np.ndarray, edge: Edge, white: np.ndarray,
                  ppm: float = PPM, visible: bool = True, washed: bool = False,
                  black: float | None = None) -> Reading:
    """``none`` / ``forward`` (``edge.a -> edge.b``) / ``backward`` on one edge (module docstring).

    The darker zone's ink against fixed levels says whether an arrow's solid head lies there.
    Glare, a lamp that clips the paper and a strong defocus lift the head's black to an ink of
    0.2-0.3 (the dead band between ``none`` and an arrow); there the two zones' difference
    measured against the print's black *as the same frame shows it* (``black``: the ink of the
    ring of the edge's clearing, printed in the same black, as blurred and as lifted) still tells
    the head from the hollow tail (issue 18: the development stress stills' 149 drawn arrows read
    ``none``). Only an unsure or washed ``none`` can turn into an arrow that way, and the arrow so
    read is unsure (margin at most ``CAPPED``); a sure ``none`` or any arrow is left as read.

    Parameters
    ----------
    frame : (H, W, 3) uint8 BGR
    homography : (3, 3)
    edge : Edge
        ``edge.a < edge.b`` as the slot's cells are ordered.
    white : (3,) float
        Paper white near the edge (the mean of its two hexes'), BGR 0-255.
    ppm : float
    visible : bool
        Both hexes lie inside the frame (else confidence 0).
    washed : bool
        A hex of the edge is washed out (:meth:`HexLook.washed`): the reading is capped unsure.
    black : float, optional
        Median ink (0-1) of the ring of the edge's clearing, against ``white`` (:func:`ring_black`),
        when its two pieces read one clearing and one forest (:func:`read_slots`); ``None`` (or
        below :data:`ARROW_BLACK_MIN`): the relative reading is not made. Nor is it where the
        darker zone's ink is below :data:`ARROW_NONE_BELOW` (a faint shadow beside paper).

    Returns
    -------
    Reading
        ``margin`` in units of the ink-contrast scale (>= ``MIN_MARGIN`` is sure; of
        :data:`ARROW_REL_SCALE` for an arrow read against ``black``, at most ``CAPPED``);
        confidence 0 when not ``visible``.
    """
    hw, hh, zone_a, zone_b = _arrow_zones(ppm)
    patch = warp_patch(frame, homography, edge.midpoint_mm, hw, hh, edge.angle_deg, ppm)
    ink = _ink(patch, white)
    ia, ib = float(np.median(ink[zone_a])), float(np.median(ink[zone_b]))
    darker = max(ia, ib)
    none = (ARROW_NONE_BELOW - darker) / ARROW_SCALE
    present = (darker - ARROW_ABOVE) / ARROW_SCALE
    side = (ib - ia) / ARROW_SIDE_SCALE
    if none > present:
        label, margin = "none", none
    else:
        label, margin = ("forward" if side > 0 else "backward"), min(present, abs(side))
    if (label == "none" and (margin < MIN_MARGIN or washed) and black is not None and black >= ARROW_BLACK_MIN
            and darker >= ARROW_NONE_BELOW and abs(ib - ia) / black > ARROW_REL_AT):
        label = "forward" if ib > ia else "backward"
        margin = min((abs(ib - ia) / black - ARROW_REL_AT) / ARROW_REL_SCALE, CAPPED)
    if washed:
        margin = min(margin, CAPPED)
    if not visible:
        return Reading(label, 0.0, 0.0)
    return Reading(label, round(_logistic(margin), 4), round(max(0.0, margin), 3))


def _bgr_image(a, name: str) -> np.ndarray:
    """``a`` as an ``(H, W, 3) uint8`` array; ValueError naming ``name`` for any other shape or dtype."""
    a = np.asarray(a)
    if a.ndim != 3 or a.shape[2] != 3 or a.dtype != np.uint8:
        raise ValueError(f"{name} must be (H, W, 3) uint8 BGR, got {a.shape} {a.dtype}")
    return a


def read_slots(frame: np.ndarray, homography: np.ndarray | None, slots: Sequence[tuple],
               layout: MatLayout | None = None, ppm: float = PPM) -> dict[tuple, Reading]:
    """Read Scout Pennant slots off one frame.

    Parameters
    ----------
    frame : (H, W, 3) uint8 BGR
        Undistorted.
    homography : (3, 3) or None
        Mat mm -> frame px; ``None`` (no board found) reads nothing.
    slots : sequence of tuple
        ``("piece", q, r)``, ``("patrol", q, r)``, ``("arrow", q1, r1, q2, r2)`` (see
        :mod:`assistant.tracking.scout_pennant`).
    layout : MatLayout, optional
        Default ``mat_layout("scout-pennant")``.
    ppm : float

    Returns
    -------
    dict slot -> Reading
        One reading per slot the mat has (unknown slots are left out); ``{}`` without a
        homography.

    Raises
    ------
    ValueError
        For a frame that is not ``(H, W, 3) uint8``.
    """
    frame = _bgr_image(frame, "frame")
    if homography is None or not np.all(np.isfinite(homography)):
        return {}
    layout = layout or mat_layout(GAME)
    cells = {c.key: c for c in layout.cells}
    edges = {(e.a, e.b) if e.a < e.b else (e.b, e.a): e for e in layout.edges}
    needed: set = set()
    for slot in slots:
        if slot[0] in ("piece", "patrol"):
            needed.add((slot[1], slot[2]))
        elif slot[0] == "arrow":
            needed |= {(slot[1], slot[2]), (slot[3], slot[4])}
    needed &= set(cells)
    # the light's colour from the needed hexes, and a spread of others (every third cell) when few are needed
    sample = needed if len(needed) >= 12 else needed | {k for k in cells if (k[0] + 2 * k[1]) % 3 == 0}
    looks = {k: look_at_hex(frame, homography, cells[k], ppm) for k in sorted(sample)}
    chroma = light_chroma(list(looks.values()))
    misregistered = registration_suspect(list(looks.values()))
    refs = pennant_refs(frame, homography, layout)
    # where every strip's paper clips, the strips read against the dimmest paper the clipping allows
    # (for pawns whose paper clips too, :func:`~.scout_pennant_patrol.patrol_reading`)
    clipped_refs = pennant_refs(frame, homography, layout, clipped=True) if refs is None else None
    green = board_green(list(looks.values()), green_boundary(refs, (GREEN_AT, GREEN_SCALE)))
    pieces: dict = {}

    def look(key):
        if key not in looks:
            looks[key] = look_at_hex(frame, homography, cells[key], ppm)
        return looks[key]

    nbrs: dict = {}
    for a, b in edges:
        nbrs.setdefault(a, []).append(b)
        nbrs.setdefault(b, []).append(a)

    def blind(key) -> bool:
        # looks empty, with glare on a clearing beside it: a glare spot may clip a whole piece to white
        lk = look(key)
        if math.hypot(lk.gap, lk.ring) >= EMPTY_BELOW:
            return False
        return any(look(n).glared_beside() for n in nbrs.get(key, ()))

    def piece_of(key) -> Reading:
        if key not in pieces:
            lk = look(key)
            piece = piece_reading(lk, chroma, green)
            if piece.sure and blind(key):
                piece = _reading(piece.label, min(piece.margin, CAPPED), lk)
            pieces[key] = piece
        return pieces[key]

    # the bare clearings' middle as this board shows it (from the sampled hexes, once)
    bare: list = []

    def bare_grey():
        if not bare:
            sampled = sorted(k for k in sample if k in cells)
            bare.append(board_grey([(looks[k], piece_of(k)) for k in sampled], chroma, refs, clipped_refs))
        return bare[0]

    out: dict[tuple, Reading] = {}
    for slot in slots:
        kind = slot[0]
        if kind in ("piece", "patrol") and (slot[1], slot[2]) in cells:
            key = (slot[1], slot[2])
            piece = piece_of(key)
            out[slot] = piece if kind == "piece" else patrol_prior(
                patrol_reading(look(key), piece, chroma, refs, clipped_refs, bare_grey()), piece)
        elif kind == "arrow" and ((slot[1], slot[2]), (slot[3], slot[4])) in edges:
            a, b = (slot[1], slot[2]), (slot[3], slot[4])
            e = edges[(a, b)]
            la, lb = look(a), look(b)
            if (e.a, e.b) != (a, b):           # the layout lists it the other way round
                e = Edge(a, b, e.midpoint_mm, (e.angle_deg + 180.0) % 360.0)
            pa, pb = piece_of(a), piece_of(b)
            # the print's black beside the edge: the ring of the hex read clearing, where the
            # pieces read (sure or not) the one pair an arrow lies between (rules §2.4), as ink against
            # the same white as the edge's zones
            white = (la.white + lb.white) / 2
            lc = la if pa.label == "clearing" else lb
            black = ring_black(lc.ring, lc.white, white) if {pa.label, pb.label} == {"clearing", "forest"} else None
            raw = arrow_reading(frame, homography, e, white, ppm, la.visible and lb.visible,
                                la.washed(chroma) or lb.washed(chroma) or la.lifted(chroma) or lb.lifted(chroma)
                                or blind(a) or blind(b), black)
            out[slot] = arrow_prior(raw, pa, pb)
    if misregistered:
        out = {slot: Reading(r.label, 0.0, 0.0) for slot, r in out.items()}
    return out


def board_green(looks: Sequence[HexLook],
                fallback: tuple[float, float] | None) -> tuple[float, float] | None:
    """The frame's forest/clearing boundary of the gap's green excess, from the board itself:
    the hexes whose shape alone says forest (ring-minus-gap response below ``RING_AT - 3
    RING_SCALE``) or clearing (above ``RING_AT + 4 RING_SCALE``) show this frame's forest and
    clearing greens; the boundary lies midway between their medians, the scale is a sixth of
    their distance (at least 0.008). Where the forests' median green excess lies less than 0.02
    above the clearings' the colour does not tell the two apart on this board, and ``None`` says
    so; where the references already said so (``fallback`` None) the board's pieces overrule
    them only when no shape-sure forest is less green than a shape-sure clearing:
    the pieces are then read by their shape alone (:func:`~.scout_pennant_detect.piece_reading`;
    a nominal boundary there called every forest of the held-out still 2,054,015 a clearing).

    Parameters
    ----------
    looks : sequence of HexLook
        The hexes measured (a spread over the board).
    fallback : (at, scale) or None
        Used with fewer than two of either (an early board has no forest): the references' or
        the nominal boundary, ``None`` where the references show no green cue
        (:func:`~.scout_pennant_colour.green_boundary`).

    Returns
    -------
    (float, float) or None
        ``(at, scale)`` in white-balanced green excess, or ``None`` (no colour cue).
    """
    shown = [lk for lk in looks if lk.visible and math.hypot(lk.gap, lk.ring) > PRESENT_ABOVE]
    forests = [lk.green for lk in shown if lk.contrast < RING_AT - 3 * RING_SCALE]
    clearings = [lk.green for lk in shown if lk.contrast > RING_AT + 4 * RING_SCALE]
    if len(forests) < 2 or len(clearings) < 2:
        return fallback
    f, c = float(np.median(forests)), float(np.median(clearings))
    if f - c < 0.02:
        return None
    if fallback is None and min(forests) <= max(clearings):
        # the references say the greens overlap in this frame, and the board's pieces do not
        # disprove it (a review finding: a median of two a side is weak evidence against them)
        return None
    return (f + c) / 2, max(0.008, (f - c) / 6)


def patrol_prior(patrol: Reading, piece: Reading) -> Reading:
    """The rules as a prior (rules §2.3): a patrol stands only on a clearing. On a hex whose piece
    reads ``forest`` or ``empty``, the patrol reads ``none`` with the piece's confidence and
    margin, keeping a colour it saw among its ``alternatives`` (what lies there is no patrol,
    whatever the forest's greens look like under the light). This holds for an unsure piece
    reading too (since issue 18): its label is the likelier one, so ``none`` is the likelier
    patrol (``P(none) >= P(no clearing)``), read as unsure as the piece.

    Parameters
    ----------
    patrol : Reading
        The hex's patrol as its colour read (:func:`patrol_reading`).
    piece : Reading
        The same hex's piece.

    Returns
    -------
    Reading
    """
    if piece.label == "clearing" or patrol.label == "none" and patrol.sure:
        return patrol
    seen = () if patrol.label == "none" else (patrol.label,)
    return Reading("none", piece.confidence, piece.margin, seen)


def arrow_prior(arrow: Reading, a: Reading, b: Reading) -> Reading:
    """The rules as a prior (rules §2.4): an arrow lies only between a clearing and a forest.
    When both hexes' pieces read for sure and are not one clearing and one forest, the edge
    reads ``none`` with the surer piece reading's confidence, keeping an arrow it saw among its
    ``alternatives`` (a bare side in a bright picture is not an arrow, however dark its shadow).

    Parameters
    ----------
    arrow : Reading
        The edge as its ink read (:func:`arrow_reading`).
    a, b : Reading
        The pieces of its two hexes.

    Returns
    -------
    Reading
    """
    if not (a.sure and b.sure) or {a.label, b.label} == {"clearing", "forest"}:
        return arrow
    if arrow.label == "none" and arrow.sure:
        return arrow
    surer = min((a, b), key=lambda r: (r.margin, r.confidence))
    return Reading("none", surer.confidence, surer.margin, () if arrow.label == "none" else (arrow.label,))


def registration_suspect(looks: Sequence[HexLook]) -> bool:
    """True when the clearings lie off their cells *together*: the homography is wrong (e.g.
    fitted to three blurred markers), and nothing read with it is sure.

    A homography error moves every clearing the same way (a translation) or by a smooth field
    (a turn or a scale about some point); a hand lays each piece off its place on its own. So the
    clearing rings found (``HexLook.shift_mm``, ``n`` of them) are compared with what hand
    placement alone gives, each piece uniform in a disc of radius ``R =``
    :data:`PLACE_MM` (per axis mean 0, variance ``R^2 / 4``; ``|s|^2`` uniform on
    ``[0, R^2]``, mean ``R^2 / 2``, variance ``R^4 / 12``), by two statistics at
    :data:`SUSPECT_Z` standard errors:

    - the **common shift** ``|mean(s)|`` above ``SUSPECT_Z * R / (2 sqrt(n))`` and above
      :data:`SHIFT_SUSPECT_MM` (a translation large enough to matter). The length of a 2-D
      mean passes ``SUSPECT_Z`` standard errors with probability ``exp(-SUSPECT_Z**2 / 2)``
      (Rayleigh), about 1.1 %: with fewer than about 10 clearings in view, where the first
      bound is the larger, a right homography is doubted about once in 90 reads (every slot
      then unsure); with more, the 1.2 mm floor makes it negligible;
    - the **mean squared shift** ``mean(|s|^2)`` above ``R^2 / 2 + SUSPECT_Z * R^2 / sqrt(12 n)``
      (clearings found further off than hands lay them: a turn or scale, or a translation beyond
      the search of :data:`~.scout_pennant_detect.SHIFT_MM`, which finds them at its edge).

    The earlier test (median ``|s|`` above 1.6 mm, or a third of the clearings at the edge of the
    search) assumed pieces within ~1.5 mm of their place, as the project's renderer lays them;
    on the kit photographs (pieces up to 2-2.5 mm off, :mod:`assistant.bench.kit_photos`) whose
    marker homography is within ~1 mm everywhere it doubted most pictures.

    Parameters
    ----------
    looks : sequence of HexLook
        The measures of the hexes read (all of them, for a fair mean).

    Returns
    -------
    bool
        False with fewer than three clearing-like hexes in view (nothing to judge by).
    """
    shifts = np.array([lk.shift_mm for lk in looks if lk.visible and lk.clearing_like()], np.float64)
    n = len(shifts)
    if n < 3:
        return False
    common = float(np.hypot(*shifts.mean(axis=0)))
    if common > max(SHIFT_SUSPECT_MM, SUSPECT_Z * PLACE_MM / (2.0 * math.sqrt(n))):
        return True
    square = float(np.mean(np.sum(shifts ** 2, axis=1)))
    return square > PLACE_MM ** 2 / 2.0 + SUSPECT_Z * PLACE_MM ** 2 / math.sqrt(12.0 * n)


def all_slots(layout: MatLayout | None = None) -> list[tuple]:
    """Every slot of the mat: pieces and patrols of each hex, then the arrows of each edge.

    Parameters
    ----------
    layout : MatLayout, optional
        Default ``mat_layout("scout-pennant")``.

    Returns
    -------
    list of tuple
        ``("piece", q, r)``, ``("patrol", q, r)`` per cell, then ``("arrow", q1, r1, q2, r2)``
        per edge with ``(q1, r1) < (q2, r2)`` (278 for the printed mat).
    """
    layout = layout or mat_layout(GAME)
    out: list[tuple] = []
    for c in layout.cells:
        out += [("piece", *c.key), ("patrol", *c.key)]
    for e in layout.edges:
        a, b = (e.a, e.b) if e.a < e.b else (e.b, e.a)
        out.append(("arrow", *a, *b))
    return out


def detect_image(image: np.ndarray, homography: np.ndarray | None = None,
                 layout: MatLayout | None = None) -> dict[tuple, Reading]:
    """Every slot of one still image (``assistant detect``).

    Parameters
    ----------
    image : (H, W, 3) uint8 BGR
        Undistorted.
    homography : (3, 3), optional
        Mat mm -> image px (e.g. from ``--corners``); when ``None`` the mat's ArUco markers
        are looked for (:func:`~assistant.vision.registration.register`).
    layout : MatLayout, optional

    Returns
    -------
    dict slot -> Reading
        ``{}`` when there is no homography and the markers are not found (F5: no board is a
        state, not an error); see :func:`board_homography` for the reason.

    Raises
    ------
    ValueError
        For an image that is not ``(H, W, 3) uint8``.
    """
    layout = layout or mat_layout(GAME)
    if homography is None:
        homography, _reason = board_homography(image, layout)
    return read_slots(image, homography, all_slots(layout), layout)


def board_homography(image: np.ndarray, layout: MatLayout | None = None) -> tuple[np.ndarray | None, str]:
    """The mat's homography from its ArUco markers, or ``(None, reason)`` ("2 of 4 markers seen").

    Parameters
    ----------
    image : (H, W, 3) uint8 BGR
    layout : MatLayout, optional
        Default ``mat_layout("scout-pennant")``.

    Returns
    -------
    ((3, 3) float64 or None, str)
        Mat mm -> image px and ``"ok"``; or ``None`` and the registration's reason.

    Raises
    ------
    ValueError
        For an image that is not ``(H, W, 3) uint8``.
    """
    from ..registration import detect_markers, make_detector, register

    image = _bgr_image(image, "image")
    fit = register(detect_markers(image, make_detector()), layout or mat_layout(GAME))
    if not fit:
        return None, str(getattr(fit, "reason", "board not found"))
    return fit.homography, "ok"
