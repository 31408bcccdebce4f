"""The island map (rules §4.1): reading, validating and writing ``map.csv``.

A map is the rectangle ``0..W-1 x 0..H-1`` of odd-q offset hexes; a hex not listed is sea.
:func:`read_map` validates rules M1-M7 and raises :class:`~.data.DataError` (code
``map_invalid``) naming the first problem: line, field and rule. :class:`Island` is the
validated map, indexed by axial coordinates.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from .data import LAND_TERRAINS, TERRAINS, DataError, csv_rows
from .geometry import Hex, neighbours, to_axial, to_offset

SYMBOLS = ("waterhole", "cave", "ruin", "harbour")
FEATURES = ("none",) + SYMBOLS + ("checkpoint",)
CHECKPOINT_LABELS = ("A1", "A2", "A3", "A4", "A5", "A6", "B1", "B2")
CACHE_LABELS = tuple(f"{row}{col}" for row in "BCDEF" for col in range(1, 7) if f"{row}{col}" not in CHECKPOINT_LABELS)
HEADER = ("col", "row", "terrain", "feature", "label")


@dataclass(frozen=True)
class HexInfo:
    """What the map shows at one hex."""

    terrain: str
    feature: str = "none"
    label: str = ""

    @property
    def marker(self) -> str | None:
        """``checkpoint``, ``cache`` (any of the four symbols) or ``None``."""
        if self.feature == "none":
            return None
        return "checkpoint" if self.feature == "checkpoint" else "cache"


@dataclass(frozen=True)
class Island:
    """A validated map.

    Attributes
    ----------
    width, height : int
        Columns and rows of the rectangle (offset coordinates).
    hexes : dict
        Axial hex -> :class:`HexInfo` for every hex of the rectangle.
    labels : dict
        Label (``A1``, ``C4``...) -> axial hex.
    fragment : bool
        A test map (first line ``# fragment``): labels need only be valid and distinct (M7).
    """

    width: int
    height: int
    hexes: dict[Hex, HexInfo]
    labels: dict[str, Hex]
    fragment: bool = False
    land: frozenset[Hex] = field(default=frozenset(), compare=False)
    featureless_land: frozenset[Hex] = field(default=frozenset(), compare=False)

    def landing_pool(self, on_feature: bool) -> frozenset[Hex]:
        """The land hexes a walker may be put on: every land hex under the ``start_on_feature``
        ruling (``on_feature``), else those with no feature (§3, rulings §4)."""
        return self.land if on_feature else self.featureless_land

    def info(self, h: Hex) -> HexInfo:
        """The hex's info; hexes outside the rectangle are sea."""
        return self.hexes.get(h) or HexInfo("sea")

    def terrain(self, h: Hex) -> str:
        """The terrain at axial ``h`` (``sea`` outside the map)."""
        return self.info(h).terrain

    def on_map(self, h: Hex) -> bool:
        """Whether axial ``h`` lies inside the rectangle."""
        col, row = to_offset(*h)
        return 0 <= col < self.width and 0 <= row < self.height

    def caches(self) -> list[str]:
        """The cache labels present on this map."""
        return [lab for lab in self.labels if lab in CACHE_LABELS]


def _label_kind(label: str) -> str | None:
    if label in CHECKPOINT_LABELS:
        return "checkpoint"
    if label in CACHE_LABELS:
        return "cache"
    return None


def read_map(text: str, source: str = "map.csv") -> Island:
    """Parse and validate a map file (§4.1, rules M1-M7).

    Parameters
    ----------
    text : str
        The CSV text (UTF-8 decoded).
    source : str
        Name used in error messages.

    Returns
    -------
    Island

    Raises
    ------
    DataError
        ``map_invalid`` with the line, the field and the rule broken.
    """
    fragment = text.split("\n", 1)[0].rstrip() == "# fragment"
    cells: dict[tuple[int, int], HexInfo] = {}
    lines: dict[tuple[int, int], int] = {}
    labels: dict[str, tuple[int, int]] = {}

    def bad(line, fld, why):
        return DataError("map_invalid", source, line, fld, why)

    for line, row in csv_rows(text, HEADER, source, "map_invalid"):
        try:
            col, r = int(row["col"]), int(row["row"])
        except ValueError:
            raise bad(line, "col", "M1 col and row must be integers")
        if col < 0 or r < 0:
            raise bad(line, "col" if col < 0 else "row", "M1 coordinates start at 0")
        if (col, r) in cells:
            raise bad(line, "col", f"M1 hex {col},{r} is listed twice (first on line {lines[(col, r)]})")
        terrain, feature, label = row["terrain"], row["feature"], row["label"]
        if terrain not in TERRAINS:
            raise bad(line, "terrain", f"M1 unknown terrain {terrain!r}")
        if feature not in FEATURES:
            raise bad(line, "feature", f"M1 unknown feature {feature!r}")
        if terrain == "sea" and feature != "none":
            raise bad(line, "feature", "M3 a sea hex has no feature")
        if (feature == "none") != (label == ""):
            raise bad(line, "label", "M3 a hex has a label exactly when it has a feature")
        if feature != "none":
            kind = "checkpoint" if feature == "checkpoint" else "cache"
            if _label_kind(label) != kind:
                raise bad(line, "label", f"M3 {label!r} is not a {kind} label")
            if label in labels:
                raise bad(line, "label", f"M4/M5 label {label} appears twice")
            labels[label] = (col, r)
        cells[(col, r)] = HexInfo(terrain, feature, label)
        lines[(col, r)] = line
    if not cells:
        raise bad(None, None, "M1 the map lists no hex")
    width = 1 + max(c for c, _ in cells)
    height = 1 + max(r for _, r in cells)
    for (col, r), info in sorted(cells.items(), key=lambda kv: lines[kv[0]]):
        if info.terrain != "sea" and (col in (0, width - 1) or r in (0, height - 1)):
            raise bad(lines[(col, r)], "terrain", f"M2 hex {col},{r} is on the map's edge and must be sea")
    if not fragment:
        for rule, expected in (("M4", CHECKPOINT_LABELS), ("M5", CACHE_LABELS)):
            missing = [lab for lab in expected if lab not in labels]
            if missing:
                raise bad(None, "label", f"{rule} label {missing[0]} is missing "
                                         f"({len(expected) - len(missing)} of {len(expected)} present)")
    hexes = {to_axial(col, r): cells.get((col, r), HexInfo("sea")) for col in range(width) for r in range(height)}
    land = frozenset(h for h, info in hexes.items() if info.terrain in LAND_TERRAINS)
    if not land:
        raise bad(None, "terrain", "M6 the map has no land")
    start = min(land)
    reached = {start}
    todo = deque([start])
    while todo:
        for n in neighbours(todo.popleft()):
            if n in land and n not in reached:
                reached.add(n)
                todo.append(n)
    if len(reached) != len(land):
        lost = min(land - reached, key=lambda h: to_offset(*h))
        col, r = to_offset(*lost)
        raise bad(lines.get((col, r)), None, f"M6 land hex {col},{r} cannot be reached from the rest of the island")
    return Island(width, height, hexes, {lab: to_axial(*cr) for lab, cr in labels.items()}, fragment, land,
                  frozenset(h for h in land if hexes[h].feature == "none"))


def warnings(island: Island) -> list[str]:
    """Non-fatal remarks of §4.1: feature hexes next to each other."""
    out = []
    feats = {h for h, info in island.hexes.items() if info.feature != "none"}
    for h in sorted(feats, key=lambda x: to_offset(*x)):
        for n in neighbours(h):
            if n in feats and to_offset(*n) > to_offset(*h):
                out.append(f"feature hexes {island.hexes[h].label} and {island.hexes[n].label} are adjacent")
    return out


def write_map(island: Island, comment: str = "") -> str:
    """The map as ``map.csv`` text: every hex of the rectangle, sorted by col then row."""
    out = [f"# {line}" for line in comment.splitlines()] + [",".join(HEADER)]
    for col in range(island.width):
        for row in range(island.height):
            info = island.hexes[to_axial(col, row)]
            out.append(f"{col},{row},{info.terrain},{info.feature},{info.label}")
    return "\n".join(out) + "\n"


def load_map(where: str | Path, base_dir: Path | None = None) -> Island:
    """``"example"`` (the shipped island of §4.5) or a path to a ``map.csv``.

    A relative path is resolved against ``base_dir`` (the record's folder) when given.

    Raises
    ------
    DataError
        When the file cannot be read or breaks a rule.
    """
    if where == "example":
        text = resources.files(__package__).joinpath("data").joinpath("maps").joinpath("example.csv").read_text("utf-8")
        return read_map(text, "example.csv")
    path = Path(where)
    if not path.is_absolute() and base_dir is not None:
        path = base_dir / path
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DataError("map_invalid", str(where), None, None, f"cannot read the map ({exc.strerror or exc})")
    return read_map(text, str(where))
