"""Property tests over random legal Scout Pennant games (rules §3.9 invariants, §5 records).

Random games come from :func:`assistant.games.scout_pennant.simulate.random_game`: random
headers (2-6 players, radius 2-4, 1-4 pawns, free or d8, sometimes custom starts, a limited
supply or the rolls fixed in advance) and random rulings, each event chosen from the legal
enumerator and applied by the engine.

The enumerator is checked both ways: everything it lists is accepted by ``apply``
(soundness), and every event it leaves out is refused (completeness), builds compared in
the enumerator's one form per build (arrows in direction order), over a systematic
candidate set: every ``fire`` cell of the board and some off it, ``enter``,
``take_from_finish``, ``pass``, every ``roll`` value, by every seat; and every ``build`` on
every empty cell, of both pieces, with every assignment of {none, from, to} to each
non-empty neighbour (so arrows to the same kind are tried too), plus builds on occupied,
fixed and off-board cells, by other seats, and random well-typed but illegal arrow lists.
"""

from __future__ import annotations

import random
from itertools import product

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.check import check_record
from assistant.games.base import Event
from assistant.games.scout_pennant import legal, rules
from assistant.games.scout_pennant.events import arrow_pairs, build
from assistant.games.scout_pennant.geometry import (FINISH, are_neighbours, board_cells, cell_count, direction_index,
                                                    neighbours, on_board)
from assistant.games.scout_pennant.setup import new_state
from assistant.games.scout_pennant.simulate import full_board, random_build, random_game
from assistant.games.scout_pennant.state import CLEARING, FOREST
from assistant.games.scout_pennant.views import summary
from assistant.records import parse_record, write_record

RULING_CHOICES = st.fixed_dictionaries({}, optional={
    "finish_removal_after_pennant": st.sampled_from(["mandatory", "optional"]),
    "build_on_start_or_finish": st.just(False),
    "guides_need_empty_outputs": st.booleans(),
    "patrol_leaving_finish_counts": st.booleans(),
    "continue_after_first_finisher": st.sampled_from(["rank", "stop"]),
    "d8_finish_priority": st.sampled_from(["on_eight", "always"]),
    "turn_order": st.sampled_from(["clockwise", "counterclockwise"]),
    "deadlock_ends_game": st.booleans(),
})
GAMES = st.builds(lambda seed, variant, rulings: random_game(seed, variant=variant, rulings=rulings, max_events=150),
                  st.integers(0, 10**9), st.sampled_from(["free", "d8"]), RULING_CHOICES)
SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- invariants (§3.9) ---------------------------------------------------------------------------
def check_invariants(state) -> None:
    cfg = state.cfg
    s = summary(state)
    # pawns are conserved: base + patrols on the board = pawns_per_player, for every seat
    for seat, p in enumerate(s["players"]):
        assert p["base"] >= 0
        assert p["base"] + len(p["patrols"]) == cfg.pawns
        assert p["on_board"] == len(p["patrols"])
    # at most one patrol per clearing, and only on clearings
    cells = [tuple(c) for p in s["players"] for c in p["patrols"]]
    assert len(cells) == len(set(cells))
    assert all(state.kinds.get(c) == CLEARING for c in cells)
    # every arrow joins a neighbouring clearing and forest; at most one arrow per edge
    arrows = state.arrow_list()
    edges = [frozenset(a) for a in arrows]
    assert len(edges) == len(set(edges)) == state.arrows == s["board"]["arrows"]
    arrowed = set()
    for a, b in arrows:
        assert are_neighbours(a, b) and on_board(a, cfg.radius) and on_board(b, cfg.radius)
        assert {state.kinds.get(a), state.kinds.get(b)} == {CLEARING, FOREST}
        arrowed.update((a, b))
    # every forest has 1-6 arrows, never a clearing both in and out
    for forest in state.pre:
        ins, outs = state.pre[forest], state.post[forest]
        assert 1 <= len(ins) + len(outs) <= 6
        assert not set(ins) & set(outs)
    # every clearing but the start clearings and the finish has an arrow
    for cell, kind in state.kinds.items():
        assert on_board(cell, cfg.radius)
        if kind == CLEARING and cell != FINISH and cell not in cfg.starts:
            assert cell in arrowed
        if kind == FOREST:
            assert cell in arrowed
    assert state.kinds[FINISH] == CLEARING and all(state.kinds[c] == CLEARING for c in cfg.starts)
    b = s["board"]
    assert b["clearings"] + b["forests"] + b["empty"] == cell_count(cfg.radius)
    # finished players hold the pennant and have no patrol on the board; they never move
    for seat in s["finishing_order"]:
        assert s["players"][seat]["pennant"] and s["players"][seat]["patrols"] == []
        assert s["players"][seat]["finished"]
    assert s["to_move"] not in s["finishing_order"]
    assert (s["to_move"] is None) == s["game_over"]
    assert s["winner"] == (s["finishing_order"][0] if s["finishing_order"] else None)
    assert s["result"] in ("ongoing", "won", "lost:deadlock")
    assert (s["result"] == "won") == bool(s["finishing_order"])
    assert all(v is None or v >= 0 for v in state.supply)
    if s["roll"] is not None:
        assert cfg.variant == "d8"


@SETTINGS
@given(GAMES)
def test_invariants_hold_after_every_event(game):
    check_invariants(game.states[0])
    for ev, before, after in zip(game.events, game.states, game.states[1:]):
        check_invariants(after)
        assert after.events == before.events + 1
        if ev.type != "roll" and not after.game_over:
            assert after.roll is None


@SETTINGS
@given(GAMES)
def test_written_record_replays_to_the_same_summary(game):
    text = write_record("scout-pennant", game.setup, game.rulings, game.events)
    report = check_record(parse_record(text))
    assert report.status == 0
    assert report.summary == summary(game.final)
    assert len(report.verdicts) == len(game.events)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(GAMES, st.integers(0, 10**6))
def test_apply_never_mutates_its_input(game, seed):
    rng = random.Random(seed)
    for state in rng.sample(game.states, min(5, len(game.states))):
        before = _snapshot(state)
        for ev in legal.legal_events(state)[:20] + [_random_build(rng, state) for _ in range(10)]:
            rules.apply(state, ev)
            assert _snapshot(state) == before


def _snapshot(state):
    return (dict(state.kinds), dict(state.pre), dict(state.post), dict(state.patrols), state.on_board,
            state.pennants, state.finishing_order, state.to_move, state.roll, state.rolls_made, state.supply,
            state.events, state.game_over, state.deadlock, state.arrows)


# --- legal-move enumeration: complete and sound ----------------------------------------------------
def every_event(state, rng: random.Random) -> list[Event]:
    """A systematic candidate set (see the module docstring)."""
    cfg = state.cfg
    R = cfg.radius
    cells = board_cells(R)
    off = [(R + 1, 0), (0, -R - 1), (-R - 1, R + 1)]
    out: list[Event] = []
    for a in range(cfg.n):
        out += [Event.make(a, t) for t in ("pass", "enter", "take_from_finish")]
        out += [Event.make(a, "roll", value=v) for v in range(1, 9)]
        out += [Event.make(a, "fire", cell=c) for c in cells + off]
    actor = state.to_move if state.to_move is not None else 0
    for cell in cells:
        if cell in state.kinds:
            continue
        for piece in (CLEARING, FOREST):
            # every non-empty neighbour, so arrows to the same kind are tried too
            others = [nb for nb in neighbours(cell) if nb in state.kinds]
            for ways in product((None, "from", "to"), repeat=len(others)):
                out.append(build(actor, cell, piece, [(w, nb) for w, nb in zip(ways, others) if w]))
    # builds by another seat, on occupied / fixed / off-board cells
    for cell in rng.sample(cells, min(8, len(cells))) + off[:1]:
        for piece in (CLEARING, FOREST):
            nb = rng.choice(neighbours(cell))
            out.append(build(actor, cell, piece, [("to", nb)]))
            out.append(build((actor + 1) % cfg.n, cell, piece, [("from", nb)]))
    out += [_random_build(rng, state) for _ in range(60)]
    return out


def _random_build(rng: random.Random, state) -> Event:
    """A well-typed build, usually illegal: random cell, piece and 0-4 arrows to any cells near it."""
    R = state.cfg.radius
    cell = (rng.randint(-R - 1, R + 1), rng.randint(-R - 1, R + 1))
    near = list(neighbours(cell)) + [cell, (cell[0] + 2, cell[1]), (R + 2, 0)]
    arrows = [(rng.choice(("to", "from")), rng.choice(near)) for _ in range(rng.randint(0, 4))]
    actor = state.to_move if state.to_move is not None and rng.random() < 0.9 else rng.randrange(state.cfg.n)
    return build(actor, cell, rng.choice((CLEARING, FOREST)), arrows)


def _positions(game, rng: random.Random, k: int):
    return rng.sample(game.states, min(k, len(game.states)))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(GAMES, st.integers(0, 10**6))
def test_enumeration_is_complete_and_sound(game, seed):
    rng = random.Random(seed)
    for state in _positions(game, rng, 5):
        assert_complete_and_sound(state, rng)


@pytest.mark.parametrize("seed", [1, 2])
def test_enumeration_on_filling_and_full_radius4_boards(seed):
    """Crowded boards: positions while a radius-4 board fills up, and after it is full."""
    rng = random.Random(seed)
    full, after = full_board(seed, play_after=40)
    for state in [full, *rng.sample(after, min(3, len(after)))]:
        assert_complete_and_sound(state, rng)
    state = new_state({"players": [{"seat": i, "colour": c} for i, c in enumerate(("red", "blue", "green"))]}, {})
    for k in range(45):                      # builds only: the board from empty to crowded
        state = rules.apply(state, random_build(rng, state, state.to_move))
        if k % 9 == 8:
            assert_complete_and_sound(state, rng)


def assert_complete_and_sound(state, rng: random.Random) -> None:
    """Listed events are all accepted (sound); every accepted candidate is listed (complete)."""
    listed = legal.legal_events(state)
    assert len(listed) == len(set(listed)), "an event is listed twice"
    listed_set = set(listed)
    for ev in listed:                                   # sound: every listed event is accepted
        assert rules.apply(state, ev), ev
    accepted = {canonical(ev) for ev in every_event(state, rng) if rules.apply(state, ev)}
    assert accepted == listed_set & accepted            # nothing accepted outside the list ...
    assert accepted == listed_set, listed_set - accepted  # ... and the list is all of it
    assert bool(listed) != state.game_over              # a game that goes on always has a move


def canonical(ev: Event) -> Event:
    """A build with its arrows in direction order around the built cell (the enumerator's
    one form per build); other events unchanged. Only for accepted builds (all neighbours)."""
    if ev.type != "build":
        return ev
    pairs = sorted(arrow_pairs(ev["arrows"]), key=lambda p: direction_index(ev["cell"], p[1]))
    return build(ev.actor, ev["cell"], ev["piece"], pairs)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(GAMES, st.integers(0, 10**6))
def test_reordered_arrows_are_the_same_build(game, seed):
    """The enumerator lists each build once (arrows in direction order); any other order of
    the same arrows is accepted and gives the same position."""
    rng = random.Random(seed)
    for state in _positions(game, rng, 6):
        builds = [ev for ev in legal.legal_events(state) if ev.type == "build" and len(ev["arrows"]) > 1]
        for ev in rng.sample(builds, min(10, len(builds))):
            arrows = list(arrow_pairs(ev["arrows"]))[::-1]
            other = build(ev.actor, ev["cell"], ev["piece"], arrows)
            assert other != ev
            a, b = rules.apply(state, ev), rules.apply(state, other)
            assert a and b
            assert summary(a) == summary(b) and dict(a.pre) == dict(b.pre) and dict(a.post) == dict(b.post)


def test_opening_move_count():
    """Perft-style: 2 players, radius 4: one enter and 24 forest builds (12 empty cells touch a
    clearing, one clearing each, arrow in or out); no clearing can be built yet."""
    start = new_state({"players": [{"seat": 0, "colour": "red"}, {"seat": 1, "colour": "blue"}]}, {})
    assert legal.count_moves(start) == {"enter": 1, "build": 24}
    d8 = new_state({"players": [{"seat": 0, "colour": "red"}, {"seat": 1, "colour": "blue"}],
                    "variant": "d8"}, {})
    assert legal.count_moves(d8) == {"roll": 8}
    d8 = new_state({"players": [{"seat": 0, "colour": "red"}, {"seat": 1, "colour": "blue"}],
                    "variant": "d8", "rolls": [7, 2]}, {})
    assert [ev["value"] for ev in legal.legal_events(d8)] == [7]
