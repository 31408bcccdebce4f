"""Discovery Island's ruling ``start_on_feature`` (rules §5.11) from the referee's new-game form:
carried in the record header's ``rulings`` (records.md), a landing on a checkpoint allowed only
under it, the landing map marking the hexes it allows; through Flask's test client."""

from __future__ import annotations

import pytest

from assistant.records import read_record

from .test_new_game import CHOICE, DI, as_seat, lobby_client, one_sentence

#: the checkpoint A1 of the example island (the default reading refuses it as a landing)
CHECKPOINT = [23, 5]


def test_a_landing_on_a_checkpoint_under_the_ruling_starts_the_game_with_it_recorded(tmp_path):
    lobby, client, referee = lobby_client(tmp_path)
    assert client.post("/api/new", json={**DI, "start_on_feature": True}, headers=referee).status_code == 201
    seat0 = as_seat(lobby, 0)
    assert client.get("/api/lobby", headers=seat0).get_json()["options"]["start_on_feature"] is True
    svg = client.get("/api/lobby/map.svg", headers=seat0).get_data(as_text=True)
    assert f'data-cell="{CHECKPOINT[0]},{CHECKPOINT[1]}"' in svg
    mark = svg.split(f'data-cell="{CHECKPOINT[0]},{CHECKPOINT[1]}"')
    assert "landable" in mark[0][mark[0].rfind("<polygon"):] + mark[1][:mark[1].find(">")]
    on_feature = {**CHOICE[0], "landing": CHECKPOINT}
    assert client.post("/api/choices", json=on_feature, headers=seat0).get_json() == {"state": "choosing"}
    assert client.post("/api/choices", json=CHOICE[1], headers=as_seat(lobby, 1)).get_json() == {"state": "playing"}
    header = read_record(lobby.session.journal.path).header
    assert header["rulings"] == {"start_on_feature": True}
    assert header["setup"]["landing"][1] == CHECKPOINT


def test_without_the_ruling_a_checkpoint_landing_is_refused_and_no_ruling_is_recorded(tmp_path):
    lobby, client, referee = lobby_client(tmp_path)
    assert client.post("/api/new", json=DI, headers=referee).status_code == 201
    assert client.get("/api/lobby", headers=as_seat(lobby, 0)).get_json()["options"]["start_on_feature"] is False
    r = client.post("/api/choices", json={**CHOICE[0], "landing": CHECKPOINT}, headers=as_seat(lobby, 0))
    assert r.status_code == 400 and "without a feature" in one_sentence(r)
    client.post("/api/choices", json=CHOICE[0], headers=as_seat(lobby, 0))
    client.post("/api/choices", json=CHOICE[1], headers=as_seat(lobby, 1))
    assert "rulings" not in read_record(lobby.session.journal.path).header


@pytest.mark.parametrize("value", ["yes", 1, None, [True]])
def test_a_ruling_that_is_not_true_or_false_is_refused_in_one_sentence(tmp_path, value):
    lobby, client, referee = lobby_client(tmp_path)
    r = client.post("/api/new", json={**DI, "start_on_feature": value}, headers=referee)
    assert r.status_code == 400 and "start_on_feature" in one_sentence(r) and lobby.draft is None


def test_the_referee_s_form_offers_the_ruling(tmp_path):
    lobby, client, referee = lobby_client(tmp_path)
    page = client.get(f"/?token={lobby.referee_token}").get_data(as_text=True)
    assert 'id="start-on-feature"' in page and "start_on_feature" in page
