"""The storm card place: "no card" is believed only as far as the place looks like the bare
mat (issue 15's honest confidence). A card a lamp's glare washed out scores as low as an empty
place, but the empty place shows the mat and the card does not. The still here is a development
still of the second renderer (looked at while building), so this is a regression test, not
evidence; the figures are in ``assistant bench detect``."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from assistant.vision.detectors import desert_flat
from assistant.vision.detectors.desert_flat import CARD_BARE_FULL, card_reading

PHOTOS = Path(__file__).resolve().parents[2].parent / "shared" / "components" / "forbidden-desert"
needs_photos = pytest.mark.skipif(not PHOTOS.is_dir(), reason=f"the component photos are not beside the checkout "
                                                               f"({PHOTOS})")

#: card scores of a place where no picture fits (all far under CARD_NONE_LEVEL)
LOW = {"wind_n_1": 0.12, "wind_e_2": 0.17, "sun_beats_down": 0.05}


def test_none_is_sure_only_where_the_place_shows_the_bare_mat():
    bare = card_reading((LOW, 0.17, 1.0))
    assert bare.label == "none" and bare.confidence > 0.99
    covered = card_reading((LOW, 0.17, 0.0))
    assert covered.label == "none" and covered.confidence == pytest.approx(0.5) and covered.margin == pytest.approx(0.0)
    assert covered.alternatives == bare.alternatives
    half = card_reading((LOW, 0.17, CARD_BARE_FULL / 2))
    assert half.confidence == pytest.approx(0.75) and half.margin == pytest.approx(math.log(3.0))
    # from CARD_BARE_FULL of bare mat on, nothing is capped
    assert card_reading((LOW, 0.17, CARD_BARE_FULL)).confidence == bare.confidence


def test_a_card_that_matches_reads_the_same_on_any_place():
    """Only ``none`` is capped: a card that matches well reads the same card, as sure, whatever
    the place shows; no scores at all read ``none``; a best score that is no number is refused."""
    scores = {"wind_n_1": 0.80, "wind_e_2": 0.50, "sun_beats_down": 0.40}
    a, b = card_reading((scores, 0.80, 0.0)), card_reading((scores, 0.80, 1.0))
    assert a == b and a.label == "wind_n_1" and a.confidence > 0.99
    with pytest.raises(ValueError):
        desert_flat.card_posterior(scores, float("nan"), 0.5)
    assert card_reading(({}, 0.0, 1.0)).label == "none"


def test_the_alternatives_leave_out_only_labels_together_unlikely():
    """A tracker told "one card, or no card" must know no other card was close: after the
    runner-up come the other labels, most likely first, until those left out are together
    under ``CARD_RIVAL_P`` (a dozen cards each just under it are not all left out)."""
    scores = {"sun_beats_down": 0.60, "wind_n_1": 0.52, "wind_e_2": 0.50, "storm_picks_up": 0.20}
    best = desert_flat.CARD_NONE_LEVEL + 0.02
    post = desert_flat.card_posterior(scores, best, 1.0)
    r = card_reading((scores, best, 1.0))
    assert r.label == "sun_beats_down" and len(r.alternatives) >= 2 and "storm_picks_up" not in r.alternatives
    assert sum(p for label, p in post.items() if label != r.label and label not in r.alternatives) < desert_flat.CARD_RIVAL_P
    assert [post[a] for a in r.alternatives] == sorted((post[a] for a in r.alternatives), reverse=True)
    many = {"sun_beats_down": 0.70, **{f"wind_{d}_{n}": 0.56 for d in "nesw" for n in (1, 2, 3)}}
    spread = desert_flat.card_posterior(many, 0.70, 1.0)
    assert all(spread[f"wind_{d}_{n}"] < desert_flat.CARD_RIVAL_P for d in "nesw" for n in (1, 2, 3))
    crowd = card_reading((many, 0.70, 1.0))
    assert crowd.label == "sun_beats_down" and len([a for a in crowd.alternatives if a.startswith("wind")]) >= 11


def test_a_covered_place_favours_the_card_its_scores_rank_first():
    """A card blurred or in a dim light matches its picture about as well as ``none`` is
    believed (best fine score near CARD_NONE_LEVEL); where the place shows no bare mat the card
    is read, where it shows the mat whole, ``none`` (unsure either way near the level)."""
    scores = {"wind_e_1": 0.72, "wind_e_2": 0.49, "wind_s_1": 0.47}
    best = desert_flat.CARD_NONE_LEVEL - 0.03
    covered, open_ = card_reading((scores, best, 0.0)), card_reading((scores, best, 1.0))
    assert open_.label == "none" and open_.confidence < 0.9
    # the label moves, but no surer than the scores alone made that card: never a sure card
    # from "something covers the place" (the tracker commits a storm card at CARD_CONFIDENCE)
    from assistant.tracking.forbidden_desert import CARD_CONFIDENCE

    alone = desert_flat.card_posterior(scores, best)
    assert covered.label == "wind_e_1" and covered.margin == 0.0
    assert covered.confidence == pytest.approx(alone["wind_e_1"]) and covered.confidence < 0.5 < CARD_CONFIDENCE
    for best_ in (0.40, 0.45, 0.50, 0.54, 0.56, 0.60, 0.70):
        for bare in (0.0, 0.3, 1.0):
            r, own = card_reading((scores, best_, bare)), desert_flat._reading(desert_flat.card_posterior(scores, best_))
            assert r.confidence <= own.confidence + 1e-12 or r.label != own.label
            if r.label != own.label:
                assert r.confidence <= desert_flat.card_posterior(scores, best_)[r.label] + 1e-12 and r.margin == 0.0
    post = desert_flat.card_posterior(scores, best, 0.0)
    assert sum(post.values()) == pytest.approx(1.0)
    # the odds of "none" scale with the bare share under CARD_BARE_FULL, and not above it
    odds = lambda b: (lambda p: p / (1 - p))(desert_flat.card_posterior(scores, best, b)["none"])
    assert odds(CARD_BARE_FULL / 4) == pytest.approx(odds(CARD_BARE_FULL) / 4)
    assert odds(1.0) == pytest.approx(odds(CARD_BARE_FULL))


@needs_photos
def test_a_card_washed_out_by_glare_is_not_surely_no_card():
    """Development still 6,103 (stress): the lamp's glare lies on the card place and washes the
    ``wind_e_2`` card out; no card picture fits (best fine score 0.17), so it reads ``none``, but
    the place does not show the bare mat, so not surely (main's code said 1.000)."""
    from assistant.bench.detect_desert_unseen import PHOTOS as BENCH_PHOTOS, photo_detector
    from assistant.bench.second_renderer import still
    from assistant.vision.mats import mat_layout
    from assistant.vision.registration import detect_markers, make_detector, register

    pic = still(6103, BENCH_PHOTOS, stress=True, mat=True)
    fit = register(detect_markers(pic.image, make_detector()), mat_layout("forbidden-desert"))
    assert fit, "the board of development still 6103 is found"
    scores, best, bare, _clipped = photo_detector().flat.score_card(pic.image, fit.homography)
    assert pic.truth[("card",)] == "wind_e_2" and best < desert_flat.CARD_NONE_LEVEL
    assert bare < CARD_BARE_FULL
    r = card_reading((scores, best, bare))
    assert r.label == "none" and r.confidence < 0.9


def test_none_is_no_surer_than_what_the_camera_did_not_clip():
    """A card washed to the sensor's white looks like the bare mat (bare share 1): ``none`` is
    believed at most ``0.5 + 0.5 * (1 - clipped)``; nothing clipped, nothing changes; a card
    that matches is not capped."""
    sure = card_reading((LOW, 0.17, 1.0))
    assert card_reading((LOW, 0.17, 1.0, 0.0)) == sure
    washed = card_reading((LOW, 0.17, 1.0, 1.0))
    assert washed.label == "none" and washed.confidence == pytest.approx(0.5) and washed.margin == pytest.approx(0.0)
    assert card_reading((LOW, 0.17, 1.0, 0.5)).confidence == pytest.approx(0.75)
    scores = {"wind_n_1": 0.80, "wind_e_2": 0.50, "sun_beats_down": 0.40}
    assert card_reading((scores, 0.80, 1.0, 1.0)) == card_reading((scores, 0.80, 1.0))


@needs_photos
def test_a_card_the_glare_clipped_white_is_not_surely_no_card():
    """Development still 6,360 (stress): a lamp's glare clips the ``wind_w_3`` card to white, so
    the place looks like the bare mat (the bare share cannot tell); most of its channel values
    are clipped, so ``none`` is not sure (the code before said 1.000)."""
    from assistant.bench.detect_desert_unseen import PHOTOS as BENCH_PHOTOS, photo_detector
    from assistant.bench.second_renderer import still
    from assistant.vision.mats import mat_layout
    from assistant.vision.registration import detect_markers, make_detector, register

    pic = still(6360, BENCH_PHOTOS, stress=True, mat=True)
    fit = register(detect_markers(pic.image, make_detector()), mat_layout("forbidden-desert"))
    assert fit, "the board of development still 6360 is found"
    scored = photo_detector().flat.score_card(pic.image, fit.homography)
    assert pic.truth[("card",)] == "wind_w_3" and scored[2] >= CARD_BARE_FULL and scored[3] > 0.5
    assert card_reading(scored[:3]).confidence > 0.99                    # the bare share alone: sure
    r = card_reading(scored)
    assert r.label == "none" and r.confidence < 0.9
