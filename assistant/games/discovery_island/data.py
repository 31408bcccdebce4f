"""Discovery Island data files (rules §4.2-4.4): equipment, events and the terrain-tile supply.

Each reader takes the CSV text and returns validated, immutable data, or raises
:class:`DataError` naming the first problem found: file, line, field and why. The built-in
``"default"`` bundle (ours, not the commercial game's) ships in ``data/default/``.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Iterator

LAND_TERRAINS = ("open", "jungle", "mountain", "wetland", "bush")
TERRAINS = LAND_TERRAINS + ("sea",)
#: printed day-march points of each land terrain (§4.4 T3)
POINT_RANGE = {"open": (1, 3), "jungle": (2, 4), "mountain": (3, 5), "wetland": (4, 8), "bush": (5, 9)}
TILE_TOTAL = 210
EQUIPMENT_BUDGET = 24


class DataError(ValueError):
    """A data or map file that breaks its format.

    Attributes
    ----------
    code : str
        ``data_invalid`` or ``map_invalid`` (rules §7.4).
    source : str
        The file (or bundle) name.
    line : int or None
        1-based line of the file.
    field : str or None
        The CSV column.
    why : str
        One sentence; starts with the rule tag (``M3``, ``T1``...) where the rules name one.
    """

    def __init__(self, code: str, source: str, line: int | None, field: str | None, why: str):
        self.code, self.source, self.line, self.field, self.why = code, source, line, field, why
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.source + (f" line {self.line}" if self.line else "") + (f", field {self.field}" if self.field else "")
        return f"{self.code}: {where}: {self.why}"


def csv_rows(text: str, header: tuple[str, ...], source: str, code: str) -> Iterator[tuple[int, dict[str, str]]]:
    """Rows of a CSV file with an exact header, as (line number, {column: value}).

    Lines starting with ``#`` and blank lines are skipped (their numbers still count).

    Raises
    ------
    DataError
        For a wrong header or a row with the wrong number of fields.
    """
    seen_header = False
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        values = next(csv.reader(io.StringIO(raw)))
        if not seen_header:
            if tuple(values) != header:
                raise DataError(code, source, number, None, f"the header must be {','.join(header)}")
            seen_header = True
            continue
        if len(values) != len(header):
            raise DataError(code, source, number, None, f"expected {len(header)} fields, got {len(values)}")
        yield number, {k: v.strip() for k, v in zip(header, values)}
    if not seen_header:
        raise DataError(code, source, None, None, "the file is empty")


def _int(value: str, source: str, line: int, field: str, low: int = 1) -> int:
    try:
        n = int(value)
    except ValueError:
        raise DataError("data_invalid", source, line, field, f"{value!r} is not an integer")
    if n < low:
        raise DataError("data_invalid", source, line, field, f"must be at least {low}, got {n}")
    return n


@dataclass(frozen=True)
class Event:
    """An event kind (§4.3): ``effect`` is ``("skip", N)`` or ``("lost", 0)``."""

    kind: str
    effect: tuple[str, int]
    preventable: bool

    @property
    def lost(self) -> bool:
        """True for a 'lost' event (relocation instead of skipped marches)."""
        return self.effect[0] == "lost"


@dataclass(frozen=True)
class Card:
    """An equipment card (§4.2). ``terrain_uses`` maps a land terrain to its uses."""

    name: str
    cost: int
    protects: frozenset[str]
    terrain_uses: tuple[tuple[str, int], ...]
    march_uses: int
    prevents_lost: bool


Tile = tuple[str, int, str]  #: (terrain, printed points, mark); terrain "-" for marker tiles


@dataclass(frozen=True)
class Bundle:
    """A validated data bundle: events by kind, cards by name, the tile supply."""

    events: dict[str, Event]
    cards: dict[str, Card]
    tiles: dict[Tile, int]

    def tile_exists(self, terrain: str, points: int, mark: str) -> bool:
        """Whether the supply holds a tile with this terrain, printed number and mark."""
        return (terrain, points, mark) in self.tiles


def read_events(text: str, source: str = "events.csv") -> dict[str, Event]:
    """Parse and validate ``events.csv`` (§4.3). Raises :class:`DataError`."""
    out: dict[str, Event] = {}
    for line, row in csv_rows(text, ("kind", "effect", "preventable"), source, "data_invalid"):
        kind = row["kind"]
        if not kind or not kind.replace("_", "").isalnum() or kind != kind.lower():
            raise DataError("data_invalid", source, line, "kind", f"{kind!r} is not a snake_case name")
        if kind in out:
            raise DataError("data_invalid", source, line, "kind", f"event kind {kind} appears twice")
        effect = row["effect"]
        if effect == "lost":
            parsed = ("lost", 0)
        elif effect.startswith("skip:"):
            parsed = ("skip", _int(effect[5:], source, line, "effect"))
        else:
            raise DataError("data_invalid", source, line, "effect", f"must be skip:N or lost, got {effect!r}")
        if row["preventable"] not in ("yes", "no"):
            raise DataError("data_invalid", source, line, "preventable", "must be yes or no")
        out[kind] = Event(kind, parsed, row["preventable"] == "yes")
    return out


def read_equipment(text: str, events: dict[str, Event], source: str = "equipment.csv") -> dict[str, Card]:
    """Parse and validate ``equipment.csv`` (§4.2, rules E1-E2). Raises :class:`DataError`."""
    out: dict[str, Card] = {}
    header = ("name", "cost", "protects", "terrain_uses", "march_uses", "prevents_lost")
    for line, row in csv_rows(text, header, source, "data_invalid"):
        name = row["name"]
        if not name or name != name.lower() or not name.replace("_", "").isalnum():
            raise DataError("data_invalid", source, line, "name", f"E1 {name!r} is not a snake_case name")
        if name in out:
            raise DataError("data_invalid", source, line, "name", f"E1 card {name} appears twice")
        cost = _int(row["cost"], source, line, "cost")
        protects = frozenset(p for p in row["protects"].split(";") if p)
        for kind in sorted(protects):
            if kind not in events:
                raise DataError("data_invalid", source, line, "protects", f"E2 no event kind {kind!r} in events.csv")
            if events[kind].lost:
                raise DataError("data_invalid", source, line, "protects",
                                f"E2 {kind} is a lost event; only prevents_lost covers it")
        uses = []
        for item in row["terrain_uses"].split(";"):
            terrain, _, n = item.partition(":")
            if terrain not in LAND_TERRAINS:
                raise DataError("data_invalid", source, line, "terrain_uses", f"E1 {terrain!r} is not a land terrain")
            if terrain in dict(uses):
                raise DataError("data_invalid", source, line, "terrain_uses", f"E1 {terrain} is listed twice")
            uses.append((terrain, _int(n, source, line, "terrain_uses")))
        march_uses = _int(row["march_uses"], source, line, "march_uses")
        if row["prevents_lost"] not in ("yes", "no"):
            raise DataError("data_invalid", source, line, "prevents_lost", "E1 must be yes or no")
        out[name] = Card(name, cost, protects, tuple(uses), march_uses, row["prevents_lost"] == "yes")
    return out


def read_tiles(text: str, events: dict[str, Event], checkpoint_cost: int = 4, cache_cost: int = 4,
               source: str = "tiles.csv") -> dict[Tile, int]:
    """Parse and validate ``tiles.csv`` (§4.4, rules T1-T5). Raises :class:`DataError`.

    Returns
    -------
    dict
        (terrain, points, mark) -> count; the counts sum to 210.
    """
    out: dict[Tile, int] = {}
    total = 0
    for line, row in csv_rows(text, ("terrain", "points", "mark", "count"), source, "data_invalid"):
        terrain, mark = row["terrain"], row["mark"]
        points = _int(row["points"], source, line, "points")
        count = _int(row["count"], source, line, "count")
        if mark in ("checkpoint", "cache"):
            if terrain != "-":
                raise DataError("data_invalid", source, line, "terrain", f"T5 a {mark} tile has terrain '-'")
            expected = checkpoint_cost if mark == "checkpoint" else cache_cost
            if points != expected:
                raise DataError("data_invalid", source, line, "points", f"T5 a {mark} tile shows {expected}")
        else:
            if terrain not in LAND_TERRAINS:
                raise DataError("data_invalid", source, line, "terrain", f"T3 {terrain!r} is not a land terrain")
            low, high = POINT_RANGE[terrain]
            if not low <= points <= high:
                raise DataError("data_invalid", source, line, "points", f"T3 {terrain} tiles show {low}-{high}")
            if mark.startswith("event:"):
                if mark[6:] not in events:
                    raise DataError("data_invalid", source, line, "mark", f"T4 no event kind {mark[6:]!r}")
            elif mark not in ("none", "shortcut"):
                raise DataError("data_invalid", source, line, "mark", f"unknown mark {mark!r}")
        key = (terrain, points, mark)
        if key in out:
            raise DataError("data_invalid", source, line, None, f"T2 the row {terrain},{points},{mark} appears twice")
        out[key] = count
        total += count
    for marker in ("checkpoint", "cache"):
        if not any(k[2] == marker for k in out):
            raise DataError("data_invalid", source, None, "mark", f"T5 at least one {marker} tile is needed")
    if total != TILE_TOTAL:
        raise DataError("data_invalid", source, None, "count", f"T1 the counts sum to {total}, not {TILE_TOTAL}")
    return out


def load_bundle(where: str | Path, checkpoint_cost: int = 4, cache_cost: int = 4) -> Bundle:
    """Load ``"default"`` (the built-in bundle) or a folder holding the three CSV files.

    Raises
    ------
    DataError
        For a missing file or the first rule a file breaks.
    """
    def read(name: str) -> str:
        if where == "default":
            return resources.files(__package__).joinpath("data").joinpath("default").joinpath(name).read_text(encoding="utf-8")
        path = Path(where) / name
        try:
            return path.read_text(encoding="utf-8")
        except OSError as exc:
            raise DataError("data_invalid", str(path), None, None, f"cannot read the file ({exc.strerror or exc})")

    events = read_events(read("events.csv"))
    cards = read_equipment(read("equipment.csv"), events)
    if where != "default":
        return Bundle(events, cards, read_tiles(read("tiles.csv"), events, checkpoint_cost, cache_cost))
    # The default marker tiles are ours and show the entry cost in effect, so the cost
    # rulings stay usable with the default bundle (T5 is checked against the printed 4).
    tiles = read_tiles(read("tiles.csv"), events)
    cost = {"checkpoint": checkpoint_cost, "cache": cache_cost}
    return Bundle(events, cards, {(t, cost.get(m, p), m): n for (t, p, m), n in tiles.items()})


def tile_counts(bundle: Bundle) -> Counter:
    """Tiles per terrain in the supply (``-`` for marker tiles)."""
    out: Counter = Counter()
    for (terrain, _p, _m), n in bundle.tiles.items():
        out[terrain] += n
    return out
