"""A new game from the tablet, through Flask's test client: the referee's form for each game,
Discovery Island's secret choices made on each player's own token, refusals in one sentence
(hostile bodies included), replacing a game with its record kept, join codes carrying the
server's reachable address, and what each role is told (the secret choices reach nobody else)."""

from __future__ import annotations

import json
import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.records import read_record
from assistant.referee.lobby import Lobby
from assistant.server.app import create_app

FD = {"game": "forbidden-desert", "difficulty": "elite",
      "players": [{"name": "Ana", "adventurer": "climber"}, {"name": "Ben", "adventurer": "navigator"},
                  {"name": "Cy", "adventurer": "water_carrier"}]}
SP = {"game": "scout-pennant", "radius": 3, "first_player": 1,
      "players": [{"name": "Ana", "colour": "green"}, {"name": "Ben", "colour": "orange"}]}
DI = {"game": "discovery-island", "players": [{"name": "Ana"}, {"name": "Ben"}], "map": "example", "first_player": 0}
#: two valid secret choices: 6 + 5 + 5 = 16 points, and featureless land hexes of the example island
CHOICE = [{"equipment": ["rope", "boots", "mosquito_net"], "landing": [12, 8]},
          {"equipment": ["machete", "water_bottle", "antidote", "compass"], "landing": [20, 5]}]


def lobby_client(tmp_path, seed: int = 1):
    """A server with no game yet: its lobby, test client and the referee's headers."""
    lobby = Lobby(None, tmp_path, rng=random.Random(seed))
    return lobby, create_app(lobby).test_client(), {"Authorization": f"Bearer {lobby.referee_token}"}


def as_seat(lobby, seat):
    return {"Authorization": f"Bearer {lobby.tokens()[str(seat)]}"}


def one_sentence(answer) -> str:
    message = answer.get_json()["message"]
    assert message.endswith(".") and "\n" not in message and "Traceback" not in message
    return message


def test_no_game_yet_then_forbidden_desert_from_the_form(tmp_path):
    lobby, client, referee = lobby_client(tmp_path)
    assert client.get("/api/lobby").get_json()["state"] == "none"
    assert client.get("/api/snapshot").status_code == 409                 # no game: said, not a 500
    assert b'id="new-game"' in client.get(f"/?token={lobby.referee_token}").data
    assert b'id="new-game"' not in client.get("/").data                  # the table only waits
    r = client.post("/api/new", json=FD, headers=referee)
    assert r.status_code == 201 and r.get_json() == {"state": "playing"}
    setup = lobby.session.header["setup"]
    assert setup["players"] == ["climber", "navigator", "water_carrier"] and setup["difficulty"] == "elite"
    assert lobby.session.header["names"] == ["Ana", "Ben", "Cy"] and lobby.session.seats == 3
    snap = client.get("/api/snapshot", headers=as_seat(lobby, 2)).get_json()
    assert snap["names"] == ["Ana", "Ben", "Cy"] and snap["seat"] == 2
    assert lobby.session.tokens["referee"] == lobby.referee_token          # the printed link keeps working
    assert read_record(lobby.session.journal.path).header["setup"] == setup


def test_scout_pennant_gets_its_radius_colours_and_first_player(tmp_path):
    lobby, client, referee = lobby_client(tmp_path)
    assert client.post("/api/new", json=SP, headers=referee).status_code == 201
    setup = lobby.session.header["setup"]
    assert setup["radius"] == 3 and setup["first_player"] == 1 and setup["variant"] == "free"
    assert [p["colour"] for p in setup["players"]] == ["green", "orange"]
    assert client.get("/api/snapshot").get_json()["to_move"] == 1


@pytest.mark.parametrize("form, words", [
    ({**FD, "players": FD["players"][:1]}, "2 to 5 players"),
    ({**FD, "players": [*FD["players"], *FD["players"]]}, "2 to 5 players"),
    ({**FD, "players": [{"name": "A", "adventurer": "wizard"}, {"name": "B", "adventurer": "climber"}]}, "adventurer of player 1"),
    ({**FD, "players": [{"name": "A", "adventurer": "climber"}, {"name": "B", "adventurer": "climber"}]}, "same adventurer"),
    ({**FD, "difficulty": "impossible"}, "difficulty among"),
    ({**FD, "radius": 3}, "no field 'radius'"),
    ({**SP, "radius": 1}, "radius from 2 to 8"),
    ({**SP, "radius": True}, "radius from 2 to 8"),
    ({**SP, "first_player": 2}, "first player's seat from 0 to 1"),
    ({**SP, "players": [{"colour": "red"}, {"colour": "red"}]}, "same colour"),
    ({**SP, "players": [{"colour": "red"}, {"colour": "#fff"}]}, "colour of player 2"),
    ({**SP, "players": [{"name": "Al", "colour": "red"}, {"name": "Al", "colour": "blue"}]}, "same name"),
    ({**SP, "players": [{"name": "x" * 33, "colour": "red"}, {"colour": "blue"}]}, "longer than 32"),
    ({**SP, "players": [{"name": "a\u0000b", "colour": "red"}, {"colour": "blue"}]}, "control"),
    ({**SP, "players": [{"name": 7, "colour": "red"}, {"colour": "blue"}]}, "must be text"),
    ({**DI, "players": [{}, {}, {}]}, "played by 2 players"),
    ({**DI, "map": "/nonexistent/island.csv"}, "map cannot be used"),
    ({**DI, "data": "/nonexistent"}, "data cannot be used"),
    ({**DI, "map": 5}, "path on the server"),
    ({"game": "chess", "players": []}, "game among"),
    ([FD], "must be a JSON object"),
])
def test_a_bad_field_is_named_in_one_sentence_and_nothing_starts(tmp_path, form, words):
    lobby, client, referee = lobby_client(tmp_path)
    r = client.post("/api/new", json=form, headers=referee)
    assert r.status_code == 400 and r.get_json()["error"] == "bad_field"
    assert words in one_sentence(r)
    assert lobby.session is None and lobby.draft is None and list(tmp_path.iterdir()) == []


def _unreadable(tmp_path, kind):
    """A map or data path the referee might type that is no usable file: binary, a device, a
    lone surrogate, an unknown user's home."""
    if kind == "binary map":
        (tmp_path / "map.png").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe\x00")
        return {"map": str(tmp_path / "map.png")}
    if kind == "binary data":
        (tmp_path / "data").mkdir()
        (tmp_path / "data" / "events.csv").write_bytes(b"\xff\xfe\x00")
        return {"data": str(tmp_path / "data")}
    if kind == "device":
        return {"map": "/dev/zero"}
    return {"map": {"surrogate": "maps/\ud800.csv", "no home": "~no-such-user-xq/map.csv"}[kind]}


@pytest.mark.parametrize("kind", ["binary map", "binary data", "device", "surrogate", "no home"])
def test_a_map_or_data_path_that_cannot_be_read_is_refused_not_a_500(tmp_path, kind):
    lobby, client, referee = lobby_client(tmp_path / "games")
    if kind == "device" and not __import__("os").path.exists("/dev/zero"):
        pytest.skip("no /dev/zero on this system")
    r = client.post("/api/new", json={**DI, **_unreadable(tmp_path, kind)}, headers=referee)
    assert r.status_code == 400 and r.get_json()["error"] == "bad_field", r.data
    assert "cannot be used" in one_sentence(r) or "not a path" in one_sentence(r)
    assert lobby.session is None and lobby.draft is None


def test_only_the_referee_starts_a_game(tmp_path):
    lobby, client, referee = lobby_client(tmp_path)
    assert client.post("/api/new", json=FD).status_code == 403            # the public view posts nothing
    assert client.post("/api/new", json=FD, headers={"Authorization": "Bearer forged"}).status_code == 403
    client.post("/api/new", json=SP, headers=referee)
    r = client.post("/api/new", json={**FD, "replace": True}, headers=as_seat(lobby, 0))
    assert r.status_code == 403 and lobby.session.game.id == "scout-pennant"
    assert client.get("/new", headers=as_seat(lobby, 0)).status_code == 403


@pytest.mark.parametrize("route", ["/api/new", "/api/choices"])
def test_the_token_is_checked_before_the_body(tmp_path, route):
    """As on the rest of the API: a forged token or the public view is refused (403) before a
    body that is not JSON, too deep or the wrong shape is even read."""
    lobby, client, referee = lobby_client(tmp_path)
    for headers in ({"Authorization": "Bearer forged"}, {}):
        for data in ("[" * 5000, "not json", "{}"):
            r = client.post(route, data=data, content_type="application/json", headers=headers)
            assert r.status_code == 403, (route, headers, data[:10], r.data)


def test_replacing_a_game_asks_for_confirmation_and_keeps_its_record(tmp_path):
    lobby, client, referee = lobby_client(tmp_path)
    client.post("/api/new", json=SP, headers=referee)
    old, old_player = lobby.session, as_seat(lobby, 0)
    move = next(e for e in old.game.legal_events(old.state)).to_json()
    assert client.post("/api/events", json=move, headers=referee).status_code == 201
    kept = old.journal.path.read_text()
    r = client.post("/api/new", json=FD, headers=referee)
    assert r.status_code == 409 and "confirm" in one_sentence(r) and lobby.session is old
    assert client.post("/api/new", json={**FD, "replace": True}, headers=referee).status_code == 201
    assert lobby.session is not old and old.retired and old.journal.path.read_text() == kept
    assert client.get("/api/snapshot", headers=old_player).status_code == 403    # the old join codes are void
    assert lobby.session.journal.path != old.journal.path and len(list(tmp_path.glob("*.jsonl"))) == 2


def test_an_ended_game_is_replaced_without_confirmation(tmp_path, monkeypatch):
    lobby, client, referee = lobby_client(tmp_path)
    client.post("/api/new", json=SP, headers=referee)
    monkeypatch.setattr(type(lobby.session.game), "result", lambda self, state: "won")
    assert client.post("/api/new", json=FD, headers=referee).status_code == 201


def test_a_retired_game_s_stream_tells_its_pages_to_reload(tmp_path):
    from assistant.server.api import _events

    lobby, client, referee = lobby_client(tmp_path)
    client.post("/api/new", json=SP, headers=referee)
    old = lobby.session
    stream = _events(old, None, 60.0)
    assert next(stream).startswith("id: ")                                 # the snapshot on connect
    client.post("/api/new", json={**FD, "replace": True}, headers=referee)
    assert next(stream) == "event: reload\ndata: {}\n\n"
    assert next(stream, None) is None


def test_discovery_island_starts_when_both_players_have_chosen_on_their_own_tokens(tmp_path):
    lobby, client, referee = lobby_client(tmp_path)
    r = client.post("/api/new", json=DI, headers=referee)
    assert r.status_code == 201 and r.get_json() == {"state": "choosing"} and lobby.session is None
    for seat in (0, 1):                                                     # each join code works already
        assert b'id="choices"' in client.get(f"/seat/{seat}?token={lobby.tokens()[str(seat)]}").data
    assert client.post("/api/choices", json=CHOICE[0], headers=referee).status_code == 403
    assert client.post("/api/choices", json=CHOICE[0]).status_code == 403
    assert client.post("/api/choices", json=CHOICE[0], headers=as_seat(lobby, 0)).get_json() == {"state": "choosing"}
    assert client.get("/api/lobby").get_json()["chosen"] == [True, False]
    tokens = dict(lobby.tokens())
    assert client.post("/api/choices", json=CHOICE[1], headers=as_seat(lobby, 1)).get_json() == {"state": "playing"}
    setup = lobby.session.header["setup"]
    assert setup["equipment"] == [CHOICE[0]["equipment"], CHOICE[1]["equipment"]]
    assert setup["landing"] == [CHOICE[1]["landing"], CHOICE[0]["landing"]]     # each chose the other's (§5.1)
    assert setup["checkometer"]["kind"] == "digital" and lobby.session.tokens == tokens
    assert client.post("/api/choices", json=CHOICE[0], headers=as_seat(lobby, 0)).status_code == 409


@pytest.mark.parametrize("choice, words", [
    ({"equipment": ["compass", "raft", "first_aid_kit", "water_bottle"], "landing": [12, 8]}, "cost 26 points"),
    ({"equipment": ["rope", "rope"], "landing": [12, 8]}, "once only"),
    ({"equipment": ["lightsaber"], "landing": [12, 8]}, "no card 'lightsaber'"),
    ({"equipment": "rope", "landing": [12, 8]}, "list of card names"),
    ({"equipment": [], "landing": [0, 0]}, "is sea"),
    ({"equipment": [], "landing": [23, 5]}, "A1"),                          # a checkpoint (rules §4.5)
    ({"equipment": [], "landing": [99, 99]}, "outside the 30x22 map"),
    ({"equipment": [], "landing": [1.5, 2]}, "[column, row]"),
    ({"equipment": [], "landing": [10 ** 40, 2]}, "[column, row]"),
    ({"equipment": [], "landing": [1, 2], "seat": 1}, "no field 'seat'"),
    ("rope", "must be a JSON object"),
])
def test_a_bad_secret_choice_is_refused_in_one_sentence(tmp_path, choice, words):
    lobby, client, referee = lobby_client(tmp_path)
    client.post("/api/new", json=DI, headers=referee)
    r = client.post("/api/choices", json=choice, headers=as_seat(lobby, 0))
    assert r.status_code == 400 and words in one_sentence(r)
    assert lobby.draft.choices == {}


def _draft(tmp_path, mine):
    """A Discovery Island draft in which seat 0 chose ``mine`` (or nothing)."""
    tmp_path.mkdir()
    lobby, client, referee = lobby_client(tmp_path)
    client.post("/api/new", json=DI, headers=referee)
    if mine is not None:
        assert client.post("/api/choices", json=mine, headers=as_seat(lobby, 0)).status_code == 200
    return lobby, client


def _answers(lobby, client, role):
    """Everything ``role`` (a seat, "referee" or None) can ask about the draft, refusals included."""
    headers = {} if role is None else {"Authorization": f"Bearer {lobby.tokens()[str(role)]}"}
    query = "" if role is None else f"?token={lobby.tokens()[str(role)]}"
    out = []
    for path in ("/api/lobby", f"/{query}", f"/new{query}", f"/seat/1{query}", "/api/snapshot", "/api/legal"):
        r = client.get(path, headers=headers)
        out.append((path.split("?")[0], r.status_code, r.data))
    for body in ({"equipment": ["rope"], "landing": [0, 0]}, {"equipment": ["rope", "compass", "raft", "raft"]},
                 {"equipment": [], "landing": [23, 5]}, {"landing": [12, 8], "equipment": ["first_aid_kit"] * 3}):
        r = client.post("/api/choices", json=body, headers=headers)
        out.append(("choices", r.status_code, r.data))
    return out


@pytest.mark.parametrize("mine", [CHOICE[0], {"equipment": ["compass", "raft"], "landing": [20, 5]}])
def test_a_player_s_secret_choices_reach_no_other_role(tmp_path, mine):
    """Two drafts that differ only in seat 0's choices (made or not, and what) answer the
    opponent, the table and the referee byte for byte alike, refusals included; seat 0 is told
    its own choices back."""
    plain, chosen = _draft(tmp_path / "a", None), _draft(tmp_path / "b", mine)
    for role in (1, None, "referee"):
        a, b = _answers(*plain, role), _answers(*chosen, role)
        differs = [x[0] for x, y in zip(a, b) if x != y]
        assert differs == ["/api/lobby"], (role, differs)
        told_a, told_b = json.loads(a[0][2]), json.loads(b[0][2])
        # whether seat 0 has chosen is seen by all (the table sees a player still choosing); no more
        assert (told_a.pop("chosen"), told_b.pop("chosen")) == ([False, False], [True, False])
        assert told_a.pop("revision") < told_b.pop("revision")
        assert told_a == told_b and told_b.get("mine") is None
    told = chosen[1].get("/api/lobby", headers=as_seat(chosen[0], 0)).get_json()
    assert told["mine"] == mine


def test_join_codes_carry_the_reachable_address(tmp_path):
    lobby, _, referee = lobby_client(tmp_path)
    app = create_app(lobby, public_base="http://192.168.1.20:8750")
    client = app.test_client()
    client.post("/api/new", json=SP, headers=referee)
    svg = client.get("/api/join/1.svg", headers=referee).data.decode()
    link = re.search(r"<desc>(.*?)</desc>", svg).group(1)
    assert link == f"http://192.168.1.20:8750/seat/1?token={lobby.session.tokens['1']}"
    loopback = create_app(lobby).test_client().get("/api/join/1.svg", headers=referee).data.decode()
    assert "<desc>http://localhost/seat/1?token=" in loopback                # as the browser reached it
    # the referee's tablet reached the server at another of its addresses (the Wi-Fi's, while the
    # guessed LAN address is a VPN's): the players' devices are on the referee's network
    svg = client.get("/api/join/1.svg", headers=referee, base_url="http://10.0.0.7:8750").data.decode()
    assert "<desc>http://10.0.0.7:8750/seat/1?token=" in svg
    svg = client.get("/api/join/1.svg", headers=referee, base_url="http://0.0.0.0:8750").data.decode()
    assert "<desc>http://192.168.1.20:8750/seat/1?token=" in svg            # 0.0.0.0 reaches only this machine


JSON = st.recursive(st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False)
                    | st.text(max_size=40) | st.sampled_from(["forbidden-desert", "scout-pennant", "discovery-island",
                                                              "climber", "red", "example", "rope", "random"]),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
                        st.sampled_from(["game", "players", "name", "adventurer", "colour", "difficulty", "radius",
                                         "variant", "map", "data", "first_player", "replace", "equipment",
                                         "landing", "x"]), inner, max_size=5), max_leaves=12)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(body=JSON, route=st.sampled_from(["/api/new", "/api/choices"]), who=st.sampled_from([None, "referee", "0", "1"]))
def test_hostile_forms_and_choices_never_get_a_500(tmp_path_factory, body, route, who):
    folder = tmp_path_factory.mktemp("hostile")
    lobby, client, referee = lobby_client(folder)
    client.post("/api/new", json=DI, headers=referee)
    headers = {} if who is None else {"Authorization": f"Bearer {lobby.tokens()[who]}"}
    r = client.post(route, json=body, headers=headers)
    assert r.status_code < 500
    if r.status_code >= 400:
        one_sentence(r)
