"""The opening kits of Scout Pennant and Discovery Island (issue 21): which readings break the
rules' set-up, which are unsure, what the sentences say (and never say), and which corrections
are refused. Readings are built from the engine's own start (what a perfect camera reads);
tests/server/test_table_setup_kits.py reads rendered tables end to end."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assistant.games.discovery_island import GAME as ISLAND
from assistant.games.discovery_island.geometry import to_offset
from assistant.games.discovery_island.island import load_map
from assistant.games.discovery_island.simulate import random_setup
from assistant.tracking.base import Reading
from assistant.tracking.discovery_island import CENTRE, TableState
from assistant.tracking.island_setup import BACKS, IslandOpening
from assistant.tracking.opening import CorrectionError
from assistant.tracking.pennant_setup import PennantOpening

PENNANT_KIT, ISLAND_KIT = PennantOpening(), IslandOpening()


def _sure(labels):
    return {s: Reading(v, 0.99, 5.0) for s, v in labels.items()}


def _pennant(players=3):
    setup = {"radius": 4, "players": [{"seat": i, "colour": c} for i, c in enumerate(("red", "blue", "green",
                                                                                     "yellow", "purple")[:players])]}
    state = PENNANT_KIT.context(setup)
    return state, _sure(PENNANT_KIT.table.expected(state))


def test_a_correct_pennant_opening_raises_nothing_and_each_break_is_named_once():
    state, read = _pennant()
    assert PENNANT_KIT.flags(read, state) == [] and PENNANT_KIT.flags(read) == []
    read[("piece", 0, 4)] = Reading("empty", 0.99, 5.0)                  # seat 0's start clearing missing
    read[("patrol", 0, 0)] = Reading("red", 0.99, 5.0)                   # a patrol on the finish
    read[("arrow", 1, -1, 1, 0)] = Reading("forward", 0.99, 5.0)         # an arrow laid
    flags = {f.name: f for f in PENNANT_KIT.flags(read, state)}
    assert set(flags) == {"0,4", "0,0", "1,-1"} and all(f.kind == "rules" for f in flags.values())
    assert flags["0,4"].reason == "0,4 is the red player's start clearing, but it is read as empty (rules §2.3)."
    assert flags["0,0"].reason.startswith("A red patrol is read on 0,0; at set-up every patrol waits")
    assert flags["1,-1"].reason.startswith("An arrow is read on the side between 1,-1 and 1,0")
    assert all(f.reason.endswith(".") and f.reason.count(". ") == 0 for f in flags.values())


def test_without_the_form_a_pennant_clearing_may_stand_on_any_corner_but_nothing_else():
    state, read = _pennant(2)
    read[("piece", -3, 0)] = Reading("clearing", 0.99, 5.0)              # a radius-3 corner: allowed
    assert PENNANT_KIT.flags(read) == []
    assert [f.name for f in PENNANT_KIT.flags(read, state)] == ["-3,0"]  # not with two players on radius 4
    read[("piece", -3, 0)] = Reading("forest", 0.99, 5.0)
    assert [f.name for f in PENNANT_KIT.flags(read)] == ["-3,0"]
    with pytest.raises(ValueError, match="radius 4 at most"):
        PENNANT_KIT.context({"radius": 5, "players": [{"seat": 0, "colour": "red"}, {"seat": 1, "colour": "blue"}]})


def test_an_unsure_reading_is_asked_about_and_a_correction_settles_it():
    state, read = _pennant()
    read[("patrol", 2, -1)] = Reading("none", 0.4, 0.2)
    flags = PENNANT_KIT.flags(read, state)
    assert [(f.name, f.kind) for f in flags] == [("2,-1", "unsure")]
    assert flags[0].reason == "I read the patrol (none, 40% sure) on 2,-1 without enough confidence: please check it."
    read[("patrol", 2, -1)] = Reading("none")                            # the referee's correction counts as sure
    assert PENNANT_KIT.flags(read, state) == []


@pytest.mark.parametrize("cell, kind, label", [([0, 0], "arrow", "none"), ([5, 0], "piece", "empty"),
                                               ([0, 0], "piece", "castle"), ([0, True], "piece", "empty"),
                                               ("0,0", "piece", "empty"), ([0, 0], "sand", "none")])
def test_a_correction_the_table_cannot_take_is_refused_in_one_sentence(cell, kind, label):
    with pytest.raises(CorrectionError) as err:
        PENNANT_KIT.check_slot(cell, kind, label)
    assert str(err.value).endswith(".")
    assert PENNANT_KIT.check_slot([0, -1, 0, 0], "arrow", "none") == ("arrow", 0, -1, 0, 0)


def _island(seed):
    state = ISLAND.new_state(random_setup(random.Random(seed), load_map("example")), {})
    return state, _sure(ISLAND_KIT.table.expected(TableState.start(state)))


@pytest.mark.parametrize("seed", range(6))
def test_the_island_start_tile_must_come_from_the_landing_terrain_and_no_sentence_names_a_hex(seed):
    state, read = _island(seed)
    assert ISLAND_KIT.flags(read, state) == [] and ISLAND_KIT.flags(read) == []
    right = read[("tile", *CENTRE)].label
    other = next(b for b in BACKS if b != right)
    read[("tile", *CENTRE)] = Reading(other, 0.99, 5.0)
    assert ISLAND_KIT.flags(read) == []                                  # before the choices: any back will do
    flags = ISLAND_KIT.flags(read, state)
    assert [(f.name, f.kind) for f in flags] == [("hex (4,3)", "rules")]
    assert f"from the {right[5:]} pile" in flags[0].reason
    landings = [f"{c},{r}" for c, r in (to_offset(*h) for h in state.cfg.landing)]
    assert len(landings) == 2
    assert not any(h in flags[0].reason.replace(" ", "") for h in landings if h != "4,3")
    read[("tile", *CENTRE)] = Reading(right[5:], 0.99, 5.0)              # laid face up
    assert "should hold player" in ISLAND_KIT.flags(read, state)[0].reason
    read[("tile", *CENTRE)] = Reading(right, 0.99, 5.0)
    read[("tile", 0, 0)] = Reading("cache", 0.99, 5.0)
    read[("number", 0, 0)] = Reading("4", 0.99, 5.0)
    flags = ISLAND_KIT.flags(read, state)
    assert [f.name for f in flags] == ["hex (0,0)"] and "should be empty before the first march" in flags[0].reason


JSON = st.recursive(st.none() | st.booleans() | st.integers(-10, 10) | st.floats(allow_nan=True) | st.text(max_size=12),
                    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                    max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(cell=JSON | st.lists(st.integers(-6, 9), min_size=1, max_size=5),
       kind=JSON | st.sampled_from(["piece", "patrol", "arrow", "tile", "number", "mark"]),
       label=JSON | st.sampled_from(["empty", "clearing", "forest", "none", "red", "back:bush", "4"]))
def test_any_correction_body_gives_a_slot_or_one_sentence(cell, kind, label):
    """Hostile correction bodies: a slot of the table and an allowed label, or a CorrectionError
    (one sentence), never another exception."""
    for kit in (PENNANT_KIT, ISLAND_KIT):
        try:
            slot = kit.check_slot(cell, kind, label)
        except CorrectionError as exc:
            assert str(exc).endswith(".")
        else:
            assert slot[0] == kind and label in kit.allowed[kind] and list(slot[1:]) == cell
