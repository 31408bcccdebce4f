"""Seeded random play, shared by every game's ``simulate`` module (property tests, benchmarks).

A game supplies its starting state, a chooser that picks a legal event for a state, its
``apply`` and a game-over test; :func:`play_out` runs the loop and keeps every state, so tests
can check invariants after each event and write the record back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from .base import Event


@dataclass
class RandomGame:
    """A generated game: its header parts, its events and the state after each event.

    Attributes
    ----------
    setup, rulings : dict
        The header's objects.
    events : list of Event
    states : list
        ``states[0]`` is the start; ``states[i + 1]`` follows ``events[i]``.
    """

    setup: dict[str, Any]
    rulings: dict[str, Any]
    events: list[Event] = field(default_factory=list)
    states: list[Any] = field(default_factory=list)

    @property
    def final(self) -> Any:
        """The state after the last event."""
        return self.states[-1]


def play_out(setup: dict[str, Any], rulings: dict[str, Any], start: Any, choose: Callable[[Any], Event],
             apply: Callable[[Any, Event], Any], over: Callable[[Any], bool], max_events: int) -> RandomGame:
    """Apply ``choose(state)`` until ``over(state)`` or ``max_events`` events.

    Raises
    ------
    AssertionError
        When ``apply`` refuses a chosen event: the chooser or the engine has a bug.
    """
    game = RandomGame(setup, rulings, [], [start])
    state = start
    while not over(state) and len(game.events) < max_events:
        ev = choose(state)
        nxt = apply(state, ev)
        if not nxt:
            raise AssertionError(f"random play chose an illegal event {ev!r}: {nxt.message}")
        game.events.append(ev)
        game.states.append(nxt)
        state = nxt
    return game
