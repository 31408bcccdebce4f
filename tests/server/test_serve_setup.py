"""``assistant serve`` set-ups: a new random deal every game unless ``--seed`` is given, the
players' choices on the command line, and Discovery Island on the example island."""

from __future__ import annotations

import json

import pytest

from assistant.cli import build_parser
from assistant.server.serve import open_session

from .test_crash_resume import start


def session_of(tmp_path, *argv):
    args = build_parser().parse_args(["serve", *argv, "--record", str(tmp_path / "g.jsonl")])
    return open_session(args)


def hidden(session):
    setup = session.header["setup"]
    return json.dumps([setup.get(k) for k in ("layout", "storm_deck", "equipment_deck", "landing", "checkometer")])


def test_each_game_gets_a_new_deal_unless_a_seed_is_given(tmp_path):
    """The issue's probe found the launch pad at C5 in every game (seed 1 by default)."""
    deals = {hidden(session_of(tmp_path / f"r{k}", "--game", "forbidden-desert", "--players", "2")) for k in range(3)}
    assert len(deals) == 3
    seeded = {hidden(session_of(tmp_path / f"s{k}", "--game", "forbidden-desert", "--seed", "5")) for k in range(2)}
    assert len(seeded) == 1


def test_adventurers_players_and_difficulty_are_chosen_on_the_command_line(tmp_path):
    s = session_of(tmp_path, "--game", "forbidden-desert", "--adventurers", "navigator,climber,explorer",
                   "--difficulty", "elite")
    setup = s.header["setup"]
    assert setup["players"] == ["navigator", "climber", "explorer"] and setup["difficulty"] == "elite"
    assert s.seats == 3
    assert session_of(tmp_path / "p", "--game", "scout-pennant", "--players", "5").seats == 5


@pytest.mark.parametrize("argv, words", [
    (["--game", "forbidden-desert", "--adventurers", "climber,wizard"], "unknown adventurer 'wizard'"),
    (["--game", "forbidden-desert", "--adventurers", "climber,climber"], "named twice"),
    (["--game", "forbidden-desert", "--players", "6"], "2 to 5"),
    (["--game", "forbidden-desert", "--players", "3", "--adventurers", "climber,explorer"], "2 adventurers"),
    (["--game", "scout-pennant", "--players", "1"], "2 to 6"),
    (["--game", "discovery-island", "--players", "3"], "2 players"),
    (["--game", "scout-pennant", "--difficulty", "elite"], "Forbidden Desert's choices"),
    (["--game", "scout-pennant", "--setup", "x.json", "--seed", "2"], "--setup gives the set-up"),
])
def test_a_choice_the_game_does_not_have_is_named(tmp_path, argv, words):
    with pytest.raises(ValueError, match=words):
        session_of(tmp_path, *argv)
    assert not (tmp_path / "g.jsonl").exists()


def test_discovery_island_without_a_setup_starts_on_the_example_island(tmp_path):
    """The issue: ``serve --game discovery-island`` ended in a traceback (random_setup() missing
    'island'); it now serves the example island with random legal choices."""
    proc, port = start("--game", "discovery-island", "--record", "di.jsonl", cwd=tmp_path)
    try:
        import http.client

        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", "/api/snapshot")
        snap = json.loads(conn.getresponse().read())
        assert snap["game"] == "discovery-island" and snap["seats"] == 2
    finally:
        proc.terminate()
        proc.wait(10)
    header = json.loads((tmp_path / "di.jsonl").read_text().splitlines()[0])
    assert header["setup"]["map"] == "example" and header["setup"]["checkometer"]["kind"] == "digital"


def test_a_server_that_may_make_new_games_is_sized_for_the_largest(tmp_path):
    """``serve --game G --players 2`` may be followed on the tablet by a six-player Scout
    Pennant: its threads and live views are sized for that unless the game is fixed."""
    from assistant.server.serve import seats_served

    two = session_of(tmp_path, "--game", "forbidden-desert", "--players", "2")
    assert seats_served(two, None) == seats_served(None, None) == 6
    assert seats_served(two, "a camera follows this game") == 2


def test_serve_alone_refuses_a_record_that_exists_at_once(tmp_path):
    """``serve --record R`` with no game: the first game made on the tablet goes to R, so an
    existing R is refused when the server starts (as with ``--game``), not by a 503 on the
    referee's form later."""
    (tmp_path / "g.jsonl").write_text("a record of last night\n")
    with pytest.raises(FileExistsError, match="exists"):
        session_of(tmp_path)
    assert (tmp_path / "g.jsonl").read_text() == "a record of last night\n"
    assert session_of(tmp_path / "new") is None                          # a new name: no game yet


def test_serve_alone_waits_for_a_game_and_prints_the_lan_address_beyond_this_machine(tmp_path):
    """``serve`` with no game on every interface: the links it prints carry the LAN address
    (never 127.0.0.1), and the server answers with no game yet."""
    import os
    import re
    import subprocess
    import sys
    import http.client

    from assistant.server.address import lan_address

    from .test_crash_resume import ROOT

    lan = lan_address()
    if lan is None:
        pytest.skip("this machine has no address but loopback")
    proc = subprocess.Popen([sys.executable, "-m", "assistant", "serve", "--host", "0.0.0.0", "--port", "0"],
                            cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(ROOT)), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        lines = [proc.stdout.readline() for _ in range(3)]
        assert "no game yet" in lines[0], (lines, proc.stderr.read() if proc.poll() is not None else "")
        match = re.search(r"referee view: http://([\d.]+):(\d+)/\?token=", lines[2])
        assert match and match.group(1) == lan and not lan.startswith("127.")
        conn = http.client.HTTPConnection("127.0.0.1", int(match.group(2)), timeout=10)
        conn.request("GET", "/api/lobby")
        assert json.loads(conn.getresponse().read())["state"] == "none"
    finally:
        proc.terminate()
        proc.wait(10)
    assert not (tmp_path / "games").exists()                  # no record before a game is made
