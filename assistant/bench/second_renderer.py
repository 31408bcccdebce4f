"""A second, independent way of making Forbidden Desert test pictures, for measuring only.

Every figure measured on pictures made the way the teaching pictures were made flatters the
detector: it learns the renderer's look along with the pieces. So the benchmark also measures
on pictures this module makes, which share no code with :mod:`assistant.vision.render` (the
teaching renderer) beyond the mat's printed layout:

- **geometry**: the mat is drawn flat at ``PLANE_PPM`` px per mm (its print from
  :func:`~..vision.printing.draw_mat`, then the pieces) and warped into the picture with one
  homography of a pinhole camera whose focal length, height, tilt (0-35 degrees), turn and
  roll are drawn afresh; the lens distorts (``k1``, ``k2``), and the detector is handed the
  picture undistorted with coefficients a little off (the distortion a calibration leaves);
- **pieces**: tiles from the owner's photos as they are (the photo's own border and all),
  58-66 mm, anywhere within 20 mm of their cell's centre and turned up to 5 degrees; sand
  markers of this module's own look (rounded squares of 26-40 mm, other shades, a dark side
  with a hatched cross); parts from the photos' cut-outs; pawns as shaded cylinders with a ball
  on top, of other shades and sizes than the teaching renderer's, casting a soft shadow;
- **light and sensor**: a light gradient and a lamp's falloff in linear light, a colour cast
  the camera balances only partly, exposure, Poisson-Gaussian noise on a Bayer mosaic,
  demosaicing (``cv2.demosaicing``), a tone curve, sharpening and JPEG; the stress set stacks
  several at once (a dim warm room with a lamp's glare, defocus, motion blur, low JPEG
  quality, vignetting).

The same seed gives the same pictures. Ranges here were chosen before measuring and not tuned
on the results.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from ..games.forbidden_desert.components import TILE_IDS
from ..vision.mats import mat_layout
from ..vision.printing import draw_mat

PLANE_PPM = 2.5                      #: px per mm of the flat mat before it is warped
PAWN_BGR = {"red": (45, 35, 175), "black": (40, 38, 36), "green": (70, 140, 55), "white": (225, 228, 222),
            "yellow": (40, 200, 225), "blue": (170, 95, 35)}
ADVENTURER_COLOUR = {"archeologist": "red", "climber": "black", "explorer": "green", "meteorologist": "white",
                     "navigator": "yellow", "water_carrier": "blue"}
PARTS = ("engine", "navigation_deck", "propeller", "solar_crystal")
CARDS = tuple(f"wind_{d}_{k}" for d in "nesw" for k in (1, 2, 3)) + ("sun_beats_down", "storm_picks_up")


@dataclass(frozen=True)
class Still:
    """One picture and what it shows.

    Attributes
    ----------
    image : (H, W, 3) uint8
        BGR, undistorted with the slightly-off coefficients.
    homography : (3, 3)
        Mat mm -> px of ``image`` (the truth; the benchmark finds its own from the markers).
    camera_matrix : (3, 3)
    truth : dict slot -> label
        As :func:`~..vision.detectors.forbidden_desert.truth_of` gives it.
    corners_px : (4, 2)
        The play area's corners in ``image`` (TL, TR, BR, BL), for a bare table.
    marker_px : float
        The side of the smallest corner marker in the picture, px.
    """

    image: np.ndarray
    homography: np.ndarray
    camera_matrix: np.ndarray
    truth: dict
    corners_px: np.ndarray
    marker_px: float


def _photo(root: Path, folder: str, stem: str) -> np.ndarray:
    for ext in (".png", ".jpg", ".jpeg"):
        p = root / folder / f"{stem}{ext}"
        if p.is_file():
            img = cv2.imread(str(p), cv2.IMREAD_UNCHANGED)
            if img is not None:
                return img
    raise FileNotFoundError(f"no photo {folder}/{stem} under {root}")


def _paste(plane: np.ndarray, img: np.ndarray, centre_mm, size_mm, angle_deg: float, corner_mm: float = 0.0) -> None:
    """Lay a picture (BGR or BGRA) on the flat mat, ``size_mm`` (w, h), turned, in place."""
    w, h = size_mm[0] * PLANE_PPM, size_mm[1] * PLANE_PPM
    if img.shape[1] > 2 * w:                          # no need for more detail than the plane holds
        img = cv2.resize(img, (int(2 * w), int(2 * w * img.shape[0] / img.shape[1])), interpolation=cv2.INTER_AREA)
    src = img[..., :3].astype(np.float32)
    alpha = (img[..., 3].astype(np.float32) / 255.0) if img.shape[2] == 4 else np.ones(img.shape[:2], np.float32)
    if corner_mm > 0:
        r = corner_mm / size_mm[0] * img.shape[1]
        mask = np.zeros(img.shape[:2], np.uint8)
        ih, iw = img.shape[:2]
        cv2.rectangle(mask, (int(r), 0), (int(iw - r), ih), 255, -1)
        cv2.rectangle(mask, (0, int(r)), (iw, int(ih - r)), 255, -1)
        for cx, cy in ((r, r), (iw - r, r), (r, ih - r), (iw - r, ih - r)):
            cv2.circle(mask, (int(cx), int(cy)), int(r), 255, -1)
        alpha = alpha * (mask / 255.0)
    c, s = math.cos(math.radians(angle_deg)), math.sin(math.radians(angle_deg))
    sx, sy = w / img.shape[1], h / img.shape[0]
    cx, cy = centre_mm[0] * PLANE_PPM, centre_mm[1] * PLANE_PPM
    reach = int(math.hypot(w, h) / 2) + 2
    x0, y0 = max(int(cx) - reach, 0), max(int(cy) - reach, 0)
    x1, y1 = min(int(cx) + reach, plane.shape[1]), min(int(cy) + reach, plane.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    m = np.array([[c * sx, -s * sy, 0], [s * sx, c * sy, 0]], np.float64)
    m[:, 2] = [cx - x0, cy - y0] - m[:, :2] @ [img.shape[1] / 2, img.shape[0] / 2]
    size = (x1 - x0, y1 - y0)
    warped = cv2.warpAffine(src, m, size, flags=cv2.INTER_AREA)
    a = cv2.warpAffine(alpha, m, size, flags=cv2.INTER_LINEAR)[..., None]
    roi = plane[y0:y1, x0:x1]
    roi *= 1.0 - a
    roi += warped * a


def sand_marker(rng: random.Random, dark: bool) -> tuple[np.ndarray, float]:
    """This module's own sand marker: ``(BGRA uint8 picture, side mm)``: a rounded square of
    26-40 mm, sand-coloured with ripples (light side), or brown with a hatched cross (dark)."""
    side = rng.uniform(26.0, 40.0)
    n = 120
    if dark:
        base = np.array([rng.uniform(30, 60), rng.uniform(60, 95), rng.uniform(110, 150)], np.float32)
    else:
        base = np.array([rng.uniform(150, 190), rng.uniform(190, 220), rng.uniform(215, 240)], np.float32)
    img = np.ones((n, n, 3), np.float32) * base
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
    img *= (1.0 + 0.06 * np.sin(yy / rng.uniform(4, 9) + np.sin(xx / 13.0)))[..., None]
    if dark:
        mark = tuple(float(v) for v in np.clip(base * rng.uniform(0.45, 0.7), 0, 255))
        for k in range(-2, 3):
            cv2.line(img, (12 + 3 * k, 12 - 3 * k), (n - 12 + 3 * k, n - 12 - 3 * k), mark, 3)
            cv2.line(img, (n - 12 + 3 * k, 12 + 3 * k), (12 + 3 * k, n - 12 + 3 * k), mark, 3)
    alpha = np.zeros((n, n), np.uint8)
    r = int(n * rng.uniform(0.08, 0.3))
    cv2.rectangle(alpha, (r, 0), (n - r, n), 255, -1)
    cv2.rectangle(alpha, (0, r), (n, n - r), 255, -1)
    for cx, cy in ((r, r), (n - r, r), (r, n - r), (n - r, n - r)):
        cv2.circle(alpha, (cx, cy), r, 255, -1)
    out = np.dstack([np.clip(img, 0, 255).astype(np.uint8), alpha])
    return out, side


def random_table(rng: random.Random, root: Path) -> tuple[list, dict]:
    """A random Forbidden Desert table: flat pieces ``(picture, centre mm, size mm, angle,
    corner mm)``, pawns ``(colour, x, y, radius, height)`` and the truth (see :class:`Still`)."""
    from ..vision.detectors.desert_flat import back_of, tile_kind

    layout = mat_layout("forbidden-desert")
    cells = [c.key for c in layout.cells]
    order, storm = rng.sample(TILE_IDS, len(TILE_IDS)), cells[rng.randrange(len(cells))]
    flats, pawns, truth, tile_mm = [], [], {}, rng.uniform(58.0, 66.0)
    for cell, tid in zip([c for c in cells if c != storm], order):
        face_up = rng.random() < 0.5
        if face_up:
            photo, label = _photo(root, "tiles", tid), tile_kind(tid)
        else:
            back = back_of(tid)
            photo, label = _photo(root, "tile-backs", {"dune_back": "dune", "water_back": "water",
                                                       "crash_site_back": "crash_site"}[back]), back
        cx, cy = layout.cell(cell).center_mm
        r, a = rng.uniform(0, 20.0) * math.sqrt(rng.random()), rng.uniform(0, 2 * math.pi)
        centre = (cx + r * math.cos(a), cy + r * math.sin(a))
        flats.append((photo, centre, (tile_mm, tile_mm), rng.uniform(-5, 5), 3.0))   # upright (rules §1.2)
        truth[("face", *cell)] = label
        count = rng.choice((0, 0, 0, 1, 1, 2, 3))
        truth[("sand", *cell)] = "none" if count == 0 else ("light" if count == 1 else "dark")
        for k in range(count):
            pic, side = sand_marker(random.Random(rng.random()), dark=count >= 2)
            flats.append((pic, (centre[0] + rng.uniform(-5, 5), centre[1] + rng.uniform(-5, 5)), (side, side),
                          rng.uniform(0, 360), 0.0))
        truth[("pawns", *cell)] = ""
        truth[("parts", *cell)] = ""
    truth[("face", *storm)] = "storm"
    for kind in ("sand", "pawns", "parts"):
        truth[(kind, *storm)] = "none" if kind == "sand" else ""
    occupied = [c for c in cells if c != storm]
    on: dict = {}
    for adventurer, colour in ADVENTURER_COLOUR.items():
        if rng.random() < 0.55:
            cell = rng.choice(occupied)
            cx, cy = layout.cell(cell).center_mm
            k = on.get(cell, 0)
            on[cell] = k + 1
            dx, dy = ((-18, -18), (18, -18), (18, 18), (-18, 18))[k % 4]
            pawns.append((colour, cx + dx + rng.uniform(-3, 3), cy + dy + rng.uniform(-3, 3), rng.uniform(6.0, 10.0),
                          rng.uniform(24.0, 36.0)))
            truth[("pawns", *cell)] = "+".join(sorted(set(filter(None, truth[("pawns", *cell)].split("+"))) | {colour}))
    for part in PARTS:
        if rng.random() < 0.3:
            cell = rng.choice(occupied)
            cx, cy = layout.cell(cell).center_mm
            size = rng.uniform(24.0, 34.0)
            img = _photo(root, "parts", part)
            flats.append((img, (cx + rng.uniform(-12, 12), cy + rng.uniform(-12, 12)),
                          (size, size * img.shape[0] / img.shape[1]), rng.uniform(0, 360), 0.0))
            truth[("parts", *cell)] = "+".join(sorted(set(filter(None, truth[("parts", *cell)].split("+"))) | {part}))
    if rng.random() < 0.85:
        card = rng.choice(CARDS)
        d, k = (card.split("_")[1], card.split("_")[2]) if card.startswith("wind") else (None, None)
        stem = f"wind_{d.upper()}_{k}" if d else card
        x0, y0, x1, y1 = layout.card_place_mm
        flats.append((_photo(root, "storm-cards", stem), ((x0 + x1) / 2 + rng.uniform(-4, 4), (y0 + y1) / 2 + rng.uniform(-4, 4)),
                      (63.0, 88.0), rng.uniform(-4, 4), 3.0))
        truth[("card",)] = card
    else:
        truth[("card",)] = "none"
    return flats, pawns, truth


def opening_table(rng: random.Random, root: Path) -> tuple[list, list, dict]:
    """A random Forbidden Desert opening (rules §3.1), as :func:`random_table` gives a table: the
    24 tiles shuffled desert side up around the storm at ``[2,2]`` (each within 6 mm of its
    cell's centre, turned up to 3 degrees), one light sand marker on each of the 8 set-up
    cells, the pawns of 2-5 random adventurers on the crash site, no part, no card."""
    from ..vision.detectors.desert_flat import back_of

    layout = mat_layout("forbidden-desert")
    setup_sand = {(0, 2), (1, 1), (1, 3), (2, 0), (2, 4), (3, 1), (3, 3), (4, 2)}
    cells = [c.key for c in layout.cells if c.key != (2, 2)]
    order, tile_mm = rng.sample(TILE_IDS, len(TILE_IDS)), rng.uniform(58.0, 66.0)
    flats, pawns, truth = [], [], {("face", 2, 2): "storm", ("sand", 2, 2): "none", ("pawns", 2, 2): "",
                                   ("parts", 2, 2): "", ("card",): "none"}
    names = {"dune_back": "dune", "water_back": "water", "crash_site_back": "crash_site"}
    crash = None
    for cell, tid in zip(cells, order):
        back = back_of(tid)
        cx, cy = layout.cell(cell).center_mm
        centre = (cx + rng.uniform(-6, 6), cy + rng.uniform(-6, 6))
        flats.append((_photo(root, "tile-backs", names[back]), centre, (tile_mm, tile_mm), rng.uniform(-3, 3), 3.0))
        truth.update({("face", *cell): back, ("sand", *cell): "none", ("pawns", *cell): "", ("parts", *cell): ""})
        if cell in setup_sand:
            pic, side = sand_marker(random.Random(rng.random()), dark=False)
            flats.append((pic, (centre[0] + rng.uniform(-4, 4), centre[1] + rng.uniform(-4, 4)), (side, side),
                          rng.uniform(0, 360), 0.0))
            truth[("sand", *cell)] = "light"
        if back == "crash_site_back":
            crash = (cell, centre)
    colours = rng.sample(sorted(ADVENTURER_COLOUR.values()), rng.randint(2, 5))
    (cell, (cx, cy)) = crash
    spots = rng.sample(((-18, -18), (18, -18), (18, 18), (-18, 18), (0, -21)), len(colours))
    for colour, (dx, dy) in zip(colours, spots):
        pawns.append((colour, cx + dx + rng.uniform(-2, 2), cy + dy + rng.uniform(-2, 2), rng.uniform(6.0, 9.0),
                      rng.uniform(24.0, 36.0)))
    truth[("pawns", *cell)] = "+".join(sorted(colours))
    return flats, pawns, truth


def _look(rng: random.Random, size, outline_mm, stress: bool):
    """A camera over the mat: ``(K, R, t, dist)`` with the whole mat in view."""
    w, h = size
    fov = rng.uniform(48.0, 72.0)
    f = (w / 2) / math.tan(math.radians(fov / 2))
    k = np.array([[f * rng.uniform(0.99, 1.01), 0, w / 2 + rng.uniform(-8, 8)], [0, f, h / 2 + rng.uniform(-6, 6)],
                  [0, 0, 1.0]])
    centre = np.asarray(outline_mm, float).mean(axis=0)
    tilt = math.radians(rng.uniform(0.0, 35.0))
    az = math.radians(rng.uniform(0.0, 360.0))
    roll = math.radians(rng.uniform(-20.0, 20.0))
    dist = rng.uniform(500.0, 700.0)
    corners = np.column_stack([outline_mm, np.zeros(len(outline_mm))])
    for _ in range(40):                          # back off until the whole mat is in view
        eye = np.array([centre[0] + dist * math.sin(tilt) * math.cos(az), centre[1] + dist * math.sin(tilt) * math.sin(az),
                        -dist * math.cos(tilt)])
        z = np.array([centre[0], centre[1], 0.0]) - eye
        z /= np.linalg.norm(z)
        down = np.array([0.0, 1.0, 0.0]) if abs(z[1]) < 0.95 else np.array([-1.0, 0.0, 0.0])   # image down
        x = np.cross(down, z)
        x /= np.linalg.norm(x)
        y = np.cross(z, x)
        c, s = math.cos(roll), math.sin(roll)
        rot = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]]) @ np.array([x, y, z])
        t = -rot @ eye
        px, _ = _project(k, rot, t, corners)
        if (px[:, 0] > 12).all() and (px[:, 0] < w - 12).all() and (px[:, 1] > 12).all() and (px[:, 1] < h - 12).all():
            break
        dist *= 1.08
    residual = rng.uniform(-0.04, 0.04) * (2.0 if stress else 1.0)
    return k, rot, t, residual


def _project(k, rot, t, pts):
    cam = pts @ rot.T + t
    return (cam @ k.T)[:, :2] / cam[:, 2:3], cam[:, 2]


def _draw_pawn(img: np.ndarray, k, rot, t, colour, x, y, radius, height, light_dir) -> None:
    """A pawn as a shaded cylinder with a ball on top, drawn over ``img`` (linear light, float32)."""
    a = np.linspace(0, 2 * np.pi, 24, endpoint=False)
    ring = np.column_stack([np.cos(a), np.sin(a)])
    body = []
    for z, r in ((0.0, radius), (-0.55 * height, 0.75 * radius)):
        body.append(np.column_stack([x + r * ring[:, 0], y + r * ring[:, 1], np.full(24, z)]))
    body_px, _ = _project(k, rot, t, np.vstack(body))
    head_c = np.array([[x, y, -(height - 0.42 * radius)]])
    head_px, depth = _project(k, rot, t, head_c)
    head_r = 0.55 * radius * k[0, 0] / depth[0]
    base = np.array(colour, np.float32)[::-1][::-1] / 255.0
    base = base ** 2.2
    mask = np.zeros(img.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, cv2.convexHull(np.round(body_px).astype(np.int32)), 255)
    cv2.line(mask, tuple(np.round(body_px[24:].mean(axis=0)).astype(int)), tuple(np.round(head_px[0]).astype(int)), 255,
             max(1, int(head_r)))
    cv2.circle(mask, tuple(np.round(head_px[0]).astype(int)), max(1, int(round(head_r))), 255, -1)
    ys, xs = np.nonzero(mask)
    if len(xs) == 0:
        return
    cx = xs.mean()
    half = max(1.0, (xs.max() - xs.min()) / 2)
    shade = 0.45 + 0.55 * np.clip(np.cos((xs - cx) / half * 1.3 - light_dir), 0, 1)
    img[ys, xs] = base * shade[:, None] * 1.1


def _wood(rng: random.Random, shape) -> np.ndarray:
    """A bare wooden table top ``(H, W, 3) float32`` BGR 0..255: a brown with grain."""
    h, w = shape[:2]
    base = np.array([rng.uniform(40, 90), rng.uniform(80, 130), rng.uniform(120, 180)], np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    grain = 1.0 + 0.08 * np.sin(yy / rng.uniform(3, 7) + 2.0 * np.sin(xx / rng.uniform(40, 90)))
    return base * grain[..., None]


def _tone(lin: np.ndarray, contrast: float) -> np.ndarray:
    """Linear light -> display values 0..1: a 1/2.2 power, then an S-curve of ``contrast``."""
    v = np.clip(lin, 0, 1) ** (1 / 2.2)
    return np.clip(0.5 + (v - 0.5) * contrast + 0.08 * np.sin(2 * np.pi * v) * (contrast - 1.0), 0, 1)


@dataclass(frozen=True)
class Look:
    """The camera, the room's light and the sensor of one picture, or of every frame of one
    video (drawn once by :func:`draw_look`; see the module docstring for what each does).

    Attributes
    ----------
    k, rot, t : (3, 3), (3, 3), (3,)
        Intrinsics and pose (mat mm, z towards the mat; up is negative z).
    residual : float
        The radial distortion a calibration leaves.
    light_az : float
        The light's direction on the mat, radians (pawns' shading and shadows).
    stress : bool
        The stacked stress conditions.
    draws : dict
        Every other random choice, by name.
    """

    k: np.ndarray
    rot: np.ndarray
    t: np.ndarray
    residual: float
    light_az: float
    stress: bool
    draws: dict

    def homography(self) -> np.ndarray:
        """Mat mm -> picture px ``(3, 3)``."""
        h = self.k @ np.column_stack([self.rot[:, 0], self.rot[:, 1], self.t])
        return h / h[2, 2]


def draw_look(rng: random.Random, size, stress: bool) -> Look:
    """Draw a :class:`Look` (the whole mat in view); the draws' order is fixed, so a seed gives
    the same look, and :func:`still`'s pictures stay what they were.

    Parameters
    ----------
    rng : random.Random
        Consumed in a fixed order.
    size : (W, H)
        Picture size, px.
    stress : bool
        Draw the stacked stress conditions (dim warm room, glare, vignetting, defocus, motion
        blur, fewer photons, JPEG quality 35-60) instead of an ordinary room.
    """
    layout = mat_layout("forbidden-desert")
    light_az = rng.uniform(0, 2 * np.pi)
    k, rot, t, residual = _look(rng, size, layout.outline_mm(), stress)
    d: dict = {"table": [rng.uniform(0.1, 0.35), rng.uniform(0.15, 0.4), rng.uniform(0.2, 0.5)]}
    d["table_level"] = rng.uniform(0.6, 1.0)
    d["grad"] = (rng.uniform(0, 2 * np.pi), rng.uniform(0.0, 0.35))
    d["lamp"] = (rng.uniform(0, size[0]), rng.uniform(0, size[1]), rng.uniform(0.0, 0.6))
    d["cast"] = [rng.uniform(0.75, 1.15), 1.0, rng.uniform(0.8, 1.25)]
    d["level"] = rng.uniform(0.8, 1.2)
    if stress:
        d["cast"] = [rng.uniform(0.45, 0.7), 1.0, rng.uniform(1.25, 1.7)]        # warm lamp
        d["level"] = rng.uniform(0.3, 0.55)                                        # dim room
        d["glare"] = (rng.uniform(0.2, 0.8) * size[0], rng.uniform(0.2, 0.8) * size[1], rng.uniform(0.5, 1.4),
                      rng.uniform(20, 60))
        d["vignette"] = rng.uniform(0.2, 0.45)
    d["exposure"] = rng.uniform(0.75, 0.95)
    if stress:
        d["defocus"] = rng.uniform(1.0, 2.6)
        length = rng.uniform(0.0, 4.0)
        d["motion"] = (length, rng.uniform(0, np.pi) if length > 0.5 else 0.0)
    d["photons"] = rng.uniform(300.0, 1500.0) * (0.4 if stress else 1.0)
    d["read_noise"] = rng.uniform(0.002, 0.008)
    d["wb"] = rng.uniform(0.3, 0.9)
    d["contrast"] = rng.uniform(1.0, 1.25)
    d["sharpen"] = (rng.uniform(0.0, 0.6), rng.uniform(0.0, 0.6))
    d["quality"] = rng.randint(35, 60) if stress else rng.randint(70, 92)
    return Look(k, rot, t, residual, light_az, stress, d)


def table_plane(flats: list, pawns: list, look: Look, mat: bool = True, wood_seed: float = 0.5) -> np.ndarray:
    """The flat table in linear light, values 0..1, ``(H, W, 3) float32`` at ``PLANE_PPM`` px
    per mm over the mat's drawn area: the printed mat (or, with ``mat`` False, a bare wooden
    table drawn from ``wood_seed``), the pawns' soft shadows (``pawns``: ``(colour, x mm, y mm,
    radius mm, height mm)``, shadows cast along ``look.light_az``), then the flat pieces
    ``flats``: ``(picture BGR/BGRA uint8, centre mm, (w, h) mm, angle degrees, corner radius
    mm)`` (:func:`random_table`). Raises nothing of its own."""
    layout = mat_layout("forbidden-desert")
    plane = draw_mat(layout, PLANE_PPM).astype(np.float32)
    if not mat:                                      # its own draws: the table stays the same
        plane = _wood(random.Random(wood_seed), plane.shape)
    shade = np.zeros(plane.shape[:2], np.float32)
    for _colour, x, y, r, hgt in pawns:
        off = 0.45 * hgt
        c = (int((x + off * math.cos(look.light_az)) * PLANE_PPM), int((y + off * math.sin(look.light_az)) * PLANE_PPM))
        cv2.ellipse(shade, c, (int(r * 1.4 * PLANE_PPM), int(r * PLANE_PPM)), math.degrees(look.light_az), 0, 360, 1.0,
                    -1)
    for pic, centre, size_mm, angle, corner in flats:
        _paste(plane, pic, centre, size_mm, angle, corner)
    shade = cv2.GaussianBlur(shade, (0, 0), 3.0 * PLANE_PPM)
    plane *= (1.0 - 0.3 * shade)[..., None]
    return (np.clip(plane, 0, 255) / 255.0) ** 2.2


def shoot(lin: np.ndarray, pawns: list, look: Look, size, noise_seed: int, arm: tuple | None = None) -> np.ndarray:
    """One picture of a table.

    Parameters
    ----------
    lin : (h, w, 3) float32
        :func:`table_plane`'s flat table, linear light 0..1 at ``PLANE_PPM``.
    pawns : list
        ``(colour, x mm, y mm, radius mm, height mm)``, drawn standing.
    look : Look
        Camera, room and sensor (:func:`draw_look`).
    size : (W, H)
        Picture size, px.
    noise_seed : int
        Seeds the sensor noise (every frame of a video its own).
    arm : (entry (x, y) mm, hand (x, y) mm, skin BGR 0..255), optional
        An arm reaching in above the table (:func:`_draw_arm`).

    Returns
    -------
    (H, W, 3) uint8
        BGR, after the room's light, the sensor, the camera's partial white balance and
        automatic exposure (both follow what is in view, the arm too), tone curve,
        sharpening, what the calibration leaves of the distortion, and JPEG.
    """
    d, k, rot, t = look.draws, look.k, look.rot, look.t
    stress = look.stress
    scale = np.array([[1 / PLANE_PPM, 0, 0], [0, 1 / PLANE_PPM, 0], [0, 0, 1.0]])
    h_mm = look.homography()
    frame = np.empty((size[1], size[0], 3), np.float32)
    frame[:] = np.array(d["table"], np.float32) * d["table_level"]
    cv2.warpPerspective(lin, h_mm @ scale, size, dst=frame, flags=cv2.INTER_AREA, borderMode=cv2.BORDER_TRANSPARENT)
    for colour, x, y, r, hgt in pawns:
        _draw_pawn(frame, k, rot, t, PAWN_BGR[colour], x, y, r, hgt, look.light_az)
    if arm is not None:
        _draw_arm(frame, look, *arm)
    # light: a gradient, a lamp's falloff, a colour cast (the maps made once per look and size)
    yy, xx, light, glare, vig = _light_maps(look, size)
    frame *= light
    if stress:
        frame += glare
        frame *= vig
    # the sensor: exposure, photon and read noise on a Bayer mosaic, demosaicing
    frame *= 1.0 / max(float(np.percentile(frame[..., 1], 97)), 0.05) * d["exposure"]
    if stress:
        frame = cv2.GaussianBlur(frame, (0, 0), d["defocus"])
        length, ang = d["motion"]
        if length > 0.5:
            kern = np.zeros((15, 15), np.float32)
            for s in np.linspace(-length / 2, length / 2, 9):
                kern[int(round(7 + s * math.sin(ang))), int(round(7 + s * math.cos(ang)))] += 1
            frame = cv2.filter2D(frame, -1, kern / kern.sum())
    photons = d["photons"]
    mosaic = np.zeros(frame.shape[:2], np.float32)
    mosaic[0::2, 0::2] = frame[0::2, 0::2, 0]          # B G / G R (OpenCV's 'RG' pattern)
    mosaic[0::2, 1::2] = frame[0::2, 1::2, 1]
    mosaic[1::2, 0::2] = frame[1::2, 0::2, 1]
    mosaic[1::2, 1::2] = frame[1::2, 1::2, 2]
    nrng = np.random.default_rng(noise_seed)
    mosaic = nrng.poisson(np.clip(mosaic, 0, 4) * photons) / photons + nrng.normal(0, d["read_noise"], mosaic.shape)
    raw = np.clip(mosaic * 4095, 0, 4095).astype(np.uint16)
    rgb = cv2.demosaicing(raw, cv2.COLOR_BayerRG2BGR).astype(np.float32) / 4095.0
    # the camera's white balance: grey world, only partly
    means = rgb.reshape(-1, 3).mean(axis=0) + 1e-6
    rgb *= (means.mean() / means) ** d["wb"]
    out = _tone(rgb, d["contrast"])
    out8 = np.clip(out * 255 + 0.5, 0, 255).astype(np.uint8)
    blur = cv2.GaussianBlur(out8, (0, 0), 1.2)
    out8 = cv2.addWeighted(out8, 1.0 + d["sharpen"][0], blur, -d["sharpen"][1], 0)
    # what a calibration leaves of the lens's distortion
    if abs(look.residual) > 1e-4:
        f = k[0, 0]
        u = (xx - k[0, 2]) / f
        v = (yy - k[1, 2]) / f
        dd = 1.0 + look.residual * (u * u + v * v)
        out8 = cv2.remap(out8, (u * dd * f + k[0, 2]).astype(np.float32), (v * dd * f + k[1, 2]).astype(np.float32),
                         cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    ok, buf = cv2.imencode(".jpg", out8, [cv2.IMWRITE_JPEG_QUALITY, d["quality"]])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def _light_maps(look: Look, size) -> tuple:
    """``(yy, xx, light, glare, vignette)`` of :func:`shoot` for ``look`` at ``size``: pixel
    grids ``(H, W) float32``, the light's gain ``(H, W, 3)``, the glare ``(H, W, 3)`` and the
    vignetting ``(H, W, 1)`` (None without stress), kept in ``look.draws`` after the first call."""
    key = ("_maps", tuple(size))
    if key in look.draws:
        return look.draws[key]
    d = look.draws
    yy, xx = np.mgrid[0:size[1], 0:size[0]].astype(np.float32)
    g_ang, g_amount = d["grad"]
    grad = 1.0 + g_amount * ((xx / size[0] - 0.5) * math.cos(g_ang) + (yy / size[1] - 0.5) * math.sin(g_ang))
    lx, ly, l_amount = d["lamp"]
    lamp = 1.0 + l_amount * np.exp(-((xx - lx) ** 2 + (yy - ly) ** 2) / (2 * (0.35 * size[0]) ** 2))
    light = (grad * lamp)[..., None] * np.array(d["cast"], np.float32) * d["level"]
    glare = vig = None
    if look.stress:
        gx, gy, amp, sigma = d["glare"]
        g = amp * np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * sigma ** 2))
        glare = g[..., None] * np.array([0.8, 0.95, 1.0], np.float32)
        vig = (1.0 - d["vignette"] * (((xx - size[0] / 2) / (size[0] / 2)) ** 2
                                      + ((yy - size[1] / 2) / (size[1] / 2)) ** 2) / 2)[..., None]
    d[key] = (yy, xx, light, glare, vig)
    return d[key]


def _draw_arm(img: np.ndarray, look: Look, entry_mm, hand_mm, skin_bgr) -> None:
    """An arm reaching from ``entry_mm`` (beyond the mat's edge, 150 mm above the table) down to a
    hand 40 mm above ``hand_mm``: a tapering band 90 -> 70 mm wide and an oval hand, in ``skin_bgr``
    (0..255), shaded along its length, drawn over ``img`` (linear light) in place."""
    k, rot, t = look.k, look.rot, look.t
    path = np.array([[*entry_mm, -150.0], [*hand_mm, -40.0]], np.float64)
    steps = np.linspace(0.0, 1.0, 12)
    pts = path[0] + (path[1] - path[0]) * steps[:, None]
    px, depth = _project(k, rot, t, pts)
    mask = np.zeros(img.shape[:2], np.uint8)
    for i in range(len(pts) - 1):
        width = (90.0 - 20.0 * steps[i]) * k[0, 0] / depth[i]
        cv2.line(mask, tuple(np.round(px[i]).astype(int)), tuple(np.round(px[i + 1]).astype(int)), 255,
                 max(2, int(width)))
    hand_r = 45.0 * k[0, 0] / depth[-1]
    cv2.circle(mask, tuple(np.round(px[-1]).astype(int)), max(2, int(hand_r)), 255, -1)
    ys, xs = np.nonzero(mask)
    if len(xs) == 0:
        return
    base = (np.array(skin_bgr, np.float32) / 255.0) ** 2.2
    shade = 0.75 + 0.25 * np.cos((xs + ys) / 37.0)
    img[ys, xs] = base * shade[:, None]


def still(seed: int, root: str | Path, stress: bool = False, size=(1280, 720), mat: bool = True,
          table=random_table) -> Still:
    """One picture of a random table (see the module docstring); ``root`` is the component
    folder (``tiles/``, ``tile-backs/``, ``storm-cards/``, ``parts/``). With ``mat`` False the
    pieces lie on a bare wooden table (no printed mat, no markers: give the corners).
    ``table`` lays the pieces (:func:`random_table`, or :func:`opening_table` for set-ups).

    Raises
    ------
    FileNotFoundError
        When a photo the table needs is missing.
    """
    rng = random.Random(seed * 7907 + (1 if stress else 0))
    layout = mat_layout("forbidden-desert")
    flats, pawns, truth = table(rng, Path(root))
    look = draw_look(rng, size, stress)
    image = shoot(table_plane(flats, pawns, look, mat, seed + 0.5), pawns, look, size, seed)
    h_mm = look.homography()
    corners = cv2.perspectiveTransform(np.array(_play_corners(layout), np.float64).reshape(-1, 1, 2), h_mm).reshape(4, 2)
    markers = [cv2.perspectiveTransform(np.array(m.corners_mm, np.float64).reshape(-1, 1, 2), h_mm).reshape(4, 2)
               for m in layout.markers]
    marker_px = min(float(np.linalg.norm(m[1] - m[0])) for m in markers)
    return Still(image, h_mm, look.k, truth, corners, marker_px)


def _play_corners(layout) -> list:
    x0, y0, x1, y1 = layout.play_area_mm
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
