"""The printed calibration board: true size on A4 and Letter, measured in the written files."""

from __future__ import annotations

import argparse
import re

import cv2
import numpy as np
import pytest
from PIL import Image

from assistant.vision.calibration_cli import add_calibrate_command, add_print_command
from assistant.vision.charuco import (DEFAULT_BOARD, MM_PER_INCH, PAPER_MM, CharucoSpec, page_size_mm, render_board,
                                      render_page, write_page)


def pdf_media_box(path) -> tuple[float, float]:
    """(width, height) of the single page of a PDF, points (1/72 in)."""
    data = path.read_bytes()
    boxes = re.findall(rb"/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*\]", data)
    assert len(boxes) == 1, boxes
    return float(boxes[0][0]), float(boxes[0][1])


def dark_runs(line: np.ndarray) -> list[tuple[int, int]]:
    """(start, end exclusive) of the runs of black pixels in a row of a 0/255 raster."""
    dark = np.concatenate([[0], (line < 128).astype(np.int8), [0]])
    edges = np.flatnonzero(np.diff(dark))
    return list(zip(edges[::2], edges[1::2]))


@pytest.fixture(scope="module")
def a4_files(tmp_path_factory):
    page = render_page(DEFAULT_BOARD, "a4", 300)
    png, pdf = write_page(page, tmp_path_factory.mktemp("print") / "board")
    return page, png, pdf


@pytest.mark.parametrize("paper, dpi, points", [("a4", 300, (595.28, 841.89)), ("letter", 150, (612.0, 792.0))])
def test_page_is_the_paper_at_the_given_dpi(paper, dpi, points, tmp_path):
    page = render_page(DEFAULT_BOARD, paper, dpi)
    w_mm, h_mm = PAPER_MM[paper]
    assert page.image.shape == (round(h_mm * dpi / MM_PER_INCH), round(w_mm * dpi / MM_PER_INCH))
    assert page_size_mm(page) == pytest.approx((w_mm, h_mm), abs=0.1)
    png, pdf = write_page(page, tmp_path / f"board-{paper}.pdf")  # a given suffix is dropped
    assert (png.name, pdf.name) == (f"board-{paper}.png", f"board-{paper}.pdf")
    with Image.open(png) as im:
        assert im.size == page.image.shape[::-1]
        assert im.info["dpi"] == pytest.approx((dpi, dpi), abs=0.05)  # pHYs stores whole px per metre
    w_pt, h_pt = pdf_media_box(pdf)
    assert (w_pt, h_pt) == pytest.approx(points, abs=0.5)
    assert (w_pt / 72 * MM_PER_INCH, h_pt / 72 * MM_PER_INCH) == pytest.approx((w_mm, h_mm), abs=0.2)
    assert pdf.read_bytes().startswith(b"%PDF")


def test_squares_measure_30_mm_in_the_png(a4_files):
    page, png, _ = a4_files
    img = cv2.imread(str(png), cv2.IMREAD_GRAYSCALE)
    assert np.array_equal(img, page.image) and set(np.unique(img)) == {0, 255}
    ppm = 300 / MM_PER_INCH
    # the corners OpenCV finds in the printed raster
    cc, ci, _, _ = cv2.aruco.CharucoDetector(DEFAULT_BOARD.board()).detectBoard(img)
    assert ci is not None and len(ci) == 24
    corners = dict(zip(ci.ravel().tolist(), cc.reshape(-1, 2)))
    across = [np.linalg.norm(corners[r * 4 + c + 1] - corners[r * 4 + c]) for r in range(6) for c in range(3)]
    down = [np.linalg.norm(corners[(r + 1) * 4 + c] - corners[r * 4 + c]) for r in range(5) for c in range(4)]
    assert np.median(across) / ppm == pytest.approx(30.0, abs=0.05)
    assert np.median(down) / ppm == pytest.approx(30.0, abs=0.05)
    assert np.linalg.norm(corners[3] - corners[0]) / ppm == pytest.approx(90.0, abs=0.1)
    assert np.linalg.norm(corners[20] - corners[0]) / ppm == pytest.approx(150.0, abs=0.1)
    # and the black squares of the first row, as pixel runs: 354 or 355 px for 354.33
    x0, y0 = page.board_origin_px
    runs = [e - s for s, e in dark_runs(img[y0 + round(2 * ppm), x0:x0 + round(150 * ppm)])]
    full = [r for r in runs if r > 300]
    assert len(full) == 3 and all(abs(r - 30 * ppm) <= 1 for r in full)


def test_ruler_is_100_mm_long(a4_files):
    page, png, _ = a4_files
    img = cv2.imread(str(png), cv2.IMREAD_GRAYSCALE)
    ppm = 300 / MM_PER_INCH
    base_y = round(page.ruler_px[0][1])
    # 4.25 mm above the baseline only the 1 cm ticks (5 mm long) reach
    ticks = dark_runs(img[base_y - round(4.25 * ppm)])
    assert len(ticks) == 11
    centres = [(s + e - 1) / 2 for s, e in ticks]
    assert (centres[-1] - centres[0]) / ppm == pytest.approx(100.0, abs=0.1)
    assert np.diff(centres) / ppm == pytest.approx([10.0] * 10, abs=0.1)
    # 2.75 mm above it the 5 mm ticks appear too; 1 mm above, every millimetre
    assert len(dark_runs(img[base_y - round(2.75 * ppm)])) == 21
    assert len(dark_runs(img[base_y - round(1.0 * ppm)])) == 101
    longest = max(e - s for s, e in dark_runs(img[base_y]))
    assert 100 * ppm <= longest <= 100 * ppm + 4


def test_pdf_holds_one_page_with_the_raster(a4_files):
    page, _, pdf = a4_files
    data = pdf.read_bytes()
    assert len(re.findall(rb"/Type\s*/Page\b", data)) == 1
    assert f"/Width {page.image.shape[1]}".encode() in data and f"/Height {page.image.shape[0]}".encode() in data


@pytest.mark.parametrize("px_per_mm", [4, 10])
def test_render_board_is_opencvs_board_when_squares_are_whole_pixels(px_per_mm):
    w, h = DEFAULT_BOARD.size_mm
    ours = render_board(DEFAULT_BOARD, px_per_mm)
    theirs = DEFAULT_BOARD.board().generateImage((int(w * px_per_mm), int(h * px_per_mm)), marginSize=0, borderBits=1)
    assert np.array_equal(ours, theirs)


def test_bad_requests_raise_with_a_reason():
    with pytest.raises(ValueError, match="unknown paper 'a3'"):
        render_page(DEFAULT_BOARD, "a3")
    with pytest.raises(ValueError, match="dpi must be at least 100"):
        render_page(DEFAULT_BOARD, "a4", 50)
    with pytest.raises(ValueError, match="does not fit on letter paper"):
        render_page(CharucoSpec(7, 9, 30.0, 22.0), "letter")
    with pytest.raises(ValueError, match="at least 3 x 3"):
        CharucoSpec(2, 5)
    with pytest.raises(ValueError, match="DICT_4X4_50 has 50 markers but the board needs 112"):
        CharucoSpec(15, 15, 10.0, 7.0, "DICT_4X4_50")
    with pytest.raises(ValueError, match="unknown ArUco dictionary"):
        CharucoSpec(dictionary="DICT_9X9")


def test_print_charuco_command(tmp_path, capsys):
    p = argparse.ArgumentParser(prog="assistant")
    sub = p.add_subparsers(dest="command", required=True)
    add_print_command(sub.add_parser("print").add_subparsers(dest="what", required=True))
    add_calibrate_command(sub)
    args = p.parse_args(["print", "charuco", "-o", str(tmp_path / "out" / "board"), "--paper", "letter",
                         "--dpi", "150"])
    assert args.func(args) == 0
    assert (tmp_path / "out" / "board.png").exists() and (tmp_path / "out" / "board.pdf").exists()
    out = capsys.readouterr().out
    assert "on Letter at 150 dpi" in out and "ruler measures 100 mm" in out
    args = p.parse_args(["print", "charuco", "-o", str(tmp_path / "x"), "--dpi", "50"])
    assert args.func(args) == 2
    assert capsys.readouterr().err.startswith("cannot draw the board: dpi must be at least 100")
