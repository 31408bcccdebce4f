"""``assistant bench setup``: Forbidden Desert's opening table read from the camera, and
"check the table" (issue 21); Scout Pennant's and Discovery Island's opening tables follow
(:mod:`.kit_setup`).

Figures, each on pictures nothing here was tuned on (thresholds were chosen on own-renderer
set-up tables of seeds 900-919; measuring uses the seeds below):

- **set-up read**: random openings (rules §3.1: 2-5 adventurers' pawns on the crash site)
  rendered by the project's renderer (:mod:`assistant.vision.render`, the teaching renderer:
  own art, read by the own-art detector; seeds 20000+ normal light, 21000+ stress) and by the
  second renderer (:mod:`.second_renderer`: the owner's component photos, another camera, light
  and sensor, read by the detector taught from those photos; seeds 22000+ normal, 23000+
  stress). Read as the referee's new-game page first reads them (:func:`~..tracking.
  desert_setup.read_setup`: the set-up rules as a prior, before the form names the players)
  then taken with the players' adventurers and flagged against them, as the page does once the
  form is sent. Reported: tables read exactly (every slot) by the first read, the same read
  with the form's players, the first read without the pawns; and of the table the page shows
  (with the players): wrong cells, wrong cells not flagged (silent), flags on cells read right;
- **set-up laid with one mistake** (second renderer, seeds 25000+ normal, 26000+ stress;
  :mod:`.setup_mistakes`: sand moved, missing or doubled, a pawn off the crash site, a tile city
  side up, in turn): how often the mistake's cell is flagged, the price of taking the rules as
  a prior;
- **checks of a correct table**: states of random games (3 players, seeds 30000+) rendered by
  the project's renderer (the second renderer draws no game), read with the last committed
  still (another render of the same table) as the pawns' reference: corrections (all false)
  and questions raised;
- **a missed move**: the engine one visible move behind the table (the move cut out), the
  reference the still before it: found when the check raises a correction or question on a
  cell the move changed, identified when it offers exactly that move (as recorded, and the same
  move: one event leaving the game where it does, an excavation named as the camera sees it,
  "a gear" for ``gear_7``: the numbered copies are identical for the rules, §1.2). Events that
  change nothing the camera reads (a card played that moves nothing, a third marker taken off
  a stack) cannot be found by any check and are not cut out: they are counted apart and
  printed, by type;
- **time**: a full-table read per table on one core (OpenCV on one thread): wall time, and the
  reading thread's CPU time (``time.thread_time``), the honest one-core figure when other work
  shares the machine's cores.
"""

from __future__ import annotations

import collections
import random
import statistics
import time
from typing import Any, Iterator

import cv2
import numpy as np

from ..games import get_game
from ..tracking.desert_check import compare_table
from ..tracking.desert_setup import (ADVENTURER_OF_COLOUR, SETUP_PRIOR_NATS, read_setup, setup_flags, with_players,
                                     wrong_cells)
from ..tracking.forbidden_desert import ForbiddenDesertTable, colours_of
from ..vision.detectors import forbidden_desert as fd
from ..vision.detectors import synth
from ..vision.mats import mat_layout
from ..vision.render.camera import look_at_mat
from ..vision.render.renderer import Renderer

#: tables per renderer and light; checks of correct tables; missed moves (defaults: ~15 min)
SETUPS, CHECKS, MISSED = 40, 100, 50
VISIBLE = ("move", "remove_sand", "excavate", "pick_up_part", "navigate")


def camera(rng: random.Random, size=(1280, 720)):
    """A random camera over the mat, as the detector's measuring views use (:func:`~..vision.
    detectors.synth.views`)."""
    layout = mat_layout("forbidden-desert")
    return look_at_mat(layout.outline_mm(), size, rng.uniform(50, 62), rng.uniform(5, 30), rng.uniform(0, 360),
                       rng.uniform(-25, 25), dist=synth.NO_DIST)


def own_openings(seed: int, count: int, which: str, size=(1280, 720)) -> Iterator[tuple]:
    """``count`` random openings drawn by the project's renderer: ``(frame (H, W, 3) uint8,
    homography (3, 3) mm -> px, camera matrix (3, 3), truth dict slot -> label)``."""
    from ..vision.render.desert import desert_setup

    for i in range(count):
        rng = random.Random(seed + i)
        scene = desert_setup(seed + i, adventurers=tuple(rng.sample(synth.ADVENTURERS, rng.randint(2, 5))),
                             storm_card=None)
        cam = camera(rng, size)
        light, settings = synth._conditions(rng, which)
        frame = Renderer(cam).render(scene, lighting=light, settings=settings, seed=seed + i).image
        yield frame, cam.homography(), cam.K, fd.truth_of(scene)


def second_openings(seed: int, count: int, which: str, mistakes: bool = False) -> Iterator[tuple]:
    """The same from the second renderer (component photos), registered by the mat's markers as
    ``assistant detect`` does; a table whose mat is not found is yielded with homography None.
    With ``mistakes`` each table is laid with one mistake, the kinds of
    :data:`.setup_mistakes.MISTAKES` in turn (:func:`.setup_mistakes.opening_with_mistake`)."""
    from ..vision.registration import detect_markers, make_detector, register
    from .detect_desert_unseen import PHOTOS
    from .second_renderer import opening_table, still
    from .setup_mistakes import MISTAKES, opening_with_mistake

    layout = mat_layout("forbidden-desert")
    for i in range(count):
        table = opening_table
        if mistakes:
            def table(rng, root, kind=MISTAKES[i % len(MISTAKES)]):
                return opening_with_mistake(rng, root, kind)
        pic = still(seed + i, PHOTOS, stress=which == "stress", table=table)
        fit = register(detect_markers(pic.image, make_detector()), layout)
        yield pic.image, (fit.homography if fit else None), pic.camera_matrix, pic.truth


def players_of(truth: dict) -> list[str]:
    """The adventurers whose pawns stand on the table in ``truth`` (the tablet's player list)."""
    colours = set().union(*(colours_of(v) for s, v in truth.items() if s[0] == "pawns"))
    return [ADVENTURER_OF_COLOUR[c] for c in sorted(colours)]


def measure_setups(det, tables: Iterator[tuple], nats: float = SETUP_PRIOR_NATS) -> dict[str, Any]:
    """Read every table as the referee's new-game page first does (:func:`~..tracking.
    desert_setup.read_setup`, the rules as a prior of ``nats``, no players yet), then take the
    form's players into it (:func:`~..tracking.desert_setup.with_players`) and flag it against
    them, as the page does when asked to start; returns counters (``tables``, ``exact``: the
    first read, ``exact_with_players``, ``exact_no_pawns``: the first read but its pawns; and of
    the table the page shows, ``wrong_cells``, ``silent`` (wrong and not flagged),
    ``needless`` (flagged and right), ``not_found``; for tables laid with a mistake, :mod:`.setup_mistakes`,
    ``caught`` and ``caught <kind>`` / ``laid <kind>``), ``seconds`` per read (wall time) and
    ``cpu_seconds`` per read (the reading thread's CPU time, ``time.thread_time``: the
    one-core figure, unlike wall time not lengthened by other work on a shared machine)."""
    out: collections.Counter = collections.Counter()
    seconds: list[float] = []
    cpu: list[float] = []
    silent_examples: list[str] = []
    for frame, homography, k, truth in tables:
        out["tables"] += 1
        if homography is None:
            out["not_found"] += 1
            continue
        t0, c0 = time.perf_counter(), time.thread_time()
        read = read_setup(det, frame, homography, k, None, nats)        # the page's first read: no players yet
        seconds.append(time.perf_counter() - t0)
        cpu.append(time.thread_time() - c0)
        players = players_of(truth)
        readings = read.readings
        # the page flags the read with the form's players (a read made after the form was sent)
        known = with_players(readings, players, nats) if nats else readings
        out["exact_with_players"] += not wrong_cells(known, truth)
        flags = {f.cell for f in setup_flags(known, players)}
        if "mistake" in truth:
            kind, cell = truth["mistake"]
            out["caught"] += cell in flags
            out[f"caught {kind}"] += cell in flags
            out[f"laid {kind}"] += 1
        out["exact"] += not wrong_cells(readings, truth)
        out["exact_no_pawns"] += not wrong_cells(readings, truth, ("face", "sand", "parts"))
        wrong = wrong_cells(known, truth)                   # what the page shows
        out["wrong_cells"] += len(wrong)
        out["silent"] += len(wrong - flags)
        out["needless"] += len(flags - wrong)
        silent_examples += [str(c) for c in wrong - flags]
    return {**out, "seconds": seconds, "cpu_seconds": cpu, "silent_examples": silent_examples}


def _game(seed: int):
    from ..games.forbidden_desert.simulate import random_game, table_game

    game = random_game(seed, n_players=3, max_events=60)
    _setup, start, states, entered = table_game(game)
    return game, start, states, entered


def _render(state, cam, light, settings, seed: int) -> np.ndarray:
    from ..vision.render.desert_script import scene_of

    return Renderer(cam).render(scene_of(state), lighting=light, settings=settings, seed=seed).image


def check_cases(seed: int, count: int, missed: bool, which: str = "normal", size=(1280, 720),
                types: tuple = VISIBLE, unseen: collections.Counter | None = None) -> Iterator[dict]:
    """Checks on rendered game states: each ``{"check": TableCheck, "cells": cells the move
    changed, "event": the move cut out, "seconds": read time, "state": the engine's state}``.
    Without ``missed`` the engine is at the state the table shows (a correct table); with it,
    one visible move behind it (a move that changes what the camera reads: a third sand marker
    taken off a stack changes nothing a camera can see, and is entered on the tablet) of one of
    ``types``. ``unseen``, when given, counts the actions-phase events of the games drawn that
    cannot be cut out so: ``("invisible", type)`` for each that changes nothing the camera reads
    (no check can find it: it is entered on the tablet), ``("other", type)`` for each visible one
    not of ``types``, and ``"events"`` for all."""
    game_obj, model = get_game("forbidden-desert"), ForbiddenDesertTable()
    done, g = 0, 0
    while done < count:
        game, start, states, entered = _game(seed + g)
        rng = random.Random(seed * 31 + g)
        g += 1
        ks = [k for k in range(1, len(entered) + 1) if states[k].phase == "actions" and states[k].result == "ongoing"
              and (not missed or entered[k - 1].type in types
                   and model.expected(states[k]) != model.expected(states[k - 1]))]   # a move the table shows
        if unseen is not None and missed:
            for k in range(1, len(entered) + 1):
                if states[k].phase == "actions" and states[k].result == "ongoing":
                    unseen["events"] += 1
                    if model.expected(states[k]) == model.expected(states[k - 1]):
                        unseen[("invisible", entered[k - 1].type)] += 1
                    elif entered[k - 1].type not in types:
                        unseen[("other", entered[k - 1].type)] += 1
        for k in rng.sample(ks, min(len(ks), 3, count - done)):
            cam = camera(rng, size)
            light, settings = synth._conditions(rng, which)
            shown = game.states[k]                          # the table (every tile's identity known)
            known = k - 1 if missed else k                  # what the engine knows
            frame = _render(shown, cam, light, settings, seed + 7 * k + g)
            ref_state = game.states[known] if missed else shown
            ref = _render(ref_state, cam, light, settings, seed + 7 * k + g + 100003)
            pawns = {(s[1], s[2]): colours_of(v) for s, v in model.expected(states[known]).items() if s[0] == "pawns"}
            t0 = time.perf_counter()
            readings = det_holder[0].read(frame, cam.homography(), cam.K, None, (ref, cam.homography(), pawns))
            seconds = time.perf_counter() - t0
            check = compare_table(game_obj, model, start, entered[:known], readings, True, states[:known + 1])
            cells = {model.cell_of(s) for s, v in model.expected(states[k]).items()
                     if model.expected(states[k - 1]).get(s) != v} if missed else set()
            yield {"check": check, "cells": cells, "event": entered[k - 1], "seconds": seconds, "state": states[known],
                   "readings": readings}
            done += 1


def same_move(game, state, offered: list, event) -> bool:
    """Whether a check offered the move cut out, judged by where it leaves the game.

    Takes Forbidden Desert's ``game`` (:func:`~..games.get_game`), the engine's ``state``, the
    check's ``offered`` events (one of :attr:`~..tracking.desert_check.TableCheck.missed_options`:
    a card-drawing excavation is offered once per card) and the
    ``event`` cut out; returns True when ``offered`` is one event of the same type after which
    the game's summary is the one after ``event`` (an offer names what the camera sees,
    "excavate reveals gear", where the record names the tile and the card drawn, "reveals
    gear_4, draws jet_pack"; the tiles of a numbered kind, wells, tunnels and gears, are
    identical for the rules and to the camera, so which copy an offer names is not compared:
    :func:`rules_summary`). Raises nothing: an illegal event is simply not the same move."""
    if len(offered) != 1 or offered[0].type != event.type:
        return False
    a, b = game.apply(state, offered[0]), game.apply(state, event)
    return bool(a) and bool(b) and rules_summary(game.summary(a)) == rules_summary(game.summary(b))


def rules_summary(summary: dict) -> dict:
    """Forbidden Desert's ``summary`` (:func:`~..games.forbidden_desert.views.summary`) with each
    tile of a numbered kind named by its kind (``gear_7`` -> ``gear``; components
    ``NUMBERED_KINDS``: "identical for the rules", rules §1.2); every other field as given."""
    from ..games.forbidden_desert.components import KIND_OF_TILE, NUMBERED_KINDS

    def kind(t):
        return KIND_OF_TILE[t] if isinstance(t, str) and KIND_OF_TILE.get(t) in NUMBERED_KINDS else t
    return {**summary, "tiles": [[kind(t) for t in row] for row in summary["tiles"]]}


def _by_type(counts: collections.Counter, which: str) -> str:
    """``"N (type n, ...)"`` for the ``(which, type)`` keys of ``counts``."""
    got = {k[1]: v for k, v in counts.items() if isinstance(k, tuple) and k[0] == which}
    return f"{sum(got.values())} ({', '.join(f'{t} {n}' for t, n in sorted(got.items(), key=lambda kv: -kv[1]))})"


#: the detector :func:`check_cases` reads with (set by :func:`run`; a list so tests may set it)
det_holder: list = [None]


def run(seconds: float = 0.0, seed: int = 1, setups: int = SETUPS, checks: int = CHECKS, missed: int = MISSED,
        parts: str = "setup,check,kits") -> int:
    """Print the figures (see the module docstring); returns 0. ``seconds`` and ``seed`` are
    accepted for the bench command line and not used: the seeds are fixed."""
    from .detect_desert_unseen import PHOTOS, photo_detector
    from .detect_forbidden_desert import detector

    cv2.setNumThreads(1)
    det_holder[0] = own = detector()
    print("# assistant bench setup  (Forbidden Desert set-up read and table checks; OpenCV on one thread)", flush=True)
    if "setup" in parts:
        runs = [("own renderer (made the way the teaching renders are)", own, own_openings, 20000, 21000)]
        if PHOTOS.is_dir():
            runs.append(("second renderer (component photos; made differently)", photo_detector(), second_openings,
                         22000, 23000))
        else:
            print(f"  second renderer: skipped, the component photos are not beside the repository ({PHOTOS})")
        for name, det, tables, normal, stress in runs:
            for which, s in (("normal", normal), ("stress", stress)):
                got = measure_setups(det, tables(s, setups, which))
                n = got["tables"] - got.get("not_found", 0)
                print(f"  set-up read, {name}, {which} (seeds {s}-{s + setups - 1}): exact {got.get('exact', 0)}/{n} "
                      f"({100 * got.get('exact', 0) / max(n, 1):.1f} %), with the form's players "
                      f"{got.get('exact_with_players', 0)}/{n}, without the pawns "
                      f"{got.get('exact_no_pawns', 0)}/{n} ({100 * got.get('exact_no_pawns', 0) / max(n, 1):.1f} %); "
                      f"wrong cells {got.get('wrong_cells', 0)}, of them not flagged {got.get('silent', 0)} "
                      f"{got['silent_examples'][:5]}; flags on cells read right {got.get('needless', 0)}; "
                      f"mats not found {got.get('not_found', 0)}; read time median "
                      f"{statistics.median(got['seconds']) if got['seconds'] else float('nan'):.2f} s, worst "
                      f"{max(got['seconds'], default=float('nan')):.2f} s; CPU time per read median "
                      f"{statistics.median(got['cpu_seconds']) if got['cpu_seconds'] else float('nan'):.2f} s, worst "
                      f"{max(got['cpu_seconds'], default=float('nan')):.2f} s (target 0.5 s on one core)", flush=True)
        if PHOTOS.is_dir():
            from .setup_mistakes import MISTAKES

            det = runs[-1][1]
            for which, s in (("normal", 25000), ("stress", 26000)):
                got = measure_setups(det, second_openings(s, setups, which, mistakes=True))
                n = got["tables"] - got.get("not_found", 0)
                kinds = ", ".join(f"{k} {got.get(f'caught {k}', 0)}/{got.get(f'laid {k}', 0)}" for k in MISTAKES)
                print(f"  set-up laid with one mistake, second renderer, {which} (seeds {s}-{s + setups - 1}): "
                      f"the mistake's cell flagged {got.get('caught', 0)}/{n} ({kinds}); wrong cells not flagged "
                      f"{got.get('silent', 0)}", flush=True)
    if "check" in parts:
        false, asked, offered, times = 0, 0, 0, []
        for case in check_cases(30000, checks, False):
            false += len(case["check"].corrections)
            asked += len(case["check"].questions)
            offered += bool(case["check"].missed)              # a move nobody made, offered
            times.append(case["seconds"])
        print(f"  checks of a correct table (own renderer, normal light, games 30000+): false corrections {false} "
              f"in {checks} checks, questions {asked}, missed moves offered {offered}; read time median "
              f"{statistics.median(times):.2f} s", flush=True)
        found = identified = same = 0
        game_obj = get_game("forbidden-desert")
        unseen: collections.Counter = collections.Counter()
        for case in check_cases(31000, missed, True, unseen=unseen):
            c = case["check"]
            found += any(f.cell in case["cells"] for f in c.findings)
            identified += c.missed == [case["event"]]
            same += any(same_move(game_obj, case["state"], seq, case["event"]) for seq in c.missed_options)
        print(f"  a missed move (cut out; own renderer, normal light, games 31000+): found by the next check "
              f"{found}/{missed} ({100 * found / max(missed, 1):.1f} %), the move itself offered "
              f"{identified}/{missed} (as recorded), {same}/{missed} (the same move: the same position after it)",
              flush=True)
        print(f"  not cut out (no check can find them, or not a kind cut out): of {unseen['events']} actions-phase "
              f"events in those games, changing nothing the camera reads "
              f"{_by_type(unseen, 'invisible')}; visible but of other kinds {_by_type(unseen, 'other')}", flush=True)
    if "kits" in parts:
        from .kit_setup import run as kits

        print("# Scout Pennant and Discovery Island opening tables (read from the mat's own markers)", flush=True)
        kits()
    return 0
