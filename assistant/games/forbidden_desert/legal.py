"""Legal-event enumeration for Forbidden Desert.

Candidates are generated per kind of event (actions of the active seat, free actions of every
seat, storm draws) and kept only when :func:`rules.apply` accepts them, so every listed event
is legal by construction. Observation parameters (``reveals``, ``draws``, ``card``) are filled
with every outcome still possible. Two chance choices with too many outcomes appear once, in a
canonical form: a digital reshuffle's ``order`` (the discard pile as it lies) and a physical
peek's ``seen`` when more than :data:`OBSERVATION_CAP` sequences are possible.
"""

from __future__ import annotations

from collections import Counter
from itertools import product
from typing import Iterable, Iterator

from ..base import Event
from . import rules
from .components import ALL_CELLS
from .digging import equipment_pool
from .hidden import gives_equipment
from .movement import paths
from .state import State
from .tiles import assistant_knowledge, unseen_pool

OBSERVATION_CAP = 500


def possible_faces(state: State, slot: int) -> list[str]:
    """What ``reveals``/``sees`` may name for ``slot``: its known id, or each face still possible."""
    if state.ident[slot] is not None:
        return [state.ident[slot]]
    pool, _ = unseen_pool(state, state.cfg.backs[slot], assistant_knowledge(state))
    return sorted(face for face, n in pool.items() if n > 0)


def _draw_options(state: State, face: str) -> list[str | None]:
    if not gives_equipment(face) or state.cfg.digital_equipment:
        return [None]
    return sorted(equipment_pool(state)) or [None]


def _seen_options(state: State) -> list[tuple[str, ...] | None]:
    m = min(state.draw_count, len(state.pile))
    if all(state.pile[i] is not None for i in range(m)):
        return [None]
    options: list[tuple[str, ...]] = []
    types = sorted(state.pool)
    for seq in product(types, repeat=sum(state.pile[i] is None for i in range(m))):
        if Counter(seq) - state.pool:
            continue
        it = iter(seq)
        options.append(tuple(state.pile[i] if state.pile[i] is not None else next(it) for i in range(m)))
        if len(options) >= OBSERVATION_CAP:
            break
    return options


def _peeks(state: State, actor: int, kind: str, **base) -> Iterator[Event]:
    m = min(state.draw_count, len(state.pile))
    for seen in _seen_options(state):
        for to_bottom in [None, *range(m)]:
            yield Event.make(actor, kind, seen=seen, to_bottom=to_bottom, **base)


def action_candidates(state: State) -> Iterator[Event]:
    """Candidate actions and ``end_turn`` for the active seat (a superset of the legal ones)."""
    if state.phase != "actions":
        return
    a = state.active
    adv = state.adventurer(a)
    here = state.pawn[a]
    riders = [None] + [s for s in state.seats_on(here) if s != a]
    for cell in ALL_CELLS:
        for carry in (riders if adv == "climber" else [None]):
            yield Event.make(a, "move", to=cell, carry=carry)
    for cell in state.reach(a):
        yield Event.make(a, "remove_sand", at=cell)
        if adv == "archeologist":
            yield Event.make(a, "remove_sand", at=cell, count=1)
    if not state.excavated[here] and state.sand[here] == 0:
        reveal_opts = [None] if state.ident[here] is not None else possible_faces(state, here)
        for face in reveal_opts:
            for draws in _draw_options(state, face or state.ident[here]):
                yield Event.make(a, "excavate", reveals=face, draws=draws)
    yield Event.make(a, "pick_up_part")
    for part in state.parts_on[here]:
        yield Event.make(a, "pick_up_part", part=part)
    if adv == "water_carrier":
        yield Event.make(a, "take_water")
    if adv == "navigator":
        for target in range(state.cfg.n):
            if target == a:
                continue
            options = [None]
            if state.adventurer(target) == "climber":
                options += [s for s in state.seats_on(state.pawn[target]) if s != target]
            for cell in paths(state, target):
                for carry in options:
                    yield Event.make(a, "navigate", target=target, to=cell, carry=carry)
    if adv == "meteorologist":
        yield Event.make(a, "meteorologist_reduce")
        yield from _peeks(state, a, "meteorologist_peek")
    yield Event.make(a, "end_turn")


def free_candidates(state: State) -> Iterator[Event]:
    """Candidate free actions of every seat: water, passing and playing equipment."""
    n = state.cfg.n
    for giver in range(n):
        for to in range(n):
            for amount in range(1, state.water[giver] + 1):
                yield Event.make(giver, "give_water", to=to, amount=amount)
        for card in sorted(set(state.hands[giver])):
            for to in range(n):
                yield Event.make(giver, "pass_equipment", to=to, card=card)
            yield from _plays(state, giver, card)


def _plays(state: State, seat: int, card: str) -> Iterator[Event]:
    if card == "dune_blaster":
        for cell in state.reach(seat):
            yield Event.make(seat, "play_equipment", card=card, at=cell)
    elif card == "jet_pack":
        riders = [None] + [s for s in state.seats_on(state.pawn[seat]) if s != seat]
        for cell in ALL_CELLS:
            for carry in riders:
                yield Event.make(seat, "play_equipment", card=card, to=cell, carry=carry)
    elif card == "terrascope":
        for cell, slot in state.tile_cells():
            if not state.excavated[slot]:
                for sees in [None, *possible_faces(state, slot)]:
                    yield Event.make(seat, "play_equipment", card=card, at=cell, sees=sees)
    elif card == "storm_tracker":
        yield from _peeks(state, seat, "play_equipment", card=card)
    else:
        yield Event.make(seat, "play_equipment", card=card)


def storm_candidates(state: State) -> Iterator[Event]:
    """Candidate storm events: draws (every possible card for a physical deck) and reshuffles."""
    if state.cfg.digital_storm:
        if state.phase == "storm" and state.pile:
            yield Event.make("storm", "draw_storm")
        if not state.pile:
            yield Event.make("storm", "reshuffle", order=tuple(state.discard))
        return
    if state.phase == "storm":
        if state.pile:
            cards = [state.pile[0]] if state.pile[0] is not None else sorted(+state.pool)
        else:
            cards = sorted(set(state.discard))
        for card in cards:
            yield Event.make("storm", "storm_card", card=card)
    if not state.pile:
        yield Event.make("storm", "reshuffle")


def legal(state: State, candidates: Iterable[Event]) -> list[Event]:
    """The candidates that :func:`rules.apply` accepts, duplicates removed, order kept."""
    out, seen = [], set()
    for ev in candidates:
        if ev in seen:
            continue
        seen.add(ev)
        if rules.apply(state, ev):
            out.append(ev)
    return out


def legal_events(state: State) -> list[Event]:
    """Every legal event now: storm events, the active seat's actions, then free actions."""
    if state.result != "ongoing":
        return []
    return legal(state, [*storm_candidates(state), *action_candidates(state), *free_candidates(state)])

