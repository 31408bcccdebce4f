"""The JSON API through Flask's test client, and the live stream through a real waitress server:
roles, secrets on every route, 4xx (never 500) for bad requests, OpenAPI coverage, SSE."""

from __future__ import annotations

import http.client
import json
import threading
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.games.scout_pennant.simulate import random_game as pennant_game
from assistant.referee.session import Session
from assistant.server.app import create_app
from assistant.server.openapi import document


@pytest.fixture
def pennant(tmp_path):
    game = pennant_game(7)
    s = Session.start("scout-pennant", game.setup, game.rulings, tmp_path / "g.jsonl")
    return game, s, create_app(s).test_client()


def auth(s, who):
    return {"Authorization": f"Bearer {s.tokens[who]}"}


def test_post_snapshot_undo_and_record(pennant):
    game, s, client = pennant
    ev = game.events[0].to_json()
    r = client.post("/api/events", json=ev, headers=auth(s, str(ev["actor"])))
    assert r.status_code == 201 and r.get_json() == {"index": 1, "ok": True}
    snap = client.get("/api/snapshot").get_json()
    assert snap["events"] == 1 and snap["recent"][-1]["type"] == ev["type"] and snap["role"] == "public"
    assert snap["board_svg"].startswith("<svg")
    r = client.get("/api/record")
    assert r.status_code == 403 and r.get_json()["error"] == "referee_only"
    r = client.get("/api/record", headers=auth(s, "referee"))
    assert r.status_code == 200 and json.loads(r.data.decode().splitlines()[-1]) == ev


def test_legal_lists_only_the_callers_events(pennant):
    game, s, client = pennant
    mover = s.game.to_move(s.state)
    mine = client.get("/api/legal", headers=auth(s, str(mover))).get_json()
    theirs = client.get("/api/legal", headers=auth(s, str(1 - mover))).get_json()
    assert mine["total"] > 0 and all(e["actor"] == mover for e in mine["events"])
    assert theirs["total"] == 0
    public = client.get("/api/legal").get_json()                 # the table reads what the mover may do
    assert public["events"] == mine["events"]


def test_join_codes_need_the_referee(pennant):
    _, s, client = pennant
    assert client.get("/api/join/0.svg", headers=auth(s, "1")).status_code == 403
    r = client.get("/api/join/0.svg", headers=auth(s, "referee"))
    assert r.status_code == 200 and r.mimetype == "image/svg+xml" and b"<svg" in r.data
    assert client.get("/api/join/9.svg", headers=auth(s, "referee")).status_code == 404


def test_pages_check_their_tokens(pennant):
    _, s, client = pennant
    assert client.get("/").status_code == 200
    assert client.get(f"/?token={s.tokens['referee']}").status_code == 200
    assert client.get(f"/seat/0?token={s.tokens['0']}").status_code == 200
    assert client.get(f"/seat/0?token={s.tokens['1']}").status_code == 403
    assert client.get("/seat/0").status_code == 403
    assert client.get(f"/?token={s.tokens['0']}").status_code == 403
    assert client.get("/?token=forged").status_code == 403


def test_every_route_is_in_the_openapi_document(pennant):
    _, _, client = pennant
    doc = client.get("/api/openapi.json").get_json()
    assert doc == json.loads(json.dumps(document()))
    rules = {r.rule.replace("<int:", "{").replace(">", "}") for r in client.application.url_map.iter_rules()
             if r.rule.startswith("/api/")}
    assert {p.replace("{notice_id}", "{notice_id}") for p in doc["paths"]} == rules


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(["/api/events", "/api/undo", "/api/notices/1/dismiss", "/api/snapshot", "/api/legal",
                             "/api/nowhere", "/api/join/x.svg", "/api/record"]),
       method=st.sampled_from(["GET", "POST", "PUT", "DELETE"]),
       data=st.one_of(st.binary(max_size=40), st.builds(json.dumps, st.recursive(
           st.none() | st.booleans() | st.integers() | st.text(max_size=8),
           lambda c: st.lists(c, max_size=3) | st.dictionaries(st.sampled_from(["actor", "type", "cell", "to"]), c,
                                                                max_size=4), max_leaves=8)).map(str.encode)),
       who=st.sampled_from([None, "referee", "0", "1", "forged"]))
def test_bad_requests_get_a_4xx_with_one_sentence_never_a_500(pennant, path, method, data, who):
    _, s, client = pennant
    headers = {"Content-Type": "application/json"}
    if who:
        headers["Authorization"] = f"Bearer {s.tokens.get(who, 'forged-token')}"
    r = client.open(path, method=method, data=data, headers=headers)
    assert r.status_code < 500
    if r.status_code >= 400:
        body = r.get_json()
        assert body["error"] and body["message"].endswith(".") and "\n" not in body["message"]


# -- secrets on every route ------------------------------------------------------------------------

def _island_sessions(tmp_path, island_pair):
    """Two Discovery Island sessions differing only in the clue seat 0 learns at A1."""
    a, b = island_pair(tmp_path, swap_clue="B2")
    b.tokens = dict(a.tokens)
    return a, b


def _first_chunk(client, url):
    response = client.get(url)
    chunk = next(iter(response.response))
    response.close()
    text = chunk.decode() if isinstance(chunk, bytes) else chunk
    return text.split("data: ", 1)[1].replace(', "revision"', "")


def test_no_route_gives_seat_1_what_only_seat_0_knows(tmp_path, island_pair):
    a, b = _island_sessions(tmp_path, island_pair)
    ca, cb = create_app(a).test_client(), create_app(b).test_client()
    token = a.tokens["1"]
    for url in ("/api/snapshot", "/api/legal", "/seat/1", "/api/record", "/api/join/0.svg", "/api/join/1.svg",
                "/api/camera.jpg", "/api/openapi.json"):
        ra = ca.get(url, headers={"Authorization": f"Bearer {token}"})
        rb = cb.get(url, headers={"Authorization": f"Bearer {token}"})
        assert (ra.status_code, ra.data) == (rb.status_code, rb.data), url
    assert _first_chunk(ca, f"/api/stream?token={token}") == _first_chunk(cb, f"/api/stream?token={token}")
    assert _first_chunk(ca, "/api/stream") == _first_chunk(cb, "/api/stream")
    seat0 = a.tokens["0"]
    assert _first_chunk(ca, f"/api/stream?token={seat0}") != _first_chunk(cb, f"/api/stream?token={seat0}")


# -- a real server --------------------------------------------------------------------------------

@pytest.fixture
def live(tmp_path):
    """The app under waitress on a free loopback port, as ``assistant serve`` runs it."""
    from assistant.server.serve import threads_for
    from assistant.server.wsgi import make_server

    game = pennant_game(9)
    s = Session.start("scout-pennant", game.setup, game.rulings, tmp_path / "live.jsonl")
    server = make_server(create_app(s, keepalive_s=0.5), "127.0.0.1", 0, threads_for(s.seats))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    yield game, s, server.effective_port
    # waitress has no clean stop from another thread (closing its sockets under the running
    # select loop raises EBADF there): the daemon thread ends with the test process.


def _stream(port, token=""):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    conn.request("GET", f"/api/stream{'?token=' + token if token else ''}")
    response = conn.getresponse()
    assert response.status == 200 and response.getheader("Content-Type").startswith("text/event-stream")
    assert response.getheader("Cache-Control") == "no-cache"
    return conn, response


def _next_message(response):
    lines = []
    while True:
        line = response.readline().decode()
        if line == "\n":
            return "".join(lines)
        lines.append(line)


def test_the_stream_sends_a_snapshot_then_each_change_within_a_second(live):
    game, s, port = live
    conn, response = _stream(port)
    first = _next_message(response)
    assert "event: snapshot" in first and json.loads(first.split("data: ", 1)[1])["events"] == 0
    ev = game.events[0].to_json()
    t0 = time.monotonic()
    post = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    post.request("POST", "/api/events", json.dumps(ev), {"Content-Type": "application/json",
                                                         "Authorization": f"Bearer {s.tokens['referee']}"})
    assert post.getresponse().status == 201
    message = _next_message(response)
    while message.startswith(": keep-alive"):
        message = _next_message(response)
    assert json.loads(message.split("data: ", 1)[1])["events"] == 1
    assert time.monotonic() - t0 < 1.0
    conn.close()


def test_quiet_streams_get_keep_alives_and_do_not_starve_requests(live):
    _, s, port = live
    streams = [_stream(port) for _ in range(2 * (s.seats + 2))]       # every tablet, twice over
    for _, response in streams:
        _next_message(response)
    assert _next_message(streams[0][1]).startswith(": keep-alive")
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=3)
    conn.request("GET", "/api/snapshot")
    assert conn.getresponse().status == 200
    for c, _ in streams:
        c.close()


def test_a_token_with_any_characters_is_refused_not_a_500(pennant):
    _, s, client = pennant
    for url in ("/?token=%C3%A9", "/api/snapshot?token=%C3%A9", "/api/stream?token=%E2%98%83"):
        assert client.get(url).status_code == 403
    assert client.get("/api/snapshot", headers={"Authorization": "Bearer é".encode().decode("latin-1")}).status_code == 403


def test_look_again_takes_only_cell_ids(pennant):
    _, s, client = pennant
    headers = auth(s, "referee")
    assert client.post("/api/reread", json={"cells": [[{"a": 1}]]}, headers=headers).status_code == 400
    assert client.post("/api/reread", json={"cells": [[0, 1], "card"]}, headers=headers).status_code == 200
    assert client.post("/api/reread", json={"cells": [[0, 1]]}, headers=auth(s, "0")).status_code == 403


def test_the_seat_count_cannot_change_once_tokens_are_out(pennant):
    _, s, client = pennant
    setup = dict(s.header["setup"])
    fewer = {"players": setup["players"][:2]} if len(setup["players"]) > 2 else {"players": setup["players"] + [
        {"seat": len(setup["players"]), "colour": "green"}]}
    r = client.post("/api/setup", json=fewer, headers=auth(s, "referee"))
    assert r.status_code == 409 and r.get_json()["error"] == "seats_fixed"


def test_a_walker_is_offered_nothing_that_depends_on_where_it_is(tmp_path, island_pair):
    """§6.1: the walker's tablet lists no steps, sea refusals or cache actions (their listing
    would say where it stands) and may not post them: land or sea, the answer is the same 403.
    The opponent, who lays the tiles, is offered them and posts them; a refused step is told
    to it in a sentence naming no hex, to the referee in full, and not to the table."""
    s, _ = island_pair(tmp_path)
    client = create_app(s).test_client()
    walker = s.game.to_move(s.state)
    mine = client.get("/api/legal", headers=auth(s, str(walker))).get_json()["events"]
    assert {e["type"] for e in mine} <= {"end_march", "skip_march", "event_resolved"}
    theirs = client.get("/api/legal", headers=auth(s, str(1 - walker))).get_json()["events"]
    assert any(e["type"] == "choose_direction" and e["actor"] == walker for e in theirs)
    public = client.get("/api/legal").get_json()["events"]
    assert {e["type"] for e in public} <= {"end_march", "skip_march"}
    from assistant.games.discovery_island.geometry import DIRECTION_NAMES, step

    island, here = s.state.cfg.island, s.state.pos[walker]
    land = next(d for d in DIRECTION_NAMES if island.terrain(step(here, d)) != "sea")
    answers = set()
    for d in DIRECTION_NAMES:
        r = client.post("/api/events", json={"actor": walker, "type": "sea_refused", "dir": d},
                        headers=auth(s, str(walker)))
        answers.add((r.status_code, r.data))
    assert len(answers) == 1 and next(iter(answers))[0] == 403
    notices = len(s.snapshot(None)["notices"])
    r = client.post("/api/events", json={"actor": walker, "type": "sea_refused", "dir": land},
                    headers=auth(s, str(1 - walker)))
    assert r.status_code == 409 and r.get_json()["error"] == "not_sea"
    assert not any(ch.isdigit() for ch in r.get_json()["message"]), r.get_json()["message"]
    assert len(s.snapshot(None)["notices"]) == notices                      # nothing on the table view
    assert any(ch.isdigit() for ch in s.snapshot("referee")["notices"][-1]["message"])
    referee = client.post("/api/events", json={"actor": walker, "type": "sea_refused", "dir": land},
                          headers=auth(s, "referee"))
    assert referee.status_code == 409 and any(ch.isdigit() for ch in referee.get_json()["message"])
