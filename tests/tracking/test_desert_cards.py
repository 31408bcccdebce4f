"""The equipment card an excavation draws, which the camera cannot see (Forbidden Desert, issue
21): a game set up from the table has a physical equipment deck, so an excavation must name its
card (rules §5.3). A check of the table that finds the excavation missed, and the tracker that
sees it, offer it with every card still possible for the referee to choose, never one card
picked for them."""

from __future__ import annotations

from assistant.games import get_game
from assistant.games.forbidden_desert.digging import equipment_pool
from assistant.games.forbidden_desert.setup import new_state
from assistant.games.forbidden_desert.simulate import random_game, table_game
from assistant.tracking.base import Reading
from assistant.tracking.desert_cards import with_card_drawn, without_card
from assistant.tracking.desert_check import compare_table
from assistant.tracking.forbidden_desert import ForbiddenDesertTable, ForbiddenDesertTracker


def _physical_excavation():
    """(game, model, start, states, entered, k, setup): a random game replayed with a physical
    equipment deck whose event ``k`` (1-based) is an excavation in the actions phase drawing a
    card that is not the first, in card order, of those still possible (so no card picked by
    order could pass for it)."""
    game = get_game("forbidden-desert")
    for seed in range(1, 80):
        setup, _start, _states, entered = table_game(random_game(seed, n_players=3, max_events=80))
        setup = {k: v for k, v in setup.items() if k != "equipment_deck"}      # physical, as read from a table
        states = [new_state(setup, {})]
        for ev in entered:
            after = game.apply(states[-1], ev)
            assert after, after.message
            states.append(after)
        for k in range(1, len(entered) + 1):
            ev = entered[k - 1]
            if (ev.type == "excavate" and ev.get("draws") and states[k].phase == "actions"
                    and ev["draws"] != min(equipment_pool(states[k - 1]))):
                return game, ForbiddenDesertTable(), states[0], states, entered, k, setup
    raise AssertionError("no excavation drawing a card that is not the first possible")


def _the_one_drawn(game, state, options, event) -> bool:
    """Whether exactly one of ``options`` leaves the table and the hands as ``event`` does (the
    record's event names the tile, gear_8, where the camera names its kind, gear): the card
    drawn is among them once."""
    model = ForbiddenDesertTable()

    def look(after):
        return model.expected(after), after.hands

    want = look(game.apply(state, event))
    return sum(len(seq) == 1 and look(game.apply(state, seq[0])) == want for seq in options) == 1


def test_a_missed_excavation_is_offered_with_every_card_it_may_have_drawn():
    """The table shows an excavation the engine has not got: the check offers the excavation
    without a card, and as options the excavation with each card still possible (the one drawn
    among them); the sentence asks for the card."""
    game, model, start, states, entered, k, _setup = _physical_excavation()
    table = {s: Reading(v) for s, v in model.expected(states[k]).items()}      # the tile turned over
    check = compare_table(game, model, start, entered[:k - 1], table, True, states[:k])
    ev = entered[k - 1]
    assert [(e.actor, e.type, e.get("draws")) for e in check.missed] == [(ev.actor, "excavate", None)], check.missed_text
    pool = sorted(equipment_pool(states[k - 1]))
    assert [seq[0]["draws"] for seq in check.missed_options] == pool and len(pool) > 1
    assert [without_card(seq[0]) for seq in check.missed_options] == check.missed * len(pool)
    assert _the_one_drawn(game, states[k - 1], check.missed_options, ev)
    assert "equipment card drawn" in check.missed_text
    assert check.to_json()["missed_options"] == [[e.to_json() for e in seq] for seq in check.missed_options]


def test_the_tracker_asks_which_card_an_excavation_drew_offering_every_card():
    """The camera sees the tile turned over: the tracker cannot see the card, so it asks which
    was drawn, offering each card still possible (not only a few), and commits nothing."""
    game, model, start, states, entered, k, _setup = _physical_excavation()
    tracker = ForbiddenDesertTracker(game, states[k - 1])
    cell = states[k - 1].cell_of_seat(entered[k - 1].actor)
    shown = model.expected(states[k])
    observed = {s: Reading(v) for s, v in shown.items() if model.cell_of(s) == cell}
    verdict = tracker.explain(observed, {cell})
    assert verdict.kind == "ask" and "which equipment card was drawn" in verdict.message, verdict
    pool = sorted(equipment_pool(states[k - 1]))
    assert [seq[0]["draws"] for seq in verdict.options] == pool
    assert _the_one_drawn(game, states[k - 1], verdict.options, entered[k - 1]) and tracker.state is states[k - 1]


def test_with_card_drawn_leaves_moves_without_a_card_as_they_are():
    """A move, or an excavation with a digital deck (the engine draws the card itself), is
    offered as it is; an illegal sequence has no completion."""
    game, model, start, states, entered, k, _setup = _physical_excavation()
    move = next(i for i in range(1, len(entered) + 1) if entered[i - 1].type == "move")
    assert with_card_drawn(game, states[move - 1], [entered[move - 1]]) == [[entered[move - 1]]]
    assert with_card_drawn(game, states[move], [entered[move - 1], entered[move - 1]]) in ([], [[entered[move - 1]] * 2])
    digital = table_game(random_game(1, n_players=3, max_events=80))
    d_states, d_entered = digital[2], digital[3]
    dig = next(i for i in range(1, len(d_entered) + 1) if d_entered[i - 1].type == "excavate")
    bare = without_card(d_entered[dig - 1])
    assert with_card_drawn(game, d_states[dig - 1], [bare]) == [[bare]]


def test_two_excavations_in_one_explanation_are_offered_with_the_cards_they_drew():
    """Two card-drawing excavations in one sequence (random game 61, events 2-5, found by
    comparing the old and new enumeration over seeds 1-400): each excavation's cards must be
    those its own prefix leaves possible. The old enumeration worked the second's cards out
    after the first drew the first card in order only, and here offered nothing at all, so
    the referee could not enter what was drawn; now the cards recorded are among the offers,
    each card named once."""
    game = get_game("forbidden-desert")
    setup, _start, _states, entered = table_game(random_game(61, n_players=3, max_events=80))
    setup = {k: v for k, v in setup.items() if k != "equipment_deck"}   # physical, as read from a table
    state = new_state(setup, {})
    state = game.apply(state, entered[0])
    seq = entered[1:5]
    assert [e.type for e in seq].count("excavate") == 2 and all(e.get("draws") for e in seq if e.type == "excavate")
    offers = with_card_drawn(game, state, seq)
    drawn = [tuple(e.get("draws") for e in option if e.get("draws")) for option in offers]
    assert tuple(e.get("draws") for e in seq if e.get("draws")) in drawn, drawn
    assert len(drawn) == len(set(drawn)) >= 2
