"""The LedBoard driver against a fake board on a pseudo-terminal running the compiled C core."""

from __future__ import annotations

import time

from assistant.leds.driver import BLINK_PERIOD_S, LedBoard
from assistant.leds.layout import load_layout

GREEN, BLACK = (0, 255, 0), (0, 0, 0)


def board_for(fake, **kw):
    opts = dict(identify_timeout_s=2.0, backoff_s=(0.05, 0.4), keepalive_s=0.3)
    opts.update(kw)
    return LedBoard(load_layout("forbidden-desert"), port=str(fake.link), **opts)


def test_identifies_and_frames_are_applied_and_acknowledged(fake_board):
    with board_for(fake_board) as board:
        assert board.wait_until(lambda b: b.connected, 5), board.status
        assert board.identity == "tabletop-leds 1.0.0, up to 64 LEDs"
        assert "connected to" in board.status and "tabletop-leds" in board.status
        board.show({(0, 1): "green", "card": ("#0000ff", "solid")})
        assert fake_board.wait_frames(lambda fr: any(f[1] == GREEN and f[25] == (0, 0, 255) for f in fr), 5)
        shown = [f for f in fake_board.frames if f[1] == GREEN][-1]
        assert shown[:26].count(BLACK) == 24 and shown[26:] == [BLACK] * 38
        assert board.wait_until(lambda b: b.acks >= 2, 5)
        assert board.device_errors == []


def test_unchanged_frame_is_resent_at_least_once_a_second(fake_board):
    with board_for(fake_board, keepalive_s=0.5) as board:
        board.show({(4, 4): "white"})
        assert board.wait_until(lambda b: b.acks >= 1, 5)
        start_acks, t0 = board.acks, time.monotonic()
        assert board.wait_until(lambda b: b.acks >= start_acks + 3, 5)
        elapsed = time.monotonic() - t0
        assert elapsed < 3 * 1.0, f"3 resends took {elapsed:.2f} s"     # >= 1 per second


def test_blink_is_animated_by_the_host(fake_board):
    with board_for(fake_board) as board:
        board.show({(2, 2): ("green", "blink")})
        # on, then off, then on again: the fake shows alternate between lit and dark
        def toggles(frames):
            states = [f[12] == GREEN for f in frames if f[12] in (GREEN, BLACK)]
            changes = sum(1 for a, b in zip(states, states[1:]) if a != b)
            return changes >= 3
        assert fake_board.wait_frames(toggles, 4 * BLINK_PERIOD_S + 2)


def test_unplug_is_reported_and_replug_reconnects_with_backoff(fake_board):
    board = board_for(fake_board).start()
    try:
        board.show({(0, 0): "green"})
        assert board.wait_until(lambda b: b.acks >= 1, 5)
        fake_board.unplug()                    # reader stopped first, then the pty closed
        assert board.wait_until(lambda b: not b.connected, 5)
        assert board.status.startswith("LED board unplugged from")
        assert board.unplugs == 1
        # while unplugged the thread keeps retrying, each wait twice the last (capped at 0.4 s)
        assert board.wait_until(lambda b: len(b.retry_delays) >= 4, 5)
        assert board.retry_delays[:4] == [0.05, 0.1, 0.2, 0.4]
        assert "no LED board on" in board.status and "retrying in" in board.status
        board.show({(0, 0): "red"})            # the assistant keeps working meanwhile
        fake_board.plug()
        assert board.wait_until(lambda b: b.connected, 5), board.status
        assert board.connects == 2
        assert fake_board.wait_frames(lambda fr: any(f[0] == (255, 0, 0) for f in fr), 5)
    finally:
        board.stop()
    assert board.status == "stopped"


def test_no_board_on_a_missing_port_keeps_retrying(tmp_path):
    board = LedBoard(load_layout("forbidden-desert"), port=str(tmp_path / "nothing"), backoff_s=(0.02, 0.08))
    with board:
        assert board.wait_until(lambda b: len(b.retry_delays) >= 3, 5)
        assert not board.connected and "no LED board on" in board.status
    assert board.retry_delays[:3] == [0.02, 0.04, 0.08]


