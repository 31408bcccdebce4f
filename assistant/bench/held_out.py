"""Kit detectors measured on pictures made differently from their teaching pictures.

The stills come from :mod:`.kit_photos` (another scene composition, camera, lens, light and
webcam pipeline than :mod:`assistant.vision.render`, which taught and tuned the detectors),
``normal`` and ``stress`` sets of its own ranges; each is read as ``assistant detect`` reads a
photograph: the mat found by its own markers (never the renderer's pose), every slot read. The
seeds start at :data:`SEED_BASE`: stills of seeds below 10,000 were looked at while the readers
were built and are never measured here.

Counted per slot kind: readings, wrong labels (sure or not: the figure checked against the
target), wrong with confidence >= 0.9 (confidently wrong), wrong and sure (what the tracker
would commit), and right but unsure (questions); a board whose markers do not register counts
every slot as wrong (``unread``), with the reason ``assistant detect`` gives.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import numpy as np

SEED_BASE = 2_000_000
STILLS = 16                      #: stills per set (as the outside check: 16 normal, 16 stress per game)
TARGET = {"normal": 0.001, "stress": 0.005}
CONFIDENT = 0.9
CONFIDENT_TARGET = 0.0005


@dataclass
class KindStats:
    """Counts of one slot kind in one set."""

    n: int = 0
    wrong: int = 0
    confident: int = 0
    sure_wrong: int = 0
    unsure: int = 0
    confusion: Counter = field(default_factory=Counter)


def measure(read: Callable[[np.ndarray], tuple[Mapping[tuple, object] | None, str]],
            still: Callable[[int, str], tuple[np.ndarray, Mapping[tuple, str]]], which: str, count: int, seed: int,
            figures=None, game: str = "") -> tuple[dict[str, KindStats], list[str]]:
    """Read ``count`` stills of set ``which`` and count per slot kind.

    Parameters
    ----------
    read : callable
        ``read(image) -> (readings or None, reason)``: slot -> Reading, or None and why the
        board was not found.
    still : callable
        ``still(seed, which) -> (image, truth)``, truth slot -> label.
    which : str
        ``normal`` or ``stress``.
    count, seed : int
        Stills ``seed .. seed + count - 1``.
    figures : Figures, optional
        Collects every reading (:class:`~.figures.Figures`).
    game : str

    Returns
    -------
    (dict kind -> KindStats, list of str)
        The counts, and one line per board not found (``seed: reason``).
    """
    stats: dict[str, KindStats] = defaultdict(KindStats)
    missed = []
    for s in range(seed, seed + count):
        image, truth = still(s, which)
        readings, reason = read(image)
        for slot, want in truth.items():
            st = stats[slot[0]]
            st.n += 1
            r = None if readings is None else readings.get(slot)
            got = "unread" if r is None else r.label
            if figures is not None:
                figures.reading(game, f"held-out {which}", slot[0], want, got)
            if r is None or got != want:
                st.wrong += 1
                st.confusion[(want, got)] += 1
                if r is not None:
                    st.confident += r.confidence >= CONFIDENT
                    st.sure_wrong += r.sure
            elif not r.sure:
                st.unsure += 1
        if readings is None:
            missed.append(f"{s}: {reason}")
    return dict(stats), missed


def report(title: str, kinds: Sequence[str], read, still, count: int = STILLS, seed: int = 0, figures=None,
           game: str = "") -> list[str]:
    """Printable lines of :func:`measure` for the ``normal`` and ``stress`` sets."""
    from .kit_photos import NORMAL, STRESS

    lines = [f"{title}: held-out photographs (assistant.bench.kit_photos: print and cut, another camera, lens, "
             f"light and webcam pipeline than the teaching renders; seeds from {SEED_BASE + seed}; read as "
             "`assistant detect` reads a photo, the mat found by its own markers)"]
    for which, ranges in (("normal", NORMAL), ("stress", STRESS)):
        stats, missed = measure(read, still, which, count, SEED_BASE + seed + (0 if which == "normal" else 50_000),
                                figures, game)
        lines.append(f"  {which} ({count} stills; {_ranges(ranges)}); boards not found {len(missed)}; "
                     f"target <= {TARGET[which]:.1%} wrong, confidently wrong (>= {CONFIDENT}) <= {CONFIDENT_TARGET:.2%}:")
        for kind in kinds:
            st = stats.get(kind, KindStats())
            rate = st.wrong / max(st.n, 1)
            conf = st.confident / max(st.n, 1)
            verdict = "met" if rate <= TARGET[which] and conf <= CONFIDENT_TARGET else "MISSED"
            lines.append(f"    {kind:<7}: {st.n} readings, wrong {st.wrong} = {rate:.2%} ({verdict}), confidently wrong "
                         f"{st.confident} = {conf:.3%}, wrong and sure {st.sure_wrong}, right but unsure "
                         f"{st.unsure / max(st.n, 1):.1%}")
            if st.confusion:
                pairs = ", ".join(f"{t} -> {r}: {n}" for (t, r), n in st.confusion.most_common(6))
                lines.append(f"      confusion (true -> read: count): {pairs}")
        lines += [f"    not found: {m}" for m in missed]
    return lines


def _ranges(r: dict) -> str:
    keys = ("px_per_hex", "tilt_deg", "defocus_px", "shake_px", "jpeg", "ambient_kelvin", "gloss")
    return ", ".join(f"{k} {r[k][0]:g}-{r[k][1]:g}" for k in keys)
