"""The refereed session: durable record, resume, undo (Board Game Arena's rule), roles, and
what each seat's snapshot may contain (per-player secrets, rules §6.1 of Discovery Island)."""

from __future__ import annotations

import json
import random

import pytest

from assistant.games.discovery_island.geometry import to_axial, to_offset
from assistant.games.discovery_island.island import load_map
from assistant.games.scout_pennant.simulate import random_game as pennant_game
from assistant.records import read_record
from assistant.referee.session import Session, SessionError


def pennant(tmp_path, seed=5, name="g.jsonl"):
    game = pennant_game(seed)
    return game, Session.start("scout-pennant", game.setup, game.rulings, tmp_path / name)


def test_every_event_is_on_disk_before_it_is_announced(tmp_path):
    game, s = pennant(tmp_path)
    for k, ev in enumerate(game.events[:15], start=1):
        assert s.submit(ev.to_json(), "referee") == {"index": k, "ok": True}
        assert s.revision == k
        lines = [ln for ln in (tmp_path / "g.jsonl").read_text().splitlines() if not ln.startswith("#")]
        assert json.loads(lines[-1]) == ev.to_json() and len(lines) == k + 1


def test_resume_replays_the_record_and_drops_a_torn_last_line(tmp_path):
    game, s = pennant(tmp_path)
    for ev in game.events[:10]:
        s.submit(ev.to_json(), "referee")
    with open(tmp_path / "g.jsonl", "a") as f:                 # a write cut short by kill -9
        f.write('{"actor": 0, "type": "fi')
    again = Session.resume(tmp_path / "g.jsonl")
    assert len(again.applied) == 10 and again.snapshot("referee") | {"revision": 0} == s.snapshot("referee") | {"revision": 0}
    assert again.tokens == s.tokens                            # tablets keep working
    for ev in game.events[10:20]:
        again.submit(ev.to_json(), "referee")
    assert [e.to_json() for _, e in read_record(tmp_path / "g.jsonl").events] == \
        [e.to_json() for e in game.events[:20]]


def test_an_illegal_event_is_refused_with_its_reason_and_kept_as_a_comment(tmp_path):
    game, s = pennant(tmp_path)
    wrong = dict(game.events[0].to_json(), actor=(game.events[0].actor + 1) % 2)
    with pytest.raises(SessionError) as exc:
        s.submit(wrong, "referee")
    assert exc.value.status == 409 and exc.value.reason == "not_your_turn"
    assert s.applied == [] and s.state == s.start_state
    text = (tmp_path / "g.jsonl").read_text()
    assert "# refused (not_your_turn)" in text and len(read_record(tmp_path / "g.jsonl").events) == 0
    assert s.snapshot("referee")["notices"][-1]["reason"] == "not_your_turn"


@pytest.mark.parametrize("obj, status", [([1, 2], 400), ({"actor": 0}, 400), ({"actor": 0, "type": "fly"}, 400),
                                         ({"actor": "x", "type": "pass"}, 400)])
def test_malformed_events_are_400_and_change_nothing(tmp_path, obj, status):
    _, s = pennant(tmp_path)
    before = (tmp_path / "g.jsonl").read_text()
    with pytest.raises(SessionError) as exc:
        s.submit(obj, "referee")
    assert exc.value.status == status and str(exc.value).endswith(".")
    assert (tmp_path / "g.jsonl").read_text() == before and s.revision == 0


def test_roles(tmp_path):
    game, s = pennant(tmp_path)
    ev = game.events[0]
    with pytest.raises(SessionError) as exc:
        s.submit(ev.to_json(), None)
    assert exc.value.status == 403
    with pytest.raises(SessionError) as exc:
        s.submit(ev.to_json(), 1 - ev.actor)
    assert exc.value.status == 403 and exc.value.reason == "not_your_event"
    assert s.submit(ev.to_json(), ev.actor)["ok"]
    with pytest.raises(SessionError):
        s.role_of("not-a-token")
    assert s.role_of(s.tokens["referee"]) == "referee" and s.role_of(s.tokens["1"]) == 1 and s.role_of(None) is None


def _desert(tmp_path):
    from assistant.games.forbidden_desert.simulate import random_setup

    setup = random_setup(random.Random(3), n_players=2)
    return Session.start("forbidden-desert", setup, None, tmp_path / "fd.jsonl")


def test_undo_within_the_turn_only(tmp_path):
    s = _desert(tmp_path)
    p = s.game.to_move(s.state)
    moves = [e for e in s.game.legal_events(s.state) if e.type == "move"]
    s.submit(moves[0].to_json(), p)
    assert s.can_undo(p) and s.can_undo("referee") and not s.can_undo(1 - p) and not s.can_undo(None)
    with pytest.raises(SessionError) as exc:
        s.undo(1 - p)
    assert exc.value.status == 403
    s.undo(p)
    assert s.state == s.start_state and s.applied == []
    assert read_record(tmp_path / "fd.jsonl").events == ()             # the record was rewritten
    assert "# undone:" in (tmp_path / "fd.jsonl").read_text()
    s.submit(moves[0].to_json(), p)
    s.submit({"actor": p, "type": "end_turn"}, p)                      # the turn passed: no undo
    assert not s.can_undo(p) and not s.can_undo("referee")
    with pytest.raises(SessionError) as exc:
        s.undo("referee")
    assert exc.value.status == 409 and exc.value.reason == "undo_barrier"


def test_an_excavation_cannot_be_undone(tmp_path):
    s = _desert(tmp_path)
    for _ in range(40):                                              # walk until a dig is legal
        p = s.game.to_move(s.state)
        legal = s.game.legal_events(s.state)
        digs = [e for e in legal if e.type == "excavate"]
        if digs and isinstance(p, int):
            s.submit(digs[0].to_json(), "referee")
            assert not s.can_undo("referee")
            return
        pick = next(e for e in legal if e.type in ("move", "remove_sand", "end_turn", "draw_storm", "storm_card"))
        s.submit(pick.to_json(), "referee")
    pytest.fail("no excavation became legal in 40 events")


# -- secrets: what one seat's snapshot may contain ---------------------------------------------------

def _everything(s: Session, role):
    snap = dict(s.snapshot(role))
    snap.pop("revision")
    return json.dumps(snap, sort_keys=True)


def test_a_walker_never_sees_its_own_position_nor_the_public_table(tmp_path, island_pair):
    """Seat 1's true hex is seat 0's secret: seat 1's and the public snapshots are the same
    whichever hex of the same terrain seat 1 landed on (it sees its start tile, §5.3, so the
    terrain is its to know); seat 0's differ (it knows)."""
    island = load_map("example")
    first = island_pair(tmp_path / "probe")[0]
    landed = to_axial(*first.header["setup"]["landing"][1])
    twin = next(h for h in sorted(island.featureless_land, reverse=True)
                if h != landed and island.terrain(h) == island.terrain(landed))
    a, b = island_pair(tmp_path, landing=list(to_offset(*twin)))
    assert a.header["setup"]["landing"][1] != b.header["setup"]["landing"][1]
    assert _everything(a, 1) == _everything(b, 1)
    assert _everything(a, None) == _everything(b, None)
    assert _everything(a, 0) != _everything(b, 0)


def test_a_clue_is_seen_by_its_learner_only(tmp_path, island_pair):
    a, b = island_pair(tmp_path, swap_clue="B2")
    assert a.snapshot(0)["view"]["clues"] != b.snapshot(0)["view"]["clues"]
    assert _everything(a, 1) == _everything(b, 1)
    assert _everything(a, None) == _everything(b, None)


def test_each_player_chooses_where_the_other_lands_before_the_first_event(tmp_path, island_pair):
    s, _ = island_pair(tmp_path / "a")                  # a set-up, then two events: too late to change
    import pytest as _pytest

    with _pytest.raises(SessionError) as exc:
        s.amend_setup({"landing": [3, 3]}, 0)
    assert exc.value.status == 409
    fresh = Session.start("discovery-island", s.header["setup"], None, tmp_path / "b.jsonl")
    island = load_map("example")
    land = sorted(island.featureless_land)
    target = list(to_offset(*land[7]))
    assert fresh.amend_setup({"landing": target}, 0) == {"ok": True}          # player 1 places player 2
    assert fresh.header["setup"]["landing"][1] == target
    assert read_record(tmp_path / "b.jsonl").header["setup"]["landing"][1] == target
    assert fresh.snapshot(0)["view"]["opponent_position"] == target
    with _pytest.raises(SessionError) as exc:
        fresh.amend_setup({"equipment": [[], []]}, 0)
    assert exc.value.status == 403
    sea = next([c, r] for c in range(island.width) for r in range(island.height)
               if island.terrain(to_axial(c, r)) == "sea")
    with _pytest.raises(SessionError) as exc:
        fresh.amend_setup({"landing": sea}, 1)
    assert exc.value.status == 400 and "landing" in str(exc.value)
    assert fresh.header["setup"]["landing"][1] == target                      # nothing lost


def test_an_undo_keeps_the_log_of_refusals_and_earlier_undos(tmp_path):
    s = _desert(tmp_path)
    p = s.game.to_move(s.state)
    with pytest.raises(SessionError):
        s.submit({"actor": 1 - p, "type": "end_turn"}, "referee")          # out of turn: refused
    moves = [e for e in s.game.legal_events(s.state) if e.type == "move"]
    for k in range(2):
        s.submit(moves[k].to_json(), p)
        s.undo(p)
    text = (tmp_path / "fd.jsonl").read_text()
    assert text.count("# refused") == 1 and text.count("# undone") == 2


def test_a_player_cannot_undo_what_the_referee_entered_for_it(tmp_path):
    s = _desert(tmp_path)
    p = s.game.to_move(s.state)
    move = next(e for e in s.game.legal_events(s.state) if e.type == "move")
    s.submit(move.to_json(), "referee")                                  # e.g. the camera's commit
    assert not s.can_undo(p) and s.can_undo("referee")


def test_the_record_and_its_tokens_are_readable_by_their_owner_only(tmp_path):
    """The record holds every secret (layout faces, deck orders): mode 0600 when it is made, after
    an undo rewrote it, and after an older record written with 0644 is resumed."""
    import os
    import stat

    def mode(path):
        return stat.S_IMODE(os.stat(path).st_mode)

    old = os.umask(0o022)
    try:
        s = _desert(tmp_path)
        record, tokens = tmp_path / "fd.jsonl", tmp_path / "fd.jsonl.tokens.json"
        assert mode(record) == 0o600 and mode(tokens) == 0o600
        p = s.game.to_move(s.state)
        s.submit(next(e for e in s.game.legal_events(s.state) if e.type == "move").to_json(), p)
        assert mode(record) == 0o600
        s.undo(p)
        assert mode(record) == 0o600
        os.chmod(record, 0o644)                                  # a record from an older version
        Session.resume(record)
        assert mode(record) == 0o600
    finally:
        os.umask(old)
