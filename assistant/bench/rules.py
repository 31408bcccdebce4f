"""``assistant bench rules``: the rules engines of all three games.

Each game's section lives in its own module (``forbidden_desert``, ``discovery_island``,
``scout_pennant``) with a ``run_section(seconds, seed) -> list[str]`` function; this module
prints them one after another under a common heading.
"""

from __future__ import annotations

import importlib
import platform

SECTIONS = (("Forbidden Desert", "assistant.bench.forbidden_desert"),
            ("Discovery Island", "assistant.bench.discovery_island"),
            ("Scout Pennant", "assistant.bench.scout_pennant"))


def run(seconds: float = 5.0, seed: int = 1) -> int:
    """Run every game's rules benchmark, ``seconds`` per throughput run; returns 0."""
    print(f"# assistant bench rules  (Python {platform.python_version()}, {platform.machine()}, one core)")
    for title, module in SECTIONS:
        print(f"\n## {title}")
        for line in importlib.import_module(module).run_section(seconds, seed):
            print(line)
    return 0
