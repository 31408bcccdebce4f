"""The small interface every game plugs in behind.

A game is an object with seven methods (modelled on OpenSpiel's ``State``):

- :meth:`Game.new_state` builds the starting state from a record header's ``setup`` and
  ``rulings`` objects;
- :meth:`Game.parse_event` turns one JSON event object into an :class:`Event`;
- :meth:`Game.legal_events` lists the events that :meth:`Game.apply` would accept now;
- :meth:`Game.apply` returns a *new* state, or a falsy :class:`Refusal` carrying the rules
  file's reason code; it never mutates its input and never raises for illegal play;
- :meth:`Game.summary` gives the summary fields of the game's rules file;
- :meth:`Game.view` gives what one seat (or, with ``seat=None``, the whole table) may know.

Two kinds of bad input are kept apart, as python-chess keeps ``InvalidMoveError`` apart from
``IllegalMoveError``: a *malformed* record or event raises :class:`MalformedError`; a
well-formed but *illegal* event is refused with a :class:`Refusal`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping


class MalformedError(ValueError):
    """A record, header or event that does not follow the format.

    Attributes
    ----------
    field : str
        Dotted path of the offending field, e.g. ``"setup.layout[2][2]"`` or ``"to"``.
    reason : str
        One sentence saying what is wrong.
    line : int or None
        1-based line number in the record file, filled in by the record reader.
    """

    def __init__(self, field: str, reason: str, line: int | None = None):
        self.field = field
        self.reason = reason
        self.line = line
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"line {self.line}: " if self.line is not None else ""
        return f"{where}{self.field}: {self.reason}"

    def at_line(self, line: int) -> "MalformedError":
        """Return a copy of this error tied to a 1-based line number of a record file."""
        return MalformedError(self.field, self.reason, line)

    def within(self, prefix: str) -> "MalformedError":
        """Return a copy whose field path is nested under ``prefix`` (e.g. ``"setup"``)."""
        return MalformedError(f"{prefix}.{self.field}" if self.field else prefix, self.reason, self.line)


@dataclass(frozen=True)
class Refusal:
    """An illegal event: the rules file's reason code and one human sentence.

    A refusal is falsy, so ``new = game.apply(state, ev); if not new: ...`` reads naturally.

    >>> r = Refusal("not_your_turn", "It is seat 1's turn, not seat 0's.")
    >>> bool(r), r.reason
    (False, 'not_your_turn')
    """

    reason: str
    message: str

    def __bool__(self) -> bool:
        return False


@dataclass(frozen=True)
class Event:
    """One event of a record: who acts, what kind of event, and its parameters.

    ``params`` holds the event's own parameters in the game's normalised form (cells as
    tuples); ``extra`` keeps fields the event type does not define (``t``, ``note``, ...)
    so that writing the record back loses nothing. Both are stored as sorted tuples of
    pairs, which keeps the event hashable.

    >>> ev = Event.make(0, "move", to=(1, 2))
    >>> ev.to_json()
    {'actor': 0, 'type': 'move', 'to': [1, 2]}
    >>> ev
    Event.make(0, 'move', to=(1, 2))
    >>> ev["to"], ev.get("carry")
    ((1, 2), None)
    """

    actor: int | str
    type: str
    params: tuple[tuple[str, Any], ...] = ()
    extra: tuple[tuple[str, Any], ...] = field(default=(), compare=False)

    @classmethod
    def make(cls, actor: int | str, type: str, extra: Mapping[str, Any] | None = None,
             **params: Any) -> "Event":
        """Build an event from keyword parameters; ``None`` values (absent options) are dropped."""
        return cls.from_params(actor, type, {k: v for k, v in params.items() if v is not None}, extra)

    @classmethod
    def from_params(cls, actor: int | str, type: str, params: Mapping[str, Any],
                    extra: Mapping[str, Any] | None = None) -> "Event":
        """Build an event keeping every parameter as given, ``None`` (JSON ``null``) included.

        Lists become tuples and objects become :class:`FrozenDict`, so the event is hashable
        and :meth:`to_json` gives the same JSON back.
        """
        items = tuple(sorted((k, freeze(v)) for k, v in params.items()))
        ext = tuple(sorted((extra or {}).items(), key=lambda kv: kv[0]))
        return cls(actor, type, items, ext)

    def __getitem__(self, key: str) -> Any:
        for k, v in self.params:
            if k == key:
                return v
        raise KeyError(key)

    def get(self, key: str, default: Any = None) -> Any:
        """The parameter ``key``, or ``default`` when the event does not carry it."""
        for k, v in self.params:
            if k == key:
                return v
        return default

    def to_json(self) -> dict[str, Any]:
        """The event as a JSON-ready object (tuples become lists), extras included."""
        out: dict[str, Any] = {"actor": self.actor, "type": self.type}
        for k, v in self.params:
            out[k] = _jsonable(v)
        for k, v in self.extra:
            out.setdefault(k, v)
        return out

    def __repr__(self) -> str:
        args = "".join(f", {k}={v!r}" for k, v in self.params)
        return f"Event.make({self.actor!r}, {self.type!r}{args})"


class FrozenDict(tuple):
    """A JSON object inside an event: a sorted tuple of (key, value) pairs, hashable.

    >>> d = freeze({"terrain": "open", "points": 2})
    >>> d["points"], thaw(d)
    (2, {'points': 2, 'terrain': 'open'})
    """

    def __getitem__(self, key):  # type: ignore[override]
        if isinstance(key, str):
            for k, v in tuple.__iter__(self):
                if k == key:
                    return v
            raise KeyError(key)
        return tuple.__getitem__(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        """The value of ``key``, or ``default``."""
        try:
            return self[key]
        except KeyError:
            return default

    def __repr__(self) -> str:
        return f"freeze({thaw(self)!r})"


def freeze(value: Any) -> Any:
    """JSON value -> hashable: lists to tuples, objects to :class:`FrozenDict`, recursively."""
    if isinstance(value, dict):
        return FrozenDict(sorted((k, freeze(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)) and not isinstance(value, FrozenDict):
        return tuple(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """The inverse of :func:`freeze`: tuples to lists, :class:`FrozenDict` to dicts."""
    if isinstance(value, FrozenDict):
        return {k: thaw(v) for k, v in tuple.__iter__(value)}
    if isinstance(value, (tuple, list)):
        return [thaw(v) for v in value]
    return value


_jsonable = thaw


class Game(ABC):
    """A game plug-in. Subclasses are stateless: every state is passed in explicitly."""

    #: The record header's ``game`` value, e.g. ``"forbidden-desert"``.
    id: str = ""
    #: A human title.
    title: str = ""

    @abstractmethod
    def new_state(self, setup: Mapping[str, Any], rulings: Mapping[str, Any],
                  base_dir: Path | None = None) -> Any:
        """Build the starting state from a header's ``setup`` and ``rulings``.

        ``base_dir`` is the folder of the record file, against which relative paths in the
        set-up (a Discovery Island ``map.csv``, say) are resolved; ``None`` means the
        current directory.

        Raises
        ------
        MalformedError
            With ``field`` relative to the header (``"setup.players"``, ``"rulings.x"``).
        """

    @abstractmethod
    def parse_event(self, obj: Mapping[str, Any], state: Any | None = None) -> Event:
        """Validate one JSON event object and return it as an :class:`Event`.

        ``state`` is the starting state, for checks that depend on the set-up (the
        number of optional cards, say); it is never the state at the event.

        Raises
        ------
        MalformedError
            An unknown ``type``, a missing required parameter, a wrong JSON type or an
            unknown id.
        """

    @abstractmethod
    def legal_events(self, state: Any) -> list[Event]:
        """Every event :meth:`apply` accepts in ``state``, in a stable order."""

    @abstractmethod
    def apply(self, state: Any, event: Event) -> Any:
        """Return the state after ``event``, or a :class:`Refusal`; never mutates ``state``."""

    @abstractmethod
    def summary(self, state: Any) -> dict[str, Any]:
        """The summary object of the rules file (always with ``result`` and ``events``)."""

    @abstractmethod
    def view(self, state: Any, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may know (its private observation); ``None`` is the public table."""

    def add_commands(self, subparsers: Any) -> None:
        """Optionally register game-specific subcommands on the ``assistant`` command line.

        ``subparsers`` is the ``argparse`` sub-parser collection; each command sets ``func``
        to a callable taking the parsed arguments and returning an exit status.
        """

    def to_move(self, state: Any) -> int | str | None:
        """Whose turn it is: a seat index, another actor (``"storm"``), or ``None`` when the game
        is over. The default reads ``to_move`` (or ``turn``) from the public view."""
        if self.result(state) != "ongoing":
            return None
        public = self.view(state, None)
        return public.get("to_move", public.get("turn"))

    def reveals(self, state: Any, event: Event) -> bool:
        """Whether applying ``event`` in ``state`` shows something nobody knew before (a tile's
        face, a card, a die roll, a step's terrain): such an event can never be undone. The
        default, for games of perfect information without chance, is ``False``."""
        return False

    def event_view(self, event: Mapping[str, Any], seat: int | None) -> dict[str, Any] | None:
        """What ``seat`` (``None``: everyone at the table) may see of one applied event, given as
        its JSON object; ``None`` hides it entirely. The default shows every event whole."""
        return dict(event)

    def amend_setup(self, setup: Mapping[str, Any], changes: Mapping[str, Any], seat: int | None) -> dict[str, Any]:
        """The set-up after ``changes`` made at the table before the first event (``seat``
        ``None``: the referee, who may change any field; a seat: only what that player chooses,
        by default nothing). The result is validated by :meth:`new_state` afterwards.

        Raises
        ------
        PermissionError
            When ``seat`` may not change those fields (one sentence says what it may change).
        """
        if seat is not None:
            raise PermissionError(f"Player {seat + 1} chooses nothing in the set-up of {self.title}; the referee sets it up.")
        return {**setup, **changes}

    def refusal_view(self, refusal: "Refusal", seat: int | None) -> str:
        """The sentence ``seat`` (``None``: the whole table) may hear about an illegal event. The
        default is the engine's message; a game whose messages can name hidden things (a walker's
        true hex) gives a fixed sentence per reason code instead. Refusals whose reason is one of
        :attr:`observation_reasons` never get here: every role but the referee hears one fixed
        sentence for them (``assistant.referee.door``)."""
        return refusal.message

    #: Reason codes that say an observation was wrong (a face, a card, a clue, a cache's content
    #: that does not match what the engine holds). Whatever the truth, everyone but the referee
    #: hears the same code and sentence for them, so a wrong guess tells nothing.
    observation_reasons: frozenset[str] = frozenset()

    def observations(self, state: Any, event: Event) -> tuple[str, ...]:
        """The parameters of ``event`` that report hidden information as the table showed it (a
        tile's face, a card drawn or peeked at, a clue read, a dealt die), for a game whose
        set-up is ``state`` (only its fixed configuration is read, so the answer never depends on
        the position). They are never taken from a player's token: with the assistant's own
        (digital) decks and layouts the engine reveals them when it applies the event; at a
        physical table the camera or the referee enters them. The default, for games without
        hidden information, is none."""
        return ()

    def complete(self, state: Any, event: Event, rng: Any = None) -> Event:
        """``event`` with what the engine must draw itself to apply it: what nobody holds yet (a
        digital reshuffle's order, a roll of the assistant's own die), drawn with ``rng`` (a
        ``random.Random``; with ``None`` a fixed value, for checking legality only). An
        observation the engine already holds (a named layout's face, a digital deck's top card,
        a digital checkometer's clue) needs no filling: :meth:`apply` reads it when the event
        leaves it out. The default returns ``event`` unchanged."""
        return event

    def poster(self, event: Event) -> int | None:
        """The seat whose token may post ``event`` (the referee may post anything); ``None``: the
        referee only (chance and other non-seat actors). The default is the actor; Discovery
        Island's walker steps are posted by the opponent, who lays the tiles."""
        return event.actor if isinstance(event.actor, int) and not isinstance(event.actor, bool) else None

    def legal_view(self, state: Any, seat: int | None) -> list[Event]:
        """The legal events offered to ``seat`` on its own tablet (``None``: the public table,
        which is shown what the player to move may do): every legal event that seat may post
        (:meth:`poster`). A game hides those whose very listing tells a secret. Observations are
        taken out afterwards, in one place (``assistant.referee.door``)."""
        if seat is None:
            seat = self.to_move(state)
            if not isinstance(seat, int):
                return []
        return [e for e in self.legal_events(state) if self.poster(e) == seat]

    def board_svg(self, state: Any, view: Mapping[str, Any]) -> str:
        """The board as an SVG document drawn from ``view`` (``self.view(state, seat)``, already
        made by the caller), so it shows nothing that seat may not know; ``state`` is only for
        what is public anyway (a map). The default is an empty drawing."""
        return '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"></svg>'

    def result(self, state: Any) -> str:
        """``"ongoing"``, ``"won"`` or ``"lost:<why>"``."""
        return self.summary(state)["result"]
