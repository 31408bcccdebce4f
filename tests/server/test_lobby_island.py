"""Discovery Island while its players choose in secret (issue 21), through a real waitress
server: the island each player taps the opponent's landing on is the same for every role (it
holds no choice), and a game waiting for the choices can be abandoned by the referee, also when
the camera reads the table (where no new game may replace it), and made again."""

from __future__ import annotations

import json
import re
import threading
import urllib.error
import urllib.request

from assistant.games.discovery_island.geometry import to_offset
from assistant.games.discovery_island.island import load_map
from assistant.referee.lobby import Lobby
from assistant.server.app import create_app
from assistant.server.serve import table_reader
from assistant.server.wsgi import make_server

from .test_table_setup import FPS, StillCamera
from .test_table_setup_kits import DI_FORM, _island_table, _landings

CHOICE = {"equipment": ["rope", "boots", "mosquito_net"], "landing": [12, 8]}


def _serve(lobby) -> str:
    server = make_server(create_app(lobby), "127.0.0.1", 0, 12)
    threading.Thread(target=server.run, daemon=True).start()      # ends with the test process
    return f"http://127.0.0.1:{server.effective_port}"


def _call(base, method, path, token=None, payload=None):
    """``(status, body)``: the JSON body decoded, or the text of any other."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None if payload is None else json.dumps(payload).encode()
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            status, kind, raw = answer.status, answer.headers.get_content_type(), answer.read()
    except urllib.error.HTTPError as exc:
        status, kind, raw = exc.code, exc.headers.get_content_type(), exc.read()
    return status, json.loads(raw) if kind == "application/json" else raw.decode()


def _one_sentence(answer) -> str:
    message = answer["message"]
    assert message.endswith(".") and "\n" not in message and "Traceback" not in message
    return message


def test_the_island_to_tap_the_landing_on_is_the_same_for_every_role(tmp_path):
    """Every hex is drawn with its printed ``col,row``; exactly the featureless land hexes may
    be tapped; every role gets the same drawing before and after a player chose; without a game
    waiting for choices the answer is one sentence."""
    lobby = Lobby(None, tmp_path)
    base = _serve(lobby)
    status, answer = _call(base, "GET", "/api/lobby/map.svg")
    assert status == 409 and "waiting for the players' choices" in _one_sentence(answer)
    assert _call(base, "POST", "/api/new", lobby.referee_token, DI_FORM)[0] == 201
    tokens = dict(lobby.tokens())
    roles = [None, tokens["referee"], tokens["0"], tokens["1"]]
    before = [_call(base, "GET", "/api/lobby/map.svg", t) for t in roles]
    assert _call(base, "POST", "/api/choices", tokens["0"], CHOICE)[0] == 200
    after = [_call(base, "GET", "/api/lobby/map.svg", t) for t in roles]
    assert all(x == before[0] for x in before + after) and before[0][0] == 200
    svg = before[0][1]
    island = load_map("example")
    landable = set(re.findall(r'<polygon [^>]*class="landable"[^>]*data-cell="(\d+,\d+)"', svg)
                   + re.findall(r'<polygon [^>]*data-cell="(\d+,\d+)"[^>]*class="landable"', svg))
    assert landable == {"%d,%d" % to_offset(*h) for h in island.featureless_land}
    assert len(re.findall(r"<polygon [^>]*data-cell=", svg)) == len(island.hexes)
    assert "12,8" in landable and "0,0" not in landable                 # land, and the sea


def test_a_game_waiting_for_choices_read_from_the_table_is_abandoned_and_made_again(tmp_path):
    """The camera reads the table, so no new game may replace the one waiting for its players'
    choices: the referee abandons it instead (a player may not; without one waiting, one
    sentence). Its join codes stop working, the choice made is gone with it, and the next game
    made from the table waits for new choices, then starts."""
    jungle = _landings("jungle")
    reader = table_reader(StillCamera(_island_table("back:jungle")), None, FPS, None, game_id="discovery-island")
    try:
        lobby = Lobby(None, tmp_path, reader=reader)
        base, referee = _serve(lobby), lobby.referee_token
        assert reader.read_done.wait(120), reader.status
        assert _call(base, "POST", "/api/table/start", referee, DI_FORM)[1] == {"state": "choosing"}
        old = dict(lobby.tokens())
        assert _call(base, "POST", "/api/choices", old["1"], {"equipment": [], "landing": jungle[0]})[0] == 200
        assert _call(base, "POST", "/api/choices", old["0"], {"equipment": [], "landing": jungle[1]})[1] == {"state": "chosen"}
        assert reader.context is not None
        status, answer = _call(base, "POST", "/api/new", referee, {**DI_FORM, "replace": True})
        assert status == 409 and answer["error"] == "read_from_table"
        status, answer = _call(base, "POST", "/api/new/abandon", old["0"], {})
        assert status == 403 and _one_sentence(answer) and lobby.draft is not None

        assert _call(base, "POST", "/api/new/abandon", referee, {}) == (200, {"state": "none"})
        assert lobby.draft is None and lobby.session is None and reader.context is None
        assert _call(base, "GET", "/api/lobby", referee)[1]["state"] == "none"
        for seat in ("0", "1"):                                   # the old join codes stop working
            assert _call(base, "GET", "/api/lobby", old[seat])[0] == 403
            assert _call(base, "POST", "/api/choices", old[seat], {"equipment": [], "landing": jungle[0]})[0] == 403
        status, answer = _call(base, "POST", "/api/new/abandon", referee, {})
        assert status == 409 and "waiting for the players' choices" in _one_sentence(answer)

        again = {**DI_FORM, "players": [{"name": "Cy"}, {"name": "Di"}]}
        assert _call(base, "POST", "/api/table/start", referee, again)[1] == {"state": "choosing"}
        new = dict(lobby.tokens())
        assert not set(new.values()) & {old["0"], old["1"]}
        told = _call(base, "GET", "/api/lobby", referee)[1]
        assert told["names"] == ["Cy", "Di"] and told["chosen"] == [False, False]
        status, answer = _call(base, "POST", "/api/table/start", referee, {"game": "discovery-island"})
        assert status == 409 and answer["error"] == "choices_pending"
        assert _call(base, "POST", "/api/choices", new["1"], {"equipment": [], "landing": jungle[1]})[0] == 200
        assert _call(base, "POST", "/api/choices", new["0"], {"equipment": [], "landing": jungle[0]})[0] == 200
        assert _call(base, "POST", "/api/table/start", referee, {"game": "discovery-island"})[0] == 201
        assert lobby.session.header["names"] == ["Cy", "Di"]
        assert lobby.session.header["setup"]["landing"] == [jungle[1], jungle[0]]
    finally:
        reader.stop()
