"""Forbidden Desert on the mat: setups and the edits a game makes, as scene actions.

Pieces get stable ids: ``tile:<tile id>`` (rules §1.2 ids, e.g. ``tile:gear_3``),
``sand:<r>,<c>#<k>``, ``pawn:<adventurer>``, ``part:<part>``, ``card:storm``. Tiles lie centred
on their cell (66 mm in a 70 mm cell), upright (compass north-west; rules §1.2 "Orientation");
sand markers stack in the middle of the tile, a single one light side up, more dark side up
(rules §1.3); pawns stand in the tile's corners.

An *action* (:class:`Place`, :class:`Remove`, :class:`Move`) changes a scene; sequences apply
them while an arm is over the cell.
"""

from __future__ import annotations


import numpy as np

from ..mats import MatLayout, mat_layout
from .art import PAWN_COLOURS, art_image, size_mm, tile_label
from .art_cards import CARD_MM
from .actions import Move, Place, Remove  # noqa: F401  (re-exported: the scripts build on them)
from .scene import FlatPiece, Scene, TallPiece

TILE_IDS = (("crash_site", "well_1", "well_2", "mirage", "tunnel_1", "tunnel_2", "tunnel_3")
            + tuple(f"gear_{i}" for i in range(1, 9)) + ("launch_pad",)
            + tuple(f"clue_{p}_{a}" for p in ("propeller", "engine", "solar_crystal", "navigation_deck")
                    for a in ("row", "column")))
SETUP_SAND = ((0, 2), (1, 1), (1, 3), (2, 0), (2, 4), (3, 1), (3, 3), (4, 2))
STORM_CELL = (2, 2)
PAWN_SLOTS = ((-19.0, -19.0), (19.0, -19.0), (19.0, 19.0), (-19.0, 19.0), (0.0, -22.0), (0.0, 22.0))


class ProceduralArt:
    """The project's own art (:func:`~.art.art_image`) as a picture source with a ``load(label)``
    method, like :class:`~.photos.ComponentImages`; pictures are drawn once at ``ppm``."""

    def __init__(self, ppm: float = 6.0):
        self.ppm = ppm
        self._cache: dict = {}

    def load(self, label: str) -> np.ndarray:
        """The picture of ``label`` (uint8 BGR or BGRA), cached.

        Raises
        ------
        KeyError
            For a label without a picture.
        """
        if label not in self._cache:
            img = art_image(label, self.ppm)
            img.setflags(write=False)
            self._cache[label] = img
        return self._cache[label]


def tile_piece(layout: MatLayout, cell: tuple, tile_id: str, face_up: bool, images,
               angle_deg: float = 0.0) -> FlatPiece:
    """A tile on ``cell``: its back (desert side) or face (city side); a face shows the tile's
    own picture when ``images`` has one (``tile:gear_5``), else its kind's (``tile:gear``).

    Raises
    ------
    KeyError
        For an unknown tile id or cell, or a picture the source lacks.
    """
    label = tile_label(tile_id, face_up)
    if face_up and tile_id != label.split(":", 1)[1]:
        try:                                 # the tile's own picture (gear_5, not the first gear's)
            return FlatPiece(f"tile:{tile_id}", f"tile:{tile_id}", images.load(f"tile:{tile_id}"),
                             layout.cell(cell).center_mm, size_mm(label), angle_deg, "tile", 0)
        except (KeyError, FileNotFoundError):
            pass
    return FlatPiece(f"tile:{tile_id}", label, images.load(label), layout.cell(cell).center_mm, size_mm(label),
                     angle_deg, "tile", 0)


def sand_pieces(layout: MatLayout, cell: tuple, count: int, images) -> tuple[FlatPiece, ...]:
    """``count`` sand markers stacked on ``cell`` (ids ``sand:<r>,<c>#<k>``, k from 0): one is light
    side up, two or more dark side up (rules §1.3); each lies 1.5 mm further right and down."""
    label = "sand:light" if count == 1 else "sand:dark"
    cx, cy = layout.cell(cell).center_mm
    key = ",".join(str(v) for v in cell)
    return tuple(FlatPiece(f"sand:{key}#{k}", label, images.load(label), (cx - 3.0 + 1.5 * k, cy - 3.0 + 1.5 * k),
                           size_mm(label), 17.0 * k, "sand", 1) for k in range(count))


def pawn_piece(adventurer: str, layout: MatLayout, cell: tuple, slot: int = 0, height_mm: float = 30.0) -> TallPiece:
    """The pawn of ``adventurer`` in corner ``slot`` (0-5) of ``cell``.

    Raises
    ------
    KeyError
        For an unknown adventurer or cell.
    """
    cx, cy = layout.cell(cell).center_mm
    dx, dy = PAWN_SLOTS[slot % len(PAWN_SLOTS)]
    return TallPiece(f"pawn:{adventurer}", f"pawn:{adventurer}", PAWN_COLOURS[adventurer], (cx + dx, cy + dy),
                     8.0, height_mm)


def storm_card_piece(layout: MatLayout, card: str, images) -> FlatPiece:
    """The drawn storm card (``wind_n_2``, ``sun_beats_down``...) face up in the card place.

    Raises
    ------
    ValueError
        When the layout has no card place.
    KeyError
        For an unknown card.
    """
    if layout.card_place_mm is None:
        raise ValueError(f"the {layout.game} mat has no card place")
    x0, y0, x1, y1 = layout.card_place_mm
    label = f"storm:{card}"
    return FlatPiece("card:storm", label, images.load(label), ((x0 + x1) / 2, (y0 + y1) / 2), CARD_MM, 0.0, "card", 2)


def desert_setup(seed: int = 0, layout: MatLayout | None = None, images=None,
                 adventurers=("archeologist", "navigator", "water_carrier"), storm_card: str | None = "wind_e_2",
                 face_up=()) -> Scene:
    """A Forbidden Desert table after setup (rules §3.1): the 24 tiles shuffled by ``seed``
    desert side up around the empty storm cell, one sand marker on each of the 8 setup cells,
    the pawns on the crash site, and optionally a storm card face up in the card place.

    Parameters
    ----------
    seed : int
        Tile order.
    layout : MatLayout, optional
        Default ``mat_layout("forbidden-desert")``.
    images : object with ``load(label)``, optional
        :class:`ProceduralArt` by default, or a :class:`~.photos.ComponentImages`.
    adventurers : sequence of str
    storm_card : str or None
    face_up : iterable of cells
        Tiles on these cells are already excavated (city side up).

    >>> s = desert_setup(0)
    >>> s.contents()[(2, 2)].label, s.contents()[(0, 2)].sand, len(s.flats), len(s.talls)
    ('empty', 1, 33, 3)
    """
    layout = layout or mat_layout("forbidden-desert")
    images = images or ProceduralArt()
    rng = np.random.default_rng(seed)
    order = [TILE_IDS[i] for i in rng.permutation(len(TILE_IDS))]
    cells = [c.key for c in layout.cells if c.key != STORM_CELL]
    up = set(map(tuple, face_up))
    pieces: list = [tile_piece(layout, cell, tid, cell in up, images) for cell, tid in zip(cells, order)]
    for cell in SETUP_SAND:
        pieces.extend(sand_pieces(layout, cell, 1, images))
    crash = cells[order.index("crash_site")]
    pieces.extend(pawn_piece(a, layout, crash, i) for i, a in enumerate(adventurers))
    if storm_card:
        pieces.append(storm_card_piece(layout, storm_card, images))
    return Scene(layout).place(*pieces)


def tile_on(scene: Scene, cell: tuple) -> FlatPiece | None:
    """The tile lying on ``cell`` (the topmost), or None."""
    found = None
    for p in scene.flats:
        if p.kind == "tile" and scene.cell_of(p.center_mm) == tuple(cell):
            found = p
    return found


def excavate(scene: Scene, cell: tuple, images=None, angle_deg: float = 0.0) -> tuple:
    """Actions turning the tile on ``cell`` city side up (the sand must be gone first in the game;
    here the sand stays where it is).

    Raises
    ------
    KeyError
        When no tile lies on ``cell``.
    """
    tile = tile_on(scene, cell)
    if tile is None:
        raise KeyError(f"no tile on {cell}")
    tile_id = tile.piece_id.split(":", 1)[1]
    return (Remove(tile.piece_id), Place(tile_piece(scene.layout, cell, tile_id, True, images or ProceduralArt(),
                                                    angle_deg)))


def set_sand(scene: Scene, cell: tuple, count: int, images=None) -> tuple:
    """Actions leaving ``count`` sand markers on ``cell`` (all of the cell's markers are replaced,
    so the faces follow the rules: light for one, dark from two)."""
    key = ",".join(str(v) for v in cell)
    old = tuple(Remove(p.piece_id) for p in scene.flats if p.piece_id.startswith(f"sand:{key}#"))
    new = tuple(Place(p) for p in sand_pieces(scene.layout, cell, count, images or ProceduralArt()))
    return old + new


def move_pawn(scene: Scene, adventurer: str, cell: tuple, slot: int = 0) -> tuple:
    """The action moving a pawn to ``cell``.

    Raises
    ------
    KeyError
        For a pawn not in the scene or an unknown cell.
    """
    target = pawn_piece(adventurer, scene.layout, cell, slot)
    scene.piece(target.piece_id)
    return (Move(target.piece_id, target.center_mm),)
