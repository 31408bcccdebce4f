"""``assistant serve`` as a real process: kill -9 in the middle of a scripted game, then
``--resume``; the final record equals the uninterrupted one."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from assistant.games.scout_pennant.simulate import random_game
from assistant.records import read_record

ROOT = Path(__file__).resolve().parents[2]


def start(*args: str, cwd: Path) -> tuple[subprocess.Popen, int]:
    """Start ``assistant serve ARGS --port 0``; returns the process and its port."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "assistant", "serve", *args, "--port", "0"], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        match = re.search(r"table view: +http://127\.0\.0\.1:(\d+)/", line)
        if match:
            return proc, int(match.group(1))
        if not line and proc.poll() is not None:
            raise AssertionError(f"serve exited: {proc.stderr.read()}")
    proc.kill()
    raise AssertionError("serve did not say where it listens within 30 s")


def post(port: int, token: str, event: dict) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("POST", "/api/events", json.dumps(event), {"Content-Type": "application/json",
                                                           "Authorization": f"Bearer {token}"})
    status = conn.getresponse().status
    conn.close()
    return status


def test_kill_9_mid_game_then_resume_gives_the_uninterrupted_record(tmp_path):
    game = random_game(21)
    events = [e.to_json() for e in game.events[:40]]
    (tmp_path / "setup.json").write_text(json.dumps({"setup": game.setup, "rulings": game.rulings}))
    proc, port = start("--game", "scout-pennant", "--setup", "setup.json", "--record", "live.jsonl", cwd=tmp_path)
    token = json.loads((tmp_path / "live.jsonl.tokens.json").read_text())["referee"]
    try:
        for ev in events[:23]:
            assert post(port, token, ev) == 201
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    assert proc.returncode == -signal.SIGKILL
    proc, port = start("--resume", "live.jsonl", cwd=tmp_path)
    try:
        for ev in events[23:]:
            assert post(port, token, ev) == 201                      # the same token still works
    finally:
        proc.terminate()
        proc.wait(10)
    got = read_record(tmp_path / "live.jsonl")
    assert [e.to_json() for _, e in got.events] == events
    assert got.header["setup"] == game.setup


def test_serve_refuses_bad_input_in_one_line(tmp_path):
    (tmp_path / "bad.jsonl").write_text('{"format": "tabletop-record/1", "game": "scout-pennant", "setup": {}}\n'
                                        '{"actor": 0, "type": "nonsense"}\n')
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    # (``serve`` alone is no longer refused: the referee starts the game on the tablet; a set-up
    # choice without --game still is)
    for args in (["--resume", "missing.jsonl"], ["--resume", "bad.jsonl"], ["--seed", "3"]):
        run = subprocess.run([sys.executable, "-m", "assistant", "serve", *args, "--port", "0"], cwd=tmp_path,
                             env=env, capture_output=True, text=True, timeout=60)
        assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1, run.stderr


def test_the_load_benchmark_runs_and_counts_deliveries(capsys):
    """``assistant bench serve`` for 3 s: every posted event reaches all 8 live clients."""
    from assistant.bench import serve as bench

    assert bench.run(seconds=3.0, seed=1) == 0
    out = capsys.readouterr().out
    applied = int(re.search(r"(\d+) events applied", out).group(1))
    assert applied >= 20
    assert re.search(rf"over {applied * bench.LIVE_CLIENTS} deliveries", out)
    assert "0 failed POSTs, 0 broken streams, 0 snapshots never received" in out


def test_a_busy_port_is_said_before_any_file_is_written(tmp_path):
    import socket

    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = busy.getsockname()[1]
        run = subprocess.run([sys.executable, "-m", "assistant", "serve", "--game", "scout-pennant", "--record",
                              "g.jsonl", "--port", str(port)], cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                             capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "in use" in run.stderr and len(run.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "g.jsonl").exists()
