"""What leaves the engine: the summary of rules §5.4 and the per-seat views.

Scout Pennant has no hidden information on the table. The only secret is the header's list
of future d8 rolls (``setup.rolls``), which no view and no summary carries.
"""

from __future__ import annotations

from typing import Any

from .geometry import FINISH
from .state import SUPPLY_KEYS, State


def _cell(cell) -> list[int]:
    return [cell[0], cell[1]]


def summary(state: State) -> dict[str, Any]:
    """The summary fields of §5.4, in that order.

    Returns
    -------
    dict
        ``result``, ``events``, ``winner``, ``finishing_order``, ``game_over``, ``to_move``,
        ``roll``, ``players`` (per seat: ``seat``, ``colour``, ``base``, ``on_board``,
        ``patrols`` as ``[q, r]`` lists sorted by ``q`` then ``r``, ``pennant``, ``finished``),
        ``board`` (``clearings``, ``forests``, ``arrows``, ``empty``) and, only when the header
        gave ``supply``, ``supply`` (pieces left, ``None`` for unlimited).
    """
    cfg = state.cfg
    forests = len(state.pre)
    out: dict[str, Any] = {
        "result": state.result,
        "events": state.events,
        "winner": state.winner,
        "finishing_order": list(state.finishing_order),
        "game_over": state.game_over,
        "to_move": state.to_move,
        "roll": state.roll,
        "players": [{"seat": s, "colour": cfg.colours[s], "base": state.base(s), "on_board": state.on_board[s],
                     "patrols": [_cell(c) for c in state.patrols_of(s)], "pennant": s in state.pennants,
                     "finished": state.finished(s)} for s in range(cfg.n)],
        "board": {"clearings": len(state.kinds) - forests, "forests": forests, "arrows": state.arrows,
                  "empty": state.empty_count()},
    }
    if cfg.supply is not None:
        out["supply"] = dict(zip(SUPPLY_KEYS, state.supply))
    return out


def board(state: State) -> dict[str, Any]:
    """The whole board (§2.3, §4.1) as JSON-ready data: ``finish``, ``starts`` (per seat), ``clearings``
    (built ones, sorted), ``forests`` (each ``{"cell", "inputs", "outputs"}`` in direction
    order), ``arrows`` (``{"from", "to"}``) and ``patrols`` (``{"seat", "cell"}``); cells as
    ``[q, r]`` lists."""
    fixed = {FINISH, *state.cfg.starts}
    return {
        "finish": _cell(FINISH),
        "starts": [_cell(c) for c in state.cfg.starts],
        "clearings": [_cell(c) for c in state.clearings() if c not in fixed],
        "forests": [{"cell": _cell(f), "inputs": [_cell(c) for c in state.pre[f]],
                     "outputs": [_cell(c) for c in state.post[f]]} for f in state.forests()],
        "arrows": [{"from": _cell(a), "to": _cell(b)} for a, b in state.arrow_list()],
        "patrols": [{"seat": s, "cell": _cell(c)} for c, s in sorted(state.patrols.items())],
    }


def view(state: State, seat: int | None) -> dict[str, Any]:
    """What ``seat`` may know; ``None`` is the public table (the referee tablet); §5.4 plus the board.

    Parameters
    ----------
    state : State
    seat : int or None

    Returns
    -------
    dict
        The summary fields plus ``radius``, ``variant``, ``pawns_per_player``,
        ``first_player``, ``rulings``, ``rolls_made`` and the ``layout`` of :func:`board`;
        for a seat also ``seat``. Never the header's future ``rolls``.

    Raises
    ------
    ValueError
        For a seat that does not play.
    """
    cfg = state.cfg
    if seat is not None and not 0 <= seat < cfg.n:
        raise ValueError(f"seat {seat} does not play; seats are 0 to {cfg.n - 1}")
    out = summary(state)
    out.update({
        "radius": cfg.radius,
        "variant": cfg.variant,
        "pawns_per_player": cfg.pawns,
        "first_player": cfg.first_player,
        "rulings": dict(cfg.rulings),
        "rolls_made": state.rolls_made,
        "layout": board(state),
    })
    if seat is not None:
        out["seat"] = seat
    return out
