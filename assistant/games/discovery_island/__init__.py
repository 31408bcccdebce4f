"""Discovery Island (two players, hidden positions): the rules engine plug-in.

Rules: ``shared/rules/discovery-island.md``. Module map:

- ``geometry``: odd-q offset files, axial hexes, directions, distance;
- ``data``: equipment, events and tile-supply files with their validators; ``island``: the map
  file, its validator and the shipped example island; ``generator``: seeded islands of any size;
- ``setup``: header -> starting state; ``events``: the record vocabulary;
- ``rules``: the §7.4 check order and every rule; ``knowledge``: possible positions, landings
  and treasure caches; ``legal``: enumeration; ``views``: the summary and per-player views;
- ``simulate``: seeded random games.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from ..base import Event, Game, Refusal
from . import commands, events, legal, rules, setup, views
from .state import State


class DiscoveryIsland(Game):
    """Discovery Island behind the shared :class:`~assistant.games.base.Game` interface."""

    id = "discovery-island"
    title = "Discovery Island"

    def new_state(self, setup_obj: Mapping[str, Any], rulings: Mapping[str, Any],
                  base_dir: Path | None = None) -> State:
        return setup.new_state(setup_obj, rulings, base_dir)

    def parse_event(self, obj: Mapping[str, Any], state: State | None = None) -> Event:
        given = state.cfg.rulings if state is not None else {k: v[0] for k, v in setup.RULINGS.items()}
        return events.parse_event(obj, given)

    def legal_events(self, state: State) -> list[Event]:
        return legal.legal_events(state)

    def apply(self, state: State, event: Event) -> State | Refusal:
        return rules.apply(state, event)

    def summary(self, state: State) -> dict[str, Any]:
        return views.summary(state)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return views.view(state, seat)

    def add_commands(self, subparsers: Any) -> None:
        commands.add_commands(subparsers)


GAME = DiscoveryIsland()
