"""Forbidden Desert declared as data: tiles, cards, adventurers, the meter, the rulings.

Every table here is ``shared/rules/forbidden-desert.md`` §1, §2 and §4 transcribed; nothing in
this module has behaviour beyond small lookups.
"""

from __future__ import annotations

from collections import Counter
from typing import NamedTuple

SIZE = 5  #: the board is SIZE x SIZE cells (§2)
START_STORM = (2, 2)
SAND_TOTAL = 48
SETUP_SAND = ((0, 2), (1, 1), (1, 3), (2, 0), (2, 4), (3, 1), (3, 3), (4, 2))  # §3.1 step 2
START_ACTIONS = 4
TIME_THROTTLE_ACTIONS = 2
WELL_WATER = 2

# --- tiles (§1.2) ------------------------------------------------------------------------
PARTS = ("engine", "navigation_deck", "propeller", "solar_crystal")  # alphabetical
AXES = ("row", "column")
CLUE_IDS = tuple(f"clue_{part}_{axis}" for part in ("propeller", "engine", "solar_crystal", "navigation_deck")
                 for axis in AXES)

#: kind -> the tile ids of that kind
TILE_IDS_BY_KIND: dict[str, tuple[str, ...]] = {
    "crash_site": ("crash_site",),
    "well": ("well_1", "well_2"),
    "mirage": ("mirage",),
    "tunnel": ("tunnel_1", "tunnel_2", "tunnel_3"),
    "gear": tuple(f"gear_{i}" for i in range(1, 9)),
    "clue": CLUE_IDS,
    "launch_pad": ("launch_pad",),
}
TILE_IDS: tuple[str, ...] = tuple(t for ids in TILE_IDS_BY_KIND.values() for t in ids)
KIND_OF_TILE: dict[str, str] = {t: k for k, ids in TILE_IDS_BY_KIND.items() for t in ids}
#: kinds whose tiles are identical for the rules, so ``reveals`` may name just the kind
NUMBERED_KINDS = ("well", "tunnel", "gear")

#: back classes; the crash site's back is unique and named after it
BACK_OF_KIND = {"crash_site": "crash_site", "well": "water_back", "mirage": "water_back",
                "tunnel": "dune_back", "gear": "dune_back", "clue": "dune_back", "launch_pad": "dune_back"}
BACKS = ("crash_site", "water_back", "dune_back")


def face_of(tile_id: str) -> str:
    """The *face* of a tile: its kind for interchangeable tiles (``gear_3`` -> ``gear``),
    else the tile id itself (``mirage``, ``launch_pad``, ``clue_engine_row``)."""
    kind = KIND_OF_TILE[tile_id]
    return kind if kind in NUMBERED_KINDS else tile_id


def back_of(tile_id: str) -> str:
    """The back class of a tile id: ``crash_site``, ``water_back`` or ``dune_back``."""
    return BACK_OF_KIND[KIND_OF_TILE[tile_id]]


#: back class -> the faces it hides, with multiplicity (§5.1 ``pool``)
FACES_UNDER_BACK: dict[str, Counter] = {
    "crash_site": Counter({"crash_site": 1}),
    "water_back": Counter({"well": 2, "mirage": 1}),
    "dune_back": Counter({"launch_pad": 1, "tunnel": 3, "gear": 8, **{c: 1 for c in CLUE_IDS}}),
}
BACK_COUNTS = {b: sum(c.values()) for b, c in FACES_UNDER_BACK.items()}  # 1, 3, 20


def part_of_clue(tile_id: str) -> str:
    """``clue_solar_crystal_row`` -> ``solar_crystal``."""
    return tile_id[len("clue_"):].rsplit("_", 1)[0]


def axis_of_clue(tile_id: str) -> str:
    """``clue_solar_crystal_row`` -> ``row``."""
    return tile_id.rsplit("_", 1)[1]


# --- storm deck (§1.4) -------------------------------------------------------------------
WIND_DIRECTIONS = "nesw"
#: the way the *tiles* slide for a wind card (§3.8.2)
VEC = {"n": (-1, 0), "e": (0, 1), "s": (1, 0), "w": (0, -1)}
STORM_COUNTS = Counter({
    **{f"wind_{d}_1": 3 for d in WIND_DIRECTIONS},
    **{f"wind_{d}_2": 2 for d in WIND_DIRECTIONS},
    **{f"wind_{d}_3": 1 for d in WIND_DIRECTIONS},
    "sun_beats_down": 4,
    "storm_picks_up": 3,
})
STORM_CARDS: tuple[str, ...] = tuple(sorted(STORM_COUNTS))
STORM_DECK_SIZE = sum(STORM_COUNTS.values())  # 31


def wind_of(card: str) -> tuple[str, int] | None:
    """``wind_n_2`` -> ``("n", 2)``; ``None`` for the sun and storm-picks-up cards."""
    if not card.startswith("wind_"):
        return None
    _, d, k = card.split("_")
    return d, int(k)


# --- equipment (§1.5) --------------------------------------------------------------------
EQUIPMENT_COUNTS = Counter({"dune_blaster": 3, "jet_pack": 3, "solar_shield": 2, "terrascope": 2,
                            "secret_water_reserve": 1, "time_throttle": 1})
STORM_TRACKER = "storm_tracker"
EQUIPMENT_IDS = tuple(sorted(EQUIPMENT_COUNTS)) + (STORM_TRACKER,)


def equipment_counts(storm_tracker_card: bool) -> Counter:
    """The equipment deck's contents: 12 cards, or 13 with the ``storm_tracker_card`` ruling."""
    deck = Counter(EQUIPMENT_COUNTS)
    if storm_tracker_card:
        deck[STORM_TRACKER] = 1
    return deck


# --- adventurers (§1.6) ------------------------------------------------------------------
class Adventurer(NamedTuple):
    id: str
    colour: str
    canteen: int


ADVENTURERS = {a.id: a for a in (
    Adventurer("archeologist", "red", 3),
    Adventurer("climber", "black", 3),
    Adventurer("explorer", "green", 4),
    Adventurer("meteorologist", "white", 4),
    Adventurer("navigator", "yellow", 4),
    Adventurer("water_carrier", "blue", 5),
)}

#: role actions and the adventurer allowed to take each (§3.4)
ROLE_ACTIONS = {"take_water": "water_carrier", "navigate": "navigator",
                "meteorologist_reduce": "meteorologist", "meteorologist_peek": "meteorologist"}

# --- storm meter (§1.8) ------------------------------------------------------------------
LADDER = {
    2: (2, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 6, 6),
    3: (2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 6, 6),
    4: (2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 6, 6),
    5: (2, 3, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 6, 6),
}
START_TICK = {"novice": 0, "normal": 1, "elite": 2, "legendary": 3}

# --- rulings (§4): key -> (default, allowed values) --------------------------------------
RULINGS = {
    "jet_pack_while_buried": (True, (True, False)),
    "navigator_moves_buried_pawn": (False, (False, True)),
    "climber_tunnels_to_blocked_tunnel": (False, (False, True)),
    "blocked_tunnel_shelters": (True, (True, False)),
    "solar_shield_judged": ("at_sun", ("at_sun", "at_play")),
    "reshuffle_includes_this_turns_cards": (True, (True, False)),
    "meteorologist_peek_short_deck": ("cards_left", ("cards_left",)),
    "launch_pad_must_be_excavated": (True, (True, False)),
    "win_checked": ("immediately", ("immediately",)),
    "first_player_tie": ("header", ("header",)),
    "storm_tracker_card": (False, (False, True)),
    "water_carrier_blocked_well": (True, (True, False)),
}
DEFAULT_RULINGS = {k: v[0] for k, v in RULINGS.items()}

RESULTS = ("ongoing", "won", "lost:thirst", "lost:sand_supply", "lost:storm_meter")

# --- geometry (§2) -----------------------------------------------------------------------
ORTHOGONAL = ((-1, 0), (0, 1), (1, 0), (0, -1))
DIAGONAL = ((-1, 1), (1, 1), (1, -1), (-1, -1))

Cell = tuple[int, int]


def on_board(cell: Cell) -> bool:
    """True when both coordinates of ``cell`` lie in 0..4."""
    return 0 <= cell[0] < SIZE and 0 <= cell[1] < SIZE


def neighbours(a: Cell, b: Cell, diagonal: bool) -> bool:
    """Orthogonal neighbours (|dr|+|dc| = 1), or also diagonal ones when ``diagonal``."""
    dr, dc = abs(a[0] - b[0]), abs(a[1] - b[1])
    return dr + dc == 1 or (diagonal and dr == 1 and dc == 1)


ALL_CELLS: tuple[Cell, ...] = tuple((r, c) for r in range(SIZE) for c in range(SIZE))
