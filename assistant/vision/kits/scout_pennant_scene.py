"""Scout Pennant kit pieces on the rendered mat: scenes from slot labels, and the scene actions
of a move (for tests, the benchmark and demos).

A *table* is a mapping slot -> label as :class:`~assistant.tracking.scout_pennant.ScoutPennantTable`
defines it (``("piece", q, r)``, ``("patrol", q, r)``, ``("arrow", q1, r1, q2, r2)``), so any
position can be laid out, legal or not. Pieces lie as players lay them: up to
``jitter_mm`` off their place and turned a little (arrows by up to ``turn_deg``, forests any
way round); a pawn disc lies on the middle of its clearing.

Piece ids: ``piece@q,r``, ``pawn@q,r``, ``arrow@q1,r1:q2,r2``. A move is a list of
``(cell, actions)`` pairs, one arm reach each (:class:`~assistant.vision.render.sequence.Reach`):
the pawns taken off first, then the pieces and pawns put down.
"""

from __future__ import annotations

import math
from typing import Mapping

import numpy as np

from ..mats import MatLayout, mat_layout
from ..render.desert import Place, Remove
from ..render.scene import FlatPiece, Scene
from .scout_pennant import GAME, arrow_angle, piece_image, piece_size_mm

ART_PPM = 8.0


class KitArt:
    """The kit's pictures (:func:`~.scout_pennant.piece_image`) drawn once at ``ppm``, read-only."""

    def __init__(self, ppm: float = ART_PPM):
        self.ppm = ppm
        self._cache: dict[str, np.ndarray] = {}

    def load(self, label: str) -> np.ndarray:
        """The BGRA picture of a kit label (``clearing``, ``forest``, ``arrow``, ``pawn:<colour>``).

        Parameters
        ----------
        label : str

        Returns
        -------
        (h, w, 4) uint8 BGRA
            At :attr:`ppm` pixels per mm, drawn on first use and cached (read-only: do not modify).

        Raises
        ------
        KeyError
            For an unknown label.
        """
        if label not in self._cache:
            img = piece_image(label, self.ppm)
            img.setflags(write=False)
            self._cache[label] = img
        return self._cache[label]


def _key(cell) -> str:
    return ",".join(str(v) for v in cell)


def _edge_of(layout: MatLayout, a, b):
    for e in layout.edges:
        if (e.a, e.b) == (a, b) or (e.a, e.b) == (b, a):
            return e
    raise KeyError(f"no edge between {a} and {b}")


def slot_pieces(slot: tuple, label: str, layout: MatLayout, rng: np.random.Generator, art: KitArt,
                jitter_mm: float = 1.5, turn_deg: float = 6.0) -> list[FlatPiece]:
    """The flat pieces that show ``label`` in ``slot`` (none for ``empty`` / ``none``).

    Parameters
    ----------
    slot : tuple
        A table slot (module docstring).
    label : str
    layout : MatLayout
    rng : numpy.random.Generator
        Placement jitter.
    art : KitArt
    jitter_mm : float
        Largest offset from the exact place, mm (uniform in a disc).
    turn_deg : float
        Largest turn of an arrow off its edge's direction, degrees.

    Returns
    -------
    list of FlatPiece
        Scene pieces in mat mm (a piece, a pawn, or an arrow), empty for ``empty`` / ``none``.

    Raises
    ------
    KeyError
        For an unknown slot kind, cell, edge or label.
    """
    def off():
        r, a = jitter_mm * math.sqrt(rng.uniform()), rng.uniform(0, 2 * math.pi)
        return r * math.cos(a), r * math.sin(a)

    kind = slot[0]
    if kind == "piece":
        if label == "empty":
            return []
        cell = (slot[1], slot[2])
        cx, cy = layout.cell(cell).center_mm
        dx, dy = off()
        angle = float(rng.uniform(0, 90)) if label == "forest" else float(rng.uniform(0, 360))
        return [FlatPiece(f"piece@{_key(cell)}", label, art.load(label), (cx + dx, cy + dy), piece_size_mm(label),
                          angle, "tile" if label == "forest" else "other", 0, corner_mm=0.6)]
    if kind == "patrol":
        if label == "none":
            return []
        cell = (slot[1], slot[2])
        cx, cy = layout.cell(cell).center_mm
        dx, dy = off()
        name = f"pawn:{label}"
        return [FlatPiece(f"pawn@{_key(cell)}", name, art.load(name), (cx + dx, cy + dy), piece_size_mm(name),
                          float(rng.uniform(-40, 40)), "other", 2)]
    if kind == "arrow":
        if label == "none":
            return []
        a, b = (slot[1], slot[2]), (slot[3], slot[4])
        edge = _edge_of(layout, a, b)
        forward = (edge.a, edge.b) == (a, b)
        forward = forward if label == "forward" else not forward
        mx, my = edge.midpoint_mm
        dx, dy = off()
        angle = arrow_angle(edge.angle_deg, forward) + float(rng.uniform(-turn_deg, turn_deg))
        return [FlatPiece(f"arrow@{_key(a)}:{_key(b)}", "arrow", art.load("arrow"), (mx + dx, my + dy),
                          piece_size_mm("arrow"), angle, "other", 1)]
    raise KeyError(f"unknown slot kind {kind!r}")


def table_scene(table: Mapping[tuple, str], seed: int = 0, layout: MatLayout | None = None,
                art: KitArt | None = None, jitter_mm: float = 1.5) -> Scene:
    """The mat with the kit pieces that show ``table`` (slots missing from it are empty).

    Parameters
    ----------
    table : dict slot -> label
    seed : int
        Placement jitter.
    layout : MatLayout, optional
        Default ``mat_layout("scout-pennant")``.
    art : KitArt, optional
    jitter_mm : float

    Returns
    -------
    Scene
    """
    layout = layout or mat_layout(GAME)
    art = art or KitArt()
    rng = np.random.default_rng([seed, 7])
    pieces: list[FlatPiece] = []
    for slot in sorted(table):
        pieces += slot_pieces(slot, table[slot], layout, rng, art, jitter_mm)
    return Scene(layout).place(*pieces)


def _piece_id(slot: tuple) -> str:
    if slot[0] == "piece":
        return f"piece@{_key(slot[1:3])}"
    if slot[0] == "patrol":
        return f"pawn@{_key(slot[1:3])}"
    return f"arrow@{_key(slot[1:3])}:{_key(slot[3:5])}"


def move_actions(scene: Scene, before: Mapping[tuple, str], after: Mapping[tuple, str], seed: int = 0,
                 art: KitArt | None = None, jitter_mm: float = 1.5) -> list[tuple[tuple, tuple]]:
    """The reaches that turn the table ``before`` into ``after``: ``[(cell, actions), ...]``.

    A changed slot's old piece is removed and its new one placed. Arrows go with the reach to the
    cell whose piece changed (the new piece's), else with their first cell. Reaches that only
    take pawns off come first (a fire: inputs emptied, then outputs filled).

    Parameters
    ----------
    scene : Scene
        The scene showing ``before`` (its piece ids are those of :func:`table_scene`).
    before, after : dict slot -> label
    seed : int
    art : KitArt, optional
    jitter_mm : float

    Returns
    -------
    list of (cell, tuple of actions)
    """
    art = art or KitArt()
    rng = np.random.default_rng([seed, 11])
    ids = {p.piece_id for p in scene.flats}
    changed = sorted(s for s in set(before) | set(after) if before.get(s) != after.get(s))
    new_pieces = {(s[1], s[2]) for s in changed if s[0] == "piece"}
    groups: dict[tuple, list] = {}
    for slot in changed:
        if slot[0] == "arrow":
            a, b = (slot[1], slot[2]), (slot[3], slot[4])
            cell = b if b in new_pieces and a not in new_pieces else a
        else:
            cell = (slot[1], slot[2])
        acts = groups.setdefault(cell, [])
        pid = _piece_id(slot)
        if pid in ids:
            acts.append(Remove(pid))
        acts += [Place(p) for p in slot_pieces(slot, after.get(slot, "none"), scene.layout, rng, art, jitter_mm)]
    order = sorted(groups, key=lambda c: (not all(isinstance(a, Remove) for a in groups[c]), c))
    return [(cell, tuple(groups[cell])) for cell in order]
