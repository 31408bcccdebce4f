"""Discovery Island rulings at their alternatives, set-up checks, and secrets kept by the views
(regressions found by a review against the rules file)."""

from __future__ import annotations

import json

import pytest

from assistant.games import MalformedError
from assistant.games.discovery_island.geometry import to_offset
from assistant.games.discovery_island.views import summary, view
from assistant.records import parse_record

from .test_worked_examples import FRAGMENT, header_h, parse_shorthand


def run(tmp_path, events, fragment=FRAGMENT, **header_kw):
    (tmp_path / "fragment.csv").write_text(fragment)
    head = header_h(**header_kw)
    record = parse_record("\n".join(json.dumps(o) for o in [head] + events) + "\n", base_dir=tmp_path)
    state = record.start
    verdicts = []
    for _line, ev in record.events:
        after = record.game.apply(state, ev)
        verdicts.append("ok" if after else after.reason)
        state = after if after else state
    return verdicts, state


def test_unpaid_label_stays_hidden_from_the_claimant_and_the_table(tmp_path):
    """label_revealed on_payment + claimed on entry: the walker does not know which checkpoint
    it stands on, so neither its view nor the table's may name it; the opponent's may."""
    fragment = FRAGMENT.replace("5,4,jungle,none,", "5,4,jungle,checkpoint,A1")
    verdicts, state = run(tmp_path, [parse_shorthand("P0 enter_checkpoint SE A2")], fragment=fragment,
                          rulings={"label_revealed": "on_payment", "checkpoint_claimed_by": "entry"})
    assert verdicts == ["ok"] and len(state.candidates[0]) == 2
    assert "A2" not in view(state, 0)["checkpoints_taken"]
    assert "A2" not in view(state, None)["checkpoints_taken"]
    assert view(state, 1)["checkpoints_taken"] == {"A2": 0}
    assert summary(state)["clues"][0] == {"A2": None}     # claimed, not yet read
    verdicts, state = run(tmp_path, [parse_shorthand("P0 enter_checkpoint SE A2"), parse_shorthand("P0 learn A2")],
                          fragment=fragment, rulings={"label_revealed": "on_payment", "checkpoint_claimed_by": "entry"})
    assert verdicts == ["ok", "ok"] and len(state.candidates[0]) == 1
    assert view(state, None)["checkpoints_taken"] == {"A2": 0}


def test_learning_a_clue_where_one_landed_pins_the_position(tmp_path):
    # H lands P0 on (2,2); land it on the checkpoint instead
    (tmp_path / "fragment.csv").write_text(FRAGMENT)
    head = header_h(rulings={"start_on_feature": True})
    head["setup"]["landing"][0] = [3, 2]
    record = parse_record("\n".join(json.dumps(o) for o in [head, parse_shorthand("P0 learn A2")]) + "\n",
                          base_dir=tmp_path)
    start = record.start
    assert len(start.candidates[0]) == 7          # the six jungle hexes and the jungle checkpoint
    after = record.game.apply(start, record.events[0][1])
    assert after and {to_offset(*h) for h in after.candidates[0]} == {(3, 2)}


def test_landing_points_are_checked(tmp_path):
    (tmp_path / "fragment.csv").write_text(FRAGMENT)
    head = header_h(rulings={"first_tile_points_count": True})
    with pytest.raises(MalformedError) as err:
        parse_record(json.dumps(head) + "\n", base_dir=tmp_path)
    assert err.value.field == "setup.landing_points"
    head["setup"]["landing_points"] = [99, 2]
    with pytest.raises(MalformedError) as err:
        parse_record(json.dumps(head) + "\n", base_dir=tmp_path)
    assert err.value.field == "setup.landing_points[0]" and err.value.reason.startswith("points_out_of_range")
    head["setup"]["landing_points"] = [4, 2]
    record = parse_record(json.dumps(head) + "\n" + json.dumps(parse_shorthand("P0 N jungle/4")) + "\n",
                          base_dir=tmp_path)
    after = record.game.apply(record.start, record.events[0][1])
    assert after.sums[0] == 8                     # 4 from the landing tile + 4
    plain = header_h()
    plain["setup"]["landing_points"] = [4, 2]
    with pytest.raises(MalformedError):
        parse_record(json.dumps(plain) + "\n", base_dir=tmp_path)


@pytest.mark.parametrize("checkpoints", [
    "missing", {"A1": {"type": "terrain", "terrain": "lava"}}, "bogus",
])
def test_every_broken_deal_is_bad_checkometer(tmp_path, checkpoints):
    (tmp_path / "fragment.csv").write_text(FRAGMENT)
    head = header_h()
    deal = dict(head["setup"]["checkometer"]["checkpoints"])
    if checkpoints == "missing":
        del head["setup"]["checkometer"]["checkpoints"]
    elif checkpoints == "bogus":
        head["setup"]["checkometer"]["checkpoints"] = "bogus"
    else:
        head["setup"]["checkometer"]["checkpoints"] = {**deal, **checkpoints}
    with pytest.raises(MalformedError) as err:
        parse_record(json.dumps(head) + "\n", base_dir=tmp_path)
    assert err.value.reason.startswith("bad_checkometer")


def test_undefined_fields_are_kept_whatever_their_name(tmp_path):
    (tmp_path / "fragment.csv").write_text(FRAGMENT)
    obj = {"actor": 0, "type": "end_march", "terrain": "x", "clue": 1, "foo": 2}
    record = parse_record(json.dumps(header_h()) + "\n" + json.dumps(obj) + "\n", base_dir=tmp_path)
    assert record.events[0][1].to_json() == obj


def test_cost_rulings_work_with_the_default_data(tmp_path):
    verdicts, state = run(tmp_path, [parse_shorthand("P0 enter_checkpoint SE A2")],
                          rulings={"checkpoint_entry_cost": 3})
    assert verdicts == ["ok"] and state.sums[0] == 3


def test_map_header_and_fragment_line_are_exact():
    from assistant.games.discovery_island.data import DataError
    from assistant.games.discovery_island.island import read_map
    with pytest.raises(DataError):
        read_map(FRAGMENT.replace("col,row,terrain,feature,label", "col, row, terrain, feature, label"))
    with pytest.raises(DataError) as err:
        read_map(FRAGMENT.replace("# fragment\n", "# fragmentation test\n", 1))
    assert err.value.why.startswith("M4")      # not a fragment: all 36 labels are needed
