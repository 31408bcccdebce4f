"""Property tests over long random legal Forbidden Desert games (issue: rules engine invariants)."""

from __future__ import annotations

import json
import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.check import check_record
from assistant.games.forbidden_desert import legal, rules
from assistant.games.forbidden_desert.components import (ADVENTURERS, ALL_CELLS, EQUIPMENT_COUNTS, SAND_TOTAL,
                                                         STORM_COUNTS, wind_of)
from assistant.games.forbidden_desert.simulate import random_game, to_physical
from assistant.games.forbidden_desert.views import summary
from assistant.records import parse_record, write_record
from assistant.games.base import Event

RULING_CHOICES = st.fixed_dictionaries({}, optional={
    "jet_pack_while_buried": st.booleans(),
    "navigator_moves_buried_pawn": st.booleans(),
    "climber_tunnels_to_blocked_tunnel": st.booleans(),
    "blocked_tunnel_shelters": st.booleans(),
    "solar_shield_judged": st.sampled_from(["at_sun", "at_play"]),
    "reshuffle_includes_this_turns_cards": st.booleans(),
    "launch_pad_must_be_excavated": st.booleans(),
    "water_carrier_blocked_well": st.booleans(),
})
GAMES = st.builds(lambda seed, n, rulings: random_game(seed, n_players=n, rulings=rulings, free_rate=0.15),
                  st.integers(0, 10**9), st.integers(2, 5), RULING_CHOICES)
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _check_invariants(state) -> None:
    s = summary(state)
    # sand: on tiles + supply = 48, nothing negative, none in the storm
    on_tiles = sum(n for _r, _c, n in s["sand"])
    assert s["sand_supply"] >= 0 and all(n > 0 for _r, _c, n in s["sand"])
    assert on_tiles + s["sand_supply"] == SAND_TOTAL
    assert all([r, c] != s["storm"] for r, c, _n in s["sand"])
    # 24 tiles and one storm cell, grid and slot positions agree
    holes = [cell for cell in ALL_CELLS if state.grid[cell[0]][cell[1]] is None]
    assert holes == [tuple(s["storm"])]
    slots = [state.grid[r][c] for r, c in ALL_CELLS if state.grid[r][c] is not None]
    assert sorted(slots) == list(range(24))
    assert all(state.cell_of[state.grid[r][c]] == (r, c) for r, c in ALL_CELLS if state.grid[r][c] is not None)
    # no pawn in the storm; water within the canteen
    assert all(p != s["storm"] for p in s["pawns"])
    for seat, adv in enumerate(state.cfg.players):
        assert 0 <= s["water"][seat] <= ADVENTURERS[adv].canteen
    # blocked <=> 2+ sand: burial follows exactly from the sand count and the Climber
    sand_at = {(r, c): n for r, c, n in s["sand"]}
    climber_cells = [tuple(s["pawns"][i]) for i, a in enumerate(state.cfg.players) if a == "climber"]
    for seat, adv in enumerate(state.cfg.players):
        cell = tuple(s["pawns"][seat])
        expected = sand_at.get(cell, 0) >= 2 and adv != "climber" and cell not in climber_cells
        assert state.buried(seat) == expected
    # equipment is conserved: pile + hands + used = the deck
    held = Counter(state.equip_pile) + Counter(state.equipment_out)
    for hand in state.hands:
        held.update(hand)
    assert held == EQUIPMENT_COUNTS
    # deck + discard = 31 at turn boundaries (the storm phase is over)
    if state.phase == "actions":
        assert Counter(c for c in state.pile) + Counter(state.discard) == STORM_COUNTS
        assert not state.set_aside


@SETTINGS
@given(GAMES)
def test_invariants_hold_after_every_event(game):
    for ev, before, after in zip(game.events, game.states, game.states[1:]):
        _check_invariants(after)
        if ev.type == "draw_storm" and (w := wind_of(before.pile[0])) and after.result == "ongoing":
            moved = sum(before.cell_of[i] != after.cell_of[i] for i in range(24))
            assert moved <= w[1]
            assert before.supply - after.supply == moved


@SETTINGS
@given(GAMES)
def test_written_record_replays_to_the_same_state(game):
    text = write_record("forbidden-desert", game.setup, game.rulings, game.events)
    report = check_record(parse_record(text))
    assert report.status == 0
    assert report.summary == summary(game.final)


@SETTINGS
@given(GAMES)
def test_physical_record_of_the_same_game_agrees(game):
    """The table's version (face-down tiles, physical decks) reaches the same position."""
    phys_setup, phys_events = to_physical(game)
    report = check_record(parse_record(write_record("forbidden-desert", phys_setup, game.rulings, phys_events)))
    assert report.status == 0, report.verdicts[-1]
    digital, physical = summary(game.final), report.summary
    for key in digital:
        if key not in ("tiles", "events"):
            assert physical[key] == digital[key], key
    for (r, c) in map(tuple, digital["excavated"]):
        assert physical["tiles"][r][c] == digital["tiles"][r][c]


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**9))
def test_enumerated_events_are_exactly_the_accepted_ones(seed):
    """Every listed event is accepted, and any accepted random event has the same outcome as a
    listed one (optional parameters such as an explicit ``count`` of 1 are not listed twice)."""
    rng = random.Random(seed)
    game = random_game(seed, free_rate=0.2, max_events=150)
    for state in rng.sample(game.states, min(6, len(game.states))):
        listed = legal.legal_events(state)
        outcomes = set()
        for ev in listed:
            after = rules.apply(state, ev)
            assert after, ev
            outcomes.add(_outcome(after))
        for _ in range(300):
            ev = _random_event(rng, state)
            after = rules.apply(state, ev)
            if after:
                assert _outcome(after) in outcomes, f"accepted but no listed event does the same: {ev!r}"


def _outcome(state) -> str:
    return json.dumps([summary(state), sorted(state.shields), state.reductions, state.equipment_out])


def _random_event(rng: random.Random, state) -> Event:
    n = state.cfg.n
    actor = rng.randrange(n)
    cell = (rng.randrange(-1, 6), rng.randrange(-1, 6))
    seat = rng.randrange(n + 1)
    kind = rng.choice(["move", "remove_sand", "navigate", "give_water", "pass_equipment", "play_equipment",
                       "pick_up_part", "end_turn", "meteorologist_reduce", "take_water"])
    if kind == "move":
        return Event.make(actor, kind, to=cell, carry=rng.choice([None, seat]))
    if kind == "remove_sand":
        return Event.make(actor, kind, at=cell, count=rng.choice([None, 1, 2, 3]))
    if kind == "navigate":
        return Event.make(actor, kind, target=seat, to=cell, carry=rng.choice([None, seat]))
    if kind == "give_water":
        return Event.make(actor, kind, to=seat, amount=rng.randrange(0, 4))
    if kind == "pass_equipment":
        return Event.make(actor, kind, to=seat, card=rng.choice(sorted(EQUIPMENT_COUNTS)))
    if kind == "play_equipment":
        card = rng.choice(["dune_blaster", "jet_pack", "solar_shield", "secret_water_reserve", "time_throttle"])
        extra = {"dune_blaster": {"at": cell}, "jet_pack": {"to": cell, "carry": rng.choice([None, seat])}}
        return Event.make(actor, kind, card=card, **extra.get(card, {}))
    if kind == "pick_up_part":
        return Event.make(actor, kind)
    return Event.make(actor, kind)
