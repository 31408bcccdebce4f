"""The worked examples T1-T13 of ``shared/rules/discovery-island.md`` §8 as tests.

Each table is transcribed row by row in the rules' own shorthand and replayed with
``--continue`` semantics: every row's verdict, the running march sum (``-`` right after an
accepted ``end_march``), the position and the candidate count of the walker concerned are
checked after the row, then the summary figures the example states.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from assistant.check import check_record
from assistant.games.base import Event
from assistant.games.discovery_island.geometry import to_offset
from assistant.records import parse_record

REPO = Path(__file__).resolve().parents[2]

FRAGMENT = """# fragment
#     01234567
#  0  ~~~~~~~~
#  1  ~ojjmmw~
#  2  ~ojJmww~
#  3  ~boojOw~
#  4  ~bbojjo~
#  5  ~~bboo~~
#  6  ~~~~~~~~
col,row,terrain,feature,label
1,1,open,none,
1,2,open,none,
1,3,bush,none,
1,4,bush,none,
2,1,jungle,none,
2,2,jungle,none,
2,3,open,none,
2,4,bush,none,
2,5,bush,none,
3,1,jungle,none,
3,2,jungle,checkpoint,A2
3,3,open,none,
3,4,open,none,
3,5,bush,none,
4,1,mountain,none,
4,2,mountain,none,
4,3,jungle,none,
4,4,jungle,none,
4,5,open,none,
5,1,mountain,none,
5,2,wetland,none,
5,3,open,ruin,C4
5,4,jungle,none,
5,5,open,none,
6,1,wetland,none,
6,2,wetland,none,
6,3,wetland,none,
6,4,open,none,
7,6,sea,none,
"""

DEAL = {"A1": {"type": "terrain", "terrain": "jungle"}, "A2": {"type": "terrain", "terrain": "wetland"},
        "A3": {"type": "empty"}, "A4": {"type": "terrain", "terrain": "open"},
        "A5": {"type": "terrain", "terrain": "jungle"}, "A6": {"type": "symbol", "symbol": "ruin"},
        "B1": {"type": "terrain", "terrain": "wetland"}, "B2": {"type": "terrain", "terrain": "jungle"}}


def header_h(first_player=0, equipment=None, rulings=None):
    """Header H of §8."""
    return {"format": "tabletop-record/1", "game": "discovery-island",
            "setup": {"map": "fragment.csv", "data": "default",
                      "equipment": equipment or [["rope", "boots", "mosquito_net"],
                                                 ["machete", "water_bottle", "antidote", "compass"]],
                      "landing": [[2, 2], [4, 4]],
                      "checkometer": {"kind": "digital", "treasure": "C4", "checkpoints": DEAL},
                      "first_player": first_player},
            "rulings": rulings or {}}


def parse_shorthand(text: str) -> dict:
    """One event of the §8 shorthand, e.g. ``P0 SE mountain/4 event:fall`` -> its JSON object."""
    words = text.split()
    actor = int(words[0][1])
    rest = words[1:]
    if rest[0] == "hav":
        return {"actor": actor, "type": "sea_refused", "dir": rest[1]}
    if rest[0] in ("enter_checkpoint", "enter_cache"):
        return {"actor": actor, "type": rest[0], "dir": rest[1], "label": rest[2]}
    if rest[0] == "learn":
        ev = {"actor": actor, "type": "learn_clue", "label": rest[1]}
        if len(rest) > 2:
            ev["clue"] = {"type": "terrain", "terrain": rest[2]}
        return ev
    if rest[0] == "open":
        return {"actor": actor, "type": "open_cache", "label": rest[1], "found": rest[2] == "found"}
    if rest[0] == "resolved":
        return {"actor": actor, "type": "event_resolved", "kind": rest[1],
                "equipment": None if rest[2] == "none" else rest[2]}
    if rest[0] == "relocate":
        col, row = map(int, rest[1].strip("()").split(","))
        return {"actor": actor, "type": "relocate", "to": [col, row], "terrain": rest[2]}
    if rest[0] == "end":
        return {"actor": actor, "type": "end_march"}
    if rest[0] == "skip":
        return {"actor": actor, "type": "skip_march"}
    terrain, points = rest[1].split("/")
    mark = rest[2] if len(rest) > 2 else "none"
    return {"actor": actor, "type": "choose_direction", "dir": rest[0],
            "tile": {"terrain": terrain, "points": int(points), "mark": mark}}


ROW = re.compile(r"^\s*(\d+)\s+(P[01] .+?)\s{2,}(\S+)\s+(\S+)\s+\((\d+),(\d+)\)\s+(\d+)")


def rows(table: str):
    out = []
    for line in table.strip("\n").splitlines():
        m = ROW.match(line)
        assert m, line
        _n, event, verdict, total, col, row, count = m.groups()
        out.append((parse_shorthand(event), verdict, total, (int(col), int(row)), int(count)))
    return out


def play(tmp_path, table: str, **header_kw):
    """Replay a table and check every row; returns the final summary."""
    (tmp_path / "fragment.csv").write_text(FRAGMENT)
    table_rows = rows(table)
    head = header_h(**header_kw)
    record = parse_record("\n".join(json.dumps(o) for o in [head] + [r[0] for r in table_rows]) + "\n",
                          base_dir=tmp_path)
    game, state = record.game, record.start
    for (_line, ev), (obj, verdict, total, at, count) in zip(record.events, table_rows):
        after = game.apply(state, ev)
        got = "ok" if after else after.reason
        assert got == verdict, (obj, got, getattr(after, "message", ""))
        if after:
            state = after
        concerned = state.walker if obj["type"] == "relocate" else obj["actor"]
        ended = bool(after) and obj["type"] == "end_march"
        assert (("-" if ended else str(state.sums[state.walker])), to_offset(*state.pos[concerned]),
                len(state.candidates[concerned])) == (total, at, count), obj
    return game.summary(state), state


def test_t1_march_of_exactly_12(tmp_path):
    summary, _ = play(tmp_path, """
 1  P0 N jungle/4                ok                      4  (2,1)   2
 2  P0 SE jungle/3               ok                      7  (3,1)   1
 3  P0 SE mountain/5             ok                     12  (4,2)   1
 4  P0 N mountain/3              march_already_over     12  (4,2)   1
 5  P0 end                       ok                      -  (4,2)   1
 6  P0 N mountain/3              not_your_march          0  (4,2)   1
""")
    assert summary == {"result": "ongoing", "events": 4, "marches": [1, 0], "position": [[4, 2], [4, 4]],
                       "clues": [{}, {}], "candidates": [1, 6], "skips_pending": [0, 0]}


def test_t2_overshoot_excess_lost(tmp_path):
    summary, _ = play(tmp_path, """
 1  P0 S open/2                  ok                      2  (2,3)   3
 2  P0 S bush/9                  ok                     11  (2,4)   1
 3  P0 SW bush/7                 ok                     18  (1,4)   1
 4  P0 end                       ok                      -  (1,4)   1
 5  P1 S open/3                  ok                      3  (4,5)   3
 6  P1 SW bush/9                 ok                     12  (3,5)   2
 7  P1 end                       ok                      -  (3,5)   2
 8  P0 N bush/5                  ok                      5  (1,3)   1
""")
    assert (summary["events"], summary["marches"], summary["position"], summary["candidates"]) == \
        (8, [1, 1], [[1, 3], [3, 5]], [1, 2])


def test_t3_sea(tmp_path):
    play(tmp_path, """
 1  P0 NW open/2                 ok                      2  (1,1)   2
 2  P0 N open/3                  direction_into_sea      2  (1,1)   2
 3  P0 hav N                     ok                      2  (1,1)   1
 4  P0 hav SE                    not_sea                 2  (1,1)   1
 5  P0 hav NW                    ok                      2  (1,1)   1
 6  P0 S open/3                  ok                      5  (1,2)   1
""")


def test_t4_crossing_own_path(tmp_path):
    play(tmp_path, """
 1  P0 S open/2                  ok                      2  (2,3)   3
 2  P0 SE open/3                 ok                      5  (3,3)   2
 3  P0 NW open/1                 ok                      6  (2,3)   2
 4  P0 N jungle/4                ok                     10  (2,2)   2
 5  P0 N jungle/2                ok                     12  (2,1)   2
 6  P0 end                       ok                      -  (2,1)   2
""")


def test_t5_shortcut(tmp_path):
    play(tmp_path, """
 1  P0 S open/2 shortcut         ok                      1  (2,3)   3
 2  P0 SE open/3                 ok                      4  (3,3)   2
 3  P0 S open/3                  ok                      7  (3,4)   1
 4  P0 SW bush/5                 ok                     12  (2,5)   1
 5  P0 end                       ok                      -  (2,5)   1
""")


def test_t6_accident_with_and_without_the_card(tmp_path):
    summary, state = play(tmp_path, """
 1  P0 NE jungle/2               ok                      2  (3,1)   1
 2  P0 SE mountain/4 event:fall  ok                      6  (4,2)   1
 3  P0 resolved fall rope        ok                      6  (4,2)   1
 4  P0 N mountain/5              ok                     11  (4,1)   1
 5  P0 SE mountain/3             ok                     14  (5,1)   1
 6  P0 end                       ok                      -  (5,1)   1
 7  P1 N jungle/2                ok                      2  (4,3)   2
 8  P1 N mountain/4 event:fall   ok                      6  (4,2)   1
 9  P1 NW jungle/3               resolution_pending      6  (4,2)   1
10  P1 resolved fall rope        equipment_not_held      6  (4,2)   1
11  P1 resolved fall machete     equipment_not_usable    6  (4,2)   1
12  P1 resolved fall none        ok                      6  (4,2)   1
13  P1 S jungle/3                march_already_over      6  (4,2)   1
14  P1 end                       ok                      -  (4,2)   1
15  P0 S wetland/6               ok                      6  (5,2)   1
16  P0 SW jungle/3               ok                      9  (4,3)   1
17  P0 S jungle/3                ok                     12  (4,4)   1
18  P0 end                       ok                      -  (4,4)   1
19  P1 S jungle/3                must_skip_march         0  (4,2)   1
20  P1 skip                      ok                      0  (4,2)   1
21  P0 N jungle/3                ok                      3  (4,3)   1
""")
    assert (summary["events"], summary["marches"], summary["position"], summary["skips_pending"]) == \
        (16, [2, 1], [[4, 3], [4, 2]], [0, 0])
    rope = state.cards[0]["rope"]
    assert (rope.left("mountain"), rope.march_left, rope.discarded) == (2, 1, False)


def test_t7_unpreventable_event(tmp_path):
    summary, _ = play(tmp_path, """
 1  P0 S open/2 event:storm      ok                      2  (2,3)   3
 2  P0 resolved storm boots      event_unpreventable     2  (2,3)   3
 3  P0 resolved storm none       ok                      2  (2,3)   3
 4  P0 end                       ok                      -  (2,3)   3
""")
    assert summary["skips_pending"] == [1, 0]


def test_t8_lost_and_relocation_limits(tmp_path):
    _, state = play(tmp_path, """
 1  P0 N jungle/4 event:lost     ok                      4  (2,1)   2
 2  P0 resolved lost none        ok                      4  (2,1)   2
 3  P0 end                       resolution_pending      4  (2,1)   2
 4  P0 relocate (4,4) jungle     wrong_actor             4  (2,1)   2
 5  P1 relocate (5,4) jungle     relocation_too_far      4  (2,1)   2
 6  P1 relocate (2,0) sea        relocation_into_sea     4  (2,1)   2
 7  P1 relocate (3,2) jungle     relocation_on_feature   4  (2,1)   2
 8  P1 relocate (4,4) open       wrong_terrain_laid      4  (2,1)   2
 9  P1 relocate (4,4) jungle     ok                      4  (4,4)   6
10  P0 end                       ok                      -  (4,4)   6
""")
    jungle = {(2, 1), (3, 1), (2, 2), (4, 3), (4, 4), (5, 4)}
    assert {to_offset(*h) for h in state.candidates[0]} == jungle


def test_t9_clue_taken_then_closed(tmp_path):
    summary, _ = play(tmp_path, """
 1  P0 enter_checkpoint SE A2    ok                      4  (3,2)   1
 2  P0 learn A2 jungle           clue_mismatch           4  (3,2)   1
 3  P0 learn A2 wetland          ok                     11  (3,2)   1
 4  P0 S open/2                  ok                     13  (3,3)   1
 5  P0 end                       ok                      -  (3,3)   1
 6  P1 N jungle/3                ok                      3  (4,3)   2
 7  P1 enter_checkpoint NW A2    ok                      7  (3,2)   1
 8  P1 learn A2                  checkpoint_already_taken 7 (3,2)   1
 9  P1 S open/3                  ok                     10  (3,3)   1
10  P1 S open/2                  ok                     12  (3,4)   1
11  P1 end                       ok                      -  (3,4)   1
12  P0 enter_checkpoint N A2     ok                      4  (3,2)   1
13  P0 learn A2                  clue_already_held       4  (3,2)   1
""")
    assert summary["events"] == 10
    assert summary["clues"] == [{"A2": {"type": "terrain", "terrain": "wetland"}}, {}]


def test_t10_opening_the_treasure_cache_wins(tmp_path):
    summary, _ = play(tmp_path, """
 1  P1 NE open/2                 wrong_step_type         0  (4,4)   6
 2  P1 enter_cache NE C5         label_mismatch          0  (4,4)   6
 3  P1 enter_cache NE C4         ok                      4  (5,3)   1
 4  P1 open C4 not_found         cache_result_mismatch   4  (5,3)   1
 5  P1 open C4 found             ok                     11  (5,3)   1
 6  P1 end                       game_over              11  (5,3)   1
""", first_player=1)
    assert (summary["result"], summary["winner"], summary["events"], summary["marches"]) == ("won", 1, 2, [0, 0])


def test_t11_candidates_shrink_to_the_true_hex(tmp_path):
    _, state = play(tmp_path, """
 1  P1 S open/3                  ok                      3  (4,5)   3
 2  P1 SE open/2                 ok                      5  (5,5)   2
 3  P1 hav NE                    ok                      5  (5,5)   1
 4  P1 NW open/3                 ok                      8  (4,5)   1
 5  P1 N jungle/4                ok                     12  (4,4)   1
 6  P1 end                       ok                      -  (4,4)   1
""", first_player=1)
    assert {to_offset(*h) for h in state.candidates[1]} == {(4, 4)}


def test_t12_equipment_budget(tmp_path):
    (tmp_path / "fragment.csv").write_text(FRAGMENT)
    head = header_h(equipment=[["compass", "raft", "first_aid_kit", "water_bottle"],
                               ["machete", "water_bottle", "antidote", "compass"]])
    path = tmp_path / "t12.jsonl"
    path.write_text(json.dumps(head) + "\n")
    run = subprocess.run([sys.executable, "-m", "assistant", "check", str(path)], capture_output=True, text=True)
    assert run.returncode == 2 and run.stdout == ""
    assert "line 1: setup.equipment[0]: equipment_over_budget" in run.stderr
    # P1's 24 points in H are exactly the limit
    (tmp_path / "h.jsonl").write_text(json.dumps(header_h()) + "\n")
    ok = subprocess.run([sys.executable, "-m", "assistant", "check", str(tmp_path / "h.jsonl")],
                        capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr


def test_t13_tile_and_turn_checks(tmp_path):
    play(tmp_path, """
 1  P1 end                       not_your_march          0  (4,4)   6
 2  P1 N jungle/2                not_your_march          0  (4,4)   6
 3  P0 N open/2                  wrong_terrain_laid      0  (2,2)   6
 4  P0 N jungle/5                points_out_of_range     0  (2,2)   6
 5  P0 N jungle/4 shortcut       tile_not_in_supply      0  (2,2)   6
 6  P0 N jungle/4                ok                      4  (2,1)   2
 7  P0 end                       march_not_over          4  (2,1)   2
""")


def test_cli_check_with_continue_on_t8(tmp_path):
    """The same rows through the real command line: exit 1 and the reason codes in order."""
    (tmp_path / "fragment.csv").write_text(FRAGMENT)
    events = [parse_shorthand(s) for s in ("P0 N jungle/4 event:lost", "P0 resolved lost none",
                                             "P1 relocate (5,4) jungle", "P1 relocate (4,4) jungle", "P0 end")]
    path = tmp_path / "t8.jsonl"
    path.write_text("\n".join(json.dumps(o) for o in [header_h()] + events) + "\n")
    # run from another folder: the map path is resolved against the record's folder
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    run = subprocess.run([sys.executable, "-m", "assistant", "check", "--continue", str(path)],
                         capture_output=True, text=True, cwd="/", env=env)
    assert run.returncode == 1, run.stderr
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    assert [v.get("reason", "ok") for v in lines[:-1]] == ["ok", "ok", "relocation_too_far", "ok", "ok"]
    assert lines[-1]["summary"]["position"][0] == [4, 4]
