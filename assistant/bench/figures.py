"""What the benchmarks measure, kept for ``assistant bench report`` to plot.

A benchmark that is given a :class:`Figures` (its ``figures`` argument) adds to it as it
measures; given ``None`` it only prints. Nothing is global: the report makes one and passes it
down.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field


@dataclass
class Figures:
    """Measurements by kind.

    Attributes
    ----------
    confusion : dict (game, condition, slot kind) -> Counter of (true label, read label) -> n
        Every reading of the per-slot benchmarks, right ones included (the diagonal).
    latency : dict game -> list of float
        Seconds from the last frame with an arm over the board to the commit, per committed move.
    fps : dict str -> (float, float)
        Frame size (``"1280x720"``) -> (frames per second of the idle path, its target).
    """

    confusion: dict[tuple[str, str, str], Counter] = field(default_factory=lambda: defaultdict(Counter))
    latency: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    fps: dict[str, tuple[float, float]] = field(default_factory=dict)

    def reading(self, game: str, condition: str, kind: str, truth: str, read: str) -> None:
        """Count one slot reading (labels as the detectors give them)."""
        self.confusion[(game, condition, kind)][(truth, read)] += 1

    def latencies(self, game: str, seconds: list[float]) -> None:
        """Add committed moves' latencies (s) of ``game``."""
        self.latency[game].extend(float(s) for s in seconds)
