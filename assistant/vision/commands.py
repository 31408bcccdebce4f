"""Vision commands: ``assistant print mat``, ``assistant watch``.

``assistant watch SOURCE --grid RxC [--corners x,y,...] [--json]`` runs the idle path on any
rectangular grid and prints one line per stable change, so a user can check a table set-up
before playing. Without ``--corners`` the grid is laid over the play area of whichever game's
mat the corner markers name.
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from .calibration_io import Undistorter, load_calibration
from .mats import MATS, game_of_marker, grid_over, mat_layout
from .pipeline import BoardWatcher, manual_grid
from .printing import print_mat
from .registration import detect_markers, make_detector
from .sources import SourceError, open_source

FIND_MAT_FRAMES = 90


def parse_grid(text: str) -> tuple[int, int]:
    """``"5x5"`` -> ``(5, 5)`` (rows, cols).

    Raises
    ------
    argparse.ArgumentTypeError
        For anything but two positive integers joined by ``x``.
    """
    try:
        rows, cols = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--grid must look like 5x5 (rows x columns), got {text!r}")
    if rows < 1 or cols < 1:
        raise argparse.ArgumentTypeError("--grid needs at least one row and one column")
    return rows, cols


def parse_corners(text: str) -> np.ndarray:
    """``"x,y,x,y,x,y,x,y"`` -> ``(4, 2) float32`` pixels (top-left, top-right, bottom-right, bottom-left).

    Raises
    ------
    argparse.ArgumentTypeError
        Unless exactly eight numbers are given.
    """
    try:
        values = [float(v) for v in text.replace(" ", "").split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--corners must be 8 numbers x,y,... got {text!r}")
    if len(values) != 8:
        raise argparse.ArgumentTypeError(f"--corners needs 4 points (8 numbers), got {len(values)} numbers")
    return np.array(values, np.float32).reshape(4, 2)


def _find_mat(source, grid: tuple[int, int]):
    """Look at the first frames for a game's corner markers; returns (layout, frames read)."""
    detector = make_detector()
    frames = []
    for frame in source:
        frames.append(frame)
        ids = detect_markers(frame.image, detector)
        games = [g for g in (game_of_marker(i) for i in ids) if g]
        if games:
            game = max(set(games), key=games.count)
            return grid_over(mat_layout(game), *grid), frames
        if len(frames) >= FIND_MAT_FRAMES:
            break
    return None, frames


def _cmd_watch(args: argparse.Namespace) -> int:
    try:
        source = open_source(args.source, args.fps)
    except SourceError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    with source:
        if args.corners is not None:
            layout, pending = manual_grid(*args.grid, args.corners), []
        else:
            layout, pending = _find_mat(source, args.grid)
            if layout is None:
                print(f"no mat's corner markers were found in the first {len(pending)} frames; print one with "
                      "`assistant print mat --game G`, or give the grid's corners with --corners.", file=sys.stderr)
                return 2
        undistort = None
        if args.calibration:
            try:
                undistort = Undistorter.from_calibration(load_calibration(args.calibration))
            except (OSError, ValueError) as exc:
                print(f"cannot use the calibration {args.calibration}: {exc}", file=sys.stderr)
                return 2
        watcher = BoardWatcher(layout, source.fps, manual_corners=args.corners, undistort=undistort)
        last_status = None
        frames = iter(pending)
        while True:
            frame = next(frames, None) or source.read()
            if frame is None:
                break
            out = watcher.process(frame.image, frame.index, frame.t)
            event = out.gate.event if out.gate else None
            if args.json:
                if event is not None and (event.changed or event.unsure):
                    print(json.dumps(event.to_json()), flush=True)
                continue
            if out.track.bumped:
                print(f"frame {frame.index} ({frame.t:.2f} s): the board moved by {out.track.shift_px:.1f} px; "
                      "re-registered", flush=True)
            if out.status != last_status and out.status in ("board_not_found", "occluded"):
                print(f"frame {frame.index} ({frame.t:.2f} s): {out.status.replace('_', ' ')}", flush=True)
            last_status = out.status
            if event is not None:
                cells = " ".join("(" + ",".join(map(str, k)) + ")" for k in event.changed) or "nothing"
                notes = [n for n, on in (("light changed", event.light_change), ("after a bump", event.bumped)) if on]
                if event.unsure:
                    notes.append("unsure " + " ".join("(" + ",".join(map(str, k)) + ")" for k in event.unsure))
                extra = f" [{'; '.join(notes)}]" if notes else ""
                print(f"frame {event.frame} ({event.t:.2f} s): changed {cells}{extra}", flush=True)
        if not args.json and source.stopped:
            print(source.stopped)
    return 0


def _cmd_print_mat(args: argparse.Namespace) -> int:
    prefix = args.output or f"mat-{args.game}"
    try:
        files = print_mat(mat_layout(args.game), prefix, args.paper, args.dpi)
    except OSError as exc:
        print(f"cannot write {prefix}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    layout = mat_layout(args.game)
    print(f"wrote {', '.join(map(str, files))}: the {args.game} mat, {layout.size_mm[0]:.0f} x {layout.size_mm[1]:.0f} mm; "
          "print at 100 % (actual size) and check that the ruler measures 100 mm")
    return 0


def add_commands(subparsers, print_parsers) -> None:
    """Register ``watch`` on ``subparsers`` and ``mat`` on the ``print`` sub-parsers."""
    mat = print_parsers.add_parser("mat", help="a game's play mat at true size (PNG, and PDF tiled on A4/Letter)")
    mat.add_argument("--game", required=True, choices=sorted(MATS))
    mat.add_argument("-o", "--output", help="file prefix (default mat-GAME)")
    mat.add_argument("--paper", choices=["a4", "letter"], default="a4")
    mat.add_argument("--dpi", type=float, default=200.0)
    mat.set_defaults(func=_cmd_print_mat)
    watch = subparsers.add_parser("watch", help="print the stable changes of a grid seen by a camera",
                                  description="Run registration, rectification and the motion gate on SOURCE "
                                              "(camera index, video file, image folder or stream URL) and print "
                                              "one line per stable change.")
    watch.add_argument("source")
    watch.add_argument("--grid", type=parse_grid, required=True, help="rows x columns, e.g. 5x5")
    watch.add_argument("--corners", type=parse_corners,
                       help="x,y of the grid's top-left, top-right, bottom-right, bottom-left corners (pixels)")
    watch.add_argument("--calibration", help="camera calibration YAML from `assistant calibrate camera` (undistorts frames)")
    watch.add_argument("--fps", type=float,
                       help="frames per second of an image folder (default 30) or a video file (default: its own); "
                            "a camera's is measured")
    watch.add_argument("--json", action="store_true",
                       help='one JSON line per stable change: {"frame": N, "t": s, "changed": [[row, col], ...]}, '
                            'with "unsure": [[row, col], ...] when some cells are')
    watch.set_defaults(func=_cmd_watch)
