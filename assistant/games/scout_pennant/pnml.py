"""PNML export of the board net and its marking (rules §4.2, ISO/IEC 15909-2, P/T net).

A snapshot for visualisation and analysis tools, not a replay format. The text is written by
hand, element by element, so that the output is byte-for-byte the one §4.2 prescribes
(two-space indentation, attribute order, two-decimal positions).
"""

from __future__ import annotations

import math
from xml.sax.saxutils import escape

from .geometry import FINISH, Cell, direction_index
from .state import State

NAMESPACE = "http://www.pnml.org/version-2009/grammar/pnml"
PTNET = "http://www.pnml.org/version-2009/grammar/ptnet"
TOOL = '<toolspecific tool="scout-pennant" version="1">'
#: hex size of the graphics (§4.2 item 7)
SIZE = 40


def number(n: int) -> str:
    """A coordinate in an id: ``n`` if ``n >= 0``, else ``m|n|`` (§4.2 item 5).

    >>> number(3), number(-2)
    ('3', 'm2')
    """
    return str(n) if n >= 0 else f"m{-n}"


def place_id(cell: Cell) -> str:
    """``c_Q_R``, e.g. ``(1, -2)`` -> ``c_1_m2`` (§4.2 item 5)."""
    return f"c_{number(cell[0])}_{number(cell[1])}"


def transition_id(cell: Cell) -> str:
    """``f_Q_R`` (§4.2 item 5)."""
    return f"f_{number(cell[0])}_{number(cell[1])}"


def position(cell: Cell, radius: int) -> tuple[str, str]:
    """Graphics position of ``cell`` for hex size 40, shifted so that every value is >= 40,
    with exactly two decimals: ``x = 40·(1.5·q + 1.5·R + 1)``, ``y = 40·(√3·(r + q/2 + R) + 1)``
    (§4.2 item 7).

    >>> position((0, 0), 4), position((-4, 4), 4)
    (('280.00', '317.13'), ('40.00', '455.69'))
    """
    q, r = cell
    x = SIZE * (1.5 * q + 1.5 * radius + 1)
    y = SIZE * (math.sqrt(3) * (r + q / 2 + radius) + 1)
    return f"{x:.2f}", f"{y:.2f}"


def _attr(value) -> str:
    """A double-quoted XML attribute value, with ``& < > "`` and line breaks escaped."""
    return '"' + escape(str(value), {'"': "&quot;", "\n": "&#10;", "\r": "&#13;", "\t": "&#9;"}) + '"'


def _bool(value: bool) -> str:
    return "true" if value else "false"


def _place(state: State, cell: Cell) -> list[str]:
    cfg = state.cfg
    q, r = cell
    seat = cfg.start_seat.get(cell)
    if cell == FINISH:
        name, kind = f"finish ({q},{r})", 'kind="finish"'
    elif seat is not None:
        name, kind = f"start {cfg.colours[seat]} ({q},{r})", f'kind="start" seat="{seat}"'
    else:
        name, kind = f"clearing ({q},{r})", 'kind="clearing"'
    x, y = position(cell, cfg.radius)
    lines = [f'      <place id="{place_id(cell)}">',
             f"        <name><text>{escape(name)}</text></name>",
             f'        <graphics><position x="{x}" y="{y}"/></graphics>']
    holder = state.patrols.get(cell)
    tool = f'<cell q="{q}" r="{r}" {kind}/>'
    if holder is not None:
        lines.append("        <initialMarking><text>1</text></initialMarking>")
        tool += f'<patrol seat="{holder}" colour={_attr(cfg.colours[holder])}/>'
    lines += [f"        {TOOL}{tool}</toolspecific>", "      </place>"]
    return lines


def _transition(state: State, cell: Cell) -> list[str]:
    x, y = position(cell, state.cfg.radius)
    return [f'      <transition id="{transition_id(cell)}">',
            f"        <name><text>forest ({cell[0]},{cell[1]})</text></name>",
            f'        <graphics><position x="{x}" y="{y}"/></graphics>',
            "      </transition>"]


def _arcs(state: State, forest: Cell) -> list[str]:
    """The forest's arcs ordered by the direction in which the clearing lies (§4.2 item 4)."""
    ends = [(c, place_id(c), transition_id(forest)) for c in state.pre[forest]]
    ends += [(c, transition_id(forest), place_id(c)) for c in state.post[forest]]
    ends.sort(key=lambda e: direction_index(forest, e[0]))
    return [f'      <arc id="a_{src}_{dst}" source="{src}" target="{dst}"/>' for _c, src, dst in ends]


def to_pnml(state: State) -> str:
    """The PNML document of ``state`` exactly as §4.2 prescribes, newline-terminated.

    Parameters
    ----------
    state : State

    Returns
    -------
    str
        UTF-8 XML text: one ``<net>`` holding the game's ``toolspecific`` data (radius,
        variant, events, ``to_move`` while the game goes on, then one ``<player>`` per seat)
        and one ``<page id="board">`` with places (clearings, sorted by ``q`` then ``r``),
        transitions (forests, same order) and arcs (per forest, by direction). No base
        places, no inscriptions; the future d8 rolls are never written.
    """
    cfg = state.cfg
    to_move = "" if state.game_over or state.to_move is None else f' to_move="{state.to_move}"'
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<pnml xmlns="{NAMESPACE}">',
           f'  <net id="scout-pennant" type="{PTNET}">',
           f"    <name><text>scout-pennant R={cfg.radius} events={state.events}</text></name>",
           f"    {TOOL}",
           f'      <game radius="{cfg.radius}" variant="{cfg.variant}" events="{state.events}"{to_move}/>']
    for s in range(cfg.n):
        out.append(f'      <player seat="{s}" colour={_attr(cfg.colours[s])} base="{state.base(s)}" '
                   f'pennant="{_bool(s in state.pennants)}" finished="{_bool(state.finished(s))}"/>')
    out += ["    </toolspecific>", '    <page id="board">']
    for cell in state.clearings():
        out += _place(state, cell)
    forests = state.forests()
    for cell in forests:
        out += _transition(state, cell)
    for cell in forests:
        out += _arcs(state, cell)
    out += ["    </page>", "  </net>", "</pnml>"]
    return "\n".join(out) + "\n"
