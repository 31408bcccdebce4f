"""A bundled recording: a video of a scripted game on the rendered table and what really happened.

A recording is a folder holding

- ``table.mp4``: the camera's view, ``fps`` frames per second;
- ``truth.jsonl``: the game as played, a ``tabletop-record/1`` record (what the assistant must
  commit, in order, whether it saw the event or it was entered on the tablet);
- ``script.json``: ``{"game", "fps", "size", "tablet": [{"frame": k, "event": {...}}],
  "illegal": [{"frame": k, "what": text}], "moves": [{"events": [i, ...], "arm_end": k}],
  "conditions": [{"frame": k, "what": text}], "storm_wrong": [{"frame": k, "what": text}],
  "camera_matrix": [[fx, 0, cx], [0, fy, cy], [0, 0, 1]]}`` — the events entered on a tablet and the frame
  at which they are entered; the illegal moves acted out (from ``frame`` until they are put
  back); for each table move the indices (0-based, into the truth's events) of its events and
  its last frame with an arm over the board; light changes, bumps and such; storm cards carried
  out wrongly on the table (from ``frame`` until they are fixed; Forbidden Desert); the
  intrinsics of the (undistorted) frames, for games with standing pieces.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..records import Record, read_record

VIDEO, TRUTH, SCRIPT = "table.mp4", "truth.jsonl", "script.json"


@dataclass
class Recording:
    """A loaded recording (see the module docstring)."""

    folder: Path
    game: str
    fps: float
    size: tuple[int, int]
    truth: Record
    tablet: list[tuple[int, dict]] = field(default_factory=list)
    illegal: list[dict] = field(default_factory=list)
    moves: list[dict] = field(default_factory=list)
    conditions: list[dict] = field(default_factory=list)
    storm_wrong: list[dict] = field(default_factory=list)
    camera_matrix: list | None = None

    @property
    def video(self) -> Path:
        """The video file."""
        return self.folder / VIDEO


def load_recording(folder: str | Path) -> Recording:
    """Read the recording in ``folder``.

    Raises
    ------
    FileNotFoundError
        When a file of the recording is missing.
    ValueError
        When ``script.json`` is malformed (the field is named) or the truth record is invalid.
    """
    folder = Path(folder)
    for name in (VIDEO, TRUTH, SCRIPT):
        if not (folder / name).exists():
            raise FileNotFoundError(f"{folder / name}: the recording has no {name}")
    try:
        script = json.loads((folder / SCRIPT).read_text(encoding="utf-8"))
        tablet = [(int(t["frame"]), dict(t["event"])) for t in script.get("tablet", [])]
        rec = Recording(folder, str(script["game"]), float(script["fps"]), tuple(script["size"]),
                        read_record(folder / TRUTH), tablet, list(script.get("illegal", [])),
                        list(script.get("moves", [])), list(script.get("conditions", [])),
                        list(script.get("storm_wrong", [])), script.get("camera_matrix"))
        if rec.camera_matrix is not None:
            matrix = np.asarray(rec.camera_matrix, float)
            if matrix.shape != (3, 3) or not np.isfinite(matrix).all():
                raise ValueError("camera_matrix is not a 3x3 matrix of finite numbers")
            rec.camera_matrix = matrix.tolist()
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{folder / SCRIPT}: malformed ({exc})") from None
    if rec.truth.game.id != rec.game:
        raise ValueError(f"{folder}: the script is for {rec.game} but the truth record for {rec.truth.game.id}")
    return rec


def save_script(folder: Path, game: str, fps: float, size: tuple[int, int], tablet: list[tuple[int, dict]],
                illegal: list[dict], moves: list[dict], conditions: list[dict], **extra: Any) -> Path:
    """Write ``script.json`` into ``folder``; returns its path. ``extra`` fields (``storm_wrong``,
    ``camera_matrix``) are written as given. Raises ``OSError`` when it cannot."""
    path = folder / SCRIPT
    path.write_text(json.dumps({"game": game, "fps": fps, "size": list(size),
                                "tablet": [{"frame": k, "event": e} for k, e in tablet],
                                "illegal": illegal, "moves": moves, "conditions": conditions, **extra},
                               indent=1) + "\n", encoding="utf-8")
    return path


def bundled(game: str | None = None) -> list[Path]:
    """The folders of the bundled recordings (``examples/recordings/<game>`` beside the package,
    in a source checkout), all games or one; only those present."""
    root = Path(__file__).resolve().parents[2] / "examples" / "recordings"
    names = [game] if game else ["forbidden-desert", "discovery-island", "scout-pennant"]
    return [root / n for n in names if (root / n / SCRIPT).exists()]


def write_video(out: Path, seq: Any, arm_steps: list, illegal: list[dict], conditions: list[dict],
                tablet_after: list[tuple[int, dict]]) -> tuple[list[dict], list[tuple[int, dict]]]:
    """Render ``seq`` (a :class:`~assistant.vision.render.sequence.Sequence`) into ``out/table.mp4``
    and turn the script's arm-pass references into frame numbers.

    Parameters
    ----------
    out : Path
        The recording's folder.
    seq : Sequence
        Every ``Reach``/``Sweep`` must be followed by at least one arm-free frame, so that arm
        passes can be told apart.
    arm_steps : list
        One tag per arm pass, in order: ``("move", truth index)`` for a table move, anything
        else (or ``None``) for other passes.
    illegal : list of dict
        Each with ``"arm"`` (the index of the pass that made the illegal move); replaced by
        ``"frame"``: that pass's last frame with the arm over the board.
    conditions : list of dict
        Each with ``"after_arm"`` (passes made before it, minus one); replaced by ``"frame"``.
    tablet_after : list of (int, dict)
        (arm passes made before the entry, the event's JSON object).

    Returns
    -------
    (moves, tablet)
        ``moves``: ``[{"events": [i], "arm_end": frame}]`` by truth index (the last pass of a move
        counts); ``tablet``: ``[(frame, event)]``, 10 frames after the previous pass left.

    Raises
    ------
    RuntimeError
        When the rendered arm passes do not match ``arm_steps``.
    OSError
        When the video cannot be written.
    """
    from ..vision.render.video import write_sequence

    states = seq.states()
    episodes, first = [], None                          # (first, last) frame of each arm pass
    for st in states:
        if st.arm is not None and first is None:
            first = st.index
        elif st.arm is None and first is not None:
            episodes.append((first, st.index - 1))
            first = None
    if len(episodes) != len(arm_steps):
        raise RuntimeError(f"{len(episodes)} arm passes rendered for {len(arm_steps)} arm steps")
    over: dict[int, bool] = {}

    def frames():
        for st in states:
            f = seq.render_state(st)
            arm = f.truth.arm
            over[st.index] = bool(arm.present and (arm.touched_cells or arm.band_touched))
            yield f

    write_sequence(frames(), out / VIDEO, fps=seq.fps)
    # the last frame of each pass with the arm over the board (latency is measured from it)
    ends = [max((k for k in range(a, b + 1) if over.get(k)), default=b) for a, b in episodes]
    moves: dict[int, dict] = {}
    for end, tag in zip(ends, arm_steps):
        if tag and tag[0] == "move":
            moves[tag[1]] = {"events": [tag[1]], "arm_end": end}
    for item in illegal:
        item["frame"] = ends[item.pop("arm")]
    for item in conditions:
        k = item.pop("after_arm")
        item["frame"] = episodes[k][1] + 1 if 0 <= k < len(episodes) else 0
    tablet = [(episodes[k - 1][1] + 10 if k > 0 else 5, event) for k, event in tablet_after]
    return [moves[k] for k in sorted(moves)], tablet
