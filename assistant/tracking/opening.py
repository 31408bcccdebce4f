"""The opening table read by the camera and confirmed by the referee, the same way for every game.

A game plugs in with an :class:`OpeningKit`: the cells of its table and the slots of each cell,
the labels the referee may correct a slot to, how the whole table is read from one still, which
cells break the rules' set-up or were read unsure (:meth:`OpeningKit.flags`, one sentence each)
and how the confirmed table becomes the record header's ``setup``
(:meth:`OpeningKit.setup_of`). The kits: Forbidden Desert's
(:class:`~.desert_setup.DesertOpening`), Scout Pennant's (:class:`~.pennant_setup.PennantOpening`)
and Discovery Island's (:class:`~.island_setup.IslandOpening`). The camera's reader
(:class:`~assistant.server.setup_read.TableReader`) and the lobby
(:meth:`~assistant.referee.lobby.Lobby.start_from_table`) do the rest the same way for all three.

:func:`want_flags` is the check of the kits whose set-up fixes every slot (Scout Pennant,
Discovery Island): each slot may show one of a set of labels, and a cell is flagged for the
first slot that shows another (the rules), else for a reading that is not sure
(:attr:`~.base.Reading.sure`, the trackers' own test).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from .base import Cell, Reading, Slot


class CorrectionError(ValueError):
    """A correction that cannot be used; ``str(exc)`` is one sentence."""


@dataclass(frozen=True)
class Flag:
    """One thing the referee should look at: ``cell`` (the game's cell key), ``kind``
    (``"rules"``: the reading breaks the set-up rules; ``"unsure"``: read without enough
    confidence), ``reason`` (one sentence) and ``name`` (the cell as printed, e.g. ``"0,-3"``)."""

    cell: tuple
    kind: str
    reason: str
    name: str = ""

    def to_json(self) -> dict[str, Any]:
        """``{"cell": [...], "name": ..., "kind": ..., "reason": ...}``."""
        return {"cell": list(self.cell), "name": self.name or str(self.cell), "kind": self.kind, "reason": self.reason}


def named(label: str) -> str:
    """A label in words: ``"dune_back"`` -> ``"dune back"``, ``"back:bush"`` -> ``"bush back"``,
    ``"red+blue"`` -> ``"red and blue"``, ``""`` -> ``"nothing"``."""
    if label.startswith("back:"):
        label = f"{label[5:]} back"
    return label.replace("_", " ").replace("+", " and ").replace("event:", "event ") if label else "nothing"


class OpeningKit:
    """How one game's opening table is read, checked and turned into a set-up (module docstring).

    Class attributes a kit sets: ``game_id``; ``kinds`` (the slot kinds of a cell, in the order
    the referee's page shows them); ``titles`` (kind -> what the page calls it); ``allowed``
    (kind -> the labels the referee may correct such a slot to); ``board`` (``{"cols", "rows",
    "hex"}``: the page's grid, in half rows for a hex board); ``cell_help`` (the sentence
    refusing a correction of a slot the table does not have); ``secret`` (whether the set-up
    waits for the players' secret choices, as Discovery Island's does). Instance attribute
    ``layout``: the mat (:class:`~assistant.vision.mats.MatLayout`) the motion gate registers.
    """

    game_id = ""
    kinds: tuple[str, ...] = ()
    titles: dict[str, str] = {}
    allowed: dict[str, list[str]] = {}
    board: dict[str, Any] = {}
    cell_help = "That slot is not on the table."
    secret = False
    layout: Any = None

    # -- what a game says ------------------------------------------------------------------------
    def cells(self) -> list[Cell]:
        """Every cell of the table, in the order the page lists them."""
        raise NotImplementedError

    def slots_of(self, cell: Cell) -> list[Slot]:
        """The slots the referee may correct on ``cell`` (default: one per kind, ``(kind, *cell)``)."""
        return [(kind, *cell) for kind in self.kinds]

    def name(self, cell: Cell) -> str:
        """``cell`` as people name it (printed on the mat)."""
        return str(cell)

    def at(self, cell: Cell) -> tuple[int, int]:
        """``(column, row)`` of ``cell`` on the page's grid (rows in half rows on a hex board)."""
        raise NotImplementedError

    def slot_key(self, slot: Slot, cell: Cell) -> tuple[str, str]:
        """``(key, title)`` of ``slot`` in ``cell``'s correction form: the page's control id
        suffix and its label (default: the slot's kind and :attr:`titles`)."""
        return slot[0], self.titles.get(slot[0], slot[0])

    def missing(self, kind: str) -> str:
        """The label of a slot of ``kind`` that was not read (default ``""``)."""
        return ""

    def read(self, frame: Any, homography: Any, camera_matrix: Any, context: Any = None) -> dict[Slot, Reading]:
        """Every slot of the table read from one still ``(H, W, 3) uint8`` BGR with the mat's
        ``homography`` (3, 3, mm -> px) and the camera's intrinsics (3, 3); ``context`` is
        :meth:`context` of the set-up the referee asked for, when known (a kit may read with it
        as a prior), or ``None``."""
        raise NotImplementedError

    def given(self, readings: Mapping[Slot, Reading], context: Any = None) -> dict[Slot, Reading]:
        """The readings made without ``context`` (:meth:`context` of the set-up the referee
        asked for, or ``None``) as if made with it (default: unchanged); Forbidden Desert takes
        the form's players as the pawns expected on the crash site."""
        return dict(readings)

    def flags(self, readings: Mapping[Slot, Reading], context: Any = None) -> list[Flag]:
        """The cells whose reading breaks the set-up rules or is unsure (one :class:`Flag` each);
        ``context`` is :meth:`context` of the set-up the referee asked for, or ``None`` (the
        rules that hold whatever the players chose)."""
        raise NotImplementedError

    def context(self, setup: Mapping[str, Any], rulings: Mapping[str, Any] | None = None) -> Any:
        """What :meth:`flags` needs of the record header's ``setup`` the lobby made (the
        players, their colours, the engine's start state...), under the header's ``rulings``
        (the rules files' §rulings; None: the defaults); default ``None``."""
        return None

    def setup_of(self, labels: Mapping[Slot, str], setup: dict[str, Any]) -> dict[str, Any]:
        """The record header's ``setup`` of the confirmed table ``labels`` (slot -> label) and
        the lobby's ``setup`` (default: ``setup`` itself: the table had to show it exactly).

        Raises
        ------
        ValueError
            When the table cannot start the game (one sentence).
        """
        return setup

    def text(self, cell: Cell, labels: Mapping[Slot, str]) -> str:
        """A short line the page writes in ``cell`` (its name and what is read there)."""
        shown = [named(labels[s]) for s in self.slots_of(cell)
                 if labels.get(s, self.missing(s[0])) not in ("", "none", "empty", self.missing(s[0]))]
        return " · ".join([self.name(cell), *shown])

    def extra(self, labels: Mapping[Slot, str]) -> dict[str, Any]:
        """What the page shows beside the cells (default nothing)."""
        return {}

    # -- done the same way for every game ----------------------------------------------------------
    def check_slot(self, cell: Any, kind: Any, label: Any) -> Slot:
        """The slot a correction names: ``kind`` of ``cell`` (a JSON list of integers: the
        cell's key, or for a slot between two cells both keys) set to ``label``.

        Raises
        ------
        CorrectionError
            An unknown kind, a slot the table does not have, or a label not in :attr:`allowed`
            (one sentence).
        """
        if not isinstance(kind, str) or kind not in self.allowed:
            raise CorrectionError(f"Correct one of {', '.join(self.allowed)}.")
        if not isinstance(cell, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in cell):
            raise CorrectionError(self.cell_help)
        slot = (kind, *cell)
        owner = next((c for c in self.cells() if slot in self.slots_of(c)), None)
        if owner is None:
            raise CorrectionError(self.cell_help)
        if label not in self.allowed[kind]:
            raise CorrectionError(f"That {kind} is not one a set-up may show on {self.name(owner)}.")
        return slot

    def view(self, readings: Mapping[Slot, Reading], flags: Sequence[Flag],
             corrections: Mapping[Slot, str]) -> dict[str, Any]:
        """What the referee's page draws: ``{"cells": [{"cell", "name", "at", "confidence",
        KIND: label..., "slots": [{"slot", "key", "title", "label"}], "text"}], "flags": [...],
        "board": {...}}`` plus :meth:`extra`; labels are the corrected ones, a corrected slot
        counts as sure."""
        labels = {**{s: r.label for s, r in readings.items()}, **corrections}
        cells = []
        for cell in self.cells():
            slots = self.slots_of(cell)
            conf = [1.0 if s in corrections else readings[s].confidence for s in slots if s in readings]
            row: dict[str, Any] = {"cell": list(cell), "name": self.name(cell), "at": list(self.at(cell)),
                                   "confidence": round(min(conf, default=0.0), 3), "slots": [],
                                   "text": self.text(cell, labels)}
            for s in slots:
                key, title = self.slot_key(s, cell)
                label = labels.get(s, self.missing(s[0]))
                row["slots"].append({"slot": list(s), "key": key, "title": title, "label": label})
                if tuple(s[1:]) == tuple(cell) and s in labels:
                    row[s[0]] = label
            cells.append(row)
        return {"cells": cells, "flags": [f.to_json() for f in flags], "board": self.board, **self.extra(labels)}


def sure_text(confidence: float) -> str:
    """A confidence 0..1 as a whole percentage rounded down (``0.986`` -> ``"98%"``), so that a
    reading flagged for being under 99 % never reads "99% sure"."""
    return f"{int(max(0.0, min(confidence, 1.0)) * 100 + 1e-9)}%"


def _lower(title: str) -> str:
    """``"Arrow on the NE side"`` -> ``"arrow on the NE side"``."""
    return title[:1].lower() + title[1:]


def want_flags(kit: OpeningKit, readings: Mapping[Slot, Reading], want: Mapping[Slot, Sequence[str]],
               broken: Callable[[Slot, str, Sequence[str]], str], owner: Callable[[Slot], Cell]) -> list[Flag]:
    """The flags of a table each of whose slots may show only some labels.

    Parameters
    ----------
    kit : OpeningKit
    readings : dict slot -> Reading
        The table as read (corrected slots with confidence 1).
    want : dict slot -> sequence of str
        The labels each slot may show at set-up; a slot not in ``want`` is not checked.
    broken : callable
        ``broken(slot, label, wanted) -> str``: the sentence of a slot that shows ``label``.
    owner : callable
        ``owner(slot) -> cell``: the cell a slot's flag is put on.

    Returns
    -------
    list of Flag
        In :meth:`OpeningKit.cells` order, at most one per cell: the first slot (in
        :meth:`OpeningKit.slots_of` order) that breaks the set-up, else the slots read unsure
        (:attr:`~.base.Reading.sure` false), named in one sentence.
    """
    by_cell: dict[Cell, list[Slot]] = {}
    for slot in readings:
        if slot in want:
            by_cell.setdefault(owner(slot), []).append(slot)
    out: list[Flag] = []
    for cell in kit.cells():
        mine = sorted(by_cell.get(cell, ()), key=lambda s: (kit.kinds.index(s[0]) if s[0] in kit.kinds else 99, s))
        wrong = [s for s in mine if readings[s].label not in want[s]]
        if wrong:
            out.append(Flag(tuple(cell), "rules", broken(wrong[0], readings[wrong[0]].label, want[wrong[0]]),
                            kit.name(cell)))
            continue
        weak = sorted((s for s in mine if not readings[s].sure), key=lambda s: readings[s].confidence)
        if weak:
            parts = [f"the {_lower(kit.slot_key(s, cell)[1])} ({named(readings[s].label)}, "
                     f"{sure_text(readings[s].confidence)} sure)" for s in weak]
            if len(parts) <= 2:
                text = f"I read {' and '.join(parts)} on {kit.name(cell)} without enough confidence: please check it."
            else:
                text = (f"{len(parts)} readings on {kit.name(cell)} are not sure enough (the least sure: {parts[0]}): "
                        "please check them.")
            out.append(Flag(tuple(cell), "unsure", text, kit.name(cell)))
    return out
