"""Forbidden Desert's set-up read from the camera and "check the table" (issue 21), on tables
drawn by the project's renderer (the full figures are in ``assistant bench setup``)."""

from __future__ import annotations

import pytest

from assistant.bench import desert_setup as bench
from assistant.games import get_game
from assistant.games.forbidden_desert.setup import new_state
from assistant.tracking.base import Reading
from assistant.tracking.desert_check import compare_table, trace
from assistant.tracking.desert_setup import read_setup, setup_flags, setup_from_reading, wrong_cells
from assistant.tracking.forbidden_desert import ForbiddenDesertTable
from assistant.vision.detectors import forbidden_desert as fd

SIZE = (960, 540)


@pytest.fixture(scope="module")
def detector():
    """The own-art detector with the shipped piece and pawn models (taught in about a second)."""
    det = fd.teach()
    bench.det_holder[0] = det
    return det


def _opening_truth(seed: int = 3) -> dict:
    from assistant.vision.render.desert import desert_setup

    return fd.truth_of(desert_setup(seed, adventurers=("archeologist", "navigator"), storm_card=None))


def test_rendered_openings_are_read_and_every_wrong_cell_is_flagged(detector):
    """A random opening (seed nothing was tuned on): the storm and every back are read
    exactly; any cell read wrong (sand or pawns among crowded pawns) is flagged, and the
    confirmed table becomes a set-up the engine accepts with the faces hidden under their backs."""
    for frame, h, k, truth in bench.own_openings(40000, 1, "normal", SIZE):
        players = bench.players_of(truth)
        reading = read_setup(detector, frame, h, k, players)
        assert not wrong_cells(reading.readings, truth, ("face",)), reading.flags
        flagged = {f.cell for f in reading.flags}
        assert wrong_cells(reading.readings, truth) <= flagged
        assert reading.storm == (2, 2)
        fixes = {s: truth[s] for s in truth if s[1:] in flagged}      # the referee corrects the flagged cells
        setup = setup_from_reading(reading.labels(), players, "normal", corrections=fixes)
        state = new_state(setup, {})
        assert sorted(state.cfg.backs).count("dune_back") == 20 and set(state.ident) == {None, "crash_site"}
        assert "position" not in setup and setup["layout"][2][2] is None


def test_a_table_that_breaks_the_set_up_is_flagged_cell_by_cell():
    """A tile face up, sand on the wrong cell and a pawn off the crash site: each is one flag
    with its sentence, and such a table is refused as a set-up."""
    truth = _opening_truth()
    crash = next(s[1:] for s, v in truth.items() if v == "crash_site_back")
    bad = dict(truth)
    bad[("face", 0, 0) if crash != (0, 0) else ("face", 0, 1)] = "gear"
    bad[("sand", 0, 2)], bad[("sand", 4, 4)] = "none", "light"
    other = (4, 3) if crash != (4, 3) else (4, 1)
    bad[("pawns", *other)], bad[("pawns", *crash)] = "red", "yellow"     # the red pawn left the crash site
    flags = setup_flags({s: Reading(v) for s, v in bad.items()}, ["archeologist", "navigator"])
    by_cell = {f.cell: f for f in flags}
    assert {(0, 2), (4, 4), other, crash} <= set(by_cell) and all(f.kind == "rules" for f in flags)
    assert "desert side up" in by_cell[(0, 0) if crash != (0, 0) else (0, 1)].reason
    assert "crash site" in by_cell[other].reason
    assert not setup_flags({s: Reading(v) for s, v in truth.items()}, ["archeologist", "navigator"])
    with pytest.raises(ValueError, match="desert side"):
        setup_from_reading(bad, ["archeologist", "navigator"], "normal")


def test_a_correct_table_checked_several_times_raises_nothing(detector):
    """States of a random game, the table as the engine has it: no correction, no question."""
    for case in bench.check_cases(40100, 2, missed=False, size=SIZE):
        assert case["check"].clean, [f.text() for f in case["check"].findings]


def test_a_move_cut_out_of_the_recording_is_found_by_the_next_check(detector):
    """The engine one pawn move behind the table (the move missed): the check raises the cells
    the move changed and offers that move for the referee to enter. (Pawns are read by change
    against the last committed still; a missed sand change is said only when read very surely:
    ``assistant bench setup`` measures every kind of move.)"""
    for case in bench.check_cases(40200, 2, missed=True, size=SIZE, types=("move",)):
        check = case["check"]
        assert check.findings and {f.cell for f in check.findings} <= case["cells"] | {("card",)}
        assert check.missed == [case["event"]], check.missed_text


def test_a_difference_is_traced_to_the_committed_event_that_caused_it():
    """The engine committed a move the table never followed: the correction says where the pawn
    belongs and names that event (the last one) as the cause."""
    from assistant.games.forbidden_desert.simulate import random_game, table_game

    game_obj, model = get_game("forbidden-desert"), ForbiddenDesertTable()
    game = random_game(5, n_players=3, max_events=60)
    _setup, start, states, entered = table_game(game)
    k = next(i for i in range(1, len(entered)) if entered[i - 1].type == "move" and states[i].phase == "actions")
    table = {s: Reading(v) for s, v in model.expected(states[k - 1]).items()}   # the table before the move
    check = compare_table(game_obj, model, start, entered[:k], table, pawns_by_change=True)
    assert check.corrections and all(f.cause is not None and f.cause.index == k and f.cause.stale
                                     for f in check.corrections)
    assert any("pawn belongs on" in f.sentence for f in check.corrections)
    pawn = next(f.slots[0] for f in check.corrections if "pawn belongs on" in f.sentence)
    assert trace(model, states[:k + 1], entered[:k], pawn, table[pawn].label).event == entered[k - 1]
    same = {s: Reading(v) for s, v in model.expected(states[k]).items()}
    assert compare_table(game_obj, model, start, entered[:k], same, True).clean


def _cut_sand_move(seed: int = 5, before: str = "light", after: str = "none"):
    """(game, model, start, states, entered, k, slot): a random game whose event ``k`` (1-based)
    is a ``remove_sand`` in the actions phase that turns ``slot`` from ``before`` to ``after``."""
    from assistant.games.forbidden_desert.simulate import random_game, table_game

    game_obj, model = get_game("forbidden-desert"), ForbiddenDesertTable()
    _setup, start, states, entered = table_game(random_game(seed, n_players=3, max_events=60))
    for k in range(1, len(entered) + 1):
        was, now = model.expected(states[k - 1]), model.expected(states[k])
        changed = [s for s in was if was[s] != now[s]]
        if (entered[k - 1].type == "remove_sand" and states[k].phase == "actions" and len(changed) == 1
                and (was[changed[0]], now[changed[0]]) == (before, after)):
            return game_obj, model, start, states, entered, k, changed[0]
    raise AssertionError(f"no remove_sand from {before} to {after} in game {seed}")


@pytest.mark.parametrize("before,after,reading", [
    ("light", "none", Reading("none", 0.82, 1.9, ("light", "dark"))),     # as the sand network reads a bare tile
    ("dark", "light", Reading("light", 0.63, 0.86, ("dark", "none"))),    # a stack of two now one: read less surely
])
def test_missed_sand_taken_off_is_asked_about_and_offered(before, after, reading):
    """The camera missed a ``remove_sand``: the table shows the sand after it, read as the sand
    network reads it (every other sand level among its alternatives, so the engine's level
    always "fits" the reading). The check asks about that cell (a question, not a correction:
    the reading is not that sure) and offers exactly the move missed; the table as the engine
    has it, read the same way, raises nothing."""
    game_obj, model, start, states, entered, k, slot = _cut_sand_move(5 if before == "light" else 6, before, after)
    table = {s: Reading(v) for s, v in model.expected(states[k]).items()}       # the table after the move
    table[slot] = reading
    check = compare_table(game_obj, model, start, entered[:k - 1], table, True, states[:k])
    assert [(f.cell, f.kind) for f in check.findings] == [(slot[1:], "question")], [f.text() for f in check.findings]
    assert check.missed == [entered[k - 1]], check.missed_text
    calm = {s: Reading(v) for s, v in model.expected(states[k - 1]).items()}    # nothing missed
    calm[slot] = Reading(before, reading.confidence, reading.margin, (after,))
    assert compare_table(game_obj, model, start, entered[:k - 1], calm, True, states[:k]).clean


def test_a_very_sure_sand_difference_is_a_correction_though_the_engine_level_is_an_alternative():
    """The sand network lists every other level as an alternative; a reading of 0.97 with the
    engine's level far behind (margin 3.5 nats) is still a difference stated as a correction."""
    game_obj, model, start, states, entered, k, slot = _cut_sand_move()
    table = {s: Reading(v) for s, v in model.expected(states[k - 1]).items()}
    table[slot] = Reading("none", 0.97, 3.5, ("light", "dark"))
    check = compare_table(game_obj, model, start, entered[:k - 1], table, True, states[:k])
    assert slot[1:] in {f.cell for f in check.corrections}, [f.text() for f in check.findings]
    assert "sand" in check.corrections[0].sentence


def test_sand_taken_off_unseen_is_found_by_the_next_check(detector):
    """Rendered: the engine one ``remove_sand`` behind the table (the camera missed it). The
    check raises the cell the sand left (a question or a correction) and offers the move."""
    game_obj = get_game("forbidden-desert")
    for case in bench.check_cases(40300, 2, missed=True, size=SIZE, types=("remove_sand",)):
        check = case["check"]
        assert {f.cell for f in check.findings} & case["cells"], (case["event"], check.missed_text)
        assert bench.same_move(game_obj, case["state"], check.missed, case["event"]), check.missed_text


def _two_moves_of_one_pawn(seed: int):
    """(game, model, start, states, entered, k): a random game whose events ``k - 1`` and ``k``
    (1-based) are ``move`` events of the same seat in the actions phase."""
    from assistant.games.forbidden_desert.simulate import random_game, table_game

    game_obj, model = get_game("forbidden-desert"), ForbiddenDesertTable()
    _setup, start, states, entered = table_game(random_game(seed, n_players=3, max_events=80))
    for k in range(2, len(entered) + 1):
        a, b = entered[k - 2], entered[k - 1]
        if (a.type == b.type == "move" and a.actor == b.actor and states[k].phase == "actions"
                and model.expected(states[k]) != model.expected(states[k - 2])):      # not back where it was
            return game_obj, model, start, states, entered, k
    return None


def test_differences_a_missed_move_explains_are_traced_to_it_not_to_an_undo():
    """A pawn moved twice; the camera committed the first move and missed the second. The
    differences are the second move's (where the pawn left, where it is now): each finding says
    the missed move explains it (the move is offered to be entered), none is traced to the first
    move, the last committed event, which the referee would then be invited to undo wrongly."""
    found = None
    for seed in range(1, 60):
        found = _two_moves_of_one_pawn(seed)
        if found:
            break
    assert found, "no game with two moves of one pawn in a row"
    game_obj, model, start, states, entered, k = found
    table = {s: Reading(v) for s, v in model.expected(states[k]).items()}       # the table after both moves
    check = compare_table(game_obj, model, start, entered[:k - 1], table, True, states[:k])
    assert check.missed == [entered[k - 1]], check.missed_text
    assert check.findings
    for f in check.findings:
        assert f.cause is None and f.missed, f.text()
        assert model.event_text(entered[k - 1]) in f.text()
    assert all(f["cause"] is None and f["missed"] for f in check.to_json()["corrections"] + check.to_json()["questions"])


def _a_move(seed: int = 5):
    """(game, model, start, states, entered, k, old, new): a random game whose event ``k``
    (1-based) is a ``move`` in the actions phase of a pawn from slot ``old`` to slot ``new``."""
    from assistant.games.forbidden_desert.simulate import random_game, table_game

    game_obj, model = get_game("forbidden-desert"), ForbiddenDesertTable()
    _setup, start, states, entered = table_game(random_game(seed, n_players=3, max_events=60))
    for k in range(1, len(entered) + 1):
        was, now = model.expected(states[k - 1]), model.expected(states[k])
        changed = [s for s in was if was[s] != now[s]]
        if entered[k - 1].type == "move" and states[k].phase == "actions" and len(changed) == 2 and entered[k - 1].get("carry") is None:
            new = next(s for s in changed if len(now[s]) > len(was[s]))
            old = next(s for s in changed if s != new)
            return game_obj, model, start, states, entered, k, old, new
    raise AssertionError(f"no plain move in game {seed}")


def test_a_pawn_still_read_on_the_cell_it_left_is_asked_about_and_its_move_offered():
    """The camera missed a move, and the reader by change also missed the pawn leaving its
    crowded cell (read unchanged, very surely) while it saw the pawn arrive: the pawn is read
    on two cells. The check used to say nothing (the pawn "belongs" where it is still read);
    now it asks about the new cell (never a correction: one of the two readings is wrong) and
    offers the move, which explains the table once the old cell's reading decides nothing."""
    game_obj, model, start, states, entered, k, old, new = _a_move()
    table = {s: Reading(v) for s, v in model.expected(states[k]).items()}       # the table after the move
    table[old] = Reading(model.expected(states[k - 1])[old], 1.0, 10.0)          # the leaving pawn missed
    table[new] = Reading(table[new].label, 0.9, 5.0)
    check = compare_table(game_obj, model, start, entered[:k - 1], table, True, states[:k])
    assert [(f.cell, f.kind) for f in check.findings] == [(new[1:], "question")], [f.text() for f in check.findings]
    assert "read on both" in check.findings[0].sentence
    assert check.missed == [entered[k - 1]], check.missed_text


def test_a_pawn_read_twice_on_a_correct_table_is_a_question_not_a_correction():
    """On a correct table a pawn read surely on its own cell and on another, empty, cell is
    asked about there (it used to be passed over in silence), never corrected."""
    game_obj, model, start, states, entered, k, old, new = _a_move()
    table = {s: Reading(v) for s, v in model.expected(states[k - 1]).items()}   # the table as the engine has it
    colour = (set(model.expected(states[k])[new].split("+")) - set(table[new].label.split("+"))).pop()
    table[new] = Reading("+".join(sorted(set(filter(None, table[new].label.split("+"))) | {colour})), 0.95, 5.0)
    check = compare_table(game_obj, model, start, entered[:k - 1], table, True, states[:k])
    assert not check.corrections
    assert [f.cell for f in check.questions] == [new[1:]], [f.text() for f in check.findings]


def test_an_excavation_offered_by_kind_is_the_same_move_as_the_numbered_tile_recorded():
    """The camera sees "a gear" (or a well, a tunnel), the record names ``gear_7``: the offer
    leaves the game at the same position for the rules (the numbered copies are identical,
    rules §1.2), so the bench counts it as the same move; a different card drawn is not."""
    from assistant.games.base import Event
    from assistant.games.forbidden_desert.components import KIND_OF_TILE, NUMBERED_KINDS
    from assistant.games.forbidden_desert.simulate import random_game, table_game

    game_obj = get_game("forbidden-desert")
    for seed in range(1, 80):
        _setup, start, states, entered = table_game(random_game(seed, n_players=3, max_events=80))
        for k, ev in enumerate(entered):
            shown = ev.get("reveals")
            if ev.type != "excavate" or KIND_OF_TILE.get(shown) not in NUMBERED_KINDS or shown.endswith("_1"):
                continue
            kind = KIND_OF_TILE[shown]
            offer = Event.make(ev.actor, "excavate", reveals=kind, draws=ev.get("draws"))
            assert game_obj.summary(game_obj.apply(states[k], offer)) != game_obj.summary(game_obj.apply(states[k], ev))
            assert bench.same_move(game_obj, states[k], [offer], ev)
            if ev.get("draws"):
                other = next(c for c in ("jet_pack", "dune_blaster", "solar_shield") if c != ev["draws"])
                wrong = Event.make(ev.actor, "excavate", reveals=kind, draws=other)
                assert not bench.same_move(game_obj, states[k], [wrong], ev)
            return
    raise AssertionError("no excavation of a numbered tile other than the first copy")
