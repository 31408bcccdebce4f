"""Discovery Island's opening table read from one still and checked against the set-up rules.

What lies on the table before the first march (``shared/rules/discovery-island.md`` §5.1, §5.3,
and the kit's mat, :mod:`.discovery_island`): the maps, overlays and the checkometer are each
player's own and hidden from the camera; the tiles stand in face-down piles beside the mat; on
the mat lies only the first walker's start tile, **back up**, on the centre hex
(:data:`~.discovery_island.CENTRE`): the opponent lays it from the pile of the landing hex's
terrain, so the walker learns that terrain and nothing else. Every other hex is empty, and no
number or mark shows.

**Secrets.** The landing hexes are chosen in secret (§5.1 step 2) and reach nobody through the
reading: the check names at most the start tile's terrain, which the tile shows everyone on
the table anyway, and only once both players have chosen (before that it checks only that a
tile lies back up on the centre hex). The reading itself is the referee's only
(:func:`~assistant.referee.door.lobby`). The confirmed table is the set-up the players' choices
made (it has no freedom the table could choose).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ..games.discovery_island import GAME
from ..games.discovery_island.data import LAND_TERRAINS
from ..games.discovery_island.state import State
from ..vision.kits.discovery_island import MARKERS, MARKS, NO_NUMBER, back_design
from ..vision.mats import mat_layout
from .base import Reading, Slot
from .discovery_island import CENTRE, KINDS, DiscoveryIslandTable, TableState
from .opening import Flag, OpeningKit, named, want_flags

BACKS = tuple(back_design(t) for t in LAND_TERRAINS)


class IslandOpening(OpeningKit):
    """Discovery Island's opening mat (:class:`.opening.OpeningKit`).

    Parameters
    ----------
    model : DIModel, optional
        The kit detector's classifiers
        (:func:`~assistant.vision.kits.discovery_island_detect.load_or_teach`), needed only by
        :meth:`read`.
    """

    game_id = "discovery-island"
    kinds = KINDS
    titles = {"tile": "Tile", "number": "Number", "mark": "Mark"}
    allowed = {"tile": ["empty", *BACKS, *LAND_TERRAINS, *MARKERS],
               "number": [NO_NUMBER, *(str(n) for n in range(1, 10))], "mark": list(MARKS)}
    cell_help = "A hex is [column, row] of the mat, columns 0 to 8 and rows 0 to 6."
    secret = True

    def __init__(self, model: Any = None):
        self.table = DiscoveryIslandTable(model)
        self.layout = mat_layout(GAME.id)
        self.board = {"cols": 9, "rows": 15, "hex": True}

    def cells(self) -> list[tuple]:
        """The mat's 63 hexes ``(col, row)``, column by column."""
        return list(self.table.CELLS)

    def name(self, cell: tuple) -> str:
        """``(4, 3)`` -> ``"hex (4,3)"``."""
        return self.table.describe(cell)

    def at(self, cell: tuple) -> tuple[int, int]:
        """Column and half row on the page (odd columns half a hex lower, as on the mat)."""
        return cell[0], 2 * cell[1] + (cell[0] & 1)

    def missing(self, kind: str) -> str:
        """The label of a slot not read: ``empty`` for a tile, else ``none``."""
        return "empty" if kind == "tile" else NO_NUMBER

    def read(self, frame: Any, homography: Any, camera_matrix: Any = None, context: Any = None) -> dict[Slot, Reading]:
        """Every slot of the mat (:meth:`DiscoveryIslandTable.read`); ``camera_matrix`` and
        ``context`` are not used."""
        return self.table.read(frame, homography, self.table.slots(self.table.CELLS))

    def context(self, setup: Mapping[str, Any], rulings: Mapping[str, Any] | None = None) -> State | None:
        """The engine's start state of the whole ``setup`` (both players' choices made) under
        ``rulings`` (``start_on_feature`` allows a landing on a checkpoint or cache; default: the
        rules' defaults), or None while the choices are not all made (no ``landing`` yet)."""
        if "landing" not in setup:
            return None
        return GAME.new_state(dict(setup), dict(rulings or {}))

    def want(self, context: State | None) -> dict[Slot, tuple[str, ...]]:
        """What each slot may show: with the start ``context``, exactly the mat of the first
        march's start (:meth:`TableState.start`); without it, any tile back up on the centre
        hex and nothing else."""
        if context is not None:
            return {s: (label,) for s, label in self.table.expected(TableState.start(context)).items()}
        out: dict[Slot, tuple[str, ...]] = {(k, *c): ("empty",) if k == "tile" else (NO_NUMBER,)
                                           for c in self.table.CELLS for k in KINDS}
        out[("tile", *CENTRE)] = BACKS
        return out

    def flags(self, readings: Mapping[Slot, Reading], context: State | None = None) -> list[Flag]:
        """The hexes that break the set-up (:meth:`want`) or were read unsure
        (:func:`.opening.want_flags`), one sentence each; none names a landing hex."""
        walker = f"player {context.to_move + 1}'s" if context is not None else "the first walker's"

        def broken(slot: Slot, label: str, wanted: Sequence[str]) -> str:
            cell, where = tuple(slot[1:]), self.name(tuple(slot[1:]))
            if slot[0] != "tile":
                return (f"A {slot[0]} ({named(label)}) is read on {where}; before the first march only the start "
                        "tile lies on the mat, back up, showing neither.")
            if cell != CENTRE:
                return (f"{where} should be empty before the first march (only the start tile lies on the mat), but "
                        f"{named(label)} is read there.")
            pile = f", from the {named(wanted[0])[:-5]} pile" if len(wanted) == 1 and wanted[0] in BACKS else ""
            return (f"{where} should hold {walker} start tile back up{pile} (rules §5.3), but it is read as "
                    f"{named(label)}.")

        return want_flags(self, readings, self.want(context), broken, self.table.cell_of)
