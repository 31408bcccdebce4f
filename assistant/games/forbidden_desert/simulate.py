"""Seeded random games, for property tests and the rules benchmark.

A random game uses the assistant's own digital decks and a fully named layout, so every chance
outcome is fixed by the header and the record replays exactly. :func:`to_physical` rewrites
such a game as the table would record it with physical decks and face-down tiles: backs only in
the layout, and each observation (``reveals``, ``draws``, ``storm_card``, ``seen``) filled in
from what the digital game drew.
"""

from __future__ import annotations

import json
import random
from typing import Any

from ..base import Event
from ..simulation import RandomGame, play_out
from . import legal, rules, setup
from .components import (ADVENTURERS, EQUIPMENT_COUNTS, SIZE, START_STORM, START_TICK, STORM_COUNTS,
                         TILE_IDS, back_of)
from .state import State


def random_setup(rng: random.Random, n_players: int | None = None, difficulty: str | None = None,
                 adventurers: list[str] | None = None) -> dict[str, Any]:
    """A shuffled set-up (§3.1) with digital storm and equipment decks and every face named.

    Parameters
    ----------
    rng : random.Random
    n_players : int, optional
        2-5; drawn at random when neither it nor ``adventurers`` is given.
    difficulty : str, optional
        ``novice``, ``normal``, ``elite`` or ``legendary``; drawn at random when absent.
    adventurers : list of str, optional
        The adventurers in seat order (else ``n_players`` drawn at random); the first player is
        drawn among those with the smallest canteen (§3.1).

    Returns
    -------
    dict
        The header's ``setup`` (validated later by ``new_state``).
    """
    players = list(adventurers) if adventurers else rng.sample(sorted(ADVENTURERS), n_players or rng.randint(2, 5))
    smallest = min(ADVENTURERS[p].canteen for p in players)
    first = rng.choice([i for i, p in enumerate(players) if ADVENTURERS[p].canteen == smallest])
    tiles = list(TILE_IDS)
    rng.shuffle(tiles)
    layout: list[list[str | None]] = [[None] * SIZE for _ in range(SIZE)]
    cells = [(r, c) for r in range(SIZE) for c in range(SIZE) if (r, c) != START_STORM]
    for (r, c), tile in zip(cells, tiles):
        layout[r][c] = tile
    storm = list(STORM_COUNTS.elements())
    rng.shuffle(storm)
    equipment = list(EQUIPMENT_COUNTS.elements())
    rng.shuffle(equipment)
    return {"players": players, "difficulty": difficulty or rng.choice(sorted(START_TICK)),
            "first_player": first, "layout": layout, "storm_deck": storm, "equipment_deck": equipment}


def _choose(rng: random.Random, state: State, free_rate: float) -> Event:
    if state.phase == "storm":
        if state.pile:
            return Event.make("storm", "draw_storm")
        order = list(state.discard)
        rng.shuffle(order)
        return Event.make("storm", "reshuffle", order=tuple(order))
    if rng.random() < free_rate:
        free = legal.legal(state, legal.free_candidates(state))
        if free:
            return rng.choice(free)
    actions = legal.legal(state, legal.action_candidates(state))
    a = state.active
    by_type: dict[str, list[Event]] = {}
    for ev in actions:
        by_type.setdefault(ev.type, []).append(ev)
    # a crude survival instinct, so that random games last long enough to reach every rule
    if "take_water" in by_type and state.water[a] < state.cfg.canteen(a):
        return by_type["take_water"][0]
    if state.water[a] <= 2 and "move" in by_type and rng.random() < 0.8:
        return min(by_type["move"], key=lambda ev: _distance_to_water(state, ev["to"]))
    for kind, rate in (("pick_up_part", 1.0), ("excavate", 0.8), ("remove_sand", 0.4)):
        if kind in by_type and rng.random() < rate:
            return rng.choice(by_type[kind])
    others = [ev for ev in actions if ev.type != "end_turn"]
    if others and rng.random() < 0.85:
        return rng.choice(others)
    return Event.make(a, "end_turn")


def _distance_to_water(state: State, cell: tuple[int, int]) -> int:
    """Manhattan distance from ``cell`` to the nearest tile that is or may be a well."""
    wells = [state.cell_of[s] for s in range(len(state.ident))
             if state.cfg.backs[s] == "water_back" and (not state.excavated[s] or state.kind(s) == "well")]
    return min((abs(r - cell[0]) + abs(c - cell[1]) for r, c in wells), default=0)


def random_game(seed: int, n_players: int | None = None, difficulty: str | None = None,
                rulings: dict[str, Any] | None = None, max_events: int = 400,
                free_rate: float = 0.05) -> RandomGame:
    """Play a random legal game until it ends or ``max_events`` events have been applied.

    Parameters
    ----------
    seed : int
        Seeds both the set-up shuffle and every choice; the same seed gives the same game.
    n_players, difficulty : optional
        Fixed, or drawn at random.
    rulings : dict, optional
        Header rulings (§4).
    max_events : int
    free_rate : float
        Chance, at each choice in an action phase, of trying a random free action first.

    Returns
    -------
    RandomGame
    """
    rng = random.Random(seed)
    setup_obj = random_setup(rng, n_players, difficulty)
    rulings = dict(rulings or {})
    if rulings.get("storm_tracker_card"):        # the 13th equipment card (§4), somewhere in the deck
        setup_obj["equipment_deck"].insert(rng.randint(0, 12), "storm_tracker")
    return play_out(setup_obj, rulings, setup.new_state(setup_obj, rulings), lambda s: _choose(rng, s, free_rate),
                    rules.apply, lambda s: s.result != "ongoing", max_events)


def to_physical(game: RandomGame) -> tuple[dict[str, Any], list[Event]]:
    """The same game as recorded at a real table: physical decks and face-down tiles.

    Returns
    -------
    (dict, list of Event)
        The header's ``setup`` (layout of backs, no decks) and the rewritten events.
    """
    phys = {k: v for k, v in game.setup.items() if k not in ("storm_deck", "equipment_deck")}
    phys["layout"] = [[None if t is None else (t if t == "crash_site" else back_of(t)) for t in row]
                      for row in game.setup["layout"]]
    out = []
    for ev, before, after in zip(game.events, game.states, game.states[1:]):
        params = dict(ev.params)
        if ev.type == "draw_storm":
            ev = Event.make("storm", "storm_card", card=before.pile[0])
        elif ev.type == "reshuffle":
            continue                      # a physical deck reshuffles implicitly
        elif ev.type == "excavate":
            slot = before.pawn[ev.actor]
            drawn = after.hands[ev.actor][len(before.hands[ev.actor]):]
            ev = Event.make(ev.actor, "excavate", reveals=after.ident[slot], draws=drawn[0] if drawn else None)
        elif ev.type == "meteorologist_peek" or (ev.type == "play_equipment" and ev["card"] == "storm_tracker"):
            m = min(before.draw_count, len(before.pile))
            params["seen"] = tuple(before.pile[:m])
            ev = Event.make(ev.actor, ev.type, **params)
        out.append(ev)
    return phys, out


def table_game(game: RandomGame) -> tuple[dict[str, Any], Any, list, list[Event]]:
    """``game`` as played at a table with a physical storm deck and face-down tiles, and a known
    equipment deck (so an excavation's card is the deck's top, as the camera cannot see it).

    Returns
    -------
    (setup, start, states, entered)
        The record header's ``setup``; the starting state; the table's state after each of the
        digital game's events (``states[0]`` is ``start``; a digital ``reshuffle`` leaves the
        state as it was: a physical deck reshuffles implicitly); and the events as entered at
        the table, one per digital event (a storm draw names its card, an excavation the face it
        reveals and the card it draws, a peek the cards seen; ``reshuffle`` kept in place).

    Raises
    ------
    AssertionError
        When the rewritten game is refused by the engine (a bug of this function).
    """
    phys, _ = to_physical(game)
    phys["equipment_deck"] = game.setup["equipment_deck"]
    start = setup.new_state(phys, game.rulings)
    out, state, entered = [start], start, []
    for ev, before in zip(game.events, game.states):
        if ev.type == "draw_storm":
            ev = Event.make("storm", "storm_card", card=before.pile[0])
        elif ev.type == "excavate":
            slot = before.pawn[ev.actor]
            after = game.states[len(out)]
            drawn = after.hands[ev.actor][len(before.hands[ev.actor]):]
            ev = Event.make(ev.actor, "excavate", reveals=after.ident[slot], draws=drawn[0] if drawn else None)
        elif ev.type == "meteorologist_peek" or (ev.type == "play_equipment" and ev["card"] == "storm_tracker"):
            m = min(before.draw_count, len(before.pile))
            ev = Event.make(ev.actor, ev.type, **{**dict(ev.params), "seen": tuple(before.pile[:m])})
        if ev.type != "reshuffle":
            state = rules.apply(state, ev)
            assert state, (ev, state)
        out.append(state)
        entered.append(ev)
    return phys, start, out, entered


def table_key(state: State) -> str:
    """The position as the table shows it, as one comparable string: the engine's summary with
    each excavated tile named by its face (``gear``, not ``gear_5``: which of the identical
    gears a dug tile is depends on the order the engine learnt faces in, nothing on the table)."""
    from .components import KIND_OF_TILE, face_of
    from .views import summary

    out = dict(summary(state))
    out["tiles"] = [[face_of(t) if t in KIND_OF_TILE else t for t in row] for row in out["tiles"]]
    return json.dumps(out, sort_keys=True, default=str)

