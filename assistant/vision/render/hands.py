"""Arms and hands reaching over the board: geometry, drawing, motion blur and shadow.

An :class:`Arm` is a 3D chain in table mm (``z = -height``): a sleeve from the shoulder (off
screen), a bare forearm, a palm lying flat at the hand's height and five fingers. Each part is a
capsule (a cylinder with round ends) or a convex palm; a capsule is drawn as the union of the
projected discs at samples along its axis (radius = projected offset perpendicular to the axis
and the viewing ray) and the quads joining them, so perspective and lens distortion shape it.

Motion blur (field report F9): the arm layer (premultiplied colour and alpha) is convolved with
a line kernel along the hand's image displacement during the exposure
(:func:`~.effects.line_kernel`). This blurs the whole arm as much as the hand, an
approximation: a real arm turning about the shoulder blurs less near the shoulder.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from .camera import Camera
from .effects import line_kernel
from .tall import shadow_polygon

SHIFT = 4
SKIN_TONES = ((185, 200, 235), (130, 165, 215), (95, 135, 190), (60, 95, 150), (40, 60, 100))
SLEEVES = ((120, 70, 40), (40, 40, 40), (60, 60, 160), (200, 200, 200), (60, 120, 60), (150, 110, 180))


@dataclass(frozen=True)
class ArmStyle:
    """Colours (BGR) and sizes (mm) of an arm."""

    skin: tuple[int, int, int] = SKIN_TONES[1]
    sleeve: tuple[int, int, int] = SLEEVES[0]
    forearm_radius_mm: float = 30.0
    sleeve_radius_mm: float = 42.0
    sleeve_from_wrist_mm: float = 170.0
    hand_length_mm: float = 105.0
    hand_width_mm: float = 80.0


def random_style(seed) -> ArmStyle:
    """An :class:`ArmStyle` with a skin tone and sleeve colour picked by ``seed`` (int or Generator)."""
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    return ArmStyle(SKIN_TONES[int(rng.integers(len(SKIN_TONES)))], SLEEVES[int(rng.integers(len(SLEEVES)))],
                    forearm_radius_mm=float(rng.uniform(26, 34)), hand_width_mm=float(rng.uniform(72, 88)))


@dataclass(frozen=True)
class Arm:
    """One arm at one instant.

    Attributes
    ----------
    shoulder_mm : (x, y, z)
        Table mm, ``z = -height`` (the root; usually outside the picture).
    hand_mm : (x, y, z)
        Palm centre, table mm.
    velocity_mm_s : (vx, vy, vz)
        The hand's velocity, mm/s (for the motion blur).
    style : ArmStyle
    """

    shoulder_mm: tuple[float, float, float]
    hand_mm: tuple[float, float, float]
    velocity_mm_s: tuple[float, float, float] = (0.0, 0.0, 0.0)
    style: ArmStyle = ArmStyle()


@dataclass
class ArmLayer:
    """A drawn arm: premultiplied colour ``(h, w, 3) float32`` (0-255) and alpha ``(h, w) float32``
    (0-1) over the image box ``(x0, y0, x1, y1)`` px (exclusive ends), the hand's image pixel,
    and the blur length (px) and angle (degrees) used."""

    box: tuple[int, int, int, int]
    colour: np.ndarray
    alpha: np.ndarray
    hand_px: tuple[float, float]
    blur_px: float
    blur_deg: float

    def full_alpha(self, size: tuple[int, int]) -> np.ndarray:
        """The alpha over the whole image ``(H, W) float32`` for ``size = (W, H)``."""
        w, h = size
        out = np.zeros((h, w), np.float32)
        x0, y0, x1, y1 = self.box
        out[y0:y1, x0:x1] = self.alpha
        return out


def _parts(arm: Arm) -> tuple[list, np.ndarray]:
    """Capsules ``(A, B, rA, rB, role)`` and the palm outline ``(N, 3)`` in table mm."""
    st = arm.style
    s = np.asarray(arm.shoulder_mm, np.float64)
    p = np.asarray(arm.hand_mm, np.float64)
    d = p - s
    u = np.array([d[0], d[1], 0.0])
    n = np.linalg.norm(u)
    u = u / n if n > 1e-6 else np.array([0.0, -1.0, 0.0])
    side = np.array([-u[1], u[0], 0.0])
    wrist = p - u * (0.42 * st.hand_length_mm) + np.array([0.0, 0.0, -8.0])
    axis = wrist - s
    length = np.linalg.norm(axis)
    cuff = wrist - axis / max(length, 1e-6) * min(st.sleeve_from_wrist_mm, 0.8 * length)
    caps = [(s, cuff, st.sleeve_radius_mm, st.sleeve_radius_mm * 0.92, "sleeve"),
            (cuff, wrist, st.forearm_radius_mm, st.forearm_radius_mm * 0.8, "skin")]
    palm_len, w = 0.55 * st.hand_length_mm, st.hand_width_mm
    palm_c = p - u * 0.12 * st.hand_length_mm
    t = np.linspace(0, 2 * np.pi, 28, endpoint=False)
    ex, ey = np.cos(t), np.sin(t)
    sx = np.sign(ex) * np.abs(ex) ** 0.6 * palm_len / 2       # a squarish ellipse (superellipse)
    sy = np.sign(ey) * np.abs(ey) ** 0.6 * w / 2
    palm = palm_c + sx[:, None] * u + sy[:, None] * side
    front = palm_c + u * palm_len / 2
    fr = w / 10.0
    for k, (off, ln) in enumerate(((-0.36, 0.40), (-0.12, 0.46), (0.12, 0.44), (0.36, 0.36))):
        base = front + side * off * w - u * fr
        caps.append((base, base + u * ln * st.hand_length_mm + np.array([0.0, 0.0, 4.0]), fr, fr * 0.85, "finger"))
    thumb_base = palm_c + side * 0.45 * w - u * 0.1 * palm_len
    thumb_tip = thumb_base + (u * 0.6 + side * 0.8) * 0.38 * st.hand_length_mm
    caps.append((thumb_base, thumb_tip, fr * 1.2, fr, "finger"))
    return caps, palm


def _samples(a, b, ra, rb, step_mm: float = 40.0):
    n = max(2, int(math.ceil(np.linalg.norm(b - a) / step_mm)) + 1)
    f = np.linspace(0.0, 1.0, n)
    return a + f[:, None] * (b - a), ra + f * (rb - ra)


def _fill_chain(img: np.ndarray, centres: np.ndarray, radii: np.ndarray, colour, off) -> None:
    """Fill the chain of discs (cv2.circle) and the tangent quads between them, anti-aliased."""
    one = 1 << SHIFT
    cs = np.round((centres - off) * one).astype(np.int64)
    rs = np.round(radii * one).astype(np.int64)
    lim = 1 << 26
    for (x, y), r in zip(cs, rs):
        if abs(x) < lim and abs(y) < lim and r < lim:
            cv2.circle(img, (int(x), int(y)), int(r), colour, -1, cv2.LINE_AA, SHIFT)
    d = centres[1:] - centres[:-1]
    ln = np.linalg.norm(d, axis=1)
    ok = ln > 1e-6
    if not np.any(ok):
        return
    nrm = np.zeros_like(d)
    nrm[ok] = np.stack([-d[ok, 1], d[ok, 0]], 1) / ln[ok, None]
    c0, c1 = centres[:-1] - off, centres[1:] - off
    quads = np.stack([c0 + nrm * radii[:-1, None], c1 + nrm * radii[1:, None],
                      c1 - nrm * radii[1:, None], c0 - nrm * radii[:-1, None]], 1)
    q = np.round(quads * one).astype(np.int64)
    for i in np.nonzero(ok)[0]:
        if np.all(np.abs(q[i]) < lim):
            cv2.fillConvexPoly(img, q[i].astype(np.int32).reshape(-1, 1, 2), colour, cv2.LINE_AA, SHIFT)


def _project_capsule(camera: Camera, a, b, ra, rb) -> tuple[np.ndarray, np.ndarray]:
    pts, rad = _samples(a, b, ra, rb)
    axis = (b - a) / max(np.linalg.norm(b - a), 1e-9)
    view = pts - camera.center_mm
    perp = np.cross(axis, view)
    perp /= np.maximum(np.linalg.norm(perp, axis=1, keepdims=True), 1e-9)
    c = camera.project(pts)
    e = camera.project(pts + perp * rad[:, None])
    return c, np.linalg.norm(e - c, axis=1)


def draw_arm(camera: Camera, arm: Arm, exposure_s: float = 1.0 / 60.0) -> ArmLayer | None:
    """Draw ``arm`` as seen by ``camera`` (lens distortion included), blurred by its motion.

    Parameters
    ----------
    camera : Camera
    arm : Arm
    exposure_s : float
        Exposure time, seconds (the blur is ``|v| * exposure_s`` projected, px).

    Returns
    -------
    ArmLayer or None
        None when no part of the arm falls in the picture.
    """
    caps, palm = _parts(arm)
    shapes = []           # (centres px, radii px, colour, role)
    st = arm.style
    for a, b, ra, rb, role in caps:
        c, r = _project_capsule(camera, a, b, ra, rb)
        if not (np.all(np.isfinite(c)) and np.all(np.isfinite(r))):
            continue
        shapes.append((c, r, st.sleeve if role == "sleeve" else st.skin, role))
    palm_px = camera.project(palm)
    palm_ok = bool(np.all(np.isfinite(palm_px)))
    hand_px = camera.project(np.asarray(arm.hand_mm)[None])[0]
    v = np.asarray(arm.velocity_mm_s, np.float64)
    h0 = camera.project((np.asarray(arm.hand_mm) - v * exposure_s / 2)[None])[0]
    h1 = camera.project((np.asarray(arm.hand_mm) + v * exposure_s / 2)[None])[0]
    blur = float(np.linalg.norm(h1 - h0)) if np.all(np.isfinite([h0, h1])) else 0.0
    blur_deg = float(math.degrees(math.atan2(h1[1] - h0[1], h1[0] - h0[0]))) if blur > 0 else 0.0
    if not shapes and not palm_ok:
        return None
    lo = [c.min(axis=0) - r.max() for c, r, _, _ in shapes] + ([palm_px.min(axis=0)] if palm_ok else [])
    hi = [c.max(axis=0) + r.max() for c, r, _, _ in shapes] + ([palm_px.max(axis=0)] if palm_ok else [])
    w, h = camera.size
    pad = int(math.ceil(blur)) + 3
    x0, y0 = np.floor(np.min(lo, axis=0)).astype(int) - pad
    x1, y1 = np.ceil(np.max(hi, axis=0)).astype(int) + pad + 1
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if x0 >= x1 or y0 >= y1:
        return None
    off = np.array([x0, y0], np.float64)
    col = np.zeros((y1 - y0, x1 - x0, 3), np.uint8)
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)

    def shade(colour, k):
        return tuple(float(min(255.0, v * k)) for v in colour)

    # shaded like a cylinder lit from the front: darker rim, lighter core
    for c, r, colour, role in shapes:
        if role == "finger":
            continue
        _fill_chain(mask, c, r, 255, off)
        _fill_chain(col, c, r, shade(colour, 0.72), off)
        _fill_chain(col, c, r * 0.72, shade(colour, 0.9), off)
        _fill_chain(col, c, r * 0.35, shade(colour, 1.02), off)
    if palm_ok:
        pts = np.round((palm_px - off) * (1 << SHIFT)).astype(np.int32).reshape(-1, 1, 2)
        cv2.fillConvexPoly(mask, pts, 255, cv2.LINE_AA, SHIFT)
        cv2.fillConvexPoly(col, pts, shade(st.skin, 0.85), cv2.LINE_AA, SHIFT)
        pc = palm_px.mean(axis=0)
        inner = np.round((pc + (palm_px - pc) * 0.7 - off) * (1 << SHIFT)).astype(np.int32).reshape(-1, 1, 2)
        cv2.fillConvexPoly(col, inner, shade(st.skin, 0.97), cv2.LINE_AA, SHIFT)
    for c, r, colour, role in shapes:
        if role != "finger":
            continue
        _fill_chain(mask, c, r, 255, off)
        _fill_chain(col, c, r, shade(colour, 0.7), off)
        _fill_chain(col, c, np.maximum(r - 1.2, r * 0.6), shade(colour, 0.95), off)
    colour_f = col.astype(np.float32)
    alpha = mask.astype(np.float32) * (1.0 / 255.0)
    # the colour canvas was drawn over black with anti-aliasing: it is already premultiplied,
    # except where an inner shade is brighter than the edge; clamp to alpha
    colour_f = np.minimum(colour_f, 255.0 * alpha[..., None])
    if blur >= 1.5:
        colour_f, alpha = _blur_layer(colour_f, alpha, blur, blur_deg)
    return ArmLayer((x0, y0, x1, y1), colour_f, alpha, (float(hand_px[0]), float(hand_px[1])), blur, blur_deg)


def _blur_layer(colour: np.ndarray, alpha: np.ndarray, length: float, angle_deg: float):
    """Line-kernel blur of premultiplied colour and alpha together; long blurs (> 6 px) run at
    half resolution (8x cheaper; the result is smooth along the motion anyway)."""
    rgba = np.dstack([colour, alpha])
    h, w = alpha.shape
    if length > 6.0 and min(h, w) >= 8:
        small = cv2.resize(rgba, ((w + 1) // 2, (h + 1) // 2), interpolation=cv2.INTER_AREA)
        small = cv2.filter2D(small, -1, line_kernel(length / 2.0, angle_deg), borderType=cv2.BORDER_CONSTANT)
        rgba = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    else:
        rgba = cv2.filter2D(rgba, -1, line_kernel(length, angle_deg), borderType=cv2.BORDER_CONSTANT)
    return np.ascontiguousarray(rgba[..., :3]), np.ascontiguousarray(rgba[..., 3])


def composite(frame_f: np.ndarray, layer: ArmLayer) -> None:
    """Put an arm over a float32 frame ``(H, W, 3)`` (0-255) in place: ``C + F (1 - a)``."""
    x0, y0, x1, y1 = layer.box
    roi = frame_f[y0:y1, x0:x1]
    roi *= (1.0 - layer.alpha)[..., None]
    roi += layer.colour


def draw_arm_shadow(mask: np.ndarray, camera: Camera, arm: Arm, light_mm, scale: float = 1.0) -> None:
    """Draw the arm's shadow on the table into ``mask`` (``(h, w) float32``, at ``scale`` times the
    image's pixel grid) in place: every part's points cast from the point light ``light_mm``
    (central projection onto ``z = 0``, :func:`~.tall.shadow_polygon`)."""
    caps, palm = _parts(arm)
    zero = np.zeros(2)
    for a, b, ra, rb, _ in caps:
        pts, rad = _samples(a, b, ra, rb, 50.0)
        axis = (b - a) / max(np.linalg.norm(b - a), 1e-9)
        side = np.cross(axis, [0.0, 0.0, 1.0])
        side /= max(np.linalg.norm(side), 1e-9)
        c = camera.project(shadow_polygon(pts, light_mm))
        e = camera.project(shadow_polygon(pts + side * rad[:, None], light_mm))
        r = np.linalg.norm(e - c, axis=1)
        if np.all(np.isfinite(c)) and np.all(np.isfinite(r)):
            _fill_chain(mask, (c + 0.5) * scale - 0.5, r * scale, 1.0, zero)
    pp = camera.project(shadow_polygon(palm, light_mm))
    if np.all(np.isfinite(pp)) and np.all(np.abs(pp) < 1e6):
        pts = np.round(((pp + 0.5) * scale - 0.5) * (1 << SHIFT)).astype(np.int32).reshape(-1, 1, 2)
        cv2.fillConvexPoly(mask, pts, 1.0, cv2.LINE_AA, SHIFT)


def entry_point(camera: Camera, edge: str, near_px, height_mm: float, beyond: float = 0.12) -> np.ndarray:
    """A table point ``(3,)`` mm at ``height_mm`` that the camera sees just outside one image edge.

    Parameters
    ----------
    edge : str
        ``"bottom"``, ``"top"``, ``"left"`` or ``"right"``.
    near_px : (x, y) px
        The point stays in this column (top/bottom) or row (left/right).
    height_mm : float
        Height above the table (capped at 70 % of the camera's height).
    beyond : float
        How far outside the edge, as a fraction of the image size (the point is pushed further
        until it projects outside the picture).

    Raises
    ------
    ValueError
        For an unknown edge.
    """
    w, h = camera.size
    if edge not in ("bottom", "top", "left", "right"):
        raise ValueError(f"edge must be bottom, top, left or right, got {edge!r}")
    height = min(height_mm, 0.7 * -camera.center_mm[2])
    x, y = float(np.clip(near_px[0], 0, w - 1)), float(np.clip(near_px[1], 0, h - 1))
    for k in range(12):
        f = beyond * (1.5 ** k)
        px = {"bottom": (x, h * (1 + f)), "top": (x, -h * f), "left": (-w * f, y), "right": (w * (1 + f), y)}[edge]
        # taken as an undistorted pixel: with barrel distortion it lies even further out
        p = camera.back_project(np.array([px], np.float64), height)[0]
        if np.all(np.isfinite(p)) and not camera.in_image(camera.project(p[None]), -2.0)[0]:
            return p
    return p
