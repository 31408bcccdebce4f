"""The worked examples E1..E17 of ``shared/rules/scout-pennant.md`` §6 as tests, with the
variants E6b and E15b.

Each example is the record of §6 verbatim (JSON Lines), parsed with
:func:`assistant.records.parse_record` and judged with :func:`assistant.check.check_record`
with ``keep_going`` (the rules file's "Expected" lines are given "with ``--continue``").
Every event's verdict (ok, or the exact reason code of §5.3) and every "After:" figure is
asserted against the §5.4 summary; intermediate facts the text states are checked on the
record cut after that event.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from assistant.check import check_record
from assistant.records import parse_record

REPO = Path(__file__).resolve().parents[2]
RULES = REPO.parent / "shared" / "rules" / "scout-pennant.md"
OK = "ok"

# --- the records of §6, verbatim --------------------------------------------------------------
E1 = """\
{"format":"tabletop-record/1","game":"scout-pennant","setup":{"players":[{"seat":0,"colour":"red"},{"seat":1,"colour":"blue"}],"position":{"clearings":[[0,2]],"forests":[[0,3]],"arrows":[{"from":[0,4],"to":[0,3]},{"from":[0,3],"to":[0,2]}],"patrols":[{"seat":0,"cell":[0,4]}]}}}
{"actor":0,"type":"fire","cell":[0,3]}
{"actor":1,"type":"fire","cell":[0,3]}
{"actor":1,"type":"take_from_finish"}
"""

E2 = """\
{"format":"tabletop-record/1","game":"scout-pennant","setup":{"players":[{"seat":0,"colour":"red"},{"seat":1,"colour":"blue"}],"position":{"clearings":[[0,3],[1,2],[0,1]],"forests":[[0,2]],"arrows":[{"from":[0,3],"to":[0,2]},{"from":[1,2],"to":[0,2]},{"from":[0,2],"to":[0,1]}],"patrols":[{"seat":0,"cell":[0,3]},{"seat":0,"cell":[1,2]}]}}}
{"actor":0,"type":"fire","cell":[0,2]}
"""

E3 = """\
{"format":"tabletop-record/1","game":"scout-pennant","setup":{"players":[{"seat":0,"colour":"red"},{"seat":1,"colour":"blue"}],"position":{"clearings":[[0,3],[0,1],[1,1],[-1,2]],"forests":[[0,2]],"arrows":[{"from":[0,3],"to":[0,2]},{"from":[0,2],"to":[0,1]},{"from":[0,2],"to":[1,1]},{"from":[0,2],"to":[-1,2]}],"patrols":[{"seat":0,"cell":[0,3]}]}}}
{"actor":0,"type":"fire","cell":[0,2]}
"""

E4 = """\
{"format":"tabletop-record/1","game":"scout-pennant","setup":{"players":[{"seat":0,"colour":"red"},{"seat":1,"colour":"blue"}],"pawns_per_player":2,"position":{"clearings":[[0,3],[0,1],[1,1],[-1,2]],"forests":[[0,2]],"arrows":[{"from":[0,3],"to":[0,2]},{"from":[0,2],"to":[0,1]},{"from":[0,2],"to":[1,1]},{"from":[0,2],"to":[-1,2]}],"patrols":[{"seat":0,"cell":[0,3]},{"seat":0,"cell":[0,4]}]}}}
{"actor":0,"type":"fire","cell":[0,2]}
{"actor":0,"type":"enter"}
"""

E5 = """\
{"format":"tabletop-record/1","game":"scout-pennant","setup":{"players":[{"seat":0,"colour":"red"},{"seat":1,"colour":"blue"}],"position":{"clearings":[[1,2]],"forests":[[1,3]],"arrows":[{"from":[0,4],"to":[1,3]},{"from":[1,2],"to":[1,3]}],"patrols":[{"seat":0,"cell":[0,4]},{"seat":0,"cell":[1,2]}]}}}
{"actor":0,"type":"fire","cell":[1,3]}
"""

E6 = """\
{"format":"tabletop-record/1","game":"scout-pennant","setup":{"players":[{"seat":0,"colour":"red"},{"seat":1,"colour":"blue"}],"position":{"clearings":[[0,1],[1,1]],"forests":[[0,2]],"arrows":[{"from":[0,2],"to":[0,1]},{"from":[0,2],"to":[1,1]}]}}}
{"actor":0,"type":"fire","cell":[0,2]}
{"actor":1,"type":"fire","cell":[0,2]}
"""

E7 = """\
{"format":"tabletop-record/1","game":"scout-pennant","setup":{"players":[{"seat":0,"colour":"red"},{"seat":1,"colour":"blue"}],"position":{"clearings":[[0,3],[0,1]],"forests":[[0,2]],"arrows":[{"from":[0,3],"to":[0,2]},{"from":[0,2],"to":[0,1]}],"patrols":[{"seat":0,"cell":[0,3]},{"seat":1,"cell":[0,1]}]}}}
{"actor":0,"type":"fire","cell":[0,2]}
"""

E8 = """\
{"format":"tabletop-record/1","game":"scout-pennant","setup":{"players":[{"seat":0,"colour":"red"},{"seat":1,"colour":"blue"}],"position":{"clearings":[[0,3],[1,2],[0,1]],"forests":[[0,2]],"arrows":[{"from":[0,3],"to":[0,2]},{"from":[1,2],"to":[0,2]},{"from":[0,2],"to":[0,1]}],"patrols":[{"seat":0,"cell":[0,3]},{"seat":1,"cell":[1,2]}]}}}
{"actor":0,"type":"fire","cell":[0,2]}
"""

E9 = """\
{"format":"tabletop-record/1","game":"scout-pennant","setup":{"players":[{"seat":0,"colour":"red"},{"seat":1,"colour":"blue"}],"position":{"forests":[[1,3]],"arrows":[{"from":[1,3],"to":[0,4]}],"patrols":[{"seat":1,"cell":[0,4]}]}}}
{"actor":0,"type":"enter"}
"""

E10 = """\
{"format":"tabletop-record/1","game":"scout-pennant","setup":{"players":[{"seat":0,"colour":"red"},{"seat":1,"colour":"blue"}]}}
{"actor":0,"type":"pass"}
{"actor":0,"type":"build","cell":[0,3],"piece":"clearing","arrows":[]}
{"actor":0,"type":"build","cell":[0,3],"piece":"clearing","arrows":[{"to":[0,4]}]}
{"actor":0,"type":"build","cell":[0,3],"piece":"forest","arrows":[{"from":[0,2]}]}
{"actor":0,"type":"build","cell":[0,3],"piece":"forest","arrows":[{"from":[0,0]}]}
{"actor":0,"type":"build","cell":[0,3],"piece":"forest","arrows":[{"from":[0,4]},{"to":[0,4]}]}
{"actor":0,"type":"build","cell":[0,4],"piece":"forest","arrows":[{"from":[0,3]}]}
{"actor":0,"type":"build","cell":[0,5],"piece":"forest","arrows":[{"from":[0,4]}]}
{"actor":0,"type":"build","cell":[0,3],"piece":"forest","arrows":[{"from":[0,4]}]}
{"actor":0,"type":"build","cell":[0,2],"piece":"clearing","arrows":[{"from":[0,3]}]}
{"actor":1,"type":"build","cell":[0,3],"piece":"clearing","arrows":[{"to":[0,2]}]}
{"actor":1,"type":"build","cell":[0,2],"piece":"clearing","arrows":[{"from":[0,3]}]}
"""

E11 = """\
{"format":"tabletop-record/1","game":"scout-pennant","setup":{"players":[{"seat":0,"colour":"red"},{"seat":1,"colour":"blue"}],"position":{"clearings":[[0,2]],"forests":[[0,1]],"arrows":[{"from":[0,2],"to":[0,1]},{"from":[0,1],"to":[0,0]}],"patrols":[{"seat":0,"cell":[0,0]},{"seat":0,"cell":[0,4]}]}}}
{"actor":0,"type":"build","cell":[1,3],"piece":"forest","arrows":[{"from":[0,4]}]}
{"actor":0,"type":"pass"}
{"actor":0,"type":"take_from_finish"}
"""

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

E13 = """\
{"format":"tabletop-record/1","game":"scout-pennant","setup":{"players":[{"seat":0,"colour":"red"},{"seat":1,"colour":"blue"}],"variant":"d8","rolls":[5,2,7,4,1,6]}}
{"actor":0,"type":"roll","value":5}
{"actor":0,"type":"pass"}
{"actor":1,"type":"roll","value":2}
{"actor":1,"type":"build","cell":[0,-3],"piece":"forest","arrows":[{"from":[0,-4]}]}
{"actor":0,"type":"roll","value":7}
{"actor":0,"type":"build","cell":[0,3],"piece":"forest","arrows":[{"from":[0,4]}]}
{"actor":0,"type":"enter"}
{"actor":1,"type":"roll","value":4}
{"actor":1,"type":"pass"}
{"actor":0,"type":"roll","value":1}
{"actor":0,"type":"pass"}
{"actor":0,"type":"build","cell":[0,3],"piece":"forest","arrows":[{"from":[0,4]}]}
{"actor":1,"type":"enter"}
{"actor":1,"type":"roll","value":3}
{"actor":1,"type":"roll","value":6}
{"actor":1,"type":"pass"}
"""

E14 = """\
{"format":"tabletop-record/1","game":"scout-pennant","setup":{"players":[{"seat":0,"colour":"red"},{"seat":1,"colour":"blue"}],"position":{"forests":[[1,3]],"arrows":[{"from":[0,4],"to":[1,3]}],"patrols":[{"seat":0,"cell":[0,4]}],"pennants":[0]}}}
{"actor":0,"type":"fire","cell":[1,3]}
{"actor":1,"type":"enter"}
"""

E15 = """\
{"format":"tabletop-record/1","game":"scout-pennant","setup":{"players":[{"seat":0,"colour":"red"},{"seat":1,"colour":"blue"}],"variant":"d8","rolls":[4],"position":{"clearings":[[1,-2]],"forests":[[1,-1]],"arrows":[{"from":[0,0],"to":[1,-1]},{"from":[1,-1],"to":[1,-2]}],"patrols":[{"seat":0,"cell":[0,0]}]}}}
{"actor":0,"type":"roll","value":4}
{"actor":0,"type":"take_from_finish"}
{"actor":0,"type":"fire","cell":[1,-1]}
"""

E16 = """\
{"format":"tabletop-record/1","game":"scout-pennant","setup":{"players":[{"seat":0,"colour":"red"},{"seat":1,"colour":"blue"},{"seat":2,"colour":"green"}],"position":{"clearings":[[0,2]],"forests":[[0,1]],"arrows":[{"from":[0,2],"to":[0,1]},{"from":[0,1],"to":[0,0]}],"patrols":[{"seat":0,"cell":[0,0]}]}}}
{"actor":0,"type":"take_from_finish"}
{"actor":1,"type":"enter"}
{"actor":2,"type":"enter"}
{"actor":0,"type":"enter"}
{"actor":1,"type":"build","cell":[-3,0],"piece":"forest","arrows":[{"from":[-4,0]}]}
"""

E17 = """\
{"format":"tabletop-record/1","game":"scout-pennant","setup":{"players":[{"seat":0,"colour":"red"},{"seat":1,"colour":"blue"}],"pawns_per_player":1,"supply":{"forest":0}}}
{"actor":0,"type":"roll","value":3}
{"actor":0,"type":"build","cell":[0,3],"piece":"forest","arrows":[{"from":[0,4]}]}
{"actor":0,"type":"pass"}
{"actor":0,"type":"enter"}
{"actor":1,"type":"enter"}
{"actor":0,"type":"pass"}
"""

EXAMPLES = [E1, E2, E3, E4, E5, E6, E7, E8, E9, E10, E11, E12, E13, E14, E15, E16, E17]


# --- helpers ----------------------------------------------------------------------------------
def run(text: str, keep_going: bool = True):
    """Parse and check a record; return the :class:`~assistant.check.CheckReport`."""
    return check_record(parse_record(text), keep_going=keep_going)


def outcomes(report) -> list[str]:
    """Per judged event: ``"ok"`` or the reason code."""
    return [OK if v["ok"] else v["reason"] for v in report.verdicts]


def assert_verdicts(report, expected: list[str]) -> None:
    assert outcomes(report) == expected
    assert [v["index"] for v in report.verdicts] == list(range(1, len(expected) + 1))
    for v in report.verdicts:
        if not v["ok"]:
            assert set(v) == {"index", "ok", "reason", "message"}
            assert isinstance(v["message"], str) and v["message"].endswith(".")
    assert report.status == (0 if all(e == OK for e in expected) else 1)


def player(summary: dict, seat: int) -> dict:
    p = summary["players"][seat]
    assert p["seat"] == seat
    return p


def assert_player(summary: dict, seat: int, **expected) -> None:
    p = player(summary, seat)
    for key, value in expected.items():
        assert p[key] == value, f"seat {seat} {key} = {p[key]!r}, expected {value!r}"
    assert p["on_board"] == len(p["patrols"])


def assert_board(summary: dict, clearings: int, forests: int, arrows: int, empty: int) -> None:
    assert summary["board"] == {"clearings": clearings, "forests": forests, "arrows": arrows, "empty": empty}


def lines(text: str) -> list[str]:
    return text.strip().splitlines()


def cut(text: str, n_events: int) -> str:
    """The record with only its first ``n_events`` events."""
    return "\n".join(lines(text)[: 1 + n_events]) + "\n"


def with_setup(text: str, events: list[str] | None = None, rulings: dict | None = None, **setup) -> str:
    """The record with setup keys changed, optionally other events and a ``rulings`` object."""
    header, *rest = lines(text)
    obj = json.loads(header)
    obj["setup"].update(setup)
    if rulings is not None:
        obj["rulings"] = rulings
    return "\n".join([json.dumps(obj), *(rest if events is None else events)]) + "\n"


def all_patrols(summary: dict) -> dict[tuple[int, int], int]:
    return {tuple(c): p["seat"] for p in summary["players"] for c in p["patrols"]}


# --- the records match the rules file ----------------------------------------------------------
@pytest.mark.skipif(not RULES.exists(), reason="the shared rules folder is not next to the repository")
def test_embedded_records_are_the_rules_files():
    blocks = re.findall(r"```jsonl\n(.*?)```", RULES.read_text(encoding="utf-8"), re.S)
    assert blocks == EXAMPLES


# --- E1..E9: firing, entering, taking ----------------------------------------------------------
def test_e1_plain_firing():
    report = run(E1)
    assert_verdicts(report, [OK, "forest_not_enabled", "no_patrol_on_finish"])
    s = report.summary
    assert_player(s, 0, patrols=[[0, 2]], base=3)
    assert_player(s, 1, patrols=[], base=4)
    assert s["to_move"] == 1 and s["events"] == 1 and s["result"] == "ongoing"
    assert_board(s, 4, 1, 2, 56)


def test_e1_without_continue_stops_at_the_first_refusal():
    report = run(E1, keep_going=False)
    assert_verdicts(report, [OK, "forest_not_enabled"])
    assert report.summary["events"] == 1


def test_e2_merge_two_in_one_out():
    report = run(E2)
    assert_verdicts(report, [OK])
    s = report.summary
    assert_player(s, 0, patrols=[[0, 1]], base=3)
    assert (0, 3) not in all_patrols(s) and (1, 2) not in all_patrols(s)
    assert s["to_move"] == 1
    assert_board(s, 6, 1, 3, 54)


def test_e3_split_one_in_three_out():
    report = run(E3)
    assert_verdicts(report, [OK])
    s = report.summary
    assert_player(s, 0, patrols=[[-1, 2], [0, 1], [1, 1]], base=1)
    assert s["to_move"] == 1
    assert_board(s, 7, 1, 4, 53)


def test_e4_split_refused_for_lack_of_pawns():
    report = run(E4)
    assert_verdicts(report, ["base_too_small", "no_pawn_in_base"])
    s = report.summary
    assert_player(s, 0, patrols=[[0, 3], [0, 4]], base=0)
    assert_player(s, 1, patrols=[], base=2)
    assert s["to_move"] == 0 and s["events"] == 0


def test_e5_sink_forest():
    report = run(E5)
    assert_verdicts(report, [OK])
    s = report.summary
    assert_player(s, 0, patrols=[], on_board=0, base=4, pennant=False, finished=False)
    assert s["to_move"] == 1 and s["result"] == "ongoing"
    assert_board(s, 4, 1, 2, 56)


def test_e6_source_forest_fired_then_refused():
    report = run(E6)
    assert_verdicts(report, [OK, "output_occupied"])
    s = report.summary
    assert_player(s, 0, patrols=[[0, 1], [1, 1]], base=2)
    assert_player(s, 1, patrols=[], base=4)
    assert s["to_move"] == 1
    assert_board(s, 5, 1, 2, 55)


def test_e6b_guides_short_of_pawns():
    report = run(with_setup(cut(E6, 1), pawns_per_player=1))
    assert_verdicts(report, ["base_too_small"])
    assert report.summary["events"] == 0
    assert_player(report.summary, 0, patrols=[], base=1)


def test_e7_output_holds_an_opponent():
    report = run(E7)
    assert_verdicts(report, ["output_occupied"])
    s = report.summary
    assert_player(s, 0, patrols=[[0, 3]], base=3)
    assert_player(s, 1, patrols=[[0, 1]], base=3)
    assert s["to_move"] == 0 and s["events"] == 0


def test_e8_input_holds_an_opponent():
    report = run(E8)
    assert_verdicts(report, ["input_not_yours"])
    s = report.summary
    assert_player(s, 0, patrols=[[0, 3]], base=3)
    assert_player(s, 1, patrols=[[1, 2]], base=3)
    assert s["to_move"] == 0


def test_e9_enter_on_an_occupied_start():
    report = run(E9)
    assert_verdicts(report, ["start_occupied"])
    s = report.summary
    assert_player(s, 0, patrols=[], base=4)
    assert_player(s, 1, patrols=[[0, 4]], base=3)
    assert s["to_move"] == 0


# --- E10, E11: builds and the mandatory take ----------------------------------------------------
def test_e10_pass_and_build_refusals_then_two_builds():
    report = run(E10)
    assert_verdicts(report, ["move_available_cannot_pass", "no_arrow", "arrow_between_same_kind",
                             "arrow_to_empty_cell", "not_neighbour", "duplicate_arrow", "cell_occupied",
                             "off_board", OK, "not_your_turn", "cell_not_empty", OK])
    s = report.summary
    state = report.state
    assert state.kinds[(0, 3)] == "forest" and state.kinds[(0, 2)] == "clearing"
    assert state.pre[(0, 3)] == ((0, 4),) and state.post[(0, 3)] == ((0, 2),)
    assert all_patrols(s) == {}
    assert_player(s, 0, base=4)
    assert_player(s, 1, base=4)
    assert s["to_move"] == 0 and s["events"] == 2
    assert_board(s, 4, 1, 2, 56)


def test_e11_mandatory_take_from_the_finish():
    report = run(E11)
    assert_verdicts(report, ["must_take_from_finish", "must_take_from_finish", OK])
    s = report.summary
    assert_player(s, 0, pennant=True, patrols=[[0, 4]], base=3, finished=False)
    assert (0, 0) not in all_patrols(s)
    assert s["to_move"] == 1 and s["result"] == "ongoing"


# --- E12: a whole game --------------------------------------------------------------------------
E12_SUMMARY = {"summary": {"result": "won", "events": 13, "winner": 0, "finishing_order": [0], "game_over": True,
                           "to_move": None, "roll": None,
                           "players": [{"seat": 0, "colour": "red", "base": 4, "on_board": 0, "patrols": [],
                                        "pennant": True, "finished": True},
                                       {"seat": 1, "colour": "blue", "base": 3, "on_board": 1, "patrols": [[0, -2]],
                                        "pennant": False, "finished": False}],
                           "board": {"clearings": 5, "forests": 5, "arrows": 9, "empty": 51}}}


def test_e12_full_game_to_a_win():
    report = run(E12, keep_going=False)
    assert_verdicts(report, [OK] * 13)
    assert {"summary": report.summary} == E12_SUMMARY


@pytest.mark.parametrize("n_events,seat,cell", [(7, 0, [0, 4]), (8, 1, [0, -4]), (9, 0, [0, 2]),
                                                (10, 1, [0, -2]), (11, 0, [0, 0])])
def test_e12_patrols_along_the_way(n_events, seat, cell):
    s = run(cut(E12, n_events)).summary
    assert player(s, seat)["patrols"] == [cell]


def test_e12_blue_cannot_fire_into_the_occupied_finish():
    after11 = cut(E12, 11)
    report = run(after11 + '{"actor":1,"type":"fire","cell":[0,-1]}\n')
    assert outcomes(report)[-1] == "output_occupied"


def test_e12_any_further_event_is_game_over():
    for extra in ('{"actor":1,"type":"pass"}', '{"actor":0,"type":"enter"}', '{"actor":1,"type":"roll","value":3}'):
        report = run(E12 + extra + "\n")
        assert outcomes(report)[-1] == "game_over"
        assert report.summary == E12_SUMMARY["summary"]


# --- E13: the d8 variant ------------------------------------------------------------------------
def test_e13_d8_impossible_rolls_end_the_turn():
    report = run(E13)
    assert_verdicts(report, [OK, OK, OK, OK, OK, "wrong_move_kind_for_roll", OK, OK, OK, OK,
                             "move_available_cannot_pass", OK, "roll_required", "roll_mismatch", OK, OK])
    s = report.summary
    assert_player(s, 0, patrols=[[0, 4]], base=3)
    assert_player(s, 1, patrols=[], base=4)
    assert s["to_move"] == 0 and s["roll"] is None and s["events"] == 12
    assert_board(s, 3, 2, 2, 56)


def test_e13_roll_waits_for_its_move():
    s = run(cut(E13, 1)).summary
    assert s["roll"] == 5 and s["to_move"] == 0 and s["events"] == 1


# --- E14..E17: finishing, d8 finish rule, ranking, supply and deadlock -------------------------
def test_e14_finishing_through_a_sink_forest():
    report = run(E14)
    assert_verdicts(report, [OK, "game_over"])
    s = report.summary
    assert (s["result"], s["winner"], s["finishing_order"], s["game_over"]) == ("won", 0, [0], True)
    assert_player(s, 0, base=4, pennant=True, finished=True, patrols=[])


def test_e15_d8_finish_rule_on_an_eight_only():
    report = run(E15)
    assert_verdicts(report, [OK, "wrong_move_kind_for_roll", OK])
    s = report.summary
    assert_player(s, 0, patrols=[[1, -2]], base=3, pennant=False)
    assert s["to_move"] == 1 and s["events"] == 2


def test_e15b_an_eight_takes_first_and_finishes():
    events = ['{"actor":0,"type":"roll","value":8}', '{"actor":0,"type":"enter"}',
              '{"actor":0,"type":"take_from_finish"}']
    report = run(with_setup(E15, events, rolls=[8]))
    assert_verdicts(report, [OK, "must_take_from_finish", OK])
    s = report.summary
    assert (s["result"], s["winner"], s["game_over"], s["events"]) == ("won", 0, True, 2)
    assert_player(s, 0, pennant=True, finished=True, patrols=[], base=4)


def test_e16_three_players_play_goes_on():
    report = run(E16)
    assert_verdicts(report, [OK, OK, OK, "not_your_turn", OK])
    s = report.summary
    assert (s["result"], s["winner"], s["finishing_order"], s["game_over"]) == ("won", 0, [0], False)
    assert s["to_move"] == 2 and s["events"] == 4
    assert_player(s, 1, patrols=[[-4, 0]], base=3)
    assert_player(s, 2, patrols=[[4, -4]], base=3)
    assert_board(s, 5, 2, 3, 54)


def test_e17_supply_roll_in_free_variant_and_deadlock():
    report = run(E17)
    assert_verdicts(report, ["unexpected_roll", "supply_exhausted", "move_available_cannot_pass", OK, OK,
                             "game_over"])
    s = report.summary
    assert (s["result"], s["winner"], s["game_over"], s["events"], s["to_move"]) == \
        ("lost:deadlock", None, True, 2, None)
    assert_player(s, 0, patrols=[[0, 4]], base=0)
    assert_player(s, 1, patrols=[[0, -4]], base=0)
    assert s["supply"] == {"clearing": None, "forest": 0, "arrow": None}


def test_e17_deadlock_comes_with_the_fifth_event():
    s = run(cut(E17, 4)).summary
    assert s["game_over"] is False and s["to_move"] == 1
    s = run(cut(E17, 5)).summary
    assert s["game_over"] is True and s["result"] == "lost:deadlock"


def test_supply_appears_only_when_the_header_gives_it():
    assert "supply" not in run(E1).summary
    assert "supply" in run(E17).summary
