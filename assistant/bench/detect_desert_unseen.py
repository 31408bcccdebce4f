"""Forbidden Desert read on pictures made differently from anything it was taught or tuned on.

The detector is taught from the owner's photos (``shared/components/forbidden-desert``, beside
the repository) with ``assistant teach --slot table``; its matching weights were fitted, and
its blob classifiers taught, on renders of :mod:`assistant.vision.render` (the teaching
renderer, its ``train``/``harsh``/``glare`` lights, tiles 58-66 mm, own-art sand markers of
18-40 mm). The pictures measured here come from :mod:`.second_renderer`, which shares none of
that: another camera model (lens distortion left after calibration, tilt 0-35 degrees),
another light and sensor pipeline (Bayer mosaic, demosaicing, tone curve, partial white
balance, JPEG), its own sand markers (rounded squares of 26-40 mm, other shades) and pawns
(shaded cylinders of other shades and sizes), the tiles as photographed (borders and all).
``normal`` is an ordinary room; ``stress`` stacks a dim warm room, a lamp's glare, defocus,
motion blur, vignetting and low JPEG quality in every picture. Both on the product's printed mat
(found by its markers, as ``assistant detect`` does) and on a bare table (corners given).

Every still is read as ``assistant detect`` reads it: the whole table, the parts also looked for
by matching the owner's cut-outs (``match_parts``, :mod:`assistant.vision.detectors.desert_parts`).

Reported per slot kind: readings wrong, readings wrong with confidence >= 0.9, the commonest
confusions; for the loose pieces (pawns, parts) the pieces found of those present and those
seen where there is none; boards not found, with the reason ``assistant detect`` would give.
"""

from __future__ import annotations

import collections
import time
from pathlib import Path

from ..vision.mats import mat_layout
from ..vision.registration import detect_markers, make_detector, manual_registration, register

PHOTOS = Path(__file__).resolve().parents[2].parent / "shared" / "components" / "forbidden-desert"
#: pictures per light and table (seeds: normal 5000+, stress 6000+, bare table 7000+)
STILLS = 16
SURE = 0.9


def photo_detector(photos: Path = PHOTOS):
    """The detector ``assistant teach --game forbidden-desert --slot table --images PHOTOS``
    makes (nothing cached: it takes seconds)."""
    from ..vision.detectors import forbidden_desert as fd
    from ..vision.detectors.desert_flat import DesertFlat, desert_pictures
    from ..vision.render.desert import ProceduralArt

    pictures = desert_pictures(photos, ProceduralArt())
    return fd.teach(DesertFlat(pictures.tiles, pictures.cards, parts=pictures.parts))


def teaching_cost(photos: Path = PHOTOS) -> tuple[float, float]:
    """What ``assistant teach --game forbidden-desert --slot table --images PHOTOS`` costs, run
    as a separate process: ``(CPU seconds, peak resident memory MB)`` (``resource.getrusage``
    of the child).

    Raises
    ------
    RuntimeError
        When the command fails.
    """
    import resource
    import subprocess
    import sys
    import tempfile

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryDirectory() as out:
        run = subprocess.run([sys.executable, "-m", "assistant", "teach", "--game", "forbidden-desert", "--slot",
                              "table", "--images", str(photos), "-o", str(Path(out) / "model")],
                             capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"assistant teach failed: {run.stderr.strip()}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, after.ru_maxrss / 1024.0


#: the slot kinds that hold several loose pieces, named and joined by "+" (a pawn per colour, a
#: part per name)
PIECE_KINDS = ("pawns", "parts")


def measure(det, seeds, stress: bool, mat: bool = True, photos: Path = PHOTOS, figures=None) -> dict:
    """Read every slot of :func:`~.second_renderer.still` pictures as ``assistant detect`` does
    (``match_parts``); returns counters:
    ``total``, ``wrong``, ``sure_wrong`` per slot kind, ``confusion`` (kind, truth, read) -> n,
    ``not_found`` (reasons), ``seconds`` (reading time per picture), and per kind of loose piece
    (``pawns``, ``parts``: a slot holds several) ``present`` (pieces on the stills whose board
    was found), ``found`` (of those, read) and ``phantom`` (read where there is none): a slot's
    share wrong hides how many of the pieces are missed, since most slots hold none."""
    from .second_renderer import still

    layout = mat_layout("forbidden-desert")
    total, wrong, sure_wrong = collections.Counter(), collections.Counter(), collections.Counter()
    confusion, not_found, seconds = collections.Counter(), collections.Counter(), []
    present, found, phantom = collections.Counter(), collections.Counter(), collections.Counter()
    condition = ("stress" if stress else "normal") + ("" if mat else ", bare table")
    for seed in seeds:
        pic = still(seed, photos, stress=stress, mat=mat)
        if mat:
            fit = register(detect_markers(pic.image, make_detector()), layout)
            if not fit:
                not_found[fit.reason] += 1
                continue
            homography = fit.homography
        else:
            homography = manual_registration(pic.corners_px, layout).homography
        t0 = time.perf_counter()
        readings = det.read(pic.image, homography, pic.camera_matrix, match_parts=True)
        seconds.append(time.perf_counter() - t0)
        for slot, reading in readings.items():
            kind, truth = slot[0], pic.truth[slot]
            total[kind] += 1
            if figures is not None:
                figures.reading("forbidden-desert", f"unseen {condition}", kind, truth or "-", reading.label or "-")
            if reading.label != truth:
                wrong[kind] += 1
                sure_wrong[kind] += reading.confidence >= SURE
                confusion[(kind, truth, reading.label)] += 1
            if kind in PIECE_KINDS:
                want, got = set(filter(None, truth.split("+"))), set(filter(None, reading.label.split("+")))
                present[kind] += len(want)
                found[kind] += len(want & got)
                phantom[kind] += len(got - want)
    return {"total": total, "wrong": wrong, "sure_wrong": sure_wrong, "confusion": confusion, "not_found": not_found,
            "seconds": seconds, "present": present, "found": found, "phantom": phantom}


def piece_line(got: dict) -> str:
    """The loose pieces of a :func:`measure` result as one printable line: per kind of
    ``PIECE_KINDS``, the pieces found of those present (with the share in %, none when no piece
    was present) and those read where there is none. ``got`` needs ``present``, ``found`` and
    ``phantom`` (kind -> int counters); a missing one raises KeyError."""

    def share(k):
        return f" ({100 * got['found'][k] / got['present'][k]:.0f} %)" if got["present"][k] else ""

    return "      loose pieces: " + "; ".join(
        f"{k} found {got['found'][k]} of {got['present'][k]}{share(k)}, seen where there is none {got['phantom'][k]}"
        for k in PIECE_KINDS)


def run_section(seconds: float, seed: int, figures=None) -> list[str]:
    """The figures on pictures made differently (see the module docstring), as printable lines;
    a line saying why when the component photos are not beside the repository."""
    if not PHOTOS.is_dir():
        return [f"  unseen pictures: skipped, the component photos are not beside the repository ({PHOTOS})"]
    lines = ["  pictures made differently (the second renderer, the real component photos; see "
             "assistant/bench/detect_desert_unseen.py for what differs from the teaching renders):"]
    cpu, peak = teaching_cost()
    lines.append(f"    assistant teach --slot table --images PHOTOS: {cpu:.1f} s of CPU, peak memory {peak:.0f} MB "
                 "(a separate process, as an owner runs it)")
    det = photo_detector()
    for name, seeds, stress, mat in (("normal", range(5000, 5000 + STILLS), False, True),
                                     ("stress", range(6000, 6000 + STILLS), True, True),
                                     ("normal, bare table (corners given)", range(7000, 7000 + STILLS // 2), False, False)):
        got = measure(det, seeds, stress, mat, figures=figures)
        total, wrong, sure = got["total"], got["wrong"], got["sure_wrong"]
        read = sum(total.values())
        per = ", ".join(f"{k} {wrong[k]}/{total[k]} ({100 * wrong[k] / max(total[k], 1):.1f} %)"
                        for k in ("face", "sand", "parts", "card", "pawns") if total[k])
        lines.append(f"    {name}: wrong {per}")
        lines.append(f"      wrong with confidence >= {SURE}: {sum(sure.values())} of {read} readings "
                     f"({100 * sum(sure.values()) / max(read, 1):.2f} %); by kind "
                     + ", ".join(f"{k} {sure[k]}" for k in sorted(total)))
        lines.append(piece_line(got))
        if got["not_found"]:
            lines.append("      boards not found: " + "; ".join(f"{n} x {why}" for why, n in got["not_found"].items()))
        if got["confusion"]:
            lines.append("      confusions (kind: truth -> read x n): " + "; ".join(
                f"{k}: {a or '-'} -> {b or '-'} x{n}" for (k, a, b), n in got["confusion"].most_common(10)))
        if got["seconds"]:
            lines.append(f"      whole-table read: median {sorted(got['seconds'])[len(got['seconds']) // 2]:.2f} s")
    lines += game_lines(det)
    return lines


#: games per light on second-renderer videos (seeds: normal 8001+, stress 8101+) and their length
GAMES, GAME_EVENTS = 2, 30


def game_lines(det, games: int = GAMES, events: int = GAME_EVENTS) -> list[str]:
    """Whole games on second-renderer webcam videos through the live loop
    (:mod:`.desert_games_unseen`), as printable lines: per light, the events the table showed,
    committed right, wrong commits, questions, events let pass."""
    import collections

    from .desert_games_unseen import play_game

    lines = []
    for name, base, stress in (("normal", 8001, False), ("stress", 8101, True)):
        got: collections.Counter = collections.Counter()
        for g in range(games):
            got.update(play_game(det, base + g, stress=stress, events=events))
        n = max(got["visible"], 1)
        lines.append(f"    whole games on webcam videos, {name} (seeds {base}-{base + games - 1}, {events} events each, "
                     f"10 fps, an arm reaching in; assistant/bench/desert_games_unseen.py): {got['visible']} events "
                     f"the table showed; committed right {got['right']} ({100 * got['right'] / n:.1f} %), wrong commits "
                     f"{got['wrong']}, questions {got['ask']}, illegal claims {got['illegal']}, let pass "
                     f"{got['missed']}")
    return lines
