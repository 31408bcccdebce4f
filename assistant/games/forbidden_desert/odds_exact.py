"""The exact storm-phase recursion behind :func:`.odds.storm_loss` (rules §5.4 item 3, §3.8).

The phase is a draw of ``k`` cards; each card acts on a small part of the board: the storm cell
and the sand supply (wind, §3.8.2), the storm meter (§3.8.4), and who drinks (§3.8.3). Who drinks
is fixed for the phase except for pawns on an open tunnel under ``blocked_tunnel_shelters:
false``: their shade holds while the tunnel has at most 1 sand, and the tunnel gains a marker per
card that slides it, so such a tunnel is followed cell by cell until it holds 2 (a
:class:`Tunnel`). Every other tile is irrelevant to the loss.

The recursion is memoised on what the remaining cards can still act on, and on the unseen cards
left. A part of the board is dropped from the memo key as soon as it can no longer lose the game
in the cards left (the supply holds 3 markers per card left, the meter is further from the skull
than the cards left, every drinker has more water than the cards left, a tunnel needs more cards
to fill and then dry its pawns out than are left), and the cards that only acted on that part are
then counted together as *calm* cards. Dropping a part is exact: the cards left cannot bring it
to a loss, so it never changes the result, and it never comes back lower in the tree.

When the last two or three cards all come from one pool of unseen cards, their sum is taken at
once: drawing j then l from counts ``n`` (``T`` cards) has chance ``n_j (n_l - [j = l]) / (T (T -
1))``, so the loss of the last two cards is a quadratic form in ``n`` whose 0/1 matrices depend
only on the board (:func:`solve`'s ``pairs`` and ``triples`` tables, built once per board).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .components import SIZE, STORM_CARDS, VEC, wind_of

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

    Tunnels are ``(cell or -1 once blocked, sand, water)`` tuples, cells as indexes."""
    if sand_left is not None and sand_left >= MAX_WIND * k:
        sand_left = None
    if thirst_left is not None and thirst_left >= k:
        thirst_left = None
    if meter_left is not None and meter_left > k:
        meter_left = None
    if tunnels:
        tunnels = tuple(sorted(t for t in tunnels if (0 if t[0] < 0 else 2 - t[1]) + t[2] < k))
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
_CAUSES3 = np.arange(3)[:, None]
_NO_PAIRS = (np.zeros((3, _W)), np.zeros((3, _W, _W)), np.zeros((3, _W)))
#: flat indexes, in the stacked products of ``triples``, of the entries [j, c, j]
_ROW_J = (_J[:, None] * 3 * _W + np.arange(3)[None, :] * _W + _J[:, None])


def _three_from_one_pool(first, going, stack, diagonals, n, total):
    """The (thirst, sand, meter) chances of the last three cards, all drawn from the pool ``n``
    (counts per card index, ``total`` cards): per first card j the pool left is ``n - e_j`` and
    the last two cards follow :func:`pairs`' formula, expanded so one matrix product serves all j:
    with ``P = S + S'``, ``(n - e_j)' S (n - e_j) = n' P n / 2 - (P n)_j + S_jj``."""
    w, block = _W, 3 * _W * _W
    v = stack @ n
    p_n = v[:block].reshape(w, 3, w)
    s_diag, f_diag, d_diag = diagonals
    quad = 0.5 * (p_n @ n) - v[_ROW_J] + s_diag
    lin_f = v[block:block + 3 * w].reshape(w, 3) - f_diag
    lin_d = v[block + 3 * w:].reshape(w, 3) - d_diag
    t1 = total - 1
    v2 = lin_f / t1 + (quad - lin_d) / (t1 * (t1 - 1))
    return first @ n / total + (n * going) @ v2 / total


#: per storm cell, the tiles each card index slides (0 for the sun, the meter and calm cards)
_MOVES = {s: np.array([len(_SLIDES[s, j][1]) if (s, j) in _SLIDES else 0 for j in range(_W)])
          for s in range(SIZE * SIZE)}


def _last_card(board: tuple):
    """Per card index, the loss that card causes as the last one drawn (-1 for none): a wind
    that slides more tiles than the supply holds, a sun on a dry drinker, the meter's last tick."""
    storm, sand_left, thirst_left, meter_left, tunnels = board
    out = np.full(_W, -1)
    if sand_left is not None:
        out[_MOVES[storm] > sand_left] = SAND
    if thirst_left == 0 or any(t[0] < 0 and t[2] == 0 for t in tunnels):
        out[SUN] = THIRST
    if meter_left == 1:
        out[PICKS_UP] = METER
    return out


def _effect(board: tuple, j: int, k: int):
    """Card ``j`` drawn with ``k`` cards due (this one included) on ``board`` = (storm, sand_left,
    thirst_left, meter_left, tunnels): the loss it causes (an index, or -1) and the board after it,
    with what the remaining ``k - 1`` cards cannot lose dropped (``None`` for the board when nothing
    can be lost any more)."""
    storm, sl2, th2, me2, tu2 = board
    lost = -1
    if j != CALM and _calm_mask(board)[j]:
        j = CALM
    if j == SUN:
        if th2 is not None:
            lost, th2 = (THIRST, th2) if th2 == 0 else (lost, th2 - 1)
        dried = []
        for t in tu2:
            if t[0] >= 0:
                dried.append(t)
            elif t[2] == 0:
                lost = THIRST
            else:
                dried.append((t[0], t[1], t[2] - 1))
        tu2 = tuple(dried)
    elif j == PICKS_UP:
        if me2 is not None:
            me2 -= 1
            if me2 == 0:
                lost = METER
    elif j != CALM:
        storm, moved = _SLIDES[storm, j]
        if sl2 is not None:
            if len(moved) > sl2:
                lost = SAND
            sl2 -= len(moved)
        if tu2 and moved:
            tu2 = tuple(((moved[t[0]], t[1] + 1, t[2]) if t[1] == 0 else (-1, 2, t[2])) if t[0] in moved else t
                        for t in tu2)
    if lost >= 0 or k == 1:
        return lost, None
    sl2, th2, me2, tu2 = _alive(k - 1, sl2, th2, me2, tu2)
    if sl2 is None and th2 is None and me2 is None and not tu2:
        return -1, None
    if sl2 is None and not any(t[0] >= 0 for t in tu2):
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
    last_two: dict = {}
    last_three: dict = {}
    last: dict = {}
    memo: dict = {}

    def effect(board, j, k):
        key = (board, j, k)
        out = effects.get(key)
        if out is None:
            out = effects[key] = _effect(board, j, k)
        return out

    def last_card(board):
        """Per card index, the loss that card causes as the last one drawn (-1 for none)."""
        out = last.get(board)
        if out is None:
            out = last[board] = _last_card(board)
        return out

    def pairs(board):
        """The last two cards, both from one pool, on ``board``, as arrays over card indexes:
        ``first[c, j]`` = 1 when card j loses by cause c, ``second[c, j, l]`` = 1 when j does not
        and l then loses by c, and ``same[c, j]`` = ``second[c, j, j]``."""
        out = last_two.get(board)
        if out is None:
            lost_first = np.full(_W, -1)
            lost_second = np.full((_W, _W), -1)
            for j in range(_W):
                lost, after = effect(board, j, 2)
                if lost >= 0:
                    lost_first[j] = lost
                elif after is not None:
                    lost_second[j] = last_card(after)
            second = (lost_second[None, :, :] == _CAUSES3[:, :, None]).astype(float)
            out = last_two[board] = ((lost_first[None, :] == _CAUSES3).astype(float), second, second[:, _J, _J])
        return out

    def triples(board):
        """The last three cards, all from one pool, on ``board``: per first card j, its loss
        (``first[c, j]``), whether the draw goes on (``going[j]``), and the :func:`pairs` arrays of
        the board j leaves, stacked over j and flattened so that one product with the pool gives
        every sum :func:`_three_from_one_pool` needs."""
        out = last_three.get(board)
        if out is None:
            lost_first = np.full(_W, -1)
            going = np.zeros(_W)
            children = []
            for j in range(_W):
                lost, after = effect(board, j, 3)
                if lost >= 0:
                    lost_first[j] = lost
                elif after is not None:
                    going[j] = 1.0
                    children.append(pairs(after))
                    continue
                children.append(_NO_PAIRS)
            f2, s2, d2 = (np.stack([c[i] for c in children]) for i in range(3))
            both = s2 + s2.transpose(0, 1, 3, 2)   # a quadratic form needs only its symmetric part
            stack = np.concatenate([both.reshape(-1, _W), f2.reshape(-1, _W), d2.reshape(-1, _W)])
            diagonals = (s2[_J, :, _J, _J], f2[_J, :, _J], d2[_J, :, _J])
            out = last_three[board] = ((lost_first[None, :] == _CAUSES3).astype(float), going, stack, diagonals)
        return out

    def p(k, i, pool, refilled, board):
        key = (k, i, pool, refilled, board)
        got = memo.get(key)
        if got is not None:
            return got
        if not refilled and i == n_slots:
            if not any(refill):
                return 0.0, 0.0, 0.0
            got = p(k, 0, _project(refill, _calm_mask(board)), True, board)
            memo[key] = got
            return got
        head = None if refilled else slot_index[i]
        mask = _calm_mask(board)
        acc = [0.0, 0.0, 0.0]
        if head is None:
            total = sum(pool)
            if total == 0:
                return 0.0, 0.0, 0.0
            run = k if refilled else _unknown_run(slot_index, i, k)
            if run >= k and 2 <= k <= 3 and total >= k:
                # the last k cards all come from this pool: sum over them at once, P(j then l) =
                # n_j (n_l - [j = l]) / (T (T - 1)), and likewise for three
                n = np.array(pool, dtype=float)
                if k == 2:
                    first, second, same = pairs(board)
                    parts = first @ n / total + ((second @ n) @ n - same @ n) / (total * (total - 1))
                else:
                    parts = _three_from_one_pool(*triples(board), n, total)
                got = memo[key] = tuple(parts.tolist())
                return got
            options = [(n / total, j) for j, n in enumerate(pool) if n]
        else:
            options = [(1.0, CALM if mask[head] else head)]
        for pr, j in options:
            got = effects.get((board, j, k))
            lost, after = effect(board, j, k) if got is None else got
            if lost >= 0:
                acc[lost] += pr
                continue
            if after is None:
                continue
            pool2 = pool if head is not None else pool[:j] + (pool[j] - 1,) + pool[j + 1:]
            calm = _calm_mask(after)
            if calm is not mask:
                pool2 = _project(pool2, calm)
            sub = memo.get((k - 1, i + 1, pool2, refilled, after))
            if sub is None:
                sub = p(k - 1, i + 1, pool2, refilled, after)
            acc[0] += pr * sub[0]
            acc[1] += pr * sub[1]
            acc[2] += pr * sub[2]
        got = memo[key] = (acc[0], acc[1], acc[2])
        return got

    if phase.cards <= 0:
        return 0.0, 0.0, 0.0
    storm = phase.storm[0] * SIZE + phase.storm[1]
    tunnels = tuple((t.cell[0] * SIZE + t.cell[1], t.sand, t.water) for t in phase.tunnels)
    sand_left, thirst_left, meter_left, tunnels = _alive(
        phase.cards, phase.supply, phase.drinkers_water, phase.meter_left, tunnels)
    if sand_left is None and thirst_left is None and meter_left is None and not tunnels:
        return 0.0, 0.0, 0.0
    if sand_left is None and not any(t[0] >= 0 for t in tunnels):
        storm = None
    board = (storm, sand_left, thirst_left, meter_left, tunnels)
    pool = _project(tuple(phase.hidden) + (0,), _calm_mask(board))
    return p(phase.cards, 0, pool, False, board)
