"""Property tests over random legal Discovery Island games (rules §6.2 I1-I3, march arithmetic,
record round trip, enumeration, and views that leak nothing)."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.check import check_record
from assistant.games.discovery_island import legal, rules
from assistant.games.discovery_island.generator import generate_island
from assistant.games.discovery_island.knowledge import possible_landings
from assistant.games.discovery_island.simulate import random_game
from assistant.games.discovery_island.views import summary, view
from assistant.records import parse_record, write_record

RULINGS = st.fixed_dictionaries({}, optional={
    "march_overflow": st.sampled_from(["lost", "carry"]),
    "lost_relocation_shape": st.sampled_from(["disc", "line"]),
    "lost_relocation_same_hex": st.booleans(),
    "lost_reveals_terrain": st.booleans(),
    "label_revealed": st.sampled_from(["on_entry", "on_payment"]),
    "checkpoint_claimed_by": st.sampled_from(["learn", "entry"]),
    "event_on_last_tile": st.sampled_from(["applies", "ignored"]),
    "equipment_optional": st.booleans(),
    "equipment_march_count": st.sampled_from(["per_march", "per_use"]),
})
GAMES = st.builds(lambda seed, rulings: random_game(seed, rulings=rulings, max_events=250),
                  st.integers(0, 10**9), RULINGS)
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])

COSTS = {"enter_checkpoint": "checkpoint_entry_cost", "enter_cache": "cache_entry_cost",
         "learn_clue": "clue_cost", "open_cache": "cache_open_cost"}


@SETTINGS
@given(GAMES)
def test_candidates_always_hold_the_true_position_and_never_grow(game):
    """I1 true position in C, I2 C not empty, I3 |C| grows only at a relocation."""
    for ev, before, after in zip(game.events, game.states, game.states[1:]):
        for p in (0, 1):
            assert after.pos[p] in after.candidates[p]
            if ev.type != "relocate":
                assert len(after.candidates[p]) <= len(before.candidates[p])


@SETTINGS
@given(GAMES)
def test_march_sum_is_the_sum_of_its_costs(game):
    """Each march's running sum equals the costs of its actions: printed points, 1 for a
    shortcut, the marker, clue and opening costs; and a march ends at 12 or an event only."""
    r = game.states[0].cfg.rulings
    for ev, before, after in zip(game.events, game.states, game.states[1:]):
        p = before.walker
        if ev.type == "choose_direction":
            cost = 1 if ev["tile"]["mark"] == "shortcut" else ev["tile"]["points"]
        elif ev.type in COSTS:
            cost = r[COSTS[ev.type]]
        else:
            continue
        assert after.sums[p] == before.sums[p] + cost
        event_tile = ev.type == "choose_direction" and ev["tile"]["mark"].startswith("event:")
        if not event_tile and after.result == "ongoing":
            assert after.over == (after.sums[p] >= 12)
    for ev, before, after in zip(game.events, game.states, game.states[1:]):
        if ev.type == "end_march":
            assert before.over and after.to_move == 1 - before.walker


@SETTINGS
@given(GAMES)
def test_record_round_trip_reproduces_the_summary(game):
    text = write_record("discovery-island", game.setup, game.rulings, game.events)
    report = check_record(parse_record(text))
    assert report.status == 0, report.verdicts[-1]
    assert report.summary == summary(game.final)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**9))
def test_possible_landings_contain_the_true_landing(seed):
    game = random_game(seed, max_events=120)
    final = game.final
    for p in (0, 1):
        landings = possible_landings(final.cfg.island, final.cfg.rulings, final.observations[p])
        assert final.cfg.landing[p] in landings


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**9))
def test_enumerated_events_are_accepted_and_cover_random_play(seed):
    game = random_game(seed, max_events=150)
    for ev, state in zip(game.events, game.states):
        listed = legal.legal_events(state)
        assert all(rules.apply(state, e) for e in listed)
        if ev.type != "choose_direction":   # a drawn tile is one of the listed supply rows
            assert ev in listed, ev
        else:
            assert any(e.type == ev.type and e["dir"] == ev["dir"] and e["tile"] == ev["tile"] for e in listed)


def _hide_from(state, seat, rng):
    """The same position with everything ``seat`` cannot know changed: its own true position
    (another of its candidates), the treasure, the deal, the opponent's clue contents and
    unused cards."""
    other = state.copy()
    other.pos[seat] = rng.choice(sorted(state.candidates[seat]))
    opp = 1 - seat
    other.clues[opp] = {label: {"type": "empty"} for label in state.clues[opp]}
    unused = {n: c for n, c in state.cards[opp].items() if n in state.used_cards[opp]}
    other.cards[opp] = unused
    from dataclasses import replace
    other.cfg = replace(state.cfg, treasure="F6", deal={k: {"type": "empty"} for k in state.cfg.deal})
    return other


def test_a_players_view_does_not_depend_on_what_it_cannot_know():
    rng = random.Random(0)
    for seed in range(6):
        game = random_game(seed, max_events=120)
        for state in game.states[::15]:
            if state.result != "ongoing":
                continue
            for seat in (0, 1):
                assert json.dumps(view(state, seat), sort_keys=True) == \
                    json.dumps(view(_hide_from(state, seat, rng), seat), sort_keys=True)
            both = _hide_from(_hide_from(state, 0, rng), 1, rng)
            assert json.dumps(view(state, None), sort_keys=True) == json.dumps(view(both, None), sort_keys=True)


def test_random_games_run_on_a_generated_1000_hex_island():
    island = generate_island(1000, seed=5)
    game = random_game(5, island=island, map_ref="generated.csv", max_events=300)
    for state in game.states:
        for p in (0, 1):
            assert state.pos[p] in state.candidates[p]
