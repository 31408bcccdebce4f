"""The API of a new game made on the tablet (see :mod:`assistant.referee.lobby`):

- ``GET /api/lobby``: the table between games as the caller may see it (:func:`~assistant.referee.door.lobby`);
- ``GET /api/new/options``: what the new-game form offers (public);
- ``POST /api/new``: the referee's form (referee token);
- ``POST /api/choices``: a Discovery Island player's secret choices (that player's token);
- ``POST /api/table/read``, ``/api/table/correct``, ``/api/table/start``: the opening table read
  by the camera (``serve --game G --source S`` without ``--setup``): read it again, correct a
  slot, start the game from it (referee token).

Tokens and bodies are checked as for the rest of the API (:mod:`.api`).
"""

from __future__ import annotations

from flask import Blueprint, jsonify

from ..referee import door, newgame
from .api import body, lobby, role, token_first

bp = Blueprint("lobby_api", __name__, url_prefix="/api")
bp.before_request(token_first)       # as on every API route: the token before the body


@bp.get("/lobby")
def state():
    """Whether a game is being played, waits for its players' choices, or none exists yet."""
    who = role()
    with lobby().changed:
        return jsonify(door.lobby(lobby(), who))


@bp.get("/new/options")
def options():
    """The games, players' limits, adventurers, difficulties, colours and radii on offer."""
    return jsonify(newgame.options())


@bp.post("/new")
def create():
    """Start the game the referee's form describes (201); see :meth:`~assistant.referee.lobby.Lobby.create`."""
    return jsonify(lobby().create(body(), role())), 201


@bp.post("/choices")
def choose():
    """A Discovery Island player's equipment and the opponent's landing hex; see
    :meth:`~assistant.referee.lobby.Lobby.choose`."""
    return jsonify(lobby().choose(body(), role()))


@bp.post("/table/read")
def table_read():
    """Read the opening table again (202); see :meth:`~assistant.referee.lobby.Lobby.read_table_again`."""
    return jsonify(lobby().read_table_again(role())), 202


@bp.post("/table/correct")
def table_correct():
    """Correct one slot of the reading; see :meth:`~assistant.referee.lobby.Lobby.correct_table`."""
    return jsonify(lobby().correct_table(body(), role()))


@bp.post("/table/start")
def table_start():
    """Start the game on the table read (201); see :meth:`~assistant.referee.lobby.Lobby.start_from_table`."""
    return jsonify(lobby().start_from_table(body(), role())), 201
