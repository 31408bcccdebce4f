"""WLED's JSON API over its serial port: a second backend for boards running stock WLED.

A frame is one JSON object per line that switches the light on, at full WLED brightness (our
own power cap is already in the colours), with no transition, solid effect on segment 0, and
every LED's colour as a hex string in ``"i"`` (WLED's individual-LED control):

>>> encode_frame([(255, 0, 0), (0, 0, 16)])
b'{"on":true,"bri":255,"tt":0,"seg":{"id":0,"fx":0,"i":["FF0000","000010"]}}\\n'

WLED answers a lone ``v`` with its version line; it sends nothing back per JSON frame.
"""

from __future__ import annotations

import json
from typing import Sequence

VERSION_REQUEST = b"v"


def encode_frame(pixels: Sequence[tuple[int, int, int]]) -> bytes:
    """One WLED JSON state update (bytes, ending in ``\\n``) setting LED ``k`` to ``pixels[k]``.

    ``pixels`` holds ``(r, g, b)`` ints 0..255, at least one.

    Raises
    ------
    ValueError
        When there are no pixels or a channel is outside 0..255.
    """
    if not pixels:
        raise ValueError("a WLED frame needs at least one LED.")
    colours = []
    for i, px in enumerate(pixels):
        if len(px) != 3 or not all(0 <= v <= 255 for v in px):
            raise ValueError(f"pixel {i} is {px!r}, not three channel values 0..255.")
        colours.append("%02X%02X%02X" % tuple(px))
    state = {"on": True, "bri": 255, "tt": 0, "seg": {"id": 0, "fx": 0, "i": colours}}
    return json.dumps(state, separators=(",", ":")).encode("ascii") + b"\n"


def decode_frame(line: bytes) -> list[tuple[int, int, int]]:
    """The pixels of one line made by :func:`encode_frame` (for tests and diagnostics).

    Raises
    ------
    ValueError
        When the line is not such a JSON object.
    """
    try:
        colours = json.loads(line)["seg"]["i"]
        return [(int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)) for c in colours]
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"not a WLED individual-LED frame: {exc}.") from exc
