"""Seeded random games and full boards, for property tests and the benchmark.

A random game draws its header (players, radius, pawns, variant, rulings given by the caller,
sometimes custom starts or a limited supply) and then plays legal events chosen from the
enumerator (:mod:`.legal`), so every event is legal by construction and the record replays
exactly. In the d8 variant the header may carry the whole sequence of rolls; without it the
rolls are drawn as the game goes.
"""

from __future__ import annotations

import random
from typing import Any

from ..base import Event
from ..simulation import RandomGame, play_out
from . import build as B
from . import legal, rules, setup
from .events import build as build_event
from .geometry import distance
from .state import BUILD, CLEARING, FIRE, FOREST, TAKE, State

COLOURS = ("red", "blue", "green", "yellow", "purple", "orange")
#: how much more likely the random player picks each move kind than a build
KIND_WEIGHTS = {TAKE: 8.0, FIRE: 4.0, "enter": 2.0, BUILD: 1.0}


def random_setup(rng: random.Random, n_players: int | None = None, radius: int | None = None,
                 variant: str | None = None, max_events: int = 300) -> dict[str, Any]:
    """A random header ``setup`` (§5.1): 2-6 players, radius 2-4, 1-4 pawns, either variant,
    sometimes custom starts (any ring), a limited ``supply`` or the d8 ``rolls`` in advance."""
    n = n_players or rng.randint(2, 6)
    radius = radius or rng.choice((2, 3, 3, 4))
    players: list[dict[str, Any]] = [{"seat": i, "colour": COLOURS[i]} for i in range(n)]
    if rng.random() < 0.2:
        d = rng.randint(1, radius)
        ring = sorted(c for c in _ring(d))
        for p, cell in zip(players, rng.sample(ring, n)):
            p["start"] = list(cell)
    out: dict[str, Any] = {"radius": radius, "players": players, "pawns_per_player": rng.randint(1, 4),
                           "first_player": rng.randrange(n),
                           "variant": variant or rng.choice(("free", "d8"))}
    if out["variant"] == "d8" and rng.random() < 0.6:
        out["rolls"] = [rng.randint(1, 8) for _ in range(max_events)]
    if rng.random() < 0.25:
        out["supply"] = {k: rng.randint(0, 12) for k in ("clearing", "forest", "arrow") if rng.random() < 0.7}
    return out


def _ring(d: int):
    return [(q, r) for q in range(-d, d + 1) for r in range(-d, d + 1) if distance((q, r)) == d]


def random_build(rng: random.Random, state: State, seat: int) -> Event | None:
    """A uniformly random site and piece, then random arrows: a legal ``build`` (§3.2) for ``seat``
    made without enumerating every build (for filling boards fast); ``None`` if none exists."""
    arrows_left = state.supply_left("arrow")
    if arrows_left is not None and arrows_left < 1:
        return None
    options = []
    for piece in (CLEARING, FOREST):
        left = state.supply_left(piece)
        if left is None or left > 0:
            options += [(piece, cell, others) for cell, others in B.build_sites(state, piece)]
    if not options:
        return None
    piece, cell, others = rng.choice(options)
    limit = len(others) if arrows_left is None else min(arrows_left, len(others))
    chosen = rng.sample(others, rng.randint(1, limit))
    return build_event(seat, cell, piece, [(rng.choice(("from", "to")), nb) for nb in chosen])


def choose(rng: random.Random, state: State) -> Event:
    """A random legal event (§3.1, §3.8): the roll or the mandatory take when due, else a move kind drawn
    by :data:`KIND_WEIGHTS` among the kinds available, then an event of that kind (builds
    uniformly from the full enumeration), or ``pass``.

    Raises
    ------
    ValueError
        When the game is over.
    """
    events = legal.legal_events(state)
    if not events:
        raise ValueError("the game is over")
    by_type: dict[str, list[Event]] = {}
    for ev in events:
        by_type.setdefault(ev.type, []).append(ev)
    if len(by_type) == 1:
        return rng.choice(events)
    kinds = sorted(by_type)
    kind = rng.choices(kinds, weights=[KIND_WEIGHTS.get(k, 1.0) for k in kinds])[0]
    return rng.choice(by_type[kind])


def random_game(seed: int, n_players: int | None = None, radius: int | None = None,
                variant: str | None = None, rulings: dict[str, Any] | None = None,
                max_events: int = 200) -> RandomGame:
    """Play a random legal game until it ends or ``max_events`` events have been applied.

    Parameters
    ----------
    seed : int
        Seeds the header and every choice; the same arguments give the same game.
    n_players, radius, variant : optional
        Fixed, or drawn at random (see :func:`random_setup`).
    rulings : dict, optional
        Header rulings (§3.10).
    max_events : int

    Returns
    -------
    RandomGame

    Raises
    ------
    AssertionError
        If the engine refuses an event the enumerator offered (a bug).
    """
    rng = random.Random(seed)
    setup_obj = random_setup(rng, n_players, radius, variant, max_events)
    rulings = dict(rulings or {})
    return play_out(setup_obj, rulings, setup.new_state(setup_obj, rulings), lambda s: choose(rng, s),
                    rules.apply, lambda s: s.game_over, max_events)


def full_board(seed: int, radius: int = 4, n_players: int = 4, pawns: int = 4,
               play_after: int = 60) -> tuple[State, list[State]]:
    """A radius-``radius`` board with every cell filled (§2.1, §3.2), then some random play on it
    (for the benchmark).

    How "full" is built: from the opening position of ``n_players`` (free variant, default
    starts), the players in turn make :func:`random_build` moves (a random empty cell next to
    a piece, a random piece kind that fits, 1..k random arrows to neighbours of the other kind)
    until no cell is empty; every build goes through :func:`rules.apply`. Then ``play_after``
    random legal events (enter, fire, take, pass) spread patrols over the net.

    Returns
    -------
    (State, list of State)
        The first full position, and every position of the play after it that is not over.
    """
    rng = random.Random(seed)
    header = {"radius": radius, "players": [{"seat": i, "colour": COLOURS[i]} for i in range(n_players)],
              "pawns_per_player": pawns}
    state = setup.new_state(header, {"deadlock_ends_game": False})
    while state.empty_count() > 0:
        ev = random_build(rng, state, state.to_move)
        nxt = rules.apply(state, ev)
        assert nxt, (ev, nxt)
        state = nxt
    full, after = state, []
    for _ in range(play_after):
        if state.game_over:
            break
        state = rules.apply(state, choose(rng, state))
        if not state.game_over:
            after.append(state)
    return full, after
