"""The Discovery Island data files: validators name the first problem (line, field, rule), the
shipped defaults and example island are exactly the rules file's, generated islands are valid."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from assistant.games.discovery_island.data import (DataError, load_bundle, read_equipment, read_events, read_tiles,
                                                   tile_counts)
from assistant.games.discovery_island.generator import generate_island
from assistant.games.discovery_island.geometry import to_axial
from assistant.games.discovery_island.island import load_map, read_map, write_map

RULES = Path(__file__).resolve().parents[3] / "shared" / "rules" / "discovery-island.md"
DEFAULT = Path(__file__).resolve().parents[2] / "assistant" / "games" / "discovery_island" / "data" / "default"


def small_map(rows: list[str], labels: dict[tuple[int, int], tuple[str, str]], fragment=True) -> str:
    """A map.csv from a picture (``~ojmwb``) and (col,row) -> (feature, label); the hex
    (col, row) is on file line 3 + row * width + col (after the comment and the header)."""
    names = {"~": "sea", "o": "open", "j": "jungle", "m": "mountain", "w": "wetland", "b": "bush"}
    out = ["# fragment"] if fragment else []
    out.append("col,row,terrain,feature,label")
    for r, line in enumerate(rows):
        for c, ch in enumerate(line):
            feature, label = labels.get((c, r), ("none", ""))
            out.append(f"{c},{r},{names[ch]},{feature},{label}")
    return "\n".join(out) + "\n"


GOOD = ["~~~~~", "~oj~~", "~jmw~", "~~~~~"]


def test_a_small_fragment_is_valid():
    island = read_map(small_map(GOOD, {(2, 2): ("checkpoint", "A1")}))
    assert (island.width, island.height, len(island.land)) == (5, 4, 5)


@pytest.mark.parametrize("text,line,field,rule", [
    (small_map(GOOD, {}).replace("col,row,terrain,feature,label", "col,row,terrain,label"), 2, None, "header"),
    (small_map(GOOD, {}).replace("1,1,open", "1,1,lava"), 9, "terrain", "M1"),
    (small_map(GOOD, {}) + "1,1,open,none,\n", 23, "col", "M1"),
    (small_map(["~o~~~", "~oj~~", "~jmw~", "~~~~~"], {}), 4, "terrain", "M2"),
    (small_map(GOOD, {(0, 0): ("cave", "C1")}), 3, "feature", "M3"),
    (small_map(GOOD, {(1, 1): ("cave", "A1")}), 9, "label", "M3"),
    (small_map(GOOD, {(1, 1): ("checkpoint", "")}), 9, "label", "M3"),
    (small_map(["~~~~~~", "~o~~j~", "~o~~j~", "~~~~~~"], {}), 13, None, "M6"),
])
def test_map_validator_names_line_field_and_rule(text, line, field, rule):
    with pytest.raises(DataError) as err:
        read_map(text, "m.csv")
    e = err.value
    assert e.code == "map_invalid" and (e.line, e.field) == (line, field)
    assert rule == "header" or e.why.startswith(rule)


def test_a_full_map_needs_all_36_labels():
    with pytest.raises(DataError) as err:
        read_map(small_map(GOOD, {(2, 2): ("checkpoint", "A1")}, fragment=False))
    assert err.value.why.startswith("M4 label A2 is missing")


def test_default_bundle_matches_the_rules_tables():
    bundle = load_bundle("default")
    assert sum(bundle.tiles.values()) == 210 and len(bundle.tiles) == 43
    assert tile_counts(bundle) == Counter({"jungle": 56, "open": 44, "mountain": 36, "bush": 36, "wetland": 34, "-": 4})
    assert sum(c.cost for c in bundle.cards.values()) == 54 and len(bundle.cards) == 9
    assert bundle.events["snakebite"].effect == ("skip", 2) and not bundle.events["storm"].preventable
    assert bundle.cards["compass"].prevents_lost and bundle.cards["first_aid_kit"].protects == {"fall", "sprain", "snakebite"}
    assert sum(n for (t, _p, m), n in bundle.tiles.items() if m.startswith("event:")) == 22
    assert sum(n for (t, _p, m), n in bundle.tiles.items() if m == "shortcut") == 9


@pytest.mark.parametrize("mutate,field,rule", [
    (lambda t: t.replace("open,1,none,12", "open,1,none,13"), "count", "T1"),
    (lambda t: t.replace("open,2,none,16", "open,1,none,16"), None, "T2"),
    (lambda t: t.replace("jungle,4,none,13", "jungle,5,none,13"), "points", "T3"),
    (lambda t: t.replace("event:storm", "event:volcano", 1), "mark", "T4"),
    (lambda t: t.replace("-,4,cache,2", "-,5,cache,2"), "points", "T5"),
])
def test_tile_validator_rules(mutate, field, rule):
    events = read_events((DEFAULT / "events.csv").read_text())
    with pytest.raises(DataError) as err:
        read_tiles(mutate((DEFAULT / "tiles.csv").read_text()), events)
    assert err.value.field == field and err.value.why.startswith(rule)


def test_equipment_validator_rules():
    events = read_events((DEFAULT / "events.csv").read_text())
    text = (DEFAULT / "equipment.csv").read_text()
    with pytest.raises(DataError) as err:
        read_equipment(text.replace("rope,6,fall", "rope,6,avalanche"), events)
    assert (err.value.line, err.value.field) == (4, "protects") and err.value.why.startswith("E2")
    with pytest.raises(DataError) as err:
        read_equipment(text.replace("compass,8,,", "compass,8,lost,"), events)
    assert err.value.why.startswith("E2 lost is a lost event")
    with pytest.raises(DataError) as err:
        read_equipment(text + "rope,3,fall,mountain:1,1,no\n", events)
    assert err.value.field == "name" and "twice" in err.value.why


def test_events_validator():
    with pytest.raises(DataError) as err:
        read_events("kind,effect,preventable\nfall,skip:0,yes\n")
    assert (err.value.line, err.value.field) == (2, "effect")


@pytest.mark.skipif(not RULES.exists(), reason="needs shared/rules/discovery-island.md beside the repository")
def test_the_shipped_example_island_is_the_rules_files_island():
    section = RULES.read_text()
    section = section[section.index("### 4.5"):section.index("## 5. Rules")]
    art, table = re.findall(r"```\n(.*?)```", section, re.S)[:2]
    names = {"~": "sea", "o": "open", "j": "jungle", "m": "mountain", "w": "wetland", "b": "bush"}
    labels = {(int(c), int(r)): (lab, feat) for lab, c, r, feat in re.findall(r"([A-F]\d)\s+(\d+),(\d+)\s+(\w+)", table)}
    island = load_map("example")
    rows = [m.group(2) for m in map(re.compile(r"^\s*(\d+)\s+([~ojmwbOJMWB]+)$").match, art.splitlines()) if m]
    assert (island.width, island.height) == (30, 22) and len(island.land) == 399
    for row, line in enumerate(rows):
        for col, ch in enumerate(line):
            info = island.info(to_axial(col, row))
            assert info.terrain == names[ch.lower()]
            assert (info.label, info.feature) == (labels[(col, row)] if ch.isupper() else ("", "none"))
    shipped = (DEFAULT.parent / "maps" / "example.csv").read_text()
    assert shipped.count("\n") == 661 and shipped == write_map(island)


@pytest.mark.parametrize("land,seed", [(60, 0), (399, 1), (1000, 2), (1000, 3), (2500, 4)])
def test_generated_islands_are_valid_and_reproducible(land, seed):
    island = generate_island(land, seed)
    assert len(island.land) == land
    assert sorted(island.labels) == sorted(load_map("example").labels)
    again = generate_island(land, seed)
    assert write_map(again) == write_map(island)
    assert read_map(write_map(island)).labels == island.labels


def test_generator_refuses_tiny_islands():
    with pytest.raises(ValueError):
        generate_island(30)


def test_island_commands(tmp_path):
    import os
    import subprocess
    import sys
    env = {**os.environ, "PYTHONPATH": str(DEFAULT.parents[4])}
    out = tmp_path / "big.csv"
    run = subprocess.run([sys.executable, "-m", "assistant", "island", "generate", "--land", "500", "--seed", "9",
                          "-o", str(out)], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    ok = subprocess.run([sys.executable, "-m", "assistant", "island", "validate", "--map", str(out), "--data", "default"],
                        capture_output=True, text=True, env=env)
    assert ok.returncode == 0 and "500 land" in ok.stdout
    bad = tmp_path / "bad.csv"
    bad.write_text(out.read_text().replace(",sea,", ",lava,", 1))
    fail = subprocess.run([sys.executable, "-m", "assistant", "island", "validate", "--map", str(bad)],
                          capture_output=True, text=True, env=env)
    assert fail.returncode == 2 and fail.stdout == ""
    assert "map_invalid" in fail.stderr and "field terrain" in fail.stderr and "M1" in fail.stderr
