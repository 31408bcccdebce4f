"""Scout Pennant's opening table read from one still and checked against the set-up rules.

The set-up (``shared/rules/scout-pennant.md`` §2.3, §2.4, §5.1): the finish ``(0, 0)`` and the
start clearing of every seated player are clearings, every other cell is empty; no arrow is
laid; every patrol is in its player's base, so none stands on the board. The start clearings
are the corners of the board's radius for the number of players (§2.2), so the check needs the
referee's new-game form (players, radius); before the form is sent, a clearing is allowed on
the finish and on any corner of a radius the printed mat holds (2 to 4).

The table is read with the Scout Pennant kit's detector
(:func:`~assistant.vision.kits.scout_pennant_board.read_slots`) over every slot of the
printed mat (:class:`~.scout_pennant.ScoutPennantTable`: 61 pieces, 61 patrols, 156 arrows);
the confirmed table is the lobby's set-up itself (it has no freedom the table could choose).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ..games.scout_pennant import GAME
from ..games.scout_pennant.geometry import FINISH, corners
from ..games.scout_pennant.state import CLEARING, State
from .base import Reading, Slot
from .opening import Flag, OpeningKit, named, want_flags
from .scout_pennant import ARROW_LABELS, PATROL_LABELS, PIECE_LABELS, ScoutPennantTable

#: the largest board radius the printed mat holds (its 61 cells)
MAT_RADIUS = 4
_DIRECTIONS = {(0, -1): "N", (1, -1): "NE", (1, 0): "SE", (0, 1): "S", (-1, 1): "SW", (-1, 0): "NW"}


class PennantOpening(OpeningKit):
    """Scout Pennant's opening table (:class:`.opening.OpeningKit`).

    Parameters
    ----------
    table : ScoutPennantTable, optional
        The mat's slots and detector (default: the printed mat's).
    """

    game_id = "scout-pennant"
    kinds = ("piece", "patrol", "arrow")
    titles = {"piece": "Piece", "patrol": "Patrol", "arrow": "Arrow"}
    allowed = {"piece": list(PIECE_LABELS), "patrol": list(PATROL_LABELS), "arrow": list(ARROW_LABELS)}
    cell_help = ("A cell is [q, r] on the printed mat (at most 4 steps from the finish); an arrow's side is "
                 "[q1, r1, q2, r2] of two neighbouring cells, the smaller first.")

    def __init__(self, table: ScoutPennantTable | None = None):
        self.table = table or ScoutPennantTable()
        self.layout = self.table.layout
        self._cells = sorted(self.table.cells, key=lambda c: (c[0], c[1]))
        self._slots = {c: self.table.slots([c]) for c in self._cells}
        rows = {c: self._offset(c) for c in self._cells}
        low = min(r for _, r in rows.values())
        self._at = {c: (q + MAT_RADIUS, r - low) for c, (q, r) in rows.items()}
        self.board = {"cols": 2 * MAT_RADIUS + 1, "rows": max(r for _, r in self._at.values()) + 2, "hex": True}

    @staticmethod
    def _offset(cell: tuple) -> tuple[int, int]:
        """Column and half row of a flat-topped axial cell (rules §2.1: ``y ~ r + q/2``)."""
        q, r = cell
        return q, 2 * r + q

    def cells(self) -> list[tuple]:
        """The mat's 61 cells ``(q, r)``, column by column."""
        return list(self._cells)

    def slots_of(self, cell: tuple) -> list[Slot]:
        """The cell's piece and patrol, and the arrows of its six sides."""
        return self._slots[tuple(cell)]

    def name(self, cell: tuple) -> str:
        """``(0, -3)`` -> ``"0,-3"``, as printed on the mat."""
        return self.table.describe(cell)

    def at(self, cell: tuple) -> tuple[int, int]:
        """Column and half row on the page (north up, as the referee view draws the board)."""
        return self._at[tuple(cell)]

    def slot_key(self, slot: Slot, cell: tuple) -> tuple[str, str]:
        """``("piece", "Piece")``, ``("patrol", "Patrol")``; an arrow: ``("arrow-NE", "Arrow on
        the NE side")`` (the side seen from ``cell``)."""
        if slot[0] != "arrow":
            return slot[0], self.titles[slot[0]]
        a, b = tuple(slot[1:3]), tuple(slot[3:5])
        other = b if a == tuple(cell) else a
        side = _DIRECTIONS[(other[0] - cell[0], other[1] - cell[1])]
        return f"arrow-{side}", f"Arrow on the {side} side"

    def missing(self, kind: str) -> str:
        """The label of a slot not read: ``empty``, ``none``, ``none``."""
        return "empty" if kind == "piece" else "none"

    def text(self, cell: tuple, labels: Mapping[Slot, str]) -> str:
        """``"0,-3 · clearing · red"``: the name, the piece and the patrol (arrows are in the form)."""
        bits = [self.name(cell)] + [named(labels[(k, *cell)]) for k in ("piece", "patrol")
                                    if labels.get((k, *cell), "none") not in ("none", "empty")]
        arrows = sum(1 for s in self.slots_of(cell) if s[0] == "arrow" and labels.get(s, "none") != "none")
        if arrows:
            bits.append(f"{arrows} arrow(s)")
        return " · ".join(bits)

    def read(self, frame: Any, homography: Any, camera_matrix: Any = None, context: Any = None) -> dict[Slot, Reading]:
        """Every slot of the mat (:meth:`ScoutPennantTable.read`); ``camera_matrix`` and
        ``context`` are not used."""
        return self.table.read(frame, homography, self.table.all_slots())

    def context(self, setup: Mapping[str, Any], rulings: Mapping[str, Any] | None = None) -> State:
        """The engine's start state of the lobby's ``setup`` (its seats, colours and radius)
        under ``rulings`` (default: the rules' defaults).

        Raises
        ------
        ValueError
            For a radius the printed mat does not hold (one sentence).
        """
        if int(setup.get("radius", 4)) > MAT_RADIUS:
            raise ValueError(f"The printed mat holds a board of radius {MAT_RADIUS} at most: choose a radius from 2 "
                             f"to {MAT_RADIUS} for a game read from the table.")
        return GAME.new_state(dict(setup), dict(rulings or {}))

    def want(self, context: State | None) -> dict[Slot, tuple[str, ...]]:
        """What each slot may show at set-up: with the start ``context``, exactly what the
        engine's start state shows (:meth:`ScoutPennantTable.expected`, patrols included: none);
        without it, the finish a clearing, any corner of radius 2 to 4 empty or a clearing,
        every other cell empty, no patrol, no arrow."""
        if context is not None:
            return {s: (label,) for s, label in self.table.expected(context).items()}
        out: dict[Slot, tuple[str, ...]] = {s: ("empty",) if s[0] == "piece" else ("none",)
                                           for s in self.table.all_slots()}
        out[("piece", *FINISH)] = (CLEARING,)
        for radius in range(2, MAT_RADIUS + 1):
            for cell in corners(radius).values():
                out[("piece", *cell)] = ("empty", CLEARING)
        return out

    def flags(self, readings: Mapping[Slot, Reading], context: State | None = None) -> list[Flag]:
        """The cells that break the set-up (:meth:`want`) or were read unsure
        (:func:`.opening.want_flags`), one sentence each in the rules' words."""
        starts = {}
        if context is not None:
            colours = self.table.seat_colours(context)
            starts = {cell: colours[seat] for seat, cell in enumerate(context.cfg.starts)}

        def broken(slot: Slot, label: str, wanted: Sequence[str]) -> str:
            cell = tuple(slot[1:3])
            where = self.name(cell)
            if slot[0] == "arrow":
                return (f"An arrow is read on the side between {where} and {self.name(tuple(slot[3:5]))}; at set-up "
                        "no arrow is laid (rules §2.3).")
            if slot[0] == "patrol":
                return (f"A {named(label)} patrol is read on {where}; at set-up every patrol waits in its player's "
                        "base (rules §2.4).")
            if cell == FINISH:
                return f"{where} is the finish, a clearing from the start, but it is read as {named(label)}."
            if cell in starts:
                return (f"{where} is the {starts[cell]} player's start clearing, but it is read as {named(label)} "
                        "(rules §2.3).")
            return (f"{where} should be empty at set-up (only the finish and the players' start clearings are laid), "
                    f"but a {named(label)} is read there.")

        return want_flags(self, readings, self.want(context), broken, self.table.cell_of)
