"""Hostile input: every route fuzzed with hypothesis (never a 500, always one JSON sentence, no
traceback in the log), the token checked before the body, bodies capped and nesting limited on
a real waitress server, and live streams that heal (a gone client frees its slot; a refused
stream is told when to retry)."""

from __future__ import annotations

import http.client
import json
import socket
import tempfile
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.bench.hostile import Target, big_body_seconds, hostile_request
from assistant.bench.secrecy import GAMES
from assistant.referee.session import Session
from assistant.server.app import create_app
from assistant.server.serve import default_setup, threads_for
from assistant.server.wsgi import MAX_BODY, make_server

from .test_secrecy import DataChooser

_TARGET: dict = {}


def target() -> Target:
    """One session per game for the whole module (made on first use)."""
    if not _TARGET:
        _TARGET["folder"] = tempfile.TemporaryDirectory()
        _TARGET["target"] = Target(Path(_TARGET["folder"].name))
    return _TARGET["target"]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_every_route_answers_hostile_requests_without_a_500_or_a_traceback(data):
    chooser = DataChooser(data)
    t = target()
    game_id = chooser.pick(list(GAMES))
    t.send(game_id, *hostile_request(chooser, t.sessions[game_id][0].tokens))
    assert t.server_errors == [] and t.tracebacks == [] and t.bad_answers == []


@pytest.fixture
def real(tmp_path):
    """A Scout Pennant session under waitress (as ``assistant serve`` runs it), at most 2 live views."""
    s = Session.start("scout-pennant", default_setup("scout-pennant", seed=2), None, tmp_path / "g.jsonl")
    app = create_app(s, keepalive_s=0.5)
    app.config["MAX_STREAMS"] = 2
    server = make_server(app, "127.0.0.1", 0, threads_for(s.seats))
    threading.Thread(target=server.run, daemon=True).start()      # ends with the test process
    return s, server.effective_port


def _post(port, path, body: bytes, token: str | None = None, content_type="application/json"):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {"Content-Type": content_type}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    conn.request("POST", path, body, headers)
    response = conn.getresponse()
    out = response.status, json.loads(response.read())
    conn.close()
    return out


def test_a_thousand_brackets_are_a_400_and_a_foreign_token_is_refused_before_the_body(real):
    """The issue: about 1,000 nested brackets to any POST route gave a 500 (RecursionError)."""
    s, port = real
    deep = b"[" * 1000 + b"]" * 1000
    for path in ("/api/events", "/api/setup", "/api/reread", "/api/undo", "/api/notices/1/dismiss"):
        status, answer = _post(port, path, deep, s.tokens["referee"])
        assert 400 <= status < 500 and answer["message"].endswith("."), (path, status, answer)
        status, answer = _post(port, path, deep, "forged")              # the token is judged first
        assert (status, answer["error"]) == (403, "unknown_token")
        status, answer = _post(port, path, deep)                        # the table posts nothing
        assert (status, answer["error"]) == (403, "read_only")
    status, answer = _post(port, "/api/events", deep, s.tokens["referee"])
    assert (status, answer["error"]) == (400, "too_deep")
    status, answer = _post(port, "/api/events", b'{"actor": NaN, "type": "pass"}', s.tokens["referee"])
    assert (status, answer["error"]) == (400, "not_json")
    assert s.applied == []


def test_a_body_over_the_limit_is_refused_before_it_is_read():
    """The issue: a 200 MB body was parsed for 4.8 s before the 403. waitress now answers 413
    from the Content-Length alone (only 64 KiB are sent here: had it waited for the rest, the
    answer would never come)."""
    status, _ = big_body_seconds()
    assert status == 413


def test_waitress_refusals_are_one_json_sentence(real):
    _, port = real
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.putrequest("POST", "/api/events")
    conn.putheader("Content-Length", str(MAX_BODY + 1))
    conn.endheaders()
    response = conn.getresponse()
    answer = json.loads(response.read())
    assert response.status == 413 and answer["message"].endswith(".") and "\n" not in answer["message"]
    conn.close()


def test_a_stream_that_is_never_read_frees_its_slot(tmp_path):
    """``HEAD /api/stream`` (or a client gone before the first byte) never starts the stream's
    generator; its slot must still be freed (``assistant bench secrets`` found 555 such 503s)."""
    s = Session.start("scout-pennant", default_setup("scout-pennant", seed=2), None, tmp_path / "g.jsonl")
    app = create_app(s)
    app.config["MAX_STREAMS"] = 2
    client = app.test_client()
    for _ in range(5):
        response = client.head("/api/stream")
        assert response.status_code == 200
        response.close()
    assert sum(s.tablets.values()) == 0


def _stream(port, token=""):
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    sock.sendall(f"GET /api/stream{'?token=' + token if token else ''} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(4096)
    return sock, int(head.split()[1]), head


def test_a_gone_client_frees_its_slot_and_the_referee_sees_the_count(real):
    """The issue: slots freed about 30 s after clients vanished. A stream notices its client
    closed within a second (waitress keeps reading the channel); the referee's snapshot counts
    the live views by role."""
    s, port = real
    first, status, _ = _stream(port, s.tokens["0"])
    second, status2, _ = _stream(port)
    assert (status, status2) == (200, 200)
    assert s.snapshot("referee")["tablets"] == {"player 1": 1, "public": 1}
    assert "tablets" not in s.snapshot(None) and "tablets" not in s.snapshot(0)
    third, refused, head = _stream(port)
    assert refused == 503 and b"Retry-After: 5" in head
    third.close()
    first.close()                                                  # a tablet goes away
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and sum(s.tablets.values()) > 1:
        time.sleep(0.1)
    assert dict(s.tablets) == {0: 0, None: 1}
    again, status, _ = _stream(port)
    assert status == 200
    again.close()
    second.close()
