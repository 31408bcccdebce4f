"""A new game from the tablet: the referee's form and each Discovery Island player's secret
choices, read and checked field by field into a header ``setup`` (rules: each game's §set-up in
``shared/rules/``).

Everything here takes the decoded JSON a tablet posted and either returns what it means or
raises :class:`FormError` with one sentence naming the field; nothing a client sends raises
anything else. What nobody chooses at the table (a Forbidden Desert deal, the digital
checkometer's deal) is drawn by the assistant, as :func:`assistant.server.serve.default_setup`
does for ``serve --game``.
"""

from __future__ import annotations

import random
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..games import get_game

#: Longest player name accepted (characters).
NAME_MAX = 32
#: Players per game (rules: Forbidden Desert §3.1, Discovery Island §5.1, Scout Pennant §5.1).
PLAYERS = {"forbidden-desert": (2, 5), "discovery-island": (2, 2), "scout-pennant": (2, 6)}
#: Scout Pennant board radii offered (rules: at least 2; the printed mat is 4, drawings stay legible to 8).
RADII = (2, 8)
#: Fields of the form, per game (``game`` and ``replace`` besides).
FIELDS = {"forbidden-desert": ("players", "difficulty"),
          "discovery-island": ("players", "map", "data", "first_player", "start_on_feature"),
          "scout-pennant": ("players", "radius", "variant", "first_player")}
#: Fields of one player, per game.
PLAYER_FIELDS = {"forbidden-desert": ("name", "adventurer"), "discovery-island": ("name",),
                 "scout-pennant": ("name", "colour")}


class FormError(ValueError):
    """A field of a form that cannot be used: ``field`` names it, ``str(exc)`` is one sentence."""

    def __init__(self, field_name: str, message: str):
        super().__init__(message)
        self.field = field_name


@dataclass
class NewGame:
    """A game the referee asked for: ``setup`` is the header's ``setup`` (for Discovery Island
    still without the players' secret choices, ``equipment`` and ``landing``), ``rulings`` the
    header's ``rulings`` (only those differing from the rules' defaults; records.md), ``names``
    one per seat; ``island`` and ``bundle`` are Discovery Island's loaded map and data."""

    game_id: str
    names: list[str]
    setup: dict[str, Any]
    island: Any = None
    bundle: Any = None
    secret: bool = field(default=False)
    rulings: dict[str, Any] = field(default_factory=dict)

    @property
    def seats(self) -> int:
        """Number of players."""
        return len(self.names)


def _int(value: Any, name: str, low: int, high: int, words: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise FormError(name, f"Choose {words} from {low} to {high}.")
    return value


def _choice(value: Any, name: str, allowed: Any, words: str) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise FormError(name, f"Choose the {words} among {', '.join(sorted(allowed))}.")
    return value


def _object(value: Any, name: str, allowed: tuple[str, ...], words: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise FormError(name, f"The {words} must be a JSON object.")
    unknown = sorted(k for k in value if k not in allowed)
    if unknown:
        raise FormError(name, f"The {words} has no field {unknown[0][:40]!r}; its fields are {', '.join(allowed)}.")
    return value


def player_name(value: Any, seat: int) -> str:
    """A player's name as typed: at most :data:`NAME_MAX` printable characters, trimmed;
    empty or absent gives ``"Player N"``.

    Raises
    ------
    FormError
        For a name that is not a string, too long, or holds control characters.
    """
    name = f"players[{seat}].name"
    if value is None:
        return f"Player {seat + 1}"
    if not isinstance(value, str):
        raise FormError(name, f"Player {seat + 1}'s name must be text.")
    value = value.strip()
    if len(value) > NAME_MAX:
        raise FormError(name, f"Player {seat + 1}'s name is longer than {NAME_MAX} characters.")
    if any(unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn") for c in value):
        raise FormError(name, f"Player {seat + 1}'s name holds a control or unassigned character.")
    return value or f"Player {seat + 1}"


def options() -> dict[str, Any]:
    """What the new-game form offers (public: nothing in it is secret).

    Returns
    -------
    dict
        ``games`` (id -> ``title``, ``players`` [low, high]), ``adventurers`` (id, pawn colour,
        canteen), ``difficulties``, ``colours`` (Scout Pennant's), ``radius`` [low, high, default],
        ``variants``, ``name_max``.
    """
    from ..games.forbidden_desert.components import ADVENTURERS, START_TICK
    from ..games.scout_pennant.simulate import COLOURS

    return {"games": {g: {"title": get_game(g).title, "players": list(PLAYERS[g])} for g in PLAYERS},
            "adventurers": [{"id": a.id, "colour": a.colour, "canteen": a.canteen} for a in ADVENTURERS.values()],
            "difficulties": list(START_TICK), "colours": list(COLOURS), "radius": [*RADII, 4],
            "variants": ["free", "d8"], "name_max": NAME_MAX}


def read_form(form: Any, rng: random.Random) -> NewGame:
    """The game a referee's form asks for.

    Parameters
    ----------
    form : object
        The decoded JSON: ``{"game": G, "players": [{"name": ..., ...}, ...], ...}`` with the
        fields of :data:`FIELDS` (``replace`` is the caller's and ignored here).
    rng : random.Random
        Draws what the rules leave to chance (Forbidden Desert's deal and first player, a first
        player left to ``"random"``).

    Returns
    -------
    NewGame

    Raises
    ------
    FormError
        For the first field that cannot be used (one sentence).
    """
    if not isinstance(form, dict):
        raise FormError("(form)", "The new game must be a JSON object.")
    game_id = _choice(form.get("game"), "game", PLAYERS, "game")
    _object(form, "(form)", ("game", "replace", *FIELDS[game_id]), "new game")
    players = form.get("players")
    low, high = PLAYERS[game_id]
    if not isinstance(players, list) or not low <= len(players) <= high:
        raise FormError("players", f"{get_game(game_id).title} is played by "
                                   f"{low if low == high else f'{low} to {high}'} players.")
    rows = [_object(p, f"players[{i}]", PLAYER_FIELDS[game_id], f"player {i + 1}") for i, p in enumerate(players)]
    names = [player_name(p.get("name"), i) for i, p in enumerate(rows)]
    if len(set(names)) != len(names):
        raise FormError("players", "Two players have the same name; give each a different one.")
    return {"forbidden-desert": _desert, "scout-pennant": _pennant, "discovery-island": _island}[game_id](
        form, rows, names, rng)


def _distinct(values: list[str], what: str) -> None:
    if len(set(values)) != len(values):
        raise FormError("players", f"Two players have the same {what}; each needs a different one.")


def _first(form: dict, seats: int, rng: random.Random) -> int:
    value = form.get("first_player", "random")
    return rng.randrange(seats) if value == "random" else _int(value, "first_player", 0, seats - 1, "the first player's seat")


def _desert(form: dict, rows: list[dict], names: list[str], rng: random.Random) -> NewGame:
    from ..games.forbidden_desert.components import ADVENTURERS, START_TICK
    from ..games.forbidden_desert.simulate import random_setup

    chosen = [_choice(p.get("adventurer"), f"players[{i}].adventurer", ADVENTURERS, f"adventurer of player {i + 1}")
              for i, p in enumerate(rows)]
    _distinct(chosen, "adventurer")
    difficulty = _choice(form.get("difficulty"), "difficulty", START_TICK, "difficulty")
    return NewGame("forbidden-desert", names, random_setup(rng, len(chosen), difficulty, chosen))


def _pennant(form: dict, rows: list[dict], names: list[str], rng: random.Random) -> NewGame:
    from ..games.scout_pennant.simulate import COLOURS

    colours = [_choice(p.get("colour"), f"players[{i}].colour", COLOURS, f"colour of player {i + 1}")
               for i, p in enumerate(rows)]
    _distinct(colours, "colour")
    radius = _int(form.get("radius", 4), "radius", *RADII, "the board radius")
    variant = _choice(form.get("variant", "free"), "variant", ("free", "d8"), "variant")
    setup = {"radius": radius, "players": [{"seat": i, "colour": c} for i, c in enumerate(colours)],
             "first_player": _first(form, len(colours), rng), "variant": variant}
    return NewGame("scout-pennant", names, setup)


def _server_path(value: Any, name: str, default: str) -> str:
    """``default`` (the bundled one) or a path on the server, made absolute (a record then
    finds it wherever it is kept)."""
    if isinstance(value, str):
        value = value.strip()
    if value is None or value == default:
        return default
    if not isinstance(value, str) or not value or len(value) > 4096 or "\x00" in value:
        raise FormError(name, f"Give the {name} as {default!r} or a path on the server.")
    try:
        value.encode("utf-8")
        return str(Path(value).expanduser().resolve())
    except (UnicodeError, RuntimeError, OSError):     # a lone surrogate; "~nobody/..."; a symlink loop
        raise FormError(name, f"The {name} {value[:40]!r} is not a path on the server.") from None


def _loaded(load: Any, where: str, name: str) -> Any:
    """``load(where)``, a Discovery Island map or data loader, with what it cannot read said as
    the ``name`` field's one sentence (a rule broken, a file missing or not UTF-8 text)."""
    from ..games.discovery_island.data import DataError

    try:
        return load(where)
    except DataError as exc:
        raise FormError(name, f"The {name} cannot be used: {str(exc)[:200]}.") from None
    except UnicodeDecodeError:
        raise FormError(name, f"The {name} cannot be used: {where[:200]} (or a file in it) is not UTF-8 text.") from None


def _island(form: dict, rows: list[dict], names: list[str], rng: random.Random) -> NewGame:
    from ..games.discovery_island.data import load_bundle
    from ..games.discovery_island.island import load_map

    where = _server_path(form.get("map"), "map", "example")
    data = _server_path(form.get("data"), "data", "default")
    if where != "example" and Path(where).exists() and not Path(where).is_file():
        raise FormError("map", f"The map cannot be used: {where[:200]} is not a file.")
    on_feature = form.get("start_on_feature", False)
    if not isinstance(on_feature, bool):
        raise FormError("start_on_feature", "Give start_on_feature as true (a landing may be a checkpoint or "
                                            "cache) or false (the rules' reading: land without a feature).")
    island = _loaded(load_map, where, "map")
    if not island.caches() or not island.landing_pool(on_feature):
        raise FormError("map", "The map has no cache or no land hex to land on" + ("." if on_feature else
                               " without a feature."))
    bundle = _loaded(load_bundle, data, "data")
    setup = {"map": where, "data": data, "first_player": _first(form, 2, rng)}
    return NewGame("discovery-island", names, setup, island, bundle, secret=True,
                   rulings={"start_on_feature": True} if on_feature else {})


def choice_options(game: NewGame) -> dict[str, Any]:
    """What a Discovery Island player's secret-choice form offers (the same for both seats):
    ``cards`` (name, cost, protects, terrain uses), ``budget``, the map's ``width`` and ``height``,
    ``start_on_feature`` (the ruling: whether a landing may be a checkpoint or cache)."""
    from ..games.discovery_island.data import EQUIPMENT_BUDGET

    cards = [{"name": c.name, "cost": c.cost, "protects": sorted(c.protects),
              "terrain_uses": dict(c.terrain_uses)} for c in game.bundle.cards.values()]
    return {"cards": cards, "budget": EQUIPMENT_BUDGET, "width": game.island.width, "height": game.island.height,
            "start_on_feature": bool(game.rulings.get("start_on_feature"))}


def read_choice(game: NewGame, seat: int, choice: Any) -> dict[str, Any]:
    """One Discovery Island player's secret choices (rules §5.1 steps 2 and 3), checked against
    that player's own input only (so a refusal never depends on the opponent's secret).

    Parameters
    ----------
    game : NewGame
    seat : int
        The choosing player (0 or 1); the landing chosen is the opponent's, ``landing[1 - seat]``.
    choice : object
        ``{"equipment": [card names], "landing": [col, row]}``.

    Returns
    -------
    dict
        ``{"equipment": [...], "landing": [col, row]}``, normalised.

    Raises
    ------
    FormError
        Unknown or repeated cards, more than the budget, a landing hex off the map, in the sea
        or, unless the game's ruling ``start_on_feature`` allows it (rules §5.11), on a
        checkpoint or cache.
    """
    from ..games.discovery_island.data import EQUIPMENT_BUDGET
    from ..games.discovery_island.geometry import to_axial

    choice = _object(choice, "(choice)", ("equipment", "landing"), "choice")
    cards = choice.get("equipment")
    if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
        raise FormError("equipment", "Give your equipment as a list of card names (it may be empty).")
    unknown = [c for c in cards if c not in game.bundle.cards]
    if unknown:
        raise FormError("equipment", f"There is no card {unknown[0][:40]!r}; choose among "
                                     f"{', '.join(sorted(game.bundle.cards))}.")
    if len(set(cards)) != len(cards):
        raise FormError("equipment", "Each card may be chosen once only.")
    cost = sum(game.bundle.cards[c].cost for c in cards)
    if cost > EQUIPMENT_BUDGET:
        raise FormError("equipment", f"Your cards cost {cost} points; at most {EQUIPMENT_BUDGET} may be spent.")
    hexes = choice.get("landing")
    if (not isinstance(hexes, list) or len(hexes) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) and abs(v) < 10_000 for v in hexes)):
        raise FormError("landing", "Give your opponent's landing hex as [column, row], e.g. [12, 8].")
    col, row = hexes
    island, h = game.island, to_axial(col, row)
    if not island.on_map(h):
        raise FormError("landing", f"{col},{row} is outside the {island.width}x{island.height} map.")
    info = island.info(h)
    if info.terrain == "sea":
        raise FormError("landing", f"{col},{row} is sea; your opponent must land on land.")
    if info.feature != "none" and not game.rulings.get("start_on_feature"):
        raise FormError("landing", f"{col},{row} is {info.label}; your opponent must land on a hex without a feature.")
    return {"equipment": list(cards), "landing": [col, row]}


def full_setup(game: NewGame, choices: dict[int, dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """Discovery Island's whole ``setup`` once both players have chosen: ``equipment[p]`` is
    player ``p``'s cards, ``landing[p]`` the hex player ``1 - p`` chose, and a digital
    checkometer dealt in secret with ``rng`` (§5.1 step 4)."""
    from ..games.discovery_island.setup import deal_checkometer

    return {**game.setup, "equipment": [choices[0]["equipment"], choices[1]["equipment"]],
            "landing": [choices[1]["landing"], choices[0]["landing"]],
            "checkometer": deal_checkometer(game.island, rng)}
