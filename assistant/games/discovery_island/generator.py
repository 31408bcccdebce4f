"""A seeded generator of Discovery Island maps of any size (ours; the commercial map is not public).

The real island has about 1,000 land hexes; the shipped example (§4.5) has 399. This
generator grows a connected island of the requested number of land hexes inside a sea
border, paints the five terrains as Voronoi regions around random centres, and places the 8
checkpoints and 28 caches on land hexes as far apart as the island allows. The same seed gives
the same map, and its output always passes :func:`.island.read_map`.

Steps:

1. Rectangle ``W x H`` (``W`` even) with area about ``land / 0.55`` and aspect 4:3.
2. Land grows from the centre one hex at a time, each new hex drawn at random from the sea
   hexes touching land (never on the border), weighted by how many land neighbours it has,
   which gives compact, blobby coasts. Growth from one seed keeps the land connected (M6).
3. ``max(5, land // 40)`` terrain centres (each of the five terrains at least once); every land
   hex takes the terrain of the nearest centre (hex distance, ties to the first centre).
4. Features: a random greedy pick of 36 land hexes with pairwise distance >= 3, relaxed to 2
   and then 1 when the island is too small; 8 checkpoints A1..B2, then 28 caches B3..F6 with
   the four symbols dealt evenly.
"""

from __future__ import annotations

import math
import random

from .data import LAND_TERRAINS
from .geometry import Hex, distance, neighbours, to_axial, to_offset
from .island import CACHE_LABELS, CHECKPOINT_LABELS, SYMBOLS, HexInfo, Island, read_map, write_map

MIN_LAND = 60


def generate_island(land: int = 1000, seed: int = 0) -> Island:
    """A valid island with exactly ``land`` land hexes.

    Parameters
    ----------
    land : int
        Number of land hexes, at least 60 (room for the 36 feature hexes and landings).
    seed : int
        Seed of every random choice.

    Returns
    -------
    Island
        Validated by :func:`.island.read_map` (rules M1-M6).

    Raises
    ------
    ValueError
        When ``land`` is below 60.
    """
    if land < MIN_LAND:
        raise ValueError(f"an island needs at least {MIN_LAND} land hexes, got {land}")
    rng = random.Random(seed)
    area = land / 0.55
    width = max(8, int(round(math.sqrt(area * 4 / 3))) + 2)
    width += width % 2
    height = max(8, int(round(area / (width - 2))) + 2)

    def interior(h: Hex) -> bool:
        col, row = to_offset(*h)
        return 1 <= col < width - 1 and 1 <= row < height - 1

    if land > (width - 2) * (height - 2):
        raise ValueError("internal: rectangle too small")
    centre = to_axial(width // 2, height // 2)
    grown = {centre}
    weight: dict[Hex, int] = {}
    for n in neighbours(centre):
        if interior(n):
            weight[n] = 1
    while len(grown) < land:
        coast = list(weight)
        pick = rng.choices(coast, weights=[weight[h] ** 2 for h in coast])[0]
        del weight[pick]
        grown.add(pick)
        for n in neighbours(pick):
            if n not in grown and interior(n):
                weight[n] = weight.get(n, 0) + 1
    cells = sorted(grown)
    centres = rng.sample(cells, max(5, land // 40))
    kinds = list(LAND_TERRAINS) + [rng.choice(LAND_TERRAINS) for _ in range(len(centres) - 5)]
    rng.shuffle(kinds)
    terrain = {h: kinds[min(range(len(centres)), key=lambda i: (distance(h, centres[i]), i))] for h in cells}
    features = _spread(rng, cells, len(CHECKPOINT_LABELS) + len(CACHE_LABELS))
    symbols = [SYMBOLS[i % len(SYMBOLS)] for i in range(len(CACHE_LABELS))]
    rng.shuffle(symbols)
    info: dict[Hex, HexInfo] = {}
    for h in cells:
        info[h] = HexInfo(terrain[h])
    for h, label in zip(features, CHECKPOINT_LABELS + CACHE_LABELS):
        feature = "checkpoint" if label in CHECKPOINT_LABELS else symbols[CACHE_LABELS.index(label)]
        info[h] = HexInfo(terrain[h], feature, label)
    hexes = {to_axial(c, r): info.get(to_axial(c, r), HexInfo("sea")) for c in range(width) for r in range(height)}
    draft = Island(width, height, hexes, {})
    return read_map(write_map(draft, f"generated island: {land} land hexes, seed {seed}"), f"generated(seed={seed})")


def _spread(rng: random.Random, cells: list[Hex], count: int) -> list[Hex]:
    """``count`` hexes as far apart as possible (spacing 3, else 2, else 1), in random order."""
    for spacing in (3, 2, 1):
        order = cells[:]
        rng.shuffle(order)
        chosen: list[Hex] = []
        for h in order:
            if all(distance(h, x) >= spacing for x in chosen):
                chosen.append(h)
                if len(chosen) == count:
                    return chosen
    raise ValueError("internal: not enough land for the features")
