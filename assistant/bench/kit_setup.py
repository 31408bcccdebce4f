"""Scout Pennant's and Discovery Island's opening tables read and checked (issue 21), measured.

Each opening is a random start the lobby could make (Scout Pennant: 2 to 6 players on the
printed mat's radius 4; Discovery Island: the example island with random landings), laid out as
the rules' set-up puts it on the table; every other table has one thing wrong (Scout Pennant: a
stray clearing, forest or patrol; Discovery Island: the start tile from another terrain's pile,
or a stray tile). The mat is found by its own markers, as ``assistant detect`` does, the whole
table read with the game's opening kit and checked against the start
(:meth:`~assistant.tracking.opening.OpeningKit.flags`).

Two makers of pictures: the project's renderer (:mod:`assistant.vision.render`, the way the kit
detectors were taught and tuned) and the kit photographs (:mod:`.kit_photos`, made differently).
Counted per set: tables read exactly (the right label in every slot) and without any flag (the
referee could start at once); wrong cells (a slot read other than the truth) and of them the
ones **not flagged** (a silent wrong set-up); the deliberate errors caught (flagged as breaking
the rules); flags on cells read right (needless questions); mats not found; read time. Nothing
here was tuned on these figures: the kits flag what breaks the set-up and what the trackers'
own test (:attr:`~assistant.tracking.base.Reading.sure`) calls unsure.
"""

from __future__ import annotations

import random
import statistics
import time
from collections import Counter
from typing import Any, Iterator

import numpy as np

#: seeds of the measured tables (none was looked at while the kits were built)
SEEDS = {"scout-pennant": 50_000, "discovery-island": 60_000}
TABLES = 20


def _pennant_cases(seed: int, count: int) -> Iterator[tuple[dict, Any, tuple | None]]:
    """``(truth slot -> label, start state, (slot, label) changed or None)`` of ``count`` openings."""
    from ..games.scout_pennant import GAME
    from ..tracking.scout_pennant import ScoutPennantTable, kit_colours
    from ..vision.kits.scout_pennant import COLOUR_NAMES

    table = ScoutPennantTable()
    for k in range(count):
        rng = random.Random(seed + k)
        colours = rng.sample(COLOUR_NAMES, rng.randint(2, 6))
        state = GAME.new_state({"radius": 4, "players": [{"seat": i, "colour": c} for i, c in enumerate(colours)]}, {})
        truth = table.expected(state)
        wrong = None
        if k % 2:
            empty = sorted(s for s, v in truth.items() if s[0] == "piece" and v == "empty")
            slot = rng.choice(empty)
            wrong = rng.choice([(slot, "forest"), (slot, "clearing"),
                                (("patrol", *state.cfg.starts[0]), kit_colours(colours)[0])])
            truth[wrong[0]] = wrong[1]
        yield truth, state, wrong


def _island_cases(seed: int, count: int) -> Iterator[tuple[dict, Any, tuple | None]]:
    """``(truth slot -> label, start state, (slot, label) changed or None)`` of ``count`` openings."""
    from ..games.discovery_island import GAME
    from ..games.discovery_island.island import load_map
    from ..games.discovery_island.simulate import random_setup
    from ..tracking.discovery_island import CENTRE, DiscoveryIslandTable, TableState
    from ..tracking.island_setup import BACKS

    table, island = DiscoveryIslandTable(), load_map("example")
    for k in range(count):
        rng = random.Random(seed + k)
        state = GAME.new_state(random_setup(rng, island), {})
        truth = table.expected(TableState.start(state))
        wrong = None
        if k % 2:
            right = truth[("tile", *CENTRE)]
            stray = rng.choice([c for c in table.CELLS if c != CENTRE])
            wrong = rng.choice([(("tile", *CENTRE), rng.choice([b for b in BACKS if b != right])),
                                (("tile", *stray), rng.choice(BACKS))])
            truth[wrong[0]] = wrong[1]
        yield truth, state, wrong


def _design_board(truth: dict) -> dict:
    """Discovery Island: hex -> the design whose tile slot ``truth`` names (backs only here)."""
    return {s[1:]: (label if label != "empty" else None) for s, label in truth.items() if s[0] == "tile"}


def _own_picture(game: str, truth: dict, seed: int, which: str) -> np.ndarray:
    """The project's renderer: the kit's scene of ``truth`` under a condition of set ``which``."""
    from ..vision.render.renderer import Renderer
    from ..vision.render.scene import Scene

    rng = random.Random(seed)
    if game == "scout-pennant":
        from ..vision.kits.scout_pennant_scene import table_scene
        from ..vision.mats import mat_layout
        from .detect_scout_pennant import normal_conditions, random_camera, stress_conditions

        light, settings = rng.choice(list((normal_conditions() if which == "normal" else stress_conditions()).values()))
        cam = random_camera(mat_layout(game), np.random.default_rng(seed))
        return Renderer(cam).render(table_scene(truth, seed=seed), lighting=light, settings=settings, seed=seed).image
    from ..vision.kits.discovery_island_scene import conditions, hand_jitter, random_camera, tile_piece
    from ..vision.mats import mat_layout

    layout = mat_layout(game)
    pieces = []
    for n, (cell, design) in enumerate(sorted(_design_board(truth).items())):
        if design is not None:
            offset, angle = hand_jitter(rng)
            pieces.append(tile_piece(layout, cell, design, n, offset, angle))
    _name, light, settings = conditions(rng, which)
    return Renderer(random_camera(rng)).render(Scene(layout).place(*pieces), lighting=light, settings=settings,
                                               seed=seed).image


def _photo(game: str, truth: dict, seed: int, which: str) -> np.ndarray:
    """The kit photographs (:mod:`.kit_photos`, made differently) of ``truth``."""
    from .kit_photos import island_still, pennant_still

    if game == "scout-pennant":
        return pennant_still(seed, which, truth)[0]
    return island_still(seed, which, board=_design_board(truth))[0]


def measure(game: str, kit: Any, maker, seed: int, count: int, which: str) -> Counter:
    """Read and check ``count`` openings of ``game`` pictured by ``maker`` (see the module
    docstring); returns the counts (``tables``, ``exact``, ``clean``, ``wrong_cells``,
    ``silent``, ``errors``, ``caught``, ``needless``, ``not_found``) and ``seconds`` (a list)."""
    from ..vision.registration import detect_markers, make_detector, register

    cases = _pennant_cases if game == "scout-pennant" else _island_cases
    out: Counter = Counter()
    out["seconds"] = []
    for k, (truth, state, wrong) in enumerate(cases(seed, count)):
        image = maker(game, truth, seed + k, which)
        out["tables"] += 1
        fit = register(detect_markers(image, make_detector()), kit.layout)
        if not fit:
            out["not_found"] += 1
            continue
        start = time.perf_counter()
        readings = kit.read(image, fit.homography, None)
        flags = kit.flags(readings, state)
        out["seconds"].append(time.perf_counter() - start)
        flagged = {tuple(f.cell) for f in flags}
        owner = kit.table.cell_of
        wrong_cells = {tuple(owner(s)) for s, r in readings.items() if r.label != truth.get(s)}
        out["wrong_cells"] += len(wrong_cells)
        out["silent"] += len(wrong_cells - flagged)
        out["exact"] += not wrong_cells
        out["clean"] += not flags
        out["needless"] += len(flagged - wrong_cells - ({tuple(owner(wrong[0]))} if wrong else set()))
        if wrong:
            out["errors"] += 1
            out["caught"] += any(f.kind == "rules" and tuple(f.cell) == tuple(owner(wrong[0])) for f in flags)
    return out


def run(count: int = TABLES) -> None:
    """Print the figures of both games, both makers, normal and stress sets (``count`` tables
    each; seeds :data:`SEEDS`, the stress set 5,000 further on)."""
    import cv2

    from ..server.serve import opening_kit

    cv2.setNumThreads(1)
    makers = (("own renderer (made the way the teaching renders are)", _own_picture),
              ("kit photographs (made differently)", _photo))
    for game, seed in SEEDS.items():
        kit = opening_kit(game, None)
        for name, maker in makers:
            for which, s in (("normal", seed), ("stress", seed + 5000)):
                got = measure(game, kit, maker, s, count, which)
                n = got["tables"] - got["not_found"]
                secs = got["seconds"]
                print(f"  {game} opening, {name}, {which} (seeds {s}-{s + count - 1}): read exactly {got['exact']}/{n}, "
                      f"no flag {got['clean']}/{n}; wrong cells {got['wrong_cells']}, of them not flagged "
                      f"{got['silent']}; deliberate errors caught {got['caught']}/{got['errors']}; flags on cells "
                      f"read right {got['needless']}; mats not found {got['not_found']}; read time median "
                      f"{statistics.median(secs) if secs else float('nan'):.2f} s", flush=True)
