"""From a scene to a camera frame: projection, pieces, arm, light and sensor.

Per frame (``Renderer.render``):

1. **static layer** (cached while scene, mat pose, camera and shadow light stay the same): the
   table texture, then the mat-plane texture (mat + flat pieces, :mod:`.texture`) through one
   ``cv2.remap`` per layer whose maps send each *distorted* output pixel to the undistorted
   pixel that ``cv2.undistortPoints`` gives for it (:func:`~.camera.undistort_map`), then
   through the inverse plane homography ``(K [r1 r2 t] P)^-1`` (Hartley & Zisserman 8.1.1;
   ``P`` = the mat's pose on the table) to texture pixels. Composing the homography and the lens
   in one map is equivalent to ``warpPerspective`` followed by a distortion ``remap``, with one
   resampling instead of two. Soft shadows of the tall pieces, then the pieces (:mod:`.tall`);
2. the arm's shadow and the arm, motion-blurred (:mod:`.hands`);
3. light: gain and glare maps (:mod:`.lighting`), auto exposure if asked;
4. sensor and lens: defocus or Gaussian blur, noise, JPEG (:mod:`.effects`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from .camera import Camera, apply_pose, undistort_map
from .effects import defocus_blur, gaussian_blur, jpeg
from .hands import Arm, ArmLayer, draw_arm, draw_arm_shadow
from .lighting import DAYLIGHT, Lighting, light_maps
from .scene import Scene
from .tall import draw_piece, draw_shadow, outline_points
from .texture import MatTexture, PlaneRaster, TableTexture

IDENTITY = np.eye(3)
SHADOW_SCALE = 0.25             #: shadows are drawn and blurred at a quarter of the resolution


@dataclass(frozen=True)
class CameraSettings:
    """The camera's exposure and image pipeline.

    Attributes
    ----------
    exposure_s : float
        Exposure time, s (sets the motion blur).
    auto_exposure : bool
        Normalise the mean light gain to 1 and lengthen (or shorten) the exposure time by the
        same factor, up to ``max_exposure_s`` (dim light: longer blur, field report F9).
    max_exposure_s : float
    noise_sigma : float
        Read noise, 0-255 units.
    shot_noise : float
        Shot noise variance per unit of signal.
    defocus_px : float
        Disc blur radius, px.
    blur_sigma_px : float
        Gaussian blur sigma, px (field report F1).
    jpeg_quality : int or None
        Encode and decode at this quality (1-100).
    shadows : bool
        Cast soft shadows of pawns and arms.
    """

    exposure_s: float = 1.0 / 60.0
    auto_exposure: bool = False
    max_exposure_s: float = 1.0 / 30.0
    noise_sigma: float = 1.5
    shot_noise: float = 0.03
    defocus_px: float = 0.0
    blur_sigma_px: float = 0.0
    jpeg_quality: int | None = None
    shadows: bool = True


CLEAN = CameraSettings(noise_sigma=0.0, shot_noise=0.0)


@dataclass
class Rendered:
    """One rendered frame.

    Attributes
    ----------
    image : (H, W, 3) uint8
        BGR.
    arm : ArmLayer or None
        The drawn arm (its alpha is the occlusion mask).
    exposure_s : float
        The exposure used (after auto exposure).
    pawn_px : dict piece_id -> (2, 2) float64
        Image pixels of each pawn's base and top centres.
    """

    image: np.ndarray
    arm: ArmLayer | None
    exposure_s: float
    pawn_px: dict


def _remap_maps(trans: np.ndarray, und: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Fixed-point ``cv2.remap`` maps from undistorted pixels ``(h, w, 2) float32`` through the
    3x3 ``trans`` (undistorted px -> texture px, ``cv2.perspectiveTransform``); rays that miss
    the plane go to -1000 (the border)."""
    pts = cv2.perspectiveTransform(np.ascontiguousarray(und).reshape(-1, 1, 2), trans).reshape(und.shape)
    den = trans[2, 0] * und[..., 0] + trans[2, 1] * und[..., 1] + np.float32(trans[2, 2])
    bad = den <= 1e-9
    if np.any(bad):
        pts[bad] = -1000.0
    np.clip(pts, -1000.0, 30000.0, out=pts)
    return cv2.convertMaps(pts[..., 0], pts[..., 1], cv2.CV_16SC2)


def _affine3(raster: PlaneRaster) -> np.ndarray:
    return np.vstack([raster.affine_from_mm(), [0.0, 0.0, 1.0]])


class Renderer:
    """Renders scenes through one camera, caching everything that does not change per frame.

    Parameters
    ----------
    camera : Camera
    table : TableTexture, optional
    mat_texture : MatTexture, optional
        Shares composed textures between renderers when passed.
    max_ppm : float or None
        Upper bound of the texture resolution (px/mm); by default the texture matches the
        largest image scale over the mat (no finer: finer texels alias when sampled bilinearly).

    The instance holds caches, not scene state: any scene, pose or lighting can be passed to
    :meth:`render`. Not thread-safe.
    """

    def __init__(self, camera: Camera, table: TableTexture | None = None, mat_texture: MatTexture | None = None,
                 max_ppm: float | None = None):
        self.table = table or TableTexture()
        self.mat = mat_texture or MatTexture()
        self.max_ppm = max_ppm
        self._cache: dict = {}
        self.camera = camera

    # -- camera-dependent caches ------------------------------------------------------------
    @property
    def camera(self) -> Camera:
        """The current camera; setting it keeps the distortion map when only the pose changed."""
        return self._camera

    @camera.setter
    def camera(self, camera: Camera) -> None:
        self._camera = camera
        ik = camera.intrinsic_key()
        if self._cache.get("umap_key") != ik:
            self._cache = {"umap_key": ik, "umap": undistort_map(camera)}
        for k in [k for k in self._cache if isinstance(k, tuple)]:
            del self._cache[k]

    def _memo(self, key: tuple, make, limit: int = 6):
        if key in self._cache:
            return self._cache[key]
        same = [k for k in self._cache if isinstance(k, tuple) and k[0] == key[0]]
        for k in same[:max(0, len(same) - limit + 1)]:          # oldest first
            del self._cache[k]
        val = make()
        self._cache[key] = val
        return val

    def background(self) -> np.ndarray:
        """The table (and the floor beyond it) seen by the camera, ``(H, W, 3) uint8``, cached."""
        def make():
            tex, raster = self.table.texture()
            trans = _affine3(raster) @ np.linalg.inv(self.camera.homography())
            m1, m2 = _remap_maps(trans, self._cache["umap"])
            return cv2.remap(tex, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                             borderValue=self.table.floor)
        return self._memo(("bg",), make, 2)

    def texture_ppm(self, layout, pose: np.ndarray) -> float:
        """The mat texture's resolution for this view: the largest image scale (px/mm) over the
        mat, rounded up to 0.1, within ``[0.5, native]`` (and ``max_ppm``)."""
        w, h = layout.size_mm
        g = np.stack(np.meshgrid(np.linspace(0, w, 5), np.linspace(0, h, 5)), axis=2).reshape(-1, 2)
        s = self.camera.px_per_mm(apply_pose(pose, g))
        s = s[np.isfinite(s)]
        top = self.mat.native_ppm if self.max_ppm is None else min(self.max_ppm, self.mat.native_ppm)
        val = float(np.max(s)) if len(s) else top
        return float(np.clip(math.ceil(val * 10.0) / 10.0, 0.5, top))

    def _mat_maps(self, layout, pose: np.ndarray, raster: PlaneRaster):
        def make():
            w, h = self.camera.size
            outline = np.array([[raster.origin_mm[0], raster.origin_mm[1]],
                                [raster.origin_mm[0] + raster.size[0] / raster.scale[0], raster.origin_mm[1]],
                                [raster.origin_mm[0] + raster.size[0] / raster.scale[0],
                                 raster.origin_mm[1] + raster.size[1] / raster.scale[1]],
                                [raster.origin_mm[0], raster.origin_mm[1] + raster.size[1] / raster.scale[1]]])
            dense = np.concatenate([np.linspace(outline[i], outline[(i + 1) % 4], 48, endpoint=False)
                                    for i in range(4)])
            px = self.camera.project(apply_pose(pose, dense))
            if np.all(np.isfinite(px)):
                x0, y0 = np.floor(px.min(axis=0)).astype(int) - 2
                x1, y1 = np.ceil(px.max(axis=0)).astype(int) + 3
                box = (max(0, x0), max(0, y0), min(w, x1), min(h, y1))
            else:
                box = (0, 0, w, h)
            if box[0] >= box[2] or box[1] >= box[3]:
                return box, None, None
            und = self._cache["umap"][box[1]:box[3], box[0]:box[2]]
            trans = _affine3(raster) @ np.linalg.inv(pose) @ np.linalg.inv(self.camera.homography())
            m1, m2 = _remap_maps(trans, und)
            return box, m1, m2
        return self._memo(("matmaps", pose.tobytes(), raster), make, 4)

    def light(self, lighting: Lighting) -> tuple[np.ndarray, np.ndarray]:
        """Cached :func:`~.lighting.light_maps` for the current camera: gain ``(H, W, 3)`` and
        glare ``(H, W, 3)`` float32 (the glare repeated per channel)."""
        def make():
            gain, glare = light_maps(self.camera, lighting)
            return gain, np.repeat(glare[..., None], 3, axis=2)
        return self._memo(("light", lighting), make, 4)

    def _lit(self, static: np.ndarray, lighting: Lighting, k: float, settings: CameraSettings):
        """``static * gain * k + glare`` (float32) and the noise's standard deviation (an array,
        a number, or None for no noise), cached for the last static layer."""
        key = ("lit", self._static_key, lighting, k, settings.noise_sigma, settings.shot_noise)

        def make():
            gain, glare = self.light(lighting)
            f = static.astype(np.float32)
            cv2.multiply(f, gain, f, scale=k)
            cv2.add(f, glare, f)
            return f, self._sd(f, settings)
        return self._memo(key, make, 2)

    @staticmethod
    def _sd(frame: np.ndarray, settings: CameraSettings):
        """Per-pixel noise sigma ``sqrt(read^2 + shot * value)`` (``float32`` array, through a
        256-entry ``cv2.LUT`` of the value rounded to uint8), the read sigma alone (float) without
        shot noise, or None without noise."""
        if settings.shot_noise > 0:
            lut = np.sqrt(np.float32(settings.noise_sigma ** 2) + np.float32(settings.shot_noise)
                          * np.arange(256, dtype=np.float32)).astype(np.float32)
            return cv2.LUT(cv2.convertScaleAbs(cv2.max(frame, 0.0)), lut)
        return float(settings.noise_sigma) if settings.noise_sigma > 0 else None

    def _buffer(self, shape) -> np.ndarray:
        """A reused float32 work buffer (fresh 11 MB arrays cost page faults every frame)."""
        buf = self._cache.get("buffer")
        if buf is None or buf.shape != tuple(shape):
            buf = np.empty(shape, np.float32)
            self._cache["buffer"] = buf
        return buf

    def _noise(self, seed) -> np.ndarray:
        """Unit Gaussian noise ``(H, W, 3) float32`` for one frame: a window of a fixed bank of
        noise (``default_rng(0)``, 64 px larger than the frame each way) at an offset drawn from
        ``seed`` (drawing 2.7 M fresh normals would cost ~25 ms a frame at 1280x720)."""
        w, h = self.camera.size
        bank = self._cache.get("noisebank")
        if bank is None or bank.shape != (h + 64, w + 64, 3):
            bank = np.random.default_rng(0).standard_normal((h + 64, w + 64, 3), dtype=np.float32)
            self._cache["noisebank"] = bank
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        dy, dx = (int(v) for v in rng.integers(0, 64, 2))
        return bank[dy:dy + h, dx:dx + w]

    # -- layers ------------------------------------------------------------------------------
    def static_layer(self, scene: Scene, pose: np.ndarray | None = None, lighting: Lighting = DAYLIGHT,
                     shadows: bool = True) -> tuple[np.ndarray, dict]:
        """Table, mat, flat pieces, shadows and tall pieces, before light and sensor.

        Returns
        -------
        image : (H, W, 3) uint8
            Cached: do not modify.
        pawn_px : dict piece_id -> (2, 2) float64
        """
        pose = IDENTITY if pose is None else np.asarray(pose, np.float64)
        light_pos = lighting.shadow_light()
        key = ("static", scene.flat_key(), scene.talls, scene.board_present, scene.layout, pose.tobytes(),
               light_pos.tobytes(), lighting.shadow_strength, shadows)
        img, pawn_px = self._memo(key, lambda: self._make_static(scene, pose, lighting, shadows), 3)
        self._static_key = key
        return img, pawn_px

    def _make_static(self, scene: Scene, pose: np.ndarray, lighting: Lighting, shadows: bool):
        img = self.background().copy()
        pawn_px: dict = {}
        if not scene.board_present:
            return img, pawn_px
        tex, raster = self.mat.compose(scene, self.texture_ppm(scene.layout, pose))
        box, m1, m2 = self._mat_maps(scene.layout, pose, raster)
        if m1 is not None:
            x0, y0, x1, y1 = box
            layer = cv2.remap(tex, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
            # premultiplied "over" in uint8: colour + background * (255 - alpha) / 255
            inv = cv2.cvtColor(cv2.bitwise_not(layer[..., 3]), cv2.COLOR_GRAY2BGR)
            under = cv2.multiply(img[y0:y1, x0:x1], inv, scale=1.0 / 255.0)
            img[y0:y1, x0:x1] = cv2.add(np.ascontiguousarray(layer[..., :3]), under)
        if scene.talls:
            light = lighting.shadow_light()
            if shadows and lighting.shadow_strength > 0:
                self._shadows(img, [outline_points(p, pose) for p in scene.talls], light, lighting.shadow_strength, 1.2)
            cam_c = self.camera.center_mm
            # far pieces first (painter's order by distance from the camera centre)
            order = sorted(scene.talls, key=lambda p: -np.linalg.norm(
                np.append(apply_pose(pose, np.array([p.center_mm]))[0], 0.0) - cam_c))
            for p in order:
                pawn_px[p.piece_id] = draw_piece(img, self.camera, p, pose, light)
        return img, pawn_px

    def _shadows(self, img: np.ndarray, point_sets, light, strength: float, sigma_mm: float) -> None:
        mask = self._shadow_mask()
        for pts in point_sets:
            draw_shadow(mask, self.camera, pts, light, SHADOW_SCALE)
        self._apply_shadow(img, mask, strength, sigma_mm)

    def _apply_shadow(self, img: np.ndarray, mask: np.ndarray, strength: float, sigma_mm: float) -> None:
        """Darken ``img`` (uint8 or float32, in place) by ``1 - strength * blur(mask)``; ``mask`` is
        drawn at a quarter of the image's resolution (:data:`SHADOW_SCALE`); the blur's sigma is
        ``sigma_mm`` at the image centre's scale. Only the mask's bounding box is enlarged."""
        if not mask.any():
            return
        w, h = self.camera.size
        q = int(round(1.0 / SHADOW_SCALE))
        mask = cv2.GaussianBlur(mask, (0, 0), max(1.0, sigma_mm * self._ppm_centre() / q))
        ys, xs = np.nonzero(mask > 1e-3)
        if len(ys) == 0:
            return
        ly0, ly1 = max(0, ys.min() - 2), min(mask.shape[0], ys.max() + 3)
        lx0, lx1 = max(0, xs.min() - 2), min(mask.shape[1], xs.max() + 3)
        full = cv2.resize(mask[ly0:ly1, lx0:lx1], ((lx1 - lx0) * q, (ly1 - ly0) * q), interpolation=cv2.INTER_LINEAR)
        y0, x0 = ly0 * q, lx0 * q
        y1, x1 = min(h, y0 + full.shape[0]), min(w, x0 + full.shape[1])
        keep = (1.0 - strength * np.clip(full[:y1 - y0, :x1 - x0], 0.0, 1.0))[..., None]
        roi = img[y0:y1, x0:x1]
        if roi.dtype == np.uint8:
            roi[:] = np.clip(roi.astype(np.float32) * keep + 0.5, 0, 255).astype(np.uint8)
        else:
            roi *= keep

    def _shadow_mask(self) -> np.ndarray:
        w, h = self.camera.size
        q = int(round(1.0 / SHADOW_SCALE))
        return np.zeros(((h + q - 1) // q, (w + q - 1) // q), np.float32)

    def _ppm_centre(self) -> float:
        def make():
            w, h = self.camera.size
            und = self.camera.undistort_pixels(np.array([[(w - 1) / 2.0, (h - 1) / 2.0]]))
            p = self.camera.back_project(und, 0.0)[0, :2]
            s = self.camera.px_per_mm(p[None])[0] if np.all(np.isfinite(p)) else 1.0
            return float(s) if np.isfinite(s) else 1.0
        return self._memo(("ppmc",), make, 1)

    # -- a frame -----------------------------------------------------------------------------
    def render(self, scene: Scene, pose: np.ndarray | None = None, lighting: Lighting = DAYLIGHT,
               arm: Arm | None = None, settings: CameraSettings = CameraSettings(), seed=0) -> Rendered:
        """Render one frame.

        Parameters
        ----------
        scene : Scene
        pose : (3, 3) float64 or None
            Mat mm -> table mm (:func:`~.camera.plane_pose`); None = the mat at rest.
        lighting : Lighting
        arm : Arm or None
        settings : CameraSettings
        seed : int or numpy.random.Generator
            Sensor noise (the only randomness).

        Returns
        -------
        Rendered
        """
        static, pawn_px = self.static_layer(scene, pose, lighting, settings.shadows)
        gain, glare = self.light(lighting)
        exposure_s, k = settings.exposure_s, 1.0
        if settings.auto_exposure:
            k = 1.0 / max(float(gain[..., 1].mean()), 1e-3)
            exposure_s = min(settings.max_exposure_s, settings.exposure_s * k)
            k = exposure_s / settings.exposure_s
        lit = self._lit(static, lighting, k, settings)
        frame = self._buffer(lit[0].shape)
        np.copyto(frame, lit[0])
        sd = lit[1]
        layer = None
        if arm is not None:
            if settings.shadows and lighting.shadow_strength > 0:
                mask = self._shadow_mask()
                draw_arm_shadow(mask, self.camera, arm, lighting.shadow_light(), SHADOW_SCALE)
                height = max(20.0, -float(arm.hand_mm[2]))
                self._apply_shadow(frame, mask, lighting.shadow_strength * 0.9, 0.12 * height)
            layer = draw_arm(self.camera, arm, exposure_s)
            if layer is not None:
                x0, y0, x1, y1 = layer.box
                roi = frame[y0:y1, x0:x1]
                roi *= (1.0 - layer.alpha)[..., None]
                roi += layer.colour * (gain[y0:y1, x0:x1] * np.float32(k))
        if settings.defocus_px > 0:
            frame = defocus_blur(frame, settings.defocus_px)
        if settings.blur_sigma_px > 0:
            frame = gaussian_blur(frame, settings.blur_sigma_px)
        if sd is not None:
            noise = self._noise(seed)
            if not isinstance(sd, np.ndarray):
                cv2.scaleAdd(noise, float(sd), frame, frame)
            elif settings.defocus_px > 0 or settings.blur_sigma_px > 0:
                # the picture changed: so did its shot noise
                cv2.accumulateProduct(noise, self._sd(frame, settings), frame)
            else:
                cv2.accumulateProduct(noise, sd, frame)
                if layer is not None:                   # the arm changed its pixels' shot noise
                    x0, y0, x1, y1 = layer.box
                    new = self._sd(frame[y0:y1, x0:x1], settings)
                    frame[y0:y1, x0:x1] += noise[y0:y1, x0:x1] * (new - sd[y0:y1, x0:x1])
        cv2.max(frame, 0.0, dst=frame)
        out = cv2.convertScaleAbs(frame)                # rounds and saturates at 255
        if settings.jpeg_quality:
            out = jpeg(out, settings.jpeg_quality)
        return Rendered(out, layer, exposure_s, pawn_px)
