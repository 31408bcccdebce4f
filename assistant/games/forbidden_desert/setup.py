"""Building the starting state from a record header (§3.1 set-up, §6.1 header, §6.2 position).

Only counts and geometry are validated (§6.2): ranges, totals, ids, and no pawn in the storm.
Whether a mid-game position could have arisen from real play is not judged.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Mapping

from .. import fields as F
from ..base import MalformedError
from .components import (ADVENTURERS, BACK_COUNTS, BACKS, EQUIPMENT_IDS, NUMBERED_KINDS, PARTS,
                         RULINGS, SAND_TOTAL, SETUP_SAND, SIZE, START_STORM, START_TICK, STORM_CARDS,
                         STORM_COUNTS, STORM_TRACKER, TILE_IDS, TILE_IDS_BY_KIND, back_of, equipment_counts,
                         on_board)
from .state import Config, State

SETUP_FIELDS = ("players", "difficulty", "first_player", "layout", "storm_deck", "equipment_deck", "position")
POSITION_FIELDS = ("storm", "meter", "sand", "excavated", "pawns", "water", "hands", "parts_held",
                   "parts_placed", "storm_discard", "equipment_out", "shields", "turn")


def new_state(setup: Mapping[str, Any], given_rulings: Mapping[str, Any]) -> State:
    """The state at the start of play described by a header.

    Parameters
    ----------
    setup : dict
        The header's ``setup`` object (§6.1).
    given_rulings : dict
        The header's ``rulings`` object (§4); absent keys take their defaults.

    Returns
    -------
    State

    Raises
    ------
    MalformedError
        With the field path (``setup.layout[0][3]``, ``rulings.win_checked``) of the first
        problem: a wrong count, an unknown id, a first player without the smallest canteen, or
        an inconsistent position.
    """
    rulings = F.rulings(given_rulings, RULINGS)
    F.known_keys(setup, "setup", SETUP_FIELDS)
    for key in ("players", "difficulty", "first_player", "layout"):
        if key not in setup:
            raise MalformedError(f"setup.{key}", "required field is missing")
    players = _players(setup["players"])
    n = len(players)
    difficulty = F.one_of(setup["difficulty"], "setup.difficulty", START_TICK, "difficulty")
    first = F.integer(setup["first_player"], "setup.first_player", 0, n - 1)
    smallest = min(ADVENTURERS[p].canteen for p in players)
    if ADVENTURERS[players[first]].canteen != smallest:
        raise MalformedError("setup.first_player",
                             f"seat {first} ({players[first]}) does not have the smallest canteen ({smallest})")
    position = F.obj(setup.get("position", {}), "setup.position")
    F.known_keys(position, "setup.position", POSITION_FIELDS)
    storm = _cell(position.get("storm", list(START_STORM)), "setup.position.storm")
    slots = _layout(setup["layout"], storm)
    equipment = equipment_counts(rulings["storm_tracker_card"])
    cfg = Config(players=players, difficulty=difficulty, first_player=first, rulings=rulings,
                 backs=tuple(back for _cell, back, _tile in slots),
                 digital_storm="storm_deck" in setup, digital_equipment="equipment_deck" in setup,
                 equipment_deck=equipment)
    grid: list[list[int | None]] = [[None] * SIZE for _ in range(SIZE)]
    for slot, (cell, _back, _tile) in enumerate(slots):
        grid[cell[0]][cell[1]] = slot
    state = State(cfg=cfg, grid=grid, cell_of=[cell for cell, _b, _t in slots],
                  ident=[tile for _c, _b, tile in slots], excavated=[False] * len(slots),
                  sand=[0] * len(slots), parts_on=[frozenset()] * len(slots), parked=frozenset(),
                  storm=storm, pawn=[], water=[], hands=[[] for _ in players], parts_held=frozenset(),
                  meter=START_TICK[difficulty], active=first, scoped=[frozenset()] * n)
    _apply_position(state, position, setup)
    return state


def _players(value: Any) -> tuple[str, ...]:
    players = F.array(value, "setup.players")
    if not 2 <= len(players) <= 5:
        raise MalformedError("setup.players", f"must list 2 to 5 adventurers, got {len(players)}")
    for i, p in enumerate(players):
        F.one_of(p, f"setup.players[{i}]", ADVENTURERS, "adventurer")
    if len(set(players)) != len(players):
        raise MalformedError("setup.players", "an adventurer is listed twice")
    return tuple(players)


def _cell(value: Any, field: str) -> tuple[int, int]:
    cell = F.int_pair(value, field)
    if not on_board(cell):
        raise MalformedError(field, f"cell {list(cell)} is off the 5x5 board")
    return cell


def _layout(value: Any, storm: tuple[int, int]) -> list[tuple[tuple[int, int], str, str | None]]:
    """(cell, back class, tile id or None) per slot, in row-major order."""
    rows = F.array(value, "setup.layout", SIZE)
    entries = []
    for r, row in enumerate(rows):
        F.array(row, f"setup.layout[{r}]", SIZE)
        for c, entry in enumerate(row):
            field = f"setup.layout[{r}][{c}]"
            if (r, c) == storm:
                if entry is not None:
                    raise MalformedError(field, "the storm cell must be null")
                continue
            if entry is None:
                raise MalformedError(field, f"null is only allowed at the storm {list(storm)}")
            if not (isinstance(entry, str) and (entry in TILE_IDS or entry in NUMBERED_KINDS or entry in BACKS)):
                raise MalformedError(field, f"unknown tile, kind or back {entry!r}")
            entries.append(((r, c), entry, field))
    explicit = Counter(e for _cell, e, _f in entries if e in TILE_IDS)
    for tile, count in explicit.items():
        if count > 1:
            raise MalformedError("setup.layout", f"tile {tile} appears {count} times")
    used = set(explicit)
    slots = []
    for cell, entry, field in entries:
        if entry in NUMBERED_KINDS:
            free = [t for t in TILE_IDS_BY_KIND[entry] if t not in used]
            if not free:
                raise MalformedError(field, f"more {entry} tiles than the game has")
            used.add(free[0])
            slots.append((cell, back_of(free[0]), free[0]))
        elif entry in TILE_IDS:
            slots.append((cell, back_of(entry), entry))
        else:
            slots.append((cell, entry, None))
    counts = Counter(back for _c, back, _t in slots)
    for back, expected in BACK_COUNTS.items():
        if counts[back] != expected:
            raise MalformedError("setup.layout", f"needs {expected} tiles with the {back} back, got {counts[back]}")
    return slots


def _seat_list(value: Any, field: str, n: int) -> list:
    return F.array(value, field, n)


def _apply_position(state: State, position: Mapping[str, Any], setup: Mapping[str, Any]) -> None:
    cfg, n = state.cfg, state.cfg.n
    P = "setup.position"
    if "meter" in position:
        state.meter = F.integer(position["meter"], f"{P}.meter", 0, len(cfg.ladder) - 1)
    # sand (§6.2: replaces the default entirely)
    if "sand" in position:
        seen = set()
        for i, item in enumerate(F.array(position["sand"], f"{P}.sand")):
            field = f"{P}.sand[{i}]"
            if not (isinstance(item, list) and len(item) == 3 and all(F.is_int(v) for v in item)):
                raise MalformedError(field, f"must be [row, col, count], got {item!r}")
            cell = _cell(item[:2], field)
            if cell == state.storm:
                raise MalformedError(field, "the storm cell holds no sand")
            if cell in seen:
                raise MalformedError(field, f"cell {list(cell)} is listed twice")
            if item[2] < 0:
                raise MalformedError(field, "a sand count cannot be negative")
            seen.add(cell)
            state.sand[state.slot_at(cell)] = item[2]
    else:
        for cell in SETUP_SAND:
            slot = state.slot_at(cell)
            if slot is None:
                raise MalformedError(f"{P}.sand", f"the default sand cell {list(cell)} is the storm; give the sand")
            state.sand[slot] = 1
    if sum(state.sand) > SAND_TOTAL:
        raise MalformedError(f"{P}.sand", f"{sum(state.sand)} markers on the board; the game has {SAND_TOTAL}")
    for i, item in enumerate(F.array(position.get("excavated", []), f"{P}.excavated")):
        field = f"{P}.excavated[{i}]"
        slot = state.slot_at(_cell(item, field))
        if slot is None:
            raise MalformedError(field, "the storm cell has no tile")
        if state.ident[slot] is None:
            raise MalformedError(field, "an excavated cell's layout entry must name its face")
        if state.excavated[slot]:
            raise MalformedError(field, "cell listed twice")
        state.excavated[slot] = True
    # pawns, water, hands
    crash = state.slot_of_tile("crash_site")
    if crash is None:  # the layout always names the crash site; kept for safety
        raise MalformedError("setup.layout", "the crash site is missing")
    state.pawn = [crash] * n
    if "pawns" in position:
        for seat, item in enumerate(_seat_list(position["pawns"], f"{P}.pawns", n)):
            field = f"{P}.pawns[{seat}]"
            slot = state.slot_at(_cell(item, field))
            if slot is None:
                raise MalformedError(field, "no pawn may stand in the storm")
            state.pawn[seat] = slot
    state.water = [cfg.canteen(s) for s in range(n)]
    if "water" in position:
        for seat, item in enumerate(_seat_list(position["water"], f"{P}.water", n)):
            state.water[seat] = F.integer(item, f"{P}.water[{seat}]", 0, cfg.canteen(seat))
    allowed_cards = [c for c in EQUIPMENT_IDS if c != STORM_TRACKER or cfg.rulings["storm_tracker_card"]]
    if "hands" in position:
        for seat, hand in enumerate(_seat_list(position["hands"], f"{P}.hands", n)):
            F.array(hand, f"{P}.hands[{seat}]")
            state.hands[seat] = [F.one_of(c, f"{P}.hands[{seat}][{j}]", allowed_cards, "equipment card")
                                 for j, c in enumerate(hand)]
    state.equipment_out = [F.one_of(c, f"{P}.equipment_out[{j}]", allowed_cards, "equipment card")
                           for j, c in enumerate(F.array(position.get("equipment_out", []), f"{P}.equipment_out"))]
    # parts
    held = [F.one_of(p, f"{P}.parts_held[{i}]", PARTS, "part")
            for i, p in enumerate(F.array(position.get("parts_held", []), f"{P}.parts_held"))]
    if len(set(held)) != len(held):
        raise MalformedError(f"{P}.parts_held", "a part is listed twice")
    state.parts_held = frozenset(held)
    placed = F.obj(position.get("parts_placed", {}), f"{P}.parts_placed")
    for part, where in placed.items():
        field = f"{P}.parts_placed.{part}"
        F.one_of(part, field, PARTS, "part")
        if part in state.parts_held:
            raise MalformedError(field, "a part cannot be both held and placed")
        cell = _cell(where, field)
        if cell == state.storm:
            state.parked |= {part}
        else:
            slot = state.slot_at(cell)
            state.parts_on[slot] = state.parts_on[slot] | {part}
    _storm_deck(state, position, setup)
    _equipment_deck(state, setup, allowed_cards)
    # shields and turn
    shields = [F.integer(s, f"{P}.shields[{i}]", 0, n - 1)
               for i, s in enumerate(F.array(position.get("shields", []), f"{P}.shields"))]
    for seat in shields:
        state.shields[seat] = (None if cfg.rulings["solar_shield_judged"] == "at_sun"
                               else frozenset({seat, *state.seats_on(state.pawn[seat])}))
    if "turn" in position:
        state.active = F.integer(position["turn"], f"{P}.turn", 0, n - 1)


def _storm_deck(state: State, position: Mapping[str, Any], setup: Mapping[str, Any]) -> None:
    P = "setup.position"
    discard = [F.one_of(c, f"{P}.storm_discard[{i}]", STORM_CARDS, "storm card")
               for i, c in enumerate(F.array(position.get("storm_discard", []), f"{P}.storm_discard"))]
    over = Counter(discard) - STORM_COUNTS
    if over:
        raise MalformedError(f"{P}.storm_discard", f"more copies of {sorted(over)[0]} than the deck has")
    state.discard = discard
    if state.cfg.digital_storm:
        pile = [F.one_of(c, f"setup.storm_deck[{i}]", STORM_CARDS, "storm card")
                for i, c in enumerate(F.array(setup["storm_deck"], "setup.storm_deck"))]
        if Counter(pile) + Counter(discard) != STORM_COUNTS:
            raise MalformedError("setup.storm_deck",
                                 "the draw pile and the discard pile together must be the 31 storm cards")
        state.pile = pile
        state.pool = Counter()
    else:
        state.pool = STORM_COUNTS - Counter(discard)
        state.pile = [None] * sum(state.pool.values())
    state.pile_seen = [False] * len(state.pile)


def _equipment_deck(state: State, setup: Mapping[str, Any], allowed: list[str]) -> None:
    """Digital decks list the current draw pile: pile + hands + used = the whole deck."""
    in_play = Counter(state.equipment_out)
    for hand in state.hands:
        in_play.update(hand)
    full = state.cfg.equipment_deck
    if state.cfg.digital_equipment:
        pile = [F.one_of(c, f"setup.equipment_deck[{i}]", allowed, "equipment card")
                for i, c in enumerate(F.array(setup["equipment_deck"], "setup.equipment_deck"))]
        if Counter(pile) + in_play != full:
            raise MalformedError("setup.equipment_deck", f"the draw pile, the hands and the used cards together "
                                 f"must be the {sum(full.values())} equipment cards")
        state.equip_pile = pile
    elif in_play - full:
        raise MalformedError("setup.position.hands", "more copies of an equipment card than the deck has")
