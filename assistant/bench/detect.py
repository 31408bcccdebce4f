"""``assistant bench detect``: per-game detection and tracking figures.

Each game's section lives in its own module (``detect_forbidden_desert``,
``detect_discovery_island``, ``detect_scout_pennant``) with ``run_section(seconds, seed)``.
"""

from __future__ import annotations

import importlib

import cv2

SECTIONS = (("Forbidden Desert", "assistant.bench.detect_forbidden_desert"),
            ("Discovery Island", "assistant.bench.detect_discovery_island"),
            ("Scout Pennant", "assistant.bench.detect_scout_pennant"))


def run(seconds: float = 5.0, seed: int = 1, figures=None) -> int:
    """Run every game's detection benchmark; returns 0. ``figures`` (a
    :class:`~.figures.Figures`, optional) collects the readings and latencies."""
    cv2.setNumThreads(1)
    print("# assistant bench detect  (rendered scenes; OpenCV on one thread)")
    for title, module in SECTIONS:
        print(f"\n## {title}", flush=True)
        try:
            section = importlib.import_module(module)
        except ImportError as exc:
            print(f"not available: {exc}")
            continue
        for line in section.run_section(seconds, seed, figures):
            print(line, flush=True)
    return 0
