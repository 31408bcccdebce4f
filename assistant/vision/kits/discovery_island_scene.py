"""Discovery Island kit tiles on the rendered table: pieces, random boards, viewing conditions.

Tiles are :class:`~assistant.vision.render.scene.FlatPiece` s of kind ``tile`` showing
:func:`~.discovery_island.tile_art` (BGRA hexagons, 47 x 40.7 mm), laid on a hex of the
Discovery Island mat a little off its centre and turned a few degrees, as hands lay them.
Piece ids are ``"di:<n>"`` (``n`` counts the tiles laid); a tile laid later lies on top (its
``layer`` is ``n``). Scene actions are the generic :class:`~assistant.vision.render.actions.Place`
and :class:`~assistant.vision.render.actions.Remove`.

Condition sets (seeded; callers keep the seeds of teaching, tuning and measuring apart):

- ``train`` (teaching): daylight, a cool ceiling light, a warm lamp or a point light, each with
  its glare mostly on a tile, white balance off by 2800-8500 K, a dimmer or brighter room,
  defocus 0-2.2 px, noise, JPEG;
- ``normal`` (measuring): daylight or a cool ceiling light, light sensor noise, JPEG 90;
- ``stress`` (measuring): a warm lamp whose glare lies on the tiles, a dim room with auto exposure, a
  defocused lens, or a strong colour cast (white balance 2600 K or 9000 K).
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Iterator

import numpy as np

from ..mats import MatLayout, mat_layout
from ..render.camera import Camera, look_at_mat
from ..render.lighting import COOL_CEILING, DAYLIGHT, POINT_LIGHT, WARM_LAMP, Lighting
from ..render.renderer import CameraSettings, Renderer
from ..render.scene import FlatPiece, Scene
from .discovery_island import TILE_H_MM, TILE_W_MM, all_designs, tile_art

GAME = "discovery-island"
NO_DIST = (0.0, 0.0, 0.0, 0.0, 0.0)


class KitArt:
    """The kit's tile pictures, drawn once at ``ppm`` px/mm and cached (read-only arrays)."""

    def __init__(self, ppm: float = 8.0):
        self.ppm = ppm
        self._cache: dict[str, np.ndarray] = {}

    def load(self, design: str) -> np.ndarray:
        """The BGRA picture of ``design`` (:func:`~.discovery_island.tile_art`).

        Raises
        ------
        ValueError
            For a name that is not a design.
        """
        if design not in self._cache:
            img = tile_art(design, self.ppm)
            img.setflags(write=False)
            self._cache[design] = img
        return self._cache[design]


ART = KitArt()


def tile_piece(layout: MatLayout, cell: tuple[int, int], design: str, n: int, offset_mm=(0.0, 0.0),
               angle_deg: float = 0.0, art: KitArt | None = None) -> FlatPiece:
    """The ``n``-th tile laid, showing ``design``, on hex ``cell`` moved by ``offset_mm`` and turned by ``angle_deg``.

    Raises
    ------
    KeyError
        For a cell not on the mat.
    """
    cx, cy = layout.cell(tuple(cell)).center_mm
    return FlatPiece(f"di:{n}", design, (art or ART).load(design), (cx + offset_mm[0], cy + offset_mm[1]),
                     (TILE_W_MM, TILE_H_MM), angle_deg, "tile", n, corner_mm=0.0)


def hand_jitter(rng: random.Random, max_mm: float = 1.5, max_deg: float = 4.0) -> tuple[tuple[float, float], float]:
    """How far off a hand lays a tile: an offset (mm) and a turn (degrees), uniform."""
    return (rng.uniform(-max_mm, max_mm), rng.uniform(-max_mm, max_mm)), rng.uniform(-max_deg, max_deg)


def random_board(rng: random.Random, layout: MatLayout | None = None, fill: float = 0.7,
                 designs: tuple[str, ...] | None = None, start: int = 0) -> tuple[Scene, dict[tuple, str | None]]:
    """A mat with random designs on a random ``fill`` of its hexes (every design about equally
    often: the designs are dealt from shuffled rounds of the whole set).

    Returns
    -------
    scene : Scene
    truth : dict cell -> design or None
        What lies on top of each hex.
    """
    layout = layout or mat_layout(GAME)
    designs = designs or tuple(all_designs())
    truth: dict[tuple, str | None] = {}
    pieces = []
    n = start
    deck: list[str] = []
    for cell in layout.cells:
        if rng.random() < fill:
            if not deck:
                deck = list(designs)
                rng.shuffle(deck)
            design = deck.pop()
            offset, angle = hand_jitter(rng)
            pieces.append(tile_piece(layout, cell.key, design, n, offset, angle))
            truth[cell.key] = design
            n += 1
        else:
            truth[cell.key] = None
    return Scene(layout).place(*pieces), truth



def conditions(rng: random.Random, which: str, layout: MatLayout | None = None) -> tuple[str, Lighting, CameraSettings]:
    """A random viewing condition of set ``which`` (``normal`` or ``stress``).

    Returns
    -------
    (name, lighting, camera settings)

    Raises
    ------
    ValueError
        For an unknown set.
    """
    layout = layout or mat_layout(GAME)
    x0, y0, x1, y1 = layout.play_area_mm
    if which == "train":
        light = rng.choice((DAYLIGHT, COOL_CEILING, WARM_LAMP, POINT_LIGHT))
        if light.lamps and rng.random() < 0.8:            # the glare on a hex, where it hurts most
            cell = rng.choice(layout.cells).center_mm
            light = light.with_glare_at((cell[0] + rng.uniform(-8, 8), cell[1] + rng.uniform(-8, 8)))
        if rng.random() < 0.5:
            light = replace(light, camera_kelvin=rng.uniform(2800, 8500), wb_strength=rng.uniform(0.6, 1.0))
        auto = rng.random() < 0.3
        if auto:
            light = replace(light, ambient=light.ambient * rng.uniform(0.3, 0.6))
        settings = CameraSettings(noise_sigma=rng.uniform(0.5, 3.5), auto_exposure=auto,
                                  defocus_px=rng.choice((0.0, 0.0, 0.0, 1.0, 1.6, 2.2)),
                                  jpeg_quality=rng.choice((None, 90, 80)))
        return f"train {light.name}", light, settings
    if which == "normal":
        light = rng.choice((DAYLIGHT, COOL_CEILING))
        return light.name, light, CameraSettings(noise_sigma=rng.uniform(0.5, 1.5), jpeg_quality=90)
    if which != "stress":
        raise ValueError(f"unknown condition set {which!r}")
    # every stress condition lies outside what "train" draws from: a hotter, warmer lamp, a room
    # dimmer than 0.3 of daylight, defocus beyond 2.2 px, white balance beyond 2800-8500 K
    kind = rng.choice(("glare", "dim", "blur", "cast"))
    if kind == "glare":
        spot = (rng.uniform(x0 + 40, x1 - 40), rng.uniform(y0 + 40, y1 - 40))
        light = WARM_LAMP.with_glare_at(spot)
        light = replace(light, lamps=tuple(replace(lamp, kelvin=2500.0, glare=lamp.glare * 1.4, power=lamp.power * 1.2)
                                           for lamp in light.lamps))
        return "warm lamp + glare", light, CameraSettings(noise_sigma=2.0, jpeg_quality=85)
    if kind == "dim":
        light = replace(DAYLIGHT, name="dim", ambient=rng.uniform(0.2, 0.28))
        return "dim", light, CameraSettings(noise_sigma=3.5, auto_exposure=True, jpeg_quality=85)
    if kind == "blur":
        return "blur", DAYLIGHT, CameraSettings(noise_sigma=1.5, defocus_px=rng.uniform(2.3, 2.8), jpeg_quality=85)
    light = replace(COOL_CEILING, name="cast", camera_kelvin=rng.choice((2600.0, 9000.0)), wb_strength=1.0)
    return "colour cast", light, CameraSettings(noise_sigma=1.5, jpeg_quality=85)


def random_camera(rng: random.Random, size=(1280, 720), layout: MatLayout | None = None) -> Camera:
    """A webcam over the mat: field of view 50-62 degrees, tilt 5-30, any azimuth, roll +-20."""
    layout = layout or mat_layout(GAME)
    return look_at_mat(layout.outline_mm(), size, rng.uniform(50, 62), rng.uniform(5, 30), rng.uniform(0, 360),
                       rng.uniform(-20, 20), dist=NO_DIST)


def views(seed: int, count: int, which: str, size=(1280, 720), cameras: int = 3,
          fill: float = 0.7) -> Iterator[tuple[np.ndarray, np.ndarray, dict, str]]:
    """Rendered random boards with their truth.

    Parameters
    ----------
    seed : int
    count : int
        Number of views.
    which : str
        Condition set: ``train``, ``normal`` or ``stress``.
    size : (width, height) or sequence of them
        Picture size; with several, the cameras take them in turn.
    cameras : int
        Distinct camera poses (the renderer's maps are built once per pose).
    fill : float
        Share of the hexes holding a tile.

    Yields
    ------
    (frame (H, W, 3) uint8 BGR, homography (3, 3) mat mm -> px, truth dict cell -> design or None, condition name)
    """
    rng = random.Random(seed)
    layout = mat_layout(GAME)
    poses = []
    sizes = [size] if isinstance(size[0], int) else list(size)
    for k in range(cameras):
        cam = random_camera(rng, sizes[k % len(sizes)], layout)
        poses.append((cam, Renderer(cam)))
    for i in range(count):
        cam, renderer = poses[i % len(poses)]
        scene, truth = random_board(rng, layout, fill)
        name, light, settings = conditions(rng, which, layout)
        frame = renderer.render(scene, lighting=light, settings=settings, seed=[seed, i]).image
        yield frame, cam.homography(), truth, name

