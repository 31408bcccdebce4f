"""Storm-loss odds (rules §5.4 item 3) against a slow brute force written from the rules file.

The oracle plays every card sequence the players cannot rule out, one card at a time, with exact
fractions: the draw pile as the players know it (§5.2, §5.4: peeked slots named, the rest drawn
at random from the cards not seen), a reshuffle when a card is needed and the pile is empty
(§3.8.1, ruling ``reshuffle_includes_this_turns_cards``), wind as the §3.8.2 pseudo-code (every
tile on the storm's line slides, one marker per card that moved it, the supply running out),
Sun Beats Down as the §3.8.3 pseudo-code (shade judged as the card resolves: open tunnels,
with ``blocked_tunnel_shelters: false`` only at sand <= 1; shields ``at_sun`` or ``at_play``),
Storm Picks Up as §3.8.4 (the skull of §1.8). It follows every pawn's tile, the storm, the
supply, the meter and every canteen; nothing is pruned. Its memo key is that whole state.

Positions come from random legal games under random rulings, then are pushed toward the edges
the figure must get right: 1-6 cards, low water, a low supply, the meter near the skull, pawns
on open tunnels with 0-2 sand, shields, peeked cards and a pile that runs out inside the phase.
``tests/oracle_sweep.py`` runs the same comparison over many more positions.
"""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from functools import lru_cache

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.games.forbidden_desert.components import LADDER, SAND_TOTAL, SIZE, STORM_COUNTS, TILE_IDS_BY_KIND
from assistant.games.forbidden_desert.odds import storm_loss
from assistant.games.forbidden_desert.simulate import random_game

CAUSES = ("thirst", "sand_supply", "storm_meter")
SLIDE = {"n": (-1, 0), "e": (0, 1), "s": (1, 0), "w": (0, -1)}      # §3.8.2 VEC: the way tiles slide
STORM_RULINGS = {"blocked_tunnel_shelters": (True, False), "solar_shield_judged": ("at_sun", "at_play"),
                 "reshuffle_includes_this_turns_cards": (True, False), "storm_tracker_card": (False, True)}


def oracle_storm_loss(state) -> dict[str, Fraction]:
    """The chance, per cause, that the next storm phase (the rest of the one under way) is lost.

    Written from rules §5.4 item 3, §3.8.1-§3.8.4, §4 and §1.8 only (see the module docstring).
    """
    rulings = state.cfg.rulings
    cards = state.to_draw if state.phase == "storm" else max(0, state.draw_count - state.reductions)
    skull = len(LADDER[state.cfg.n])
    pile = tuple(card if seen else None for card, seen in zip(state.pile, state.pile_seen))
    unseen = Counter(state.pool)
    unseen.update(card for card, seen in zip(state.pile, state.pile_seen) if not seen and card is not None)
    tiles = sorted(set(state.pawn))                       # the tiles pawns ride (§3.2): all a loss reads
    tunnel = {t: state.excavated[t] and state.ident[t] in TILE_IDS_BY_KIND["tunnel"] for t in tiles}
    seats = range(state.cfg.n)

    def shade(cells, sand):
        out = {p for p in seats if tunnel[state.pawn[p]] and
               (rulings["blocked_tunnel_shelters"] or sand[tiles.index(state.pawn[p])] <= 1)}
        for holder, covered in state.shields.items():
            if rulings["solar_shield_judged"] == "at_play":
                out |= set(covered)
            else:                                         # judged now: the holder's tile as it is
                out |= {holder} | {p for p in seats if cells[tiles.index(state.pawn[p])] ==
                                   cells[tiles.index(state.pawn[holder])]}
        return out

    def resolve(card, storm, cells, sand, water, meter, supply):
        """One card (§3.8.2-§3.8.4): the new state, or the cause of the loss."""
        cells, sand, water = list(cells), list(sand), list(water)
        if card.startswith("wind_"):
            _, d, k = card.split("_")
            dr, dc = SLIDE[d]
            moved = []
            for _ in range(int(k)):
                src = (storm[0] - dr, storm[1] - dc)
                if not (0 <= src[0] < SIZE and 0 <= src[1] < SIZE):
                    break
                followed = [i for i, c in enumerate(cells) if c == src]
                for i in followed:
                    cells[i] = storm
                moved.append(followed)                    # every cell but the storm holds a tile
                storm = src
            for followed in moved:
                if supply == 0:
                    return "sand_supply"
                supply -= 1
                for i in followed:
                    sand[i] += 1
        elif card == "sun_beats_down":
            covered = shade(cells, sand)
            dry = [p for p in seats if p not in covered and water[p] == 0]
            for p in seats:
                if p not in covered and water[p] > 0:
                    water[p] -= 1
            if dry:
                return "thirst"
        else:
            meter += 1
            if meter >= skull:
                return "storm_meter"
        return storm, tuple(cells), tuple(sand), tuple(water), meter, supply

    cards_in_deck = sorted(STORM_COUNTS)

    @lru_cache(maxsize=None)
    def go(k, storm, cells, sand, water, meter, supply, pile, unseen, discard):
        """``unseen`` and ``discard`` count each card of ``cards_in_deck``."""
        out = dict.fromkeys(CAUSES, Fraction(0))
        if k == 0:
            return out
        if not pile:                                      # §3.8.1: the discard pile becomes the pile
            if not any(discard):
                return out
            pile, unseen, discard = (None,) * sum(discard), discard, (0,) * len(discard)
        if pile[0] is not None:
            draws = [(Fraction(1), cards_in_deck.index(pile[0]), unseen)]
        else:
            total = sum(unseen)
            draws = [(Fraction(n, total), i, unseen[:i] + (n - 1,) + unseen[i + 1:]) for i, n in enumerate(unseen) if n]
        for weight, i, left in draws:
            after = resolve(cards_in_deck[i], storm, cells, sand, water, meter, supply)
            if isinstance(after, str):
                out[after] += weight
                continue
            gone = discard[:i] + (discard[i] + 1,) + discard[i + 1:] if rulings["reshuffle_includes_this_turns_cards"] \
                else discard
            sub = go(k - 1, *after, pile[1:], left, gone)
            for cause in CAUSES:
                if sub[cause]:
                    out[cause] += weight * sub[cause]
        return out

    if state.result != "ongoing":
        return {c: Fraction(int(state.result == f"lost:{c}")) for c in CAUSES}
    discard = Counter(state.discard)
    return go(cards, state.storm, tuple(state.cell_of[t] for t in tiles), tuple(state.sand[t] for t in tiles),
              tuple(state.water), state.meter, SAND_TOTAL - sum(state.sand), pile,
              tuple(unseen[c] for c in cards_in_deck), tuple(discard[c] for c in cards_in_deck))


# --- positions ---------------------------------------------------------------------------------
def stressed(state, rng: random.Random, cards: int):
    """``state`` pushed toward the cases the figure must get right, with ``cards`` to draw."""
    s = state.copy()
    n = s.cfg.n
    s.phase, s.to_draw = "storm", cards
    if rng.random() < 0.3:                                # or still in the action phase
        ticks = [t for t, c in enumerate(s.cfg.ladder) if c >= cards]
        s.phase, s.to_draw, s.meter = "actions", 0, rng.choice(ticks)
        s.reductions = s.draw_count - cards
        s.set_aside.clear()
    elif rng.random() < 0.5:
        s.meter = max(s.meter, len(s.cfg.ladder) - rng.randint(1, 4))
    for seat in range(n):
        if rng.random() < 0.5:
            s.water[seat] = rng.randint(0, 2)
    if rng.random() < 0.7:                                # shelters: pawns on an open tunnel
        tunnels = [t for t, tile in enumerate(s.ident) if tile in TILE_IDS_BY_KIND["tunnel"]]
        tunnel = rng.choice(tunnels)
        s.excavated[tunnel] = True
        s.sand[tunnel] = rng.choice((0, 0, 1, 1, 2, 3))
        for seat in rng.sample(range(n), rng.randint(1, n)):
            s.pawn[seat] = tunnel
    if rng.random() < 0.3:
        holder = rng.randrange(n)
        s.shields[holder] = (frozenset({holder, *s.seats_on(s.pawn[holder])})
                             if s.cfg.rulings["solar_shield_judged"] == "at_play" else None)
    if rng.random() < 0.6:                                # a low supply: sand on a tile without pawns
        spare = [t for t in range(len(s.sand)) if t not in s.pawn]
        t = rng.choice(spare)
        s.sand[t] += max(0, SAND_TOTAL - sum(s.sand) - rng.randint(0, 3 * cards))
    if rng.random() < 0.3 and len(s.pile) > 0:           # the pile runs out inside the phase
        keep = rng.randint(0, min(cards - 1, len(s.pile)))
        s.discard.extend(c for c in s.pile[keep:] if c is not None)
        s.pile, s.pile_seen = s.pile[:keep], s.pile_seen[:keep]
    if rng.random() < 0.4:                                # a peek: the top cards are known
        for i in range(min(len(s.pile), rng.randint(1, 3))):
            s.pile_seen[i] = True
    return s


def positions(seed: int, rulings: dict, count: int, max_cards: int = 6):
    """``count`` stressed positions from one random game (seeded), draws of 1..``max_cards``."""
    rng = random.Random(seed)
    game = random_game(seed, n_players=rng.randint(2, 5), rulings=rulings, free_rate=0.1, max_events=300)
    states = [s for s in game.states if s.result == "ongoing"]
    return [stressed(rng.choice(states), rng, rng.randint(1, max_cards)) for _ in range(count)]


def agrees(state) -> bool:
    """The product's figure equals the oracle's, per cause, to 1e-12."""
    got = storm_loss(state)
    want = oracle_storm_loss(state)
    return all(abs(got.by_cause[c] - float(want[c])) <= 1e-12 for c in CAUSES) and \
        abs(got.probability - float(sum(want.values()))) <= 1e-12


RULINGS = st.fixed_dictionaries({}, optional={k: st.sampled_from(v) for k, v in STORM_RULINGS.items()})


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**9), RULINGS)
def test_storm_odds_per_cause_equal_the_brute_force(seed, rulings):
    """§5.4 item 3 (figure), §3.8.1-§3.8.4 and §4 (oracle): every cause, 1-4 cards, random rulings."""
    for state in positions(seed, rulings, 3, max_cards=4):
        assert agrees(state), (rulings, state.storm, state.water, state.to_draw)


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**9), RULINGS)
def test_storm_odds_for_five_and_six_cards_equal_the_brute_force(seed, rulings):
    """§5.4 item 3 for the longest draws (§1.8: 5 and 6 cards)."""
    rng = random.Random(seed)
    state = positions(seed, rulings, 1, max_cards=4)[0]
    state.phase, state.to_draw = "storm", rng.randint(5, 6)
    assert agrees(state)


def _explorer_on_a_tunnel(cards: int):
    """The issue's case: the Explorer at 0 water on an open tunnel with 1 sand just south of the
    storm, ``cards`` to draw, ``blocked_tunnel_shelters: false``."""
    from assistant.games.forbidden_desert.setup import new_state

    layout = [["gear_1", "tunnel_1", "clue_propeller_column", "gear_2", "well_1"],
              ["clue_engine_row", "crash_site", "gear_3", "tunnel_2", "mirage"],
              ["clue_propeller_row", "gear_4", None, "gear_5", "clue_engine_column"],
              ["well_2", "launch_pad", "tunnel_3", "clue_solar_crystal_row", "gear_6"],
              ["clue_solar_crystal_column", "gear_7", "clue_navigation_deck_row", "gear_8", "clue_navigation_deck_column"]]
    setup = {"players": ["archeologist", "explorer"], "difficulty": "novice", "first_player": 0, "layout": layout,
             "position": {"sand": [[3, 2, 1]], "excavated": [[3, 2]], "pawns": [[1, 1], [3, 2]], "water": [3, 0]}}
    state = new_state(setup, {"blocked_tunnel_shelters": False})
    state.phase, state.to_draw = "storm", cards
    return state


def test_a_tunnel_that_fills_mid_phase_stops_sheltering():
    """§3.8.2 (a marker per card that moved the tile) and §3.8.3 (shade judged at each sun):
    with 2 cards the phase is lost only by a north wind (6 of 31 cards), which slides the tunnel
    into the storm with its second marker, then a sun (4 of 30): 4/155; with 4 cards 393/4495."""
    two = storm_loss(_explorer_on_a_tunnel(2))
    assert abs(two.by_cause["thirst"] - 4 / 155) < 1e-15 and oracle_storm_loss(_explorer_on_a_tunnel(2))["thirst"] == Fraction(4, 155)
    four = storm_loss(_explorer_on_a_tunnel(4))
    assert abs(four.probability - 393 / 4495) < 1e-15
    assert oracle_storm_loss(_explorer_on_a_tunnel(4))["thirst"] == Fraction(393, 4495)
