"""Reading and writing ``tabletop-record/1`` game records (``shared/rules/records.md``).

A record is JSON Lines: a header object, then one event object per line; ``#`` lines and
blank lines are ignored. Reading validates the *whole* file before anything is judged, so a
malformed file is rejected with the line number and field of its first problem and nothing
is half-applied.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from .games import Event, Game, MalformedError, game_ids, get_game

FORMAT = "tabletop-record/1"


@dataclass(frozen=True)
class Record:
    """A parsed, validated record.

    Attributes
    ----------
    game : Game
        The registered game plug-in named by the header.
    header : dict
        The header object as read.
    start : object
        The game's starting state built from the header (never mutated).
    events : tuple of (int, Event)
        Each event with its 1-based line number in the file.
    """

    game: Game
    header: dict[str, Any]
    start: Any
    events: tuple[tuple[int, Event], ...]


def _meaningful_lines(text: str) -> Iterable[tuple[int, str]]:
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        yield number, stripped


def _load_json(number: int, line: str) -> Any:
    try:
        return json.loads(line)
    except json.JSONDecodeError as exc:
        raise MalformedError("(json)", f"not valid JSON ({exc.msg} at column {exc.colno})", number)


def parse_header(obj: Any, line: int, base_dir: Path | None = None) -> tuple[Game, Any]:
    """Validate a header object and build the game's starting state.

    Parameters
    ----------
    obj : object
        The decoded JSON of the header line.
    line : int
        Its 1-based line number, used in error messages.
    base_dir : Path, optional
        Folder that relative paths in the set-up are resolved against.

    Returns
    -------
    (Game, state)

    Raises
    ------
    MalformedError
        When ``format``, ``game``, ``setup`` or ``rulings`` is missing or wrong, or when the
        game rejects the set-up.
    """
    if not isinstance(obj, dict):
        raise MalformedError("(header)", "the header must be a JSON object", line)
    if obj.get("format") != FORMAT:
        raise MalformedError("format", f"must be {FORMAT!r}, got {obj.get('format')!r}", line)
    game_id = obj.get("game")
    if not isinstance(game_id, str):
        raise MalformedError("game", "missing or not a string", line)
    try:
        game = get_game(game_id)
    except KeyError:
        raise MalformedError("game", f"unknown game {game_id!r}; known: {', '.join(game_ids())}", line)
    setup = obj.get("setup")
    if not isinstance(setup, dict):
        raise MalformedError("setup", "missing or not a JSON object", line)
    rulings = obj.get("rulings", {})
    if not isinstance(rulings, dict):
        raise MalformedError("rulings", "not a JSON object", line)
    try:
        state = game.new_state(setup, rulings, base_dir=base_dir)
    except MalformedError as exc:
        raise exc.at_line(line)
    return game, state


def parse_record(text: str, base_dir: Path | None = None) -> Record:
    """Parse and validate a whole record.

    Parameters
    ----------
    text : str
        The file's content (UTF-8 decoded).
    base_dir : Path, optional
        The record's folder, for relative paths in the set-up (default: the current one).

    Returns
    -------
    Record

    Raises
    ------
    MalformedError
        At the first problem, with its line number and field.
    """
    lines = list(_meaningful_lines(text))
    if not lines:
        raise MalformedError("(header)", "the record is empty", 1)
    number, first = lines[0]
    header = _load_json(number, first)
    game, start = parse_header(header, number, base_dir)
    events = []
    for number, line in lines[1:]:
        obj = _load_json(number, line)
        if not isinstance(obj, dict):
            raise MalformedError("(event)", "an event must be a JSON object", number)
        for key, kind in (("t", (int, float)), ("note", str)):
            if key in obj and (not isinstance(obj[key], kind) or isinstance(obj[key], bool)):
                raise MalformedError(key, f"must be a {'number' if key == 't' else 'string'}", number)
        try:
            events.append((number, game.parse_event(obj, start)))
        except MalformedError as exc:
            raise exc.at_line(number)
    return Record(game, header, start, tuple(events))


def read_record(path: str | Path) -> Record:
    """Read and validate the record file at ``path``.

    Raises
    ------
    OSError
        When the file cannot be read.
    MalformedError
        When it is not UTF-8 or not a valid record (see :func:`parse_record`).
    """
    data = Path(path).read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise MalformedError("(encoding)", "the file is not UTF-8", line)
    return parse_record(text, base_dir=Path(path).resolve().parent)


def header_line(game_id: str, setup: Mapping[str, Any], rulings: Mapping[str, Any] | None = None) -> str:
    """The JSON text of a header line (no newline)."""
    obj: dict[str, Any] = {"format": FORMAT, "game": game_id, "setup": dict(setup)}
    if rulings:
        obj["rulings"] = dict(rulings)
    return json.dumps(obj, separators=(",", ":"))


def write_record(game_id: str, setup: Mapping[str, Any], rulings: Mapping[str, Any] | None,
                 events: Iterable[Event]) -> str:
    """Serialise a record: the header line, then one line per event, newline-terminated."""
    out = [header_line(game_id, setup, rulings)]
    out.extend(json.dumps(ev.to_json(), separators=(",", ":")) for ev in events)
    return "\n".join(out) + "\n"
