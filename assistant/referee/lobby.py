"""The server's table between games: the game being refereed (a :class:`~.session.Session`, or
none yet), a Discovery Island game waiting for its players' secret choices (a :class:`Draft`),
and the referee token, which stays the same from game to game.

``assistant serve`` without ``--game`` starts with no game: the referee creates one on the
referee view (:meth:`Lobby.create`). Forbidden Desert and Scout Pennant start at once; Discovery
Island first waits for each player to choose, on their own device, their equipment and where
the opponent lands (:meth:`Lobby.choose`), and starts when both have; the referee may abandon it
meanwhile (:meth:`Lobby.abandon`). A new game may replace an
ended one, or, confirmed, one in progress; the old record stays as written and the new game gets
its own. What each role is told about all this is made by :func:`.door.lobby`, on ``/api/lobby``
and its live stream (:meth:`Lobby.wait` wakes the stream at every change).
"""

from __future__ import annotations

import random
import secrets
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..games import MalformedError
from . import newgame
from .door import session_title
from .session import Role, Session, SessionError


@dataclass
class Draft:
    """A Discovery Island game created by the referee, waiting for both players' secret
    choices: ``tokens`` are the session's to be (the join codes hand them out now), ``choices``
    maps a seat to what it chose (:func:`.newgame.read_choice`)."""

    game: newgame.NewGame
    tokens: dict[str, str]
    record: Path
    choices: dict[int, dict[str, Any]] = field(default_factory=dict)
    #: the game starts from the table the camera read, once the referee confirms it
    from_table: bool = False
    #: the whole set-up once both have chosen (a game read from the table waits for the referee)
    setup: dict[str, Any] | None = None


def _refused(exc: newgame.FormError) -> SessionError:
    return SessionError(400, "bad_field", str(exc))


class Lobby:
    """What the server serves: the current session, a draft, or nothing yet.

    Parameters
    ----------
    session : Session, optional
        A game already started (``serve --game`` or ``--resume``); its referee token becomes
        the server's.
    record_dir : str or Path
        Where records of games made on the tablet go (``GAME-YYYYmmdd-HHMMSS.jsonl``).
    first_record : str or Path, optional
        The record of the first game made on the tablet (``serve --record PATH``).
    fixed : str, optional
        When set, new games are refused with this sentence (a camera or LED board follows the
        game the server was started with).
    rng : random.Random, optional
        Deals what the assistant deals (default: seeded by the system).
    reader : TableReader, optional
        The camera reading the opening table (``serve --game G --source S`` without
        ``--setup``, :class:`~assistant.server.setup_read.TableReader`): the first game starts
        from the table the referee confirmed (:meth:`start_from_table`), not from a random deal.
    """

    def __init__(self, session: Session | None = None, record_dir: str | Path = "games",
                 first_record: str | Path | None = None, fixed: str | None = None,
                 rng: random.Random | None = None, reader: Any = None):
        self.session, self.draft, self.reader = session, None, reader
        self.referee_token = session.tokens["referee"] if session else secrets.token_urlsafe(16)
        self.record_dir, self.first_record, self.fixed = Path(record_dir), first_record, fixed
        #: the record path given (``serve --record``): an abandoned game gives it back
        self.given_record = None if first_record is None else Path(first_record)
        self.rng = rng or random.Random()
        self.changed = threading.Condition(threading.RLock())
        #: bumped at every change of the lobby (a game made, a choice made, a game started, the
        #: table read or corrected)
        self.revision = 0
        #: open live streams of the lobby (``/api/lobby/stream``); see :meth:`open_view`
        self.views = 0
        if reader is not None:                         # a new reading reaches the pages at once
            reader.on_change = self.touch

    # -- who is asking --------------------------------------------------------------------------

    def tokens(self) -> dict[str, str]:
        """The tokens in use now: the session's, the draft's, or the referee's alone."""
        with self.changed:
            if self.session is not None:
                return self.session.tokens
            if self.draft is not None:
                return self.draft.tokens
            return {"referee": self.referee_token}

    def role_of(self, token: str | None) -> Role:
        """The role ``token`` grants now (``"referee"``, a seat, ``None`` without a token).

        Raises
        ------
        SessionError
            403 for a token that is not in use (a replaced game's player token included).
        """
        with self.changed:
            if self.session is not None:
                return self.session.role_of(token)
        if not token:
            return None
        given = token.encode("utf-8", "surrogateescape")
        for name, value in self.tokens().items():
            if secrets.compare_digest(value.encode("ascii"), given):
                return "referee" if name == "referee" else int(name)
        raise SessionError(403, "unknown_token", "That token is not one of this game's.")

    # -- making games -----------------------------------------------------------------------------

    def _record(self, game_id: str) -> Path:
        if self.first_record is not None:
            path, self.first_record = Path(self.first_record), None
            return path
        stem = f"{game_id}-{time.strftime('%Y%m%d-%H%M%S')}"
        path, k = self.record_dir / f"{stem}.jsonl", 1
        while path.exists():
            k += 1
            path = self.record_dir / f"{stem}-{k}.jsonl"
        return path

    def create(self, form: Any, role: Role) -> dict[str, Any]:
        """Make the game the referee's ``form`` asks for (:func:`.newgame.read_form`).

        A game in progress (or a draft) is replaced only when the form says ``"replace":
        true``; an ended game is replaced without it. Returns ``{"state": "playing"}`` for a
        game that started, ``{"state": "choosing"}`` for Discovery Island.

        Raises
        ------
        SessionError
            403 unless the referee asks or when new games are refused (:attr:`fixed`); 400
            ``bad_field`` with the field's sentence; 409 ``game_in_progress`` without
            ``replace``; 503 ``record_unwritable`` when the record cannot be written.
        """
        if role != "referee":
            raise SessionError(403, "referee_only", "Only the referee token can start a new game.")
        if self.fixed:
            raise SessionError(409, "game_fixed", self.fixed)
        if self.reader is not None:
            raise SessionError(409, "read_from_table", "The camera reads this game's set-up from the table: "
                                                       "check the reading and start the game from it.")
        try:
            new = newgame.read_form(form, self.rng)
        except newgame.FormError as exc:
            raise _refused(exc) from None
        with self.changed:
            busy = self.draft is not None or (self.session is not None and self.session.game.result(
                self.session.state) == "ongoing")
            if busy and form.get("replace") is not True:
                raise SessionError(409, "game_in_progress", "A game is in progress: confirm to replace it "
                                                            "(its record is kept).")
            tokens = {"referee": self.referee_token, **{str(s): secrets.token_urlsafe(16) for s in range(new.seats)}}
            record = self._record(new.game_id)
            if new.secret:
                self._retire()
                self.draft = Draft(new, tokens, record)
                self._bump()
                return {"state": "choosing"}
            self._start(new.game_id, new.setup, new.names, tokens, record, new.rulings)
            return {"state": "playing"}

    def _start(self, game_id: str, setup: dict[str, Any], names: list[str], tokens: dict[str, str],
               record: Path, rulings: dict[str, Any] | None = None) -> None:
        """Start the session (the caller holds the lock) under ``rulings`` (the header's; None or
        empty: the rules' defaults); the old one is retired only once the new one's record is
        written."""
        try:
            record.parent.mkdir(parents=True, exist_ok=True)
            session = Session.start(game_id, setup, rulings or None, record, tokens=tokens, names=names)
        except MalformedError as exc:                  # the form's checks make this unreachable
            raise SessionError(400, "bad_setup", f"That set-up is invalid: {exc}.") from None
        except OSError as exc:
            raise SessionError(503, "record_unwritable", f"The record cannot be written in {record.parent} "
                                                         f"({exc.strerror or exc}).") from None
        self._retire()
        self.session, self.draft = session, None
        self._bump()

    def _retire(self) -> None:
        if self.session is not None:
            self.session.retire()
        self.session = self.draft = None

    def _bump(self) -> None:
        self.revision += 1
        self.changed.notify_all()

    # -- the live stream of the lobby -------------------------------------------------------------

    def touch(self) -> None:
        """Say that what the lobby shows changed (the camera read the table): bumps
        :attr:`revision` and wakes the live streams (:meth:`wait`)."""
        with self.changed:
            self._bump()

    def wait(self, revision: int, timeout: float) -> int:
        """Block until :attr:`revision` differs from ``revision`` or ``timeout`` seconds pass;
        returns the current revision."""
        with self.changed:
            self.changed.wait_for(lambda: self.revision != revision, timeout)
            return self.revision

    def open_view(self, limit: int) -> bool:
        """Count one more live stream of the lobby, unless ``limit`` live streams are open
        already, the game's (:meth:`~.session.Session.open_view`) and the lobby's together (each
        holds a server thread); returns whether it was counted (:meth:`close_view` releases it)."""
        with self.changed:
            game = self.session.live_views() if self.session is not None else 0
            if self.views + game >= limit:
                return False
            self.views += 1
            return True

    def close_view(self) -> None:
        """A live stream of the lobby has ended."""
        with self.changed:
            self.views = max(0, self.views - 1)

    def choose(self, choice: Any, role: Role) -> dict[str, Any]:
        """A Discovery Island player's secret choices (:func:`.newgame.read_choice`), made on
        that player's own device; may be changed until both have chosen, and the game starts
        when both have. A game read from the table (``serve --source``) waits for the referee
        instead (:meth:`start_from_table`), and the choices may be changed until it starts.
        Returns ``{"state": "choosing" | "chosen" | "playing"}``.

        Raises
        ------
        SessionError
            409 ``no_draft`` when no game waits for choices; 403 unless a seat's token asks; 400
            ``bad_field`` with a sentence about the seat's own input only.
        """
        with self.changed:
            draft = self.draft
            if draft is None:
                raise SessionError(409, "no_draft", "No game is waiting for the players' choices.")
        if not isinstance(role, int):
            raise SessionError(403, "players_only", "Each player makes these choices on their own device, "
                                                    "with their own join code.")
        try:
            mine = newgame.read_choice(draft.game, role, choice)
        except newgame.FormError as exc:
            raise _refused(exc) from None
        with self.changed:
            if self.draft is not draft:
                raise SessionError(409, "no_draft", "No game is waiting for the players' choices.")
            draft.choices[role] = mine
            if len(draft.choices) < draft.game.seats:
                self._bump()
                return {"state": "choosing"}
            setup = newgame.full_setup(draft.game, draft.choices, self.rng)
            if draft.from_table:                      # the referee starts it once the table is confirmed
                draft.setup = setup
                try:
                    self.reader.set_context(self.reader.kit.context(setup, draft.game.rulings))
                except (MalformedError, ValueError):   # the start says why, to the referee
                    self.reader.set_context(None)
                self._bump()
                return {"state": "chosen"}
            try:
                self._start(draft.game.game_id, setup, draft.game.names, draft.tokens, draft.record,
                            draft.game.rulings)
            except SessionError as exc:                # never the set-up's words: they hold both secrets
                del draft.choices[role]
                raise SessionError(exc.status, exc.reason, "The game could not start; the referee's view "
                                                           "shows why, and your choices may be made again.") from None
            return {"state": "playing"}

    def abandon(self, role: Role) -> dict[str, Any]:
        """Abandon the Discovery Island game waiting for its players' choices (the referee's
        "Abandon this game"): the choices made are dropped unseen, its join codes stop working,
        nothing was recorded (its record path, when ``serve --record`` gave it, goes to the
        next game). The only way to replace such a game while the camera reads the table
        (:meth:`create` is refused there); elsewhere a new game may also replace it. Returns
        ``{"state": "none"}``.

        Raises
        ------
        SessionError
            403 unless the referee asks; 409 ``no_draft`` when no game waits for choices.
        """
        if role != "referee":
            raise SessionError(403, "referee_only", "Only the referee token can abandon a game.")
        with self.changed:
            draft = self.draft
            if draft is None:
                raise SessionError(409, "no_draft", "No game is waiting for the players' choices.")
            self.draft = None
            if self.given_record is not None and draft.record == self.given_record:
                self.first_record = draft.record
            if self.reader is not None:                # the table is checked against no set-up again
                self.reader.set_context(None)
            self._bump()
        return {"state": "none"}

    # -- a game started from the table the camera read ----------------------------------------------

    def _reader(self, role: Role) -> Any:
        if role != "referee":
            raise SessionError(403, "referee_only", "Only the referee token can set up the game from the table.")
        if self.reader is None:
            raise SessionError(409, "no_camera", "No camera reads the table here: start the game from the form.")
        with self.changed:
            if self.session is not None:
                raise SessionError(409, "game_fixed", "The game read from the table has started; the camera follows it.")
        return self.reader

    def read_table_again(self, role: Role) -> dict[str, Any]:
        """Ask the camera to read the opening table again at its next still moment (the
        referee's "Read again"); returns ``{"queued": True}``.

        Raises
        ------
        SessionError
            403 unless the referee asks; 409 without a camera or once the game has started.
        """
        self._reader(role).read_again()
        with self.changed:
            self._bump()
        return {"queued": True}

    def correct_table(self, body: Any, role: Role) -> dict[str, Any]:
        """The referee's correction of one slot of the reading: ``body`` is ``{"cell": [...],
        "kind": str, "label": str}``, e.g. ``{"cell": [2, 2], "kind": "face", "label":
        "storm"}`` (the kinds and labels are the game's kit's; see
        :meth:`~assistant.server.setup_read.TableReader.correct`). Returns the reader's view.

        Raises
        ------
        SessionError
            403/409 as :meth:`read_table_again`; 400 ``bad_field`` with the correction's sentence.
        """
        from ..tracking.opening import CorrectionError

        reader = self._reader(role)
        if not isinstance(body, dict):
            raise SessionError(400, "bad_field", "The correction must be a JSON object.")
        try:
            reader.correct(body.get("cell"), body.get("kind"), body.get("label"))
        except CorrectionError as exc:
            raise SessionError(400, "bad_field", str(exc)) from None
        with self.changed:
            self._bump()
        return reader.view()

    def start_from_table(self, form: Any, role: Role) -> dict[str, Any]:
        """Start the game on the table the camera read, as corrected: the players and the game's
        choices from the referee's ``form`` (:func:`.newgame.read_form`), checked against the
        table by the reader's kit (:meth:`~assistant.tracking.opening.OpeningKit.flags`: Forbidden
        Desert's layout, storm and sand come from the table,
        :func:`~assistant.tracking.desert_setup.setup_from_reading`; Scout Pennant's table must
        show the form's set-up). Discovery Island first waits for the players' secret choices:
        the first call makes the game (``{"state": "choosing"}``), a call once both have chosen
        starts it. The camera's live loop then follows the game. Returns ``{"state":
        "playing"}``.

        Raises
        ------
        SessionError
            403/409 as :meth:`read_table_again`; 409 ``not_read`` before the first reading; 409
            ``choices_pending`` while a Discovery Island player has not chosen; 409
            ``read_again`` (``choices_changed``) when the table was read anew (a player chose
            again) while the start was being checked; 400
            ``bad_field`` for the form; 400 ``bad_table`` with the first rule the table still
            breaks, or when the engine refuses it; 503 ``record_unwritable``.
        """
        reader = self._reader(role)
        kit = reader.kit
        if isinstance(form, dict) and form.get("game") != kit.game_id:
            raise SessionError(400, "bad_field", f"The camera reads a {session_title(kit.game_id)} table: "
                                                 "choose that game.")
        with self.changed:
            draft = self.draft if kit.secret else None
            chosen = draft.setup if draft is not None else None
        if draft is None:
            try:
                new = newgame.read_form(form, self.rng)
            except newgame.FormError as exc:
                raise _refused(exc) from None
            setup, names, seats, rulings = new.setup, new.names, new.seats, new.rulings
            if kit.secret:                             # the players choose in secret first
                return self._draft_for_table(new)
        elif chosen is None:
            raise SessionError(409, "choices_pending", "The players have not both made their secret choices yet.")
        else:
            setup, names, seats, rulings = chosen, draft.game.names, draft.game.seats, draft.game.rulings
        try:
            context = kit.context(setup, rulings)
        except MalformedError:                         # the lobby's checks make this unreachable; never
            raise SessionError(400, "bad_setup",       # the engine's words: they may name a secret choice
                               "The game's set-up is not one the rules accept.") from None
        except ValueError as exc:
            raise SessionError(400, "bad_field", str(exc)) from None
        look = reader.confirmable(context)
        if look is None:
            raise SessionError(409, "not_read", "The table has not been read yet: keep it still a moment.")
        revision, labels, flags = look
        broken = [f for f in flags if f.kind == "rules"]
        if broken:
            more = f" ({len(broken) - 1} more cell(s) flagged)" if len(broken) > 1 else ""
            raise SessionError(400, "bad_table", f"{broken[0].reason.rstrip('.')}{more}: correct the table or "
                                                 "the reading first.")
        try:
            setup = kit.setup_of(labels, setup)
        except ValueError as exc:
            raise SessionError(400, "bad_table", f"The table cannot start the game: {exc}.") from None
        with self.changed:
            if self.session is not None:
                raise SessionError(409, "game_fixed", "The game read from the table has started; the camera follows it.")
            if reader.revision != revision:
                raise SessionError(409, "read_again", "The table was read again meanwhile: check the new reading.")
            if draft is not None:
                if self.draft is not draft:
                    raise SessionError(409, "no_draft", "No game is waiting for the players' choices.")
                if draft.setup is not chosen:
                    raise SessionError(409, "choices_changed", "A player changed their choices meanwhile: check "
                                                               "the table again and start.")
                tokens, record = draft.tokens, draft.record
            else:
                tokens = {"referee": self.referee_token, **{str(s): secrets.token_urlsafe(16) for s in range(seats)}}
                record = self._record(kit.game_id)
            self._start(kit.game_id, setup, names, tokens, record, rulings)
            reader.follow(self.session)
        return {"state": "playing"}

    def _draft_for_table(self, new: newgame.NewGame) -> dict[str, Any]:
        """Make the Discovery Island game read from the table wait for its players' choices."""
        with self.changed:
            if self.session is not None:
                raise SessionError(409, "game_fixed", "The game read from the table has started; the camera follows it.")
            tokens = {"referee": self.referee_token, **{str(s): secrets.token_urlsafe(16) for s in range(new.seats)}}
            self.draft = Draft(new, tokens, self._record(new.game_id), from_table=True)
            self._bump()
        return {"state": "choosing"}
