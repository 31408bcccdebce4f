"""Small validators for JSON fields of records, shared by every game.

Each takes the decoded JSON value and the field's path (for the error message) and returns the
value in normalised form, or raises :class:`~assistant.games.base.MalformedError` naming the
field and saying, in one sentence, what is wrong.
"""

from __future__ import annotations

from typing import Any, Collection, Mapping

from .base import MalformedError


def is_int(value: Any) -> bool:
    """True for a JSON integer (``bool`` is not an integer here)."""
    return isinstance(value, int) and not isinstance(value, bool)


def integer(value: Any, field: str, low: int | None = None, high: int | None = None) -> int:
    """An integer, optionally within ``low..high`` inclusive."""
    if not is_int(value):
        raise MalformedError(field, f"must be an integer, got {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        if high is None:
            raise MalformedError(field, f"must be at least {low}, got {value}")
        if low is None:
            raise MalformedError(field, f"must be at most {high}, got {value}")
        raise MalformedError(field, f"must be between {low} and {high}, got {value}")
    return value


def boolean(value: Any, field: str) -> bool:
    """A JSON boolean."""
    if not isinstance(value, bool):
        raise MalformedError(field, f"must be true or false, got {value!r}")
    return value


def string(value: Any, field: str) -> str:
    """A JSON string."""
    if not isinstance(value, str):
        raise MalformedError(field, f"must be a string, got {value!r}")
    return value


def one_of(value: Any, field: str, allowed: Collection[str], what: str = "id") -> str:
    """A string from ``allowed``."""
    if not isinstance(value, str) or value not in allowed:
        raise MalformedError(field, f"unknown {what} {value!r}")
    return value


def array(value: Any, field: str, length: int | None = None) -> list:
    """A JSON array, optionally of an exact length."""
    if not isinstance(value, list):
        raise MalformedError(field, f"must be a list, got {value!r}")
    if length is not None and len(value) != length:
        raise MalformedError(field, f"must have {length} entries, got {len(value)}")
    return value


def obj(value: Any, field: str) -> dict:
    """A JSON object."""
    if not isinstance(value, dict):
        raise MalformedError(field, f"must be a JSON object, got {value!r}")
    return value


def int_pair(value: Any, field: str) -> tuple[int, int]:
    """A list of two integers, e.g. a square cell ``[row, col]`` -> ``(row, col)``."""
    if not (isinstance(value, list) and len(value) == 2 and all(is_int(v) for v in value)):
        raise MalformedError(field, f"must be a list of two integers, got {value!r}")
    return (value[0], value[1])


def known_keys(value: Mapping[str, Any], field: str, allowed: Collection[str]) -> None:
    """Raise when ``value`` holds a key outside ``allowed`` (catches typos in headers)."""
    for key in value:
        if key not in allowed:
            raise MalformedError(f"{field}.{key}" if field else key, "unknown field")


def rulings(given: Mapping[str, Any], table: Mapping[str, tuple[Any, Collection[Any]]]) -> dict[str, Any]:
    """Merge a header's ``rulings`` over the defaults of ``table`` (key -> (default, allowed)).

    Raises
    ------
    MalformedError
        For an unknown key or a value the rules file does not list.
    """
    merged = {k: default for k, (default, _allowed) in table.items()}
    for key, value in given.items():
        if key not in table:
            raise MalformedError(f"rulings.{key}", "unknown ruling")
        allowed = table[key][1]
        if not any(value == a and type(value) is type(a) for a in allowed):
            raise MalformedError(f"rulings.{key}", f"must be one of {list(allowed)}, got {value!r}")
        merged[key] = value
    return merged
