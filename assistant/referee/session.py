"""A refereed session: one game's state, its durable record, undo, access tokens, and the view
each seat may have of it.

Everything that changes the game goes through :meth:`Session.submit` or :meth:`Session.undo`;
both check the caller's role, ask the rules engine, write the record (fsync) and only then
publish the new revision, so what a tablet was shown is always on disk. Readers call
:meth:`Session.snapshot` for their seat and :meth:`Session.wait` to block until the next
revision (the live stream).

Roles: ``"referee"`` (the referee token: may post any event, corrections included, and undo),
a seat index (that player's token: may post its own events and undo them), ``None`` (the public
table view: may read only). What each role is told, answers to refused posts included, is made
in one place, :mod:`.door`.
"""

from __future__ import annotations

import json
import random
import secrets
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from ..games import Event, Game, MalformedError
from ..games.base import Refusal
from ..records import FORMAT, parse_header, read_record
from . import door
from .journal import Journal, write_private

#: How many applied events a snapshot lists.
RECENT = 12

Role = int | str | None


class SessionError(Exception):
    """A request the session refuses. ``status`` is the HTTP status that fits (400 malformed,
    403 not allowed, 409 illegal in this state), ``reason`` a stable snake_case code (a rules
    reason code for illegal events), ``str(exc)`` one sentence."""

    def __init__(self, status: int, reason: str, message: str):
        super().__init__(message)
        self.status, self.reason = status, reason


@dataclass(frozen=True)
class Applied:
    """One applied event: its JSON object as logged, the actor, whether it could be undone (it
    revealed nothing and did not end its actor's turn), and who posted it (a seat or the
    referee, which includes the camera)."""

    obj: dict[str, Any]
    actor: int | str
    undoable: bool
    by: Any = "referee"


@dataclass
class Notice:
    """A warning or a question shown on the referee view: ``kind`` is ``"illegal"``,
    ``"ask"`` or ``"info"``; ``cells`` are the game's cell ids to highlight. ``private`` is a
    fuller sentence for the referee only (it may name hidden things); ``referee_only`` keeps the
    notice off the public table view (a refused post: its answer went to the poster)."""

    kind: str
    message: str
    cells: list = field(default_factory=list)
    reason: str | None = None
    id: int = 0
    options: list = field(default_factory=list)
    private: str = ""
    referee_only: bool = False

    def to_json(self) -> dict[str, Any]:
        """The notice as the pages get it; ``options`` are the explanations a question offers,
        each a list of event objects to post in order."""
        return {"id": self.id, "kind": self.kind, "message": self.message, "cells": self.cells,
                "reason": self.reason, "options": self.options}


def _seats(game: Game, state: Any) -> int:
    """Number of seats of the game in ``state`` (from the public view's ``players``; DI has 2)."""
    players = game.view(state, None).get("players")
    return len(players) if isinstance(players, list) else 2


class Session:
    """One game being refereed.

    Use :meth:`start` for a new game or :meth:`resume` for a record left by an earlier run (a
    crash or ``kill -9`` included); the constructor is internal.
    """

    def __init__(self, game: Game, header: dict[str, Any], start: Any, journal: Journal,
                 tokens: dict[str, str], rng: random.Random | None = None):
        self.game, self.header, self.start_state, self.journal = game, header, start, journal
        self.state = start
        self.applied: list[Applied] = []
        self.tokens = tokens
        self.notices: list[Notice] = []
        self._notice_ids = 0
        self.revision = 0
        self.changed = threading.Condition(threading.RLock())
        self._cache: dict[tuple, dict] = {}
        self.seats = _seats(game, start)
        self.devices: dict[str, str] = {}
        #: cells the referee asked the camera to look at again (taken by the live loop)
        self.reread: list = []
        #: the referee asked for a check of the whole table (taken by the live loop)
        self.check_requested = False
        #: a check of the whole table is running (off the live loop's thread); set by its checker
        self.check_running = False
        #: how many times the event list was rewound (undo, set-up change): the live loop rebuilds
        self.rewinds = 0
        #: draws what nobody holds yet (a digital reshuffle's order, a dealt die past the set-up's)
        self.rng = rng or random.Random()
        #: open live views by role (None: the public table); see :meth:`open_view`
        self.tablets: Counter = Counter()
        #: bumped when a live view opens or closes (only the referee's page shows them)
        self.views = 0
        #: another game has replaced this one on the server (its live views reload)
        self.retired = False

    # -- construction -----------------------------------------------------------------------

    @classmethod
    def start(cls, game_id: str, setup: Mapping[str, Any], rulings: Mapping[str, Any] | None,
              path: str | Path, rng: random.Random | None = None, tokens: Mapping[str, str] | None = None,
              names: list[str] | None = None) -> "Session":
        """A new session whose record is written to ``path``; ``rng`` draws what the engine
        deals during play (a digital reshuffle's order; default: seeded by the system).
        ``tokens`` (``referee`` and one per seat, ``"0"``...) are used instead of new ones (a
        game made on the tablet keeps the server's referee token and the join codes already
        handed out); ``names`` (one per seat) go to the header's ``names``.

        Raises
        ------
        MalformedError
            When the set-up or rulings are invalid for the game (field named).
        FileExistsError
            When ``path`` exists (resume it instead, or choose another name).
        OSError
            When the record cannot be written.
        """
        header = {"format": FORMAT, "game": game_id, "setup": dict(setup)}
        if rulings:
            header["rulings"] = dict(rulings)
        if names:
            header["names"] = list(names)
        game, start = parse_header(header, 1, Path(path).resolve().parent)
        seats = _seats(game, start)
        if tokens is not None and set(tokens) != {"referee", *map(str, range(seats))}:
            raise ValueError(f"the tokens must be the referee's and one for each of the {seats} seats")
        if Path(path).exists():
            raise FileExistsError(f"{path} exists: resume it with --resume, or choose another record name")
        journal = Journal(path, header)
        return cls(game, header, start, journal, _tokens(Path(path), seats, tokens), rng)

    @classmethod
    def resume(cls, path: str | Path) -> "Session":
        """Continue the session whose record is at ``path``: every event is replayed through the
        rules; a line cut short by a crash is dropped (it was never acknowledged).

        Raises
        ------
        FileNotFoundError
            When there is no such record.
        MalformedError
            When the record is malformed (line and field named).
        ValueError
            When an event of the record is illegal (the record was edited by hand).
        """
        journal = Journal(path)
        record = read_record(path)
        session = cls(record.game, record.header, record.start, journal,
                      _tokens(Path(path), _seats(record.game, record.start)))
        for line, event in record.events:
            result = session._apply(event)
            if isinstance(result, SessionError):
                raise ValueError(f"{path}: line {line}: the event is illegal ({result.reason}): {result}")
        return session

    # -- changing the game -----------------------------------------------------------------

    def _apply(self, event: Event, by: Role = "referee") -> Applied | SessionError:
        before = self.state
        after = self.game.apply(before, event)
        if not after:
            return SessionError(409, after.reason, after.message)
        actor = event.actor
        undoable = (isinstance(actor, int) and not self.game.reveals(before, event)
                    and self.game.to_move(after) == actor)
        applied = Applied(event.to_json(), actor, undoable, by)
        self.state = after
        self.applied.append(applied)
        return applied

    def role_of(self, token: str | None) -> Role:
        """The role a token grants: ``"referee"``, a seat index, or ``None`` (public) for no
        token. Raises :class:`SessionError` (403) for a token that is not this session's."""
        if not token:
            return None
        given = token.encode("utf-8", "surrogateescape")
        for name, value in self.tokens.items():
            if secrets.compare_digest(value.encode("ascii"), given):
                return "referee" if name == "referee" else int(name)
        raise SessionError(403, "unknown_token", "That token is not one of this session's.")

    def submit(self, obj: Any, role: Role) -> dict[str, Any]:
        """Apply one event posted by ``role``; returns ``{"index": N, "ok": true}``.

        Before the position is looked at, :func:`.door.check_post` decides whether ``role`` may
        post such an event at all. The engine then draws what nobody holds yet
        (:meth:`~assistant.games.base.Game.complete`: a digital reshuffle's order), and that
        event is what is applied and recorded; observations the engine holds (a digital deck's
        card, a named layout's face) it reads itself when the event leaves them out.

        Raises
        ------
        SessionError
            400 for a malformed event, 403 when the role may not post it (a player posting
            another seat's event or an observation, or the public view posting at all), 409
            with a reason code when it is illegal now, in the words :func:`.door.refusal` gives
            that role (the refusal is kept as a comment in the record and shown to the referee).
        OSError
            When the record cannot be written; the event is then not applied.
        """
        if role is None:
            raise SessionError(403, "read_only", "The public view cannot post events; use a player or referee token.")
        if not isinstance(obj, dict):
            raise SessionError(400, "malformed", "An event must be a JSON object.")
        try:
            event = self.game.parse_event(obj, self.start_state)
            door.check_post(self.game, self.start_state, event, role)
        except MalformedError as exc:
            raise SessionError(400, "malformed", f"The event is malformed: {exc}.") from None
        except door.Refused as exc:
            raise SessionError(exc.status, exc.reason, str(exc)) from None
        with self.changed:
            before = self.state
            event = self.game.complete(before, event, self.rng)
            result = self._apply(event, role)
            if isinstance(result, SessionError):
                self.journal.comment(f"refused ({result.reason}): {json.dumps(event.to_json())}")
                by = "the referee" if role == "referee" else f"player {role + 1}"
                self._notice("illegal", f"Refused from {by}: {result} ({result.reason})", reason=result.reason,
                             referee_only=True)
                raise SessionError(409, *door.refusal(self.game, Refusal(result.reason, str(result)), role))
            try:
                self.journal.append(result.obj)
            except OSError:
                self.state = before
                self.applied.pop()
                raise
            self._publish()
            return {"index": len(self.applied), "ok": True}

    def amend_setup(self, changes: Any, role: Role) -> dict[str, Any]:
        """Change the set-up at the table before the first event (the game's
        :meth:`~assistant.games.base.Game.amend_setup` says who may change what: in Discovery
        Island each player chooses the opponent's landing hex). The record's header is rewritten;
        returns ``{"ok": true}``.

        Raises
        ------
        SessionError
            400 for changes that are not an object or make the set-up invalid (the field is
            named), 403 for a role that may not change them, 409 once the game has begun.
        """
        if role is None:
            raise SessionError(403, "read_only", "The public view cannot change the set-up.")
        if not isinstance(changes, dict) or not changes:
            raise SessionError(400, "malformed", "Set-up changes must be a non-empty JSON object.")
        with self.changed:
            if self.applied:
                raise SessionError(409, "game_begun", "The game has begun: the set-up can no longer change.")
            try:
                setup = self.game.amend_setup(self.header["setup"], changes, role if isinstance(role, int) else None)
            except PermissionError as exc:
                raise SessionError(403, "not_yours_to_set", str(exc)) from None
            header = {**self.header, "setup": setup}
            try:
                game, start = parse_header(header, 1, self.journal.path.resolve().parent)
            except MalformedError as exc:
                raise SessionError(400, "malformed", f"That set-up is invalid: {exc}.") from None
            if _seats(game, start) != self.seats:
                raise SessionError(409, "seats_fixed", f"The session has {self.seats} seats and their tokens are "
                                                       "handed out: start a new session for another number of players.")
            self.journal.rewrite(header, [])
            self.header, self.start_state, self.state = header, start, start
            self.rewinds += 1
            self._publish()
            return {"ok": True}

    def can_undo(self, role: Role) -> bool:
        """Whether ``role`` may undo the last event now: Board Game Arena's rule, within the
        current player's turn only, never across revealed information or another player's
        move; the referee may undo what its player could."""
        if not self.applied or role is None:
            return False
        last = self.applied[-1]
        return last.undoable and (role == "referee" or (role == last.actor and last.by == role))

    def undo(self, role: Role) -> dict[str, Any]:
        """Take back the last event; returns ``{"events": N}`` (events left).

        Raises
        ------
        SessionError
            403/409 when :meth:`can_undo` says no (the sentence says why).
        OSError
            When the record cannot be rewritten; nothing is undone then.
        """
        with self.changed:
            if not self.can_undo(role):
                if not self.applied:
                    raise SessionError(409, "nothing_to_undo", "There is no event to undo.")
                last = self.applied[-1]
                if role is None or (role != "referee" and (role != last.actor or last.by != role)):
                    raise SessionError(403, "not_your_event",
                                       "Only the player who entered the last move, or the referee, can undo it.")
                raise SessionError(409, "undo_barrier", "The last event revealed information or ended the turn, so it cannot be undone.")
            kept = self.applied[:-1]
            self.journal.rewrite(self.header, [a.obj for a in kept],
                                 comments=[f"undone: {json.dumps(self.applied[-1].obj)}"])
            state = self.start_state
            for a in kept:
                state = self.game.apply(state, self.game.parse_event(a.obj, self.start_state))
            self.state, self.applied = state, kept
            self.rewinds += 1
            self._publish()
            return {"events": len(kept)}

    # -- notices from the tracker and the referee ------------------------------------------

    def _notice(self, kind: str, message: str, cells=(), reason: str | None = None, options=(), private: str = "",
                referee_only: bool = False) -> Notice:
        self._notice_ids += 1
        notice = Notice(kind, message, [list(c) if isinstance(c, tuple) else c for c in cells], reason,
                        self._notice_ids, [list(o) for o in options], private, referee_only)
        self.notices = (self.notices + [notice])[-20:]
        self._publish()
        return notice

    def notify(self, kind: str, message: str, cells=(), reason: str | None = None, options=(),
               private: str = "", referee_only: bool = False) -> dict[str, Any]:
        """Show a warning or a question (``kind`` ``"illegal"``, ``"ask"``, ``"info"``) on the
        referee view and the table view with ``cells`` highlighted; a question may offer
        ``options`` (lists of event objects, the explanations the tracker could not decide
        between: the referee's only). ``private`` is a fuller sentence for the referee (it may
        name hidden things); the table sees what :func:`.door.notice_json` lets through, and
        nothing of a ``referee_only`` notice (a check of the table: :func:`.door.notices`).
        Returns the notice as the referee sees it."""
        with self.changed:
            return door.notice_json(self.game, self._notice(kind, message, cells, reason, options, private,
                                                            referee_only), "referee")

    def dismiss(self, notice_id: int) -> None:
        """Remove a notice. Raises :class:`SessionError` (404) for an unknown id."""
        with self.changed:
            kept = [n for n in self.notices if n.id != notice_id]
            if len(kept) == len(self.notices):
                raise SessionError(404, "no_such_notice", f"There is no notice {notice_id}.")
            self.notices = kept
            self._publish()

    def request_reread(self, cells: Any, role: Role) -> dict[str, Any]:
        """Ask the camera to look again at ``cells`` (a list of the game's cell ids) at its next
        still frame: the correction for a cell the camera read wrong, once the piece on it is
        right. Returns ``{"cells": n}``.

        Raises
        ------
        SessionError
            403 unless the referee asks; 400 for anything but a non-empty list of cells.
        """
        if role != "referee":
            raise SessionError(403, "referee_only", "Only the referee token can ask the camera to look again.")
        def cell_ok(c: Any) -> bool:
            return isinstance(c, str) or (isinstance(c, list) and 1 <= len(c) <= 3 and all(
                isinstance(v, (int, str)) and not isinstance(v, bool) for v in c))

        if not isinstance(cells, list) or not cells or len(cells) > 64 or not all(cell_ok(c) for c in cells):
            raise SessionError(400, "malformed", "Give the cells as a non-empty list of cell ids, e.g. [[2, 3]].")
        with self.changed:
            self.reread.extend(tuple(c) if isinstance(c, list) else c for c in cells)
            self._notice("info", "Looking again at the cells asked for.", cells)
            return {"cells": len(cells)}

    def request_check(self, role: Role) -> dict[str, Any]:
        """Ask the camera to check the whole table against the game at its next still frame
        (Forbidden Desert: :func:`~assistant.tracking.desert_check.check_table`); the answer
        comes as referee-only notices. Asking again before the answer comes, or while a check
        runs (one the camera started by itself), is answered by that same check. Returns
        ``{"queued": true}``.

        Raises
        ------
        SessionError
            403 unless the referee asks.
        """
        if role != "referee":
            raise SessionError(403, "referee_only", "Only the referee token can ask for a check of the table.")
        with self.changed:
            if not self.check_requested:
                self.check_requested = True
                self._notice("info", "The check of the table that is running will answer." if self.check_running
                             else "Checking the whole table at the next still moment.", referee_only=True)
            return {"queued": True}

    def set_device(self, name: str, status: str) -> None:
        """Show a device's status (``"LED board"``: ``"connected to /dev/ttyUSB0"``,
        ``"unplugged; retrying in 2 s"``...) on the referee and table views."""
        with self.changed:
            if self.devices.get(name) != status:
                self.devices[name] = status
                self._publish()

    def retire(self) -> None:
        """Mark the session replaced by another game on the server: its live streams end (their
        pages reload into the new game); the record stays as written."""
        with self.changed:
            self.retired = True
            self._publish()

    # -- reading ----------------------------------------------------------------------------

    def _publish(self) -> None:
        self.revision += 1
        self._cache.clear()
        self.changed.notify_all()

    def snapshot(self, role: Role) -> dict[str, Any]:
        """Everything ``role``'s page shows, as JSON (made by :func:`.door.snapshot`): the
        game's view for that seat (the public view for ``None`` and the referee), the board as
        SVG, whose turn, the recent events as that seat may see them, notices, and whether undo
        is possible. Never contains what the seat may not know."""
        with self.changed:
            key = (self.revision, role, self.views if role == "referee" else None)
            if key not in self._cache:
                self._cache[key] = door.snapshot(self, role)
            return self._cache[key]

    def legal(self, role: Role) -> list[Event]:
        """The events ``role`` may post now, as :func:`.door.legal` offers them."""
        with self.changed:
            return door.legal(self.game, self.state, self.start_state, role)

    def open_view(self, role: Role, limit: int) -> bool:
        """Count a live view of ``role`` opening, unless ``limit`` are open already (then
        ``False``); the referee view shows the counts (``tablets``)."""
        with self.changed:
            if sum(self.tablets.values()) >= limit:
                return False
            self.tablets[role] += 1
            self.views += 1
            self.changed.notify_all()
            return True

    def live_views(self) -> int:
        """How many live views of the game are open (all roles), read under the session's lock."""
        with self.changed:
            return sum(self.tablets.values())

    def close_view(self, role: Role) -> None:
        """Count a live view of ``role`` closing (its client is gone)."""
        with self.changed:
            self.tablets[role] -= 1
            self.views += 1
            self.changed.notify_all()

    def wait(self, revision: int, timeout: float, views: int | None = None) -> int:
        """Block until the revision differs from ``revision`` (or, when ``views`` is given, a
        live view opened or closed since :attr:`views` was ``views``) or ``timeout`` seconds
        pass; returns the current revision."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while self.revision == revision and (views is None or self.views == views):
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self.changed.wait(left)
            return self.revision

    def record_text(self) -> str:
        """The record file as written (for download)."""
        with self.changed:
            return self.journal.text()


def _tokens(record: Path, seats: int, given: Mapping[str, str] | None = None) -> dict[str, str]:
    """The session's tokens, kept beside the record in ``<record>.tokens.json`` (mode 0600, like
    the record) so that tablets keep working after ``--resume``; made on first use, or
    ``given``."""
    path = record.with_name(record.name + ".tokens.json")
    if given is not None:
        write_private(path, json.dumps(dict(given)))
        return dict(given)
    if path.exists():
        try:
            tokens = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            tokens = {}                                # unreadable (a crash while writing): new tokens
        if isinstance(tokens, dict) and set(tokens) == {"referee", *map(str, range(seats))}:
            return tokens
    tokens = {"referee": secrets.token_urlsafe(16), **{str(s): secrets.token_urlsafe(16) for s in range(seats)}}
    write_private(path, json.dumps(tokens))
    return tokens
