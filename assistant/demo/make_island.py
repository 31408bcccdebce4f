"""The bundled Discovery Island recording: a seeded random game on the example island, its
terrain tiles laid by hand on the printed kit's mat, rendered.

The game is the first one (seeds from ``seed``) in which, within ``table_moves`` table moves,
each player marches at least three times and there is a sea refusal, an event tile and a
checkpoint clue. Events the camera cannot see (sea refusals, resolving an event, learning a
clue, a relocation) are entered on the tablet. On the way: one arm sweeps across the mat, the
light changes to a warm lamp, the mat is bumped, and once the opponent lays a tile of the wrong
terrain (the assistant must name it, ``wrong_terrain_laid``) and swaps it for the right one.

``python -m assistant.demo.make_island OUT_FOLDER [--seed S]`` writes the recording.
"""

from __future__ import annotations

import argparse
import random
from dataclasses import replace
from pathlib import Path

from ..games.discovery_island.island import LAND_TERRAINS
from ..games.discovery_island.simulate import random_game
from ..records import write_record
from ..vision.kits.discovery_island import supply_designs
from ..vision.kits.discovery_island_scene import ART, random_camera, tile_piece
from ..vision.kits.discovery_island_script import scripted_moves
from ..vision.mats import mat_layout
from ..vision.render.actions import Place, Remove
from ..vision.render.lighting import DAYLIGHT, WARM_LAMP
from ..vision.render.renderer import CameraSettings, Renderer
from ..vision.render.sequence import Bump, Hold, Reach, SetLight, Sequence, Sweep
from .recording import TRUTH, save_script, write_video

SIZE = (960, 540)
FPS = 30.0
SETTINGS = CameraSettings(noise_sigma=0.6, shot_noise=0.01)
MAX_EVENTS = 400


def _fits(moves) -> bool:
    events = [e for m in moves for e in m.events]
    marches = [sum(1 for e in events if e.type == "end_march" and e.actor == p) for p in (0, 1)]
    return (min(marches) >= 3 and any(e.type == "sea_refused" for e in events)
            and any(e.type == "learn_clue" for e in events)
            and any(e.type == "choose_direction" and e["tile"]["mark"].startswith("event:") for e in events))


def find_game(seed: int, table_moves: int):
    """The first seed from ``seed`` whose game fits (see the module docstring); returns
    ``(seed, start, scene, moves)`` cut after the last move needed. Raises ``RuntimeError``."""
    for s in range(seed, seed + 400):
        start, scene, moves, _ = scripted_moves(s, table_moves, MAX_EVENTS)
        for cut in range(1, len(moves) + 1):
            if _fits(moves[:cut]):
                return s, start, scene, moves[:cut]
    raise RuntimeError(f"no fitting game among seeds {seed}..{seed + 399}")


def make(out: str | Path, seed: int = 1, table_moves: int = 34) -> Path:
    """Render the recording into ``out`` (created); returns the folder. Raises ``OSError``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    game_seed, start, scene, moves = find_game(seed, table_moves)
    game = random_game(game_seed, max_events=MAX_EVENTS)
    seen = [e for m in moves for e in m.events]
    truth, k, where = [], 0, []                  # where[i]: the truth index of the i-th move's event
    for ev in game.events:                       # the engine's events up to the last move, skips included
        if k == len(seen):
            break
        truth.append(ev)
        if ev == seen[k]:
            where.append(len(truth) - 1)
            k += 1
    layout = mat_layout("discovery-island")
    rng = random.Random(game_seed)
    camera = random_camera(random.Random(game_seed), SIZE)
    w, h = layout.size_mm
    designs = set(supply_designs())
    steps, arm_steps, tablet_after, illegal, conditions = [Hold(20)], [], [], [], []
    table_count, wrong_done = 0, False
    for number, move in enumerate(moves):
        if move.kind == "tablet":
            tablet_after.append((len(arm_steps), move.events[0].to_json()))
            continue
        ev = move.events[0]
        if not wrong_done and table_count >= 4 and ev.type == "choose_direction":
            tile = ev["tile"]
            wrong = next(d for d in sorted(designs) if d.endswith("/none")
                         and d.split("/")[0] in LAND_TERRAINS and d.split("/")[0] != tile["terrain"])
            piece = tile_piece(layout, move.cell, wrong, 9000, (1.0, -0.5), 3.0, ART)
            steps += [Reach(move.cell, (Place(piece),), dwell_frames=5), Hold(1), Hold(24),
                      Reach(move.cell, (Remove(piece.piece_id),), dwell_frames=5), Hold(1), Hold(12)]
            arm_steps += [("illegal", None), ("restore", None)]
            illegal.append({"arm": len(arm_steps) - 2, "what": f"a {wrong.split('/')[0]} tile laid where the map "
                                                               f"shows {tile['terrain']}: wrong_terrain_laid"})
            wrong_done = True
        steps += [Reach(move.cell, move.actions, entry=rng.choice(("bottom", "left", "right", "top")),
                        dwell_frames=rng.randint(3, 6), speed_mm_s=rng.uniform(800, 1200)), Hold(1), Hold(16)]
        arm_steps.append(("move", where[number]))
        table_count += 1
        if table_count == 8:
            steps += [Sweep((-150.0, h * 0.6), (w + 150.0, h * 0.35), speed_mm_s=1000.0), Hold(1), Hold(14)]
            arm_steps.append(None)
            conditions.append({"after_arm": len(arm_steps) - 1, "what": "an arm sweeps across at 1 m/s"})
        if table_count == 14:
            steps += [SetLight(replace(WARM_LAMP, name="warm lamp switched on")), Hold(20)]
            conditions.append({"after_arm": len(arm_steps) - 1, "what": "light: warm lamp switched on"})
        if table_count == 20:
            steps += [Bump(dx_mm=5.0, dy_mm=-4.0, dtheta_deg=1.5), Hold(20)]
            conditions.append({"after_arm": len(arm_steps) - 1, "what": "the mat bumped by 6 mm and 1.5 degrees"})
    steps.append(Hold(30))
    seq = Sequence(scene, camera, steps, DAYLIGHT, SETTINGS, fps=FPS, seed=game_seed, renderer=Renderer(camera))
    moves_out, tablet = write_video(out, seq, arm_steps, illegal, conditions, tablet_after)
    (out / TRUTH).write_text(write_record("discovery-island", game.setup, game.rulings, truth), encoding="utf-8")
    save_script(out, "discovery-island", FPS, SIZE, tablet, illegal, moves_out, conditions)
    return out


def main(argv=None) -> int:
    """``python -m assistant.demo.make_island OUT [--seed S] [--table-moves N]``."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--table-moves", type=int, default=34)
    args = p.parse_args(argv)
    print(f"wrote {make(args.out, args.seed, args.table_moves)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
