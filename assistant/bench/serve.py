"""``assistant bench serve``: the referee server under load on loopback.

The server runs as its own process (``assistant serve``, waitress), as at a game night, so the
clients do not share its interpreter. Eight clients hold live streams (``/api/stream``: the
referee tablet, players, spectators) and two clients post the events of a seeded Scout Pennant
game in turn, 10 events a second in all, for ``seconds`` (60 by default, the issue's figure). For every event and every
live client the time from just before the POST to the arrival of the snapshot that includes
the event is measured. Reported: requests and errors, event-to-every-client latency (median,
p95, max), and the server's resident memory.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from ..games.scout_pennant.simulate import random_game

LIVE_CLIENTS, POSTERS, TARGET_P95_MS = 8, 2, 200.0
RATE = 10.0                    #: events per second posted (a real table makes a few per minute)


def long_game(seed: int, events: int):
    """The first seeded 4-player Scout Pennant game (seeds ``seed``, ``seed + 1``...) that lasts
    at least ``events`` events; raises ``RuntimeError`` when 200 seeds give none."""
    for s in range(seed, seed + 200):
        game = random_game(s, n_players=4, radius=5, max_events=events)
        if len(game.events) >= events:
            return game
    raise RuntimeError(f"no seeded game of {events} events")


def _start_server(folder: Path, setup: dict, rulings: dict) -> tuple[subprocess.Popen, int, str]:
    (folder / "setup.json").write_text(json.dumps({"setup": setup, "rulings": rulings}))
    proc = subprocess.Popen([sys.executable, "-m", "assistant", "serve", "--game", "scout-pennant", "--setup",
                             "setup.json", "--record", "bench.jsonl", "--port", "0"], cwd=folder,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        match = re.search(r"table view: +http://127\.0\.0\.1:(\d+)/", proc.stdout.readline())
        if match:
            token = json.loads((folder / "bench.jsonl.tokens.json").read_text())["referee"]
            return proc, int(match.group(1)), token
    proc.kill()
    raise RuntimeError(f"the server did not start: {proc.stderr.read()}")


class _Listener(threading.Thread):
    """One live client: records when the snapshot holding each event count arrives."""

    def __init__(self, port: int):
        super().__init__(daemon=True)
        self.port, self.arrived, self.errors = port, {}, 0
        self.ready = threading.Event()

    def run(self) -> None:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=90)
            conn.request("GET", "/api/stream")
            response = conn.getresponse()
            if response.status != 200:
                self.errors += 1
                return
            while True:
                line = response.readline()
                if not line:
                    return
                if line.startswith(b"data: "):
                    events = json.loads(line[6:])["events"]
                    self.arrived.setdefault(events, time.perf_counter())
                    self.ready.set()
        except (OSError, http.client.HTTPException, ValueError):
            self.errors += 1


def _rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return float("nan")


def run(seconds: float = 60.0, seed: int = 1) -> int:
    """Run the load test for ``seconds`` (the issue's figure is 60 s); prints the report; returns 0."""
    seconds = 60.0 if seconds is None else seconds
    game = long_game(seed, int(RATE * seconds) + 20)
    events = [e.to_json() for e in game.events]
    with tempfile.TemporaryDirectory() as tmp:
        proc, port, token = _start_server(Path(tmp), game.setup, game.rulings)
        try:
            listeners = [_Listener(port) for _ in range(LIVE_CLIENTS)]
            for listener in listeners:
                listener.start()
            for listener in listeners:
                listener.ready.wait(10)
            posted: dict[int, float] = {}
            errors, requests = [0], [0]
            turn = threading.Condition()
            state = {"next": 0}
            stop_at = time.perf_counter() + seconds

            def poster(me: int) -> None:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                while time.perf_counter() < stop_at:
                    with turn:
                        while state["next"] % POSTERS != me and time.perf_counter() < stop_at:
                            turn.wait(0.5)
                        k = state["next"]
                        if k >= len(events) or time.perf_counter() >= stop_at:
                            turn.notify_all()
                            return
                        t0 = time.perf_counter()
                        try:
                            conn.request("POST", "/api/events", json.dumps(events[k]),
                                         {"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
                            response = conn.getresponse()
                            response.read()
                            ok = response.status == 201
                        except (OSError, http.client.HTTPException):
                            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                            ok = False
                        requests[0] += 1
                        if ok:
                            posted[k + 1] = t0
                            state["next"] = k + 1
                        else:
                            errors[0] += 1
                        turn.notify_all()
                    time.sleep(max(0.0, t0 + POSTERS / RATE - time.perf_counter()))   # each poster at RATE / 2

            posters = [threading.Thread(target=poster, args=(i,), daemon=True) for i in range(POSTERS)]
            for t in posters:
                t.start()
            for t in posters:
                t.join(seconds + 15)
            time.sleep(1.0)                           # let the last snapshots arrive
            rss = _rss_mb(proc.pid)
        finally:
            proc.terminate()
            proc.wait(10)
    latencies, missing = [], 0
    for k, t0 in posted.items():
        for listener in listeners:
            arrived = [t for n, t in listener.arrived.items() if n >= k]
            if arrived:
                latencies.append((min(arrived) - t0) * 1000.0)
            else:
                missing += 1
    lat = np.array(latencies) if latencies else np.array([float("nan")])
    p95 = float(np.percentile(lat, 95))
    stream_errors = sum(lis.errors for lis in listeners)
    print("# assistant bench serve  (loopback; waitress in its own process)")
    print(f"load              : {LIVE_CLIENTS} live streams, {POSTERS} clients posting in turn, {seconds:.0f} s, "
          f"{len(posted)} events applied ({len(posted) / seconds:.1f}/s), {requests[0]} POSTs")
    print(f"errors            : {errors[0]} failed POSTs, {stream_errors} broken streams, {missing} snapshots never "
          f"received  [target 0: {'met' if errors[0] + stream_errors + missing == 0 else 'MISSED'}]")
    print(f"event -> client   : median {np.median(lat):.1f} ms, p95 {p95:.1f} ms, max {lat.max():.1f} ms over "
          f"{len(latencies)} deliveries  [target p95 <= {TARGET_P95_MS:.0f} ms: "
          f"{'met' if p95 <= TARGET_P95_MS else 'MISSED'}]")
    print(f"server memory     : {rss:.0f} MB resident at the end")
    return 0
