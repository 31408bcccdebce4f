"""Secrets leave through one door: everything the server tells a role is made here.

The principle (Board Game Arena; boardgame.io's ``playerView``): what a role is told depends only
on what that role may know. Roles are the referee (the referee token: everything), a seat (that
player's token) and ``None`` (the public table view, no token); a token that is not the
session's is refused before anything is read. What a seat or the table may know is the game's
to say (:meth:`~assistant.games.base.Game.view`, ``event_view``, ``legal_view``,
``refusal_view``, ``observations``); this module applies it to every answer:

- :func:`snapshot`: the page of a role (and the live stream, which sends snapshots);
- :func:`legal`: the events a role may post, without the observations the engine fills in;
- :func:`check_post`: who may post what, judged before the position is looked at, so that a
  refused post never says anything about a secret;
- :func:`refusal`: the code and sentence a role hears for an illegal event; every wrong
  observation gets the same ones (:data:`MISMATCH`), whatever the truth is;
- :func:`notices`: warnings and questions, whose public form never carries a secret.

Observations (a tile's face, a card, a clue, a dealt die) are never taken from a player's
token: with the assistant's own decks and layouts the engine reveals them when it applies the
event (drawing what nobody holds yet with :meth:`~assistant.games.base.Game.complete`); at a
physical table the camera or the referee enters them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..games import Event, Game, MalformedError
from ..games.base import Refusal

if TYPE_CHECKING:                                       # the session imports this module
    from .session import Session

Role = int | str | None

#: What every role but the referee hears about any wrong observation, whatever the truth is.
MISMATCH = "That does not match the table."
#: The code that goes with it.
MISMATCH_CODE = "observation_conflict"


class Refused(Exception):
    """A post refused before the position is looked at: ``status`` (403), ``reason`` (a
    snake_case code) and one sentence as ``str(exc)``."""

    def __init__(self, status: int, reason: str, message: str):
        super().__init__(message)
        self.status, self.reason = status, reason


def _who(seat: Any) -> str:
    return f"player {seat + 1}" if isinstance(seat, int) else str(seat)


def strip(game: Game, state: Any, event: Event) -> Event:
    """``event`` without its observation parameters (:meth:`~assistant.games.base.Game.observations`)."""
    hidden = game.observations(state, event)
    if not any(k in hidden for k, _ in event.params):
        return event
    return Event.from_params(event.actor, event.type, {k: v for k, v in event.params if k not in hidden},
                             dict(event.extra))


def check_post(game: Game, start: Any, event: Event, role: Role) -> None:
    """Whether ``role`` may post ``event`` at all, judged from the event and the game's fixed
    set-up ``start`` only (never the position, so the answer tells no secret).

    Raises
    ------
    Refused
        403 ``not_your_event`` when a seat posts an event another seat (or only the referee)
        enters; 403 ``observation_not_yours`` when a seat gives an observation.
    """
    if role == "referee":
        return
    poster = game.poster(event)
    if poster != role:
        by = f"{_who(poster)} or the referee" if poster is not None else "the referee"
        raise Refused(403, "not_your_event", f"{_who(role).capitalize()}'s token cannot post {_who(event.actor)}'s "
                                             f"{event.type.replace('_', ' ')}: {by} enters it.")
    given = [k for k in game.observations(start, event) if event.get(k) is not None]
    if given:
        raise Refused(403, "observation_not_yours",
                      f"Leave out '{given[0]}': observations come from the table (the assistant reveals its own "
                      "decks; at a physical table the camera or the referee enters them).")


def refusal(game: Game, refused: Refusal, role: Role) -> tuple[str, str]:
    """The reason code and sentence ``role`` hears about an illegal event: the engine's own for
    the referee; for everyone else :data:`MISMATCH` for any wrong observation, else the game's
    :meth:`~assistant.games.base.Game.refusal_view`."""
    if role == "referee":
        return refused.reason, refused.message
    if refused.reason in game.observation_reasons:
        return MISMATCH_CODE, MISMATCH
    return refused.reason, game.refusal_view(refused, role if isinstance(role, int) else None)


def legal(game: Game, state: Any, start: Any, role: Role) -> list[Event]:
    """The events ``role`` may post now, as it may be offered them.

    The referee gets every legal event, a seat those it may post
    (:meth:`~assistant.games.base.Game.legal_view`), the public table what the player to move
    may post. Observations are taken out wherever the engine accepts the event without them
    (it reveals them itself): one event then stands for every outcome, and
    its listing says nothing about which. An event that still needs an observation (a physical
    deck's card) is listed whole for the referee, who enters what the table showed, and not at
    all for anyone else. Order is kept, duplicates dropped.
    """
    candidates = game.legal_events(state) if role == "referee" else game.legal_view(state, role)
    out: list[Event] = []
    seen: set[Event] = set()
    fillable: dict[Event, bool] = {}
    for event in candidates:
        bare = strip(game, state, event)
        if bare is not event and bare not in fillable:
            fillable[bare] = _fillable(game, state, start, bare)
        offer = bare if bare is event or fillable[bare] else (event if role == "referee" else None)
        if offer is not None and offer not in seen:
            seen.add(offer)
            out.append(offer)
    return out


def _fillable(game: Game, state: Any, start: Any, bare: Event) -> bool:
    """Whether the engine accepts ``bare`` in ``state`` (after drawing what it draws itself)."""
    filled = game.complete(state, bare)
    try:
        filled = game.parse_event(filled.to_json(), start)
    except MalformedError:
        return False
    return bool(game.apply(state, filled))


def notice_json(game: Game, notice: Any, role: Role) -> dict[str, Any]:
    """One notice as ``role`` may see it: whole for the referee (its fuller ``private`` sentence
    included); for the table the sentence of an illegal move passes through :func:`refusal`
    and the options (events the referee may post) are left out."""
    out = notice.to_json()
    if role == "referee":
        if notice.private:
            out["message"] = notice.private
        return out
    if notice.kind == "illegal" and notice.reason:
        out["reason"], out["message"] = refusal(game, Refusal(notice.reason, notice.message), None)
    out["options"] = []
    return out


def notices(session: "Session", role: Role) -> list[dict[str, Any]]:
    """The notices ``role``'s page shows: all of them for the referee; for the public table
    those about the table (the camera's verdicts, the devices), never a refused post (its
    answer went to whoever posted it); none on a player's page."""
    if isinstance(role, int):
        return []
    return [notice_json(session.game, n, role) for n in session.notices if role == "referee" or not n.referee_only]


def snapshot(session: "Session", role: Role) -> dict[str, Any]:
    """Everything ``role``'s page shows, as JSON (the caller holds the session's lock).

    Returns
    -------
    dict
        ``game``, ``title``, ``revision``, ``role`` (``referee``, ``player``, ``public``),
        ``seat``, ``seats``, ``result``, ``to_move``, ``view`` (the game's view for that seat;
        the public one for the table and the referee), ``board_svg`` drawn from that view,
        ``recent`` (the last events as that seat may see them), ``events``, ``can_undo``,
        ``notices`` (:func:`notices`), ``devices``, ``names`` (the players' names, public, or
        ``None``) and, for the referee only, ``tablets``
        (open live views by role: ``public``, ``referee``, ``player 1``...).
    """
    from .session import RECENT

    game, seat = session.game, role if isinstance(role, int) else None
    recent = []
    for index in range(max(0, len(session.applied) - RECENT), len(session.applied)):
        shown = game.event_view(session.applied[index].obj, seat)
        if shown is not None:
            recent.append({"index": index + 1, **shown})
    view = game.view(session.state, seat)
    out = {
        "game": game.id, "title": game.title, "revision": session.revision,
        "role": "referee" if role == "referee" else ("public" if role is None else "player"),
        "seat": seat, "seats": session.seats, "result": game.result(session.state),
        "to_move": game.to_move(session.state), "view": view,
        "board_svg": game.board_svg(session.state, view), "recent": recent,
        "events": len(session.applied), "can_undo": session.can_undo(role),
        "notices": notices(session, role), "devices": dict(session.devices),
        "names": session.header.get("names"),
    }
    if role == "referee":
        out["tablets"] = {("public" if r is None else r if r == "referee" else _who(r)): n
                          for r, n in sorted(session.tablets.items(), key=lambda kv: str(kv[0])) if n}
    return out


def lobby(lobby: Any, role: Role) -> dict[str, Any]:
    """What ``role`` is told about the server's table between games (``/api/lobby``).

    Returns
    -------
    dict
        ``state`` (``none``: no game yet; ``choosing``: a Discovery Island game waits for the
        players' secret choices; ``playing``), ``revision``, ``role`` and, for a game or draft,
        ``game``, ``title``, ``seats``, ``names`` and (while choosing) ``chosen``: whether each
        seat has chosen, as everyone at the table sees. A seat also gets the choice form's
        ``options`` and ``mine``: its own choices, or ``None``. Nobody, the referee included,
        is told another player's choices: they reach the referee only in the record, once the
        game has started. While a camera reads the opening table and no game has started
        (``serve --game G --source S`` without ``--setup``), the referee alone also gets
        ``table``: the reading, its flags and corrections
        (:meth:`~assistant.server.setup_read.TableReader.view`); for Discovery Island it names at
        most the start tile's terrain, which the table shows everyone, never a landing hex
        (:mod:`assistant.tracking.island_setup`).
    """
    from . import newgame

    out: dict[str, Any] = {"state": "none", "revision": lobby.revision,
                           "role": "referee" if role == "referee" else ("public" if role is None else "player"),
                           "seat": role if isinstance(role, int) else None}
    session, draft = lobby.session, lobby.draft
    if session is not None:
        out.update(state="playing", game=session.game.id, title=session.game.title, seats=session.seats,
                   names=session.header.get("names"), result=session.game.result(session.state))
    elif draft is not None:
        game = draft.game
        out.update(state="choosing", game=game.game_id, title=session_title(game.game_id), seats=game.seats,
                   names=list(game.names), chosen=[seat in draft.choices for seat in range(game.seats)])
        if isinstance(role, int):
            out.update(options=newgame.choice_options(game), mine=draft.choices.get(role))
    if session is None and role == "referee" and getattr(lobby, "reader", None) is not None:
        out["table"] = lobby.reader.view()
    return out


def session_title(game_id: str) -> str:
    """The title of ``game_id`` (``Forbidden Desert``...)."""
    from ..games import get_game

    return get_game(game_id).title
