"""Malformed records: exit status 2, one line naming the line number and the field, nothing judged."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from assistant.games import MalformedError
from assistant.records import parse_record

LAYOUT = [
    ["dune_back", "dune_back", "dune_back", "dune_back", "water_back"],
    ["dune_back", "crash_site", "dune_back", "dune_back", "water_back"],
    ["dune_back", "dune_back", None, "dune_back", "dune_back"],
    ["water_back", "dune_back", "dune_back", "dune_back", "dune_back"],
    ["dune_back", "dune_back", "dune_back", "dune_back", "dune_back"],
]
SETUP = {"players": ["archeologist", "explorer"], "difficulty": "normal", "first_player": 0, "layout": LAYOUT}


def header(**changes):
    h = {"format": "tabletop-record/1", "game": "forbidden-desert", "setup": dict(SETUP)}
    for key, value in changes.items():
        if key.startswith("setup_"):
            h["setup"][key[len("setup_"):]] = value
        else:
            h[key] = value
    return json.dumps(h)


def lines(*objs) -> str:
    return "\n".join(o if isinstance(o, str) else json.dumps(o) for o in objs) + "\n"


END = {"actor": 0, "type": "end_turn"}

CASES = [
    # (record text, line, field)
    (lines(header(), END, "{not json"), 3, "(json)"),
    (lines(header(format="tabletop-record/2")), 1, "format"),
    (lines(header(game="chess")), 1, "game"),
    (lines(header(setup_players=["archeologist"])), 1, "setup.players"),
    (lines(header(setup_players=["archeologist", "wizard"])), 1, "setup.players[1]"),
    (lines(header(setup_first_player=1)), 1, "setup.first_player"),
    (lines(header(setup_difficulty="hard")), 1, "setup.difficulty"),
    (lines(header(setup_layout=[row[:] for row in LAYOUT[:4]])), 1, "setup.layout"),
    (lines(header(setup_layout=[["crash_site"] * 5] + LAYOUT[1:])), 1, "setup.layout"),
    (lines(header(rulings={"jet_pack_while_buried": "yes"})), 1, "rulings.jet_pack_while_buried"),
    (lines(header(rulings={"house_rule": True})), 1, "rulings.house_rule"),
    (lines(header(setup_position={"water": [9, 4]})), 1, "setup.position.water[0]"),
    (lines(header(setup_position={"pawns": [[2, 2], [1, 1]]})), 1, "setup.position.pawns[0]"),
    (lines(header(setup_position={"sand": [[0, 0, 49]]})), 1, "setup.position.sand"),
    (lines(header(), END, {"actor": 0, "type": "fly"}), 3, "type"),
    (lines(header(), {"actor": 0, "type": "move"}), 2, "to"),
    (lines(header(), {"actor": 0, "type": "move", "to": "north"}), 2, "to"),
    (lines(header(), {"actor": 0, "type": "play_equipment", "card": "laser"}), 2, "card"),
    (lines(header(), {"actor": 0, "type": "play_equipment", "card": "dune_blaster"}), 2, "at"),
    (lines(header(), {"actor": 0, "type": "storm_card", "card": "wind_n_1"}), 2, "actor"),
    (lines(header(), {"actor": "storm", "type": "storm_card"}), 2, "card"),
    (lines(header(), {"actor": 0, "type": "end_turn", "t": "soon"}), 2, "t"),
    (lines("# a comment", "", header(), "", END, {"type": "end_turn"}), 6, "actor"),
    (lines(header(), {"actor": 0, "type": "excavate", "reveals": "treasure"}), 2, "reveals"),
]


@pytest.mark.parametrize("text,line,field", CASES)
def test_malformed_record_names_line_and_field(text, line, field):
    with pytest.raises(MalformedError) as err:
        parse_record(text)
    assert (err.value.line, err.value.field) == (line, field)
    assert str(err.value).startswith(f"line {line}: {field}: ")


def test_cli_malformed_exits_2_with_one_line_and_nothing_judged(tmp_path):
    # An illegal event (not_your_turn) comes before the malformed line: nothing may be judged.
    path = tmp_path / "bad.jsonl"
    path.write_text(lines(header(), {"actor": 1, "type": "end_turn"}, END, {"actor": 0, "type": "move", "to": [1]}))
    run = subprocess.run([sys.executable, "-m", "assistant", "check", str(path)], capture_output=True, text=True)
    assert run.returncode == 2
    assert run.stdout == ""
    err = run.stderr.strip().splitlines()
    assert len(err) == 1 and "line 4: to: " in err[0]


def test_cli_missing_file_exits_2(tmp_path):
    run = subprocess.run([sys.executable, "-m", "assistant", "check", str(tmp_path / "none.jsonl")],
                         capture_output=True, text=True)
    assert run.returncode == 2 and run.stdout == ""
    assert len(run.stderr.strip().splitlines()) == 1


def test_unknown_event_fields_are_kept_not_judged():
    record = parse_record(lines(header(), {"actor": 0, "type": "end_turn", "t": 1.5, "note": "hi", "mood": "calm"}))
    (_, event), = record.events
    assert event.to_json() == {"actor": 0, "type": "end_turn", "t": 1.5, "note": "hi", "mood": "calm"}


def test_empty_record_is_malformed():
    with pytest.raises(MalformedError):
        parse_record("# only a comment\n\n")
