"""Synthetic Forbidden Desert table views with their truth, for teaching and for measuring.

Each view is a random table (random faces and backs on random cells around a random storm
cell, sand stacks, pawns, parts and a storm card) seen by a random camera under a random light,
rendered by :mod:`assistant.vision.render`. Five condition sets:

- ``train``: daylight, cool ceiling light, warm lamp, point light, white balance 3000-7500 K,
  mild blur and noise;
- ``glare`` (teaching): a lamp with a specular glare blob pinned on a random table point
  (random lamp place, 2700-4800 K, glare peak 0.4-1.3, blob sigma 10-30 mm) over a room light
  of 0.4-0.9, white balance 3000-7500 K, mild blur and noise. It differs from the stress set's
  glare (the fixed ``WARM_LAMP``: lamp at (80, 60, 500) mm, 2900 K, glare 0.7 at the lamp's
  mirror point, room light 0.45): the lamp, its glare and the room light are drawn afresh;
- ``harsh`` (teaching the pawn change reader): any of the ``train`` lights, half of them with a
  colour cast left unbalanced (2400-10000 K, 70-100 % of the cast kept), two in five in a room
  dimmed to 25-60 % with the camera's auto exposure, stronger noise and defocus (0-3 px); drawn
  afresh per view, a range around the stress set's fixed conditions rather than those conditions;
- ``normal`` (measuring): daylight and cool ceiling light, light noise;
- ``stress`` (measuring): a warm lamp with glare, a dim room, defocus, and a strong colour cast.

Measuring sets use other seeds than teaching; the same seed gives the same views.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Iterator

import numpy as np

from ...games.forbidden_desert.components import TILE_IDS
from ..mats import mat_layout
from ..motion import StillMean
from ..render.art import size_mm
from ..render.camera import look_at_mat
from ..render.desert import ProceduralArt, pawn_piece, sand_pieces, storm_card_piece, tile_piece
from ..render.lighting import COOL_CEILING, DAYLIGHT, POINT_LIGHT, WARM_LAMP, Lamp
from ..render.renderer import CameraSettings, Renderer
from ..render.scene import FlatPiece, Scene

NO_DIST = (0.0, 0.0, 0.0, 0.0, 0.0)
ADVENTURERS = ("archeologist", "climber", "explorer", "meteorologist", "navigator", "water_carrier")
CARDS = tuple(f"wind_{d}_{k}" for d in "nesw" for k in (1, 2, 3)) + ("sun_beats_down", "storm_picks_up")
PART_NAMES = ("propeller", "solar_crystal", "engine", "navigation_deck")


def random_scene(rng: random.Random, images, layout=None, part_rate: float = 0.35) -> Scene:
    """A random table: every face and back appears often enough to be learnt; each part lies on
    some cell with probability ``part_rate``."""
    layout = layout or mat_layout("forbidden-desert")
    cells = [c.key for c in layout.cells]
    storm = rng.choice(cells)
    pieces: list = []
    order = list(TILE_IDS)
    rng.shuffle(order)
    for cell, tid in zip([c for c in cells if c != storm], order):
        face_up = rng.random() < 0.55
        pieces.append(tile_piece(layout, cell, tid, face_up, images, angle_deg=rng.uniform(-4, 4)))
        roll = rng.random()
        count = 0 if roll < 0.45 else (1 if roll < 0.72 else rng.randint(2, 3))
        # tall stacks too (late in a game a tile holds up to eight markers, the top one off centre),
        # drawn apart from ``rng`` so that the rest of every table stays as it was
        stack = random.Random(f"{storm}{cell}{tid}{face_up}")
        if count >= 2 and stack.random() < 0.3:
            count = stack.randint(4, 8)
        if count:
            pieces.extend(sand_pieces(layout, cell, count, ProceduralArt()))
    used = {}
    for adventurer in ADVENTURERS:
        if rng.random() < 0.6:
            cell = rng.choice([c for c in cells if c != storm])
            slot = used.get(cell, 0)
            used[cell] = slot + 1
            pieces.append(pawn_piece(adventurer, layout, cell, slot))
    on_cell: dict = {}
    for part in PART_NAMES:
        if rng.random() < part_rate:
            cell = rng.choice([c for c in cells if c != storm])
            cx, cy = layout.cell(cell).center_mm
            k = on_cell[cell] = on_cell.get(cell, -1) + 1     # a second part is laid beside the first, as
            label = f"part:{part}"                            # players do (and desert_script draws), not under it
            pieces.append(FlatPiece(f"part:{part}", label, ProceduralArt().load(label),
                                    (cx + 14.0 - 6.0 * k, cy - 14.0 + 6.0 * k), size_mm(label),
                                    rng.uniform(0, 360), "part", 2))
    if rng.random() < 0.85:
        pieces.append(storm_card_piece(layout, rng.choice(CARDS), images))
    return Scene(layout).place(*pieces)


def _conditions(rng: random.Random, which: str):
    if which == "train":
        light = rng.choice((DAYLIGHT, COOL_CEILING, WARM_LAMP, POINT_LIGHT))
        light = replace(light, camera_kelvin=rng.uniform(3000, 7500)) if rng.random() < 0.4 else light
        settings = CameraSettings(noise_sigma=rng.uniform(0.5, 3.0), defocus_px=rng.choice((0.0, 0.0, 1.0, 1.8)),
                                  jpeg_quality=rng.choice((None, 85, 70)))
    elif which == "glare":
        lamp = Lamp((rng.uniform(-100, 650), rng.uniform(-100, 550), rng.uniform(350, 900)),
                    kelvin=rng.uniform(2700, 4800), power=rng.uniform(0.5, 1.3), glare=rng.uniform(0.4, 1.3),
                    glare_radius_mm=rng.uniform(10, 30), glare_at_mm=(rng.uniform(0, 565), rng.uniform(0, 470)))
        light = replace(DAYLIGHT, name="glare", ambient=rng.uniform(0.4, 0.9), ambient_kelvin=rng.uniform(3000, 6500),
                        camera_kelvin=rng.uniform(3000, 7500), wb_strength=rng.uniform(0.5, 0.9), lamps=(lamp,),
                        shadow_strength=rng.uniform(0.3, 0.6))
        settings = CameraSettings(noise_sigma=rng.uniform(0.5, 3.0), defocus_px=rng.choice((0.0, 0.0, 1.0, 1.8)),
                                  jpeg_quality=rng.choice((None, 85, 70)))
    elif which == "harsh":
        light = rng.choice((DAYLIGHT, COOL_CEILING, WARM_LAMP, POINT_LIGHT))
        if rng.random() < 0.5:                         # a colour cast the camera does not balance away
            light = replace(light, camera_kelvin=rng.uniform(2400, 10000), wb_strength=rng.uniform(0.7, 1.0))
        dim = rng.random() < 0.4
        if dim:                                        # a dim room, the camera's exposure follows
            light = replace(light, ambient=light.ambient * rng.uniform(0.25, 0.6))
        settings = CameraSettings(noise_sigma=rng.uniform(1.0, 4.0), auto_exposure=dim,
                                  defocus_px=rng.choice((0.0, 1.0, 1.8, 2.2, 3.0)), jpeg_quality=rng.choice((90, 85, 70)))
    elif which == "normal":
        light = rng.choice((DAYLIGHT, COOL_CEILING))
        settings = CameraSettings(noise_sigma=rng.uniform(0.5, 1.5), jpeg_quality=90)
    elif which == "stress":
        kind = rng.choice(("glare", "dim", "blur", "cast"))
        if kind == "glare":
            light, settings = WARM_LAMP, CameraSettings(noise_sigma=2.0, jpeg_quality=85)
        elif kind == "dim":
            light = replace(DAYLIGHT, name="dim", ambient=0.35)
            settings = CameraSettings(noise_sigma=3.0, auto_exposure=True, jpeg_quality=85)
        elif kind == "blur":
            light, settings = DAYLIGHT, CameraSettings(noise_sigma=1.5, defocus_px=2.5, jpeg_quality=85)
        else:
            light = replace(COOL_CEILING, name="cast", camera_kelvin=rng.choice((2600.0, 9000.0)), wb_strength=1.0)
            settings = CameraSettings(noise_sigma=1.5, jpeg_quality=85)
    else:
        raise ValueError(f"unknown condition set {which!r}")
    return light, settings


def views(seed: int, count: int, which: str = "train", images=None, size=(1280, 720),
          cameras: int = 4, part_rate: float = 0.35) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, Scene]]:
    """Rendered views ``(frame, homography, camera_matrix, scene)``.

    Parameters
    ----------
    seed : int
    count : int
        Number of views.
    which : str
        ``train``, ``normal`` or ``stress`` (see the module docstring).
    images : picture source, optional
        ``ProceduralArt()`` (own art, default) or :class:`~..render.photos.ComponentImages`.
    size : (width, height)
    cameras : int
        Distinct camera poses (rendering maps are built once per pose).
    part_rate : float
        How often each part lies on the table (:func:`random_scene`).

    Yields
    ------
    (frame (H, W, 3) uint8, homography (3, 3) mm -> px, camera_matrix (3, 3), scene)
    """
    rng = random.Random(seed)
    images = images or ProceduralArt()
    layout = mat_layout("forbidden-desert")
    poses = []
    for _ in range(cameras):
        cam = look_at_mat(layout.outline_mm(), size, rng.uniform(50, 62), rng.uniform(5, 30), rng.uniform(0, 360),
                          rng.uniform(-25, 25), dist=NO_DIST)
        poses.append((cam, Renderer(cam)))
    for i in range(count):
        cam, renderer = poses[i % len(poses)]
        scene = random_scene(rng, images, layout, part_rate)
        light, settings = _conditions(rng, which)
        frame = renderer.render(scene, lighting=light, settings=settings, seed=seed * 7919 + i).image
        yield frame, cam.homography(), cam.K, scene



def silhouettes(scene: Scene, homography: np.ndarray, camera_matrix: np.ndarray, cell, size: int = 64) -> dict:
    """The pawns of ``scene`` that show in ``cell``'s pawn crop: ``dict colour -> (size, size)
    bool`` (:func:`~.forbidden_desert.pawn_silhouette`; empty masks left out)."""
    from .forbidden_desert import _colour, pawn_silhouette

    out = {}
    for pawn in scene.talls:
        m = pawn_silhouette(np.asarray(pawn.center_mm, float), homography, camera_matrix, cell, size,
                            pawn.radius_mm, pawn.height_mm)
        if m.any():
            out[_colour(pawn.label)] = m
    return out


def _free_slot(rng: random.Random, scene: Scene, layout, cell) -> int:
    """A pawn corner of ``cell`` no pawn of ``scene`` stands in (players do not stack pawns)."""
    from ..render.desert import PAWN_SLOTS

    cx, cy = layout.cell(cell).center_mm
    taken = [p.center_mm for p in scene.talls]
    free = [k for k, (dx, dy) in enumerate(PAWN_SLOTS)
            if all(abs(cx + dx - x) + abs(cy + dy - y) > 4.0 for x, y in taken)]
    return rng.choice(free) if free else rng.randrange(len(PAWN_SLOTS))


def pawn_moves(seed: int, count: int, which: str = "train", images=None, size=(1280, 720),
               frames: int = 1) -> Iterator[tuple]:
    """Rendered pawn moves for the pawn colour model and its measurement: ``(before crop, after
    crop, colour that came or None, colour that left or None, cell, scene before, scene after,
    silhouettes, homography, camera matrix)`` for the source and the target cell of ``count``
    random moves (see :func:`~.forbidden_desert.pawn_crop`); ``silhouettes`` is ``{"before": ...,
    "after": ...}``, each :func:`silhouettes` of that scene on that cell; the homography (mat mm
    -> px) and camera matrix are those of both frames. A pawn goes to a free corner.

    With ``frames`` > 1 each still moment is the mean of that many renders with their own
    sensor noise, as the live loop averages the frames of the still window
    (:class:`~...tracking.live.LiveDesert`); the first render's seed is that of ``frames=1``."""
    from ..render.desert import move_pawn
    from .forbidden_desert import _colour, pawn_crop

    rng = random.Random(seed)
    images = images or ProceduralArt()
    layout = mat_layout("forbidden-desert")
    cams = [look_at_mat(layout.outline_mm(), size, rng.uniform(50, 62), rng.uniform(5, 30), rng.uniform(0, 360),
                        rng.uniform(-25, 25), dist=NO_DIST) for _ in range(4)]
    renderers = [Renderer(c) for c in cams]
    done = 0
    while done < count:
        scene = random_scene(rng, images, layout)
        if not scene.talls:
            continue
        pawn = rng.choice(list(scene.talls))
        src = scene.cell_of(pawn.center_mm)
        dst = rng.choice([c.key for c in layout.cells if c.key != src and scene.contents()[c.key].label != "empty"])
        after = scene
        for action in move_pawn(scene, pawn.label.split(":", 1)[1], dst, slot=_free_slot(rng, scene, layout, dst)):
            after = action.apply(after)
        k = done % len(cams)
        light, settings = _conditions(rng, which)
        f0 = _still(renderers[k], scene, light, settings, seed * 31 + 2 * done, frames)
        f1 = _still(renderers[k], after, light, settings, seed * 31 + 2 * done + 1, frames)
        h, cam_k = cams[k].homography(), cams[k].K
        colour = _colour(pawn.label)
        for cell, came, went in ((src, None, colour), (dst, colour, None)):
            c = layout.cell(cell)
            yield (pawn_crop(f0, h, cam_k, c), pawn_crop(f1, h, cam_k, c), came, went, cell, scene, after,
                   {"before": silhouettes(scene, h, cam_k, c), "after": silhouettes(after, h, cam_k, c)}, h, cam_k)
        done += 1


def _still(renderer, scene, light, settings, seed: int, frames: int) -> np.ndarray:
    """One still moment: the mean of ``frames`` renders of ``scene`` (seeds ``seed``,
    ``seed + 100003``, ...), ``(H, W, 3) uint8``, averaged as the live loop does
    (:class:`~..motion.StillMean`)."""
    if frames <= 1:
        return renderer.render(scene, lighting=light, settings=settings, seed=seed).image
    still = StillMean(skip=0)
    for j in range(frames):
        still.add(renderer.render(scene, lighting=light, settings=settings, seed=seed + 100003 * j).image)
    return still.mean()


def other_changes(seed: int, count: int, which: str = "train", images=None, size=(1280, 720)) -> Iterator[tuple]:
    """Changes that are not a pawn moving (sand laid or taken, a tile turned over, a part laid) on cells with
    and without pawns, shaped as :func:`pawn_moves` yields them (``came`` and ``went`` None):
    ``none`` examples for the pawn colour model (a sand marker's colour must not pass for a pawn)."""
    from ..render.desert import Place, excavate, set_sand
    from .forbidden_desert import pawn_crop

    rng = random.Random(seed)
    images = images or ProceduralArt()
    layout = mat_layout("forbidden-desert")
    cams = [look_at_mat(layout.outline_mm(), size, rng.uniform(50, 62), rng.uniform(5, 30), rng.uniform(0, 360),
                        rng.uniform(-25, 25), dist=NO_DIST) for _ in range(3)]
    renderers = [Renderer(c) for c in cams]
    for i in range(count):
        scene = random_scene(rng, images, layout)
        cells = [k for k, v in scene.contents().items() if v.label != "empty"]
        cell = rng.choice(cells)
        roll = rng.random()
        if roll < 0.55:
            actions = set_sand(scene, cell, rng.choice((0, 1, 2)))
        elif roll < 0.8:
            actions = excavate(scene, cell, images)
        else:                                          # a part found by the clues laid on the tile
            part = rng.choice(PART_NAMES)
            cx, cy = layout.cell(cell).center_mm
            label = f"part:{part}"
            actions = (Place(FlatPiece(f"part:{part}:new", label, ProceduralArt().load(label),
                                       (cx + rng.uniform(-16, 16), cy + rng.uniform(-16, 16)), size_mm(label),
                                       rng.uniform(0, 360), "part", 2)),)
        after = scene
        for a in actions:
            after = a.apply(after)
        k = i % len(cams)
        light, settings = _conditions(rng, which)
        f0 = renderers[k].render(scene, lighting=light, settings=settings, seed=seed * 17 + 2 * i).image
        f1 = renderers[k].render(after, lighting=light, settings=settings, seed=seed * 17 + 2 * i + 1).image
        h, cam_k = cams[k].homography(), cams[k].K
        c = layout.cell(cell)
        yield (pawn_crop(f0, h, cam_k, c), pawn_crop(f1, h, cam_k, c), None, None, cell, scene, after,
               {"before": silhouettes(scene, h, cam_k, c), "after": silhouettes(after, h, cam_k, c)}, h, cam_k)


def teaching_set(seed: int = 1, images=None) -> dict[str, Iterator]:
    """Everything :func:`~.forbidden_desert.teach` learns from, as its keyword arguments
    (``fd.teach(**teaching_set())``), rendered lazily with the owner's ``images`` (default the
    project's own art):

    - ``views``: 60 tables under ``train`` light (seed ``seed``);
    - ``moves``: 150 pawn moves and 100 other changes under ``train`` light (seeds ``seed``,
      ``seed + 1``), then 1,000 pawn moves and 400 other changes under ``harsh`` light (seeds
      ``seed + 40``, ``seed + 41``) for the pawn change classifier;
    - ``part_views``: 80 part-rich tables under ``glare`` and 80 under ``train`` light (seeds
      ``seed + 2``, ``seed + 3``).

    Measuring uses other seeds (see :mod:`assistant.bench.detect_forbidden_desert`)."""
    import itertools

    return {"views": views(seed, 60, "train", images=images),
            "moves": itertools.chain(pawn_moves(seed, 150, "train", images=images),
                                     other_changes(seed + 1, 100, "train", images=images),
                                     pawn_moves(seed + 40, 1000, "harsh", images=images),
                                     other_changes(seed + 41, 400, "harsh", images=images)),
            "part_views": itertools.chain(views(seed + 2, 80, "glare", images=images, part_rate=0.8),
                                          views(seed + 3, 80, "train", images=images, part_rate=0.8))}

