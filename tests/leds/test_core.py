"""The firmware's protocol core (firmware/adalight_core.c), compiled with the host C compiler."""

from __future__ import annotations

import random
import subprocess
import time

from assistant.leds.adalight import encode_frame, parse_reply

BLACK = (0, 0, 0)


def frame_of(n, seed=0):
    rnd = random.Random(seed)
    return [(rnd.randrange(256), rnd.randrange(256), rnd.randrange(256)) for _ in range(n)]


def test_greets_with_its_identity_and_starts_blank(make_core):
    core = make_core(max_leds=16)
    assert core.lines() == ["ID tabletop-leds 1.0.0 max=16"]
    assert core.shows == 1 and core.shown() == [BLACK] * 16     # the harness starts the buffer non-black


def test_valid_frame_is_shown_and_acknowledged(make_core):
    core = make_core(max_leds=16)
    core.lines()
    px = frame_of(10)
    core.feed(encode_frame(px))
    assert core.shown() == px + [BLACK] * 6
    assert core.lines() == ["OK 10"]
    assert core.stats()["frames"] == 1


def test_frame_split_into_single_bytes(make_core):
    core = make_core(max_leds=8)
    px = frame_of(8, 1)
    for b in encode_frame(px):
        core.feed(bytes([b]))
    assert core.shown() == px and core.lines()[-1] == "OK 8"


def test_shorter_frame_blanks_the_leds_beyond_it(make_core):
    core = make_core(max_leds=8)
    core.feed(encode_frame(frame_of(8, 2)))
    short = frame_of(3, 3)
    core.feed(encode_frame(short))
    assert core.shown() == short + [BLACK] * 5


def test_wrong_checksum_is_rejected_and_reported(make_core):
    core = make_core(max_leds=8)
    core.lines()
    bad = bytearray(encode_frame(frame_of(4, 4)))
    bad[5] ^= 0x01
    core.feed(bytes(bad))
    assert core.shows == 1                      # only the start-up blank
    assert core.lines() == ["ERR checksum"]
    assert core.stats()["bad_checksum"] == 1
    good = frame_of(4, 5)
    core.feed(encode_frame(good))               # the next header is taken at once
    assert core.shown()[:4] == good and core.lines() == ["OK 4"]


def test_too_many_leds_skips_the_payload_and_keeps_sync(make_core):
    core = make_core(max_leds=8)
    core.lines()
    core.feed(encode_frame(frame_of(20, 6)) + encode_frame(frame_of(2, 7)))
    assert core.lines() == ["ERR too-many 20", "OK 2"]
    assert core.shown()[:2] == frame_of(2, 7) and core.out_of_bounds == 0


def test_resync_on_the_next_header_after_garbage(make_core):
    core = make_core(max_leds=8)
    core.lines()
    garbage = bytes(random.Random(8).choice(b"xyzAd\x00\xff") for _ in range(500)) + b"AAdAda\x99"
    core.feed(garbage)
    core.set_millis(5)
    px = frame_of(5, 9)
    core.feed(b"\x00zz" + encode_frame(px))
    # the garbage ends in a half header ("Ada", count 0x99 0x00, checksum 'z'): the checksum
    # fails, the hunt restarts and the frame right after is taken whole.
    assert core.shown()[:5] == px
    assert core.lines()[-2:] == ["ERR checksum", "OK 5"]
    assert core.stats()["frames"] == 1


def test_truncated_frame_is_abandoned_after_a_quiet_gap(make_core):
    core = make_core(max_leds=8, timeout_ms=10_000)
    core.lines()
    old = frame_of(8, 10)
    core.feed(encode_frame(old))
    cut = encode_frame(frame_of(8, 11))[:15]     # header + 3 LEDs
    core.feed(cut)
    assert core.shown() == old                   # nothing shown from a partial frame
    core.set_millis(99)                          # still within ADA_BYTE_TIMEOUT_MS (100 ms)
    core.poll()
    assert core.stats()["abandoned"] == 0
    core.set_millis(100)
    new = frame_of(6, 12)
    core.feed(encode_frame(new))
    assert core.stats()["abandoned"] == 1
    assert core.shown() == new + [BLACK] * 2     # the partial frame's LEDs 6.. 7 are black again
    assert core.lines() == ["OK 8", "OK 6"]


def test_identify_request_is_answered_and_not_shown(make_core):
    core = make_core(max_leds=300)
    core.lines()
    core.feed(b"Adi")
    assert core.lines() == ["ID tabletop-leds 1.0.0 max=300"]
    kind, fields = parse_reply("ID tabletop-leds 1.0.0 max=300")
    assert kind == "id" and fields["max_leds"] == 300
    assert core.shows == 1 and core.stats()["identifies"] == 1


def test_blanks_after_the_timeout_without_frames(make_core):
    core = make_core(max_leds=4, timeout_ms=3000, start_ms=1000)
    core.lines()
    core.feed(encode_frame(frame_of(4, 13)))
    core.set_millis(3999)
    core.poll()
    assert core.shown() == frame_of(4, 13)
    core.set_millis(4000)
    core.poll()
    assert core.shown() == [BLACK] * 4 and core.lines() == ["OK 4", "BLANK"]
    core.set_millis(9000)
    core.poll()
    assert core.stats()["blanks"] == 1            # blanks once, not at every poll


def test_timeout_survives_the_millis_wrap(make_core):
    start = 2**32 - 1000
    core = make_core(max_leds=4, timeout_ms=3000, start_ms=start)
    core.feed(encode_frame(frame_of(4, 14)))
    core.set_millis(start + 2000)                 # wrapped past zero, 2 s later
    core.poll()
    assert core.shown() == frame_of(4, 14)
    core.set_millis(start + 3000)
    core.poll()
    assert core.shown() == [BLACK] * 4


def test_random_bytes_in_big_buffers_never_write_out_of_bounds(make_core):
    core = make_core(max_leds=32)
    rnd = random.Random(15)
    for i in range(200):
        core.feed(rnd.randbytes(2000))
        core.set_millis(i * 7)
        core.poll()
    assert core.out_of_bounds == 0
    assert all(parse_reply(line)[0] in ("id", "ok", "error", "blank") for line in core.lines())


def test_fuzz_100k_inputs_without_crash_hang_or_broken_invariant(fuzz_binary):
    exe, sanitized = fuzz_binary
    t0 = time.monotonic()
    run = subprocess.run([str(exe), "20240601", "100000", "64"], capture_output=True, text=True, timeout=120)
    elapsed = time.monotonic() - t0
    assert run.returncode == 0, run.stdout + run.stderr
    fields = dict(kv.split("=") for kv in run.stdout.split())
    assert int(fields["inputs"]) == 100_000 and int(fields["checked"]) == 100_000
    # every kind of input was reached
    for name in ("bad_checksum", "too_many", "abandoned", "blanks", "identifies"):
        assert int(fields[name]) > 100, (name, run.stdout)
    print(f"fuzz: {run.stdout.strip()} sanitizers={sanitized} {elapsed:.2f} s")
