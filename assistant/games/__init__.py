"""The game registry: the only place that knows which games exist.

Shared machinery (records, the CLI, later the tracker and the server) asks the registry for a
game by its record id and talks to it only through :class:`assistant.games.base.Game`.
Games are imported lazily, so a broken game cannot stop the others from loading.
"""

from __future__ import annotations

import importlib

from .base import Event, Game, MalformedError, Refusal

__all__ = ["Event", "Game", "MalformedError", "Refusal", "get_game", "game_ids"]

#: Record id -> module that defines ``GAME``, an instance of :class:`Game`.
_MODULES: dict[str, str] = {
    "forbidden-desert": "assistant.games.forbidden_desert",
    "discovery-island": "assistant.games.discovery_island",
    "scout-pennant": "assistant.games.scout_pennant",
}
_LOADED: dict[str, Game] = {}


def game_ids() -> list[str]:
    """The record ids of every registered game, sorted."""
    return sorted(_MODULES)


def get_game(game_id: str) -> Game:
    """Return the registered game whose record id is ``game_id``.

    Raises
    ------
    KeyError
        When no game of that id is registered.
    """
    if game_id not in _MODULES:
        raise KeyError(game_id)
    if game_id not in _LOADED:
        _LOADED[game_id] = importlib.import_module(_MODULES[game_id]).GAME
    return _LOADED[game_id]
