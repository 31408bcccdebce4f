"""``assistant bench report``: the Markdown report and its plots, from figures the benchmarks collect."""

from __future__ import annotations

import cv2
import pytest

from assistant.bench.figures import Figures

pytest.importorskip("matplotlib", reason="the report's plots need matplotlib (the 'report' extra)")


def test_the_report_holds_each_benchmark_text_and_a_plot_per_figure(tmp_path):
    from assistant.bench.report import write_report

    figures = Figures()
    for _ in range(40):
        figures.reading("scout-pennant", "normal", "patrol", "red", "red")
    figures.reading("scout-pennant", "normal", "patrol", "green", "blue")
    figures.reading("discovery-island", "stress", "mark", "shortcut", "none")
    figures.latencies("forbidden-desert", [0.1, 0.13, 0.37])
    figures.fps["1280x720"] = (140.0, 60.0)
    texts = [("Vision: the idle path", "idle path 1280x720: 140 fps"), ("Detection and move tracking", "moves ...")]
    path = write_report(tmp_path / "out", texts, figures)
    md = path.read_text()
    assert "idle path 1280x720: 140 fps" in md and "moves ..." in md
    pictures = [line.split("(")[1].rstrip(")") for line in md.splitlines() if line.startswith("![")]
    assert sorted(pictures) == sorted(["fps.png", "latency.png", "confusion-scout-pennant-normal-patrol.png",
                                       "confusion-discovery-island-stress-mark.png"])
    for name in pictures:
        img = cv2.imread(str(tmp_path / "out" / name))
        assert img is not None and img.shape[0] > 100 and img.shape[1] > 100
        assert (img < 200).any()                 # something is drawn, not a blank page


def test_a_confusion_matrix_of_many_labels_keeps_the_errors(tmp_path):
    from collections import Counter

    from assistant.bench.report import kept_labels, plot_confusion

    counts = Counter({(f"t{i}", f"t{i}"): 10 + i for i in range(60)})
    counts[("t3", "t44")] = 1
    labels = kept_labels(counts, max_labels=10)
    assert len(labels) == 10 and {"t3", "t44", "t59", "t58"} <= set(labels)
    path = plot_confusion(counts, "many", tmp_path / "m.png", max_labels=10)
    assert cv2.imread(str(path)) is not None
