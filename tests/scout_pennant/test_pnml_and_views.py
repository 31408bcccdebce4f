"""The PNML export (§4.2), the Petri-net reading of the board (§4.1), the geometry (§2) and
the per-seat views (no future d8 roll may leak)."""

from __future__ import annotations

import json
import math
import random
import re
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.check import check_record
from assistant.games.scout_pennant import GAME, net, to_pnml
from assistant.games.scout_pennant.geometry import (board_cells, cell_count, corners, default_starts, direction_index,
                                                    distance, neighbours, pixel)
from assistant.games.scout_pennant.simulate import full_board, random_game
from assistant.games.scout_pennant.views import view
from assistant.records import parse_record

REPO = Path(__file__).resolve().parents[2]
RULES = REPO.parent / "shared" / "rules" / "scout-pennant.md"
NS = {"p": "http://www.pnml.org/version-2009/grammar/pnml"}

E1 = """\
{"format":"tabletop-record/1","game":"scout-pennant","setup":{"players":[{"seat":0,"colour":"red"},{"seat":1,"colour":"blue"}],"position":{"clearings":[[0,2]],"forests":[[0,3]],"arrows":[{"from":[0,4],"to":[0,3]},{"from":[0,3],"to":[0,2]}],"patrols":[{"seat":0,"cell":[0,4]}]}}}
{"actor":0,"type":"fire","cell":[0,3]}
"""

#: §4.2: "Example E1 (§6) after its first event exports as:" (verbatim)
E1_PNML = """\
<?xml version="1.0" encoding="UTF-8"?>
<pnml xmlns="http://www.pnml.org/version-2009/grammar/pnml">
  <net id="scout-pennant" type="http://www.pnml.org/version-2009/grammar/ptnet">
    <name><text>scout-pennant R=4 events=1</text></name>
    <toolspecific tool="scout-pennant" version="1">
      <game radius="4" variant="free" events="1" to_move="1"/>
      <player seat="0" colour="red" base="3" pennant="false" finished="false"/>
      <player seat="1" colour="blue" base="4" pennant="false" finished="false"/>
    </toolspecific>
    <page id="board">
      <place id="c_0_m4">
        <name><text>start blue (0,-4)</text></name>
        <graphics><position x="280.00" y="40.00"/></graphics>
        <toolspecific tool="scout-pennant" version="1"><cell q="0" r="-4" kind="start" seat="1"/></toolspecific>
      </place>
      <place id="c_0_0">
        <name><text>finish (0,0)</text></name>
        <graphics><position x="280.00" y="317.13"/></graphics>
        <toolspecific tool="scout-pennant" version="1"><cell q="0" r="0" kind="finish"/></toolspecific>
      </place>
      <place id="c_0_2">
        <name><text>clearing (0,2)</text></name>
        <graphics><position x="280.00" y="455.69"/></graphics>
        <initialMarking><text>1</text></initialMarking>
        <toolspecific tool="scout-pennant" version="1"><cell q="0" r="2" kind="clearing"/><patrol seat="0" colour="red"/></toolspecific>
      </place>
      <place id="c_0_4">
        <name><text>start red (0,4)</text></name>
        <graphics><position x="280.00" y="594.26"/></graphics>
        <toolspecific tool="scout-pennant" version="1"><cell q="0" r="4" kind="start" seat="0"/></toolspecific>
      </place>
      <transition id="f_0_3">
        <name><text>forest (0,3)</text></name>
        <graphics><position x="280.00" y="524.97"/></graphics>
      </transition>
      <arc id="a_f_0_3_c_0_2" source="f_0_3" target="c_0_2"/>
      <arc id="a_c_0_4_f_0_3" source="c_0_4" target="f_0_3"/>
    </page>
  </net>
</pnml>
"""


def e1_after_first_event():
    report = check_record(parse_record(E1))
    assert report.status == 0
    return report.state


# --- PNML ------------------------------------------------------------------------------------------
def test_e1_exports_byte_for_byte():
    assert to_pnml(e1_after_first_event()) == E1_PNML
    assert to_pnml(e1_after_first_event()).encode("utf-8") == E1_PNML.encode("utf-8")


@pytest.mark.skipif(not RULES.exists(), reason="the shared rules folder is not next to the repository")
def test_embedded_pnml_is_the_rules_files():
    block = re.search(r"```xml\n(.*?)```", RULES.read_text(encoding="utf-8"), re.S).group(1)
    assert block == E1_PNML


def test_graphics_positions_of_section_4_2():
    from assistant.games.scout_pennant.pnml import position
    expected = {(0, 0): ("280.00", "317.13"), (0, 4): ("280.00", "594.26"), (0, -4): ("280.00", "40.00"),
                (4, -4): ("520.00", "178.56"), (-4, 4): ("40.00", "455.69")}
    for cell, xy in expected.items():
        assert position(cell, 4) == xy
    for R in (2, 3, 4, 6):
        for cell in board_cells(R):
            x, y = map(float, position(cell, R))
            assert x >= 40 - 1e-9 and y >= 40 - 1e-9


def test_pnml_escapes_colours_and_omits_to_move_when_over():
    state = GAME.new_state({"players": [{"seat": 0, "colour": 'red & "dark"'}, {"seat": 1, "colour": "<blue>"}],
                            "position": {"forests": [[0, 3]], "arrows": [{"from": [0, 4], "to": [0, 3]}],
                                         "patrols": [{"seat": 0, "cell": [0, 4]}], "pennants": [0]}}, {})
    state = GAME.apply(state, GAME.parse_event({"actor": 0, "type": "fire", "cell": [0, 3]}, state))
    assert state.game_over
    root = ET.fromstring(to_pnml(state))
    game = root.find("p:net/p:toolspecific/p:game", NS)
    assert "to_move" not in game.attrib
    colours = [p.get("colour") for p in root.findall("p:net/p:toolspecific/p:player", NS)]
    assert colours == ['red & "dark"', "<blue>"]
    names = [n.text for n in root.findall("p:net/p:page/p:place/p:name/p:text", NS)]
    assert "start <blue> (0,-4)" in names


def _parse(xml: str):
    root = ET.fromstring(xml)
    assert root.tag == "{%s}pnml" % NS["p"]
    nets = root.findall("p:net", NS)
    assert len(nets) == 1
    pages = nets[0].findall("p:page", NS)
    assert len(pages) == 1 and pages[0].get("id") == "board"
    return nets[0], pages[0]


def _cell_of(element) -> tuple[int, int]:
    cell = element.find("p:toolspecific/p:cell", NS)
    return int(cell.get("q")), int(cell.get("r"))


def _id_cell(ident: str) -> tuple[int, int]:
    _kind, q, r = ident.split("_")
    num = lambda s: -int(s[1:]) if s.startswith("m") else int(s)  # noqa: E731
    return num(q), num(r)


GAMES = st.builds(lambda seed, variant: random_game(seed, variant=variant, max_events=120),
                  st.integers(0, 10**9), st.sampled_from(["free", "d8"]))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(GAMES, st.integers(0, 10**6))
def test_exported_positions_read_back_the_same(game, seed):
    rng = random.Random(seed)
    for state in rng.sample(game.states, min(4, len(game.states))):
        netel, page = _parse(to_pnml(state))
        cfg = state.cfg
        # places = clearings with their marking and colour
        places = page.findall("p:place", NS)
        cells = [_cell_of(p) for p in places]
        assert cells == state.clearings()
        for p, cell in zip(places, cells):
            assert _id_cell(p.get("id")) == cell
            marked = p.find("p:initialMarking/p:text", NS)
            patrol = p.find("p:toolspecific/p:patrol", NS)
            holder = state.patrols.get(cell)
            if holder is None:
                assert marked is None and patrol is None
            else:
                assert marked.text == "1" and int(patrol.get("seat")) == holder
                assert patrol.get("colour") == cfg.colours[holder]
            kind = p.find("p:toolspecific/p:cell", NS)
            if cell == (0, 0):
                assert kind.get("kind") == "finish"
            elif cell in cfg.starts:
                assert kind.get("kind") == "start" and int(kind.get("seat")) == cfg.starts.index(cell)
            else:
                assert kind.get("kind") == "clearing"
            assert [c.tag.split("}")[1] for c in p] == (["name", "graphics"] + (["initialMarking"] if holder is not None
                                                                               else []) + ["toolspecific"])
        # transitions = forests
        transitions = page.findall("p:transition", NS)
        assert [_id_cell(t.get("id")) for t in transitions] == state.forests()
        # arcs = arrows, source and target
        arcs = {(a.get("source"), a.get("target")) for a in page.findall("p:arc", NS)}
        expected = set()
        for f in state.forests():
            expected |= {(f"c_{_num(c)}", f"f_{_num(f)}") for c in net.preset(state, f)}
            expected |= {(f"f_{_num(f)}", f"c_{_num(c)}") for c in net.postset(state, f)}
        assert arcs == expected and len(page.findall("p:arc", NS)) == state.arrows
        for a in page.findall("p:arc", NS):
            assert a.get("id") == f"a_{a.get('source')}_{a.get('target')}" and len(a) == 0
        # the game and the players
        g = netel.find("p:toolspecific/p:game", NS)
        assert int(g.get("radius")) == cfg.radius and g.get("variant") == cfg.variant
        assert int(g.get("events")) == state.events
        assert g.get("to_move") == (None if state.game_over else str(state.to_move))
        for seat, p in enumerate(netel.findall("p:toolspecific/p:player", NS)):
            assert int(p.get("seat")) == seat and int(p.get("base")) == state.base(seat)
            assert p.get("pennant") == ("true" if seat in state.pennants else "false")
            assert p.get("finished") == ("true" if state.finished(seat) else "false")
        assert "rolls" not in to_pnml(state)


def _num(cell) -> str:
    return "_".join(str(n) if n >= 0 else f"m{-n}" for n in cell)


def test_full_board_exports():
    full, after = full_board(3)
    assert full.empty_count() == 0
    netel, page = _parse(to_pnml(after[-1] if after else full))
    assert len(page.findall("p:place", NS)) + len(page.findall("p:transition", NS)) == 61


# --- the net (§4.1) ---------------------------------------------------------------------------------
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(GAMES)
def test_firing_follows_the_marking_equation(game):
    """For every fire event: the pre-set emptied, the post-set marked with the firer's colour,
    everything else unchanged, and ``β'(c) = β(c) + |•t| - |t•|`` (§4.1)."""
    for ev, before, after in zip(game.events, game.states, game.states[1:]):
        if ev.type != "fire":
            continue
        t, c = ev["cell"], ev.actor
        pre, post = set(net.preset(before, t)), set(net.targets(before, t))
        assert not pre & post
        for cell in set(before.patrols) | set(after.patrols):
            if cell in pre - post:
                assert cell not in after.patrols
            elif cell in post:
                assert after.patrols[cell] == c
            else:
                assert after.patrols.get(cell) == before.patrols.get(cell)
        assert after.base(c) == before.base(c) + len(pre) - len(post)


# --- geometry (§2) --------------------------------------------------------------------------------
def test_geometry():
    assert cell_count(4) == len(board_cells(4)) == 61
    assert corners(4) == {"N": (0, -4), "NE": (4, -4), "SE": (4, 0), "S": (0, 4), "SW": (-4, 4), "NW": (-4, 0)}
    assert default_starts(2, 4) == ((0, 4), (0, -4))
    assert default_starts(4, 4) == ((0, 4), (-4, 4), (0, -4), (4, -4))
    assert default_starts(6, 3) == ((0, 3), (-3, 3), (-3, 0), (0, -3), (3, -3), (3, 0))
    assert all(distance(c) <= 4 for c in board_cells(4)) and distance((2, -5)) == 5
    assert [direction_index((0, 0), nb) for nb in neighbours((0, 0))] == list(range(6))
    assert direction_index((0, 0), (0, 2)) is None
    x, y = pixel((1, 0), 40)
    assert x == 60 and y == pytest.approx(20 * math.sqrt(3))


def test_seats_go_clockwise_seen_from_above():
    """Ascending seats turn clockwise on screen (y down): the angle of the start decreases."""
    for n in range(2, 7):
        angles = [math.atan2(-pixel(c, 1)[1], pixel(c, 1)[0]) for c in default_starts(n, 4)]
        steps = [(angles[i] - angles[(i + 1) % n]) % (2 * math.pi) for i in range(n)]
        assert all(0 < s < 2 * math.pi for s in steps) and sum(steps) == pytest.approx(2 * math.pi)


# --- views ---------------------------------------------------------------------------------------
D8 = {"players": [{"seat": 0, "colour": "red"}, {"seat": 1, "colour": "blue"}], "variant": "d8"}


def _keys(obj) -> set[str]:
    if isinstance(obj, dict):
        return set(obj) | {k for v in obj.values() for k in _keys(v)}
    if isinstance(obj, list):
        return {k for v in obj for k in _keys(v)}
    return set()


def test_views_never_show_the_future_rolls():
    a = GAME.new_state({**D8, "rolls": [5, 2, 7, 4]}, {})
    b = GAME.new_state({**D8, "rolls": [5, 8, 8, 8]}, {})
    c = GAME.new_state(D8, {})
    for state in (a, b):
        state2 = GAME.apply(state, GAME.parse_event({"actor": 0, "type": "roll", "value": 5}, state))
        for seat in (None, 0, 1):
            v = view(state2, seat)
            assert "rolls" not in _keys(v)
            assert json.dumps(v) == json.dumps(view(GAME.apply(c, GAME.parse_event(
                {"actor": 0, "type": "roll", "value": 5}, c)), seat))
    assert json.dumps(view(a, None)) == json.dumps(view(b, None)) == json.dumps(view(c, None))


def test_view_content():
    state = e1_after_first_event()
    table = view(state, None)
    assert {k: table[k] for k in GAME.summary(state)} == GAME.summary(state)
    assert table["layout"]["forests"] == [{"cell": [0, 3], "inputs": [[0, 4]], "outputs": [[0, 2]]}]
    assert table["layout"]["patrols"] == [{"seat": 0, "cell": [0, 2]}]
    assert table["layout"]["starts"] == [[0, 4], [0, -4]] and table["layout"]["clearings"] == [[0, 2]]
    assert view(state, 1) == {**table, "seat": 1}
    with pytest.raises(ValueError):
        view(state, 2)
    json.dumps(table)


def test_summary_does_not_change_with_the_rolls():
    a = GAME.new_state({**D8, "rolls": [1]}, {})
    b = replace(a, cfg=replace(a.cfg, rolls=(8,)))
    assert GAME.summary(a) == GAME.summary(b)
