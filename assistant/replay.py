"""``assistant replay``: the whole live loop over a filmed game, into its record.

``assistant replay SOURCE --game G --setup RECORD [--tablet EVENTS] [--model M] [--calibration C]
[--fps F] [-o RECORD] [--json]`` reads a video file or an image folder frame by frame, as fast as it
decodes, through what ``assistant serve --source`` runs at a table: the motion gate, the game's
detector and tracker (:func:`~.server.live.make_loop`) and the refereed session (the rules check
every event again). It writes the record the session commits (``-o``, ``tabletop-record/1``; an
event the rules refuse is kept there as a comment) and prints one line per stable change the
tracker explained: the events committed, an illegal move with the rules' reason code, or a
question with its candidate explanations; then a summary.

``--setup RECORD`` gives the header (set-up and rulings); events already in it are the game so
far and are applied before the first frame. ``--tablet EVENTS`` is a JSON Lines file of what the
players enter on the tablet, ``{"frame": N, "event": {...}}`` per line (water, cards, a sea
refusal: what the camera cannot see), each posted just before frame ``N`` is read.

This is how an owner turns a filmed game into its record, and how anyone measures the live loop
on footage they made (compare the record with what happened: ``assistant check`` judges it).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .games import MalformedError, game_ids
from .records import read_record
from .referee.session import Session, SessionError
from .server.live import LiveTable, make_loop
from .vision.sources import SourceError, open_source


class ReplayError(ValueError):
    """A replay that cannot start; the message is one sentence naming the file and the problem."""


@dataclass
class Summary:
    """What a replay gave (counts; ``record`` is the path written)."""

    frames: int = 0
    seconds: float = 0.0
    changes: int = 0
    committed: int = 0
    tablet: int = 0
    illegal: int = 0
    questions: int = 0
    refused: int = 0
    errors: int = 0
    record: str = ""

    def to_json(self) -> dict:
        """The summary as one JSON object (the last line of ``--json``)."""
        return {"frames": self.frames, "seconds": round(self.seconds, 2), "stable_changes": self.changes,
                "events_committed": self.committed, "tablet_events": self.tablet, "illegal": self.illegal,
                "questions": self.questions, "refused": self.refused, "errors": self.errors, "record": self.record}

    def line(self) -> str:
        """The summary as one sentence."""
        rate = self.frames / self.seconds if self.seconds > 0 else 0.0
        return (f"{self.frames} frames in {self.seconds:.1f} s ({rate:.1f} fps): {self.changes} stable changes explained, "
                f"{self.committed} events committed from the camera and {self.tablet} from the tablet file, "
                f"{self.illegal} illegal moves, {self.questions} questions, {self.refused} refused by the rules, "
                f"{self.errors} frames failed; record {self.record}")


def load_tablet(path: str | Path) -> list[tuple[int, dict]]:
    """The tablet entries of a JSON Lines file: ``[(frame, event object)]`` in file order.

    Blank lines and lines starting with ``#`` are skipped.

    Raises
    ------
    ReplayError
        When the file cannot be read or a line is not ``{"frame": N >= 0, "event": {...}}``
        (the line is named).
    """
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ReplayError(f"{path}: cannot read the tablet events ({exc}).") from None
    out = []
    for number, text in enumerate(lines, 1):
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ReplayError(f"{path}: line {number}: not JSON ({exc.msg}).") from None
        frame = obj.get("frame") if isinstance(obj, dict) else None
        if not isinstance(frame, int) or isinstance(frame, bool) or frame < 0 or not isinstance(obj.get("event"), dict):
            raise ReplayError(f'{path}: line {number}: expected {{"frame": N (a frame number, 0 or more), '
                              f'"event": {{...}}}}.')
        out.append((frame, obj["event"]))
    return out


def _absolute_paths(setup: dict, folder: Path) -> dict:
    """``setup`` with every string value that names an existing file or folder relative to
    ``folder`` (a Discovery Island map or data folder) made absolute, so that the record written
    elsewhere still finds it."""
    out = dict(setup)
    for key, value in setup.items():
        if isinstance(value, str) and value and not Path(value).is_absolute() and (folder / value).exists():
            out[key] = str((folder / value).resolve())
    return out


def _line(kind: str, frame: int, t: float, **fields: Any) -> dict:
    return {"frame": frame, "t": round(t, 3), "verdict": kind, **fields}


def _text(item: dict) -> str:
    """One printed line for a JSON line of :func:`replay`."""
    head = f"frame {item['frame']} ({item['t']:.2f} s): "
    kind = item["verdict"]
    cells = " ".join("(" + ",".join(map(str, c)) + ")" if isinstance(c, (list, tuple)) else str(c)
                     for c in item.get("cells", []))
    where = f" [cells {cells}]" if cells else ""
    if kind == "commit":
        events = "; ".join(json.dumps(e, separators=(",", ":")) for e in item["events"])
        refused = f"; refused by the rules ({item['refused']}): {item['message']}" if item.get("refused") else ""
        return f"{head}committed {events}{refused}{where}"
    if kind == "illegal":
        return f"{head}illegal ({item['reason']}): {item['message']}{where}"
    if kind == "ask":
        options = " | ".join("; ".join(json.dumps(e, separators=(",", ":")) for e in option) or "(nothing)"
                             for option in item["options"])
        return f"{head}question: {item['message']}{where}; candidates: {options or 'none (fix the table)'}"
    if kind == "tablet":
        status = "refused (" + item["refused"] + ")" if item.get("refused") else "committed"
        return f"{head}tablet event {json.dumps(item['event'], separators=(',', ':'))} {status}"
    if kind == "error":
        return f"{head}error: {item['message']}"
    return f"{head}nothing to commit: {item.get('message') or 'the change needs no event'}{where}"


def replay(source_spec: str, game: str, setup_path: str, output: str, tablet_path: str | None = None,
           model: str | None = None, calibration: str | None = None, fps: float | None = None,
           emit: Callable[[dict], None] = lambda item: None) -> Summary:
    """Run the live loop over ``source_spec`` and write the committed record to ``output``.

    Parameters
    ----------
    source_spec : str
        A video file or an image folder.
    game : str
        The game id.
    setup_path : str
        A record whose header gives the set-up and rulings (its events are the game so far).
    output : str
        Where the record goes (must not exist).
    tablet_path : str, optional
        Tablet entries (:func:`load_tablet`).
    model, calibration : str, optional
        The game's detector folder; the camera's calibration YAML (undistortion, and the
        intrinsics Forbidden Desert's standing pawns need).
    fps : float, optional
        Frames per second of an image folder (default 30) or a video (default its own).
    emit : callable
        Receives each JSON line (a dict: ``frame``, ``t``, ``verdict`` and its fields) as it happens.

    Returns
    -------
    Summary

    Raises
    ------
    ReplayError
        When the set-up, the tablet file, the source, the model or the calibration cannot be
        used, or ``output`` exists (one sentence).
    """
    try:
        record = read_record(setup_path)
    except OSError as exc:
        raise ReplayError(f"{setup_path}: cannot read the set-up record ({exc.strerror or exc}).") from None
    except MalformedError as exc:
        raise ReplayError(f"{setup_path}: {exc}") from None
    if record.game.id != game:
        raise ReplayError(f"{setup_path}: the record is for {record.game.id}, not {game}.")
    tablet = load_tablet(tablet_path) if tablet_path else []
    if not Path(source_spec).exists():
        raise ReplayError(f"{source_spec} is neither a video file nor an image folder (serve --source follows a camera).")
    undistort, matrix = None, None
    if calibration:
        from .vision.calibration_io import Undistorter, load_calibration

        try:
            undistort = Undistorter.from_calibration(load_calibration(calibration))
        except (OSError, ValueError) as exc:
            raise ReplayError(f"{calibration}: cannot use the calibration ({exc}).") from None
        matrix = np.asarray(undistort.new_camera_matrix, np.float64)
    try:
        source = open_source(source_spec, fps)
    except SourceError as exc:
        raise ReplayError(str(exc)) from None
    rate = source.fps
    setup = _absolute_paths(record.header["setup"], Path(setup_path).resolve().parent)
    try:
        session = Session.start(game, setup, record.header.get("rulings"), output)
    except FileExistsError:
        source.close()
        raise ReplayError(f"{output} exists: give another -o, or remove it first.") from None
    except (OSError, MalformedError) as exc:
        source.close()
        raise ReplayError(f"{output}: cannot start the record ({exc}).") from None
    tokens = Path(str(output) + ".tokens.json")
    summary = Summary(record=str(output))
    try:
        for _, event in record.events:                  # the game so far
            session.submit(event.to_json(), "referee")

        def loop_of(state):
            return make_loop(game, state, model, rate, matrix, undistort)

        pending = sorted(tablet, key=lambda item: item[0])

        def before(index: int) -> None:
            while pending and pending[0][0] <= index:
                _, event = pending.pop(0)
                item = _line("tablet", index, index / rate, event=event)
                try:
                    session.submit(event, "referee")
                    summary.tablet += 1
                except SessionError as exc:
                    item["refused"], item["message"] = exc.reason, str(exc)
                    summary.refused += 1
                emit(item)

        try:
            live = ReplayTable(session, source, loop_of, rate, before, emit, summary)
        except (OSError, ValueError) as exc:
            raise ReplayError(f"cannot start the {game} live loop: {exc}") from None
        started = time.perf_counter()
        live._run()
        summary.seconds = time.perf_counter() - started
        summary.frames = live.frames
    finally:
        source.close()
        tokens.unlink(missing_ok=True)                  # no tablets follow a replay
    return summary


class ReplayTable(LiveTable):
    """The live table (:class:`~.server.live.LiveTable`), run in the caller's thread, that reports
    each verdict and each failed frame to ``emit`` and counts them in ``summary``."""

    def __init__(self, session: Session, source, loop_of, fps: float, before_frame, emit, summary: Summary):
        super().__init__(session, source, loop_of, fps, before_frame)
        self.emit, self.summary, self.frames = emit, summary, 0

    def _step(self, frame, index: int) -> None:
        self.frames = index + 1
        try:
            super()._step(frame, index)
        except Exception as exc:                        # keep following the film; say what broke
            self.summary.errors += 1
            self.emit(_line("error", index, index / self.fps, message=f"{type(exc).__name__}: {exc}"))

    def deliver(self, verdict) -> None:
        """Deliver ``verdict`` to the session (see the base class), then report it."""
        index = self.log[-1][0] if self.log else 0
        before, notices = len(self.session.applied), len(self.session.notices)
        super().deliver(verdict)
        s = self.summary
        item = _line(verdict.kind, index, index / self.fps, message=verdict.message,
                     cells=[list(c) if isinstance(c, tuple) else c for c in verdict.cells])
        s.changes += 1
        if verdict.kind == "commit":
            item["events"] = [a.obj for a in self.session.applied[before:]]
            s.committed += len(item["events"])
            if len(item["events"]) < len(verdict.events):
                refusal = next((n for n in self.session.notices[notices:] if n.kind == "illegal"), None)
                item["refused"] = refusal.reason if refusal and refusal.reason else "refused"
                item["message"] = refusal.message if refusal else verdict.message
                s.refused += 1
        elif verdict.kind == "illegal":
            item["reason"] = verdict.reason
            s.illegal += 1
        elif verdict.kind == "ask":
            item["options"] = [[e.to_json() for e in option] for option in verdict.options]
            s.questions += 1
        self.emit(item)


def _cmd_replay(args: argparse.Namespace) -> int:
    output = args.output or f"{Path(args.source.rstrip('/')).stem or 'replay'}.jsonl"

    def emit(item: dict) -> None:
        print(json.dumps(item) if args.json else _text(item), flush=True)

    try:
        summary = replay(args.source, args.game, args.setup, output, args.tablet, args.model, args.calibration,
                         args.fps, emit)
    except ReplayError as exc:
        print(f"replay: {exc}", file=sys.stderr)
        return 2
    print(json.dumps({"summary": summary.to_json()}) if args.json else summary.line(), flush=True)
    return 0


def add_replay_command(subparsers: Any) -> None:
    """Register ``assistant replay``."""
    p = subparsers.add_parser("replay", help="the whole live loop over a filmed game, into its record",
                              description="Read a video file or an image folder through the motion gate, the "
                                          "game's detector and tracker and the rules; write the committed record "
                                          "and print one line per stable change, then a summary.")
    p.add_argument("source", help="a video file or a folder of images (in name order)")
    p.add_argument("--game", required=True, choices=game_ids())
    p.add_argument("--setup", required=True, metavar="RECORD",
                   help="a record whose header gives the set-up and rulings (its events: the game so far)")
    p.add_argument("--tablet", metavar="EVENTS",
                   help='JSON Lines of the events entered on the tablet: {"frame": N, "event": {...}} per line')
    p.add_argument("--model", help="the game's taught detector folder (Forbidden Desert: required)")
    p.add_argument("--calibration", help="camera calibration YAML (undistortion; the intrinsics Forbidden Desert needs)")
    p.add_argument("--fps", type=float, help="frames per second of an image folder (default 30) or a video (default its own)")
    p.add_argument("-o", "--output", metavar="RECORD", help="the record to write (default SOURCE-NAME.jsonl here)")
    p.add_argument("--json", action="store_true", help="one JSON object per line, the summary last")
    p.set_defaults(func=_cmd_replay)
