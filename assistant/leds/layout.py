"""Layout files: which LEDs light which board cell, and how bright the strip may get.

A layout is a TOML (``.toml``) or JSON (``.json``) file::

    name = "Forbidden Desert mat"
    game = "forbidden-desert"          # optional: the mat the layout fits
    led_count = 26                     # optional: LEDs on the strip (default: highest index + 1)

    [power]
    ma_per_led = 60                    # mA one LED draws at full white
    supply_ma = 2000                   # the 5 V supply's rating, mA
    brightness = 1.0                   # your own cap, 0..1

    [grid]                             # optional: a regular lattice laid by one strip
    kind = "square"                    # "square" (keys "row,col"), "hex-rect" (keys "col,row")
                                       # or "hex-hexagon" (axial keys "q,r", with radius = R)
    rows = 5
    cols = 5
    run = "rows"                       # the strip runs along rows or "columns"
    serpentine = true                  # every other run goes back the other way
    leds_per_cell = 1
    first_led = 0

    [cells]                            # explicit cells, added to / overriding the grid
    card = [25]                        # a named place, or "row,col" = [LED, ...]

Cell keys are tuples of ints (``(row, col)``, ``(col, row)``, ``(q, r)`` as in
:func:`assistant.vision.mats.mat_layout`) or plain names such as ``"card"``.

The power cap: the strip may draw at most ``ma_per_led x led_count`` mA at full white, so every
colour is scaled by ``min(brightness, supply_ma / (ma_per_led x led_count))`` and the strip never
draws more than the supply's rating, whatever is shown.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

CellKey = tuple | str

GAME_LAYOUTS = {"forbidden-desert": "forbidden-desert.toml", "discovery-island": "discovery-island.toml",
                "scout-pennant": "scout-pennant.toml"}


class LayoutError(ValueError):
    """A layout file that cannot be used; the message names the file, the field and why."""


@dataclass(frozen=True)
class Layout:
    """A parsed layout.

    Attributes
    ----------
    name : str
    game : str or None
    led_count : int
        LEDs on the strip (frames always carry this many).
    cells : dict
        Cell key -> tuple of LED indices (each < ``led_count``, no LED in two cells).
    ma_per_led : float
        mA one LED draws at full white.
    supply_ma : float
        The supply's rating in mA.
    brightness : float
        The user's cap, 0..1.
    source : str
        Where it was read from (for messages).
    surface : str
        What the LEDs sit under: ``"mat"`` (the play mat's cells, the default) or ``"island"``
        (a Discovery Island map, keys ``col,row`` as printed), which shows the walker's possible
        positions.
    """

    name: str
    game: str | None
    led_count: int
    cells: dict = field(hash=False)
    ma_per_led: float = 60.0
    supply_ma: float = 2000.0
    brightness: float = 1.0
    source: str = "<layout>"
    surface: str = "mat"

    @property
    def full_white_ma(self) -> float:
        """mA the strip would draw with every LED at full white (``ma_per_led x led_count``)."""
        return self.ma_per_led * self.led_count

    @property
    def max_brightness(self) -> float:
        """The scale 0..1 applied to every colour: ``min(brightness, supply_ma / full_white_ma)``."""
        return max(0.0, min(self.brightness, 1.0, self.supply_ma / self.full_white_ma))

    def leds_of(self, key: CellKey) -> tuple[int, ...]:
        """The LED indices of cell ``key``.

        Raises
        ------
        KeyError
            When the layout has no such cell (the message names the layout file).
        """
        try:
            return self.cells[key]
        except KeyError:
            raise KeyError(f"{self.source}: no cell {key!r} in this layout.") from None


def _err(source: str, fld: str, why: str) -> LayoutError:
    return LayoutError(f"{source}: field '{fld}' {why}.")


def _pos_int(source: str, table: dict, name: str, prefix: str, default=None, minimum: int = 1) -> int:
    value = table.get(name, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise _err(source, prefix + name, f"must be an integer >= {minimum}, not {value!r}")
    return value


def _number(source: str, table: dict, name: str, default: float, lo: float, hi: float | None) -> float:
    value = table.get(name, default)
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value < lo or (hi is not None and value > hi):
        bound = f"between {lo} and {hi}" if hi is not None else f"a number >= {lo}"
        raise _err(source, "power." + name, f"must be {bound}, not {value!r}")
    return float(value)


def _runs(keys_by_run: list[list[tuple]], serpentine: bool, per_cell: int, first: int) -> dict:
    out, led = {}, first
    for i, run in enumerate(keys_by_run):
        for key in (reversed(run) if serpentine and i % 2 else run):
            out[key] = tuple(range(led, led + per_cell))
            led += per_cell
    return out


def grid_cells(kind: str, *, rows: int = 0, cols: int = 0, radius: int = 0, run: str = "rows",
               serpentine: bool = True, leds_per_cell: int = 1, first_led: int = 0) -> dict:
    """Cell key -> LED indices for a strip laid over a regular lattice.

    ``kind`` is ``"square"`` (``rows x cols``, keys ``(row, col)``), ``"hex-rect"`` (``cols x
    rows`` odd-q hexes, keys ``(col, row)``) or ``"hex-hexagon"`` (a hexagon of ``radius``,
    axial keys ``(q, r)``). The strip starts at the first cell of the first run (top-left),
    follows ``run`` (``"rows"`` or ``"columns"``) and, if ``serpentine``, comes back along the
    next run. Returns a dict of ``key -> tuple of int``.

    Raises
    ------
    ValueError
        For an unknown ``kind`` or ``run``.
    """
    if run not in ("rows", "columns"):
        raise ValueError(f"run must be 'rows' or 'columns', not {run!r}.")
    if kind == "square":
        if run == "rows":
            runs = [[(r, c) for c in range(cols)] for r in range(rows)]
        else:
            runs = [[(r, c) for r in range(rows)] for c in range(cols)]
    elif kind == "hex-rect":
        if run == "columns":
            runs = [[(c, r) for r in range(rows)] for c in range(cols)]
        else:
            runs = [[(c, r) for c in range(cols)] for r in range(rows)]
    elif kind == "hex-hexagon":
        ks = [(q, r) for q in range(-radius, radius + 1) for r in range(-radius, radius + 1)
              if abs(q) + abs(r) + abs(q + r) <= 2 * radius]
        if run == "columns":
            runs = [[k for k in ks if k[0] == q] for q in range(-radius, radius + 1)]
        else:   # rows of equal screen height: r + q/2, i.e. 2r + q
            heights = sorted({2 * r + q for q, r in ks})
            runs = [sorted((k for k in ks if 2 * k[1] + k[0] == h)) for h in heights]
    else:
        raise ValueError(f"grid kind must be 'square', 'hex-rect' or 'hex-hexagon', not {kind!r}.")
    return _runs(runs, serpentine, leds_per_cell, first_led)


def parse_key(text: str) -> CellKey:
    """A cell key from its text in a layout file: ``"2,3"`` -> ``(2, 3)``, ``"-1,4"`` ->
    ``(-1, 4)``, ``"card"`` -> ``"card"``.

    Raises
    ------
    ValueError
        When the text is empty or mixes numbers and words (``"2,x"``).
    """
    parts = [p.strip() for p in text.split(",")]
    if len(parts) == 1 and parts[0] and not parts[0].lstrip("-").isdigit():
        return parts[0]
    try:
        return tuple(int(p) for p in parts)
    except ValueError:
        raise ValueError(f"cell key {text!r} is neither a name nor comma-separated integers.") from None


def parse_layout(data: dict, source: str = "<layout>") -> Layout:
    """A :class:`Layout` from the decoded contents of a layout file (see the module note).

    ``source`` names the file in error messages.

    Raises
    ------
    LayoutError
        For a missing or malformed field, an LED index beyond ``led_count`` or an LED used by
        two cells; the message names ``source``, the field and why.
    """
    if not isinstance(data, dict):
        raise LayoutError(f"{source}: the file must hold a table/object at the top, not {type(data).__name__}.")
    name = data.get("name", Path(source).stem)
    if not isinstance(name, str):
        raise _err(source, "name", f"must be a string, not {name!r}")
    game = data.get("game")
    if game is not None and not isinstance(game, str):
        raise _err(source, "game", f"must be a string, not {game!r}")
    surface = data.get("surface", "mat")
    if surface not in ("mat", "island"):
        raise _err(source, "surface", f"must be 'mat' or 'island', not {surface!r}")
    cells: dict = {}
    grid = data.get("grid")
    if grid is not None:
        if not isinstance(grid, dict):
            raise _err(source, "grid", "must be a table")
        kind = grid.get("kind")
        if kind not in ("square", "hex-rect", "hex-hexagon"):
            raise _err(source, "grid.kind", f"must be 'square', 'hex-rect' or 'hex-hexagon', not {kind!r}")
        run = grid.get("run", "rows" if kind == "square" else "columns")
        if run not in ("rows", "columns"):
            raise _err(source, "grid.run", f"must be 'rows' or 'columns', not {run!r}")
        serpentine = grid.get("serpentine", True)
        if not isinstance(serpentine, bool):
            raise _err(source, "grid.serpentine", f"must be true or false, not {serpentine!r}")
        dims = {"radius": _pos_int(source, grid, "radius", "grid.")} if kind == "hex-hexagon" else \
            {"rows": _pos_int(source, grid, "rows", "grid."), "cols": _pos_int(source, grid, "cols", "grid.")}
        cells.update(grid_cells(kind, run=run, serpentine=serpentine,
                                leds_per_cell=_pos_int(source, grid, "leds_per_cell", "grid.", 1),
                                first_led=_pos_int(source, grid, "first_led", "grid.", 0, minimum=0), **dims))
    extra = data.get("cells", {})
    if not isinstance(extra, dict):
        raise _err(source, "cells", "must be a table of cell = [LED, ...]")
    for text, leds in extra.items():
        try:
            key = parse_key(str(text))
        except ValueError as exc:
            raise _err(source, f"cells.{text}", f"has a bad key ({exc})") from None
        if isinstance(leds, int) and not isinstance(leds, bool):
            leds = [leds]
        if not isinstance(leds, list) or not leds or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                                                            for v in leds):
            raise _err(source, f"cells.{text}", f"must be a non-empty list of LED indices >= 0, not {leds!r}")
        cells[key] = tuple(leds)
    if not cells:
        raise LayoutError(f"{source}: the layout maps no cells (give a [grid] table, a [cells] table or both).")
    owner: dict[int, CellKey] = {}
    for key, leds in cells.items():
        for led in leds:
            if led in owner:
                raise _err(source, "cells", f"maps LED {led} to both cell {owner[led]!r} and cell {key!r}")
            owner[led] = key
    highest = max(owner) + 1
    led_count = _pos_int(source, data, "led_count", "", highest)
    if led_count < highest:
        raise _err(source, "led_count", f"is {led_count} but the cells use LED index {highest - 1}")
    power = data.get("power", {})
    if not isinstance(power, dict):
        raise _err(source, "power", "must be a table")
    return Layout(name=name, game=game, led_count=led_count, cells=cells,
                  ma_per_led=_number(source, power, "ma_per_led", 60.0, 1e-3, None),
                  supply_ma=_number(source, power, "supply_ma", 2000.0, 0.0, None),
                  brightness=_number(source, power, "brightness", 1.0, 0.0, 1.0), source=source, surface=surface)


def load_layout(path: str | Path) -> Layout:
    """Read a layout file (``.toml`` or ``.json``), or a bundled one by game id
    (``"forbidden-desert"``, ``"discovery-island"``, ``"scout-pennant"``).

    Raises
    ------
    LayoutError
        When the file is missing or unreadable, is not valid TOML/JSON, has another extension,
        or is malformed (see :func:`parse_layout`).
    """
    if str(path) in GAME_LAYOUTS:
        ref = resources.files(__package__) / "layouts" / GAME_LAYOUTS[str(path)]
        return parse_layout(tomllib.loads(ref.read_text(encoding="utf-8")), f"layouts/{GAME_LAYOUTS[str(path)]}")
    path = Path(path)
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise LayoutError(f"{source}: cannot read the layout file ({exc.strerror or exc}).") from None
    suffix = path.suffix.lower()
    try:
        if suffix == ".toml":
            data = tomllib.loads(text)
        elif suffix == ".json":
            data = json.loads(text)
        else:
            raise LayoutError(f"{source}: a layout file must end in .toml or .json, not {suffix or 'nothing'!r}.")
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise LayoutError(f"{source}: not valid {suffix[1:].upper()} ({exc}).") from None
    return parse_layout(data, source)
