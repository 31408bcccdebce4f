"""A Forbidden Desert game played out on the rendered table: engine states become scenes, and
every event that shows on the table becomes an arm reaching in and changing those cells.

:func:`scene_of` draws a state (tiles by identity, excavated faces up, sand, pawns, placed parts,
the last storm card in the card place); :func:`script` turns a played game (a list of states
and events) into renderer steps and, per step, the events the tablet enters (water, cards,
turn ends) before it. Storm cards are shown in two steps, as at a real table: a hand lays the
card, then a hand slides the tiles and adds the sand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from ...games.base import Event
from ..mats import MatLayout, mat_layout
from .art import size_mm
from .desert import ProceduralArt, pawn_piece, sand_pieces, storm_card_piece, tile_piece
from .scene import FlatPiece, Scene
from .sequence import Hold, Reach

#: events the table shows (the tracker sees them); the others come from the tablet
VISIBLE = {"move", "remove_sand", "excavate", "pick_up_part", "navigate", "storm_card", "draw_storm"}
VISIBLE_CARDS = {"dune_blaster", "jet_pack"}


@dataclass(frozen=True)
class ReplaceScene:
    """A scene action that puts the table into a given scene (everything the hand changes)."""

    scene: Scene

    def apply(self, scene: Scene) -> Scene:
        """The target scene (the hand's work is done)."""
        return self.scene.with_board(scene.board_present)

    def describe(self, scene: Scene) -> dict:
        """A JSON-ready record."""
        return {"op": "replace"}


def scene_of(state: Any, images=None, layout: MatLayout | None = None, card: bool = True,
             tiles_from: Any | None = None) -> Scene:
    """The table that shows ``state`` (a Forbidden Desert state whose tile ids are all known).

    Parameters
    ----------
    images : picture source, optional
        Own art by default.
    card : bool
        Show the last storm card drawn in the card place.
    tiles_from : State, optional
        Draw tiles, sand, pawns and parts as in this state (the table before the players slid
        the tiles), but the card of ``state``.

    Raises
    ------
    ValueError
        When a tile's identity is unknown to the state.
    """
    images = images or ProceduralArt()
    layout = layout or mat_layout("forbidden-desert")
    board = tiles_from if tiles_from is not None else state
    pieces: list = []
    for slot, cell in enumerate(board.cell_of):
        tile = board.ident[slot]
        if tile is None:
            raise ValueError(f"the tile at {cell} has no known identity; play a game with a named layout")
        pieces.append(tile_piece(layout, cell, tile, board.excavated[slot], images))
        if board.sand[slot]:
            pieces.extend(sand_pieces(layout, cell, board.sand[slot], ProceduralArt()))
        for k, part in enumerate(sorted(board.parts_on[slot])):
            cx, cy = layout.cell(cell).center_mm
            label = f"part:{part}"
            pieces.append(FlatPiece(f"part:{part}", label, ProceduralArt().load(label),
                                    (cx + 14.0 - 6.0 * k, cy - 14.0 + 6.0 * k), size_mm(label), 0.0, "part", 2))
    for seat, adventurer in enumerate(board.cfg.players):
        # each pawn keeps its own corner of a tile: players do not rearrange pawns when one leaves
        pieces.append(pawn_piece(adventurer, layout, board.cell_of_seat(seat), seat))
    shown = (state.discard + state.set_aside)[-1:] if card else []
    if shown:
        pieces.append(storm_card_piece(layout, shown[0], images))
    return Scene(layout).place(*pieces)


@dataclass
class Scripted:
    """One scripted step: the renderer steps, the events it shows, and the tablet's events."""

    steps: list
    shown: list[Event]
    tablet_before: list[Event]
    target: Any


def _changed_cells(a: Scene, b: Scene) -> list:
    ca, cb = a.contents(), b.contents()
    return [k for k in cb if ca.get(k) != cb.get(k)]


def script(states: Sequence[Any], events: Sequence[Event], images=None, hold: int = 16, speed_mm_s: float = 900.0,
           entries: Sequence[str] = ("bottom", "right", "left", "top"), cards_on_tablet: bool = False) -> list[Scripted]:
    """Renderer steps that act out a played game, one visible event at a time.

    Parameters
    ----------
    states : sequence of State
        ``states[i + 1]`` follows ``events[i]`` (e.g. a :class:`~assistant.games.simulation.RandomGame`).
    events : sequence of Event
    hold : int
        Still frames after each change (the motion gate needs 0.35 s of stillness: 11 frames
        at 30 fps; players pause about half a second).
    cards_on_tablet : bool
        The players enter a Jet Pack or Dune Blaster on the tablet, then carry it out on the
        table (a step that shows no event: the table only catches up with the engine). Without
        it the card is only played on the table, for the camera to recognise.

    Returns
    -------
    list of Scripted
        The first holds the opening table; each later one reaches in once (twice for a storm
        card: the card, then the slide).
    """
    images = images or ProceduralArt()
    out = [Scripted([Hold(hold + 4)], [], [], states[0])]
    tablet: list[Event] = []
    current = scene_of(states[0], images)
    for i, ev in enumerate(events):
        before, after = states[i], states[i + 1]
        card_play = ev.type == "play_equipment" and ev["card"] in VISIBLE_CARDS
        if card_play and cards_on_tablet:
            target = scene_of(after, images)
            cells = _changed_cells(current, target)
            entry = entries[len(out) % len(entries)]
            steps = [Reach(cells[len(cells) // 2], actions=(ReplaceScene(target),), entry=entry,
                           speed_mm_s=speed_mm_s, dwell_frames=4), Hold(hold)] if cells else []
            current = target
            out.append(Scripted(steps, [], tablet + [ev], after))
            tablet = []
            continue
        if not (ev.type in VISIBLE or card_play):
            tablet.append(ev)
            continue
        entry = entries[len(out) % len(entries)]
        steps: list = []
        if ev.type in ("storm_card", "draw_storm"):
            card_only = scene_of(after, images, tiles_from=before)
            steps += [Reach(at_mm=_card_point(card_only.layout), actions=(ReplaceScene(card_only),), entry="right",
                            speed_mm_s=speed_mm_s, dwell_frames=4), Hold(hold)]
            current = card_only
        target = scene_of(after, images)
        cells = _changed_cells(current, target)
        if cells:
            steps += [Reach(cells[len(cells) // 2], actions=(ReplaceScene(target),), entry=entry,
                            speed_mm_s=speed_mm_s, dwell_frames=4), Hold(hold)]
        current = target
        out.append(Scripted(steps, [ev], tablet, after))
        tablet = []
    return out


def _card_point(layout: MatLayout) -> tuple[float, float]:
    x0, y0, x1, y1 = layout.card_place_mm
    return ((x0 + x1) / 2, (y0 + y1) / 2)
