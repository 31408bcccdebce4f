"""The worked examples E1..E18 of ``shared/rules/forbidden-desert.md`` §7 as tests.

Each example is written as a record (a header dict and a list of event dicts), serialised to
JSON Lines, parsed with :func:`assistant.records.parse_record` and judged with
:func:`assistant.check.check_record`. Every event's verdict (ok, or the exact reason code of
§6.4) and every "Expect:" field of the example is asserted against ``report.summary`` (§6.5).
Where an example states an intermediate fact ("`to_draw` 5", "P(well) is now 1/2"), the
record is cut after that event and checked there too.

Two tests at the end run the real command line (``python -m assistant check FILE``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

from assistant.check import check_record
from assistant.games.forbidden_desert.components import STORM_COUNTS
from assistant.games.forbidden_desert.odds import storm_loss
from assistant.games.forbidden_desert.tiles import p_face
from assistant.games.forbidden_desert.views import face_odds, view
from assistant.records import parse_record

REPO = Path(__file__).resolve().parents[2]

# --- Layout B (§7): used by every example except E15 ----------------------------------------
LAYOUT_B = [
    ["gear_1", "tunnel_1", "clue_propeller_column", "gear_2", "well_1"],
    ["clue_engine_row", "crash_site", "gear_3", "tunnel_2", "mirage"],
    ["clue_propeller_row", "gear_4", None, "gear_5", "clue_engine_column"],
    ["well_2", "launch_pad", "tunnel_3", "clue_solar_crystal_row", "gear_6"],
    ["clue_solar_crystal_column", "gear_7", "clue_navigation_deck_row", "gear_8", "clue_navigation_deck_column"],
]

#: E15: only the backs of layout B are recorded (a physical game)
LAYOUT_BACKS = [
    ["dune_back", "dune_back", "dune_back", "dune_back", "water_back"],
    ["dune_back", "crash_site", "dune_back", "dune_back", "water_back"],
    ["dune_back", "dune_back", None, "dune_back", "dune_back"],
    ["water_back", "dune_back", "dune_back", "dune_back", "dune_back"],
    ["dune_back", "dune_back", "dune_back", "dune_back", "dune_back"],
]

ALL_PARTS = ["engine", "navigation_deck", "propeller", "solar_crystal"]
OK = "ok"


def setup(players, difficulty, first, position=None, layout=LAYOUT_B, **extra):
    """A header ``setup`` object; ``position`` and extra fields (``storm_deck``) when given."""
    out = {"players": list(players), "difficulty": difficulty, "first_player": first, "layout": layout}
    if position is not None:
        out["position"] = position
    out.update(extra)
    return out


def S(card):
    """``S:card`` of §7: a card drawn from the table's physical storm deck."""
    return {"actor": "storm", "type": "storm_card", "card": card}


def end_turn(seat):
    return {"actor": seat, "type": "end_turn"}


def record_text(header_setup, events, rulings=None):
    """The record as JSON Lines text: the header line, then one line per event."""
    header = {"format": "tabletop-record/1", "game": "forbidden-desert", "setup": header_setup}
    if rulings is not None:
        header["rulings"] = rulings
    return "\n".join(json.dumps(obj) for obj in [header, *events]) + "\n"


def run(header_setup, events, rulings=None, keep_going=False):
    """Parse and check the record; return the :class:`CheckReport`."""
    return check_record(parse_record(record_text(header_setup, events, rulings)), keep_going=keep_going)


def outcomes(report):
    """Per judged event: ``"ok"`` or the reason code."""
    return [OK if v["ok"] else v["reason"] for v in report.verdicts]


def assert_verdicts(report, expected):
    assert outcomes(report) == expected
    assert [v["index"] for v in report.verdicts] == list(range(1, len(expected) + 1))
    for v in report.verdicts:
        if not v["ok"]:
            assert isinstance(v["message"], str) and v["message"]
    assert report.status == (0 if all(e == OK for e in expected) else 1)


def assert_summary(summary, **expected):
    for key, value in expected.items():
        assert summary[key] == value, f"summary[{key!r}] = {summary[key]!r}, expected {value!r}"


def all_storm_cards_minus(*cards):
    """The 31 storm card ids (one list entry per copy) minus one copy of each of ``cards``."""
    pile = Counter(STORM_COUNTS)
    pile.subtract(cards)
    return sorted(pile.elements())


def dune_cells(summary):
    return [(r, c) for r in range(5) for c in range(5) if summary["tiles"][r][c] == "dune_back"]


# --- E1 ------------------------------------------------------------------------------------
E1_SETUP = setup(["archeologist", "explorer"], "normal", 0)
E1_EVENTS = [end_turn(0), S("wind_n_3")]


def test_e1_end_turn_sets_to_draw():
    report = run(E1_SETUP, E1_EVENTS[:1])
    assert_verdicts(report, [OK])
    assert_summary(report.summary, phase="storm", to_draw=3, storm=[2, 2], sand_supply=40)


def test_e1_wind_north_3_with_respite():
    report = run(E1_SETUP, E1_EVENTS)
    assert_verdicts(report, [OK, OK])
    s = report.summary
    assert_summary(s, storm=[4, 2], sand_supply=38, pawns=[[1, 1], [1, 1]], phase="storm", to_draw=2,
                   result="ongoing", events=2, turn=0)
    sand = {(r, c): n for r, c, n in s["sand"]}
    assert sand[(2, 2)] == 1 and sand[(3, 2)] == 2
    # the whole board: the 8 set-up markers, [4,2]'s marker rode to [3,2] and got a second one
    assert s["sand"] == [[0, 2, 1], [1, 1, 1], [1, 3, 1], [2, 0, 1], [2, 2, 1], [2, 4, 1],
                         [3, 1, 1], [3, 2, 2], [3, 3, 1]]
    assert s["tiles"][2][2] == "tunnel_3"
    assert s["tiles"][3][2] == "clue_navigation_deck_row"
    assert s["tiles"][4][2] is None


# --- E2 ------------------------------------------------------------------------------------
E2_SETUP = setup(["archeologist", "explorer"], "novice", 0,
                 {"sand": [], "excavated": [[2, 0], [2, 3]], "pawns": [[0, 2], [2, 3]]})
E2_EVENTS = [
    {"actor": 0, "type": "excavate"},
    end_turn(0),
    S("wind_w_1"),
    S("wind_n_1"),
    {"actor": 1, "type": "pick_up_part"},
]


def test_e2_part_parked_in_the_storm():
    report = run(E2_SETUP, E2_EVENTS[:1])
    assert_verdicts(report, [OK])
    assert_summary(report.summary, parts_placed={"propeller": [2, 2]}, parts_held=[], sand_supply=48,
                   excavated=[[0, 2], [2, 0], [2, 3]])


def test_e2_parked_part_boards_the_first_arrival():
    report = run(E2_SETUP, E2_EVENTS[:3])
    assert_verdicts(report, [OK, OK, OK])
    assert_summary(report.summary, storm=[2, 3], sand_supply=47, sand=[[2, 2, 1]],
                   parts_placed={"propeller": [2, 2]}, pawns=[[0, 2], [2, 2]])
    assert report.summary["tiles"][2][2] == "gear_5"


def test_e2_second_wind_then_pick_up():
    report = run(E2_SETUP, E2_EVENTS[:4])
    assert_verdicts(report, [OK] * 4)
    assert_summary(report.summary, storm=[3, 3], sand_supply=46, sand=[[2, 2, 1], [2, 3, 1]],
                   turn=1, phase="actions", actions_left=4)
    assert report.summary["tiles"][2][3] == "clue_solar_crystal_row"

    report = run(E2_SETUP, E2_EVENTS)
    assert_verdicts(report, [OK] * 5)
    assert_summary(report.summary, parts_held=["propeller"], parts_placed={}, pawns=[[0, 2], [2, 2]],
                   storm=[3, 3], sand_supply=46, water=[3, 4], turn=1, actions_left=3,
                   result="ongoing", events=5)


# --- E3 ------------------------------------------------------------------------------------
E3_SETUP = setup(["navigator", "explorer"], "novice", 0, {"sand": [[2, 3, 1]], "pawns": [[2, 1], [2, 3]]})
E3_EVENTS = [
    end_turn(0),
    S("wind_w_1"),
    S("wind_s_1"),
    {"actor": 1, "type": "move", "to": [1, 2]},
    {"actor": 1, "type": "remove_sand", "at": [2, 2]},
    {"actor": 1, "type": "move", "to": [1, 2]},
]


def test_e3_burial_by_wind():
    report = run(E3_SETUP, E3_EVENTS[:2])
    assert_verdicts(report, [OK, OK])
    assert_summary(report.summary, storm=[2, 3], sand_supply=46, sand=[[2, 2, 2]], pawns=[[2, 1], [2, 2]])
    assert report.state.buried(1)

    report = run(E3_SETUP, E3_EVENTS[:3])
    assert_verdicts(report, [OK] * 3)
    assert_summary(report.summary, storm=[1, 3], sand_supply=45, sand=[[2, 2, 2], [2, 3, 1]],
                   turn=1, phase="actions", actions_left=4)
    assert report.summary["tiles"][2][3] == "tunnel_2"


def test_e3_digging_out_with_continue():
    report = run(E3_SETUP, E3_EVENTS, keep_going=True)
    assert_verdicts(report, [OK, OK, OK, "buried", OK, OK])
    assert_summary(report.summary, pawns=[[2, 1], [1, 2]], storm=[1, 3], sand=[[2, 2, 1], [2, 3, 1]],
                   sand_supply=46, actions_left=2, events=5, result="ongoing", turn=1)


def test_e3_without_continue_stops_at_e4():
    report = run(E3_SETUP, E3_EVENTS)
    assert_verdicts(report, [OK, OK, OK, "buried"])
    assert report.status == 1
    assert_summary(report.summary, events=3, pawns=[[2, 1], [2, 2]], actions_left=4, sand_supply=45)


# --- E4 ------------------------------------------------------------------------------------
E4_SETUP = setup(["climber", "explorer"], "novice", 0, {"sand": [[1, 2, 2]]})
E4_EVENTS = [
    {"actor": 0, "type": "move", "to": [1, 2], "carry": 1},
    end_turn(0),
    S("wind_e_1"),
    S("wind_n_1"),
    {"actor": 1, "type": "move", "to": [0, 2]},
]


def test_e4_climber_carries_a_pawn():
    report = run(E4_SETUP, E4_EVENTS[:1])
    assert_verdicts(report, [OK])
    assert_summary(report.summary, pawns=[[1, 2], [1, 2]], actions_left=3, sand_supply=46)
    assert not report.state.buried(0) and not report.state.buried(1)


def test_e4_passenger_walks_off_the_blocked_tile():
    report = run(E4_SETUP, E4_EVENTS)
    assert_verdicts(report, [OK] * 5)
    assert_summary(report.summary, pawns=[[1, 2], [0, 2]], storm=[3, 1],
                   sand=[[1, 2, 2], [2, 1, 1], [2, 2, 1]], sand_supply=44, turn=1, actions_left=3,
                   result="ongoing", events=5)
    assert report.summary["tiles"][2][2] == "gear_4"
    assert report.summary["tiles"][2][1] == "launch_pad"


def test_e4_variant_carry_self():
    events = [{"actor": 0, "type": "move", "to": [1, 2], "carry": 0}]
    report = run(E4_SETUP, events)
    assert_verdicts(report, ["self_target"])
    assert_summary(report.summary, pawns=[[1, 1], [1, 1]], actions_left=4, events=0)


# --- E5 ------------------------------------------------------------------------------------
def test_e5_explorer_removes_sand_diagonally():
    position = {"sand": [[0, 0, 1], [3, 3, 1]], "turn": 1}
    events = [
        {"actor": 1, "type": "remove_sand", "at": [0, 0]},
        {"actor": 1, "type": "remove_sand", "at": [2, 2]},
        {"actor": 1, "type": "remove_sand", "at": [3, 3]},
        {"actor": 0, "type": "remove_sand", "at": [3, 3]},
    ]
    report = run(setup(["archeologist", "explorer"], "normal", 0, position), events, keep_going=True)
    assert_verdicts(report, [OK, "target_is_storm", "not_adjacent", "not_your_turn"])
    assert_summary(report.summary, sand=[[3, 3, 1]], sand_supply=47, actions_left=3, turn=1, events=1)


# --- E6 ------------------------------------------------------------------------------------
def test_e6_archeologist_removes_two():
    position = {"sand": [[0, 0, 1], [1, 2, 3]]}
    events = [
        {"actor": 0, "type": "remove_sand", "at": [1, 2], "count": 2},
        {"actor": 0, "type": "remove_sand", "at": [1, 2]},
        {"actor": 0, "type": "remove_sand", "at": [1, 2]},
        {"actor": 0, "type": "remove_sand", "at": [0, 0]},
    ]
    hdr = setup(["archeologist", "explorer"], "normal", 0, position)
    report = run(hdr, events[:1])
    assert_verdicts(report, [OK])
    assert_summary(report.summary, sand=[[0, 0, 1], [1, 2, 1]], sand_supply=46)

    report = run(hdr, events, keep_going=True)
    assert_verdicts(report, [OK, OK, "no_sand", "not_adjacent"])
    assert_summary(report.summary, sand=[[0, 0, 1]], sand_supply=47, actions_left=2, events=2)


# --- E7 ------------------------------------------------------------------------------------
def test_e7_navigator_three_steps_with_tunnel_hop():
    hdr = setup(["water_carrier", "navigator"], "normal", 1, {"excavated": [[0, 1], [3, 2]]})
    events = [
        {"actor": 1, "type": "navigate", "target": 0, "to": [4, 2], "path": [[0, 1], [3, 2], [4, 2]]},
        {"actor": 1, "type": "navigate", "target": 0, "to": [0, 4]},
        {"actor": 1, "type": "navigate", "target": 1, "to": [1, 2]},
    ]
    report = run(hdr, events, keep_going=True)
    assert_verdicts(report, [OK, "no_path", "self_target"])
    assert_summary(report.summary, pawns=[[4, 2], [1, 1]], actions_left=3, turn=1, sand_supply=40, events=1)


def test_e7_navigate_without_path_finds_the_tunnel_route():
    # On foot the trip takes 4 steps; without a `path` the engine must find the 3-step tunnel route.
    hdr = setup(["water_carrier", "navigator"], "normal", 1, {"excavated": [[0, 1], [3, 2]]})
    report = run(hdr, [{"actor": 1, "type": "navigate", "target": 0, "to": [4, 2]}])
    assert_verdicts(report, [OK])
    assert_summary(report.summary, pawns=[[4, 2], [1, 1]], actions_left=3)


# --- E8 ------------------------------------------------------------------------------------
E8_SETUP = setup(["water_carrier", "navigator"], "normal", 1,
                 {"sand": [], "pawns": [[0, 4], [0, 4]], "water": [1, 3], "turn": 0})
E8_EVENTS = [
    {"actor": 0, "type": "excavate"},
    {"actor": 0, "type": "take_water"},
    {"actor": 0, "type": "move", "to": [1, 4]},
    {"actor": 0, "type": "take_water"},
    {"actor": 0, "type": "excavate"},
    {"actor": 0, "type": "take_water"},
    {"actor": 0, "type": "give_water", "to": 1, "amount": 1},
]


def test_e8_well_fills_every_pawn_capped():
    report = run(E8_SETUP, E8_EVENTS[:1])
    assert_verdicts(report, [OK])
    assert_summary(report.summary, water=[3, 4], hands=[[], []], excavated=[[0, 4]])
    report = run(E8_SETUP, E8_EVENTS[:2])
    assert_summary(report.summary, water=[5, 4])


def test_e8_water_carrier_well_refill_mirage():
    report = run(E8_SETUP, E8_EVENTS, keep_going=True)
    assert_verdicts(report, [OK, OK, OK, "not_a_well", OK, "no_actions_left", "over_capacity"])
    assert_summary(report.summary, water=[5, 4], excavated=[[0, 4], [1, 4]], hands=[[], []],
                   sand_supply=48, actions_left=0, pawns=[[1, 4], [0, 4]], events=4)


# --- E9 ------------------------------------------------------------------------------------
E9_EVENTS = [
    {"actor": 1, "type": "play_equipment", "card": "solar_shield"},
    end_turn(0),
    S("sun_beats_down"),
    S("sun_beats_down"),
]


def e9_setup(sand):
    return setup(["archeologist", "climber", "explorer"], "novice", 0,
                 {"sand": sand, "excavated": [[1, 3]], "pawns": [[1, 3], [0, 0], [4, 4]],
                  "water": [3, 3, 2], "hands": [[], ["solar_shield"], []]})


def test_e9_sun_with_tunnel_and_shield():
    report = run(e9_setup([]), E9_EVENTS[:1])
    assert_verdicts(report, [OK])                          # free, and on seat 0's turn
    assert_summary(report.summary, turn=0, actions_left=4, phase="actions", hands=[[], [], []])
    assert view(report.state, None)["shields"] == [1]

    report = run(e9_setup([]), E9_EVENTS[:3])
    assert_verdicts(report, [OK] * 3)
    assert_summary(report.summary, water=[3, 3, 1], phase="storm", to_draw=1, turn=0, hands=[[], [], []])

    report = run(e9_setup([]), E9_EVENTS)
    assert_verdicts(report, [OK] * 4)
    assert_summary(report.summary, water=[3, 3, 0], result="ongoing", turn=1, hands=[[], [], []],
                   phase="actions", events=4)
    assert view(report.state, None)["shields"] == []      # the shield ended as seat 1's turn began


def test_e9_variant_blocked_tunnel_shelters():
    report = run(e9_setup([[1, 3, 2]]), E9_EVENTS)
    assert_verdicts(report, [OK] * 4)
    assert_summary(report.summary, water=[3, 3, 0], result="ongoing", turn=1, hands=[[], [], []])


def test_e9_variant_blocked_tunnel_without_the_ruling():
    # Contrast (§4): with blocked_tunnel_shelters false, shade needs sand <= 1, so seat 0 drinks twice.
    report = run(e9_setup([[1, 3, 2]]), E9_EVENTS, rulings={"blocked_tunnel_shelters": False})
    assert_verdicts(report, [OK] * 4)
    assert_summary(report.summary, water=[1, 3, 0], result="ongoing", turn=1)


# --- E10 -----------------------------------------------------------------------------------
E10_SETUP = setup(["archeologist", "explorer"], "novice", 0, {"water": [0, 4]})
E10_EVENTS = [end_turn(0), S("sun_beats_down"), S("wind_n_1")]


def test_e10_starting_at_zero_is_not_a_loss_and_risk():
    record = parse_record(record_text(E10_SETUP, []))
    report = check_record(record)
    assert_summary(report.summary, result="ongoing", water=[0, 4], events=0)
    risk = storm_loss(record.start)
    assert risk.exact
    assert risk.cards == 2
    assert risk.probability == pytest.approx(38 / 155)
    assert risk.probability == pytest.approx(1 - (27 / 31) * (26 / 30))
    assert risk.by_cause["thirst"] == pytest.approx(38 / 155)


def test_e10_thirst_at_exactly_zero():
    report = run(E10_SETUP, E10_EVENTS, keep_going=True)
    assert_verdicts(report, [OK, OK, "game_over"])
    assert_summary(report.summary, result="lost:thirst", water=[0, 3], events=2)


# --- E11 -----------------------------------------------------------------------------------
def test_e11_sand_supply_runs_out():
    sand = [[0, 0, 39], [0, 2, 1], [1, 1, 1], [1, 3, 1], [2, 0, 1], [2, 4, 1], [3, 1, 1], [3, 3, 1], [4, 2, 1]]
    hdr = setup(["archeologist", "explorer"], "novice", 0, {"sand": sand})
    report = run(hdr, [])
    assert_summary(report.summary, sand_supply=1)

    report = run(hdr, [end_turn(0), S("wind_s_2")])
    assert_verdicts(report, [OK, OK])
    s = report.summary
    assert_summary(s, storm=[0, 2], sand_supply=0, result="lost:sand_supply", events=2)
    cells = {(r, c): n for r, c, n in s["sand"]}
    assert cells[(2, 2)] == 1 and cells[(1, 2)] == 1
    assert s["tiles"][2][2] == "gear_3" and s["tiles"][1][2] == "clue_propeller_column"


# --- E12 -----------------------------------------------------------------------------------
E12_SETUP = setup(["archeologist", "explorer"], "legendary", 0, {"meter": 11})
E12_EVENTS = [end_turn(0), S("storm_picks_up"), S("storm_picks_up")]


def test_e12_meter_climbs_but_to_draw_is_kept():
    report = run(E12_SETUP, E12_EVENTS[:1])
    assert_verdicts(report, [OK])
    assert_summary(report.summary, to_draw=6, meter=11, phase="storm")
    report = run(E12_SETUP, E12_EVENTS[:2])
    assert_verdicts(report, [OK, OK])
    assert_summary(report.summary, meter=12, result="ongoing", to_draw=5)


def test_e12_storm_meter_skull():
    report = run(E12_SETUP, E12_EVENTS)
    assert_verdicts(report, [OK, OK, OK])
    assert_summary(report.summary, meter=13, result="lost:storm_meter", events=3)


# --- E13 -----------------------------------------------------------------------------------
def test_e13_win_on_excavated_unblocked_pad():
    hdr = setup(["archeologist", "explorer"], "normal", 0,
                {"sand": [[3, 1, 2]], "excavated": [[3, 1]], "pawns": [[3, 1], [2, 1]],
                 "parts_held": ALL_PARTS, "turn": 1})
    events = [
        {"actor": 1, "type": "move", "to": [3, 1]},
        {"actor": 1, "type": "remove_sand", "at": [3, 1]},
        {"actor": 1, "type": "move", "to": [3, 1]},
        {"actor": 1, "type": "end_turn"},
    ]
    report = run(hdr, events[:2], keep_going=True)
    assert_verdicts(report, ["target_blocked", OK])
    assert_summary(report.summary, result="ongoing", sand=[[3, 1, 1]], sand_supply=47)

    report = run(hdr, events, keep_going=True)
    assert_verdicts(report, ["target_blocked", OK, OK, "game_over"])
    assert_summary(report.summary, result="won", pawns=[[3, 1], [3, 1]], sand_supply=47, events=2)


# --- E14 -----------------------------------------------------------------------------------
E14_SETUP = setup(["archeologist", "explorer"], "normal", 0,
                  {"sand": [], "pawns": [[3, 1], [2, 1]], "parts_held": ALL_PARTS, "turn": 1})
E14_EVENTS = [{"actor": 1, "type": "move", "to": [3, 1]}, {"actor": 1, "type": "excavate"}]


def test_e14_pad_must_be_face_up():
    report = run(E14_SETUP, E14_EVENTS[:1])
    assert_verdicts(report, [OK])
    assert_summary(report.summary, result="ongoing", pawns=[[3, 1], [3, 1]])

    report = run(E14_SETUP, E14_EVENTS)
    assert_verdicts(report, [OK, OK])
    assert_summary(report.summary, result="won", excavated=[[3, 1]], events=2)


def test_e14_variant_face_down_pad_known_from_layout():
    rulings = {"launch_pad_must_be_excavated": False}
    report = run(E14_SETUP, E14_EVENTS[:1], rulings=rulings)
    assert_verdicts(report, [OK])
    assert_summary(report.summary, result="won", excavated=[], events=1)
    # the game is over, so the excavation that won in E14 is now refused
    report = run(E14_SETUP, E14_EVENTS, rulings=rulings)
    assert_verdicts(report, [OK, "game_over"])


# --- E15 -----------------------------------------------------------------------------------
E15_SETUP = setup(["archeologist", "explorer"], "normal", 0,
                  {"sand": [], "pawns": [[0, 4], [1, 4]], "water": [1, 2]}, layout=LAYOUT_BACKS)
E15_EVENTS = [
    {"actor": 0, "type": "excavate"},
    {"actor": 0, "type": "excavate", "reveals": "launch_pad"},
    {"actor": 0, "type": "excavate", "reveals": "well"},
    {"actor": 0, "type": "move", "to": [1, 4]},
    {"actor": 0, "type": "excavate", "reveals": "well"},
]
WATER_CELLS = [(0, 4), (1, 4), (3, 0)]


def _p(state, cell, face):
    return p_face(state, state.slot_at(cell), face)


def test_e15_start_probabilities():
    report = run(E15_SETUP, [])
    state = report.state
    for cell in WATER_CELLS:
        assert _p(state, cell, "well") == Fraction(2, 3)
        assert _p(state, cell, "launch_pad") == 0
    dunes = dune_cells(report.summary)
    assert len(dunes) == 20
    for cell in dunes:
        assert _p(state, cell, "launch_pad") == Fraction(1, 20)
        assert _p(state, cell, "well") == 0
    odds = face_odds(state)
    for r, c in WATER_CELLS:
        assert odds["well"][r][c] == pytest.approx(2 / 3)
    for r, c in dunes:
        assert odds["launch_pad"][r][c] == pytest.approx(1 / 20)
    assert odds["launch_pad"][2][2] is None and odds["well"][2][2] is None


def test_e15_observations_and_first_well():
    report = run(E15_SETUP, E15_EVENTS[:3], keep_going=True)
    assert_verdicts(report, ["observation_missing", "observation_conflict", OK])
    s, state = report.summary, report.state
    assert_summary(s, water=[3, 2], excavated=[[0, 4]], actions_left=3)
    assert s["tiles"][0][4] == "well_1"
    assert _p(state, (1, 4), "well") == Fraction(1, 2)
    assert _p(state, (3, 0), "well") == Fraction(1, 2)
    odds = face_odds(state)
    assert odds["well"][1][4] == pytest.approx(0.5) and odds["well"][3][0] == pytest.approx(0.5)
    assert odds["well"][0][4] is None                     # face up now


def test_e15_hidden_faces_in_physical_play():
    report = run(E15_SETUP, E15_EVENTS, keep_going=True)
    assert_verdicts(report, ["observation_missing", "observation_conflict", OK, OK, OK])
    s, state = report.summary, report.state
    assert_summary(s, water=[3, 4], actions_left=1, events=3, pawns=[[1, 4], [1, 4]],
                   excavated=[[0, 4], [1, 4]])
    assert s["tiles"][0][4] == "well_1"
    assert s["tiles"][1][4] == "well_2"
    assert s["tiles"][3][0] == "water_back"
    assert _p(state, (3, 0), "well") == 0
    assert _p(state, (3, 0), "mirage") == 1
    odds = face_odds(state)
    assert odds["well"][3][0] == pytest.approx(0.0)
    dunes = dune_cells(s)
    assert len(dunes) == 20
    for r, c in dunes:
        assert _p(state, (r, c), "launch_pad") == Fraction(1, 20)
        assert odds["launch_pad"][r][c] == pytest.approx(1 / 20)


# --- E16 -----------------------------------------------------------------------------------
E16_SETUP = setup(["meteorologist", "navigator"], "normal", 0,
                  {"storm_discard": all_storm_cards_minus("wind_n_1", "sun_beats_down")})
E16_EVENTS = [
    {"actor": 0, "type": "meteorologist_peek", "seen": ["sun_beats_down", "wind_n_1"], "to_bottom": 0},
    {"actor": 0, "type": "meteorologist_reduce"},
    end_turn(0),
    S("sun_beats_down"),
    S("wind_n_1"),
    S("sun_beats_down"),
]


def test_e16_short_deck_peek():
    assert len(E16_SETUP["position"]["storm_discard"]) == 29
    report = run(E16_SETUP, E16_EVENTS[:1])
    assert_verdicts(report, [OK])
    assert report.state.pile == ["wind_n_1", "sun_beats_down"]
    assert view(report.state, None)["storm_pile"] == {"size": 2, "seen": ["wind_n_1", "sun_beats_down"]}
    assert_summary(report.summary, actions_left=3)

    report = run(E16_SETUP, E16_EVENTS[:3])
    assert_verdicts(report, [OK] * 3)
    assert_summary(report.summary, phase="storm", to_draw=2)


def test_e16_meteorologist_and_short_deck():
    report = run(E16_SETUP, E16_EVENTS, keep_going=True)
    assert_verdicts(report, [OK, OK, OK, "observation_conflict", OK, OK])
    assert_summary(report.summary, storm=[3, 2], sand_supply=39, water=[3, 3], turn=1, phase="actions",
                   result="ongoing", events=5)
    assert report.summary["tiles"][2][2] == "tunnel_3"
    assert [2, 2, 1] in report.summary["sand"]


# --- E17 -----------------------------------------------------------------------------------
def test_e17_jet_pack_out_of_a_burial():
    hdr = setup(["archeologist", "explorer"], "normal", 0,
                {"sand": [[1, 2, 2]], "pawns": [[1, 2], [1, 2]], "hands": [["jet_pack"], []], "turn": 1})
    events = [
        {"actor": 1, "type": "move", "to": [0, 2]},
        {"actor": 0, "type": "play_equipment", "card": "jet_pack", "to": [2, 2]},
        {"actor": 0, "type": "play_equipment", "card": "jet_pack", "to": [4, 4], "carry": 1},
        {"actor": 1, "type": "move", "to": [3, 4]},
    ]
    report = run(hdr, events, keep_going=True)
    assert_verdicts(report, ["buried", "target_is_storm", OK, OK])
    assert_summary(report.summary, pawns=[[4, 4], [3, 4]], hands=[[], []], actions_left=3, turn=1,
                   sand_supply=46, events=2)


# --- E18 -----------------------------------------------------------------------------------
def test_e18_digital_deck_reshuffle():
    hdr = setup(["archeologist", "explorer"], "novice", 0,
                {"storm_discard": all_storm_cards_minus("wind_e_1")}, storm_deck=["wind_e_1"])
    order = all_storm_cards_minus("sun_beats_down")
    order = ["sun_beats_down"] + order
    assert len(order) == 31 and Counter(order) == STORM_COUNTS
    events = [
        end_turn(0),
        {"actor": "storm", "type": "draw_storm"},
        {"actor": "storm", "type": "draw_storm"},
        {"actor": "storm", "type": "reshuffle", "order": order},
        {"actor": "storm", "type": "draw_storm", "card": "sun_beats_down"},
    ]
    report = run(hdr, events[:2])
    assert_verdicts(report, [OK, OK])
    assert_summary(report.summary, storm=[2, 1], sand_supply=39, phase="storm", to_draw=1)
    assert report.summary["tiles"][2][2] == "gear_4"
    assert [2, 2, 1] in report.summary["sand"]

    report = run(hdr, events, keep_going=True)
    assert_verdicts(report, [OK, OK, "reshuffle_required", OK, OK])
    assert_summary(report.summary, storm=[2, 1], sand_supply=39, water=[2, 3], turn=1, phase="actions",
                   result="ongoing", events=4)


# --- the command line --------------------------------------------------------------------------
def _cli(tmp_path, text, *args):
    path = tmp_path / "record.jsonl"
    path.write_text(text, encoding="utf-8")
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return subprocess.run([sys.executable, "-m", "assistant", "check", str(path), *args],
                          capture_output=True, text=True, cwd=REPO, env=env, timeout=120)


def test_cli_e3_without_continue_exits_1(tmp_path):
    text = record_text(E3_SETUP, E3_EVENTS)
    proc = _cli(tmp_path, text)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr == ""
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(lines) == 5
    assert lines[:3] == [{"index": i, "ok": True} for i in (1, 2, 3)]
    refusal = lines[3]
    assert set(refusal) == {"index", "ok", "reason", "message"}
    assert refusal["index"] == 4 and refusal["ok"] is False and refusal["reason"] == "buried"
    assert isinstance(refusal["message"], str) and refusal["message"]
    assert set(lines[4]) == {"summary"}
    summary = lines[4]["summary"]
    assert_summary(summary, events=3, result="ongoing", turn=1, phase="actions", actions_left=4,
                   storm=[1, 3], sand_supply=45, pawns=[[2, 1], [2, 2]])
    assert summary == run(E3_SETUP, E3_EVENTS).summary


def test_cli_e3_with_continue_exits_1(tmp_path):
    proc = _cli(tmp_path, record_text(E3_SETUP, E3_EVENTS), "--continue")
    assert proc.returncode == 1, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [(v["index"], v["ok"]) for v in lines[:-1]] == [(i, i != 4) for i in range(1, 7)]
    assert lines[3]["reason"] == "buried"
    assert_summary(lines[-1]["summary"], events=5, actions_left=2, pawns=[[2, 1], [1, 2]])


def test_cli_all_legal_exits_0(tmp_path):
    proc = _cli(tmp_path, record_text(E1_SETUP, E1_EVENTS))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert lines[:-1] == [{"index": 1, "ok": True}, {"index": 2, "ok": True}]
    summary = lines[-1]["summary"]
    assert_summary(summary, events=2, result="ongoing", storm=[4, 2], sand_supply=38, phase="storm", to_draw=2)
    assert summary == run(E1_SETUP, E1_EVENTS).summary
