"""The Flask application of one refereed session (:func:`create_app`)."""

from __future__ import annotations

from typing import Any, Callable

from flask import Flask, jsonify, request
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
        status; nothing a client sends yields a 500.
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
