"""Benchmarks (``assistant bench WHAT``): each prints its figures and returns an exit status.

Benchmarks measure; they do not pass or fail on timing. Where an issue names a target, the
benchmark prints it beside the measurement.
"""

from __future__ import annotations

import importlib

#: benchmark name -> module with a ``run(seconds, seed) -> int`` function
BENCHMARKS = {"rules": "assistant.bench.rules", "vision": "assistant.bench.vision", "detect": "assistant.bench.detect",
              "serve": "assistant.bench.serve", "secrets": "assistant.bench.secrecy",
              "setup": "assistant.bench.desert_setup"}


def run_bench(what: str, seconds: float | None = None, seed: int = 1) -> int:
    """Run the benchmark ``what`` and return its exit status (0 when it ran). ``seconds`` is
    its time budget; ``None`` is the benchmark's own default.

    Raises
    ------
    KeyError
        When ``what`` is not a known benchmark.
    """
    module = importlib.import_module(BENCHMARKS[what])
    if seconds is None:
        return module.run(seed=seed)
    return module.run(seconds=seconds, seed=seed)
