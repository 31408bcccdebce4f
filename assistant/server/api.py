"""The JSON API and the live stream (Server-Sent Events) of one session.

Who is asking is told by a token: ``Authorization: Bearer TOKEN`` or ``?token=TOKEN`` (the
browser's ``EventSource`` cannot send headers). No token is the public table view; a seat's
token is that player's private view; the referee token may post corrections and undo. The token
is checked before anything else, the body included; what a response contains is made by
:mod:`assistant.referee.door` for that role (snapshots, legal events, refusals), so a player's
token never reads another player's secret.

Hostile bodies: at most :data:`~.wsgi.MAX_BODY` bytes (413 beyond), JSON nested at most
:data:`MAX_DEPTH` levels (400 beyond: Python's parser would recurse until it fails), no
``NaN``/``Infinity``.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any, Callable, Iterator

from flask import Blueprint, Response, current_app, g, jsonify, request, stream_with_context

from ..referee.lobby import Lobby
from ..referee.session import Role, Session, SessionError
from .openapi import document

bp = Blueprint("api", __name__, url_prefix="/api")

#: At most this many legal events are listed (a Scout Pennant board can offer thousands of builds).
LEGAL_LIMIT = 300
#: Deepest nesting of arrays and objects accepted in a request body (an event needs 4).
MAX_DEPTH = 32
#: Seconds between two looks at whether a live stream's client has gone.
POLL_S = 1.0

_STRINGS = re.compile(rb'"(?:[^"\\]|\\.)*"')
_NOT_BRACKETS = bytes(sorted(set(range(256)) - set(b"[]{}")))


def lobby() -> Lobby:
    """The server's table: the game being played, one waiting for choices, or none yet."""
    return current_app.config["LOBBY"]


def session() -> Session:
    """The game this application serves now (the same one for the whole request).

    Raises
    ------
    SessionError
        409 ``no_game`` before the referee has started a game.
    """
    if "session" not in g:
        g.session = lobby().session
    if g.session is None:
        raise SessionError(409, "no_game", "No game is being played yet: the referee starts one on the referee view.")
    return g.session


def token() -> str | None:
    """The request's token (``Authorization: Bearer`` first, then ``?token=``), or ``None``."""
    auth = request.headers.get("Authorization", "")
    if auth.startswith("Bearer "):
        return auth[7:].strip() or None
    return request.args.get("token") or None


def role() -> Role:
    """The caller's role; raises :class:`SessionError` (403) for a foreign token."""
    if "role" not in g:
        g.role = lobby().role_of(token())
    return g.role


@bp.before_request
def token_first() -> None:
    """The token is checked before the body is read: a foreign token gets 403, and the public
    view may not post at all."""
    if role() is None and request.method not in ("GET", "HEAD", "OPTIONS"):
        raise SessionError(403, "read_only", "The public view cannot change anything; use a player or referee token.")


def nesting(raw: bytes) -> int:
    """How deep arrays and objects nest in the JSON text ``raw`` (brackets inside strings do not
    count). Linear in ``len(raw)``, with no recursion."""
    depth = deepest = 0
    for ch in _STRINGS.sub(b'""', raw).translate(None, _NOT_BRACKETS):
        depth += 1 if ch in b"[{" else -1
        deepest = max(deepest, depth)
    return deepest


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def body() -> Any:
    """The request's JSON body.

    Raises
    ------
    SessionError
        400 ``not_json`` when it is not JSON (or not sent as ``application/json``), 400
        ``too_deep`` when it nests deeper than :data:`MAX_DEPTH`.
    RequestEntityTooLarge
        413 when it is longer than ``MAX_CONTENT_LENGTH`` (answered as JSON by the app).
    """
    if not request.is_json:
        raise SessionError(400, "not_json", "The request body must be JSON (Content-Type: application/json).")
    raw = request.get_data(cache=True)
    if nesting(raw) > MAX_DEPTH:
        raise SessionError(400, "too_deep", f"The request body nests deeper than {MAX_DEPTH} levels.")
    try:
        return json.loads(raw, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        raise SessionError(400, "not_json", "The request body must be JSON (Content-Type: application/json).") from None


@bp.get("/snapshot")
def snapshot():
    """What the caller's page shows now (see ``Session.snapshot``)."""
    return jsonify(session().snapshot(role()))


@bp.get("/legal")
def legal():
    """The events the caller may post now, as :func:`assistant.referee.door.legal` offers them
    (the public table reads what the player to move may post)."""
    mine = [e.to_json() for e in session().legal(role())]
    return jsonify(events=mine[:LEGAL_LIMIT], total=len(mine), truncated=len(mine) > LEGAL_LIMIT)


@bp.post("/events")
def post_event():
    """Apply one event (a move entered on the tablet, or a referee's correction)."""
    result = session().submit(body(), role())
    return jsonify(result), 201


@bp.post("/setup")
def amend_setup():
    """Change the set-up before the first event (who may change what: the game decides)."""
    return jsonify(session().amend_setup(body(), role()))


@bp.post("/reread")
def reread():
    """Ask the camera to look again at some cells (referee token): ``{"cells": [[r, c], ...]}``."""
    data = body()
    return jsonify(session().request_reread(data.get("cells") if isinstance(data, dict) else None, role()))


@bp.post("/check")
def check():
    """Check the whole table against the game at the camera's next still frame (referee token);
    the corrections and questions come as referee-only notices; a request while a check runs is
    answered by it (``Session.request_check``). 409 without a camera."""
    s = session()
    if role() != "referee":
        raise SessionError(403, "referee_only", "Only the referee token can ask for a check of the table.")
    if current_app.config.get("CAMERA") is None:
        raise SessionError(409, "no_camera", "No camera follows this table: there is nothing to check it with.")
    return jsonify(s.request_check(role())), 202


@bp.post("/undo")
def undo():
    """Take back the last event (Board Game Arena's rule; see ``Session.can_undo``)."""
    return jsonify(session().undo(role()))


@bp.post("/notices/<int:notice_id>/dismiss")
def dismiss(notice_id: int):
    """Remove a warning or question from the referee view (referee token)."""
    if role() != "referee":
        raise SessionError(403, "referee_only", "Only the referee token can dismiss notices.")
    session().dismiss(notice_id)
    return jsonify(ok=True)


@bp.get("/record")
def record():
    """The session's record as written so far (referee token: it holds every secret)."""
    if role() != "referee":
        raise SessionError(403, "referee_only", "The record holds every player's secrets; it needs the referee token.")
    s = session()
    name = f"{s.game.id}-{s.journal.path.stem}.jsonl"
    return Response(s.record_text(), mimetype="application/x-ndjson",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


@bp.get("/join/<int:seat>.svg")
def join(seat: int):
    """A QR code (SVG) of the seat's private page, for the player's tablet (referee token); its
    ``<desc>`` holds the link as text."""
    if role() != "referee":
        raise SessionError(403, "referee_only", "Join codes carry a player's token; they need the referee token.")
    tokens = lobby().tokens()
    seats = len(tokens) - 1
    if not 0 <= seat < seats:
        raise SessionError(404, "no_such_seat", f"There is no seat {seat}; seats are 0 to {seats - 1}."
                           if seats else "There is no game yet, so no seat to join.")
    import io

    import segno

    url = f"{join_base()}/seat/{seat}?token={tokens[str(seat)]}"
    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", scale=6, border=2, title=f"Join as player {seat + 1}", desc=url)
    return Response(out.getvalue(), mimetype="image/svg+xml", headers={"Cache-Control": "no-store"})


def join_base() -> str:
    """The base URL join codes carry (``http://HOST:PORT``, no trailing slash): the address the
    referee's device reached this server at, when that is not loopback (that device is on the
    players' network: with a VPN or a second interface the machine's guessed LAN address may
    not be); else ``PUBLIC_BASE`` (:func:`~.address.public_base`, the LAN address of a server
    listening beyond this machine); else the request's address (a loopback server: only this
    machine reaches it)."""
    from urllib.parse import urlsplit

    from .address import EVERYWHERE, is_loopback

    asked = request.host_url.rstrip("/")
    host = urlsplit(asked).hostname or ""
    if host not in EVERYWHERE and not is_loopback(host):
        return asked
    return current_app.config.get("PUBLIC_BASE") or asked


@bp.get("/camera.jpg")
def camera():
    """The newest camera panel image (rectified board with the detector's overlays)."""
    grab = current_app.config.get("CAMERA")
    frame = grab() if grab else None
    if frame is None:
        raise SessionError(404, "no_camera", "No camera frame yet: the server runs without a source or the source has not delivered.")
    return Response(frame, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


def too_many_streams(limit: int) -> SessionError:
    """The refusal (503) of a live stream beyond ``limit`` open ones, in one sentence."""
    return SessionError(503, "too_many_streams", f"{limit} live views are open already; close a tab, or wait: "
                                                 "the page retries by itself.")


def event_stream(step: Callable[[], tuple[str, bool]], wait: Callable[[float], Any], keepalive_s: float,
                 gone: Callable[[], bool] | None = None) -> Iterator[str]:
    """A live stream's messages: ``step()`` gives ``(message, last)``, the next whole message to
    send (``""`` when nothing changed) and whether the stream ends after it; when nothing
    changed, a ``: keep-alive`` comment is due after ``keepalive_s`` seconds of quiet, else
    ``wait(seconds)`` blocks until something may have changed. The stream ends within
    :data:`POLL_S` once ``gone()`` says the client closed its connection."""
    sent = time.monotonic()
    while True:
        message, last = step()
        if message:
            yield message
            sent = time.monotonic()
            if last:
                return
            continue
        left = keepalive_s - (time.monotonic() - sent)
        if left <= 0:
            yield ": keep-alive\n\n"
            sent = time.monotonic()
            continue
        wait(min(left, POLL_S) if gone is not None else left)
        if gone is not None and gone():
            return


#: the message that tells a page to reload (its game was replaced, or its token made void)
RELOAD = "event: reload\ndata: {}\n\n"


def _events(s: Session, who: Role, keepalive_s: float, gone: Callable[[], bool] | None = None) -> Iterator[str]:
    """The stream: a full snapshot at once, then one after each change, and a ``: keep-alive``
    comment after ``keepalive_s`` seconds of quiet; it ends within :data:`POLL_S` once ``gone()``
    says the client closed its connection (:func:`event_stream`)."""
    seen = [(-1, None)]                                # (revision, live views) last sent
    watch_views = who == "referee"                     # the referee's page counts the live views

    def step() -> tuple[str, bool]:
        if s.retired:                                  # another game replaced this one: the page reloads
            return RELOAD, True
        now = (s.revision, s.views if watch_views else None)
        if now == seen[0]:
            return "", False
        seen[0] = now
        snap = s.snapshot(who)
        return f"id: {snap['revision']}\nevent: snapshot\ndata: {json.dumps(snap, separators=(',', ':'))}\n\n", False

    return event_stream(step, lambda t: s.wait(seen[0][0], t, seen[0][1]), keepalive_s, gone)


def stream_response(events: Iterator[str], release: Callable[[], None]) -> Response:
    """The ``text/event-stream`` response of ``events`` (not cached, not buffered by a proxy);
    ``release()`` is called once when the server closes it, read or not (a ``HEAD``, a gone client)."""
    response = Response(stream_with_context(events), mimetype="text/event-stream",
                        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
    closed: list[bool] = []

    def once() -> None:
        if not closed:
            closed.append(True)
            release()

    response.call_on_close(once)
    return response


@bp.get("/stream")
def stream():
    """Server-Sent Events for the caller's role (``event: snapshot``, JSON data). Each open
    stream holds a server thread, so at most ``MAX_STREAMS`` are served (503 with
    ``Retry-After`` beyond); a stream's slot is freed as soon as its client is gone."""
    who = role()
    s = session()
    keepalive_s = current_app.config["KEEPALIVE_S"]
    limit = current_app.config.get("MAX_STREAMS", 64)
    if not s.open_view(who, limit - lobby().views):       # the lobby's live streams hold threads too
        raise too_many_streams(limit)
    gone = request.environ.get("waitress.client_disconnected")
    return stream_response(_events(s, who, keepalive_s, gone), lambda: s.close_view(who))


@bp.get("/openapi.json")
def openapi():
    """The OpenAPI 3.1 description of this API."""
    return jsonify(document())
