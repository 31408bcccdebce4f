"""``serve --game scout-pennant|discovery-island --source S`` without ``--setup``: the camera reads the
opening table, the referee checks it against the rules' set-up and the tablet's choices, corrects
it, and starts the game from it; the live loop then follows that game (issue 21). The tables are
drawn by the project's renderer from the kits' own art and held still in front of a paced
stand-in camera (:class:`.test_table_setup.StillCamera`); the detectors are the kits' own."""

from __future__ import annotations

import json
import random
import time

from assistant.games.discovery_island.geometry import to_offset
from assistant.games.discovery_island.island import load_map
from assistant.games.scout_pennant import GAME as PENNANT
from assistant.referee.lobby import Lobby
from assistant.server.app import create_app
from assistant.server.serve import table_reader
from assistant.tracking.discovery_island import CENTRE, start_design
from assistant.tracking.pennant_setup import PennantOpening
from assistant.vision.kits.discovery_island_scene import random_camera, tile_piece
from assistant.vision.kits.scout_pennant_scene import KitArt, table_scene
from assistant.vision.mats import mat_layout
from assistant.vision.render.camera import look_at_mat
from assistant.vision.render.lighting import DAYLIGHT
from assistant.vision.render.renderer import Renderer
from assistant.vision.render.scene import Scene

from .test_table_setup import FPS, StillCamera, correct_on_page, refused_on_page

SP_FORM = {"game": "scout-pennant", "radius": 4, "variant": "free", "first_player": 0,
           "players": [{"name": "Ann", "colour": "red"}, {"name": "Bo", "colour": "blue"},
                       {"name": "Cy", "colour": "green"}]}
DI_FORM = {"game": "discovery-island", "players": [{"name": "Ana"}, {"name": "Ben"}], "map": "example",
           "first_player": 0}


def _pennant_table(setup, extra=None, seed=3):
    """A rendered Scout Pennant table showing the start of ``setup`` (slots in ``extra`` changed)."""
    kit = PennantOpening()
    table = kit.table.expected(PENNANT.new_state(setup, {}))
    table.update(extra or {})
    cam = look_at_mat(kit.layout.outline_mm(), (1280, 720), 60.0, 20.0, 30.0, 8.0)
    return Renderer(cam).render(table_scene(table, seed=seed, art=KitArt()), lighting=DAYLIGHT, seed=seed).image


def _island_table(design, seed=5):
    """A rendered Discovery Island mat with ``design`` on the centre hex and nothing else."""
    layout = mat_layout("discovery-island")
    scene = Scene(layout).place(tile_piece(layout, CENTRE, design, 0))
    return Renderer(random_camera(random.Random(seed))).render(scene, lighting=DAYLIGHT, seed=seed).image


def _serve(image, game_id, tmp_path):
    reader = table_reader(StillCamera(image), None, FPS, None, game_id=game_id)
    lobby = Lobby(None, tmp_path, reader=reader)
    return reader, lobby, create_app(lobby).test_client(), {"Authorization": f"Bearer {lobby.referee_token}"}


def _wait_live(reader, lobby):
    deadline = time.monotonic() + 30
    while (reader.live is None or reader.live.status == "starting") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert reader.live is not None and reader.live.session is lobby.session


def _rules(client, ref):
    return [f for f in client.get("/api/lobby", headers=ref).get_json()["table"]["reading"]["flags"]
            if f["kind"] == "rules"]


def _setup_of(form):
    return {"radius": form["radius"], "players": [{"seat": i, "colour": p["colour"]} for i, p in enumerate(form["players"])]}


def test_a_scout_pennant_table_is_read_corrected_and_started(tmp_path):
    """A correct three-player opening is read without a flag; a correction that breaks the
    set-up is flagged and the start refused in one sentence; the form's player count and radius
    are checked against the table; put right, the game starts and the live loop follows it."""
    reader, lobby, client, ref = _serve(_pennant_table(_setup_of(SP_FORM)), "scout-pennant", tmp_path)
    try:
        assert reader.read_done.wait(60), reader.status
        view = client.get("/api/lobby", headers=ref).get_json()["table"]
        assert view["game"] == "scout-pennant" and len(view["reading"]["cells"]) == 61
        assert view["reading"]["board"]["hex"] and view["reading"]["flags"] == []
        assert "table" not in client.get("/api/lobby").get_json()
        assert client.post("/api/new", json=SP_FORM, headers=ref).status_code == 409   # this game starts from the table

        # a forest read (as corrected) on an empty cell breaks the set-up: flagged, start refused
        r = client.post("/api/table/correct", json={"cell": [1, -1], "kind": "piece", "label": "forest"}, headers=ref)
        assert r.status_code == 200 and ["piece", 1, -1] in r.get_json()["corrected"]
        r = client.post("/api/table/start", json=SP_FORM, headers=ref)
        assert r.status_code == 400 and r.get_json()["error"] == "bad_table"
        assert r.get_json()["message"].startswith("1,-1 should be empty at set-up") and lobby.session is None
        assert [f["name"] for f in _rules(client, ref)] == ["1,-1"]
        # an arrow slot names both its cells; a label or a slot the mat does not have is refused
        r = client.post("/api/table/correct", json={"cell": [0, -1, 0, 0], "kind": "arrow", "label": "forward"},
                        headers=ref)
        assert r.status_code == 200 and "0,-1" in [f["name"] for f in _rules(client, ref)]
        for bad in ({"cell": [0, 0], "kind": "arrow", "label": "none"}, {"cell": [9, 9], "kind": "piece", "label": "empty"},
                    {"cell": [0, 0], "kind": "piece", "label": "castle"}, {"cell": "0,0", "kind": "piece", "label": "empty"}):
            r = client.post("/api/table/correct", json=bad, headers=ref)
            assert r.status_code == 400 and r.get_json()["message"].endswith("."), bad
        for cell, kind, label in (([1, -1], "piece", "empty"), ([0, -1, 0, 0], "arrow", "none")):
            assert client.post("/api/table/correct", json={"cell": cell, "kind": kind, "label": label},
                               headers=ref).status_code == 200

        # the table has three start clearings: a two-player form, or a radius the mat cannot hold, is refused
        two = {**SP_FORM, "players": SP_FORM["players"][:2]}
        r = client.post("/api/table/start", json=two, headers=ref)
        assert r.status_code == 400 and "should be empty at set-up" in r.get_json()["message"]
        r = client.post("/api/table/start", json={**SP_FORM, "radius": 6}, headers=ref)
        assert r.status_code == 400 and "radius 4 at most" in r.get_json()["message"]

        r = client.post("/api/table/start", json=SP_FORM, headers=ref)
        assert r.status_code == 201, r.get_json()
        assert lobby.session.header["setup"]["players"] == _setup_of(SP_FORM)["players"]
        assert client.post("/api/table/correct", json={"cell": [0, 0], "kind": "piece", "label": "empty"},
                           headers=ref).status_code == 409
        _wait_live(reader, lobby)
    finally:
        reader.stop()


def test_a_wrong_scout_pennant_table_is_flagged_until_it_is_put_right_and_read_again(tmp_path):
    """A patrol on a start clearing and a forest on the board at set-up are each flagged with
    the rules' reason; once the players put the table right, "Read again" clears the flags."""
    setup = _setup_of(SP_FORM)
    wrong = _pennant_table(setup, {("patrol", 0, 4): "red", ("piece", 2, 0): "forest"})
    camera = StillCamera(wrong)
    reader = table_reader(camera, None, FPS, None, game_id="scout-pennant")
    try:
        lobby = Lobby(None, tmp_path, reader=reader)
        client, ref = create_app(lobby).test_client(), {"Authorization": f"Bearer {lobby.referee_token}"}
        assert reader.read_done.wait(60)
        r = client.post("/api/table/start", json=SP_FORM, headers=ref)
        assert r.status_code == 400 and "(1 more cell(s) flagged)" in r.get_json()["message"]
        reasons = {f["name"]: f["reason"] for f in _rules(client, ref)}
        assert reasons["0,4"] == ("A red patrol is read on 0,4; at set-up every patrol waits in its player's base "
                                  "(rules §2.4).")
        assert reasons["2,0"].startswith("2,0 should be empty at set-up") and len(reasons) == 2
        camera.image = _pennant_table(setup)
        assert client.post("/api/table/read", headers=ref).status_code == 202
        assert reader.read_done.wait(60) and _rules(client, ref) == []
        assert client.post("/api/table/start", json=SP_FORM, headers=ref).status_code == 201
    finally:
        reader.stop()


def _landings(terrain, count=2):
    """``count`` featureless land hexes ``[col, row]`` of ``terrain`` on the example island."""
    island = load_map("example")
    hexes = sorted(h for h in island.featureless_land if island.terrain(h) == terrain)
    return [list(to_offset(*h)) for h in hexes[:count]]


def test_a_discovery_island_mat_is_checked_after_the_secret_choices_and_started(tmp_path):
    """The form makes the game wait for the players' choices; until both have chosen, only
    "a tile back up on the centre hex" is checked and the start waits; then the start tile must
    be from the first walker's landing terrain: a landing of another terrain is flagged (the
    sentence names the terrain, never a hex) and the start refused; chosen again, the game
    starts from the table with the choices made, and the live loop follows it."""
    jungle, wetland = _landings("jungle"), _landings("wetland", 1)
    reader, lobby, client, ref = _serve(_island_table("back:jungle"), "discovery-island", tmp_path)
    try:
        assert reader.read_done.wait(120), reader.status
        assert _rules(client, ref) == []
        r = client.post("/api/table/start", json=DI_FORM, headers=ref)
        assert r.status_code == 201 and r.get_json() == {"state": "choosing"}
        assert client.post("/api/table/start", json={"game": "discovery-island"}, headers=ref).status_code == 409
        seat = {s: {"Authorization": f"Bearer {lobby.tokens()[str(s)]}"} for s in (0, 1)}
        # player 1 chooses where player 0 (the first walker) lands: a wetland hex, but the mat shows a jungle back
        assert client.post("/api/choices", json={"equipment": [], "landing": wetland[0]}, headers=seat[1]).status_code == 200
        assert client.post("/api/choices", json={"equipment": [], "landing": jungle[1]},
                           headers=seat[0]).get_json() == {"state": "chosen"}
        assert lobby.session is None
        flags = _rules(client, ref)
        assert [f["name"] for f in flags] == ["hex (4,3)"] and "from the wetland pile" in flags[0]["reason"]
        r = client.post("/api/table/start", json={"game": "discovery-island"}, headers=ref)
        assert r.status_code == 400 and "from the wetland pile" in r.get_json()["message"]
        for sentence in (flags[0]["reason"], r.get_json()["message"]):
            assert not any(f"{c},{w}" in sentence.replace(" ", "") for c, w in (*jungle, *wetland) if [c, w] != [4, 3])

        # the referee also sees a stray face the reading made up, until it is corrected away
        r = client.post("/api/table/correct", json={"cell": [0, 0], "kind": "tile", "label": "jungle"}, headers=ref)
        assert r.status_code == 200 and "hex (0,0)" in [f["name"] for f in _rules(client, ref)]
        client.post("/api/table/correct", json={"cell": [0, 0], "kind": "tile", "label": "empty"}, headers=ref)

        assert client.post("/api/choices", json={"equipment": [], "landing": jungle[0]}, headers=seat[1]).status_code == 200
        assert _rules(client, ref) == []
        r = client.post("/api/table/start", json={"game": "discovery-island"}, headers=ref)
        assert r.status_code == 201, r.get_json()
        setup = lobby.session.header["setup"]
        assert setup["landing"] == [jungle[0], jungle[1]] and setup["first_player"] == 0
        _wait_live(reader, lobby)
        assert reader.live.loop.tracker.state.game is lobby.session.state
    finally:
        reader.stop()


def test_a_landing_on_a_checkpoint_starts_from_the_camera_read_mat_under_the_ruling(tmp_path):
    """The ruling ``start_on_feature`` (rules §5.11) ticked on the form: player 1 lands player 0
    on a checkpoint hex, whose start tile is the checkpoint tile face up; the camera reads that
    tile on the centre hex, nothing is flagged and the game starts from the table with the
    ruling in its record, and the live loop follows it. Without the ruling the same landing is
    refused in one sentence."""
    island = load_map("example")
    checkpoint = next(h for h in sorted(island.land) if island.info(h).marker == "checkpoint")
    landing, other = list(to_offset(*checkpoint)), _landings("jungle", 1)[0]
    form = {**DI_FORM, "start_on_feature": True}
    for ruled in (False, True):
        reader, lobby, client, ref = _serve(_island_table("-/4/checkpoint"), "discovery-island", tmp_path / str(ruled))
        try:
            assert reader.read_done.wait(120), reader.status
            r = client.post("/api/table/start", json=form if ruled else DI_FORM, headers=ref)
            assert r.status_code == 201 and r.get_json() == {"state": "choosing"}
            seat = {s: {"Authorization": f"Bearer {lobby.tokens()[str(s)]}"} for s in (0, 1)}
            r = client.post("/api/choices", json={"equipment": [], "landing": landing}, headers=seat[1])
            if not ruled:
                assert r.status_code == 400 and r.get_json()["message"].endswith("."), r.get_json()
                continue
            assert r.status_code == 200, r.get_json()
            assert client.post("/api/choices", json={"equipment": [], "landing": other},
                               headers=seat[0]).get_json() == {"state": "chosen"}
            assert _rules(client, ref) == []
            r = client.post("/api/table/start", json={"game": "discovery-island"}, headers=ref)
            assert r.status_code == 201, r.get_json()
            state = lobby.session.state
            assert lobby.session.header["rulings"].get("start_on_feature") is True
            assert state.pos[0] == checkpoint and start_design(state, 0) == "-/4/checkpoint"
            _wait_live(reader, lobby)
            assert reader.live.loop.tracker.state.game is lobby.session.state
        finally:
            reader.stop()


def test_the_discovery_island_reading_tells_no_role_a_landing_hex(tmp_path):
    """What every role is told while the players choose depends only on what it may know: the
    referee's reading is the same whichever hex of the same terrain was chosen (it names the
    start tile's terrain, which the table shows everyone), and a player's or the public's
    answers carry no reading and not the other player's choice."""
    jungle = _landings("jungle", 3)
    reader, lobby, client, ref = _serve(_island_table("back:jungle"), "discovery-island", tmp_path)
    try:
        assert reader.read_done.wait(120)
        assert client.post("/api/table/start", json=DI_FORM, headers=ref).status_code == 201
        seat = {s: {"Authorization": f"Bearer {lobby.tokens()[str(s)]}"} for s in (0, 1)}
        client.post("/api/choices", json={"equipment": [], "landing": jungle[2]}, headers=seat[0])
        seen = []
        for hex_ in jungle[:2]:
            assert client.post("/api/choices", json={"equipment": [], "landing": hex_}, headers=seat[1]).status_code == 200
            body = client.get("/api/lobby", headers=ref).get_json()
            seen.append(json.dumps({**body["table"], "revision": None}, sort_keys=True))
            for who in (seat[0], {}):
                other = client.get("/api/lobby", headers=who).get_json()
                assert "table" not in other and json.dumps(hex_) not in json.dumps(other)
        assert seen[0] == seen[1]
        r = client.post("/api/table/start", json={"game": "discovery-island"}, headers=seat[0])
        assert r.status_code == 403 and lobby.session is None
    finally:
        reader.stop()


def test_the_referee_corrects_a_hex_on_a_tablet_and_starts_scout_pennant(tmp_path, browser):
    """The new-game page on a tablet-sized page (820x1180) in a real browser against waitress:
    the reading is drawn as the 61 hexes of the mat; tapping 1,-1 and choosing a forest flags it
    and the start is refused in one sentence; put back, the game starts from the table with the
    form's three players."""
    import threading

    from assistant.server.wsgi import make_server

    reader = table_reader(StillCamera(_pennant_table(_setup_of(SP_FORM))), None, FPS, None, game_id="scout-pennant")
    try:
        lobby = Lobby(None, tmp_path, reader=reader)
        server = make_server(create_app(lobby), "127.0.0.1", 0, 12)
        threading.Thread(target=server.run, daemon=True).start()
        assert reader.read_done.wait(60)
        page = browser.new_page(viewport={"width": 820, "height": 1180})
        page.goto(f"http://127.0.0.1:{server.effective_port}/?token={lobby.referee_token}")
        page.wait_for_function("document.querySelectorAll('#read-board .cell').length === 61")
        assert page.input_value("#game") == "scout-pennant"
        correct_on_page(page, "1,-1", "piece", "forest")
        assert page.locator("#fix-slots select").count() == 8            # piece, patrol, six sides
        page.wait_for_selector("#read-board .cell.flag.rules.corrected[data-cell='1,-1']")
        page.select_option("#count", "3")
        for i, name in enumerate(("Ann", "Bo", "Cy")):
            page.fill(f"#name-{i}", name)
        refused_on_page(page, "1,-1 should be empty at set-up", "table-setup-pennant-820x1180.png")
        assert lobby.session is None
        correct_on_page(page, "1,-1", "piece", "empty")
        page.wait_for_function("!document.querySelector(\"#read-board .cell[data-cell='1,-1']\").classList.contains('flag')")
        page.click("#start")
        page.wait_for_function("document.body.classList.contains('lobby') === false", timeout=10000)
        assert lobby.session is not None and lobby.session.header["names"] == ["Ann", "Bo", "Cy"]
        page.close()
    finally:
        reader.stop()


def test_a_discovery_island_game_waits_for_the_choices_then_starts_from_the_table_on_a_tablet(tmp_path, browser):
    """On a tablet-sized page against waitress: the referee sees the 63 hexes of the mat, sends
    the form, and the page shows the join codes and the table; the referee abandons that game
    and the form is back, sent again; "Start the game" of the table appears only once both
    players have chosen (on their own tokens), and starts the game."""
    import threading
    import urllib.request

    from assistant.server.wsgi import make_server

    jungle = _landings("jungle")
    reader = table_reader(StillCamera(_island_table("back:jungle")), None, FPS, None, game_id="discovery-island")
    try:
        lobby = Lobby(None, tmp_path, reader=reader)
        server = make_server(create_app(lobby), "127.0.0.1", 0, 12)
        threading.Thread(target=server.run, daemon=True).start()
        base = f"http://127.0.0.1:{server.effective_port}"
        assert reader.read_done.wait(120)
        page = browser.new_page(viewport={"width": 820, "height": 1180})
        page.goto(f"{base}/?token={lobby.referee_token}")
        page.wait_for_function("document.querySelectorAll('#read-board .cell').length === 63")
        assert page.input_value("#game") == "discovery-island"
        for names in (("Al", "Bea"), ("Ana", "Ben")):      # the first game is abandoned, then made again
            page.fill("#name-0", names[0])
            page.fill("#name-1", names[1])
            page.select_option("#first", "0")
            page.click("#start")
            page.wait_for_selector("#waiting:not([hidden]) #join figure")
            page.wait_for_function("document.querySelectorAll('#read-board .cell').length === 63")
            if names[0] == "Al":
                page.once("dialog", lambda dialog: dialog.accept())
                page.click("#abandon")
                page.wait_for_selector("#new-game:not([hidden])")
                assert page.is_hidden("#waiting") and lobby.draft is None
        assert lobby.draft.game.names == ["Ana", "Ben"]
        assert page.is_hidden("#table-start") and lobby.draft is not None
        for seat, landing in ((1, jungle[0]), (0, jungle[1])):
            request = urllib.request.Request(f"{base}/api/choices", method="POST",
                                             data=json.dumps({"equipment": [], "landing": landing}).encode(),
                                             headers={"Authorization": f"Bearer {lobby.tokens()[str(seat)]}",
                                                      "Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=10) as answer:
                assert answer.status == 200
        page.wait_for_selector("#table-start:not([hidden])", timeout=10000)
        page.click("#table-start")
        page.wait_for_function("document.body.classList.contains('lobby') === false", timeout=10000)
        assert lobby.session is not None and lobby.session.header["setup"]["landing"] == [jungle[0], jungle[1]]
        page.close()
    finally:
        reader.stop()
