"""The lobby's live stream (``/api/lobby/stream``, issue 21) through a real waitress server: the
lobby pages follow it as the game pages follow ``/api/stream``, instead of asking once a second.
Each role is told what ``/api/lobby`` tells it and no more, at once and after each change; a
page whose token a new game made void is told to reload and hears nothing of the new game."""

from __future__ import annotations

import http.client
import json
import threading
import time

import pytest

from assistant.referee.lobby import Lobby
from assistant.server.app import create_app
from assistant.server.serve import threads_for
from assistant.server.wsgi import make_server

DI = {"game": "discovery-island", "players": [{"name": "Ana"}, {"name": "Ben"}], "map": "example", "first_player": 0}
CHOICE = {"equipment": ["rope", "boots", "mosquito_net"], "landing": [12, 8]}


@pytest.fixture
def served(tmp_path):
    """(lobby, port): a server with no game yet under waitress, at most 6 live streams."""
    lobby = Lobby(None, tmp_path)
    app = create_app(lobby, keepalive_s=0.5)
    app.config["MAX_STREAMS"] = 6
    server = make_server(app, "127.0.0.1", 0, threads_for(6))
    threading.Thread(target=server.run, daemon=True).start()      # ends with the test process
    return lobby, server.effective_port


def _request(port, method, path, token=None, payload=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    conn.request(method, path, body=None if payload is None else json.dumps(payload), headers=headers)
    answer = conn.getresponse()
    return answer.status, json.loads(answer.read() or b"null")


class Stream:
    """One open ``/api/lobby/stream`` for ``token`` (None: the public table)."""

    def __init__(self, port, token=None):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        self.conn.request("GET", "/api/lobby/stream" + (f"?token={token}" if token else ""))
        self.response = self.conn.getresponse()
        assert self.response.status == 200, self.response.read()
        assert self.response.getheader("Content-Type").startswith("text/event-stream")
        assert self.response.getheader("Cache-Control") == "no-cache"

    def next(self):
        """The next message ``(event, data)``, keep-alive comments skipped; None at the end."""
        while True:
            lines = []
            while True:
                line = self.response.readline().decode()
                if line == "":
                    return None
                if line == "\n":
                    break
                lines.append(line.rstrip("\n"))
            fields = dict(x.split(": ", 1) for x in lines if not x.startswith(":"))
            if "event" in fields:
                return fields["event"], json.loads(fields["data"])

    def close(self):
        self.response.close()                      # the socket closes with its last holder
        self.conn.close()


def test_each_role_is_told_its_own_lobby_at_once_and_after_each_change(served):
    """Referee, table and both players connect while Discovery Island waits for the choices;
    each first hears what ``/api/lobby`` tells it; a player's choice reaches every stream within
    a second, and only the player who chose hears the choice itself."""
    lobby, port = served
    assert _request(port, "POST", "/api/new", lobby.referee_token, DI)[0] == 201
    tokens = dict(lobby.tokens())
    who = {"referee": tokens["referee"], "public": None, "0": tokens["0"], "1": tokens["1"]}
    streams = {name: Stream(port, token) for name, token in who.items()}
    first = {}
    for name, stream in streams.items():
        event, first[name] = stream.next()
        assert event == "lobby" and first[name] == _request(port, "GET", "/api/lobby", who[name])[1]
        assert first[name]["state"] == "choosing" and first[name]["chosen"] == [False, False]
    t0 = time.monotonic()
    assert _request(port, "POST", "/api/choices", tokens["0"], CHOICE)[1] == {"state": "choosing"}
    for name, stream in streams.items():
        event, data = stream.next()
        assert event == "lobby" and data["chosen"] == [True, False], name
        assert time.monotonic() - t0 < 1.0, name
        if name == "0":
            assert data["mine"]["landing"] == CHOICE["landing"]
        else:                                       # the choice itself reaches nobody else
            assert {**data, "chosen": None, "revision": None} == {**first[name], "chosen": None, "revision": None}
            assert data.get("mine") is None, name
    for stream in streams.values():
        stream.close()


def test_a_page_of_a_replaced_game_is_told_to_reload_and_hears_nothing_of_the_next(served):
    """The referee replaces a Discovery Island game waiting for choices with another: the old
    players' streams say ``reload`` and end (their tokens are void), never carrying the new
    game's lobby; the referee's and the table's go on with the new game."""
    lobby, port = served
    _request(port, "POST", "/api/new", lobby.referee_token, DI)
    old = dict(lobby.tokens())
    _request(port, "POST", "/api/choices", old["0"], CHOICE)
    player, referee = Stream(port, old["0"]), Stream(port, old["referee"])
    assert player.next()[1]["mine"]["equipment"] == CHOICE["equipment"]
    first = referee.next()[1]
    status, answer = _request(port, "POST", "/api/new", lobby.referee_token,
                              {**DI, "players": [{"name": "Cy"}, {"name": "Di"}], "replace": True})
    assert status == 201 and answer == {"state": "choosing"}
    assert player.next() == ("reload", {})
    assert player.next() is None                   # the stream has ended
    event, data = referee.next()
    assert event == "lobby" and data["names"] == ["Cy", "Di"] and data["revision"] > first["revision"]
    assert _request(port, "GET", "/api/lobby/stream", old["0"])[0] == 403      # and cannot come back
    player.close()
    referee.close()


def test_streams_are_counted_with_the_game_s_and_refused_in_one_sentence_beyond(served):
    """Six live streams at most (the server's threads): a seventh lobby stream is refused 503
    with one sentence; a foreign token is refused 403 before any stream opens."""
    lobby, port = served
    status, answer = _request(port, "GET", "/api/lobby/stream", "not-a-token")
    assert status == 403 and answer["message"].endswith(".")
    streams = [Stream(port) for _ in range(6)]
    for s in streams:
        assert s.next()[0] == "lobby"
    status, answer = _request(port, "GET", "/api/lobby/stream")
    assert status == 503 and answer["error"] == "too_many_streams" and answer["message"].endswith(".")
    for s in streams:
        s.close()
    deadline = time.monotonic() + 5                # a closed stream's slot is freed within a second or so
    while lobby.views and time.monotonic() < deadline:
        time.sleep(0.1)
    assert lobby.views == 0
