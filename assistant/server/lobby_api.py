"""The API of a new game made on the tablet (see :mod:`assistant.referee.lobby`):

- ``GET /api/lobby``: the table between games as the caller may see it (:func:`~assistant.referee.door.lobby`);
- ``GET /api/lobby/stream``: the same, live (Server-Sent Events: ``event: lobby`` at once and
  after each change; ``event: reload`` when the caller's token no longer grants what it did, e.g.
  a game replaced the one it was a player of; ``: keep-alive`` comments). The lobby pages follow
  it as the game pages follow ``/api/stream``;
- ``GET /api/lobby/map.svg``: the island a Discovery Island player taps the opponent's landing on;
- ``GET /api/new/options``: what the new-game form offers (public);
- ``POST /api/new``: the referee's form (referee token);
- ``POST /api/new/abandon``: abandon a Discovery Island game waiting for its players' choices
  (referee token; also when the camera reads the table, where no game may replace it);
- ``POST /api/choices``: a Discovery Island player's secret choices (that player's token);
- ``POST /api/table/read``, ``/api/table/correct``, ``/api/table/start``: the opening table read
  by the camera (``serve --game G --source S`` without ``--setup``): read it again, correct a
  slot, start the game from it (referee token).

Tokens and bodies are checked as for the rest of the API (:mod:`.api`).
"""

from __future__ import annotations

import json
from typing import Any, Callable, Iterator

from flask import Blueprint, Response, current_app, jsonify, request

from ..referee import door, newgame
from ..referee.lobby import Lobby
from ..referee.session import Role, SessionError
from .api import RELOAD, body, event_stream, lobby, role, stream_response, token, token_first, too_many_streams

bp = Blueprint("lobby_api", __name__, url_prefix="/api")
bp.before_request(token_first)       # as on every API route: the token before the body


@bp.get("/lobby")
def state():
    """Whether a game is being played, waits for its players' choices, or none exists yet."""
    who = role()
    with lobby().changed:
        return jsonify(door.lobby(lobby(), who))


def _gone_role(lob: Lobby, given: str | None) -> Any:
    """The role ``given`` (a token, or None) grants now, or ``_GONE`` when it grants none."""
    try:
        return lob.role_of(given)
    except SessionError:
        return _GONE


_GONE = object()


def lobby_events(lob: Lobby, given: str | None, who: Role, keepalive_s: float,
                 gone: Callable[[], bool] | None = None) -> Iterator[str]:
    """The lobby's live stream for the caller holding token ``given`` (role ``who`` when it
    connected): ``event: lobby`` with :func:`~assistant.referee.door.lobby`'s JSON for ``who`` at
    once and after each change of the lobby; a ``: keep-alive`` comment after ``keepalive_s``
    seconds of quiet. The token is asked again at every change: once it no longer grants
    ``who`` (a new game replaced the one whose join code it was), the stream says ``event:
    reload`` and ends, so it never tells the next game's secrets to the last game's player. It
    ends within :data:`~.api.POLL_S` once ``gone()`` says the client closed its connection
    (:func:`~.api.event_stream`)."""
    sent = [None]                                      # the lobby's revision last sent

    def step() -> tuple[str, bool]:
        with lob.changed:
            if _gone_role(lob, given) != who:
                return RELOAD, True
            if lob.revision == sent[0]:
                return "", False
            sent[0] = lob.revision
            view = door.lobby(lob, who)
        return f"id: {sent[0]}\nevent: lobby\ndata: {json.dumps(view, separators=(',', ':'))}\n\n", False

    return event_stream(step, lambda t: lob.wait(sent[0], t), keepalive_s, gone)


@bp.get("/lobby/stream")
def live():
    """The lobby as the caller may see it, live (Server-Sent Events, see :func:`lobby_events`).
    Every open stream holds a server thread: with the game's streams, at most ``MAX_STREAMS``
    (503 with ``Retry-After`` beyond)."""
    who, lob = role(), lobby()
    limit = current_app.config.get("MAX_STREAMS", 64)
    if not lob.open_view(limit):
        raise too_many_streams(limit)
    gone = request.environ.get("waitress.client_disconnected")
    return stream_response(lobby_events(lob, token(), who, current_app.config["KEEPALIVE_S"], gone), lob.close_view)


@bp.get("/lobby/map.svg")
def landing_map():
    """The island of the Discovery Island game waiting for its players' choices, as SVG: every
    hex a ``<polygon data-cell="col,row">``, those a landing may be chosen on (land without a
    feature, rules §5.1; any land under the ruling ``start_on_feature``, §5.11) with ``class="landable"``, for the choice form's taps. The map is public
    (the same for every role): it holds no choice. 409 in one sentence when no game waits."""
    from ..games.discovery_island.drawing import board_svg
    from ..games.discovery_island.geometry import to_offset

    with lobby().changed:
        draft = lobby().draft
    if draft is None:
        raise SessionError(409, "no_draft", "No game is waiting for the players' choices.")
    island = draft.game.island
    land = island.landing_pool(bool(draft.game.rulings.get("start_on_feature")))
    svg = board_svg(island, {}, {to_offset(*h) for h in land})
    return Response(svg, mimetype="image/svg+xml", headers={"Cache-Control": "no-store"})


@bp.get("/new/options")
def options():
    """The games, players' limits, adventurers, difficulties, colours and radii on offer."""
    return jsonify(newgame.options())


@bp.post("/new")
def create():
    """Start the game the referee's form describes (201); see :meth:`~assistant.referee.lobby.Lobby.create`."""
    return jsonify(lobby().create(body(), role())), 201


@bp.post("/new/abandon")
def abandon():
    """Abandon the Discovery Island game waiting for its players' choices; see
    :meth:`~assistant.referee.lobby.Lobby.abandon`."""
    return jsonify(lobby().abandon(role()))


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
