"""Forbidden Desert's opening table read from one still, checked against the set-up rules, and
turned into the engine's set-up once the referee has confirmed it.

The set-up rules (``shared/rules/forbidden-desert.md`` §3.1, §1.2, §1.3): the 24 tiles lie desert
side up (20 ``dune_back``, 3 ``water_back``, the crash site) around the empty storm cell ``[2,2]``;
one sand marker, light side up, on each of the 8 cells at Manhattan distance 2 from the centre
and none elsewhere; the parts beside the board; every pawn on the crash site; the storm deck face
down (no card in the card place).

:func:`read_setup` reads every slot with the Forbidden Desert detector, the set-up rules taken as
a prior (players lay an opening as the rules say far more often than not): the faces jointly,
with the rules' tile counts and every tile desert side up around the storm
(:func:`~..vision.detectors.desert_flat.table_readings`, :func:`face_prior`), the crash site
where the pawns stand, then the sand, parts and pawns (:func:`pieces_prior`), each tile's blobs
also weighed whole (:func:`misplaced_doubts`: a slot sees only its share of a blob). What the camera
is unsure of reads as the rules ask; what it is sure of stands even against them, and a reading
the rules overrule is no surer than the camera left room for, so that what the camera saw
fairly clearly against the rules is flagged. :func:`setup_flags` lists every cell that breaks
the rules or was read unsure, each with one sentence. (``nats=0`` reads the table as the camera
alone sees it.) :func:`setup_from_reading` makes the record header's ``setup`` object of
a confirmed table: the layout names only the backs (``dune_back``, ``water_back``,
``crash_site``), so every face stays hidden until it is excavated, as for any physical table
(rules §5.1, example E15); the decks are physical (no ``storm_deck``/``equipment_deck``).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from ..games.forbidden_desert.components import ADVENTURERS, BACK_COUNTS, SETUP_SAND, SIZE, START_STORM
from ..vision.detectors.desert_flat import table_readings
from .base import Reading, Slot
from .opening import OpeningKit, named, sure_text
from .opening import Flag as OpeningFlag
from .forbidden_desert import CARD, cell_name, colours_of

#: a reading at least this sure (confidence) is not flagged as unsure, per slot kind: the face
#: read by the whole-table assignment, the others by the piece classifiers. Chosen on set-up
#: tables of tuning seeds 900-919 (own renderer, normal and stress), never on the bench's
#: measuring seeds: a face swap between a dune and a water back breaks no rule, so faces must be
#: very sure; a wrong sand, part or pawn reading of a correct opening always breaks a rule
#: (:func:`setup_flags`), so those need only not be a coin toss. Sand asks 0.6, not 0.5, for
#: the sake of openings laid with a mistake: where the rules overrule the camera (a marker the camera did
#: not see taken as lying on its set-up cell) the reading keeps at most what the camera left
#: the rules' label (:func:`with_prior`), so a bare set-up cell the camera called bare at
#: 40-50 % passed as holding its marker. Chosen on development tables of the second renderer
#: (24000-24059, 24500-24559 correct, 24100-24139 laid with one mistake, both lights): missed
#: sand mistakes 4 -> 1, needless flags 575 -> 590 of about 5,000 cells (0.55: 2 missed, 578)
SETUP_SURE = {"face": 0.99, "sand": 0.6, "pawns": 0.5, "parts": 0.45, "card": 0.9}
BACK_FACES = ("dune_back", "water_back", "crash_site_back")
#: the back labels the engine's layout uses (the crash site's back is named after it)
LAYOUT_BACK = {"dune_back": "dune_back", "water_back": "water_back", "crash_site_back": "crash_site"}
COLOUR_OF = {a.id: a.colour for a in ADVENTURERS.values()}
ADVENTURER_OF_COLOUR = {a.colour: a.id for a in ADVENTURERS.values()}
KINDS = ("face", "sand", "pawns", "parts")
_COLOURS = sorted({a.colour for a in ADVENTURERS.values()})
#: the labels the referee may give each kind of slot at set-up (rules §3.1): a tile's desert side
#: or the empty storm cell; no sand, one marker light side up, or more (dark side up); no pawn or
#: any set of pawns (colours ``+``-joined, sorted); parts only beside the board
ALLOWED = {"face": [*BACK_FACES, "storm"], "sand": ["none", "light", "dark"],
           "pawns": ["", *("+".join(c) for n in range(1, len(_COLOURS) + 1)
                           for c in itertools.combinations(_COLOURS, n))],
           "parts": [""]}


@dataclass(frozen=True)
class Flag(OpeningFlag):
    """One thing the referee should look at (:class:`.opening.Flag`), on a cell ``(r, c)`` or
    ``("card",)``; its ``name`` is the cell's (``"C3"``, ``"the card place"``)."""

    def __post_init__(self) -> None:
        if not self.name:
            object.__setattr__(self, "name", cell_name(self.cell))


@dataclass(frozen=True)
class ListedPawns(Reading):
    """The crash site's pawn reading when the players' list put pawns on it that the camera did
    not read there (:func:`doubt_crash_pawns`): a :class:`~.base.Reading` that also names those
    colours (``unseen``, sorted), so that :func:`setup_flags` can say which pawn to look for."""

    unseen: tuple[str, ...] = ()


@dataclass
class SetupReading:
    """What :func:`read_setup` read.

    Attributes
    ----------
    readings : dict slot -> Reading
        Every slot of the table (``("face", r, c)``, ``("sand", r, c)``, ``("pawns", r, c)``,
        ``("parts", r, c)``, ``("card",)``), labels as in :mod:`.forbidden_desert`.
    flags : list of Flag
        :func:`setup_flags` of the readings.
    """

    readings: dict
    flags: list = field(default_factory=list)

    def cell(self, cell: tuple) -> dict[str, Reading]:
        """The readings of one cell ``(r, c)`` by kind (``face``, ``sand``, ``pawns``, ``parts``)."""
        return {kind: self.readings[(kind, *cell)] for kind in KINDS if (kind, *cell) in self.readings}

    def confidence(self, cell: tuple) -> float:
        """The least confidence (0..1) of a cell's readings."""
        return min((r.confidence for r in self.cell(cell).values()), default=0.0)

    @property
    def storm(self) -> tuple | None:
        """The cell read as the storm, or None when not exactly one cell is."""
        found = [s[1:] for s, r in self.readings.items() if s[0] == "face" and r.label == "storm"]
        return tuple(found[0]) if len(found) == 1 else None

    def labels(self) -> dict[Slot, str]:
        """The best label of every slot."""
        return {slot: r.label for slot, r in self.readings.items()}

    def to_json(self) -> dict[str, Any]:
        """Per cell its labels and confidence, and the flags: what the referee view shows over
        the board (``{"cells": [{"cell": [r, c], "name": "A1", "face": ..., "sand": ...,
        "pawns": ..., "parts": ..., "confidence": float}, ...], "card": str, "flags": [...]}``)."""
        cells = []
        for r in range(SIZE):
            for c in range(SIZE):
                row = {"cell": [r, c], "name": cell_name((r, c)), "confidence": round(self.confidence((r, c)), 3)}
                row.update({kind: reading.label for kind, reading in self.cell((r, c)).items()})
                cells.append(row)
        card = self.readings.get(CARD)
        return {"cells": cells, "card": card.label if card else "none", "flags": [f.to_json() for f in self.flags]}


def setup_sand_cells(storm: tuple = START_STORM) -> set[tuple]:
    """The cells that get one sand marker at set-up (rules §3.1 step 2): Manhattan distance 2
    from ``storm`` (the rules' list ``SETUP_SAND`` for the centre)."""
    if tuple(storm) == START_STORM:
        return set(SETUP_SAND)
    return {(r, c) for r in range(SIZE) for c in range(SIZE) if abs(r - storm[0]) + abs(c - storm[1]) == 2}


_named = named


def setup_flags(readings: Mapping[Slot, Reading], players: Sequence[str] | None = None,
                sure: Mapping[str, float] = SETUP_SURE) -> list[Flag]:
    """Every cell whose reading breaks the set-up rules (§3.1) or is unsure, one flag each
    (the rules first: a cell that breaks them and is unsure is flagged for the rules).

    Parameters
    ----------
    readings : dict slot -> Reading
        Every slot of the table (see :class:`SetupReading`).
    players : list of adventurer ids, optional
        The players' adventurers (the tablet's form): their pawns must all be on the crash
        site and no other pawn on the board. Without them, pawns are only checked to stand on
        the crash site.
    sure : dict kind -> float
        The least confidence that is not unsure (default ``SETUP_SURE``).

    Returns
    -------
    list of Flag
        In row-major cell order, then the card place.
    """
    faces = {s[1:]: r for s, r in readings.items() if s[0] == "face"}
    storms = [c for c, r in faces.items() if r.label == "storm"]
    crash = [c for c, r in faces.items() if r.label == "crash_site_back"]
    sand_cells = setup_sand_cells(START_STORM)
    want_pawns = {COLOUR_OF[p] for p in players} if players is not None else None
    counts = {b: sum(r.label == b for r in faces.values()) for b in BACK_FACES}
    out: list[Flag] = []
    for cell in sorted(faces):
        name = cell_name(cell)
        face = faces[cell].label
        sand, pawns, parts = (readings.get((k, *cell), Reading("" if k != "sand" else "none")).label
                              for k in ("sand", "pawns", "parts"))
        rule = None
        if face == "storm" and cell != START_STORM:
            rule = f"{name} is read empty, but the storm starts at {cell_name(START_STORM)} with a tile on every other cell."
        elif cell == START_STORM and face != "storm":
            rule = f"{name} is the storm at set-up and must stay empty, but it is read as {_named(face)}."
        elif face == "unknown":
            rule = f"{name} matches no tile I know: check the tile there."
        elif face not in BACK_FACES and face != "storm":
            rule = f"{name} shows the {_named(face)} city side; at set-up every tile lies desert side up."
        elif face in BACK_FACES and counts[face] > BACK_COUNTS[LAYOUT_BACK[face]]:
            rule = f"{name} is one of {counts[face]} {_named(face)} tiles read; the game has {BACK_COUNTS[LAYOUT_BACK[face]]}."
        elif sand != "none" and cell == START_STORM:
            rule = f"{name} is the storm and holds no sand."
        elif cell in sand_cells and sand != "light":
            rule = (f"{name} should hold one sand marker, light side up, but it is read as "
                    f"{'no sand' if sand == 'none' else 'two or more markers (dark side up)'}.")
        elif cell not in sand_cells and sand != "none":
            rule = f"{name} should hold no sand at set-up, but a marker is read there."
        elif parts:
            rule = f"{name} holds the {_named(parts)}; at set-up the parts lie beside the board."
        elif pawns and cell not in crash:
            rule = f"{name} holds the {_named(pawns)} pawn(s); every pawn starts on the crash site."
        elif cell in crash and want_pawns is not None and colours_of(pawns) != want_pawns:
            rule = (f"{name}, the crash site, is read with {_named(pawns) if pawns else 'no'} pawn(s); the players' "
                    f"pawns are {_named('+'.join(sorted(want_pawns)))}.")
        if rule is not None:
            out.append(Flag(cell, "rules", rule))
            continue
        weak = [k for k in KINDS if (k, *cell) in readings and readings[(k, *cell)].confidence < sure[k]]
        if weak:
            listed = readings.get(("pawns", *cell))
            unseen = listed.unseen if isinstance(listed, ListedPawns) and "pawns" in weak else ()
            weak = [k for k in weak if not (unseen and k == "pawns")]
            what = " and ".join(f"the {k} ({_named(readings[(k, *cell)].label)}, "
                                f"{sure_text(readings[(k, *cell)].confidence)} sure)" for k in weak)
            texts = [f"I read {what} on {name} without enough confidence: please check it."] if weak else []
            if unseen:
                texts.append(f"I did not see the {_named('+'.join(unseen))} pawn{'s' if len(unseen) > 1 else ''} on "
                             f"{name}, the crash site: check that {'they stand' if len(unseen) > 1 else 'it stands'} "
                             "there and not beside it.")
            out.append(Flag(cell, "unsure", " ".join(texts)))
    if len(storms) != 1:
        where = ", ".join(cell_name(c) for c in storms) or "no cell"
        out.append(Flag(START_STORM, "rules", f"Exactly one cell must be empty (the storm); read: {where}."))
    if len(crash) != 1:
        out.append(Flag(START_STORM, "rules", f"The crash site is read on {len(crash)} cells; the game has one."))
    card = readings.get(CARD)
    if card is not None and card.label != "none":
        out.append(Flag(CARD, "rules", f"A storm card ({_named(card.label)}) lies face up; at set-up the storm deck "
                                       "lies face down and no card is drawn."))
    elif card is not None and card.confidence < sure["card"]:
        out.append(Flag(CARD, "unsure", "I cannot tell whether the card place is empty: please check it."))
    return out


#: how much the set-up rules (§3.1) favour, in a slot, the label they ask for (nats added to its
#: log-probability): players lay an opening as the rules say far more often than not, so a
#: reading the camera is unsure of takes the rules' label, and one it is sure of stands (a
#: reading is kept against the rules when its probability is above e^n / (1 + e^n), 0.95 at
#: n = 3). Chosen among 1, 2, 3 and 4.6 on development set-up tables of the second renderer
#: (24000-24011, normal and stress, and 24100-24114 laid with one mistake each), never on the
#: bench's measuring seeds; ``assistant bench setup`` measures how many such mistakes it then
#: leaves unflagged
SETUP_PRIOR_NATS = 3.0
SAND_LABELS = ("none", "light", "dark")


#: how much the tile most pawns are read on is favoured as the crash site (nats), and how many
#: pawn colours make a crowd (one ghost pawn read on a glary tile is not one); chosen on the
#: development tables of ``SETUP_PRIOR_NATS``
CROWD_NATS, CROWD_LEAST = 3.0, 2


def _crowded_cell(readings: Mapping[Slot, Reading]) -> tuple | None:
    """The cell ``(r, c)`` whose pawn reading names the most colours, at least ``CROWD_LEAST``
    and more than any other cell; None otherwise."""
    counts = sorted(((len(colours_of(r.label)), s[1:]) for s, r in readings.items() if s[0] == "pawns"),
                    reverse=True)
    if not counts or counts[0][0] < CROWD_LEAST or (len(counts) > 1 and counts[1][0] == counts[0][0]):
        return None
    return tuple(counts[0][1])


def face_prior(nats: float = SETUP_PRIOR_NATS) -> dict[tuple, dict[str, float]]:
    """The set-up rules as a prior on the faces (for
    :func:`~..vision.detectors.desert_flat.table_readings`): ``dict (r, c) -> dict label ->
    nats``, a tile on every cell desert side up (the three backs favoured by ``nats``, and
    ``unknown``, a cell no tile's picture fits, disfavoured by as much) around the empty storm
    cell ``START_STORM`` (``storm`` favoured there); the backs' counts are the assignment's
    own."""
    return {(r, c): ({"storm": nats} if (r, c) == START_STORM else {**{b: nats for b in BACK_FACES}, "unknown": -nats})
            for r in range(SIZE) for c in range(SIZE)}


def _distribution(r: Reading, expected: str, labels: Sequence[str] | None) -> dict[str, float]:
    """A reading's probabilities. With ``labels`` (every label of the slot), when the reading
    ranks them all (its label, then every other as an alternative, as the sand reading does),
    the first is its confidence, the second follows from its margin (the log-odds of the first
    over it), the others share the rest, none above the second (then all are scaled to sum to
    1). Otherwise (a reading copied from an unknown or storm face has no ranking; the sand
    seen on an unknown face has one) the reading's label has its confidence (clamped to 0..1)
    and ``expected`` all
    the rest (the most the camera's evidence could give it, so that a reading is overruled only
    when it is unsure); when the two are the same label the rest goes to the key ``"\\0"``
    (some other label)."""
    conf = min(max(float(r.confidence), 0.0), 1.0) if math.isfinite(r.confidence) else 0.0
    ranks = [a for a in r.alternatives if labels is not None and a in labels and a != r.label]
    if labels is not None and r.label in labels and len(ranks) == len(labels) - 1:
        ranked = [r.label, *ranks]
        margin = max(float(r.margin), 0.0) if math.isfinite(r.margin) else 0.0
        second = min(conf * math.exp(-margin), 1.0 - conf)
        rest = min(max(1.0 - conf - second, 0.0) / max(len(ranked) - 2, 1), second)
        probs = [conf, second] + [rest] * (len(ranked) - 2)
        total = sum(probs)
        if total <= 0.0:                     # nothing said at all: every label alike
            return {lab: 1.0 / len(ranked) for lab in ranked}
        return {lab: p / total for lab, p in zip(ranked, probs)}
    other = expected if expected != r.label else "\0"
    return {r.label: conf, other: 1.0 - conf}


def with_prior(r: Reading, expected: str, nats: float, labels: Sequence[str] | None = None) -> Reading:
    """``r`` with the label ``expected`` favoured by ``nats`` (Bayes' rule on
    :func:`_distribution`; ``labels``, every label of the slot when the reading ranks them all).

    Returns
    -------
    Reading
        The likeliest label, its probability, the log-odds over the runner-up (nats, >= 0) and
        the others as alternatives. When the rules overrule the camera the probability is at
        most ``1 - r.confidence``.
    """
    post = _distribution(r, expected, labels)
    post = {lab: p * (math.exp(nats) if lab == expected else 1.0) for lab, p in post.items()}
    total = sum(post.values()) or 1.0
    ranked = sorted(((p / total, lab) for lab, p in post.items()), reverse=True)
    if ranked[0][1] == "\0":           # "some other label" is likelier: the camera's label, unsure
        ranked = ranked[::-1]
    (p1, label), (p2, _second) = ranked[0], (ranked[1] if len(ranked) > 1 else (0.0, ""))
    alts = tuple(lab for _p, lab in ranked[1:] if lab != "\0")
    margin = max(0.0, math.log(max(p1, 1e-9) / max(p2, 1e-9)))
    if label != r.label:
        # the rules overrule the camera: believed only as far as the camera left room for it,
        # so that what the camera saw fairly clearly against the rules is still flagged unsure
        p1 = min(p1, 1.0 - min(max(r.confidence, 0.0), 1.0))
    return Reading(label, p1, margin, alts)


def pieces_prior(readings: Mapping[Slot, Reading], players: Sequence[str] | None = None,
                 nats: float = SETUP_PRIOR_NATS) -> dict[Slot, Reading]:
    """The sand, part and pawn readings of an opening with the set-up rules as a prior
    (:func:`with_prior`): one light sand marker on each set-up sand cell and none elsewhere
    (§3.1 step 2); no part on the board; no pawn off the crash site (the cell read as
    ``crash_site_back``; when not exactly one is, the cell whose pawn reading names the most
    colours, :func:`_crowded_cell`; when there is none either, the pawns are left as read) and,
    with ``players`` (adventurer ids, the tablet's form), exactly their pawns on it. Cells read
    as the storm or as no tile, and other slots, are returned as they are.

    Raises
    ------
    KeyError
        For an adventurer id the rules do not name.
    """
    crash = _crash_cell(readings)
    sand_cells = setup_sand_cells(START_STORM)
    want = _pawns_of(players) if players is not None else None
    # a cell read as the storm or as no tile holds nothing: its readings are copies of the
    # face's, with no evidence of their own for a prior to weigh
    bare = {tuple(s[1:]) for s, r in readings.items() if s[0] == "face" and r.label in _BARE}
    out = dict(readings)
    for slot, r in readings.items():
        kind, cell = slot[0], tuple(slot[1:])
        if cell in bare:
            continue
        if kind == "sand":
            out[slot] = with_prior(r, "light" if cell in sand_cells else "none", nats, SAND_LABELS)
        elif kind == "parts":
            out[slot] = with_prior(r, "", nats)
        elif kind == "pawns" and crash is not None and cell != crash:
            out[slot] = with_prior(r, "", nats)
        elif kind == "pawns" and crash is not None and want is not None:
            out[slot] = with_prior(r, want, nats)
    return out


def doubt_crash_pawns(readings: Mapping[Slot, Reading], seen: Mapping[Slot, Reading]) -> dict[Slot, Reading]:
    """``readings`` (with the players' pawns favoured on the crash site, :func:`with_players`,
    and the blobs' doubts taken, :func:`misplaced_doubts`) with the crash site's pawn reading
    made unsure when it names a pawn the camera did not read there (``seen``: the readings as
    the camera made them, before the players' pawns were favoured).

    Each adventurer has one pawn (rules §1.1), and a crash site read with a pawn that stands
    elsewhere breaks no set-up rule once the players' list has put it there: like a face swap
    (``SETUP_SURE["face"]``), only the referee can tell. A pawn that only the list puts on the
    crash site is therefore always asked about (an unsure pawn reading, :data:`SETUP_SURE`,
    which :func:`setup_flags` words as "I did not see the yellow pawn on ..."): the pawn set
    beside the crash site that the camera missed, or saw only as a doubtful blob, is found
    there. On development tables of the second renderer laid with one mistake (25400-25459
    normal, 26400-26459 and 24100-24139 stress; the first two were session 17's fresh sets) the
    list completed the crash site 0.51-0.68 sure and unflagged on 6 of the 32 tables with a pawn
    set beside it; on correct tables (22400, 24000 normal, 23300, 23400, 24500 stress, 60 each)
    it rightly did so, 0.50-0.79 sure, on 63 of 300, now asked about too (flags on cells read
    right +14, +3, +3 on 24000, 24500, 23300: the others' crash sites were flagged already for
    another slot). Asking only while another cell's pawn or part reading was unsure (the rule
    before) left those 6 silent.

    Returns
    -------
    dict slot -> Reading
        A copy; the crash site's pawn reading, when the list added a pawn to it, a
        :class:`ListedPawns` with the same label and alternatives, confidence just under
        ``SETUP_SURE["pawns"]`` (or lower, as it was), margin 0, and the added colours. Unchanged
        when there is no crash site (:func:`_crash_cell`) or it has no pawn reading in both.
        Raises nothing of its own."""
    crash = _crash_cell(readings)
    slot = ("pawns", *crash) if crash is not None else None
    if slot is None or slot not in readings or slot not in seen:
        return dict(readings)
    r = readings[slot]
    added = colours_of(r.label) - colours_of(seen[slot].label)
    out = dict(readings)
    if added:
        out[slot] = ListedPawns(r.label, min(r.confidence, math.nextafter(SETUP_SURE["pawns"], 0.0)), 0.0,
                                r.alternatives, tuple(sorted(added)))
    return out


#: a tile off the crash site one of whose blobs is at least this likely a piece the set-up puts
#: nowhere on the board but the crash site (:func:`~..vision.detectors.desert_pieces.
#: misplaced_share`: a part, a dark marker, a pawn) is flagged whatever its slots read. Each slot
#: sees only its share of such a blob (a pawn on a marker reads about a third each dark marker,
#: pawn and part, so that every slot is sure of "nothing" once the rules are a prior). Chosen
#: among 0.6-0.88 on development tables of the second renderer (24100-24139 laid with one
#: mistake, 24000-24059 normal and 24500-24559 stress correct, in both lights): 6 of the 8
#: mistakes left silent found, 1 needless flag on about 4,400 tiles read off the crash site
#: (0.7: 7 and 16; 0.85: 4 and 0)
MISPLACED_LEAST = 0.8


def misplaced_doubts(readings: Mapping[Slot, Reading], blob_probs: Mapping[tuple, Any],
                     least: float = MISPLACED_LEAST) -> dict[Slot, Reading]:
    """``readings`` with the doubt of the blobs taken whole: on each tile but the crash site
    (:func:`_crash_cell`), when a blob is at least ``least`` likely a piece that may not lie
    there at set-up, each slot holding a fair share of it (a quarter or more) is no surer than
    the cell as read (confidence ``1 -`` that share, margin 0), so :func:`setup_flags` flags the
    cell as unsure and names those slots, the pieces for the referee to look for (every
    ``SETUP_SURE`` is above ``1 - MISPLACED_LEAST``).

    Parameters
    ----------
    readings : dict slot -> Reading
        The table's readings (after :func:`pieces_prior`).
    blob_probs : dict (r, c) -> (n, len(CLASSES)) float
        Each tile's blob class probabilities (``blob_probs`` of
        :meth:`~..vision.detectors.forbidden_desert.FDDetector.read_pieces`).
    least : float
        The share (0..1) from which a cell is doubted (``MISPLACED_LEAST``).

    Returns
    -------
    dict slot -> Reading
        A copy; labels unchanged.

    Raises
    ------
    ValueError
        When a cell's probabilities are not ``(n, len(CLASSES))`` (from
        :func:`~..vision.detectors.desert_pieces.misplaced_share`). A cell with no readings is
        passed over.
    """
    from ..vision.detectors.desert_pieces import misplaced_share

    crash = _crash_cell(readings)
    out = dict(readings)
    for cell, probs in blob_probs.items():
        share, kinds = misplaced_share(probs, pawns_allowed=tuple(cell) == crash)
        if share < least:
            continue
        for slot in ((kind, *cell) for kind in kinds):
            r = out.get(slot)
            if r is not None and r.confidence > 1.0 - share:
                out[slot] = Reading(r.label, 1.0 - share, 0.0, r.alternatives)
    return out


def with_players(readings: Mapping[Slot, Reading], players: Sequence[str],
                 nats: float = SETUP_PRIOR_NATS) -> dict[Slot, Reading]:
    """Readings :func:`read_setup` made without the players, as if made with them: the
    crash site's pawn reading (:func:`pieces_prior` leaves it as read without players) with
    exactly the players' pawns favoured, and doubted as :func:`doubt_crash_pawns` says. Equal
    to reading with ``players`` from the start. Apply it once, to readings made without the
    players (applied again, the list would be favoured twice).

    Raises
    ------
    KeyError
        For an adventurer id the rules do not name.
    """
    crash = _crash_cell(readings)
    out = dict(readings)
    if crash is not None and ("pawns", *crash) in out and out.get(("face", *crash), Reading("")).label not in _BARE:
        out[("pawns", *crash)] = with_prior(out[("pawns", *crash)], _pawns_of(players), nats)
        out = doubt_crash_pawns(out, readings)
    return out


_BARE = ("storm", "unknown")


def _crash_cell(readings: Mapping[Slot, Reading]) -> tuple | None:
    """The cell read as ``crash_site_back`` when exactly one is; else (none read, or two) the
    cell the pawns crowd on (:func:`_crowded_cell`), or None."""
    crash = [tuple(s[1:]) for s, r in readings.items() if s[0] == "face" and r.label == "crash_site_back"]
    return crash[0] if len(crash) == 1 else _crowded_cell(readings)


def _pawns_of(players: Sequence[str]) -> str:
    """The pawn label of the players' adventurers (colours ``+``-joined, sorted); KeyError for
    an adventurer id the rules do not name."""
    return "+".join(sorted(COLOUR_OF[p] for p in players))


def read_setup(detector, frame, homography, camera_matrix, players: Sequence[str] | None = None,
               nats: float = SETUP_PRIOR_NATS) -> SetupReading:
    """Read the whole opening table from one still and flag what to check.

    Parameters
    ----------
    detector : FDDetector
        The Forbidden Desert table reader (:class:`~..vision.detectors.forbidden_desert.FDDetector`).
    frame : (H, W, 3) uint8
        BGR, undistorted (a still: the mean of the still window, or one picture).
    homography : (3, 3) float64
        Mat mm -> frame px (the registration, :func:`~..vision.registration.register`).
    camera_matrix : (3, 3) float64
        Intrinsics of ``frame`` (for the standing pawns).
    players : list of adventurer ids, optional
        See :func:`setup_flags`; with them, also the pawns expected on the crash site.
    nats : float
        How strongly the set-up rules are taken as a prior (``SETUP_PRIOR_NATS``; 0: the
        table as the camera alone reads it): the faces jointly (:func:`face_prior`), then what
        lies on each tile read on the picture the face reading chose (when no tile shows a crowd
        of pawns, read again in the table's light, ``relit`` of
        :meth:`~..vision.detectors.forbidden_desert.FDDetector.read_pieces`, and a crowd found
        so is taken with its readings there), then the sand, parts and pawns
        (:func:`pieces_prior`); with any ``nats``, a tile off the crash site with a blob that
        is likely a piece the set-up puts nowhere there is doubted (:func:`misplaced_doubts`).

    Returns
    -------
    SetupReading
        Every slot's reading with its confidence, and the flags (:func:`setup_flags`).
    """
    faces, scores = detector.read_flat(frame, homography, None, True, face_prior(nats) if nats else None)
    blob_probs: dict = {}
    readings = {**faces, **detector.read_pieces(frame, homography, camera_matrix, scores, faces, (), blob_probs,
                                                crowd=True)}
    if nats:
        crowd, relit = _crowded_cell(readings), ()
        if crowd is None:
            # every pawn starts on one tile and covers much of it (§3.1 step 5): a fit can take
            # such a crowd for the tile's art with a gain far too low, so that nothing counts
            # as covering it; the tiles read in the table's light show where the pawns stand
            lit_probs: dict = {}
            again = detector.read_pieces(frame, homography, camera_matrix, scores, faces, scores, lit_probs, crowd=True)
            crowd = _crowded_cell(again)
            if crowd is not None:
                relit = (crowd,)
                readings.update({s: r for s, r in again.items() if tuple(s[1:]) == crowd})
                blob_probs[crowd] = lit_probs[crowd]
        if crowd not in (None, START_STORM) and faces.get(("face", *crowd), Reading("")).label != "crash_site_back":
            # every pawn starts on the crash site (§3.1 step 5): the tile the pawns stand on
            # is favoured as the crash site, the faces are assigned again and, when that moves
            # the crash site, what lies on the tiles is read again on the pictures now chosen
            prior = face_prior(nats)
            prior[crowd]["crash_site_back"] += CROWD_NATS
            again = {("face", *key): Reading(r.label, r.confidence, r.margin, r.alternatives)
                     for key, r in table_readings(scores, prior).items()}
            if any(again[s].label != faces[s].label for s in again):
                # a face the crowd moved is no surer than its first reading left room for
                faces = {**faces, **{s: r if r.label == faces[s].label else
                                     Reading(r.label, min(r.confidence, 1.0 - faces[s].confidence), r.margin,
                                             r.alternatives) for s, r in again.items()}}
                blob_probs = {}
                readings = {**faces, **detector.read_pieces(frame, homography, camera_matrix, scores, faces, relit,
                                                            blob_probs, crowd=True)}
        seen = readings
        readings = pieces_prior(readings, players, nats)
    readings = misplaced_doubts(readings, blob_probs)
    if nats and players is not None:
        readings = doubt_crash_pawns(readings, seen)
    return SetupReading(readings, setup_flags(readings, players))


def _first_player(players: Sequence[str]) -> int:
    """The first seat whose adventurer has the smallest canteen (rules §3.1 step 7; the tie
    goes to the earliest seat, which the header may change, §4 ``first_player_tie``)."""
    smallest = min(ADVENTURERS[p].canteen for p in players)
    return next(i for i, p in enumerate(players) if ADVENTURERS[p].canteen == smallest)


def setup_from_reading(labels: Mapping[Slot, str], players: Sequence[str], difficulty: str,
                       first_player: int | None = None,
                       corrections: Mapping[Slot, str] | None = None) -> dict[str, Any]:
    """The record header's ``setup`` object (rules §6.1) for a confirmed opening table.

    Parameters
    ----------
    labels : dict slot -> str
        The table as read (:meth:`SetupReading.labels`).
    players : list of adventurer ids
        In seat (playing) order.
    difficulty : str
        ``novice``, ``normal``, ``elite`` or ``legendary``.
    first_player : int, optional
        Default: the first seat with the smallest canteen (rules §3.1 step 7).
    corrections : dict slot -> str, optional
        The referee's corrections, which replace the readings of those slots.

    Returns
    -------
    dict
        ``players``, ``difficulty``, ``first_player``, ``layout`` (5x5: ``dune_back``,
        ``water_back``, ``crash_site``, ``None`` at the storm: the faces stay hidden until
        excavated) and, when the table differs from the standard opening, ``position`` with
        its ``storm`` and ``sand`` (one marker per light cell, two per dark one: only the top
        marker shows, the referee corrects the count).

    Raises
    ------
    ValueError
        When the confirmed table is not a set-up the engine accepts (one sentence: a wrong
        number of backs, a face-up tile, no storm cell, a pawn off the crash site); the
        engine's own check (:func:`~..games.forbidden_desert.setup.new_state`) is run.
    """
    from ..games.base import MalformedError
    from ..games.forbidden_desert.setup import new_state

    table = {**dict(labels), **dict(corrections or {})}
    faces = {(r, c): table.get(("face", r, c), "unknown") for r in range(SIZE) for c in range(SIZE)}
    storms = [c for c, f in faces.items() if f == "storm"]
    if len(storms) != 1:
        raise ValueError(f"exactly one cell must be the storm; the table has {len(storms)}")
    storm = storms[0]
    layout: list[list[str | None]] = [[None] * SIZE for _ in range(SIZE)]
    for (r, c), face in faces.items():
        if (r, c) == storm:
            continue
        if face not in LAYOUT_BACK:
            raise ValueError(f"{cell_name((r, c))} must show a tile's desert side at set-up, not {_named(face)}")
        layout[r][c] = LAYOUT_BACK[face]
    crash = next((c for c, f in faces.items() if f == "crash_site_back"), None)
    for (r, c) in faces:
        pawns = colours_of(table.get(("pawns", r, c), ""))
        if pawns and (r, c) != crash:
            raise ValueError(f"{cell_name((r, c))} holds a pawn; every pawn starts on the crash site")
        if table.get(("parts", r, c)):
            raise ValueError(f"{cell_name((r, c))} holds a part; the parts start beside the board")
    players = list(players)
    setup: dict[str, Any] = {"players": players, "difficulty": difficulty,
                             "first_player": _first_player(players) if first_player is None else first_player,
                             "layout": layout}
    sand = {(r, c): {"none": 0, "light": 1, "dark": 2}.get(table.get(("sand", r, c), "none"), 0) for (r, c) in faces}
    position: dict[str, Any] = {}
    if storm != START_STORM:
        position["storm"] = list(storm)
    if {c for c, n in sand.items() if n} != set(SETUP_SAND) or any(n != 1 for c, n in sand.items() if n):
        position["sand"] = [[r, c, n] for (r, c), n in sorted(sand.items()) if n]
    if position:
        setup["position"] = position
    try:
        new_state(setup, {})
    except MalformedError as exc:
        raise ValueError(f"the confirmed table is not a set-up the rules accept: {exc}") from None
    return setup


def players_on_crash_site(reading: SetupReading) -> list[str]:
    """The adventurers whose pawns are read on the crash site, in the rules' adventurer order
    (for a table read without the tablet's player list)."""
    crash = [s[1:] for s, r in reading.readings.items() if s[0] == "face" and r.label == "crash_site_back"]
    if len(crash) != 1:
        return []
    colours = colours_of(reading.readings[("pawns", *crash[0])].label)
    return [a for a in ADVENTURERS if COLOUR_OF[a] in colours]


def wrong_cells(readings: Mapping[Slot, Reading], truth: Mapping[Slot, str],
                kinds: Iterable[str] = KINDS) -> set[tuple]:
    """The cells (and ``("card",)``) whose best reading of one of ``kinds`` (or the card) differs
    from ``truth`` (slot -> label): for measuring a set-up read."""
    kinds = set(kinds)
    return {tuple(s[1:]) if s != CARD else CARD for s, r in readings.items()
            if (s[0] in kinds or s == CARD) and truth.get(s) != r.label}


class DesertOpening(OpeningKit):
    """Forbidden Desert's opening table (:class:`.opening.OpeningKit`): the 5x5 cells, four
    slots each (tile, sand, pawns, parts) and the card place, read by the Forbidden Desert
    detector (:func:`read_setup`), checked by :func:`setup_flags` and started by
    :func:`setup_from_reading`.

    Parameters
    ----------
    detector : FDDetector
        The Forbidden Desert table reader (``--model``); its ``layout`` is the mat.
    """

    game_id = "forbidden-desert"
    kinds = KINDS
    titles = {"face": "Tile", "sand": "Sand", "pawns": "Pawns", "parts": "Parts"}
    allowed = ALLOWED
    board = {"cols": SIZE, "rows": SIZE, "hex": False}
    cell_help = f"A cell is [row, column], each from 0 to {SIZE - 1}."
    _SHORT = {"dune_back": "dune", "water_back": "water", "crash_site_back": "crash site"}

    def __init__(self, detector: Any):
        self.detector, self.layout = detector, detector.layout

    def cells(self) -> list[tuple]:
        """The 25 cells ``(r, c)``, row by row."""
        return [(r, c) for r in range(SIZE) for c in range(SIZE)]

    def name(self, cell: tuple) -> str:
        """``(2, 2)`` -> ``"C3"``."""
        return cell_name(cell)

    def at(self, cell: tuple) -> tuple[int, int]:
        """``(column, row)`` of the page's 5x5 grid."""
        return cell[1], cell[0]

    def missing(self, kind: str) -> str:
        """``"none"`` for sand, ``""`` for the other kinds."""
        return "none" if kind == "sand" else ""

    def read(self, frame: Any, homography: Any, camera_matrix: Any, context: Any = None) -> dict[Slot, Reading]:
        """:func:`read_setup`'s readings (every cell's four slots and the card place), made
        without the players (``context`` is not used: :meth:`given` adds them when the form
        names them, to this read and any later one)."""
        return read_setup(self.detector, frame, homography, camera_matrix).readings

    def given(self, readings: Mapping[Slot, Reading], context: Any = None) -> dict[Slot, Reading]:
        """:func:`with_players` with ``context`` as the players' adventurers (unchanged
        without them)."""
        return with_players(readings, context) if context else dict(readings)

    def flags(self, readings: Mapping[Slot, Reading], context: Any = None) -> list:
        """:func:`setup_flags` with ``context`` as the players' adventurers (or None)."""
        return setup_flags(readings, context)

    def context(self, setup: Mapping[str, Any], rulings: Mapping[str, Any] | None = None) -> list[str]:
        """The players' adventurers (their pawns must stand on the crash site); no ruling
        changes the opening table, so ``rulings`` is not used."""
        return list(setup["players"])

    def setup_of(self, labels: Mapping[Slot, str], setup: dict[str, Any]) -> dict[str, Any]:
        """:func:`setup_from_reading` of the table with the form's players and difficulty.

        Raises
        ------
        ValueError
            When the engine refuses the table (one sentence).
        """
        return setup_from_reading(labels, setup["players"], setup["difficulty"])

    def text(self, cell: tuple, labels: Mapping[Slot, str]) -> str:
        """``"C3 · storm"``, ``"A1 · dune · sand light · red and blue"``..."""
        face = labels.get(("face", *cell), "")
        bits = [cell_name(cell), self._SHORT.get(face, named(face) if face else "?")]
        sand = labels.get(("sand", *cell), "none")
        if sand != "none":
            bits.append(f"sand {sand}")
        bits += [named(labels[(k, *cell)]) for k in ("pawns", "parts") if labels.get((k, *cell))]
        return " · ".join(bits)

    def extra(self, labels: Mapping[Slot, str]) -> dict[str, Any]:
        """``{"card": label}``: what lies on the card place (``"none"`` at set-up)."""
        return {"card": labels.get(CARD, "none")}
