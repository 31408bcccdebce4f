"""The tablet pages: the referee view at ``/`` (public; with the referee token it also offers
corrections, undo, the players' join codes and a new game) and each player's private view at
``/seat/N?token=...``. The pages hold no game logic: they draw the snapshots the live stream
sends (:mod:`.api`). Before a game exists, ``/`` is the lobby (the referee's new-game form, or
"no game yet"), and a Discovery Island player's ``/seat/N`` asks for that player's secret
choices until both have chosen; ``/new`` is the referee's new-game form at any time."""

from __future__ import annotations

from flask import Blueprint, abort, render_template

from ..referee import newgame
from ..referee.session import SessionError
from .api import lobby, role

bp = Blueprint("pages", __name__, template_folder="templates", static_folder="static",
               static_url_path="/static")


def _lobby_page(who, seat: int | None = None):
    """The lobby page for ``who`` (the referee's form, a seat's choices, or the public wait)."""
    title = "New game" if who == "referee" else "Choose in secret" if seat is not None else "No game yet"
    return render_template("lobby.html", title=title, referee=who == "referee", seat=seat,
                           options=newgame.options())


@bp.get("/")
def referee():
    """The referee view (public without a token); the lobby while no game is played."""
    who = role()
    if isinstance(who, int):
        raise SessionError(403, "player_token", "A player's token opens that player's page, /seat/N.")
    s = lobby().session
    if s is None:
        return _lobby_page(who)
    return render_template("table.html", title=s.game.title, game=s.game.id, seat=None,
                           referee=who == "referee", seats=s.seats)


@bp.get("/new")
def new_game():
    """The referee's new-game form (the referee token), also while a game is played."""
    if role() != "referee":
        raise SessionError(403, "referee_only", "Only the referee token can start a new game.")
    return _lobby_page("referee")


@bp.get("/seat/<int:seat>")
def player(seat: int):
    """A player's private view; needs that player's token. While a Discovery Island game waits
    for its players' choices, it asks for this player's."""
    who = role()
    with lobby().changed:
        s, draft = lobby().session, lobby().draft
    seats = s.seats if s is not None else draft.game.seats if draft is not None else 0
    if not 0 <= seat < seats:
        abort(404)
    if who != seat:
        raise SessionError(403, "wrong_token", f"This page needs player {seat + 1}'s own token (scan the join code).")
    if s is None:
        return _lobby_page(who, seat)
    return render_template("table.html", title=s.game.title, game=s.game.id, seat=seat, referee=False,
                           seats=s.seats)
