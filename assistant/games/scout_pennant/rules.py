"""Applying one event: turn control, the §5.3 check order, finishing and the end of the game.

Rules: §3.1 (turns, must move, finish first), §3.7 (victory, ranking, deadlock), §3.8 (d8
variant), §3.10 (rulings), §5.3 (reason codes in checking order). The moves themselves live
in :mod:`.build` (§3.2) and :mod:`.net` (§3.3-§3.5).

:func:`apply` never mutates its input: it returns a new :class:`State` or a falsy
:class:`Refusal`; a refused event changes nothing, not even whose turn it is.
"""

from __future__ import annotations

from dataclasses import replace

from ..base import Event, Refusal
from . import build as B
from . import net
from .events import arrow_pairs
from .state import ALL_KINDS, BUILD, ENTER, FIRE, TAKE, State

#: Move kinds a d8 roll allows (§3.8). An 8 allows ``take_from_finish`` and ``enter``; which
#: of the two applies is settled by ``must_take_from_finish`` / ``no_patrol_on_finish``.
ROLL_KINDS: dict[int, frozenset] = {
    **{v: frozenset({BUILD}) for v in (1, 2, 3)},
    **{v: frozenset({FIRE}) for v in (4, 5, 6)},
    7: frozenset({ENTER}),
    8: frozenset({TAKE, ENTER}),
}
KIND_WORDS = {BUILD: "build", FIRE: "fire", ENTER: "enter", TAKE: "take from the finish"}


# --- the finish-first rule (§3.1, §3.5, §3.8, §3.10) ---------------------------------------
def take_pending(state: State) -> bool:
    """True when the player to move has a patrol on the finish that they are obliged to take (§3.5, §3.10):
    always, except under ``finish_removal_after_pennant = optional`` for a pennant holder."""
    c = state.to_move
    if c is None or not state.on_finish(c):
        return False
    return not (state.cfg.rulings["finish_removal_after_pennant"] == "optional" and c in state.pennants)


def cfg_roll(state: State) -> int | None:
    """The next roll ``setup.rolls`` deals, or ``None`` when the header deals none (left)."""
    rolls = state.cfg.rolls
    return rolls[state.rolls_made] if rolls is not None and state.rolls_made < len(rolls) else None


def take_before_roll(state: State) -> bool:
    """True when the pending take comes at once, before any roll: ruling
    ``d8_finish_priority = always`` (either variant, §3.10)."""
    return state.cfg.rulings["d8_finish_priority"] == "always" and take_pending(state)


def must_take(state: State) -> bool:
    """True when ``take_from_finish`` is the only legal move now: in the free variant whenever
    a take is pending (§3.1); in the d8 variant on an 8 (§3.8) or under ``always``."""
    if not take_pending(state):
        return False
    if state.cfg.variant == "free" or state.cfg.rulings["d8_finish_priority"] == "always":
        return True
    return state.roll == 8


def allowed_kinds(state: State) -> frozenset:
    """The move kinds the player to move may choose now: every kind in the free variant,
    the roll's kinds in the d8 variant (empty before the roll), ``{take}`` before the roll
    under ``always`` (§3.8, §3.10)."""
    if state.cfg.variant == "free":
        return ALL_KINDS
    if take_before_roll(state):
        return frozenset({TAKE})
    return ROLL_KINDS[state.roll] if state.roll is not None else frozenset()


def has_move(state: State, seat: int, kinds=ALL_KINDS) -> bool:
    """True when ``seat`` could legally make a move of one of ``kinds`` in this position,
    ignoring whose turn it is and the die (§3.1 must move, §3.7 deadlock)."""
    if TAKE in kinds and state.on_finish(seat):
        return True
    if ENTER in kinds and net.enter_refusal(state, seat) is None:
        return True
    if FIRE in kinds and net.can_fire(state, seat):
        return True
    return BUILD in kinds and B.can_build(state)


# --- the checks shared by every event (§5.3, first rows) ------------------------------------
def turn_refusal(state: State, ev: Event) -> Refusal | None:
    """The turn-level checks of §5.3, in order, up to ``move_available_cannot_pass``; ``None``
    when they all pass and the event's own checks come next.

    Order: ``game_over``, ``not_your_turn``, (under ``always``: ``must_take_from_finish``),
    ``unexpected_roll``, ``roll_mismatch``, ``roll_required``, ``wrong_move_kind_for_roll``,
    ``must_take_from_finish``, ``move_available_cannot_pass``.
    """
    cfg = state.cfg
    # the game has ended (§3.7): nothing more is accepted
    if state.game_over:
        return Refusal("game_over", f"The game is over ({state.result}).")
    # only the player to move acts; finished players are never to move
    if ev.actor != state.to_move:
        return Refusal("not_your_turn", f"It is seat {state.to_move}'s turn, not seat {ev.actor}'s.")
    # d8_finish_priority = always: the pending take comes before anything else, even the roll
    if take_before_roll(state) and ev.type != TAKE:
        return Refusal("must_take_from_finish",
                       f"Seat {ev.actor} must first take its patrol off the finish, without rolling.")
    if ev.type == "roll":
        # a roll only in the d8 variant, once per turn
        if cfg.variant != "d8":
            return Refusal("unexpected_roll", "The free variant has no rolls.")
        if state.roll is not None:
            return Refusal("unexpected_roll", f"Seat {ev.actor} has already rolled {state.roll} this turn.")
        # the n-th roll must carry the n-th value of setup.rolls (left out: that value)
        dealt = cfg.rolls is not None and state.rolls_made < len(cfg.rolls)
        if ev.get("value") is None and not dealt:
            return Refusal("roll_mismatch", f"The rolls dealt are used up: roll {state.rolls_made + 1} must give its value.")
        if dealt and ev.get("value", cfg.rolls[state.rolls_made]) != cfg.rolls[state.rolls_made]:
            return Refusal("roll_mismatch", f"Roll {state.rolls_made + 1} should be {cfg.rolls[state.rolls_made]}, "
                                            f"not {ev['value']}.")
        return None
    if cfg.variant == "d8" and not take_before_roll(state):
        # every move or pass of a d8 turn comes after the turn's roll
        if state.roll is None:
            return Refusal("roll_required", f"Seat {ev.actor} must roll the d8 first.")
        # the roll decides the kind of move
        if ev.type != "pass" and ev.type not in ROLL_KINDS[state.roll]:
            allowed = " or ".join(KIND_WORDS[k] for k in sorted(ROLL_KINDS[state.roll]))
            return Refusal("wrong_move_kind_for_roll", f"A roll of {state.roll} allows only: {allowed}.")
    # finish first (§3.1, §3.8): a pending take is the only legal move
    if must_take(state) and ev.type != TAKE:
        return Refusal("must_take_from_finish", f"Seat {ev.actor} must take its patrol off the finish.")
    # must move: a pass only when no allowed move exists
    if ev.type == "pass" and has_move(state, ev.actor, allowed_kinds(state)):
        return Refusal("move_available_cannot_pass", f"Seat {ev.actor} has a legal move and may not pass.")
    return None


# --- the events ------------------------------------------------------------------------------
def _move(state: State, ev: Event) -> State | Refusal:
    """The event's own checks and effect (§3.2-§3.5); a pass changes nothing."""
    c = ev.actor
    if ev.type == BUILD:
        arrows = arrow_pairs(ev["arrows"])
        r = B.build_refusal(state, ev["cell"], ev["piece"], arrows)
        return r if r is not None else B.apply_build(state, ev["cell"], ev["piece"], arrows)
    if ev.type == FIRE:
        r = net.fire_refusal(state, ev["cell"], c)
        return r if r is not None else net.fire(state, ev["cell"], c)
    if ev.type == ENTER:
        r = net.enter_refusal(state, c)
        return r if r is not None else net.enter(state, c)
    if ev.type == TAKE:
        r = net.take_refusal(state, c)
        return r if r is not None else net.take(state, c)
    return state                                   # pass


def apply(state: State, ev: Event) -> State | Refusal:
    """The state after ``ev``, or a :class:`Refusal` with the §5.3 reason code.

    Parameters
    ----------
    state : State
        Not modified.
    ev : Event
        A well-formed event (see :func:`.events.parse_event`).

    Returns
    -------
    State or Refusal
        After an applied event the event count, finishing (§3.7), the end of the game (§3.7,
        §3.10) and whose turn it is are updated.
    """
    if (r := turn_refusal(state, ev)) is not None:
        return r
    if ev.type == "roll":
        value = ev.get("value", cfg_roll(state))
        return _settle(replace(state, roll=value, rolls_made=state.rolls_made + 1,
                               events=state.events + 1), ends_turn=False)
    new = _move(state, ev)
    if isinstance(new, Refusal):
        return new
    c = ev.actor
    if c in new.pennants and new.on_board[c] == 0 and c not in new.finishing_order:
        new = replace(new, finishing_order=new.finishing_order + (c,))     # both criteria (§3.7)
    return _settle(replace(new, events=state.events + 1, roll=None), ends_turn=True)


def _settle(state: State, ends_turn: bool) -> State:
    """End of the game and next player after an applied event (§3.7, §3.10)."""
    rulings = state.cfg.rulings
    unfinished = state.unfinished()
    over = len(unfinished) <= 1 or (bool(state.finishing_order) and rulings["continue_after_first_finisher"] == "stop")
    deadlock = False
    if not over and rulings["deadlock_ends_game"]:
        deadlock = not any(has_move(state, p) for p in unfinished)
        over = deadlock
    if over:
        return replace(state, game_over=True, deadlock=deadlock and not state.finishing_order,
                       to_move=None, roll=None)
    if ends_turn:
        return replace(state, to_move=next_seat(state, state.to_move))
    return state


def next_seat(state: State, seat: int) -> int:
    """The next unfinished seat after ``seat`` in turn order: ascending seats (clockwise) or
    descending (ruling ``turn_order = counterclockwise``), with wrap-around (§3.1).

    Raises
    ------
    ValueError
        When every seat has finished.
    """
    n = state.cfg.n
    step = 1 if state.cfg.rulings["turn_order"] == "clockwise" else -1
    for k in range(1, n + 1):
        s = (seat + step * k) % n
        if s not in state.finishing_order:
            return s
    raise ValueError("every seat has finished")
