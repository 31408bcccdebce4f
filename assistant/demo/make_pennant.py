"""The bundled Scout Pennant recording: a scripted game on the printed kit, rendered.

The script starts from a position that holds a merge, a split and a due take from the finish,
then plays random legal moves of the engine (seeded) until at least ``moves`` table moves were
made. On the way: arms reach in from every side, one arm sweeps across the board without
changing anything, the light changes from daylight to a warm lamp, the mat is bumped, and on
red's turn blue moves a patrol to a clearing no forest leads to (no legal event explains it),
then puts it back. Passes are entered on the tablet.

``python -m assistant.demo.make_pennant OUT_FOLDER [--seed S]`` writes the recording.
"""

from __future__ import annotations

import argparse
import random
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..games import get_game
from ..games.scout_pennant.simulate import choose
from ..records import write_record
from ..tracking.scout_pennant import ScoutPennantTable
from ..vision.kits.scout_pennant_scene import KitArt, move_actions, table_scene
from ..vision.mats import mat_layout
from ..vision.render.camera import look_at_mat
from ..vision.render.lighting import DAYLIGHT, WARM_LAMP
from ..vision.render.renderer import CameraSettings, Renderer
from ..vision.render.sequence import Bump, Hold, Reach, SetLight, Sequence, Sweep
from .recording import TRUTH, save_script, write_video

GAME = get_game("scout-pennant")
SIZE = (960, 540)
FPS = 30.0
#: A clean webcam: low sensor noise keeps the bundled video small (mp4v), as a denoising webcam does.
SETTINGS = CameraSettings(noise_sigma=0.6, shot_noise=0.01)
#: The opening position: red to move; forest (0,2) merges (0,3)+(1,2) into (0,1); forest (1,0)
#: splits (0,1) into (1,1) and (2,0); blue stands on the finish, so its take is due.
SETUP = {"players": [{"seat": 0, "colour": "red"}, {"seat": 1, "colour": "blue"}],
         "position": {"clearings": [[0, 3], [1, 2], [0, 1], [1, 1], [2, 0]], "forests": [[0, 2], [1, 0]],
                      "arrows": [{"from": [0, 3], "to": [0, 2]}, {"from": [1, 2], "to": [0, 2]},
                                 {"from": [0, 2], "to": [0, 1]}, {"from": [0, 1], "to": [1, 0]},
                                 {"from": [1, 0], "to": [1, 1]}, {"from": [1, 0], "to": [2, 0]}],
                      "patrols": [{"seat": 0, "cell": [0, 3]}, {"seat": 0, "cell": [1, 2]},
                                  {"seat": 1, "cell": [0, 0]}, {"seat": 1, "cell": [0, -4]}]}}
OPENING = [{"actor": 0, "type": "fire", "cell": [0, 2]},        # merge
           {"actor": 1, "type": "take_from_finish"},            # the mandatory take
           {"actor": 0, "type": "fire", "cell": [1, 0]}]        # split
VISIBLE = ("build", "fire", "enter", "take_from_finish")


def plan(seed: int, moves: int) -> list:
    """The game: a list of ``("move", event)``, ``("tablet", event)`` and scenery steps
    (``("light", Lighting)``, ``("bump",)``, ``("sweep",)``, ``("illegal",)``), in order."""
    rng = random.Random(seed)
    state = GAME.new_state(SETUP, {})
    out, made = [], 0
    for obj in OPENING:
        ev = GAME.parse_event(obj, state)
        state = GAME.apply(state, ev)
        out.append(("move", ev))
        made += 1
    out.append(("illegal",))
    while made < moves and not state.game_over:
        ev = choose(rng, state)
        state = GAME.apply(state, ev)
        out.append(("move" if ev.type in VISIBLE else "tablet", ev))
        made += ev.type in VISIBLE
        if made == 7:
            out.append(("sweep",))
        if made == 11:
            out.append(("light", replace(WARM_LAMP, name="warm lamp switched on")))
        if made == 15:
            out.append(("bump",))
    return out


def make(out: str | Path, seed: int = 7, moves: int = 20) -> Path:
    """Render the recording into ``out`` (created); returns the folder.

    Raises
    ------
    OSError
        When the files cannot be written.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    model, art, layout = ScoutPennantTable(), KitArt(), mat_layout("scout-pennant")
    state = GAME.new_state(SETUP, {})
    table = model.expected(state)
    scene = table_scene(table, seed=seed, art=art)
    camera = look_at_mat(layout.outline_mm(), SIZE, 60.0, 22.0, 12.0, 3.0)
    rng = np.random.default_rng(seed)
    w, h = layout.size_mm
    steps, arm_steps, truth, tablet_after, illegal, conditions = [Hold(20)], [], [], [], [], []
    for item in plan(seed, moves):
        kind = item[0]
        if kind == "tablet":
            truth.append(item[1])
            state = GAME.apply(state, item[1])
            tablet_after.append((len(arm_steps), item[1].to_json()))
            continue
        if kind == "light":
            steps += [SetLight(item[1]), Hold(20)]
            conditions.append({"after_arm": len(arm_steps), "what": f"light: {item[1].name}"})
            continue
        if kind == "bump":
            steps += [Bump(dx_mm=6.0, dy_mm=-4.0, dtheta_deg=1.5), Hold(20)]
            conditions.append({"after_arm": len(arm_steps), "what": "the mat bumped by 7 mm and 1.5 degrees"})
            continue
        if kind == "sweep":
            steps += [Sweep((-150.0, h * 0.6), (w + 150.0, h * 0.35), speed_mm_s=1000.0), Hold(16)]
            arm_steps.append(None)
            conditions.append({"after_arm": len(arm_steps) - 1, "what": "an arm sweeps across at 1 m/s"})
            continue
        if kind == "illegal":
            bad = dict(table)                        # a blue patrol jumps to the emptied clearing (0,3)
            blue = next(slot for slot, label in sorted(table.items()) if slot[0] == "patrol" and label == "blue")
            bad[blue], bad[("patrol", 0, 3)] = "none", "blue"
            forward = move_actions(scene, table, bad, int(rng.integers(1 << 30)), art)
            for cell, actions in forward:
                steps += [Reach(cell, actions, dwell_frames=5), Hold(1)]     # one arm-free frame between passes
                arm_steps.append(("illegal", None))
                for a in actions:
                    scene = a.apply(scene)
            steps.append(Hold(24))
            illegal.append({"arm": len(arm_steps) - 1, "what": f"blue's patrol moved from {blue[1:]} to (0, 3) "
                                                                "on red's turn, through no forest: no legal event "
                                                                "explains it"})
            for cell, actions in move_actions(scene, bad, table, int(rng.integers(1 << 30)), art):
                steps += [Reach(cell, actions, dwell_frames=5), Hold(1)]
                arm_steps.append(("restore", None))
                for a in actions:
                    scene = a.apply(scene)
            steps.append(Hold(20))
            continue
        ev = item[1]
        after = GAME.apply(state, ev)
        new = model.expected(after)
        index = len(truth)
        truth.append(ev)
        for cell, actions in move_actions(scene, table, new, int(rng.integers(1 << 30)), art):
            steps += [Reach(cell, actions, entry=str(rng.choice(["bottom", "left", "right", "top"])),
                            dwell_frames=int(rng.integers(3, 7)), speed_mm_s=float(rng.uniform(800, 1200))), Hold(1)]
            arm_steps.append(("move", index))
            for a in actions:
                scene = a.apply(scene)
        steps.append(Hold(18))
        state, table = after, new
    steps.append(Hold(30))
    first_scene = table_scene(model.expected(GAME.new_state(SETUP, {})), seed=seed, art=art)
    seq = Sequence(first_scene, camera, steps, DAYLIGHT, SETTINGS, fps=FPS, seed=seed, renderer=Renderer(camera))
    moves_out, tablet = write_video(out, seq, arm_steps, illegal, conditions, tablet_after)
    (out / TRUTH).write_text(write_record("scout-pennant", SETUP, None, truth), encoding="utf-8")
    save_script(out, "scout-pennant", FPS, SIZE, tablet, illegal, moves_out, conditions)
    return out


def main(argv=None) -> int:
    """``python -m assistant.demo.make_pennant OUT [--seed S] [--moves N]``."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--moves", type=int, default=20)
    args = p.parse_args(argv)
    folder = make(args.out, args.seed, args.moves)
    print(f"wrote {folder}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
