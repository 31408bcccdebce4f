"""Scout Pennant records: malformed headers and events (§5.1, §5.3), the event round trip, and
the command line (``python -m assistant check``) with its exit statuses 0, 1 and 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from assistant.games import MalformedError, get_game
from assistant.games.scout_pennant import GAME
from assistant.records import parse_record, write_record

REPO = Path(__file__).resolve().parents[2]
TWO = [{"seat": 0, "colour": "red"}, {"seat": 1, "colour": "blue"}]
NET = {"clearings": [[0, 2]], "forests": [[0, 3]],
       "arrows": [{"from": [0, 4], "to": [0, 3]}, {"from": [0, 3], "to": [0, 2]}]}


def header(**setup) -> str:
    return json.dumps({"format": "tabletop-record/1", "game": "scout-pennant", "setup": {"players": TWO, **setup}})


def lines(*objs) -> str:
    return "\n".join(o if isinstance(o, str) else json.dumps(o) for o in objs) + "\n"


def players(*colours, **extra):
    return [{"seat": i, "colour": c, **({k: v[i] for k, v in extra.items()})} for i, c in enumerate(colours)]


HEADER_CASES = [
    ({"radius": 1}, "setup.radius"),
    ({"radius": "4"}, "setup.radius"),
    ({"players": TWO[:1]}, "setup.players"),
    ({"players": players(*"abcdefg")}, "setup.players"),
    ({"players": [{"seat": 1, "colour": "red"}, {"seat": 0, "colour": "blue"}]}, "setup.players[0].seat"),
    ({"players": players("red", "red")}, "setup.players[1].colour"),
    ({"players": players("", "blue")}, "setup.players[0].colour"),
    ({"players": [{"seat": 0, "colour": "red"}, {"seat": 1, "colour": 7}]}, "setup.players[1].colour"),
    ({"players": [{"seat": 0}, {"seat": 1, "colour": "blue"}]}, "setup.players[0].colour"),
    ({"players": [{"seat": 0, "colour": "red", "hat": 1}, {"seat": 1, "colour": "blue"}]}, "setup.players[0].hat"),
    ({"players": [{"seat": 0, "colour": "red", "start": [0, 4]}, {"seat": 1, "colour": "blue"}]},
     "setup.players[1].start"),
    ({"players": [{"seat": 0, "colour": "red"}, {"seat": 1, "colour": "blue", "start": [0, 4]}]},
     "setup.players[1].start"),
    ({"players": players("red", "blue", start=[[0, 4], [0, -3]])}, "setup.players[1].start"),
    ({"players": players("red", "blue", start=[[0, 4], [0, 4]])}, "setup.players[1].start"),
    ({"players": players("red", "blue", start=[[0, 0], [0, 1]])}, "setup.players[0].start"),
    ({"players": players("red", "blue", start=[[0, 5], [0, -5]])}, "setup.players[0].start"),
    ({"players": players("red", "blue", start=[[0, 4], "N"])}, "setup.players[1].start"),
    ({"pawns_per_player": 0}, "setup.pawns_per_player"),
    ({"variant": "dice"}, "setup.variant"),
    ({"first_player": 2}, "setup.first_player"),
    ({"rolls": [1, 2]}, "setup.rolls"),
    ({"variant": "d8", "rolls": [1, 9]}, "setup.rolls[1]"),
    ({"variant": "d8", "rolls": 3}, "setup.rolls"),
    ({"supply": {"forest": -1}}, "setup.supply.forest"),
    ({"supply": {"tree": 1}}, "setup.supply.tree"),
    ({"supply": 5}, "setup.supply"),
    ({"colour": "red"}, "setup.colour"),
    ({"position": {"clearings": [[0, 0]]}}, "setup.position.clearings[0]"),
    ({"position": {"clearings": [[0, 4]]}}, "setup.position.clearings[0]"),
    ({"position": {"forests": [[0, 5]]}}, "setup.position.forests[0]"),
    ({"position": {"forests": [[0, 3], [0, 3]]}}, "setup.position.forests[1]"),
    ({"position": {"clearings": [[0, 3]], "forests": [[0, 3]]}}, "setup.position.forests[0]"),
    ({"position": {"clearings": [[0, 3]]}}, "setup.position.clearings[0]"),
    ({"position": {**NET, "forests": [[0, 3], [2, 2]]}}, "setup.position.forests[1]"),
    ({"position": {"forests": [[0, 2]], "arrows": [{"from": [0, 4], "to": [0, 2]}]}}, "setup.position.arrows[0]"),
    ({"position": {"clearings": [[0, 3]], "arrows": [{"from": [0, 4], "to": [0, 3]}]}}, "setup.position.arrows[0]"),
    ({"position": {"forests": [[0, 3]], "arrows": [{"from": [0, 2], "to": [0, 3]}]}}, "setup.position.arrows[0]"),
    ({"position": {"forests": [[0, 3]], "arrows": [{"from": [0, 4], "to": [0, 3]}, {"from": [0, 3], "to": [0, 4]}]}},
     "setup.position.arrows[1]"),
    ({"position": {"forests": [[0, 3]], "arrows": [{"from": [0, 4]}]}}, "setup.position.arrows[0].to"),
    ({"position": {**NET, "patrols": [{"seat": 0, "cell": [0, 3]}]}}, "setup.position.patrols[0].cell"),
    ({"position": {**NET, "patrols": [{"seat": 0, "cell": [0, 2]}, {"seat": 1, "cell": [0, 2]}]}},
     "setup.position.patrols[1].cell"),
    ({"pawns_per_player": 1, "position": {**NET, "patrols": [{"seat": 0, "cell": [0, 2]}, {"seat": 0, "cell": [0, 4]}]}},
     "setup.position.patrols[1]"),
    ({"position": {**NET, "patrols": [{"seat": 2, "cell": [0, 2]}]}}, "setup.position.patrols[0].seat"),
    ({"position": {**NET, "patrols": [{"seat": 0, "cell": [0, 2]}], "pennants": [1]}}, "setup.position.pennants[0]"),
    ({"position": {**NET, "patrols": [{"seat": 0, "cell": [0, 2]}], "pennants": [0, 0]}}, "setup.position.pennants[1]"),
    ({"position": {"trees": []}}, "setup.position.trees"),
]


@pytest.mark.parametrize("setup,field", HEADER_CASES)
def test_malformed_header_names_the_field(setup, field):
    with pytest.raises(MalformedError) as err:
        parse_record(lines(header(**setup)))
    assert (err.value.line, err.value.field) == (1, field)
    assert str(err.value).startswith(f"line 1: {field}")


EVENT_CASES = [
    ({"actor": 0, "type": "walk"}, "type"),
    ({"actor": 0}, "type"),
    ({"type": "pass"}, "actor"),
    ({"actor": "storm", "type": "pass"}, "actor"),
    ({"actor": 2, "type": "pass"}, "actor"),
    ({"actor": -1, "type": "pass"}, "actor"),
    ({"actor": True, "type": "pass"}, "actor"),
    ({"actor": 0, "type": "fire"}, "cell"),
    ({"actor": 0, "type": "fire", "cell": [0]}, "cell"),
    ({"actor": 0, "type": "fire", "cell": [0, "1"]}, "cell"),
    ({"actor": 0, "type": "fire", "cell": [0, 1.5]}, "cell"),
    ({"actor": 0, "type": "build", "cell": [0, 3], "piece": "river", "arrows": [{"to": [0, 4]}]}, "piece"),
    ({"actor": 0, "type": "build", "cell": [0, 3], "arrows": [{"to": [0, 4]}]}, "piece"),
    ({"actor": 0, "type": "build", "cell": [0, 3], "piece": "forest"}, "arrows"),
    ({"actor": 0, "type": "build", "cell": [0, 3], "piece": "forest", "arrows": {"to": [0, 4]}}, "arrows"),
    ({"actor": 0, "type": "build", "cell": [0, 3], "piece": "forest", "arrows": [{}]}, "arrows[0]"),
    ({"actor": 0, "type": "build", "cell": [0, 3], "piece": "forest", "arrows": [[0, 4]]}, "arrows[0]"),
    ({"actor": 0, "type": "build", "cell": [0, 3], "piece": "forest",
      "arrows": [{"to": [0, 4]}, {"to": [0, 2], "from": [0, 4]}]}, "arrows[1]"),
    ({"actor": 0, "type": "build", "cell": [0, 3], "piece": "forest", "arrows": [{"to": [1]}]}, "arrows[0].to"),
    ({"actor": 0, "type": "roll", "value": 9}, "value"),
    ({"actor": 0, "type": "roll", "value": 0}, "value"),
    ({"actor": 0, "type": "roll", "value": "3"}, "value"),
    ({"actor": 0, "type": "roll"}, "value"),
]


@pytest.mark.parametrize("event,field", EVENT_CASES)
def test_malformed_event_names_line_and_field(event, field):
    text = lines("# a comment", header(), {"actor": 0, "type": "enter"}, "", event)
    with pytest.raises(MalformedError) as err:
        parse_record(text)
    assert (err.value.line, err.value.field) == (5, field)


def test_well_typed_impossible_values_are_refused_not_malformed():
    """Off-board cells, arrows to non-neighbours and rolls in the free variant are judged."""
    text = lines(header(), {"actor": 0, "type": "fire", "cell": [9, 9]},
                 {"actor": 0, "type": "build", "cell": [0, 3], "piece": "forest", "arrows": [{"to": [7, 7]}]},
                 {"actor": 0, "type": "roll", "value": 8})
    record = parse_record(text)
    assert len(record.events) == 3


def test_events_round_trip_with_extras():
    objs = [{"actor": 0, "type": "build", "cell": [0, 3], "piece": "forest",
             "arrows": [{"from": [0, 4]}, {"to": [1, 2]}], "t": 3.5, "note": "first"},
            {"actor": 1, "type": "fire", "cell": [-1, 2], "mood": "keen"},
            {"actor": 0, "type": "roll", "value": 8},
            {"actor": 1, "type": "take_from_finish"}]
    for obj in objs:
        ev = GAME.parse_event(obj)
        assert ev.to_json() == obj
        assert json.loads(json.dumps(ev.to_json())) == obj
        assert GAME.parse_event(ev.to_json()) == ev
        hash(ev)


def test_registry_finds_the_game():
    assert get_game("scout-pennant") is GAME
    assert GAME.id == "scout-pennant"


def test_write_record_then_parse_gives_the_same_events():
    start = GAME.new_state({"players": TWO}, {})
    events = GAME.legal_events(start)[:3]
    record = parse_record(write_record("scout-pennant", {"players": TWO}, None, events))
    assert [ev for _line, ev in record.events] == events


# --- the command line ---------------------------------------------------------------------------
E12 = """\
{"format":"tabletop-record/1","game":"scout-pennant","setup":{"players":[{"seat":0,"colour":"red"},{"seat":1,"colour":"blue"}]}}
{"actor":0,"type":"build","cell":[0,3],"piece":"forest","arrows":[{"from":[0,4]}]}
{"actor":1,"type":"build","cell":[0,-3],"piece":"forest","arrows":[{"from":[0,-4]}]}
{"actor":0,"type":"build","cell":[0,2],"piece":"clearing","arrows":[{"from":[0,3]}]}
{"actor":1,"type":"build","cell":[0,-2],"piece":"clearing","arrows":[{"from":[0,-3]}]}
{"actor":0,"type":"build","cell":[0,1],"piece":"forest","arrows":[{"from":[0,2]},{"to":[0,0]}]}
{"actor":1,"type":"build","cell":[0,-1],"piece":"forest","arrows":[{"from":[0,-2]},{"to":[0,0]}]}
{"actor":0,"type":"enter"}
{"actor":1,"type":"enter"}
{"actor":0,"type":"fire","cell":[0,3]}
{"actor":1,"type":"fire","cell":[0,-3]}
{"actor":0,"type":"fire","cell":[0,1]}
{"actor":1,"type":"build","cell":[1,-4],"piece":"forest","arrows":[{"from":[0,-4]}]}
{"actor":0,"type":"take_from_finish"}
"""


def _cli(tmp_path, text: str, *args: str) -> subprocess.CompletedProcess:
    path = tmp_path / "record.jsonl"
    path.write_text(text, encoding="utf-8")
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return subprocess.run([sys.executable, "-m", "assistant", "check", str(path), *args],
                          capture_output=True, text=True, cwd=REPO, env=env, timeout=120)


def test_cli_e12_all_legal_exits_0(tmp_path):
    proc = _cli(tmp_path, E12)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert out[:-1] == [{"index": i, "ok": True} for i in range(1, 14)]
    s = out[-1]["summary"]
    assert (s["result"], s["winner"], s["events"], s["game_over"]) == ("won", 0, 13, True)


def test_cli_illegal_event_exits_1(tmp_path):
    text = E12 + '{"actor":1,"type":"pass"}\n{"actor":1,"type":"enter"}\n'
    proc = _cli(tmp_path, text)
    assert proc.returncode == 1
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(out) == 15                                     # stops at the first refusal
    assert out[13]["index"] == 14 and out[13]["ok"] is False and out[13]["reason"] == "game_over"
    assert set(out[13]) == {"index", "ok", "reason", "message"} and out[13]["message"]
    proc = _cli(tmp_path, text, "--continue")
    assert proc.returncode == 1
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [v["reason"] for v in out[13:15]] == ["game_over", "game_over"] and "summary" in out[15]


def test_cli_malformed_exits_2_with_one_line(tmp_path):
    text = E12.replace('{"actor":0,"type":"fire","cell":[0,3]}', '{"actor":0,"type":"fire","cell":[0]}')
    proc = _cli(tmp_path, text)
    assert proc.returncode == 2
    assert proc.stdout == ""
    err = proc.stderr.strip().splitlines()
    assert len(err) == 1 and "line 10: cell: " in err[0]


def test_cli_malformed_header_exits_2(tmp_path):
    text = E12.replace('"colour":"blue"', '"colour":"red"')
    proc = _cli(tmp_path, text)
    assert proc.returncode == 2 and proc.stdout == ""
    err = proc.stderr.strip().splitlines()
    assert len(err) == 1 and "line 1: setup.players[1].colour: " in err[0]


def test_cli_pnml_export_of_a_record(tmp_path):
    """``assistant pnml`` writes the net after the record's events; the file reads back."""
    import xml.etree.ElementTree as ET
    path = tmp_path / "record.jsonl"
    path.write_text(E12, encoding="utf-8")
    out = tmp_path / "net.pnml"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-m", "assistant", "pnml", str(path), "-o", str(out)],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    ns = {"p": "http://www.pnml.org/version-2009/grammar/pnml"}
    net = ET.parse(out).getroot().find("p:net", ns)
    assert net.find("p:name/p:text", ns).text == "scout-pennant R=4 events=13"
    page = net.find("p:page", ns)
    assert len(page.findall("p:place", ns)) == 5 and len(page.findall("p:transition", ns)) == 5
    assert len(page.findall("p:arc", ns)) == 9
    wrong = subprocess.run([sys.executable, "-m", "assistant", "pnml", str(REPO / "examples" / "forbidden-desert" /
                                                                            "sample-game.jsonl")],
                           capture_output=True, text=True, env=env, timeout=120)
    assert wrong.returncode == 2 and "scout-pennant" in wrong.stderr
