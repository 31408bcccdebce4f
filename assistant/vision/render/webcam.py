"""A randomised webcam pipeline for teaching: what a real camera does to a rendered frame.

A detector taught on one renderer learns that renderer's optics (the project's lesson). This
module passes a rendered frame through a random camera pipeline, several effects at once in
every frame, so a classifier learns to ignore them (:func:`random_webcam`). The ranges
(:data:`RANGES`, uniform unless said) are documented so a benchmark can measure on ranges
disjoint from them; :mod:`assistant.bench.kit_photos` (the held-out pictures) uses other
formulas and, where a parameter has a like-named range there, another range:

==================  ===================================================  ===============================
effect              here (teaching)                                      held out (kit_photos)
==================  ===================================================  ===============================
white balance       blue and red gains 0.6-1.6 (log-uniform), green 1     Planckian light 2400-6500 K,
                    on linear light                                      grey-world AWB 0.3-1.0
exposure            gain 0.55-1.6 on linear light                        auto exposure, median 0.1-0.3
raw clipping        each channel clipped at white *before* the           a Bayer mosaic clipped, then
                    crosstalk (a sensor clips, then the channels mix:    white balance and the CCM
                    a clipped channel tops out at 0.8-1 of white;
                    no white balance follows the clip)
tone curve          a power 0.7-1.4 on the encoded levels                sRGB + contrast S-curve 0-0.35
colour crosstalk    each channel mixes 0-0.1 of each other channel       CCM error 0-0.1 (another form)
noise               Gaussian, sigma 1-6 levels                           Poisson-Gaussian on a Bayer
                                                                         mosaic, then demosaiced
JPEG                quality 61-79                                        35-60 (stress), 80-95 (normal)
defocus             Gaussian, sigma 0-1.6 px                             a disc, radius 0-2.6 px
motion blur         half the frames: a line of 3.1-5 px, any angle       camera shake 0-3 px
glare               two frames in five: an additive spot on linear       Blinn-Phong lobe of a lamp,
                    light before the clipping, green's peak 0.1-0.8      gloss 0-0.18, the lamp's
                    of white, blue's and red's 0.7-1.4 times it          colour (2400-5500 K)
                    (log-uniform), sigma 3-12 % of the frame's width;
                    added after the vignetting (not darkened by it)
vignetting          darkening 0-0.35 at the corners, quadratic           cos^4 law, 0-0.5
==================  ===================================================  ===============================
"""

from __future__ import annotations

import numpy as np

from . import effects

#: ranges of :func:`random_webcam` (module docstring)
RANGES = {"gain": (0.6, 1.6), "exposure": (0.55, 1.6), "power": (0.7, 1.4), "crosstalk": (0.0, 0.1),
          "noise": (1.0, 6.0), "jpeg": (61, 79), "blur_sigma": (0.0, 1.6), "motion_px": (3.1, 5.0),
          "glare_peak": (0.1, 0.8), "glare_sigma": (0.03, 0.12), "glare_tint": (0.7, 1.4),
          "vignette": (0.0, 0.35)}
MOTION_SHARE = 0.5               #: share of frames with motion blur
GLARE_SHARE = 0.4                #: share of frames with a glare spot


def random_webcam(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``image`` through a random webcam pipeline (:data:`RANGES`, module docstring): white
    balance, exposure, vignetting and a glare spot on linear light (sRGB decoded as a power 2.2),
    each channel clipped at white, then crosstalk (the clipped channel mixed into the others, as
    a sensor clips before its channels are mixed), then encoding with a random tone curve,
    defocus, motion blur, noise and JPEG.

    Parameters
    ----------
    image : (H, W, 3) uint8
        BGR, as rendered.
    rng : numpy.random.Generator
        Every random choice is drawn from it (the result is deterministic for a seeded generator).

    Returns
    -------
    (H, W, 3) uint8
        BGR, the same size.

    Raises
    ------
    ValueError
        If ``image`` is not ``(H, W, 3) uint8``.
    """
    image = np.asarray(image)
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ValueError(f"image must be (H, W, 3) uint8 BGR, got {image.shape} {image.dtype}")
    r = RANGES
    h, w = image.shape[:2]
    lin = (image.astype(np.float32) / 255.0) ** np.float32(2.2)
    log_lo, log_hi = np.log(r["gain"])
    gains = np.exp([rng.uniform(log_lo, log_hi), 0.0, rng.uniform(log_lo, log_hi)]).astype(np.float32)
    mix = np.eye(3, dtype=np.float32)
    off = rng.uniform(*r["crosstalk"], size=(3, 3)).astype(np.float32) * (1 - mix)
    mix = mix + off - np.diag(off.sum(axis=1))                        # rows sum to 1: grey stays grey
    lin = lin * gains * np.float32(rng.uniform(*r["exposure"]))
    lin = effects.vignette(lin, float(rng.uniform(*r["vignette"])))
    if rng.uniform() < GLARE_SHARE:              # a lamp's mirror image: light added before the sensor
        gx, gy = rng.uniform(0, w), rng.uniform(0, h)
        s = rng.uniform(*r["glare_sigma"]) * w
        ys, xs = np.ogrid[:h, :w]
        spot = np.exp(-((xs - gx) ** 2 + (ys - gy) ** 2) / (2 * s * s)).astype(np.float32)
        t_lo, t_hi = np.log(r["glare_tint"])
        tint = np.exp([rng.uniform(t_lo, t_hi), 0.0, rng.uniform(t_lo, t_hi)]).astype(np.float32)
        lin = lin + np.float32(rng.uniform(*r["glare_peak"])) * spot[..., None] * tint
    # the sensor clips each channel at white, then the channels mix (only positively, rows summing
    # to one; a real colour-correction matrix also subtracts): a clipped channel tops out at
    # 1 - its crosstalk (0.8-1 of white) and the light reads tinted
    lin = np.einsum("hwc,dc->hwd", np.minimum(lin, 1.0), mix)
    enc = np.clip(lin, 0.0, 1.0) ** np.float32(1 / 2.2)
    enc = enc ** np.float32(rng.uniform(*r["power"])) * np.float32(255.0)
    enc = effects.gaussian_blur(enc, float(rng.uniform(*r["blur_sigma"])))
    if rng.uniform() < MOTION_SHARE:
        enc = effects.motion_blur(enc, float(rng.uniform(*r["motion_px"])), float(rng.uniform(0, 180)))
    enc = effects.sensor_noise(enc, float(rng.uniform(*r["noise"])), rng)
    out = np.clip(np.round(enc), 0, 255).astype(np.uint8)
    return effects.jpeg(out, int(rng.integers(r["jpeg"][0], r["jpeg"][1] + 1)))
