"""Scout Pennant (2-6 players, a coloured Petri net on a hex board): the rules engine plug-in.

Rules: ``shared/rules/scout-pennant.md``. Module map:

- ``geometry``: axial hex cells, directions, the radius-R board, corners, default starts (§2);
- ``state``: the position (board net, marking, control state) and its queries (§2.3, §3.9);
- ``setup``: header -> starting state, every §5.1 check, the §3.10 rulings;
- ``events``: the record vocabulary and the malformed checks (§5.2, §5.3);
- ``build``: laying out the route (§3.2); ``net``: enabling and firing, enter, take (§3.3-§3.5, §4.1);
- ``rules``: turn control, the §5.3 check order, finishing, game end, deadlock (§3.1, §3.7, §3.8);
- ``legal``: legal-event enumeration; ``views``: the §5.4 summary and per-seat views;
- ``pnml``: the PNML export of §4.2; ``simulate``: seeded random games and full boards.

>>> state = GAME.new_state({"players": [{"seat": 0, "colour": "red"}, {"seat": 1, "colour": "blue"}]}, {})
>>> ev = GAME.parse_event({"actor": 0, "type": "pass"}, state)
>>> refusal = GAME.apply(state, ev)
>>> bool(refusal), refusal.reason
(False, 'move_available_cannot_pass')
>>> after = GAME.apply(state, GAME.parse_event({"actor": 0, "type": "enter"}, state))
>>> GAME.summary(after)["players"][0]["patrols"], GAME.summary(after)["to_move"]
([[0, 4]], 1)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from ..base import Event, Game, Refusal
from . import commands, drawing, events, legal, rules, setup, views
from .pnml import to_pnml
from .state import State

__all__ = ["GAME", "ScoutPennant", "State", "to_pnml"]


class ScoutPennant(Game):
    """The Scout Pennant game (rules ``scout-pennant.md``) behind the shared :class:`~assistant.games.base.Game`
    interface; stateless, every state is passed in (§3, §5)."""

    id = "scout-pennant"
    title = "Scout Pennant"

    def new_state(self, setup_obj: Mapping[str, Any], rulings: Mapping[str, Any],
                  base_dir: Path | None = None) -> State:
        """The starting state of a header's ``setup`` and ``rulings`` (§5.1, §3.10); ``base_dir``
        is unused (Scout Pennant set-ups name no files).

        Raises
        ------
        MalformedError
            With the header field path, e.g. ``setup.players[1].colour``.
        """
        return setup.new_state(setup_obj, rulings)

    def parse_event(self, obj: Mapping[str, Any], state: State | None = None) -> Event:
        """One JSON event as an :class:`Event` (§5.2); with ``state`` the actor must be a seat.

        Raises
        ------
        MalformedError
            For the malformed cases of §5.3.
        """
        return events.parse_event(obj, state.cfg.n if state is not None else None,
                                  state is not None and state.cfg.rolls is not None)

    def legal_events(self, state: State) -> list[Event]:
        """Every event :meth:`apply` accepts now (§3.1-§3.8), builds in canonical arrow order (see :mod:`.legal`)."""
        return legal.legal_events(state)

    def apply(self, state: State, event: Event) -> State | Refusal:
        """The state after ``event`` or a falsy :class:`Refusal` with a §5.3 reason code."""
        return rules.apply(state, event)

    def summary(self, state: State) -> dict[str, Any]:
        """The §5.4 summary."""
        return views.summary(state)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """What ``seat`` (or the table, ``None``) may know: everything but the future d8 rolls (§3.8, §5.1).

        Raises
        ------
        ValueError
            For a seat that does not play.
        """
        return views.view(state, seat)


    def observations(self, state: State, event: Event) -> tuple[str, ...]:
        """A roll's ``value`` when the header deals the rolls (``setup.rolls``: the assistant's
        own d8, which it rolls); a physical d8 is read by everyone at once and hides nothing."""
        return ("value",) if event.type == "roll" and state.cfg.rolls is not None else ()

    def complete(self, state: State, event: Event, rng: Any = None) -> Event:
        """A roll of the assistant's own d8 once ``setup.rolls`` is used up: ``rng`` rolls it (1
        without one). While the list lasts the engine reads the next roll itself."""
        if event.type != "roll" or event.get("value") is not None or state.cfg.rolls is None \
                or rules.cfg_roll(state) is not None:
            return event
        return Event.make(event.actor, "roll", extra=dict(event.extra), value=rng.randint(1, 8) if rng else 1)

    def reveals(self, state: State, event: Event) -> bool:
        """A d8 roll (§5.1) is chance shown: it cannot be undone. Everything else is open."""
        return event.type == "roll"

    def to_move(self, state: State) -> int | None:
        """The seat to move (rules §3.1), ``None`` once the game is over."""
        return None if state.result != "ongoing" else state.to_move

    def board_svg(self, state: State, view: Mapping[str, Any]) -> str:
        """The hex board as SVG (:func:`~.drawing.board_svg`); the board has no secrets."""
        return drawing.board_svg(view)

    def add_commands(self, subparsers: Any) -> None:
        """Register ``assistant pnml`` (see :mod:`.commands`)."""
        commands.add_commands(subparsers)


GAME = ScoutPennant()
