"""``assistant replay``: the whole live loop over a filmed game, into its record (issue 16)."""

from __future__ import annotations

import json

import pytest

from assistant.check import check_record
from assistant.cli import main
from assistant.demo.make_pennant import make
from assistant.demo.recording import load_recording
from assistant.records import read_record


@pytest.fixture(scope="module")
def filmed(tmp_path_factory):
    """A short rendered Scout Pennant game (a video, its truth and its tablet entries), with the
    set-up record and the tablet file an owner would write for it."""
    tmp = tmp_path_factory.mktemp("filmed")
    rec = load_recording(make(tmp / "rec", seed=3, moves=3))
    setup = tmp / "setup.jsonl"
    setup.write_text((rec.folder / "truth.jsonl").read_text().splitlines()[0] + "\n")
    tablet = tmp / "tablet.jsonl"
    tablet.write_text("# entered on the tablet\n" + "".join(json.dumps({"frame": f, "event": e}) + "\n" for f, e in rec.tablet))
    return rec, setup, tablet, tmp


def test_replay_writes_the_record_of_the_filmed_game(filmed, capsys):
    rec, setup, tablet, tmp = filmed
    out = tmp / "game.jsonl"
    code = main(["replay", str(rec.video), "--game", "scout-pennant", "--setup", str(setup), "--tablet", str(tablet),
                 "-o", str(out), "--json"])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 0
    summary = lines[-1]["summary"]
    truth = [e.to_json() for _, e in rec.truth.events]
    record = read_record(out)
    assert [e.to_json() for _, e in record.events] == truth          # the record is the game as played
    assert check_record(record).status == 0
    assert summary["events_committed"] + summary["tablet_events"] == len(truth)
    verdicts = lines[:-1]
    assert all({"frame", "t", "verdict"} <= set(v) for v in verdicts)
    committed = [e for v in verdicts if v["verdict"] == "commit" for e in v["events"]]
    assert committed == [e for e in truth if e not in [t for _, t in rec.tablet]]
    # an illegal move acted out on the table is named with the rules' reason code, or asked about
    for bad in rec.illegal:
        assert [v for v in verdicts if v["verdict"] in ("illegal", "ask") and bad["frame"] <= v["frame"] <= bad["frame"] + 90]
    assert all(v["reason"] for v in verdicts if v["verdict"] == "illegal")
    assert all("options" in v for v in verdicts if v["verdict"] == "ask")
    assert summary["frames"] > 100 and summary["record"] == str(out)
    assert not (tmp / "game.jsonl.tokens.json").exists()


def test_replay_prints_one_line_per_stable_change_then_a_summary(filmed, capsys):
    rec, setup, tablet, tmp = filmed
    out = tmp / "text.jsonl"
    assert main(["replay", str(rec.video), "--game", "scout-pennant", "--setup", str(setup), "--tablet", str(tablet),
                 "-o", str(out)]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert any(": committed {" in line for line in printed)
    assert len(printed) - 1 == sum(1 for line in printed[:-1] if line.startswith("frame "))
    assert printed[-1].endswith(f"record {out}") and "frames in" in printed[-1]


def test_replay_says_what_is_wrong_in_one_sentence(filmed, tmp_path, capsys):
    rec, setup, tablet, _ = filmed
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"frame": "soon", "event": {}}\n')
    cases = [
        (["--setup", str(tmp_path / "missing.jsonl")], "cannot read the set-up record"),
        (["--setup", str(setup), "--tablet", str(bad)], "line 1"),
        (["--setup", str(setup), "--game", "forbidden-desert"], "not forbidden-desert"),
    ]
    for extra, message in cases:
        argv = ["replay", str(rec.video), "--game", "scout-pennant", "-o", str(tmp_path / "x.jsonl"), *extra]
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1
    existing = tmp_path / "taken.jsonl"
    existing.write_text("keep me\n")
    assert main(["replay", str(rec.video), "--game", "scout-pennant", "--setup", str(setup), "-o", str(existing)]) == 2
    assert "exists" in capsys.readouterr().err and existing.read_text() == "keep me\n"
    assert main(["replay", str(tmp_path / "nothing.mp4"), "--game", "scout-pennant", "--setup", str(setup),
                 "-o", str(tmp_path / "y.jsonl")]) == 2
    assert "neither a video file nor an image folder" in capsys.readouterr().err
