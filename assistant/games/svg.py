"""A few helpers for the board drawings each game makes for the referee's tablet (its
``board_svg``): SVG elements as strings, the Okabe-Ito colour-blind-safe palette, hexagons.

Okabe & Ito (2008), "Color Universal Design": eight colours that stay apart for the common
colour-vision deficiencies. Every colour in a drawing also comes with a second cue (a letter,
a shape or a label), so nothing is told by colour alone.
"""

from __future__ import annotations

import math
from html import escape
from typing import Iterable

#: Okabe-Ito palette by name, hex RGB.
OKABE_ITO = {"black": "#000000", "orange": "#E69F00", "sky_blue": "#56B4E9", "bluish_green": "#009E73",
             "yellow": "#F0E442", "blue": "#0072B2", "vermillion": "#D55E00", "reddish_purple": "#CC79A7"}


def attrs(**kw) -> str:
    """Keyword arguments as SVG attributes (``stroke_width`` -> ``stroke-width``), escaped."""
    return " ".join(f'{k.rstrip("_").replace("_", "-")}="{escape(str(v), quote=True)}"'
                    for k, v in kw.items() if v is not None)


def el(tag: str, body: str = "", **kw) -> str:
    """One SVG element: ``<tag attrs>body</tag>`` (self-closed when ``body`` is empty)."""
    return f"<{tag} {attrs(**kw)}>{body}</{tag}>" if body else f"<{tag} {attrs(**kw)}/>"


def text(x: float, y: float, words: str, size: float = 12, **kw) -> str:
    """A centred text label at (x, y) in drawing units; ``words`` is escaped."""
    return el("text", escape(words), x=f"{x:.1f}", y=f"{y:.1f}", font_size=size, text_anchor="middle",
              dominant_baseline="central", font_family="sans-serif", **kw)


def document(width: float, height: float, parts: Iterable[str], title: str) -> str:
    """An SVG document of ``width`` x ``height`` drawing units that scales to its box, with an
    accessible ``title``."""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.0f} {height:.0f}" role="img">'
            f"<title>{escape(title)}</title>{''.join(parts)}</svg>")


def flat_hex(cx: float, cy: float, r: float) -> str:
    """The ``points`` attribute of a flat-topped hexagon of circumradius ``r`` centred at (cx, cy)."""
    return " ".join(f"{cx + r * math.cos(math.pi / 3 * k):.1f},{cy + r * math.sin(math.pi / 3 * k):.1f}"
                    for k in range(6))
