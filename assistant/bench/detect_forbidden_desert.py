"""Forbidden Desert figures for ``assistant bench detect``.

- per-slot error of the detector on rendered tables (own art), in normal light and in the
  stress set (warm lamp with glare, dim room, defocus, strong colour cast), per slot kind, with
  the most frequent confusions; pawns are read from what changed (a moved pawn), per cell;
- moves: random games acted out on the rendered table (every visible event done by a hand,
  storm cards laid and the tiles slid), frames through the motion gate, the detector and the
  tracker; an event counts as committed correctly when the tracker's position after it is the
  game's; a wrong commit is a commit to any other position (counted, never expected); when the
  tracker asks, the players' answer (the true position) is entered and play goes on;
- latency from the last frame with a hand over the board to the commit (s).

Teaching uses seeds 1-2 and the ``train`` conditions; measuring uses seeds from 101 and games
from 1001: none of them was looked at while tuning.
"""

from __future__ import annotations

import collections
import itertools
import json
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from ..games import get_game
from ..games.forbidden_desert.simulate import random_game, to_physical
from ..tracking.forbidden_desert import ForbiddenDesertTracker
from ..tracking.live import LiveDesert
from ..vision.detectors import forbidden_desert as fd
from ..vision.detectors import synth
from ..vision.mats import mat_layout
from ..vision.render.camera import look_at_mat
from ..vision.render.desert_script import scene_of, script
from ..vision.render.sequence import Sequence

CACHE = Path(tempfile.gettempdir()) / "tabletop-assistant-fd-detector"


def detector() -> fd.FDDetector:
    """The own-art detector, taught once and cached in the temporary folder."""
    if (CACHE / "detector.json").exists():
        return fd.FDDetector.load(CACHE)
    moves = itertools.chain(synth.pawn_moves(1, 150, "train"), synth.other_changes(2, 100, "train"))
    det = fd.teach(synth.views(1, 60, "train"), moves=moves)
    det.save(CACHE)
    return det


def slot_errors(det: fd.FDDetector, which: str, seed: int, views: int) -> tuple[collections.Counter, collections.Counter,
                                                                                 collections.Counter]:
    """(errors per kind, readings per kind, confusions (kind, truth, read))."""
    errors, total, confusion = collections.Counter(), collections.Counter(), collections.Counter()
    for frame, h, k, scene in synth.views(seed, views, which):
        truth = fd.truth_of(scene)
        for slot, reading in det.read(frame, h, k).items():
            if slot[0] == "pawns":
                continue                      # absolute pawn readings are not used: see pawn_errors
            total[slot[0]] += 1
            if reading.label != truth[slot]:
                errors[slot[0]] += 1
                confusion[(slot[0], truth[slot], reading.label)] += 1
    return errors, total, confusion


def pawn_errors(det: fd.FDDetector, which: str, seed: int, moves: int) -> tuple[int, int]:
    """Cells of moved pawns whose change reading does not fit the truth (label or alternative)."""
    bad = n = 0
    for before, after, _came, _went, cell, s0, s1 in synth.pawn_moves(seed, moves, which):
        had = set(filter(None, fd.truth_of(s0)[("pawns", *cell)].split("+")))
        reading = fd.pawn_reading(had, fd.pawn_changes(det.pawn_colour, before, after))
        n += 1
        bad += not reading.fits(fd.truth_of(s1)[("pawns", *cell)])
    return bad, n


def play_game(det: fd.FDDetector, seed: int, events: int = 40, size=(1280, 720), debug: bool = False) -> dict:
    """Act out one random game on the rendered table and track it; returns the counts."""
    game_obj = get_game("forbidden-desert")
    game = random_game(seed, n_players=3, max_events=events)
    phys_setup, _ = to_physical(game)
    phys_setup["equipment_deck"] = game.setup["equipment_deck"]
    start = game_obj.new_state(phys_setup, game.rulings)
    truth = _physical_states(game, start)
    tracker = ForbiddenDesertTracker(game_obj, start)
    layout = mat_layout("forbidden-desert")
    cam = look_at_mat(layout.outline_mm(), size, 55.0, 12.0 + seed % 15, 0.0, (seed * 37) % 30 - 15.0,
                      dist=(0.0, 0.0, 0.0, 0.0, 0.0))
    parts = script(game.states, game.events)
    seq = Sequence(scene_of(game.states[0]), cam, [s for p in parts for s in p.steps], fps=30, seed=seed)
    counts = [len(Sequence(seq.scene, cam, p.steps, fps=30)) for p in parts]
    starts = np.cumsum([0] + counts)
    live = LiveDesert(det, tracker, 30.0, cam.K)
    out = collections.Counter()
    latencies: list[float] = []
    part, last_arm, expected_after = 0, None, None
    by_state = {id(s): i for i, s in enumerate(game.states)}
    truth_by_part = [truth[by_state[id(p.target)]] for p in parts]
    def same(a, b) -> bool:
        """The same position; tiles compared by face (a dug gear is gear_1 or gear_5 by the
        order the engine learnt faces in, not by anything on the table)."""
        return json.dumps(_by_face(game_obj.summary(a)), sort_keys=True) == \
            json.dumps(_by_face(game_obj.summary(b)), sort_keys=True)

    for f in seq:
        while part < len(parts) and f.index >= starts[part]:
            if expected_after is not None and not same(tracker.state, expected_after):
                out["missed"] += 1                # no verdict brought the table's move in: enter it
                tracker.state, tracker.awaiting = expected_after, None
                live.pending, live.reference = set(), None
            for ev in parts[part].tablet_before:
                tracker.apply_tablet(ev)
            expected_after = truth_by_part[part]
            out["visible"] += len(parts[part].shown)
            part += 1
        if f.truth.arm.present:
            last_arm = f.index
        step = live.process(f.image, f.index, f.t)
        v = step.verdict
        if v is None or v.kind == "nothing":
            continue
        right = same(tracker.state, expected_after)
        if v.kind == "commit":
            out["right" if right else "wrong"] += len(v.events)
            if not right and debug:
                a, b = game_obj.summary(tracker.state), game_obj.summary(expected_after)
                print("WRONG", f.index, v.events, "truth", parts[part - 1].shown,
                      {k: (a[k], b[k]) for k in a if a[k] != b[k]})
            if last_arm is not None:
                latencies.append((f.index - last_arm) / 30.0)
        else:
            out[v.kind] += 1
            if debug:
                print(v.kind.upper(), f.index, v.message, v.events, "truth", parts[part - 1].shown)
            if not right:                         # the players answer: the true position is entered
                tracker.state, tracker.awaiting = expected_after, None
                live.pending, live.reference = set(), None
    out["latencies"] = latencies
    return out


def _by_face(summary: dict) -> dict:
    from ..games.forbidden_desert.components import KIND_OF_TILE, face_of

    out = dict(summary)
    out["tiles"] = [[face_of(t) if t in KIND_OF_TILE else t for t in row] for row in summary["tiles"]]
    return out


def _physical_states(game, start) -> list:
    """The table's game (physical storm deck, faces revealed as dug) state by state, aligned
    with the digital game's states (a digital reshuffle leaves the physical state as it was)."""
    from ..games.base import Event

    game_obj = get_game("forbidden-desert")
    out, state = [start], start
    for ev, before in zip(game.events, game.states):
        if ev.type == "draw_storm":
            ev = Event.make("storm", "storm_card", card=before.pile[0])
        elif ev.type == "excavate":
            slot = before.pawn[ev.actor]
            after = game.states[len(out)]
            drawn = after.hands[ev.actor][len(before.hands[ev.actor]):]
            ev = Event.make(ev.actor, "excavate", reveals=after.ident[slot], draws=drawn[0] if drawn else None)
        elif ev.type == "meteorologist_peek" or (ev.type == "play_equipment" and ev["card"] == "storm_tracker"):
            m = min(before.draw_count, len(before.pile))
            ev = Event.make(ev.actor, ev.type, **{**dict(ev.params), "seen": tuple(before.pile[:m])})
        if ev.type != "reshuffle":
            state = game_obj.apply(state, ev)
            assert state, (ev, state)
        out.append(state)
    return out


def run_section(seconds: float, seed: int) -> list[str]:
    """Run the Forbidden Desert detection benchmarks; returns printable lines."""
    lines = []
    t0 = time.perf_counter()
    det = detector()
    lines.append(f"detector taught on own art (or loaded from {CACHE}) in {time.perf_counter() - t0:.0f} s")
    for which, s in (("normal", 101), ("stress", 202)):
        errors, total, confusion = slot_errors(det, which, s, 24)
        per = ", ".join(f"{k} {errors[k]}/{total[k]} ({100 * errors[k] / max(total[k], 1):.2f} %)" for k in sorted(total))
        lines.append(f"  slots, {which}: {per}")
        if confusion:
            lines.append("    confusions (kind: truth -> read x n): " +
                         "; ".join(f"{k}: {a or '-'} -> {b or '-'} x{n}" for (k, a, b), n in confusion.most_common(8)))
        bad, n = pawn_errors(det, which, s + 10, 40)
        lines.append(f"  pawns by change, {which}: {bad}/{n} cells wrong ({100 * bad / n:.1f} %)")
    games = collections.Counter()
    latencies: list[float] = []
    start = time.perf_counter()
    g = 0
    while g < 2 or (time.perf_counter() - start < seconds and g < 6):
        res = play_game(det, 1001 + g)
        latencies += res.pop("latencies")
        games.update(res)
        g += 1
    lines.append(f"  moves over {g} scripted games: {games['visible']} visible events; committed correctly "
                 f"{games['right']} ({100 * games['right'] / max(games['visible'], 1):.1f} %), wrong commits "
                 f"{games['wrong']}, asks {games['ask']}, illegal claims {games['illegal']}, missed {games['missed']}")
    if latencies:
        lines.append(f"  latency, last hand frame -> commit: median {statistics.median(latencies):.2f} s, "
                     f"worst {max(latencies):.2f} s")
    return lines
