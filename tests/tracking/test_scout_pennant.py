"""Scout Pennant on the table: the printable kit, the kit detector on rendered boards (normal
light and stress), and the tracker on rendered moves and on exact or wrong readings: build,
fire with merge and split, enter, take from the finish, an illegal fire named with its reason
code, ambiguity and uncertainty asked, a misread cell that never corrupts the state (F10),
quick compound moves (F6/F7), an arm sweep that commits nothing (F9), no board (F5), glare (F8),
arrows snapped to the board's directions (F11).

Rendered scenes use seeds the detector was not tuned on (tuning: 0-99)."""

from __future__ import annotations

import re

import cv2
import numpy as np
import pytest
from PIL import Image

from assistant.bench.detect_scout_pennant import AUTO, SlotStats, TableRun, static_accuracy, stress_conditions
from assistant.games.scout_pennant import GAME
from assistant.tracking.base import Reading
from assistant.tracking.scout_pennant import (TWIN_FORESTS, ScoutPennantTable, ScoutPennantTracker, arrow_slot,
                                              kit_colours, position_key)
from assistant.vision.kits import scout_pennant as kit
from assistant.vision.kits.scout_pennant_board import detect_image, read_slots
from assistant.vision.kits.scout_pennant_scene import KitArt, move_actions, slot_pieces, table_scene
from assistant.vision.mats import mat_layout
from assistant.vision.printing import draw_mat, tile_pages
from assistant.vision.render.camera import look_at_mat
from assistant.vision.render.lighting import DAYLIGHT
from assistant.vision.render.renderer import Renderer
from assistant.vision.render.scene import Scene
from assistant.vision.render.sequence import Hold, Reach, Sweep
from assistant.vision.render.truth import homography as true_homography

MODEL = ScoutPennantTable()
LAYOUT = mat_layout("scout-pennant")
ART = KitArt()
RED, BLUE = {"seat": 0, "colour": "red"}, {"seat": 1, "colour": "blue"}


# -- helpers ------------------------------------------------------------------------------------

def start(position=None, **extra):
    setup = {"players": [RED, BLUE], **extra}
    if position:
        setup["position"] = position
    return GAME.new_state(setup, {})


def ev(obj, state):
    return GAME.parse_event(obj, state)


def apply(state, *objs):
    for obj in objs:
        state = GAME.apply(state, ev(obj, state))
        assert state, state
    return state


def look(before, after, confidence=1.0, flip=None):
    """What a perfect camera reports after the table went from ``before`` to ``after``: the
    cells whose middle changed (pieces, pawns: what the motion gate sees) and the readings of
    their slots; ``flip`` maps slots to wrong labels (a misread)."""
    a, b = MODEL.expected(before), MODEL.expected(after)
    changed = sorted({(s[1], s[2]) for s in a if s[0] != "arrow" and a[s] != b[s]})
    observed = {s: Reading(b[s], confidence, 5.0) for s in MODEL.slots(changed)}
    for slot, label in (flip or {}).items():
        observed[slot] = Reading(label, 0.95, 3.0)
    return observed, changed


def run_on_table(state, seed, lighting=DAYLIGHT, settings=AUTO, tilt=20.0, azimuth=30.0, roll=8.0):
    layout = LAYOUT
    cam = look_at_mat(layout.outline_mm(), (1280, 720), 60.0, tilt, azimuth, roll)
    run = TableRun(state, table_scene(MODEL.expected(state), seed=seed, art=ART), cam, lighting, settings, seed, art=ART)
    run.settle()
    return run


#: Red to move. Forest (0,2): (0,3), (1,2) -> (0,1) (a merge); forest (1,0): (0,1) -> (1,1), (2,0)
#: (a split); red on (0,3) and (1,2); blue on the finish (its take is due) and on its start.
NET = {"clearings": [[0, 3], [1, 2], [0, 1], [1, 1], [2, 0]], "forests": [[0, 2], [1, 0]],
       "arrows": [{"from": [0, 3], "to": [0, 2]}, {"from": [1, 2], "to": [0, 2]}, {"from": [0, 2], "to": [0, 1]},
                  {"from": [0, 1], "to": [1, 0]}, {"from": [1, 0], "to": [1, 1]}, {"from": [1, 0], "to": [2, 0]}],
       "patrols": [{"seat": 0, "cell": [0, 3]}, {"seat": 0, "cell": [1, 2]}, {"seat": 1, "cell": [0, 0]},
                   {"seat": 1, "cell": [0, -4]}]}


# -- the kit --------------------------------------------------------------------------------------

def test_kit_pdf_and_png_are_true_size(tmp_path):
    files = kit.print_kit(tmp_path / "kit", "a4", dpi=100.0)
    pdf, pngs = files[0], files[1:]
    boxes = re.findall(rb"/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*\]", pdf.read_bytes())
    assert len(boxes) == len(pngs) >= 6
    for w, h in boxes:                               # A4 in points, either way round
        assert sorted((float(w), float(h))) == pytest.approx([210 / 25.4 * 72, 297 / 25.4 * 72], abs=1.0)
    board = len(tile_pages(draw_mat(LAYOUT, 100.0 / 25.4), 100.0 / 25.4, "a4"))
    with Image.open(pngs[board]) as im:              # the first clearings sheet, after the board's
        assert im.info["dpi"] == pytest.approx((100.0, 100.0), abs=0.01)
        page = cv2.cvtColor(np.asarray(im.convert("RGB")), cv2.COLOR_RGB2BGR)
    ppm = 100.0 / 25.4
    # the first clearing: top-left corner at (12, 18) mm; its black ring spans 34 mm
    row = page[int(round((18 + 17) * ppm)), :int(round(47 * ppm))].mean(axis=1)
    dark = np.nonzero(row < 100)[0]
    assert (dark.max() - dark.min() + 1) / ppm == pytest.approx(kit.CLEARING_MM, abs=1.0)


def test_kit_pieces_fit_the_hexes_and_colours_have_letters():
    inradius = kit.hex_inradius_mm()
    assert kit.CLEARING_MM / 2 < inradius - 6.0          # white paper between a clearing and the side
    assert kit.FOREST_MM / 2 * 2 ** 0.5 < inradius - 3.0   # a forest's corner never reaches the arrow zone
    assert [p.letter for p in kit.PAWN_COLOURS] == list("RBGYPO")
    assert kit_colours(["red", "blue"]) == ("red", "blue")
    assert len(set(kit_colours(["black", "red", "white", "blue"]))) == 4


# -- the detector -----------------------------------------------------------------------------------

def _stats_ok(stats: dict[str, SlotStats], max_error: float):
    for kind, st in stats.items():
        assert st.silent == 0, (kind, [(k, v) for k, v in st.confusion.items() if k[0] != k[1]])
        assert st.wrong <= max_error * st.n, (kind, st.wrong, st.n)


def test_detector_reads_every_slot_in_daylight():
    stats = static_accuracy([201, 203], {"daylight": (DAYLIGHT, AUTO)})
    assert sum(st.n for st in stats.values()) == 2 * 278
    for st in stats.values():
        assert st.wrong == 0 and st.unsure <= 0.01 * st.n


def test_detector_under_glare_blur_and_dim_light_is_right_or_unsure():
    """F8: under a warm lamp whose glare lies on the board, a blur and a dim noisy room, a slot
    is read right or reported unsure, never wrong and sure. (The 1.9 px blur hides two of the
    four markers from this camera: that image does not register, is reported, and its slots,
    unread, are left out of the detector's error here; the bench counts them as wrong.)"""
    stress = stress_conditions(held_out=False)      # the bench keeps the held-out set
    conds = {k: stress[k] for k in ("warm lamp + glare", "blur", "dim")}
    failed = []
    stats = static_accuracy([202], conds, failures=failed)
    assert failed in ([], [(202, "blur")])
    for st in stats.values():
        st.n, st.wrong = st.n - st.unread, st.wrong - st.unread
    _stats_ok(stats, 0.01)


def test_arrows_laid_askew_snap_to_the_side_they_cross():
    """F11: an arrow turned 12 degrees and 2.5 mm off still reads as one of the three labels of its side."""
    state = apply(start(), {"actor": 0, "type": "build", "cell": [0, 3], "piece": "forest", "arrows": [{"from": [0, 4]}]},
                  {"actor": 1, "type": "build", "cell": [0, 2], "piece": "clearing", "arrows": [{"from": [0, 3]}]})
    table = MODEL.expected(state)
    rng = np.random.default_rng(5)
    pieces = []
    for slot in sorted(table):
        pieces += slot_pieces(slot, table[slot], LAYOUT, rng, ART, jitter_mm=2.5 if slot[0] == "arrow" else 1.0,
                              turn_deg=12.0)
    scene = Scene(LAYOUT).place(*pieces)
    cam = look_at_mat(LAYOUT.outline_mm(), (1280, 720), 60.0, 25.0, 0.0, 0.0)
    image = Renderer(cam).render(scene, lighting=DAYLIGHT, settings=AUTO, seed=3).image
    arrows = [s for s in table if s[0] == "arrow"]
    got = read_slots(image, true_homography(cam, np.eye(3)), arrows)
    assert {s: r.label for s, r in got.items()} == {s: table[s] for s in arrows}
    assert got[arrow_slot((0, 4), (0, 3))[0]] == Reading("backward", got[("arrow", 0, 3, 0, 4)].confidence,
                                                         got[("arrow", 0, 3, 0, 4)].margin)


def test_no_board_reads_nothing_and_raises_nothing():
    """F5: a frame without the mat gives no readings (and no exception)."""
    blank = np.full((480, 640, 3), 90, np.uint8)
    assert detect_image(blank) == {}
    assert read_slots(blank, None, MODEL.all_slots()) == {}
    with pytest.raises(ValueError):
        read_slots(np.zeros((10, 10), np.uint8), np.eye(3), [])


# -- the tracker on rendered moves -------------------------------------------------------------------

def test_rendered_moves_merge_take_split_build_enter_are_committed():
    state = start(NET)
    run = run_on_table(state, seed=301)
    moves = [{"actor": 0, "type": "fire", "cell": [0, 2]},                 # merge: 2 in, 1 out
             {"actor": 1, "type": "take_from_finish"},                    # mandatory take
             {"actor": 0, "type": "fire", "cell": [1, 0]},                 # split: 1 in, 2 out
             {"actor": 1, "type": "build", "cell": [0, -3], "piece": "forest", "arrows": [{"from": [0, -4]}]},
             {"actor": 0, "type": "enter"},
             {"actor": 1, "type": "build", "cell": [1, -4], "piece": "clearing", "arrows": [{"from": [0, -3]}]}]
    rng = np.random.default_rng(11)
    for obj in moves:
        event = ev(obj, run.state)
        result = run.move([apply(run.state, obj)], rng=rng)
        assert result.correct, (obj, [(v.kind, v.message) for v in result.verdicts])
        assert result.events == [event]
        # the video time from the last arm frame to the commit; the compute time on top of it is
        # the benchmark's to measure (assistant bench detect), not a timed test's
        assert result.delay_s is not None and result.delay_s < 1.0


def test_rendered_illegal_fire_is_named_with_its_reason_and_cells():
    """Red fires a forest whose second input holds blue's patrol (rules E8): input_not_yours."""
    state = start({"clearings": [[0, 3], [1, 2], [0, 1]], "forests": [[0, 2]],
                   "arrows": [{"from": [0, 3], "to": [0, 2]}, {"from": [1, 2], "to": [0, 2]},
                              {"from": [0, 2], "to": [0, 1]}],
                   "patrols": [{"seat": 0, "cell": [0, 3]}, {"seat": 1, "cell": [1, 2]}]})
    run = run_on_table(state, seed=302)
    before = MODEL.expected(state)
    after = dict(before)
    after[("patrol", 0, 3)] = after[("patrol", 1, 2)] = "none"
    after[("patrol", 0, 1)] = "red"
    steps = [Reach(cell, acts, dwell_frames=5) for cell, acts in move_actions(run.scene, before, after, 3, ART)]
    verdicts, _frames, _t = run.play(steps + [Hold(14)])
    assert verdicts and {(v.kind, v.reason) for v in verdicts} == {("illegal", "input_not_yours")}
    assert {(0, 2), (0, 3), (1, 2), (0, 1)} <= set(verdicts[-1].cells)
    assert position_key(run.tracker.state) == position_key(state)


def test_two_quick_moves_in_one_reach_are_committed_whole():
    """F6/F7: red's merge and blue's take done in one go (no still moment between): both, in order."""
    state = start(NET)
    run = run_on_table(state, seed=303)
    mid = apply(state, {"actor": 0, "type": "fire", "cell": [0, 2]})
    end = apply(mid, {"actor": 1, "type": "take_from_finish"})
    acts = tuple(a for _c, x in move_actions(run.scene, MODEL.expected(state), MODEL.expected(end), 4, ART) for a in x)
    verdicts, _f, _t = run.play([Reach((0, 1), acts, dwell_frames=8, speed_mm_s=1200.0), Hold(14)])
    assert [v.kind for v in verdicts] == ["commit"]
    assert [e.type for e in verdicts[0].events] == ["fire", "take_from_finish"]
    assert position_key(run.tracker.state) == position_key(end)


def test_an_arm_sweeping_across_the_board_commits_nothing():
    """F9: an arm crossing the board at 1 m/s with motion blur changes nothing; a move after it is found."""
    state = start(NET)
    run = run_on_table(state, seed=304)
    w, h = LAYOUT.size_mm
    verdicts, _f, _t = run.play([Sweep((-150.0, h * 0.6), (w + 150.0, h * 0.4), speed_mm_s=1000.0), Hold(14)])
    assert all(v.kind == "nothing" for v in verdicts)
    assert position_key(run.tracker.state) == position_key(state)
    assert run.move([apply(state, {"actor": 0, "type": "fire", "cell": [0, 2]})]).correct


# -- the tracker on exact and wrong readings ------------------------------------------------------------

def test_a_misread_cell_asks_and_never_corrupts_the_state():
    """F10: a pawn read as the wrong colour on one cell: the tracker asks and keeps its state; the
    next, right, reading of the same change commits."""
    state = start(NET)
    tracker = ScoutPennantTracker(state)
    after = apply(state, {"actor": 0, "type": "fire", "cell": [0, 2]})
    observed, changed = look(state, after, flip={("patrol", 0, 1): "blue"})
    verdict = tracker.explain(observed, changed)
    assert verdict.kind in ("ask", "illegal") and tracker.state is state
    observed, changed = look(state, after)
    assert tracker.explain(observed, changed).kind == "commit"
    assert position_key(tracker.state) == position_key(after)


def test_an_unsure_arrow_that_decides_the_build_asks():
    state = start()
    after = apply(state, {"actor": 0, "type": "build", "cell": [0, 3], "piece": "forest", "arrows": [{"from": [0, 4]}]})
    observed, changed = look(state, after)
    slot = arrow_slot((0, 4), (0, 3))[0]
    observed[slot] = Reading("backward", 0.55, 0.2)               # unsure: in or out of the forest?
    tracker = ScoutPennantTracker(state)
    verdict = tracker.explain(observed, changed)
    assert verdict.kind == "ask" and len(verdict.options) >= 2 and tracker.state is state
    assert (0, 3) in verdict.cells


def test_only_unsure_readings_ask_instead_of_nothing():
    """F8: a change seen under glare whose every reading is unsure is asked about, not dropped."""
    state = start()
    after = apply(state, {"actor": 0, "type": "enter"})
    observed, changed = look(state, after, confidence=0.3)
    verdict = ScoutPennantTracker(state).explain(observed, changed)
    assert verdict.kind == "ask" and (0, 4) in verdict.cells


def test_twin_forests_ask_which_one_was_fired():
    """Two sink forests with the same single input look the same when fired: the tracker asks."""
    state = start({"forests": [[1, 3], [-1, 4]], "arrows": [{"from": [0, 4], "to": [1, 3]}, {"from": [0, 4], "to": [-1, 4]}],
                   "patrols": [{"seat": 0, "cell": [0, 4]}]})
    after = apply(state, {"actor": 0, "type": "fire", "cell": [1, 3]})
    observed, changed = look(state, after)
    tracker = ScoutPennantTracker(state)
    verdict = tracker.explain(observed, changed)
    assert verdict.kind == "ask" and verdict.reason == TWIN_FORESTS and tracker.state is state
    assert sorted(o[0]["cell"] for o in verdict.options) == [(-1, 4), (1, 3)]


def test_several_moves_between_two_still_moments_are_found_in_order():
    state = start(NET)
    end = apply(state, {"actor": 0, "type": "fire", "cell": [0, 2]}, {"actor": 1, "type": "take_from_finish"},
                {"actor": 0, "type": "fire", "cell": [1, 0]})
    observed, changed = look(state, end)
    verdict = ScoutPennantTracker(state).explain(observed, changed)
    assert verdict.kind == "commit"
    assert [(e.type, e.get("cell")) for e in verdict.events] == [("fire", (0, 2)), ("take_from_finish", None),
                                                                 ("fire", (1, 0))]


def test_expected_table_and_touched_cells():
    state = start(NET)
    exp = MODEL.expected(state)
    assert exp[("piece", 0, 2)] == "forest" and exp[("patrol", 0, 0)] == "blue"
    assert exp[arrow_slot((0, 3), (0, 2))[0]] == arrow_slot((0, 3), (0, 2))[1] == "backward"
    assert len(exp) == len(MODEL.all_slots()) == 61 * 2 + 156
    fire = ev({"actor": 0, "type": "fire", "cell": [0, 2]}, state)
    assert MODEL.touched(state, fire) == {(0, 2), (0, 3), (1, 2), (0, 1)}
    assert {e.type for e in MODEL.visible_events(state)} >= {"fire", "build"}
    assert not any(e.type in ("pass", "roll") for e in MODEL.visible_events(state))


# -- uncertain evidence never commits: it asks ---------------------------------------------------------

def _unsure(label):
    return Reading(label, 0.45, 0.2)


def test_an_unsure_piece_on_a_new_build_asks():
    """A forest built, its piece read "clearing" with low confidence: the build rests on that reading."""
    state = start()
    after = apply(state, {"actor": 0, "type": "build", "cell": [0, 3], "piece": "forest", "arrows": [{"from": [0, 4]}]})
    observed, changed = look(state, after)
    observed[("piece", 0, 3)] = _unsure("clearing")
    tracker = ScoutPennantTracker(state)
    verdict = tracker.explain(observed, changed)
    assert verdict.kind == "ask" and (0, 3) in verdict.cells and tracker.state is state
    observed, changed = look(state, after)                       # read again, sure: committed
    assert tracker.explain(observed, changed).kind == "commit"
    assert position_key(tracker.state) == position_key(after)


def test_an_unsure_pawn_still_on_an_input_asks():
    """A fire whose input pawn is read, unsure, as still there: the fire is not committed."""
    state = start(NET)
    after = apply(state, {"actor": 0, "type": "fire", "cell": [0, 2]})
    observed, changed = look(state, after)
    observed[("patrol", 1, 2)] = _unsure("red")
    tracker = ScoutPennantTracker(state)
    verdict = tracker.explain(observed, changed)
    assert verdict.kind == "ask" and (1, 2) in verdict.cells and tracker.state is state


def test_an_unsure_wrong_colour_on_an_output_asks():
    """A fire whose output pawn is read, unsure, in another player's colour: asked, not committed."""
    state = start(NET)
    after = apply(state, {"actor": 0, "type": "fire", "cell": [0, 2]})
    observed, changed = look(state, after)
    observed[("patrol", 0, 1)] = _unsure("blue")
    tracker = ScoutPennantTracker(state)
    verdict = tracker.explain(observed, changed)
    assert verdict.kind == "ask" and (0, 1) in verdict.cells and tracker.state is state


def test_an_unsure_reading_agreeing_with_the_move_still_asks():
    """Even an unsure reading that agrees with the move is not trusted when the move rests on it
    (the players confirm it); an unsure reading of a cell the move leaves alone does not matter."""
    state = start(NET)
    after = apply(state, {"actor": 0, "type": "fire", "cell": [0, 2]})
    observed, changed = look(state, after)
    observed[("patrol", 0, 1)] = _unsure("red")
    tracker = ScoutPennantTracker(state)
    assert tracker.explain(observed, changed).kind == "ask" and tracker.state is state
    observed, changed = look(state, after)
    observed[("patrol", 2, 2)] = _unsure("none")                 # a cell the gate reported, untouched, as it was
    observed.update({s: Reading("empty" if s[0] == "piece" else "none") for s in MODEL.slots([(2, 2)])
                     if s not in observed})
    assert tracker.explain(observed, changed + [(2, 2)]).kind == "commit"


# -- the bench counts what it should -------------------------------------------------------------------

def test_a_failed_registration_counts_its_slots_as_wrong(monkeypatch):
    """The bench never falls back to the renderer's true homography: an image whose markers do not
    register is reported and every one of its slots is a wrong (unread) reading."""
    from assistant.vision import registration

    monkeypatch.setattr(registration, "register", lambda *_a, **_k: registration.RegistrationFailure("test", ()))
    failed = []
    stats = static_accuracy([201], {"daylight": (DAYLIGHT, AUTO)}, failures=failed)
    assert failed == [(201, "daylight")]
    assert sum(st.n for st in stats.values()) == 278
    assert all(st.wrong == st.unread == st.n and st.silent == 0 for st in stats.values())


def test_the_bench_counts_legal_moves_called_illegal_as_wrong():
    from assistant.bench.detect_scout_pennant import MoveResult, moves_line, tally
    from assistant.tracking.base import Verdict

    ok = MoveResult(1, [], [Verdict("commit")], True, False, 0.2, 0.01)
    illegal = MoveResult(1, [], [Verdict("illegal", reason="input_not_yours")], False, False, None, 0.01)
    asked = MoveResult(1, [], [Verdict("ask")], False, False, None, 0.01)
    t = tally([ok, illegal, asked])
    assert (t.correct, t.asked, t.false_illegal, t.wrong_commits, t.wrong) == (1, 1, 1, 0, 1)
    assert "called illegal 1 (wrong)" in moves_line(t) and "MISSED" in moves_line(t)
    assert tally([ok] * 200).met


def test_public_functions_document_their_arguments_and_results():
    """Every public module-level function of the Scout Pennant modules that takes arguments says
    what they are and what it returns (numpy-style ``Parameters`` and ``Returns``)."""
    import ast
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[2] / "assistant"
    missing = []
    for rel in ("tracking/scout_pennant.py", "vision/kits/scout_pennant.py", "vision/kits/scout_pennant_detect.py",
                "vision/kits/scout_pennant_board.py", "vision/kits/scout_pennant_patrol.py",
                "vision/kits/scout_pennant_scene.py", "bench/detect_scout_pennant.py"):
        for node in ast.parse((root / rel).read_text()).body:
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_") and node.args.args:
                doc = ast.get_docstring(node) or ""
                if "Parameters" not in doc or "Returns" not in doc:
                    missing.append(f"{rel}:{node.name}")
    assert not missing, missing


def test_a_piece_hidden_by_a_glare_spot_is_not_read_empty_and_sure():
    """Under a point light a clearing in the glare spot loses its ring's ink (it looks empty), but
    its ring's core stays a light grey, not paper: the hex is read unsure. (Measures of tuning
    seed 32, point light; a plain empty hex keeps its ring core at the paper's white.)"""
    from assistant.vision.kits.scout_pennant_detect import HexLook, piece_reading

    white = np.array([255.0, 255.0, 255.0])
    hidden = HexLook(True, white, 0.0, 0.021, (0.0, 0.0), white, white, dark=0.34, contrast=0.11,
                     ring_core_bgr=np.array([160.0, 167.7, 173.7]))
    assert hidden.washed() and piece_reading(hidden).label == "empty" and not piece_reading(hidden).sure
    empty = hidden._replace(ring_core_bgr=white * 0.95, dark=0.01)     # bare paper: no dark ink anywhere
    assert not empty.washed() and piece_reading(empty).sure
    # a piece all but clipped away keeps a little dark ink where its blacks are (tuning seed 37)
    clipped = empty._replace(dark=0.15)
    assert clipped.washed() and not piece_reading(clipped).sure


def test_a_blurred_clearing_is_told_from_a_forest_by_its_colour():
    """A defocus darkens a clearing's grey gap to a forest's ink (tuning seed, blur 2.5 px), but
    the gap stays grey: the green excess decides."""
    from assistant.vision.kits.scout_pennant_detect import HexLook, piece_reading

    white = np.array([255.0, 255.0, 251.0])
    blurred = HexLook(True, white, 0.45, 0.40, (0.3, -0.2), white * 0.55, white * 0.8, dark=0.62, contrast=-0.02,
                      ring_core_bgr=white * 0.45, green=-0.01)
    assert piece_reading(blurred).label == "clearing"
    assert piece_reading(blurred._replace(green=0.19)).label == "forest"


def test_a_clipped_red_pawn_is_told_from_orange_by_its_white_letter():
    """Under a bright lamp a red pawn's R clips and its G rises: its colour fits orange as well,
    but its letter is white (orange's is black). Measures of tuning seed 30, point light."""
    from assistant.vision.kits.scout_pennant_detect import HexLook, piece_reading
    from assistant.vision.kits.scout_pennant_patrol import patrol_reading

    white = np.array([255.0, 255.0, 255.0])
    chroma = np.array([0.88, 1.0, 1.12])
    look = HexLook(True, white, 0.0, 0.75, (0.2, 0.1), np.array([74.0, 84.0, 94.0]), np.array([4.0, 228.0, 255.0]),
                   dark=0.72, ring_even=0.95, contrast=0.6, spread=0.43, ring_core_bgr=np.array([63.0, 71.0, 80.0]),
                   green=-0.01, letter_light=0.62, letter_dark=0.25)
    piece = piece_reading(look)
    assert piece.label == "clearing" and piece.sure
    assert patrol_reading(look, piece, chroma).label == "red"
    assert patrol_reading(look, piece, chroma).sure
    assert not patrol_reading(look._replace(letter_light=0.12), piece, chroma).sure    # colour alone: a tie


def test_a_clearing_lifted_on_one_side_flags_glare_beside_it():
    """A glare spot that clips a whole hex to white leaves nothing to read there, but lifts one
    side of the ring of a clearing beside it (tuning seed 38, a point light over the middle):
    the empty-looking hex next to it is then read unsure (:func:`read_slots`)."""
    from assistant.vision.kits.scout_pennant_detect import HexLook

    white = np.array([255.0, 255.0, 255.0])
    beside = HexLook(True, white, 0.0, 0.45, (0.1, 0.2), white * 0.4, white, dark=0.65, ring_even=0.2, contrast=0.4,
                     ring_core_bgr=np.array([82.0, 87.0, 93.0]))
    assert beside.glared_beside()
    assert not beside._replace(ring_even=0.95).glared_beside()
