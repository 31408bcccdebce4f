"""The tablet pages: the referee view at ``/`` (public; with the referee token it also offers
corrections, undo and the players' join codes) and each player's private view at
``/seat/N?token=...``. The pages hold no game logic: they draw the snapshots the live stream
sends (:mod:`.api`)."""

from __future__ import annotations

from flask import Blueprint, abort, render_template

from ..referee.session import SessionError
from .api import role, session

bp = Blueprint("pages", __name__, template_folder="templates", static_folder="static",
               static_url_path="/static")


@bp.get("/")
def referee():
    """The referee view (public without a token)."""
    who = role()
    if isinstance(who, int):
        raise SessionError(403, "player_token", "A player's token opens that player's page, /seat/N.")
    s = session()
    return render_template("table.html", title=s.game.title, game=s.game.id, seat=None,
                           referee=who == "referee", seats=s.seats)


@bp.get("/seat/<int:seat>")
def player(seat: int):
    """A player's private view; needs that player's token."""
    s = session()
    if not 0 <= seat < s.seats:
        abort(404)
    if role() != seat:
        raise SessionError(403, "wrong_token", f"This page needs player {seat + 1}'s own token (scan the join code).")
    return render_template("table.html", title=s.game.title, game=s.game.id, seat=seat, referee=False,
                           seats=s.seats)
