"""The Flask application of one refereed session (:func:`create_app`)."""

from __future__ import annotations

from typing import Any, Callable

from flask import Flask, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from ..referee.lobby import Lobby
from ..referee.session import Session, SessionError
from . import api, lobby_api, pages
from .wsgi import MAX_BODY

#: Seconds between keep-alive comments on the live stream: a client that vanished without closing
#: its connection leaves one unacknowledged, and the kernel drops it (see :mod:`.wsgi`).
KEEPALIVE_S = 5.0
#: Seconds a client refused a live stream (503) is asked to wait before retrying.
RETRY_AFTER_S = 5


#: what a refused page adds to the refusal's sentence, by its reason (a token a new game made void
#: is the common case: the join code was of the game before)
PAGE_HINTS = {
    "unknown_token": "A new game may have replaced the one this link was for: ask the referee for this game's join code.",
    "wrong_token": "Each player's page opens with that player's own join code.",
    "player_token": "A player's join code opens that player's page; the table's public view needs no code.",
    "referee_only": "Open this page with the referee's link, printed when the server started.",
}


def refused_page(exc: SessionError) -> str:
    """The HTML page for a refused page request (not under ``/api/``): the refusal's one
    sentence, a hint by its reason (:data:`PAGE_HINTS`) and a link to the public view, in the
    app's look (``refused.html``); the caller sends it with ``exc.status``. Tells nothing the
    JSON refusal does not."""
    return render_template("refused.html", title="This page cannot open", seat=None, referee=False,
                           reason=exc.reason, message=str(exc), hint=PAGE_HINTS.get(exc.reason, ""))


def create_app(session: Session | Lobby, camera: Callable[[], bytes | None] | None = None,
               keepalive_s: float = KEEPALIVE_S, public_base: str | None = None) -> Flask:
    """The application serving ``session``.

    Parameters
    ----------
    session : Session or Lobby
        The game to serve, or the server's :class:`~assistant.referee.lobby.Lobby` (no game
        yet, or the game and the games to come); a session is served in a lobby whose new
        games' records go beside its own.
    camera : callable, optional
        Returns the newest camera panel image (JPEG bytes: the rectified board with the
        detector's overlays) or ``None`` before the first frame; without it the panel says that
        no camera is attached.
    keepalive_s : float
        Seconds between ``: keep-alive`` comments on ``/api/stream``.
    public_base : str, optional
        ``http://HOST:PORT`` that join codes carry (:func:`~.address.public_base`); default:
        the address each request came to.

    Returns
    -------
    Flask
        Every error under ``/api/`` is JSON ``{"error": CODE, "message": SENTENCE}`` with a 4xx
        status; nothing a client sends yields a 500. A page refused (a token a new game made void)
        is an HTML page in the app's look with the same sentence (:func:`refused_page`).
    """
    app = Flask(__name__)
    lobby = session if isinstance(session, Lobby) else Lobby(session, session.journal.path.parent)
    app.config.update(LOBBY=lobby, CAMERA=camera, KEEPALIVE_S=keepalive_s, JSON_SORT_KEYS=False,
                      MAX_CONTENT_LENGTH=MAX_BODY, PUBLIC_BASE=public_base)
    app.register_blueprint(api.bp)
    app.register_blueprint(lobby_api.bp)
    app.register_blueprint(pages.bp)

    @app.errorhandler(SessionError)
    def _refused(exc: SessionError):
        headers = {"Retry-After": str(RETRY_AFTER_S)} if exc.status == 503 else {}
        if not request.path.startswith("/api/"):             # a page: a page in the app's look
            return refused_page(exc), exc.status, headers
        return jsonify(error=exc.reason, message=str(exc)), exc.status, headers

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException):
        if request.path.startswith("/api/"):
            sentence = {404: "There is no such API route; see /api/openapi.json.",
                        405: "That method is not allowed on this route; see /api/openapi.json.",
                        413: f"The request body is larger than the {MAX_BODY // 1024} KiB allowed."}.get(
                exc.code, (exc.description or exc.name).split("\n")[0])
            return jsonify(error=exc.name.lower().replace(" ", "_"), message=sentence), exc.code
        return exc

    @app.after_request
    def _no_sniff(response: Any):
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")      # tokens stay out of Referer
        return response

    return app
