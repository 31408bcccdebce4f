"""A page refused to a browser is a page in the app's look, not raw JSON: the common case is an
old player's page after a new game replaced the one its join code was for (issue 21). Through a
real waitress server and real HTTP requests; the API keeps its JSON refusals."""

from __future__ import annotations

import json
import random
import threading
import urllib.error
import urllib.request

from assistant.referee.lobby import Lobby
from assistant.server.app import create_app
from assistant.server.wsgi import make_server

from .test_new_game import FD, SP


def _get(url: str, token: str | None = None) -> tuple[int, str, str]:
    """(status, content type, body) of a GET, with ``token`` as a bearer token when given."""
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.headers["Content-Type"], r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers["Content-Type"], e.read().decode()


def _post(url: str, body: dict, token: str) -> int:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def test_an_old_player_s_page_after_a_new_game_is_a_styled_page(tmp_path):
    lobby = Lobby(None, tmp_path, rng=random.Random(3))
    server = make_server(create_app(lobby), "127.0.0.1", 0, 4)
    threading.Thread(target=server.run, daemon=True).start()      # ends with the test process
    base, referee = f"http://127.0.0.1:{server.effective_port}", lobby.referee_token
    assert _post(f"{base}/api/new", SP, referee) == 201
    old = lobby.tokens()["0"]
    status, kind, page = _get(f"{base}/seat/0?token={old}")
    assert status == 200 and kind.startswith("text/html")             # the player's page, while it is theirs
    assert _post(f"{base}/api/new", {**FD, "replace": True}, referee) == 201

    status, kind, page = _get(f"{base}/seat/0?token={old}")
    assert status == 403 and kind.startswith("text/html")
    assert page.lstrip().startswith("<!doctype html>") and "table.css" in page           # the app's look
    assert "That token is not one of this session" in page and "join code" in page
    assert old not in page                                             # the void token is not echoed
    status, kind, answer = _get(f"{base}/api/snapshot", old)            # the API still answers in JSON
    assert status == 403 and kind.startswith("application/json")
    assert json.loads(answer)["error"] == "unknown_token"

    status, kind, page = _get(f"{base}/seat/1?token={lobby.tokens()['0']}")   # another seat's code
    assert status == 403 and kind.startswith("text/html") and "own join code" in page
