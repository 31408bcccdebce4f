"""Scene actions any game's script uses: put a piece on the table, take it away, move it.

Each action is a frozen value with ``apply(scene) -> Scene`` (the scene is never changed in
place) and ``describe(scene) -> dict`` (a JSON-ready record for the sequence's truth).
"""

from __future__ import annotations

from dataclasses import dataclass

from .scene import FlatPiece, Scene, TallPiece


@dataclass(frozen=True)
class Place:
    """Put a piece on the table."""

    piece: FlatPiece | TallPiece

    def apply(self, scene: Scene) -> Scene:
        """The scene with the piece.

        Raises
        ------
        ValueError
            When its id is taken.
        """
        return scene.place(self.piece)

    def describe(self, scene: Scene) -> dict:
        """A JSON-ready record of the action."""
        cell = scene.cell_of(self.piece.center_mm)
        return {"op": "place", "piece_id": self.piece.piece_id, "label": self.piece.label,
                "cell": None if cell is None else list(cell)}


@dataclass(frozen=True)
class Remove:
    """Take a piece away."""

    piece_id: str

    def apply(self, scene: Scene) -> Scene:
        """The scene without the piece.

        Raises
        ------
        KeyError
            When there is no such piece.
        """
        return scene.remove(self.piece_id)

    def describe(self, scene: Scene) -> dict:
        """A JSON-ready record (``scene`` is the state before the action)."""
        p = scene.piece(self.piece_id)
        cell = scene.cell_of(p.center_mm)
        return {"op": "remove", "piece_id": self.piece_id, "label": p.label,
                "cell": None if cell is None else list(cell)}


@dataclass(frozen=True)
class Move:
    """Move (and turn) a piece."""

    piece_id: str
    center_mm: tuple[float, float]
    angle_deg: float | None = None

    def apply(self, scene: Scene) -> Scene:
        """The scene with the piece moved.

        Raises
        ------
        KeyError
            When there is no such piece.
        """
        return scene.move(self.piece_id, self.center_mm, self.angle_deg)

    def describe(self, scene: Scene) -> dict:
        """A JSON-ready record (``scene`` is the state before the action)."""
        p = scene.piece(self.piece_id)
        a, b = scene.cell_of(p.center_mm), scene.cell_of(self.center_mm)
        return {"op": "move", "piece_id": self.piece_id, "label": p.label, "cell": None if a is None else list(a),
                "to_cell": None if b is None else list(b)}
