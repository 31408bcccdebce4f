"""Forbidden Desert openings laid with one mistake, for measuring that the set-up read does not
let a real mistake pass (``assistant bench setup``).

The set-up read takes the rules (§3.1) as a prior (:func:`~..tracking.desert_setup.read_setup`):
a slot the camera is unsure of reads as the rules ask. That makes correct tables read exactly
more often, and could hide a table laid wrongly; these tables measure that cost. Each is a
random opening of the second renderer (:func:`~.second_renderer.opening_table`) with one of
``MISTAKES`` made on it:

- ``sand_moved``: a set-up sand marker lies on a neighbouring tile that should hold none;
- ``sand_missing``: a set-up cell holds no marker;
- ``sand_extra``: a second marker, dark side up, on a set-up cell (two markers);
- ``pawn_off``: a pawn stands on a tile beside the crash site instead of on it;
- ``face_up``: a dune tile lies city side up (its face photo instead of its back).

A mistake is *caught* when the read flags its cell (as breaking the rules or as unsure).
"""

from __future__ import annotations

import random
from pathlib import Path

from ..games.forbidden_desert.components import SETUP_SAND, SIZE, START_STORM, TILE_IDS
from .second_renderer import _photo, opening_table, sand_marker

MISTAKES = ("sand_moved", "sand_missing", "sand_extra", "pawn_off", "face_up")


def _nearest(layout, x: float, y: float) -> tuple:
    """The cell ``(r, c)`` whose centre is nearest the mat point ``(x, y)`` mm."""
    return min((c.key for c in layout.cells),
               key=lambda k: (layout.cell(k).center_mm[0] - x) ** 2 + (layout.cell(k).center_mm[1] - y) ** 2)


def _neighbours(cell: tuple) -> list[tuple]:
    r, c = cell
    return [(r + dr, c + dc) for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
            if 0 <= r + dr < SIZE and 0 <= c + dc < SIZE and (r + dr, c + dc) != START_STORM]


def opening_with_mistake(rng: random.Random, root: Path, mistake: str | None = None) -> tuple[list, list, dict]:
    """A random opening with one mistake, laid as :func:`~.second_renderer.opening_table` lays
    pieces: ``(flats, pawns, truth)``; ``truth`` says what lies on the table (the mistake
    included) and ``truth["mistake"] = (kind, (r, c))`` names it. ``mistake`` (one of
    ``MISTAKES``) defaults to one drawn from ``rng``.

    Raises
    ------
    FileNotFoundError
        When a photo the table needs is missing.
    ValueError
        For a ``mistake`` not in ``MISTAKES``.
    """
    from ..vision.detectors.desert_flat import back_of, tile_kind
    from ..vision.mats import mat_layout

    flats, pawns, truth = opening_table(rng, root)
    kind = mistake or rng.choice(MISTAKES)
    if kind not in MISTAKES:
        raise ValueError(f"unknown mistake {kind!r}; choose one of {', '.join(MISTAKES)}")
    layout = mat_layout("forbidden-desert")
    tiles = {_nearest(layout, *f[1]): i for i, f in enumerate(flats) if f[4] > 0}     # tiles: rounded corners
    sands = {_nearest(layout, *f[1]): i for i, f in enumerate(flats) if f[4] == 0}
    crash = next(tuple(s[1:]) for s, v in truth.items() if s[0] == "face" and v == "crash_site_back")
    if kind in ("sand_moved", "sand_missing", "sand_extra"):
        cell = rng.choice(sorted(SETUP_SAND))
        i = sands[cell]
        if kind == "sand_moved":
            to = rng.choice([n for n in _neighbours(cell) if n not in SETUP_SAND])
            pic, centre, size, angle, corner = flats[i]
            dx, dy = (a - b for a, b in zip(flats[tiles[to]][1], flats[tiles[cell]][1]))
            del flats[i]                # laid last: on top of the tile it now lies on
            flats.append((pic, (centre[0] + dx, centre[1] + dy), size, angle, corner))
            truth[("sand", *cell)], truth[("sand", *to)] = "none", "light"
            cell = to
        elif kind == "sand_missing":
            del flats[i]
            truth[("sand", *cell)] = "none"
        else:
            pic, side = sand_marker(random.Random(rng.random()), dark=True)
            cx, cy = flats[i][1]
            flats.append((pic, (cx + rng.uniform(-3, 3), cy + rng.uniform(-3, 3)), (side, side), rng.uniform(0, 360), 0.0))
            truth[("sand", *cell)] = "dark"
    elif kind == "pawn_off":
        cell = rng.choice(_neighbours(crash))
        k = rng.randrange(len(pawns))
        colour, _x, _y, radius, height = pawns[k]
        cx, cy = flats[tiles[cell]][1]
        pawns[k] = (colour, cx + rng.uniform(-12, 12), cy + rng.uniform(-12, 12), radius, height)
        truth[("pawns", *crash)] = "+".join(sorted(p[0] for p in pawns if p is not pawns[k]))
        truth[("pawns", *cell)] = colour
    else:
        cell = rng.choice(sorted(c for c, i in tiles.items() if truth[("face", *c)] == "dune_back"))
        tid = rng.choice(sorted(t for t in TILE_IDS if back_of(t) == "dune_back"))
        _pic, centre, size, angle, corner = flats[tiles[cell]]
        flats[tiles[cell]] = (_photo(root, "tiles", tid), centre, size, angle, corner)
        truth[("face", *cell)] = tile_kind(tid)
    truth["mistake"] = (kind, cell)
    return flats, pawns, truth
