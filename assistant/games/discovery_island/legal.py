"""Legal-event enumeration for Discovery Island.

Candidates are generated from the position and kept only when :func:`.rules.apply` accepts
them. A step lists one event per tile row of the supply that fits the terrain (the opponent
draws one of them); a physical checkometer's ``open_cache`` is listed with both results.
"""

from __future__ import annotations

from typing import Iterator

from ..base import Event
from . import rules
from .geometry import DIRECTION_NAMES, step, to_offset
from .knowledge import relocation_targets
from .state import State


def candidates(state: State) -> Iterator[Event]:
    """Every event worth trying now (a superset of the legal ones)."""
    island, p = state.cfg.island, state.walker
    if state.pending is not None:
        if state.pending[0] == "event":
            for name in [None, *state.cards[p]]:
                yield Event.from_params(p, "event_resolved", {"kind": state.pending[1], "equipment": name})
        else:
            for h in sorted(relocation_targets(island, state.cfg.rulings, state.pending[1])):
                params = {"to": to_offset(*h)}
                if state.cfg.rulings["lost_reveals_terrain"]:
                    params["terrain"] = island.terrain(h)
                yield Event.from_params(1 - p, "relocate", params)
        return
    yield Event.make(p, "skip_march")
    yield Event.make(p, "end_march")
    for d in DIRECTION_NAMES:
        n = step(state.pos[p], d)
        info = island.info(n)
        if info.terrain == "sea":
            yield Event.make(p, "sea_refused", dir=d)
        elif info.marker is not None:
            yield Event.make(p, f"enter_{info.marker}", dir=d, label=info.label)
        else:
            for (terrain, points, mark) in sorted(state.cfg.bundle.tiles):
                if terrain == info.terrain:
                    yield Event.make(p, "choose_direction", dir=d,
                                     tile={"terrain": terrain, "points": points, "mark": mark})
    here = island.info(state.pos[p])
    if here.marker == "checkpoint":
        yield Event.make(p, "learn_clue", label=here.label)
    if here.marker == "cache":
        results = [here.label == state.cfg.treasure] if state.cfg.digital else [False, True]
        for found in results:
            yield Event.make(p, "open_cache", label=here.label, found=found)


def legal_events(state: State) -> list[Event]:
    """Every legal event now, in a stable order."""
    if state.result != "ongoing":
        return []
    return [ev for ev in candidates(state) if rules.apply(state, ev)]
