"""What a walker can deduce from what it has seen (rules §6.2): the set filter of possible
positions, possible landing hexes and possible treasure caches.

Observations are plain tuples, fed only after the checker accepted the event that produced
them, so a wrongly laid tile can never remove the true position:

``("start", terrain)``, ``("step", dir, terrain)``, ``("marker", dir, kind, label or None)``,
``("hav", dir)``, ``("lost", terrain or None)``, ``("label", label)``.

Each step maps every candidate on its own (a set is the union of its members' results), and a
known label keeps only the candidates that really reach its hex: replaying the observations from
one start therefore says exactly whether that start fits them (possible landings), and a start
ruled out once never comes back.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterable, Mapping

from .geometry import Hex, disc, lines, neighbours, step
from .island import Island


def start_set(island: Island, terrain: str, on_feature: bool) -> frozenset[Hex]:
    """Land hexes of ``terrain`` (featureless unless ``start_on_feature``): the landing set."""
    pool = island.landing_pool(on_feature)
    return frozenset(h for h in pool if island.terrain(h) == terrain)


def observe(island: Island, rulings: Mapping[str, Any], c: frozenset[Hex], obs: tuple) -> frozenset[Hex]:
    """One filter step of §6.2: the candidates after observation ``obs``.

    Parameters
    ----------
    island : Island
    rulings : dict
        Uses ``start_on_feature``, ``lost_relocation_distance``, ``lost_relocation_shape``,
        ``lost_relocation_same_hex``.
    c : frozenset of Hex
        Candidates before (axial hexes).
    obs : tuple
        See the module docstring.

    Returns
    -------
    frozenset of Hex
    """
    kind = obs[0]
    if kind == "start":
        return start_set(island, obs[1], rulings["start_on_feature"])
    if kind == "step":
        _, d, terrain = obs
        moved = (step(h, d) for h in c)
        return frozenset(n for n in moved if island.info(n).feature == "none" and island.terrain(n) == terrain)
    if kind == "marker":
        _, d, marker, label = obs
        moved = (step(h, d) for h in c)
        if label is not None:           # only the candidates whose step lands on that very hex
            return frozenset(n for n in moved if n == island.labels[label])
        return frozenset(n for n in moved if island.info(n).marker == marker)
    if kind == "hav":
        return frozenset(h for h in c if island.terrain(step(h, obs[1])) == "sea")
    if kind == "label":
        return c & {island.labels[obs[1]]}
    if kind == "lost":
        return _after_lost(island, rulings, c, obs[1])
    raise ValueError(f"unknown observation {obs!r}")


def relocation_targets(island: Island, rulings: Mapping[str, Any], h: Hex) -> frozenset[Hex]:
    """Hexes the opponent may relocate a lost walker on ``h`` to (§5.7, rulings)."""
    radius = rulings["lost_relocation_distance"]
    near = lines(h, radius) if rulings["lost_relocation_shape"] == "line" else disc(h, radius)
    pool = island.landing_pool(rulings["start_on_feature"])
    out = {x for x in near if x in pool}
    if not rulings["lost_relocation_same_hex"]:
        out.discard(h)
    return frozenset(out)


def _after_lost(island: Island, rulings: Mapping[str, Any], c: frozenset[Hex], terrain: str | None) -> frozenset[Hex]:
    out: set[Hex] = set()
    for h in c:
        out |= relocation_targets(island, rulings, h)
    if terrain is not None:
        out = {h for h in out if island.terrain(h) == terrain}
    return frozenset(out)


def replay(island: Island, rulings: Mapping[str, Any], observations: Iterable[tuple],
           start: frozenset[Hex] | None = None) -> frozenset[Hex]:
    """Run the filter over ``observations``; ``start`` replaces the first ``("start", t)`` set."""
    c: frozenset[Hex] = frozenset()
    for i, obs in enumerate(observations):
        c = start if (i == 0 and start is not None) else observe(island, rulings, c, obs)
    return c


def possible_landings(island: Island, rulings: Mapping[str, Any], observations: tuple) -> frozenset[Hex]:
    """Landing hexes from which the same observations remain possible (§6.2, last paragraph).

    Parameters
    ----------
    island : Island
    rulings : dict
        As for :func:`observe`.
    observations : tuple
        One walker's observations, the ``("start", terrain)`` first.

    Returns
    -------
    frozenset of Hex
        Each hex of the start set from which a replay of every observation leaves a candidate
        (axial); empty without observations.
    """
    if not observations:
        return frozenset()
    first = observe(island, rulings, frozenset(), observations[0])
    return frozenset(h for h in first if replay(island, rulings, observations, frozenset({h})))


def possible_treasures(island: Island, clues: Iterable[Mapping[str, Any] | None],
                       empty: Iterable[str] = ()) -> list[str]:
    """Cache labels that fit the clues held (§6.2 helper).

    Parameters
    ----------
    clues : iterable of clue objects
        ``{"type": "terrain", "terrain": T[, "dir": D]}``, ``{"type": "symbol", "symbol": S}``,
        ``{"type": "empty"}`` or ``None`` (unknown, ignored).
    empty : iterable of str
        Caches known to be empty.

    Returns
    -------
    list of str
        Sorted labels x with ``symbol(x) == s`` if a symbol is held and, for every terrain t,
        at least as many t neighbours as t clues (a directed clue must match that direction).
    """
    wanted: Counter = Counter()
    directed: list[tuple[str, str]] = []
    symbol = None
    for clue in clues:
        if not clue:
            continue
        if clue["type"] == "terrain":
            if "dir" in clue:
                directed.append((clue["dir"], clue["terrain"]))
            else:
                wanted[clue["terrain"]] += 1
        elif clue["type"] == "symbol":
            symbol = clue["symbol"]
    closed = set(empty)
    out = []
    for label in island.caches():
        h = island.labels[label]
        if label in closed or (symbol and island.info(h).feature != symbol):
            continue
        around = Counter(island.terrain(n) for n in neighbours(h))
        if any(around[t] < k for t, k in wanted.items()):
            continue
        if any(island.terrain(step(h, d)) != t for d, t in directed):
            continue
        out.append(label)
    return sorted(out)

