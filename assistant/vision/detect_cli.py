"""``assistant detect IMAGE --game G --model M [--corners x,y,...] [--json]``: the per-slot
readings of one still image, so an owner can check a set-up and a test can score any image.

The mat is found by its corner markers (or by four clicked play-area corners); the frame is
undistorted first when ``--calibration`` is given. Each game's detector reads every slot:

- Forbidden Desert: a detector folder taught by ``assistant teach --game forbidden-desert
  --slot table`` (faces, sand, parts, storm card; pawns absolutely, as no earlier frame exists);
- Discovery Island: the printed kit's detector; ``--model`` is a folder written by
  :func:`~.kits.discovery_island_detect.save_model`, and without it the cached kit model (taught
  from the kit's own art on first use, :func:`~.kits.discovery_island_detect.load_or_teach`);
- Scout Pennant: the printed kit's detector reads the kit's known colours and shapes and needs no
  ``--model``.

Output: one line per slot, ``face C3: dune_back (confidence 0.98, margin 12.3)``, or with
``--json`` one object per line ``{"slot": [...], "label": ..., "confidence": ..., "margin": ...}``.
"""

from __future__ import annotations

import argparse
import json
import sys

import cv2
import numpy as np

from .calibration_io import Undistorter, load_calibration
from .commands import parse_corners
from .mats import MATS, mat_layout
from .registration import detect_markers, make_detector, manual_registration, register


def _homography(image: np.ndarray, game: str, corners) -> np.ndarray:
    layout = mat_layout(game)
    if corners is not None:
        return manual_registration(corners, layout).homography
    fit = register(detect_markers(image, make_detector()), layout)
    if not fit:
        raise ValueError(f"the {game} mat was not found: {fit.reason}; give --corners or print the mat")
    return fit.homography


def read_slots(image: np.ndarray, game: str, model: str | None, homography: np.ndarray, camera_matrix: np.ndarray) -> dict:
    """Every slot's reading for ``game`` (see the module docstring).

    Raises
    ------
    ValueError, OSError
        For an unknown game or a model that cannot be read.
    """
    if game == "forbidden-desert":
        from .detectors.forbidden_desert import FDDetector

        if not model:
            raise ValueError("Forbidden Desert needs --model: a folder written by "
                             "`assistant teach --game forbidden-desert --slot table`")
        return FDDetector.load(model).read(image, homography, camera_matrix, match_parts=True)
    if game == "discovery-island":
        from .kits.discovery_island_detect import detect_image as read_island, load_or_teach

        return read_island(image, homography, model or load_or_teach())
    if game == "scout-pennant":                      # the kit's detector reads the printed kit as drawn
        from .kits.scout_pennant_board import detect_image as read_pennant

        return read_pennant(image, homography)
    raise ValueError(f"no detector for {game!r}")


def _cmd_detect(args: argparse.Namespace) -> int:
    image = cv2.imread(args.image, cv2.IMREAD_COLOR)
    if image is None:
        print(f"{args.image}: not a readable image.", file=sys.stderr)
        return 2
    h, w = image.shape[:2]
    camera_matrix = np.array([[0.9 * w, 0, w / 2], [0, 0.9 * w, h / 2], [0, 0, 1.0]])
    try:
        if args.calibration:
            und = Undistorter.from_calibration(load_calibration(args.calibration))
            image, camera_matrix = und(image), und.new_camera_matrix
        homography = _homography(image, args.game, args.corners)
        readings = read_slots(image, args.game, args.model, homography, camera_matrix)
    except (OSError, ValueError) as exc:
        print(f"detect: {exc}", file=sys.stderr)
        return 2
    if not readings:
        print(f"detect: no {args.game} mat found in {args.image}: show its four corner markers, or give --corners.",
              file=sys.stderr)
        return 2
    for slot in sorted(readings, key=str):
        r = readings[slot]
        if args.json:
            print(json.dumps({"slot": [s if isinstance(s, (int, str)) else str(s) for s in slot], "label": r.label,
                              "confidence": round(float(r.confidence), 4), "margin": round(float(r.margin), 3)}))
        else:
            print(f"{' '.join(map(str, slot))}: {r.label or '-'} (confidence {r.confidence:.2f}, margin {r.margin:.1f})")
    return 0


def add_detect_command(subparsers) -> None:
    """Register ``assistant detect``."""
    p = subparsers.add_parser("detect", help="print the per-slot readings of one still image",
                              description="Find the mat, read every slot with the game's detector, print "
                                          "label, confidence and margin per slot.")
    p.add_argument("image")
    p.add_argument("--game", required=True, choices=sorted(MATS))
    p.add_argument("--model", help="the taught detector folder (Forbidden Desert: required; Discovery Island: "
                                   "default the cached kit model; Scout Pennant: not used)")
    p.add_argument("--corners", type=parse_corners, help="x,y of the play area's four corners (TL, TR, BR, BL)")
    p.add_argument("--calibration", help="camera calibration YAML (undistorts the image first)")
    p.add_argument("--json", action="store_true", help="one JSON object per slot")
    p.set_defaults(func=_cmd_detect)
