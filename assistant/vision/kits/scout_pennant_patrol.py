"""Reading a Scout Pennant clearing's patrol (``none`` or a pawn colour) from its measures.

The hex is measured by :mod:`.scout_pennant_detect` (:class:`~.scout_pennant_detect.HexLook`);
this module decides what stands on it (module docstring of :mod:`.scout_pennant_detect`,
"patrol"): the colour's likelihood against the mat's references
(:func:`~.scout_pennant_colour.colour_scores`), the printed letter (a white one seen counts for
red, blue and green; since issue 18 no white letter where one would show counts against them,
deciding between close colours without making the reading surer; and whether the letter's
body is lighter or darker than the pawn's colour round it, :func:`letter_sign_odds`, which
survives a blur), and (since issue 18) the pawn's presence told by its shape first and its
colour second (:func:`pawn_presence`), the colours ranked with a blur's mixing of letter and rim
allowed for (:func:`~.scout_pennant_colour.blurred_scores`), and a bare clearing compared with
the board's own bare grey as well as the mat strip's (:func:`board_grey`). The rules' prior (a patrol only on a clearing) is applied on the whole board
(:func:`~.scout_pennant_board.patrol_prior`).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ...tracking.base import Reading
from .scout_pennant import PAWN_COLOURS
from .scout_pennant_colour import SHOULDER, blurred_scores, colour_scores, nominal_refs
from .scout_pennant_detect import CAPPED, PAWN_FOUND, SATURATED, HexLook, _reading, corrected_white

COLOUR_GAIN = 1.0                              #: log-likelihood difference -> margin
#: a pawn's outline: the middle's ink spread beyond the paper's own (:attr:`HexLook.spread` minus
#: :attr:`HexLook.paper_spread`, so that a noisy or strongly tinted frame, whose dim channels
#: spread the ink of plain grey as much as of paper, is not read as pawns): boundary, scale,
#: bound. On the second renderer's development stress stills (kit_photos seeds 3000-3119) the
#: excess is <= 0.032 on 99 % of bare clearings and >= 0.019 / 0.034 / 0.10 on 99 % of yellow /
#: purple / red pawns; the boundary lies above the bare clearings (yellow's low tail is told by
#: the rim and the colour)
SPREAD_AT, SPREAD_SCALE, SPREAD_CAP = 0.04, 0.02, 3.0
BLACK_LEVEL = 0.15                             #: what the kit's black shows of the paper's white
BLACK_FLOOR = 0.10                             #: the least it can show (printed black is ~0.12)
BRIGHT_STEPS = (1.0, 1.25, 1.6, 2.0, 2.6, 3.5)  #: how far beyond 255 a saturated paper may be
#: the white letter (:attr:`HexLook.letter_light`, share of white): boundary, scale, bound. The
#: boundary was 0.30 until issue 18, where blurred letters give no evidence; on the development
#: stress stills (as above) red, blue and green pawns show medians 0.24-0.27 (5th percentiles
#: 0.12-0.17), the black-lettered ones 0.07-0.10 (95th percentiles 0.13-0.22), bare clearings 0.035
LETTER_AT, LETTER_SCALE, LETTER_CAP = 0.18, 0.03, 3.0
#: no white letter where one would show: evidence *against* red, blue and green (boundary, scale,
#: bound). A blur weakens the letter but seldom hides it whole: on the development stress stills
#: (as above) 8 of 679 white-lettered pawns show less than 0.10 (none of 463 on the normal ones,
#: kit_photos seeds 3000-3079), while the black-lettered ones' medians are 0.07-0.10 and bare
#: clearings' 0.035. Until issue 18 only a light outlier counted, and purple pawns whose colour
#: a clipped, tinted light brought close to red read red (9 on those stills; 3 since)
#: Since issue 18's blur mixing (:func:`~.scout_pennant_colour.blurred_scores`) it counts
#: only where the pawn's own centre was found (:attr:`HexLook.pawn` above ``PAWN_FOUND``, as the letter
#: sign): the own renders' blur, whose red pawns lose rim and letter alike, read 7 of them orange
LETTER_NONE_AT, LETTER_NONE_SCALE, LETTER_NONE_CAP = 0.10, 0.02, 3.0
#: a pawn's black rim (:attr:`HexLook.pawn`, the rim-minus-surround response): boundary, scale,
#: bound (development stress stills as above: bare clearings <= 0.045 for 99 %, median 0.006;
#: pawns' median 0.08-0.18)
PAWN_AT, PAWN_SCALE, PAWN_CAP = 0.04, 0.02, 3.0
#: how far the colour alone (the best pawn colour's log-likelihood over the background's) may move
#: the presence decision: a light that clips or tints the middle can make a bare clearing's grey
#: fit a colour (or a pawn fit the grey) by tens of log-units, the shape cues above cannot
TINT_CAP = 4.0
#: the letter's body against the pawn's colour round it (:attr:`HexLook.letter_sign`), log-odds
#: of a white letter over a black one: boundary, scale, bound. On the second renderer's
#: development stress stills (kit_photos seeds 3000-3239, pawns on clearings) red, blue and green
#: show medians 0.21 / 0.32 / 0.26 (5th percentiles 0.00 / 0.10 / 0.12), yellow, purple and orange
#: -0.045 / -0.033 / -0.055 (95th percentiles 0.065 / 0.026 / 0.046); normal stills (2,001,001-016)
#: 0.20 or more and -0.06 or less. On those stress stills (14,640 patrol slots, the sign then
#: measured round the ring's centre too, and counted in full both ways) boundaries 0.04 / 0.06 /
#: 0.08 read 80 / 79 / 84 wrong, a scale of 0.03 79, a bound of 5 82. Since issue 18's review a
#: negative value counts only as a letter's absence (:func:`patrol_reading`)
LETTER_SIGN_AT, LETTER_SIGN_SCALE, LETTER_SIGN_CAP = 0.06, 0.02, 3.0
#: :func:`board_grey`: a clearing counts as bare where its shape log-odds (:func:`pawn_shape`)
#: lie below this, and at least this many such clearings are needed
BARE_SHAPE, BOARD_GREY_MIN = 0.0, 4
WHITE_LETTERED = frozenset(p.name for p in PAWN_COLOURS if tuple(p.ink) == (255, 255, 255))   #: red, blue, green


def patrol_reading(look: HexLook, piece: Reading | str, chroma: np.ndarray | None = None,
                   refs: dict[str, np.ndarray] | None = None,
                   clipped_refs: dict[str, np.ndarray] | None = None,
                   board_grey: np.ndarray | None = None) -> Reading:
    """``none`` or a pawn colour from a :class:`HexLook` (module docstring).

    Each colour's score is its best over an additive glare from 0 up to what the clearing's
    black ring shows beyond black, and, when the paper saturates in every channel, over how
    bright it really is, up to what the ring allows (:func:`colour_scores`), so a pawn washed out
    by glare or saturated by a lamp reads unsure rather than as another colour. On a clearing the
    letter adds its evidence (:data:`LETTER_AT`, :data:`LETTER_NONE_AT`, the absence only where the
    pawn's own centre was found); where the absence of a
    white letter changes the reading, or a white letter is seen on a pawn read in a
    black-lettered colour, it is capped unsure; the absence never raises the margin. The letter's
    body against the colour round it (:func:`letter_sign_odds`) counts the same way: lighter (a
    white letter) for red, blue and green in full; no lighter (a black letter, or none seen: a
    hidden letter and a bare clearing measure about 0) against them only as the absence does.
    A pawn ink known only as a lower bound in a channel
    (:attr:`~.scout_pennant_colour.PennantRefs.at_least`) fits any level from it up to paper
    there; the backgrounds' references are taken as they read. On a clearing the pawn colours
    are ranked with a blur's mixing of letter and rim into the sampled colour allowed for
    (:func:`~.scout_pennant_colour.blurred_scores`; issue 18), while whether a pawn stands there
    is told by the plain likelihood (:func:`pawn_presence`); ``none`` also fits the board's own
    bare grey where given (``board_grey``), a reading that this tips asking.

    Parameters
    ----------
    look : HexLook
    piece : Reading or str
        The piece read on the same hex: the background is the clearing's grey, the forest's
        greens or white paper; an unsure piece reading allows any of them and caps this reading
        unsure too.
    chroma : (3,) float, optional
        :func:`light_chroma` of the board (default neutral).
    refs : dict, optional
        The frame's reference inks (:func:`~.scout_pennant_colour.pennant_refs`): the pawn
        colours and the backgrounds as this camera shows them, instead of the kit's nominal inks.
    clipped_refs : dict, optional
        Without ``refs``, the references of strips whose paper clips in every channel, read
        against the dimmest paper the clipping allows (``pennant_refs(..., clipped=True)``).
        They share an unknown factor, so they serve only a pawn on a clearing whose paper clips
        in every channel too and whose grey beside it does not (:func:`grey_told`): that grey,
        divided by the strips' clearing grey, sets the paper's level in the same units
        (:func:`grey_white`), and the pawn is compared with the reference inks as the frame's
        light shows them. (Issue 18: before, such a pawn was compared with the kit's nominal
        inks, and under a pink light two red pawns whose white letter was seen read purple;
        second renderer's normal development stills, kit_photos seeds 3000-3239.)
    board_grey : (3,) float, optional
        The bare clearings' middle as this frame's board shows it (:func:`board_grey`), BGR
        white-balanced level: ``none`` fits it as well as the mat strip's clearing grey (the
        better of the two counts).

    Returns
    -------
    Reading
        Label ``none`` or one of :data:`~assistant.vision.kits.scout_pennant.COLOUR_NAMES`;
        capped unsure when the piece reading is unsure; confidence 0 when the hex is not wholly
        in view.
    """
    piece_label = piece if isinstance(piece, str) else piece.label
    inks, white, scaled = _inks_and_white(look, piece_label, chroma, refs, clipped_refs)
    sure_piece = isinstance(piece, str) or piece.sure
    g_max = 0.0
    core = look.ring_bgr if look.ring_core_bgr is None else look.ring_core_bgr
    if piece_label == "clearing" and look.clearing_like():
        # the ring is black: what it shows beyond black may be light added on top (glare)
        g_max = float(np.clip(np.mean(core) - BLACK_LEVEL * np.mean(white), 0.0, None))
    bright: tuple = (1.0,)
    if g_max > 0 and np.all(np.asarray(look.white) >= SATURATED) and not scaled:
        # saturated paper hides how bright the light is; the black ring (never saturated) bounds it
        k_max = float(np.min(core / BLACK_FLOOR / np.maximum(white, 1.0)))
        bright = tuple(k for k in BRIGHT_STEPS if k <= max(1.0, k_max))
    greens = [inks["forest"], inks["forest:light"], (inks["forest"] + inks["forest:light"]) / 2]
    grey, paper = inks["clearing"], np.ones(3)
    bare = [grey] if board_grey is None else [grey, np.asarray(board_grey, np.float64)]
    backs = {"forest": greens, "clearing": bare, "empty": [paper]}[piece_label] if sure_piece else greens + bare + [paper]
    names = [p.name for p in PAWN_COLOURS]
    refl = np.array([inks[n] for n in names] + backs)
    # pawn inks whose reference patch clipped: only a lower bound (:class:`~.scout_pennant_colour.PennantRefs`)
    at_least = getattr(inks, "at_least", {})
    no_bound = np.zeros(3, bool)
    bounded = np.array([at_least.get(n, no_bound) for n in names] + [no_bound] * len(backs))
    ll = colour_scores(look.centre_bgr, refl, white, g_max, bright, bounded if bounded.any() else None)
    # which colour: the colours ranked with a blur's mixing of letter and rim allowed for
    # (:func:`blurred_scores`); whether a pawn at all: the plain likelihood (:func:`pawn_presence`)
    hue = dict(zip(names, ll[:len(names)].tolist()))
    if piece_label == "clearing":
        k = len(names)
        hue = dict(zip(names, blurred_scores(look.centre_bgr, refl[:k], white, g_max, bright,
                                              bounded[:k] if bounded.any() else None).tolist()))
    # "none" first: on a tie (a middle clipped to white fits every colour) the commoner reading wins
    scores = {"none": float(ll[len(names):].max()), **dict(zip(names, ll[:len(names)].tolist()))}
    # "none" without the board's own bare grey (the last background, where given)
    own = [i for i, b in enumerate(backs) if board_grey is not None and b is bare[-1]]
    strip_none = float(np.delete(ll[len(names):], own).max()) if own else scores["none"]
    tipped = False
    if piece_label == "clearing":
        # the letter: white on red, blue and green, black on the others; a light outlier in the
        # pawn's middle for, its absence (below what a blurred white letter still shows) against
        white_letter = float(np.clip((look.letter_light - LETTER_AT) / LETTER_SCALE, 0.0, LETTER_CAP))
        # no white letter seen counts only where the pawn's own centre was found (as the sign): round
        # the ring's centre the 4 mm window may miss a letter lying up to 3.2 mm off, and a blur
        # that hid the rim hides the letter too (own renders' blur: red pawns read orange)
        centred = look.pawn is None or look.pawn > PAWN_FOUND
        no_letter = float(np.clip((LETTER_NONE_AT - look.letter_light) / LETTER_NONE_SCALE, 0.0, LETTER_NONE_CAP)) if centred else 0.0
        # the letter's body lighter than the pawn's colour round it: a white letter, for; no
        # lighter (a black letter, but a hidden letter or a bare clearing too): against, as the
        # absence above
        lettered = letter_sign_odds(look)
        for name in WHITE_LETTERED:
            scores[name] += white_letter + max(lettered, 0.0)
            hue[name] += white_letter + max(lettered, 0.0)
        # a letter's absence decides between close colours but never makes a reading surer (a
        # letter may be hidden after all): a reading it tipped asks
        against = no_letter + max(-lettered, 0.0)
        unlettered = {n: v - against if n in WHITE_LETTERED else v for n, v in scores.items()}
        hue_unlettered = {n: v - against if n in WHITE_LETTERED else v for n, v in hue.items()}
        label, margin = pawn_presence(look, unlettered, hue_unlettered)
        label0, margin0 = pawn_presence(look, scores, hue)
        # and a white letter seen on a pawn read in a black-lettered colour: they disagree, ask
        # (development stress stills: sure wrong 3 -> 2, right but unsure +19 of 2,869; normal: none)
        tipped = label != label0 or (white_letter > 0 and label != "none" and label not in WHITE_LETTERED)
        margin = min(margin, margin0)
        # the board's bare grey decides between a pawn and none where the strip's grey fits
        # neither, but never makes a reading surer: a reading it tipped asks, and the margin is at
        # most the one without it (the board grey rests on the clearings of the hexes read, which
        # on a read of a few cells may include blurred pawns; review finding, still 2,052,015)
        label_s, margin_s = pawn_presence(look, {**unlettered, "none": strip_none}, hue_unlettered)
        tipped = tipped or label_s != label
        margin = min(margin, margin_s)
        # the blur's mixing ranks the colours but never makes a colour surer than the plain
        # likelihood does: a colour only the mixing ranks first asks
        label_p, margin_p = pawn_presence(look, unlettered, {n: unlettered[n] for n in hue_unlettered})
        tipped = tipped or label_p != label
        margin = min(margin, margin_p) if label_p == label else margin
    else:                                    # no pawn stands here (the rules' prior, patrol_prior, decides)
        order = sorted(scores, key=scores.get, reverse=True)
        label, margin = order[0], COLOUR_GAIN * (scores[order[0]] - scores[order[1]])
    uneven = piece_label == "clearing" and look.glared_beside()
    if look.washed(chroma) or uneven or not sure_piece or tipped:
        margin = min(margin, CAPPED)
    return _reading(label, margin, look)


def _inks_and_white(look: HexLook, piece_label: str, chroma: np.ndarray | None,
                    refs: dict[str, np.ndarray] | None,
                    clipped_refs: dict[str, np.ndarray] | None) -> tuple[dict, np.ndarray, bool]:
    """The inks a hex's pawn is compared with and its paper white, as :func:`patrol_reading`
    takes them: ``(inks, white, scaled)``, the inks a name -> (3,) BGR 0-1 dict (``refs``, the
    kit's nominal inks, or ``clipped_refs`` where the paper clips everywhere and the grey beside
    the pawn tells its level), ``white`` (3,) float64 BGR 0-255 (:func:`corrected_white`, then
    :func:`grey_white` on a clearing-like hex), ``scaled`` as :func:`grey_white` takes it."""
    inks = refs if refs is not None else nominal_refs()
    # the paper clips everywhere and the grey beside the pawn does not: it tells the paper's level
    scaled = bool(piece_label == "clearing" and np.all(np.asarray(look.white) >= SATURATED) and grey_told(look).any())
    if scaled and refs is None and clipped_refs is not None:
        inks = clipped_refs
    white = corrected_white(look.white, np.ones(3) if chroma is None else chroma)
    if piece_label == "clearing" and look.clearing_like():
        white = grey_white(look, white, inks["clearing"], scaled)
    return inks, white, scaled


def pawn_shape(look: HexLook) -> float:
    """Log-odds of a pawn on a clearing from its shape alone: the outline's ink spread beyond
    the paper's (:data:`SPREAD_AT`) plus the black rim's response (:data:`PAWN_AT`), each
    bounded (:func:`pawn_presence` adds the colour's bounded say to it).

    Parameters
    ----------
    look : HexLook
        A clearing's measures.

    Returns
    -------
    float
        Log-odds (> 0: a pawn), within ``[-SPREAD_CAP - PAWN_CAP, SPREAD_CAP + PAWN_CAP]``.
    """
    shape = float(np.clip((look.spread - look.paper_spread - SPREAD_AT) / SPREAD_SCALE, -SPREAD_CAP, SPREAD_CAP))
    if look.pawn is not None:
        shape += float(np.clip((look.pawn - PAWN_AT) / PAWN_SCALE, -PAWN_CAP, PAWN_CAP))
    return shape


def board_grey(hexes: Sequence[tuple[HexLook, Reading | str]], chroma: np.ndarray | None = None,
               refs: dict[str, np.ndarray] | None = None,
               clipped_refs: dict[str, np.ndarray] | None = None) -> np.ndarray | None:
    """The middle of a bare clearing as this frame's board shows it: the per-channel median of
    the white-balanced centre colour (:attr:`HexLook.centre_bgr` over the paper white that
    :func:`patrol_reading` takes) over the clearings whose shape says no pawn stands there.

    The mat strip's clearing grey (``refs["clearing"]``) is read at the mat's edge, at another
    exposure than the board's middle; where the light is strongly tinted and a channel clips
    before the webcam's colour matrix mixes the channels, the same grey's white-balanced level
    differs between the two places. (Issue 18: on the second renderer's development stress still
    3123, a yellow light with the paper's green clipped, the strips' grey read blue 1.18 of paper
    and the board's bare clearings 0.85, so that 17 bare clearings read yellow, two of them
    confidently.) The board's own clearings are the kit's grey print in the board's light.

    Parameters
    ----------
    hexes : sequence of (HexLook, Reading or str)
        Hexes of one frame with their piece readings; only sure clearings, wholly in view, ring
        not washed nor glared beside, middle not clipped and shape log-odds
        (:func:`pawn_shape`) below :data:`BARE_SHAPE` count.
    chroma, refs, clipped_refs
        As :func:`patrol_reading` takes them.

    Returns
    -------
    (3,) float64 or None
        BGR white-balanced level (0-1 scale, may exceed 1), or ``None`` with fewer than
        :data:`BOARD_GREY_MIN` such clearings.
    """
    levels = []
    for look, piece in hexes:
        label = piece if isinstance(piece, str) else piece.label
        sure = isinstance(piece, str) or piece.sure
        if label != "clearing" or not sure or not look.visible or not look.clearing_like():
            continue
        if look.washed(chroma) or look.glared_beside() or np.any(np.asarray(look.centre_bgr) >= SATURATED):
            continue
        if pawn_shape(look) >= BARE_SHAPE:
            continue
        _, white, _ = _inks_and_white(look, label, chroma, refs, clipped_refs)
        levels.append(np.asarray(look.centre_bgr, np.float64) / np.maximum(white, 1.0))
    if len(levels) < BOARD_GREY_MIN:
        return None
    return np.median(np.array(levels), axis=0)


def letter_sign_odds(look: HexLook) -> float:
    """Log-odds that a pawn's letter is white rather than black, from its body against the
    pawn's colour round it (:attr:`HexLook.letter_sign`).

    Red, blue and green print a white letter, yellow, purple and orange a black one
    (:data:`~assistant.vision.kits.scout_pennant.PAWN_COLOURS`): under the stress set's defocus
    and shake the letter spreads into the colour, lifting red towards orange, darkening yellow
    towards orange and blue towards purple, and the colour alone cannot tell them, but the
    letter's body stays lighter (white) or darker (black) than the ring of colour round it.
    (Issue 18: on the second renderer's fresh stress stills, kit_photos seeds 2,051,001-016, red
    and yellow read orange and blue purple.)

    Parameters
    ----------
    look : HexLook
        A clearing's measures.

    Returns
    -------
    float
        ``clip((letter_sign - LETTER_SIGN_AT) / LETTER_SIGN_SCALE, -LETTER_SIGN_CAP,
        LETTER_SIGN_CAP)``; 0 (no evidence) where the sign was not measured (the pawn's centre
        not found). :func:`patrol_reading` adds a positive value to the white-lettered colours'
        scores and counts a negative one only as a letter's absence (a body no lighter than the
        colour round it may be a black letter, a hidden one or none: a bare clearing measures
        about 0, which this gives in full, ``-LETTER_SIGN_CAP``).
    """
    if look.letter_sign is None:
        return 0.0
    return float(np.clip((look.letter_sign - LETTER_SIGN_AT) / LETTER_SIGN_SCALE, -LETTER_SIGN_CAP, LETTER_SIGN_CAP))


def pawn_presence(look: HexLook, scores: dict[str, float], hue: dict[str, float] | None = None) -> tuple[str, float]:
    """Whether a pawn stands on a clearing, decided first by its shape, then which colour it is.

    The presence log-odds add the pawn's outline (:data:`SPREAD_AT`: the middle's ink spread
    beyond the paper's), its black rim (:data:`PAWN_AT`) and the colour's say, bounded by
    :data:`TINT_CAP` (the best colour's score over ``none``'s): before issue 18 the colour
    decided alone, and a light that tints or clips the middle made bare clearings read orange
    or purple and pawns read ``none`` however plain their outline. The colour is then the best
    of the six by ``hue`` (the letter's evidence included in ``scores`` and ``hue``).

    Parameters
    ----------
    look : HexLook
        The clearing's measures.
    scores : dict str -> float
        Log-likelihoods of ``"none"`` and of each pawn colour (:func:`patrol_reading`): the
        presence takes the best colour's over ``none``'s.
    hue : dict str -> float, optional
        Log-likelihoods of the pawn colours that rank them (default ``scores``):
        :func:`patrol_reading` gives them with a blur's mixing of letter and rim allowed for
        (:func:`~.scout_pennant_colour.blurred_scores`), which would let a grey middle fit any
        colour, so they do not decide the presence (issue 18).

    Returns
    -------
    (str, float)
        ``"none"`` or a colour, and its margin: the presence log-odds for ``none``, for a colour
        the smaller of them and the colour's lead over the next colour.
    """
    hue = scores if hue is None else hue
    colours = sorted((n for n in scores if n != "none"), key=hue.get, reverse=True)
    best = colours[0]
    tint = float(np.clip(max(scores[n] for n in colours) - scores["none"], -TINT_CAP, TINT_CAP))
    presence = COLOUR_GAIN * tint + pawn_shape(look)
    if presence > 0:
        return best, min(presence, COLOUR_GAIN * (hue[best] - hue[colours[1]]))
    return "none", -presence


def grey_white(look: HexLook, white: np.ndarray, clearing_ref: np.ndarray, scaled: bool = False) -> np.ndarray:
    """The paper white of a clearing in the channels where the paper clips, from the clearing's
    own grey beside the pawn when that says it is dimmer than ``white`` does.

    Where the paper clips, :func:`~.scout_pennant_detect.corrected_white` restores it from the
    light's chroma, which comes from unclipped paper elsewhere on the board or, when the paper
    clips everywhere, from the black rings; a lamp of another colour than the board's median
    light, or a tinted black, makes that estimate too high in a channel, and a pawn then reads
    darker there than it is (yellow as orange, blue as green). The clearing's printed grey (the
    gap between ring and pawn, :attr:`HexLook.gap_bgr`) lies in the pawn's own light and is
    seldom clipped: divided by the grey's reference (its white-balanced level, as the mat's
    strip shows it) it is the paper's level there. Only a lower estimate is taken (a blur that
    darkens the gap with the ring's black makes it a lower bound, which never read better on
    the development stills), never below 255. (Issue 18, chosen on the second renderer's
    development stills, kit_photos seeds 3000-3119: with the letter cues, stress patrols 38 ->
    32 wrong, normal 8 -> 2 wrong, 7 -> 0 sure: blue pawns read green under a webcam that clips
    the paper in every channel; taking the grey's level whatever its side: 33 and 3.)

    Parameters
    ----------
    look : HexLook
        A clearing's measures (``gap_bgr`` None: ``white`` is returned unchanged).
    white : (3,) float
        The paper white, BGR 0-255 scale (may exceed 255: :func:`corrected_white`).
    clearing_ref : (3,) float
        The clearing grey's white-balanced reference (``refs["clearing"]``), BGR 0-1.
    scaled : bool
        The hex's paper clips in every channel and the grey tells (:func:`patrol_reading`):
        ``white`` is then only the dimmest paper the clipping allows, and with references read
        against a clipped strip's dimmest paper (:func:`~.scout_pennant_colour.clipped_paper`)
        the references are in those units too; the grey then sets the level both ways (not only
        lower) where it tells, and the other channels are scaled by the median of its ratios to
        ``white`` (at least 1), so they keep the light's colour. (Issue 18, second renderer's
        development stills, kit_photos seeds 3000-3239: normal patrols 2 -> 0 wrong, stress 105 ->
        103; own renders unchanged.)

    Returns
    -------
    (3,) float64
        BGR, 0-255 scale, never below 255 where changed; never above ``white`` unless ``scaled``.
    """
    white = np.asarray(white, np.float64)
    told = grey_told(look)
    if not told.any():
        return white
    gap = np.asarray(look.gap_bgr, np.float64)
    level = np.maximum(gap / np.maximum(np.asarray(clearing_ref, np.float64), 0.05), 255.0)
    if scaled:
        # the paper clips everywhere and the references are read against the dimmest paper the
        # clipping allows: the grey, read in the same units, tells the paper's level in them both
        # ways; the channels it does not tell keep the light's colour
        k = max(1.0, float(np.median(level[told] / white[told])))
        return np.where(told, level, k * white)
    return np.where(told, np.minimum(white, level), white)


def grey_told(look: HexLook) -> np.ndarray:
    """Where the clearing's grey beside the pawn tells the paper's level (:func:`grey_white`).

    Parameters
    ----------
    look : HexLook
        A clearing's measures.

    Returns
    -------
    (3,) bool
        BGR: the channels where the paper clips (:attr:`HexLook.white` at :data:`SATURATED` or
        above) and the grey (:attr:`HexLook.gap_bgr`) lies below
        :data:`~.scout_pennant_colour.SHOULDER` (the tone curve's shoulder); all False
        without a gap measure.
    """
    if look.gap_bgr is None:
        return np.zeros(3, bool)
    return (np.asarray(look.gap_bgr, np.float64) < SHOULDER) & (np.asarray(look.white, np.float64) >= SATURATED)
