"""Teaching tables for what lies on Forbidden Desert tiles, with pieces of many looks.

The blob classifier (:class:`~.desert_pieces.PieceBlobs`) must read sand markers and pawns it
was not taught on (another copy of the game, another maker's markers), so its teaching tables
vary what our art fixes (:func:`sand_art`, :func:`pawn_look`):

- sand markers: a disc, a square, a rounded square or an octagon of 16-42 mm; the light side
  any pale sand colour (hue 10-50 degrees, saturation 0.05-0.5, value 0.55-0.97) with ripples,
  speckles or blotches, the dark side any brown to ochre (hue 5-45 degrees, saturation
  0.2-0.85, value 0.2-0.7: as pale as some tiles' own browns, so that colour alone cannot
  tell it) with a cross, a hatched cross, a ring, stripes, dots or nothing on it; half of them
  with a rim 1-3 px darker or lighter than the face (a cut edge);
- pawns: the six colours with hue moved up to 12 degrees, saturation and value by up to 25 %,
  base radius 6.5-10 mm, height 24-36 mm, a pawn or a cylinder;
- parts: the project's own part art, 22-44 mm, turned any way;
- the camera: tilt 0-35 degrees, any side, 50-66 degree lenses; the light: any of the teaching
  renderer's ``train``, ``harsh`` and ``glare`` conditions (:mod:`.synth`); tiles 58-66 mm,
  up to 20 mm off their cell's centre.

Only the project's own art is used (the model taught here ships with the project); the owner's
photos never are. Measuring uses :mod:`~...bench.second_renderer`, which shares none of this.
"""

from __future__ import annotations

import colorsys
import math
import random
from typing import Iterator

import cv2
import numpy as np

from ...games.forbidden_desert.components import TILE_IDS
from ..mats import mat_layout
from ..render.art import PAWN_COLOURS, size_mm, tile_label
from ..render.camera import look_at_mat
from ..render.desert import ProceduralArt, storm_card_piece
from ..render.renderer import Renderer
from ..render.scene import FlatPiece, Scene, TallPiece
from . import synth

COLOUR_OF = {"archeologist": "red", "climber": "black", "explorer": "green", "meteorologist": "white",
             "navigator": "yellow", "water_carrier": "blue"}


def sand_art(rng: random.Random, dark: bool) -> tuple[np.ndarray, float]:
    """A sand marker of a random look (see the module docstring): ``(BGRA uint8 (96, 96, 4),
    side mm)``."""
    side = rng.uniform(16.0, 42.0)
    n = 96
    if dark:
        h, s, v = rng.uniform(5, 45) / 360, rng.uniform(0.2, 0.85), rng.uniform(0.2, 0.7)
    else:
        h, s, v = rng.uniform(10, 50) / 360, rng.uniform(0.05, 0.5), rng.uniform(0.55, 0.97)
    r, g, b = colorsys.hsv_to_rgb(h, s, v)
    img = np.empty((n, n, 3), np.float32)
    img[:] = (b * 255, g * 255, r * 255)
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
    texture = rng.choice(("ripples", "speckles", "blotches"))
    nrng = np.random.default_rng(rng.randrange(1 << 30))
    if texture == "ripples":
        img *= (1.0 + rng.uniform(0.02, 0.1) * np.sin(yy / rng.uniform(3, 8) + rng.uniform(0, 6)))[..., None]
    elif texture == "speckles":
        img *= (1.0 + nrng.normal(0, rng.uniform(0.02, 0.08), (n, n)))[..., None]
    else:
        blot = cv2.GaussianBlur(nrng.normal(0, 1, (n, n)).astype(np.float32), (0, 0), rng.uniform(3, 8))
        img *= (1.0 + rng.uniform(0.03, 0.12) * blot / max(float(blot.std()), 1e-6))[..., None]
    if dark:
        mark = tuple(float(c) for c in np.clip(img[0, 0] * rng.uniform(1.4, 2.4) if rng.random() < 0.5
                                               else img[0, 0] * rng.uniform(0.3, 0.6), 0, 255))
        kind = rng.choice(("cross", "hatch", "ring", "stripes", "dots", "none"))
        w = max(2, int(rng.uniform(3, 9)))
        if kind in ("cross", "hatch"):
            for k in ((-1, 0, 1) if kind == "hatch" else (0,)):
                cv2.line(img, (14 + 4 * k, 14 - 4 * k), (n - 14 + 4 * k, n - 14 - 4 * k), mark, w)
                cv2.line(img, (n - 14 + 4 * k, 14 + 4 * k), (14 + 4 * k, n - 14 + 4 * k), mark, w)
        elif kind == "ring":
            cv2.circle(img, (n // 2, n // 2), n // 3, mark, w)
        elif kind == "stripes":
            for y in range(8, n, 3 * w):
                cv2.line(img, (0, y), (n, y), mark, max(1, w // 2))
        elif kind == "dots":
            for _ in range(rng.randint(5, 14)):
                cv2.circle(img, (rng.randint(10, n - 10), rng.randint(10, n - 10)), w, mark, -1)
    alpha = np.zeros((n, n), np.uint8)
    shape = rng.choice(("disc", "square", "rounded", "octagon"))
    if shape == "disc":
        cv2.circle(alpha, (n // 2, n // 2), n // 2 - 1, 255, -1)
    elif shape == "octagon":
        a = np.arange(8) * np.pi / 4 + np.pi / 8
        cv2.fillPoly(alpha, [np.round(n / 2 + (n / 2 - 1) / np.cos(np.pi / 8) * np.column_stack(
            [np.cos(a), np.sin(a)]) * 0.97).astype(np.int32).clip(0, n - 1)], 255)
    else:
        r = int(n * (0.02 if shape == "square" else rng.uniform(0.1, 0.3)))
        cv2.rectangle(alpha, (r, 0), (n - r, n), 255, -1)
        cv2.rectangle(alpha, (0, r), (n, n - r), 255, -1)
        for cx, cy in ((r, r), (n - r, r), (r, n - r), (n - r, n - r)):
            cv2.circle(alpha, (cx, cy), r, 255, -1)
    if rng.random() < 0.5:                            # a cut edge: a rim darker or lighter than the face
        k = 2 * rng.randint(1, 3) + 1
        rim = (alpha > 0) & (cv2.erode(alpha, np.ones((k, k), np.uint8)) == 0)
        img[rim] *= rng.uniform(0.5, 0.8) if rng.random() < 0.7 else rng.uniform(1.2, 1.5)
    return np.dstack([np.clip(img, 0, 255).astype(np.uint8), alpha]), side


def pawn_look(rng: random.Random, adventurer: str, centre_mm) -> TallPiece:
    """A pawn of ``adventurer``'s colour with a random shade, size and shape."""
    b, g, r = (c / 255.0 for c in PAWN_COLOURS[adventurer])
    h, s, v = colorsys.rgb_to_hsv(r, g, b)
    h = (h + rng.uniform(-12, 12) / 360) % 1.0
    s = min(1.0, s * rng.uniform(0.75, 1.25))
    v = min(1.0, max(0.05, v * rng.uniform(0.75, 1.2)))
    r, g, b = colorsys.hsv_to_rgb(h, s, v)
    return TallPiece(f"pawn:{adventurer}", f"pawn:{adventurer}", (int(b * 255), int(g * 255), int(r * 255)),
                     centre_mm, rng.uniform(6.5, 10.0), rng.uniform(24.0, 36.0),
                     "pawn" if rng.random() < 0.7 else "cylinder")


def varied_scene(rng: random.Random, images=None) -> tuple[Scene, float, dict]:
    """A random table of varied pieces: ``(scene, tile side mm, truth)``; ``truth`` maps a piece
    id to its blob class name (``sand_light``, ``sand_dark``, ``pawn_<colour>``, ``part``)."""
    images = images or ProceduralArt()
    layout = mat_layout("forbidden-desert")
    cells = [c.key for c in layout.cells]
    storm = rng.choice(cells)
    order = list(TILE_IDS)
    rng.shuffle(order)
    tile_mm = rng.uniform(58.0, 66.0)
    pieces, truth = [], {}
    centres = {}
    for cell, tid in zip([c for c in cells if c != storm], order):
        label = tile_label(tid, rng.random() < 0.55)
        if label.startswith("tile:") and hasattr(images, "path") and images.path(f"tile:{tid}") is not None:
            label = f"tile:{tid}"                   # the tile's own photo (gear_5, not the first gear's)
        cx, cy = layout.cell(cell).center_mm
        r, a = 20.0 * math.sqrt(rng.random()) * (rng.random() < 0.6), rng.uniform(0, 2 * math.pi)
        centre = (cx + r * math.cos(a), cy + r * math.sin(a))
        centres[cell] = centre
        pieces.append(FlatPiece(f"tile:{tid}", label, images.load(label), centre, (tile_mm, tile_mm),
                                rng.uniform(-5, 5), "tile", 0))
        count = rng.choice((0, 0, 0, 1, 1, 1, 2, 2, 3))
        if count:
            art, side = sand_art(random.Random(rng.random()), dark=count >= 2)
            for k in range(count):
                pid = f"sand:{cell[0]},{cell[1]}#{k}"
                pieces.append(FlatPiece(pid, "sand:light" if count == 1 else "sand:dark", art,
                                        (centre[0] + rng.uniform(-4, 4), centre[1] + rng.uniform(-4, 4)), (side, side),
                                        rng.uniform(0, 360), "sand", 1 + k))
                truth[pid] = "sand_light" if count == 1 else "sand_dark"
    occupied = [c for c in cells if c != storm]
    used: dict = {}
    for adventurer in synth.ADVENTURERS:
        if rng.random() < 0.6:
            cell = rng.choice(occupied)
            k = used.get(cell, 0)
            used[cell] = k + 1
            dx, dy = ((-19, -19), (19, -19), (19, 19), (-19, 19), (0, -21), (0, 21))[k % 6]
            cx, cy = centres[cell]
            pawn = pawn_look(rng, adventurer, (cx + dx + rng.uniform(-3, 3), cy + dy + rng.uniform(-3, 3)))
            pieces.append(pawn)
            truth[pawn.piece_id] = f"pawn_{COLOUR_OF[adventurer]}"
    for part in synth.PART_NAMES:
        if rng.random() < 0.45:
            cell = rng.choice(occupied)
            cx, cy = centres[cell]
            label = f"part:{part}"
            s = rng.uniform(22.0, 44.0) / size_mm(label)[0]
            w, h = size_mm(label)
            pieces.append(FlatPiece(label, label, ProceduralArt().load(label),
                                    (cx + rng.uniform(-14, 14), cy + rng.uniform(-14, 14)), (w * s, h * s),
                                    rng.uniform(0, 360), "part", 5))
            truth[label] = "part"
    if rng.random() < 0.8:
        pieces.append(storm_card_piece(layout, rng.choice(synth.CARDS), images))
    return Scene(layout).place(*pieces), tile_mm, truth


def views(seed: int, count: int, size=(1280, 720), images=None) -> Iterator[tuple]:
    """Rendered varied tables: ``(frame, homography, camera matrix, scene, truth)`` (see
    :func:`varied_scene`), each under a light drawn from the teaching conditions."""
    rng = random.Random(seed)
    layout = mat_layout("forbidden-desert")
    for i in range(count):
        cam = look_at_mat(layout.outline_mm(), size, rng.uniform(50, 66), rng.uniform(0, 35), rng.uniform(0, 360),
                          rng.uniform(-25, 25), dist=synth.NO_DIST)
        scene, _tile_mm, truth = varied_scene(rng, images)
        light, settings = synth._conditions(rng, rng.choice(("train", "harsh", "glare")))
        frame = Renderer(cam).render(scene, lighting=light, settings=settings, seed=seed * 7919 + i).image
        yield frame, cam.homography(), cam.K, scene, truth


def footprints(scene: Scene, truth: dict, homography: np.ndarray, camera_matrix: np.ndarray, origin_mm, shape,
               ppm: float) -> dict[str, np.ndarray]:
    """Where each piece of ``truth`` shows in a cell crop (origin ``origin_mm``, ``shape`` (H,
    W), ``ppm`` px per mm): ``dict piece id -> (H, W) bool``. A flat piece is its outline; a
    pawn is everything of the mat its image covers (its outline in the frame taken back onto
    the mat through the homography), lean included."""
    from ..rectify import pose_from_homography

    out = {}
    to_crop = np.array([[ppm, 0, -origin_mm[0] * ppm], [0, ppm, -origin_mm[1] * ppm], [0, 0, 1.0]])
    inv = np.linalg.inv(homography)
    r, t = pose_from_homography(homography, camera_matrix)
    for pid in truth:
        mask = np.zeros(shape[:2], np.uint8)
        piece = scene.piece(pid)
        if isinstance(piece, TallPiece):
            a = np.linspace(0, 2 * np.pi, 16, endpoint=False)
            ring = np.column_stack([np.cos(a), np.sin(a)])
            pts = np.vstack([np.column_stack([np.asarray(piece.center_mm) + piece.radius_mm * ring, np.zeros(16)]),
                             np.column_stack([np.asarray(piece.center_mm) + 0.6 * piece.radius_mm * ring,
                                              np.full(16, -piece.height_mm)])])
            cam = pts @ r.T + t
            px = (cam @ camera_matrix.T)[:, :2] / cam[:, 2:3]
            hull = cv2.convexHull(px.astype(np.float32))
            mm = cv2.perspectiveTransform(hull.reshape(-1, 1, 2).astype(np.float64), inv).reshape(-1, 2)
        else:
            mm = piece.corners_mm()
        poly = cv2.perspectiveTransform(np.asarray(mm, np.float64).reshape(-1, 1, 2), to_crop).reshape(-1, 2)
        cv2.fillPoly(mask, [np.round(poly).astype(np.int32)], 1)
        if mask.any():
            out[pid] = mask.astype(bool)
    return out


def teaching_rows(seed: int, count: int, flat=None, progress=None) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Teaching rows from ``count`` varied tables (:func:`views`): ``{"blobs": (rows (n,
    BLOB_FEATURES), classes (n,)), "sand": (rows (m, SAND_FEATURES), classes (m,))}``. Each
    cell's tile is matched as the reader does it (``flat``, default the project's own art:
    :mod:`.desert_flat`); its residual's blobs are described (:func:`~.desert_pieces.blobs`)
    and taught as the piece whose footprint covers them (:func:`~.desert_pieces.blob_class`),
    and its centre (:func:`~.desert_pieces.sand_features`) as the cell's sand (none, light:
    one marker, dark: more). ``progress(i, count)`` is called after each table."""
    from . import desert_fit
    from . import desert_pieces as dp
    from .desert_flat import DesertFlat, desert_pictures

    if flat is None:
        pics = desert_pictures(None, ProceduralArt())
        flat = DesertFlat(pics.tiles, pics.cards, parts=pics.parts)
    rows: dict[str, list] = {"blobs": [], "blob_classes": [], "sand": [], "sand_classes": []}
    for i, (frame, homography, camera_matrix, scene, truth) in enumerate(views(seed, count)):
        scores = flat.score_cells(frame, homography)
        bank = flat.bank()
        foot, height = dp.foot_point(homography, camera_matrix)
        contents = scene.contents()
        for cell, cs in scores.items():
            m = cs.match()
            if m is None or contents[cell].label == "empty":
                continue
            t = bank.templates[m.template]
            pic = bank.pictures[t.picture]
            res = desert_fit.residual(frame, homography, flat.layout, cell, pic.image, pic.ppm, flat.tile_mm, t.turn,
                              m.centre_mm)
            fps = footprints(scene, truth, homography, camera_matrix, res.origin_mm, res.crop.shape, dp.PPM)
            for blob in dp.blobs(res, foot, height, m.centre_mm, flat.tile_mm):
                rows["blobs"].append(blob.features)
                rows["blob_classes"].append(dp.blob_class(blob.mask, fps, truth))
            count_ = contents[cell].sand
            rows["sand"].append(dp.sand_features(res, m.centre_mm))
            rows["sand_classes"].append(0 if count_ == 0 else (1 if count_ == 1 else 2))
        if progress is not None:
            progress(i + 1, count)
    return {"blobs": (np.array(rows["blobs"], np.float32).reshape(-1, dp.BLOB_FEATURES),
                      np.array(rows["blob_classes"], int)),
            "sand": (np.array(rows["sand"], np.float32).reshape(-1, dp.SAND_FEATURES),
                     np.array(rows["sand_classes"], int))}
