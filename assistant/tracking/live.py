"""The live loop for Forbidden Desert: frames -> motion gate -> readings of the changed cells ->
tracker verdicts. (The other games plug their detectors into the same loop shape.)

Pawns are read from what changed since the last committed still frame, so the loop keeps that
frame, its homography and the pawns the engine put on each cell then. A "still frame" is the mean
of the frames since the board last moved, was hidden or was read
(:class:`~..vision.motion.StillMean`, the first of them left out as still settling): a still
table does not change from frame to frame, the camera's noise does, and a pale pawn on a pale
tile in a dim room differs from the tile by little more than that noise. Cells that changed
without a committed explanation stay *pending* and are read again with every later change,
so an unresolved change is never forgotten.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from ..vision.motion import FAINT_CHANGE_BLOCKS, GateParams, StillMean
from ..vision.pipeline import BoardWatcher, WatchOutput
from .base import GUESSED, Reading, Verdict
from .desert_riders import carry_only, disputed_pawns, seen_present
from .forbidden_desert import CARD, CARD_CELL, UNSURE_ACTION, ForbiddenDesertTracker, colours_of, faces_this_turn

#: after a storm card the whole table is read with the faces the engine now expects favoured
#: by this many nats (:func:`expected_faces`, guarded as
#: :meth:`~..vision.detectors.forbidden_desert.FDDetector.read` says: where the prior overturns
#: the camera, the camera's reading is kept, unsure at most): players slide the tiles as the card
#: says far more often than not, so a face the camera is unsure of is not taken for a slide gone
#: wrong, while one it sees clearly otherwise still is. Set by judgement, as the set-up's
#: ``SETUP_PRIOR_NATS``, and checked on development game videos
STORM_PRIOR_NATS = 3.0

#: during a turn's actions the faces a cell may show (:func:`turn_prior`: the one it shows, or
#: one its back still allows) are favoured by this many nats on the live loop's reads of the
#: changed cells: a tile just excavated under the pawns on it, or in a lamp's glare, reads
#: closer between its face and faces no rule lets it show than between the two it may show
#: (development stress games 8837 and 8842: the crash site excavated, read ``crash_site`` at
#: 0.51-0.59 with ``gear`` or ``tunnel`` the runner-up). Set by judgement; on the live loop's
#: 117 face readings of changed cells during turns of development stress games 8837-8842, read
#: again with the prior (guarded), 2, 3, 4, 6 and 8 nats gave 100, 101, 101, 101, 101 sure and
#: right (92 without), none sure and wrong (1 without)
TURN_PRIOR_NATS = 4.0

#: a tile named washed out by a lamp's glare stays named while this share of its centre's channel
#: values is clipped (:meth:`LiveDesert.washed_out`; it is named from
#: :data:`~..vision.detectors.desert_flat.SATURATED_UNSURE`, 0.3): set by judgement, so that a tile
#: near the line is not named and dropped with every committed picture
WASHED_OUT_KEEP = 0.2

#: still frames before the gate compares (its default is 3): the pawns are read from their mean,
#: the first left out (four frames: half the noise of one)
STILL_FRAMES = 5


@dataclass
class Step:
    """What one frame produced: the idle-path output and, after a stable change, a verdict."""

    watch: WatchOutput
    verdict: Verdict | None = None
    cells: list = field(default_factory=list)


class LiveDesert:
    """Forbidden Desert from frames to verdicts.

    Parameters
    ----------
    detector : FDDetector
    tracker : ForbiddenDesertTracker
    fps : float
    camera_matrix : (3, 3)
        Intrinsics of the (undistorted) frames.
    undistort : callable, optional
    """

    def __init__(self, detector, tracker: ForbiddenDesertTracker, fps: float, camera_matrix: np.ndarray,
                 undistort=None):
        self.detector, self.tracker = detector, tracker
        # pawns stand: a pale one on a pale tile changes only a few blocks of the gate's view; and
        # the detector reads them from the mean of the still frames: the gate waits for STILL_FRAMES
        self.watcher = BoardWatcher(detector.layout, fps, undistort=undistort,
                                    params=GateParams(faint_blocks=FAINT_CHANGE_BLOCKS, still_frames=STILL_FRAMES))
        self.camera_matrix = np.asarray(camera_matrix, np.float64)
        self.undistort = undistort
        self.reference: tuple | None = None
        self.pending: set = set()
        self.still = StillMean()
        self._still_homography: np.ndarray | None = None   # of the frames in the still window
        self._last_still: tuple | None = None        # (picture, homography) of the last still window
        self._window_still = False                   # the still window holds frames the gate called still
        self._stirred = False                        # something moved over the board since the gate last compared
        self._washed: tuple | None = None            # (reference picture, its washed-out cells)

    def resync(self) -> None:
        """The players put the engine's state right on the tablet (a move the camera missed,
        entered after it was made; a question answered): the table as it stands (the mean of the
        still frames since the board last moved; during motion, the last such picture before it)
        becomes the reference, with the pawns the engine now puts on each cell.

        Without it the reference keeps the pawns the engine held before the entry beside a
        picture that may show the entered move, and the next move's pawns are read against the
        wrong ones (on a game video every move after a first missed one was missed too). Cells
        still waiting for an explanation stay pending (the players may have entered only part
        of a change). With no still picture since the board was found, the next still moment
        becomes the reference. Call it only when the table shows the state entered: a card play
        entered before it is carried out (a Jet Pack) is checked against the old reference.
        """
        if self._window_still:
            self.reference = (self.still.mean(), self._still_homography, self._pawns())
        elif self._last_still is not None:
            self.reference = (*self._last_still, self._pawns())
        else:
            self.reference = None

    def _restart_still(self) -> None:
        """Start the still window again, keeping its picture (and homography) as the last one
        when the gate called the board still while it was taken (frames of a hand still
        settling over the board are no picture of the table)."""
        if self._window_still:
            self._last_still = (self.still.mean(), self._still_homography)
        self.still.restart()
        self._window_still = False

    def _pawns(self) -> dict:
        out = {}
        for slot, label in self.tracker.model.expected(self.tracker.state).items():
            if slot[0] == "pawns":
                out[(slot[1], slot[2])] = colours_of(label)
        return out

    def process(self, image: np.ndarray, index: int, t: float) -> Step:
        """Run one frame ``(H, W, 3) uint8`` BGR; a verdict comes after each stable change."""
        frame = self.undistort(image) if self.undistort is not None else image
        out = self.watcher.process(image, index, t)
        if out.gate is None or not out.track.ok or out.track.bumped or out.status == "occluded":
            # the board moved, or something may lie across it unseen: the still window starts again
            self._restart_still()
        elif out.gate.moved:
            # something moved: this frame is the first of the next still picture (and, as the
            # first after motion, left out of the mean)
            self._restart_still()
            self.still.add(frame)
            self._still_homography = out.track.homography
        else:
            self.still.add(frame)
            self._still_homography = out.track.homography
            self._window_still = bool(self.still.count) and out.status == "still"
        if out.track.ok and self.reference is None and out.status == "still" and self.still.count:
            self.reference = (self.still.mean(), out.track.homography, self._pawns())
        event = out.gate.event if out.gate else None
        if out.status in ("moving", "occluded"):
            self._stirred = True                       # (not the gate's start: its first frames move)
        if event is None and self._stirred and out.track.ok and out.status == "still":
            # the gate compared the table again after a hand was over it and saw nothing change
            # (with a question open, its answer comes from the tablet first)
            self._stirred = False
            if self.still.count and not self.pending:
                picture = self.still.mean()
                verdict = self.look_at_card_place(picture, out.track.homography)
                if verdict is not None:
                    if verdict.kind == "commit" and self.tracker.awaiting is None:
                        self.reference = (picture, out.track.homography, self._pawns())
                    return Step(out, verdict, [CARD_CELL])
        if event is None or not out.track.ok:
            return Step(out)
        self._stirred = False
        before_hand = self._last_still             # the still table before this change's hand came
        if self.still.count:
            frame = self.still.mean()
            self._last_still = (frame, out.track.homography)
        self.still.restart()
        self._window_still = False
        cells = set(event.changed) | set(event.unsure) | self.pending
        prior = whole_table_prior(self.tracker) or turn_prior(self.tracker, cells)
        if self.tracker.wants_whole_table:
            slots = None                               # after a storm card: read the whole table
        else:
            # a pawn that left a cell may change only the gate's view of the cell behind it (a
            # standing piece leans away from the camera in the rectified board): the pawns of
            # every cell that holds one are read too (unchanged ones read as before)
            pawns = self._pawns()
            slots = self.tracker.model.slots(cells)
            slots += [("pawns", *key) for key, held in sorted(pawns.items()) if held and key not in cells]
            if self.tracker.card_due and CARD_CELL not in cells:
                # a storm card laid on one that looks alike may change the card place too little
                # for the gate: its reading narrows the cards the slides may tell
                slots.append(CARD)
        readings = self.detector.read(frame, out.track.homography, self.camera_matrix, slots, self.reference, prior)
        if slots is not None:
            # the detector reads whole cells: of a cell read only for its pawns, the face, sand and
            # parts the gate saw no change in are left out (a misread there is no move)
            asked = set(slots)
            readings = leaving_only({s: r for s, r in readings.items() if s in asked}, pawns, cells)
        verdict = self.tracker.explain(readings, cells, unsure=set(event.unsure) | (self.pending - set(event.changed)))
        if verdict.kind == "ask" and verdict.reason not in (UNSURE_ACTION, GUESSED) and carry_only(verdict.options):
            verdict = self.look_for_riders(frame, out.track.homography, verdict, cells)
        if verdict.kind == "nothing" and CARD in readings and CARD_CELL not in cells:
            # nothing the rules need happened in the cells that changed (a hand brushed a tile),
            # but a card may have been laid on one that looks alike, with no tile to slide
            card = self.look_at_card_place(frame, out.track.homography, readings[CARD], before_hand)
            if card is not None:
                if self.tracker.awaiting is None:
                    self.reference = (frame.copy(), out.track.homography, self._pawns())
                self.pending = set()                   # the cells were explained (as nothing)
                return Step(out, card, [CARD_CELL])
        if verdict.kind in ("commit", "nothing") and self.tracker.awaiting is None:
            self.reference = (frame.copy(), out.track.homography, self._pawns())
            self.pending = set()
        elif verdict.kind == "commit":                   # a storm card: the slides are still to come
            self.pending = set()
        else:
            self.pending = cells - {CARD_CELL}
        return Step(out, verdict, sorted(cells, key=str))

    def washed_out(self) -> list[tuple]:
        """The tiles a lamp's glare washes out on the reference picture (the table as last
        committed), where the camera's readings are not to be trusted: a share of at least
        :data:`~..vision.detectors.desert_flat.SATURATED_UNSURE` of clipped channel values in the
        tile's centre (:func:`~..vision.detectors.desert_flat.clipped_shares`), or, for a tile
        named on the reference before, of :data:`WASHED_OUT_KEEP` (so that a tile near the line
        is not named and dropped from one picture to the next). ``[(row, col)]``, sorted; the
        storm's bare cell is never among them. Worked out once per reference picture; empty
        before the first."""
        if self.reference is None:
            return []
        picture, homography, _pawns = self.reference
        if self._washed is None or self._washed[0] is not picture:
            from ..vision.detectors.desert_flat import SATURATED_UNSURE, clipped_shares

            tiles = [slot[1:] for slot, label in self.tracker.model.expected(self.tracker.state).items()
                     if slot[0] == "face" and label != "storm"]
            named = set(self._washed[1]) if self._washed is not None else set()
            shares = clipped_shares(picture, homography, self.detector.layout, tiles)
            self._washed = (picture, [key for key, share in shares.items()
                                      if share >= (WASHED_OUT_KEEP if key in named else SATURATED_UNSURE)])
        return list(self._washed[1])

    def look_at_card_place(self, picture: np.ndarray, homography: np.ndarray, now: Reading | None = None,
                           before_hand: tuple | None = None) -> Verdict | None:
        """Where a storm card is due, whether one was laid that the gate did not see (a card on
        one that looks alike, under a lamp's glare; a wind blocked at the desert's edge slides
        no tile): the card place read on ``picture`` and on the still picture taken before the
        hand came, judged by the tracker
        (:meth:`~.forbidden_desert.ForbiddenDesertTracker.card_laid_unseen`). Called at the
        quiet moment after a hand was over the board and the gate saw nothing change, and after
        a change whose cells the tracker explained as nothing. The caller keeps the reference
        and the pending cells.

        Parameters
        ----------
        picture : (H, W, 3) uint8
            The still picture (BGR, undistorted; the mean of the still window).
        homography : (3, 3)
            Mat mm -> ``picture`` px.
        now : Reading, optional
            The card place already read on ``picture``.
        before_hand : (picture, homography), optional
            The still picture before the hand came; by default the last one kept when motion
            began (``_last_still``).

        Returns
        -------
        Verdict or None
            The tracker's verdict (a storm card committed; the cards named waiting for their
            slides, or the players asked which); None when no card is due, one told by its
            slides is still pending, there is no picture from before the hand, or the place
            shows no new card.
        """
        tracker = self.tracker
        before_hand = before_hand if before_hand is not None else self._last_still
        if not tracker.card_due or tracker.card_pending or before_hand is None:
            return None
        if now is None:
            now = self.detector.read(picture, homography, self.camera_matrix, [CARD]).get(CARD)
        if now is None or now.label == tracker.model.expected(tracker.state)[CARD]:
            return None
        then, then_homography = before_hand
        before = self.detector.read(then, then_homography, self.camera_matrix, [CARD]).get(CARD)
        return tracker.card_laid_unseen(now, before)

    def look_for_riders(self, frame: np.ndarray, homography: np.ndarray, verdict: Verdict, cells: set) -> Verdict:
        """Settle a question about a rider (options that differ only in the pawn taken along:
        the tracker's rider question, or its "two moves fit" when the two differ only so) by
        the pawns the still picture shows standing (:func:`~.desert_riders.seen_present`).

        Parameters
        ----------
        frame : (H, W, 3) uint8
            The still picture after the move (BGR, undistorted).
        homography : (3, 3)
            Mat mm -> frame px.
        verdict : Verdict
            The tracker's ``ask`` whose options differ only in their riders.
        cells : set
            The cells of the change.

        Returns
        -------
        Verdict
            The option the picture decides, committed (the message says the carried pawn was
            seen); else ``verdict`` unchanged.
        """
        tracker = self.tracker
        tables = tracker.tables_after(verdict.options)
        slots = sorted(disputed_pawns(tables), key=str) if tables else []
        if not slots:
            return verdict
        standing = self.detector.pawns_standing(frame, homography, self.camera_matrix, [s[1:] for s in slots])
        chosen = seen_present(tables, {("pawns", *key): seen for key, seen in standing.items()})
        if chosen is None:
            return verdict
        return tracker.commit(verdict.options[chosen], cells, "the pawns read standing where they are")


def whole_table_prior(tracker: ForbiddenDesertTracker) -> dict[tuple, dict[str, float]] | None:
    """The prior the live loop's next read of the table takes (``FDDetector.read(prior=)``).

    Parameters
    ----------
    tracker : ForbiddenDesertTracker

    Returns
    -------
    dict (r, c) -> {label: nats}, or None
        Once a storm card is committed (``tracker.awaiting`` set: the engine's state is the
        table after the card, and the whole table is read), the faces the engine expects,
        favoured by ``STORM_PRIOR_NATS`` (:func:`expected_faces`). None otherwise: no card laid,
        or an unsure card waiting to be told apart by its slides (the state is still the table
        before it, and the slides must not be weighed against), even while the card before it
        is still watched.
    """
    if not tracker.wants_whole_table or tracker.awaiting is None or tracker.card_pending:
        return None
    return expected_faces(tracker.model.expected(tracker.state), STORM_PRIOR_NATS)


def turn_prior(tracker: ForbiddenDesertTracker, cells: set) -> dict[tuple, dict[str, float]] | None:
    """The prior the live loop's read of some cells takes during a turn's actions
    (``FDDetector.read(prior=)``, each cell alone: :func:`~..vision.detectors.desert_flat.single_readings`).

    Parameters
    ----------
    tracker : ForbiddenDesertTracker
    cells : set
        The cells of the change (the card place among them when it changed).

    Returns
    -------
    dict (r, c) -> {label: nats}, or None
        Per cell the faces it may show this turn (:func:`~.forbidden_desert.faces_this_turn`)
        and ``unknown`` (something nothing taught fits: a hand, a misplaced tile), each favoured
        by ``TURN_PRIOR_NATS``. None while the whole table is read after a storm card, when the
        card place or the storm's cell changed (a card laid: every wind that moves a tile moves
        the storm; a player may end the turn early and slide the tiles before the card place
        shows the card) or a card may be laid next (a slid tile must read as what it is), when
        ``cells`` names a cell off the board, or when the game is over.
    """
    if tracker.wants_whole_table or CARD_CELL in cells:
        return None
    faces = faces_this_turn(tracker.model, tracker.state)
    if faces is None or any(faces.get(c) in (None, {"storm"}) for c in cells):
        return None                  # the storm's cell changed, or a cell off the board was asked for
    return {cell: {label: TURN_PRIOR_NATS for label in labels | {"unknown"}} for cell, labels in faces.items()}


def expected_faces(expected: Mapping, nats: float) -> dict[tuple, dict[str, float]]:
    """The faces the engine expects as a prior on a whole-table read
    (:func:`~..vision.detectors.desert_flat.table_readings`): ``dict (r, c) -> {label: nats}``
    from ``expected`` (slot -> label, :meth:`~.forbidden_desert.ForbiddenDesertTable.expected`),
    its ``face`` slots only."""
    return {tuple(slot[1:]): {label: nats} for slot, label in expected.items() if slot[0] == "face"}


def leaving_only(readings: dict, pawns: dict, cells: set) -> dict:
    """Pawn readings of cells the gate saw no change on, cut down to what can happen there unseen.

    Such a cell is read only because a pawn that left it may have changed the gate's view of a
    neighbour instead; a pawn arriving there would have changed the cell itself. So its pawn
    reading keeps the labels that only take pawns away from ``pawns[key]`` (the colours on the
    cell at the last commit); when its best label adds a colour (a neighbour's change seen in
    the tall crop), the cell reads as it was, surely.

    Parameters
    ----------
    readings : dict slot -> Reading
    pawns : dict cell key -> set of colours
    cells : set of cell keys the gate reported (their readings are kept as they are)

    Returns
    -------
    dict slot -> Reading
        A new mapping; ``readings`` is not changed.
    """
    out = dict(readings)
    for slot, reading in readings.items():
        key = tuple(slot[1:])
        if slot[0] != "pawns" or key in cells:
            continue
        held = pawns.get(key, set())
        def leaves(label: str) -> bool:
            return colours_of(label) <= held
        if leaves(reading.label):
            out[slot] = Reading(reading.label, reading.confidence, reading.margin,
                                tuple(a for a in reading.alternatives if leaves(a)))
        else:
            out[slot] = Reading("+".join(sorted(held)))
    return out

