"""Shared set-ups of the server tests."""

from __future__ import annotations

import json
import os
import random
import shutil
from pathlib import Path

import pytest

from assistant.games.discovery_island.geometry import DIRECTIONS, to_axial, to_offset
from assistant.games.discovery_island.island import load_map
from assistant.games.discovery_island.simulate import random_setup as island_setup
from assistant.referee.session import Session


def _pair(tmp_path, **change):
    """Two Discovery Island sessions that differ only in ``change`` (landing of seat 1, or the
    clue dealt at the checkpoint seat 0 learns), with seat 0 landing next to checkpoint A1."""
    island = load_map("example")
    setup = island_setup(random.Random(11), island)
    cp = island.labels["A1"]
    for name, (dq, dr) in DIRECTIONS.items():
        start = (cp[0] - dq, cp[1] - dr)
        if start in island.featureless_land:
            break
    setup.update(first_player=0, landing=[list(to_offset(*start)), setup["landing"][1]])
    if to_axial(*setup["landing"][1]) == start:
        setup["landing"][1] = list(to_offset(*sorted(island.featureless_land - {start})[0]))
    other = json.loads(json.dumps(setup))
    if "landing" in change:
        other["landing"][1] = change["landing"]
    if "swap_clue" in change:
        deal = other["checkometer"]["checkpoints"]
        deal["A1"], deal[change["swap_clue"]] = deal[change["swap_clue"]], deal["A1"]
    steps = [{"actor": 0, "type": "enter_checkpoint", "dir": name, "label": "A1"},
             {"actor": 0, "type": "learn_clue", "label": "A1"}]
    out = []
    for k, head in enumerate((setup, other)):
        tmp_path.mkdir(exist_ok=True)
        s = Session.start("discovery-island", head, None, tmp_path / f"island{k}.jsonl")
        for ev in steps:
            s.submit(ev, 1)                           # the opponent enters the walker's steps (§6.1)
        out.append(s)
    return out


@pytest.fixture
def island_pair():
    """``island_pair(folder, landing=[col, row] | swap_clue=LABEL)`` -> two sessions."""
    return _pair


#: Debian's Chromium, which Playwright drives in the browser tests
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
#: where browser tests leave their screenshots
ARTIFACTS = Path(os.environ.get("TEST_ARTIFACTS", Path(__file__).resolve().parents[2] / "test-artifacts"))
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--disable-quic"]


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium driven by Playwright (skips without Playwright or Chromium)."""
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (apt-get install chromium; .ci/run does)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the test extras: pip install -e '.[test]'")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        yield b
        b.close()
