"""Mats: geometry rules of the issue, printing at true size, and the print command."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from assistant.vision.mats import MARKER_MM, QUIET_MM, game_of_marker, grid_over, mat_layout
from assistant.vision.printing import PAPER_MM, draw_mat, draw_ruler, tile_pages
from assistant.vision.registration import detect_markers, make_detector

REPO = Path(__file__).resolve().parents[2]
GAMES = ["forbidden-desert", "discovery-island", "scout-pennant"]


def _inside(rect, pt, tol=1e-6):
    return rect[0] - tol <= pt[0] <= rect[2] + tol and rect[1] - tol <= pt[1] <= rect[3] + tol


@pytest.mark.parametrize("game", GAMES)
def test_markers_sit_outside_the_play_area_with_a_quiet_zone(game):
    layout = mat_layout(game)
    module = MARKER_MM / 6                      # 4x4 bits plus a one-bit border
    assert QUIET_MM >= module
    w, h = layout.size_mm
    px0, py0, px1, py1 = layout.play_area_mm
    for m in layout.markers:
        xs, ys = [p[0] for p in m.corners_mm], [p[1] for p in m.corners_mm]
        assert min(xs) >= QUIET_MM - 1e-9 and min(ys) >= QUIET_MM - 1e-9
        assert max(xs) <= w - QUIET_MM + 1e-9 and max(ys) <= h - QUIET_MM + 1e-9
        # the quiet zone around the marker does not touch the play area
        assert max(xs) + QUIET_MM <= px0 + 1e-9 or min(xs) - QUIET_MM >= px1 - 1e-9 or \
            max(ys) + QUIET_MM <= py0 + 1e-9 or min(ys) - QUIET_MM >= py1 - 1e-9
        assert game_of_marker(m.id) == game
    for cell in layout.cells:
        assert all(_inside(layout.play_area_mm, p) for p in cell.polygon_mm)


def test_cell_counts_and_neighbours():
    fd, di, sp = (mat_layout(g) for g in GAMES)
    assert len(fd.cells) == 25 and fd.cell((4, 4)).center_mm[0] > fd.cell((0, 0)).center_mm[0]
    assert fd.card_place_mm and not _inside(fd.play_area_mm, fd.card_place_mm[2:])
    assert len(sp.cells) == 61 and sp.cell((0, 0)).center_mm == pytest.approx(
        ((sp.play_area_mm[0] + sp.play_area_mm[2]) / 2, (sp.play_area_mm[1] + sp.play_area_mm[3]) / 2))
    # a radius-R hex board has 3 * (3R^2 + R) shared sides: 156 for R = 4
    assert len(sp.edges) == 156
    north = sp.cell((0, -1)).center_mm
    assert north[1] < sp.cell((0, 0)).center_mm[1]            # axial (0,-1) is north, up the mat
    assert len(di.cells) == 63
    odd, even = di.cell((1, 0)).center_mm, di.cell((0, 0)).center_mm
    assert odd[1] > even[1]                                    # odd-q: odd columns sit half a hex lower
    g = grid_over(fd, 8, 8)
    assert len(g.cells) == 64 and g.markers == fd.markers


@pytest.mark.parametrize("game", GAMES)
def test_drawn_mat_has_its_markers_where_the_layout_says(game):
    layout = mat_layout(game)
    ppm = 2.0
    img = draw_mat(layout, ppm)
    found = detect_markers(img, make_detector())
    assert sorted(found) == sorted(m.id for m in layout.markers)
    for m in layout.markers:
        expected = np.array(m.corners_mm) * ppm - 0.5      # pixel centres
        assert np.max(np.abs(found[m.id] - expected)) < 1.0


def test_ruler_measures_100_mm():
    ppm = 300 / 25.4
    img = np.full((int(40 * ppm), int(130 * ppm), 3), 255, np.uint8)
    draw_ruler(img, (10.0, 20.0), ppm)
    row = img[int(20.5 * ppm), :, 0]
    dark = np.nonzero(row < 128)[0]
    assert (dark.max() - dark.min()) / ppm == pytest.approx(100.0, abs=0.3)


def test_pages_are_paper_sized_and_cover_the_mat():
    layout = mat_layout("forbidden-desert")
    ppm = 100 / 25.4
    mat = draw_mat(layout, ppm)
    for paper in ("a4", "letter"):
        pages = tile_pages(mat, ppm, paper)
        w, h = PAPER_MM[paper]
        for p in pages:
            ph, pw = p.image.shape[:2]
            assert {round(pw / ppm), round(ph / ppm)} == {round(w), round(h)}
        covered = np.zeros((int(layout.size_mm[1]) + 1, int(layout.size_mm[0]) + 1), bool)
        for p in pages:
            x0, y0, x1, y1 = (int(v) for v in p.region_mm)
            covered[y0:y1, x0:x1] = True
        assert covered[:-2, :-2].all()


def test_print_mat_command_writes_true_size_files(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    run = subprocess.run([sys.executable, "-m", "assistant", "print", "mat", "--game", "scout-pennant",
                          "-o", str(tmp_path / "sp"), "--dpi", "100"], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    png = Image.open(tmp_path / "sp.png")
    assert png.info["dpi"][0] == pytest.approx(100, abs=0.01)
    layout = mat_layout("scout-pennant")
    assert png.size[0] == round(layout.size_mm[0] * 100 / 25.4)
    pdf = (tmp_path / "sp.pdf").read_bytes()
    boxes = re.findall(rb"MediaBox \[ ?0 0 ([\d.]+) ([\d.]+) ?\]", pdf)
    assert boxes and all({round(float(a) / 72 * 25.4), round(float(b) / 72 * 25.4)} == {210, 297} for a, b in boxes)


@pytest.mark.parametrize("game", ["discovery-island", "scout-pennant"])
def test_colour_references_lie_in_the_band_clear_of_markers_and_each_other(game):
    """Two strips of every reference, in the band (outside the play area), apart from the markers'
    quiet zones and from each other; the geometry and marker ids of the mat are those of before."""
    layout = mat_layout(game)
    names = [r.name for r in layout.references]
    assert len(names) == 2 * len(set(names)) and {"white", "grey50", "black"} <= set(names)
    px0, py0, px1, py1 = layout.play_area_mm
    rects = [r.rect_mm for r in layout.references]
    for x0, y0, x1, y1 in rects:
        assert y1 <= py0 or y0 >= py1                                   # in the band above or below
        assert 0 <= x0 and x1 <= layout.size_mm[0] and 0 <= y0 and y1 <= layout.size_mm[1]
        for m in layout.markers:
            mx0, my0 = m.corners_mm[0]
            mx1, my1 = m.corners_mm[2]
            assert x1 <= mx0 - QUIET_MM or x0 >= mx1 + QUIET_MM or y1 <= my0 - QUIET_MM or y0 >= my1 + QUIET_MM
    for i, a in enumerate(rects):
        for b in rects[i + 1:]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
    first = {"discovery-island": 4, "scout-pennant": 8}[game]
    assert [m.id for m in layout.markers] == list(range(first, first + 4))


def test_colour_references_print_the_kits_own_inks():
    """The patches print the very inks of the kits' art (a pawn is compared with its own ink)."""
    from assistant.vision.kits.discovery_island import NUMBER_INK, TERRAIN_BGR
    from assistant.vision.kits.scout_pennant import CLEARING_GREY, FOREST_DARK, FOREST_LIGHT, PAWN_COLOURS

    island = {r.name: r.bgr for r in mat_layout("discovery-island").references}
    for terrain, (base, ink) in TERRAIN_BGR.items():
        assert island[terrain] == (ink if terrain == "cache" else base)       # the cache tile is white with red stripes
    assert {island[f"ink:{n}"] for n in ("blue", "green", "red", "orange")} == \
        {v for v in NUMBER_INK.values() if v != (30, 30, 30)}
    pennant = {r.name: r.bgr for r in mat_layout("scout-pennant").references}
    for pawn in PAWN_COLOURS:
        assert pennant[pawn.name] == pawn.bgr
    assert (pennant["forest"], pennant["forest:light"], pennant["clearing"]) == (FOREST_DARK, FOREST_LIGHT, CLEARING_GREY)


def test_drawn_references_show_their_inks():
    layout = mat_layout("scout-pennant")
    img = draw_mat(layout, 4.0)
    for ref in layout.references:
        x0, y0, x1, y1 = ref.rect_mm
        assert tuple(int(v) for v in img[int((y0 + y1) * 2), int((x0 + x1) * 2)]) == ref.bgr
