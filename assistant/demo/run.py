"""``assistant demo``: the bundled recordings through the whole pipeline.

Headless (``--headless``), each recording's video is read frame by frame as if from a camera:
frames -> the motion gate, the game's detector and tracker (:mod:`assistant.server.live`) -> the
refereed session (the rules check every event again) -> the server's JSON API, through which
the recording's tablet entries are posted at their frames and the final snapshot is read. Per
game it prints the events committed against the ground truth, the illegal moves flagged, the
questions asked, the frames per second and the latency from the last frame with an arm over the
board to the committed event; it fails when any committed event differs from the truth.

Without ``--headless`` the referee view is served on localhost with the recording playing in
real time as the camera.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..referee.session import Session, SessionError
from ..server.app import create_app
from ..leds.layout import LayoutError
from ..server.live import LiveTable, make_loop
from ..server.serve import start_leds, stop_leds
from ..vision.sources import SourceError, open_source
from .recording import Recording, bundled, load_recording


@dataclass
class DemoResult:
    """What one recording gave (see the module docstring); ``first_wrong`` is the 1-based index
    of the first committed event that differs from the truth, or ``None``; ``led`` the LED
    board's frames sent and last status when one was driven."""

    game: str
    truth: int
    committed: int
    matching: int
    first_wrong: int | None
    illegal_expected: int
    illegal_flagged: int
    questions: int
    frames: int
    seconds: float
    latencies: list[float] = field(default_factory=list)
    answered: int = 0
    storm_wrong: int = 0
    storm_caught: int = 0
    led: tuple[int, str] | None = None

    @property
    def ok(self) -> bool:
        """No committed event differs from the truth, and every storm card carried out wrongly
        was caught."""
        return self.first_wrong is None and self.storm_caught == self.storm_wrong

    def lines(self) -> list[str]:
        """The printed report of this game."""
        lat = (f"median {statistics.median(self.latencies):.2f} s, worst {max(self.latencies):.2f} s over "
               f"{len(self.latencies)} moves") if self.latencies else "no committed table move"
        return [f"{self.game}: {self.matching} of {self.truth} true events committed in order"
                f" ({self.committed} committed in all){'' if self.ok else f'; event {self.first_wrong} DIFFERS from the truth'}",
                f"  illegal moves flagged {self.illegal_flagged} of {self.illegal_expected}; questions asked {self.questions}"
                f" ({self.answered} answered on the tablet by choosing what happened, the rest settled on the table:"
                f" pieces put back or the move made again)",
                *([f"  storm cards carried out wrongly on the table: {self.storm_caught} of {self.storm_wrong} caught "
                   f"with a list of corrections"] if self.storm_wrong else []),
                f"  {self.frames} frames in {self.seconds:.1f} s = {self.frames / max(self.seconds, 1e-9):.1f} fps; "
                f"latency from the last frame with an arm over the board to the commit: {lat}",
                *([f"  LED board: {self.led[0]} frames sent"
                   + ("" if self.led[0] else f" (it never answered: {self.led[1]})")] if self.led is not None else [])]


def run_recording(rec: Recording, model: str | None = None, leds: str | None = None) -> DemoResult:
    """Play ``rec`` through the pipeline headless and compare with its truth; with ``leds`` (a
    serial port or pyserial URL) the LED board follows the session as it would at a table.

    Raises
    ------
    SourceError
        When the video cannot be read.
    ValueError
        When the game needs a detector model that is not given (Forbidden Desert).
    """
    truth = [e.to_json() for _, e in rec.truth.events]
    with tempfile.TemporaryDirectory() as tmp:
        session = Session.start(rec.game, rec.truth.header["setup"], rec.truth.header.get("rulings"),
                                Path(tmp) / "demo.jsonl")
        client = create_app(session).test_client()
        referee = {"Authorization": f"Bearer {session.tokens['referee']}"}
        queue = _tablet_queue(rec, truth)

        answered = [0]
        applied_at: list[int] = []                   # applied_at[i]: the frame at which event i was in the session

        def tablet(index: int) -> None:
            while len(applied_at) < len(session.applied):
                applied_at.append(index)
            # players enter an event on the tablet once its moment has come and the tablet shows
            # every earlier event (the camera's commits) — not before
            while queue and queue[0][0] <= index and len(session.applied) >= queue[0][1]:
                client.post("/api/events", json=queue.pop(0)[2], headers=referee)
            answered[0] += _answer(session, client, referee, truth)

        live = LiveTable(session, open_source(str(rec.video)), loop_factory(rec, model), rec.fps, before_frame=tablet)
        board = start_leds(session, leds) if leds else None
        try:
            started = time.perf_counter()
            live._run()                               # in this thread: the whole video, as fast as it decodes
            seconds = time.perf_counter() - started
            live.finish_check(60.0)                   # a check of the table still running posts its notices
            if board:                                 # a board that never answers has sent nothing
                board[0].wait_until(lambda b: b.frames_sent > 0, 5.0)
            led = (board[0].frames_sent, board[0].status) if board else None
        finally:
            stop_leds(board)                          # dark and closed, whatever happened
        frames = int(getattr(live.source, "frames_read", 0)) or _frames(rec)
        snapshot = client.get("/api/snapshot", headers=referee).get_json()
        committed = [a.obj for a in session.applied]
        matching = 0
        while matching < min(len(committed), len(truth)) and committed[matching] == truth[matching]:
            matching += 1
        first_wrong = None if matching == len(committed) else matching + 1
        flagged = sum(1 for bad in rec.illegal for frame, v, _ in live.log
                      if v.kind in ("illegal", "ask") and bad["frame"] <= frame <= bad["frame"] + 3 * rec.fps)
        questions = sum(1 for _, v, _ in live.log if v.kind == "ask")
        caught = sum(1 for bad in rec.storm_wrong
                     if any(v.kind == "ask" and getattr(v, "corrections", None)
                            and bad["frame"] <= frame <= bad["frame"] + 3 * rec.fps for frame, v, _ in live.log))
        answers = answered[0]
        while len(applied_at) < len(session.applied):
            applied_at.append(frames)
        latencies = [(applied_at[m["events"][-1]] - m["arm_end"]) / rec.fps for m in rec.moves
                     if m["events"][-1] < len(applied_at) and applied_at[m["events"][-1]] >= m["arm_end"]]
        assert snapshot["events"] == len(committed)
    return DemoResult(rec.game, len(truth), len(committed), matching, first_wrong, len(rec.illegal),
                      min(flagged, len(rec.illegal)), questions, frames, seconds, latencies, answers,
                      len(rec.storm_wrong), caught, led)


def loop_factory(rec: Recording, model: str | None = None):
    """``state -> live loop`` for ``rec`` (see :func:`~assistant.server.live.make_loop`): its game,
    frame rate and intrinsics, with ``model`` or else the game's shipped detector
    (:func:`default_model`)."""
    model = model or default_model(rec.game)
    intrinsics = np.asarray(rec.camera_matrix, float) if rec.camera_matrix is not None else None
    return lambda state: make_loop(rec.game, state, model, rec.fps, intrinsics)


def default_model(game: str) -> str | None:
    """The detector shipped for ``game``'s bundled recording: Forbidden Desert's own-art table
    detector (``models/forbidden-desert-own-art``, taught by ``assistant teach --game
    forbidden-desert --images own-art --slot table``); None for the other games (they teach or
    need none)."""
    if game != "forbidden-desert":
        return None
    folder = Path(__file__).resolve().parents[2] / "models" / "forbidden-desert-own-art"
    return str(folder) if (folder / "detector.json").exists() else None


def _answer(session: Session, client: Any, referee: dict, truth: list[dict]) -> int:
    """The referee answers the open questions as players would on the tablet: a question whose
    options include what really happened next gets that option (its events posted in order, the
    question dismissed). Returns how many were answered. Nothing else is ever entered for the
    camera: a move that no question offers stays uncommitted and is reported."""
    done = 0
    for notice in [n for n in session.notices if n.kind == "ask" and n.options]:
        at = len(session.applied)
        for option in notice.options:
            if option and truth[at:at + len(option)] == option:
                for event in option:
                    client.post("/api/events", json=event, headers=referee)
                done += 1
                break
        client.post(f"/api/notices/{notice.id}/dismiss", headers=referee)
    return done


def _tablet_queue(rec: Recording, truth: list[dict]) -> list[tuple[int, int, dict]]:
    """The tablet entries as ``(frame, events before it in the truth, event)``, in order."""
    out, start = [], 0
    for frame, event in rec.tablet:
        at = truth.index(event, start)
        out.append((frame, at, event))
        start = at + 1
    return out


def _frames(rec: Recording) -> int:
    import cv2

    cap = cv2.VideoCapture(str(rec.video))
    n = int(cap.get(cv2.CAP_PROP_FRAME_COUNT))
    cap.release()
    return n


def headless(game: str | None = None, model: str | None = None, leds: str | None = None) -> int:
    """Run every bundled recording (or ``game``'s); prints the reports; returns 0 when no
    committed event differs from the truth and every storm card carried out wrongly was caught
    (:attr:`DemoResult.ok`), 1 otherwise, 2 when there is nothing to run."""
    folders = bundled(game)
    if not folders:
        print(f"demo: no bundled recording{' of ' + game if game else ''} found under examples/recordings/",
              file=sys.stderr)
        return 2
    status = 0
    for folder in folders:
        rec = load_recording(folder)
        result = run_recording(rec, model, leds)
        for line in result.lines():
            print(line, flush=True)
        status |= 0 if result.ok else 1
    return status


def _cmd_demo(args: argparse.Namespace) -> int:
    try:
        if args.headless:
            return headless(args.game, args.model, args.leds)
        return serve_recording(args.game or "scout-pennant", args)
    except (OSError, ValueError, LayoutError, SourceError) as exc:
        print(f"demo: {exc}", file=sys.stderr)
        return 2


def serve_recording(game: str, args: argparse.Namespace) -> int:
    """Serve the referee view with ``game``'s recording playing in real time as the camera."""
    from ..server.serve import threads_for
    from ..server.wsgi import make_server
    from ..vision.sources import FileSource

    folders = bundled(game)
    if not folders:
        raise ValueError(f"no bundled recording of {game}")
    rec = load_recording(folders[0])
    tmp = tempfile.mkdtemp(prefix="assistant-demo-")
    session = Session.start(rec.game, rec.truth.header["setup"], rec.truth.header.get("rulings"),
                            Path(tmp) / "demo.jsonl")

    class Paced(FileSource):
        """The video at its own frame rate, as a camera delivers it."""

        def read(self, timeout: float = 5.0):
            time.sleep(1.0 / rec.fps)
            return super().read(timeout)

    queue = _tablet_queue(rec, [e.to_json() for _, e in rec.truth.events])

    def tablet(index: int) -> None:
        while queue and queue[0][0] <= index and len(session.applied) >= queue[0][1]:
            try:
                session.submit(queue.pop(0)[2], "referee")
            except SessionError as exc:               # a refused tablet entry is shown, not fatal
                session.notify("info", "A tablet entry was refused.", private=f"A tablet entry was refused: {exc}")

    live = LiveTable(session, Paced(rec.video), loop_factory(rec, args.model), rec.fps, before_frame=tablet).start()
    board = None
    try:
        board = start_leds(session, args.leds) if args.leds else None
        server = make_server(create_app(session, camera=live.jpeg), "127.0.0.1", args.port, threads_for(session.seats))
        base = f"http://127.0.0.1:{server.effective_port}"
        print(f"Demo: {session.game.title}, the bundled recording playing as the camera.\n"
              f"  table view:   {base}/\n  referee view: {base}/?token={session.tokens['referee']}\nCtrl-C stops.",
              flush=True)
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        live.stop()
        stop_leds(board)
    return 0


def add_demo_command(subparsers: Any) -> None:
    """Register ``assistant demo [--game G] [--headless] [--model M] [--port P] [--leds URL]``."""
    p = subparsers.add_parser("demo", help="the bundled recordings through the whole pipeline",
                              description="Play the bundled recordings (examples/recordings/) as if from a camera: "
                                          "with --headless, print per game the events committed against the "
                                          "ground truth; without, serve the referee view on localhost.")
    p.add_argument("--game", choices=["forbidden-desert", "discovery-island", "scout-pennant"],
                   help="one game's recording (default: all that are bundled)")
    p.add_argument("--headless", action="store_true", help="no server: run every recording and print the figures")
    p.add_argument("--model", help="Forbidden Desert's taught detector folder")
    p.add_argument("--port", type=int, default=8750, help="port of the referee view (without --headless)")
    p.add_argument("--leds", metavar="URL", help="drive the LED board too: a serial port, a pyserial URL "
                                                  "(loop://, socket://...) or auto")
    p.set_defaults(func=_cmd_demo)
