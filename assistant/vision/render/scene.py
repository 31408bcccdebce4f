"""What lies on the table: a mat and the pieces on it, as immutable data.

A :class:`Scene` holds the mat's layout, the flat pieces (tiles, cards, sand markers, parts:
pictures lying on the mat) and the tall pieces (pawns: drawn in 3D). Positions are in **mat
mm** (package note); the mat itself may lie shifted or turned on the table (a bump), which is
the renderer's ``pose``, not the scene's. Changing a scene returns a new one
(:meth:`Scene.place`, :meth:`Scene.remove`, :meth:`Scene.move`), so a sequence can keep every
state it showed.

The flat pieces are composed into the mat-plane texture by :mod:`.texture`; the renderer
projects that texture through the camera (:mod:`.renderer`) and then draws the tall pieces
(:mod:`.tall`).
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from ..mats import MatLayout

KINDS = ("tile", "card", "sand", "part", "other")


@dataclass(frozen=True, eq=False)
class FlatPiece:
    """A picture lying flat on the mat.

    Attributes
    ----------
    piece_id : str
        Unique in a scene (``"tile:gear_3"``, ``"sand@0,2#1"``).
    label : str
        Its visual class (:mod:`.art` labels, e.g. ``"back:dune_back"``).
    image : (h, w, 3 | 4) uint8
        BGR or BGRA; it is stretched to ``size_mm``.
    center_mm : (x, y)
        Mat mm.
    size_mm : (w, h)
        mm, before rotation.
    angle_deg : float
        Rotation about the centre, degrees, clockwise seen from above (x toward y).
    kind : str
        One of :data:`KINDS`; ``tile`` and ``card`` get rounded corners (``corner_mm``) and a
        contact shadow.
    layer : int
        Higher layers are drawn later (on top); ties keep the scene's order.
    corner_mm : float
        Corner radius, mm.
    """

    piece_id: str
    label: str
    image: np.ndarray
    center_mm: tuple[float, float]
    size_mm: tuple[float, float]
    angle_deg: float = 0.0
    kind: str = "tile"
    layer: int = 0
    corner_mm: float = 2.5
    _digest: tuple = field(default=(), init=False, repr=False)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")
        img = np.asarray(self.image)
        if img.dtype != np.uint8 or img.ndim != 3 or img.shape[2] not in (3, 4):
            raise ValueError(f"piece {self.piece_id!r}: image must be (h, w, 3|4) uint8, got {img.shape} {img.dtype}")
        object.__setattr__(self, "center_mm", (float(self.center_mm[0]), float(self.center_mm[1])))
        object.__setattr__(self, "size_mm", (float(self.size_mm[0]), float(self.size_mm[1])))
        object.__setattr__(self, "_digest", (img.shape, zlib.crc32(np.ascontiguousarray(img).data)))

    @property
    def digest(self) -> tuple:
        """``(shape, crc32)`` of the picture, taken when the piece was made (treat the picture as
        read-only afterwards): caches key on it, so a new picture never shows an old one."""
        return self._digest

    def key(self) -> tuple:
        """Identity for caches: everything that changes the texture (the picture by its digest)."""
        return (self.piece_id, self.label, self._digest, self.center_mm, self.size_mm, self.angle_deg,
                self.kind, self.layer, self.corner_mm)

    def corners_mm(self) -> np.ndarray:
        """The piece's outline ``(4, 2) float64`` mat mm (TL, TR, BR, BL of the unrotated picture)."""
        w, h = self.size_mm
        c, s = math.cos(math.radians(self.angle_deg)), math.sin(math.radians(self.angle_deg))
        local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
        return local @ np.array([[c, s], [-s, c]]) + self.center_mm


@dataclass(frozen=True)
class TallPiece:
    """A standing piece (a pawn), drawn in 3D.

    Attributes
    ----------
    piece_id : str
    label : str
        ``"pawn:<adventurer>"``.
    colour : (b, g, r) int
    center_mm : (x, y)
        Mat mm of the base's centre.
    radius_mm : float
        Base radius, mm.
    height_mm : float
        Total height, mm.
    shape : str
        ``"pawn"`` (a truncated cone with a ball on top) or ``"cylinder"``.
    """

    piece_id: str
    label: str
    colour: tuple[int, int, int]
    center_mm: tuple[float, float]
    radius_mm: float = 8.0
    height_mm: float = 30.0
    shape: str = "pawn"

    def __post_init__(self):
        if self.shape not in ("pawn", "cylinder"):
            raise ValueError(f"shape must be 'pawn' or 'cylinder', got {self.shape!r}")
        if self.radius_mm <= 0 or self.height_mm <= 0:
            raise ValueError("a tall piece needs a positive radius and height")
        object.__setattr__(self, "center_mm", (float(self.center_mm[0]), float(self.center_mm[1])))


@dataclass(frozen=True)
class CellContent:
    """What lies on one cell (by the pieces' centres).

    ``label`` is the visual class of the topmost tile or card (``"empty"`` when none);
    ``piece_id`` its id; ``sand`` the number of sand markers and ``sand_top`` the label of the
    topmost one; ``pawns`` and ``parts`` the labels of those pieces, in scene order.
    """

    label: str = "empty"
    piece_id: str | None = None
    sand: int = 0
    sand_top: str | None = None
    pawns: tuple[str, ...] = ()
    parts: tuple[str, ...] = ()

    def to_json(self) -> dict:
        """A JSON-ready dict."""
        return {"label": self.label, "piece_id": self.piece_id, "sand": self.sand, "sand_top": self.sand_top,
                "pawns": list(self.pawns), "parts": list(self.parts)}


@dataclass(frozen=True)
class Scene:
    """A mat and its pieces.

    Attributes
    ----------
    layout : MatLayout
    flats : tuple of FlatPiece
    talls : tuple of TallPiece
    board_present : bool
        False when the mat (with everything on it) has been lifted off the table.
    """

    layout: MatLayout
    flats: tuple[FlatPiece, ...] = ()
    talls: tuple[TallPiece, ...] = ()
    board_present: bool = True
    _ids: frozenset = field(default=frozenset(), init=False, repr=False, compare=False)
    _contents: dict | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self):
        ids = [p.piece_id for p in self.flats] + [p.piece_id for p in self.talls]
        if len(ids) != len(set(ids)):
            dup = sorted({i for i in ids if ids.count(i) > 1})
            raise ValueError(f"duplicate piece ids: {dup}")
        object.__setattr__(self, "_ids", frozenset(ids))

    # -- changes ----------------------------------------------------------------------------
    def place(self, *pieces: FlatPiece | TallPiece) -> "Scene":
        """A scene with ``pieces`` added (flat ones on top of their layer).

        Raises
        ------
        ValueError
            When an id is already in the scene.
        """
        flats = self.flats + tuple(p for p in pieces if isinstance(p, FlatPiece))
        talls = self.talls + tuple(p for p in pieces if isinstance(p, TallPiece))
        return replace(self, flats=flats, talls=talls)

    def remove(self, *piece_ids: str) -> "Scene":
        """A scene without these pieces.

        Raises
        ------
        KeyError
            For an id not in the scene.
        """
        missing = [i for i in piece_ids if i not in self._ids]
        if missing:
            raise KeyError(f"no piece {missing[0]!r} in the scene")
        gone = set(piece_ids)
        return replace(self, flats=tuple(p for p in self.flats if p.piece_id not in gone),
                       talls=tuple(p for p in self.talls if p.piece_id not in gone))

    def move(self, piece_id: str, center_mm, angle_deg: float | None = None) -> "Scene":
        """A scene with one piece moved (and, for flat pieces, turned) — it stays in its place
        in the drawing order.

        Raises
        ------
        KeyError
            For an id not in the scene.
        """
        if piece_id not in self._ids:
            raise KeyError(f"no piece {piece_id!r} in the scene")
        c = (float(center_mm[0]), float(center_mm[1]))
        flats = tuple(replace(p, center_mm=c, angle_deg=p.angle_deg if angle_deg is None else angle_deg)
                      if p.piece_id == piece_id else p for p in self.flats)
        talls = tuple(replace(p, center_mm=c) if p.piece_id == piece_id else p for p in self.talls)
        return replace(self, flats=flats, talls=talls)

    def with_board(self, present: bool) -> "Scene":
        """The same scene with the mat on the table (True) or lifted off it (False)."""
        return replace(self, board_present=present)

    # -- queries ----------------------------------------------------------------------------
    def piece(self, piece_id: str) -> FlatPiece | TallPiece:
        """The piece with this id.

        Raises
        ------
        KeyError
            For an id not in the scene.
        """
        for p in self.flats + self.talls:
            if p.piece_id == piece_id:
                return p
        raise KeyError(f"no piece {piece_id!r} in the scene")

    def flat_key(self) -> tuple:
        """Cache key of everything drawn into the mat-plane texture."""
        return tuple(p.key() for p in self.flats)

    def tall_key(self) -> tuple:
        """Cache key of the tall pieces."""
        return self.talls

    def cell_of(self, point_mm) -> tuple | None:
        """The key of the cell whose polygon holds ``point_mm`` (mat mm), or None."""
        x, y = float(point_mm[0]), float(point_mm[1])
        for cell in self.layout.cells:
            poly = np.asarray(cell.polygon_mm, np.float32)
            if cv2.pointPolygonTest(poly, (x, y), False) >= 0:
                return cell.key
        return None

    def contents(self) -> dict[tuple, CellContent]:
        """Every cell's :class:`CellContent`, keyed by cell key (cells with nothing are
        ``CellContent()``: label ``"empty"``); computed once per scene (scenes are immutable)."""
        if self._contents is None:
            object.__setattr__(self, "_contents", self._compute_contents())
        return dict(self._contents)

    def _compute_contents(self) -> dict[tuple, CellContent]:
        out: dict[tuple, dict] = {c.key: {"label": "empty", "piece_id": None, "sand": 0, "sand_top": None,
                                          "pawns": [], "parts": []} for c in self.layout.cells}
        order = sorted(range(len(self.flats)), key=lambda i: (self.flats[i].layer, i))
        for i in order:
            p = self.flats[i]
            key = self.cell_of(p.center_mm)
            if key is None:
                continue
            slot = out[key]
            if p.kind in ("tile", "card"):
                slot["label"], slot["piece_id"] = p.label, p.piece_id
            elif p.kind == "sand":
                slot["sand"] += 1
                slot["sand_top"] = p.label
            elif p.kind == "part":
                slot["parts"].append(p.label)
        for p in self.talls:
            key = self.cell_of(p.center_mm)
            if key is not None:
                out[key]["pawns"].append(p.label)
        return {k: CellContent(v["label"], v["piece_id"], v["sand"], v["sand_top"], tuple(v["pawns"]),
                               tuple(v["parts"])) for k, v in out.items()}

    def card_place_label(self) -> str:
        """Label of the topmost card whose centre lies in the layout's card place, or ``"empty"``
        (also ``"empty"`` for a mat without a card place)."""
        box = self.layout.card_place_mm
        if box is None:
            return "empty"
        best = ("empty", -10 ** 9, -1)
        for i, p in enumerate(self.flats):
            x, y = p.center_mm
            if p.kind == "card" and box[0] <= x <= box[2] and box[1] <= y <= box[3] and (p.layer, i) > best[1:]:
                best = (p.label, p.layer, i)
        return best[0]
