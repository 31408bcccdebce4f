"""Teaching from the camera: photograph the prescribed arrangement round by round on the mat.

The owner lays round 1 of the arrangement (printed by ``assistant teach --source``) and starts
the camera; the first moment the registered board is still, every cell is cut out
(:func:`~.rectify.cell_crops`). The owner then lays the next round (for Forbidden Desert: turns
every tile over where it lies); the motion gate sees most cells change, and the next still
moment is photographed, and so on. The crops, paired with what the round put on each cell,
teach the classifier (:func:`~.teach.teach_from_crops`).
"""

from __future__ import annotations

from typing import Callable, Hashable, Iterable, Mapping, Sequence

import numpy as np

from .mats import MatLayout
from .pipeline import BoardWatcher
from .rectify import cell_crops

NEW_ROUND_SHARE = 0.6    #: a stable change of at least this share of a round's cells is a new round
STILL_FRAMES = 3         #: consecutive still frames before a round is photographed


class EnrolmentError(RuntimeError):
    """The source ended before every round was photographed (one sentence)."""


def capture_rounds(frames: Iterable, layout: MatLayout, rounds: Sequence[Mapping[Hashable, str]], fps: float,
                   size: int = 64, undistort=None, report: Callable[[str], None] = lambda s: None
                   ) -> list[dict[Hashable, np.ndarray]]:
    """Photograph each round of an arrangement as it is laid on the mat.

    Parameters
    ----------
    frames : iterable of Frame
        From :func:`~.sources.open_source` (``index``, ``t``, ``image``).
    layout : MatLayout
        The game's mat (its corner markers are used to find it).
    rounds : sequence of dict cell -> label
        The prescribed arrangement (e.g. :func:`~.teach.forbidden_desert_arrangement`).
    fps : float
    size : int
        Crop side, pixels.
    undistort : callable, optional
        Applied to every frame (see :class:`~.calibration_io.Undistorter`).
    report : callable
        Receives one line per round photographed.

    Returns
    -------
    list of dict cell -> (size, size, 3) uint8
        One per round.

    Raises
    ------
    EnrolmentError
        When the frames end first.
    """
    watcher = BoardWatcher(layout, fps, undistort=undistort)
    crops: list[dict[Hashable, np.ndarray]] = []
    waiting_for_change = False
    still = 0
    for frame in frames:
        image = undistort(frame.image) if undistort is not None else frame.image
        out = watcher.process(frame.image, frame.index, frame.t)
        event = out.gate.event if out.gate else None
        if waiting_for_change:
            cells = set(rounds[len(crops)])
            if event is not None and len(cells & set(event.changed + event.unsure)) >= NEW_ROUND_SHARE * len(cells):
                waiting_for_change, still = False, 0
            continue
        still = still + 1 if out.status == "still" else 0
        if still < STILL_FRAMES:
            continue
        crops.append(cell_crops(image, out.track.homography, layout, size))
        report(f"round {len(crops)} of {len(rounds)} photographed at frame {frame.index} ({frame.t:.1f} s)")
        if len(crops) == len(rounds):
            return crops
        report(f"now lay round {len(crops) + 1}")
        waiting_for_change = True
    raise EnrolmentError(f"the source ended after {len(crops)} of {len(rounds)} rounds were photographed.")
