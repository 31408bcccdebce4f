"""The LED board during a session: legal targets and notices become lit cells, read back as
Adalight frames on the far side of a ``socket://`` port; the board's status reaches the views."""

from __future__ import annotations

import random
import socket
import threading

from assistant.games.forbidden_desert.simulate import random_setup
from assistant.leds import adalight
from assistant.leds.driver import LedBoard
from assistant.leds.layout import load_layout
from assistant.referee.session import Session
from assistant.server.leds import NOTICE_LIGHT, TARGET_LIGHT, LedView, lights


class FarSide:
    """A TCP peer that keeps every Adalight frame it receives."""

    def __init__(self):
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.data = bytearray()
        self.lock = threading.Condition()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        conn, _ = self.server.accept()
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                return
            with self.lock:
                self.data.extend(chunk)
                self.lock.notify_all()

    def wait_for(self, predicate, timeout=5.0):
        """The newest frame once ``predicate(frame)`` holds for it, else ``None`` after ``timeout``."""
        found = []

        def ready():
            frames = adalight.decode_frames(bytes(self.data))
            if frames and predicate(frames[-1]):
                found.append(frames[-1])
                return True
            return False

        with self.lock:
            self.lock.wait_for(ready, timeout)
        return found[0] if found else None


def led(layout, cell):
    return layout.leds_of(cell)[0]


def test_targets_and_an_illegal_move_light_the_board(tmp_path):
    s = Session.start("forbidden-desert", random_setup(random.Random(5), n_players=2), None, tmp_path / "fd.jsonl")
    layout = load_layout("forbidden-desert")
    expected = lights(s, set(layout.cells))
    mover = s.game.to_move(s.state)
    targets = {tuple(e["to"]) for e in s.game.legal_events(s.state) if e.type == "move" and e.actor == mover}
    assert targets and all(expected[t] == TARGET_LIGHT for t in targets)
    far = FarSide()
    board = LedBoard(layout, port=f"socket://127.0.0.1:{far.port}", identify_timeout_s=0.1).start()
    view = LedView(s, board).start()
    try:
        yellow = (0xF0, 0xE4, 0x42)
        frame = far.wait_for(lambda f: all(f[led(layout, t)] == yellow for t in targets))
        assert frame is not None
        dark = [i for key, leds in layout.cells.items() if key not in expected for i in leds]
        assert all(frame[i] == (0, 0, 0) for i in dark)
        s.notify("illegal", "That tile cannot slide there.", [[0, 4]], "blocked")
        vermillion = (0xD5, 0x5E, 0x00)
        assert far.wait_for(lambda f: f[led(layout, (0, 4))] == vermillion) is not None   # blinks: seen lit
        assert NOTICE_LIGHT["illegal"][1] == "blink"
        assert "LED board" in s.snapshot("referee")["devices"]
    finally:
        view.stop()
        board.stop()


def test_under_an_island_map_the_walkers_possible_positions_glow(tmp_path, island_pair):
    from assistant.games.discovery_island.geometry import to_offset
    from assistant.games.discovery_island.island import load_map
    from assistant.leds.layout import parse_layout
    from assistant.server.leds import POSSIBLE_LIGHT

    s, _ = island_pair(tmp_path)
    island = load_map("example")
    cells = {f"{c},{r}": [k] for k, (c, r) in enumerate(sorted(to_offset(*h) for h in island.land))}
    layout = parse_layout({"surface": "island", "cells": cells}, "island.toml")
    walker = s.game.to_move(s.state)
    lit = lights(s, set(layout.cells), layout.surface)
    possible = {tuple(c) for c in s.game.view(s.state, walker)["candidates"]}
    assert lit and set(lit) == possible and set(lit.values()) == {POSSIBLE_LIGHT}
    assert lights(s, set(layout.cells), "mat") != lit
    with __import__("pytest").raises(ValueError, match="surface"):
        parse_layout({"surface": "table", "cells": cells}, "bad.toml")
