"""Adalight frames, and the replies of the ``tabletop-leds`` firmware (see ``firmware/README.md``).

A frame for N LEDs is ``b"Ada"``, ``(N-1) >> 8``, ``(N-1) & 0xFF``, the checksum
``hi ^ lo ^ 0x55``, then R, G, B for each LED:

>>> encode_frame([(255, 0, 0)] * 25)[:6].hex(" ")
'41 64 61 00 18 4d'
"""

from __future__ import annotations

from typing import Iterable, Sequence

MAX_LEDS = 65536
#: The identify request of the tabletop-leds firmware ("Ad" then "i"; never a frame header).
IDENTIFY_REQUEST = b"Adi"


def header(count: int) -> bytes:
    """The 6-byte Adalight header for ``count`` LEDs (1..65536).

    Raises
    ------
    ValueError
        When ``count`` is outside 1..65536.
    """
    if not 1 <= count <= MAX_LEDS:
        raise ValueError(f"an Adalight frame holds 1 to {MAX_LEDS} LEDs, not {count}.")
    hi, lo = (count - 1) >> 8, (count - 1) & 0xFF
    return bytes((0x41, 0x64, 0x61, hi, lo, hi ^ lo ^ 0x55))


def encode_frame(pixels: Sequence[tuple[int, int, int]]) -> bytes:
    """One Adalight frame: the header, then the pixels' R, G, B bytes in LED order.

    ``pixels`` is a sequence of ``(r, g, b)`` ints 0..255, one per LED (at least one).

    Raises
    ------
    ValueError
        When there are no pixels, more than 65536, or a channel is outside 0..255.
    """
    out = bytearray(header(len(pixels)))
    for i, px in enumerate(pixels):
        if len(px) != 3 or not all(0 <= v <= 255 for v in px):
            raise ValueError(f"pixel {i} is {px!r}, not three channel values 0..255.")
        out += bytes(px)
    return bytes(out)


def decode_frames(data: bytes) -> list[list[tuple[int, int, int]]]:
    """Every complete, checksum-valid frame in ``data`` (bytes), in order, as lists of
    ``(r, g, b)``; bytes outside frames and a truncated last frame are skipped. Used by tests and
    diagnostics; the firmware's receiver is ``firmware/adalight_core.c``."""
    frames = []
    i = data.find(b"Ada")
    while i >= 0 and i + 6 <= len(data):
        hi, lo, chk = data[i + 3], data[i + 4], data[i + 5]
        n = (hi << 8 | lo) + 1
        if chk == hi ^ lo ^ 0x55 and i + 6 + 3 * n <= len(data):
            body = data[i + 6:i + 6 + 3 * n]
            frames.append([tuple(body[k:k + 3]) for k in range(0, 3 * n, 3)])
            i = data.find(b"Ada", i + 6 + 3 * n)
        else:
            i = data.find(b"Ada", i + 1)
    return frames


def parse_reply(line: str) -> tuple[str, dict]:
    """Classify one line the tabletop-leds firmware sent (without its newline).

    Returns ``(kind, fields)``: ``("id", {"name", "version", "max_leds"})``,
    ``("ok", {"leds": int})``, ``("error", {"reason": str})``, ``("blank", {})`` or
    ``("other", {"text": line})`` for anything else (a stock Adalight sketch's ``"Ada"``
    greeting, WLED's version string).
    """
    parts = line.strip().split()
    if len(parts) == 4 and parts[0] == "ID" and parts[3].startswith("max=") and parts[3][4:].isdigit():
        return "id", {"name": parts[1], "version": parts[2], "max_leds": int(parts[3][4:])}
    if len(parts) == 2 and parts[0] == "OK" and parts[1].isdigit():
        return "ok", {"leds": int(parts[1])}
    if parts and parts[0] == "ERR":
        return "error", {"reason": " ".join(parts[1:])}
    if parts == ["BLANK"]:
        return "blank", {}
    return "other", {"text": line.strip()}


def identify_request() -> bytes:
    """The bytes that ask tabletop-leds firmware for its ``ID`` line (stock sketches ignore them)."""
    return IDENTIFY_REQUEST


def iter_lines(buffer: bytearray, chunk: bytes) -> Iterable[str]:
    """Append ``chunk`` to ``buffer`` (mutated in place) and yield each complete line in it,
    decoded as ASCII with undecodable bytes replaced; keeps at most 256 bytes of a pending line."""
    buffer += chunk
    while True:
        nl = buffer.find(b"\n")
        if nl < 0:
            break
        line = bytes(buffer[:nl]).decode("ascii", "replace").rstrip("\r")
        del buffer[:nl + 1]
        yield line
    if len(buffer) > 256:
        del buffer[:-256]
