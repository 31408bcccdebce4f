"""Discovery Island (two players, hidden positions): the rules engine plug-in.

Rules: ``shared/rules/discovery-island.md``. Module map:

- ``geometry``: odd-q offset files, axial hexes, directions, distance;
- ``data``: equipment, events and tile-supply files with their validators; ``island``: the map
  file, its validator and the shipped example island; ``generator``: seeded islands of any size;
- ``setup``: header -> starting state; ``events``: the record vocabulary;
- ``rules``: the §7.4 check order and every rule; ``knowledge``: possible positions, landings
  and treasure caches; ``legal``: enumeration; ``views``: the summary and per-player views;
- ``simulate``: seeded random games.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from ..base import Event, Game, Refusal
from . import commands, drawing, events, legal, rules, setup, views
from .rules import WALKER_STEPS
from .state import State


class DiscoveryIsland(Game):
    """Discovery Island behind the shared :class:`~assistant.games.base.Game` interface."""

    id = "discovery-island"
    title = "Discovery Island"

    def new_state(self, setup_obj: Mapping[str, Any], rulings: Mapping[str, Any],
                  base_dir: Path | None = None) -> State:
        return setup.new_state(setup_obj, rulings, base_dir)

    def parse_event(self, obj: Mapping[str, Any], state: State | None = None) -> Event:
        given = state.cfg.rulings if state is not None else {k: v[0] for k, v in setup.RULINGS.items()}
        return events.parse_event(obj, given, state is not None and state.cfg.digital)

    def legal_events(self, state: State) -> list[Event]:
        return legal.legal_events(state)

    def apply(self, state: State, event: Event) -> State | Refusal:
        return rules.apply(state, event)

    def summary(self, state: State) -> dict[str, Any]:
        return views.summary(state)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return views.view(state, seat)


    def reveals(self, state: State, event: Event) -> bool:
        """Every step shows the walker a tile or a label, a clue or a cache's content, and a
        relocation moves it unseen (§6.1): none of those can be undone. Only the choice of
        equipment for an event can."""
        return event.type not in ("event_resolved", "end_march", "skip_march")

    def event_view(self, event: Mapping[str, Any], seat: int | None) -> dict[str, Any] | None:
        """§6.1: where a lost walker is put (``relocate.to``) is known to its opponent only; a
        clue's content (``learn_clue.clue``) to the walker who learned it only. The public
        table sees neither."""
        shown = dict(event)
        if event.get("type") == "relocate" and seat != event.get("actor"):
            shown.pop("to", None)
        if event.get("type") == "learn_clue" and seat != event.get("actor"):
            shown.pop("clue", None)
        return shown

    def amend_setup(self, setup: Mapping[str, Any], changes: Mapping[str, Any], seat: int | None) -> dict[str, Any]:
        """§5.1: each player chooses, in secret, where the *other* lands; a seat may set only
        ``{"landing": [col, row]}`` (its opponent's landing hex). The referee may change anything."""
        if seat is None:
            return {**setup, **changes}
        if set(changes) != {"landing"}:
            raise PermissionError(f"Player {seat + 1} may only choose where the opponent lands: send {{\"landing\": [col, row]}}.")
        landing = [list(h) for h in setup["landing"]]
        landing[1 - seat] = changes["landing"]
        return {**setup, "landing": landing}

    def refusal_view(self, refusal: Refusal, seat: int | None) -> str:
        """§6.1: engine messages name island hexes, clues and the treasure; everyone but the
        referee hears a fixed sentence per reason code (:func:`~.views.table_sentence`)."""
        return views.table_sentence(refusal.reason)

    #: a clue or a cache's content that does not match the digital checkometer's deal (§7.4)
    observation_reasons = frozenset({"clue_mismatch", "cache_result_mismatch"})

    def poster(self, event: Event) -> int | None:
        """§5.4, §6.1: the walker's steps (the tile laid, "hav"), and its clue and cache actions,
        depend on its true hex, which it must not learn even from a refusal: the opponent, who
        lays the tiles and knows that hex, enters them (or the referee). The walker posts only
        what does not depend on it (ending or skipping a march, resolving an event)."""
        if event.type in WALKER_STEPS:
            return 1 - event.actor
        return event.actor

    def observations(self, state: State, event: Event) -> tuple[str, ...]:
        """A clue read at a checkpoint and whether a cache held the treasure (§5.9, §5.10): with a
        digital checkometer the engine answers when they are left out; a physical one is read by
        the walker and entered by the referee."""
        return {"learn_clue": ("clue",), "open_cache": ("found",)}.get(event.type, ())

    def legal_view(self, state: State, seat: int | None) -> list[Event]:
        """Each seat is offered what it may post (:meth:`poster`): the walker ends or skips its
        march and resolves events with its cards; the opponent enters the walker's steps and
        relocates it. The public table is shown only ending or skipping the march: the walker's
        cards and hex are not the table's to know (§6.1)."""
        if seat is None:
            return [e for e in self.legal_events(state) if e.type in ("end_march", "skip_march")]
        return super().legal_view(state, seat)

    def to_move(self, state: State) -> int | None:
        """The walker (rules §5.2), ``None`` once the treasure is found."""
        return None if state.result != "ongoing" else state.walker

    def board_svg(self, state: State, view: Mapping[str, Any]) -> str:
        """The island (the map is public) with what ``view`` holds (:func:`~.drawing.board_svg`)."""
        return drawing.board_svg(state.cfg.island, view)

    def add_commands(self, subparsers: Any) -> None:
        commands.add_commands(subparsers)


GAME = DiscoveryIsland()
