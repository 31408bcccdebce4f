"""Applying one Discovery Island event: the check order of rules §7.4, then its effect.

``apply`` works on a private copy and returns it, or a :class:`Refusal`; the caller's state
is never changed. Each accepted event that shows the walker something feeds that walker's
possible-position filter (§6.2).
"""

from __future__ import annotations

from ..base import Event, Refusal
from .data import POINT_RANGE
from .events import clue_of
from .geometry import Hex, distance, lines, step, to_axial, to_offset
from .knowledge import observe
from .setup import MARCH_TARGET
from .state import State

STEPS = ("choose_direction", "enter_checkpoint", "enter_cache")
#: the walker's events that depend on its true hex (the opponent or the referee enters them, §6.1)
WALKER_STEPS = STEPS + ("sea_refused", "learn_clue", "open_cache")


def _where(h: Hex) -> str:
    col, row = to_offset(*h)
    return f"({col},{row})"


def _observe(state: State, p: int, obs: tuple) -> None:
    state.candidates[p] = observe(state.cfg.island, state.cfg.rulings, state.candidates[p], obs)
    state.observations[p] = state.observations[p] + (obs,)


def _add(state: State, cost: int) -> None:
    """Add to the march sum; the march is over at 12 or more (§5.4)."""
    state.sums[state.walker] += cost
    if state.sums[state.walker] >= MARCH_TARGET:
        state.over = True


# --- turn-level checks (§7.4 "all others") ------------------------------------------------------
def _turn_refusal(state: State, ev: Event) -> Refusal | None:
    p = state.walker
    if state.pending is not None:
        due = "event_resolved" if state.pending[0] == "event" else "relocate"
        return Refusal("resolution_pending", f"A {due} event is due first.")
    skip_due = state.skips[p] > 0 and not state.begun
    if ev.type == "skip_march":
        if ev.actor != p or state.skips[ev.actor] == 0 or state.begun:
            return Refusal("no_skip_due", f"Player {ev.actor} has no skipped march due now.")
        return None
    if ev.actor != p:
        return Refusal("not_your_march", f"It is player {p}'s day march.")
    if skip_due:
        return Refusal("must_skip_march", f"Player {p} must skip this march.")
    if ev.type == "end_march":
        if not state.over and not (state.rule("early_stop") and state.begun):
            return Refusal("march_not_over", f"The march stands at {state.sums[p]}; it needs {MARCH_TARGET} or more.")
        return None
    if state.over:
        return Refusal("march_already_over", "The march is over; end_march is due.")
    return None


# --- steps (§5.4-5.6, §5.9, §5.10) ----------------------------------------------------------------
def _step(state: State, ev: Event) -> Refusal | None:
    island, p = state.cfg.island, state.walker
    d = ev["dir"]
    n = step(state.pos[p], d)
    if not island.on_map(n):
        return Refusal("off_map", f"{_where(n)} lies outside the map.")
    info = island.info(n)
    if ev.type == "sea_refused":
        if info.terrain != "sea":
            return Refusal("not_sea", f"{_where(n)} to the {d} is {info.terrain}, not sea.")
        state.begun = True
        _observe(state, p, ("hav", d))
        return None
    if info.terrain == "sea":
        return Refusal("direction_into_sea", f"{_where(n)} to the {d} is sea: the opponent says 'hav'.")
    wanted = {"choose_direction": None, "enter_checkpoint": "checkpoint", "enter_cache": "cache"}[ev.type]
    if info.marker != wanted:
        what = f"a {info.marker}" if info.marker else "plain terrain"
        return Refusal("wrong_step_type", f"{_where(n)} is {what}; {ev.type} does not fit.")
    if wanted is not None and ev["label"] != info.label:
        return Refusal("label_mismatch", f"The {wanted} at {_where(n)} is {info.label}, not {ev['label']}.")
    if wanted is None:
        tile = ev["tile"]
        if tile["terrain"] != info.terrain:
            return Refusal("wrong_terrain_laid", f"The map shows {info.terrain} at {_where(n)}, not {tile['terrain']}.")
        low, high = POINT_RANGE[info.terrain]
        if not low <= tile["points"] <= high:
            return Refusal("points_out_of_range", f"{info.terrain} tiles show {low}-{high} points, not {tile['points']}.")
        if not state.cfg.bundle.tile_exists(info.terrain, tile["points"], tile["mark"]):
            return Refusal("tile_not_in_supply",
                           f"No {info.terrain} tile showing {tile['points']} with mark {tile['mark']} is in the supply.")
    state.pos[p] = n
    state.paths[p] = state.paths[p] + (n,)
    state.begun = True
    if wanted is None:
        tile = ev["tile"]
        _observe(state, p, ("step", d, info.terrain))
        mark = tile["mark"]
        state.sums[p] += 1 if mark == "shortcut" else tile["points"]
        if mark.startswith("event:"):
            if not (state.sums[p] >= MARCH_TARGET and state.rule("event_on_last_tile") == "ignored"):
                state.pending = ("event", mark[len("event:"):], n)
                return None
        _add(state, 0)
        return None
    label = info.label if state.rule("label_revealed") == "on_entry" else None
    _observe(state, p, ("marker", d, wanted, label))
    if wanted == "checkpoint" and state.rule("checkpoint_claimed_by") == "entry":
        state.taken.setdefault(info.label, p)
    _add(state, state.rule("checkpoint_entry_cost" if wanted == "checkpoint" else "cache_entry_cost"))
    return None


def _learn_clue(state: State, ev: Event) -> Refusal | None:
    island, p = state.cfg.island, state.walker
    info = island.info(state.pos[p])
    label = ev["label"]
    if info.marker != "checkpoint":
        return Refusal("not_at_checkpoint", "The walker is not on a checkpoint.")
    if label != info.label:
        return Refusal("label_mismatch", f"This checkpoint is {info.label}, not {label}.")
    reread = label in state.clues[p] and state.rule("revisit_checkpoint") == "owner_may_reread"
    if label in state.clues[p] and not reread:
        return Refusal("clue_already_held", f"Player {p} has already taken the clue of {label}.")
    if state.taken.get(label, p) != p:
        return Refusal("checkpoint_already_taken", f"The clue of {label} was taken by the other player.")
    clue = clue_of(ev)
    if state.cfg.digital:
        dealt = dict(state.cfg.deal[label])
        if clue is not None and clue != dealt:
            return Refusal("clue_mismatch", f"The checkometer shows {dealt} at {label}.")
        clue = dealt
    state.begun = True
    if not reread:
        state.taken[label] = p
        state.clues[p] = {**state.clues[p], label: clue}
    _observe(state, p, ("label", label))   # §6.2 (and, landed on it, §5.11: the walker names the label)
    _add(state, state.rule("clue_cost"))
    return None


def _open_cache(state: State, ev: Event) -> Refusal | None:
    island, p = state.cfg.island, state.walker
    info = island.info(state.pos[p])
    label, found = ev["label"], ev.get("found")
    if info.marker != "cache":
        return Refusal("not_at_cache", "The walker is not on a cache.")
    if label != info.label:
        return Refusal("label_mismatch", f"This cache is {info.label}, not {label}.")
    if found is None:                      # a digital checkometer answers (physical: parse requires it)
        found = label == state.cfg.treasure
    if state.cfg.digital and found != (label == state.cfg.treasure):
        truth = "holds the treasure" if label == state.cfg.treasure else "is empty"
        return Refusal("cache_result_mismatch", f"The checkometer says cache {label} {truth}.")
    state.begun = True                     # §6.2: opening a cache leaves the candidates unchanged
    state.sums[p] += state.rule("cache_open_cost")
    if found:
        state.result, state.winner = "won", p
        return None
    state.empty_caches = state.empty_caches | {label}
    _add(state, 0)
    return None


# --- events and relocation (§5.7, §5.8) -------------------------------------------------------------
def eligible(state: State, p: int, name: str, kind: str, terrain: str) -> bool:
    """Whether player ``p``'s card ``name`` may cancel an event ``kind`` on ``terrain`` (§5.8)."""
    card, counters = state.cfg.bundle.cards[name], state.cards[p][name]
    event = state.cfg.bundle.events[kind]
    if counters.discarded or not event.preventable:
        return False
    if not (kind in card.protects or (event.lost and card.prevents_lost)):
        return False
    if counters.left(terrain) <= 0:
        return False
    per_use = state.rule("equipment_march_count") == "per_use"
    return counters.march_left > 0 if per_use else (counters.used_this_march or counters.march_left > 0)


def _event_resolved(state: State, ev: Event) -> Refusal | None:
    p = state.walker
    if state.pending is None or state.pending[0] != "event":
        return Refusal("no_event_pending", "No event tile is waiting to be resolved.")
    if ev.actor != p:
        return Refusal("wrong_actor", f"The walker (player {p}) resolves its own event.")
    _, kind, h = state.pending
    if ev.get("kind") is not None and ev["kind"] != kind:
        return Refusal("event_kind_mismatch", f"The tile shows {kind}, not {ev['kind']}.")
    name = ev["equipment"]
    event = state.cfg.bundle.events[kind]
    terrain = state.cfg.island.terrain(h)
    if name is not None:
        if name not in state.cards[p] or state.cards[p][name].discarded:
            return Refusal("equipment_not_held", f"Player {p} does not hold {name}.")
        if not event.preventable:
            return Refusal("event_unpreventable", f"Nothing prevents {kind}.")
        if not eligible(state, p, name, kind, terrain):
            return Refusal("equipment_not_usable", f"{name} does not cover {kind} in {terrain} now.")
        per_use = state.rule("equipment_march_count") == "per_use"
        state.cards[p] = {**state.cards[p], name: state.cards[p][name].used_in(terrain, per_use)}
        if name not in state.used_cards[p]:
            state.used_cards[p].append(name)
        state.pending = None
        _add(state, 0)
        return None
    if not state.rule("equipment_optional") and any(eligible(state, p, c, kind, terrain) for c in state.cards[p]):
        return Refusal("equipment_required", "An eligible card is held and must be used (ruling).")
    if event.lost:
        state.pending = ("relocate", h)
    else:
        state.skips[p] += event.effect[1]
        state.pending = None
        state.over = True
    return None


def _relocate(state: State, ev: Event) -> Refusal | None:
    island, p = state.cfg.island, state.walker
    if state.pending is None or state.pending[0] != "relocate":
        return Refusal("no_relocation_due", "No unprevented lost event is waiting.")
    if ev.actor != 1 - p:
        return Refusal("wrong_actor", f"The opponent (player {1 - p}) relocates a lost walker.")
    h = state.pending[1]
    to = to_axial(*ev["to"])
    if not island.on_map(to):
        return Refusal("off_map", f"{_where(to)} lies outside the map.")
    info = island.info(to)
    if info.terrain == "sea":
        return Refusal("relocation_into_sea", f"{_where(to)} is sea.")
    if info.feature != "none" and not state.rule("start_on_feature"):
        return Refusal("relocation_on_feature", f"{_where(to)} is {info.label}.")
    radius = state.rule("lost_relocation_distance")
    if distance(h, to) > radius or (state.rule("lost_relocation_shape") == "line" and to not in lines(h, radius)):
        return Refusal("relocation_too_far", f"{_where(to)} is not within {radius} hexes of {_where(h)}.")
    if to == h and not state.rule("lost_relocation_same_hex"):
        return Refusal("relocation_same_hex", "The walker must be moved to a new hex (ruling).")
    terrain = ev.get("terrain")
    if terrain is not None and terrain != info.terrain:
        return Refusal("wrong_terrain_laid", f"The map shows {info.terrain} at {_where(to)}, not {terrain}.")
    state.pos[p] = to
    state.paths[p] = (to,)
    state.pending = None
    state.over = True
    _observe(state, p, ("lost", info.terrain if state.rule("lost_reveals_terrain") else None))
    return None


# --- march boundaries (§5.2, §5.3) ------------------------------------------------------------------
def _end_march(state: State, ev: Event) -> None:
    p = state.walker
    state.marches[p] += 1
    state.cards[p] = {name: c.march_ended() for name, c in state.cards[p].items()}
    excess = state.sums[p] - MARCH_TARGET
    state.sums[p] = excess if state.rule("march_overflow") == "carry" and excess > 0 else 0
    state.paths[p] = (state.pos[p],)
    state.begun = state.over = False
    state.to_move = 1 - p


def _skip_march(state: State, ev: Event) -> None:
    state.skips[state.walker] -= 1
    state.to_move = 1 - state.walker


def apply(state: State, ev: Event) -> State | Refusal:
    """The state after ``ev``, or a :class:`Refusal` with the §7.4 reason code.

    Parameters
    ----------
    state : State
        Not modified.
    ev : Event
        A well-formed event (see :func:`.events.parse_event`).
    """
    if state.result != "ongoing":
        return Refusal("game_over", "The treasure has been found; the game is over.")
    new = state.copy()
    if ev.type == "event_resolved":
        r = _event_resolved(new, ev)
    elif ev.type == "relocate":
        r = _relocate(new, ev)
    else:
        r = _turn_refusal(state, ev)
        if r is None:
            if ev.type in STEPS or ev.type == "sea_refused":
                r = _step(new, ev)
            elif ev.type == "learn_clue":
                r = _learn_clue(new, ev)
            elif ev.type == "open_cache":
                r = _open_cache(new, ev)
            elif ev.type == "end_march":
                _end_march(new, ev)
            else:
                _skip_march(new, ev)
    if r is not None:
        return r
    new.events += 1
    return new
