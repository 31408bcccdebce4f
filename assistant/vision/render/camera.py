"""A pinhole camera with OpenCV's lens distortion, looking at the table plane.

World coordinates are the **table plane** in millimetres: ``x`` right and ``y`` down as the mat
lies when it is not bumped (mat mm = table mm then), and ``z = x cross y`` pointing *into* the
table, so a point ``h`` mm above the table has ``z = -h``. The camera frame is OpenCV's: x right,
y down, z forward along the optical axis. A camera pose ``(R, t)`` maps a world point ``X`` to the
camera frame ``R @ X + t``.

Projection follows OpenCV's model (``cv2.projectPoints``; the "Camera Calibration and 3D
Reconstruction" chapter): normalised ``x' = X/Z, y' = Y/Z``, ``r^2 = x'^2 + y'^2``,

    x'' = x' (1 + k1 r^2 + k2 r^4 + k3 r^6) + 2 p1 x' y' + p2 (r^2 + 2 x'^2)
    y'' = y' (1 + k1 r^2 + k2 r^4 + k3 r^6) + p1 (r^2 + 2 y'^2) + 2 p2 x' y'
    u = fx x'' + cx,  v = fy y'' + cy

and the plane-to-image homography of the undistorted image is ``K [r1 r2 t]`` (Hartley &
Zisserman, *Multiple View Geometry*, 2nd ed., section 8.1.1; Zhang 2000, eq. 2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

#: A cheap 640x480 webcam's distortion (k1, k2, p1, p2, k3): barrel, moving the image corners by
#: about 40 px at 640x480 with a 60 degree horizontal field of view (see known-pitfalls.md).
WEBCAM_DISTORTION = (-0.30, 0.10, 0.0005, -0.0004, -0.015)
NO_DISTORTION = (0.0, 0.0, 0.0, 0.0, 0.0)


def intrinsics(size: tuple[int, int], fov_deg: float) -> np.ndarray:
    """Camera matrix of square pixels with the principal point at the image centre.

    Parameters
    ----------
    size : (W, H) int, px
    fov_deg : float
        Horizontal field of view, degrees, in ``(0, 180)``.

    Returns
    -------
    (3, 3) float64
        ``fx = fy = (W / 2) / tan(fov / 2)``, ``cx = (W - 1) / 2``, ``cy = (H - 1) / 2``
        (pixel centres as in the package note).

    Raises
    ------
    ValueError
        For a field of view outside ``(0, 180)`` or a non-positive size.

    >>> round(float(intrinsics((640, 480), 90.0)[0, 0]), 6)
    320.0
    """
    w, h = size
    if not 0.0 < fov_deg < 180.0 or w <= 0 or h <= 0:
        raise ValueError(f"bad camera: size {size}, fov {fov_deg} deg")
    f = (w / 2.0) / math.tan(math.radians(fov_deg) / 2.0)
    return np.array([[f, 0.0, (w - 1) / 2.0], [0.0, f, (h - 1) / 2.0], [0.0, 0.0, 1.0]])


def _fold_radius(k1: float, k2: float, k3: float) -> float:
    """Smallest normalised radius where ``r (1 + k1 r^2 + k2 r^4 + k3 r^6)`` stops growing, or inf.

    Its derivative is ``1 + 3 k1 s + 5 k2 s^2 + 7 k3 s^3`` with ``s = r^2``.
    """
    roots = np.roots([7.0 * k3, 5.0 * k2, 3.0 * k1, 1.0]) if (k1 or k2 or k3) else []
    pos = [r.real for r in roots if abs(r.imag) < 1e-12 and r.real > 0]
    return math.sqrt(min(pos)) if pos else math.inf


@dataclass(frozen=True, eq=False)
class Camera:
    """Intrinsics, distortion, image size and pose.

    Attributes
    ----------
    K : (3, 3) float64
        Camera matrix, px.
    dist : (5,) float64
        ``(k1, k2, p1, p2, k3)``, OpenCV's order.
    size : (W, H) int
        Image size, px.
    R : (3, 3) float64
        World (table, mm) to camera rotation.
    t : (3,) float64
        World to camera translation, mm.
    """

    K: np.ndarray
    dist: np.ndarray
    size: tuple[int, int]
    R: np.ndarray
    t: np.ndarray
    _fold: float = field(default=math.inf, init=False, repr=False)

    def __post_init__(self):
        for name, shape in (("K", (3, 3)), ("R", (3, 3)), ("t", (3,)), ("dist", (5,))):
            arr = np.array(getattr(self, name), dtype=np.float64)
            if arr.size != int(np.prod(shape)):
                raise ValueError(f"camera {name} must have shape {shape}, got {arr.shape}")
            arr = arr.reshape(shape)
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)
        object.__setattr__(self, "size", (int(self.size[0]), int(self.size[1])))
        object.__setattr__(self, "_fold", _fold_radius(self.dist[0], self.dist[1], self.dist[4]))

    # -- identity -------------------------------------------------------------------------
    def key(self) -> bytes:
        """A bytes key identifying this camera exactly (for caches)."""
        return b"".join(a.tobytes() for a in (self.K, self.dist, self.R, self.t)) + repr(self.size).encode()

    def intrinsic_key(self) -> bytes:
        """A bytes key of the intrinsics, distortion and size only (the distortion map's key)."""
        return self.K.tobytes() + self.dist.tobytes() + repr(self.size).encode()

    @property
    def center_mm(self) -> np.ndarray:
        """The camera centre in world mm, ``(3,) float64`` (``-R^T t``)."""
        return -self.R.T @ self.t

    def with_pose(self, R: np.ndarray, t: np.ndarray) -> "Camera":
        """The same intrinsics at another pose."""
        return Camera(self.K, self.dist, self.size, R, t)

    def with_distortion(self, dist) -> "Camera":
        """The same camera with other distortion coefficients ``(k1, k2, p1, p2, k3)``."""
        return Camera(self.K, np.asarray(dist, np.float64), self.size, self.R, self.t)

    @property
    def has_distortion(self) -> bool:
        """Whether any distortion coefficient is non-zero."""
        return bool(np.any(self.dist != 0.0))

    # -- projection ------------------------------------------------------------------------
    def to_camera(self, points_mm: np.ndarray) -> np.ndarray:
        """World points ``(N, 2)`` (on the table, z = 0) or ``(N, 3)`` mm to camera-frame ``(N, 3)`` mm."""
        p = np.asarray(points_mm, dtype=np.float64).reshape(-1, np.shape(points_mm)[-1])
        if p.shape[1] == 2:
            p = np.hstack([p, np.zeros((len(p), 1))])
        return p @ self.R.T + self.t

    def project_undistorted(self, points_mm: np.ndarray) -> np.ndarray:
        """Pinhole projection without distortion: world mm ``(N, 2|3)`` to px ``(N, 2) float64``.

        Points at or behind the camera plane (camera z <= 1e-6 mm) give NaN.
        """
        xc = self.to_camera(points_mm)
        z = xc[:, 2]
        with np.errstate(divide="ignore", invalid="ignore"):
            xn = np.where(z[:, None] > 1e-6, xc[:, :2] / z[:, None], np.nan)
        return xn @ self.K[:2, :2].T + self.K[:2, 2]

    def distort_normalized(self, xn: np.ndarray) -> np.ndarray:
        """OpenCV's distortion of normalised coordinates ``(N, 2)`` to distorted normalised ``(N, 2)``.

        Identical to OpenCV inside the radius where the radial polynomial still grows; beyond it
        (barrel lenses fold far-off points back into the picture) the radial factor is continued
        with slope 1 from that radius, so points far outside the view stay outside.
        """
        x, y = xn[:, 0], xn[:, 1]
        k1, k2, p1, p2, k3 = self.dist
        r2 = x * x + y * y
        fold = self._fold
        if math.isfinite(fold):
            r = np.sqrt(r2)
            far = r > fold
            if np.any(far):
                s = np.where(far, fold / np.maximum(r, 1e-12), 1.0)
                x, y = x * s, y * s
                r2 = x * x + y * y
        radial = 1.0 + r2 * (k1 + r2 * (k2 + r2 * k3))
        xd = x * radial + 2.0 * p1 * x * y + p2 * (r2 + 2.0 * x * x)
        yd = y * radial + p1 * (r2 + 2.0 * y * y) + 2.0 * p2 * x * y
        if math.isfinite(fold) and np.any(far):
            extra = np.where(far, np.sqrt(xn[:, 0] ** 2 + xn[:, 1] ** 2) - fold, 0.0)
            xd = xd + extra * x / fold
            yd = yd + extra * y / fold
        return np.stack([xd, yd], axis=1)

    def project(self, points_mm: np.ndarray) -> np.ndarray:
        """World points to distorted image pixels, as ``cv2.projectPoints`` computes them.

        Parameters
        ----------
        points_mm : (N, 2) or (N, 3) float
            World (table) mm; 2 columns mean points on the table (z = 0). Any leading shape
            ``(..., 2|3)`` is accepted and flattened.

        Returns
        -------
        (N, 2) float64
            Pixels ``(x, y)``; NaN for points at or behind the camera plane.
        """
        xc = self.to_camera(points_mm)
        z = xc[:, 2]
        with np.errstate(divide="ignore", invalid="ignore"):
            xn = np.where(z[:, None] > 1e-6, xc[:, :2] / z[:, None], np.nan)
        xd = self.distort_normalized(xn) if self.has_distortion else xn
        return xd @ self.K[:2, :2].T + self.K[:2, 2]

    def distort_pixels(self, px_undistorted: np.ndarray) -> np.ndarray:
        """Undistorted pixels ``(N, 2)`` to distorted pixels ``(N, 2) float64`` (forward model)."""
        p = np.asarray(px_undistorted, np.float64).reshape(-1, 2)
        if not self.has_distortion:
            return p.copy()
        xn = (p - self.K[:2, 2]) @ np.linalg.inv(self.K[:2, :2]).T
        return self.distort_normalized(xn) @ self.K[:2, :2].T + self.K[:2, 2]

    def undistort_pixels(self, px: np.ndarray) -> np.ndarray:
        """Distorted pixels ``(N, 2)`` to undistorted pixels ``(N, 2) float64``.

        ``cv2.undistortPoints`` with ``P = K`` and 40 iterations (the default 5 leave up to a
        pixel of error in the corners of a strongly distorted webcam image).
        """
        p = np.asarray(px, np.float64).reshape(-1, 1, 2)
        if not self.has_distortion:
            return p.reshape(-1, 2).copy()
        crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-12)
        return cv2.undistortPoints(p, self.K, self.dist, None, self.K, criteria=crit).reshape(-1, 2)

    def homography(self) -> np.ndarray:
        """The table-plane homography: world mm ``(x, y, 1)`` to *undistorted* pixels.

        ``H = K [r1 r2 t]`` normalised to ``H[2, 2] = 1`` (Hartley & Zisserman 8.1.1).

        Returns
        -------
        (3, 3) float64
        """
        h = self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], self.t])
        return h / h[2, 2]

    def px_per_mm(self, points_mm: np.ndarray) -> np.ndarray:
        """Local image scale at table points ``(N, 2)`` mm: the larger singular value of the
        projection's Jacobian, px per mm, ``(N,) float64`` (finite differences of :meth:`project`)."""
        p = np.asarray(points_mm, np.float64).reshape(-1, 2)
        e = 0.5
        c = self.project(p)
        jx = (self.project(p + [e, 0.0]) - c) / e
        jy = (self.project(p + [0.0, e]) - c) / e
        j = np.stack([jx, jy], axis=2)
        return np.linalg.svd(j, compute_uv=False)[:, 0]

    def back_project(self, px_undistorted: np.ndarray, height_mm: float = 0.0) -> np.ndarray:
        """Undistorted pixels ``(N, 2)`` to world points ``(N, 3)`` mm on the plane ``height_mm``
        above the table (``z = -height_mm``); NaN where the ray runs away from that plane."""
        p = np.asarray(px_undistorted, np.float64).reshape(-1, 2)
        rays_cam = np.hstack([p, np.ones((len(p), 1))]) @ np.linalg.inv(self.K).T
        rays = rays_cam @ self.R            # R^T applied to each row
        c = self.center_mm
        with np.errstate(divide="ignore", invalid="ignore"):
            s = (-height_mm - c[2]) / rays[:, 2]
        s = np.where(s > 0, s, np.nan)
        return c + rays * s[:, None]

    def in_image(self, px: np.ndarray, margin: float = 0.0) -> np.ndarray:
        """Whether pixels ``(N, 2)`` lie inside the image shrunk by ``margin`` px, ``(N,) bool``
        (pixel centres span ``-0.5 .. W - 0.5``)."""
        p = np.asarray(px, np.float64).reshape(-1, 2)
        w, h = self.size
        with np.errstate(invalid="ignore"):
            return ((p[:, 0] >= -0.5 + margin) & (p[:, 0] <= w - 0.5 - margin)
                    & (p[:, 1] >= -0.5 + margin) & (p[:, 1] <= h - 0.5 - margin))


def look_at(size: tuple[int, int] = (1280, 720), fov_deg: float = 60.0, target_mm=(0.0, 0.0),
            distance_mm: float = 800.0, tilt_deg: float = 0.0, azimuth_deg: float = 0.0,
            roll_deg: float = 0.0, dist=NO_DISTORTION) -> Camera:
    """A camera aimed at a point of the table.

    Parameters
    ----------
    size : (W, H) px
    fov_deg : float
        Horizontal field of view, degrees.
    target_mm : (x, y) mm
        Table point on the optical axis (shows at the principal point).
    distance_mm : float
        From the camera centre to the target along the optical axis, mm (> 0). The height over
        the table is ``distance_mm * cos(tilt)``.
    tilt_deg : float
        Angle between the optical axis and the table's normal, degrees, in ``[0, 89]``; 0 looks
        straight down.
    azimuth_deg : float
        Where the camera stands around the target, degrees clockwise seen from above, 0 = on
        the south side (the mat's bottom edge, +y: a player's seat), 90 = west, 180 = north,
        270 = east. At tilt 0 it also turns the picture.
    roll_deg : float
        Rotation of the camera about its optical axis; the table appears turned by
        ``roll_deg`` clockwise on screen. Any angle.
    dist : 5 floats
        ``(k1, k2, p1, p2, k3)``.

    Returns
    -------
    Camera
        At tilt 0, azimuth 0, roll 0 the rotation is the identity: the mat appears upright
        (its north at the top of the picture).

    Raises
    ------
    ValueError
        For a tilt outside ``[0, 89]`` or a non-positive distance.

    >>> cam = look_at((640, 480), 60.0, (100.0, 50.0), 500.0)
    >>> cam.project([[100.0, 50.0]]).round(3).tolist()
    [[319.5, 239.5]]
    """
    if not 0.0 <= tilt_deg <= 89.0 or distance_mm <= 0:
        raise ValueError(f"tilt must be in [0, 89] degrees and distance > 0 (got {tilt_deg}, {distance_mm})")
    tilt, az, roll = (math.radians(a) for a in (tilt_deg, azimuth_deg, roll_deg))
    # Direction from the target toward the camera's foot in the table plane: (0, 1) = south,
    # turned clockwise on screen (x -> y) by the azimuth: south -> west -> north -> east.
    u_az = np.array([-math.sin(az), math.cos(az), 0.0])
    down = np.array([0.0, 0.0, 1.0])              # into the table
    target = np.array([target_mm[0], target_mm[1], 0.0])
    centre = target + distance_mm * (-math.cos(tilt) * down + math.sin(tilt) * u_az)
    z_cam = (target - centre) / distance_mm
    y_cam = u_az - np.dot(u_az, z_cam) * z_cam
    y_cam /= np.linalg.norm(y_cam)
    x_cam = np.cross(y_cam, z_cam)
    # Turn the camera's x/y axes by -roll about z: the scene then turns by +roll on screen.
    c, s = math.cos(-roll), math.sin(-roll)
    x_r, y_r = c * x_cam + s * y_cam, -s * x_cam + c * y_cam
    R = np.vstack([x_r, y_r, z_cam])
    t = -R @ centre
    return Camera(intrinsics(size, fov_deg), np.asarray(dist, np.float64), size, R, t)


def look_at_mat(outline_mm: np.ndarray, size: tuple[int, int] = (1280, 720), fov_deg: float = 60.0,
                tilt_deg: float = 0.0, azimuth_deg: float = 0.0, roll_deg: float = 0.0,
                distance_mm: float | None = None, height_mm: float | None = None, fill: float = 0.9,
                offset_mm=(0.0, 0.0), dist=NO_DISTORTION) -> Camera:
    """A camera aimed at the centre of a mat (plus an offset), framing it.

    Parameters
    ----------
    outline_mm : (4, 2) float
        The mat's corners in table mm (``MatLayout.outline_mm()`` for an unbumped mat).
    size, fov_deg, tilt_deg, azimuth_deg, roll_deg, dist
        As :func:`look_at`.
    distance_mm, height_mm : float or None
        Distance along the optical axis, or camera height over the table (``distance =
        height / cos(tilt)``); when both are None the distance is chosen so that the mat,
        seen through the undistorted pinhole, spans ``fill`` of the picture's width or height
        (whichever binds) around the principal point.
    fill : float
        In ``(0, 2]``; above 1 the mat overflows the picture.
    offset_mm : (dx, dy) mm
        Added to the aim point *after* fitting, so the same framing can be shifted until half
        the board is out of view (e.g. ``(width / 2, 0)``).

    Returns
    -------
    Camera

    Raises
    ------
    ValueError
        As :func:`look_at`, or for ``fill`` outside ``(0, 2]``.
    """
    if not 0.0 < fill <= 2.0:
        raise ValueError(f"fill must be in (0, 2], got {fill}")
    outline = np.asarray(outline_mm, np.float64).reshape(-1, 2)
    centre = outline.mean(axis=0)
    if height_mm is not None:
        distance_mm = height_mm / math.cos(math.radians(tilt_deg))
    if distance_mm is None:
        # dense outline: the rectangle's sides, 16 points each
        pts = np.concatenate([np.linspace(outline[i], outline[(i + 1) % len(outline)], 16, endpoint=False)
                              for i in range(len(outline))])
        d = 1000.0
        for _ in range(30):
            cam = look_at(size, fov_deg, centre, d, tilt_deg, azimuth_deg, roll_deg, NO_DISTORTION)
            p = cam.project_undistorted(pts) - cam.K[:2, 2]
            w, h = size
            ratio = max(np.max(np.abs(p[:, 0])) / (fill * w / 2.0), np.max(np.abs(p[:, 1])) / (fill * h / 2.0))
            if abs(ratio - 1.0) < 1e-6:
                break
            d *= ratio
        distance_mm = d
    target = centre + np.asarray(offset_mm, np.float64)
    return look_at(size, fov_deg, target, distance_mm, tilt_deg, azimuth_deg, roll_deg, dist)


def undistort_map(camera: Camera, stride: int = 4) -> np.ndarray:
    """For every distorted output pixel, the undistorted pixel it shows.

    Parameters
    ----------
    camera : Camera
    stride : int
        :meth:`Camera.undistort_pixels` (``cv2.undistortPoints``) runs on a grid every
        ``stride`` px and the map is bilinearly interpolated in between (the map is smooth:
        at stride 4 the largest error is about 0.006 px for :data:`WEBCAM_DISTORTION` at
        1280x720, and it takes 35 ms instead of 450 ms). ``stride=1`` computes every pixel.

    Returns
    -------
    (H, W, 2) float32
        ``map[y, x] = (x_u, y_u)``; the identity grid when there is no distortion. This is the
        inverse of what ``cv2.initUndistortRectifyMap`` gives, and what rendering a distorted
        image by ``cv2.remap`` needs.
    """
    w, h = camera.size
    if not camera.has_distortion or stride <= 1:
        xs, ys = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
        grid = np.stack([xs, ys], axis=2).reshape(-1, 2)
        und = camera.undistort_pixels(grid) if camera.has_distortion else grid
        return und.reshape(h, w, 2).astype(np.float32)
    s = int(stride)
    nx, ny = (w - 1) // s + 2, (h - 1) // s + 2
    xs, ys = np.meshgrid(np.arange(-1, nx + 1) * float(s), np.arange(-1, ny + 1) * float(s))
    coarse = camera.undistort_pixels(np.stack([xs, ys], axis=2).reshape(-1, 2))
    coarse = coarse.reshape(ny + 2, nx + 2, 2).astype(np.float32)
    gx, gy = np.meshgrid(np.arange(w, dtype=np.float32) / s + 1.0, np.arange(h, dtype=np.float32) / s + 1.0)
    return cv2.remap(coarse, gx, gy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def plane_pose(dx_mm: float = 0.0, dy_mm: float = 0.0, dtheta_deg: float = 0.0,
               pivot_mm=(0.0, 0.0)) -> np.ndarray:
    """Where a mat lies on the table: mat mm to table mm, ``(3, 3) float64``.

    A rotation by ``dtheta_deg`` (clockwise seen from above: x toward y) about ``pivot_mm``
    (mat mm, e.g. the mat's centre), then a shift by ``(dx_mm, dy_mm)``.

    >>> plane_pose(10, 0, 90, (0, 0)) @ [1.0, 0.0, 1.0]
    array([10.,  1.,  1.])
    """
    c, s = math.cos(math.radians(dtheta_deg)), math.sin(math.radians(dtheta_deg))
    px, py = pivot_mm
    rot = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    to_pivot = np.array([[1.0, 0.0, -px], [0.0, 1.0, -py], [0.0, 0.0, 1.0]])
    back = np.array([[1.0, 0.0, px + dx_mm], [0.0, 1.0, py + dy_mm], [0.0, 0.0, 1.0]])
    m = back @ rot @ to_pivot
    m[np.abs(m) < 1e-12] = 0.0
    return m


def apply_pose(pose: np.ndarray, points_mm: np.ndarray) -> np.ndarray:
    """Mat points ``(N, 2)`` or ``(N, 3)`` mm to table points of the same shape under a
    :func:`plane_pose` (z, the height, is kept)."""
    p = np.asarray(points_mm, np.float64)
    flat = p.reshape(-1, p.shape[-1])
    xy = flat[:, :2] @ pose[:2, :2].T + pose[:2, 2]
    out = np.hstack([xy, flat[:, 2:]]) if flat.shape[1] == 3 else xy
    return out.reshape(p.shape)
