"""Hidden tile identities: slots, pools of unseen faces, reveals and face probabilities (§5.1).

Each physical tile is a slot with a back class and, once known, a tile id. The faces not yet
known under each back class form a pool; a fair shuffle makes every arrangement consistent
with what has been seen equally likely, so the chance that an unknown slot hides face ``f`` is
the pool's share of ``f`` among the unknown slots of that back class.

Who knows a face differs: the assistant knows what the layout named or any observation
revealed; the table knows excavated faces; one seat also knows what its Terrascope showed.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Callable

from ..base import Refusal
from .components import FACES_UNDER_BACK, NUMBERED_KINDS, TILE_IDS_BY_KIND, back_of, face_of
from .state import State

#: slot -> known tile id or None, from some observer's point of view
Knowledge = Callable[[int], "str | None"]


def assistant_knowledge(state: State) -> Knowledge:
    """Everything the assistant knows: layout names, reveals and Terrascope sightings."""
    return lambda slot: state.ident[slot]


def table_knowledge(state: State, seat: int | None = None) -> Knowledge:
    """What the players know: excavated faces, plus the Terrascope sightings of ``seat``."""
    scoped = state.scoped[seat] if seat is not None else frozenset()
    return lambda slot: state.ident[slot] if (state.excavated[slot] or slot in scoped) else None


def unseen_pool(state: State, back: str, knows: Knowledge) -> tuple[Counter, list[int]]:
    """The faces not yet known under ``back`` and the slots still unknown, for one observer.

    Returns
    -------
    (collections.Counter, list of int)
        Face -> copies still hidden; the unknown slots of that back class.
    """
    pool = Counter(FACES_UNDER_BACK[back])
    unknown = []
    for slot, b in enumerate(state.cfg.backs):
        if b != back:
            continue
        tile = knows(slot)
        if tile is None:
            unknown.append(slot)
        else:
            pool[face_of(tile)] -= 1
    return pool, unknown


def p_face(state: State, slot: int, face: str, knows: Knowledge | None = None) -> Fraction:
    """Probability that ``slot`` shows ``face`` (a kind such as ``well`` or a unique tile id).

    Parameters
    ----------
    state : State
    slot : int
        A tile slot, 0..23.
    face : str
        ``well``, ``mirage``, ``tunnel``, ``gear``, ``launch_pad``, ``crash_site`` or a clue id.
    knows : Knowledge, optional
        The observer (default: the table, see :func:`table_knowledge`).

    Returns
    -------
    fractions.Fraction
        1 or 0 when the observer knows the face; otherwise the pool's share (§5.1 ``p_face``).
        At the start every dune is the launch pad with probability 1/20 and every water
        tile a well with probability 2/3 (rules §7 E15).
    """
    knows = knows or table_knowledge(state)
    tile = knows(slot)
    if tile is not None:
        return Fraction(int(face_of(tile) == face))
    pool, unknown = unseen_pool(state, state.cfg.backs[slot], knows)
    return Fraction(pool[face], len(unknown)) if unknown else Fraction(0)


def lowest_unused_id(state: State, kind: str) -> str | None:
    """The lowest-numbered tile id of ``kind`` that no slot holds yet (``gear`` -> ``gear_3``)."""
    used = set(state.ident)
    return next((t for t in TILE_IDS_BY_KIND[kind] if t not in used), None)


def observation_face(obs: str) -> str:
    """The face an observation names: a kind (``well``) or a tile id (``gear_5`` -> ``gear``)."""
    return obs if obs in NUMBERED_KINDS else face_of(obs)


def reveal(state: State, slot: int, obs: str) -> Refusal | None:
    """Record that ``slot`` shows ``obs`` (a tile id or a numbered kind); mutates ``state``.

    Returns
    -------
    Refusal or None
        ``observation_conflict`` when the face cannot lie under this back, no copy of it is
        left, it clashes with the slot's known identity, or a numbered id is already taken.
    """
    face = observation_face(obs)
    back = state.cfg.backs[slot]
    known = state.ident[slot]
    if known is not None:
        if obs not in (known, face_of(known)):
            return Refusal("observation_conflict", f"This tile is known to be {known}, not {obs}.")
        return None
    if back_of_face(face) != back:
        return Refusal("observation_conflict", f"A {back} tile cannot hide {obs}.")
    pool, _ = unseen_pool(state, back, assistant_knowledge(state))
    if pool[face] <= 0:
        return Refusal("observation_conflict", f"Every {face} tile has already been found.")
    if obs != face or face not in NUMBERED_KINDS:
        tile = obs
        if tile in state.ident:
            return Refusal("observation_conflict", f"Tile {tile} is already on another cell.")
    else:
        tile = lowest_unused_id(state, face)
    state.ident[slot] = tile
    return None


def back_of_face(face: str) -> str:
    """The back class hiding ``face`` (a kind or a tile id)."""
    return back_of(TILE_IDS_BY_KIND[face][0] if face in TILE_IDS_BY_KIND else face)
