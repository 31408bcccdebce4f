"""Scripted Discovery Island games on the rendered table: engine events -> hands laying kit tiles.

:class:`MatScript` keeps a :class:`~assistant.vision.render.scene.Scene` in step with a
:class:`~assistant.tracking.discovery_island.TableState`, following the mat's rules of
:mod:`assistant.tracking.discovery_island`: each step lays its tile (a hand's few millimetres and
degrees off) on the lattice hex next to the last one, a recentring clears the mat but the last
tile and moves it to the centre, an ``end_march`` clears the mat and lays the next walker's
start tile back up on the centre. :func:`scripted_moves` turns a random legal game of the engine
(:func:`~assistant.games.discovery_island.simulate.random_game`) into :class:`Move` s: table
moves carry the scene actions an arm performs (:class:`~assistant.vision.render.sequence.Reach`),
tablet moves the events entered on the tablet. Skipped marches are left out: the tracker applies
them by itself.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from ...games.base import Event
from ...games.discovery_island.simulate import random_game
from ...tracking.discovery_island import CENTRE, STEPS, TableState, advance, target_cell
from ..mats import mat_layout
from ..render.actions import Move as MovePiece
from ..render.actions import Place, Remove
from ..render.scene import Scene
from .discovery_island_scene import ART, hand_jitter, tile_piece

GAME = "discovery-island"


@dataclass
class Move:
    """One move of a scripted game.

    Attributes
    ----------
    kind : str
        ``"table"`` (an arm lays or clears tiles) or ``"tablet"``.
    events : list of Event
        The engine events of the move (a table move: one step or one ``end_march``).
    actions : tuple
        Scene actions (table moves).
    cell : (col, row) or None
        Where the arm reaches.
    state : TableState
        The table after the move.
    """

    kind: str
    events: list[Event]
    actions: tuple = ()
    cell: tuple | None = None
    state: TableState | None = None


@dataclass
class MatScript:
    """The scene that goes with a table state, and the actions that keep it so.

    Parameters
    ----------
    ts : TableState
    rng : random.Random
        Hand jitter of each tile laid.
    """

    ts: TableState
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    stacks: dict = field(default_factory=dict)
    count: int = 0

    def __post_init__(self):
        self.layout = mat_layout(GAME)
        self._scene = Scene(self.layout)
        for cell, design in self.ts.mat:
            self._scene = self._scene.place(self._new(cell, design))

    def _new(self, cell, design):
        offset, angle = hand_jitter(self.rng)
        piece = tile_piece(self.layout, cell, design, self.count, offset, angle, ART)
        self.count += 1
        self.stacks.setdefault(cell, []).append(piece.piece_id)
        return piece

    @property
    def scene(self) -> Scene:
        """The scene as the table stands now."""
        return self._scene

    def lay(self, cell, design: str) -> tuple:
        """Actions laying ``design`` on ``cell`` by hand (on top of whatever lies there), applied
        to the script's scene; the table state is not changed (use it for illegal tiles)."""
        action = Place(self._new(cell, design))
        self._scene = action.apply(self._scene)
        return (action,)

    def take(self, cell) -> tuple:
        """Actions taking the top tile off ``cell``."""
        pid = self.stacks[cell].pop()
        action = Remove(pid)
        self._scene = action.apply(self._scene)
        return (action,)

    def apply(self, ev: Event) -> tuple[tuple, tuple | None]:
        """Advance the table by ``ev`` and return ``(actions, cell)`` for the arm (no actions for a
        tablet event).

        Raises
        ------
        ValueError
            When the engine refuses ``ev``.
        """
        before = self.ts
        after = advance(before, ev)
        if not after:
            raise ValueError(f"{ev!r} refused: {after.reason}")
        self.ts = after
        actions: list = []
        cell = None
        if ev.type in STEPS:
            cell, recentred = target_cell(before, ev["dir"])
            if recentred:
                last = self.stacks[before.cursor][-1]
                for c, ids in list(self.stacks.items()):
                    for pid in ids:
                        if pid != last:
                            actions.append(Remove(pid))
                centre = self.layout.cell(CENTRE).center_mm
                piece = self._scene.piece(last)
                dx = piece.center_mm[0] - self.layout.cell(before.cursor).center_mm[0]
                dy = piece.center_mm[1] - self.layout.cell(before.cursor).center_mm[1]
                actions.append(MovePiece(last, (centre[0] + dx, centre[1] + dy)))
                self.stacks = {CENTRE: [last]}
            actions.append(Place(self._new(cell, after.board()[cell])))
        elif ev.type == "end_march":
            actions = [Remove(pid) for ids in self.stacks.values() for pid in ids]
            self.stacks = {}
            actions.append(Place(self._new(CENTRE, after.board()[CENTRE])))
            cell = CENTRE
        for action in actions:
            self._scene = action.apply(self._scene)
        return tuple(actions), cell


def scripted_moves(seed: int, max_table_moves: int = 40,
                   max_events: int = 400) -> tuple[TableState, Scene, list[Move], MatScript]:
    """A random legal game of the engine on the example island, as moves on the table and the tablet.

    Parameters
    ----------
    seed : int
        Seed of the game and of the hands.
    max_table_moves : int
        Stop after this many table moves (the tablet moves between them are kept).
    max_events : int
        Length limit of the random game.

    Returns
    -------
    (start, scene, moves, script)
        The table state and scene before the first move, the moves, and the script after them.
    """
    game = random_game(seed, max_events=max_events)
    start = TableState.start(game.states[0])
    script = MatScript(start, random.Random(seed))
    first = script.scene
    moves: list[Move] = []
    table = 0
    for ev in game.events:
        if ev.type == "skip_march":
            if any(e == ev for e in script.ts.auto) or script.ts.game.skips[ev.actor] == 0:
                continue
        if table >= max_table_moves:
            break
        actions, cell = script.apply(ev)
        if actions:
            moves.append(Move("table", [ev], actions, cell, script.ts))
            table += 1
        else:
            moves.append(Move("tablet", [ev], (), None, script.ts))
    return start, first, moves, script
