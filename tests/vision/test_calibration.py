"""Camera calibration on synthetic views of a known camera (field reports F5, F12, F13).

Views are rendered here: the printed board is a plane seen by a pinhole camera of known K and
lens distortion from known poses. Each output pixel is undistorted exactly (iterated to 1e-12)
to a ray, the ray meets the board plane through the inverse homography ``K [r1 r2 t]``, and the
board texture is sampled there (then a mild blur and noise). So the true corner positions are
``cv2.projectPoints`` of the board corners, and calibration must give back K and distortion.
"""

from __future__ import annotations

import argparse
import math
import time

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assistant.vision.calibration import (BoardDetection, CalibrationLimits, CalibrationRefusal, CalibrationResult,
                                          as_gray, calibrate, calibrate_detections, coverage_grid, detect_board,
                                          distortion_is_invertible,
                                          rotation_difference_deg, split_boards, tilt_deg, view_difference)
from assistant.vision.calibration_cli import add_calibrate_command, add_print_command, grab_views, image_paths
from assistant.vision.calibration_io import (Undistorter, distort_points, load_calibration, save_calibration,
                                             undistort_points)
from assistant.vision.charuco import DEFAULT_BOARD, render_board

SIZE = W, H = 1280, 720
K = np.array([[900.0, 0, 643.0], [0, 900.0, 357.0], [0, 0, 1]])
DIST = np.array([-0.25, 0.09, 0.0005, -0.0003, 0.0])
TEX_PPM = 4.0      # texture pixels per mm (the board is 2-3 px/mm in the views)
MARGIN_MM = 12.0   # white paper around the printed board

# (tilt deg, tilt axis deg in the image plane, in-plane turn deg, centre u, v px, distance mm):
# tilted 20-40 deg in every direction, centres over the whole image
POSES = [
    (20, 0, 0, 640, 360, 480), (25, 100, 5, 300, 200, 450), (30, 45, -10, 980, 200, 460),
    (35, 135, 8, 300, 520, 470), (25, 300, -5, 980, 520, 450), (40, 180, 90, 640, 360, 560),
    (30, 20, 95, 230, 360, 520), (35, 200, -85, 1050, 360, 520), (20, 300, 180, 640, 190, 560),
    (40, 60, 12, 640, 530, 520), (25, 240, -15, 420, 360, 400), (30, 330, 3, 860, 360, 420),
]


def board_texture():
    """The board on white paper at TEX_PPM, grey ink (25) and paper (225), slightly soft."""
    board = render_board(DEFAULT_BOARD, TEX_PPM)
    m = int(round(MARGIN_MM * TEX_PPM))
    tex = cv2.copyMakeBorder(board, m, m, m, m, cv2.BORDER_CONSTANT, value=255)
    tex = (tex.astype(np.float32) * (200 / 255) + 25).astype(np.uint8)
    return cv2.GaussianBlur(tex, (0, 0), 0.8)


def undistorted_grid():
    """(H, W, 2): for every pixel of the distorted view, where it is in the ideal pinhole image."""
    u, v = np.meshgrid(np.arange(W, dtype=np.float64), np.arange(H, dtype=np.float64))
    pts = np.stack([u.ravel(), v.ravel()], -1).reshape(-1, 1, 2)
    und = cv2.undistortPoints(pts, K, DIST, P=K, criteria=(cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 50, 1e-12))
    return und.reshape(H, W, 2)


def pose(tilt, axis, turn, u, v, z):
    """R, t putting the board's centre at depth z on pixel (u, v), tilted about an image-plane axis."""
    a = math.radians(axis)
    r_tilt, _ = cv2.Rodrigues(np.array([math.cos(a), math.sin(a), 0.0]) * math.radians(tilt))
    r_turn, _ = cv2.Rodrigues(np.array([0.0, 0.0, math.radians(turn)]))
    rot = r_tilt @ r_turn
    centre = np.array([DEFAULT_BOARD.size_mm[0] / 2, DEFAULT_BOARD.size_mm[1] / 2, 0.0])
    return rot, z * np.linalg.inv(K) @ np.array([u, v, 1.0]) - rot @ centre


def board_maps(grid, rot, t):
    """remap tables: view pixel -> texture pixel (texture pixel i is centred on mm (i + 0.5) / TEX_PPM - margin)."""
    hom = K @ np.column_stack([rot[:, 0], rot[:, 1], t])
    x = np.einsum("ij,hwj->hwi", np.linalg.inv(hom), np.dstack([grid, np.ones(grid.shape[:2])]))
    ahead = x[..., 2] > 1e-12  # rays meeting the plane behind the camera see the background
    w = np.where(ahead, x[..., 2], 1.0)
    mx = np.where(ahead, x[..., 0] / w, -1e6)
    my = np.where(ahead, x[..., 1] / w, -1e6)
    return (((mx + MARGIN_MM) * TEX_PPM - 0.5).astype(np.float32),
            ((my + MARGIN_MM) * TEX_PPM - 0.5).astype(np.float32))


def render(scene, poses, rng, noise=2.0, blur=0.7, background=90):
    """A (H, W) uint8 view of one board per (R, t) in ``poses`` (later ones in front)."""
    tex, grid = scene
    img = np.full((H, W), background, np.float32)
    for rot, t in poses:
        mx, my = board_maps(grid, rot, t)
        board = cv2.remap(tex, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        inside = cv2.remap(np.full_like(tex, 255), mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                           borderValue=0).astype(np.float32) / 255
        img = img * (1 - inside) + board.astype(np.float32) * inside
    img = cv2.GaussianBlur(img, (0, 0), blur) + rng.normal(0, noise, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def truth(rot, t, dist=DIST):
    """(24, 2) true pixel positions of the ChArUco corners, by id."""
    rvec, _ = cv2.Rodrigues(rot)
    p, _ = cv2.projectPoints(DEFAULT_BOARD.corner_points_mm().astype(np.float64), rvec, t, K, dist)
    return p.reshape(-1, 2)


@pytest.fixture(scope="module")
def scene():
    return board_texture(), undistorted_grid()


@pytest.fixture(scope="module")
def good_views(scene):
    rng = np.random.default_rng(1)
    return [render(scene, [pose(*p)], rng) for p in POSES]


@pytest.fixture(scope="module")
def good_result(good_views):
    start = time.perf_counter()
    result = calibrate(good_views)
    print(f"\ncalibrate(12 views): {time.perf_counter() - start:.2f} s")
    return result


# ----------------------------------------------------------------------------- detection


def test_detected_corners_match_the_projection(scene):
    rot, t = pose(*POSES[2])
    img = render(scene, [(rot, t)], np.random.default_rng(2))
    for view in (img, cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)):
        d = detect_board(view)
        assert d and d.ids.size == 24 and d.image_size == SIZE and not d.warnings
        assert np.abs(d.corners - truth(rot, t)[d.ids]).max() < 0.5
        assert list(d.ids) == sorted(d.ids)


def test_no_board_and_half_board_are_clean_states(scene):
    """F5: no board, or half of it out of view: a falsy detection or fewer corners, no exception."""
    empty = detect_board(np.full((H, W), 90, np.uint8))
    assert not empty and empty.reason == "no marker of the board was seen" and empty.corners.shape == (0, 2)
    half = detect_board(render(scene, [pose(20, 0, 0, 640, 40, 450)], np.random.default_rng(3)))
    assert 0 < half.ids.size < 24


def test_views_must_be_uint8_images():
    with pytest.raises(ValueError, match="must be uint8"):
        as_gray(np.zeros((10, 10), np.float32))
    with pytest.raises(ValueError, match="shape"):
        as_gray(np.zeros((10, 10, 2), np.uint8))


def test_two_boards_in_view_use_the_larger_and_warn(scene):
    """F13: OpenCV alone finds no corner at all when every marker id is seen twice."""
    near, far = pose(20, 30, 5, 420, 360, 450), pose(25, 100, -20, 1000, 380, 640)
    img = render(scene, [far, near], np.random.default_rng(4))
    _, plain_ids, _, _ = cv2.aruco.CharucoDetector(DEFAULT_BOARD.board()).detectBoard(img)
    assert plain_ids is None
    d = detect_board(img)
    assert d.ids.size == 24 and d.markers == 17
    assert np.abs(d.corners - truth(*near)[d.ids]).max() < 0.5
    assert d.warnings == ("a second board (17 markers) was also in view and was ignored; show one board per view",)


def test_split_boards_keeps_each_id_once_per_board(scene):
    img = render(scene, [pose(20, 30, 5, 420, 360, 450), pose(25, 100, -20, 1000, 380, 640)],
                 np.random.default_rng(5))
    board = DEFAULT_BOARD.board()
    corners, ids, _ = cv2.aruco.ArucoDetector(board.getDictionary()).detectMarkers(img)
    groups = split_boards(np.asarray(corners).reshape(-1, 4, 2), ids.ravel())
    assert [len(g) for g in groups] == [17, 17]
    for g in groups:
        assert len(set(ids.ravel()[g])) == len(g)


# ----------------------------------------------------------------------------- calibration


def test_recovers_the_known_camera(good_result):
    r = good_result
    assert isinstance(r, CalibrationResult) and r
    fx_err = 100 * abs(r.camera_matrix[0, 0] / K[0, 0] - 1)
    fy_err = 100 * abs(r.camera_matrix[1, 1] / K[1, 1] - 1)
    print(f"fx error {fx_err:.3f} %, fy error {fy_err:.3f} %, RMS {r.rms_px:.3f} px, "
          f"k1 {r.dist_coeffs[0]:+.4f} (true {DIST[0]:+.4f}), cx {r.camera_matrix[0, 2]:.1f}, "
          f"cy {r.camera_matrix[1, 2]:.1f}")
    assert fx_err < 1.0 and fy_err < 1.0
    assert abs(r.camera_matrix[0, 2] - K[0, 2]) < 5 and abs(r.camera_matrix[1, 2] - K[1, 2]) < 5
    assert abs(r.dist_coeffs[0] - DIST[0]) < 0.03
    assert r.rms_px < 0.3
    assert r.view_count == 12 and not r.rejected and r.image_size == SIZE
    assert r.dist_coeffs.shape == (5,) and r.camera_matrix.shape == (3, 3)
    assert all(v.tilt_deg is not None and v.tilt_deg <= 55 and v.rms_px < 0.3 for v in r.views)
    assert r.coverage == 1.0 and r.pose_spread_deg > 40


def test_k3_can_be_fixed(good_views):
    r = calibrate(good_views, limits=CalibrationLimits(fix_k3=True))
    assert r and r.dist_coeffs[4] == 0.0 and abs(r.camera_matrix[0, 0] / K[0, 0] - 1) < 0.01


def test_too_few_views_are_refused(good_views):
    r = calibrate(good_views[:4] + [np.full((H, W), 90, np.uint8)], names=["a", "b", "c", "d", "blank"])
    assert isinstance(r, CalibrationRefusal) and not r
    assert r.code == "too_few_views"
    assert r.message == "Only 4 of 5 views are usable and at least 6 are needed: 1 with no board found."
    assert [(v.name, v.code) for v in r.rejected] == [("blank", "not_found")]
    assert r.rejected[0].reason.startswith("board not found: no marker of the board was seen")


def test_near_identical_views_are_rejected_by_name(scene, good_views):
    rng = np.random.default_rng(6)
    twins = []
    for p in POSES[:3]:  # the same pose again, 1.5 px to the side, fresh noise
        tilt, axis, turn, u, v, z = p
        twins.append(render(scene, [pose(tilt, axis, turn, u + 1.5, v, z)], rng))
    names = [f"pose {i + 1}" for i in range(12)] + ["again 1", "again 2", "again 3"]
    r = calibrate(good_views + twins, names=names)
    assert r and r.view_count == 12
    assert [(v.name, v.code) for v in r.rejected] == [("again 1", "too_similar"), ("again 2", "too_similar"),
                                                      ("again 3", "too_similar")]
    for v, twin_of in zip(r.rejected, ("pose 1", "pose 2", "pose 3")):
        assert v.reason.startswith(f"too similar to {twin_of}: the corners moved ")

    same = calibrate([good_views[0]] * 3 + [good_views[5]] * 3 + [good_views[8]] * 2)
    assert not same and same.code == "too_similar"
    assert same.message == ("Only 3 of 8 views are usable and at least 6 are needed: "
                            "5 too similar to another view.")


def test_views_tilted_60_degrees_are_rejected_by_name(scene, good_views):
    """F12: a view tilted 60 deg is named and rejected as too tilted, not silently used or lost."""
    rng = np.random.default_rng(7)
    tilted = [render(scene, [pose(60, axis, 0, 640, 360, 430)], rng) for axis in (0, 90, 225)]
    names = [f"good {i + 1}" for i in range(12)] + ["steep 1", "steep 2", "steep 3"]
    r = calibrate(good_views + tilted, names=names)
    assert r and r.view_count == 12
    assert [(v.name, v.code) for v in r.rejected] == [(f"steep {i}", "too_tilted") for i in (1, 2, 3)]
    for v in r.rejected:
        assert 56 < v.tilt_deg < 64
        assert v.reason == f"the board is tilted {v.tilt_deg:.0f} deg from the line of sight (at most 55 deg)"

    few = calibrate(good_views[:4] + tilted)
    assert not few and few.code == "too_tilted"
    assert few.message == "Only 4 of 7 views are usable and at least 6 are needed: 3 too tilted."


def test_a_view_far_worse_than_the_rest_is_rejected(good_views):
    """A blurred or moved view: its corners 3 px off where they belong."""
    detections = [detect_board(v) for v in good_views]
    bad = detections[4]
    noisy = BoardDetection(bad.corners + np.random.default_rng(13).normal(0, 3, bad.corners.shape).astype(np.float32),
                           bad.ids, bad.image_size, bad.markers)
    r = calibrate_detections(detections[:4] + [noisy] + detections[5:])
    assert r and r.view_count == 11
    assert [(v.name, v.code) for v in r.rejected] == [("view 5", "high_error")]
    assert r.rejected[0].reason.startswith("its reprojection error ")
    assert abs(r.camera_matrix[0, 0] / K[0, 0] - 1) < 0.01


def test_a_board_seen_nearly_edge_on_is_not_found_and_says_why(scene):
    img = render(scene, [pose(85, 0, 0, 640, 360, 430)], np.random.default_rng(8))
    r = calibrate([img], names=["edge-on"])
    assert not r and r.views[0].code == "not_found"
    assert "tilted over about 60 deg" in r.views[0].reason


def test_views_all_facing_the_camera_are_refused(scene):
    rng = np.random.default_rng(9)
    spots = [(0, 300, 200), (10, 640, 200), (0, 980, 200), (0, 300, 520), (-10, 640, 520), (0, 980, 520),
             (5, 300, 360), (0, 980, 360)]
    r = calibrate([render(scene, [pose(0, 0, turn, u, v, 480)], rng) for turn, u, v in spots])
    assert not r and r.code == "poor_pose_diversity"
    assert r.message.startswith("The board faces the camera the same way in every view")


def test_views_only_in_the_centre_are_refused(scene):
    rng = np.random.default_rng(10)
    tilts = [(20, 0), (30, 90), (30, 180), (35, 270), (25, 45), (30, 135), (35, 225)]
    r = calibrate([render(scene, [pose(t, axis, 0, 640, 360, 560)], rng) for t, axis in tilts])
    assert not r and r.code == "poor_coverage"
    assert r.message == ("The accepted views leave parts of the image empty (top-left, top-right, left, right, "
                         "bottom-left, bottom-right; 7 of 9 parts needed): hold the board there too.")


def test_a_view_with_two_boards_is_used_with_a_warning(scene, good_views):
    img = render(scene, [pose(25, 100, -20, 1000, 380, 640), pose(20, 30, 5, 420, 360, 450)],
                 np.random.default_rng(11))
    r = calibrate(good_views[:8] + [img])
    assert r and r.views[8].accepted and r.views[8].warnings
    assert "second board" in r.views[8].line()


def test_a_view_of_another_size_is_rejected(good_views):
    small = cv2.resize(good_views[0], (640, 360))
    r = calibrate(good_views[:3] + [small])
    assert r.views[3].code == "wrong_size" and r.views[3].reason == "the image is 640x360, not 1280x720 as the first view"


def test_helpers_measure_what_they_say():
    a = BoardDetection(np.array([[0, 0], [4, 0], [0, 4], [4, 4]], np.float32), np.arange(4, dtype=np.int32), SIZE)
    assert view_difference(a, BoardDetection(a.corners + [3, 4], a.ids, SIZE)) == pytest.approx(5.0)
    assert view_difference(a, BoardDetection(a.corners[:2], a.ids[:2], SIZE)) == math.inf
    assert tilt_deg(np.zeros(3), np.array([-75.0, -105.0, 500.0])) == pytest.approx(0.0, abs=1e-6)
    assert rotation_difference_deg(np.array([0.0, 0.3, 0.0]), np.array([0.0, -0.3, 0.0])) == pytest.approx(
        math.degrees(0.6))
    assert coverage_grid([], SIZE).sum() == 0
    assert calibrate([]).code == "no_views"
    with pytest.raises(ValueError, match="names"):
        calibrate_detections([a], names=["x", "y"])


# ----------------------------------------------------------------------------- file and undistortion


def test_yaml_round_trip(good_result, tmp_path):
    path = save_calibration(good_result, tmp_path / "cal" / "camera.yaml")
    text = path.read_text()
    for key in ("camera_matrix", "distortion_coefficients", "image_width", "image_height", "rms",
                "calibration_date", "view_count", "board"):
        assert f"\n{key}:" in text
    back = load_calibration(path)
    assert np.array_equal(back.camera_matrix, good_result.camera_matrix)
    assert np.array_equal(back.dist_coeffs, good_result.dist_coeffs)
    assert back.image_size == SIZE and back.view_count == 12 and back.rms_px == good_result.rms_px
    assert back.date == good_result.date and back.board == DEFAULT_BOARD.describe() and back.views == ()
    fs = cv2.FileStorage(str(path), cv2.FILE_STORAGE_READ)  # plain OpenCV reads it too
    assert fs.getNode("distortion_coefficients").mat().shape == (1, 5) and int(fs.getNode("image_width").real()) == W


def test_reads_files_of_opencvs_calibration_sample(tmp_path):
    """OpenCV 4's samples/cpp/calibration.cpp writes %YAML:1.0, avg_reprojection_error and nr_of_frames."""
    old = tmp_path / "out_camera_data.yml"
    old.write_text("%YAML:1.0\n---\ncalibration_time: \"Mon Jan  1 10:00:00 2024\"\nnr_of_frames: 15\n"
                   "image_width: 640\nimage_height: 480\n"
                   "camera_matrix: !!opencv-matrix\n   rows: 3\n   cols: 3\n   dt: d\n"
                   "   data: [ 600., 0., 320., 0., 600., 240., 0., 0., 1. ]\n"
                   "distortion_coefficients: !!opencv-matrix\n   rows: 5\n   cols: 1\n   dt: d\n"
                   "   data: [ -0.2, 0.05, 0., 0., 0. ]\navg_reprojection_error: 0.31\n")
    cal = load_calibration(old)
    assert cal.image_size == (640, 480) and cal.view_count == 15 and cal.rms_px == pytest.approx(0.31)
    assert cal.dist_coeffs.shape == (5,) and cal.camera_matrix[0, 0] == 600.0
    assert cal.date == "Mon Jan  1 10:00:00 2024"


def test_bad_files_raise_naming_the_key(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_calibration(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("%YAML:1.0\n---\nimage_width: 640\nimage_height: 480\n")
    with pytest.raises(ValueError, match="camera_matrix is missing"):
        load_calibration(bad)


def test_undistorter_straightens_the_board(scene, good_result):
    """Undistorting a distorted view puts the corners where a pinhole camera would: within 0.5 px."""
    rot, t = pose(30, 45, -10, 940, 240, 480)  # towards a corner of the image, where distortion is large
    img = render(scene, [(rot, t)], np.random.default_rng(12))
    pinhole = truth(rot, t, dist=np.zeros(5))
    assert np.abs(truth(rot, t) - pinhole).max() > 20  # the lens moves these corners a lot
    und = Undistorter(K, DIST, SIZE)
    d = detect_board(und(img))
    assert d.ids.size == 24 and np.abs(d.corners - pinhole[d.ids]).max() < 0.5
    # with the calibrated model instead of the true one
    fitted = Undistorter.from_calibration(good_result)
    d2 = detect_board(fitted(img))
    assert np.abs(d2.corners - truth(rot, t, dist=np.zeros(5))[d2.ids]).max() < 1.5  # K differs by ~0.2 %
    # points: the distorted detections undistort onto the pinhole projection
    raw = detect_board(img)
    assert np.abs(und.undistort_points(raw.corners) - pinhole[raw.ids]).max() < 0.5
    # a straight board edge is straight after undistortion (corners 0..3 are the top row)
    row = und.undistort_points(raw.corners[raw.ids < 4])
    fit = np.polyfit(row[:, 0], row[:, 1], 1)
    assert np.abs(np.polyval(fit, row[:, 0]) - row[:, 1]).max() < 0.3
    with pytest.raises(ValueError, match="640x360"):
        und(np.zeros((360, 640), np.uint8))


@settings(max_examples=60, deadline=None)
@given(st.floats(0, W - 1), st.floats(0, H - 1), st.floats(-0.3, 0.0), st.floats(0.05, 0.15))
def test_distort_points_inverts_undistort_points(x, y, k1, k2):
    """Over lenses whose model is one-to-one on the image (what calibrate accepts)."""
    dist = np.array([k1, k2, 0.0005, -0.0003, 0.0])
    assert distortion_is_invertible(K, dist, SIZE)
    ideal = undistort_points([x, y], K, dist)
    assert ideal.shape == (1, 2)
    assert np.allclose(distort_points(ideal, K, dist), [[x, y]], atol=1e-3)


# ----------------------------------------------------------------------------- the commands' functions


@pytest.fixture(scope="module")
def wave_video(good_views, tmp_path_factory):
    """An MJPG video in which each of the 12 poses is held for 3 frames."""
    video = tmp_path_factory.mktemp("video") / "wave.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, SIZE)
    assert writer.isOpened()
    for img in good_views:
        for _ in range(3):
            writer.write(cv2.cvtColor(img, cv2.COLOR_GRAY2BGR))
    writer.release()
    return video


def test_grab_views_keeps_one_view_per_still_pose(wave_video, tmp_path):
    kept = grab_views(str(wave_video))
    # the first frame of a pose is skipped (the board may still be moving), the second kept, the third too similar
    assert [name for name, _ in kept] == [f"frame {3 * i + 1}" for i in range(12)]
    r = calibrate_detections([d for _, d in kept], names=[n for n, _ in kept])
    assert r and abs(r.camera_matrix[0, 0] / K[0, 0] - 1) < 0.01
    assert len(grab_views(str(wave_video), max_views=5)) == 5
    with pytest.raises(OSError, match="cannot open"):
        grab_views(str(tmp_path / "nothing.avi"))


def parser():
    """A parser with the two commands, wired the way assistant/cli.py wires them."""
    p = argparse.ArgumentParser(prog="assistant")
    sub = p.add_subparsers(dest="command", required=True)
    print_parsers = sub.add_parser("print").add_subparsers(dest="what", required=True)
    add_print_command(print_parsers)
    add_calibrate_command(sub)
    return p


def test_calibrate_camera_command(good_views, tmp_path, capsys):
    shots = tmp_path / "shots"
    shots.mkdir()
    for i, img in enumerate(good_views[:8]):
        cv2.imwrite(str(shots / f"shot{i:02d}.png"), img)
    cv2.imwrite(str(shots / "shot99.png"), np.full((H, W), 90, np.uint8))
    (shots / "notes.txt").write_text("not an image")
    assert [p.name for p in image_paths(str(shots))][-1] == "shot99.png"
    (shots / "shot100.png").write_bytes(b"")  # natural order: 99 before 100; an empty file is skipped
    assert [p.name for p in image_paths(str(shots))][-2:] == ["shot99.png", "shot100.png"]
    assert len(image_paths(str(shots / "shot0*.png"))) == 8

    out = tmp_path / "calibration" / "camera.yaml"
    args = parser().parse_args(["calibrate", "camera", "--images", str(shots), "-o", str(out)])
    assert args.func(args) == 0
    printed = capsys.readouterr().out
    assert "shot00.png: accepted, 24 corners" in printed
    assert "shot99.png: rejected (not_found): board not found" in printed
    assert "shot100.png: skipped, not a readable image" in printed
    assert f"wrote {out}" in printed and load_calibration(out).view_count == 8

    args = parser().parse_args(["calibrate", "camera", "--images", str(shots / "shot0[0-3].png"),
                                "-o", str(tmp_path / "no.yaml")])
    assert args.func(args) == 2
    captured = capsys.readouterr()
    assert captured.err.strip() == "Only 4 of 4 views are usable and at least 6 are needed."
    assert not (tmp_path / "no.yaml").exists()

    args = parser().parse_args(["calibrate", "camera", "--images", str(tmp_path / "none*.png")])
    assert args.func(args) == 2
    assert capsys.readouterr().err == f"no images match {str(tmp_path / 'none*.png')!r}.\n"
    with pytest.raises(SystemExit):  # --images and --source are exclusive, one is required
        parser().parse_args(["calibrate", "camera"])


def test_calibrate_camera_command_from_a_video(wave_video, tmp_path, capsys):
    out, saved = tmp_path / "camera.yaml", tmp_path / "views"
    args = parser().parse_args(["calibrate", "camera", "--source", str(wave_video), "-o", str(out),
                                "--save-views", str(saved)])
    assert args.func(args) == 0
    printed = capsys.readouterr().out
    assert "frame 1: kept (1/30), 24 corners" in printed and "frame 34: accepted" in printed
    assert len(list(saved.glob("frame-*.png"))) == 12
    assert load_calibration(out).view_count == 12
