"""Image effects of light, lens and sensor: functions over arrays.

Every function takes an image ``(H, W, 3)`` (``uint8`` BGR, or ``float32`` in the same 0-255
scale where noted) and returns a new array of the same shape and dtype; none keeps state.
Random ones take a ``seed`` (an int or a ``numpy.random.Generator``) and are deterministic for a
given seed. Gains apply to the encoded values directly (no gamma decoding): a renderer for
tests, not a physically exact one.
"""

from __future__ import annotations

import math

import cv2
import numpy as np


def _rng(seed) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def _to_u8(f: np.ndarray) -> np.ndarray:
    return np.clip(f, 0.0, 255.0).astype(np.uint8) if f.dtype != np.uint8 else f


def blackbody_bgr(kelvin: float) -> np.ndarray:
    """The colour of a black body at ``kelvin`` (1000-40000 K) as ``(3,) float64`` BGR in ``[0, 1]``.

    Tanner Helland's fit (2012) to Mitchell Charity's blackbody table ("Converting temperature
    (Kelvin) to RGB"): piecewise power and log curves in ``t = K / 100``.

    Raises
    ------
    ValueError
        Outside 1000-40000 K.

    >>> blackbody_bgr(6600).round(1).tolist()
    [1.0, 1.0, 1.0]
    """
    if not 1000.0 <= kelvin <= 40000.0:
        raise ValueError(f"colour temperature {kelvin} K outside 1000-40000 K")
    t = kelvin / 100.0
    if t <= 66:
        r = 255.0
        g = 99.4708025861 * math.log(t) - 161.1195681661
        b = 0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307
    else:
        r = 329.698727446 * (t - 60) ** -0.1332047592
        g = 288.1221695283 * (t - 60) ** -0.0755148492
        b = 255.0
    return np.clip(np.array([b, g, r]), 0.0, 255.0) / 255.0


def white_balance_gains(kelvin: float, camera_kelvin: float = 5500.0, strength: float = 1.0) -> np.ndarray:
    """Channel gains ``(3,) float64`` BGR of light at ``kelvin`` seen by a camera balanced for
    ``camera_kelvin``: the ratio of their :func:`blackbody_bgr` colours, normalised to green = 1,
    raised to ``strength`` (0 = the camera's auto white balance fully corrects it).

    Warm lamp ~3000 K gives about (0.66, 1, 1.34); a cool ceiling ~6500 K about (1.05, 1, 0.93).

    Raises
    ------
    ValueError
        For a temperature outside 1000-40000 K.
    """
    g = blackbody_bgr(kelvin) / blackbody_bgr(camera_kelvin)
    g = g / g[1]
    return g ** float(strength)


def white_balance(img: np.ndarray, kelvin: float, camera_kelvin: float = 5500.0, strength: float = 1.0) -> np.ndarray:
    """``img`` lit by light of ``kelvin`` under a camera balanced for ``camera_kelvin``
    (:func:`white_balance_gains`), saturating at 255.

    Raises
    ------
    ValueError
        For a temperature outside 1000-40000 K.
    """
    f = img.astype(np.float32) * white_balance_gains(kelvin, camera_kelvin, strength).astype(np.float32)
    return _to_u8(f) if img.dtype == np.uint8 else f


def exposure(img: np.ndarray, ev: float) -> np.ndarray:
    """Scale by ``2 ** ev`` (exposure value steps), saturating at 255."""
    f = img.astype(np.float32) * np.float32(2.0 ** ev)
    return _to_u8(f) if img.dtype == np.uint8 else f


def light_gradient(img: np.ndarray, strength: float, angle_deg: float = 0.0) -> np.ndarray:
    """A linear illumination ramp: gain ``1 - strength`` on one side of the image to
    ``1 + strength`` on the other, along the image direction ``angle_deg`` (0 = brighter to the
    right, 90 = brighter downwards; pixels, y down)."""
    h, w = img.shape[:2]
    a = math.radians(angle_deg)
    xs = (np.arange(w, dtype=np.float32) - (w - 1) / 2) / max(w, h)
    ys = (np.arange(h, dtype=np.float32) - (h - 1) / 2) / max(w, h)
    ramp = 1.0 + 2.0 * strength * (math.cos(a) * xs[None, :] + math.sin(a) * ys[:, None])
    f = img.astype(np.float32) * ramp[..., None]
    return _to_u8(f) if img.dtype == np.uint8 else f


def vignette(img: np.ndarray, strength: float = 0.3) -> np.ndarray:
    """Darken towards the corners: gain ``1 - strength * (r / r_corner)^2`` (a quadratic
    approximation of the ``cos^4`` law of natural vignetting)."""
    h, w = img.shape[:2]
    ys, xs = np.ogrid[:h, :w]
    r2 = ((xs - (w - 1) / 2) ** 2 + (ys - (h - 1) / 2) ** 2) / (((w - 1) / 2) ** 2 + ((h - 1) / 2) ** 2)
    f = img.astype(np.float32) * (1.0 - strength * r2).astype(np.float32)[..., None]
    return _to_u8(f) if img.dtype == np.uint8 else f


def hotspot(img: np.ndarray, center_px, radius_px: float, gain: float = 0.6, glare: float = 1.5,
            glare_radius_px: float | None = None) -> np.ndarray:
    """A lamp's bright pool with a specular glare blob.

    The pool multiplies by ``1 + gain * (1 + d^2 / radius^2) ^ -1.5`` (a point light at height
    ``radius`` over the table: inverse square law times Lambert's cosine); the glare adds
    ``glare * 255 * exp(-d^2 / (2 * glare_radius^2))``, so ``glare >= 1`` saturates its centre to
    white.

    Parameters
    ----------
    center_px : (x, y) px
    radius_px : float (> 0)
    gain, glare : float
    glare_radius_px : float, optional
        Defaults to ``radius_px / 6``.

    Raises
    ------
    ValueError
        For a non-positive radius.
    """
    if radius_px <= 0:
        raise ValueError("hotspot radius must be positive")
    h, w = img.shape[:2]
    ys, xs = np.ogrid[:h, :w]
    d2 = ((xs - center_px[0]) ** 2 + (ys - center_px[1]) ** 2).astype(np.float32)
    pool = 1.0 + gain * (1.0 + d2 / radius_px ** 2) ** -1.5
    gr = glare_radius_px or radius_px / 6.0
    blob = glare * 255.0 * np.exp(-d2 / (2.0 * gr * gr))
    f = img.astype(np.float32) * pool[..., None] + blob[..., None]
    return _to_u8(f) if img.dtype == np.uint8 else f


def soft_shadow(img: np.ndarray, mask: np.ndarray, strength: float = 0.45, blur_px: float = 8.0) -> np.ndarray:
    """Darken where ``mask`` (``(H, W)`` float in ``[0, 1]`` or uint8 0/255) is set:
    gain ``1 - strength * blur(mask)`` with a Gaussian of sigma ``blur_px``.

    Raises
    ------
    ValueError
        When the mask's size differs from the image's.
    """
    if mask.shape[:2] != img.shape[:2]:
        raise ValueError(f"mask {mask.shape[:2]} and image {img.shape[:2]} differ in size")
    m = mask.astype(np.float32)
    if mask.dtype == np.uint8:
        m *= 1.0 / 255.0
    if blur_px > 0:
        m = cv2.GaussianBlur(m, (0, 0), blur_px)
    f = img.astype(np.float32) * (1.0 - strength * m)[..., None]
    return _to_u8(f) if img.dtype == np.uint8 else f


def sensor_noise(img: np.ndarray, sigma: float = 2.0, seed=0, shot: float = 0.0) -> np.ndarray:
    """Gaussian read noise of ``sigma`` (0-255 units) plus shot noise of variance
    ``shot * value`` (Poisson's variance proportional to the signal, as a Gaussian), per pixel and
    channel, saturating.

    Parameters
    ----------
    seed : int or numpy.random.Generator
    """
    rng = _rng(seed)
    f = img.astype(np.float32)
    n = rng.standard_normal(f.shape, dtype=np.float32)
    sd = np.sqrt(np.float32(sigma) ** 2 + np.float32(shot) * np.maximum(f, 0.0)) if shot else np.float32(sigma)
    f += n * sd
    return _to_u8(f) if img.dtype == np.uint8 else f


def gaussian_blur(img: np.ndarray, sigma_px: float) -> np.ndarray:
    """Gaussian blur of sigma ``sigma_px`` (the "blurred markers" of field report F1); a copy
    for ``sigma_px <= 0``."""
    if sigma_px <= 0:
        return img.copy()
    return cv2.GaussianBlur(img, (0, 0), sigma_px)


def disc_kernel(radius_px: float) -> np.ndarray:
    """A normalised anti-aliased disc ``(k, k) float32`` of radius ``radius_px`` (a defocused
    lens's point spread, the "pillbox")."""
    r = max(radius_px, 0.5)
    k = int(math.ceil(r)) * 2 + 1
    m = np.zeros((k, k), np.uint8)
    c = k // 2
    cv2.circle(m, (c * 16, c * 16), int(round(r * 16)), 255, -1, cv2.LINE_AA, 4)
    m = m.astype(np.float32)
    return m / m.sum()


def defocus_blur(img: np.ndarray, radius_px: float) -> np.ndarray:
    """Blur by a disc of ``radius_px`` (:func:`disc_kernel`); a copy for ``radius_px <= 0``."""
    if radius_px <= 0:
        return img.copy()
    return cv2.filter2D(img, -1, disc_kernel(radius_px), borderType=cv2.BORDER_REFLECT)


def line_kernel(length_px: float, angle_deg: float) -> np.ndarray:
    """A normalised anti-aliased line ``(k, k) float32`` of ``length_px`` along the image direction
    ``angle_deg`` (0 = +x, 90 = +y): the point spread of a linear motion during the exposure."""
    L = max(1.0, float(length_px))
    k = int(math.ceil(L)) | 1
    k = max(k + 2, 3)
    m = np.zeros((k, k), np.uint8)
    c = (k - 1) / 2
    a = math.radians(angle_deg)
    dx, dy = math.cos(a) * (L - 1) / 2, math.sin(a) * (L - 1) / 2
    p0 = (int(round((c - dx) * 16)), int(round((c - dy) * 16)))
    p1 = (int(round((c + dx) * 16)), int(round((c + dy) * 16)))
    cv2.line(m, p0, p1, 255, 1, cv2.LINE_AA, 4)
    m = m.astype(np.float32)
    return m / m.sum()


def motion_blur(img: np.ndarray, length_px: float, angle_deg: float) -> np.ndarray:
    """Directional blur by :func:`line_kernel` (a copy for ``length_px < 1.5``). Works on any
    channel count and on ``float32``."""
    if length_px < 1.5:
        return img.copy()
    return cv2.filter2D(img, -1, line_kernel(length_px, angle_deg), borderType=cv2.BORDER_REFLECT)


def jpeg(img: np.ndarray, quality: int = 80) -> np.ndarray:
    """Encode and decode as JPEG at ``quality`` (1-100) with ``cv2.imencode``.

    Raises
    ------
    ValueError
        For a quality outside 1-100 or an image that is not ``uint8``.
    """
    if not 1 <= quality <= 100 or img.dtype != np.uint8:
        raise ValueError(f"JPEG needs uint8 and quality 1-100 (got {img.dtype}, {quality})")
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise ValueError("JPEG encoding failed")
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def sweeping_shadow(img: np.ndarray, t: float, period_s: float = 1.2, strength: float = 0.45,
                    width: float = 0.4) -> np.ndarray:
    """A person's soft shadow sweeping across the picture: a blurred tall ellipse ``width`` of the
    picture wide, its centre crossing from left to right every ``period_s`` seconds (at time
    ``t``, seconds), darkening by up to ``strength`` (the body of the shadow; its edge is soft,
    Gaussian sigma 5 % of the picture's width)."""
    h, w = img.shape[:2]
    phase = (t % period_s) / period_s
    mask = np.zeros((h, w), np.float32)
    cx = int((-0.3 + 1.6 * phase) * w)
    cv2.ellipse(mask, (cx, h // 2), (int(0.5 * width * w), int(0.7 * h)), 15.0, 0, 360, 1.0, -1)
    return soft_shadow(img, mask, strength, 0.05 * w)


def exposure_swing(img: np.ndarray, index: int, t: float, amplitude: float = 0.25, period_s: float = 1.7,
                   codec_step: float = 1.5, codec_frames: int = 12) -> np.ndarray:
    """What a webcam's auto exposure and codec do to a still picture at frame ``index``, time
    ``t`` (s): a gain swinging by ``+-amplitude`` (period ``period_s``), plus a ``codec_step``
    grey-level brightness step switching on and off every ``codec_frames`` frames."""
    gain = 1.0 + amplitude * math.sin(2 * math.pi * t / period_s)
    step = codec_step * ((index // codec_frames) % 2)
    f = img.astype(np.float32) * np.float32(gain) + np.float32(step)
    return _to_u8(f) if img.dtype == np.uint8 else f


def camera_shake(img: np.ndarray, seed, low_px: float = 1.0, high_px: float = 10.0) -> np.ndarray:
    """The picture shifted by ``low_px``-``high_px`` pixels in a random direction (a camera on a
    wobbly mount; the border is replicated)."""
    rng = _rng(seed)
    a, r = rng.uniform(0, 2 * math.pi), rng.uniform(low_px, high_px)
    m = np.float32([[1, 0, r * math.cos(a)], [0, 1, r * math.sin(a)]])
    return cv2.warpAffine(img, m, img.shape[1::-1], borderMode=cv2.BORDER_REPLICATE)
