"""``assistant serve --source``: rendered frames of a Scout Pennant move played on the printed kit
go through the live loop into the session; a tablet event reaches the tracker; an undo rebuilds it."""

from __future__ import annotations

import cv2
import numpy as np

from assistant.games import get_game
from assistant.referee.session import Session
from assistant.server.live import LiveTable, make_loop
from assistant.tracking.scout_pennant import ScoutPennantTable
from assistant.vision.kits.scout_pennant_scene import move_actions, table_scene
from assistant.vision.mats import mat_layout
from assistant.vision.render.camera import look_at_mat
from assistant.vision.render.lighting import DAYLIGHT
from assistant.vision.render.renderer import Renderer
from assistant.vision.render.sequence import Hold, Reach, Sequence
from assistant.vision.sources import FolderSource

GAME = get_game("scout-pennant")
SETUP = {"players": [{"seat": 0, "colour": "red"}, {"seat": 1, "colour": "blue"}]}


def frames_of_move(folder, state, after, seed=3):
    """Render the table going from ``state`` to ``after`` by one arm into ``folder``/NNN.png."""
    model, layout = ScoutPennantTable(), mat_layout("scout-pennant")
    before_table, after_table = model.expected(state), model.expected(after)
    scene = table_scene(before_table, seed=seed)
    cam = look_at_mat(layout.outline_mm(), (1280, 720), 60.0, 20.0, 15.0, 4.0)
    steps = [Hold(15)]
    for cell, actions in move_actions(scene, before_table, after_table, seed):
        steps.append(Reach(cell, actions, dwell_frames=5))
    steps.append(Hold(16))
    seq = Sequence(scene, cam, steps, DAYLIGHT, fps=30, seed=seed, renderer=Renderer(cam))
    folder.mkdir()
    for k, st in enumerate(seq.states()):
        cv2.imwrite(str(folder / f"{k:04d}.png"), seq.render_state(st).image)


def test_a_move_on_the_table_reaches_the_session(tmp_path):
    s = Session.start("scout-pennant", SETUP, None, tmp_path / "g.jsonl")
    mover = GAME.to_move(s.state)
    enter = next(e for e in GAME.legal_events(s.state) if e.type == "enter" and e.actor == mover)
    frames_of_move(tmp_path / "frames", s.state, GAME.apply(s.state, enter))
    live = LiveTable(s, FolderSource(tmp_path / "frames"), lambda st: make_loop("scout-pennant", st, None, 30.0, None))
    live.start().thread.join(120)
    assert live.status == "the camera source stopped"
    assert [v.kind for v in live.verdicts] == ["commit"]
    assert [a.obj for a in s.applied] == [enter.to_json()]
    panel = cv2.imdecode(np.frombuffer(live.jpeg(), np.uint8), cv2.IMREAD_COLOR)   # the camera panel
    outline = np.abs(panel.astype(int) - (115, 158, 0)).max(axis=2) < 40      # the committed cell, bluish green
    assert outline.sum() > 50
    assert any(n["kind"] == "info" for n in s.snapshot("referee")["notices"])


def test_tablet_events_reach_the_tracker_and_undo_rebuilds_it(tmp_path):
    """Forbidden Desert's real tracker behind the loop (its detector is not needed to sync). A
    move entered on the tablet is one the table shows already: the loop takes the table as it
    stands for its reference (``resync``)."""
    import random
    from types import SimpleNamespace

    from assistant.games.forbidden_desert.simulate import random_setup
    from assistant.tracking.forbidden_desert import ForbiddenDesertTracker

    desert = get_game("forbidden-desert")
    s = Session.start("forbidden-desert", random_setup(random.Random(2), n_players=2), None, tmp_path / "fd.jsonl")
    (tmp_path / "frames").mkdir()
    cv2.imwrite(str(tmp_path / "frames" / "0.png"), np.zeros((8, 8, 3), np.uint8))
    built, resyncs = [], []

    def loop_of(state):
        built.append(state)
        return SimpleNamespace(tracker=ForbiddenDesertTracker(desert, state), resync=lambda: resyncs.append(state))

    live = LiveTable(s, FolderSource(tmp_path / "frames"), loop_of)
    mover = desert.to_move(s.state)
    move = next(e for e in desert.legal_events(s.state) if e.type == "move")
    s.submit(move.to_json(), mover)                                 # entered on the tablet
    live._sync()
    assert live.loop.tracker.log == [move] and live.seen == 1 and len(built) == 1 and len(resyncs) == 1
    s.undo(mover)
    live._sync()
    assert len(built) == 2 and built[-1] is s.state and live.seen == 0 and live.loop.tracker.log == []


def test_a_tablet_entry_that_changes_nothing_on_the_table_leaves_the_reference(tmp_path):
    """An end of turn entered on the tablet changes nothing the camera sees: the live loop's
    reference is not taken again (``resync`` is for moves the table already shows)."""
    import random
    from types import SimpleNamespace

    from assistant.games.forbidden_desert.simulate import random_setup
    from assistant.tracking.forbidden_desert import ForbiddenDesertTracker

    desert = get_game("forbidden-desert")
    s = Session.start("forbidden-desert", random_setup(random.Random(2), n_players=2), None, tmp_path / "fd.jsonl")
    (tmp_path / "frames").mkdir()
    cv2.imwrite(str(tmp_path / "frames" / "0.png"), np.zeros((8, 8, 3), np.uint8))
    resyncs = []
    live = LiveTable(s, FolderSource(tmp_path / "frames"),
                     lambda st: SimpleNamespace(tracker=ForbiddenDesertTracker(desert, st), resync=lambda: resyncs.append(st)))
    mover = desert.to_move(s.state)
    done = next(e for e in desert.legal_events(s.state) if e.type == "end_turn")
    s.submit(done.to_json(), mover)
    live._sync()
    assert live.loop.tracker.log == [done] and resyncs == []


def test_a_storm_card_waiting_for_its_slides_is_told_to_the_table(tmp_path):
    """A storm card the camera could not name waits for its slides without a question: the
    session hears why nothing was committed, as information, and its state is untouched."""
    import random
    from types import SimpleNamespace

    from assistant.games.forbidden_desert.simulate import random_setup
    from assistant.tracking.base import Verdict
    from assistant.tracking.forbidden_desert import AWAITING_SLIDES, CARD_CELL, ForbiddenDesertTracker

    desert = get_game("forbidden-desert")
    s = Session.start("forbidden-desert", random_setup(random.Random(2), n_players=2), None, tmp_path / "fd.jsonl")
    (tmp_path / "frames").mkdir()
    cv2.imwrite(str(tmp_path / "frames" / "0.png"), np.zeros((8, 8, 3), np.uint8))
    live = LiveTable(s, FolderSource(tmp_path / "frames"),
                     lambda state: SimpleNamespace(tracker=ForbiddenDesertTracker(desert, state)))
    before = s.state
    text = "I cannot read the storm card: the slides will tell which."
    live.deliver(Verdict("nothing", [], [CARD_CELL], text, reason=AWAITING_SLIDES))
    live.deliver(Verdict("nothing", [], [(1, 1)], "The table is as it was."))
    notices = [n for n in s.snapshot("referee")["notices"] if n["kind"] == "info"]
    assert [n["message"] for n in notices] == [text] and s.state is before and not s.applied


def test_looking_again_at_a_cell_commits_what_the_gate_never_saw(tmp_path):
    """The table already shows a move the camera missed (it happened before the camera was on):
    the referee asks it to look again at that cell, and the move is found and committed."""
    s = Session.start("scout-pennant", SETUP, None, tmp_path / "g.jsonl")
    mover = GAME.to_move(s.state)
    enter = next(e for e in GAME.legal_events(s.state) if e.type == "enter" and e.actor == mover)
    after = GAME.apply(s.state, enter)
    model, layout = ScoutPennantTable(), mat_layout("scout-pennant")
    scene = table_scene(model.expected(after), seed=5)
    cam = look_at_mat(layout.outline_mm(), (1280, 720), 60.0, 20.0, 15.0, 4.0)
    seq = Sequence(scene, cam, [Hold(40)], DAYLIGHT, fps=30, seed=5, renderer=Renderer(cam))
    (tmp_path / "frames").mkdir()
    for k, st in enumerate(seq.states()):
        cv2.imwrite(str(tmp_path / "frames" / f"{k:04d}.png"), seq.render_state(st).image)
    changed = sorted({(sl[1], sl[2]) for sl, label in model.expected(after).items()
                      if model.expected(s.state).get(sl) != label and sl[0] != "arrow"})
    live = LiveTable(s, FolderSource(tmp_path / "frames"), lambda st: make_loop("scout-pennant", st, None, 30.0, None))
    assert s.request_reread([list(c) for c in changed], "referee") == {"cells": len(changed)}
    live.start().thread.join(120)
    assert [a.obj for a in s.applied] == [enter.to_json()] and s.reread == []


def _http(port, method, path, token=""):
    """``(status, JSON body)`` of one request to the server on ``port``."""
    import http.client
    import json

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request(method, path, headers={"Authorization": f"Bearer {token}"} if token else {})
    response = conn.getresponse()
    body = json.loads(response.read() or b"null")
    conn.close()
    return response.status, body


def test_the_referee_checks_the_table_off_the_frame_thread_and_only_the_referee_hears(tmp_path):
    """Forbidden Desert's whole live loop (a taught detector, the table rendered as the engine
    has it) behind a real waitress server: the referee's ``POST /api/check`` is answered 202,
    a second one before the check starts, or one while it runs, is answered by the same check;
    frames go on through the loop while the check runs; the answer is a notice the referee sees
    and the players and the table do not; the game is not changed. A player's token gets 403,
    and without a camera the referee gets 409."""
    import random
    import shutil
    import threading
    import time

    from assistant.bench.desert_setup import camera
    from assistant.games.forbidden_desert.simulate import random_setup
    from assistant.server.app import create_app
    from assistant.server.wsgi import make_server
    from assistant.vision.detectors import forbidden_desert as fd
    from assistant.vision.detectors.synth import _conditions
    from assistant.vision.render.desert_script import scene_of

    s = Session.start("forbidden-desert", random_setup(random.Random(2), n_players=2), None, tmp_path / "fd.jsonl")
    fd.teach().save(tmp_path / "model")
    rng = random.Random(11)
    cam = camera(rng, (960, 540))
    light, settings = _conditions(rng, "normal")
    (tmp_path / "frames").mkdir()
    first = tmp_path / "frames" / "0000.png"
    cv2.imwrite(str(first), Renderer(cam).render(scene_of(s.state), lighting=light, settings=settings, seed=11).image)
    for k in range(1, 70):                                      # a still table, 7 s at 10 frames a second
        shutil.copy(first, tmp_path / "frames" / f"{k:04d}.png")
    during = []                                                 # frames read while a check ran
    live = LiveTable(s, FolderSource(tmp_path / "frames", fps=10.0),
                     lambda st: make_loop("forbidden-desert", st, str(tmp_path / "model"), 10.0, cam.K), 10.0,
                     before_frame=lambda i: during.append(i) if s.check_running else None)
    server = make_server(create_app(s, camera=live.jpeg), "127.0.0.1", 0, 8)
    threading.Thread(target=server.run, daemon=True).start()     # waitress has no clean stop: a daemon
    port, referee, player = server.effective_port, s.tokens["referee"], s.tokens["0"]

    assert _http(port, "POST", "/api/check", player)[0] == 403
    assert _http(port, "POST", "/api/check")[0] == 403
    assert _http(port, "POST", "/api/check", referee) == (202, {"queued": True})
    assert _http(port, "POST", "/api/check", referee) == (202, {"queued": True})      # the same check
    live.start()
    deadline = time.monotonic() + 60
    while not s.check_running and live.thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.005)
    assert s.check_running
    assert _http(port, "POST", "/api/check", referee) == (202, {"queued": True})   # answered by the running one
    live.thread.join(60)
    assert live.finish_check(60) and live.status == "the camera source stopped"
    assert len(live.checker.log) == 1 and during                 # one check; frames went on meanwhile

    def notices(token=""):
        return [n["message"] for n in _http(port, "GET", "/api/snapshot", token)[1]["notices"]]

    told = notices(referee)
    assert told.count("Checking the whole table at the next still moment.") == 1
    assert told.count("The check of the table that is running will answer.") == 1
    assert told.count("The table matches the game.") == 1, told
    assert notices(player) == [] and notices() == []
    assert s.applied == [] and not s.check_running

    no_camera = create_app(s).test_client()
    r = no_camera.post("/api/check", headers={"Authorization": f"Bearer {referee}"})
    assert r.status_code == 409 and r.get_json()["error"] == "no_camera"


def test_the_players_are_told_once_which_tiles_a_lamps_glare_washes_out(tmp_path):
    """Forbidden Desert's live loop behind the session, on a still table where a lamp's glare
    clips one tile to white: one notice names that tile (the camera cannot see a move there),
    the table view sees it too, and it is not repeated frame after frame. (The loop's detector
    is never asked to read here: nothing changes on the table.)"""
    import random
    from types import SimpleNamespace

    from assistant.bench.desert_setup import camera
    from assistant.games.forbidden_desert.simulate import random_setup
    from assistant.tracking.forbidden_desert import ForbiddenDesertTracker, cell_name
    from assistant.tracking.live import LiveDesert
    from assistant.vision.detectors.synth import _conditions
    from assistant.vision.render.desert_script import scene_of

    desert = get_game("forbidden-desert")
    s = Session.start("forbidden-desert", random_setup(random.Random(2), n_players=2), None, tmp_path / "fd.jsonl")
    layout = mat_layout("forbidden-desert")
    storm = next(slot[1:] for slot, label in ForbiddenDesertTracker(desert, s.state).model.expected(s.state).items()
                 if slot[0] == "face" and label == "storm")
    lit = next(key for key in ((1, 1), (3, 3)) if key != storm)
    rng = random.Random(11)
    cam = camera(rng, (960, 540))
    light, settings = _conditions(rng, "normal")
    image = Renderer(cam).render(scene_of(s.state), lighting=light, settings=settings, seed=11).image
    centre = np.asarray(layout.cell(lit).center_mm, np.float64)
    (cx, cy), (ex, ey) = cam.project(np.array([[*centre, 0.0], [centre[0] + 36.0, centre[1], 0.0]]))
    cv2.circle(image, (round(cx), round(cy)), round(np.hypot(ex - cx, ey - cy)), (255, 255, 255), -1)
    (tmp_path / "frames").mkdir()
    for k in range(40):                                         # a still table, 4 s at 10 frames a second
        cv2.imwrite(str(tmp_path / "frames" / f"{k:04d}.png"), image)
    reader = SimpleNamespace(layout=layout)
    live = LiveTable(s, FolderSource(tmp_path / "frames", fps=10.0),
                     lambda st: LiveDesert(reader, ForbiddenDesertTracker(desert, st), 10.0, cam.K), 10.0)
    live.start()
    live.thread.join(120)
    assert not live.thread.is_alive() and not live.status.startswith("error"), live.status
    for role in ("referee", "table"):
        told = [n["message"] for n in s.snapshot(role)["notices"] if "glare" in n["message"]]
        assert len(told) == 1 and f"washes out {cell_name(lit)}:" in told[0], (role, told)
