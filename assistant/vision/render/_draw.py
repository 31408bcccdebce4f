"""Drawing primitives for the procedural art (private): all sizes in mm, drawn at ``ppm`` px/mm.

Everything is drawn with ``cv2`` primitives (anti-aliased) on BGR ``uint8`` canvases; the only
randomness is a smooth value noise seeded from the label (``zlib.crc32``), so every image is
identical from run to run and independent of ``PYTHONHASHSEED``.
"""

from __future__ import annotations

import math
import zlib

import cv2
import numpy as np

AA = cv2.LINE_AA
SHIFT = 4                       #: sub-pixel bits for cv2 drawing
ONE = 1 << SHIFT


def seed_of(label: str) -> int:
    """A stable 32-bit seed from a label."""
    return zlib.crc32(label.encode("utf-8"))


class Pen:
    """Draws on one canvas in mm; ``ppm`` px per mm; pixel (x, y) = mm * ppm (top-left corner of
    the canvas is mm (0, 0))."""

    def __init__(self, img: np.ndarray, ppm: float):
        self.img, self.ppm = img, ppm

    def p(self, x: float, y: float) -> tuple[int, int]:
        return int(round(x * self.ppm * ONE)), int(round(y * self.ppm * ONE))

    def pts(self, pts_mm) -> np.ndarray:
        return np.round(np.asarray(pts_mm, np.float64) * self.ppm * ONE).astype(np.int32).reshape(-1, 1, 2)

    def w(self, mm: float) -> int:
        return max(1, int(round(mm * self.ppm)))

    def poly(self, pts_mm, colour, filled: bool = True, width_mm: float = 0.5) -> None:
        if filled:
            cv2.fillPoly(self.img, [self.pts(pts_mm)], colour, AA, SHIFT)
        else:
            cv2.polylines(self.img, [self.pts(pts_mm)], True, colour, self.w(width_mm), AA, SHIFT)

    def line(self, a, b, colour, width_mm: float = 0.5) -> None:
        cv2.line(self.img, self.p(*a), self.p(*b), colour, self.w(width_mm), AA, SHIFT)

    def polyline(self, pts_mm, colour, width_mm: float = 0.5, closed: bool = False) -> None:
        cv2.polylines(self.img, [self.pts(pts_mm)], closed, colour, self.w(width_mm), AA, SHIFT)

    def circle(self, c, r_mm: float, colour, width_mm: float | None = None) -> None:
        th = -1 if width_mm is None else self.w(width_mm)
        cv2.circle(self.img, self.p(*c), int(round(r_mm * self.ppm * ONE)), colour, th, AA, SHIFT)

    def ellipse(self, c, axes_mm, angle_deg, colour, width_mm: float | None = None, arc=(0, 360)) -> None:
        th = -1 if width_mm is None else self.w(width_mm)
        ax = (int(round(axes_mm[0] * self.ppm * ONE)), int(round(axes_mm[1] * self.ppm * ONE)))
        cv2.ellipse(self.img, self.p(*c), ax, angle_deg, arc[0], arc[1], colour, th, AA, SHIFT)

    def rect(self, x0, y0, x1, y1, colour, width_mm: float | None = None) -> None:
        if width_mm is None:
            self.poly([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], colour)
        else:
            self.poly([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], colour, False, width_mm)


def canvas(w_mm: float, h_mm: float, ppm: float, colour=(255, 255, 255)) -> np.ndarray:
    """A ``(round(h_mm * ppm), round(w_mm * ppm), 3) uint8`` canvas filled with ``colour``."""
    return np.full((int(round(h_mm * ppm)), int(round(w_mm * ppm)), 3), colour, np.uint8)


def value_noise(shape: tuple[int, int], seed: int, cells: int = 8) -> np.ndarray:
    """Smooth noise in ``[-1, 1]``, ``shape`` (H, W) float32: a ``cells``-wide random grid
    upsampled bicubically."""
    rng = np.random.default_rng(seed)
    h, w = shape
    gh, gw = max(2, int(round(cells * h / max(h, w)))) + 1, max(2, int(round(cells * w / max(h, w)))) + 1
    g = rng.uniform(-1.0, 1.0, (gh, gw)).astype(np.float32)
    return np.clip(cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC), -1.0, 1.0)


def tint(img: np.ndarray, noise: np.ndarray, amount: float) -> None:
    """Multiply ``img`` in place by ``1 + amount * noise`` (a mottled print)."""
    f = img.astype(np.float32) * (1.0 + amount * noise)[..., None]
    np.copyto(img, np.clip(f, 0, 255).astype(np.uint8))


def vgradient(img: np.ndarray, y0: int, y1: int, top, bottom) -> None:
    """Fill rows ``y0:y1`` with a vertical gradient from ``top`` to ``bottom`` (BGR)."""
    n = max(1, y1 - y0)
    a = np.linspace(0.0, 1.0, n, dtype=np.float32)[:, None, None]
    img[y0:y1] = (np.array(top, np.float32) * (1 - a) + np.array(bottom, np.float32) * a).astype(np.uint8)


def star(cx: float, cy: float, r_out: float, r_in: float, n: int, rot_deg: float = -90.0) -> list:
    """Vertices of an ``n``-pointed star (mm)."""
    out = []
    for i in range(2 * n):
        r = r_out if i % 2 == 0 else r_in
        a = math.radians(rot_deg + 180.0 * i / n)
        out.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return out


def gear_outline(cx: float, cy: float, r: float, teeth: int = 8) -> list:
    """Vertices of a gear of outer radius ``r`` mm (teeth 22 % deep)."""
    out = []
    for i in range(teeth * 4):
        a = 2 * math.pi * i / (teeth * 4)
        rr = r if (i % 4) in (0, 1) else r * 0.78
        out.append((cx + rr * math.cos(a), cy + rr * math.sin(a)))
    return out


# -- symbols ----------------------------------------------------------------------------------

def compass(pen: Pen, c, r: float) -> None:
    """The small desert-side compass: a bronze disc with a four-pointed star."""
    pen.circle(c, r, (40, 70, 120))
    pen.circle(c, r * 0.82, (60, 110, 170))
    pen.poly(star(c[0], c[1], r * 0.95, r * 0.22, 4), (150, 210, 245))
    pen.poly(star(c[0], c[1], r * 0.55, r * 0.15, 4, -45.0), (30, 60, 140))


def gear_symbol(pen: Pen, c, r: float, colour=(70, 100, 130)) -> None:
    """Two meshed gears on a cream disc (the equipment symbol)."""
    pen.circle(c, r, (205, 230, 240))
    pen.circle(c, r, (60, 90, 120), 0.4)
    for dx, dy, rr in ((-0.28, -0.2, 0.42), (0.3, 0.25, 0.36)):
        g = (c[0] + dx * r, c[1] + dy * r)
        pen.poly(gear_outline(g[0], g[1], rr * r, 8), colour)
        pen.circle(g, rr * r * 0.35, (205, 230, 240))


def drop(pen: Pen, c, size: float, colour=(220, 140, 30)) -> None:
    """A water drop of height ``size`` mm centred at ``c``."""
    x, y = c
    r = size * 0.32
    pen.circle((x, y + size * 0.15), r, colour)
    pen.poly([(x, y - size * 0.5), (x - r * 0.95, y + size * 0.08), (x + r * 0.95, y + size * 0.08)], colour)


def corner_patch(pen: Pen, c, r: float, colour=(225, 240, 245)) -> None:
    """The pale round patch a corner symbol sits on."""
    pen.circle(c, r, colour)
    pen.circle(c, r, (120, 150, 170), 0.4)


def triangle(pen: Pen, tip, direction, size: float, colour) -> None:
    """A filled triangle of ``size`` mm pointing along the unit vector ``direction``."""
    dx, dy = direction
    px, py = -dy, dx
    tx, ty = tip
    base = (tx - dx * size, ty - dy * size)
    pen.poly([tip, (base[0] + px * size * 0.6, base[1] + py * size * 0.6),
              (base[0] - px * size * 0.6, base[1] - py * size * 0.6)], colour)


# -- the four parts, as icons (also the large part pieces) -------------------------------------

PART_COLOURS = {                     # BGR
    "propeller": (30, 205, 245),         # yellow
    "solar_crystal": (20, 130, 245),     # orange
    "engine": (150, 150, 145),           # grey (silver)
    "navigation_deck": (35, 35, 150),    # dark red
}


def part_icon(pen: Pen, part: str, c, r: float, mono=None) -> None:
    """The icon of ``part`` inside a circle of radius ``r`` mm around ``c``; with ``mono`` every
    stroke is drawn in that one colour (the cut-out's alpha).

    Raises
    ------
    KeyError
        For an unknown part.
    """
    col = PART_COLOURS[part]
    dark = tuple(int(v * 0.45) for v in col)
    light = {"solar_crystal": (120, 200, 255), "engine": (200, 200, 195), "navigation_deck": (170, 215, 235)}.get(part)
    needle = (20, 20, 110)
    if mono is not None:
        col = dark = light = needle = mono
    x, y = c
    if part == "propeller":              # three blades around a hub
        for k in range(3):
            a = math.radians(-90 + 120 * k)
            tip = (x + r * math.cos(a), y + r * math.sin(a))
            side = math.radians(-90 + 120 * k + 90)
            w = r * 0.28
            pen.poly([(x + w * 0.5 * math.cos(side), y + w * 0.5 * math.sin(side)),
                      (tip[0] + w * math.cos(side), tip[1] + w * math.sin(side)),
                      tip, (x - w * 0.5 * math.cos(side), y - w * 0.5 * math.sin(side))], col)
        pen.circle(c, r * 0.22, dark)
    elif part == "solar_crystal":        # a faceted hexagonal gem
        hexa = [(x + r * math.cos(math.radians(30 + 60 * k)), y + r * 1.0 * math.sin(math.radians(30 + 60 * k)))
                for k in range(6)]
        pen.poly(hexa, col)
        inner = [(x + r * 0.5 * math.cos(math.radians(30 + 60 * k)), y + r * 0.5 * math.sin(math.radians(30 + 60 * k)))
                 for k in range(6)]
        pen.poly(inner, light)
        for a, b in zip(hexa, inner):
            pen.line(a, b, dark, r * 0.06)
    elif part == "engine":               # a block with cylinder fins
        pen.rect(x - r * 0.95, y - r * 0.6, x + r * 0.95, y + r * 0.6, col)
        for k in range(4):
            fx = x - r * 0.7 + k * r * 0.47
            pen.rect(fx - r * 0.13, y - r * 0.95, fx + r * 0.13, y + r * 0.95, light)
            pen.rect(fx - r * 0.13, y - r * 0.95, fx + r * 0.13, y + r * 0.95, dark, r * 0.05)
        pen.rect(x - r * 0.95, y - r * 0.6, x + r * 0.95, y + r * 0.6, dark, r * 0.07)
    elif part == "navigation_deck":      # a round dial with ticks and a needle
        pen.circle(c, r, col)
        pen.circle(c, r * 0.72, light)
        for k in range(12):
            a = math.radians(30 * k)
            pen.line((x + r * 0.55 * math.cos(a), y + r * 0.55 * math.sin(a)),
                     (x + r * 0.7 * math.cos(a), y + r * 0.7 * math.sin(a)), dark, r * 0.06)
        pen.poly([(x, y - r * 0.6), (x + r * 0.1, y), (x, y + r * 0.15), (x - r * 0.1, y)], needle)
    else:
        raise KeyError(part)
