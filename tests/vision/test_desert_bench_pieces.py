"""The unseen-pictures benchmark counts the loose pieces (pawns, parts) one by one, beside the
share of slots read wrong: most slots hold none, so that share hides how many pieces are missed."""

from __future__ import annotations

import collections
from pathlib import Path

import pytest

PHOTOS = Path(__file__).resolve().parents[2].parent / "shared" / "components" / "forbidden-desert"
needs_photos = pytest.mark.skipif(not PHOTOS.is_dir(), reason=f"the component photos are not beside the checkout "
                                                               f"({PHOTOS})")


def test_the_piece_line_gives_found_of_present_and_phantoms():
    from assistant.bench.detect_desert_unseen import piece_line

    got = {"present": collections.Counter(pawns=40, parts=10), "found": collections.Counter(pawns=30, parts=3),
           "phantom": collections.Counter(pawns=5)}
    line = piece_line(got)
    assert "pawns found 30 of 40 (75 %), seen where there is none 5" in line
    assert "parts found 3 of 10 (30 %), seen where there is none 0" in line
    assert "parts found 0 of 0, seen" in piece_line({**got, "present": collections.Counter(pawns=40),
                                                     "found": collections.Counter(pawns=30)})


@needs_photos
def test_the_pieces_counted_are_the_still_s_own():
    """Development still 5300 (normal light): every pawn and part the renderer laid is counted as
    present, and what was read is split into found and seen-not-there as the wrong slots say."""
    from assistant.bench.detect_desert_unseen import PHOTOS as BENCH_PHOTOS, measure, photo_detector
    from assistant.bench.second_renderer import still

    pic = still(5300, BENCH_PHOTOS, stress=False, mat=True)
    got = measure(photo_detector(), [5300], stress=False)
    assert not got["not_found"], "the board of development still 5300 is found"
    wrong = 0
    for kind in ("pawns", "parts"):
        laid = sum(len(set(filter(None, t.split("+")))) for slot, t in pic.truth.items() if slot[0] == kind)
        assert laid > 0 and got["present"][kind] == laid
        missed = phantom = 0
        for (k, truth, read), n in got["confusion"].items():
            if k == kind:
                want, seen = set(filter(None, truth.split("+"))), set(filter(None, read.split("+")))
                missed += n * len(want - seen)
                phantom += n * len(seen - want)
        assert got["found"][kind] == laid - missed and got["phantom"][kind] == phantom
        wrong += missed + phantom
    assert wrong > 0, "the still has a piece missed or seen that is not there, so both counts are checked"
