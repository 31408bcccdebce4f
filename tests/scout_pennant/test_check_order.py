"""The reason codes of ``shared/rules/scout-pennant.md`` §5.3 where two rules fail at once: the
first in the table's order must be reported. Also the limited supply (§5.1) and pass rules
that the worked examples do not reach."""

from __future__ import annotations

import json

import pytest

from assistant.check import check_record
from assistant.records import parse_record

OK = "ok"
TWO = [{"seat": 0, "colour": "red"}, {"seat": 1, "colour": "blue"}]
#: E2's net: forest (0,2) with inputs (0,3), (1,2) and output (0,1)
MERGE = {"clearings": [[0, 3], [1, 2], [0, 1]], "forests": [[0, 2]],
         "arrows": [{"from": [0, 3], "to": [0, 2]}, {"from": [1, 2], "to": [0, 2]}, {"from": [0, 2], "to": [0, 1]}]}


def verdicts(setup: dict, events: list[dict]) -> list[str]:
    header = {"format": "tabletop-record/1", "game": "scout-pennant", "setup": {"players": TWO, **setup}}
    text = "\n".join(json.dumps(o) for o in [header, *events]) + "\n"
    report = check_record(parse_record(text), keep_going=True)
    return [OK if v["ok"] else v["reason"] for v in report.verdicts]


def fire(cell, actor=0):
    return {"actor": actor, "type": "fire", "cell": cell}


def build(cell, piece, arrows, actor=0):
    return {"actor": actor, "type": "build", "cell": cell, "piece": piece, "arrows": arrows}


def patrols(*items):
    return [{"seat": s, "cell": c} for s, c in items]


@pytest.mark.parametrize("position,cell,code", [
    ({}, [0, 9], "off_board"),
    ({}, [0, 4], "not_a_forest"),                      # a start clearing
    ({}, [2, 2], "not_a_forest"),                      # an empty cell
    # one input empty, the other an opponent's: the empty input is reported first
    ({**MERGE, "patrols": patrols((1, [1, 2]))}, [0, 2], "forest_not_enabled"),
    # an opponent on an input and on the output: input_not_yours first
    ({**MERGE, "patrols": patrols((0, [0, 3]), (1, [1, 2]), (1, [0, 1]))}, [0, 2], "input_not_yours"),
])
def test_fire_order(position, cell, code):
    assert verdicts({"position": position}, [fire(cell)]) == [code]


def test_output_occupied_comes_before_base_too_small():
    split = {"clearings": [[0, 3], [0, 1], [1, 1]], "forests": [[0, 2]],
             "arrows": [{"from": [0, 3], "to": [0, 2]}, {"from": [0, 2], "to": [0, 1]}, {"from": [0, 2], "to": [1, 1]}],
             "patrols": patrols((0, [0, 3]), (0, [0, 4]), (1, [0, 1]))}
    assert verdicts({"pawns_per_player": 2, "position": split}, [fire([0, 2])]) == ["output_occupied"]
    split["patrols"] = patrols((0, [0, 3]), (0, [0, 4]))
    assert verdicts({"pawns_per_player": 2, "position": split}, [fire([0, 2])]) == ["base_too_small"]


@pytest.mark.parametrize("event,code", [
    (build([0, 4], "forest", []), "cell_occupied"),               # a start, before no_arrow
    (build([0, 0], "forest", [{"to": [9, 9]}]), "cell_occupied"),
    (build([0, 9], "forest", []), "off_board"),
    # arrows one at a time, in list order
    (build([1, 3], "forest", [{"from": [0, 3]}, {"to": [2, 1]}]), "arrow_to_empty_cell"),
    (build([1, 3], "forest", [{"to": [2, 1]}, {"from": [0, 3]}]), "not_neighbour"),
    (build([1, 3], "forest", [{"from": [0, 4]}, {"to": [1, 4]}]), "off_board"),      # (1,4) is 5 steps out
    (build([1, 3], "forest", [{"to": [9, 9]}]), "off_board"),                        # not a neighbour either
    (build([1, 3], "forest", [{"from": [0, 4]}, {"to": [0, 4]}, {"to": [5, 5]}]), "duplicate_arrow"),
    (build([1, 3], "forest", [{"to": [1, 3]}]), "not_neighbour"),                    # the cell itself
    (build([1, 3], "clearing", [{"to": [0, 4]}]), "arrow_between_same_kind"),
])
def test_build_order(event, code):
    assert verdicts({}, [event]) == [code]


def test_limited_supply_counts_pieces_and_arrows():
    setup = {"supply": {"arrow": 2, "clearing": 0}}
    events = [build([1, 3], "forest", [{"from": [0, 4]}, {"to": [1, 2]}]),          # (1,2) is empty
              build([0, 3], "forest", [{"from": [0, 4]}]),                          # arrows 2 -> 1
              build([0, -3], "forest", [{"from": [0, -4]}], actor=1),               # arrows 1 -> 0
              build([0, 2], "clearing", [{"from": [0, 3]}]),                        # no clearing left
              build([1, 3], "forest", [{"from": [0, 4]}])]                          # no arrow left
    assert verdicts(setup, events) == ["arrow_to_empty_cell", OK, OK, "supply_exhausted", "supply_exhausted"]
    header = {"format": "tabletop-record/1", "game": "scout-pennant", "setup": {"players": TWO, **setup}}
    text = "\n".join(json.dumps(o) for o in [header, events[1], events[2]]) + "\n"
    assert check_record(parse_record(text)).summary["supply"] == {"clearing": 0, "forest": None, "arrow": 0}


def test_too_few_arrows_left_for_the_build():
    # custom starts two steps out: forest (0,1) can join red's start (0,2) and the finish
    starts = [{"seat": 0, "colour": "red", "start": [0, 2]}, {"seat": 1, "colour": "blue", "start": [0, -2]}]
    events = [build([0, 1], "forest", [{"from": [0, 2]}, {"to": [0, 0]}])]
    assert verdicts({"players": starts, "supply": {"arrow": 1}}, events) == ["supply_exhausted"]
    assert verdicts({"players": starts, "supply": {"arrow": 2}}, events) == [OK]


def test_pass_is_legal_only_without_a_move():
    # no arrows left and a full base blocked at the start: only pass remains
    setup = {"pawns_per_player": 1, "supply": {"arrow": 0}, "position": {"patrols": patrols((0, [0, 4]))}}
    assert verdicts(setup, [{"actor": 0, "type": "pass"}]) == [OK]
    setup["supply"] = {"arrow": 1}
    assert verdicts(setup, [{"actor": 0, "type": "pass"}]) == ["move_available_cannot_pass"]


def test_a_refused_event_changes_nothing():
    header = {"format": "tabletop-record/1", "game": "scout-pennant", "setup": {"players": TWO}}
    text = "\n".join(json.dumps(o) for o in [header, fire([0, 4])]) + "\n"
    record = parse_record(text)
    report = check_record(record)
    assert report.state is record.start
    assert report.summary["to_move"] == 0 and report.summary["events"] == 0
