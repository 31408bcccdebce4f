"""Standing pieces (pawns) drawn in 3D through the camera, and their shadows on the table.

A pawn is a truncated cone (base radius ``r``, top radius ``0.55 r``, 62 % of the height) with a
ball on top; a ``cylinder`` is a plain upright cylinder. Every vertex is projected with the
camera's full model (distortion included), so a pawn's top leans away from its base as
perspective demands. The side is drawn facet by facet (only the facets facing the camera),
each shaded with Lambert's cosine law from the light direction; the top is a projected circle
and the ball's outline is the projected contour circle of the sphere seen from the camera
centre (the tangent cone's circle of contact).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from .camera import Camera, apply_pose
from .scene import TallPiece

N_SIDES = 28
SHIFT = 4


def _ring(center, radius: float, height: float, n: int = N_SIDES, phase: float = 0.0) -> np.ndarray:
    a = np.linspace(0.0, 2 * np.pi, n, endpoint=False) + phase
    return np.stack([center[0] + radius * np.cos(a), center[1] + radius * np.sin(a), np.full(n, -height)], axis=1)


def _fx(pts: np.ndarray) -> np.ndarray:
    return np.round(pts * (1 << SHIFT)).astype(np.int32).reshape(-1, 1, 2)


def geometry(piece: TallPiece, pose: np.ndarray) -> dict:
    """The piece's 3D parts in table mm: ``body`` = (bottom radius, top radius, top height),
    ``ball`` = (centre (3,), radius) or None, and ``center`` (2,) table mm."""
    c = apply_pose(pose, np.array([piece.center_mm]))[0]
    r, h = piece.radius_mm, piece.height_mm
    if piece.shape == "cylinder":
        return {"center": c, "body": (r, r, h), "ball": None}
    rb = min(0.38 * h, 0.62 * r)
    body_h = h - 1.6 * rb
    return {"center": c, "body": (r, 0.55 * r, body_h), "ball": (np.array([c[0], c[1], -(h - rb)]), rb)}


def outline_points(piece: TallPiece, pose: np.ndarray) -> np.ndarray:
    """3D points (table mm) spanning the piece: its base and top rings and its ball, ``(N, 3)``."""
    g = geometry(piece, pose)
    rb, rt, ht = g["body"]
    pts = [_ring(g["center"], rb, 0.0, 16), _ring(g["center"], rt, ht, 16)]
    if g["ball"] is not None:
        bc, br = g["ball"]
        for z in (-br, 0.0, br):
            rr = math.sqrt(max(br * br - z * z, 0.0)) if z else br
            pts.append(_ring(bc[:2], max(rr, 0.2), -bc[2] + z, 12))
    return np.concatenate(pts)


def _shade(colour, normal: np.ndarray, light_dir: np.ndarray, ambient: float = 0.55) -> tuple:
    lam = max(0.0, float(np.dot(normal, light_dir)))
    k = ambient + (1.0 - ambient) * lam
    return tuple(float(min(255.0, v * k + 6.0)) for v in colour)


def draw_piece(img: np.ndarray, camera: Camera, piece: TallPiece, pose: np.ndarray, light_mm) -> np.ndarray:
    """Draw one tall piece on ``img`` in place.

    Parameters
    ----------
    img : (H, W, 3) uint8 BGR
    camera : Camera
    piece : TallPiece
    pose : (3, 3) float64
        Mat mm to table mm (:func:`~.camera.plane_pose`).
    light_mm : (3,) float
        The main light's position, table mm (z < 0 above the table).

    Returns
    -------
    (2, 2) float64
        Image pixels of the base centre and of the top centre.
    """
    g = geometry(piece, pose)
    c = g["center"]
    rb, rt, ht = g["body"]
    cam_c = camera.center_mm
    light = np.asarray(light_mm, np.float64)
    n = N_SIDES
    half = math.pi / n * 1.35                      # facets overlap a little: no seams between them
    slope = (rb - rt) / ht                         # outward lean of the side's normal
    for i in range(n):
        a = 2 * math.pi * i / n
        mid = np.array([c[0] + rb * math.cos(a), c[1] + rb * math.sin(a), 0.0])
        normal = np.array([math.cos(a), math.sin(a), -slope])
        normal /= np.linalg.norm(normal)
        if np.dot(normal, cam_c - mid) <= 0:
            continue
        ang = np.array([a - half, a + half])
        quad = np.concatenate([
            np.stack([c[0] + rb * np.cos(ang), c[1] + rb * np.sin(ang), np.zeros(2)], 1),
            np.stack([c[0] + rt * np.cos(ang[::-1]), c[1] + rt * np.sin(ang[::-1]), np.full(2, -ht)], 1)])
        px = camera.project(quad)
        if not np.all(np.isfinite(px)):
            continue
        ld = light - mid
        cv2.fillConvexPoly(img, _fx(px), _shade(piece.colour, normal, ld / np.linalg.norm(ld)), cv2.LINE_AA, SHIFT)
    top = camera.project(_ring(c, rt, ht))
    if np.all(np.isfinite(top)):
        ld = light - np.array([c[0], c[1], -ht])
        cv2.fillConvexPoly(img, _fx(top), _shade(piece.colour, np.array([0.0, 0.0, -1.0]), ld / np.linalg.norm(ld)),
                           cv2.LINE_AA, SHIFT)
    top_px = camera.project(np.array([[c[0], c[1], -piece.height_mm]]))[0]
    if g["ball"] is not None:
        _draw_ball(img, camera, g["ball"][0], g["ball"][1], piece.colour, light)
    base_px = camera.project(np.array([[c[0], c[1], 0.0]]))[0]
    return np.stack([base_px, top_px])


def _draw_ball(img, camera: Camera, centre: np.ndarray, radius: float, colour, light: np.ndarray) -> None:
    d = centre - camera.center_mm
    dist = np.linalg.norm(d)
    if dist <= radius:
        return
    dn = d / dist
    # circle of contact of the tangent cone from the camera centre
    off = radius * radius / dist
    rc = radius * math.sqrt(1.0 - (radius / dist) ** 2)
    u = np.cross(dn, [1.0, 0.0, 0.0] if abs(dn[0]) < 0.9 else [0.0, 1.0, 0.0])
    u /= np.linalg.norm(u)
    v = np.cross(dn, u)
    a = np.linspace(0, 2 * np.pi, 32, endpoint=False)
    ring = centre - dn * off + rc * (np.cos(a)[:, None] * u + np.sin(a)[:, None] * v)
    px = camera.project(ring)
    if not np.all(np.isfinite(px)):
        return
    ld = light - centre
    ld /= np.linalg.norm(ld)
    cv2.fillConvexPoly(img, _fx(px), _shade(colour, -dn, ld, 0.6), cv2.LINE_AA, SHIFT)
    # a highlight toward the light
    hl = camera.project((centre + radius * 0.55 * ld)[None])[0]
    r_px = np.linalg.norm(px - px.mean(axis=0), axis=1).mean()
    if np.all(np.isfinite(hl)):
        lit = tuple(float(min(255.0, v * 1.15 + 30.0)) for v in colour)
        cv2.circle(img, tuple(int(round(q * (1 << SHIFT))) for q in hl), int(round(r_px * 0.35 * (1 << SHIFT))), lit,
                   -1, cv2.LINE_AA, SHIFT)


def shadow_polygon(points_mm: np.ndarray, light_mm) -> np.ndarray:
    """Where 3D points (table mm, z <= 0) fall on the table under a point light: ``(N, 2)`` mm.

    The central projection from the light onto ``z = 0``: ``S = L + (P - L) * L_z / (L_z - P_z)``.
    Points at or above the light's height are pushed 10 m away.
    """
    p = np.asarray(points_mm, np.float64).reshape(-1, 3)
    lx, ly, lz = light_mm
    denom = lz - p[:, 2]
    s = np.where(denom < -1e-6, lz / np.where(denom < -1e-6, denom, -1.0), 1e4)
    out = np.stack([lx + (p[:, 0] - lx) * s, ly + (p[:, 1] - ly) * s], axis=1)
    return out


def draw_shadow(mask: np.ndarray, camera: Camera, points_mm: np.ndarray, light_mm, scale: float = 1.0,
                value: float = 1.0) -> None:
    """Fill the convex hull of the shadow of ``points_mm`` in ``mask`` (``(h, w) float32``, drawn at
    ``scale`` times the camera's pixel grid), in place."""
    sh = shadow_polygon(points_mm, light_mm)
    px = camera.project(sh)
    ok = np.all(np.isfinite(px), axis=1)
    if ok.sum() < 3:
        return
    px = (px[ok] + 0.5) * scale - 0.5
    hull = cv2.convexHull(px.astype(np.float32))
    cv2.fillConvexPoly(mask, _fx(hull.reshape(-1, 2)), float(value), cv2.LINE_AA, SHIFT)
