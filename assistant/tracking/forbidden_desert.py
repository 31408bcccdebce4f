"""Forbidden Desert on the table: slots, what each state should look like, and corrections.

Slots of cell ``(r, c)``:

- ``("face", r, c)``: ``storm`` (the empty cell), a back class (``dune_back``, ``water_back``,
  ``crash_site_back``) or, once excavated, the face (``well``, ``gear``, ``clue_engine_row``...);
- ``("sand", r, c)``: ``none``, ``light`` (one marker) or ``dark`` (two or more: only the top
  marker shows, so the count itself is kept by the engine);
- ``("pawns", r, c)``: the pawn colours on the tile, sorted and joined by ``+`` (``""`` for none);
- ``("parts", r, c)``: the placed parts on the tile, sorted, joined by ``+``;

and ``("card",)``: the storm card face up in the mat's card place (``none`` before the first).

Cells are named for people with a column letter and a row number, ``A1`` top-left (row 0,
column 0) to ``E5``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable, Mapping, Sequence

from ..games.base import Event
from ..games.forbidden_desert import legal
from ..games.forbidden_desert.components import ALL_CELLS, STORM_CARDS, face_of
from ..games.forbidden_desert.state import State
from ..games.forbidden_desert.tiles import observation_face
from .base import (COMMIT_BELOW, Cell, Explanation, Observation, Reading, Slot, TableModel, Tracker,
                   Verdict, search)
from .desert_cards import one_move_but_the_card, with_card_drawn, without_card
from .desert_riders import COLOUR, rider_question, rider_variants, seen_for

CARD: Slot = ("card",)
#: a storm card is committed from its reading only this sure (no later table check catches a
#: misread Sun Beats Down or Storm Picks Up), or named with no other card where one is due
#: (:meth:`ForbiddenDesertTracker._named_alone`)
CARD_CONFIDENCE, CARD_MARGIN = 0.95, 3.0
CARD_CELL = ("card",)
#: a tile's face is committed as revealed (an ``excavate``'s ``reveals``) only from a reading
#: this confident: the rules never take a reveal back, and a pawn standing on the tile can make
#: its art look like another face (on the development stress games every right reveal read
#: >= 0.95, the one wrong one 0.76)
REVEAL_CONFIDENCE = 0.9
#: sand taken off a cell a pawn arrives on in the same change is committed only on a sand
#: reading this confident (:meth:`ForbiddenDesertTracker._sand_under_pawn`): a pawn standing on
#: the marker can hide it
SAND_UNDER_PAWN_CONFIDENCE = 0.9
#: once the storm's slides have been seen, a sand reading on a cell the gate never saw change
#: contradicts the storm only this sure (:func:`corrections`): a marker laid or turned on a tile
#: in a dim room can change the picture too little for the gate, and the sand reader there
#: reads the wrong label at 0.64-0.88 (development stress games 8838 and 8840)
UNSEEN_SAND_CONFIDENCE = 0.9
#: ``Verdict.reason`` of a "nothing" verdict while a storm card the camera could not name surely
#: waits for its slides to tell which it is (:meth:`ForbiddenDesertTracker.explain`)
AWAITING_SLIDES = "awaiting_slides"
#: an ``ask`` verdict's reason when only unsure readings show an action (:meth:`ForbiddenDesertTracker._doubted`)
UNSURE_ACTION = "unsure_action"
#: actions that show on the table (the others: water, peeks, reductions come from the tablet)
VISIBLE_ACTIONS = ("move", "remove_sand", "excavate", "pick_up_part", "navigate", "end_turn")
VISIBLE_CARDS = ("dune_blaster", "jet_pack")


def colours_of(label: str) -> set[str]:
    """A pawns label (``"green+red"``, ``""`` for none) -> its set of colours."""
    return set(filter(None, label.split("+")))


def cell_name(cell: Cell) -> str:
    """``(1, 2)`` -> ``"C2"`` (column letter, row number); the card place is ``"the card place"``."""
    if cell == CARD_CELL:
        return "the card place"
    r, c = cell
    return f"{'ABCDE'[c]}{r + 1}"


def sand_level(n: int) -> str:
    """The look of ``n`` stacked sand markers: ``none``, ``light`` (1) or ``dark`` (2 or more)."""
    return "none" if n == 0 else ("light" if n == 1 else "dark")


class ForbiddenDesertTable(TableModel):
    """The Forbidden Desert table (see the module docstring for the slots)."""

    game = "forbidden-desert"
    KINDS = ("face", "sand", "pawns", "parts")
    offers_guesses = True                       # a cooperative game: its moves hide nothing

    def __init__(self, cards_from_camera: bool = False):
        #: whether a Jet Pack or Dune Blaster is recognised from the table alone; by default the
        #: players enter card plays on the tablet (cards are in hand: the camera cannot see them
        #: played, and a Jet Pack to a neighbouring tile looks like a move)
        self.cards_from_camera = cards_from_camera

    def slots(self, cells: Iterable[Cell]) -> list[Slot]:
        out: list[Slot] = []
        for cell in cells:
            if cell == CARD_CELL:
                out.append(CARD)
            else:
                out.extend((kind, *cell) for kind in self.KINDS)
        return out

    def cell_of(self, slot: Slot) -> Cell:
        return CARD_CELL if slot == CARD else (slot[1], slot[2])

    def describe(self, cell: Cell) -> str:
        return cell_name(cell)

    def expected(self, state: State) -> dict[Slot, str]:
        out: dict[Slot, str] = {}
        for cell in ALL_CELLS:
            slot = state.slot_at(cell)
            if slot is None:
                out[("face", *cell)] = "storm"
                out[("sand", *cell)] = "none"
                out[("pawns", *cell)] = ""
                out[("parts", *cell)] = "+".join(sorted(state.parked))
                continue
            if state.excavated[slot]:
                face = face_of(state.ident[slot])
            else:
                back = state.cfg.backs[slot]
                face = "crash_site_back" if back == "crash_site" else back
            out[("face", *cell)] = face
            out[("sand", *cell)] = sand_level(state.sand[slot])
            out[("pawns", *cell)] = "+".join(sorted(COLOUR[state.adventurer(s)] for s in state.seats_on(slot)))
            out[("parts", *cell)] = "+".join(sorted(state.parts_on[slot]))
        shown = (state.discard + state.set_aside)[-1:] if (state.discard or state.set_aside) else []
        out[CARD] = shown[0] if shown else "none"
        return out

    def visible_events(self, state: State) -> list[Event]:
        if state.result != "ongoing":
            return []
        if state.phase == "storm":
            return []                       # storm cards are read off the card place (ForbiddenDesertTracker)
        actions = [e for e in legal.legal(state, legal.action_candidates(state)) if e.type in VISIBLE_ACTIONS]
        if not self.cards_from_camera:
            return actions
        plays = [e for e in legal.legal(state, legal.free_candidates(state))
                 if e.type == "play_equipment" and e["card"] in VISIBLE_CARDS]
        return actions + plays

    def guesses(self, state: State, before: Mapping[Slot, str], observed: Observation) -> list[Event]:
        """Moves the readings suggest, legal or not: a pawn colour that appeared on a cell (read
        without alternatives, or seen leaving another cell too) is a ``move`` there by its seat
        (for another seat, the active player's ``navigate``, or, when the active player is the
        climber on that pawn's tile and was seen leaving too, a ``move`` taking it along); sand
        gone from a neighbour is a ``remove_sand``; the active pawn's tile turned over an
        ``excavate``."""
        out: list[Event] = []
        seat_of_colour = {COLOUR[a]: i for i, a in enumerate(state.cfg.players)}
        # a pawn read leaving one cell and arriving at another is clear evidence even though each
        # reading keeps alternatives (pawn readings always do: colours are easy to misread)
        left = {c for slot, r in observed.items() if slot[0] == "pawns" and r.sure
                for c in colours_of(before.get(slot, "")) - colours_of(r.label)}
        for slot, reading in observed.items():
            paired = slot[0] == "pawns" and bool((colours_of(reading.label) - colours_of(before.get(slot, ""))) & left)
            if not reading.sure or (reading.alternatives and not paired):
                continue                              # only clear evidence names an illegal move
            kind, cell = slot[0], self.cell_of(slot)
            if kind == "pawns":
                was, now = colours_of(before.get(slot, "")), colours_of(reading.label)
                climber = state.adventurer(state.active) == "climber"
                for colour in sorted(now - was):
                    seat = seat_of_colour.get(colour)
                    if seat is None:
                        continue
                    if seat == state.active:
                        out.append(Event.make(seat, "move", to=cell))
                    elif climber and COLOUR["climber"] in left and state.pawn[seat] == state.pawn[state.active]:
                        # the active climber, on this pawn's tile, was seen leaving too (its
                        # arrival missed): it took this one along, a rider, not a push
                        out.append(Event.make(state.active, "move", to=cell, carry=seat))
                    else:
                        out.append(Event.make(state.active, "navigate", target=seat, to=cell))
            elif kind == "sand" and reading.label != before.get(slot):
                order = ("none", "light", "dark")
                if order.index(reading.label) < order.index(before.get(slot, "none")):
                    out.append(Event.make(state.active, "remove_sand", at=cell))
            elif kind == "face" and reading.label != before.get(slot) and cell == state.cell_of_seat(state.active):
                out.append(Event.make(state.active, "excavate", reveals=reading.label if reading.label in
                                      ("well", "mirage", "tunnel", "gear", "launch_pad") else None))
        return out


def faces_this_turn(model: "ForbiddenDesertTable", state: State) -> dict[Cell, set[str]] | None:
    """The face labels each cell may show until the next storm card: the one it shows now
    (:meth:`ForbiddenDesertTable.expected`) and, for a tile not yet excavated, every face its
    back still allows (:func:`~..games.forbidden_desert.legal.possible_faces`, named as the
    camera names faces: a tile whose identity a Terrascope showed, ``gear_1``, shows
    ``gear``). During a turn's actions no tile moves (only the storm slides them, rules §4),
    and an excavation turns one over (rules §3.7).

    Parameters
    ----------
    model : ForbiddenDesertTable
    state : State
        The engine's state.

    Returns
    -------
    dict (row, column) -> set of str, or None
        Every cell's labels; None when a storm card may be laid next (the storm phase, or the
        turn's actions spent: slides may follow) or the game is over.
    """
    if state.result != "ongoing" or state.phase != "actions" or state.actions_left <= 0:
        return None
    shown = model.expected(state)
    out = {}
    for cell in ALL_CELLS:
        slot = state.slot_at(cell)
        out[cell] = {shown[("face", *cell)]}
        if slot is not None and not state.excavated[slot]:
            out[cell] |= {observation_face(f) for f in legal.possible_faces(state, slot)}
    return out


def looks_alike(was: Mapping[Slot, str], want: Mapping[Slot, str], cell: Cell) -> bool:
    """Whether two expected tables (:meth:`ForbiddenDesertTable.expected`, dict slot -> label)
    show ``cell`` (row, column) with the same face, sand and parts (pawns aside)."""
    return all(was.get((kind, *cell)) == want.get((kind, *cell)) for kind in ("face", "sand", "parts"))


def corrections(model: ForbiddenDesertTable, before: State, state: State, observed: Observation,
                settled: State | None = None, seen: Iterable[Cell] | None = None) -> list[str]:
    """What to change on the table so that it matches the engine's state (after a storm card).

    Parameters
    ----------
    before : State
        The state the table showed before (tiles are followed by identity: the engine knows
        which physical tile went where, even among twenty identical dune backs).
    state : State
        The committed state (the engine has resolved the card).
    observed : dict slot -> Reading
        Readings of the cells in question (or of the whole table).
    settled : State, optional
        The state the table last matched (before the storm's first card). A tile that lies
        where it lay then, with the same face, was not touched by the storm: nobody can fix
        its face, so reading it as another tile is a misreading, not a correction (a later
        check of the whole table, :mod:`.desert_check`, still sees it). An empty cell where a
        tile should lie, or a tile on the storm's cell, is still told.
    seen : iterable of cells, optional
        The cells the camera saw change since the storm's first card was laid (with
        ``settled``). A cell the camera did not see change still shows what it showed at
        ``settled``; where the engine now expects that same face, sand and parts (the storm
        left it alone, or slid in a tile that looks the same), nothing is told: a sure-looking
        reading of other sand there is a misreading (in a dim room a marker read ``none`` at
        0.78), not a slip to correct. Once a cell other than the card place has been seen (the
        slides began), a sand reading on a cell not seen changing is told only when at least
        ``UNSEEN_SAND_CONFIDENCE`` sure, even where the engine expects other sand there.

    Returns
    -------
    list of str
        Sentences such as "slide the tile at B3 to C3", "add one sand to D2", "turn the sand on
        D2 dark side up", "take the sand off A1", "put the blue pawn on C3"; empty when every
        sure reading matches.
    """
    want = model.expected(state)
    out: list[str] = []
    # tiles the wind moved, nearest the new storm cell's old place first (the order to slide them)
    moves = [(before.cell_of[s], state.cell_of[s]) for s in range(len(state.cell_of)) if before.cell_of[s] != state.cell_of[s]]
    moves.sort(key=lambda m: abs(m[1][0] - before.storm[0]) + abs(m[1][1] - before.storm[1]))
    chain = {c for m in moves for c in m}
    untouched, left_alone, unseen = set(), set(), set()
    if settled is not None:
        was = model.expected(settled)
        untouched = {cell for cell in ALL_CELLS if cell not in chain and state.slot_at(cell) is not None
                     and state.slot_at(cell) == settled.slot_at(cell)
                     and was.get(("face", *cell)) == want.get(("face", *cell))}
        if seen is not None:
            seen = set(seen)
            left_alone = {cell for cell in ALL_CELLS if cell not in seen
                          and looks_alike(was, want, cell)}
            if seen - {CARD_CELL}:
                unseen = set(ALL_CELLS) - seen
    # pawns ride their tiles: a tile slid to the right cell carried its pawns, and pawns read on
    # a cell whose tile changed cannot be compared with the frame before, so they are not judged;
    # nor is a cell left alone, nor sand read less than sure on a cell not seen changing (above)
    observed = {s: r for s, r in observed.items() if s[0] != "pawns" and model.cell_of(s) not in left_alone
                and not (s[0] == "sand" and model.cell_of(s) in unseen and r.confidence < UNSEEN_SAND_CONFIDENCE)}
    wrong = {model.cell_of(s) for s, r in observed.items() if r.sure and r.label != want.get(s)}
    slid = set()
    if wrong & chain and any(want.get(("face", *c)) != observed[("face", *c)].label
                             for c in chain if ("face", *c) in observed and observed[("face", *c)].sure):
        for came_from, cell in moves:                # the tiles still lie where they were
            out.append(f"slide the tile at {cell_name(came_from)} to {cell_name(cell)}")
        slid = chain
    for slot_key, reading in sorted(observed.items(), key=lambda kv: str(kv[0])):
        cell = model.cell_of(slot_key)
        if not reading.sure or cell in slid or reading.label == want.get(slot_key):
            continue
        if slot_key[0] == "face" and cell in untouched and "storm" not in (reading.label, want.get(slot_key)):
            continue                             # a tile read as another tile, where nothing moved
        kind, name, need, have = slot_key[0], cell_name(cell), want.get(slot_key, ""), reading.label
        if kind == "sand":
            if have == "none":
                out.append(f"add {'one sand' if need == 'light' else 'sand, dark side up,'} to {name}")
            elif need == "none":
                out.append(f"take the sand off {name}")
            elif need == "dark":
                out.append(f"add one sand to {name} and turn the marker on {name} dark side up")
            else:
                out.append(f"turn the marker on {name} light side up (one marker)")
        elif kind == "pawns":
            have_set, need_set = set(filter(None, have.split("+"))), set(filter(None, need.split("+")))
            out += [f"put the {c} pawn on {name}" for c in sorted(need_set - have_set)]
            out += [f"take the {c} pawn off {name}" for c in sorted(have_set - need_set)]
        elif kind == "face" and need != "storm":
            out.append(f"{name} should show {need.replace('_', ' ')}")
        elif kind == "face":
            out.append(f"{name} is the storm: it must stay empty")
        elif kind == "parts":
            out.append(f"{name} should hold {need.replace('+', ' and ') or 'no part'}")
    return out


def table_matches(model: ForbiddenDesertTable, state: State, observed: Observation) -> bool:
    """Every sure reading agrees with the engine's state."""
    want = model.expected(state)
    return all(want.get(s) == r.label for s, r in observed.items() if r.sure)


__all__ = ["ForbiddenDesertTable", "ForbiddenDesertTracker", "corrections", "table_matches", "cell_name", "sand_level", "CARD", "CARD_CELL",
           "AWAITING_SLIDES", "UNSURE_ACTION"]


class ForbiddenDesertTracker(Tracker):
    """The generic tracker plus the storm: a storm card laid on the card place is committed from
    its reading alone (after the ``end_turn`` it implies), and the tracker then lists concrete
    corrections until the table shows what the engine says the wind did (``awaiting``).

    While ``awaiting`` is set, callers pass readings of the whole table, not only of the cells
    that changed.

    Jet Pack and Dune Blaster plays are entered on the tablet (``apply_tablet``) and then carried
    out on the table, which the camera checks; with ``cards_from_camera`` they are also looked
    for in what the camera sees, and a play that looks like a plain move is asked about.
    """

    def __init__(self, game, state, max_depth: int = 6, beam: int = 24, cards_from_camera: bool = False):
        super().__init__(game, ForbiddenDesertTable(cards_from_camera), state, max_depth, beam)
        self.awaiting: State | None = None      # the state the table showed before the card
        #: the storm cards an unsure reading of the card place may be, until the slides that
        #: follow (or the players) decide
        self.pending_cards: list[str] = []
        self._pending_for: State | None = None
        #: the one card an unread card place named behind "no card", while all the deck allows
        #: waits for the slides (:meth:`_named_behind_none`)
        self._pending_named: str | None = None
        #: the state before the first storm card since the table last matched
        self.storm_start: State | None = None
        #: the cells the camera saw change since the tracker last waited for nothing (no storm
        #: card committed or pending): :func:`corrections`' ``seen``
        self.storm_seen: set = set()
        #: the cells the camera saw change since the last card was laid: while a card waits for
        #: its slides (:attr:`pending_cards`), since it was laid; else in this change only
        #: (:meth:`_told_by_cells`)
        self.card_seen: set = set()

    def explain(self, observed: Observation, changed: Iterable[Cell], unsure: Iterable[Cell] = ()) -> Verdict:
        """As :meth:`Tracker.explain`, plus storm cards and the corrections that follow them.

        An unsure reading of a card place the gate saw change surely, where a card is due, that
        names one card and no other (its only rival "no card") is committed as a sure one would
        be (:meth:`_named_alone`). Any other storm card the camera cannot name surely is told by
        the slides that follow
        (:meth:`_choose_card`): an unsure reading between winds (``wind_n_2`` or ``wind_n_1``),
        and, in the storm (or once the turn's actions are spent), a change of the card place
        the camera reads as no new card but not surely (a lamp's glare can wash the place to the
        mat's white), leave the engine's state as it is and wait for the slides, saying so (a
        ``nothing`` verdict: no question while the slides can still decide). A question comes
        when they cannot: a reading that may be a card that moves no tile (Sun Beats Down,
        Storm Picks Up), a second card laid before the first one's slides
        (unless the wait was among winds and the card place now reads one of them surely),
        slides that fit no card or several. A card told by its slides keeps the table under watch (:meth:`_storm_card`).
        Known risk: players who pause partway through a stronger wind (the first of wind n 2's
        two slides) show the table wind n 1 leaves, and that card is committed where the slides
        read surely or the card place named wind n 1 alone behind "no card" (on the development
        stills one such reading named wind s 2 as wind s 1); the next slide is then asked about
        as a correction while the place stays unread, and a later sure reading of wind n 2 there
        is taken for a second card.

        Where the slides' readings are unsure (the storm's new, empty cell in a dim room), the
        cells the gate saw change may still tell the card (:meth:`_told_by_cells`), never while
        a stronger wind may be partway unless the card place read "no card" with that card
        alone behind it (:meth:`_named_behind_none`). Where a card is due, the live loop reads
        the card place with every change; when the gate saw no change there (a wind card laid
        on a wind card), that reading only narrows the cards the cells may tell
        (:meth:`_place_cards`).

        While a storm card is committed or pending (``awaiting``, :attr:`pending_cards`),
        ``changed`` must hold every cell the camera saw change since the last call: where the
        storm leaves a cell as it was, a cell that never was in ``changed`` is not judged
        (:attr:`storm_seen`, :func:`corrections`). ``unsure``: the cells of ``changed`` the gate
        was not sure changed (a pawn's lean, glare); they are explained like the others but do
        not count as seen changing when cells tell a card (:attr:`card_seen`), and an unsure
        reading there is never committed as the one thing it may be (:meth:`_named_alone`,
        :meth:`_doubted`). Once the storm
        is over, a cell it left alone that changed surely is the next turn's first action: the
        check of the storm leaves it out, and when the storm's own cells match, the change is
        explained as actions (:meth:`_beyond_storm`)."""
        changed, unsure = set(changed), set(unsure)
        place = None
        if CARD in observed and CARD_CELL not in changed and not self.wants_whole_table:
            # the card place read where the gate saw no change of it (:attr:`card_due`): a card
            # laid on one that looks alike may change it too little. That reading only narrows
            # the cards the slides may tell (:meth:`_told_by_cells`); it commits nothing here
            # (where the cells changed as nothing, the live loop then asks
            # :meth:`card_laid_unseen`)
            place = observed[CARD]
            observed = {s: r for s, r in observed.items() if s != CARD}
        card = observed.get(CARD)
        shown = self.model.expected(self.state)[CARD]
        if self._pending_for is not self.state:
            self.pending_cards = []              # the state moved on (an answer on the tablet)
        if self.awaiting is None and not self.pending_cards:
            self.storm_seen = set()              # nothing waits: the cells seen from now on
        seen_before = set(self.storm_seen)
        self.storm_seen |= changed
        surely = changed - unsure
        self.card_seen = (self.card_seen | surely) if self.pending_cards else surely
        waiting = bool(self.pending_cards) and CARD_CELL not in changed
        new = card is not None and card.label not in ("none", shown) and card.label in STORM_CARDS
        sure = new and self._card_sure(card)
        if self.pending_cards and not waiting and not (
                sure and card.label in self.pending_cards and all(self._moves_tiles(c) for c in self.pending_cards)):
            # a card laid before the slides of the one the camera could not name (a wind among
            # winds read surely at last is that card; where the wait held a card that moves no
            # tile, the card read now may be the next one)
            return self._which_card([CARD_CELL])
        if new and not waiting and not sure and CARD_CELL in changed:
            # unsure: one card named with no other is taken (_named_alone); else the cards it
            # may be, and the slides that follow decide between winds (_choose_card), the
            # players otherwise (nothing on the table can contradict a misread sun or meter
            # card). (An unsure reading of a place the gate did not see
            # change, as a whole-table read gives while a card told by its slides is watched,
            # says nothing new.)
            if self._named_alone(card, unsure):
                self.pending_cards = []
                return self._storm_card(card.label, observed)
            return self._await_slides(self._cards_named(card))
        if new and not waiting and sure:
            self.pending_cards = []
            return self._storm_card(card.label, observed)
        if (card is not None and CARD_CELL in changed and not new and not self._card_sure(card)
                and self.card_due
                and (due := self._allowed_cards())):
            # the card place changed where a card is due, and the camera cannot say which
            return self._await_slides(due, unread=True, named=self._named_behind_none(card, unsure, due))
        if waiting:
            chosen = self._choose_card(observed)
            if chosen is not None:
                return chosen
            return self._which_card(sorted(changed, key=str))
        if self.awaiting is not None:
            # cells the storm left alone that changed surely now, once the storm is over: the
            # next turn's first action (a marker taken off), not a slip of the storm to correct
            beyond = self._beyond_storm(changed - unsure, seen_before)
            fixes = corrections(self.model, self.awaiting, self.state,
                                {s: r for s, r in observed.items() if self.model.cell_of(s) not in beyond},
                                self.storm_start or self.awaiting, self.storm_seen - beyond)
            if not fixes:
                self.awaiting = None
                if beyond or self._pawn_walked(observed, changed):
                    # the storm is done (its last slides changed nothing the camera reads, or
                    # were read only now) and a cell it left alone changed, or a pawn has moved
                    # since: the next turn began, and this change is its first action
                    own = {s: r for s, r in observed.items() if self.model.cell_of(s) in changed}
                    return self.explain(own, changed, unsure)
                return Verdict("nothing", [], sorted(changed, key=str), "The table matches the storm.")
            return Verdict("ask", [], sorted(changed, key=str), "The table does not match the storm yet.",
                           corrections=fixes)
        verdict = super().explain(observed, changed)
        if verdict.kind == "nothing" and self.state.phase == "actions":
            doubted = self._doubted(observed, changed, unsure)
            if doubted is not None:
                return doubted
        if verdict.kind == "ask" and verdict.options:
            # moves that differ only in the equipment card drawn: a face read unsurely is asked
            # about first (with every card each face allows), else the card
            folded = one_move_but_the_card(verdict.options)
            which_face = self._unsure_reveal(folded, observed, changed) if folded else None
            verdict = which_face or self._card_question(verdict)
        if verdict.kind == "illegal" and not self.model.cards_from_camera and self.state.phase == "actions":
            # a card that makes this kind of change legal (a far move: Jet Pack; sand cleared out
            # of reach: Dune Blaster), held by someone but not entered
            could = {"move": "jet_pack", "remove_sand": "dune_blaster"}.get(verdict.events[0].type if verdict.events
                                                                           else "")
            held = [c for c in VISIBLE_CARDS if c == could and any(c in hand for hand in self.state.hands)]
            if held:
                names = " or ".join(c.replace("_", " ").title() for c in held)
                verdict = replace(verdict, message=f"{verdict.message} If a {names} was played, enter it on the tablet.")
        if (verdict.kind in ("ask", "illegal") and self.state.phase == "actions" and self.card_due
                and shown in STORM_CARDS):
            # the turn's actions spent: the storm's first card, laid where the gate saw no change
            # (a card like the one shown), may be told by the cells its slides changed; otherwise
            # the verdict stands (a pawn moved by a Jet Pack not entered, the next turn begun)
            told = self._told_with_place(place, observed)
            if told is not None:
                return self._storm_card(told, observed, by_slides=True)
        if verdict.kind in ("ask", "illegal") and self.state.phase == "storm" and shown in STORM_CARDS:
            # in the storm only storm cards change the table: a second card with the face of the
            # one showing covers it without a visible change of the card place, and a card the
            # camera cannot read (a lamp's glare on the place) leaves none. When the change is
            # exactly what one card does (the tiles slid and the sand laid as it says: the one
            # showing when the place reads it surely, else any the deck allows; the one showing
            # among several when the place was not seen to change), it was drawn; otherwise ask
            # (never claim an illegal move, never commit it unseen) (pawns ride their tiles and
            # are not judged on cells whose tile changed)
            cards = [shown] if card is not None and self._card_sure(card) else self._allowed_cards()
            consistent, confirmed = self._cards_fitting(cards, observed)
            if shown in confirmed and confirmed == consistent and CARD_CELL not in changed:
                # cards the table cannot tell apart (winds blocked at the edge), and the place
                # looks as it did: most likely the same face
                consistent = confirmed = [shown]
            if len(consistent) == 1 and confirmed == consistent:
                return self._storm_card(confirmed[0], observed, by_slides=True)
            if confirmed:
                self.pending_cards, self._pending_for, self._pending_named = consistent, self.state, None
                return self._which_card(sorted(changed, key=str))
            told = self._told_with_place(place, observed)
            if told is not None:
                return self._storm_card(told, observed, by_slides=True)
            return Verdict("ask", [], sorted(changed, key=str),
                           f"Was another {shown.replace('_', ' ')} card drawn?",
                           options=[[Event.make("storm", "storm_card", card=shown)]])
        return verdict

    def _doubted(self, observed: Observation, changed: set, unsure: set = frozenset()) -> Verdict | None:
        """A question (or, for a marker taken off, a commit) where the table reads as it was only
        because the readings that differ are unsure: on a cell the gate saw change, a face,
        sand or parts reading whose best label is not the engine's, which a legal action would
        explain were it sure (:func:`~.base.search` with those readings taken at their word). A dim room or a lamp's glare can leave a tile
        just excavated, or a marker just taken off, unsure; passing it as "nothing" would lose
        the action for good (the next change is read against the table as it now stands).

        Returns
        -------
        Verdict or None
            ``ask`` with reason ``UNSURE_ACTION`` (never settled by the pawns a picture shows
            standing, :meth:`~.live.LiveDesert.look_for_riders`: whether anything happened is
            the question) naming the cells read unsurely, with the actions that fit as options
            (the shortest, at most four, best first; nothing committed), or, when the best of
            them excavates, :meth:`_unsure_reveal`'s question (which face, every one the reading
            leaves open); ``commit`` when the readings that differ are all sand, on cells the gate
            saw change surely (none of ``unsure``), every legal sequence that fits them leaves
            the same table, and exactly one of them is the shortest, a single marker taken off (in a dim room a marker just taken off reads "none" at 0.48-0.56:
            development stress games 8850 and 8852, whose every such question named the action
            the players had taken); None when no such reading differs, or no legal action fits
            them (unsure noise: nothing happened)."""
        before = self.model.expected(self.state)
        doubt = {s: r for s, r in observed.items() if s[0] in ("face", "sand", "parts") and not r.sure
                 and self.model.cell_of(s) in changed and r.label != before.get(s)}
        if not doubt:
            return None
        taken = {**observed, **{s: Reading(r.label, 1.0, 10.0, r.alternatives) for s, r in doubt.items()}}
        fits = [e for e in search(self.game, self.model, self.state, taken, changed, self.max_depth, self.beam)
                if e.mismatches < COMMIT_BELOW]
        if not fits:
            return None
        # the shortest only: a detour that ends the same (there and back, then excavate) is no news
        shortest = min(len(f.events) for f in fits)
        tables = {tuple(sorted(self.model.expected(f.state).items())) for f in fits}
        fits = [e for e in fits if len(e.events) == shortest]
        cells = sorted({self.model.cell_of(s) for s in doubt}, key=str)
        if (len(fits) == 1 and shortest == 1 and fits[0].events[0].type == "remove_sand" and len(tables) == 1
                and all(s[0] == "sand" for s in doubt) and not set(cells) & unsure):
            # a marker taken off, the one thing the players may have done there: every fit
            # leaves the same table (not where a pawn read unsurely may have moved as well: a
            # pawn arriving hides the marker under it, and the shortest fit would drop the move)
            return self.commit(fits[0].events, changed, "the one legal action the sand read there fits",
                               state=fits[0].state)
        fits = fits[:4]
        reveal = self._unsure_reveal(fits[0].events, observed, changed)
        if reveal is not None:
            return replace(reveal, reason=UNSURE_ACTION)   # an excavation: which face, with the cards each allows
        what = " or ".join("; then ".join(self.model.event_text(e) for e in fit.events) for fit in fits)
        return Verdict("ask", [], sorted(changed | set(cells), key=str),
                       f"I cannot read {', '.join(map(self.model.describe, cells))} clearly: was it {what}?",
                       options=[list(fit.events) for fit in fits], reason=UNSURE_ACTION)

    def _card_question(self, verdict: Verdict) -> Verdict:
        """A question whose options differ only in the equipment card an excavation drew (a
        physical deck: the card goes to a hand, where the camera cannot read it; rules §5.3)
        becomes "which card was drawn?", offering every card still possible, not only the few
        the search kept (:mod:`.desert_cards`); any other verdict is returned as it is."""
        folded = one_move_but_the_card(verdict.options)
        if folded is None:
            return verdict
        options = with_card_drawn(self.game, self.state, folded)
        if len(options) < 2:
            return verdict
        text = "; then ".join(self.model.event_text(e) for e in folded)
        # the search's "two moves fit" is this very question; another question (an unsure
        # reading) keeps its own words first
        lead = "" if verdict.message.startswith("Two moves fit") else verdict.message + " "
        return replace(verdict, message=f"{lead}The camera saw {text}: which equipment card was drawn?",
                       options=options)

    def settle(self, best: Explanation, observed: Observation, changed: set) -> Explanation | Verdict:
        """Commit an excavation only on a face read surely (:meth:`_unsure_reveal`), sand taken
        off where a pawn just arrived only on a sure sand reading (:meth:`_sand_under_pawn`), and
        a move that may have taken a rider along only when the readings saw which pawn
        went (:mod:`.desert_riders`): against every variant of ``best`` with another rider (or
        none), a sure reading must show a pawn arriving or leaving that ``best`` expects and
        none that only the variant expects; otherwise the players are asked (a variant that fit
        as well as ``best`` was already asked about as a rival: this one fit worse, so the
        readings contradict each other about the rider).

        Returns
        -------
        Explanation or Verdict
            ``best``, or an ``ask`` verdict whose options are ``best`` first and the variants
            still in question (nothing committed).
        """
        unsure_reveal = self._unsure_reveal(best.events, observed, changed)
        if unsure_reveal is not None:
            return unsure_reveal
        before = self.model.expected(self.state)
        want = self.model.expected(best.state)
        open_ = [events for events, state in rider_variants(self.game, self.state, best.events)
                 if seen_for(before, want, self.model.expected(state), observed) not in (None, (True, False))]
        if not open_:
            return self._sand_under_pawn(best, observed, changed) or best
        options = [best.events] + open_
        return Verdict("ask", [], sorted(changed, key=str), rider_question(self.model, self.game, self.state, options),
                       options=[list(o) for o in options])

    def _sand_under_pawn(self, best: Explanation, observed: Observation, changed: set) -> Verdict | None:
        """A question when ``best`` takes sand off a cell a pawn arrives on in the same change,
        and the sand reading there (the only sign of that removal) is under
        ``SAND_UNDER_PAWN_CONFIDENCE``: a pawn standing on the marker can hide it, so "no sand"
        may be the pawn (a fresh stress game committed a move and a sand removal where only the
        move was made, the marker read ``none`` at 0.62 under the red pawn).

        Parameters
        ----------
        best : Explanation
            The search's best explanation, legal in turn from the committed state.
        observed : dict slot -> Reading
            The readings it explains (the ``sand`` slot of the cell in question).
        changed : set of cells
            The cells of the change (for highlighting).

        Returns
        -------
        Verdict or None
            ``ask`` with ``best`` and ``best`` without that removal (the last such one) as
            options, nothing committed; None when no removal in ``best`` is in doubt, or the
            rest is not legal without it (the removal is then proven).
        """
        before = self.model.expected(self.state)
        want = self.model.expected(best.state)
        for i in reversed(range(len(best.events))):
            ev = best.events[i]
            if ev.type != "remove_sand":
                continue
            cell = tuple(ev["at"])
            reading = observed.get(("sand", *cell))
            arrived = colours_of(want.get(("pawns", *cell), "")) - colours_of(before.get(("pawns", *cell), ""))
            if not arrived or reading is None or reading.confidence >= SAND_UNDER_PAWN_CONFIDENCE:
                continue
            rest, state = [e for j, e in enumerate(best.events) if j != i], self.state
            for e in rest:
                state = self.game.apply(state, e) if state else state
            if not state:
                return None
            return Verdict("ask", [], sorted(changed, key=str),
                           f"Was sand taken off {cell_name(cell)} as well? The pawn standing there may hide "
                           "the marker.", options=[list(best.events), rest])
        return None

    def _unsure_reveal(self, events: Sequence[Event], observed: Observation, changed: set) -> Verdict | None:
        """A question when ``events`` turn a tile face up whose face the camera did not read at
        ``REVEAL_CONFIDENCE`` or above (a reveal is for good, rules §3.7; a pawn standing on the
        tile, glare or a shadow can make its art look like another face).

        Parameters
        ----------
        events : sequence of Event
            An explanation, legal in turn from the committed state.
        observed : dict slot -> Reading
            The readings it explains.
        changed : set of cells
            The cells of the change (for highlighting).

        Returns
        -------
        Verdict or None
            ``ask`` naming the cell and the faces its reading leaves open that the tile's back
            still allows (``events``' face first), with ``events`` revealing each of them as
            options, completed with every equipment card each face lets a physical deck give
            (:func:`~.desert_cards.with_card_drawn`; nothing committed); None when every face
            ``events`` reveal is read surely, or they reveal none (a tile whose face is known,
            such as the crash site, names no ``reveals``).
        """
        state = self.state
        for i, ev in enumerate(events):
            if ev.type == "excavate" and ev.get("reveals") is not None:
                cell = state.cell_of_seat(ev.actor)
                reading = observed.get(("face", *cell))
                if reading is None or reading.confidence < REVEAL_CONFIDENCE:
                    allowed = legal.possible_faces(state, state.pawn[ev.actor])
                    options, faces = [], []
                    for face in [ev["reveals"], *(((reading.label,) + reading.alternatives) if reading else ())]:
                        if face in allowed and face not in faces:
                            # with a physical deck the card drawn depends on the face (a gear
                            # gives one, a launch pad none): each face with every card it allows
                            other = Event.from_params(ev.actor, ev.type, {**dict(without_card(ev).params),
                                                                          "reveals": face}, dict(ev.extra))
                            completions = with_card_drawn(self.game, self.state,
                                                          list(events[:i]) + [other] + list(events[i + 1:]))
                            if completions:
                                options += completions
                                faces.append(face)
                    names = " or ".join(f.replace("_", " ") for f in faces)
                    return Verdict("ask", [], sorted(changed | {cell}, key=str),
                                   f"Was {cell_name(cell)} excavated, and does it show {names}? "
                                   "I cannot read its face surely.", options=options or [list(events)])
            state = self.game.apply(state, ev)
        return None

    @property
    def card_due(self) -> bool:
        """Whether a storm card may be laid now: in the storm, or once the turn's actions are
        spent (the ``end_turn`` is then implied, :meth:`_after_card`)."""
        return self.state.phase == "storm" or self.state.actions_left == 0

    @property
    def wants_whole_table(self) -> bool:
        """Whether the next change should be read across the whole table: a storm card was
        committed and its slides are being checked, or an unsure card waits to be told apart
        by them."""
        return self.awaiting is not None or self.card_pending

    @property
    def card_pending(self) -> bool:
        """Whether a card the camera could not name surely waits for its slides to tell it
        (:attr:`pending_cards`, set at the state the tracker still holds)."""
        return bool(self.pending_cards) and self._pending_for is self.state

    def _choose_card(self, observed: Observation) -> Verdict | None:
        """The pending card the table now shows carried out: the one among
        :attr:`pending_cards` that no sure reading contradicts, when exactly one is left and
        its slides and sand are read surely (a wind: ``wind_s_2`` and ``wind_s_3`` move
        different tiles; :meth:`_cards_fitting`); None otherwise (the players are still
        sliding, a reading that would tell is unsure, or they are asked)."""
        consistent, confirmed = self._cards_fitting(self.pending_cards, observed)
        if len(consistent) == 1 and confirmed == consistent:
            chosen = confirmed[0]
        else:
            named = self._pending_named if self._still_named(observed.get(CARD)) else None
            chosen = self._told_by_cells(self.pending_cards, observed, named=named)
            if chosen is None:
                return None
        self.pending_cards = []
        return self._storm_card(chosen, observed, by_slides=True)

    def _still_named(self, place: Reading | None) -> bool:
        """Whether the card place, read again while the slides are awaited (``place``; None when
        it was not read), still names the card it named behind "no card" (:attr:`_pending_named`):
        read as that card, or as "no card" with it among the alternatives. A reading that names
        another card best, or no longer lists it, ends the card's claim, and the slides then
        tell it only where no stronger wind may be partway (:meth:`_told_by_cells`)."""
        named = self._pending_named
        if named is None or place is None:
            return named is not None
        return place.label == named or (place.label == "none" and named in place.alternatives)

    def _cards_fitting(self, cards: Iterable[str], observed: Observation) -> tuple[list[str], list[str]]:
        """Which storm cards of ``cards``, drawn now, the table may show, judged on the sure
        readings of ``observed`` but the pawns' and the card place's: ``(consistent,
        confirmed)``, the cards no sure reading contradicts, and of those the ones whose every
        changed slot (a slid tile, a sand marker laid) is read surely, so that the table shows
        them carried out (a card that changes no slot is never confirmed). An unsure reading
        neither counts for a card nor against it: one card is told only when it is the one
        card left consistent and it is confirmed (:meth:`_choose_card`). A slot no card of
        ``cards`` changes, on a cell the camera did not see change (:attr:`storm_seen`), speaks
        against none of them: it still shows what it showed, and a sure-looking other reading
        there is a misreading (:func:`corrections`, ``seen``)."""
        before = self.model.expected(self.state)
        wants = {card: self.model.expected(state) for card in cards if (state := self._after_card(card)) is not None}
        changing = {s for want in wants.values() for s in want if want[s] != before.get(s)}
        sure = {s: r for s, r in observed.items() if s[0] != "pawns" and s != CARD and r.sure
                and (self.model.cell_of(s) in self.storm_seen or s in changing)}
        consistent, confirmed = [], []
        for card, want in wants.items():
            if any(want.get(s) != r.label for s, r in sure.items()):
                continue
            consistent.append(card)
            moved = [s for s in want if s[0] != "pawns" and s != CARD and want[s] != before.get(s)]
            if moved and all(s in sure for s in moved):
                confirmed.append(card)
        return consistent, confirmed

    def _told_by_cells(self, cards: Sequence[str], observed: Observation, place: Reading | None = None,
                       named: str | None = None) -> str | None:
        """The one storm card of ``cards`` that the cells the camera saw change tell, though
        the readings that would confirm it slot by slot are unsure (in a dim room the storm's
        new, empty cell often reads at 0.3-0.6; :meth:`_cards_fitting` then confirms no card).

        A wind moves the storm along a line: the cells whose look it changes (the storm's old
        and new cell, every slid tile whose face or sand differs from what lay there) must all
        be among the cells seen changing since the card was laid (:attr:`card_seen`), and the
        cells seen must lie on its chain (a tile that looks like the one it replaced may still
        carry a pawn along). The card also needs evidence of its own: a sure face, sand or
        parts reading on its chain that shows what it changed there, or the card place
        (``place``, read though the gate saw no change of it) naming it best. No sure reading
        of those kinds on a cell seen changing may contradict it (a cell not seen still shows
        what it showed).

        Returns None, and the players are asked as before, unless exactly one card fits and no
        other card of ``cards`` may be partway: a stronger wind of the same direction whose
        chain holds every cell seen is what players pausing after its first slides show, and
        the cells cannot tell the two apart, unless the one card that fits is ``named``: the
        card place read "no card", unsurely, with that card alone behind it
        (:meth:`_named_behind_none`), so that it listed no stronger wind. ``named`` lifts that
        refusal only: the card still needs its sure reading on its chain. Of winds blocked at
        the board's edge that end alike, the one shown is taken when it is among them, the gate
        saw the place unchanged and ``place`` names no other card (most likely the same face,
        as :meth:`explain` takes it); else None.

        Parameters
        ----------
        cards : sequence of str
            Storm card ids the card may be (:attr:`pending_cards`, or :meth:`_place_cards`).
        observed : dict slot -> Reading
            The readings of the change (pawns are not judged: they ride their tiles).
        place : Reading, optional
            The card place's reading, when it was read though the gate saw no change there.
        named : str, optional
            The one card an unread card place named (:attr:`_pending_named`).
        """
        seen = self.card_seen - {CARD_CELL}
        before = self.model.expected(self.state)
        sure = {s: r for s, r in observed.items() if s[0] in ("face", "sand", "parts") and r.sure}
        fits, partway, tables = [], [], set()
        for card in cards:
            after = self._after_card(card)
            if after is None:
                continue
            want = self.model.expected(after)
            looks = {self.model.cell_of(s) for s in want
                     if s[0] in ("face", "sand", "parts") and want[s] != before.get(s)}
            chain = looks | {cell for cell in ALL_CELLS if after.slot_at(cell) != self.state.slot_at(cell)}
            if not looks or not seen <= chain:
                continue
            if not looks <= seen:
                # its far cells not (yet) seen: the table may show its first slides only (what is
                # read there now is the table partway, not a contradiction)
                partway.append(card)
                continue
            if any(want.get(s) != r.label for s, r in sure.items() if self.model.cell_of(s) in seen):
                continue
            shows = any(want[s] != before.get(s) and self.model.cell_of(s) in chain for s in sure)
            if shows or (place is not None and place.label == card and self._new_on_place(place)):
                fits.append(card)
                tables.add(tuple(sorted((s, v) for s, v in want.items() if s != CARD)))
        if (partway and fits != [named]) or not fits:
            return None
        if len(fits) == 1:
            return fits[0]
        shown = before[CARD]
        # winds blocked at the edge that end alike, the place not seen to change and read as
        # no other card: the face shown
        alike = len(tables) == 1 and shown in fits and CARD_CELL not in self.card_seen
        return shown if alike and (place is None or not self._new_on_place(place)) else None

    def _told_with_place(self, place: Reading | None, observed: Observation) -> str | None:
        """The card the cells tell (:meth:`_told_by_cells`, judging ``observed``, the readings of
        the change) among those a reading of the card place the gate saw no change of leaves
        open (:meth:`_place_cards`), the one card it names behind "no card"
        (:meth:`_named_behind_none`) told though a stronger wind of its direction may be
        partway; None when the cells tell none. ``place``: that reading, or None."""
        cards = self._place_cards(place)
        named = self._named_behind_none(place, set(), cards) if place is not None else None
        return self._told_by_cells(cards, observed, place, named)

    def _place_cards(self, place: Reading | None) -> list[str]:
        """The storm cards the rules accept drawn now (:meth:`_allowed_cards`) that a reading of
        the card place the gate saw no change of leaves open: when it names best a card other
        than the one shown (so a card was laid, and it is that one), its label if sure, else its
        label and alternatives; every allowed card otherwise (no reading, a place washed out by
        glare, or the card shown: no card may have been laid there at all, the new one may be
        held in a hand)."""
        allowed = self._allowed_cards()
        if place is None or not self._new_on_place(place):
            return allowed
        named = [place.label] if self._card_sure(place) else [place.label, *place.alternatives]
        return [c for c in allowed if c in named] or allowed

    def _new_on_place(self, place: Reading) -> bool:
        """Whether a card place reading names best a storm card other than the one shown."""
        return place.label in STORM_CARDS and place.label != self.model.expected(self.state)[CARD]

    def _named_alone(self, card: Reading, unsure: set = frozenset()) -> bool:
        """Whether an unsure reading ``card`` of a card place the gate saw change surely (not
        among ``unsure``), where a card is due (in the storm, or once the turn's actions are
        spent), names a storm card the rules accept now with no other card at all among its
        alternatives: not another card, nor the card shown before (a second copy of it may have
        been laid). Its one rival is then "no card" (a place a lamp's glare washed out, or one
        the camera saw only in part), which a due card, laid where the place was seen to change,
        is not; so the card is committed as a sure reading would be, and a wind's slides are then
        checked as corrections (:meth:`_storm_card`). The card reader lists every label but the
        least likely ones, together under ``CARD_RIVAL_P``
        (:func:`~..vision.detectors.desert_flat.card_reading`), so between cards the reading is
        clear, whatever its confidence (which "no card" alone pulls down: on the development
        stress games 8850 and 8852 every such unsure reading, 14 at 0.10-0.91, named the card
        laid; on the development stills 5100-5399, 6100-6399 and 7100-7349 every reading that
        named a card with only "no card" behind it, 256 at any confidence). Between two
        cards, a place the gate was not sure changed, or with actions left (the player may have
        ended the turn early, or not), the slides or the players decide."""
        return (card.label in STORM_CARDS and all(a == "none" for a in card.alternatives)
                and CARD_CELL not in unsure and self.card_due
                and self._after_card(card.label) is not None)

    def card_laid_unseen(self, card: Reading, before: Reading | None) -> Verdict | None:
        """A storm card laid where the gate saw the card place not change, read off the place
        by the live loop (:meth:`~.live.LiveDesert.look_at_card_place`): two wind cards under a
        lamp's glare look alike to the gate, and a wind blocked at the edge of the desert
        slides no tile.

        Parameters
        ----------
        card : Reading
            The card place now.
        before : Reading or None
            The card place on the still picture taken before the hand came.

        Returns
        -------
        Verdict or None
            Where a card is due and none waits for its slides (:attr:`card_due`,
            :attr:`card_pending`), ``card`` names best a storm card the rules accept now other
            than the one shown, and ``before`` did not name it too (a misreading of the place
            that stays from picture to picture is no card laid):

            - the card committed (:meth:`_storm_card`; a wind's slides then checked as
              corrections) when the reading is sure (:meth:`_card_sure`), or when it names the
              card with no other card behind it (its only rival "no card") and ``before`` named
              the card shown: the two pictures then disagree between two named cards, which a
              place washed out to "no card" does not make;
            - else the cards it names wait for their slides (:meth:`_await_slides`, which asks
              the players at once when one of them would slide no tile).

            None otherwise.
        """
        if not self.card_due or self.card_pending or not self._new_on_place(card):
            return None
        if self._after_card(card.label) is None or (before is not None and before.label == card.label):
            return None
        shown = self.model.expected(self.state)[CARD]
        alone = all(a == "none" for a in card.alternatives) and before is not None and before.label == shown
        self.pending_cards = []
        if self._card_sure(card) or alone:
            return self._storm_card(card.label, {CARD: card})
        return self._await_slides(self._cards_named(card))

    def _cards_named(self, card: Reading) -> list[str]:
        """The storm cards a reading of the card place names (its label, then its
        alternatives), other than the one shown."""
        shown = self.model.expected(self.state)[CARD]
        return [c for c in dict.fromkeys((card.label, *card.alternatives)) if c in STORM_CARDS and c != shown]

    @staticmethod
    def _card_sure(card: Reading) -> bool:
        """Whether a reading of the card place is sure enough to commit a storm card from
        (``CARD_CONFIDENCE`` and ``CARD_MARGIN``) wherever it is read; an unsure one is
        committed only when it names one card and no other (:meth:`_named_alone`)."""
        return card.confidence >= CARD_CONFIDENCE and card.margin >= CARD_MARGIN

    def _allowed_cards(self) -> list[str]:
        """The storm cards the rules accept drawn now (:meth:`_after_card`), in ``STORM_CARDS``
        order; asked only where a card is due and the camera cannot name it (a dozen rule
        applications, not on every change)."""
        return [c for c in STORM_CARDS if self._after_card(c) is not None]

    def _after_card(self, card: str) -> State | None:
        """The engine's state after storm card ``card`` were drawn now (after the ``end_turn`` it
        implies in the actions phase); None when the rules refuse it (not in the deck's pool,
        the game over)."""
        state = self.state
        for ev in ([Event.make(state.active, "end_turn")] if state.phase == "actions" else []) + [
                Event.make("storm", "storm_card", card=card)]:
            state = self.game.apply(state, ev)
            if not state:
                return None
        return state

    def _moves_tiles(self, card: str) -> bool:
        """Whether storm card ``card``, drawn now, changes a slot the camera reads (a wind that
        slides a tile or lays sand; not Sun Beats Down or Storm Picks Up): only such a card can
        be told by the table."""
        after = self._after_card(card)
        if after is None:
            return False
        want, had = self.model.expected(after), self.model.expected(self.state)
        return any(want[s] != had.get(s) for s in want if s != CARD)

    def _await_slides(self, cards: list[str], unread: bool = False, named: str | None = None) -> Verdict:
        """Hold ``cards`` (the storm cards the card place may show) as :attr:`pending_cards`
        until the slides tell them apart (:meth:`_choose_card`): a ``nothing`` verdict saying so
        when every one of them moves a tile, else the players' question (a reading that may be
        a card that moves no tile would leave the slides nothing to show). ``unread``: the camera
        read no card there at all (every card the deck allows is pending): it waits all the same,
        since it has nothing better to ask than "which card?", and the question comes with the
        next change if the slides do not tell (:meth:`explain`). ``named``: the one card the
        unread place named behind "no card" (:meth:`_named_behind_none`), which the slides may
        then tell though a stronger wind of its direction may be partway (:meth:`_told_by_cells`)."""
        self.pending_cards, self._pending_for, self._pending_named = list(cards), self.state, named
        if cards and (unread or all(self._moves_tiles(c) for c in cards)):
            what = ("I cannot read the storm card" if unread
                    else "The storm card is " + " or ".join(c.replace("_", " ") for c in cards))
            return Verdict("nothing", [], [CARD_CELL], f"{what}: the slides will tell which.", reason=AWAITING_SLIDES)
        return self._which_card([CARD_CELL])

    def _named_behind_none(self, card: Reading, unsure: set, due: Sequence[str]) -> str | None:
        """The one storm card an unsure reading ``card`` of the card place names behind "no
        card" where a card was laid: its label ``none``, its only alternative a card of ``due``
        (the cards the deck allows now) other than the one shown, and the place not among
        ``unsure`` (the cells the gate was not sure changed). A card was laid where the gate saw
        the place change surely where a card is due, or, where it saw no change there, where the
        cells changed as only a storm card changes them (:meth:`_told_with_place`). None
        otherwise. The card reader lists every label but the least likely ones, together
        under ``CARD_RIVAL_P`` (:func:`~..vision.detectors.desert_flat.card_reading`), so a card
        it leaves out (a stronger wind of the same direction) is less likely. It is no reading to
        commit a card from: on the development stills (second renderer, 550 card places:
        5100-5199, 5300-5399, 6100-6199, 6300-6399, 7100-7199, 7300-7349), of the 16 cards read
        so, all in stress, 7 were named right; of the nine named wrong, four sun cards were
        read as wind s 1, three winds of strength 3 as another card, a wind s 1 as sun beats
        down and a wind s 2 as wind s 1 (the one misreading the slides cannot catch, where the
        players pause after its first slide). On the development stress game video 8860, read
        from the mean of the still window, all six such readings of a place the gate saw change
        named the card drawn, and so did the one of a place it did not that told a card."""
        alts = tuple(card.alternatives)
        if card.label != "none" or len(alts) != 1 or CARD_CELL in unsure:
            return None
        shown = self.model.expected(self.state)[CARD]
        return alts[0] if alts[0] in due and alts[0] != shown else None

    def _which_card(self, cells: list) -> Verdict:
        """The players' question among :attr:`pending_cards` (every storm card the deck allows
        when the camera read none: "which storm card was drawn?")."""
        cards = self.pending_cards
        names = " or ".join(c.replace("_", " ") for c in cards)
        text = f"Is the storm card {names}?" if len(cards) <= 3 else "Which storm card was drawn?"
        return Verdict("ask", [], cells, text, options=[[Event.make("storm", "storm_card", card=c)] for c in cards])

    def _beyond_storm(self, surely: set, seen_before: set) -> set:
        """The cells the gate saw change surely (``surely``) that the storm since
        :attr:`storm_start` left alone (the same tile, face, sand and parts as before its first
        card) and that had not changed since it began (``seen_before``, :attr:`storm_seen`
        before this change: a cell a correction was asked for is the storm's), once the storm
        is over (the actions phase) and when nothing else changed surely: empty otherwise (while
        the storm goes on only its cards and slides change the table, and a change that also
        moved the storm's cells may be a hand knocking a marker during a slide)."""
        if self.state.phase != "actions":
            return set()
        start = self.storm_start or self.awaiting or self.state
        was, want = self.model.expected(start), self.model.expected(self.state)
        out = {cell for cell in surely if cell != CARD_CELL and cell not in seen_before
               and start.slot_at(cell) == self.state.slot_at(cell)
               and looks_alike(was, want, cell)}
        return out if out == surely - {CARD_CELL} else set()

    def _pawn_walked(self, observed: Observation, changed: set) -> bool:
        """Whether, in the actions phase (in the storm no pawn walks), a sure pawn reading on a
        changed cell that holds the same tile (slot) as before the storm's first card differs
        from the state. Pawns are read against the frame before that card: on a tile the storm
        slid in, even one that looks the same, their reading is not to be trusted."""
        if self.state.phase != "actions":
            return False
        want = self.model.expected(self.state)
        start = self.storm_start or self.state
        for slot, reading in observed.items():
            if slot[0] != "pawns" or not reading.sure or reading.label == want.get(slot):
                continue
            cell = self.model.cell_of(slot)
            tile = self.state.slot_at(cell)
            if cell in changed and tile is not None and tile == start.slot_at(cell):
                return True
        return False

    def _storm_card(self, card: str, observed: Observation, by_slides: bool = False) -> Verdict:
        """Commit storm card ``card`` (after the ``end_turn`` it implies) and list what the table
        must still show (``awaiting``). A card told by its slides (``by_slides``) keeps
        ``awaiting`` set even when the table already matches: players may pause partway through
        a stronger wind of the same direction, and a further slide must then be a correction to
        ask about, not a second card (a wrong commit would otherwise follow the first)."""
        state, events = self.state, []
        if self.awaiting is None:
            self.storm_start = state
        if state.phase == "actions":
            events.append(Event.make(state.active, "end_turn"))
        events.append(Event.make("storm", "storm_card", card=card))
        before = state
        for ev in events:
            after = self.game.apply(state, ev)
            if not after:
                return Verdict("illegal", [ev], [CARD_CELL], after.message, after.reason)
            state = after
        self.state = state
        self.log.extend(events)
        self.awaiting = before
        fixes = corrections(self.model, before, state, observed, self.storm_start, self.storm_seen)
        want, had = self.model.expected(state), self.model.expected(before)
        if all(want[s] == had.get(s) for s in want if s != CARD):
            self.awaiting = None                 # the card changes nothing on the table (sun, meter)
        elif not fixes and {s for s in want if s[0] != "pawns"} <= set(observed) and not by_slides:
            self.awaiting = None                 # the whole table was read and already matches
        return Verdict("commit", events, [CARD_CELL], f"Storm card {card.replace('_', ' ')}.", corrections=fixes)
