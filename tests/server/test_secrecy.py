"""The principle, per game, under random probing (hypothesis): two sessions with the same public
history and different secrets give byte-identical answers, on every route and the live stream,
refused requests included, to every role that may not know the difference
(:mod:`assistant.bench.secrecy` makes the pairs and sends the requests; ``assistant bench
secrets`` runs the same probe for longer and prints the counts)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from assistant.bench import secrecy
from assistant.games import get_game

#: examples per game: a Forbidden Desert pair takes about a second (its views compute odds)
EXAMPLES = {"forbidden-desert": 12, "discovery-island": 20, "scout-pennant": 25}


class DataChooser:
    """The probe's choices drawn by hypothesis (so a failing probe shrinks)."""

    def __init__(self, data):
        self.data = data

    def pick(self, items):
        return self.data.draw(st.sampled_from(list(items)))

    def number(self, low, high):
        return self.data.draw(st.integers(low, high))


def probe(game_id: str, chooser, steps: int = 40):
    with tempfile.TemporaryDirectory() as folder:
        pair = secrecy.make_pair(game_id, chooser, Path(folder))
        if pair is None:
            return None
        return pair, pair.probe(chooser, steps)


def _property(game_id: str):
    @settings(max_examples=EXAMPLES[game_id], deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
    @given(data=st.data())
    def test(data):
        result = probe(game_id, DataChooser(data))
        assume(result is not None)
        pair, findings = result
        assert findings == [], f"{pair.secret}: {findings[:3]}"
    return test


test_forbidden_desert_tells_no_role_a_secret = _property("forbidden-desert")
test_discovery_island_tells_no_role_a_secret = _property("discovery-island")
test_scout_pennant_tells_no_role_a_secret = _property("scout-pennant")


@pytest.mark.parametrize("plant, game_id, kind", [
    ("terrascope_sighting_for_all", "forbidden-desert", "view_leak"),
    ("listed_rolls", "scout-pennant", "leak"),
    ("walker_posts_steps", "discovery-island", "leak"),
])
def test_the_probe_finds_a_planted_leak(monkeypatch, plant, game_id, kind):
    """The probe can fail: with one protection taken out it reports the leak."""
    from assistant.referee import door

    if plant == "terrascope_sighting_for_all":                # every seat's view holds every sighting
        from assistant.games.forbidden_desert import views

        def everyones(state, seat=None):
            seen = frozenset().union(*state.scoped)
            return lambda slot: state.ident[slot] if (state.excavated[slot] or slot in seen) else None

        monkeypatch.setattr(views, "table_knowledge", everyones)
    elif plant == "listed_rolls":
        monkeypatch.setattr(door, "strip", lambda game, state, event: event)
    else:
        monkeypatch.setattr(type(get_game(game_id)), "poster", lambda self, event: event.actor)
    chooser, found = secrecy.RandomChooser(3), []
    for _ in range(30):
        result = probe(game_id, chooser, steps=60)
        if result is not None:
            found += [f.kind for f in result[1]]
        if kind in found:
            break
    assert kind in found
