"""Scout Pennant colours from the mat: the printed references as each frame shows them.

The Scout Pennant mat prints the kit's six pawn colours, the forest's two greens, the clearing's
grey and the neutrals beside paper (:data:`~assistant.vision.mats.REFERENCE_INKS`). The kit
detector (:mod:`.scout_pennant_detect`) models what the camera shows of a print as its
*white-balanced level*: the level of each channel over the level of paper next to it
(``rho = level / white``). For a print seen through any tone curve, white balance and colour
matrix, the patch of the same ink beside the same paper shows the ``rho`` that this camera, in
this light, gives that ink (for a power-law tone curve exactly, for a webcam's close enough),
so the references replace the nominal ``bgr / 255`` of the kit's art (:func:`pennant_refs`) and
set the forest/clearing boundary of the frame (:func:`green_boundary`).

:func:`colour_scores` is the likelihood the patrol reading uses (module docstring of
:mod:`.scout_pennant_detect`).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..colour_refs import read_strips
from ..mats import MatLayout
from .scout_pennant import CLEARING_GREY, FOREST_DARK, FOREST_LIGHT, PAWN_COLOURS

SATURATED = 250.0            #: a level this high is clipped
#: a level this bright (0-255) lies on the tone curve's shoulder, which compresses levels just
#: under clipping: a pawn ink's reference patch this bright tells only a lower bound of the ink
#: (:func:`censored_mean`), and a clearing's grey this bright does not tell a clipped paper's
#: level (:func:`~.scout_pennant_patrol.grey_told`)
SHOULDER = 235.0
BLACK_BELOW, BLACK_CHANNELS = 0.6, 2       #: a reference strip's black is dark in at least this many channels
COLOUR_NOISE, COLOUR_REL = 4.0, 0.07          #: pawn colour noise: 0-255 units + share of the paper's level
GLARE_STEPS = (0.0, 0.25, 0.5, 0.75, 1.0)       #: glare levels tried, as shares of the ring's excess
SIGMA_SPAN_CAP = 255.0     #: the colour noise grows with the level up to what the camera can show, not beyond
#: what a blur mixes into a pawn's sampled colour (:func:`blurred_scores`): shares of a neutral, and
#: its levels (the letter's and rim's black, half way, the white letter; white-balanced). The
#: letter covers 8-14 % of the disc the colour is sampled in (``CENTRE_MM``, measured on
#: :func:`~.scout_pennant.pawn_image`), and a defocus spreads it, and the black rim, over the disc
BLUR_MIX_SHARES, BLUR_MIX_LEVELS = (0.1, 0.2), (0.15, 0.55, 1.0)
#: share of the forest's gap annulus that is its dark green (the rest: its lighter tree marks)
FOREST_DARK_SHARE = 0.75
#: the forest/clearing boundary of a frame lies at this share of the way from the clearing's
#: green excess to the forest's, and its scale is this share of their distance
GREEN_AT_SHARE, GREEN_SCALE_SHARE = 0.5, 0.15


class PennantRefs(dict):
    """The reference inks of a frame (:func:`pennant_refs`): a ``dict`` name -> (3,) float64
    white-balanced level, BGR, with the pawn inks known only as lower bounds kept apart.

    Attributes
    ----------
    at_least : dict str -> (3,) bool
        For a pawn colour whose reference patch reached :data:`SHOULDER` in some channel on
        every strip read: True in those channels, where its level is only a lower bound
        (:func:`censored_mean`). Absent for the other inks; never for the backgrounds
        (``"forest"``, ``"forest:light"``, ``"clearing"``), whose level is the plain mean over
        the strips (a lower bound would let the background fit any light pawn).
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.at_least: dict[str, np.ndarray] = {}


def nominal_refs() -> dict[str, np.ndarray]:
    """The kit's inks as ``bgr / 255`` (what the references read without a camera), name -> (3,)."""
    out = {p.name: np.array(p.bgr, np.float64) / 255.0 for p in PAWN_COLOURS}
    out.update({"forest": np.array(FOREST_DARK) / 255.0, "forest:light": np.array(FOREST_LIGHT) / 255.0,
                "clearing": np.array(CLEARING_GREY) / 255.0})
    return out


def pennant_refs(frame: np.ndarray, homography: np.ndarray | None, layout: MatLayout,
                 clipped: bool = False) -> PennantRefs | None:
    """Each Scout Pennant reference ink as this frame shows it, white-balanced (patch level over
    the level of the paper next to it, per channel, averaged over the strips read).

    The paper's level comes from :func:`strip_paper` (estimated from the greys where clipped); a
    strip whose white patch does not read about paper (0.8-1.25 of it, in every channel where
    the patch is not clipped) or whose black is not dark (below :data:`BLACK_BELOW` of it in at
    least :data:`BLACK_CHANNELS` channels) is covered or glared and not used. (Glare adds light
    to every channel alike; a webcam's white balance on a strongly coloured table can leave one
    channel with so little range that black shows 0.7 of paper there, while the other channels
    are right: until issue 18 such a frame lost its references and read red pawns purple.) (Before issue 18 a white patch clipped in one channel, as a
    webcam's white balance gives on a green table, threw the strip away, and with it the
    frame's colour references.) With ``clipped``, only the strips whose paper clips in every
    channel are read, against the dimmest paper the clipping allows (:func:`clipped_paper`): their
    references share one unknown factor, which only the clearing's grey beside a pawn whose paper
    clips too takes out (:func:`~.scout_pennant_patrol.grey_white`), so they serve that pawn
    alone (:func:`~.scout_pennant_patrol.patrol_reading`).

    Parameters
    ----------
    frame : (H, W, 3) uint8 BGR
    homography : (3, 3) or None
        Mat mm -> px.
    layout : MatLayout
        The Scout Pennant mat (with its references).
    clipped : bool
        Read the strips whose paper clips in every channel (and only those) instead.

    Returns
    -------
    PennantRefs (dict name -> (3,) float64) or None
        Pawn colour names, ``"forest"``, ``"forest:light"``, ``"clearing"``; None when no strip
        could be read. Since issue 18 a pawn ink's level is :func:`censored_mean` over the
        strips, and where it is only a lower bound :attr:`PennantRefs.at_least` says so; the
        backgrounds' levels are plain means. With ``clipped`` the values are the inks over the
        dimmest paper the clipping allows: the true ratios times one unknown common factor of
        at least 1.
    """
    if homography is None or not layout.references:
        return None
    return refs_from_strips(read_strips(frame, homography, layout), clipped)


def refs_from_strips(strips: Sequence[dict], clipped: bool = False) -> PennantRefs | None:
    """The references of :func:`pennant_refs` from strips already read.

    Parameters
    ----------
    strips : sequence of dict
        :func:`~assistant.vision.colour_refs.read_strips` of the frame (name -> (patch, paper)
        levels, BGR 0-255).
    clipped : bool
        As in :func:`pennant_refs`.

    Returns
    -------
    PennantRefs or None
        As :func:`pennant_refs`.
    """
    ratios: dict[str, list] = {}
    levels: dict[str, list] = {}
    for strip in strips:
        paper = strip_paper(strip)
        if clipped or not np.all(np.isfinite(paper)):
            paper = clipped_paper(strip) if clipped and np.all(np.isnan(paper)) else None
            if paper is not None:
                for name, (patch, _p) in strip.items():
                    ratios.setdefault(name, []).append(patch / paper)
                    levels.setdefault(name, []).append(patch)
            continue
        rw, rb = strip["white"][0] / paper, strip["black"][0] / paper
        # a white patch clipped in a channel says nothing of the paper there (the paper's level
        # then comes from the greys, :func:`strip_paper`): only its unclipped channels are checked,
        # and a patch clipped in every channel (glare on it) says nothing: the strip is left out
        told = np.asarray(strip["white"][0], np.float64) < SATURATED
        if not (told.any() and np.all((rw > 0.8) & (rw < 1.25) | ~told) and np.sum(rb < BLACK_BELOW) >= BLACK_CHANNELS):
            continue                                  # covered, or glare across the strip
        for name, (patch, _p) in strip.items():
            ratios.setdefault(name, []).append(patch / paper)
            levels.setdefault(name, []).append(patch)
    if not ratios:
        return None
    out = PennantRefs(nominal_refs())
    pawns = {p.name for p in PAWN_COLOURS}
    for name in out:
        if name not in ratios:
            continue
        if name not in pawns:                  # a background: its level as the strips show it
            out[name] = np.mean(np.array(ratios[name], np.float64), axis=0)
            continue
        out[name], bound = censored_mean(ratios[name], levels[name])
        if bound.any():
            out.at_least[name] = bound
    return out


def censored_mean(ratios: Sequence[np.ndarray], levels: Sequence[np.ndarray],
                  shoulder: float = SHOULDER) -> tuple[np.ndarray, np.ndarray]:
    """One pawn ink's reference from its strips' patches, where a patch clipped in a channel,
    or on the tone curve's shoulder just under clipping, tells only a lower bound there.

    A patch at ``shoulder`` or above in a channel shows only that the ink reflects at least
    ``level / paper`` of the paper's light there (a censored level, as :func:`colour_scores`
    treats a clipped observation). Per channel the level is the mean over the strips whose
    patch lies below it, raised to the largest bound where a censored strip's bound is higher
    (the ink is at least that); where no strip's patch lies below it, the largest bound stands,
    flagged. (Until issue 18 a censored patch was taken as the ink's level: under a warm lamp
    on a green table, whose white balance lifts red until the red, orange, yellow and purple
    patches clip or nearly, each of them read about 0.48 of a red paper level twice the green
    (extrapolated from the greys, :func:`strip_paper`), a yellow pawn's red was predicted far
    darker than the clipped red it shows, and yellow read orange: second renderer, kit_photos
    seed 2,051,010. Development stress stills, with the letter sign of
    :mod:`.scout_pennant_patrol` as issue 18's review left it: on kit_photos seeds 3000-3239,
    14,640 patrol slots, patrols wrong 82 without the bound, 82 with it at :data:`SATURATED`, 85
    at :data:`SHOULDER` (11 sure, 2 confidently wrong in each); on seeds 2,051,001-016, 976
    slots, 2, 3 and 0 (without it the two yellow pawns of 2,051,010 read orange). Over both
    the bound does not beat none, 85 wrong against 84: it is kept for the failure it mends, not
    for a measured gain.)

    Parameters
    ----------
    ratios : sequence of (3,) float
        The patch over its paper, BGR, one per strip read (at least one).
    levels : sequence of (3,) float
        The patch levels themselves (BGR, 0-255), in the same order.
    shoulder : float
        The level (0-255) from which a patch is censored (:data:`SHOULDER`).

    Returns
    -------
    (ndarray (3,) float64, ndarray (3,) bool)
        The white-balanced level, and where it is only a lower bound (every strip censored).

    Raises
    ------
    ValueError
        ``ratios`` is empty, or ``ratios`` and ``levels`` differ in length.
    """
    r = np.asarray(ratios, np.float64).reshape(-1, 3)
    lv = np.asarray(levels, np.float64).reshape(-1, 3)
    if not len(r) or lv.shape != r.shape:
        raise ValueError(f"censored_mean needs one level per ratio, at least one: {r.shape} and {lv.shape}")
    told = lv < shoulder
    n_told = told.sum(axis=0)
    told_mean = np.sum(np.where(told, r, 0.0), axis=0) / np.maximum(n_told, 1)
    bound = np.max(np.where(told, -np.inf, r), axis=0)               # -inf where no strip is censored
    return np.where(n_told > 0, np.maximum(told_mean, bound), bound), n_told == 0


def clipped_paper(strip: dict) -> np.ndarray | None:
    """The paper level of a strip whose paper clips in every channel, ``(3,) float64``: the dimmest
    paper the clipping allows, 255 in its dimmest channel, in the colour of the light as the
    strip's own 75 % grey shows it (a neutral grey reflects every channel alike), as
    :func:`~.scout_pennant_detect.corrected_white` bounds a clipped hex's paper.

    Every reference of the strip is then known only up to one common factor (the paper may be
    brighter than that), but its inks keep their ratios to one another and to the clearing's
    grey, which the pawn's own clearing shows in the pawn's light
    (:func:`~.scout_pennant_patrol.grey_white` divides that grey by its reference): the pawn is
    compared with the reference inks seen under the frame's light, not with the kit's nominal
    inks. (Until issue 18 such a strip was left out and a frame whose paper clipped everywhere
    read its pawns against the nominal inks: on the second renderer's normal development stills,
    kit_photos seeds 3000-3239, two red pawns read purple under a pink light.)

    Parameters
    ----------
    strip : dict
        One strip of :func:`~assistant.vision.colour_refs.read_strips` (name -> (patch, paper)
        levels, BGR 0-255).

    Returns
    -------
    (3,) float64 or None
        BGR, at least 255 in every channel; None where the strip does not read as a strip in a
        light that only clips its paper: its 75 % grey clipped in a channel or dim (below 0.6 of
        the bound; glare across the strip, or a cover), or its black not dark (below
        :data:`BLACK_BELOW` of the bound in at least :data:`BLACK_CHANNELS` channels), or one of
        its pawn inks clipped too (the light is past what the strip can tell).

    Raises
    ------
    KeyError
        When ``strip`` lacks its ``grey75``, ``black`` or a pawn colour's patch (every printed
        Scout Pennant strip holds them all).
    """
    grey = np.asarray(strip["grey75"][0], np.float64)
    if np.any(grey >= SATURATED) or grey.min() <= 0:
        return None
    paper = 255.0 * grey / grey.min()
    black = np.asarray(strip["black"][0], np.float64) / paper
    if np.any(grey / paper < 0.6) or np.sum(black < BLACK_BELOW) < BLACK_CHANNELS:
        return None
    if any(np.any(np.asarray(strip[p.name][0]) >= SATURATED) for p in PAWN_COLOURS):
        return None                    # a pawn ink clipped too: the light is past what the strip can tell
    return paper


def strip_paper(strip: dict) -> np.ndarray:
    """The level of a strip's paper per channel, ``(3,) float64``: as measured next to its
    white patch where not clipped, else (a camera that clips paper white, often one channel
    under a coloured lamp) from the greys: a neutral grey shows the same share of the paper in
    every channel, so a grey unclipped in the clipped channel, divided by the share it shows in
    the unclipped channels, gives the paper's level there. ``nan`` where nothing tells.
    """
    paper = np.asarray(strip["white"][1], np.float64).copy()
    clipped = paper >= SATURATED
    if not clipped.any():
        return paper
    if clipped.all():
        return np.full(3, np.nan)
    for c in np.flatnonzero(clipped):
        guesses = []
        for name in ("grey75", "grey50", "grey25"):
            level = np.asarray(strip[name][0], np.float64)
            if level[c] >= SATURATED:
                continue
            share = float(np.median(level[~clipped] / paper[~clipped]))
            if share > 0.05:
                guesses.append(level[c] / share)
        paper[c] = max(float(np.median(guesses)), 255.0) if guesses else np.nan
    return paper


def greenness(rho: np.ndarray) -> float:
    """Green excess ``G - max(B, R)`` of a white-balanced colour (BGR)."""
    return float(rho[1] - max(rho[0], rho[2]))


def green_boundary(refs: dict[str, np.ndarray] | None,
                   default: tuple[float, float]) -> tuple[float, float] | None:
    """Where the gap's green excess turns a clearing into a forest in this frame, and its scale;
    ``None`` where the mat's references show that it does not tell them apart.

    The clearing's gap shows the clearing's grey; the forest's gap its dark green and, on
    :data:`FOREST_DARK_SHARE` less, its tree marks: the boundary lies :data:`GREEN_AT_SHARE` of
    the way between their references' green excess, the scale is :data:`GREEN_SCALE_SHARE` of
    that distance (a strongly tinted frame brings them close). Where the references put the
    forest's green excess less than 0.02 above the clearing's, the frame's colour rendering has
    taken the cue away (a deep warm light with a weak white balance and a colour matrix off, as
    on the held-out still 2,054,015 of :mod:`assistant.bench.kit_photos`: the forest's greens
    show bluish against the paper, green excess -0.33 against the clearing's -0.11, and the
    pieces' own gaps overlap, forests -0.36 to -0.01, clearings -0.29 to -0.03); the kit's
    nominal boundary would then call every hex a clearing with the colour's full say, so
    ``None`` is returned and the piece is read by its shape alone
    (:func:`~.scout_pennant_detect.piece_reading`).

    Parameters
    ----------
    refs : dict or None
        :func:`pennant_refs`.
    default : (at, scale)
        Used without references (the kit's nominal boundary).

    Returns
    -------
    (float, float) or None
        ``(at, scale)`` in units of white-balanced green excess (0-1 scale), or ``None``.
    """
    if refs is None:
        return default
    forest = FOREST_DARK_SHARE * greenness(refs["forest"]) + (1 - FOREST_DARK_SHARE) * greenness(refs["forest:light"])
    clearing = greenness(refs["clearing"])
    if forest - clearing < 0.02:
        return None
    return clearing + GREEN_AT_SHARE * (forest - clearing), GREEN_SCALE_SHARE * (forest - clearing)


def colour_scores(observed: np.ndarray, reflectances: np.ndarray, white: np.ndarray, glare_max: float,
                  bright_steps: Sequence[float] = (1.0,), at_least: np.ndarray | None = None) -> np.ndarray:
    """Log-likelihood (up to a constant) of an observed BGR for each candidate print, maximised
    over the nuisances.

    The camera shows a print of white-balanced level ``rho`` (BGR 0-1: the nominal ``bgr / 255``
    or the frame's reference, :func:`pennant_refs`) as ``min(255, g + rho * (k * white - g))``:
    ``white`` is the paper's white (BGR 0-255, may exceed 255), ``g`` an additive neutral glare in
    ``[0, glare_max]`` (steps :data:`GLARE_STEPS`) and ``k`` a brightness factor among
    ``bright_steps`` (when the paper saturates in every channel, how far beyond 255 it lies is
    unknown). Each channel is Gaussian with sigma ``COLOUR_NOISE + COLOUR_REL * min(k * white - g,
    SIGMA_SPAN_CAP)`` (a level beyond what the camera can show must not make every colour fit);
    a channel saturated in both observation and prediction matches, one saturated only in the
    observation counts as ">= 255" (a censored value).

    Parameters
    ----------
    observed : (3,) float
        BGR 0-255.
    reflectances : (C, 3) float
        Candidate prints, BGR 0-1.
    white : (3,) float
    glare_max : float
        0-255 units.
    bright_steps : sequence of float
    at_least : (C, 3) bool, optional
        Where a candidate's level is only a lower bound (a reference patch clipped, or on the
        tone curve's shoulder, on every strip: :func:`censored_mean`): there the print may reflect anything from it up to paper
        (``max(rho, 1)``), and the prediction is the observation's nearest level in that range.

    Returns
    -------
    (C,) float64
    """
    rho = np.asarray(reflectances, np.float64)[:, None, None, :]                       # (C, 1, 1, 3)
    g = (np.asarray(GLARE_STEPS if glare_max > 0 else (0.0,), np.float64) * glare_max)[None, :, None, None]
    w = (np.asarray(bright_steps, np.float64)[:, None] * np.asarray(white, np.float64)[None, :])[None, None]
    span = np.maximum(w - g, 0.0)
    pred = np.minimum(255.0, g + rho * span)                                           # (C, G, K, 3)
    if at_least is not None:
        # a censored reference: the ink lies anywhere from its bound up to paper (or the bound)
        top = np.minimum(255.0, g + np.maximum(rho, 1.0) * span)
        obs0 = np.asarray(observed, np.float64)
        pred = np.where(np.asarray(at_least, bool)[:, None, None, :], np.clip(obs0, pred, top), pred)
    sigma = COLOUR_NOISE + COLOUR_REL * np.minimum(span, SIGMA_SPAN_CAP)
    obs = np.asarray(observed, np.float64)
    obs_clip = obs >= SATURATED
    diff = np.where(obs_clip, np.minimum(pred - 255.0, 0.0), pred - obs)
    diff = np.where(obs_clip & (pred >= SATURATED), 0.0, diff)
    ll = -0.5 * np.sum((diff / sigma) ** 2, axis=-1)
    return ll.reshape(ll.shape[0], -1).max(axis=1)


def blurred_scores(observed: np.ndarray, reflectances: np.ndarray, white: np.ndarray, glare_max: float,
                   bright_steps: Sequence[float] = (1.0,), at_least: np.ndarray | None = None) -> np.ndarray:
    """:func:`colour_scores` with a blur's mixing as one more nuisance: each print may be seen
    mixed with a neutral, ``(1 - a) * rho + a * n``, ``a`` in ``(0,) + BLUR_MIX_SHARES`` and ``n``
    in :data:`BLUR_MIX_LEVELS`, the best of them counting.

    A defocus or shake spreads a pawn's letter (white on red, blue and green, black on the
    others) and its black rim over the disc its colour is sampled in: the colour moves straight
    towards the grey axis, keeping its hue, where the plain likelihood sees it nearer another
    colour (issue 18, second renderer's development stress stills, kit_photos seeds 3000-3239:
    blue pawns lightened and greyed by their white letter read green, yellow ones darkened by
    their black letter orange). Mixing every colour alike keeps the comparison fair between
    them; it is meant to rank the pawn colours, not to tell a pawn from a bare clearing (every
    colour mixed enough looks grey: :func:`~.scout_pennant_patrol.patrol_reading` keeps the
    plain likelihood for that).

    Parameters
    ----------
    observed, reflectances, white, glare_max, bright_steps, at_least
        As :func:`colour_scores`.

    Returns
    -------
    (C,) float64
        Per candidate the best log-likelihood over the mixes (never below :func:`colour_scores`'s).
    """
    rho = np.asarray(reflectances, np.float64)
    best = colour_scores(observed, rho, white, glare_max, bright_steps, at_least)
    for a in BLUR_MIX_SHARES:
        for level in BLUR_MIX_LEVELS:
            ll = colour_scores(observed, (1.0 - a) * rho + a * level, white, glare_max, bright_steps, at_least)
            best = np.maximum(best, ll)
    return best
