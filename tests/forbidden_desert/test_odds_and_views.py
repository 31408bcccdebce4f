"""Storm-loss odds against the real engine played over every card, and views that leak nothing
(the brute force from the rules file is in test_storm_oracle.py)."""

from __future__ import annotations

import json
import random
from collections import Counter
from fractions import Fraction

import pytest

from assistant.check import check_record
from assistant.games.base import Event
from assistant.games.forbidden_desert import rules
from assistant.games.forbidden_desert.odds import storm_loss
from assistant.games.forbidden_desert.simulate import random_game, to_physical
from assistant.games.forbidden_desert.views import view
from assistant.records import parse_record, write_record


def _physical_states(seed: int, **kw):
    """The states of a random game replayed as a physical-deck record (players' knowledge only)."""
    game = random_game(seed, **kw)
    setup, events = to_physical(game)
    record = parse_record(write_record("forbidden-desert", setup, game.rulings, events))
    states, state = [record.start], record.start
    for _line, ev in record.events:
        state = rules.apply(state, ev)
        states.append(state)
    return states


def _engine_loss(state) -> Fraction:
    """The chance the storm phase under way loses, by applying every possible card to the engine."""
    if state.result != "ongoing":
        return Fraction(int(state.result.startswith("lost")))
    if state.phase != "storm":
        return Fraction(0)
    if state.pile and state.pile[0] is not None:
        options = [(Fraction(1), state.pile[0])]
    else:
        pool = state.pool if state.pile else Counter(state.discard)
        total = sum(pool.values())
        options = [(Fraction(n, total), card) for card, n in sorted(pool.items()) if n]
    out = Fraction(0)
    for weight, card in options:
        nxt = rules.apply(state, Event.make("storm", "storm_card", card=card))
        assert nxt, nxt
        out += weight * _engine_loss(nxt)
    return out


@pytest.mark.parametrize("seed", [3, 11, 29])
def test_exact_odds_match_the_engine_played_out(seed):
    """The odds model (§5.4) against every card sequence applied to the real engine."""
    states = [s for s in _physical_states(seed, n_players=2, difficulty="novice")
              if s.phase == "actions" and s.result == "ongoing" and s.draw_count <= 3]
    assert states, "the random game gave no action-phase positions"
    checked = 0
    for state in states[:: max(1, len(states) // 6)]:
        after_end = rules.apply(state, Event.make(state.active, "end_turn"))
        expected = _engine_loss(after_end)
        got = storm_loss(state)
        assert got.exact
        assert got.probability == pytest.approx(float(expected), abs=1e-12)
        assert sum(got.by_cause.values()) == pytest.approx(got.probability)
        checked += 1
    assert checked >= 3


def test_odds_mid_phase_count_only_the_cards_still_due():
    states = [s for s in _physical_states(5, n_players=2, difficulty="normal")
              if s.phase == "storm" and s.result == "ongoing"]
    assert states
    for state in states[:5]:
        assert storm_loss(state).cards == state.to_draw
        assert storm_loss(state).probability == pytest.approx(float(_engine_loss(state)), abs=1e-12)


def _scramble_hidden(state, rng):
    """The same position with every hidden thing changed: digital pile order and face-down faces."""
    other = state.copy()
    unseen = [i for i, seen in enumerate(other.pile_seen) if not seen]
    cards = [other.pile[i] for i in unseen]
    rng.shuffle(cards)
    for i, card in zip(unseen, cards):
        other.pile[i] = card
    for back in ("water_back", "dune_back"):
        hidden = [s for s, b in enumerate(other.cfg.backs) if b == back and not other.excavated[s]
                  and not any(s in sc for sc in other.scoped)]
        ids = [other.ident[s] for s in hidden]
        rng.shuffle(ids)
        for s, tile in zip(hidden, ids):
            other.ident[s] = tile
    other.parts_on = state.parts_on[:]
    return other


@pytest.mark.parametrize("seed", [1, 2, 4])
def test_views_do_not_depend_on_hidden_information(seed):
    """A seat's view is identical for any arrangement of what that seat cannot know (§5.1)."""
    rng = random.Random(seed)
    game = random_game(seed, free_rate=0.2)
    for state in game.states[:: max(1, len(game.states) // 8)]:
        other = _scramble_hidden(state, rng)
        for seat in [None, *range(state.cfg.n)]:
            assert json.dumps(view(state, seat)) == json.dumps(view(other, seat))


def test_digital_deck_order_does_not_move_the_odds():
    game = random_game(12, n_players=3)
    rng = random.Random(0)
    for state in game.states[::10]:
        if state.result == "ongoing":
            assert storm_loss(state).probability == pytest.approx(storm_loss(_scramble_hidden(state, rng)).probability)


def test_replaying_the_bundled_sample_is_legal():
    from pathlib import Path
    path = Path(__file__).resolve().parents[2] / "examples" / "forbidden-desert" / "sample-game.jsonl"
    report = check_record(parse_record(path.read_text()))
    assert report.status == 0 and report.summary["events"] == len(report.verdicts)


def _layout_b_with_water(faces):
    layout = [row[:] for row in LAYOUT_B]
    (layout[0][4], layout[1][4], layout[3][0]) = faces
    return layout


LAYOUT_B = [
    ["gear_1", "tunnel_1", "clue_propeller_column", "gear_2", "well_1"],
    ["clue_engine_row", "crash_site", "gear_3", "tunnel_2", "mirage"],
    ["clue_propeller_row", "gear_4", None, "gear_5", "clue_engine_column"],
    ["well_2", "launch_pad", "tunnel_3", "clue_solar_crystal_row", "gear_6"],
    ["clue_solar_crystal_column", "gear_7", "clue_navigation_deck_row", "gear_8", "clue_navigation_deck_column"],
]


def _views_after_excavating_1_4(faces, scope=None):
    from assistant.games.forbidden_desert.setup import new_state
    setup = {"players": ["archeologist", "explorer"], "difficulty": "normal", "first_player": 0,
             "layout": _layout_b_with_water(faces), "position": {"sand": [], "pawns": [[1, 4], [1, 4]],
                                                                  "hands": [["terrascope"], []]}}
    state = new_state(setup, {})
    if scope:
        state = rules.apply(state, Event.make(0, "play_equipment", card="terrascope", at=(0, 4), sees=scope))
        assert state
    state = rules.apply(state, Event.make(0, "excavate", reveals="well"))
    assert state
    return [json.dumps(view(state, seat)) for seat in (None, 1)]


def test_tile_numbers_in_views_do_not_reveal_other_faces():
    """Regression: the number of an excavated well once told which face-down water tile was the mirage."""
    assert _views_after_excavating_1_4(["well", "well", "mirage"]) == \
        _views_after_excavating_1_4(["mirage", "well", "well"])
    back = ["water_back", "water_back", "water_back"]
    assert _views_after_excavating_1_4(back, scope="well") == _views_after_excavating_1_4(back, scope="mirage")


def test_terrascope_without_sees_shows_the_known_face_to_its_holder():
    from assistant.games.forbidden_desert.setup import new_state
    setup = {"players": ["archeologist", "explorer"], "difficulty": "normal", "first_player": 0,
             "layout": LAYOUT_B, "position": {"hands": [["terrascope"], []]}}
    state = rules.apply(new_state(setup, {}), Event.make(0, "play_equipment", card="terrascope", at=(3, 1)))
    assert view(state, 0)["tiles"][3][1] == "launch_pad"
    assert view(state, 0)["face_odds"]["launch_pad"][3][1] == 1.0
    assert view(state, 1)["tiles"][3][1] == "dune_back" and view(state, None)["tiles"][3][1] == "dune_back"
