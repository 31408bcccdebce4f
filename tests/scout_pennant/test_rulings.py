"""The rulings of ``shared/rules/scout-pennant.md`` §3.10, each against its default, and the
d8 points decided where the text is open (§3.8).

Positions follow the conventions of §6: radius 4, red = seat 0 at (0,4), blue = seat 1 at
(0,-4), 4 pawns each, red to move, unless a test says otherwise.
"""

from __future__ import annotations

import json

import pytest

from assistant.check import check_record
from assistant.games import MalformedError
from assistant.records import parse_record

OK = "ok"
TWO = [{"seat": 0, "colour": "red"}, {"seat": 1, "colour": "blue"}]
THREE = TWO + [{"seat": 2, "colour": "green"}]

#: red on the finish; forest (0,1) leads (0,2) -> (0,1) -> (0,0) (E11, E16)
FINISH_NET = {"clearings": [[0, 2]], "forests": [[0, 1]],
              "arrows": [{"from": [0, 2], "to": [0, 1]}, {"from": [0, 1], "to": [0, 0]}]}
#: forest (1,-1) leads (0,0) -> (1,-1) -> (1,-2) (E15)
LEAVE_NET = {"clearings": [[1, -2]], "forests": [[1, -1]],
             "arrows": [{"from": [0, 0], "to": [1, -1]}, {"from": [1, -1], "to": [1, -2]}]}


def record(setup: dict, events: list[dict], rulings: dict | None = None) -> str:
    header = {"format": "tabletop-record/1", "game": "scout-pennant", "setup": setup}
    if rulings is not None:
        header["rulings"] = rulings
    return "\n".join(json.dumps(o) for o in [header, *events]) + "\n"


def run(setup: dict, events: list[dict], rulings: dict | None = None):
    return check_record(parse_record(record(setup, events, rulings)), keep_going=True)


def outcomes(report) -> list[str]:
    return [OK if v["ok"] else v["reason"] for v in report.verdicts]


def ev(actor: int, type: str, **params) -> dict:
    return {"actor": actor, "type": type, **params}


BUILD_RED = ev(0, "build", cell=[1, 3], piece="forest", arrows=[{"from": [0, 4]}])


# --- finish_removal_after_pennant -------------------------------------------------------------
def test_optional_removal_lets_a_pennant_holder_stay_on_the_finish():
    setup = {"players": TWO, "position": {**FINISH_NET, "patrols": [{"seat": 0, "cell": [0, 0]}],
                                          "pennants": [0]}}
    assert outcomes(run(setup, [BUILD_RED])) == ["must_take_from_finish"]
    report = run(setup, [ev(0, "pass"), BUILD_RED], {"finish_removal_after_pennant": "optional"})
    assert outcomes(report) == ["move_available_cannot_pass", OK]
    assert report.summary["players"][0]["patrols"] == [[0, 0]]
    # the take stays legal, and finishes red
    report = run(setup, [ev(0, "take_from_finish")], {"finish_removal_after_pennant": "optional"})
    assert outcomes(report) == [OK] and report.summary["winner"] == 0


def test_optional_removal_does_not_spare_the_first_take():
    setup = {"players": TWO, "position": {**FINISH_NET, "patrols": [{"seat": 0, "cell": [0, 0]}]}}
    report = run(setup, [BUILD_RED], {"finish_removal_after_pennant": "optional"})
    assert outcomes(report) == ["must_take_from_finish"]


# --- guides_need_empty_outputs ------------------------------------------------------------------
SOURCE = {"clearings": [[0, 1], [1, 1]], "forests": [[0, 2]],
          "arrows": [{"from": [0, 2], "to": [0, 1]}, {"from": [0, 2], "to": [1, 1]}]}


def test_guides_skip_occupied_outputs_when_the_ruling_is_false():
    setup = {"players": TWO, "position": {**SOURCE, "patrols": [{"seat": 1, "cell": [0, 1]}]}}
    assert outcomes(run(setup, [ev(0, "fire", cell=[0, 2])])) == ["output_occupied"]
    report = run(setup, [ev(0, "fire", cell=[0, 2]), ev(1, "fire", cell=[0, 2])],
                 {"guides_need_empty_outputs": False})
    assert outcomes(report) == [OK, "output_occupied"]          # then every output is occupied
    assert report.summary["players"][0]["patrols"] == [[1, 1]]
    assert report.summary["players"][0]["base"] == 3


def test_skipping_guides_need_only_pawns_for_the_empty_outputs():
    setup = {"players": TWO, "pawns_per_player": 1, "position": {**SOURCE, "patrols": [{"seat": 1, "cell": [0, 1]}]}}
    assert outcomes(run(setup, [ev(0, "fire", cell=[0, 2])], {"guides_need_empty_outputs": False})) == [OK]
    setup["position"]["patrols"] = []
    assert outcomes(run(setup, [ev(0, "fire", cell=[0, 2])], {"guides_need_empty_outputs": False})) == \
        ["base_too_small"]


# --- patrol_leaving_finish_counts ----------------------------------------------------------------
def test_leaving_the_finish_wins_the_pennant_only_under_the_ruling():
    setup = {"players": TWO, "position": {**LEAVE_NET, "patrols": [{"seat": 0, "cell": [0, 0]}]}}
    # free variant: the take comes first, so go through the d8 variant on a 4 (E15)
    setup.update(variant="d8", rolls=[4])
    events = [ev(0, "roll", value=4), ev(0, "fire", cell=[1, -1])]
    assert run(setup, events).summary["players"][0]["pennant"] is False
    report = run(setup, events, {"patrol_leaving_finish_counts": True})
    assert outcomes(report) == [OK, OK]
    assert report.summary["players"][0]["pennant"] is True
    assert report.summary["players"][0]["finished"] is False     # a patrol is still out


def test_leaving_the_finish_through_a_sink_forest_finishes_under_the_ruling():
    sink = {"forests": [[1, -1]], "arrows": [{"from": [0, 0], "to": [1, -1]}],
            "patrols": [{"seat": 0, "cell": [0, 0]}]}
    setup = {"players": TWO, "variant": "d8", "position": sink}
    events = [ev(0, "roll", value=5), ev(0, "fire", cell=[1, -1])]
    assert run(setup, events).summary["result"] == "ongoing"
    s = run(setup, events, {"patrol_leaving_finish_counts": True}).summary
    assert (s["result"], s["winner"], s["game_over"]) == ("won", 0, True)


# --- continue_after_first_finisher ---------------------------------------------------------------
def test_stop_ends_the_game_at_the_first_finisher():
    setup = {"players": THREE, "position": {**FINISH_NET, "patrols": [{"seat": 0, "cell": [0, 0]}]}}
    report = run(setup, [ev(0, "take_from_finish"), ev(1, "enter")], {"continue_after_first_finisher": "stop"})
    assert outcomes(report) == [OK, "game_over"]
    s = report.summary
    assert (s["result"], s["winner"], s["game_over"], s["to_move"], s["events"]) == ("won", 0, True, None, 1)


def test_rank_goes_on_until_one_player_is_left():
    # red and blue both need one take; green never finishes
    setup = {"players": THREE, "pawns_per_player": 1,
             "position": {**FINISH_NET, "patrols": [{"seat": 0, "cell": [0, 0]}, {"seat": 1, "cell": [0, 2]}]}}
    events = [ev(0, "take_from_finish"), ev(1, "fire", cell=[0, 1]), ev(2, "enter"), ev(1, "take_from_finish")]
    report = run(setup, events)
    assert outcomes(report) == [OK, OK, OK, OK]
    s = report.summary
    assert (s["winner"], s["finishing_order"], s["game_over"], s["to_move"]) == (0, [0, 1], True, None)
    assert s["players"][2]["finished"] is False


# --- d8_finish_priority ---------------------------------------------------------------------------
def test_always_takes_before_rolling_in_the_d8_variant():
    setup = {"players": TWO, "variant": "d8", "rolls": [4],
             "position": {**LEAVE_NET, "patrols": [{"seat": 0, "cell": [0, 0]}]}}
    events = [ev(0, "roll", value=4), ev(0, "pass"), ev(0, "take_from_finish"), ev(1, "roll", value=4)]
    report = run(setup, events, {"d8_finish_priority": "always"})
    assert outcomes(report) == ["must_take_from_finish", "must_take_from_finish", OK, "game_over"]
    s = report.summary
    assert (s["winner"], s["events"]) == (0, 1)


def test_always_puts_the_take_before_unexpected_roll_in_the_free_variant():
    setup = {"players": TWO, "position": {**FINISH_NET, "patrols": [{"seat": 0, "cell": [0, 0]}]}}
    roll = ev(0, "roll", value=3)
    assert outcomes(run(setup, [roll])) == ["unexpected_roll"]
    assert outcomes(run(setup, [roll], {"d8_finish_priority": "always"})) == ["must_take_from_finish"]


def test_an_eight_without_a_patrol_on_the_finish_allows_enter_only():
    """Ruling of this engine: an 8 allows the kinds take and enter; a take with no patrol on the
    finish is then refused for that reason, not for the roll."""
    setup = {"players": TWO, "variant": "d8"}
    events = [ev(0, "roll", value=8), ev(0, "take_from_finish"), ev(0, "build", cell=[0, 3], piece="forest",
                                                                     arrows=[{"from": [0, 4]}]), ev(0, "enter")]
    assert outcomes(run(setup, events)) == [OK, "no_patrol_on_finish", "wrong_move_kind_for_roll", OK]


def test_an_eight_with_a_pending_take_refuses_other_kinds_by_the_roll_first():
    setup = {"players": TWO, "variant": "d8",
             "position": {**LEAVE_NET, "patrols": [{"seat": 0, "cell": [0, 0]}]}}
    events = [ev(0, "roll", value=8), ev(0, "fire", cell=[1, -1]), ev(0, "pass"), ev(0, "enter"),
              ev(0, "take_from_finish")]
    assert outcomes(run(setup, events)) == [OK, "wrong_move_kind_for_roll", "must_take_from_finish",
                                            "must_take_from_finish", OK]


def test_an_eight_with_optional_removal_lets_a_pennant_holder_enter():
    setup = {"players": TWO, "variant": "d8",
             "position": {**LEAVE_NET, "patrols": [{"seat": 0, "cell": [0, 0]}], "pennants": [0]}}
    report = run(setup, [ev(0, "roll", value=8), ev(0, "enter")], {"finish_removal_after_pennant": "optional"})
    assert outcomes(report) == [OK, OK]
    assert report.summary["players"][0]["patrols"] == [[0, 0], [0, 4]]


def test_second_roll_in_a_turn_is_unexpected():
    setup = {"players": TWO, "variant": "d8"}
    assert outcomes(run(setup, [ev(0, "roll", value=2), ev(0, "roll", value=2)])) == [OK, "unexpected_roll"]


def test_rolls_past_the_header_list_are_unchecked():
    setup = {"players": TWO, "variant": "d8", "rolls": [7]}
    events = [ev(0, "roll", value=7), ev(0, "enter"), ev(1, "roll", value=3)]
    report = run(setup, events)
    assert outcomes(report) == [OK, OK, OK] and report.summary["roll"] == 3


# --- turn_order -------------------------------------------------------------------------------------
def test_counterclockwise_turn_order():
    setup = {"players": THREE, "first_player": 1}
    events = [ev(1, "enter"), ev(2, "enter"), ev(0, "enter"), ev(2, "enter")]
    assert outcomes(run(setup, events)) == [OK, OK, OK, "not_your_turn"]
    report = run(setup, events, {"turn_order": "counterclockwise"})
    assert outcomes(report) == [OK, "not_your_turn", OK, OK]     # 1, then 0, then 2
    assert report.summary["to_move"] == 1


def test_counterclockwise_skips_finished_players():
    setup = {"players": THREE, "position": {**FINISH_NET, "patrols": [{"seat": 1, "cell": [0, 0]}]},
             "first_player": 1}
    report = run(setup, [ev(1, "take_from_finish"), ev(0, "enter"), ev(2, "enter")],
                 {"turn_order": "counterclockwise"})
    assert outcomes(report) == [OK, OK, OK] and report.summary["to_move"] == 0


# --- deadlock_ends_game ------------------------------------------------------------------------------
DEADLOCK = {"players": TWO, "pawns_per_player": 1, "supply": {"forest": 0}}
DEADLOCK_EVENTS = [ev(0, "enter"), ev(1, "enter"), ev(0, "pass"), ev(1, "pass"), ev(0, "pass")]


def test_deadlock_ends_the_game_by_default():
    report = run(DEADLOCK, DEADLOCK_EVENTS)
    assert outcomes(report) == [OK, OK, "game_over", "game_over", "game_over"]


def test_without_the_deadlock_ruling_passes_go_on():
    report = run(DEADLOCK, DEADLOCK_EVENTS, {"deadlock_ends_game": False})
    assert outcomes(report) == [OK] * 5
    s = report.summary
    assert (s["result"], s["game_over"], s["to_move"], s["events"]) == ("ongoing", False, 1, 5)


def test_deadlock_after_a_finisher_keeps_the_win():
    # 3 players, 1 pawn, no forest left to build: red takes and finishes, then blue and green
    # (both entered) can do nothing
    setup = {"players": THREE, "pawns_per_player": 1, "supply": {"forest": 0, "clearing": 0},
             "position": {**FINISH_NET, "patrols": [{"seat": 0, "cell": [0, 0]}, {"seat": 1, "cell": [-4, 0]},
                                                    {"seat": 2, "cell": [4, -4]}]}}
    report = run(setup, [ev(0, "take_from_finish"), ev(1, "pass")])
    assert outcomes(report) == [OK, "game_over"]
    s = report.summary
    assert (s["result"], s["winner"], s["game_over"]) == ("won", 0, True)


# --- the table itself ---------------------------------------------------------------------------------
@pytest.mark.parametrize("rulings,field", [
    ({"build_on_start_or_finish": True}, "rulings.build_on_start_or_finish"),
    ({"turn_order": "widdershins"}, "rulings.turn_order"),
    ({"deadlock_ends_game": "yes"}, "rulings.deadlock_ends_game"),
    ({"guides_need_empty_outputs": 1}, "rulings.guides_need_empty_outputs"),
    ({"house_rule": True}, "rulings.house_rule"),
])
def test_unknown_ruling_key_or_value_is_malformed(rulings, field):
    with pytest.raises(MalformedError) as err:
        parse_record(record({"players": TWO}, [], rulings))
    assert (err.value.line, err.value.field) == (1, field)


def test_every_default_may_be_stated_explicitly():
    defaults = {"finish_removal_after_pennant": "mandatory", "build_on_start_or_finish": False,
                "guides_need_empty_outputs": True, "patrol_leaving_finish_counts": False,
                "continue_after_first_finisher": "rank", "d8_finish_priority": "on_eight",
                "turn_order": "clockwise", "deadlock_ends_game": True}
    start = parse_record(record({"players": TWO}, [], defaults)).start
    assert dict(start.cfg.rulings) == defaults
    assert dict(parse_record(record({"players": TWO}, [])).start.cfg.rulings) == defaults
