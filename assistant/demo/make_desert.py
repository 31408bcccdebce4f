"""The bundled Forbidden Desert recording: a seeded random game of three adventurers acted out
on the rendered table with the project's own look-alike art (never the publisher's pictures).

The game is the first one (seeds from ``seed``) with at least ``min_events`` events the camera
sees (moves, sand removed, excavations, parts picked up, navigations and storm cards with their
slides) and a wind card that slides tiles. What the camera cannot see (water, equipment cards,
ending a turn, the cards seen in a peek) is entered on the tablet; a Jet Pack or Dune Blaster is
entered there and then carried out on the table. On the way: the first wind card that adds sand
is carried out wrongly (the tiles slide, but the sand marker of one slid tile is forgotten), which
the assistant must catch and list as a correction, and the players then fix it; once the active
player moves another player's pawn although not the navigator (an illegal move the assistant must
flag) and puts it back;
an arm sweeps across the table, the room light changes to a cool ceiling light, and the mat is
bumped.

``python -m assistant.demo.make_desert OUT_FOLDER [--seed S] [--images own-art|DIR]`` writes
the recording; with a folder of component photos (``--images``) it renders the same script with
them (the unbundled run).
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..games import get_game
from ..games.base import Event
from ..games.forbidden_desert.simulate import random_game, table_game, table_key
from ..records import write_record
from ..tracking.forbidden_desert import ForbiddenDesertTable
from ..vision.mats import mat_layout
from ..vision.render.camera import look_at_mat
from ..vision.render.desert import ProceduralArt, move_pawn
from ..vision.render.desert_script import ReplaceScene, scene_of, script
from ..vision.render.lighting import COOL_CEILING, DAYLIGHT
from ..vision.render.renderer import CameraSettings, Renderer
from ..vision.render.sequence import Bump, Hold, Reach, SetLight, Sequence, Sweep
from .recording import TRUTH, save_script, write_video

SIZE = (960, 540)
FPS = 15.0                                   #: half a webcam's rate keeps the video within the size budget
HOLD = 9                                     #: still frames after each change (0.6 s; the gate needs 0.35 s)
SETTINGS = CameraSettings(noise_sigma=0.5, shot_noise=0.008)
MAX_EVENTS = 40
GAME = get_game("forbidden-desert")


def committed_events(start: Any, states: list, entered: list[Event]) -> list[Event]:
    """The events as the assistant commits them, one per entered event (``reshuffle`` left out).

    A table action is written as the tracker's own candidate that leads to the same table (an
    excavation names only the face a camera sees; the engine draws the equipment card from the
    known deck); the rest as entered.

    Raises
    ------
    RuntimeError
        When an entered event has no committed form that leads to its state (a bug).
    """
    model = ForbiddenDesertTable()
    out, state = [], start
    for ev, after in zip(entered, states[1:]):
        if ev.type == "reshuffle":
            continue
        chosen = ev
        if ev.type in ("move", "remove_sand", "excavate", "pick_up_part", "navigate"):
            want = table_key(after)
            chosen = next((c for c in model.visible_events(state)
                           if (nxt := GAME.apply(state, c)) and table_key(nxt) == want), None)
            if chosen is None:
                raise RuntimeError(f"no committed form of {ev.to_json()}")
        nxt = GAME.apply(state, chosen)
        if not nxt:
            raise RuntimeError(f"{chosen.to_json()} refused: {nxt.message}")
        state = nxt
        out.append(chosen)
    return out


def _fits(parts, min_events: int) -> bool:
    shown = [e for p in parts for e in p.shown]
    return len(shown) >= min_events and any(e.type == "draw_storm" for e in shown)


def find_game(seed: int, min_events: int = 30):
    """The first seed from ``seed`` whose game fits (see the module docstring); returns
    ``(seed, game, parts)``. Raises ``RuntimeError``."""
    for s in range(seed, seed + 200):
        game = random_game(s, n_players=3, max_events=MAX_EVENTS)
        if game.states[-1].result != "ongoing":
            continue                                   # a game that ends early is too short
        parts = script(game.states, game.events, cards_on_tablet=True)
        if _fits(parts, min_events) and _wrong_storm(game, parts) is not None:
            return s, game, parts
    raise RuntimeError(f"no fitting game among seeds {seed}..{seed + 199}")


def _wrong_storm(game, parts) -> tuple[int, Any] | None:
    """The first storm part whose card slides a tile that gets a sand marker, and that state
    with that marker forgotten: ``(part index, wrong state)``."""
    for k, part in enumerate(parts):
        if not part.shown or part.shown[0].type != "draw_storm":
            continue
        i = game.events.index(part.shown[0])
        before, after = game.states[i], game.states[i + 1]
        for slot in range(len(after.sand)):
            if after.cell_of[slot] != before.cell_of[slot] and after.sand[slot] > before.sand[slot]:
                sand = list(after.sand)
                sand[slot] = before.sand[slot]
                return k, replace(after, sand=sand)
    return None


def _illegal_push(state) -> tuple[tuple, str, int] | None:
    """Another player's pawn pushed one cell by the active player, who is not the navigator
    (only the navigator moves other pawns: rules §1.6 and §3.4, `navigate`): ``(cell, adventurer, seat)``, or None."""
    if state.cfg.players[state.active] == "navigator":
        return None
    for seat, adventurer in enumerate(state.cfg.players):
        if seat == state.active:
            continue
        r, c = state.cell_of_seat(seat)
        for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0)):
            cell = (r + dr, c + dc)
            if 0 <= cell[0] < 5 and 0 <= cell[1] < 5 and cell != state.storm:
                return cell, adventurer, seat
    return None


def make(out: str | Path, seed: int = 1, images=None, min_events: int = 30) -> Path:
    """Render the recording into ``out`` (created) with ``images`` (default the project's own
    art); returns the folder. Raises ``OSError`` when it cannot be written."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    images = images or ProceduralArt()
    game_seed, game, _ = find_game(seed, min_events)
    parts = script(game.states, game.events, images=images, hold=HOLD, cards_on_tablet=True)
    setup, start, states, entered = table_game(game)
    truth = committed_events(start, states, entered)
    truth_index, k = {}, 0                              # digital event index -> index in truth
    for i, ev in enumerate(entered):
        if ev.type != "reshuffle":
            truth_index[i] = k
            k += 1
    event_index = {id(ev): i for i, ev in enumerate(game.events)}
    wrong_part, wrong_state = _wrong_storm(game, parts)
    layout = mat_layout("forbidden-desert")
    w, h = layout.size_mm
    camera = look_at_mat(layout.outline_mm(), SIZE, 55.0, 12.0 + game_seed % 15, 0.0, (game_seed * 37) % 30 - 15.0,
                         dist=(0.0, 0.0, 0.0, 0.0, 0.0))
    steps: list = []
    arm_steps: list = []
    tablet_after: list = []
    illegal: list[dict] = []
    conditions: list[dict] = []
    storm_wrong: list[dict] = []
    table_count, illegal_done = 0, False
    for k, part in enumerate(parts):
        for ev in part.tablet_before:
            if ev.type != "reshuffle":
                tablet_after.append((len(arm_steps), truth[truth_index[event_index[id(ev)]]].to_json()))
        tag = ("move", truth_index[event_index[id(part.shown[0])]]) if part.shown else None
        passes = [s for s in part.steps if isinstance(s, Reach)]
        if k == wrong_part:
            # the card, then the tiles slid with one sand marker forgotten, then the fix
            card, slide = passes[0], passes[1]
            steps += [card, Hold(HOLD),
                      replace(slide, actions=(ReplaceScene(scene_of(wrong_state, images)),)), Hold(1), Hold(20),
                      slide, Hold(HOLD + 2)]
            arm_steps += [tag, "wrong", tag]
            storm_wrong.append({"arm": len(arm_steps) - 2, "what": "the wind card's slide carried out with the sand "
                                                                     "marker of a slid tile forgotten"})
        else:
            steps += part.steps
            arm_steps += [tag] * len(passes)
        if part.shown and part.shown[0].type in ("move", "remove_sand", "excavate", "pick_up_part", "navigate"):
            table_count += 1
        state = part.target
        if not illegal_done and table_count >= 6 and state.phase == "actions" and state.result == "ongoing":
            push = _illegal_push(state)
            if push is not None:
                cell, adventurer, seat = push
                here = scene_of(state, images)
                steps += [Reach(cell, move_pawn(here, adventurer, cell, slot=seat), dwell_frames=3), Hold(1),
                          Hold(15), Reach(cell, (ReplaceScene(here),), dwell_frames=3), Hold(1), Hold(HOLD)]
                arm_steps += ["illegal", "restore"]
                active = state.cfg.players[state.active]
                illegal.append({"arm": len(arm_steps) - 2,
                                "what": f"the {active} moved the {adventurer}'s pawn to "
                                        f"{ForbiddenDesertTable().describe(cell)}: only the navigator moves others"})
                illegal_done = True
        if table_count == 9 and not any(c.get("what", "").startswith("an arm") for c in conditions):
            steps += [Sweep((-150.0, h * 0.6), (w + 150.0, h * 0.35), speed_mm_s=1000.0), Hold(1), Hold(HOLD)]
            arm_steps.append(None)
            conditions.append({"after_arm": len(arm_steps) - 1, "what": "an arm sweeps across at 1 m/s"})
        if table_count == 14 and not any("light" in c["what"] for c in conditions):
            steps += [SetLight(replace(COOL_CEILING, name="ceiling light switched on")), Hold(HOLD + 2)]
            conditions.append({"after_arm": len(arm_steps) - 1, "what": "light: a cool ceiling light"})
        if table_count == 20 and not any("bumped" in c["what"] for c in conditions):
            steps += [Bump(dx_mm=4.0, dy_mm=-3.0, dtheta_deg=1.0), Hold(HOLD + 2)]
            conditions.append({"after_arm": len(arm_steps) - 1, "what": "the mat bumped by 5 mm and 1 degree"})
    steps.append(Hold(2 * HOLD))
    seq = Sequence(scene_of(game.states[0], images), camera, steps, DAYLIGHT, SETTINGS, fps=FPS, seed=game_seed,
                   renderer=Renderer(camera))
    moves_out, tablet = write_video(out, seq, arm_steps, illegal + storm_wrong, conditions, tablet_after)
    (out / TRUTH).write_text(write_record("forbidden-desert", setup, game.rulings, truth), encoding="utf-8")
    save_script(out, "forbidden-desert", FPS, SIZE, tablet, illegal, moves_out, conditions,
                storm_wrong=storm_wrong, camera_matrix=camera.K.tolist())
    return out


def main(argv=None) -> int:
    """``python -m assistant.demo.make_desert OUT [--seed S] [--images own-art|DIR]``."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--images", default="own-art", help="own-art, or a folder of component photos")
    args = p.parse_args(argv)
    images = None
    if args.images != "own-art":
        from ..vision.render.photos import ComponentImages

        images = ComponentImages(args.images, fallback=ProceduralArt())
    print(f"wrote {make(args.out, args.seed, images)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
