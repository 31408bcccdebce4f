"""``assistant bench report``: every benchmark, then a Markdown report with plots.

The benchmarks run in turn (``rules``, ``vision``, ``detect``, ``serve``, ``secrets``; about 26 minutes on
two cores, most of it teaching and reading Forbidden Desert); what each prints goes to the
terminal and into the report, and what they measure (:class:`~.figures.Figures`) is drawn with
matplotlib: a confusion matrix per game, condition and slot kind, the idle path's frames per
second at 720p and 1080p against their targets, and a histogram of the move latencies per game.
The report is ``OUT/report.md`` with its pictures beside it (PNG).
"""

from __future__ import annotations

import contextlib
import datetime
import importlib
import io
import math
import os
import platform
import sys
from collections import Counter
from pathlib import Path

from .figures import Figures

#: (title, module) in the order they run; each module has ``run(seconds, seed[, figures])``
SECTIONS = (("Rules engines and odds", "assistant.bench.rules"),
            ("Vision: the idle path, registration, memory", "assistant.bench.vision"),
            ("Detection and move tracking", "assistant.bench.detect"),
            ("Referee server under load", "assistant.bench.serve"),
            ("Secrets and hostile input", "assistant.bench.secrecy"))
#: modules that take a ``figures`` argument
PLOTTED = {"assistant.bench.vision", "assistant.bench.detect"}


class _Tee(io.TextIOBase):
    """Writes to the terminal and keeps a copy."""

    def __init__(self, terminal) -> None:
        self.terminal, self.copy = terminal, io.StringIO()

    def write(self, text: str) -> int:
        self.terminal.write(text)
        self.terminal.flush()
        return self.copy.write(text)


def run(out: str | Path = "bench-report", seconds: float | None = None, seed: int = 1) -> int:
    """Run every benchmark and write the report into ``out`` (created); returns 0.

    Parameters
    ----------
    out : path
        Folder of ``report.md`` and its PNG pictures.
    seconds : float, optional
        Time budget handed to each benchmark (None: each one's own default).
    seed : int
        Seed handed to each benchmark.

    Raises
    ------
    OSError
        When the report cannot be written.
    ImportError
        When matplotlib is missing (in a checkout: ``pip install -e '.[report]'``); checked
        before the long run.
    """
    importlib.import_module("matplotlib")
    figures = Figures()
    texts: list[tuple[str, str]] = []
    for title, module in SECTIONS:
        tee = _Tee(sys.stdout)
        kwargs = {"seed": seed, **({} if seconds is None else {"seconds": seconds})}
        if module in PLOTTED:
            kwargs["figures"] = figures
        with contextlib.redirect_stdout(tee):
            importlib.import_module(module).run(**kwargs)
        texts.append((title, tee.copy.getvalue()))
    path = write_report(out, texts, figures)
    print(f"report written: {path}")
    return 0


def write_report(out: str | Path, texts: list[tuple[str, str]], figures: Figures) -> Path:
    """Write ``out/report.md`` from each benchmark's printed text and the plotted ``figures``.

    Parameters
    ----------
    out : path
        Created if missing.
    texts : list of (title, printed text)
    figures : Figures

    Returns
    -------
    Path
        The Markdown file.

    Raises
    ------
    OSError
        When a file cannot be written.
    """
    import cv2

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    md = ["# Benchmark report", "",
          f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC on {platform.machine()} "
          f"({os.cpu_count()} cores), Python {platform.python_version()}, OpenCV {cv2.__version__}. "
          "Every figure below is printed by `assistant bench rules|vision|detect|serve`; the pictures draw "
          "what they measured.", ""]
    for title, text in texts:
        md += [f"## {title}", "", "```", text.rstrip(), "```", ""]
        if title.startswith("Vision") and figures.fps:
            md += [f"![frames per second]({plot_fps(figures.fps, out / 'fps.png').name})", ""]
        if title.startswith("Detection"):
            if figures.latency:
                md += [f"![latency]({plot_latency(figures.latency, out / 'latency.png').name})", ""]
            for (game, condition, kind), counts in sorted(figures.confusion.items()):
                name = f"confusion-{game}-{condition}-{kind}.png"
                md += [f"**{game}, {condition} light, {kind}**", "",
                       f"![{game} {condition} {kind}]({plot_confusion(counts, f'{game}, {condition}: {kind}', out / name).name})",
                       ""]
    path = out / "report.md"
    path.write_text("\n".join(md), encoding="utf-8")
    return path


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")                         # files only, no display
    import matplotlib.pyplot as plt

    return plt


def plot_confusion(counts: Counter, title: str, path: Path, max_labels: int = 30) -> Path:
    """Draw a confusion matrix (rows: true label, columns: read label; cell shade: the share of
    the row on a log scale, so single errors show) with the counts written in; returns ``path``.

    ``counts`` maps (true, read) -> n. With more than ``max_labels`` labels only those in an
    error and the commonest others are drawn."""
    plt = _pyplot()
    labels = kept_labels(counts, max_labels)
    index = {lab: i for i, lab in enumerate(labels)}
    grid = [[0] * len(labels) for _ in labels]
    for (t, r), n in counts.items():
        if t in index and r in index:
            grid[index[t]][index[r]] += n
    share = [[math.log10(1 + 1000 * v / max(sum(row), 1)) for v in row] for row in grid]
    side = max(3.0, 0.35 * len(labels) + 1.5)
    fig, ax = plt.subplots(figsize=(side + 1.0, side))
    ax.imshow(share, cmap="Blues", vmin=0, vmax=3)
    ax.set_xticks(range(len(labels)), labels, rotation=90, fontsize=7)
    ax.set_yticks(range(len(labels)), labels, fontsize=7)
    ax.set_xlabel("read")
    ax.set_ylabel("true")
    ax.set_title(title, fontsize=9)
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            if v:
                ax.text(j, i, str(v), ha="center", va="center", fontsize=6,
                        color="white" if share[i][j] > 2.0 else ("red" if i != j else "black"))
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def kept_labels(counts: Counter, max_labels: int = 30) -> list[str]:
    """The labels a confusion matrix of ``counts`` ((true, read) -> n) shows, sorted: all of
    them, or when there are more than ``max_labels``, every label in an error and then the
    commonest true labels up to ``max_labels``."""
    labels = sorted({t for t, _ in counts} | {r for _, r in counts})
    if len(labels) <= max_labels:
        return labels
    keep = {t for (t, r) in counts if t != r} | {r for (t, r) in counts if t != r}
    by_n: Counter = Counter()
    for (t, _r), n in counts.items():
        by_n[t] += n
    for t, _n in by_n.most_common():
        if len(keep) >= max_labels:
            break
        keep.add(t)
    return sorted(keep)


def plot_latency(latency: dict[str, list[float]], path: Path) -> Path:
    """Histogram of move latencies (s) per game, with the targets (median 0.5 s, worst 1.0 s)
    marked; returns ``path``."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 3.5))
    top = max([1.2] + [max(v) for v in latency.values() if v])
    bins = [k * 0.05 for k in range(int(math.ceil(top / 0.05)) + 1)]
    for game, values in sorted(latency.items()):
        if values:
            ax.hist(values, bins=bins, alpha=0.55, label=f"{game} ({len(values)} moves)")
    ax.axvline(0.5, color="black", linestyle="--", linewidth=1, label="median target 0.5 s")
    ax.axvline(1.0, color="red", linestyle=":", linewidth=1, label="worst target 1.0 s")
    ax.set_xlabel("last frame with an arm over the board -> commit (s)")
    ax.set_ylabel("moves")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def plot_fps(fps: dict[str, tuple[float, float]], path: Path) -> Path:
    """Bar chart of the idle path's frames per second per frame size, with each size's target;
    returns ``path``."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(4.5, 3.0))
    sizes = list(fps)
    ax.bar(sizes, [fps[s][0] for s in sizes], color="#4477aa")
    for i, s in enumerate(sizes):
        ax.hlines(fps[s][1], i - 0.4, i + 0.4, colors="red", linestyles="--")
        ax.text(i, fps[s][0], f"{fps[s][0]:.0f}", ha="center", va="bottom", fontsize=8)
    ax.set_ylabel("frames per second (one core)")
    ax.set_title("idle path (red: target)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
