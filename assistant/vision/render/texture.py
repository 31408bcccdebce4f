"""Textures in a plane: the mat with its flat pieces, and the table under it.

Both are rasters of a plane in mm, with the geometry held by a
:class:`PlaneRaster`: texture pixel *index* ``(i, j)`` covers mm
``[origin + j / sx, origin + (j + 1) / sx)`` (as :func:`~assistant.vision.printing.draw_mat`
fills its pixels), so the texture coordinate OpenCV's ``remap`` wants for a point ``x`` mm is
``(x - origin_x) * sx - 0.5`` (pixel centres at integers, package note).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from ..printing import draw_mat
from .scene import FlatPiece, Scene


@dataclass(frozen=True)
class PlaneRaster:
    """Where a texture lies in its plane.

    Attributes
    ----------
    origin_mm : (x, y)
        The mm point at the texture's top-left pixel *corner*.
    scale : (sx, sy)
        px per mm along x and y.
    size : (W, H) px
    """

    origin_mm: tuple[float, float]
    scale: tuple[float, float]
    size: tuple[int, int]

    def to_px(self, pts_mm: np.ndarray) -> np.ndarray:
        """mm ``(..., 2)`` to texture pixel coordinates ``(..., 2)`` (pixel centres at integers)."""
        p = np.asarray(pts_mm, np.float64)
        return (p - self.origin_mm) * self.scale - 0.5

    def affine_from_mm(self) -> np.ndarray:
        """``(2, 3) float64``: mm to texture px (pixel-centre convention)."""
        sx, sy = self.scale
        ox, oy = self.origin_mm
        return np.array([[sx, 0.0, -ox * sx - 0.5], [0.0, sy, -oy * sy - 0.5]])


def premultiply(img: np.ndarray) -> np.ndarray:
    """BGR ``(h, w, 3)`` (alpha 255) or BGRA ``(h, w, 4)`` uint8 to premultiplied BGRA ``(h, w, 4) float32``
    in ``[0, 1]``."""
    f = img.astype(np.float32) * (1.0 / 255.0)
    if f.shape[2] == 3:
        return np.dstack([f, np.ones(f.shape[:2], np.float32)])
    f[..., :3] *= f[..., 3:4]
    return f


def rounded_alpha(h: int, w: int, radius_px: float) -> np.ndarray:
    """An ``(h, w) float32`` mask in ``[0, 1]`` of a rectangle with rounded corners (anti-aliased)."""
    m = np.zeros((h, w), np.uint8)
    r = max(0.0, min(radius_px, min(h, w) / 2.0))
    s = 16
    if r < 0.5:
        m[:] = 255
        return m.astype(np.float32) / 255.0
    ri = int(round(r * s))
    x0, y0, x1, y1 = int(round(-0.5 * s)), int(round(-0.5 * s)), int(round((w - 0.5) * s)), int(round((h - 0.5) * s))
    cv2.rectangle(m, ((x0 + ri) >> 4, y0 >> 4), ((x1 - ri) >> 4, y1 >> 4), 255, -1)
    cv2.rectangle(m, (x0 >> 4, (y0 + ri) >> 4), (x1 >> 4, (y1 - ri) >> 4), 255, -1)
    for cx, cy in ((x0 + ri, y0 + ri), (x1 - ri, y0 + ri), (x1 - ri, y1 - ri), (x0 + ri, y1 - ri)):
        cv2.circle(m, (cx, cy), ri, 255, -1, cv2.LINE_AA, 4)
    return m.astype(np.float32) / 255.0


class MatTexture:
    """Composes the mat-plane texture of a scene at one resolution, with caches.

    Parameters
    ----------
    native_ppm : float
        Resolution at which :func:`~assistant.vision.printing.draw_mat` draws the mat (px/mm);
        use a value that makes the mat's size a whole number of pixels (4.0 for every default
        layout) so the markers land exactly.
    margin_mm : float
        Transparent border around the mat where pieces may lie beside it.

    The texture is premultiplied BGRA ``uint8``; the mat is opaque, the margin transparent
    except under pieces.
    """

    def __init__(self, native_ppm: float = 4.0, margin_mm: float = 80.0):
        self.native_ppm = float(native_ppm)
        self.margin_mm = float(margin_mm)
        self._mat: dict = {}
        self._pieces: dict = {}
        self._textures: dict = {}

    def raster(self, layout, ppm: float) -> PlaneRaster:
        """The :class:`PlaneRaster` of ``layout``'s texture at about ``ppm`` px/mm (the exact scale
        makes the mat a whole number of pixels)."""
        w_mm, h_mm = layout.size_mm
        wn, hn = int(round(w_mm * self.native_ppm)), int(round(h_mm * self.native_ppm))
        ww, hw = max(2, int(round(wn * ppm / self.native_ppm))), max(2, int(round(hn * ppm / self.native_ppm)))
        sx, sy = ww / w_mm, hw / h_mm
        mx, my = int(round(self.margin_mm * sx)), int(round(self.margin_mm * sy))
        return PlaneRaster((-mx / sx, -my / sy), (sx, sy), (ww + 2 * mx, hw + 2 * my))

    def _mat_base(self, layout, raster: PlaneRaster) -> np.ndarray:
        key = (layout, raster)
        if key not in self._mat:
            native = self._mat.get((layout, "native"))
            if native is None:
                native = draw_mat(layout, self.native_ppm)
                self._mat[(layout, "native")] = native
            w_mm, h_mm = layout.size_mm
            ww, hw = int(round(w_mm * raster.scale[0])), int(round(h_mm * raster.scale[1]))
            small = native
            if (ww, hw) != native.shape[1::-1]:
                small = cv2.resize(native, (ww, hw), interpolation=cv2.INTER_AREA)
            tex = np.zeros((raster.size[1], raster.size[0], 4), np.uint8)
            mx = int(round(-raster.origin_mm[0] * raster.scale[0]))
            my = int(round(-raster.origin_mm[1] * raster.scale[1]))
            tex[my:my + hw, mx:mx + ww, :3] = small
            tex[my:my + hw, mx:mx + ww, 3] = 255
            self._mat[key] = tex
        return self._mat[key]

    def _piece_pixels(self, piece: FlatPiece, raster: PlaneRaster) -> tuple[np.ndarray, float, float]:
        """The piece's picture resized near its size in the texture, premultiplied, rounded."""
        w_px = max(2, int(math.ceil(piece.size_mm[0] * raster.scale[0])))
        h_px = max(2, int(math.ceil(piece.size_mm[1] * raster.scale[1])))
        key = (piece.digest, w_px, h_px, piece.kind, piece.corner_mm)
        if key not in self._pieces:
            img = piece.image
            interp = cv2.INTER_AREA if img.shape[1] > w_px else cv2.INTER_LINEAR
            small = cv2.resize(np.ascontiguousarray(img), (w_px, h_px), interpolation=interp)
            pre = premultiply(small)
            if piece.kind in ("tile", "card") and piece.corner_mm > 0:
                pre *= rounded_alpha(h_px, w_px, piece.corner_mm * raster.scale[0])[..., None]
            self._pieces[key] = (pre, w_px, h_px)
            if len(self._pieces) > 512:
                self._pieces.pop(next(iter(self._pieces)))
        return self._pieces[key]

    def compose(self, scene: Scene, ppm: float) -> tuple[np.ndarray, PlaneRaster]:
        """The scene's mat-plane texture.

        Parameters
        ----------
        scene : Scene
        ppm : float
            About how many px per mm (the renderer picks it to match the image scale).

        Returns
        -------
        texture : (H, W, 4) uint8
            Premultiplied BGRA (do not modify: it is cached).
        raster : PlaneRaster
        """
        raster = self.raster(scene.layout, ppm)
        key = (scene.layout, raster, scene.flat_key())
        hit = self._textures.get(key)
        if hit is not None:
            return hit, raster
        tex = self._mat_base(scene.layout, raster).copy()
        order = sorted(range(len(scene.flats)), key=lambda i: (scene.flats[i].layer, i))
        for i in order:
            self._draw_piece(tex, scene.flats[i], raster)
        if len(self._textures) > 8:
            self._textures.pop(next(iter(self._textures)))
        self._textures[key] = tex
        return tex, raster

    def _draw_piece(self, tex: np.ndarray, piece: FlatPiece, raster: PlaneRaster) -> None:
        pre, w_px, h_px = self._piece_pixels(piece, raster)
        # piece pixel (u, v) centre -> local mm -> rotated mat mm -> texture px
        w_mm, h_mm = piece.size_mm
        a = math.radians(piece.angle_deg)
        c, s = math.cos(a), math.sin(a)
        to_local = np.array([[w_mm / w_px, 0.0, (0.5 / w_px - 0.5) * w_mm],
                             [0.0, h_mm / h_px, (0.5 / h_px - 0.5) * h_mm],
                             [0.0, 0.0, 1.0]])
        rot = np.array([[c, -s, piece.center_mm[0]], [s, c, piece.center_mm[1]], [0.0, 0.0, 1.0]])
        to_tex = np.vstack([raster.affine_from_mm(), [0.0, 0.0, 1.0]])
        m = to_tex @ rot @ to_local
        corners = np.array([[-0.5, -0.5, 1], [w_px - 0.5, -0.5, 1], [w_px - 0.5, h_px - 0.5, 1],
                            [-0.5, h_px - 0.5, 1]]) @ m.T
        x0, y0 = np.floor(corners[:, :2].min(axis=0)).astype(int) - 2
        x1, y1 = np.ceil(corners[:, :2].max(axis=0)).astype(int) + 3
        H, W = tex.shape[:2]
        cx0, cy0, cx1, cy1 = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
        if cx0 >= cx1 or cy0 >= cy1:
            return
        m_roi = m.copy()
        m_roi[0, 2] -= cx0
        m_roi[1, 2] -= cy0
        warped = cv2.warpAffine(pre, m_roi[:2], (cx1 - cx0, cy1 - cy0), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
        roi = tex[cy0:cy1, cx0:cx1].astype(np.float32) * (1.0 / 255.0)
        if piece.kind in ("tile", "card"):
            # contact shadow: the piece's alpha, blurred and shifted ~0.6 mm, darkens what is below
            sh = cv2.GaussianBlur(warped[..., 3], (0, 0), max(0.6, 0.5 * raster.scale[0]))
            shift = int(round(0.6 * raster.scale[0]))
            if shift:
                sh = np.roll(np.roll(sh, shift, 0), shift, 1)
            roi *= (1.0 - 0.35 * sh)[..., None]
        roi *= (1.0 - warped[..., 3:4])
        roi += warped
        tex[cy0:cy1, cx0:cx1] = np.clip(roi * 255.0 + 0.5, 0, 255).astype(np.uint8)


class TableTexture:
    """A wooden table top (or a plain colour) around the mat, in table mm.

    Parameters
    ----------
    extent_mm : (x0, y0, x1, y1)
        The table top, table mm; beyond it the floor colour shows.
    colour : (b, g, r)
        Base colour.
    grain : float
        Strength of the wood grain in ``[0, 1]`` (0 = plain).
    ppm : float
        Resolution of the table texture, px/mm.
    seed : int
    """

    def __init__(self, extent_mm=(-700.0, -500.0, 1300.0, 1000.0), colour=(75, 115, 160), grain: float = 0.6,
                 ppm: float = 0.8, seed: int = 0, floor=(45, 45, 50)):
        self.extent_mm, self.colour, self.grain, self.ppm, self.seed = extent_mm, colour, grain, ppm, seed
        self.floor = floor
        self._tex: tuple | None = None

    def texture(self) -> tuple[np.ndarray, PlaneRaster]:
        """``(H, W, 3) uint8`` BGR table texture and its raster (built once)."""
        if self._tex is None:
            x0, y0, x1, y1 = self.extent_mm
            w, h = int(round((x1 - x0) * self.ppm)), int(round((y1 - y0) * self.ppm))
            rng = np.random.default_rng(self.seed)
            # grain: stripes along x, their phase warped by smooth noise (value noise, bicubic)
            g = rng.uniform(-1, 1, (max(2, h // 40), max(2, w // 160))).astype(np.float32)
            warp = cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)
            ys = np.arange(h, dtype=np.float32)[:, None] / self.ppm
            stripes = np.sin((ys / 6.0 + 3.0 * warp) * 2 * np.pi)
            fine = cv2.resize(rng.uniform(-1, 1, (h, max(2, w // 12))).astype(np.float32), (w, h),
                              interpolation=cv2.INTER_LINEAR)
            shade = 1.0 + self.grain * (0.10 * stripes + 0.05 * fine + 0.08 * warp)
            img = np.clip(np.array(self.colour, np.float32) * shade[..., None], 0, 255).astype(np.uint8)
            self._tex = (img, PlaneRaster((x0, y0), (w / (x1 - x0), h / (y1 - y0)), (w, h)))
        return self._tex
