"""Forbidden Desert (cooperative, 2-5 players): the rules engine plug-in.

Rules: ``shared/rules/forbidden-desert.md``. Module map:

- ``components``: the game declared as data (tiles, cards, adventurers, meter, rulings);
- ``state``: the position and board queries; ``setup``: header -> starting state;
- ``events``: the record vocabulary; ``rules``: the §6.4 check order and dispatch;
- ``movement``, ``digging``, ``free_actions``, ``storm``: the handlers by concept;
- ``tiles``: hidden tile identities; ``odds``: storm-loss risk; ``legal``: enumeration;
- ``views``: the summary and what each seat may see; ``hidden``: the observations an event
  carries, filled in by the engine where it holds them, and what each seat sees of an event.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from ..base import Event, Game, Refusal
from . import drawing, events, hidden, legal, rules, setup, views
from .state import State


class ForbiddenDesert(Game):
    """The Forbidden Desert game behind the shared :class:`~assistant.games.base.Game` interface."""

    id = "forbidden-desert"
    title = "Forbidden Desert"

    def new_state(self, setup_obj: Mapping[str, Any], rulings: Mapping[str, Any],
                  base_dir: Path | None = None) -> State:
        return setup.new_state(setup_obj, rulings)

    def parse_event(self, obj: Mapping[str, Any], state: State | None = None) -> Event:
        tracker = bool(state and state.cfg.rulings["storm_tracker_card"])
        return events.parse_event(obj, storm_tracker_card=tracker)

    def legal_events(self, state: State) -> list[Event]:
        return legal.legal_events(state)

    def apply(self, state: State, event: Event) -> State | Refusal:
        return rules.apply(state, event)

    def summary(self, state: State) -> dict[str, Any]:
        return views.summary(state)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return views.view(state, seat)


    def to_move(self, state: State) -> int | str | None:
        """The seat whose action phase it is, ``"storm"`` during the storm phase, ``None`` when over."""
        if state.result != "ongoing":
            return None
        return "storm" if state.phase == "storm" else state.active

    def reveals(self, state: State, event: Event) -> bool:
        """Excavations (a face, an equipment card), peeks at the storm deck and storm cards show
        what nobody knew (rules §6), so they cannot be undone."""
        return (event.type in ("excavate", "meteorologist_peek", "draw_storm", "storm_card", "reshuffle")
                or (event.type == "play_equipment" and event["card"] in ("terrascope", "storm_tracker")))

    #: a face or card that does not match what the assistant holds (§6.4)
    observation_reasons = frozenset({"observation_conflict"})

    def observations(self, state: State, event: Event) -> tuple[str, ...]:
        """``reveals``, ``draws``, ``sees``, ``seen``, a storm ``card`` and a reshuffle's
        ``order`` (:func:`~.hidden.observations`)."""
        return hidden.observations(event)

    def complete(self, state: State, event: Event, rng: Any = None) -> Event:
        """A digital reshuffle's order drawn (:func:`~.hidden.complete`); the rest the engine
        reads from its own layout and decks when applying."""
        return hidden.complete(state, event, rng)

    def event_view(self, event: Mapping[str, Any], seat: int | None) -> dict[str, Any] | None:
        """A Terrascope's sighting for its holder only, no reshuffle order (:func:`~.hidden.event_view`)."""
        return hidden.event_view(event, seat)

    def board_svg(self, state: State, view: Mapping[str, Any]) -> str:
        """The 5x5 board as SVG (:func:`~.drawing.board_svg`) from a seat's ``view``."""
        return drawing.board_svg(view)


GAME = ForbiddenDesert()
