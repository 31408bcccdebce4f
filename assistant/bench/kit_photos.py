"""A second renderer, for measuring only: photographs of the printed kits made another way.

The kit detectors are taught and tuned on :mod:`assistant.vision.render`. A figure measured on
pictures made the same way says little (the project's lesson), so ``assistant bench detect``
measures them here too, on pictures this module makes with its own scene composition, camera,
lens, light and sensor pipeline, none of it shared with :mod:`assistant.vision.render`:

- **print and cut**: the mat (:func:`~assistant.vision.printing.draw_mat`) and the pieces are
  taken at the kit's print resolution (200 dpi), passed through a printer model (a colour
  matrix near identity, dot gain, an off-white paper) and cut out with a cut line up to 0.6 mm
  off the printed edge; each piece casts a thin contact shadow on what lies under it;
- **camera and lens**: a pinhole at a chosen distance (so that a hex spans a chosen number of
  pixels), tilt and azimuth round the mat, a one-parameter division-model lens distortion
  left uncorrected, lateral chromatic aberration; rendered at twice the resolution and
  area-averaged;
- **light**: linear light; an ambient light and a lamp (inverse-square Lambertian irradiance
  and a Blinn-Phong specular lobe from the paper's gloss, so glare lands where the lamp's
  mirror image is), colours from the Planckian locus (Kim et al. 2002 cubic fit of CIE 1931
  ``x, y``, then XYZ to linear sRGB), soft shadows of things outside the picture, cos^4
  vignetting;
- **sensor and pipeline**: defocus (a soft lens, plus the thin-lens circle of confusion of a
  1.7 mm aperture focused on the mat's middle, growing with depth),
  camera shake, a sensor colour matrix, a Bayer mosaic with Poisson-Gaussian noise and
  OpenCV's edge-aware demosaicing, automatic white balance (grey world over the whole picture,
  table included, as a webcam does: a pink table tints the mat) or a fixed preset, a colour
  correction matrix that does not undo the sensor's exactly, automatic exposure (the median at
  a target, the brightest percent at most 1.4 times the clipping level) with clipping,
  a tone curve (sRGB with a contrast S-curve or a plain gamma), sharpening, JPEG with 4:2:0
  chroma.

Two sets, 1280x720 (two pictures in three) or 1920x1080 (:func:`draw_shot`): **normal** (an office or daylit room, a mild lamp,
a good webcam) and **stress** (several effects stacked in every picture: a dim warm room and a
lamp with glare on the mat, defocus, shake, noise, JPEG 35-60, vignetting, a coloured table
that misleads the white balance). The ranges are listed in :data:`NORMAL` and :data:`STRESS`;
where they overlap a teaching range of :mod:`assistant.vision.render` in a parameter's name,
the value here is made differently (another formula or another place in the pipeline).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from ..vision.mats import MatLayout
from ..vision.printing import MM_PER_INCH, draw_mat

PRINT_PPM = 200.0 / MM_PER_INCH        #: the kits print at 200 dpi (``assistant print kit``)
TEX_PPM = 5.0                          #: resolution of the composed mat texture, px per mm
SUPER = 2                              #: supersampling factor
HIGHLIGHT_LIMIT = 1.4                  #: auto exposure lets the brightest percent reach this share of clipping
APERTURE_MM = 1.7                      #: the lens's aperture, for the defocus that grows with depth
GRID = 8                               #: the ray map is computed every GRID supersampled px and interpolated

#: parameter ranges of the two sets (uniform unless said): the documentation of the held-out data
NORMAL = {
    "px_per_hex": (40.0, 120.0), "tilt_deg": (0.0, 30.0), "azimuth_deg": (0.0, 360.0), "roll_deg": (-12.0, 12.0),
    "hfov_deg": (55.0, 75.0), "distortion": (-0.015, 0.015), "chromatic": (0.0, 0.0008),
    "ambient_kelvin": (4000.0, 6500.0), "lamp_kelvin": (3500.0, 5500.0), "lamp_share": (0.1, 0.4),
    "gloss": (0.0, 0.03), "shininess": (8.0, 20.0), "shadow": (0.0, 0.15), "vignette": (0.0, 0.15),
    "defocus_px": (0.0, 0.7), "shake_px": (0.0, 0.8), "read_noise": (0.001, 0.004), "photons": (3000.0, 8000.0),
    "awb_strength": (0.7, 1.0), "ccm_error": (0.0, 0.04), "exposure_target": (0.16, 0.22),
    "contrast": (0.0, 0.15), "sharpen": (0.0, 0.5), "jpeg": (80, 95),
    "table": ("grey cloth", "light wood", "dark wood"), "printer_error": (0.0, 0.04),
    "place_mm": (0.0, 2.0), "turn_deg": (0.0, 5.0), "cut_mm": (-0.3, 0.5), "size": ((1280, 720), (1280, 720), (1920, 1080)),
}
STRESS = {
    "px_per_hex": (40.0, 120.0), "tilt_deg": (10.0, 35.0), "azimuth_deg": (0.0, 360.0), "roll_deg": (-12.0, 12.0),
    "hfov_deg": (60.0, 80.0), "distortion": (-0.03, 0.03), "chromatic": (0.0008, 0.002),
    "ambient_kelvin": (2600.0, 3300.0), "lamp_kelvin": (2400.0, 3000.0), "lamp_share": (0.5, 0.85),
    "gloss": (0.05, 0.18), "shininess": (15.0, 60.0), "shadow": (0.2, 0.45), "vignette": (0.25, 0.5),
    "defocus_px": (1.0, 2.6), "shake_px": (0.8, 3.0), "read_noise": (0.006, 0.012), "photons": (600.0, 1500.0),
    "awb_strength": (0.3, 0.7), "ccm_error": (0.04, 0.1), "exposure_target": (0.1, 0.3),
    "contrast": (0.1, 0.35), "sharpen": (0.4, 1.2), "jpeg": (35, 60),
    "table": ("pink cloth", "green felt", "dark wood", "orange wood"), "printer_error": (0.03, 0.08),
    "place_mm": (0.0, 2.5), "turn_deg": (0.0, 8.0), "cut_mm": (-0.5, 0.6), "size": ((1280, 720), (1280, 720), (1920, 1080)),
}
#: table colours, sRGB BGR 0-255
TABLES = {"grey cloth": (120, 122, 125), "light wood": (120, 170, 205), "dark wood": (45, 70, 100),
          "pink cloth": (170, 140, 225), "green felt": (70, 130, 40), "orange wood": (50, 120, 200)}


@dataclass
class Shot:
    """Everything drawn for one picture (see :data:`NORMAL` / :data:`STRESS` for the ranges)."""

    which: str
    p: dict
    seed: int


def draw_shot(rng: np.random.Generator, which: str, seed: int) -> Shot:
    """Draw one picture's parameters from set ``which`` (``normal`` or ``stress``).

    Raises
    ------
    ValueError
        For an unknown set.
    """
    if which not in ("normal", "stress"):
        raise ValueError(f"unknown set {which!r}")
    ranges = NORMAL if which == "normal" else STRESS
    p = {}
    for key, r in ranges.items():
        if key in ("table", "size"):
            p[key] = r[int(rng.integers(len(r)))]
        elif key in ("place_mm", "turn_deg", "cut_mm"):
            p[key] = r                          # drawn per piece
        elif key == "jpeg":
            p[key] = int(rng.integers(r[0], r[1] + 1))
        else:
            p[key] = float(rng.uniform(*r))
    return Shot(which, p, seed)


# --- colour ---------------------------------------------------------------------------------------

def planck_rgb(kelvin: float) -> np.ndarray:
    """The colour of a Planckian radiator as linear sRGB ``(3,) float64`` **BGR**, green = 1.

    Chromaticity ``x, y`` from the cubic fit of Kim et al. (2002, "Design of advanced color
    temperature control system for HDTV applications"), valid 1667-25000 K; ``Y = 1``; XYZ to
    linear sRGB with the IEC 61966-2-1 matrix.

    >>> planck_rgb(6500).round(2).tolist()
    [1.05, 1.0, 1.06]
    """
    t = float(np.clip(kelvin, 1667.0, 25000.0))
    if t <= 4000:
        x = -0.2661239e9 / t ** 3 - 0.2343589e6 / t ** 2 + 0.8776956e3 / t + 0.179910
    else:
        x = -3.0258469e9 / t ** 3 + 2.1070379e6 / t ** 2 + 0.2226347e3 / t + 0.240390
    if t <= 2222:
        y = -1.1063814 * x ** 3 - 1.34811020 * x ** 2 + 2.18555832 * x - 0.20219683
    elif t <= 4000:
        y = -0.9549476 * x ** 3 - 1.37418593 * x ** 2 + 2.09137015 * x - 0.16748867
    else:
        y = 3.0817580 * x ** 3 - 5.87338670 * x ** 2 + 3.75112997 * x - 0.37001483
    xyz = np.array([x / y, 1.0, (1 - x - y) / y])
    m = np.array([[3.2406, -1.5372, -0.4986], [-0.9689, 1.8758, 0.0415], [0.0557, -0.2040, 1.0570]])
    rgb = np.clip(m @ xyz, 1e-3, None)
    return (rgb / rgb[1])[::-1]


def _linear_lut() -> np.ndarray:
    c = np.arange(256, dtype=np.float64) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4).astype(np.float32)


_LINEAR = _linear_lut()


def to_linear(srgb8: np.ndarray) -> np.ndarray:
    """sRGB ``uint8`` (any shape) -> linear ``float32`` 0-1 (the IEC 61966-2-1 transfer curve)."""
    return _LINEAR[np.asarray(srgb8, np.uint8)]


def to_srgb(lin: np.ndarray) -> np.ndarray:
    """Linear ``float`` 0-1 -> sRGB-encoded ``float32`` 0-1 (clipped)."""
    c = np.clip(lin, 0.0, 1.0)
    return np.where(c <= 0.0031308, 12.92 * c, 1.055 * np.power(c, 1 / 2.4) - 0.055).astype(np.float32)


def _near_identity(rng: np.random.Generator, amount: float) -> np.ndarray:
    """A 3x3 colour matrix whose rows sum to 1, off the identity by up to ``amount`` per entry."""
    m = np.eye(3) + rng.uniform(-amount, amount, (3, 3))
    return m / m.sum(axis=1, keepdims=True)


def printed(art_bgr: np.ndarray, rng_seed: int, error: float) -> np.ndarray:
    """What a printer makes of a ``uint8`` BGR picture: a colour matrix near identity (gamut),
    dot gain (mid-tones a little darker) and an off-white paper (0.90-0.97 reflectance);
    ``error`` bounds the matrix. Deterministic in ``rng_seed`` (one printer per seed).

    Returns
    -------
    (h, w, 3) float32
        Linear reflectance 0-1.
    """
    rng = np.random.default_rng([rng_seed, 99])
    m = _near_identity(rng, error)
    paper = rng.uniform(0.90, 0.97) * np.array([rng.uniform(0.97, 1.0), 1.0, rng.uniform(0.98, 1.0)])
    gain = rng.uniform(0.0, 0.12)
    lin = to_linear(art_bgr) @ m.T.astype(np.float32)
    lin = np.clip(lin, 0.0, 1.0)
    lin = lin * (1.0 - gain * 4.0 * lin * (1.0 - lin))      # dot gain: mid-tones darker
    black = 0.03
    return (black + (paper.astype(np.float32) - black) * lin).astype(np.float32)


# --- the mat and pieces as printed -----------------------------------------------------------------

@dataclass(frozen=True)
class Cutout:
    """One printed piece to lay: its picture (BGRA at any ppm, alpha 0 outside the print), its
    cut shape (``"hex"``, ``"disc"``, ``"square"``, ``"arrow"``), the printed size (mm), where its
    centre lies (mat mm) and its turn (degrees, clockwise seen from above), drawing ``layer``."""

    art: np.ndarray
    shape: str
    size_mm: tuple[float, float]
    centre_mm: tuple[float, float]
    angle_deg: float
    layer: int = 0


def _cut_mask(shape: str, size_mm: tuple[float, float], cut_mm: float, ppm: float, canvas: tuple[int, int]) -> np.ndarray:
    """Alpha ``(h, w) float32`` 0-1 of the cut piece on a canvas centred on it (anti-aliased)."""
    h, w = canvas
    m = np.zeros((h, w), np.uint8)
    c = np.array([w / 2 - 0.5, h / 2 - 0.5])
    s = 16
    if shape == "disc":
        cv2.circle(m, tuple(int(round(v * s)) for v in c), int(round((size_mm[0] / 2 + cut_mm) * ppm * s)), 255, -1,
                   cv2.LINE_AA, 4)
        return m.astype(np.float32) / 255.0
    if shape == "hex":
        r = size_mm[0] / 2 + cut_mm / math.cos(math.radians(30))
        pts = [(r * math.cos(math.radians(60 * i)), r * math.sin(math.radians(60 * i))) for i in range(6)]
    elif shape == "arrow":
        ln, wd = size_mm[0] / 2 + cut_mm, size_mm[1] / 2 + cut_mm
        pts = [(-ln, -wd), (0.0, -wd), (ln + cut_mm, 0.0), (0.0, wd), (-ln, wd)]
    else:
        a, b = size_mm[0] / 2 + cut_mm, size_mm[1] / 2 + cut_mm
        pts = [(-a, -b), (a, -b), (a, b), (-a, b)]
    poly = np.round((np.array(pts) * ppm + c) * s).astype(np.int32)
    cv2.fillPoly(m, [poly], 255, cv2.LINE_AA, 4)
    return m.astype(np.float32) / 255.0


def compose(layout: MatLayout, cutouts: list[Cutout], shot: Shot) -> np.ndarray:
    """The mat with the pieces on it, as printed and cut: linear reflectance ``(H, W, 3) float32``
    at :data:`TEX_PPM` (mat mm ``(x, y)`` at pixel ``(x, y) * TEX_PPM - 0.5``).

    Each piece is printed (:func:`printed`, the same printer as the mat), cut with an error drawn
    from the shot's ``cut_mm`` range (a white paper rim when positive), turned and laid; under
    it, a contact shadow (the paper's thickness) darkens a 0.4 mm rim on the side away from the light.
    """
    rng = np.random.default_rng([shot.seed, 5])
    err = shot.p["printer_error"]
    tex = draw_mat(layout, TEX_PPM)
    shade = np.ones(tex.shape[:2], np.float32)
    cut_range = shot.p["cut_mm"]
    for cut in sorted(cutouts, key=lambda c: c.layer):
        k = TEX_PPM * cut.size_mm[0] / cut.art.shape[1]
        art = cv2.resize(cut.art, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
        margin = int(math.ceil(2.0 * TEX_PPM))
        h, w = art.shape[0] + 2 * margin, art.shape[1] + 2 * margin
        canvas = np.full((h, w, 3), 255, np.uint8)            # the sheet's white round the print
        a_art = art[..., 3:4].astype(np.float32) / 255.0
        canvas[margin:margin + art.shape[0], margin:margin + art.shape[1]] = np.round(
            art[..., :3] * a_art + 255 * (1 - a_art)).astype(np.uint8)
        alpha = _cut_mask(cut.shape, cut.size_mm, float(rng.uniform(*cut_range)), TEX_PPM, (h, w))
        cx, cy = cut.centre_mm[0] * TEX_PPM - 0.5, cut.centre_mm[1] * TEX_PPM - 0.5
        reach = math.hypot(h, w) / 2 + 2
        x0, y0 = int(max(0, math.floor(cx - reach))), int(max(0, math.floor(cy - reach)))
        x1, y1 = int(min(tex.shape[1], math.ceil(cx + reach))), int(min(tex.shape[0], math.ceil(cy + reach)))
        if x1 <= x0 or y1 <= y0:
            continue
        rot = cv2.getRotationMatrix2D((w / 2 - 0.5, h / 2 - 0.5), -cut.angle_deg, 1.0)   # turn about its centre
        rot[:, 2] += (cx - (w / 2 - 0.5) - x0, cy - (h / 2 - 0.5) - y0)
        size = (x1 - x0, y1 - y0)
        ink = cv2.warpAffine(canvas, rot, size, flags=cv2.INTER_LINEAR, borderValue=(255, 255, 255)).astype(np.float32)
        a_w = cv2.warpAffine(alpha, rot, size, flags=cv2.INTER_LINEAR, borderValue=0.0)
        shadow = cv2.GaussianBlur(cv2.warpAffine(alpha, rot + np.float64([[0, 0, 0.3 * TEX_PPM], [0, 0, 0.4 * TEX_PPM]]),
                                                 size, borderValue=0.0), (0, 0), 0.4 * TEX_PPM)
        roi, sroi = tex[y0:y1, x0:x1], shade[y0:y1, x0:x1]
        roi[:] = np.round(roi * (1.0 - a_w[..., None]) + ink * a_w[..., None]).astype(np.uint8)
        sroi[:] = sroi * (1.0 - 0.35 * shadow * (1.0 - a_w)) * (1.0 - a_w) + a_w
    return printed(tex, shot.seed, err) * shade[..., None]


# --- the photograph --------------------------------------------------------------------------------

def _camera(layout: MatLayout, shot: Shot, size: tuple[int, int]):
    """Intrinsics ``K``, rotation ``R`` (world -> camera) and centre ``C`` (world, mm; the mat
    plane is ``z = 0`` with ``z`` pointing into the table), at a distance that gives the shot's
    pixels per hex at the mat centre, or further when the whole mat would not be in the picture
    (at 1280x720 a whole mat holds about 40-80 px per hex)."""
    p = shot.p
    w, h = size
    f = (w / 2) / math.tan(math.radians(p["hfov_deg"]) / 2)
    K = np.array([[f, 0, w / 2 + 0.02 * w * math.sin(shot.seed)], [0, f, h / 2 + 0.02 * h * math.cos(shot.seed)],
                  [0, 0, 1.0]])
    hex_mm = 2.0 * layout.cell_pitch_mm
    dist = f * hex_mm / p["px_per_hex"]
    tilt, az = math.radians(p["tilt_deg"]), math.radians(p["azimuth_deg"])
    mw, mh = layout.size_mm
    rng = np.random.default_rng([shot.seed, 3])
    target = np.array([mw / 2 + rng.uniform(-0.05, 0.05) * mw, mh / 2 + rng.uniform(-0.05, 0.05) * mh, 0.0])
    away = np.array([math.sin(tilt) * math.cos(az), math.sin(tilt) * math.sin(az), -math.cos(tilt)])
    for _ in range(40):                    # back off until the whole mat is in the picture
        K, R, C = _pose(K, target, target + dist * away, az, math.radians(p["roll_deg"]), tilt)
        corners = np.column_stack([layout.outline_mm(), np.zeros(4)])
        uvw = (K @ (R @ (corners - C).T)).T
        uv = uvw[:, :2] / uvw[:, 2:3]
        if np.all(uvw[:, 2] > 0) and np.all(uv >= 0.03 * np.array(size)) and np.all(uv <= 0.97 * np.array(size)):
            break
        dist *= 1.06
    return K, R, C


def _pose(K, target, C, az: float, roll: float, tilt: float):
    """``(K, R, C)`` of a camera at ``C`` looking at ``target``, the picture's top towards the
    mat's far side from the camera, turned ``roll`` about the optical axis."""
    fwd = (target - C) / np.linalg.norm(target - C)
    toward = -np.array([math.cos(az), math.sin(az), 0.0])          # the picture's top is the mat's far side
    up_ref = toward if tilt > 1e-3 else np.array([-math.cos(az), -math.sin(az), 0.0])
    down = -(up_ref - np.dot(up_ref, fwd) * fwd)
    down /= np.linalg.norm(down)
    right = np.cross(down, fwd)
    r2 = math.cos(roll) * right + math.sin(roll) * down
    d2 = -math.sin(roll) * right + math.cos(roll) * down
    return K, np.stack([r2, d2, fwd]), C


def _mat_points(K, R, C, lam: float, shape: tuple[int, int], scale: float) -> tuple[np.ndarray, np.ndarray]:
    """Mat mm ``(h, w, 2) float32`` seen by each pixel of a picture ``scale`` times the size,
    through a division-model lens (``x_u = x_d / (1 + lam r_d^2)``, normalised coordinates),
    and the depth of each point along the optical axis ``(h, w) float32`` mm."""
    h, w = shape
    step = GRID
    gh, gw = h // step + 2, w // step + 2
    ys, xs = np.mgrid[0:gh, 0:gw].astype(np.float32) * step
    u = (xs + 0.5) / scale - 0.5
    v = (ys + 0.5) / scale - 0.5
    xn, yn = (u - K[0, 2]) / K[0, 0], (v - K[1, 2]) / K[1, 1]
    d = 1.0 + lam * (xn * xn + yn * yn)
    xu, yu = xn / d, yn / d
    rays = np.stack([xu, yu, np.ones_like(xu)], axis=-1) @ R.astype(np.float32)        # camera -> world dirs
    t = -C[2] / np.where(np.abs(rays[..., 2]) < 1e-9, 1e-9, rays[..., 2])
    pts = C[:2].astype(np.float32) + t[..., None] * rays[..., :2]
    # the map is smooth: computed every GRID px and interpolated (sub-millipixel error at this step)
    full = (gw * step, gh * step)
    pts = cv2.resize(pts.astype(np.float32), full, interpolation=cv2.INTER_LINEAR)
    depth = cv2.resize(t.astype(np.float32), full, interpolation=cv2.INTER_LINEAR)
    off = (step - 1) / 2.0                      # resize puts grid sample i at output (i + 0.5) * step - 0.5
    m = np.float32([[1, 0, off], [0, 1, off]])
    pts = cv2.warpAffine(pts, m, full, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)[:h, :w]
    depth = cv2.warpAffine(depth, m, full, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)[:h, :w]
    return pts, depth


def _lighting(pts: np.ndarray, C: np.ndarray, layout: MatLayout, shot: Shot) -> tuple[np.ndarray, np.ndarray]:
    """Irradiance ``(h, w, 3)`` (diffuse, relative) and specular radiance ``(h, w, 3)`` at mat points."""
    p = shot.p
    rng = np.random.default_rng([shot.seed, 8])
    mw, mh = layout.size_mm
    amb = planck_rgb(p["ambient_kelvin"]).astype(np.float32)
    lamp_c = planck_rgb(p["lamp_kelvin"]).astype(np.float32)
    lamp = np.array([rng.uniform(-0.2, 1.2) * mw, rng.uniform(-0.2, 1.2) * mh, -rng.uniform(450.0, 900.0)])
    d = np.concatenate([pts, np.zeros(pts.shape[:2] + (1,), np.float32)], axis=-1) - lamp.astype(np.float32)
    r2 = np.sum(d * d, axis=-1)
    cos_in = np.clip(-d[..., 2] / np.sqrt(r2), 0.0, 1.0)                # surface normal (0, 0, -1)
    e_lamp = cos_in * (lamp[2] ** 2) / r2                               # 1 right under the lamp
    share = p["lamp_share"]
    diffuse = (1 - share) * amb[None, None] + share * e_lamp[..., None] * lamp_c[None, None]
    # soft shadows of things out of the picture (a cup, a box, a hand resting)
    for _ in range(2):
        sx, sy, sr = rng.uniform(0, mw), rng.uniform(0, mh), rng.uniform(60, 180)
        blob = np.exp(-((pts[..., 0] - sx) ** 2 + (pts[..., 1] - sy) ** 2) / (2 * sr ** 2))
        diffuse = diffuse * (1.0 - p["shadow"] * blob)[..., None]
    # gloss: Blinn-Phong about the half vector of lamp and camera directions
    to_lamp = -d / np.sqrt(r2)[..., None]
    to_cam = C.astype(np.float32) - np.concatenate([pts, np.zeros(pts.shape[:2] + (1,), np.float32)], axis=-1)
    to_cam /= np.linalg.norm(to_cam, axis=-1, keepdims=True)
    half = to_lamp + to_cam
    half /= np.linalg.norm(half, axis=-1, keepdims=True)
    spec = np.clip(-half[..., 2], 0.0, 1.0) ** p["shininess"] * p["gloss"] * share * 6.0 * e_lamp
    return diffuse.astype(np.float32), (spec[..., None] * lamp_c[None, None]).astype(np.float32)


def photograph(layout: MatLayout, texture: np.ndarray, shot: Shot) -> tuple[np.ndarray, np.ndarray]:
    """Photograph a composed mat (:func:`compose`) with the shot's camera, light and pipeline.

    Returns
    -------
    image : (h, w, 3) uint8
        BGR, the shot's ``size`` (width, height), JPEG-decoded.
    homography : (3, 3) float64
        Mat mm -> image px of the pinhole part (the lens distortion is not in it), for checks only:
        the bench reads every picture with the homography its own markers give.
    """
    p = shot.p
    size = tuple(p["size"])
    rng = np.random.default_rng([shot.seed, 13])
    K, R, C = _camera(layout, shot, size)
    w, h = size
    s = SUPER
    pts, depth = _mat_points(K, R, C, p["distortion"], (h * s, w * s), s)
    # reflectance: the mat where the ray lands on it, else the table
    mx = pts[..., 0] * TEX_PPM - 0.5
    my = pts[..., 1] * TEX_PPM - 0.5
    refl = cv2.remap(texture, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(-1, -1, -1))
    table = to_linear(np.array(TABLES[p["table"]], np.uint8).reshape(1, 1, 3))[0, 0]
    grain = 1.0 + 0.08 * np.sin(pts[..., 1] * 0.21 + np.sin(pts[..., 0] * 0.013) * 3.0)
    off = refl[..., 0] < 0
    refl[off] = table * grain[off][:, None]
    small = cv2.resize(pts, (w // 2, h // 2), interpolation=cv2.INTER_AREA)      # light varies slowly
    diffuse, spec = (cv2.resize(x, (w * s, h * s), interpolation=cv2.INTER_LINEAR) for x in _lighting(small, C, layout, shot))
    radiance = refl * diffuse + spec
    # lateral chromatic aberration: red a little larger, blue a little smaller, about the centre
    ca = p["chromatic"]
    for ch, k in ((2, 1 + ca), (0, 1 - ca)):
        m = cv2.getRotationMatrix2D((w * s / 2, h * s / 2), 0.0, k)
        radiance[..., ch] = cv2.warpAffine(radiance[..., ch], m, (w * s, h * s), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                           borderMode=cv2.BORDER_REFLECT)
    img = cv2.resize(radiance, size, interpolation=cv2.INTER_AREA)
    depth = cv2.resize(depth, size, interpolation=cv2.INTER_AREA)
    # defocus: the shot's soft lens everywhere, and the circle of confusion of a webcam lens
    # focused on the mat's middle (aperture 1.7 mm, f/2 at 3.5 mm): radius A f_px / (2 z_f) |1 - z_f / z|
    zf = float(np.median(depth))
    rad = p["defocus_px"] + APERTURE_MM * K[0, 0] / (2.0 * zf) * np.abs(1.0 - zf / np.maximum(depth, 1.0))
    img = _depth_blur(img, rad)
    if p["shake_px"] > 0.3:
        img = _shake(img, p["shake_px"], float(rng.uniform(0, 180)))
    # vignetting: cos^4 of the field angle, then a lens's extra fall-off
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    rr = ((xs - K[0, 2]) ** 2 + (ys - K[1, 2]) ** 2) / K[0, 0] ** 2
    img *= ((1.0 / (1.0 + rr)) ** 2 * (1.0 - p["vignette"] * rr / max(float(rr.max()), 1e-6)))[..., None]
    raw = _sensor(img, shot, rng)
    return _pipeline(raw, shot, rng), K @ np.column_stack([R[:, 0], R[:, 1], -R @ C])


def _depth_blur(img: np.ndarray, rad: np.ndarray) -> np.ndarray:
    """Blend of disc blurs at a few radii, weighted per pixel by the wanted radius ``rad`` (px)."""
    levels = sorted({0.0, *np.round(np.linspace(float(rad.min()), float(rad.max()), 4), 2)})
    if levels[-1] < 0.3:
        return img
    blurred = []
    for r in levels:
        if r < 0.3:
            blurred.append(img)
            continue
        n = int(math.ceil(r))
        yy, xx = np.mgrid[-n:n + 1, -n:n + 1]
        k = np.clip(r + 0.5 - np.hypot(xx, yy), 0.0, 1.0).astype(np.float32)
        blurred.append(cv2.filter2D(img, -1, k / k.sum(), borderType=cv2.BORDER_REFLECT))
    lv = np.array(levels, np.float32)
    idx = np.clip(np.searchsorted(lv, rad) - 1, 0, len(lv) - 2)
    lo, hi = lv[idx], lv[idx + 1]
    t = np.clip((rad - lo) / np.maximum(hi - lo, 1e-6), 0.0, 1.0)[..., None]
    out = np.zeros_like(img)
    for i in range(len(lv) - 1):
        sel = (idx == i)[..., None]
        out += np.where(sel, blurred[i] * (1 - t) + blurred[i + 1] * t, 0.0)
    return out


def _shake(img: np.ndarray, length: float, angle_deg: float) -> np.ndarray:
    n = int(math.ceil(length)) + 1
    k = np.zeros((2 * n + 1, 2 * n + 1), np.float32)
    a = math.radians(angle_deg)
    for t in np.linspace(-length / 2, length / 2, 8 * n):
        k[int(round(n + t * math.sin(a))), int(round(n + t * math.cos(a)))] += 1.0
    return cv2.filter2D(img, -1, k / k.sum(), borderType=cv2.BORDER_REFLECT)


def _sensor_matrix(shot: Shot) -> np.ndarray:
    """The sensor's colour matrix (its primaries against sRGB's), one per shot."""
    return _near_identity(np.random.default_rng([shot.seed, 21]), 0.12)


def _sensor(radiance: np.ndarray, shot: Shot, rng: np.random.Generator) -> np.ndarray:
    """Raw linear sensor values (demosaiced) 0-1: sensor colour matrix, auto exposure, a Bayer
    mosaic with shot (Poisson) and read (Gaussian) noise, clipping, edge-aware demosaicing."""
    p = shot.p
    sens = _sensor_matrix(shot).astype(np.float32)               # the sensor's own primaries
    raw = radiance @ sens.T
    lum = raw @ np.float32([0.07, 0.72, 0.21])
    # auto exposure: the median at the target, but (highlight protection, as webcams meter) the
    # brightest percent no more than 1.4 times the clipping level
    gain = min(p["exposure_target"] / max(float(np.percentile(lum, 50)), 1e-6),
               HIGHLIGHT_LIMIT / max(float(np.percentile(lum, 99)), 1e-6))
    raw *= gain
    h, w = raw.shape[:2]
    mosaic = np.empty((h, w), np.float32)                      # RGGB on BGR planes
    mosaic[0::2, 0::2] = raw[0::2, 0::2, 2]
    mosaic[0::2, 1::2] = raw[0::2, 1::2, 1]
    mosaic[1::2, 0::2] = raw[1::2, 0::2, 1]
    mosaic[1::2, 1::2] = raw[1::2, 1::2, 0]
    photons = p["photons"]
    mosaic = rng.poisson(np.clip(mosaic, 0, None) * photons).astype(np.float32) / photons
    mosaic += rng.normal(0.0, p["read_noise"], mosaic.shape).astype(np.float32)
    m16 = np.clip(mosaic * 65535.0, 0, 65535).astype(np.uint16)
    bgr = cv2.demosaicing(m16, cv2.COLOR_BayerBG2BGR_EA).astype(np.float32) / 65535.0
    return bgr


def _pipeline(raw: np.ndarray, shot: Shot, rng: np.random.Generator) -> np.ndarray:
    """The webcam's processing: white balance, colour correction, tone curve, sharpening, JPEG."""
    p = shot.p
    grey = np.mean(raw.reshape(-1, 3), axis=0)
    awb = (grey[1] / np.maximum(grey, 1e-6)) ** p["awb_strength"]
    img = raw * awb.astype(np.float32)
    ccm = np.linalg.inv(_sensor_matrix(shot)) @ _near_identity(rng, p["ccm_error"])    # undoes it, nearly
    img = np.clip(img @ ccm.T.astype(np.float32), 0.0, 1.0)
    enc = to_srgb(img)
    c = p["contrast"]
    enc = enc + c * enc * (1.0 - enc) * (2.0 * enc - 1.0) * 2.0        # S-curve about mid-grey
    enc = np.clip(enc, 0.0, 1.0)
    if p["sharpen"] > 0:
        enc = cv2.addWeighted(enc, 1 + p["sharpen"], cv2.GaussianBlur(enc, (0, 0), 1.0), -p["sharpen"], 0.0)
    out = np.clip(np.round(enc * 255.0), 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, p["jpeg"],
                                         cv2.IMWRITE_JPEG_SAMPLING_FACTOR, cv2.IMWRITE_JPEG_SAMPLING_FACTOR_420])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


# --- the two kits ----------------------------------------------------------------------------------

_ART: dict[str, np.ndarray] = {}


def _art(key: str, draw) -> np.ndarray:
    if key not in _ART:
        _ART[key] = draw()
    return _ART[key]


def _offset(rng: np.random.Generator, shot: Shot) -> tuple[tuple[float, float], float]:
    r, a = shot.p["place_mm"][1] * math.sqrt(rng.uniform()), rng.uniform(0, 2 * math.pi)
    return (r * math.cos(a), r * math.sin(a)), float(rng.uniform(-1, 1) * shot.p["turn_deg"][1])


def island_still(seed: int, which: str, fill: float = 0.8, board: dict | None = None) -> tuple[np.ndarray, dict, Shot]:
    """A Discovery Island mat with printed kit tiles on ``fill`` of its hexes (designs dealt from
    shuffled rounds of all 48; one tile in ten lies on top of another, whose rim may show),
    photographed with a shot of set ``which``; or, with ``board`` (cell -> design or None), the
    tiles of ``board`` (one layer each).

    Returns
    -------
    (image (h, w, 3) uint8 BGR, truth dict cell -> design or None, Shot)
    """
    from ..vision.kits.discovery_island import TILE_H_MM, TILE_W_MM, all_designs, tile_art
    from ..vision.mats import mat_layout

    layout = mat_layout("discovery-island")
    rng = np.random.default_rng([seed, 1])
    shot = draw_shot(rng, which, seed)
    designs = all_designs()
    deck: list[str] = []
    truth: dict = {}
    cuts: list[Cutout] = []
    for cell in layout.cells:
        if (board.get(cell.key) is None) if board is not None else rng.uniform() >= fill:
            truth[cell.key] = None
            continue
        layers = 2 if board is None and rng.uniform() < 0.1 else 1
        for layer in range(layers):
            if board is not None:
                design = board[cell.key]
            else:
                if not deck:
                    deck = list(designs)
                    rng.shuffle(deck)
                design = deck.pop()
            (dx, dy), turn = _offset(rng, shot)
            art = _art(f"di:{design}", lambda d=design: tile_art(d, PRINT_PPM))
            cx, cy = cell.center_mm
            cuts.append(Cutout(art, "hex", (TILE_W_MM, TILE_H_MM), (cx + dx, cy + dy), turn, layer))
            truth[cell.key] = design
    image, _h = photograph(layout, compose(layout, cuts, shot), shot)
    return image, truth, shot


def pennant_still(seed: int, which: str, table: dict | None = None) -> tuple[np.ndarray, dict, Shot]:
    """A Scout Pennant position (``board_position(seed)`` of the kit bench, or the slot -> label
    ``table`` given) laid out with the printed kit (pieces and pawns at any turn, arrows along
    their side turned a little), photographed with a shot of set ``which``.

    Returns
    -------
    (image (h, w, 3) uint8 BGR, table dict slot -> label, Shot)
    """
    from ..tracking.scout_pennant import ScoutPennantTable
    from ..vision.kits.scout_pennant import arrow_angle, piece_image, piece_size_mm
    from ..vision.mats import mat_layout
    from .detect_scout_pennant import board_position

    layout = mat_layout("scout-pennant")
    rng = np.random.default_rng([seed, 2])
    shot = draw_shot(rng, which, seed)
    table = dict(table) if table is not None else ScoutPennantTable().expected(board_position(seed))
    edges = {(e.a, e.b): e for e in layout.edges}
    cuts: list[Cutout] = []
    shapes = {"clearing": "disc", "forest": "square", "arrow": "arrow"}
    for slot, label in sorted(table.items()):
        if label in ("empty", "none"):
            continue
        (dx, dy), turn = _offset(rng, shot)
        if slot[0] == "arrow":
            a, b = (slot[1], slot[2]), (slot[3], slot[4])
            edge = edges.get((a, b)) or edges[(b, a)]
            forward = ((edge.a, edge.b) == (a, b)) == (label == "forward")
            mx, my = edge.midpoint_mm
            art = _art("sp:arrow", lambda: piece_image("arrow", PRINT_PPM))
            cuts.append(Cutout(art, "arrow", piece_size_mm("arrow"), (mx + dx * 0.5, my + dy * 0.5),
                               arrow_angle(edge.angle_deg, forward) + turn, 1))
            continue
        cx, cy = layout.cell((slot[1], slot[2])).center_mm
        name = label if slot[0] == "piece" else f"pawn:{label}"
        art = _art(f"sp:{name}", lambda n=name: piece_image(n, PRINT_PPM))
        shape = shapes.get(name, "disc")
        cuts.append(Cutout(art, shape, piece_size_mm(name), (cx + dx, cy + dy), float(rng.uniform(0, 360)),
                           0 if slot[0] == "piece" else 2))
    image, _h = photograph(layout, compose(layout, cuts, shot), shot)
    return image, table, shot
