""""Check the table" (Forbidden Desert, :class:`assistant.server.table_check.TableChecker`) when the
game does not stand still for it: a check whose game moved on while it ran must not post its
findings about the old position, and a check that fails says so in one sentence and leaves the
game as it was (issue 21). The checks are real: a taught detector reads a rendered table that
differs from the engine's (another deal), so a check delivered would say so."""

from __future__ import annotations

import random

import pytest

from assistant.bench.desert_setup import camera
from assistant.games.forbidden_desert.simulate import random_setup
from assistant.referee.session import Session
from assistant.server.app import create_app
from assistant.server.live import make_loop
from assistant.server.table_check import TableChecker
from assistant.vision.detectors import forbidden_desert as fd
from assistant.vision.detectors.synth import _conditions
from assistant.vision.render.desert_script import scene_of
from assistant.vision.render.renderer import Renderer

MOVED_ON = "The game moved on while the table was checked; ask again when it is still."


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """(model folder, camera, a still of another deal's table than the session's)."""
    folder = tmp_path_factory.mktemp("model")
    fd.teach().save(folder)
    other = Session.start("forbidden-desert", random_setup(random.Random(7), n_players=2), None,
                          tmp_path_factory.mktemp("other") / "other.jsonl")
    rng = random.Random(11)
    cam = camera(rng, (960, 540))
    light, settings = _conditions(rng, "normal")
    image = Renderer(cam).render(scene_of(other.state), lighting=light, settings=settings, seed=11).image
    return str(folder), cam, image


def _session_and_loop(table, tmp_path):
    model, cam, image = table
    s = Session.start("forbidden-desert", random_setup(random.Random(2), n_players=2), None, tmp_path / "fd.jsonl")
    loop = make_loop("forbidden-desert", s.state, model, 10.0, cam.K)
    for _ in range(3):
        loop.still.add(image)
    return s, loop


def _messages(s):
    return [n.message for n in s.notices]


@pytest.mark.parametrize("asked", [True, False])
def test_the_findings_of_a_check_whose_game_moved_on_are_not_posted(table, tmp_path, asked):
    """The referee (or the turn's end) starts a check; a move is posted while it reads; the
    check found differences, but they are about the old position: none is posted, and the
    referee, if they asked, is told to ask again."""
    s, loop = _session_and_loop(table, tmp_path)
    if asked:
        s.request_check("referee")
    before = len(s.notices)
    checker = TableChecker(s, 10.0)
    worker = checker.start(loop, table[1].homography(), 0)
    move = next(e for e in s.legal("referee") if e.type == "move")
    s.submit(move.to_json(), "referee")                     # the game moves on while the check reads
    worker.join(120)
    assert not worker.is_alive() and not s.check_running
    assert len(checker.log) == 1 and not checker.log[0][1].clean      # it had findings to drop
    new = _messages(s)[before:]
    assert new == ([MOVED_ON] if asked else []), new
    assert [a.obj for a in s.applied] == [move.to_json()]


def test_a_check_that_fails_says_so_in_one_sentence_and_changes_nothing(table, tmp_path):
    """A check that raises (here: the homography was lost, so the read cannot warp the table)
    posts one referee-only sentence; the game, its record and the server are intact (the pages
    answer, no 500), and the next check works."""
    s, loop = _session_and_loop(table, tmp_path)
    s.request_check("referee")
    state, record = s.state, s.record_text()
    checker = TableChecker(s, 10.0)
    checker.start(loop, None, 0).join(60)
    assert len(checker.failures) == 1 and checker.log == [] and not s.check_running
    told = _messages(s)[-1]
    assert told.startswith("The check of the table failed (") and told.endswith(".") and ". " not in told
    assert s.state is state and s.record_text() == record and s.applied == []

    client = create_app(s).test_client()
    referee = client.get("/api/snapshot", headers={"Authorization": f"Bearer {s.tokens['referee']}"})
    player = client.get("/api/snapshot", headers={"Authorization": f"Bearer {s.tokens['0']}"})
    assert referee.status_code == 200 and told in [n["message"] for n in referee.get_json()["notices"]]
    assert player.status_code == 200 and player.get_json()["notices"] == []

    checker.start(loop, table[1].homography(), 1).join(120)     # the camera is back: the check works again
    assert len(checker.log) == 1 and not checker.log[0][1].clean
    assert any(m.startswith("The tile on") for m in _messages(s))


def _notices_over_http(s):
    """Serve ``s`` under waitress; returns ``notices(token) -> list`` (the snapshot's notices)."""
    import http.client
    import json
    import threading

    from assistant.server.serve import threads_for
    from assistant.server.wsgi import make_server

    server = make_server(create_app(s), "127.0.0.1", 0, threads_for(s.seats))
    threading.Thread(target=server.run, daemon=True).start()      # ends with the test process

    def notices(token):
        conn = http.client.HTTPConnection("127.0.0.1", server.effective_port, timeout=10)
        conn.request("GET", "/api/snapshot", headers={"Authorization": f"Bearer {token}"})
        answer = conn.getresponse()
        assert answer.status == 200
        return json.loads(answer.read())["notices"]
    return notices


def test_a_difference_a_missed_move_explains_offers_that_move_not_an_undo(tmp_path):
    """A pawn moved twice; the record has the first move (the last event, which the referee may
    undo), the table shows the second too (the camera missed it). Through a real waitress server
    the referee is offered the missed move to post; no notice invites them to undo the first
    move, which was right; the players are told nothing."""
    from tests.tracking.test_desert_check import _two_moves_of_one_pawn
    from assistant.games.forbidden_desert.simulate import random_game, table_game
    from assistant.tracking.base import Reading
    from assistant.tracking.desert_check import compare_table

    game_obj, model, start, states, entered, k = _two_moves_of_one_pawn(1)
    setup = table_game(random_game(1, n_players=3, max_events=80))[0]
    s = Session.start("forbidden-desert", setup, None, tmp_path / "fd.jsonl")
    for ev in entered[:k - 1]:
        s.submit(ev.to_json(), "referee")
    assert s.can_undo("referee")
    table = {slot: Reading(v) for slot, v in model.expected(states[k]).items()}
    check = compare_table(game_obj, model, s.start_state, entered[:k - 1], table, True)
    TableChecker(s, 10.0).deliver(check, asked=True)

    notices = _notices_over_http(s)
    told = notices(s.tokens["referee"])
    assert told and not any("undo" in n["message"] for n in told), [n["message"] for n in told]
    offered = [n for n in told if n.get("options")]
    assert [o for n in offered for o in n["options"]] == [[entered[k - 1].to_json()]]
    assert all(notices(s.tokens[str(seat)]) == [] for seat in range(s.seats))


def test_a_missed_excavation_is_offered_with_each_card_it_may_have_drawn(tmp_path):
    """A game set up from the table (a physical equipment deck): the check finds a gear
    excavation the camera missed. The referee's notice offers the excavation once per card still
    possible, each a complete event the server accepts (the card drawn among them); no card is
    picked for the referee; the players are told nothing."""
    from tests.tracking.test_desert_cards import _physical_excavation
    from assistant.tracking.base import Reading
    from assistant.tracking.desert_check import compare_table

    game_obj, model, start, states, entered, k, setup = _physical_excavation()
    s = Session.start("forbidden-desert", setup, None, tmp_path / "fd.jsonl")
    for ev in entered[:k - 1]:
        s.submit(ev.to_json(), "referee")
    table = {slot: Reading(v) for slot, v in model.expected(states[k]).items()}
    check = compare_table(game_obj, model, s.start_state, entered[:k - 1], table, True)
    TableChecker(s, 10.0).deliver(check, asked=True)
    notices = _notices_over_http(s)
    offered = [n for n in notices(s.tokens["referee"]) if n.get("options")]
    assert len(offered) == 1 and "equipment card drawn" in offered[0]["message"]
    cards = [option[0]["draws"] for option in offered[0]["options"]]
    assert entered[k - 1]["draws"] in cards and len(cards) == len(set(cards)) > 1
    assert all(notices(s.tokens[str(seat)]) == [] for seat in range(s.seats))
    option = next(o for o in offered[0]["options"] if o[0]["draws"] == entered[k - 1]["draws"])
    assert s.submit(option[0], "referee")["ok"]               # the referee taps the card drawn: accepted
    assert s.state.hands == states[k].hands
