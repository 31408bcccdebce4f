"""The tablet pages in a real browser (Playwright driving Debian's Chromium) against a real
waitress server: live updates within a second, each player's secret on its own page only,
undo and a correction end to end, screenshots in landscape and portrait.

Screenshots go to ``test-artifacts/`` (or ``$TEST_ARTIFACTS``)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from assistant.games.forbidden_desert.simulate import random_setup as desert_setup
from assistant.referee.session import Session
from assistant.server.app import create_app
from assistant.server.serve import threads_for
from assistant.server.wsgi import make_server

from .conftest import ARTIFACTS, CHROMIUM  # noqa: F401  (the browser fixture is there too)

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason="Debian's chromium is not installed (apt-get install chromium; .ci/run does)")


def serve(session: Session, max_streams: int = 64) -> str:
    """Serve ``session`` under waitress on a free loopback port (at most ``max_streams`` live
    views); returns the base URL."""
    app = create_app(session)
    app.config["MAX_STREAMS"] = max_streams
    server = make_server(app, "127.0.0.1", 0, threads_for(session.seats))
    threading.Thread(target=server.run, daemon=True).start()      # ends with the test process
    return f"http://127.0.0.1:{server.effective_port}"


def desert(tmp_path) -> Session:
    import random

    return Session.start("forbidden-desert", desert_setup(random.Random(4), n_players=2), None, tmp_path / "fd.jsonl")


def test_the_referee_view_follows_an_event_within_a_second(browser, tmp_path):
    s = desert(tmp_path)
    base = serve(s)
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(base + "/")
    page.wait_for_selector("#board svg")
    page.wait_for_function("document.querySelector('#status').textContent.startsWith('live')")
    mover = s.game.to_move(s.state)
    move = next(e for e in s.game.legal_events(s.state) if e.type == "move")
    t0 = time.monotonic()
    s.submit(move.to_json(), mover)
    page.wait_for_function("document.querySelectorAll('#recent li').length === 1", timeout=1000)
    assert time.monotonic() - t0 < 1.0
    assert "move" in page.inner_text("#recent")
    page.close()


def test_undo_and_a_correction_end_to_end(browser, tmp_path):
    s = desert(tmp_path)
    base = serve(s)
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(f"{base}/?token={s.tokens['referee']}")
    page.wait_for_function("document.querySelector('#status').textContent.startsWith('live')")
    mover = s.game.to_move(s.state)
    move = next(e for e in s.game.legal_events(s.state) if e.type == "move")
    import json

    page.fill("#correction-event", json.dumps(move.to_json()))
    page.click("#correction button[type=submit]")
    page.wait_for_function("document.querySelectorAll('#recent li').length === 1")
    assert len(s.applied) == 1 and s.applied[0].actor == mover
    page.wait_for_selector("#undo:not([disabled])")
    page.click("#undo")
    page.wait_for_function("document.querySelectorAll('#recent li').length === 0")
    assert s.applied == []
    page.fill("#correction-event", '{"actor": 0, "type": "fly"}')     # malformed: said, nothing lost
    page.click("#correction button[type=submit]")
    page.wait_for_function("document.querySelector('#status').classList.contains('bad')")
    assert "malformed" in page.inner_text("#status") and s.applied == []
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "referee-1280x800.png"), full_page=False)
    page.set_viewport_size({"width": 800, "height": 1280})
    page.screenshot(path=str(ARTIFACTS / "referee-800x1280.png"), full_page=False)
    sizes = page.eval_on_selector_all("button", "els => els.filter(e => e.offsetParent).map(e => [e.offsetWidth, e.offsetHeight])")
    assert sizes and all(w >= 44 and h >= 44 for w, h in sizes)            # touch targets
    page.close()


def test_each_player_page_shows_its_own_secret_only(browser, tmp_path, island_pair):
    s, _ = island_pair(tmp_path, swap_clue="B2")           # seat 0 has learned the clue at A1
    base = serve(s)
    clue = s.snapshot(0)["view"]["clues"]["A1"]
    words = clue.get("terrain") or clue.get("symbol") or clue["type"]
    pages = {}
    for seat in (0, 1):
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(f"{base}/seat/{seat}?token={s.tokens[str(seat)]}")
        page.wait_for_function("document.querySelector('#status').textContent.startsWith('live')")
        pages[seat] = page.inner_text("#figures")
        if seat == 0:
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "player-1280x800.png"))
            assert page.locator("#board .candidate").first.is_visible()      # the assist is on by default
            page.uncheck("#assist")                                          # a purist switches it off
            assert not page.locator("#board .candidate").first.is_visible()
            assert "possible positions" not in page.inner_text("#figures")
            page.reload()
            page.wait_for_function("document.querySelector('#status').textContent.startsWith('live')")
            assert not page.locator("#board .candidate").first.is_visible()  # remembered on this tablet
        page.close()
    assert f"A1: {words}" in pages[0]
    assert "A1:" not in pages[1]


def test_a_question_is_answered_by_choosing_an_explanation(browser, tmp_path):
    """The tracker could not decide between two explanations: the referee picks one on the
    tablet; its events are applied in order and the question goes away."""
    s = desert(tmp_path)
    base = serve(s)
    mover = s.game.to_move(s.state)
    moves = [e for e in s.game.legal_events(s.state) if e.type == "move"][:2]
    s.notify("ask", "Which pawn moved?", [[1, 1]], options=[[moves[0].to_json()], [moves[1].to_json()]])
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(f"{base}/?token={s.tokens['referee']}")
    page.wait_for_selector(".notice.ask button.option")
    assert page.locator(".notice.ask button.option").count() == 2
    assert page.locator("#board [data-cell='B2'].hot").count() == 1          # the cell is highlighted
    page.locator(".notice.ask button.option").nth(1).click()
    page.wait_for_function("document.querySelectorAll('.notice.ask').length === 0")
    assert [a.obj for a in s.applied] == [moves[1].to_json()] and s.applied[0].actor == mover
    page.close()


def test_a_player_sets_the_opponents_landing_on_the_tablet(browser, tmp_path, island_pair):
    first, _ = island_pair(tmp_path / "pair")
    s = Session.start("discovery-island", first.header["setup"], None, tmp_path / "di.jsonl")
    base = serve(s)
    page = browser.new_page(viewport={"width": 800, "height": 1280})
    page.goto(f"{base}/seat/0?token={s.tokens['0']}")
    page.wait_for_selector("#landing-hex")
    target = s.header["setup"]["landing"][0]           # a valid land hex: player 1's own landing
    page.click(f"#board polygon[data-cell='{target[0]},{target[1]}']")    # tapped on the island
    assert page.input_value("#landing-hex") == f"{target[0]},{target[1]}"
    with page.expect_response(lambda r: r.url.endswith("/api/setup")) as answer:
        page.click("#landing button[type=submit]")
    assert answer.value.status == 200
    assert s.header["setup"]["landing"][1] == target
    page.close()


def test_the_referee_taps_a_cell_and_asks_the_camera_to_look_again(browser, tmp_path):
    s = desert(tmp_path)
    base = serve(s)
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(f"{base}/?token={s.tokens['referee']}")
    page.wait_for_function("document.querySelector('#status').textContent.startsWith('live')")
    assert page.is_disabled("#reread")
    page.click("#board [data-cell='C4']")
    page.click("#board [data-cell='A1']")
    assert "C4" in page.inner_text("#reread")
    with page.expect_response(lambda r: r.url.endswith("/api/reread")) as answer:
        page.click("#reread")
    assert answer.value.status == 200
    assert sorted(s.reread) == [(0, 0), (3, 2)]                 # A1 and C4 as [row, col]
    with page.expect_response(lambda r: r.url.endswith("/api/check")) as answer:
        page.click("#check")                                    # no camera here: said in one sentence
    assert answer.value.status == 409
    page.wait_for_function("document.querySelector('#status').classList.contains('bad')")
    assert "No camera follows this table" in page.inner_text("#status")
    page.close()


def test_a_refused_page_backs_off_retries_and_says_so(browser, tmp_path):
    """The issue: a page that got a 503 stayed "reconnecting" for good. With one live view
    allowed, the second page says it was refused and when it retries, and is live once the
    first page is closed; the referee's page counts the live views."""
    s = desert(tmp_path)
    base = serve(s, max_streams=1)
    first = browser.new_page()
    first.goto(f"{base}/?token={s.tokens['referee']}")
    first.wait_for_function("document.querySelector('#status').textContent.startsWith('live')")
    assert "1 live view (referee 1)" in first.inner_text("#status")
    second = browser.new_page()
    second.goto(base + "/")
    second.wait_for_function("document.querySelector('#status').textContent.includes('retrying in')", timeout=5000)
    assert "refused" in second.inner_text("#status")
    first.close()
    second.wait_for_function("document.querySelector('#status').textContent.startsWith('live')", timeout=15000)
    second.close()


def test_a_new_game_is_made_on_a_tablet_and_discovery_island_s_choices_on_each_player_s(browser, tmp_path):
    """``serve`` with no game: on a tablet-sized page the referee fills the new-game form for
    Forbidden Desert and lands on the game's referee view; then replaces it (confirmed) with a
    Discovery Island game whose players choose in secret on their own pages, and every page is
    in the new game once both have chosen."""
    from assistant.referee.lobby import Lobby

    lobby = Lobby(None, tmp_path)
    app = create_app(lobby)
    server = make_server(app, "127.0.0.1", 0, threads_for(6))
    threading.Thread(target=server.run, daemon=True).start()      # ends with the test process
    base = f"http://127.0.0.1:{server.effective_port}"
    tablet = {"width": 820, "height": 1180}
    referee = browser.new_page(viewport=tablet)
    referee.goto(f"{base}/?token={lobby.referee_token}")
    referee.select_option("#game", "forbidden-desert")
    referee.select_option("#count", "3")
    for i, (name, adventurer) in enumerate([("Ana", "climber"), ("Ben", "navigator"), ("Cy", "explorer")]):
        referee.fill(f"#name-{i}", name)
        referee.select_option(f"#adventurer-{i}", adventurer)
    referee.select_option("#difficulty", "legendary")
    referee.select_option("#adventurer-2", "climber")                # twice: the server says so
    referee.click("#start")
    referee.wait_for_function("document.querySelector('#status').classList.contains('bad')")
    assert "same adventurer" in referee.inner_text("#status") and lobby.session is None
    referee.select_option("#adventurer-2", "explorer")
    referee.click("#start")
    referee.wait_for_selector("#board svg")
    referee.wait_for_function("document.querySelector('#turn').textContent.includes('(player')")
    setup = lobby.session.header["setup"]
    assert setup["players"] == ["climber", "navigator", "explorer"] and setup["difficulty"] == "legendary"
    assert referee.locator("#join img").count() == 3 and "Ana (player 1)" in referee.inner_text("#join")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    referee.screenshot(path=str(ARTIFACTS / "new-game-desert-820x1180.png"))
    sizes = referee.eval_on_selector_all("button, a.button", "els => els.filter(e => e.offsetParent).map(e => [e.offsetWidth, e.offsetHeight])")
    assert sizes and all(w >= 44 and h >= 44 for w, h in sizes)            # touch targets
    first = lobby.session

    referee.click("#new-game")                                              # replace it: confirmed
    referee.wait_for_selector("#playing:not([hidden])")
    referee.select_option("#game", "discovery-island")
    referee.fill("#name-0", "Ana")
    referee.fill("#name-1", "Ben")
    referee.once("dialog", lambda dialog: dialog.accept())
    referee.click("#start")
    referee.wait_for_function("location.pathname === '/' && !!document.querySelector('#waiting:not([hidden])')")
    assert first.retired and lobby.draft is not None
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    referee.screenshot(path=str(ARTIFACTS / "new-game-island-waiting-820x1180.png"))
    players, asked = [], []
    for seat, (cards, landing) in enumerate([(["rope", "boots"], "12,8"), (["compass", "raft", "first_aid_kit"], "20,5")]):
        page = browser.new_page(viewport=tablet)
        page.on("request", lambda r: asked.append(r.url.split("?")[0].removeprefix(base)))
        page.goto(f"{base}/seat/{seat}?token={lobby.tokens()[str(seat)]}")
        page.wait_for_selector("#card-rope")
        for card in cards:
            page.check(f"#card-{card}")
        if seat == 0:                               # tapped on the island drawn on the page
            page.wait_for_selector("#landing-map polygon.landable")
            page.click("#landing-map polygon[data-cell='0,0']", force=True)      # the sea: not a landing
            assert page.input_value("#landing") == ""
            page.locator(f"#landing-map polygon[data-cell='{landing}']").scroll_into_view_if_needed()
            page.click(f"#landing-map polygon[data-cell='{landing}']")
            assert page.input_value("#landing") == landing
            assert page.locator("#landing-map polygon.picked").count() == 1
        else:                                       # or typed
            page.fill("#landing", landing)
        page.click("#choose")
        players.append(page)
        if seat == 0:
            page.wait_for_function("document.querySelector('#status').textContent.includes('choices are made')")
            referee.wait_for_function("document.querySelector('#chosen').textContent.includes('Ana: has chosen')")
            page.screenshot(path=str(ARTIFACTS / "new-game-island-choices-820x1180.png"))
            page.wait_for_timeout(2500)                 # the page follows the lobby's live stream: it never polls
            assert "/api/lobby/stream" in asked and "/api/lobby" not in asked, asked
    for page in (referee, *players):
        page.wait_for_selector("#board svg")                                # every page is in the game now
    setup = lobby.session.header["setup"]
    assert setup["equipment"] == [["rope", "boots"], ["compass", "raft", "first_aid_kit"]]
    assert setup["landing"] == [[20, 5], [12, 8]]
    for page in (referee, *players):
        page.close()
