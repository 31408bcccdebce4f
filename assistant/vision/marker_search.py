"""Finding the mats' corner markers when ArUco's own decoding gives up: small, blurred, glary.

``cv2.aruco`` decodes a marker by thresholding each of its 6 x 6 modules. A marker 20 px wide
has modules of 3.3 px; a Gaussian blur of sigma 2-3 px (a soft webcam, field report F1) leaves
them mid-grey and the bits unreadable, although the marker's square outline is still found
(it comes back among the *rejected* candidates). The mats use only twelve markers (ids 0-11 of
``DICT_4X4_50``, :data:`~.mats.FIRST_MARKER_ID`), so a rejected candidate can be read by
comparing it with those twelve known pictures instead of reading bits:

1. :func:`small_marker_detector`: ArUco parameters for small and soft markers (finer adaptive
   threshold windows, a looser polygon fit, more pixels per module when sampling), run on the
   frame enlarged twice;
2. :func:`read_candidates`: each candidate quad is warped to a canonical picture of the marker
   with a one-module quiet zone and compared (normalised cross-correlation) with the twelve
   marker pictures in the four turns, each blurred in a range of ways (so a blurred
   marker is compared with a blurred picture); the best id must beat every other id and turn by
   a margin (among the markers of the mat the others belong to);
3. :func:`refine_corners`: the quad is refined by aligning the known picture to the frame with
   OpenCV's enhanced correlation coefficient maximisation (``cv2.findTransformECC``,
   Evangelidis & Psarakis 2008, homography motion), which uses every pixel of the marker rather
   than its blurred outline.

:func:`survey` measures what the frame shows when the board is still not found: how wide the
marker-like squares are (px) and how blurred (the blur of the marker picture they match best:
a Gaussian sigma, or a motion smear's length), so the reason given can say which limit was passed.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from .mats import ARUCO_DICTIONARY, FIRST_MARKER_ID, game_of_marker

#: every marker id a mat carries (four per game)
MAT_IDS = tuple(sorted(i for first in FIRST_MARKER_ID.values() for i in range(first, first + 4)))
MODULE_PX = 6                   #: canonical pixels per module
QUIET = 1                       #: canonical quiet zone, modules
CANON = (6 + 2 * QUIET) * MODULE_PX
#: template blurs tried, sizes in modules: ``("gauss", sigma)`` (0.9 module: sigma 3 px on a
#: 20 px marker), ``("disc", radius)`` (a defocused lens), ``("motion", length, angle_deg)``
BLURS = ((("none", 0.0),) + tuple(("gauss", s) for s in (0.25, 0.45, 0.65, 0.85, 1.05, 1.3))
         + tuple(("disc", r) for r in (0.5, 0.7, 0.9, 1.1))
         + tuple(("motion", n, a) for n in (1.5, 2.5, 3.5, 5.0, 7.0) for a in (0, 45, 90, 135)))
MIN_SCORE = 0.8                #: normalised cross-correlation a read candidate must reach
MIN_MARGIN = 0.08               #: ... and by which it must beat every other id and turn
MIN_SIDE_PX = 7.0               #: smaller candidates are not read
NEAR_SCORE = 0.6                #: a candidate this like a marker is aligned to its picture before being read
ALIGN_FIRST = 4                 #: ... the likeliest this many per id
LIKE_SCORE = 0.7                #: a quad this like a marker picture counts as a marker when measuring a frame
PER_ID = 3                      #: best places kept per id (the mat's geometry chooses among them)


def small_marker_detector() -> cv2.aruco.ArucoDetector:
    """An ``ArucoDetector`` for small and soft markers (run it on an enlarged frame).

    Finer adaptive-threshold windows (3-33 px in steps of 6, constant 3) keep a soft marker's
    border apart from its quiet zone; a looser polygon fit (6 % of the perimeter) keeps its
    rounded corners a quad; 8 px per module and a quarter-module margin when sampling the bits,
    read what is still readable. Candidates it cannot decode come
    back as rejected and are read by :func:`read_candidates`.
    """
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, ARUCO_DICTIONARY))
    p = cv2.aruco.DetectorParameters()
    p.adaptiveThreshWinSizeMin, p.adaptiveThreshWinSizeMax, p.adaptiveThreshWinSizeStep = 3, 33, 6
    p.adaptiveThreshConstant = 3.0
    p.polygonalApproxAccuracyRate = 0.06
    p.perspectiveRemovePixelPerCell = 8
    p.perspectiveRemoveIgnoredMarginPerCell = 0.25
    p.maxErroneousBitsInBorderRate = 0.5
    p.minCornerDistanceRate = 0.02
    p.minMarkerDistanceRate = 0.05
    p.minDistanceToBorder = 1
    return cv2.aruco.ArucoDetector(dictionary, p)


def _inner_mask() -> np.ndarray:
    """Canonical pixels compared: the 4 x 4 data modules and half a module round them (the
    border and the quiet zone are alike on every marker and would only dilute the difference)."""
    lo, hi = (QUIET + 0.5) * MODULE_PX, (QUIET + 5.5) * MODULE_PX
    v = np.arange(CANON) + 0.5
    inside = (v >= lo) & (v <= hi)
    return (inside[:, None] & inside[None, :]).ravel()


_INNER = _inner_mask()


@lru_cache(maxsize=1)
def _bank() -> tuple[np.ndarray, np.ndarray]:
    """Zero-mean unit-norm canonical pictures, ``(len(MAT_IDS) + 1, len(BLURS), P) float32``
    over the compared pixels: every mat marker, then a plain black square of the marker's size
    (the *blob*: what any dark square looks like, blurred the same), and the ``(len(MAT_IDS),)`` ids."""
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, ARUCO_DICTIONARY))
    out = np.empty((len(MAT_IDS) + 1, len(BLURS), int(_INNER.sum())), np.float32)
    pictures = [cv2.aruco.generateImageMarker(dictionary, marker_id, 6 * MODULE_PX, borderBits=1) for marker_id in MAT_IDS]
    pictures.append(np.zeros((6 * MODULE_PX, 6 * MODULE_PX), np.uint8))
    for i, img in enumerate(pictures):
        img = cv2.copyMakeBorder(img, *([QUIET * MODULE_PX] * 4), cv2.BORDER_CONSTANT, value=255).astype(np.float32)
        for j, spec in enumerate(BLURS):
            out[i, j] = _normalise(blurred(img, spec).ravel()[_INNER])
    return out, np.array(MAT_IDS)


def blurred(img: np.ndarray, spec: tuple) -> np.ndarray:
    """A canonical picture ``(CANON, CANON) float32`` blurred as ``spec`` (one of :data:`BLURS`;
    sizes in modules, :data:`MODULE_PX` px each)."""
    kind = spec[0]
    if kind == "none":
        return img
    if kind == "gauss":
        return cv2.GaussianBlur(img, (0, 0), spec[1] * MODULE_PX)
    if kind == "disc":
        r = spec[1] * MODULE_PX
        n = int(np.ceil(r))
        yy, xx = np.mgrid[-n:n + 1, -n:n + 1]
        k = (np.hypot(xx, yy) <= r).astype(np.float32)
    else:
        length, angle = spec[1] * MODULE_PX, np.radians(spec[2])
        n = int(np.ceil(length / 2))
        k = np.zeros((2 * n + 1, 2 * n + 1), np.float32)
        for t in np.linspace(-length / 2, length / 2, 4 * n + 1):
            k[int(round(n + t * np.sin(angle))), int(round(n + t * np.cos(angle)))] += 1.0
    return cv2.filter2D(img, -1, k / k.sum(), borderType=cv2.BORDER_REPLICATE)


def _normalise(img: np.ndarray) -> np.ndarray:
    v = np.asarray(img, np.float32).ravel()
    v = v - v.mean()
    return v / max(float(np.linalg.norm(v)), 1e-6)


def _canonical_corners() -> np.ndarray:
    """The marker's own corners (TL, TR, BR, BL) in canonical pixel coordinates (pixel centres
    at integers): module ``u`` of the marker lies at ``(u + QUIET) * MODULE_PX - 0.5``."""
    a, b = QUIET * MODULE_PX - 0.5, (QUIET + 6) * MODULE_PX - 0.5
    return np.array([[a, a], [b, a], [b, b], [a, b]], np.float32)


def canonical_view(gray: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The marker under ``quad`` warped to the canonical picture ``(CANON, CANON) float32``.

    Parameters
    ----------
    gray : (H, W) uint8
    quad : (4, 2) float
        Image corners TL, TR, BR, BL of the marker (px).
    """
    h = cv2.getPerspectiveTransform(_canonical_corners(), np.asarray(quad, np.float32))
    return cv2.warpPerspective(gray, h, (CANON, CANON), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE).astype(np.float32)


@dataclass(frozen=True)
class CandidateRead:
    """A candidate quad read as a mat marker: ``marker_id``, its corners ``(4, 2) float32``
    (TL, TR, BR, BL), the correlation ``score``, the ``margin`` over the best other id or turn,
    and the template blur that fitted best (``blur``, one of :data:`BLURS`)."""

    marker_id: int
    corners: np.ndarray
    score: float
    margin: float
    blur: tuple


def _clockwise(quad: np.ndarray) -> np.ndarray:
    q = np.asarray(quad, np.float32).reshape(4, 2)
    x, y = q[:, 0], q[:, 1]
    area = 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))
    return q if area > 0 else q[::-1].copy()        # image y points down: positive area is clockwise


def candidate_scores(gray: np.ndarray, quad: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """How well one candidate quad matches each mat marker in each of its four turns.

    Parameters
    ----------
    gray : (H, W) uint8
    quad : (4, 2) float
        Image corners of the candidate in any cyclic order.

    Returns
    -------
    scores : (len(MAT_IDS), 4) float32
        Normalised cross-correlation over the data modules (:func:`_inner_mask`), best over the
        template blurs; turn ``k`` takes ``np.roll(quad, -k)`` as TL, TR, BR, BL.
    blur : (len(MAT_IDS), 4) int
        The index in :data:`BLURS` of each best score's template blur.
    quad : (4, 2) float32
        The quad in clockwise order (the one the turns roll).

    A plain dark square blurred enough matches any marker picture about as well as a marker:
    each score is therefore lowered to at most its picture's lead over the blob (a plain black
    square blurred the same, :func:`_bank`) plus :data:`MIN_SCORE`, so a quad that looks no more
    like a marker than like a blob never reaches :data:`MIN_SCORE` with a :data:`MIN_MARGIN` lead.
    """
    q = _clockwise(quad)
    bank, _ids = _bank()
    views = np.stack([_normalise(canonical_view(gray, np.roll(q, -k, axis=0)).ravel()[_INNER]) for k in range(4)])
    raw = np.einsum("ibp,kp->ibk", bank, views)                                      # (I + 1, B, 4)
    scores = np.minimum(raw[:-1], raw[:-1] - raw[-1:] + MIN_SCORE)
    return scores.max(axis=1), scores.argmax(axis=1), q


def known_marker(gray: np.ndarray, marker_id: int, corners: np.ndarray) -> CandidateRead:
    """A marker ArUco read (``corners`` TL, TR, BR, BL) as a :class:`CandidateRead`, with the
    template blur that matches it best, for :func:`refine_corners`; an id that is not a mat's
    is refined against no picture (blur 0, score 0)."""
    q = np.asarray(corners, np.float32).reshape(4, 2)
    if marker_id not in MAT_IDS:
        return CandidateRead(marker_id, q, 0.0, 0.0, BLURS[0])
    scores, which, _q = candidate_scores(gray, q)
    row = MAT_IDS.index(marker_id)
    turn = 0 if np.allclose(_q, q) else int(np.argmax(scores[row]))
    return CandidateRead(marker_id, q, float(scores[row, turn]), 0.0, BLURS[int(which[row, turn])])


def reread(gray: np.ndarray, quad: np.ndarray) -> CandidateRead | None:
    """Read a quad ArUco decoded with loose parameters again, against every mat marker and turn:
    the best must reach :data:`MIN_SCORE` and beat all others by :data:`MIN_MARGIN` (a soft
    marker's bits can decode as another id; its picture does not match another's).

    Returns
    -------
    CandidateRead or None
        Its id and corners (TL first) when read, else None.
    """
    if _side(quad) < MIN_SIDE_PX:
        return None
    scores, which, q = candidate_scores(gray, quad)
    flat = scores.ravel()
    order = np.argsort(-flat)
    top, second = float(flat[order[0]]), float(flat[order[1]])
    if top < MIN_SCORE or top - second < MIN_MARGIN:
        return None
    i, k = np.unravel_index(int(order[0]), scores.shape)
    return CandidateRead(MAT_IDS[i], np.roll(q, -k, axis=0), top, top - second, BLURS[int(which[i, k])])


def read_expected(gray: np.ndarray, quad: np.ndarray, marker_id: int) -> CandidateRead | None:
    """Whether the marker ``marker_id`` lies at ``quad`` (TL, TR, BR, BL as predicted): its
    picture's best correlation there reaches :data:`MIN_SCORE` in the predicted turn and beats
    the other turns by :data:`MIN_MARGIN`.

    Returns
    -------
    CandidateRead or None
    """
    if marker_id not in MAT_IDS or _side(quad) < MIN_SIDE_PX:
        return None
    scores, which, _q = candidate_scores(gray, np.asarray(quad, np.float32))
    row = MAT_IDS.index(marker_id)
    q = np.asarray(quad, np.float32)
    if not np.allclose(_q, q):            # the prediction ran anticlockwise (a mirrored view): no turn fits
        return None
    top, others = float(scores[row, 0]), float(np.max(scores[row, 1:]))
    if top < MIN_SCORE or top - others < MIN_MARGIN:
        return None
    return CandidateRead(marker_id, q, top, top - others, BLURS[int(which[row, 0])])


def read_candidates(gray: np.ndarray, quads: list[np.ndarray], found: dict[int, np.ndarray],
                    game: str | None = None) -> list[CandidateRead]:
    """Read unread candidate quads as the mat markers still missing.

    The mat is the game with most votes: one per marker of ``found`` and one per candidate whose
    best match (above :data:`MIN_SCORE`) is one of its ids. Each missing id
    of that mat takes the candidate matching it best, when that match reaches
    :data:`MIN_SCORE` and beats every other turn and every other id of the same mat by
    :data:`MIN_MARGIN` (ids of the other mats are not in the picture once the mat is known); the
    :data:`PER_ID` best such places are kept (a Scout Pennant forest can look like a marker: the
    mat's geometry, in :func:`~.registration.register`, chooses). The :data:`ALIGN_FIRST`
    candidates that match an id best (at least :data:`NEAR_SCORE`) are also read once more after
    aligning that id's picture to them (:func:`refine_corners`): a blurred marker's outline is
    a pixel or two off, which costs the correlation more than the blur does.

    Parameters
    ----------
    gray : (H, W) uint8
    quads : list of (4, 2) float
        Candidates (px), e.g. ArUco's rejected quads; those smaller than :data:`MIN_SIDE_PX` are skipped.
    found : dict id -> (4, 2)
        Markers already read.
    game : str, optional
        The mat, when known (then no vote).

    Returns
    -------
    list of CandidateRead
        Up to :data:`PER_ID` per missing id, best first, each with its candidate's corners (not
        yet refined).
    """
    quads = [q for q in quads if _side(q) >= MIN_SIDE_PX]
    if not quads:
        return []
    table = [candidate_scores(gray, q) for q in quads]
    ids = np.array(MAT_IDS)
    votes: dict[str, int] = {}
    for g in (game_of_marker(i) for i in found):
        if g:
            votes[g] = votes.get(g, 0) + 1
    for scores, _b, _q in table:
        i, _k = np.unravel_index(int(np.argmax(scores)), scores.shape)
        if scores[i].max() >= MIN_SCORE:
            g = game_of_marker(int(ids[i]))
            votes[g] = votes.get(g, 0) + 1
    if game is None:
        if not votes:
            return []
        game = max(votes, key=votes.get)
    own = np.array([game_of_marker(int(i)) == game for i in ids])
    out = []
    for marker_id in (int(i) for i in ids[own]):
        if marker_id in found:
            continue
        row = int(np.flatnonzero(ids == marker_id)[0])
        reads = []
        rows = list(table)
        # a candidate's outline is a blurred guess: the likeliest few are aligned to the picture first
        near = sorted(((float(sc[row].max()), i) for i, (sc, _b, _q) in enumerate(table)
                       if sc[row].max() >= NEAR_SCORE), reverse=True)[:ALIGN_FIRST]
        for _s, i in near:
            sc, bl, q = table[i]
            k = int(np.argmax(sc[row]))
            start = CandidateRead(marker_id, np.roll(q, -k, axis=0), float(sc[row, k]), 0.0, BLURS[int(bl[row, k])])
            rows.append(candidate_scores(gray, refine_corners(gray, start)))
        for scores, blur, q in rows:
            k = int(np.argmax(scores[row]))
            top = float(scores[row, k])
            rivals = np.concatenate([np.delete(scores[row], k), scores[own & (ids != marker_id)].ravel()])
            margin = top - float(rivals.max())
            if top >= MIN_SCORE and margin >= MIN_MARGIN:
                reads.append(CandidateRead(marker_id, np.roll(q, -k, axis=0), top, margin, BLURS[int(blur[row, k])]))
        out += sorted(reads, key=lambda r: -r.score)[:PER_ID]
    return out


def refine_corners(gray: np.ndarray, read: CandidateRead) -> np.ndarray:
    """Corners of a read marker refined by aligning its known picture to the frame
    (``cv2.findTransformECC``, homography motion, the template blurred as :attr:`CandidateRead.blur`).

    Returns
    -------
    (4, 2) float32
        TL, TR, BR, BL image corners; the candidate's own when the alignment fails to converge
        or moves a corner by more than a third of the marker's side.
    """
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, ARUCO_DICTIONARY))
    img = cv2.aruco.generateImageMarker(dictionary, read.marker_id, 6 * MODULE_PX, borderBits=1)
    tpl = blurred(cv2.copyMakeBorder(img, *([QUIET * MODULE_PX] * 4), cv2.BORDER_CONSTANT, value=255)
                  .astype(np.float32), read.blur)
    corners = np.asarray(read.corners, np.float32)
    side = float(np.mean(np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)))
    pad = side * 0.6
    x0, y0 = np.floor(corners.min(axis=0) - pad).astype(int)
    x1, y1 = np.ceil(corners.max(axis=0) + pad).astype(int)
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, gray.shape[1]), min(y1, gray.shape[0])
    if x1 - x0 < 8 or y1 - y0 < 8:
        return corners
    local = gray[y0:y1, x0:x1].astype(np.float32)
    warp = cv2.getPerspectiveTransform(_canonical_corners(), corners - np.float32([x0, y0])).astype(np.float32)
    try:
        _cc, warp = cv2.findTransformECC(tpl, local, warp, cv2.MOTION_HOMOGRAPHY,
                                         (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 60, 1e-4), None, 1)
    except cv2.error:
        return corners
    out = cv2.perspectiveTransform(_canonical_corners().reshape(-1, 1, 2), warp.astype(np.float64)).reshape(4, 2)
    out = out.astype(np.float32) + np.float32([x0, y0])
    if not np.all(np.isfinite(out)) or np.max(np.linalg.norm(out - corners, axis=1)) > side / 3:
        return corners
    return out


def blur_px(spec: tuple, side_px: float) -> tuple[float, float]:
    """A template blur of :data:`BLURS` on a marker ``side_px`` wide, in image pixels: its
    Gaussian sigma (a disc of radius ``r`` counts as ``r / 2``, the sigma of equal variance) and
    its motion smear length (0 unless a motion blur).

    >>> blur_px(("gauss", 0.9), 20.0), blur_px(("motion", 1.5, 45), 24.0)
    ((3.0, 0.0), (0.0, 6.0))
    """
    module = side_px / 6.0
    if spec[0] == "gauss":
        return round(spec[1] * module, 6), 0.0
    if spec[0] == "disc":
        return round(spec[1] * module / 2.0, 6), 0.0
    if spec[0] == "motion":
        return 0.0, round(spec[1] * module, 6)
    return 0.0, 0.0


@dataclass(frozen=True)
class Survey:
    """What the frame shows of marker-like squares when the board was not found.

    Attributes
    ----------
    side_px : float
        Median side of the largest marker-like squares (found markers first), px; 0 when none.
    blur_px : float
        Their blur as a Gaussian sigma, px: the median over the squares of the blur of the
        marker picture they match best (:func:`candidate_scores`, :func:`blur_px`); ``nan`` unknown.
    smear_px : float
        Their motion smear, px, measured the same way; 0 when none.
    squares : int
        How many marker-like squares it measured.
    """

    side_px: float = 0.0
    blur_px: float = float("nan")
    smear_px: float = 0.0
    squares: int = 0


def _side(quad: np.ndarray) -> float:
    q = np.asarray(quad, np.float32).reshape(4, 2)
    return float(np.mean(np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)))


def _dark_square(gray: np.ndarray, quad: np.ndarray) -> bool:
    """A candidate darker inside than its one-module ring outside (a marker on its quiet zone)."""
    v = canonical_view(gray, _clockwise(quad))
    m = QUIET * MODULE_PX
    inner = v[m:-m, m:-m]
    ring = np.concatenate([v[:m].ravel(), v[-m:].ravel(), v[m:-m, :m].ravel(), v[m:-m, -m:].ravel()])
    return float(ring.mean()) - float(inner.mean()) > 25.0


def survey(gray: np.ndarray, found: dict[int, np.ndarray], candidates: list[np.ndarray]) -> Survey:
    """Measure the markers of a frame whose board was not found (see :class:`Survey`).

    Parameters
    ----------
    gray : (H, W) uint8
    found : dict id -> (4, 2)
        Markers read (their sizes are the surest).
    candidates : list of (4, 2)
        Rejected quads; the largest of those that look like a mat marker (correlation with one of
        their pictures of at least :data:`LIKE_SCORE`, or a dark square on a light ground) stand
        for the markers not read (the markers are the largest squares a mat prints).

    Returns
    -------
    Survey
    """
    quads = list(found.values())
    if len(quads) < 4:
        like = []
        for q in candidates:
            if _side(q) >= 4.0:
                score = float(candidate_scores(gray, q)[0].max())
                if score >= LIKE_SCORE or _dark_square(gray, q):
                    like.append((score, q))
        quads += [q for _s, q in sorted(like, key=lambda sq: -_side(sq[1]))[: 4 - len(quads)]]
    if not quads:
        return Survey()
    blurs = []
    for q in quads:
        scores, which, _q = candidate_scores(gray, q)
        i, k = np.unravel_index(int(np.argmax(scores)), scores.shape)
        blurs.append(blur_px(BLURS[int(which[i, k])], _side(q)))
    blur, smear = np.median(np.array(blurs), axis=0)
    return Survey(float(np.median([_side(q) for q in quads])), float(blur), float(smear), len(quads))
