"""``assistant bench detect`` (Scout Pennant section): per-slot accuracy of the kit detector and
move tracking over scripted games, all on rendered scenes.

Figures (issue targets beside them):

- **per-slot error**, per slot kind (piece, patrol, arrow), in *normal* light and in the
  *stress* set, with confusion matrices: a slot is wrong when its label differs from the truth
  (sure or not); "silent" errors are the wrong readings that were also sure; "unsure" readings
  (margin below ``MIN_MARGIN``) are counted apart (the tracker asks instead of trusting them).
  Target: <= 0.1 % normal, <= 0.5 % stress. The slots are read with the homography registered
  from the mat's markers; an image whose markers do not register is reported, and all its slots
  count as wrong ("unread"), never read with the renderer's true homography.
- **moves**: random legal games from the engine's simulator (free variant, 2-6 players, radius
  4), each move performed by an arm (``Reach``) in the renderer, sometimes two moves in one go
  (no still moment between them, F6/F7), frames through :class:`~assistant.vision.pipeline.BoardWatcher`,
  readings of the changed cells by the kit detector, :meth:`ScoutPennantTracker.explain`.
  A move is *committed correctly* when the tracker's state equals the engine's after it with no
  question asked; a *wrong commit* is a commit to any other state; every scripted move is legal,
  so an ``illegal`` verdict is a wrong verdict too (reported apart from the questions).
  Target >= 99.5 %, 0 wrong.
- **latency**: from the last frame with an arm over the mat to the frame of the commit, at the
  sequence's frame rate, plus the measured time to read the slots and search. Targets: median
  <= 0.5 s, worst <= 1.0 s.

**Reading the figures.** "error" counts every reading whose label is not the truth, sure or
not (the strict figure the target is checked against); "silent" counts those that were also sure
(what the tracker would commit without asking); "unsure" counts every reading below
``MIN_MARGIN`` (right or wrong), i.e. how often the players would be asked about a slot it reads.
A per-condition line gives the three for each stress condition.

**Held-out conditions.** The detector's thresholds were tuned on seeds 0-99 of board positions
under the renderer's ``DAYLIGHT``, ``WARM_LAMP`` and ``COOL_CEILING`` presets (auto exposure,
1280x720, tilt 0-35 degrees), plus a dim, a blurred and a white-balance-shifted daylight. The
benchmark draws positions and cameras from seeds ``10_000 + seed`` on, and its stress set uses
conditions not seen while tuning: a warm lamp placed elsewhere with its glare pinned on the
board, a dimmer room with more sensor noise and JPEG, a stronger blur, a stronger white-balance
shift, and the ``POINT_LIGHT`` preset; normal light is daylight and a cool ceiling at other
camera angles. The second round (pawn outline cue, pawn rim) was diagnosed on seeds 0-39 under
that stress set, so the benchmark now uses a new one (:func:`stress_conditions`): the lamp and its
glare elsewhere and warmer, dimmer and noisier, a stronger blur (2.1 px), a stronger white-balance
shift (2300 K light, camera at 8000 K) and the point light moved and brighter.
The third round (clearing vs forest by the gap's green; pawn colour noise bounded at what the
camera shows and the white letter as evidence; glare told from a bright lamp by a forest's paled
green) was tuned on seeds 0-39 under the earlier stress set (``stress_conditions(held_out=False)``)
and under harder conditions of its own, not the held-out ones: a 2.5 and 2.8 px blur and a point
light elsewhere (at 0.65 / 0.35 of the mat, 340 mm up, power 1.9), and two more point lights
(over the middle, 330 mm up, power 1.8; near a corner, power 1.65), the first of which showed the
hexes a glare spot clips whole (the "glare beside" rule). The held-out set was only run whole,
for the figures.
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from ..games.scout_pennant.simulate import full_board, random_game
from ..tracking.scout_pennant import (ARROW_LABELS, PATROL_LABELS, PIECE_LABELS, ScoutPennantTable,
                                      ScoutPennantTracker, position_key)
from ..vision.kits.scout_pennant_board import read_slots
from ..vision.kits.scout_pennant_scene import KitArt, move_actions, table_scene
from ..vision.mats import mat_layout
from ..vision.pipeline import BoardWatcher
from ..vision.render.camera import look_at_mat
from ..vision.render.lighting import COOL_CEILING, DAYLIGHT, POINT_LIGHT, WARM_LAMP, Lamp, Lighting
from ..vision.render.renderer import CameraSettings, Renderer
from ..vision.render.sequence import Hold, Reach, Sequence

SIZE = (1280, 720)
FPS = 30.0
SEED_BASE = 10_000          #: benchmark seeds start here (tuning used 0-99)
LABELS = {"piece": PIECE_LABELS, "patrol": PATROL_LABELS, "arrow": ARROW_LABELS}
AUTO = CameraSettings(auto_exposure=True)


def normal_conditions() -> dict[str, tuple[Lighting, CameraSettings]]:
    """Normal light: daylight and a cool ceiling light (auto exposure, the default sensor)."""
    return {"daylight": (DAYLIGHT, AUTO), "cool ceiling": (COOL_CEILING, AUTO)}


def stress_conditions(held_out: bool = True) -> dict[str, tuple[Lighting, CameraSettings]]:
    """The stress set.

    Parameters
    ----------
    held_out : bool
        ``True`` (the benchmark): the held-out set, whose parameters were used neither for the
        first tuning nor for the 2nd round (pawn outline cue); ``False``: the earlier stress set,
        which the 2nd round's diagnosis used (on seeds 0-39 only) and so is no longer held out.

    Returns
    -------
    dict name -> (Lighting, CameraSettings)
    """
    layout = mat_layout("scout-pennant")
    w, h = layout.size_mm
    if not held_out:
        warm = replace(WARM_LAMP, name="warm lamp, glare on the board",
                       lamps=(Lamp((w * 0.75, h * 0.2, 450.0), kelvin=2800.0, power=0.9, glare=0.8,
                                   glare_at_mm=(w * 0.62, h * 0.42)),))
        dim = replace(DAYLIGHT, name="dim", ambient=0.18, vignette=0.3)
        wb = replace(DAYLIGHT, name="white balance", ambient_kelvin=2400.0, camera_kelvin=7500.0, wb_strength=1.0)
        return {"warm lamp + glare": (warm, AUTO),
                "dim": (dim, CameraSettings(auto_exposure=True, noise_sigma=3.5, shot_noise=0.1, jpeg_quality=80)),
                "blur": (DAYLIGHT, CameraSettings(auto_exposure=True, blur_sigma_px=1.9)),
                "white balance": (wb, AUTO),
                "point light": (POINT_LIGHT, AUTO)}
    warm = replace(WARM_LAMP, name="warm lamp, glare on the board",
                   lamps=(Lamp((w * 0.3, h * 0.78, 420.0), kelvin=2700.0, power=0.95, glare=0.85,
                               glare_at_mm=(w * 0.4, h * 0.58)),))
    dim = replace(DAYLIGHT, name="dim", ambient=0.16, vignette=0.35)
    wb = replace(DAYLIGHT, name="white balance", ambient_kelvin=2300.0, camera_kelvin=8000.0, wb_strength=1.0)
    point = replace(POINT_LIGHT, name="point light, moved",
                    lamps=(Lamp((w * 0.3, h * 0.7, 360.0), kelvin=4200.0, power=1.7, glare=1.6, glare_radius_mm=14.0),))
    return {"warm lamp + glare": (warm, AUTO),
            "dim": (dim, CameraSettings(auto_exposure=True, noise_sigma=4.0, shot_noise=0.1, jpeg_quality=75)),
            "blur": (DAYLIGHT, CameraSettings(auto_exposure=True, blur_sigma_px=2.1)),
            "white balance": (wb, AUTO),
            "point light": (point, AUTO)}


def board_position(seed: int):
    """A varied position: a full board after some play (1 in 3), else a random game cut short.

    Parameters
    ----------
    seed : int
        Decides the position (deterministic).

    Returns
    -------
    State
        A legal Scout Pennant state (radius 4, free variant).
    """
    if seed % 3 == 0:
        full, after = full_board(seed, play_after=25)
        return after[-1] if after else full
    return random_game(seed, radius=4, variant="free", max_events=40 + seed % 120).final


def random_camera(layout, rng: np.random.Generator, size=SIZE):
    """A camera over the mat: 60 degree lens, tilt 5-35 degrees, any side, turned -25..25 degrees.

    Parameters
    ----------
    layout : MatLayout
    rng : numpy.random.Generator
        Draws tilt, azimuth and roll (three uniform draws, in that order).
    size : (int, int)
        Image ``(width, height)`` px.

    Returns
    -------
    Camera
        From :func:`~assistant.vision.render.camera.look_at_mat`.
    """
    return look_at_mat(layout.outline_mm(), size, 60.0, float(rng.uniform(5, 35)), float(rng.uniform(0, 360)),
                       float(rng.uniform(-25, 25)))


#: the "read" label of a slot on an image whose registration failed (nothing could be read)
UNREAD = "unread"


@dataclass
class SlotStats:
    """Counts of one slot kind: ``n``, ``wrong``, ``silent`` (wrong and sure), ``unsure``,
    ``unread`` (slots of images whose registration failed, counted as wrong too) and the
    confusion counts ``(truth, read) -> n`` (read :data:`UNREAD` for those)."""

    n: int = 0
    wrong: int = 0
    silent: int = 0
    unsure: int = 0
    unread: int = 0
    confusion: Counter = field(default_factory=Counter)

    def add(self, truth: str, reading) -> None:
        """Count one reading (a :class:`~assistant.tracking.base.Reading`) against its true label."""
        self.n += 1
        self.confusion[(truth, reading.label)] += 1
        if not reading.sure:
            self.unsure += 1
        if reading.label != truth:
            self.wrong += 1
            self.silent += int(reading.sure)

    def fail(self, truth: str) -> None:
        """Count a slot that could not be read (the mat was not registered) as a wrong reading:
        not silent (nothing is committed from an unregistered frame), not unsure either."""
        self.n += 1
        self.wrong += 1
        self.unread += 1
        self.confusion[(truth, UNREAD)] += 1


def static_accuracy(seeds, conditions, size=SIZE, by_condition: dict | None = None,
                    failures: list | None = None) -> dict[str, SlotStats]:
    """Read every slot of rendered positions (one per seed and condition) with the registered
    homography (markers, as in use; never the renderer's true one).

    Parameters
    ----------
    seeds : iterable of int
    conditions : dict name -> (Lighting, CameraSettings)
    size : (w, h) px
    by_condition : dict, optional
        Filled with ``name -> {kind: SlotStats}`` per condition when given.
    failures : list, optional
        Appended with ``(seed, condition name)`` of every image whose markers did not register;
        all the slots of such an image are counted as wrong (:meth:`SlotStats.fail`).

    Returns
    -------
    dict kind -> SlotStats
        Over all conditions.
    """
    from ..vision.registration import detect_markers, make_detector, register

    model, art, detector = ScoutPennantTable(), KitArt(), make_detector()
    stats = {k: SlotStats() for k in LABELS}
    for seed in seeds:
        table = model.expected(board_position(seed))
        scene = table_scene(table, seed=seed, art=art)
        for cname, (light, settings) in conditions.items():
            cam = random_camera(scene.layout, np.random.default_rng([seed, 1]), size)
            image = Renderer(cam).render(scene, lighting=light, settings=settings, seed=seed).image
            fit = register(detect_markers(image, detector), scene.layout)
            per = by_condition.setdefault(cname, {k: SlotStats() for k in LABELS}) if by_condition is not None else None
            if not fit:
                if failures is not None:
                    failures.append((seed, cname))
                for slot, truth in table.items():
                    stats[slot[0]].fail(truth)
                    if per is not None:
                        per[slot[0]].fail(truth)
                continue
            for slot, reading in read_slots(image, fit.homography, list(table), scene.layout).items():
                stats[slot[0]].add(table[slot], reading)
                if per is not None:
                    per[slot[0]].add(table[slot], reading)
    return stats


def confusion_lines(kind: str, st: SlotStats) -> list[str]:
    """A text confusion matrix (rows truth, columns read) of one slot kind.

    Parameters
    ----------
    kind : str
        ``"piece"``, ``"patrol"`` or ``"arrow"``.
    st : SlotStats

    Returns
    -------
    list of str
        A header and one line per label seen (with :data:`UNREAD` when registration failed).
    """
    labels = [lab for lab in LABELS[kind] + (UNREAD,) if any(k[0] == lab or k[1] == lab for k in st.confusion)]
    width = max(8, *(len(x) for x in labels)) + 1
    out = ["      truth \\ read " + "".join(f"{lab:>{width}}" for lab in labels)]
    for t in labels:
        if t == UNREAD:
            continue                                 # a read label only, never a truth
        out.append(f"      {t:<13}" + "".join(f"{st.confusion[(t, r)]:>{width}}" for r in labels))
    return out


# -- scripted games -------------------------------------------------------------------------------

@dataclass
class MoveResult:
    """One move (or a quick pair of moves, F6) as the tracker saw it."""

    moves: int
    events: list
    verdicts: list
    correct: bool
    wrong_commit: bool
    latency_s: float | None
    compute_s: float
    #: the latency's video-time part alone (frames from the last arm frame to the commit's frame
    #: over the frame rate, s): what the gate and the tracker wait for, whatever the machine's load
    delay_s: float | None = None


@dataclass
class TableRun:
    """A game being played on the rendered table: scene, camera, watcher, tracker, truth."""

    state: object
    scene: object
    camera: object
    lighting: Lighting
    settings: CameraSettings
    seed: int
    fps: float = FPS
    model: ScoutPennantTable = field(default_factory=ScoutPennantTable)
    art: KitArt = field(default_factory=KitArt)
    frame: int = 0
    renderer: Renderer | None = None

    def __post_init__(self):
        self.tracker = ScoutPennantTracker(self.state)
        self.watcher = BoardWatcher(self.scene.layout, self.fps)
        self.table = self.model.expected(self.state)
        self.renderer = self.renderer or Renderer(self.camera)

    def play(self, steps) -> tuple[list, list[int], list[float]]:
        """Render ``steps`` from the current scene through the watcher; on every stable change read
        the changed cells and ask the tracker.

        Parameters
        ----------
        steps : list of sequence steps
            :mod:`~assistant.vision.render.sequence` steps (``Hold``, ``Reach``, ``Sweep``).

        Returns
        -------
        (list of Verdict, list of int, list of float)
            The verdicts, the frame index of each, and the time each took to read and explain (s).
        """
        seq = Sequence(self.scene, self.camera, steps, self.lighting, self.settings, self.fps, self.seed + self.frame,
                       renderer=self.renderer)
        verdicts, frames, compute = [], [], []
        self.arm_frames: list[int] = []
        for st in seq.states():
            f = seq.render_state(st)
            idx = self.frame
            self.frame += 1
            if f.truth.arm.present and (f.truth.arm.touched_cells or f.truth.arm.band_touched):
                self.arm_frames.append(idx)
            out = self.watcher.process(f.image, idx, idx / self.fps)
            if out.gate is None or out.gate.event is None:
                continue
            ev = out.gate.event
            cells = list(ev.changed) + list(ev.unsure)
            t0 = time.perf_counter()
            verdict = self.tracker.see(f.image, out.track.homography, cells)
            compute.append(time.perf_counter() - t0)
            verdicts.append(verdict)
            frames.append(idx)
        self.scene = seq.states()[-1].scene if seq.states() else self.scene
        return verdicts, frames, compute

    def settle(self, frames: int = 15) -> None:
        """Hold still (the gate takes its first still picture)."""
        self.play([Hold(frames)])

    def move(self, after_states: list, hold: int = 14, rng: np.random.Generator | None = None) -> MoveResult:
        """Perform the table changes leading to each state of ``after_states`` with an arm, one
        reach per changed cell and no pause between the states, then hold; judge the tracker."""
        rng = rng or np.random.default_rng(self.seed + self.frame)
        steps, table, scene = [], self.table, self.scene
        for after in after_states:
            new = self.model.expected(after)
            for cell, actions in move_actions(scene, table, new, int(rng.integers(1 << 30)), self.art):
                steps.append(Reach(cell, actions, entry=str(rng.choice(["bottom", "left", "right", "top"])),
                                   dwell_frames=int(rng.integers(4, 9)), speed_mm_s=float(rng.uniform(600, 1100))))
                for a in actions:
                    scene = a.apply(scene)
            table = new
        steps.append(Hold(hold))
        verdicts, frames, compute = self.play(steps)
        target = after_states[-1]
        commits = [v for v in verdicts if v.kind == "commit"]
        correct = (position_key(self.tracker.state) == position_key(target)
                   and all(v.kind in ("commit", "nothing") for v in verdicts) and bool(commits))
        wrong = any(v.kind == "commit" for v in verdicts) and position_key(self.tracker.state) != position_key(target)
        latency = delay = None
        if commits and self.arm_frames:
            i = max(k for k, v in enumerate(verdicts) if v.kind == "commit")
            if frames[i] > self.arm_frames[-1]:
                delay = (frames[i] - self.arm_frames[-1]) / self.fps
                latency = delay + compute[i]
        if position_key(self.tracker.state) != position_key(target):
            self.tracker.state = target                  # the players answer the question on the tablet
            self.tracker.pending = set()
        self.state, self.table = target, table
        return MoveResult(len(after_states), [e for v in verdicts for e in v.events], verdicts, correct, wrong, latency,
                          sum(compute), delay)

    def tablet(self, event) -> None:
        """An event entered on the tablet (pass, roll)."""
        self.tracker.apply_tablet(event)
        self.state = self.tracker.state


def scripted_games(seeds, max_moves: int = 30, conditions=None, pair_chance: float = 0.15,
                   deadline: float | None = None) -> list[MoveResult]:
    """Play the visible moves of random games (one per seed) on the rendered table.

    Parameters
    ----------
    seeds : iterable of int
    max_moves : int
        Moves played per game at most.
    conditions : dict name -> (Lighting, CameraSettings), optional
        Cycled over the games (default: normal light).
    pair_chance : float
        Chance that a move is followed at once by the next one (two moves between still moments).
    deadline : float, optional
        ``time.perf_counter()`` value after which no new game starts.

    Returns
    -------
    list of MoveResult
    """
    conditions = list((conditions or normal_conditions()).values())
    art, layout = KitArt(), mat_layout("scout-pennant")
    results: list[MoveResult] = []
    for k, seed in enumerate(seeds):
        if deadline is not None and time.perf_counter() > deadline and results:
            break
        game = random_game(seed, radius=4, variant="free", max_events=max_moves * 2)
        light, settings = conditions[k % len(conditions)]
        rng = np.random.default_rng([seed, 2])
        start = game.states[0]
        run = TableRun(start, table_scene(ScoutPennantTable().expected(start), seed=seed, art=art),
                       random_camera(layout, rng), light, settings, seed, art=art)
        run.settle()
        i, played = 0, 0
        while i < len(game.events) and played < max_moves:
            ev = game.events[i]
            if ev.type in ("pass", "roll"):
                run.tablet(ev)
                i += 1
                continue
            group = [game.states[i + 1]]
            j = i + 1
            if rng.random() < pair_chance and j < len(game.events) and game.events[j].type not in ("pass", "roll"):
                group.append(game.states[j + 1])
                j += 1
            results.append(run.move(group, rng=rng))
            played += len(group)
            i = j
    return results


def _pct(a: int, n: int) -> str:
    return f"{100.0 * a / n:.3f} %" if n else "n/a"


@dataclass
class MoveTally:
    """What the tracker made of the scripted table changes (every scripted move is legal).

    Attributes
    ----------
    changes : int
        Table changes (a move, or two quick ones).
    moves, events : int
        Moves they hold; events the tracker committed.
    correct : int
        Changes committed to the engine's state with no question and no illegal verdict.
    asked : int
        Changes with at least one ``ask`` verdict (a question to the players; not wrong).
    false_illegal : int
        Changes with at least one ``illegal`` verdict: every scripted move is legal, so each is
        a *wrong* verdict (the players would be told a legal move is not allowed).
    wrong_commits : int
        Changes after which the tracker committed a state other than the engine's.
    """

    changes: int = 0
    moves: int = 0
    events: int = 0
    correct: int = 0
    asked: int = 0
    false_illegal: int = 0
    wrong_commits: int = 0

    @property
    def wrong(self) -> int:
        """Changes with a wrong verdict: a wrong commit or a legal move called illegal."""
        return self.wrong_commits + self.false_illegal

    @property
    def met(self) -> bool:
        """The target: >= 99.5 % committed correctly, no wrong commit and no false illegal verdict."""
        return bool(self.changes) and self.correct / self.changes >= 0.995 and self.wrong == 0


def tally(results) -> MoveTally:
    """Count the scripted table changes.

    Parameters
    ----------
    results : list of MoveResult

    Returns
    -------
    MoveTally
    """
    t = MoveTally(changes=len(results))
    for r in results:
        kinds = {v.kind for v in r.verdicts}
        t.moves += r.moves
        t.events += len(r.events)
        t.correct += bool(r.correct)
        t.asked += "ask" in kinds
        t.false_illegal += "illegal" in kinds
        t.wrong_commits += bool(r.wrong_commit)
    return t


def moves_line(t: MoveTally) -> str:
    """The report line of the scripted games.

    Parameters
    ----------
    t : MoveTally

    Returns
    -------
    str
        Counts and percentages, with ``[... met]`` or ``[... MISSED]`` (:attr:`MoveTally.met`).
    """
    return (f"moves over scripted games ({t.changes} table changes holding {t.moves} moves, {t.events} events "
            f"committed, 15 % of changes are two quick moves; daylight and cool ceiling): committed correctly "
            f"{_pct(t.correct, t.changes)} ({t.correct}), asked {t.asked}, legal moves called illegal "
            f"{t.false_illegal} (wrong), wrong commits {t.wrong_commits}  [target >= 99.5 % and 0 wrong: "
            f"{'met' if t.met else 'MISSED'}]")


def run_section(seconds: float, seed: int, figures=None) -> list[str]:
    """Run the Scout Pennant detection and tracking benchmark; returns printable lines.

    Parameters
    ----------
    seconds : float
        Rough budget for the scripted games (s); the static accuracy part always runs whole.
    seed : int
        Offset added to :data:`SEED_BASE` for every seed used.
    figures : Figures, optional
        Collects the readings and latencies (:class:`~.figures.Figures`).

    Returns
    -------
    list of str
    """
    cv2.setNumThreads(1)
    lines = ["# Scout Pennant: kit detector and move tracking (first on renders made the way the tuning renders are "
             f"made: 1280x720, held-out seeds {SEED_BASE + seed}+ and held-out stress conditions, see the module "
             "docstring; then on pictures made differently)"]
    t0 = time.perf_counter()
    for name, conds, n_seeds, target in (("normal", normal_conditions(), 40, 0.1),
                                         ("stress", stress_conditions(), 16, 0.5)):
        per_cond: dict = {}
        failed: list = []
        stats = static_accuracy(range(SEED_BASE + seed, SEED_BASE + seed + n_seeds), conds, by_condition=per_cond,
                                failures=failed)
        lines.append(f"per-slot error, {name} light ({n_seeds} positions x {len(conds)} conditions: "
                     f"{', '.join(conds)}), target <= {target} %:")
        lines.append(f"  marker registration failed on {len(failed)} of {n_seeds * len(conds)} images"
                     + (f" ({', '.join(f'seed {s} {c}' for s, c in failed)}); their slots count as wrong (unread)"
                        if failed else ""))
        for kind, st in stats.items():
            if figures is not None:
                figures.confusion[("scout-pennant", name, kind)].update(st.confusion)
            ok = "met" if 100.0 * st.wrong / max(st.n, 1) <= target else "MISSED"
            lines.append(f"  {kind:<7} {st.n:>6} slots: error {_pct(st.wrong, st.n)} ({st.wrong}; silent, i.e. sure and "
                         f"wrong: {st.silent}), unsure {_pct(st.unsure, st.n)} ({st.unsure})  [{ok}]")
            lines += confusion_lines(kind, st)
        lines.append("  per condition (error incl. unsure / silent / unsure):")
        for cname, kinds in per_cond.items():
            lines.append(f"    {cname:<18} " + "; ".join(
                f"{k} {_pct(st.wrong, st.n)} / {st.silent} / {_pct(st.unsure, st.n)}" for k, st in kinds.items()))
    lines.append(f"  (static part {time.perf_counter() - t0:.0f} s)")
    lines += held_out_lines(seed, figures)
    t1 = time.perf_counter()
    results = scripted_games(range(SEED_BASE + 500 + seed, SEED_BASE + 10_000 + seed), max_moves=30,
                             deadline=t1 + seconds)
    lat = [r.latency_s for r in results if r.latency_s is not None]
    if figures is not None:
        figures.latencies("scout-pennant", lat)
    compute = [r.compute_s for r in results]
    lines.append(moves_line(tally(results)))
    if lat:
        med, worst = statistics.median(lat), max(lat)
        lines.append(f"latency last arm frame -> commit: median {med:.2f} s, worst {worst:.2f} s at {FPS:.0f} fps "
                     f"(read + search median {1000 * statistics.median(compute):.0f} ms, max {1000 * max(compute):.0f} ms)"
                     f"  [targets 0.5 / 1.0 s: {'met' if med <= 0.5 and worst <= 1.0 else 'MISSED'}]")
    lines.append(f"  (scripted games {time.perf_counter() - t1:.0f} s)")
    return lines


def held_out_lines(seed: int, figures=None, count: int | None = None) -> list[str]:
    """The held-out figures (:mod:`.held_out`): the printed kit on the printed mat photographed
    by :mod:`.kit_photos`, read as ``assistant detect`` reads a photograph.

    Parameters
    ----------
    seed : int
        Offset of the held-out seeds.
    figures : Figures, optional
    count : int, optional
        Stills per set (default :data:`~.held_out.STILLS`).

    Returns
    -------
    list of str
    """
    from ..vision.kits.scout_pennant_board import all_slots, board_homography
    from .held_out import STILLS, report
    from .kit_photos import pennant_still

    def read(image):
        homography, reason = board_homography(image)
        return (None, reason) if homography is None else (read_slots(image, homography, all_slots()), "ok")

    def still(s, which):
        image, table, _shot = pennant_still(s, which)
        return image, table

    return report("per-slot error, pictures made differently", LABELS, read, still, count or STILLS, seed, figures,
                  "scout-pennant")


if __name__ == "__main__":  # pragma: no cover - manual run
    print("\n".join(run_section(60.0, 1)))
