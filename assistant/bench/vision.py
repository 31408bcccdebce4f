"""``assistant bench vision``: the idle path's speed, registration accuracy, memory over a long run.

Figures printed (all on rendered frames from :mod:`assistant.vision.render`, OpenCV limited to
one thread):

- idle path (JPEG decode -> registration -> rectification -> motion gate) in frames per
  second at 1280x720 and 1920x1080 (targets: 60 and 30 fps);
- registration accuracy: mean corner error of the rectified grid at 100 px per cell, over
  tilts 0-35 degrees and in-plane rotations all round (target: <= 1 px), per game mat, and
  under daylight, a warm lamp, a cool ceiling light and a point light (field report F3);
- memory: resident set size over 10,000 frames of the idle path (peak RSS, and growth
  between frame 1,000 and the end);
- the motion gate on real footage (the Go sequences and the chess photographs beside the
  repository, when present) and its latency on rendered moves (:mod:`.gate`).
"""

from __future__ import annotations

import resource
import statistics
import time

import cv2
import numpy as np

from ..vision.mats import mat_layout
from ..vision.pipeline import BoardWatcher
from ..vision.registration import detect_markers, make_detector, register
from ..vision.render.camera import look_at_mat
from ..vision.render.desert import desert_setup
from ..vision.render.lighting import COOL_CEILING, DAYLIGHT, POINT_LIGHT, WARM_LAMP
from ..vision.render.renderer import CameraSettings, Renderer
from ..vision.render.scene import Scene

NO_DISTORTION = (0.0, 0.0, 0.0, 0.0, 0.0)
GAMES = ("forbidden-desert", "discovery-island", "scout-pennant")


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def _frames(size, count: int = 30, seed: int = 0) -> list[bytes]:
    """JPEG-encoded frames of a still Forbidden Desert table with sensor noise."""
    scene = desert_setup(seed)
    cam = look_at_mat(scene.layout.outline_mm(), size, 60.0, 20.0, 0.0, 4.0, dist=NO_DISTORTION)
    r = Renderer(cam)
    out = []
    for i in range(count):
        img = r.render(scene, lighting=DAYLIGHT, seed=i).image
        out.append(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes())
    return out


def idle_fps(size, seconds: float) -> tuple[float, float, float]:
    """Frames per second of the idle path at ``size``; also mean decode and process ms."""
    frames = [np.frombuffer(b, np.uint8) for b in _frames(size)]
    watcher = BoardWatcher(mat_layout("forbidden-desert"), 30.0)
    n, decode, process = 0, 0.0, 0.0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds or n < 60:
        t0 = time.perf_counter()
        img = cv2.imdecode(frames[n % len(frames)], cv2.IMREAD_COLOR)
        t1 = time.perf_counter()
        watcher.process(img, n, n / 30.0)
        t2 = time.perf_counter()
        decode += t1 - t0
        process += t2 - t1
        n += 1
    elapsed = time.perf_counter() - start
    return n / elapsed, decode / n * 1000, process / n * 1000


def corner_error(layout, h_true: np.ndarray, h_est: np.ndarray, px_per_cell: float = 100.0) -> float:
    """Mean distance between the grid corners rectified with ``h_est`` and their true place, in
    pixels of a rectification at ``px_per_cell`` per cell."""
    pts = np.array([p for c in layout.cells for p in c.polygon_mm], np.float64).reshape(-1, 1, 2)
    img = cv2.perspectiveTransform(pts, h_true)
    back = cv2.perspectiveTransform(img, np.linalg.inv(h_est)).reshape(-1, 2)
    return float(np.mean(np.linalg.norm(back - pts.reshape(-1, 2), axis=1)) * px_per_cell / layout.cell_pitch_mm)


def registration_accuracy(game: str, lighting=DAYLIGHT, tilts=range(0, 36, 7), rolls=range(0, 360, 45),
                          size=(1280, 720)) -> tuple[list[float], int]:
    """Corner errors over tilts x rolls (views where registration failed are counted apart)."""
    layout = mat_layout(game)
    scene = Scene(layout) if game != "forbidden-desert" else desert_setup(0)
    detector = make_detector()
    errors, failures = [], 0
    for tilt in tilts:
        for roll in rolls:
            cam = look_at_mat(layout.outline_mm(), size, 60.0, float(tilt), 0.0, float(roll), dist=NO_DISTORTION)
            image = Renderer(cam).render(scene, lighting=lighting, settings=CameraSettings(), seed=tilt * 1000 + roll).image
            fit = register(detect_markers(image, detector), layout)
            if not fit:
                failures += 1
                continue
            errors.append(corner_error(layout, cam.homography(), fit.homography))
    return errors, failures


def memory_run(frames: int = 10_000, size=(1280, 720)) -> tuple[float, float, float]:
    """RSS (MB) after 1,000 frames and at the end of ``frames``, and the peak RSS (MB)."""
    encoded = [np.frombuffer(b, np.uint8) for b in _frames(size)]
    watcher = BoardWatcher(mat_layout("forbidden-desert"), 30.0)
    at_1000 = float("nan")
    for i in range(frames):
        watcher.process(cv2.imdecode(encoded[i % len(encoded)], cv2.IMREAD_COLOR), i, i / 30.0)
        if i == 999:
            at_1000 = _rss_mb()
    return at_1000, _rss_mb(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def run(seconds: float = 5.0, seed: int = 1, figures=None) -> int:
    """Print the vision benchmark; returns 0. ``figures`` (:class:`~.figures.Figures`) collects
    the idle path's frames per second when given."""
    cv2.setNumThreads(1)
    print("# assistant bench vision  (OpenCV on one thread, rendered frames)")
    for size, target in (((1280, 720), 60.0), ((1920, 1080), 30.0)):
        fps, dec, proc = idle_fps(size, seconds)
        verdict = "met" if fps >= target else "MISSED"
        if figures is not None:
            figures.fps[f"{size[0]}x{size[1]}"] = (fps, target)
        print(f"idle path {size[0]}x{size[1]}: {fps:.0f} fps (decode {dec:.1f} ms + registration/rectification/"
              f"gate {proc:.1f} ms per frame; target >= {target:.0f} fps: {verdict})")
    print("registration, mean corner error of the rectified grid at 100 px per cell "
          "(tilt 0-35 deg, roll 0-315 deg, 1280x720):")
    worst = 0.0
    for game in GAMES:
        errors, failures = registration_accuracy(game)
        worst = max(worst, max(errors))
        print(f"  {game}: {len(errors)} views, mean {statistics.mean(errors):.3f} px, max {max(errors):.3f} px, "
              f"{failures} views without 3 markers")
    for name, light in (("daylight", DAYLIGHT), ("warm lamp", WARM_LAMP), ("cool ceiling", COOL_CEILING),
                        ("point light", POINT_LIGHT)):
        errors, failures = registration_accuracy("forbidden-desert", light, tilts=(0, 15, 30), rolls=range(0, 360, 45))
        if errors:
            worst = max(worst, max(errors))
        print(f"  forbidden-desert under {name}: {len(errors)} views, mean {statistics.mean(errors):.3f} px, "
              f"max {max(errors):.3f} px, {failures} failed")
    print(f"  worst view: {worst:.3f} px (target <= 1 px per view mean: {'met' if worst <= 1.0 else 'MISSED'})")
    from .gate import run as gate_figures

    gate_figures()
    at_1000, end, peak = memory_run()
    print(f"memory over 10,000 frames at 1280x720: RSS {at_1000:.0f} MB after 1,000 frames, {end:.0f} MB at the end "
          f"(growth {end - at_1000:+.1f} MB), peak {peak:.0f} MB")
    return 0
