"""Whole Forbidden Desert games on webcam videos made differently from the teaching pictures.

The live loop (:class:`~..tracking.live.LiveDesert`, as ``assistant demo`` and ``assistant serve
--source`` drive it) is given videos the second renderer (:mod:`.second_renderer`) makes of a
random game: the real component photos on the printed mat, one camera, room and webcam pipeline
per game (its exposure and white balance follow what is in view, an arm included), 10 frames a
second, every frame with its own sensor noise. Each event the table shows is acted out as at a
real table: an arm reaches in from one side of the table (``REACH`` frames in, ``DWELL`` over the
cell, when the pieces change, ``REACH`` out), then the table stays still for ``HOLD`` frames. A
storm card is laid first, then the tiles slide (rules §4). The players enter on the tablet what
the table does not show (water, turn ends, a Jet Pack or Dune Blaster before they carry it out),
as the README asks.

How the table shows a state (:class:`GameTable`): the tiles of one size per game (58-66 mm),
each off its cell's centre as far as the gap to its neighbours allows (at most ``TILE_OFF_MM``)
and turned up to 3 degrees, keeping that place in its cell when it slides; excavated tiles face up, the others on their back; a sand marker per
marker on the tile (this module's look of :func:`~.second_renderer.sand_marker`, each keeping
its own), a dark side up from the second; pawns in their seat's corner of the tile; a placed
part on its tile (the photo's cut-out); the last storm card drawn on the card place.

Counted per event the table shows (:func:`play_game`), with the tracker's state compared with
the game's after each (as :func:`~.detect_forbidden_desert.play_game` counts on own renders):
committed right, wrong commits, questions, events the loop let pass (``missed``: the players
would enter them). The detector is taught from the component photos (``assistant teach --slot
table --images PHOTOS``) and the live loop is given the true intrinsics.
"""

from __future__ import annotations

import collections
import random
from pathlib import Path

import numpy as np

from ..games import get_game
from ..games.forbidden_desert.simulate import random_game, table_game, table_key
from ..tracking.forbidden_desert import ForbiddenDesertTracker
from ..tracking.live import LiveDesert
from ..vision.mats import mat_layout
from ..vision.render.desert_script import VISIBLE, VISIBLE_CARDS
from . import second_renderer as sr

#: frames per second of the videos
FPS = 10.0
#: frames of an arm reaching in (and out), of its hand over the cell, and of stillness after
REACH, DWELL, HOLD = 3, 2, 14
#: how far a tile lies from its cell's centre at most, mm (players keep the tiles roughly in
#: place; within the gap to its neighbours, the mat's cell pitch less the tile's side)
TILE_OFF_MM = 8.0
#: corners of a tile the pawns stand in, by seat (mm from the tile's centre)
SEAT_CORNERS = ((-18.0, -18.0), (18.0, -18.0), (18.0, 18.0), (-18.0, 18.0), (0.0, -20.0), (0.0, 20.0))
#: the sides of the mat an arm comes from, in turn
SIDES = ("bottom", "right", "left", "top")


class GameTable:
    """How one game's pieces look and lie on the table, kept for the whole game (the same tile
    keeps its offset, the same marker its look). ``root`` is the component photo folder."""

    def __init__(self, seed: int, root: Path):
        self.rng, self.root = random.Random(seed), Path(root)
        self.layout = mat_layout("forbidden-desert")
        self.tile_mm = self.rng.uniform(58.0, 66.0)
        self._tile: dict = {}
        self._marker: dict = {}
        self._pawn: dict = {}
        self._part: dict = {}
        self._photos: dict = {}

    def _photo(self, folder: str, stem: str) -> np.ndarray:
        if (folder, stem) not in self._photos:
            self._photos[(folder, stem)] = sr._photo(self.root, folder, stem)
        return self._photos[(folder, stem)]

    def _tile_place(self, tid: str) -> tuple:
        """A tile's offset from its cell's centre ``(dx, dy)`` mm and turn, degrees: within what
        keeps it off its neighbours (real tiles cannot overlap) and ``TILE_OFF_MM``."""
        if tid not in self._tile:
            room = min(TILE_OFF_MM, max(0.0, (self.layout.cell_pitch_mm - self.tile_mm) / 2 - 2.0))
            self._tile[tid] = (self.rng.uniform(-room, room), self.rng.uniform(-room, room), self.rng.uniform(-3.0, 3.0))
        return self._tile[tid]

    def pieces(self, board, card_state=None) -> tuple[list, list]:
        """The flat pieces and pawns that show ``board`` (a Forbidden Desert state whose tile
        ids are known), with the storm card of ``card_state`` (default ``board``) on the card
        place: ``(flats, pawns)`` in :func:`~.second_renderer.random_table`'s forms (flats
        ``(picture uint8, centre mm, (w, h) mm, angle degrees, corner mm)``, pawns ``(colour, x
        mm, y mm, radius mm, height mm)``).

        Raises
        ------
        FileNotFoundError
            When a component photo the table needs is missing.
        """
        from ..vision.detectors.desert_flat import back_of

        card_state = card_state if card_state is not None else board
        flats, pawns, centres = [], [], {}
        names = {"dune_back": "dune", "water_back": "water", "crash_site_back": "crash_site"}
        for slot, cell in enumerate(board.cell_of):
            tid = board.ident[slot]
            dx, dy, angle = self._tile_place(tid)
            cx, cy = self.layout.cell(cell).center_mm
            centre = (cx + dx, cy + dy)
            centres[cell] = centre
            photo = self._photo("tiles", tid) if board.excavated[slot] else self._photo("tile-backs", names[back_of(tid)])
            flats.append((photo, centre, (self.tile_mm, self.tile_mm), angle, 3.0))
            for k in range(board.sand[slot]):
                key = (tid, k)
                if key not in self._marker:
                    seed = self.rng.random()
                    self._marker[key] = (seed, self.rng.uniform(-4, 4), self.rng.uniform(-4, 4), self.rng.uniform(0, 360))
                seed, mx, my, turn = self._marker[key]
                pic, side = sr.sand_marker(random.Random(seed), dark=k >= 1)
                flats.append((pic, (centre[0] + mx, centre[1] + my), (side, side), turn, 0.0))
            for k, part in enumerate(sorted(board.parts_on[slot])):
                if part not in self._part:
                    self._part[part] = (self.rng.uniform(24.0, 32.0), self.rng.uniform(0, 360))
                size, turn = self._part[part]
                img = self._photo("parts", part)
                flats.append((img, (centre[0] + 12.0 - 8.0 * k, centre[1] - 12.0 + 8.0 * k),
                              (size, size * img.shape[0] / img.shape[1]), turn, 0.0))
        for seat, adventurer in enumerate(board.cfg.players):
            if adventurer not in self._pawn:
                self._pawn[adventurer] = (self.rng.uniform(-2, 2), self.rng.uniform(-2, 2), self.rng.uniform(6.5, 9.0),
                                          self.rng.uniform(26.0, 34.0))
            jx, jy, radius, height = self._pawn[adventurer]
            x, y = centres.get(board.cell_of_seat(seat), self.layout.cell(board.cell_of_seat(seat)).center_mm)
            ox, oy = SEAT_CORNERS[seat % len(SEAT_CORNERS)]
            pawns.append((sr.ADVENTURER_COLOUR[adventurer], x + ox + jx, y + oy + jy, radius, height))
        shown = (card_state.discard + card_state.set_aside)[-1:]
        if shown:
            card = shown[0]
            stem = f"wind_{card.split('_')[1].upper()}_{card.split('_')[2]}" if card.startswith("wind_") else card
            x0, y0, x1, y1 = self.layout.card_place_mm
            flats.append((self._photo("storm-cards", stem), ((x0 + x1) / 2, (y0 + y1) / 2), (63.0, 88.0), 1.5, 3.0))
        return flats, pawns

    def entry(self, side: str) -> tuple[float, float]:
        """Where an arm comes in from ``side`` of the mat, mm (beyond its outline)."""
        out = np.asarray(self.layout.outline_mm(), float)
        (x0, y0), (x1, y1) = out.min(axis=0), out.max(axis=0)
        mx, my = (x0 + x1) / 2, (y0 + y1) / 2
        return {"bottom": (mx, y1 + 120.0), "top": (mx, y0 - 120.0), "left": (x0 - 120.0, my),
                "right": (x1 + 120.0, my)}[side]


def acted_parts(states: list, events: list, cards_on_tablet: bool = True) -> list[dict]:
    """A played game cut into what the table shows, one visible event at a time (as
    :func:`~..vision.render.desert_script.script` cuts it for own renders): each part is
    ``{"shown": events the table shows, "tablet": events entered before them, "target": state
    after, "tables": [(board state, card state, where)], one per arm reaching in}``, ``where``
    ``"card"`` for the card place or None for the cells that change."""
    out, tablet = [], []
    for i, ev in enumerate(events):
        before, after = states[i], states[i + 1]
        card_play = ev.type == "play_equipment" and ev["card"] in VISIBLE_CARDS
        if card_play and cards_on_tablet:
            out.append({"shown": [], "tablet": tablet + [ev], "target": after, "tables": [(after, after, None)]})
            tablet = []
            continue
        if not (ev.type in VISIBLE or card_play):
            tablet.append(ev)
            continue
        tables = []
        if ev.type in ("storm_card", "draw_storm"):
            tables.append((before, after, "card"))
        tables.append((after, after, None))
        out.append({"shown": [ev], "tablet": tablet, "target": after, "tables": tables})
        tablet = []
    return out


def _reach_point(layout, board_before, board_after, where) -> tuple[float, float]:
    """The mat point an arm reaches for: the card place, or the middle cell that changed."""
    if where == "card":
        x0, y0, x1, y1 = layout.card_place_mm
        return ((x0 + x1) / 2, (y0 + y1) / 2)
    def look(b):
        return {cell: (b.ident[s], b.excavated[s], b.sand[s], tuple(sorted(b.parts_on[s])))
                for s, cell in enumerate(b.cell_of)} | {("seat", k): b.cell_of_seat(k) for k in range(len(b.cfg.players))}
    a, b = look(board_before), look(board_after)
    cells = sorted({k if k[0] != "seat" else b[k] for k in b if a.get(k) != b[k]}, key=str)
    cells = [c for c in cells if c[0] != "seat"] or [(2, 2)]
    return layout.cell(cells[len(cells) // 2]).center_mm


def video(game_seed: int, parts: list, start, stress: bool, root: Path, size=(1280, 720)):
    """The frames of one acted game.

    Parameters
    ----------
    game_seed : int
        Seeds the look, the pieces' places and every frame's noise.
    parts : list
        :func:`acted_parts` of the game.
    start : State
        The opening table (tile ids known).
    stress : bool
        The stacked stress conditions (:func:`~.second_renderer.draw_look`).
    root : Path
        The component photos.
    size : (W, H)
        Frame size, px.

    Yields
    ------
    (part index, image (H, W, 3) uint8 BGR)
        Part 0 is the opening table (still frames only); part ``p`` acts ``parts[p - 1]`` out.
        One look for the whole video; every frame has its own sensor noise.
    """
    rng = _game_rng(game_seed, stress)
    look = sr.draw_look(rng, size, stress)                # what game_look gives
    table = GameTable(game_seed, root)
    skin = (rng.uniform(90, 160), rng.uniform(120, 180), rng.uniform(170, 230))
    n = 0

    planes: dict = {}

    def frames(board, card_state, count, arm=None):
        nonlocal n
        key = (id(board), id(card_state))
        if key not in planes:
            flats, pawns = table.pieces(board, card_state)
            planes.clear()                               # only the table shown now is needed again
            planes[key] = (sr.table_plane(flats, pawns, look), pawns)
        lin, pawns = planes[key]
        for _ in range(count):
            yield sr.shoot(lin, pawns, look, size, game_seed * 100003 + n, arm)
            n += 1

    shown = (start, start)
    for img in frames(*shown, HOLD + 6):
        yield 0, img
    for p, part in enumerate(parts, start=1):
        for board, card_state, where in part["tables"]:
            side = SIDES[p % len(SIDES)]
            entry = table.entry(side)
            hand = _reach_point(table.layout, shown[0], board, where)
            for j in range(REACH):
                yield from ((p, img) for img in frames(*shown, 1, (entry, _towards(entry, hand, (j + 1) / REACH), skin)))
            yield from ((p, img) for img in frames(*shown, DWELL // 2, (entry, hand, skin)))
            yield from ((p, img) for img in frames(board, card_state, DWELL - DWELL // 2, (entry, hand, skin)))
            for j in range(REACH):
                at = _towards(entry, hand, 1.0 - (j + 1) / (REACH + 1))
                yield from ((p, img) for img in frames(board, card_state, 1, (entry, at, skin)))
            yield from ((p, img) for img in frames(board, card_state, HOLD))
            shown = (board, card_state)


def game_look(game_seed: int, stress: bool, size=(1280, 720)) -> "sr.Look":
    """The camera, room and sensor of game ``game_seed``'s video (:func:`video` draws the same
    first, from the same seed), e.g. for its true intrinsics ``.k`` (3, 3)."""
    return sr.draw_look(_game_rng(game_seed, stress), size, stress)


def _game_rng(game_seed: int, stress: bool) -> random.Random:
    """The random source of a game's video: its look first, then the arm's skin."""
    return random.Random(game_seed * 104729 + (1 if stress else 0))


def _towards(a, b, f: float) -> tuple[float, float]:
    """The point ``f`` of the way from ``a`` to ``b`` (mat mm)."""
    return (a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f)


def _players_enter(tracker, live, state) -> None:
    """The players put the tracker right while the table stands still after the event: the
    position ``state`` entered (no cell waits any more), and the live loop takes the table as
    it stands, with the pawns of ``state``, as its reference
    (:meth:`~..tracking.live.LiveDesert.resync`)."""
    tracker.state, tracker.awaiting = state, None
    live.pending = set()                       # the whole truth was entered: nothing waits
    live.resync()


def play_game(det, seed: int, stress: bool = False, events: int = 40, root: Path | None = None,
              debug: bool = False) -> collections.Counter:
    """Act one random game (:func:`~..games.forbidden_desert.simulate.random_game` of ``seed``,
    3 players, up to ``events`` events) on a second-renderer video and track it with the live
    loop. Returns counts: ``visible`` events the table showed, ``right`` committed right,
    ``wrong`` commits to any other position, ``ask`` questions (answered with the truth, as the
    players would), ``illegal`` claims, ``missed`` events no verdict brought in (entered for the
    players), ``unseen`` events that change nothing the camera reads (entered on the tablet).

    Raises
    ------
    FileNotFoundError
        When a component photo is missing under ``root``.
    RuntimeError
        When the tracker refuses a tablet event the script enters (a fault of the script).
    """
    from .detect_desert_unseen import PHOTOS
    from .detect_forbidden_desert import _enter

    root = Path(root or PHOTOS)
    game_obj = get_game("forbidden-desert")
    game = random_game(seed, n_players=3, max_events=events)
    _setup, start, states, physical = table_game(game)
    as_played = {id(ev): phys for ev, phys in zip(game.events, physical)}
    tracker = ForbiddenDesertTracker(game_obj, start, cards_from_camera=False)
    size = (1280, 720)
    parts = acted_parts(game.states, game.events)
    by_state = {id(s): i for i, s in enumerate(game.states)}
    k = game_look(seed, stress, size).k                         # the true intrinsics
    live = LiveDesert(det, tracker, FPS, k)
    out: collections.Counter = collections.Counter()
    current, expected = 0, None
    for index, (p, img) in enumerate(video(seed, parts, game.states[0], stress, root, size)):
        if p != current:
            if expected is not None and table_key(tracker.state) != table_key(expected):
                out["missed"] += 1                       # no verdict brought the move in: enter it
                if debug:
                    print("MISSED", p - 1, parts[p - 2]["shown"])
                _players_enter(tracker, live, expected)
            part = parts[p - 1]
            for ev in part["tablet"]:
                if ev.type != "reshuffle":
                    _enter(tracker, as_played[id(ev)])
            expected = states[by_state[id(part["target"])]]          # as the table's engine holds it
            if part["shown"] and tracker.model.expected(tracker.state) == tracker.model.expected(expected):
                for ev in part["shown"]:
                    _enter(tracker, as_played[id(ev)])
                out["unseen"] += len(part["shown"])
            else:
                out["visible"] += len(part["shown"])
            current = p
        verdict = live.process(img, index, index / FPS).verdict
        if verdict is None or verdict.kind == "nothing" or expected is None:
            continue
        right = table_key(tracker.state) == table_key(expected)
        if verdict.kind == "commit":
            out["right" if right else "wrong"] += len(verdict.events)
            if debug and not right:
                print("WRONG", p, verdict.events, "truth", parts[p - 1]["shown"])
        else:
            out[verdict.kind] += 1
            if debug:
                print(verdict.kind.upper(), p, verdict.message, "truth", parts[p - 1]["shown"])
            if not right:
                _players_enter(tracker, live, expected)
    if expected is not None and table_key(tracker.state) != table_key(expected):
        out["missed"] += 1
    return out
