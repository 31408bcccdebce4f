"""Hostile requests to every route of the referee server: malformed, oversized, deeply nested,
wrongly typed, with foreign or odd tokens. The answer must always be a 4xx (or a 2xx when the
request happens to be valid) with one sentence, never a 500, and nothing may be logged as an
error (no traceback).

:func:`hostile_request` draws one request from a :class:`~.secrecy.Chooser`; :class:`Target`
sends requests to one session per game and counts what went wrong; :func:`fuzz` is the second
half of ``assistant bench secrets``.
"""

from __future__ import annotations

import json
import logging
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .secrecy import GAMES, Chooser, RandomChooser

#: every route, with ``{k}`` for a path number
ROUTES = ["/api/snapshot", "/api/legal", "/api/events", "/api/setup", "/api/reread", "/api/undo",
          "/api/notices/{k}/dismiss", "/api/record", "/api/join/{k}.svg", "/api/camera.jpg", "/api/stream",
          "/api/openapi.json", "/", "/seat/{k}", "/api/nowhere", "/static/table.js"]
KEYS = ["actor", "type", "to", "at", "cell", "card", "carry", "sees", "reveals", "draws", "seen", "dir", "tile",
        "label", "found", "clue", "value", "arrows", "piece", "order", "landing", "players", "cells", "equipment"]
TYPES = ["move", "excavate", "play_equipment", "draw_storm", "reshuffle", "choose_direction", "sea_refused",
         "learn_clue", "open_cache", "relocate", "build", "fire", "roll", "pass", "end_turn", "end_march"]


def _value(chooser: Chooser, depth: int = 0) -> Any:
    """A random JSON value (numbers at the edges, odd strings, small containers)."""
    kind = chooser.pick(["int", "big", "float", "str", "bool", "null", "list", "dict"] if depth < 3 else
                        ["int", "str", "null"])
    if kind == "int":
        return chooser.pick([0, 1, -1, 4, 7, 2**31, -(2**63), 99])
    if kind == "big":
        return 10 ** chooser.number(20, 400)
    if kind == "float":
        return chooser.pick([0.5, 1e308, -0.0, 2.0])
    if kind == "str":
        return chooser.pick(["", "0", "storm", "launch_pad", "N", "é", "\u2603", "a" * 300, "../../etc", "<script>"])
    if kind == "bool":
        return bool(chooser.number(0, 1))
    if kind == "null":
        return None
    if kind == "list":
        return [_value(chooser, depth + 1) for _ in range(chooser.number(0, 3))]
    return {chooser.pick(KEYS): _value(chooser, depth + 1) for _ in range(chooser.number(0, 4))}


def _body(chooser: Chooser) -> bytes:
    kind = chooser.pick(["event", "event", "json", "nested", "bytes", "constant", "long"])
    if kind == "event":
        obj = {"actor": chooser.pick([0, 1, 2, "storm", "0", -1, 9, None, True]), "type": chooser.pick(TYPES)}
        for _ in range(chooser.number(0, 4)):
            obj[chooser.pick(KEYS)] = _value(chooser)
        return json.dumps(obj).encode()
    if kind == "json":
        return json.dumps(_value(chooser)).encode()
    if kind == "nested":
        depth = chooser.pick([10, 33, 200, 1000, 5000])
        return (b"[" * depth + b"]" * depth) if chooser.number(0, 1) else (b'{"a":' * depth + b"1" + b"}" * depth)
    if kind == "bytes":
        return bytes(chooser.number(0, 255) for _ in range(chooser.number(0, 40)))
    if kind == "constant":
        return chooser.pick([b"NaN", b'{"actor": Infinity, "type": "move"}', b"1" * 5000, b'"\\ud800"', b"{"])
    return b'{"actor": 0, "type": "move", "note": "' + b"x" * (70 * 1024) + b'"}'


def hostile_request(chooser: Chooser, tokens: dict[str, str]) -> tuple[str, str, dict[str, str], bytes | None]:
    """One hostile request: ``(method, path, headers, body)`` to any route, as any role (a
    session's own ``tokens``, none, a forged or non-ASCII token, in the header or the query)."""
    path = chooser.pick(ROUTES).replace("{k}", str(chooser.pick([0, 1, 5, -1, 99999999999999999999])))
    method = chooser.pick(["GET", "POST", "POST", "POST", "PUT", "DELETE", "HEAD"])
    who = chooser.pick([None, "forged", "odd", *sorted(tokens)])
    token = {None: None, "forged": "forged-token", "odd": "t\u00e9\u2603"}.get(who, tokens.get(who))
    headers: dict[str, str] = {}
    if token and chooser.number(0, 1):
        path += ("&" if "?" in path else "?") + "token=" + token
    elif token:
        headers["Authorization"] = "Bearer " + token.encode("utf-8").decode("latin-1")
    body = _body(chooser) if method in ("POST", "PUT") else None
    if body is not None:
        headers["Content-Type"] = chooser.pick(["application/json", "application/json", "text/plain",
                                                "application/json; charset=latin-1"])
    return method, path, headers, body


class _Errors(logging.Handler):
    """Counts log records at ERROR or above, or carrying a traceback."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.ERROR or record.exc_info:
            self.records.append(record)


@dataclass
class Target:
    """One session per game under Flask's test client, and what hostile requests did to it."""

    folder: Path
    sessions: dict = field(default_factory=dict)
    requests: int = 0
    server_errors: list[str] = field(default_factory=list)
    bad_answers: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        from ..referee.session import Session
        from ..server.app import create_app
        from ..server.serve import default_setup

        for game_id in GAMES:
            s = Session.start(game_id, default_setup(game_id, seed=3), None, self.folder / f"{game_id}.jsonl")
            app = create_app(s)
            app.config["MAX_STREAMS"] = 1              # one live view: one that is never freed shows at once
            self.sessions[game_id] = (s, app.test_client())
        self.log = _Errors()

    def send(self, game_id: str, method: str, path: str, headers: dict[str, str], body: bytes | None) -> int:
        """Send one request; a 5xx, or a 4xx under ``/api/`` that is not ``{"error", "message"}``
        with one sentence, is counted. Returns the status."""
        session, client = self.sessions[game_id]
        root = logging.getLogger()
        root.addHandler(self.log)
        try:
            response = client.open(path, method=method, data=body, headers=headers)
            status = response.status_code
            data = next(iter(response.response), b"") if response.mimetype == "text/event-stream" else response.get_data()
            response.close()
        finally:
            root.removeHandler(self.log)
        self.requests += 1
        what = f"{game_id}: {method} {path} -> {status}"
        if status >= 500:
            self.server_errors.append(what)
        elif status >= 400 and path.startswith("/api/") and method != "HEAD":
            try:
                answer = json.loads(data)
                sentence = answer["message"]
                ok = bool(answer["error"]) and sentence.endswith(".") and "\n" not in sentence
            except (ValueError, KeyError, TypeError, AttributeError):
                ok = False
            if not ok:
                self.bad_answers.append(f"{what}: {data[:120]!r}")
        return status

    @property
    def tracebacks(self) -> list[str]:
        """The messages of the error records logged while requests were served."""
        return [r.getMessage() for r in self.log.records]


def big_body_seconds(size: int = 200 * 1024 * 1024) -> tuple[int, float]:
    """A real server (waitress, as ``assistant serve`` runs it) sent the headers of a ``size``
    byte body and its first 64 KiB: ``(status, seconds to the answer)``."""
    import http.client
    import threading

    from ..referee.session import Session
    from ..server.app import create_app
    from ..server.serve import default_setup, threads_for
    from ..server.wsgi import make_server

    with tempfile.TemporaryDirectory() as folder:
        s = Session.start("scout-pennant", default_setup("scout-pennant", seed=1), None, Path(folder) / "g.jsonl")
        server = make_server(create_app(s), "127.0.0.1", 0, threads_for(s.seats))
        threading.Thread(target=server.run, daemon=True).start()
        conn = http.client.HTTPConnection("127.0.0.1", server.effective_port, timeout=30)
        started = time.monotonic()
        conn.putrequest("POST", "/api/events")
        conn.putheader("Content-Type", "application/json")
        conn.putheader("Content-Length", str(size))
        conn.endheaders()
        try:
            conn.send(b"[" * (64 * 1024))
        except OSError:                                 # the server may have answered and closed already
            pass
        status = conn.getresponse().status
        seconds = time.monotonic() - started
        conn.close()
        return status, seconds                          # the server's daemon thread ends with the process


def fuzz(seconds: float = 15.0, seed: int = 1) -> int:
    """Hostile requests to every route of every game for ``seconds``, then a 200 MB body to a
    real server; prints the counts and returns 0."""
    chooser = RandomChooser(seed)
    with tempfile.TemporaryDirectory() as folder:
        target = Target(Path(folder))
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            game_id = chooser.pick(list(GAMES))
            tokens = target.sessions[game_id][0].tokens
            target.send(game_id, *hostile_request(chooser, tokens))
    status, took = big_body_seconds()
    print(f"hostile: {target.requests} malformed requests to every route of the three games: "
          f"{len(target.server_errors)} server errors, {len(target.tracebacks)} errors logged, "
          f"{len(target.bad_answers)} refusals without one JSON sentence")
    for line in (target.server_errors + target.tracebacks + target.bad_answers)[:5]:
        print(f"  {line}")
    print(f"hostile: a 200 MB body to a real server: {status} after {1000 * took:.0f} ms")
    return 0

