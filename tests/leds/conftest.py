"""Fixtures for the LED tests: the firmware's C core compiled with the system C compiler, a
ctypes wrapper around it, and a fake LED board on a pseudo-terminal that runs the same core."""

from __future__ import annotations

import ctypes
import os
import select
import shutil
import subprocess
import threading
import time
import tty
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"
HERE = Path(__file__).resolve().parent
CC = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")


def _compile(out: Path, sources: list[Path], extra: list[str]) -> None:
    cmd = [CC, "-std=c99", "-O1", "-g", "-Wall", "-Wextra", "-Werror", f"-I{FIRMWARE}", *extra,
           *map(str, sources), "-o", str(out)]
    subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="session")
def core_lib(tmp_path_factory):
    """The C core + test hardware layer as a ctypes library."""
    if CC is None:
        pytest.skip("no C compiler (cc/gcc/clang) on PATH: the firmware core cannot be built on this host")
    out = tmp_path_factory.mktemp("adalight") / "libadacore.so"
    _compile(out, [FIRMWARE / "adalight_core.c", HERE / "harness.c"], ["-shared", "-fPIC"])
    lib = ctypes.CDLL(str(out))
    p, u8p = ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint8)
    lib.h_new.restype = p
    lib.h_new.argtypes = [ctypes.c_uint16, ctypes.c_uint32, ctypes.c_uint32]
    for name, args, res in [("h_free", [p], None), ("h_feed", [p, ctypes.c_char_p, ctypes.c_size_t], None),
                            ("h_poll", [p], None), ("h_set_millis", [p, ctypes.c_uint32], None),
                            ("h_shows", [p], ctypes.c_uint32), ("h_out_of_bounds", [p], ctypes.c_uint32),
                            ("h_state", [p], ctypes.c_int), ("h_shown", [p, u8p], None),
                            ("h_stats", [p, ctypes.POINTER(ctypes.c_uint32)], None),
                            ("h_take_output", [p, u8p, ctypes.c_size_t], ctypes.c_size_t)]:
        getattr(lib, name).argtypes = args
        getattr(lib, name).restype = res
    return lib


@pytest.fixture(scope="session")
def fuzz_binary(tmp_path_factory):
    """The fuzz loop (tests/leds/fuzz.c) built with the sanitizers when the compiler has them."""
    if CC is None:
        pytest.skip("no C compiler (cc/gcc/clang) on PATH: the firmware core cannot be built on this host")
    out = tmp_path_factory.mktemp("adafuzz") / "fuzz"
    sources = [HERE / "fuzz.c", HERE / "harness.c", FIRMWARE / "adalight_core.c"]
    try:
        _compile(out, sources, ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"])
        sanitized = True
    except subprocess.CalledProcessError:
        _compile(out, sources, [])
        sanitized = False
    return out, sanitized


class Core:
    """One instance of the compiled core with its test hardware layer."""

    STATS = ("frames", "bad_checksum", "too_many", "abandoned", "blanks", "identifies")

    def __init__(self, lib, max_leds: int = 64, timeout_ms: int = 3000, start_ms: int = 0):
        self.lib, self.max_leds = lib, max_leds
        self.h = lib.h_new(max_leds, timeout_ms, start_ms)
        assert self.h, "h_new failed"
        self._rx = bytearray()

    def close(self):
        if self.h:
            self.lib.h_free(self.h)
            self.h = None

    def feed(self, data: bytes):
        self.lib.h_feed(self.h, data, len(data))

    def poll(self):
        self.lib.h_poll(self.h)

    def set_millis(self, ms: int):
        self.lib.h_set_millis(self.h, ms & 0xFFFFFFFF)

    @property
    def shows(self) -> int:
        return self.lib.h_shows(self.h)

    @property
    def out_of_bounds(self) -> int:
        return self.lib.h_out_of_bounds(self.h)

    @property
    def state(self) -> int:
        return self.lib.h_state(self.h)

    def shown(self) -> list[tuple[int, int, int]]:
        buf = (ctypes.c_uint8 * (3 * self.max_leds))()
        self.lib.h_shown(self.h, buf)
        b = bytes(buf)
        return [tuple(b[i:i + 3]) for i in range(0, len(b), 3)]

    def stats(self) -> dict:
        buf = (ctypes.c_uint32 * 6)()
        self.lib.h_stats(self.h, buf)
        return dict(zip(self.STATS, buf))

    def output(self) -> bytes:
        """Bytes the board sent since the last call."""
        buf = (ctypes.c_uint8 * 65536)()
        n = self.lib.h_take_output(self.h, buf, 65536)
        return bytes(buf[:n])

    def lines(self) -> list[str]:
        """Complete reply lines sent since the last call."""
        self._rx += self.output()
        *done, rest = self._rx.split(b"\n")
        self._rx = bytearray(rest)
        return [d.decode() for d in done]


@pytest.fixture
def make_core(core_lib):
    made = []

    def make(**kw) -> Core:
        c = Core(core_lib, **kw)
        made.append(c)
        return c

    yield make
    for c in made:
        c.close()


class FakeBoard:
    """An LED board on a pseudo-terminal: a thread reads the master side, feeds the compiled core
    (millis = real time) and writes the core's replies back. The host opens ``link``, a symlink
    to the slave, like /dev/serial/by-id/...; :meth:`unplug` stops the reader first and then
    closes the pty, :meth:`plug` makes a fresh pty and points ``link`` at it."""

    def __init__(self, lib, link: Path, max_leds: int = 64, timeout_ms: int = 3000):
        self.lib, self.link, self.max_leds, self.timeout_ms = lib, link, max_leds, timeout_ms
        self.core: Core | None = None
        self.applied = threading.Condition()
        self.frames: list[list[tuple[int, int, int]]] = []   # what each show displayed (first N LEDs)
        self._thread = None

    def plug(self):
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        tmp = self.link.with_suffix(".new")
        if tmp.exists() or tmp.is_symlink():
            tmp.unlink()
        tmp.symlink_to(os.ttyname(self.slave))
        os.replace(tmp, self.link)
        self._stop = threading.Event()
        self.core = Core(self.lib, self.max_leds, self.timeout_ms, int(time.monotonic() * 1000))
        self._flush()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _flush(self):
        out = self.core.output()
        if out:
            os.write(self.master, out)

    def _run(self):
        while not self._stop.is_set():
            ready, _, _ = select.select([self.master], [], [], 0.02)
            self.core.set_millis(int(time.monotonic() * 1000))
            shows = self.core.shows
            if ready:
                try:
                    data = os.read(self.master, 4096)
                except OSError:
                    break
                self.core.feed(data)
            self.core.poll()
            if self.core.shows != shows:
                with self.applied:
                    self.frames.append(self.core.shown())
                    self.applied.notify_all()
            try:
                self._flush()
            except OSError:
                break

    def wait_frames(self, predicate, timeout: float) -> bool:
        with self.applied:
            return self.applied.wait_for(lambda: predicate(self.frames), timeout)

    def unplug(self):
        self._stop.set()
        self._thread.join(5)
        os.close(self.master)
        os.close(self.slave)
        self.core.close()
        self.link.unlink()


@pytest.fixture
def fake_board(core_lib, tmp_path):
    board = FakeBoard(core_lib, tmp_path / "ttyLEDS")
    board.plug()
    yield board
    if board._thread is not None and not board._stop.is_set():
        board.unplug()
