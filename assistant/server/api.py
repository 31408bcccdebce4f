"""The JSON API and the live stream (Server-Sent Events) of one session.

Who is asking is told by a token: ``Authorization: Bearer TOKEN`` or ``?token=TOKEN`` (the
browser's ``EventSource`` cannot send headers). No token is the public table view; a seat's
token is that player's private view; the referee token may post corrections and undo. What a
response contains is always :meth:`~assistant.referee.session.Session.snapshot` for that role,
so a player's token never reads another player's secret.
"""

from __future__ import annotations

import json
import threading
from typing import Any, Iterator

from flask import Blueprint, Response, current_app, jsonify, request, stream_with_context

from ..referee.session import Role, Session, SessionError
from .openapi import document

bp = Blueprint("api", __name__, url_prefix="/api")

#: At most this many legal events are listed (a Scout Pennant board can offer thousands of builds).
LEGAL_LIMIT = 300


def session() -> Session:
    """The session this application serves."""
    return current_app.config["SESSION"]


def token() -> str | None:
    """The request's token (``Authorization: Bearer`` first, then ``?token=``), or ``None``."""
    auth = request.headers.get("Authorization", "")
    if auth.startswith("Bearer "):
        return auth[7:].strip() or None
    return request.args.get("token") or None


def role() -> Role:
    """The caller's role; raises :class:`SessionError` (403) for a foreign token."""
    return session().role_of(token())


def body() -> Any:
    """The request's JSON body. Raises :class:`SessionError` (400) when it is not JSON."""
    data = request.get_json(silent=True)
    if data is None:
        raise SessionError(400, "not_json", "The request body must be a JSON object (Content-Type: application/json).")
    return data


@bp.get("/snapshot")
def snapshot():
    """What the caller's page shows now (see ``Session.snapshot``)."""
    return jsonify(session().snapshot(role()))


@bp.get("/legal")
def legal():
    """The events the caller may post now: its own seat's legal events (as the game lets it see
    them); everything for the referee; for the public table, what the player to move may do."""
    who = role()
    s = session()
    with s.changed:
        if who == "referee":
            events = s.game.legal_events(s.state)
        elif who is None:                              # the table sees what the player to move may do
            mover = s.game.to_move(s.state)
            events = s.game.legal_view(s.state, mover) if isinstance(mover, int) else []
        else:                                          # the game hides what would tell a secret
            events = s.game.legal_view(s.state, who)
    mine = [e.to_json() for e in events]
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
    """A QR code (SVG) of the seat's private page, for the player's tablet (referee token)."""
    if role() != "referee":
        raise SessionError(403, "referee_only", "Join codes carry a player's token; they need the referee token.")
    s = session()
    if not 0 <= seat < s.seats:
        raise SessionError(404, "no_such_seat", f"There is no seat {seat}; seats are 0 to {s.seats - 1}.")
    import io

    import segno

    url = f"{request.host_url}seat/{seat}?token={s.tokens[str(seat)]}"
    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", scale=6, border=2, title=f"Join as player {seat + 1}")
    return Response(out.getvalue(), mimetype="image/svg+xml", headers={"Cache-Control": "no-store"})


@bp.get("/camera.jpg")
def camera():
    """The newest camera panel image (rectified board with the detector's overlays)."""
    grab = current_app.config.get("CAMERA")
    frame = grab() if grab else None
    if frame is None:
        raise SessionError(404, "no_camera", "No camera frame yet: the server runs without a source or the source has not delivered.")
    return Response(frame, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


def _events(s: Session, who: Role, keepalive_s: float) -> Iterator[str]:
    """The stream: a full snapshot at once, then one after each change, and a ``: keep-alive``
    comment after ``keepalive_s`` seconds of quiet."""
    revision = -1
    while True:
        now = s.revision
        if now != revision:
            revision = now
            snap = s.snapshot(who)
            yield f"id: {snap['revision']}\nevent: snapshot\ndata: {json.dumps(snap, separators=(',', ':'))}\n\n"
            continue
        if s.wait(revision, keepalive_s) == revision:
            yield ": keep-alive\n\n"


_open_streams = {"count": 0}
_streams_lock = threading.Lock()


@bp.get("/stream")
def stream():
    """Server-Sent Events for the caller's role (``event: snapshot``, JSON data). Each open
    stream holds a server thread, so at most ``MAX_STREAMS`` are served (503 beyond)."""
    who = role()
    s = session()
    keepalive_s = current_app.config["KEEPALIVE_S"]
    limit = current_app.config.get("MAX_STREAMS", 64)
    with _streams_lock:
        if _open_streams["count"] >= limit:
            raise SessionError(503, "too_many_streams", f"{limit} live views are open already; close a tab and retry.")
        _open_streams["count"] += 1

    def counted():
        try:
            yield from _events(s, who, keepalive_s)
        finally:
            with _streams_lock:
                _open_streams["count"] -= 1

    return Response(stream_with_context(counted()), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


@bp.get("/openapi.json")
def openapi():
    """The OpenAPI 3.1 description of this API."""
    return jsonify(document())
