"""``serve --game forbidden-desert --source S --model M --calibration C`` without ``--setup``: the
camera reads the opening table, the referee corrects it on the tablet and starts the game from
it, and the live loop follows that game (issue 21). The table is drawn by the project's renderer
and held still in front of a paced stand-in camera; the detector is the own-art one (taught in
about a second)."""

from __future__ import annotations

import random
import time

import pytest

from assistant.bench.desert_setup import camera, players_of
from assistant.referee.lobby import Lobby
from assistant.server.app import create_app
from assistant.server.serve import table_reader
from assistant.vision.detectors import forbidden_desert as fd
from assistant.vision.detectors.synth import _conditions
from assistant.vision.render.desert import desert_setup
from assistant.vision.render.renderer import Renderer
from assistant.vision.sources import Frame, FrameSource

FPS = 10.0


class StillCamera(FrameSource):
    """One picture, again and again, ``fps`` frames a second of real time (a camera over a still
    table), until closed."""

    def __init__(self, image, fps: float = FPS):
        self.image, self.fps, self.index, self.closed = image, fps, 0, False

    def read(self, timeout: float = 5.0):
        if self.closed:
            return None
        time.sleep(1.0 / self.fps)
        self.index += 1
        return Frame(self.index, self.index / self.fps, self.image)

    def close(self) -> None:
        self.closed = True


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """A still opening table: (source, model folder, camera matrix, truth slot -> label)."""
    folder = tmp_path_factory.mktemp("model")
    fd.teach().save(folder)
    rng = random.Random(41)
    scene = desert_setup(41, adventurers=("archeologist", "navigator", "climber"), storm_card=None)
    cam = camera(rng, (960, 540))
    light, settings = _conditions(rng, "normal")
    image = Renderer(cam).render(scene, lighting=light, settings=settings, seed=41).image
    return image, str(folder), cam.K, fd.truth_of(scene)


def _form(players):
    return {"game": "forbidden-desert", "difficulty": "novice",
            "players": [{"name": f"P{i}", "adventurer": a} for i, a in enumerate(players)]}


@pytest.fixture
def served(table, tmp_path):
    """The camera reading ``table`` behind a lobby: (reader, lobby, test client, referee headers);
    the reader is stopped afterwards."""
    image, model, K, _ = table
    reader = table_reader(StillCamera(image), model, FPS, K)
    lobby = Lobby(None, tmp_path, reader=reader)
    yield reader, lobby, create_app(lobby).test_client(), {"Authorization": f"Bearer {lobby.referee_token}"}
    reader.stop()


def test_the_referee_corrects_the_table_read_and_starts_the_game_from_it(table, served):
    truth = table[3]
    reader, lobby, client, ref = served
    assert reader.read_done.wait(60), reader.status

    view = client.get("/api/lobby", headers=ref).get_json()["table"]
    cells = {tuple(c["cell"]): c for c in view["reading"]["cells"]}
    assert len(cells) == 25 and cells[(2, 2)]["face"] == "storm"
    assert all(f["reason"].endswith(".") for f in view["reading"]["flags"])
    assert "table" not in client.get("/api/lobby").get_json()          # the public view: no reading

    # a random deal is refused: this game starts from the table
    assert client.post("/api/new", json=_form(["climber", "navigator"]), headers=ref).status_code == 409
    # a label the set-up does not allow, and a player's or the public's request, are refused
    r = client.post("/api/table/correct", json={"cell": [0, 0], "kind": "face", "label": "gear"}, headers=ref)
    assert r.status_code == 400 and r.get_json()["message"].count(".") == 1
    assert client.post("/api/table/correct", json={"cell": [0, 0], "kind": "face", "label": "dune_back"}
                       ).status_code == 403

    players = players_of(truth)
    # the storm cell corrected to a tile: the table breaks the set-up rules, and starting is refused
    r = client.post("/api/table/correct", json={"cell": [2, 2], "kind": "face", "label": "dune_back"}, headers=ref)
    assert r.status_code == 200 and ["face", 2, 2] in r.get_json()["corrected"]
    r = client.post("/api/table/start", json=_form(players), headers=ref)
    assert r.status_code == 400 and r.get_json()["error"] == "bad_table" and "21 dune back" in r.get_json()["message"]
    assert lobby.session is None

    # the referee puts the storm back, fixes what the reading got wrong, and swaps a dune and a water back
    fixes = [((2, 2), "face", "storm")]
    fixes += [(s[1:], s[0], v) for s, v in truth.items() if s[0] in ("face", "sand", "pawns", "parts")
              and reader.labels().get(s) != v]
    dune = next(s[1:] for s, v in sorted(truth.items()) if v == "dune_back")
    water = next(s[1:] for s, v in sorted(truth.items()) if v == "water_back")
    fixes += [(dune, "face", "water_back"), (water, "face", "dune_back")]
    for cell, kind, label in fixes:
        r = client.post("/api/table/correct", json={"cell": list(cell), "kind": kind, "label": label}, headers=ref)
        assert r.status_code == 200, r.get_json()
    assert not [f for f in client.get("/api/lobby", headers=ref).get_json()["table"]["reading"]["flags"]
                if f["kind"] == "rules"]
    r = client.post("/api/table/start", json=_form(players), headers=ref)
    assert r.status_code == 201, r.get_json()
    setup = lobby.session.header["setup"]
    assert setup["layout"][dune[0]][dune[1]] == "water_back" and setup["layout"][water[0]][water[1]] == "dune_back"
    assert setup["layout"][2][2] is None and setup["players"] == players and setup["difficulty"] == "novice"
    assert "table" not in client.get("/api/lobby", headers=ref).get_json()
    assert client.post("/api/table/read", headers=ref).status_code == 409       # the game has started

    deadline = time.monotonic() + 30                  # the live loop follows the game, from the same camera
    while (reader.live is None or reader.live.status in ("starting",)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert reader.live is not None and reader.live.session is lobby.session
    assert reader.live.loop.tracker.state is lobby.session.state


def test_read_again_reads_the_table_anew(served):
    reader, lobby, client, ref = served
    assert reader.read_done.wait(60)
    first = reader.revision
    client.post("/api/table/correct", json={"cell": [0, 0], "kind": "sand", "label": "dark"}, headers=ref)
    assert client.post("/api/table/read", headers=ref).status_code == 202
    assert reader.read_done.wait(60) and reader.revision > first + 1 and reader.corrections == {}


def correct_on_page(page, cell: str, control: str, label: str) -> None:
    """Tap ``cell`` (its ``data-cell``) on the referee's page, choose ``label`` in the correction
    form's ``#fix-<control>`` and save."""
    page.click(f"#read-board .cell[data-cell='{cell}']")
    page.select_option(f"#fix-{control}", label)
    page.click("#fix-save")


def refused_on_page(page, words: str, shot: str) -> None:
    """Press "Start the game", wait for the refusal, check it says ``words`` and keep a
    screenshot ``shot`` in the test artifacts."""
    from .conftest import ARTIFACTS

    page.click("#start")
    page.wait_for_function("document.querySelector('#status').classList.contains('bad')")
    assert words in page.inner_text("#status")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / shot), full_page=True)


def test_the_referee_corrects_a_cell_on_a_tablet_and_starts_the_game(table, tmp_path, browser):
    """The new-game page on a tablet-sized page (820x1180) in a real browser against waitress:
    the reading is drawn as 25 cells; tapping C3 and choosing a tile instead of the storm flags
    it and the start is refused in one sentence; put back (and what the reading got wrong
    corrected), the game starts from the table."""
    import threading

    from assistant.server.wsgi import make_server

    image, model, K, truth = table
    reader = table_reader(StillCamera(image), model, FPS, K)
    try:
        lobby = Lobby(None, tmp_path, reader=reader)
        server = make_server(create_app(lobby), "127.0.0.1", 0, 12)
        threading.Thread(target=server.run, daemon=True).start()
        assert reader.read_done.wait(60)
        for s, v in truth.items():                          # what the reading got wrong, put right first
            if s[0] in ("face", "sand", "pawns", "parts") and reader.labels().get(s) != v:
                reader.correct(list(s[1:]), s[0], v)
        page = browser.new_page(viewport={"width": 820, "height": 1180})
        page.goto(f"http://127.0.0.1:{server.effective_port}/?token={lobby.referee_token}")
        page.wait_for_function("document.querySelectorAll('#read-board .cell').length === 25")
        correct_on_page(page, "2,2", "face", "dune_back")
        page.wait_for_selector("#read-board .cell.flag.rules.corrected[data-cell='2,2']")
        page.fill("#name-0", "Ann")
        refused_on_page(page, "21 dune back", "table-setup-820x1180.png")
        assert lobby.session is None
        correct_on_page(page, "2,2", "face", "storm")
        players = players_of(truth)
        page.select_option("#count", str(len(players)))
        for i, a in enumerate(players):
            page.select_option(f"#adventurer-{i}", a)
        page.click("#start")
        page.wait_for_url("**/?token=*", timeout=10000)
        page.wait_for_function("document.body.classList.contains('lobby') === false", timeout=10000)
        assert lobby.session is not None and lobby.session.header["setup"]["players"] == players
        page.close()
    finally:
        reader.stop()
