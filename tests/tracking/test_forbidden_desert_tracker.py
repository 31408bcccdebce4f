"""The Forbidden Desert tracker on exact and on wrong readings (no camera): compound turns,
storm cards with corrections, illegal moves, ambiguity and uncertainty (field reports F6, F7, F10)."""

from __future__ import annotations

import json

import pytest

from assistant.games import get_game
from assistant.games.base import Event
from assistant.games.forbidden_desert import legal
from assistant.games.forbidden_desert.components import ALL_CELLS
from assistant.tracking.base import GUESSED, Reading, diff_cells
from assistant.tracking.forbidden_desert import (AWAITING_SLIDES, CARD_CELL, REVEAL_CONFIDENCE, ForbiddenDesertTable,
                                                 UNSEEN_SAND_CONFIDENCE, UNSURE_ACTION, ForbiddenDesertTracker,
                                                 corrections)

GAME = get_game("forbidden-desert")
MODEL = ForbiddenDesertTable()
BACKS = [["dune_back", "dune_back", "dune_back", "dune_back", "water_back"],
         ["dune_back", "crash_site", "dune_back", "dune_back", "water_back"],
         ["water_back", "dune_back", None, "dune_back", "dune_back"],
         ["dune_back", "dune_back", "dune_back", "dune_back", "dune_back"],
         ["dune_back", "dune_back", "dune_back", "dune_back", "dune_back"]]
EQUIPMENT = ["jet_pack", "dune_blaster", "time_throttle", "jet_pack", "solar_shield", "terrascope", "dune_blaster",
             "secret_water_reserve", "jet_pack", "terrascope", "solar_shield", "dune_blaster"]


def start(position=None, players=("archeologist", "explorer", "navigator")):
    deck = list(EQUIPMENT)
    for hand in (position or {}).get("hands", []):
        for card in hand:
            deck.remove(card)
    setup = {"players": list(players), "difficulty": "normal", "first_player": 0, "layout": BACKS,
             "equipment_deck": deck}
    if position:
        setup["position"] = position
    return GAME.new_state(setup, {})


def play(state, *events):
    for ev in events:
        state = GAME.apply(state, ev)
        assert state, state
    return state


def look(before, after, confidence=1.0):
    """What a perfect camera reports after the table went from ``before`` to ``after``: the
    cells that changed and the readings of their slots."""
    a, b = MODEL.expected(before), MODEL.expected(after)
    changed = diff_cells(MODEL, a, b)
    observed = {s: Reading(b[s], confidence, 5.0) for s in MODEL.slots(changed)}
    return observed, changed


def table(state, confidence=1.0):
    return {s: Reading(v, confidence, 5.0) for s, v in MODEL.expected(state).items()}


def storm_laid(state, card):
    """A tracker at ``state`` that has just seen ``card`` laid on the card place (read surely,
    the rest of the table as it was) and committed it."""
    tracker = ForbiddenDesertTracker(GAME, state)
    observed = table(state)
    observed[("card",)] = Reading(card)
    tracker.explain(observed, [CARD_CELL])
    return tracker


def summary(state):
    return json.dumps(GAME.summary(state), sort_keys=True)


def test_a_single_move_is_committed():
    s0 = start()
    s1 = play(s0, Event.make(0, "move", to=(0, 1)))
    tracker = ForbiddenDesertTracker(GAME, s0)
    verdict = tracker.explain(*look(s0, s1))
    assert verdict.kind == "commit" and verdict.events == [Event.make(0, "move", to=(0, 1))]
    assert summary(tracker.state) == summary(s1)
    assert verdict.message == "Seen: player 1: move to B1."        # what the referee view shows
    assert MODEL.event_text(Event.make(2, "navigate", target=0, to=(0, 1))) == "player 3: navigate target player 1, to B1"
    assert MODEL.event_text(Event.make("storm", "storm_card", card="wind_e_1")) == "storm: storm card wind e 1"


def test_a_whole_turn_between_two_still_moments():
    """F6: four actions seen only at the end (sand removed, a move, a dig that reveals a face)."""
    s0 = start({"sand": [[0, 1, 1], [0, 2, 1]]})
    s1 = play(s0, Event.make(0, "remove_sand", at=(0, 1)), Event.make(0, "move", to=(0, 1)),
              Event.make(0, "excavate", reveals="gear"), Event.make(0, "remove_sand", at=(0, 2)))
    tracker = ForbiddenDesertTracker(GAME, s0)
    verdict = tracker.explain(*look(s0, s1))
    assert verdict.kind == "commit", verdict.message
    assert summary(tracker.state) == summary(s1)
    assert len(verdict.events) == 4


def test_a_face_read_unsurely_is_asked_about_not_revealed():
    """A reveal is for good: a face read below REVEAL_CONFIDENCE (two pawns standing on the
    tile made a dune back look like a launch pad in a stress-light game) is a question whose
    options are the faces the reading leaves open that the tile's back allows (never the storm
    or a back); read surely, the same dig is committed."""
    s0 = start({"sand": [[0, 1, 1]]})
    s1 = play(s0, Event.make(0, "move", to=(0, 1)))
    s2 = play(s1, Event.make(0, "remove_sand", at=(0, 1)), Event.make(0, "excavate", reveals="launch_pad"))
    observed, changed = look(s1, s2)
    observed[("face", 0, 1)] = Reading("launch_pad", REVEAL_CONFIDENCE - 0.15, 2.0, ("storm", "gear", "water_back"))
    tracker = ForbiddenDesertTracker(GAME, s1)
    verdict = tracker.explain(observed, changed)
    assert verdict.kind == "ask" and "B1" in verdict.message and "launch pad or gear" in verdict.message
    assert [ev["reveals"] for events in verdict.options for ev in events if ev.type == "excavate"] == ["launch_pad", "gear"]
    assert summary(tracker.state) == summary(s1)                  # nothing committed
    observed[("face", 0, 1)] = Reading("launch_pad", REVEAL_CONFIDENCE, 2.0, ("gear",))
    verdict = tracker.explain(observed, changed)
    assert verdict.kind == "commit" and summary(tracker.state) == summary(s2)


@pytest.mark.parametrize("read", ["launch_pad", "gear"])
def test_with_a_physical_deck_an_unsure_face_is_asked_with_the_cards_each_face_allows(read):
    """A physical equipment deck: a gear gives a card the camera cannot see, a launch pad none.
    An unsure reading between the two is asked about as the face, with every card a gear may
    have given, whichever face the reading put first (a gear read unsurely used to reach the
    players only as "which equipment card was drawn?", all its options revealing a gear)."""
    setup = {"players": ["archeologist", "explorer", "navigator"], "difficulty": "normal", "first_player": 0,
             "layout": BACKS, "position": {"sand": [[0, 1, 1]]}}
    s1 = play(GAME.new_state(setup, {}), Event.make(0, "move", to=(0, 1)))
    digs = [ev for ev in GAME.legal_events(play(s1, Event.make(0, "remove_sand", at=(0, 1)))) if ev.type == "excavate"]
    dig = next(ev for ev in digs if ev["reveals"] == read)
    s2 = play(s1, Event.make(0, "remove_sand", at=(0, 1)), dig)
    observed, changed = look(s1, s2)
    other = "gear" if read == "launch_pad" else "launch_pad"
    observed[("face", 0, 1)] = Reading(read, REVEAL_CONFIDENCE - 0.2, 1.0, (other,))
    tracker = ForbiddenDesertTracker(GAME, s1)
    verdict = tracker.explain(observed, changed)
    assert verdict.kind == "ask" and "B1" in verdict.message and other.replace("_", " ") in verdict.message
    shown = {ev["reveals"]: ev.get("draws") for events in verdict.options for ev in events if ev.type == "excavate"}
    assert set(shown) == {"launch_pad", "gear"} and shown["launch_pad"] is None
    gear_cards = {ev["draws"] for events in verdict.options for ev in events if ev.get("reveals") == "gear"}
    assert len(gear_cards) > 1 and None not in gear_cards                # every card a gear may give
    assert summary(tracker.state) == summary(s1)


def test_a_time_throttle_turn_of_six_actions():
    """Six actions, each visible: four cells cleared around the crash site, a step, one more."""
    s0 = start({"sand": [[0, 0, 1], [0, 1, 1], [1, 0, 1], [2, 1, 1], [1, 2, 1]], "hands": [["time_throttle"], [], []]})
    s0 = play(s0, Event.make(0, "play_equipment", card="time_throttle"))
    actions = [Event.make(0, "remove_sand", at=(0, 1)), Event.make(0, "remove_sand", at=(1, 0)),
               Event.make(0, "remove_sand", at=(2, 1)), Event.make(0, "remove_sand", at=(1, 2)),
               Event.make(0, "move", to=(0, 1)), Event.make(0, "remove_sand", at=(0, 0))]
    s1 = play(s0, *actions)
    tracker = ForbiddenDesertTracker(GAME, s0)
    verdict = tracker.explain(*look(s0, s1))
    assert verdict.kind == "commit", verdict.message
    assert summary(tracker.state) == summary(s1)


def test_a_storm_card_then_corrections_until_the_table_matches():
    s0 = start()
    tracker = ForbiddenDesertTracker(GAME, s0)
    observed = table(s0)
    observed[("card",)] = Reading("wind_n_2")
    verdict = tracker.explain(observed, [CARD_CELL])
    assert verdict.kind == "commit" and [e.type for e in verdict.events] == ["end_turn", "storm_card"]
    # tiles at C4 and C5 slid north into the storm (C3): the table has not moved yet
    assert verdict.corrections[:2] == ["slide the tile at C4 to C3", "slide the tile at C5 to C4"]
    after = tracker.state
    half = table(after)
    half[("sand", 2, 2)] = Reading("none")               # slid, but no sand added yet on C3
    v2 = tracker.explain(half, [(2, 2)])
    assert v2.kind == "ask" and v2.corrections == ["add one sand to C3"]
    v3 = tracker.explain(table(after), [(2, 2)])
    assert v3.kind == "nothing" and tracker.awaiting is None


def test_a_wind_carried_out_wrongly_is_caught():
    s0 = start()
    tracker = ForbiddenDesertTracker(GAME, s0)
    observed = table(s0)
    observed[("card",)] = Reading("wind_e_1")
    tracker.explain(observed, [CARD_CELL])
    # the players slid the tile from the north instead of the west
    wrong = table(tracker.state)
    wrong[("face", 2, 2)], wrong[("face", 2, 1)] = Reading("dune_back"), Reading("dune_back")
    wrong[("sand", 2, 2)], wrong[("sand", 2, 1)] = Reading("light"), Reading("none")
    wrong[("face", 1, 2)], wrong[("sand", 1, 2)] = Reading("storm"), Reading("none")
    verdict = tracker.explain(wrong, [(1, 2), (2, 2), (2, 1)])
    assert verdict.kind == "ask" and verdict.corrections


def test_an_unsure_wind_card_is_chosen_by_the_slides_that_follow():
    """The card place reads wind n 2 or wind n 1, not surely: nothing is committed and nobody
    is asked (the slides can still tell), and when the table then shows the slides of one of
    them (one tile or two slid into the storm), that one is committed, with nothing left to
    correct."""
    s0 = start()
    truth = play(s0, Event.make(0, "end_turn"), Event.make("storm", "storm_card", card="wind_n_1"))
    tracker = ForbiddenDesertTracker(GAME, s0)
    observed = table(s0)
    observed[("card",)] = Reading("wind_n_2", 0.7, 1.0, ("wind_n_1",))
    waiting = tracker.explain(observed, [CARD_CELL])
    assert waiting.kind == "nothing" and tracker.state is s0 and tracker.wants_whole_table
    assert waiting.message == "The storm card is wind n 2 or wind n 1: the slides will tell which."
    assert tracker.pending_cards == ["wind_n_2", "wind_n_1"]
    slid = table(truth)
    slid[("card",)] = Reading("wind_n_2", 0.7, 1.0, ("wind_n_1",))
    verdict = tracker.explain(slid, [(2, 2), (3, 2)])
    assert verdict.kind == "commit" and verdict.events[-1]["card"] == "wind_n_1"
    assert summary(tracker.state) == summary(truth) and not verdict.corrections
    # told by its slides, the table stays under watch until the next still moment matches
    assert tracker.awaiting is not None
    assert tracker.explain(slid, [(2, 2)]).kind == "nothing" and tracker.awaiting is None


def test_a_misreading_where_the_camera_saw_no_change_does_not_stop_the_slides_telling_the_card():
    """As above, but A1, which neither wind touches and where the camera saw no change, reads
    surely as bare of the marker it holds: that cannot speak against either card, and the
    slides still tell wind n 1. On a cell the camera saw change the same reading rules out
    both cards (nothing is committed)."""
    s0 = start({"sand": [[0, 0, 1]]})
    truth = play(s0, Event.make(0, "end_turn"), Event.make("storm", "storm_card", card="wind_n_1"))
    unsure_card = Reading("wind_n_2", 0.7, 1.0, ("wind_n_1",))
    slid = table(truth)
    slid[("card",)] = unsure_card
    slid[("sand", 0, 0)] = Reading("none", 0.8, 1.5)
    for seen, told in (([(2, 2), (3, 2)], True), ([(2, 2), (3, 2), (0, 0)], False)):
        tracker = ForbiddenDesertTracker(GAME, s0)
        observed = table(s0)
        observed[("card",)] = unsure_card
        assert tracker.explain(observed, [CARD_CELL]).kind == "nothing"
        verdict = tracker.explain(slid, seen)
        if told:
            assert verdict.kind == "commit" and verdict.events[-1]["card"] == "wind_n_1", verdict.message
        else:
            assert verdict.kind == "ask" and tracker.state is s0, verdict.message


def test_an_unsure_card_the_table_cannot_tell_stays_a_question():
    """Sun Beats Down or Storm Picks Up move no tile: an unsure reading between them is never
    committed from the table, however still it stays."""
    s0 = start()
    tracker = ForbiddenDesertTracker(GAME, s0)
    observed = table(s0)
    observed[("card",)] = Reading("sun_beats_down", 0.8, 1.0, ("storm_picks_up",))
    assert tracker.explain(observed, [CARD_CELL]).kind == "ask"
    assert tracker.explain(table(s0), [(2, 2)]).kind != "commit" and tracker.state is s0


@pytest.mark.parametrize("rivals", [("none",), ("none", "wind_n_1"), ("none", "storm_picks_up"), ("wind_e_1",)])
def test_an_unsure_card_named_with_no_other_card_is_committed_where_a_card_is_due(rivals):
    """Glare washes the card place in the storm: the camera reads Sun Beats Down at 0.30, its
    only rival "no card" (development stress game 8852). A card is due and the gate saw the
    place change, so a card was laid: it is committed, however low the confidence "no card"
    leaves it. With a card among the reading's rivals (a wind, the other card that moves no
    tile, or the wind showing: a second copy may have been laid) the players are asked instead;
    and so they are where the gate was not sure the place changed, or with the turn's actions
    left (the player may not have ended the turn)."""
    tracker, s1 = in_the_storm()
    observed = table(s1)
    observed[("card",)] = Reading("sun_beats_down", 0.30, 0.0, rivals)
    verdict = tracker.explain(observed, [CARD_CELL])
    if rivals == ("none",):
        assert verdict.kind == "commit" and verdict.events == [Event.make("storm", "storm_card", card="sun_beats_down")]
        assert tracker.awaiting is None and not tracker.pending_cards
    else:
        assert verdict.kind == "ask" and tracker.state is s1, verdict.message
    alone = Reading("sun_beats_down", 0.30, 0.0, ("none",))
    doubtful, s1 = in_the_storm()
    assert doubtful.explain({**table(s1), ("card",): alone}, [CARD_CELL], unsure=[CARD_CELL]).kind == "ask"
    assert doubtful.state is s1
    s0 = start()
    early = ForbiddenDesertTracker(GAME, s0)
    assert early.explain({**table(s0), ("card",): alone}, [CARD_CELL]).kind == "ask" and early.state is s0


def test_a_wind_named_with_no_other_card_is_committed_and_its_slides_checked():
    """A wind read at 0.16 with "no card" its only rival (development stress game 8852: the
    card was wind w 3) is committed where a card is due, and the table stays under watch: the
    slides, once made, leave nothing to correct; slides the card does not make are asked about
    as corrections, never taken for another card."""
    tracker, s1 = in_the_storm()
    wind = Reading("wind_e_1", 0.16, 0.0, ("none",))
    verdict = tracker.explain({**table(s1), ("card",): wind}, [CARD_CELL])
    assert verdict.kind == "commit" and verdict.events == [Event.make("storm", "storm_card", card="wind_e_1")]
    assert tracker.awaiting is s1
    s2 = play(s1, Event.make("storm", "storm_card", card="wind_e_1"))
    slid = {**table(s2), ("card",): wind}
    moved = [c for c in diff_cells(MODEL, MODEL.expected(s1), MODEL.expected(s2)) if c != CARD_CELL]
    assert tracker.explain(slid, moved).kind == "nothing" and tracker.awaiting is None
    other, s1 = in_the_storm()
    assert other.explain({**table(s1), ("card",): wind}, [CARD_CELL]).kind == "commit"
    s3 = play(s1, Event.make("storm", "storm_card", card="wind_w_1"))
    wrong = [c for c in diff_cells(MODEL, MODEL.expected(s1), MODEL.expected(s3)) if c != CARD_CELL]
    asked = other.explain({**table(s3), ("card",): wind}, wrong)
    assert asked.kind == "ask" and asked.corrections
    assert other.log[-1] == Event.make("storm", "storm_card", card="wind_e_1") and other.state.to_draw == s1.to_draw - 1


def in_the_storm():
    """A tracker in the storm phase, one card drawn and two to come, and that state."""
    s1 = play(start(), Event.make(0, "end_turn"), Event.make("storm", "storm_card", card="wind_n_1"))
    assert s1.phase == "storm" and s1.to_draw == 2
    return ForbiddenDesertTracker(GAME, s1), s1


def test_a_storm_card_the_camera_cannot_read_is_told_by_its_slides():
    """A lamp's glare washes the card place out: the camera sees it change but reads no card,
    not surely. In the storm a card is due, so the tracker waits without a question, and the
    slides that follow (one tile from the west) name the card; nothing is left to correct."""
    tracker, s1 = in_the_storm()
    waiting = tracker.explain({("card",): Reading("none", 0.6, 0.4, ("wind_w_2",))}, [CARD_CELL])
    assert waiting.kind == "nothing" and tracker.state is s1 and tracker.wants_whole_table
    assert waiting.message == "I cannot read the storm card: the slides will tell which."
    assert waiting.reason == AWAITING_SLIDES
    assert "sun_beats_down" in tracker.pending_cards and "wind_e_1" in tracker.pending_cards
    s2 = play(s1, Event.make("storm", "storm_card", card="wind_e_1"))
    slid = table(s2)
    slid[("card",)] = Reading("none", 0.6, 0.4)
    far = ("face", 0, 0)                    # a cell no wind touches read unsure: it tells nothing
    slid[far] = Reading(slid[far].label, 0.5, 0.1, ("gear",))
    verdict = tracker.explain(slid, [c for c in diff_cells(MODEL, MODEL.expected(s1), MODEL.expected(s2))
                                     if c != CARD_CELL])
    assert verdict.kind == "commit" and verdict.events == [Event.make("storm", "storm_card", card="wind_e_1")]
    assert summary(tracker.state) == summary(s2) and not verdict.corrections and not tracker.pending_cards


@pytest.mark.parametrize("far_cell", ["unseen", "unsure", "seen"])
def test_an_unsure_reading_of_the_cell_that_tells_two_winds_apart_decides_nothing(far_cell):
    """Wind n 1 or wind n 2, and the cell only wind n 2 would change is read unsure: the slides
    read surely fit wind n 1, but wind n 2 is not ruled out (the players may not have made its
    second slide yet), so nothing is committed. Only the gate's seeing that far cell change
    tells wind n 2: no wind n 1 changes it. A change the gate was unsure of there (a pawn's
    lean, glare) tells nothing."""
    s0 = start()
    truth = play(s0, Event.make(0, "end_turn"), Event.make("storm", "storm_card", card="wind_n_2"))
    tracker = ForbiddenDesertTracker(GAME, s0)
    observed = table(s0)
    observed[("card",)] = Reading("wind_n_2", 0.7, 1.0, ("wind_n_1",))
    assert tracker.explain(observed, [CARD_CELL]).kind == "nothing"
    one = play(s0, Event.make(0, "end_turn"), Event.make("storm", "storm_card", card="wind_n_1"))
    want, had = MODEL.expected(truth), MODEL.expected(one)
    told = [s for s in want if s[0] != "pawns" and s != ("card",) and want[s] != had[s]]
    assert told                                      # the slots only the second slide changes
    slid = table(truth)
    for slot in told:
        slid[slot] = Reading(want[slot], 0.5, 0.1, (had[slot],))
    far = {MODEL.cell_of(s) for s in told}
    changed = [c for c in [(2, 2), (3, 2), (4, 2)] if far_cell != "unseen" or c not in far]
    verdict = tracker.explain(slid, changed, unsure=far if far_cell == "unsure" else ())
    if far_cell == "seen":
        assert verdict.kind == "commit" and verdict.events[-1] == Event.make("storm", "storm_card", card="wind_n_2")
        assert summary(tracker.state) == summary(truth)
    else:
        assert verdict.kind != "commit" and tracker.state is s0


def test_a_pause_partway_through_a_wind_told_by_its_slides_is_never_a_second_card():
    """The card place cannot be read and the players pause after the first of wind e 2's two
    slides: the table shows what wind e 1 leaves, and that card is committed (a known risk of
    telling cards by slides). The second slide then is a correction to ask about, never another
    card drawn."""
    glare = Reading("none", 0.6, 0.4)
    tracker, s1 = in_the_storm()
    tracker.explain({("card",): glare}, [CARD_CELL])
    half = play(s1, Event.make("storm", "storm_card", card="wind_e_1"))
    changed = [c for c in diff_cells(MODEL, MODEL.expected(s1), MODEL.expected(half)) if c != CARD_CELL]
    first = tracker.explain(table(half) | {("card",): glare}, changed)
    assert first.kind == "commit" and tracker.awaiting is not None       # still watched
    done = play(s1, Event.make("storm", "storm_card", card="wind_e_2"))
    more = [c for c in diff_cells(MODEL, MODEL.expected(half), MODEL.expected(done)) if c != CARD_CELL]
    assert more
    second = tracker.explain(table(done) | {("card",): glare}, more)
    assert second.kind == "ask" and second.corrections and len(tracker.log) == 1


def test_no_storm_card_is_waited_for_when_the_deck_allows_none():
    """A game the storm has already lost: a change of the card place the camera cannot read
    waits for no card and asks no empty question."""
    tracker, s1 = in_the_storm()
    lost = GAME.apply(s1, Event.make("storm", "storm_card", card="storm_picks_up"))
    tracker = ForbiddenDesertTracker(GAME, lost)
    allowed = [c for c in ("wind_e_1", "sun_beats_down") if tracker._after_card(c) is not None]
    verdict = tracker.explain({("card",): Reading("none", 0.6, 0.4)}, [CARD_CELL])
    assert not (verdict.kind == "ask" and not verdict.options)
    if not allowed:
        assert not tracker.pending_cards


def test_a_second_unread_card_before_any_slide_is_asked_about():
    """Two card-place changes the camera cannot read, and no slide between them: the first card
    moved no tile (or its slides were missed), so the players are asked which card it was, among
    every card the deck allows, even when the second card is read surely (the first may have
    been Sun Beats Down). Between winds alone, a card read surely at last is the one waited for."""
    tracker, s1 = in_the_storm()
    assert tracker.explain({("card",): Reading("none", 0.6, 0.4)}, [CARD_CELL]).kind == "nothing"
    asked = tracker.explain({("card",): Reading("none", 0.6, 0.4)}, [CARD_CELL])
    assert asked.kind == "ask" and asked.message == "Which storm card was drawn?" and tracker.state is s1
    assert {o[0]["card"] for o in asked.options} == set(tracker.pending_cards)
    assert {"sun_beats_down", "storm_picks_up", "wind_e_1"} <= set(tracker.pending_cards)
    unread, s1 = in_the_storm()
    unread.explain({("card",): Reading("none", 0.6, 0.4)}, [CARD_CELL])
    assert unread.explain({("card",): Reading("wind_e_1")}, [CARD_CELL]).kind == "ask" and unread.state is s1
    again, s1 = in_the_storm()
    again.explain({("card",): Reading("wind_e_1", 0.7, 1.0, ("wind_e_2",))}, [CARD_CELL])
    verdict = again.explain({("card",): Reading("wind_e_1")}, [CARD_CELL])      # read at last, surely
    assert verdict.kind == "commit" and verdict.events == [Event.make("storm", "storm_card", card="wind_e_1")]
    assert not again.pending_cards


def test_slides_with_no_card_change_seen_name_the_card_they_fit():
    """The gate missed the card place (a wind card laid on a wind card looks much the same in a
    dim room): the slides alone are seen. They fit exactly one card the deck allows, which is
    committed; slides that fit none are asked about, never called illegal."""
    tracker, s1 = in_the_storm()
    s2 = play(s1, Event.make("storm", "storm_card", card="wind_e_1"))
    observed, changed = look(s1, s2)
    del observed[("card",)]
    changed = [c for c in changed if c != CARD_CELL]
    verdict = tracker.explain(observed, changed)
    assert verdict.kind == "commit" and verdict.events == [Event.make("storm", "storm_card", card="wind_e_1")]
    assert summary(tracker.state) == summary(s2)
    other, _s1 = in_the_storm()
    face = next(s for s in observed if s[0] == "face" and observed[s].label != "storm")
    odd = dict(observed)
    odd[face] = Reading("gear" if observed[face].label != "gear" else "well")
    assert other.explain(odd, changed).kind == "ask" and other.state is _s1


def test_an_illegal_move_is_named_with_its_reason():
    s0 = start({"sand": [[0, 1, 2]]})
    blocked = MODEL.expected(s0)
    observed = {s: Reading(blocked[s]) for s in MODEL.slots([(1, 1), (0, 1)])}
    observed[("pawns", 0, 1)] = Reading("red")                  # the archeologist walked onto sand 2
    observed[("pawns", 1, 1)] = Reading("green+yellow")
    tracker = ForbiddenDesertTracker(GAME, s0)
    verdict = tracker.explain(observed, [(0, 1), (1, 1)])
    assert verdict.kind == "illegal" and verdict.reason == "target_blocked"
    assert summary(tracker.state) == summary(s0)


def test_two_explanations_that_fit_equally_are_asked():
    """Card plays looked for by the camera: a pawn one step away by walking or by the Jet Pack;
    the table cannot tell, so ask."""
    s0 = start({"hands": [["jet_pack"], [], []]})
    s1 = play(s0, Event.make(0, "move", to=(1, 2)))
    tracker = ForbiddenDesertTracker(GAME, s0, cards_from_camera=True)
    verdict = tracker.explain(*look(s0, s1))
    assert verdict.kind == "ask" and len(verdict.options) >= 2
    assert summary(tracker.state) == summary(s0)


def test_card_plays_entered_on_the_tablet_are_then_checked_on_the_table():
    """By default a card play comes from the tablet: a step to a neighbour is a move, a Jet
    Pack entered on the tablet is then only checked against the table, and a far jump that
    was not entered is illegal with a hint to enter the card."""
    s0 = start({"hands": [["jet_pack"], [], []]})
    s1 = play(s0, Event.make(0, "move", to=(1, 2)))
    tracker = ForbiddenDesertTracker(GAME, s0)
    verdict = tracker.explain(*look(s0, s1))
    assert verdict.kind == "commit" and [e.type for e in verdict.events] == ["move"]

    far = Event.make(0, "play_equipment", card="jet_pack", to=(4, 4))
    s2 = play(s0, far)
    tracker = ForbiddenDesertTracker(GAME, s0)
    verdict = tracker.explain(*look(s0, s2))
    assert verdict.kind == "illegal" and "enter it on the tablet" in verdict.message
    assert summary(tracker.state) == summary(s0)
    assert tracker.apply_tablet(far).kind == "commit"
    verdict = tracker.explain(*look(s0, s2))
    assert verdict.kind == "nothing" and summary(tracker.state) == summary(s2)


def test_an_uncertain_reading_never_commits():
    s0 = start()
    s1 = play(s0, Event.make(0, "move", to=(0, 1)))
    observed, changed = look(s0, s1)
    observed[("pawns", 0, 1)] = Reading("blue", 0.3, 0.1)       # unsure and wrong
    tracker = ForbiddenDesertTracker(GAME, s0)
    verdict = tracker.explain(observed, changed)
    assert verdict.kind in ("ask", "commit")
    if verdict.kind == "commit":                                  # decided by the sure readings alone
        assert summary(tracker.state) == summary(s1)


def test_a_single_misread_cell_never_corrupts_the_state():
    """F10: one sure but wrong reading: the move is asked about or committed right, never wrong."""
    s0 = start({"sand": [[0, 1, 1]]})
    s1 = play(s0, Event.make(0, "remove_sand", at=(0, 1)), Event.make(0, "move", to=(0, 1)))
    for slot in MODEL.slots([(0, 1), (1, 1)]):
        observed, changed = look(s0, s1)
        right = MODEL.expected(s1)[slot]
        wrong = {"face": "water_back", "sand": "dark", "pawns": "white", "parts": "engine"}[slot[0]]
        if wrong == right:
            continue
        observed[slot] = Reading(wrong)
        tracker = ForbiddenDesertTracker(GAME, s0)
        verdict = tracker.explain(observed, changed)
        assert verdict.kind != "commit" or summary(tracker.state) == summary(s1), (slot, verdict)


def test_a_hand_lifting_and_replacing_a_piece_changes_nothing():
    s0 = start()
    observed = {s: Reading(v) for s, v in MODEL.expected(s0).items() if MODEL.cell_of(s) == (3, 3)}
    verdict = ForbiddenDesertTracker(GAME, s0).explain(observed, [(3, 3)])
    assert verdict.kind == "nothing"


@pytest.mark.parametrize("seed", range(6))
def test_random_turns_are_recovered_from_exact_readings(seed):
    """Whole random turns of legal visible actions are explained exactly from the end table."""
    import random

    rng = random.Random(seed)
    state = start({"sand": [[r, c, 1] for r, c in [(0, 0), (0, 2), (1, 3), (2, 0), (3, 1), (3, 3), (4, 2)]]})
    tracker = ForbiddenDesertTracker(GAME, state)
    for _turn in range(3):
        before = tracker.state
        cur = before
        for _ in range(rng.randint(1, 4)):
            options = [e for e in MODEL.visible_events(cur) if e.type not in ("end_turn",)]
            if not options:
                break
            cur = play(cur, rng.choice(options))
        observed, changed = look(before, cur)
        if not changed:
            continue
        verdict = tracker.explain(observed, changed)
        assert verdict.kind in ("commit", "ask"), verdict
        if verdict.kind == "commit":
            assert sorted(MODEL.expected(tracker.state).items()) == sorted(MODEL.expected(cur).items())
        tracker.state = cur                      # the players confirm what happened
        tracker.state = play(tracker.state, Event.make(tracker.state.active, "end_turn"))
        while tracker.state.phase == "storm" and tracker.state.result == "ongoing":
            tracker.state = play(tracker.state, rng.choice(legal.legal(tracker.state, legal.storm_candidates(tracker.state))))
        if tracker.state.result != "ongoing":
            break


def test_a_card_that_looks_like_the_sun_changes_nothing_and_leaves_no_correction_pending():
    """Sun Beats Down changes no slot but the card: nothing is awaited after it, so the next
    move is explained, not taken for the slide."""
    s0 = start()
    tracker = ForbiddenDesertTracker(GAME, s0)
    observed = {("card",): Reading("sun_beats_down")}
    verdict = tracker.explain(observed, [CARD_CELL])
    assert verdict.kind == "commit" and tracker.awaiting is None


def test_a_second_card_with_the_face_showing_is_asked_about_not_called_illegal():
    """Two wind cards with the same face in a row: the card place looks unchanged, the tiles
    slide. When the table shows exactly what the card does, it is committed; when it does not
    (a tile read otherwise), the tracker asks whether another such card was drawn."""
    s0 = start()
    tracker = ForbiddenDesertTracker(GAME, s0)
    first = table(s0)
    first[("card",)] = Reading("wind_n_1")
    assert tracker.explain(first, [CARD_CELL]).kind == "commit"
    s1 = tracker.state
    assert tracker.explain(table(s1), [(2, 2), (3, 2)]).kind == "nothing"
    if s1.phase != "storm":
        pytest.skip("this storm draws one card only")
    s2 = play(s1, Event.make("storm", "storm_card", card="wind_n_1"))
    observed, changed = look(s1, s2)
    face = next(s for s in observed if s[0] == "face" and observed[s].label not in ("storm",))
    odd = dict(observed)
    odd[face] = Reading("gear" if observed[face].label != "gear" else "well")     # not what the wind left there
    verdict = tracker.explain(odd, changed)
    assert verdict.kind == "ask" and "another wind n 1" in verdict.message
    assert verdict.options == [[Event.make("storm", "storm_card", card="wind_n_1")]]
    assert summary(tracker.state) == summary(s1)
    verdict = tracker.explain(observed, changed)
    assert verdict.kind == "commit" and verdict.events == [Event.make("storm", "storm_card", card="wind_n_1")]
    assert summary(tracker.state) == summary(s2)


def another_card_drawn(card="wind_e_1"):
    """In the storm, ``card`` drawn on a card that looks alike (the gate sees no change of the
    card place) and slid: a tracker, the states before and after, what a camera reads of the
    change with the storm's new, empty cell read unsure (as in a dim room), and the cells."""
    tracker, s1 = in_the_storm()
    s2 = play(s1, Event.make("storm", "storm_card", card=card))
    observed, changed = look(s1, s2)
    changed = [c for c in changed if c != CARD_CELL]
    observed = {s: r for s, r in observed.items() if s != ("card",)}
    observed[("face", *s2.storm)] = Reading("mirage", 0.4, 0.2, ("storm",))
    return tracker, s1, s2, observed, changed


@pytest.mark.parametrize("place, told", [
    (None, False),                                                   # every wind may be partway
    (Reading("wind_e_1", 0.9, 2.0, ("none",)), True),                # the place names it, unsurely
    (Reading("wind_e_1"), True),                                     # ... or surely
    (Reading("wind_e_1", 0.7, 1.0, ("wind_e_2",)), False),           # wind e 2 may be partway
    (Reading("none", 0.6, 0.4), False),                              # glare: every wind again
    (Reading("none", 0.62, 0.5, ("wind_e_1",)), True),               # wind e 1 alone behind "no card"
    (Reading("none", 0.62, 0.5, ("wind_e_1", "wind_e_2")), False),   # ... with wind e 2 beside it
    (Reading("wind_n_1"), False),            # the card shown: perhaps none laid there, wind e 2 held
])
def test_a_card_laid_unseen_is_told_by_the_cells_its_slides_changed(place, told):
    """The gate sees the slides but not the card place (a wind card laid on a wind card), and
    the storm's new cell reads unsure: no card is confirmed slot by slot. The cells seen
    changing are exactly wind e 1's, and a sure reading shows the tile it slid; with the card
    place read as well (the live loop reads it where a card is due), a reading that leaves no
    stronger east wind open tells the card, and so does "no card" with wind e 1 alone behind
    it (wind e 2 may still be partway, but the place listed it not at all; the slides show a
    card was laid). Otherwise the players are asked, as before."""
    tracker, s1, s2, observed, changed = another_card_drawn()
    if place is not None:
        observed[("card",)] = place
    verdict = tracker.explain(observed, changed)
    if told:
        assert verdict.kind == "commit" and verdict.events == [Event.make("storm", "storm_card", card="wind_e_1")]
        assert summary(tracker.state) == summary(s2)
    else:
        assert verdict.kind == "ask" and "another wind n 1" in verdict.message
        assert summary(tracker.state) == summary(s1)


@pytest.mark.parametrize("confidence, asked", [(0.62, True), (0.95, False)])
def test_sand_read_gone_under_a_pawn_just_arrived_is_asked_about(confidence, asked):
    """A pawn steps onto a tile with one sand marker and stands on it: the marker reads "none",
    fairly sure. A move and a sand removal explain the table best, but the pawn may hide the
    marker, so the removal is asked about (both options offered) unless the reading is very
    sure."""
    s0 = start({"sand": [[0, 1, 1]]})
    cell = (0, 1)
    move = Event.make(0, "move", to=cell)
    dug = play(s0, move, Event.make(0, "remove_sand", at=cell))
    observed, changed = look(s0, dug)
    observed[("sand", *cell)] = Reading("none", confidence, 1.0, ("light",))
    tracker = ForbiddenDesertTracker(GAME, s0)
    verdict = tracker.explain(observed, changed)
    if asked:
        assert verdict.kind == "ask" and "hide the marker" in verdict.message
        assert verdict.options == [[move, Event.make(0, "remove_sand", at=cell)], [move]]
        assert summary(tracker.state) == summary(s0)
    else:
        assert verdict.kind == "commit" and summary(tracker.state) == summary(dug)


def test_a_removal_the_step_needs_is_committed_though_a_pawn_stands_on_the_marker():
    """Two markers block a tile: one is taken off, then the pawn steps on and stands on the
    last, read "light" at 0.62. Without that removal the step is illegal, so the removal is
    proven and committed. Had the pawn also cleared the last marker, that last removal (not
    the first) is the one asked about."""
    s0 = start({"sand": [[0, 1, 2]]}, players=("explorer", "meteorologist", "navigator"))   # one marker an action
    cell = (0, 1)
    steps = [Event.make(0, "remove_sand", at=cell), Event.make(0, "move", to=cell)]
    observed, changed = look(s0, play(s0, *steps))
    observed[("sand", *cell)] = Reading("light", 0.62, 1.0, ("none",))
    tracker = ForbiddenDesertTracker(GAME, s0)
    verdict = tracker.explain(observed, changed)
    assert verdict.kind == "commit" and verdict.events == steps
    cleared = steps + [Event.make(0, "remove_sand", at=cell)]
    observed, changed = look(s0, play(s0, *cleared))
    observed[("sand", *cell)] = Reading("none", 0.62, 1.0, ("light",))
    tracker = ForbiddenDesertTracker(GAME, s0)
    verdict = tracker.explain(observed, changed)
    assert verdict.kind == "ask" and verdict.options == [cleared, steps] and summary(tracker.state) == summary(s0)


def test_winds_blocked_alike_at_the_edge_are_the_face_shown_only_where_the_place_looked_unchanged():
    """A second wind n 1 drives the storm against the board's edge, where wind n 2 and wind n 3
    end alike, and the storm's new cell reads unsure. With the card place unchanged the face
    shown is taken (as for slides read surely); with the place seen to change (read as no card,
    glare) the cells cannot say which card: asked."""
    for place_seen in (False, True):
        tracker, s1 = in_the_storm()
        s2 = play(s1, Event.make("storm", "storm_card", card="wind_n_1"))
        assert tracker._after_card("wind_n_2").storm == s2.storm          # blocked alike at the edge
        if place_seen:
            assert tracker.explain({("card",): Reading("none", 0.6, 0.4)}, [CARD_CELL]).kind == "nothing"
        observed, changed = look(s1, s2)
        changed = [c for c in changed if c != CARD_CELL]
        observed = {k: r for k, r in observed.items() if k != ("card",)}
        observed[("face", *s2.storm)] = Reading("mirage", 0.4, 0.2, ("storm",))
        verdict = tracker.explain(observed, changed)
        if place_seen:
            assert verdict.kind == "ask" and summary(tracker.state) == summary(s1)
        else:
            assert verdict.kind == "commit" and verdict.events == [Event.make("storm", "storm_card", card="wind_n_1")]


def test_a_stronger_wind_partway_is_not_taken_for_the_face_shown():
    """Wind e 1 shows on the card place; the next storm's first card is wind e 2, held in a hand
    or laid unseen, and the players pause after its first slide: the table shows what a wind
    e 1 leaves, and the place still reads wind e 1. Wind e 2 may be partway, so nothing is
    committed."""
    _tracker, s1 = in_the_storm()
    s = play(s1, Event.make("storm", "storm_card", card="wind_w_2"), Event.make("storm", "storm_card", card="wind_e_1"))
    assert s.phase == "actions"
    while s.actions_left:
        s = play(s, next(e for e in GAME.legal_events(s) if e.type == "move"))
    tracker = ForbiddenDesertTracker(GAME, s)
    assert tracker._after_card("wind_e_2").storm != tracker._after_card("wind_e_1").storm   # room for two slides
    half = play(s, Event.make(s.active, "end_turn"), Event.make("storm", "storm_card", card="wind_e_1"))
    observed, changed = look(s, half)
    changed = [c for c in changed if c != CARD_CELL]
    observed = {k: r for k, r in observed.items() if k != ("card",)}
    observed[("face", *half.storm)] = Reading("mirage", 0.4, 0.2, ("storm",))
    observed[("card",)] = Reading("wind_e_1")
    verdict = tracker.explain(observed, changed)
    assert verdict.kind != "commit" and summary(tracker.state) == summary(s)


def actions_spent():
    """A state after a storm (wind w 1 shown) whose active player has spent the turn's actions."""
    _tracker, s1 = in_the_storm()
    s = play(s1, Event.make("storm", "storm_card", card="sun_beats_down"),
             Event.make("storm", "storm_card", card="wind_w_1"))
    assert s.phase == "actions"
    while s.actions_left:
        s = play(s, next(e for e in GAME.legal_events(s) if e.type == "move"))
    return s


def test_the_first_card_of_a_storm_laid_unseen_once_the_actions_are_spent_is_told_by_its_cells():
    """The turn's actions are spent, so a storm card is due: the first card of the storm laid
    unseen (the gate sees only its slides) is told by its cells and the card place's reading,
    with the turn's end it implies."""
    s = actions_spent()
    tracker = ForbiddenDesertTracker(GAME, s)
    s2 = play(s, Event.make(s.active, "end_turn"), Event.make("storm", "storm_card", card="wind_e_1"))
    observed, changed = look(s, s2)
    changed = [c for c in changed if c != CARD_CELL]
    observed = {k: r for k, r in observed.items() if k != ("card",)}
    observed[("face", *s2.storm)] = Reading("mirage", 0.4, 0.2, ("storm",))
    observed[("card",)] = Reading("wind_e_1", 0.9, 2.0, ("none",))
    verdict = tracker.explain(observed, changed)
    assert verdict.kind == "commit" and verdict.events == [Event.make(s.active, "end_turn"),
                                                           Event.make("storm", "storm_card", card="wind_e_1")]
    assert summary(tracker.state) == summary(s2)


def test_with_the_actions_spent_a_move_no_card_explains_keeps_its_verdict():
    """The turn's actions are spent and a pawn goes far (a Jet Pack played but not entered):
    no storm card's cells fit, so the tracker's own verdict stands, with its hint, rather than
    a question about a storm card."""
    s = actions_spent()
    here = s.cell_of_seat(s.active)
    far = next(c for c in ALL_CELLS if abs(c[0] - here[0]) + abs(c[1] - here[1]) > 2 and s.slot_at(c) is not None)
    jet = s.copy()
    jet.pawn[s.active] = s.slot_at(far)
    observed, changed = look(s, jet)
    held = ForbiddenDesertTracker(GAME, s)
    verdict = held.explain(observed, changed)
    assert verdict.kind == "illegal" and verdict.reason == "no_actions_left" and not verdict.options
    assert summary(held.state) == summary(s)


def test_cells_do_not_tell_a_card_a_sure_reading_contradicts():
    """The cells seen fit wind e 1 and the card place names it, but the tile it slid reads
    surely as a tile it is not: asked, not committed."""
    tracker, s1, s2, observed, changed = another_card_drawn()
    observed[("card",)] = Reading("wind_e_1")
    slid = next(s for s in observed if s[0] == "face" and observed[s].sure)
    observed[slid] = Reading("gear" if observed[slid].label != "gear" else "well")
    verdict = tracker.explain(observed, changed)
    assert verdict.kind == "ask" and summary(tracker.state) == summary(s1)


def test_a_card_place_read_where_the_gate_saw_no_change_commits_nothing_by_itself():
    """In the storm the live loop reads the card place with every change. Where the gate did
    not see it change and the table shows no card's slides (a tile read as another), a sure
    reading of a new card there is not committed."""
    tracker, s1 = in_the_storm()
    observed = {("face", 0, 0): Reading("gear"), ("sand", 0, 0): Reading(MODEL.expected(s1)[("sand", 0, 0)]),
                ("card",): Reading("wind_s_1")}
    verdict = tracker.explain(observed, [(0, 0)])
    assert verdict.kind != "commit" and summary(tracker.state) == summary(s1) and not tracker.log


@pytest.mark.parametrize("after_slides", [False, True])
def test_a_card_read_unsurely_is_told_by_its_cells_when_a_slid_tile_reads_unsure(after_slides):
    """The card place changes and reads wind e 1 unsurely (its rivals: no card, or a second
    copy of the card showing); the slides
    follow, and the tile slid into the storm's old cell reads unsure, so no card is confirmed
    slot by slot. The storm's new cell reads surely empty and the cells seen since the card
    was laid are wind e 1's: committed. The cells the storm's first card changed (told by its
    slides, and so still watched) are not counted against the second."""
    tracker, s1 = in_the_storm()
    if after_slides:
        # the storm's second card, unread (glare), told by its slides (wind s 1): still watched
        glare = Reading("none", 0.6, 0.4)
        assert tracker.explain({("card",): glare}, [CARD_CELL]).kind == "nothing"
        south = play(s1, Event.make("storm", "storm_card", card="wind_s_1"))
        first = [c for c in diff_cells(MODEL, MODEL.expected(s1), MODEL.expected(south)) if c != CARD_CELL]
        verdict = tracker.explain(table(south) | {("card",): glare}, first)
        assert verdict.kind == "commit" and tracker.awaiting is not None and summary(tracker.state) == summary(south)
        s1 = south
    # its rivals: no card, and a second copy of the card showing (so it is not named alone)
    unsure = Reading("wind_e_1", 0.9, 2.0, (MODEL.expected(s1)[("card",)], "none"))
    assert tracker.explain({("card",): unsure}, [CARD_CELL]).kind == "nothing"
    s2 = play(s1, Event.make("storm", "storm_card", card="wind_e_1"))
    observed = table(s2)
    observed[("card",)] = unsure
    old = ("face", *s1.storm)
    observed[old] = Reading("mirage", 0.4, 0.2, (observed[old].label,))
    changed = [c for c in diff_cells(MODEL, MODEL.expected(s1), MODEL.expected(s2)) if c != CARD_CELL]
    verdict = tracker.explain(observed, changed)
    assert verdict.kind == "commit" and verdict.events == [Event.make("storm", "storm_card", card="wind_e_1")]
    assert summary(tracker.state) == summary(s2)


def test_a_pawn_that_left_a_cell_the_gate_did_not_flag_is_found_by_reading_the_pawn_cells():
    """A standing pawn leans over the cell behind it in the rectified board, so its leaving may
    change only a neighbour there: the live loop reads the pawns of every cell holding one, and
    those extra readings may only take pawns away (a neighbour's change seen in a tall crop
    must not pass for an arrival)."""
    from assistant.tracking.live import leaving_only

    s0 = start()
    s1 = play(s0, Event.make(0, "move", to=(0, 1)))
    before, after = MODEL.expected(s0), MODEL.expected(s1)
    gate = {(0, 1)}                                    # the gate saw the pawn arrive only
    observed = {s: Reading(after[s], 0.9, 5.0) for s in MODEL.slots(gate)}
    assert ForbiddenDesertTracker(GAME, s0).explain(observed, gate).kind != "commit"
    pawns = {(s[1], s[2]): set(filter(None, v.split("+"))) for s, v in before.items() if s[0] == "pawns"}
    source = ("pawns", 1, 1)
    observed[source] = Reading(after[source], 0.9, 5.0, (before[source],))
    tracker = ForbiddenDesertTracker(GAME, s0)
    verdict = tracker.explain(leaving_only(observed, pawns, gate), gate)
    assert verdict.kind == "commit" and summary(tracker.state) == summary(s1)
    # a pawn cell the gate did not flag that reads an arrival reads as it was
    spurious = {source: Reading(before[source] + "+white", 0.9, 5.0, ("", before[source]))}
    cut = leaving_only(spurious, pawns, gate)[source]
    assert cut.label == before[source] and cut.sure
    # one that reads a leaving keeps it, with only leaving alternatives
    held = sorted(pawns[(1, 1)])
    arrival = "+".join(sorted(held + ["white"]))
    left = {source: Reading("+".join(held[1:]), 0.9, 5.0, (arrival, "+".join(held[:-1])))}
    kept = leaving_only(left, pawns, gate)[source]
    assert kept.label == "+".join(held[1:]) and kept.alternatives == ("+".join(held[:-1]),)


def test_a_pawn_pushed_by_a_player_who_is_not_the_navigator_is_named_illegal():
    """A colour read leaving one cell and arriving at another names the move even though both
    pawn readings keep alternatives (they always do): the archeologist pushing the explorer's
    pawn is illegal (wrong_adventurer), not a question."""
    s0 = start()
    before = MODEL.expected(s0)
    src, dst = ("pawns", 1, 1), ("pawns", 0, 1)
    held = sorted(filter(None, before[src].split("+")))
    assert "green" in held                                  # the explorer's pawn is green
    observed = {src: Reading("+".join(c for c in held if c != "green"), 0.9, 5.0, (before[src],)),
                dst: Reading("green", 0.9, 5.0, ("",))}
    verdict = ForbiddenDesertTracker(GAME, s0).explain(observed, {(1, 1), (0, 1)})
    assert verdict.kind == "illegal" and verdict.reason == "wrong_adventurer", verdict



def storm_drawn(cards):
    """A tracker that saw player 1 end the turn and the storm cards ``cards`` laid one by one
    (each read surely, the table not yet slid), until the next player's turn; and its state."""
    tracker = ForbiddenDesertTracker(GAME, start())
    for card in cards:
        if tracker.state.phase == "actions" and tracker.log:
            break
        observed = table(tracker.state)
        observed[("card",)] = Reading(card)
        assert tracker.explain(observed, [CARD_CELL]).kind == "commit"
    return tracker, tracker.state


def test_a_move_made_before_the_storm_was_seen_done_is_the_next_turn_not_the_storm():
    """The last slides of a storm changed nothing the camera reads (or were read only with the
    next change), so the next player's first move arrives while the tracker still checks the
    storm: the table matches the storm, and the pawn that moved on a tile the storm left alone
    is that turn's move (it was taken for the storm's and lost)."""
    tracker, after = storm_drawn(("wind_n_2", "wind_e_1", "wind_s_1"))
    assert after.phase == "actions" and tracker.awaiting is not None
    s1 = play(after, Event.make(after.active, "move", to=(0, 1)))
    verdict = tracker.explain(table(s1), [(1, 1), (0, 1)])
    assert verdict.kind == "commit" and verdict.events == [Event.make(after.active, "move", to=(0, 1))]
    assert tracker.awaiting is None and summary(tracker.state) == summary(s1)


def test_a_pawn_misread_on_a_tile_the_storm_slid_is_not_taken_for_a_move():
    """Pawns are read against the frame before the storm's first card: on a cell that holds
    another tile since, even one that looks the same (a dune back slid onto a dune back), a
    pawn reading says nothing about moves."""
    tracker, after = storm_drawn(("wind_n_2", "wind_e_1", "wind_s_1"))
    start_, want = MODEL.expected(tracker.storm_start), MODEL.expected(after)
    slid = [c for c in ALL_CELLS if after.slot_at(c) is not None and after.slot_at(c) != tracker.storm_start.slot_at(c)]
    looks_same = [c for c in slid if all(start_[(k, *c)] == want[(k, *c)] for k in ("face", "sand", "parts"))]
    assert looks_same and all(want[("pawns", *c)] == "" for c in slid)
    for cell in (slid[0], looks_same[0]):
        t, _ = storm_drawn(("wind_n_2", "wind_e_1", "wind_s_1"))
        seen = table(after)
        seen[("pawns", *cell)] = Reading("red")
        verdict = t.explain(seen, [cell])
        assert verdict.kind == "nothing" and t.awaiting is None and summary(t.state) == summary(after), cell


def test_no_pawn_walks_during_the_storm():
    """Between two storm cards a pawn reading that differs, even on a tile the storm left alone,
    is a misreading: the storm goes on (the table matches it), nothing is asked."""
    tracker = ForbiddenDesertTracker(GAME, start())
    observed = table(tracker.state)
    observed[("card",)] = Reading("wind_n_2")
    tracker.explain(observed, [CARD_CELL])
    assert tracker.state.phase == "storm"
    seen = table(tracker.state)
    seen[("pawns", 0, 0)] = Reading("red")
    verdict = tracker.explain(seen, [(0, 0)])
    assert verdict.kind == "nothing" and tracker.state.phase == "storm"


def test_a_tile_the_storm_did_not_touch_read_as_another_tile_does_not_hold_up_the_storm():
    """After wind n 2 the whole table is read: the slid tiles and their sand are right, but a
    dune back far from the wind (A1) reads surely as a tunnel. Nobody can turn a tile into
    another one, and the storm did not touch it: a misreading, not a correction; the storm is
    done. An empty cell where an untouched tile should lie is still told."""
    s0 = start()
    tracker = ForbiddenDesertTracker(GAME, s0)
    observed = table(s0)
    observed[("card",)] = Reading("wind_n_2")
    tracker.explain(observed, [CARD_CELL])
    after = tracker.state
    misread = table(after)
    misread[("face", 0, 0)] = Reading("tunnel")
    verdict = tracker.explain(misread, [(2, 2), (2, 3), (2, 4)])
    assert verdict.kind == "nothing" and tracker.awaiting is None, (verdict.message, verdict.corrections)
    # the same, but the tile is missing from A1: that is told
    tracker = ForbiddenDesertTracker(GAME, s0)
    tracker.explain(observed, [CARD_CELL])
    gone = table(tracker.state)
    gone[("face", 0, 0)] = Reading("storm")
    verdict = tracker.explain(gone, [(2, 2), (2, 3), (2, 4), (0, 0)])
    assert verdict.kind == "ask" and verdict.corrections == ["A1 should show dune back"]


def test_sand_misread_where_neither_the_storm_nor_a_player_changed_anything_does_not_hold_up_the_storm():
    """After wind n 2 the whole table is read: the slides and their sand are right, but A1, which
    the storm left alone and where the camera saw no change, reads surely as bare of a marker it
    holds (a dim room). That is a misreading, and the storm is done. The same reading on a cell
    the camera saw change since the card (a player's hand was there) is told as a correction."""
    s0 = start({"sand": [[0, 0, 1]]})
    tracker = storm_laid(s0, "wind_n_2")
    misread = table(tracker.state)
    assert misread[("sand", 0, 0)].label == "light"
    misread[("sand", 0, 0)] = Reading("none", 0.78, 1.5)
    verdict = tracker.explain(misread, [(2, 2), (2, 3), (2, 4)])
    assert verdict.kind == "nothing" and tracker.awaiting is None, (verdict.message, verdict.corrections)
    tracker = storm_laid(s0, "wind_n_2")
    verdict = tracker.explain(misread, [(2, 2), (2, 3), (2, 4), (0, 0)])
    assert verdict.kind == "ask" and verdict.corrections == ["add one sand to A1"]
    # A1 stays judged at the next still moment, when only another cell changed; and once the
    # table matches (A1 put right), the next storm starts with nothing seen
    verdict = tracker.explain(misread, [(2, 2)])
    assert verdict.kind == "ask" and verdict.corrections == ["add one sand to A1"]
    assert tracker.explain(table(tracker.state), [(0, 0)]).kind == "nothing" and tracker.awaiting is None
    tracker.explain({**table(tracker.state), ("card",): Reading("wind_e_1")}, [CARD_CELL])
    assert tracker.awaiting is not None and tracker.storm_seen == {CARD_CELL}


def test_a_slid_tile_that_looks_like_the_one_it_replaced_is_not_judged_where_the_camera_saw_no_change():
    """Wind n 2 with one sand on C4: C4's tile slides to C3 (two sand, dark) and C5's bare tile
    slides to C4 and takes one sand, so C4 shows a dune back with one marker before and after,
    and the camera sees no change there. A sure-looking "dark" on C4 is a misreading; on C3,
    which the camera saw change, the same misreading is told."""
    s0 = start({"sand": [[3, 2, 1]]})
    tracker = storm_laid(s0, "wind_n_2")
    after = table(tracker.state)
    assert (after[("sand", 3, 2)].label, after[("sand", 2, 2)].label) == ("light", "dark")
    misread = dict(after)
    misread[("sand", 3, 2)] = Reading("dark", 0.62, 0.6)
    verdict = tracker.explain(misread, [(2, 2), (4, 2)])
    assert verdict.kind == "nothing" and tracker.awaiting is None, (verdict.message, verdict.corrections)
    tracker = storm_laid(s0, "wind_n_2")
    misread = dict(after)
    misread[("sand", 2, 2)] = Reading("light", 0.62, 0.6)
    verdict = tracker.explain(misread, [(2, 2), (4, 2)])
    assert verdict.kind == "ask" and verdict.corrections == ["add one sand to C3 and turn the marker on C3 dark side up"]


def test_the_live_loop_favours_the_expected_faces_only_once_a_card_is_committed():
    """The whole-table read after a storm card takes the engine's expected faces as a prior
    (`whole_table_prior`), but only once the card is committed: while an unsure card waits for
    the slides to tell it apart, the engine's state is still the table before the card and a
    prior would weigh against the very slides that decide it; with no card, nothing."""
    from assistant.tracking.live import STORM_PRIOR_NATS, expected_faces, whole_table_prior

    fresh = ForbiddenDesertTracker(GAME, start())
    assert whole_table_prior(fresh) is None
    tracker, after = storm_drawn(("wind_n_2",))
    assert tracker.awaiting is not None and tracker.wants_whole_table
    prior = whole_table_prior(tracker)
    assert prior == expected_faces(tracker.model.expected(after), STORM_PRIOR_NATS) and len(prior) == 25
    unsure = ForbiddenDesertTracker(GAME, start())
    observed = table(unsure.state)
    observed[("card",)] = Reading("wind_n_2", 0.6, 0.4, ("wind_n_3",))       # read unsure
    verdict = unsure.explain(observed, [CARD_CELL])
    assert verdict.kind == "nothing" and unsure.pending_cards and unsure.awaiting is None
    assert unsure.wants_whole_table and whole_table_prior(unsure) is None
    # the storm's next card read unsure while the first is still watched (told by its slides):
    # the state is the table before the new card, so no prior either
    tracker, s1 = in_the_storm()
    glare = Reading("none", 0.6, 0.4)
    assert tracker.explain({("card",): glare}, [CARD_CELL]).kind == "nothing"
    south = play(s1, Event.make("storm", "storm_card", card="wind_s_1"))
    slid = [c for c in diff_cells(MODEL, MODEL.expected(s1), MODEL.expected(south)) if c != CARD_CELL]
    assert tracker.explain(table(south) | {("card",): glare}, slid).kind == "commit" and tracker.awaiting is not None
    assert whole_table_prior(tracker) is not None
    second = Reading("wind_e_1", 0.9, 2.0, ("wind_s_1", "none"))     # or a second wind s 1
    assert tracker.explain({("card",): second}, [CARD_CELL]).kind == "nothing"
    assert tracker.card_pending and tracker.awaiting is not None and whole_table_prior(tracker) is None


def test_during_a_turn_each_cell_may_show_only_its_face_or_one_its_back_allows():
    """In a turn's actions no tile moves and an excavation turns one over (rules §3.7, §4): the
    live loop's read of the changed cells favours the face each cell shows, or for a tile not
    yet excavated each face its back still allows (`faces_this_turn`, `turn_prior`); none while
    a storm card may come next (the actions spent, the card place changed, the storm) or the
    whole table is read after one."""
    from assistant.tracking.forbidden_desert import faces_this_turn
    from assistant.tracking.live import TURN_PRIOR_NATS, turn_prior

    s0 = start({"sand": [[0, 1, 1]]})
    faces = faces_this_turn(MODEL, s0)
    assert faces[(2, 2)] == {"storm"} and faces[(1, 1)] == {"crash_site_back", "crash_site"}
    assert faces[(1, 4)] == {"water_back", "well", "mirage"}
    assert "gear" in faces[(0, 1)] and "well" not in faces[(0, 1)] and "dune_back" in faces[(0, 1)]
    s2 = play(s0, Event.make(0, "move", to=(0, 1)), Event.make(0, "remove_sand", at=(0, 1)),
              Event.make(0, "excavate", reveals="launch_pad"))
    after = faces_this_turn(MODEL, s2)
    assert after[(0, 1)] == {"launch_pad"} and "launch_pad" not in after[(0, 2)]   # each face once
    tracker = ForbiddenDesertTracker(GAME, s2)
    prior = turn_prior(tracker, {(0, 1)})
    assert prior[(0, 1)] == {"launch_pad": TURN_PRIOR_NATS, "unknown": TURN_PRIOR_NATS} and len(prior) == 25
    assert turn_prior(tracker, {(0, 1), CARD_CELL}) is None
    # the storm's cell changed (a wind slides it), or a cell off the board: no prior
    assert turn_prior(tracker, {(0, 1), (2, 2)}) is None and turn_prior(tracker, {(0, 1), (7, 7)}) is None
    spent = play(s2, Event.make(0, "move", to=(0, 2)))
    assert spent.actions_left == 0 and faces_this_turn(MODEL, spent) is None
    assert turn_prior(ForbiddenDesertTracker(GAME, spent), {(0, 2)}) is None
    assert turn_prior(storm_laid(s0, "wind_n_2"), {(0, 1)}) is None
    # a card read unsurely with actions left waits for its slides: the whole table is read, no prior
    waiting = ForbiddenDesertTracker(GAME, s0)
    observed = table(s0)
    observed[("card",)] = Reading("wind_n_2", 0.6, 0.4, ("wind_n_3",))
    assert waiting.explain(observed, [CARD_CELL]).kind == "nothing" and waiting.card_pending
    assert faces_this_turn(MODEL, waiting.state) is not None and turn_prior(waiting, {(0, 1)}) is None
    # a tile a Terrascope showed (its identity known, ``gear_3``) shows the camera's ``gear``
    seen = play(start({"hands": [["terrascope"], [], []]}),
                Event.make(0, "play_equipment", card="terrascope", at=(0, 1), sees="gear_3"))
    assert faces_this_turn(MODEL, seen)[(0, 1)] == {"dune_back", "gear"}


def test_a_marker_taken_off_read_only_unsurely_is_committed_where_it_is_the_one_legal_action():
    """In a dim room a marker just taken off reads "none" at 0.48 (development stress game
    8850): no sure reading differs from the table before. The gate saw the cell change surely
    and the one legal action that fits is that marker taken off: committed. Where the gate was
    not sure the cell changed, the players are asked instead."""
    s0 = start({"sand": [[0, 1, 1]]})
    take = Event.make(0, "remove_sand", at=(0, 1))
    assert take in GAME.legal_events(s0)
    s1 = play(s0, take)
    observed, changed = look(s0, s1)
    sand = ("sand", 0, 1)
    assert changed == {(0, 1)} and observed[sand].label == "none"
    observed[sand] = Reading("none", 0.48, 0.44, ("light", "dark"))
    tracker = ForbiddenDesertTracker(GAME, s0)
    verdict = tracker.explain(observed, changed)
    assert verdict.kind == "commit" and verdict.events == [take], verdict.message
    assert summary(tracker.state) == summary(s1)
    doubtful = ForbiddenDesertTracker(GAME, s0)
    asked = doubtful.explain(observed, changed, unsure=changed)
    assert asked.kind == "ask" and asked.reason == UNSURE_ACTION and asked.options == [[take]]
    assert doubtful.state is s0


def test_an_action_read_only_unsurely_is_a_question_not_nothing():
    """In a dim room a tile just excavated reads its face at 0.48 (as the crash site did in a
    development stress game): no sure reading differs from the table before, which used to pass
    as "nothing" and lose the excavation for good. The unsure face is not the back the engine
    holds, and an excavation there would explain it: the players are asked which face it shows,
    nothing committed. Sand read
    unsurely as a level no action makes (more sand in the actions phase) is noise: nothing."""
    first = start()
    s0, dig = next((after, ev) for step in GAME.legal_events(first) if step.type == "move"
                   for after in [play(first, step)] for ev in MODEL.visible_events(after) if ev.type == "excavate")
    here = s0.cell_of_seat(s0.active)
    s1 = play(s0, dig)
    observed, changed = look(s0, s1)
    face = ("face", *here)
    observed[face] = Reading(observed[face].label, 0.48, 0.1, ("clue_engine_row",))
    tracker = ForbiddenDesertTracker(GAME, s0)
    verdict = tracker.explain(observed, changed)
    assert verdict.kind == "ask" and tracker.state is s0, verdict.message
    assert any(ev.type == "excavate" for option in verdict.options for ev in option)
    assert here in verdict.cells and "excavated" in verdict.message and verdict.reason == UNSURE_ACTION
    quiet = table(s0)
    sand = ("sand", *here)
    assert quiet[sand].label == "none"                     # a tile is excavated clear of sand
    noisy = {s: r for s, r in quiet.items() if MODEL.cell_of(s) == here}
    noisy[sand] = Reading("light", 0.45, 0.2, ("none",))
    assert ForbiddenDesertTracker(GAME, s0).explain(noisy, {here}).kind == "nothing"


def test_sand_the_storm_laid_where_the_gate_saw_no_change_is_told_only_when_read_confidently():
    """Wind n 2: C4's bare dune back is replaced by C5's, which takes a second marker (dark), and
    the gate, in a dim room, sees only C3 and C5 change. C4 then reads bare at 0.85: the marker
    laid in the dim changed the picture too little for the gate and for the sand reader, and the
    storm is done. Read bare at 0.95, it is told. Before any slide was seen (only the card
    place changed), the same 0.85 reading is told: the players have not slid yet."""
    s0 = start()
    tracker = storm_laid(s0, "wind_n_2")
    after = tracker.state
    assert (MODEL.expected(s0)[("sand", 3, 2)], MODEL.expected(after)[("sand", 3, 2)]) == ("none", "dark")
    dim = table(after)
    dim[("sand", 3, 2)] = Reading("none", 0.85, 1.5)
    assert corrections(MODEL, s0, after, dim, s0, {CARD_CELL}) == ["add sand, dark side up, to C4"]
    verdict = tracker.explain(dim, [(2, 2), (4, 2)])
    assert verdict.kind == "nothing" and tracker.awaiting is None, (verdict.message, verdict.corrections)
    tracker = storm_laid(s0, "wind_n_2")
    dim[("sand", 3, 2)] = Reading("none", UNSEEN_SAND_CONFIDENCE + 0.05, 1.5)
    verdict = tracker.explain(dim, [(2, 2), (4, 2)])
    assert verdict.kind == "ask" and verdict.corrections == ["add sand, dark side up, to C4"]


def test_a_marker_taken_off_a_cell_the_storm_left_alone_is_the_next_turns_first_action():
    """The storm's last card was committed from its slides' cells and the table is still under
    watch when the next player takes the marker off B1, which the storm left alone: that is the
    turn's first action (it was asked about as a storm correction, "add one sand to B1"). The
    same change while the storm's own slides are still undone leaves the storm's question."""
    def storm_over():
        tracker = ForbiddenDesertTracker(GAME, start({"sand": [[0, 1, 1]]}))
        for card in ("wind_n_2", "wind_e_1", "wind_s_1"):
            if tracker.state.phase == "actions" and tracker.log:
                break
            observed = table(tracker.state)
            observed[("card",)] = Reading(card)
            assert tracker.explain(observed, [CARD_CELL]).kind == "commit"
        assert tracker.state.phase == "actions" and tracker.awaiting is not None
        return tracker
    tracker = storm_over()
    after = tracker.state
    take = Event.make(after.active, "remove_sand", at=(0, 1))
    seen = table(play(after, take))
    seen[("sand", 0, 1)] = Reading("none", 0.8, 1.5)
    verdict = tracker.explain(seen, [(0, 1)])
    assert verdict.kind == "commit" and verdict.events == [take], (verdict.message, verdict.corrections)
    assert tracker.awaiting is None and summary(tracker.state) == summary(play(after, take))
    # the same change in one with a storm cell changing surely (a hand knocking the marker off
    # during the last slide): the storm's check, not the next turn
    tracker = storm_over()
    verdict = tracker.explain(seen, [(0, 1), (4, 1)])
    assert verdict.kind == "ask" and verdict.corrections == ["add one sand to B1"] and tracker.awaiting is not None
    tracker = storm_over()
    undone = dict(seen)
    undone[("face", 4, 1)] = Reading("storm")       # the last slide not made: the storm still on B5
    verdict = tracker.explain(undone, [(0, 1)])
    assert verdict.kind == "ask" and verdict.corrections and tracker.awaiting is not None
    assert summary(tracker.state) == summary(after)


def test_a_rider_whose_climber_was_seen_leaving_but_not_arriving_is_not_called_a_push():
    """The climber walks from B2 to B1 taking the explorer's green pawn along; the camera sees
    both leave B2 but only the green pawn arrive (the climber's black pawn missed on B1). That is
    not the climber pushing the explorer (illegal: only the navigator moves others) but a walk
    with a rider half seen: a question offering that walk, never an illegal claim (the test
    above keeps a push by a player who is not the navigator named illegal)."""
    s0 = start(players=("climber", "explorer", "navigator"))
    before = MODEL.expected(s0)
    src, dst = ("pawns", 1, 1), ("pawns", 0, 1)
    held = sorted(filter(None, before[src].split("+")))
    assert {"black", "green"} <= set(held) and s0.active == 0
    walked = play(s0, Event.make(0, "move", to=(0, 1), carry=1))
    observed = {src: Reading(MODEL.expected(walked)[src], 0.9, 5.0, (before[src],)),
                dst: Reading("green", 0.9, 5.0, ("",))}
    verdict = ForbiddenDesertTracker(GAME, s0).explain(observed, {(1, 1), (0, 1)})
    assert verdict.kind == "ask" and [Event.make(0, "move", to=(0, 1), carry=1)] in verdict.options, verdict
    assert verdict.reason == GUESSED                     # offered, never settled by the pawns seen standing


def test_a_navigator_who_walked_and_then_moved_another_pawn_is_not_called_an_illegal_carry():
    """The navigator walks from B2 to A2 (her arrival missed) and then moves the explorer's
    green pawn from B2 to B3: both seen leaving B2, green seen arriving. Only the climber takes
    a pawn along, so the readings are not guessed as a carry (which the engine would call
    illegal): a question, not an illegal claim."""
    s0 = start({"turn": 1}, players=("archeologist", "navigator", "explorer"))
    before = MODEL.expected(s0)
    src, dst = ("pawns", 1, 1), ("pawns", 2, 1)
    assert s0.active == 1 and "green" in before[src]
    s1 = play(s0, Event.make(1, "move", to=(1, 0)), Event.make(1, "navigate", target=2, to=(2, 1)))
    observed = {src: Reading(MODEL.expected(s1)[src], 0.9, 5.0, (before[src],)),
                dst: Reading("green", 0.9, 5.0, ("",))}
    verdict = ForbiddenDesertTracker(GAME, s0).explain(observed, {(1, 1), (2, 1)})
    assert verdict.kind != "illegal", verdict


def test_a_card_laid_where_the_gate_saw_no_change_is_taken_only_on_two_readings_that_disagree():
    """The live loop reads the card place after a hand passed and the gate saw it not change
    (development stress games 8842, 8846, 8850: wind cards laid on wind cards under glare).
    A sure new card is committed; one named with only "no card" behind it is committed only
    where the picture before the hand named the card shown (two named cards disagree), else it
    waits as a question; a new card the picture before the hand named too is no card laid; with
    actions left, or a card already waiting for its slides, nothing is judged."""
    sure, alone = Reading("sun_beats_down", 0.99, 5.0), Reading("sun_beats_down", 0.40, 0.0, ("none",))
    shown = Reading("wind_n_1", 0.45, 0.0, ("none",))
    sun = [Event.make("storm", "storm_card", card="sun_beats_down")]
    for now, before, want in ((sure, None, "commit"), (sure, Reading("none", 0.6, 0.4), "commit"),
                              (alone, shown, "commit"), (alone, Reading("none", 0.6, 0.4), "ask"),
                              (alone, None, "ask"), (sure, alone, None), (Reading("wind_n_1", 0.99, 5.0), None, None)):
        tracker, s1 = in_the_storm()
        verdict = tracker.card_laid_unseen(now, before)
        assert (verdict.kind if verdict else None) == want, (now, before, verdict)
        if want == "commit":
            assert verdict.events == sun and tracker.awaiting is None
        else:
            assert tracker.state is s1
    tracker, s1 = in_the_storm()
    two = Reading("wind_e_1", 0.5, 0.3, ("wind_w_1",))                # both slide a tile here: wait for them
    waiting = tracker.card_laid_unseen(two, shown)
    assert waiting.kind == "nothing" and tracker.pending_cards == ["wind_e_1", "wind_w_1"] and tracker.state is s1
    assert tracker.card_laid_unseen(sure, shown) is None             # a card waits for its slides already
    s0 = start()
    assert ForbiddenDesertTracker(GAME, s0).card_laid_unseen(sure, shown) is None    # actions left


@pytest.mark.parametrize("behind, later", [
    (("wind_e_1",), None),                                            # read so again: told
    (("wind_e_1",), Reading("wind_e_2")),                             # read surely as wind e 2 now
    (("wind_e_1",), Reading("none", 0.62, 0.5, ("wind_e_2",))),       # or naming only wind e 2
    ((), None), (("wind_e_2",), None), (("wind_e_1", "wind_e_2"), None),
])
def test_a_card_place_read_as_no_card_with_one_card_behind_lets_its_slides_tell_it(behind, later):
    """The card place changes in the storm and reads "no card", unsurely (blur and a lamp's
    glare). Wind e 1's slide follows, the tile slid read unsurely, so no card is confirmed slot
    by slot; the cells seen are wind e 1's, but the players may have paused after the first of
    wind e 2's slides. Where the place named wind e 1 alone behind "no card", the slides tell
    it; named with another card, naming another, or naming none, the players are asked, and so
    they are where the place, read again with the slides, names another card."""
    tracker, s1 = in_the_storm()
    assert tracker._after_card("wind_e_2") is not None         # a stronger wind the deck allows
    place = Reading("none", 0.62, 0.5, behind)
    assert tracker.explain({("card",): place}, [CARD_CELL]).kind == "nothing"
    s2 = play(s1, Event.make("storm", "storm_card", card="wind_e_1"))
    observed = table(s2) | {("card",): later or place}
    old = ("face", *s1.storm)
    observed[old] = Reading("mirage", 0.4, 0.2, (observed[old].label,))
    changed = [c for c in diff_cells(MODEL, MODEL.expected(s1), MODEL.expected(s2)) if c != CARD_CELL]
    verdict = tracker.explain(observed, changed)
    if behind == ("wind_e_1",) and later is None:
        assert verdict.kind == "commit" and verdict.events == [Event.make("storm", "storm_card", card="wind_e_1")]
        assert summary(tracker.state) == summary(s2)
    else:
        assert verdict.kind == "ask" and tracker.state is s1
