"""The Forbidden Desert game state and the board queries every rule uses.

The board holds 24 physical tiles, each tracked as a *slot* (§5.1): slot numbers are given in
row-major order of the set-up layout and follow their tile as it slides. Pawns stand on slots,
not cells ("pawns ride their tiles", §3.2), and so do sand markers and placed parts.

A state is only ever changed on a private copy inside :func:`rules.apply`; everything outside
treats it as read-only.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Mapping

from ..base import Refusal
from .components import (ADVENTURERS, ALL_CELLS, DIAGONAL, KIND_OF_TILE, LADDER, ORTHOGONAL,
                         SAND_TOTAL, START_ACTIONS, Cell, on_board)


@dataclass(frozen=True)
class Config:
    """What the header fixes for the whole game (never changes during play).

    Attributes
    ----------
    players : tuple of str
        Adventurer ids in seat (= playing) order.
    difficulty : str
    first_player : int
    rulings : dict
        Every ruling of §4, defaults filled in.
    backs : tuple of str
        Back class of each of the 24 slots.
    digital_storm, digital_equipment : bool
        Whether the header gave the deck order (the assistant's own deck) or the table's
        physical deck is followed card by card.
    equipment_deck : collections.Counter
        The full equipment deck (12 cards, 13 with ``storm_tracker_card``).
    """

    players: tuple[str, ...]
    difficulty: str
    first_player: int
    rulings: Mapping[str, Any]
    backs: tuple[str, ...]
    digital_storm: bool
    digital_equipment: bool
    equipment_deck: Counter

    @property
    def n(self) -> int:
        """Number of seats."""
        return len(self.players)

    @property
    def ladder(self) -> tuple[int, ...]:
        """Cards per storm phase at each meter tick; ``len(ladder)`` is the skull (§1.8)."""
        return LADDER[self.n]

    def canteen(self, seat: int) -> int:
        """The canteen maximum of ``seat``'s adventurer."""
        return ADVENTURERS[self.players[seat]].canteen

    def seat_of(self, adventurer: str) -> int | None:
        """The seat playing ``adventurer``, or ``None``."""
        return self.players.index(adventurer) if adventurer in self.players else None


@dataclass
class State:
    """A Forbidden Desert position, including what is hidden from the players.

    Board fields are indexed by slot (0..23); seat fields by seat.
    """

    cfg: Config
    grid: list[list[int | None]]          # [r][c] -> slot, None at the storm
    cell_of: list[Cell]                   # slot -> cell
    ident: list[str | None]               # slot -> tile id, when the assistant knows it
    excavated: list[bool]                 # slot -> face up
    sand: list[int]                       # slot -> markers
    parts_on: list[frozenset]             # slot -> placed parts riding it
    parked: frozenset                     # parts waiting in the storm cell
    storm: Cell
    pawn: list[int]                       # seat -> slot
    water: list[int]                      # seat -> water
    hands: list[list[str]]                # seat -> equipment, in the order received
    parts_held: frozenset
    meter: int
    active: int
    phase: str = "actions"                # "actions" or "storm"
    actions_left: int = START_ACTIONS
    reductions: int = 0
    to_draw: int = 0
    shields: dict[int, frozenset | None] = field(default_factory=dict)  # holder -> covered seats (at_play) or None
    pile: list[str | None] = field(default_factory=list)   # storm draw pile, top first; None = unknown
    pile_seen: list[bool] = field(default_factory=list)    # players know this slot (a peek)
    pool: Counter = field(default_factory=Counter)         # cards in the pile's unknown slots
    discard: list[str] = field(default_factory=list)       # oldest first
    set_aside: list[str] = field(default_factory=list)     # this phase's cards (ruling)
    equip_pile: list[str] = field(default_factory=list)    # digital equipment draw pile, top first
    equipment_out: list[str] = field(default_factory=list)
    scoped: list[frozenset] = field(default_factory=list)  # seat -> slots it saw with a Terrascope
    result: str = "ongoing"
    events: int = 0

    def copy(self) -> "State":
        """A copy that shares nothing mutable with this state."""
        return State(
            cfg=self.cfg, grid=[row[:] for row in self.grid], cell_of=self.cell_of[:],
            ident=self.ident[:], excavated=self.excavated[:], sand=self.sand[:],
            parts_on=self.parts_on[:], parked=self.parked, storm=self.storm, pawn=self.pawn[:],
            water=self.water[:], hands=[h[:] for h in self.hands], parts_held=self.parts_held,
            meter=self.meter, active=self.active, phase=self.phase, actions_left=self.actions_left,
            reductions=self.reductions, to_draw=self.to_draw, shields=dict(self.shields),
            pile=self.pile[:], pile_seen=self.pile_seen[:], pool=Counter(self.pool),
            discard=self.discard[:], set_aside=self.set_aside[:], equip_pile=self.equip_pile[:],
            equipment_out=self.equipment_out[:], scoped=self.scoped[:], result=self.result,
            events=self.events)

    # --- board queries (§3.2) -----------------------------------------------------------
    @property
    def supply(self) -> int:
        """Sand markers left in the supply: 48 minus those on tiles (§1.3)."""
        return SAND_TOTAL - sum(self.sand)

    @property
    def draw_count(self) -> int:
        """Storm cards per storm phase at the current meter tick (§1.8)."""
        return self.cfg.ladder[min(self.meter, len(self.cfg.ladder) - 1)]

    def slot_at(self, cell: Cell) -> int | None:
        """The slot on ``cell``; ``None`` at the storm or off the board."""
        return self.grid[cell[0]][cell[1]] if on_board(cell) else None

    def cell_of_seat(self, seat: int) -> Cell:
        """The cell of ``seat``'s pawn."""
        return self.cell_of[self.pawn[seat]]

    def seats_on(self, slot: int) -> list[int]:
        """Seats whose pawns stand on ``slot``, in seat order."""
        return [s for s, p in enumerate(self.pawn) if p == slot]

    def kind(self, slot: int) -> str | None:
        """The tile kind of ``slot`` when its identity is known to the assistant."""
        tile = self.ident[slot]
        return KIND_OF_TILE[tile] if tile else None

    def blocked(self, slot: int) -> bool:
        """2 or more sand markers (§3.2)."""
        return self.sand[slot] >= 2

    def open_tunnel(self, slot: int) -> bool:
        """An excavated tunnel (§3.2)."""
        return self.excavated[slot] and self.kind(slot) == "tunnel"

    def adventurer(self, seat: int) -> str:
        """The adventurer id played by ``seat``."""
        return self.cfg.players[seat]

    def buried(self, seat: int) -> bool:
        """On a blocked tile, not the Climber, and the Climber is not on that tile (§3.2)."""
        slot = self.pawn[seat]
        if not self.blocked(slot) or self.adventurer(seat) == "climber":
            return False
        climber = self.cfg.seat_of("climber")
        return climber is None or self.pawn[climber] != slot

    def reach(self, seat: int) -> list[Cell]:
        """The seat's cell and its on-board neighbours, diagonals for the Explorer (§2)."""
        r, c = self.cell_of_seat(seat)
        steps = ORTHOGONAL + DIAGONAL if self.adventurer(seat) == "explorer" else ORTHOGONAL
        return [(r, c)] + [(r + dr, c + dc) for dr, dc in steps if on_board((r + dr, c + dc))]

    def slot_of_tile(self, tile_id: str) -> int | None:
        """The slot whose known identity is ``tile_id``."""
        try:
            return self.ident.index(tile_id)
        except ValueError:
            return None

    def cell_refusal(self, cell: Cell) -> "Refusal | None":
        """``off_board`` or ``target_is_storm`` for a target cell, else ``None`` (§6.4)."""
        if not on_board(cell):
            return Refusal("off_board", f"Cell {list(cell)} is off the 5x5 board.")
        if cell == self.storm:
            return Refusal("target_is_storm", f"Cell {list(cell)} is the storm; no tile lies there.")
        return None

    def tile_cells(self) -> list[tuple[Cell, int]]:
        """Every (cell, slot) pair of the board in row-major order, the storm left out."""
        return [(cell, self.grid[cell[0]][cell[1]]) for cell in ALL_CELLS if self.grid[cell[0]][cell[1]] is not None]
