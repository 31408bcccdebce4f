"""The LED board driver: a background thread that keeps a serial LED board showing the cells.

>>> from assistant.leds.layout import load_layout
>>> board = LedBoard(load_layout("forbidden-desert"), port="loop://", identify_timeout_s=0.1)
>>> _ = board.start(); board.show({(2, 3): ("green", "blink"), "card": ("amber", "solid")})
>>> board.wait_until(lambda b: b.frames_sent >= 1, timeout=5)
True
>>> board.stop(); board.status
'stopped'

Adalight and WLED hold no state of their own (WLED drops streamed frames after 2.5 s, stock
Adalight sketches blank after a while), so the thread renders the frame itself - blinking and
pulsing included - sends it whenever it changes and resends it at least every ``keepalive_s``.
A read or write error means the board was unplugged: the port is closed, :attr:`status` says
so, and the thread reopens it (re-discovering it by USB id when no port was given) with an
exponential back-off. The rest of the assistant never waits on the board.
"""

from __future__ import annotations

import math
import threading
import time
from typing import Callable, Iterable, Mapping

import serial
from serial.tools import list_ports

from . import adalight, wled
from .layout import CellKey, Layout

#: (vendor id, product id or None for any) of USB serial chips LED controllers commonly use:
#: Arduino, Arduino.org, WCH CH340, Silicon Labs CP210x, FTDI FT232R, Espressif native USB.
DEFAULT_USB_IDS: tuple[tuple[int, int | None], ...] = (
    (0x2341, None), (0x2A03, None), (0x1A86, 0x7523), (0x10C4, 0xEA60), (0x0403, 0x6001), (0x303A, None))

COLOURS = {"red": (255, 0, 0), "green": (0, 255, 0), "blue": (0, 0, 255), "white": (255, 255, 255),
           "amber": (255, 150, 0), "yellow": (255, 230, 0), "orange": (255, 90, 0), "cyan": (0, 255, 255),
           "magenta": (255, 0, 255), "purple": (140, 0, 255), "off": (0, 0, 0)}
EFFECTS = ("solid", "blink", "pulse")
BLINK_PERIOD_S = 1.0      #: on for the first half, off for the second
PULSE_PERIOD_S = 1.6      #: brightness 15 % -> 100 % -> 15 %
BACKENDS = ("adalight", "wled")


class BoardNotFound(serial.SerialException):
    """No serial port matched the LED board's USB vendor/product ids."""


def find_port(usb_ids: Iterable[tuple[int, int | None]] = DEFAULT_USB_IDS, ports=None) -> str:
    """The device path of the first serial port whose USB (vendor id, product id) is in
    ``usb_ids`` (a product id of ``None`` matches any product of that vendor).

    ``ports`` is an iterable of :class:`serial.tools.list_ports_common.ListPortInfo`; by default
    ``serial.tools.list_ports.comports()``.

    Raises
    ------
    BoardNotFound
        When no port matches.
    """
    ids = list(usb_ids)
    ports = list(list_ports.comports() if ports is None else ports)
    for p in sorted(ports, key=lambda p: p.device):
        if p.vid is not None and any(p.vid == v and (pid is None or p.pid == pid) for v, pid in ids):
            return p.device
    wanted = ", ".join(f"{v:04x}:{'*' if pid is None else format(pid, '04x')}" for v, pid in ids)
    raise BoardNotFound(f"no serial port with a USB id among {wanted} ({len(ports)} ports seen); "
                        "plug the board in or give --port.")


def parse_colour(colour) -> tuple[int, int, int]:
    """``(r, g, b)`` ints 0..255 from a name in :data:`COLOURS`, ``"#rrggbb"`` or an ``(r, g, b)``.

    Raises
    ------
    ValueError
        For an unknown name, a malformed hex string or channels outside 0..255.
    """
    if isinstance(colour, str):
        text = colour.strip().lower()
        if text in COLOURS:
            return COLOURS[text]
        if len(text) == 7 and text[0] == "#":
            try:
                return int(text[1:3], 16), int(text[3:5], 16), int(text[5:7], 16)
            except ValueError:
                pass
        raise ValueError(f"colour {colour!r} is neither a known name ({', '.join(COLOURS)}) nor '#rrggbb'.")
    try:
        r, g, b = (int(v) for v in colour)
    except (TypeError, ValueError):
        raise ValueError(f"colour {colour!r} is not (r, g, b).") from None
    if not all(0 <= v <= 255 for v in (r, g, b)):
        raise ValueError(f"colour {colour!r} has a channel outside 0..255.")
    return r, g, b


def effect_level(effect: str, t: float) -> float:
    """Brightness factor 0..1 of ``effect`` at ``t`` seconds after the cell was lit:
    ``solid`` 1; ``blink`` 1 for the first half of each :data:`BLINK_PERIOD_S`, else 0;
    ``pulse`` a raised cosine between 0.15 and 1 over :data:`PULSE_PERIOD_S`, starting at 1."""
    if effect == "blink":
        return 1.0 if (t % BLINK_PERIOD_S) < BLINK_PERIOD_S / 2 else 0.0
    if effect == "pulse":
        return 0.15 + 0.85 * (0.5 + 0.5 * math.cos(2 * math.pi * t / PULSE_PERIOD_S))
    return 1.0


def render(layout: Layout, cells: Mapping[CellKey, tuple[tuple[int, int, int], str, float]],
           now: float) -> list[tuple[int, int, int]]:
    """The frame to send: one ``(r, g, b)`` per LED of ``layout`` (unlit LEDs black).

    ``cells`` maps a cell key to ``(rgb, effect, t0)`` where ``t0`` is when it was lit (seconds,
    the clock of ``now``). Every channel is scaled by the effect's level and by
    ``layout.max_brightness`` (the power budget), then rounded down.
    """
    frame = [(0, 0, 0)] * layout.led_count
    cap = layout.max_brightness
    for key, (rgb, effect, t0) in cells.items():
        k = cap * effect_level(effect, now - t0)
        px = (int(rgb[0] * k), int(rgb[1] * k), int(rgb[2] * k))
        for led in layout.cells[key]:
            frame[led] = px
    return frame


class LedBoard:
    """A serial LED board kept in step with the cells to light, from a background thread.

    Parameters
    ----------
    layout : Layout
        Cells -> LEDs and the power budget.
    port : str or None
        Anything ``serial.serial_for_url`` opens (``/dev/ttyUSB0``, ``COM3``, ``loop://``,
        ``socket://host:port``, a pty path); ``None`` finds the board with :func:`find_port`.
    backend : ``"adalight"`` or ``"wled"``
    baudrate : int
    usb_ids : iterable of (vid, pid or None)
        For discovery when ``port`` is ``None``.
    fps : float
        Frames per second while something blinks or pulses.
    keepalive_s : float
        Longest gap between two sends of an unchanged frame, seconds (< 1 for WLED's 2.5 s and
        Adalight's timeouts).
    backoff_s : (float, float)
        First and longest wait between reconnection attempts, seconds; doubles per failure.
    identify_timeout_s : float
        How long to wait for the board's ``ID`` line after opening (an Arduino resets when the
        port opens and greets after its boot, ~2 s); boards that never answer (stock Adalight
        sketches, WLED in Adalight mode) are used anyway.
    write_timeout_s : float
        A write blocked this long counts as an unplugged board.

    Raises
    ------
    ValueError
        For an unknown backend.
    """

    def __init__(self, layout: Layout, port: str | None = None, *, backend: str = "adalight",
                 baudrate: int = 115200, usb_ids: Iterable[tuple[int, int | None]] = DEFAULT_USB_IDS,
                 fps: float = 25.0, keepalive_s: float = 0.5, backoff_s: tuple[float, float] = (0.25, 8.0),
                 identify_timeout_s: float = 2.5, write_timeout_s: float = 1.0):
        if backend not in BACKENDS:
            raise ValueError(f"LED backend must be one of {', '.join(BACKENDS)}, not {backend!r}.")
        self.layout = layout
        self.port = port
        self.backend = backend
        self.baudrate = baudrate
        self.usb_ids = tuple(usb_ids)
        self.fps = fps
        self.keepalive_s = keepalive_s
        self.backoff_s = backoff_s
        self.identify_timeout_s = identify_timeout_s
        self.write_timeout_s = write_timeout_s
        self._encode = adalight.encode_frame if backend == "adalight" else wled.encode_frame
        self._cond = threading.Condition()
        self._cells: dict = {}
        self._generation = 0
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._ser = None
        self._rx = bytearray()
        # Observable state (read freely; changes are announced through wait_until).
        self.status = "not started"
        self.connected = False
        self.device: str | None = None       #: the port in use or last used
        self.identity: str | None = None     #: the board's ID line, WLED's version, or None
        self.frames_sent = 0
        self.acks = 0                        #: "OK n" lines received (tabletop-leds firmware only)
        self.device_errors: list[str] = []   #: "ERR ..." lines received (last 20)
        self.connects = 0
        self.unplugs = 0
        self.retry_delays: list[float] = []  #: every back-off wait, seconds, in order

    # ---- the API used by the rest of the assistant -------------------------------------------

    def show(self, cells: Mapping[CellKey, tuple]) -> None:
        """Light exactly ``cells`` (all others go dark): a mapping of cell key -> ``(colour,
        effect)`` or ``colour``; colour as in :func:`parse_colour`, effect one of
        :data:`EFFECTS` (default ``"solid"``). Returns at once; the thread sends the frame.

        Raises
        ------
        KeyError
            For a cell the layout does not map.
        ValueError
            For a bad colour or an unknown effect.
        """
        now = time.monotonic()
        new = {}
        for key, spec in cells.items():
            self.layout.leds_of(key)
            if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[1], str) and spec[1] in EFFECTS + ("",):
                colour, effect = spec
            elif isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[1], str):
                raise ValueError(f"effect {spec[1]!r} of cell {key!r} is not one of {', '.join(EFFECTS)}.")
            else:
                colour, effect = spec, "solid"
            rgb = parse_colour(colour)
            with self._cond:
                old = self._cells.get(key)
            keep_t0 = old is not None and old[0] == rgb and old[1] == (effect or "solid")
            new[key] = (rgb, effect or "solid", old[2] if keep_t0 else now)
        with self._cond:
            self._cells = new
            self._generation += 1
            self._cond.notify_all()

    def clear(self) -> None:
        """Switch every LED off (the thread keeps sending the dark frame)."""
        self.show({})

    def start(self) -> "LedBoard":
        """Start the background thread (idempotent); returns ``self``. Never blocks on the port."""
        if self._thread is None or not self._thread.is_alive():
            self._stopping = False
            self._thread = threading.Thread(target=self._run, name="led-board", daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the thread, send a dark frame if connected, close the port; waits up to
        ``timeout`` seconds for the thread."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)
        self._set(status="stopped", connected=False)

    def __enter__(self) -> "LedBoard":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def wait_until(self, predicate: Callable[["LedBoard"], bool], timeout: float) -> bool:
        """Block until ``predicate(self)`` is true or ``timeout`` seconds pass; returns whether
        it became true. Re-evaluated whenever the board's state changes."""
        with self._cond:
            return self._cond.wait_for(lambda: predicate(self), timeout)

    def snapshot(self) -> dict:
        """The state for a status panel: ``{"status": str, "connected": bool, "device": str or
        None, "identity": str or None, "frames_sent": int, "acks": int, "unplugs": int}``."""
        with self._cond:
            return {"status": self.status, "connected": self.connected, "device": self.device,
                    "identity": self.identity, "frames_sent": self.frames_sent, "acks": self.acks,
                    "unplugs": self.unplugs}

    # ---- the thread ---------------------------------------------------------------------------

    def _set(self, **changes) -> None:
        with self._cond:
            for k, v in changes.items():
                setattr(self, k, v)
            self._cond.notify_all()

    def _wait(self, seconds: float) -> bool:
        """Sleep up to ``seconds`` unless stopped; returns True when stopping."""
        with self._cond:
            return self._cond.wait_for(lambda: self._stopping, seconds)

    def _run(self) -> None:
        delay = self.backoff_s[0]
        while not self._stopping:
            try:
                self._open()
            except (serial.SerialException, OSError) as exc:
                self._close()
                where = self.port or "USB"
                self._set(status=f"no LED board on {where}: {_reason(exc)}; retrying in {delay:.2g} s",
                          connected=False)
                self.retry_delays.append(delay)
                if self._wait(delay):
                    break
                delay = min(delay * 2, self.backoff_s[1])
                continue
            delay = self.backoff_s[0]
            try:
                self._serve()
            except (serial.SerialException, OSError) as exc:
                self._close()
                with self._cond:
                    self.unplugs += 1
                self._set(status=f"LED board unplugged from {self.device}: {_reason(exc)}; reconnecting",
                          connected=False)
                self.retry_delays.append(delay)
                if self._wait(delay):
                    break
                delay = min(delay * 2, self.backoff_s[1])
        if self._ser is not None:
            try:
                self._ser.write(self._encode([(0, 0, 0)] * self.layout.led_count))
                self._ser.flush()
            except (serial.SerialException, OSError):
                pass
        self._close()

    def _open(self) -> None:
        device = self.port if self.port is not None else find_port(self.usb_ids)
        self._set(device=device)
        self._ser = serial.serial_for_url(device, baudrate=self.baudrate, timeout=0,
                                          write_timeout=self.write_timeout_s)
        self._rx.clear()
        self._identify()
        with self._cond:
            self.connects += 1
        who = self.identity or ("no identify reply: a stock Adalight sketch?" if self.backend == "adalight"
                                else "no version reply")
        self._set(status=f"connected to {device} ({who})", connected=True)

    def _identify(self) -> None:
        request = adalight.identify_request() if self.backend == "adalight" else wled.VERSION_REQUEST
        deadline = time.monotonic() + self.identify_timeout_s
        next_ask = 0.0
        self.identity = None
        while self.identity is None and not self._stopping:
            now = time.monotonic()
            if now >= deadline:
                return
            if now >= next_ask:
                self._ser.write(request)
                next_ask = now + 0.5
            for kind, fields, line in self._replies():
                if kind == "id":
                    self._set(identity=f"{fields['name']} {fields['version']}, up to {fields['max_leds']} LEDs")
                elif self.backend == "wled" and line.strip():
                    self._set(identity=line.strip())
            if self.identity is None and self._wait(0.02):
                return

    def _replies(self):
        """Read what the board sent; returns parsed lines and counts acks and errors."""
        chunk = self._ser.read(4096)
        out = []
        if chunk:
            for line in adalight.iter_lines(self._rx, chunk):
                kind, fields = adalight.parse_reply(line)
                out.append((kind, fields, line))
                if kind == "ok":
                    with self._cond:
                        self.acks += 1
                        self._cond.notify_all()
                elif kind == "error":
                    with self._cond:
                        self.device_errors = (self.device_errors + [line])[-20:]
                        self._cond.notify_all()
        return out

    def _serve(self) -> None:
        last_sent, last_time = None, -math.inf
        while True:
            with self._cond:
                if self._stopping:
                    return
                cells, seen = dict(self._cells), self._generation
            self._replies()
            now = time.monotonic()
            data = self._encode(render(self.layout, cells, now))
            if data != last_sent or now - last_time >= self.keepalive_s:
                self._ser.write(data)
                last_sent, last_time = data, now
                with self._cond:
                    self.frames_sent += 1
                    self._cond.notify_all()
            animated = any(effect != "solid" for _, effect, _ in cells.values())
            wait = min(1.0 / self.fps if animated else 0.05, max(0.0, last_time + self.keepalive_s - now))
            with self._cond:
                self._cond.wait_for(lambda: self._stopping or self._generation != seen, max(wait, 0.005))

    def _close(self) -> None:
        ser, self._ser = self._ser, None
        if ser is not None:
            try:
                ser.close()
            except (serial.SerialException, OSError):
                pass


def _reason(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.rstrip(".")
