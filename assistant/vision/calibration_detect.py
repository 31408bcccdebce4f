"""Finding the ChArUco board in one view (field reports F5 and F13).

:func:`detect_board` reads the board's ArUco markers, splits them into physical boards when an id
is seen twice (:func:`split_boards`), interpolates the chessboard corners of each, and returns
the board with the most corners as a :class:`BoardDetection` (falsy, with a reason, when there is
none). Pixels ``(x, y)`` as in the coordinate note of :mod:`assistant.vision`.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .charuco import DEFAULT_BOARD, CharucoSpec


@dataclass(frozen=True, eq=False)
class BoardDetection:
    """The ChArUco corners found in one view; falsy when none were.

    Attributes
    ----------
    corners : (N, 2) float32
        Corner positions, pixels ``(x, y)``, sub-pixel; rows sorted by id.
    ids : (N,) int32
        ChArUco corner ids, ``0 .. spec.corner_count - 1``; id ``i`` is row ``i`` of
        :meth:`CharucoSpec.corner_points_mm`.
    image_size : (width, height)
        Size of the view, pixels.
    markers : int
        ArUco markers of the used board that were read.
    reason : str
        Why nothing was found (one sentence); empty when corners were found.
    warnings : tuple of str
        E.g. a second board in view that was ignored (field report F13).

    >>> d = detect_board(np.full((240, 320), 255, np.uint8))
    >>> bool(d), d.reason
    (False, 'no marker of the board was seen')
    """

    corners: np.ndarray
    ids: np.ndarray
    image_size: tuple[int, int]
    markers: int = 0
    reason: str = ""
    warnings: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.ids.size)

    @classmethod
    def empty(cls, image_size: tuple[int, int], reason: str, markers: int = 0,
              warnings: tuple[str, ...] = ()) -> "BoardDetection":
        """A detection without corners, saying why."""
        return cls(np.zeros((0, 2), np.float32), np.zeros(0, np.int32), image_size, markers, reason, warnings)


def as_gray(image: np.ndarray) -> np.ndarray:
    """A view as ``(H, W) uint8`` grayscale.

    Takes ``(H, W)`` or ``(H, W, 1)`` uint8 gray, ``(H, W, 3)`` BGR or ``(H, W, 4)`` BGRA uint8.
    Raises ``ValueError`` for any other shape or dtype, naming it.
    """
    image = np.asarray(image)
    if image.dtype != np.uint8:
        raise ValueError(f"a view must be uint8, got {image.dtype}")
    if image.ndim == 3 and image.shape[2] == 1:
        image = image[:, :, 0]
    if image.ndim == 2:
        return image
    if image.ndim == 3 and image.shape[2] in (3, 4):
        return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY if image.shape[2] == 3 else cv2.COLOR_BGRA2GRAY)
    raise ValueError(f"a view must be (H, W) gray or (H, W, 3) BGR, got shape {image.shape}")


def detect_board(image: np.ndarray, board: CharucoSpec = DEFAULT_BOARD) -> BoardDetection:
    """Find the ChArUco board in one view; with two boards in view, use the one with more corners.

    Parameters
    ----------
    image : (H, W) uint8 gray or (H, W, 3) uint8 BGR
        The view.
    board : CharucoSpec
        The board to look for.

    Returns
    -------
    BoardDetection
        Corners and ids of one board, falsy with a reason when no corner was found; never raises
        for an image without the board (field report F5).

    Raises
    ------
    ValueError
        For an image of another shape or dtype (see :func:`as_gray`).

    Notes
    -----
    Markers are read by ``cv2.aruco.ArucoDetector.detectMarkers`` and the corners interpolated
    and refined by ``cv2.aruco.CharucoDetector.detectBoard`` (local homography, then
    ``cornerSubPix``). OpenCV returns *no* corner when a marker id is seen twice, i.e. when two
    copies of the board are in view (field report F13). Here the markers are first split into
    boards (:func:`split_boards`); each board is interpolated alone, the one with the most corners
    (then the largest in the image) is returned and the others are named in ``warnings``.
    """
    gray = as_gray(image)
    size = (int(gray.shape[1]), int(gray.shape[0]))
    cv_board = board.board()
    charuco = cv2.aruco.CharucoDetector(cv_board)
    aruco = cv2.aruco.ArucoDetector(cv_board.getDictionary(), charuco.getDetectorParameters(),
                                    charuco.getRefineParameters())
    marker_corners, marker_ids, _ = aruco.detectMarkers(gray)
    if marker_ids is None or len(marker_ids) == 0:
        return BoardDetection.empty(size, "no marker of the board was seen")
    ids = np.asarray(marker_ids, np.int32).ravel()
    quads = np.asarray(marker_corners, np.float32).reshape(-1, 4, 2)
    mine = np.isin(ids, np.asarray(cv_board.getIds()).ravel())
    ids, quads = ids[mine], quads[mine]
    if ids.size == 0:
        return BoardDetection.empty(size, "no marker of the board was seen")

    found = []  # (corner count, hull area px^2, marker count, corners, ids)
    for group in split_boards(quads, ids, board):
        cc, ci, _, _ = charuco.detectBoard(gray, markerCorners=tuple(q.reshape(1, 4, 2) for q in quads[group]),
                                           markerIds=ids[group].reshape(-1, 1))
        n = 0 if ci is None else len(ci)
        area = cv2.contourArea(cv2.convexHull(quads[group].reshape(-1, 1, 2)))
        found.append((n, area, len(group), cc, ci))
    found.sort(key=lambda f: (f[0], f[1]), reverse=True)  # most corners, then the largest in the image
    warnings = tuple(f"a second board ({f[2]} markers) was also in view and was ignored; show one board per view"
                     for f in found[1:] if f[2] >= 2)
    n, _, markers, cc, ci = found[0]
    if n == 0:
        return BoardDetection.empty(size, f"{markers} marker(s) of the board were seen but no corner between "
                                          f"them could be located", markers, warnings)
    order = np.argsort(np.asarray(ci).ravel())
    return BoardDetection(np.asarray(cc, np.float32).reshape(-1, 2)[order],
                          np.asarray(ci, np.int32).ravel()[order], size, markers, "", warnings)


def split_boards(quads: np.ndarray, ids: np.ndarray, board: CharucoSpec = DEFAULT_BOARD) -> list[np.ndarray]:
    """Group the markers of a view into physical boards, largest group first.

    Parameters
    ----------
    quads : (M, 4, 2) float32
        Marker corners, pixels, in ``detectMarkers`` order (clockwise from the top-left).
    ids : (M,) int
        Marker ids.
    board : CharucoSpec
        The board the ids belong to.

    Returns
    -------
    list of (k,) int arrays
        Indices into ``quads``; one array when every id is seen once. When an id repeats, boards
        are peeled off one by one: a RANSAC homography (``cv2.findHomography``) from board
        millimetres to pixels, a marker joining it when all four of its corners lie within half a
        marker side of where it predicts them (loose enough for lens distortion across a board,
        far tighter than the distance between two boards). Each group holds an id at most once;
        markers left alone are dropped.

    >>> split_boards(np.zeros((0, 4, 2), np.float32), np.zeros(0, int))
    []
    """
    ids = np.asarray(ids).ravel()
    if ids.size == 0:
        return []
    if len(np.unique(ids)) == ids.size:
        return [np.arange(ids.size)]
    cv_board = board.board()
    obj_of = {int(i): np.asarray(p, np.float64)[:, :2]
              for i, p in zip(np.asarray(cv_board.getIds()).ravel(), cv_board.getObjPoints())}
    quads = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    remaining = np.arange(ids.size)
    groups: list[np.ndarray] = []
    while remaining.size >= 2:
        src = np.concatenate([obj_of[int(ids[k])] for k in remaining])
        dst = quads[remaining].reshape(-1, 2)
        side = float(np.median(np.linalg.norm(quads[remaining] - np.roll(quads[remaining], 1, axis=1), axis=2)))
        tol = max(3.0, 0.5 * side)
        h, _ = cv2.findHomography(src, dst, cv2.RANSAC, tol, maxIters=2000, confidence=0.999)
        if h is None:
            break
        for _ in range(2):  # re-fit on the inliers, then collect again
            err = np.linalg.norm(cv2.perspectiveTransform(src.reshape(-1, 1, 2), h).reshape(-1, 2) - dst, axis=1)
            per_marker = err.reshape(-1, 4).max(axis=1)
            inliers = _best_per_id(remaining, ids, per_marker, tol)
            if inliers.size < 2:
                break
            fit_src = np.concatenate([obj_of[int(ids[k])] for k in inliers])
            h, _ = cv2.findHomography(fit_src, quads[inliers].reshape(-1, 2), 0)
            if h is None:
                break
        if inliers.size < 2:
            break
        groups.append(np.sort(inliers))
        remaining = np.setdiff1d(remaining, inliers)
    return groups or [np.array([k]) for k in range(ids.size)]


def _best_per_id(candidates: np.ndarray, ids: np.ndarray, error: np.ndarray, tol: float) -> np.ndarray:
    """Candidates with ``error <= tol``, keeping the smallest error when an id repeats."""
    best: dict[int, tuple[float, int]] = {}
    for k, e in zip(candidates, error):
        if e <= tol and (int(ids[k]) not in best or e < best[int(ids[k])][0]):
            best[int(ids[k])] = (float(e), int(k))
    return np.array(sorted(k for _, k in best.values()), dtype=int)
