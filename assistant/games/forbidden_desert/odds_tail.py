"""The last two or three cards of a storm phase, summed at once (rules §3.8, §5.4 item 3).

When the last ``k`` (2 or 3) cards of a phase all come from one pool of unseen cards with counts
``n`` (``T`` cards), drawing j, l (and m) has chance ``n_j (n_l - [j = l]) / (T (T - 1))`` (and
``... (n_m - [j = m] - [l = m]) / (T - 2)``), so the loss of those cards is a polynomial in ``n``
whose 0/1 coefficients depend only on the board. :mod:`.odds_exact` gathers every pool that
reaches such a leaf, per board, and the sums here take all of them in a few array operations.

A board's *pair table* (``(3 W + 6, W)``, W card indexes) holds, for the last two cards: per cause
c the rows (c, l) of ``S + S'`` where ``S[c, j, l]`` = 1 when j causes no loss and l then loses by
c; then ``first[c, j]`` = 1 when j loses by c; then ``S[c, j, j]``.
"""

from __future__ import annotations

import numpy as np


def _buckets(groups: list[dict], pad_total: float):
    """Split leaves into buckets of similar size: ``groups[b]`` is ``{pool: chance}`` for leaf b.

    Yields ``(indexes, n, total, chance)``: the leaves of the bucket (int array (B,)), their pools
    padded with empty ones to a common count M ((B, M, W) float), the pools' sizes ((B, M),
    ``pad_total`` where padded, which keeps the formulas finite) and chances ((B, M), 0 where padded)."""
    sizes = np.array([len(g) for g in groups])
    width = len(next(iter(groups[0])))
    top = 1
    while True:
        indexes = np.flatnonzero((sizes <= top) & (sizes > top // 2))
        if len(indexes):
            n = np.zeros((len(indexes), top, width))
            chance = np.zeros((len(indexes), top))
            for row, b in enumerate(indexes):
                group = groups[b]
                n[row, :len(group)] = list(group)
                chance[row, :len(group)] = list(group.values())
            total = n.sum(axis=2)
            total[chance == 0] = pad_total
            yield indexes, n, total, chance
        if top >= sizes.max():
            return
        top *= 2


def last_two(tables: np.ndarray, groups: list[dict]) -> np.ndarray:
    """The (thirst, sand, meter) chances of the last two cards, summed over leaves.

    Parameters
    ----------
    tables : ndarray, (B, 3 W + 6, W) float
        The pair table of each leaf's board (module docstring).
    groups : list of dict
        Per leaf, ``{pool: chance}``: pools as tuples of W counts with at least 2 cards, and the
        chance of reaching the leaf with that pool.

    Returns
    -------
    ndarray, (3,) float
        ``sum over leaves and pools of chance * P(loss by cause c in the last two cards)``.
    """
    w = tables.shape[2]
    out = np.zeros(3)
    for indexes, n, total, chance in _buckets(groups, 2.0):
        b, m = n.shape[:2]
        v = n @ tables[indexes].transpose(0, 2, 1)                        # (B, M, 3 W + 6)
        quad = 0.5 * (v[..., :3 * w].reshape(b, m, 3, w) * n[:, :, None, :]).sum(axis=3)
        t = total[..., None]
        out += np.einsum("bm,bmc->c", chance, v[..., 3 * w:3 * w + 3] / t + (quad - v[..., 3 * w + 3:]) / (t * (t - 1)))
    return out


def last_three(first: np.ndarray, tables: np.ndarray, children: np.ndarray, groups: list[dict]) -> np.ndarray:
    """The (thirst, sand, meter) chances of the last three cards, summed over leaves.

    Parameters
    ----------
    first : ndarray, (B, 3, W) float
        Per leaf, ``first[c, j]`` = 1 when card j loses by cause c at once.
    tables : ndarray, (R, 3 W + 6, W) float
        Pair tables of boards with two cards due.
    children : ndarray, (B, W) int
        Per leaf and first card j, the row of ``tables`` for the board j leaves (a row of zeros
        when j loses or leaves nothing to lose).
    groups : list of dict
        Per leaf, ``{pool: chance}`` as in :func:`last_two`, pools with at least 3 cards.

    Returns
    -------
    ndarray, (3,) float

    Notes
    -----
    After j the pool is ``n - e_j`` and the last two cards follow :func:`last_two`'s formula,
    expanded so that one matrix product serves every j: with ``P = S + S'``,
    ``(n - e_j)' S (n - e_j) = n' P n / 2 - (P n)_j + S_jj``.
    """
    rows, w = tables.shape[1:]
    out = np.zeros(3)
    for indexes, n, total, chance in _buckets(groups, 3.0):
        b, m = n.shape[:2]
        table = tables[children[indexes]]                                  # (B, W, rows, W)
        v = (n @ table.reshape(b, w * rows, w).transpose(0, 2, 1)).reshape(b, m, w, rows)
        p_n = v[..., :3 * w].reshape(b, m, w, 3, w)
        quad = 0.5 * (p_n * n[:, :, None, None, :]).sum(axis=4) - np.diagonal(p_n, axis1=2, axis2=4).transpose(0, 1, 3, 2)
        s_diag = np.diagonal(table[:, :, 3 * w + 3:, :], axis1=1, axis2=3).transpose(0, 2, 1)[:, None]   # (B, 1, W, 3)
        f_diag = np.diagonal(table[:, :, 3 * w:3 * w + 3, :], axis1=1, axis2=3).transpose(0, 2, 1)[:, None]
        t1 = (total - 1)[..., None, None]
        # lin_f (t1 - 1) + quad - lin_d, with lin_f = (P n)_f - f_jj and lin_d = (P n)_d - S_jj
        num = quad - v[..., 3 * w + 3:] + 2 * s_diag + (v[..., 3 * w:3 * w + 3] - f_diag) * (t1 - 1)
        parts = (n @ first[indexes].transpose(0, 2, 1) + (n[..., None] * num / (t1 * (t1 - 1))).sum(axis=2)) / total[..., None]
        out += np.einsum("bm,bmc->c", chance, parts)
    return out
