"""The Discovery Island game state (rules §5): true positions, the march in progress, equipment
counters, clues, and each walker's own deduction of where it may be (§6.2).

The state holds every secret (it is the referee's account); :mod:`.views` decides who may see
what. It is changed only on a private copy inside :func:`.rules.apply`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping

from .data import Bundle
from .geometry import Hex
from .island import Island


@dataclass(frozen=True)
class Config:
    """What the header fixes for the whole game.

    Attributes
    ----------
    island : Island
    bundle : Bundle
        Events, equipment deck and tile supply.
    rulings : dict
        Every ruling of §5.11, defaults filled in.
    equipment : tuple of tuple of str
        The cards each player chose.
    landing : tuple of Hex
        ``landing[p]``: axial hex where player ``p`` lands (chosen by ``1 - p``).
    digital : bool
        A digital checkometer (the assistant deals the secret); else physical.
    treasure : str or None
        The treasure cache's label (digital only).
    deal : dict
        Checkpoint label -> clue object (digital only).
    first_player : int
    landing_points : tuple of int or None
        Only with the ``first_tile_points_count`` ruling.
    """

    island: Island
    bundle: Bundle
    rulings: Mapping[str, Any]
    equipment: tuple[tuple[str, ...], tuple[str, ...]]
    landing: tuple[Hex, Hex]
    digital: bool
    treasure: str | None
    deal: Mapping[str, dict]
    first_player: int
    landing_points: tuple[int, int] | None = None


@dataclass(frozen=True)
class CardState:
    """Counters of one chosen equipment card (§5.8): the marks on the owner's overlay."""

    terrain_left: tuple[tuple[str, int], ...]
    march_left: int
    used_this_march: bool = False
    discarded: bool = False

    def left(self, terrain: str) -> int:
        """Uses left in ``terrain``."""
        return dict(self.terrain_left).get(terrain, 0)

    def used_in(self, terrain: str, per_use: bool) -> "CardState":
        """The counters after one use in ``terrain``; discarded at once when no terrain use is left."""
        left = tuple((t, n - 1 if t == terrain else n) for t, n in self.terrain_left)
        march_left = self.march_left
        if per_use or not self.used_this_march:
            march_left -= 1
        return replace(self, terrain_left=left, march_left=march_left, used_this_march=True,
                       discarded=all(n == 0 for _, n in left))

    def march_ended(self) -> "CardState":
        """End of the owner's march: reset, and discard a card with no march use left."""
        return replace(self, used_this_march=False, discarded=self.discarded or self.march_left <= 0)


@dataclass
class State:
    """A Discovery Island position. Lists are indexed by player (0 or 1)."""

    cfg: Config
    pos: list[Hex]                         # true positions
    to_move: int
    sums: list[int]                        # running march sum (the mover's is live)
    begun: bool = False                    # the mover's march has had an action
    over: bool = False                     # the mover's march is over, end_march due
    pending: tuple | None = None           # ("event", kind, hex) or ("relocate", hex)
    skips: list[int] = field(default_factory=lambda: [0, 0])
    marches: list[int] = field(default_factory=lambda: [0, 0])
    cards: list[dict[str, CardState]] = field(default_factory=lambda: [{}, {}])
    used_cards: list[list[str]] = field(default_factory=lambda: [[], []])   # shown to the opponent
    taken: dict[str, int] = field(default_factory=dict)                      # checkpoint -> claimant
    clues: list[dict[str, dict | None]] = field(default_factory=lambda: [{}, {}])
    empty_caches: frozenset[str] = frozenset()
    candidates: list[frozenset[Hex]] = field(default_factory=lambda: [frozenset(), frozenset()])
    observations: list[tuple] = field(default_factory=lambda: [(), ()])     # each walker's filter inputs
    paths: list[tuple[Hex, ...]] = field(default_factory=lambda: [(), ()])  # hexes walked this march
    result: str = "ongoing"
    winner: int | None = None
    events: int = 0

    def copy(self) -> "State":
        """A copy that shares nothing mutable with this state."""
        return State(cfg=self.cfg, pos=self.pos[:], to_move=self.to_move, sums=self.sums[:], begun=self.begun,
                     over=self.over, pending=self.pending, skips=self.skips[:], marches=self.marches[:],
                     cards=[dict(c) for c in self.cards], used_cards=[u[:] for u in self.used_cards],
                     taken=dict(self.taken), clues=[dict(c) for c in self.clues], empty_caches=self.empty_caches,
                     candidates=self.candidates[:], observations=self.observations[:], paths=self.paths[:],
                     result=self.result, winner=self.winner, events=self.events)

    @property
    def walker(self) -> int:
        """The player whose day march it is."""
        return self.to_move

    def rule(self, key: str) -> Any:
        """The value of ruling ``key`` (§5.11)."""
        return self.cfg.rulings[key]
