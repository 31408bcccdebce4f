"""Teach the Forbidden Desert sand classifier shipped in ``data/piece-blobs.npz``.

The sand network (:meth:`~.desert_pieces.PieceBlobs.sand`, from
:func:`~.desert_pieces.sand_features`) is taught on varied tables drawn with the project's own
art only (:func:`~.desert_variety.teaching_rows`: own-art tiles, sand markers of many looks,
the teaching renderer's lights); the owner's photos and the benchmark's second renderer are
never used. The blob network beside it in the same file is kept as it is. Run from the
repository's root::

    python -m assistant.vision.detectors.teach_sand            # rewrites data/piece-blobs.npz
    python -m assistant.vision.detectors.teach_sand -o other.npz

It renders ``TABLES`` tables for each of ``SEEDS`` (about 6 s of CPU a table here, some 25
minutes in all; the same seeds give the same model) and fits :data:`SAND_NET` perceptrons.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

#: the teaching renderer's seeds (tables of :func:`~.desert_variety.views`) and tables per seed
SEEDS = (100, 200)
TABLES = 120
#: the sand network's size and fitting (:meth:`~..mlp.Perceptrons.fit`): a strong L2 penalty
#: (0.03, the library's default is 0.001) kept it from leaning on the teaching renderer's look;
#: chosen on second-renderer development stills (seeds 5100-5115, 6100-6115, 7100-7107), never
#: on the benchmark's measuring seeds
SAND_NET = dict(hidden=16, l2=3e-2, steps=1500, members=3, seed=0)


def sand_rows(seeds=SEEDS, tables: int = TABLES, progress=None) -> tuple[np.ndarray, np.ndarray]:
    """The sand teaching rows of ``tables`` varied tables per seed: ``(rows (n, SAND_FEATURES)
    float32, classes (n,) int)`` (indices of ``SAND_CLASSES``). ``progress(done, total)`` is
    called after each table."""
    from .desert_variety import teaching_rows

    xs, ys = [], []
    for k, seed in enumerate(seeds):
        step = None if progress is None else (lambda i, n, k=k: progress(k * tables + i, len(seeds) * tables))
        x, y = teaching_rows(seed, tables, progress=step)["sand"]
        xs.append(x)
        ys.append(y)
    return np.vstack(xs), np.concatenate(ys)


def teach_sand(rows: np.ndarray, classes: np.ndarray):
    """The sand network fitted on ``rows`` ``(n, SAND_FEATURES)`` and ``classes`` ``(n,)``:
    a :class:`~..mlp.Perceptrons` of :data:`SAND_NET`'s size.

    Raises
    ------
    ValueError
        When there are no rows.
    """
    from ..mlp import Perceptrons
    from .desert_pieces import SAND_CLASSES

    return Perceptrons.fit(rows, classes, len(SAND_CLASSES), **SAND_NET)


def main(argv=None) -> int:
    """The command (see the module docstring); returns the exit status."""
    from .desert_pieces import PieceBlobs
    from .forbidden_desert import DATA

    parser = argparse.ArgumentParser(prog="python -m assistant.vision.detectors.teach_sand",
                                     description="Teach the shipped sand classifier on own-art varied tables.")
    parser.add_argument("-o", "--out", type=Path, default=DATA / "piece-blobs.npz", help="where to write the model")
    parser.add_argument("--tables", type=int, default=TABLES, help="tables per seed")
    args = parser.parse_args(argv)
    with np.load(DATA / "piece-blobs.npz") as z:             # the shipped blob network, read raw: its
        from ..mlp import Perceptrons                        # sand network may be of older features
        net = Perceptrons(*(z[f] for f in Perceptrons.FIELDS))
        parts = dict(zip(z["part_names"].tolist(), z["part_lab"].tolist()))

    def progress(done, total):
        print(f"\rteaching tables {done}/{total}", end="", file=sys.stderr, flush=True)

    rows, classes = sand_rows(tables=args.tables, progress=progress)
    print(file=sys.stderr)
    PieceBlobs(net, teach_sand(rows, classes), parts).save(args.out)
    print(f"{args.out}: sand network taught on {len(classes)} cells of {len(SEEDS) * args.tables} tables")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
