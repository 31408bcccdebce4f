"""How the table is lit: ambient light, lamps, glare, and the camera's white balance.

A :class:`Lighting` turns into two per-pixel maps for a camera (:func:`light_maps`): a gain
``(H, W, 3)`` multiplying the scene's colours and an additive glare ``(H, W)``. Lamps are point
lights over the table: their irradiance at a table point ``d`` mm from the lamp's foot is
``(1 + d^2 / h^2) ^ -1.5`` of its peak (inverse square law times Lambert's cosine), coloured by
:func:`~.effects.white_balance_gains`. A lamp's glare sits at the mirror point of the lamp in
the table as seen from the camera centre (law of reflection for a flat glossy surface), unless
``glare_at_mm`` pins it (e.g. onto a marker).

Positions are table mm; heights are positive mm above the table (the camera module's ``z`` is
``-height``). The presets are placed for the default Forbidden Desert mat (565 x 470 mm at the
origin).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from .camera import Camera
from .effects import white_balance_gains


@dataclass(frozen=True)
class Lamp:
    """A point light.

    Attributes
    ----------
    position_mm : (x, y, height)
        Table mm; height above the table, mm (> 0).
    kelvin : float
        Colour temperature, K.
    power : float
        Gain added right under the lamp.
    glare : float
        Peak of the specular glare blob (>= 1 saturates to white); 0 = matte.
    glare_radius_mm : float
        Sigma of the blob on the table, mm.
    glare_at_mm : (x, y) or None
        Table point of the glare instead of the mirror point.
    """

    position_mm: tuple[float, float, float]
    kelvin: float = 3000.0
    power: float = 0.8
    glare: float = 0.0
    glare_radius_mm: float = 18.0
    glare_at_mm: tuple[float, float] | None = None

    def glare_point(self, camera: Camera) -> np.ndarray | None:
        """Table mm ``(2,)`` of the glare: the pinned point, or where the ray from the camera
        centre to the lamp's mirror image (below the table) crosses the table; None when the
        camera is not above the table."""
        if self.glare_at_mm is not None:
            return np.asarray(self.glare_at_mm, np.float64)
        c = camera.center_mm
        x, y, h = self.position_mm
        mirror = np.array([x, y, h])                # the lamp reflected in z = 0 (z is +down)
        dz = mirror[2] - c[2]
        if dz <= 0:
            return None
        s = -c[2] / dz
        return (c + s * (mirror - c))[:2]


@dataclass(frozen=True)
class Lighting:
    """The light on the table and the camera's colour balance.

    Attributes
    ----------
    name : str
    ambient : float
        Gain of the diffuse room light.
    ambient_kelvin : float
        Its colour temperature, K.
    camera_kelvin : float
        What the camera's white balance is set for, K.
    wb_strength : float
        How much of a colour cast remains (0 = perfect auto white balance, 1 = none).
    gradient : float
        Linear ramp of the ambient light across the image: ``1 +- gradient``.
    gradient_deg : float
        Direction of the ramp in the image (0 = brighter to the right, 90 = downwards).
    vignette : float
        Corner darkening (``1 - vignette`` at the corners).
    lamps : tuple of Lamp
    exposure_ev : float
        Exposure offset, EV.
    shadow_strength : float
        How much a cast shadow darkens (0-1).
    overhead_mm : (x, y, height)
        The light casting shadows when there is no lamp.
    """

    name: str = "daylight"
    ambient: float = 1.0
    ambient_kelvin: float = 5500.0
    camera_kelvin: float = 5500.0
    wb_strength: float = 1.0
    gradient: float = 0.0
    gradient_deg: float = 0.0
    vignette: float = 0.15
    lamps: tuple[Lamp, ...] = ()
    exposure_ev: float = 0.0
    shadow_strength: float = 0.35
    overhead_mm: tuple[float, float, float] = (150.0, 0.0, 1800.0)

    def shadow_light(self) -> np.ndarray:
        """Position ``(3,)`` in the camera module's convention (``z = -height``) of the light
        that casts shadows: the most powerful lamp, else the overhead light."""
        if self.lamps:
            x, y, h = max(self.lamps, key=lambda lamp: lamp.power).position_mm
        else:
            x, y, h = self.overhead_mm
        return np.array([x, y, -h], np.float64)

    def with_glare_at(self, point_mm) -> "Lighting":
        """The same lighting with every lamp's glare pinned at ``point_mm`` (table mm)."""
        return replace(self, lamps=tuple(replace(lamp, glare_at_mm=tuple(point_mm)) for lamp in self.lamps))


DAYLIGHT = Lighting("daylight", ambient=1.0, ambient_kelvin=5800.0, gradient=0.08, gradient_deg=20.0, vignette=0.15,
                    shadow_strength=0.3, overhead_mm=(-600.0, 100.0, 1500.0))
WARM_LAMP = Lighting("warm_lamp", ambient=0.45, ambient_kelvin=3200.0, wb_strength=0.85, gradient=0.05,
                     lamps=(Lamp((80.0, 60.0, 500.0), kelvin=2900.0, power=0.85, glare=0.7),),
                     exposure_ev=0.2, vignette=0.2, shadow_strength=0.5)
COOL_CEILING = Lighting("cool_ceiling", ambient=0.95, ambient_kelvin=6500.0, gradient=0.04, gradient_deg=90.0,
                        vignette=0.2, shadow_strength=0.2, overhead_mm=(280.0, 235.0, 2200.0))
POINT_LIGHT = Lighting("point_light", ambient=0.25, ambient_kelvin=4000.0, wb_strength=0.7,
                       lamps=(Lamp((420.0, 120.0, 380.0), kelvin=4000.0, power=1.6, glare=1.6, glare_radius_mm=14.0),),
                       vignette=0.25, shadow_strength=0.6)
PRESETS = {lt.name: lt for lt in (DAYLIGHT, WARM_LAMP, COOL_CEILING, POINT_LIGHT)}


def light_maps(camera: Camera, lighting: Lighting, step: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """Per-pixel light of ``lighting`` seen by ``camera``.

    Parameters
    ----------
    camera : Camera
    lighting : Lighting
    step : int
        The maps are computed every ``step`` px and bilinearly enlarged (they are smooth).

    Returns
    -------
    gain : (H, W, 3) float32
        Multiplies BGR values.
    glare : (H, W) float32
        Added to every channel, 0-255 units.

    Raises
    ------
    ValueError
        For a colour temperature outside 1000-40000 K.
    """
    w, h = camera.size
    gw, gh = (w + step - 1) // step + 1, (h + step - 1) // step + 1
    xs, ys = np.meshgrid(np.arange(gw) * float(step), np.arange(gh) * float(step))
    px = np.stack([xs, ys], axis=2).reshape(-1, 2)
    table = camera.back_project(camera.undistort_pixels(px), 0.0)[:, :2]          # NaN off the plane
    hit = np.all(np.isfinite(table), axis=1)
    cx, cy = (w - 1) / 2.0, (h - 1) / 2.0
    scale = max(w, h)
    a = np.radians(lighting.gradient_deg)
    ramp = 1.0 + 2.0 * lighting.gradient * (np.cos(a) * (px[:, 0] - cx) + np.sin(a) * (px[:, 1] - cy)) / scale
    gain = lighting.ambient * ramp[:, None] * white_balance_gains(lighting.ambient_kelvin, lighting.camera_kelvin,
                                                                  lighting.wb_strength)[None, :]
    glare = np.zeros(len(px))
    for lamp in lighting.lamps:
        lx, ly, lh = lamp.position_mm
        d2 = np.where(hit, (table[:, 0] - lx) ** 2 + (table[:, 1] - ly) ** 2, np.inf)
        e = (1.0 + d2 / (lh * lh)) ** -1.5
        gain = gain + lamp.power * e[:, None] * white_balance_gains(lamp.kelvin, lighting.camera_kelvin,
                                                                     lighting.wb_strength)[None, :]
        g = lamp.glare_point(camera)
        if lamp.glare > 0 and g is not None:
            dg2 = np.where(hit, (table[:, 0] - g[0]) ** 2 + (table[:, 1] - g[1]) ** 2, np.inf)
            glare += lamp.glare * 255.0 * np.exp(-dg2 / (2.0 * lamp.glare_radius_mm ** 2))
    r2 = ((px[:, 0] - cx) ** 2 + (px[:, 1] - cy) ** 2) / (cx * cx + cy * cy)
    gain *= ((1.0 - lighting.vignette * r2) * 2.0 ** lighting.exposure_ev)[:, None]
    gain_c = gain.reshape(gh, gw, 3).astype(np.float32)
    glare_c = glare.reshape(gh, gw).astype(np.float32)
    mx, my = np.meshgrid(np.arange(w, dtype=np.float32) / step, np.arange(h, dtype=np.float32) / step)
    return (cv2.remap(gain_c, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE),
            cv2.remap(glare_c, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE))
