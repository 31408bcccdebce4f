"""What leaves the engine: the referee's summary (§6.5) and the per-seat views (§5).

The summary is the assistant's own knowledge and is what ``assistant check`` prints. A view is
what one seat (or, with ``seat=None``, anyone at the table) may know: face-down tiles show only
their backs unless that seat saw them through a Terrascope, and the storm draw pile shows only
the cards a peek revealed. Views never carry the digital deck order or layout faces the players
have not seen.
"""

from __future__ import annotations

from typing import Any

from .components import SIZE, face_of
from .odds import storm_loss
from .state import State
from .tiles import p_face, table_knowledge


def _cells(cells) -> list[list[int]]:
    return [list(c) for c in sorted(cells)]


def _parts_placed(state: State) -> dict[str, list[int]]:
    placed = {part: list(state.storm) for part in state.parked}
    for slot, parts in enumerate(state.parts_on):
        for part in parts:
            placed[part] = list(state.cell_of[slot])
    return dict(sorted(placed.items()))


def _tiles(state: State, knows) -> list[list[str | None]]:
    grid: list[list[str | None]] = [[None] * SIZE for _ in range(SIZE)]
    for (r, c), slot in state.tile_cells():
        grid[r][c] = knows(slot) or state.cfg.backs[slot]
    return grid


def summary(state: State) -> dict[str, Any]:
    """The summary fields of §6.5, from the assistant's knowledge.

    Returns
    -------
    dict
        ``result``, ``events``, ``turn``, ``phase``, ``actions_left``, ``to_draw``, ``storm``,
        ``meter``, ``sand_supply``, ``sand``, ``water``, ``pawns``, ``hands``, ``parts_held``,
        ``parts_placed``, ``excavated``, ``tiles``; cells as ``[row, col]`` lists.
    """
    return {
        "result": state.result,
        "events": state.events,
        "turn": state.active,
        "phase": state.phase,
        "actions_left": state.actions_left,
        "to_draw": state.to_draw if state.phase == "storm" else 0,
        "storm": list(state.storm),
        "meter": state.meter,
        "sand_supply": state.supply,
        "sand": [[r, c, state.sand[s]] for (r, c), s in state.tile_cells() if state.sand[s] > 0],
        "water": list(state.water),
        "pawns": [list(state.cell_of_seat(s)) for s in range(state.cfg.n)],
        "hands": [list(h) for h in state.hands],
        "parts_held": sorted(state.parts_held),
        "parts_placed": _parts_placed(state),
        "excavated": [list(cell) for cell, s in state.tile_cells() if state.excavated[s]],
        "tiles": _tiles(state, lambda slot: state.ident[slot]),
    }


def face_odds(state: State, seat: int | None = None) -> dict[str, list[list[float | None]]]:
    """Per cell, the chance a face-down tile is the launch pad, and that it is a well (§5.4).

    Parameters
    ----------
    state : State
    seat : int or None
        The observer; ``None`` is the table (excavated faces only).

    Returns
    -------
    dict
        ``{"launch_pad": grid, "well": grid}`` with 5x5 grids of probabilities in 0..1,
        ``None`` at the storm and on face-up tiles.
    """
    knows = table_knowledge(state, seat)
    out = {}
    for face in ("launch_pad", "well"):
        grid: list[list[float | None]] = [[None] * SIZE for _ in range(SIZE)]
        for (r, c), slot in state.tile_cells():
            if not state.excavated[slot]:
                grid[r][c] = float(p_face(state, slot, face, knows))
        out[face] = grid
    return out


def view(state: State, seat: int | None) -> dict[str, Any]:
    """What ``seat`` may know; ``None`` is the public table (the referee tablet).

    Returns
    -------
    dict
        The summary fields with ``tiles`` as that observer sees them (faces such as ``well``,
        ``gear``, ``clue_engine_row`` for known tiles, back classes for the rest), plus ``players``,
        ``difficulty``, ``draw_count``, ``skull``, ``storm_discard``, ``storm_pile``
        (size and the peeked cards, top first, ``None`` for unseen), ``shields``,
        ``face_odds`` and, for a seat, ``seat`` and ``adventurer``.
    """
    knows = table_knowledge(state, seat)
    out = summary(state)
    # Faces, not numbered ids: the number of an excavated well_2 or gear_5 depends on the order
    # the engine learned other faces (layout, other seats' Terrascopes), which is hidden.
    out["tiles"] = _tiles(state, lambda slot: face_of(knows(slot)) if knows(slot) else None)
    out.update({
        "players": list(state.cfg.players),
        "difficulty": state.cfg.difficulty,
        "draw_count": state.draw_count,
        "skull": len(state.cfg.ladder),
        "storm_discard": list(state.discard) + list(state.set_aside),
        "storm_pile": {"size": len(state.pile),
                       "seen": [card if seen else None for card, seen in zip(state.pile, state.pile_seen)]},
        "shields": sorted(state.shields),
        "face_odds": face_odds(state, seat),
        "storm_loss": storm_loss(state).as_dict(),
    })
    if seat is not None:
        out["seat"] = seat
        out["adventurer"] = state.cfg.players[seat]
    return out

