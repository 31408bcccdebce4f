"""A demo sequence through the field reports' conditions, and a render-speed benchmark.

``python -m assistant.vision.render.demo OUT_DIR`` writes ``OUT_DIR/demo.avi`` and
``OUT_DIR/demo.jsonl`` (one ground-truth line per frame); ``--photos DIR`` draws the pieces from
the component photos in ``DIR`` (read at run time, never copied); ``--bench`` prints the time per
frame at 1280x720 and 1920x1080 instead.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from .camera import WEBCAM_DISTORTION, look_at_mat, plane_pose
from .desert import ProceduralArt, desert_setup, excavate, move_pawn, set_sand
from .hands import Arm, ArmStyle
from .lighting import COOL_CEILING, DAYLIGHT, POINT_LIGHT, WARM_LAMP
from .photos import ComponentImages
from .renderer import CameraSettings, Renderer
from .scene import Scene
from .sequence import Bump, Hold, MoveCamera, Reach, Sequence, SetBoard, SetCamera, SetLight, Sweep
from .video import write_sequence


def field_report_steps(scene: Scene, images=None, settings: CameraSettings = CameraSettings()) -> list:
    """Steps visiting the field reports (``/work/shared/field-reports.md``) in turn: a plain move,
    a 1 m/s sweep (F9), two quick compound moves (F6, F7), warm, cool and point light with glare
    on a marker (F3, F8), defocused markers (F1), a bump (F4), half the board out of view and the
    board lifted away (F5).

    Parameters
    ----------
    scene : Scene
        A :func:`~.desert.desert_setup` scene (the moves refer to its cells and pawns).
    images : picture source, optional
    settings : CameraSettings
        The normal settings, restored after the defocus.
    """
    images = images or ProceduralArt()
    crash = next(k for k, v in scene.contents().items() if v.label in ("back:crash_site", "tile:crash_site"))
    target = (1, 1) if crash != (1, 1) else (1, 3)
    after_first = scene
    for a in excavate(scene, target, images):
        after_first = a.apply(after_first)
    pawn = scene.talls[0].label.split(":", 1)[1]
    marker = scene.layout.markers[1].corners_mm[0]
    blurred = CameraSettings(settings.exposure_s, settings.auto_exposure, settings.max_exposure_s, settings.noise_sigma,
                             settings.shot_noise, defocus_px=2.5, jpeg_quality=settings.jpeg_quality)
    return [
        Hold(15),
        Reach(target, excavate(scene, target, images), dwell_frames=8),
        Hold(10),
        Sweep((-150.0, 260.0), (720.0, 200.0), speed_mm_s=1000.0, entry="bottom"),                     # F9
        Hold(8),
        Reach((3, 3), move_pawn(after_first, pawn, (3, 3)), dwell_frames=3, speed_mm_s=1400.0),         # F6/F7
        Reach((3, 4), set_sand(after_first, (3, 4), 2, images), dwell_frames=3, speed_mm_s=1400.0, entry="right"),
        Hold(10),
        SetLight(WARM_LAMP), Hold(12),                                                                   # F3
        SetLight(COOL_CEILING), Hold(12),
        SetLight(POINT_LIGHT.with_glare_at((marker[0] + 20.0, marker[1] + 20.0))), Hold(12),              # F8
        SetLight(DAYLIGHT), SetCamera(blurred), Hold(10), SetCamera(settings),                           # F1
        Bump(14.0, -9.0, 4.0, frames=3), Hold(12),                                                       # F4
        MoveCamera(dx_mm=320.0, frames=8), Hold(10), MoveCamera(dx_mm=-320.0, frames=8),                 # F5
        SetBoard(False), Hold(10), SetBoard(True), Hold(10),
    ]


def bench(sizes=((1280, 720), (1920, 1080)), frames: int = 20, out=sys.stdout) -> dict:
    """Mean milliseconds per frame for steady frames, frames with a moving arm, and frames where
    the scene changes (a tile turned over), at each size (camera tilted 25 degrees, webcam
    distortion, warm lamp, sensor noise)."""
    scene = desert_setup(0)
    turned = scene
    for a in excavate(scene, (1, 1)):
        turned = a.apply(turned)
    arm = Arm((300.0, 900.0, -300.0), (250.0, 250.0, -60.0), (1000.0, 0.0, 0.0), ArmStyle())
    results = {}
    for size in sizes:
        cam = look_at_mat(scene.layout.outline_mm(), size, 60.0, 25.0, 0.0, 5.0, dist=WEBCAM_DISTORTION)
        r = Renderer(cam)
        t = time.perf_counter()
        r.render(scene, lighting=WARM_LAMP)
        first = time.perf_counter() - t
        row = {"first": first * 1000}
        for name, kw in (("steady", {}), ("arm", {"arm": arm})):
            r.render(scene, lighting=WARM_LAMP, **kw)
            t = time.perf_counter()
            for i in range(frames):
                r.render(scene, lighting=WARM_LAMP, seed=i, **kw)
            row[name] = (time.perf_counter() - t) / frames * 1000
        t = time.perf_counter()
        for i in range(4):
            r.render(turned if i % 2 == 0 else scene, pose=plane_pose(i, 0, 0), lighting=WARM_LAMP, seed=i)
        row["scene_or_pose_change"] = (time.perf_counter() - t) / 4 * 1000
        results[size] = row
        print(f"{size[0]}x{size[1]}: " + ", ".join(f"{k} {v:.1f} ms" for k, v in row.items()), file=out)
    return results


def main(argv=None) -> int:
    """Command line: write the demo video and truth, or ``--bench``."""
    p = argparse.ArgumentParser(prog="python -m assistant.vision.render.demo", description=__doc__.split("\n")[0])
    p.add_argument("out", nargs="?", default="demo-out", help="output folder")
    p.add_argument("--size", default="1280x720")
    p.add_argument("--fps", type=float, default=30.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--tilt", type=float, default=25.0)
    p.add_argument("--photos", help="folder of component photos (e.g. ../shared/components/forbidden-desert)")
    p.add_argument("--mp4", action="store_true", help="write .mp4 (mp4v) instead of .avi (MJPG)")
    p.add_argument("--bench", action="store_true")
    a = p.parse_args(argv)
    if a.bench:
        bench()
        return 0
    w, h = (int(v) for v in a.size.lower().split("x"))
    images = ProceduralArt()
    if a.photos:
        images = ComponentImages(a.photos, trim=0.03, fallback=images)
        if not images.available:
            print(f"no folder {a.photos}", file=sys.stderr)
            return 2
    scene = desert_setup(a.seed, images=images)
    cam = look_at_mat(scene.layout.outline_mm(), (w, h), 60.0, a.tilt, 0.0, 4.0, dist=WEBCAM_DISTORTION)
    settings = CameraSettings(jpeg_quality=90)
    seq = Sequence(scene, cam, field_report_steps(scene, images, settings), DAYLIGHT, settings, a.fps, a.seed)
    out = Path(a.out)
    t = time.perf_counter()
    res = write_sequence(seq, out / ("demo.mp4" if a.mp4 else "demo.avi"), out / "demo.jsonl", a.fps)
    dt = time.perf_counter() - t
    print(f"{res.frames} frames ({res.frames / a.fps:.1f} s) -> {res.video} ({res.fourcc}), {res.truth}; "
          f"{dt / res.frames * 1000:.0f} ms per frame with truth and encoding")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
