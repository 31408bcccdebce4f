"""Printable game kits (piece art, kit sheets) and their detectors, one module group per game.

Forbidden Desert is played with the owner's real pieces and needs no kit; Discovery Island's tiles
are not public and Scout Pennant has no commercial pieces, so both ship an original kit here.
"""

from __future__ import annotations

import argparse
import importlib
from typing import Any

#: game id -> the module whose ``print_kit_command(args)`` writes that game's kit.
KIT_MODULES = {"discovery-island": "assistant.vision.kits.discovery_island",
               "scout-pennant": "assistant.vision.kits.scout_pennant"}


def _dpi(text: str) -> float:
    """argparse type: a resolution in dots per inch between 50 and 1200."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 50.0 <= value <= 1200.0:
        raise argparse.ArgumentTypeError(f"{text} dpi is outside 50-1200")
    return value


def _print_kit(args: Any) -> int:
    """Dispatch ``assistant print kit --game G`` to the game's kit module; returns its exit status."""
    return importlib.import_module(KIT_MODULES[args.game]).print_kit_command(args)


def add_print_kit(print_parsers: Any) -> None:
    """Register ``assistant print kit --game G [-o PREFIX] [--paper a4|letter] [--dpi N]``."""
    kit = print_parsers.add_parser("kit", help="a game's printable piece kit at true size (PDF and PNG)",
                                   description="Write the game's original printable kit; print at 100 % "
                                               "and check the ruler on the sheet measures 100 mm.")
    kit.add_argument("--game", required=True, choices=sorted(KIT_MODULES))
    kit.add_argument("-o", "--output", help="file prefix (default kit-GAME)")
    kit.add_argument("--paper", choices=["a4", "letter"], default="a4")
    kit.add_argument("--dpi", type=_dpi, default=200.0, help="resolution of the PNG and the PDF pages")
    kit.set_defaults(func=_print_kit)
