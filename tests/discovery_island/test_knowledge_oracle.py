"""Possible positions, possible landings and possible treasure caches (rules §6.2) against brute
force written from the rules file.

The oracles read only the map (terrain, feature and label per hex), the header and the events of
a random legal game, never the engine's filter:

- **What the walker saw** (§6.1): the start tile's terrain (§5.3), each laid tile's terrain
  (§5.4), each marker tile with its label when ``label_revealed`` is ``on_entry`` (§5.9, §5.10,
  §5.11), each "hav" (§5.5), a relocation with the new start tile's terrain when
  ``lost_reveals_terrain`` (§5.7), and the label of a clue it learned (§6.2; landed on a
  checkpoint under ``start_on_feature``, the walker names the label too, §5.11). Opening a cache,
  an accident and a skip change nothing (§6.2).
- **Possible positions**: every hex of the map is tried as a start (land, featureless unless
  ``start_on_feature``, the start tile's terrain, §5.1 step 2, §5.3), and each start is walked hex
  by hex through everything the walker saw, branching at a relocation over every hex the
  opponent may choose (§5.7 and the rulings ``lost_relocation_*``); the positions are the ends of
  those walks, the possible landings the starts with at least one end.
- **Possible treasure caches** (§5.1 step 4): a cache is possible when it is not known to be
  empty (§5.10) and the clues the player holds could all have been dealt from it: its six
  neighbour terrains (with their direction under ``neighbour_clue_direction``), its symbol and
  the empty card.

``tests/oracle_sweep.py island`` runs the same comparisons over many more games.
"""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.games.discovery_island.simulate import random_game
from assistant.games.discovery_island.views import view

#: §2: axial (dq, dr) of the six directions
DIRS = {"N": (0, -1), "NE": (1, -1), "SE": (1, 0), "S": (0, 1), "SW": (-1, 1), "NW": (-1, 0)}
ISLAND_RULINGS = {
    "start_on_feature": (False, True), "label_revealed": ("on_entry", "on_payment"),
    "lost_relocation_distance": (4, 1, 2, 7), "lost_relocation_shape": ("disc", "line"),
    "lost_relocation_same_hex": (True, False), "lost_reveals_terrain": (True, False),
    "neighbour_clue_direction": (False, True), "checkpoint_claimed_by": ("learn", "entry"),
    "revisit_checkpoint": ("gone_for_both", "owner_may_reread"), "event_on_last_tile": ("applies", "ignored"),
    "march_overflow": ("lost", "carry"),
}


def _add(h, d, k=1):
    return h[0] + k * DIRS[d][0], h[1] + k * DIRS[d][1]


def _distance(a, b):
    """§2: hex distance in axial coordinates."""
    return (abs(a[0] - b[0]) + abs(a[1] - b[1]) + abs(a[0] + a[1] - b[0] - b[1])) // 2


class Walks:
    """Every walk the player could have made, start by start (see the module docstring)."""

    def __init__(self, island, rulings, start_terrain):
        self.hexes, self.rulings = island.hexes, rulings
        self.ends = {h: {h} for h in self.hexes if self._may_stand(h) and self._terrain(h) == start_terrain}

    def _terrain(self, h):
        info = self.hexes.get(h)
        return info.terrain if info else "sea"

    def _feature(self, h):
        info = self.hexes.get(h)
        return info.feature if info else "none"

    def _label(self, h):
        info = self.hexes.get(h)
        return info.label if info else ""

    def _may_stand(self, h):
        """A landing or relocation hex: land, and featureless unless ``start_on_feature``."""
        return self._terrain(h) != "sea" and (self.rulings["start_on_feature"] or self._feature(h) == "none")

    def _relocations(self, h):
        r = self.rulings
        out = set()
        for x in self.hexes:
            if not self._may_stand(x) or _distance(h, x) > r["lost_relocation_distance"]:
                continue
            if r["lost_relocation_shape"] == "line" and not any(
                    _add(h, d, k) == x for d in DIRS for k in range(r["lost_relocation_distance"] + 1)):
                continue
            if x == h and not r["lost_relocation_same_hex"]:
                continue
            out.add(x)
        return out

    def next(self, h, seen):
        """The hexes a walker standing on ``h`` may stand on after seeing ``seen``."""
        kind = seen[0]
        if kind == "tile":                                # a terrain tile: featureless land of that terrain
            n = _add(h, seen[1])
            return {n} if self._terrain(n) == seen[2] and self._feature(n) == "none" else set()
        if kind == "marker":
            n = _add(h, seen[1])
            feature = self._feature(n)
            marker = "checkpoint" if feature == "checkpoint" else ("cache" if feature != "none" else None)
            return {n} if marker == seen[2] and seen[3] in (None, self._label(n)) else set()
        if kind == "hav":
            return {h} if self._terrain(_add(h, seen[1])) == "sea" else set()
        if kind == "label":
            return {h} if self._label(h) == seen[1] else set()
        if kind == "relocated":
            return {x for x in self._relocations(h) if seen[1] is None or self._terrain(x) == seen[1]}
        raise AssertionError(seen)

    def see(self, seen):
        self.ends = {s: {x for h in ends for x in self.next(h, seen)} for s, ends in self.ends.items()}

    def positions(self):
        return set().union(*self.ends.values()) if self.ends else set()

    def landings(self):
        return {s for s, ends in self.ends.items() if ends}


def seen_by_walker(ev, rulings):
    """What the event shows the walker (§6.1, §6.2), as ``(player, observation)``, or ``None``."""
    if ev.type == "choose_direction":
        return ev.actor, ("tile", ev["dir"], ev["tile"]["terrain"])
    if ev.type in ("enter_checkpoint", "enter_cache"):
        label = ev["label"] if rulings["label_revealed"] == "on_entry" else None
        return ev.actor, ("marker", ev["dir"], ev.type[len("enter_"):], label)
    if ev.type == "sea_refused":
        return ev.actor, ("hav", ev["dir"])
    if ev.type == "learn_clue":
        return ev.actor, ("label", ev["label"])
    if ev.type == "relocate":
        return 1 - ev.actor, ("relocated", ev["terrain"] if rulings["lost_reveals_terrain"] else None)
    return None


def treasure_oracle(island, deal, directed, clues_held, empty):
    """Cache labels that could hold the treasure given the clues one player holds (§5.1 step 4)."""
    out = []
    for h, info in island.hexes.items():
        if info.feature in ("none", "checkpoint") or info.label in empty:
            continue
        items = Counter()
        for d in DIRS:
            n = _add(h, d)
            terrain = island.hexes[n].terrain if n in island.hexes else "sea"
            items[("terrain", terrain, d if directed else None)] += 1
        items[("symbol", info.feature, None)] += 1
        items[("empty", None, None)] += 1
        held = Counter((c["type"], c.get("terrain", c.get("symbol")), c.get("dir")) for c in clues_held.values())
        if not held - items:
            out.append(info.label)
    return sorted(out)


def compare_game(game, views_every: int = 1):
    """Compare the three figures with the oracles: positions after every event, landings and
    treasure caches (read from the player's view, which replays every start) after every
    ``views_every``-th event and the last; returns the counts compared ``{"positions": n,
    "landings": n, "treasures": n}`` (one count per player and event compared)."""
    start = game.states[0]
    island, rulings = start.cfg.island, start.cfg.rulings
    deal = game.setup["checkometer"]["checkpoints"]
    walks = [Walks(island, rulings, island.terrain(start.cfg.landing[p])) for p in (0, 1)]
    clues: list[dict] = [{}, {}]
    empty: set = set()
    counts = Counter()
    for i, (ev, state) in enumerate(zip(game.events, game.states[1:])):
        seen = seen_by_walker(ev, rulings)
        if seen:
            walks[seen[0]].see(seen[1])
        if ev.type == "learn_clue":
            clues[ev.actor][ev["label"]] = deal[ev["label"]]
        if ev.type == "open_cache" and not ev["found"]:
            empty.add(ev["label"])
        for p in (0, 1):
            assert state.pos[p] in walks[p].positions()                       # the oracle is sound
            assert state.candidates[p] == walks[p].positions(), (p, ev)
            counts["positions"] += 1
            if i % views_every and i != len(game.events) - 1:
                continue
            seat_view = view(state, p)
            assert {tuple(c) for c in seat_view["possible_landings"]} == \
                {_offset(h) for h in walks[p].landings()}, (p, ev)
            assert state.cfg.landing[p] in walks[p].landings()
            counts["landings"] += 1
            want = treasure_oracle(island, deal, rulings["neighbour_clue_direction"], clues[p], empty)
            assert state.result != "ongoing" or state.cfg.treasure in want
            assert seat_view["possible_treasures"] == want, (p, ev)
            counts["treasures"] += 1
    return counts


def _offset(h):
    """§2: axial to odd-q offset ``(col, row)``."""
    q, r = h
    return q, r + (q - (q & 1)) // 2


RULINGS = st.fixed_dictionaries({}, optional={k: st.sampled_from(v) for k, v in ISLAND_RULINGS.items()})


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**9), RULINGS)
def test_positions_landings_and_caches_equal_the_brute_force(seed, rulings):
    """§6.2 (figures) against §5.1-§5.11 (oracles), along a random game under random rulings."""
    counts = compare_game(random_game(seed, rulings=rulings, max_events=150), views_every=6)
    assert counts["positions"] > 0


def test_an_eliminated_start_stays_eliminated():
    """A landing ruled out once never comes back (§6.2: the replay from each start goes through
    every observation); a known label once replaced the set and revived eliminated starts."""
    for seed in range(3):
        game = random_game(seed, max_events=300)
        for p in (0, 1):
            landings = [{tuple(c) for c in view(s, p)["possible_landings"]} for s in game.states[1::6]]
            assert all(later <= earlier for earlier, later in zip(landings, landings[1:]))


def test_opening_a_cache_leaves_the_candidates_unchanged():
    """§6.2 "open_cache: unchanged", also where the walker did not know which cache it stood on
    (``label_revealed: on_payment``, ``start_on_feature``): README, Known limits."""
    found = 0
    for seed in range(40):
        rulings = {"label_revealed": "on_payment", "start_on_feature": True}
        game = random_game(seed, rulings=rulings, max_events=200)
        for ev, before, after in zip(game.events, game.states, game.states[1:]):
            if ev.type == "open_cache" and not ev["found"]:
                assert after.candidates[ev.actor] == before.candidates[ev.actor]
                found += len(before.candidates[ev.actor]) > 1
        if found >= 3:
            break
    assert found >= 3, "no random game opened a cache with several candidates"
