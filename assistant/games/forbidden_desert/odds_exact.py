"""The exact storm-phase computation behind :func:`.odds.storm_loss` (rules §5.4 item 3, §3.8).

The phase is a draw of ``k`` cards; each card acts on a small part of the board: the storm cell
and the sand supply (wind, §3.8.2), the storm meter (§3.8.4), and who drinks (§3.8.3). Who drinks
is fixed for the phase except for pawns on an open tunnel under ``blocked_tunnel_shelters:
false``: their shade holds while the tunnel has at most 1 sand, and the tunnel gains a marker per
card that slides it, so such a tunnel is followed cell by cell until it holds 2 (a
:class:`Tunnel`). Every other tile is irrelevant to the loss.

The draw is followed card by card, one level per card due, as a map from *states* (what the
remaining cards can still act on, the unseen cards left, the next slot) to the chance of reaching
them, so that paths reaching the same state are merged (the memo of a recursion, run forwards).
A part of the board is dropped from the state as soon as it can no longer lose the game in the
cards left (the supply holds 3 markers per card left, the meter is further from the skull than
the cards left, every drinker has more water than the cards left, a tunnel needs more cards to
fill and then dry its pawns out than are left), and the cards that only acted on that part are
then counted together as *calm* cards. Dropping a part is exact: the cards left cannot bring it
to a loss, so it never changes the result, and it never comes back later in the draw. A tunnel
that fills is blocked: its pawns drink from then on, so they join the drinkers' least water.

When the last two or three cards all come from one pool of unseen cards, the state is a *leaf*:
every pool reaching a leaf is gathered per board, and their sums are taken at once by
:mod:`.odds_tail` (the loss of the last cards is a polynomial in the pool's counts whose 0/1
coefficients depend only on the board, :func:`_pair_tables`, built for every board at once).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .components import SIZE, STORM_CARDS, VEC, wind_of
from .odds_tail import last_three, last_two

#: card index -> (dr, dc, strength) of a wind card, else None (§1.4, §3.8.2)
_WINDS = tuple((*VEC[w[0]], w[1]) if (w := wind_of(card)) else None for card in STORM_CARDS)
SUN = STORM_CARDS.index("sun_beats_down")
PICKS_UP = STORM_CARDS.index("storm_picks_up")
CALM = len(STORM_CARDS)            #: the pool index of the cards that can no longer matter
WIND_INDEXES = tuple(j for j, w in enumerate(_WINDS) if w)
MAX_WIND = 3                       #: the strongest wind card slides 3 tiles (§1.4)
THIRST, SAND, METER = 0, 1, 2      #: indexes into the (thirst, sand_supply, storm_meter) triple


@dataclass(frozen=True)
class Tunnel:
    """An open tunnel whose shade may end inside the phase (``blocked_tunnel_shelters: false``).

    Attributes
    ----------
    cell : (int, int)
        Where the tunnel lies, ``(row, col)``.
    sand : int
        Its markers now, 0 or 1 (with 2 it is no longer a shade).
    water : int
        The least water among the unshielded pawns on it.
    """

    cell: tuple[int, int]
    sand: int
    water: int


@dataclass(frozen=True)
class Phase:
    """What the players know that a storm phase acts on (rules §5.4).

    Attributes
    ----------
    cards : int
        Cards still to be drawn, 0..6.
    slots : tuple of (str or None)
        The draw pile, top first: a card the players saw there (a peek), or ``None``.
    hidden : tuple of int
        Per :data:`~.components.STORM_CARDS` entry, the copies in the ``None`` slots.
    refill : tuple of int
        Per card, the pile a reshuffle would bring if the slots run out inside the phase (§3.8.1).
    storm : (int, int)
    supply : int
        Sand markers in the supply.
    meter_left : int
        Ticks from the meter to the skull (``len(LADDER[n]) - meter``), at least 1.
    drinkers_water : int or None
        The least water among pawns that drink at every Sun Beats Down; ``None`` when none do.
    tunnels : tuple of Tunnel
        Open tunnels with at most 1 sand that shade pawns for now.
    """

    cards: int
    slots: tuple
    hidden: tuple
    refill: tuple
    storm: tuple[int, int]
    supply: int
    meter_left: int
    drinkers_water: int | None
    tunnels: tuple = ()


def _slide(storm: int, j: int) -> tuple[int, dict[int, int]]:
    """Wind card ``j`` with the storm at cell index ``storm`` (row * 5 + col): the new storm
    cell and ``{old cell: new cell}`` of the tiles that slid (§3.8.2, respite at the edge)."""
    dr, dc, k = _WINDS[j]
    r, c = divmod(storm, SIZE)
    moved = {}
    for _ in range(k):
        sr, sc = r - dr, c - dc
        if not (0 <= sr < SIZE and 0 <= sc < SIZE):
            break
        moved[sr * SIZE + sc] = r * SIZE + c
        r, c = sr, sc
    return r * SIZE + c, moved


_SLIDES = {(s, j): _slide(s, j) for s in range(SIZE * SIZE) for j in WIND_INDEXES}


def _alive(k: int, sand_left, thirst_left, meter_left, tunnels):
    """Drop the parts that cannot lose the game in ``k`` more cards (see the module docstring).

    Tunnels are open ones, ``(cell index, sand, water)`` tuples, sorted."""
    if sand_left is not None and sand_left >= MAX_WIND * k:
        sand_left = None
    if thirst_left is not None and thirst_left >= k:
        thirst_left = None
    if meter_left is not None and meter_left > k:
        meter_left = None
    if tunnels:
        kept = tuple(t for t in tunnels if 2 - t[1] + t[2] < k)
        tunnels = kept if len(kept) < 2 else tuple(sorted(kept))
    return sand_left, thirst_left, meter_left, tunnels


def _calm_mask(board: tuple) -> tuple[bool, ...]:
    """Per card index: ``True`` when that card can no longer change anything that matters on
    ``board`` = (storm, sand_left, thirst_left, meter_left, tunnels)."""
    return _MASKS[board[0] is not None, board[2] is not None or bool(board[4]), board[3] is not None]


_MASKS = {(winds, suns, meter): tuple((j == SUN and not suns) or (j == PICKS_UP and not meter) or
                                      (_WINDS[j] is not None and not winds) for j in range(len(STORM_CARDS)))
          for winds in (False, True) for suns in (False, True) for meter in (False, True)}


_CALM_INDEXES = {mask: tuple(j for j in range(CALM) if mask[j]) for mask in _MASKS.values()}


def _project(pool: tuple, calm: tuple) -> tuple:
    """Move the counts of calm cards into the :data:`CALM` entry."""
    indexes = _CALM_INDEXES[calm]
    extra = sum(map(pool.__getitem__, indexes))
    if not extra:
        return pool
    out = list(pool)
    for j in indexes:
        out[j] = 0
    out[CALM] += extra
    return tuple(out)


def _unknown_run(slot_index: tuple, i: int, k: int) -> int:
    """How many of the next ``k`` slots from ``i`` on are unknown in a row (the pile's end stops it)."""
    run = 0
    while run < k and i + run < len(slot_index) and slot_index[i + run] is None:
        run += 1
    return run


_W = len(STORM_CARDS) + 1
_J = np.arange(_W)
#: per storm cell, the tiles each card index slides (0 for the sun, the meter and calm cards)
_MOVES = {s: np.array([len(_SLIDES[s, j][1]) if (s, j) in _SLIDES else 0 for j in range(_W)])
          for s in range(SIZE * SIZE)}


#: per storm cell, the storm cell after each card index (unchanged for the sun, the meter, calm cards)
_NEXT = np.array([[_SLIDES[s, j][0] if (s, j) in _SLIDES else s for j in range(_W)] for s in range(SIZE * SIZE)])
#: ``[storm cell, j, cell]`` = True when card index j slides the tile at ``cell``
_CARRIED = np.array([[[(s, j) in _SLIDES and c in _SLIDES[s, j][1] for c in range(SIZE * SIZE)]
                      for j in range(_W)] for s in range(SIZE * SIZE)])
_MOVE_TABLE = np.stack([_MOVES[s] for s in range(SIZE * SIZE)])   #: ``_MOVES`` as a (cell, card index) array
_NONE = 99                     #: stands for a part that cannot be lost any more (``None``)


def _pair_tables(boards: list) -> np.ndarray:
    """The pair tables (see :mod:`.odds_tail`) of ``boards`` (``None`` for a board where nothing
    can be lost), as a (len(boards), 3 W + 6, W) float array.

    Per board, ``first[j]`` is the loss card j causes and ``second[j, l]`` the loss l causes after
    j when j causes none (-1 for none): the same as :func:`_effect` for j then for l, taken for
    every board and card at once. With one or two cards left only the supply (against the tiles
    a wind slides), a dry drinker (a pawn whose tunnel j blocked drinks from then on) and the
    meter's last tick can lose."""
    count = len(boards)
    storm, sand, thirst, meter = (np.array([_NONE if b is None or b[i] is None else b[i] for b in boards])
                                  for i in range(4))
    storm[storm == _NONE] = 0                      # no supply and no open tunnel: winds change nothing
    meter[meter == _NONE] = 0
    tunnels = [[(cell, water) for cell, tsand, water in b[4] if tsand] if b else [] for b in boards]
    moves = _MOVE_TABLE[storm]                                                 # (B, W)
    first = np.where(moves > sand[:, None], SAND, -1)
    first[:, SUN] = np.where(thirst == 0, THIRST, -1)
    first[:, PICKS_UP] = np.where(meter == 1, METER, -1)
    second = np.where(_MOVE_TABLE[_NEXT[storm]] > (sand[:, None] - moves)[:, :, None], SAND, -1)
    dry = thirst[:, None] - (_J == SUN)
    for t in range(max(map(len, tunnels))):
        cell = np.array([ts[t][0] if len(ts) > t else 0 for ts in tunnels])
        water = np.array([ts[t][1] if len(ts) > t else _NONE for ts in tunnels])
        dry = np.where(_CARRIED[storm[:, None], _J, cell[:, None]], np.minimum(dry, water[:, None]), dry)
    second[:, :, SUN] = np.where(dry == 0, THIRST, -1)
    second[:, :, PICKS_UP] = np.where(meter[:, None] - (_J == PICKS_UP) == 1, METER, -1)
    second[first >= 0] = -1
    causes = np.arange(3)
    first = (first[:, None, :] == causes[None, :, None]).astype(float)           # (B, 3, W)
    second = (second[:, None] == causes[None, :, None, None]).astype(float)      # (B, 3, W, W)
    both = second + second.transpose(0, 1, 3, 2)      # a quadratic form needs only its symmetric part
    return np.concatenate([both.reshape(count, 3 * _W, _W), first,
                           np.diagonal(second, axis1=2, axis2=3)], axis=1)


def _effect(board: tuple, j: int, k: int):
    """Card ``j`` drawn with ``k`` cards due (this one included) on ``board`` = (storm, sand_left,
    thirst_left, meter_left, tunnels): the loss it causes (an index, or -1) and the board after it,
    with what the remaining ``k - 1`` cards cannot lose dropped (``None`` for the board when nothing
    can be lost any more).

    A tunnel that reaches its second marker is blocked and no longer shades (§3.8.3): its pawns
    drink at every Sun Beats Down from then on, so its water joins ``thirst_left`` (the least water
    among the drinkers), which keeps one board per situation."""
    storm, sl2, th2, me2, tu2 = board
    # a calm card (see _calm_mask) changes nothing that matters: a sun or a meter card finds no
    # part to act on below, and winds are calm exactly when the storm cell is dropped
    if j == SUN:
        if th2 is not None:
            if th2 == 0:
                return THIRST, None
            th2 -= 1
    elif j == PICKS_UP:
        if me2 is not None:
            if me2 == 1:
                return METER, None
            me2 -= 1
    elif j != CALM and storm is not None:
        storm, moved = _SLIDES[storm, j]
        if sl2 is not None:
            if len(moved) > sl2:
                return SAND, None
            sl2 -= len(moved)
        if tu2 and moved:
            kept = []
            for t in tu2:
                if t[0] not in moved:
                    kept.append(t)
                elif t[1] == 0:
                    kept.append((moved[t[0]], 1, t[2]))
                elif th2 is None or t[2] < th2:
                    th2 = t[2]
            tu2 = tuple(kept)
    if k == 1:
        return -1, None
    sl2, th2, me2, tu2 = _alive(k - 1, sl2, th2, me2, tu2)
    if sl2 is None and th2 is None and me2 is None and not tu2:
        return -1, None
    if sl2 is None and not tu2:
        storm = None
    return -1, (storm, sl2, th2, me2, tu2)


def solve(phase: Phase) -> tuple[float, float, float]:
    """The chances that the phase is lost by thirst, by the sand supply and by the meter.

    Parameters
    ----------
    phase : Phase

    Returns
    -------
    (float, float, float)
        ``(thirst, sand_supply, storm_meter)``, each the chance that this is the first loss
        reached; they sum to the chance of losing. Exact up to float rounding.
    """
    slots, n_slots = phase.slots, len(phase.slots)
    slot_index = tuple(None if c is None else STORM_CARDS.index(c) for c in slots)
    refill = tuple(phase.refill) + (0,)
    effects: dict = {}

    def effect(board, j, k):
        key = (board, j, k)
        out = effects.get(key)
        if out is None:
            out = effects[key] = _effect(board, j, k)
        return out

    levels: list[dict] = [{} for _ in range(phase.cards + 1)]   # per cards due: state -> chance
    leaves: dict = {}                                             # (cards, board) -> {pool: chance}
    losses = [0.0, 0.0, 0.0]                                      # per cause, found while drawing

    def reach(k, i, pool, refilled, board, chance):
        """Add ``chance`` to the state with ``k`` cards due, the next from slot ``i`` (or from the
        reshuffled pile), or to a leaf when the last two or three cards all come from ``pool``."""
        if not refilled and i == n_slots:
            if not any(refill):
                return
            i, pool, refilled = 0, _project(refill, _calm_mask(board)), True
        if refilled or slot_index[i] is None:
            if k <= 3:
                total = sum(pool)
                if total == 0:
                    return
                if k >= 2 and total >= k and (refilled or _unknown_run(slot_index, i, k) >= k):
                    group = leaves.setdefault((k, board), {})
                    group[pool] = group.get(pool, 0.0) + chance
                    return
        key = (i, pool, refilled, board)
        level = levels[k]
        level[key] = level.get(key, 0.0) + chance

    def expand(k, i, pool, refilled, board, chance):
        """Draw the next card of a state: each card's loss is added to ``losses``, each board after
        it is reached with its chance."""
        head = None if refilled else slot_index[i]
        mask = _calm_mask(board)
        if head is None:
            total = sum(pool)
            options = [(chance * n / total, j) for j, n in enumerate(pool) if n]
        else:
            options = [(chance, CALM if mask[head] else head)]
        for pr, j in options:
            got = effects.get((board, j, k))
            cause, after = effect(board, j, k) if got is None else got
            if cause >= 0:
                losses[cause] += pr
                continue
            if after is None:
                continue
            pool2 = pool if head is not None else pool[:j] + (pool[j] - 1,) + pool[j + 1:]
            calm = _calm_mask(after)
            if calm is not mask:
                pool2 = _project(pool2, calm)
            reach(k - 1, i + 1, pool2, refilled, after, chance=pr)

    if phase.cards <= 0:
        return 0.0, 0.0, 0.0
    storm = phase.storm[0] * SIZE + phase.storm[1]
    tunnels = tuple((t.cell[0] * SIZE + t.cell[1], t.sand, t.water) for t in phase.tunnels)
    sand_left, thirst_left, meter_left, tunnels = _alive(
        phase.cards, phase.supply, phase.drinkers_water, phase.meter_left, tunnels)
    if sand_left is None and thirst_left is None and meter_left is None and not tunnels:
        return 0.0, 0.0, 0.0
    if sand_left is None and not tunnels:
        storm = None
    board = (storm, sand_left, thirst_left, meter_left, tunnels)
    pool = _project(tuple(phase.hidden) + (0,), _calm_mask(board))
    reach(phase.cards, 0, pool, False, board, 1.0)
    for k in range(phase.cards, 0, -1):
        for (i, pool, refilled, board), chance in levels[k].items():
            expand(k, i, pool, refilled, board, chance)
    out = np.array(losses)
    two = [(board, group) for (k, board), group in leaves.items() if k == 2]
    three = [(board, group) for (k, board), group in leaves.items() if k == 3]
    if not two and not three:
        return float(out[0]), float(out[1]), float(out[2])
    rows = {None: 0}                   # a board with two cards due -> its pair table's row
    firsts = np.full((len(three), _W), -1)
    children = np.zeros((len(three), _W), dtype=int)
    for x, (board, _) in enumerate(three):
        for j in range(_W):
            cause, after = effect(board, j, 3)
            if cause >= 0:
                firsts[x, j] = cause
            elif after is not None:
                children[x, j] = rows.setdefault(after, len(rows))
    two_rows = [rows.setdefault(board, len(rows)) for board, _ in two]
    tables = _pair_tables(list(rows))
    if two:
        out += last_two(tables[two_rows], [group for _, group in two])
    if three:
        first = (firsts[:, None, :] == np.arange(3)[None, :, None]).astype(float)
        out += last_three(first, tables, children, [group for _, group in three])
    return float(out[0]), float(out[1]), float(out[2])
