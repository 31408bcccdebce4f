"""Commands ``assistant print charuco`` and ``assistant calibrate camera``.

Register them from :mod:`assistant.cli`::

    from .vision.calibration_cli import add_calibrate_command, add_print_command
    add_print_command(print_parsers)     # the sub-parsers of ``assistant print``
    add_calibrate_command(sub)           # the top-level sub-parsers

OpenCV is imported only when a command runs, so ``assistant check`` starts as fast as before.
Exit status: 0 done, 2 refused or bad input, with one sentence on standard error.
"""

from __future__ import annotations

import argparse
import glob
import math
import re
import sys
import time
from pathlib import Path
from typing import Iterator

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp", ".pgm", ".ppm")
DEFAULT_OUTPUT = "calibration/camera.yaml"
EXIT_REFUSED = 2


def add_print_command(print_parsers) -> None:
    """Register ``charuco`` on the sub-parsers of ``assistant print``."""
    charuco = print_parsers.add_parser(
        "charuco", help="the camera-calibration board at true size (PNG and PDF)",
        description="Write PREFIX.png and PREFIX.pdf: the ChArUco board (5 x 7 squares of 30 mm, 22 mm "
                    "DICT_5X5_100 markers) on one A4 or Letter page with a 100 mm check ruler. Print at "
                    "100 % (actual size) and check that the ruler measures 100 mm.")
    charuco.add_argument("-o", "--output", default="charuco", help="file prefix (default: charuco)")
    charuco.add_argument("--paper", choices=["a4", "letter"], default="a4", help="sheet size (default: a4)")
    charuco.add_argument("--dpi", type=float, default=300.0, help="raster resolution (default: 300)")
    charuco.set_defaults(func=cmd_print_charuco)


def add_calibrate_command(subparsers) -> None:
    """Register ``calibrate`` (with its ``camera`` sub-command) on the top-level sub-parsers."""
    calibrate = subparsers.add_parser("calibrate", help="calibrate the camera (focal length, lens distortion)")
    what = calibrate.add_subparsers(dest="calibrate_what", required=True)
    camera = what.add_parser(
        "camera", help="intrinsics and distortion from views of the printed ChArUco board",
        description="Find the board (assistant print charuco) in each view, print which views were used and "
                    "why the others were rejected, calibrate, and write OpenCV FileStorage YAML. Exit 0 "
                    "written, 2 refused (too few, too similar or too tilted views) or bad input.")
    source = camera.add_mutually_exclusive_group(required=True)
    source.add_argument("--images", metavar="GLOB_OR_DIR",
                        help="a folder of images, or a glob such as 'shots/*.jpg' (quote it)")
    source.add_argument("--source", metavar="S", help="camera index (0, 1, ...) or video file to grab views from")
    camera.add_argument("-o", "--output", default=DEFAULT_OUTPUT, help=f"YAML to write (default: {DEFAULT_OUTPUT})")
    camera.add_argument("--max-views", type=int, default=30, help="views to grab from --source (default: 30)")
    camera.add_argument("--seconds", type=float, default=120.0,
                        help="stop grabbing from a camera after this long (default: 120)")
    camera.add_argument("--save-views", metavar="DIR",
                        help="also write the grabbed views there as PNG, to re-run with --images")
    camera.add_argument("--fix-k3", action="store_true", help="keep k3 at 0 (few views, mild lens)")
    camera.set_defaults(func=cmd_calibrate_camera)


def cmd_print_charuco(args: argparse.Namespace) -> int:
    """``assistant print charuco``: write the board page; 0 done, 2 when it cannot be written."""
    from .charuco import DEFAULT_BOARD, render_page, write_page

    try:
        page = render_page(DEFAULT_BOARD, args.paper, args.dpi)
        png, pdf = write_page(page, args.output)
    except ValueError as exc:
        print(f"cannot draw the board: {exc}.", file=sys.stderr)
        return EXIT_REFUSED
    except OSError as exc:
        print(f"cannot write {args.output}: {exc.strerror or exc}.", file=sys.stderr)
        return EXIT_REFUSED
    paper = {"a4": "A4", "letter": "Letter"}[args.paper]
    print(f"wrote {png} and {pdf}: {DEFAULT_BOARD.describe()} on {paper} at {args.dpi:g} dpi; "
          f"print at 100 % (actual size) and check that the ruler measures 100 mm")
    return 0


def image_paths(spec: str) -> list[Path]:
    """The image files a ``--images`` value names, sorted.

    Takes a folder (every file with a suffix in :data:`IMAGE_SUFFIXES`, not recursive) or a
    glob pattern (``shots/*.png``, ``**`` allowed); returns the paths in natural order
    (``shot2`` before ``shot10``), an empty list when nothing matches.
    """
    path = Path(spec)
    if path.is_dir():
        found = [p for p in path.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES]
    else:
        found = [Path(p) for p in glob.glob(spec, recursive=True) if Path(p).is_file()]
    return sorted(found, key=_natural_key)


def _natural_key(path: Path) -> list:
    """Sort key reading digit runs as numbers: ``shot2.png`` before ``shot10.png``."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", str(path))]


def grab_views(source: str | int, *, max_views: int = 30, min_move: float = 0.05, min_turn_deg: float = 10.0,
               max_motion: float | None = 0.01, seconds: float | None = None, min_corners: int = 6, board=None,
               on_keep=None):
    """Grab well-spread views of the board from a camera or a video file.

    Parameters
    ----------
    source : int or str
        Camera index (``0`` or ``"0"``) or a video file, opened with ``cv2.VideoCapture``.
    max_views : int
        Stop after keeping this many views.
    min_move, min_turn_deg : float
        A frame is kept only when, against every kept view, its corners moved at least
        ``min_move`` x the image diagonal (:func:`~assistant.vision.calibration_geometry.view_difference`;
        0.05 is 73 px at 1280x720) or the board turned at least ``min_turn_deg`` degrees
        (:func:`~assistant.vision.calibration_geometry.rough_pose`), so a board held still gives one
        view, not thirty.
    max_motion : float or None
        A frame is kept only when the board moved at most this fraction of the diagonal since the
        previous frame (0.01: 15 px at 1280x720), so views are taken while the board is held
        nearly still, not blurred in mid-sweep; None keeps moving frames too.
    seconds : float, optional
        Stop after this long (for a camera; a video stops at its end).
    min_corners : int
        Frames with fewer ChArUco corners are skipped.
    board : CharucoSpec, optional
        Default :data:`~assistant.vision.charuco.DEFAULT_BOARD`.
    on_keep : callable, optional
        Called as ``on_keep(name, detection, frame)`` for each kept view (progress, saving).

    Returns
    -------
    list of (name, BoardDetection)
        ``name`` is ``"frame N"`` (0-based frame number), in the order kept.

    Raises
    ------
    OSError
        When the source cannot be opened.
    """
    import cv2

    from .calibration_detect import detect_board
    from .calibration_geometry import rotation_difference_deg, rough_pose
    from .charuco import DEFAULT_BOARD

    board = board or DEFAULT_BOARD
    if isinstance(source, str) and source.strip().isdigit():
        source = int(source)
    capture = cv2.VideoCapture(source)
    if not capture.isOpened():
        raise OSError(f"cannot open the camera or video {source!r}")
    kept: list = []
    turns: list = []  # rough rotation of each kept view
    previous = None  # the last frame's detection, to tell a still board from a moving one
    start = time.monotonic()
    try:
        for index, frame in enumerate(_frames(capture)):
            if len(kept) >= max_views or (seconds is not None and time.monotonic() - start > seconds):
                break
            detection = detect_board(frame, board)
            last, previous = previous, detection
            if detection.ids.size < min_corners:
                continue
            diagonal = math.hypot(*detection.image_size)
            if max_motion is not None and (last is None or _moved(detection, last) > max_motion * diagonal):
                continue
            rvec, _ = rough_pose(detection, board)
            if all(_moved(detection, other) >= min_move * diagonal
                   or rotation_difference_deg(rvec, other_rvec) >= min_turn_deg
                   for (_, other), other_rvec in zip(kept, turns)):
                name = f"frame {index}"
                kept.append((name, detection))
                turns.append(rvec)
                if on_keep is not None:
                    on_keep(name, detection, frame)
    finally:
        capture.release()
    return kept


def _moved(a, b) -> float:
    from .calibration_geometry import view_difference

    return view_difference(a, b) if a.image_size == b.image_size else math.inf


def _frames(capture) -> Iterator:
    """Frames of an open ``cv2.VideoCapture`` until it ends."""
    while True:
        ok, frame = capture.read()
        if not ok or frame is None:
            return
        yield frame


def cmd_calibrate_camera(args: argparse.Namespace) -> int:
    """``assistant calibrate camera``: 0 when the YAML is written, 2 when refused or the input is bad."""
    import cv2

    from .calibration import CalibrationLimits, calibrate_detections
    from .calibration_detect import detect_board
    from .calibration_io import save_calibration
    from .charuco import DEFAULT_BOARD

    board = DEFAULT_BOARD
    limits = CalibrationLimits(fix_k3=args.fix_k3)
    names: list[str] = []
    detections = []
    if args.images is not None:
        paths = image_paths(args.images)
        if not paths:
            print(f"no images match {args.images!r}.", file=sys.stderr)
            return EXIT_REFUSED
        print(f"reading {len(paths)} images; looking for the {board.describe()}")
        for path in paths:
            image = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
            if image is None:
                print(f"{path.name}: skipped, not a readable image")
                continue
            names.append(path.name)
            detections.append(detect_board(image, board))
        if not detections:
            print(f"none of the {len(paths)} files matching {args.images!r} is a readable image.", file=sys.stderr)
            return EXIT_REFUSED
    else:
        save_dir = Path(args.save_views) if args.save_views else None
        if save_dir is not None:
            try:
                save_dir.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                print(f"cannot create {save_dir}: {exc.strerror or exc}.", file=sys.stderr)
                return EXIT_REFUSED

        def keep(name, detection, frame):
            names.append(name)
            detections.append(detection)
            print(f"{name}: kept ({len(names)}/{args.max_views}), {detection.ids.size} corners", flush=True)
            if save_dir is not None:
                cv2.imwrite(str(save_dir / f"{name.replace(' ', '-')}.png"), frame)

        print(f"grabbing up to {args.max_views} views from {args.source}: hold the board still in each pose, tilted "
              f"15-45 deg, all over the picture, corners included (Ctrl-C stops early)", flush=True)
        try:
            grab_views(args.source, max_views=args.max_views, seconds=args.seconds, board=board, on_keep=keep)
        except OSError as exc:
            print(f"{exc}.", file=sys.stderr)
            return EXIT_REFUSED
        except KeyboardInterrupt:
            print(f"stopped; calibrating with the {len(detections)} views kept", flush=True)
        if not detections:
            print(f"no still view of the board was seen in {args.source}: print it with `assistant print charuco` "
                  f"and hold it still for a moment in each pose.", file=sys.stderr)
            return EXIT_REFUSED

    result = calibrate_detections(detections, board, names=names, limits=limits)
    for view in result.views:
        print(view.line())
    if not result:
        print(result.message, file=sys.stderr)
        return EXIT_REFUSED
    print(result.summary())
    try:
        path = save_calibration(result, args.output)
    except OSError as exc:
        print(f"cannot write {args.output}: {exc.strerror or exc}.", file=sys.stderr)
        return EXIT_REFUSED
    print(f"wrote {path}")
    return 0
