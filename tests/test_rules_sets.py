"""Two copies of a set mixed for larger tables (PRODUCT.md §12, issue 30 item 3): every count
that depends on the set uses the combined tiles. Pure rules, no database, except the event
form's tests at the end."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.test_event_setup import NVSO_FORM
from tests.test_simulator import check_transition, random_choice, snapshot
from tournament.game.rules import RuleSet, default_engines, round_checks, round_errors
from tournament.game.simulator import (
    DOMINO,
    Play,
    Position,
    apply,
    deal,
    hand_pips,
    highest_first,
    keep_train,
    legal_moves,
    legal_plays,
)
from tournament.game.simulator.moves import stalled
from tournament.models import Event


def two_sets(highest: int = 9, **rules) -> RuleSet:
    rules.setdefault("tiles_drawn", {6: 12, 8: 11, 10: 10})
    rules.setdefault("table_size", 8)
    return RuleSet(set=highest, sets=2, engines=default_engines(highest), **rules)


def every_tile(highest: int, copies: int) -> list[tuple[int, int]]:
    """The tiles counted here, apart from the code under test."""
    return [(a, b) for a in range(highest + 1) for b in range(a, highest + 1)] * copies


def problem_text(rules: RuleSet) -> str:
    return " ".join(rules.problems())


# -- the tiles ----------------------------------------------------------------------------------


def test_two_double_9_sets_have_110_tiles_109_beside_an_engine_and_990_pips():
    rules = two_sets()
    assert rules.tiles == 110 == len(every_tile(9, 2))
    assert rules.tiles_beside_engine == 109
    assert rules.total_pips == 990 == sum(a + b for a, b in every_tile(9, 2))
    assert rules.problems() == []


def test_one_set_counts_stay_those_of_the_set():
    assert (RuleSet().tiles, RuleSet().tiles_beside_engine, RuleSet().total_pips) == (91, 90, 1092)


def test_a_table_of_10_drawing_10_can_be_dealt_and_11_cannot():
    rules = two_sets(tiles_drawn={10: 10, 11: 10}, table_size=10)
    assert rules.can_deal(10) and rules.hand_limit(10) == 109 - 9 * 10
    assert not rules.can_deal(11) and rules.dealable_sizes == (10,)
    assert (
        "A table of 11 drawing 10 tiles each needs 110 tiles, but two double-9 sets have only "
        "109 beside the engine" in problem_text(rules)
    )


def test_one_double_9_set_cannot_deal_what_two_can():
    one = RuleSet(set=9, engines=default_engines(9), tiles_drawn={10: 10}, table_size=10)
    assert not one.can_deal(10)
    assert "a double-9 set has only 54 beside the engine" in problem_text(one)


def test_double_15_seats_12_where_the_tiles_drawn_allow():
    fits = RuleSet(set=15, engines=default_engines(15), tiles_drawn={12: 11}, table_size=12)
    assert fits.problems() == [] and fits.can_deal(12)  # 132 of 135 beside the engine
    too_many = RuleSet(set=15, engines=default_engines(15), tiles_drawn={12: 12}, table_size=12)
    assert "A table of 12 drawing 12 tiles each needs 144 tiles" in problem_text(too_many)
    beyond = RuleSet(set=15, engines=default_engines(15), tiles_drawn={12: 11, 13: 5})
    assert "A table seats 2 to 12 players, not 13" in problem_text(beyond)


@pytest.mark.parametrize("sets", [0, 3])
def test_only_one_set_or_two_mixed(sets):
    text = problem_text(RuleSet(sets=sets))
    assert text == f"Play with one set or two copies of it mixed, not {sets}."


def test_each_engine_is_still_a_double_of_one_copy():
    assert "Engine 10 is not a double of the double-9 set" in problem_text(
        RuleSet(set=9, sets=2, engines=(10, 9), tiles_drawn={4: 10})
    )


# -- pip bounds ---------------------------------------------------------------------------------


def brute_max_pips(highest, copies, points, engine, hand):
    """The most pips ``hand`` tiles can hold, trying every hand of the combined tiles."""
    tiles = every_tile(highest, copies)
    tiles.remove((engine, engine))
    values = [points if t == (0, 0) else t[0] + t[1] for t in tiles]
    return max(sum(c) for c in combinations(values, hand))


@settings(max_examples=60, deadline=None)
@given(
    highest=st.integers(1, 3),
    copies=st.sampled_from([1, 2]),
    points=st.sampled_from([0, 50]),
    data=st.data(),
)
def test_max_pips_is_the_best_hand_of_the_combined_tiles(highest, copies, points, data):
    engine = data.draw(st.integers(0, highest))
    beside = len(every_tile(highest, copies)) - 1
    players = data.draw(st.integers(2, max(2, beside // 2)))
    drawn = data.draw(st.integers(1, max(1, (beside - 1) // players)))
    rules = RuleSet(
        set=highest,
        sets=copies,
        engines=(engine,),
        tiles_drawn={players: drawn},
        table_size=players,
        double_blank_points=points,
    )
    if players * drawn >= beside:
        assert rules.hand_limit(players) is None
        return
    hand = beside - (players - 1) * drawn
    assert rules.hand_limit(players) == hand
    assert rules.max_pips(engine, players) == brute_max_pips(highest, copies, points, engine, hand)
    assert rules.round_max_pips(engine) == brute_max_pips(highest, copies, points, engine, beside)


def test_in_the_0_0_round_of_two_sets_the_other_double_blank_counts_as_the_rule_says():
    assert two_sets(double_blank_points=50).round_max_pips(0) == 990 + 50
    assert two_sets(double_blank_points=0).round_max_pips(0) == 990
    one_set = RuleSet(set=9, engines=default_engines(9), tiles_drawn={4: 10})
    assert replace(one_set, double_blank_points=50).round_max_pips(0) == 495


# -- zeros --------------------------------------------------------------------------------------

SIX = {f"p{i}": pips for i, pips in enumerate([0, 0, 0, 12, 30, 7])}


def test_three_zeros_are_accepted_in_a_two_set_round_when_the_double_blank_counts_0():
    rules = two_sets()
    assert not round_errors(rules, 5, SIX)
    assert rules.max_zeros(5) == 3
    assert round_checks(rules, [5], 6)["engines"]["5"]["max_zeros"] == 3
    four = {**SIX, "p3": 0}
    assert round_errors(rules, 5, four).whole == [
        "4 players have 0: only the player who dominoed and two players each holding just a "
        "double-blank can have 0."
    ]


def test_three_zeros_are_refused_with_one_set():
    one = RuleSet(set=9, engines=default_engines(9), tiles_drawn={6: 8}, table_size=6)
    assert round_errors(one, 5, SIX).whole == [
        "3 players have 0: only the player who dominoed and a player holding just the "
        "double-blank can have 0."
    ]


def test_two_sets_with_the_50_point_double_blank_allow_one_zero():
    rules = two_sets(double_blank_points=50)
    assert rules.max_zeros(5) == rules.max_zeros(0) == 1
    assert round_errors(rules, 5, {"a": 0, "b": 0, "c": 9, "d": 4, "e": 1, "f": 2}).whole == [
        "2 players have 0: only the player who dominoed can have 0 (the double-blank counts 50)."
    ]


def test_the_0_0_round_of_two_sets_allows_two_zeros_when_the_double_blank_counts_0():
    rules = two_sets()
    two = {**SIX, "p2": 5}
    assert rules.max_zeros(0) == 2 and not round_errors(rules, 0, two)
    assert round_errors(rules, 0, SIX).whole == [
        "3 players have 0: in the 0-0 round one double-blank is the engine, so only the player "
        "who dominoed and a player holding just the other double-blank can have 0."
    ]


def test_the_0_0_round_of_two_sets_allows_one_zero_when_the_double_blank_counts_50():
    rules = two_sets(double_blank_points=50)
    two = {**SIX, "p2": 5}
    assert round_errors(rules, 0, two).whole == [
        "2 players have 0: only the player who dominoed can have 0 (the double-blank counts 50)."
    ]
    assert not round_errors(rules, 0, {**two, "p1": 50})


# -- the simulator deals and plays both copies ---------------------------------------------------


def test_the_deal_uses_both_copies_and_draws_the_engine_once():
    rules = two_sets()
    hands, boneyard = deal(rules, 7, 10, random.Random(3))
    assert [len(h) for h in hands] == [10] * 10 and len(boneyard) == 9
    dealt = Counter([t for h in hands for t in h] + boneyard)
    want = Counter(every_tile(9, 2))
    want[(7, 7)] -= 1
    assert dealt == want


def check_two_set_position(table: Position, highest: int) -> None:
    """Each tile of the two sets in exactly two places, the engine's second copy in one more
    than the engine itself; trains end-matched; open doubles are the trains ending in one."""
    assert Counter(table.tiles_placed()) == Counter(every_tile(highest, 2))
    assert table.conservation_errors(highest, copies=2) == []
    for train in table.trains:
        end = table.engine
        for laid in train.tiles:
            assert laid[0] == end
            end = laid[1]
        assert train.end == end
    assert set(table.open_doubles) == {i for i, t in enumerate(table.trains) if t.ends_in_double}


def play_refereed(rules: RuleSet, engine: int, players: int, seed: int, choose):
    rng = random.Random(seed)
    hands, boneyard = deal(rules, engine, players, rng)
    table = Position.start(engine, hands, boneyard, starter=seed % players)
    check_two_set_position(table, rules.set)
    while not table.ending:
        allowed = legal_moves(table)
        assert allowed, "a round in play always leaves the player a move"
        move = choose(table, allowed) if isinstance(allowed[0], Play) else allowed[0]
        before = snapshot(table)
        apply(table, move)
        check_transition(before, move, table)
        check_two_set_position(table, rules.set)
        assert table.turns < 2000
    if table.ending == DOMINO:
        assert [len(h) for h in table.hands].count(0) == 1
    else:
        assert stalled(table) and all(table.hands)
    return table


@pytest.mark.parametrize(
    ("rules", "players"),
    [
        (two_sets(), 10),
        (two_sets(double_blank_points=50), 6),
        (two_sets(6, tiles_drawn={4: 10, 6: 8}, table_size=6), 6),
    ],
)
def test_a_two_set_game_plays_to_the_end_by_the_referee(rules, players):
    for i, engine in enumerate(rules.engines):
        seed = 100 * players + i
        choose = [random_choice(random.Random(seed)), keep_train, highest_first][i % 3]
        table = play_refereed(rules, engine, players, seed, choose)
        pips = {seat: hand_pips(h, rules.double_blank_points) for seat, h in enumerate(table.hands)}
        assert not round_errors(rules, engine, pips), "a played round passes the round check"


def test_the_second_copy_of_a_double_does_not_satisfy_the_first():
    # Two double-9 sets, engine 9-9; seat 1 played the 5-5 on its train, left open.
    table = Position.build(
        9, [[(5, 5), (2, 3)], [(1, 2)]], trains={1: [(5, 9), (5, 5)]}, boneyard=[(5, 6)]
    )
    assert legal_plays(table) == []  # only a tile of 5 that is not a double satisfies it
    table.hands[0].append((4, 5))
    assert {(p.tile, p.train) for p in legal_plays(table)} == {((4, 5), 1)}


def test_a_double_whose_only_tiles_left_are_its_other_copy_no_longer_restricts_play():
    # Seat 1's train is marked, so open to seat 0, but the 5-5 may not go on the dead 5-5.
    table = Position.build(
        9,
        [[(5, 5), (2, 9)], [(1, 2)]],
        trains={1: [(5, 9), (5, 5)]},
        boneyard=[(6, 6)],
        marked=(1,),
    )
    assert table.live_doubles() == []
    assert {(p.tile, p.train) for p in legal_plays(table)} == {((2, 9), 0), ((2, 9), 2)}


def test_the_engines_second_copy_may_start_a_train_and_must_then_be_satisfied():
    table = Position.build(9, [[(9, 9), (4, 9), (1, 1)], [(3, 4)]], boneyard=[(6, 6)])
    apply(table, Play((9, 9), 0))
    assert table.owes and table.open_doubles == [0]
    assert {(p.tile, p.train) for p in legal_plays(table)} == {((4, 9), 0)}


# -- the event form -----------------------------------------------------------------------------

TWO_DOUBLE_9 = {
    **NVSO_FORM,
    "name": "Big tables",
    "set_size": 9,
    "sets": 2,
    "tiles_drawn": "6:12, 8:11, 10:10",
    "table_size": 8,
}


@pytest.mark.django_db
def test_an_event_of_two_double_9_sets_at_tables_up_to_10_saves(director_client):
    response = director_client.post("/director/new/", TWO_DOUBLE_9)
    assert response.status_code == 302, response.content.decode()
    event = Event.objects.get(name="Big tables")
    assert (event.set_size, event.sets) == (9, 2)
    assert event.tiles_drawn == {"6": 12, "8": 11, "10": 10}
    assert event.rules.tiles == 110 and event.rules.dealable_sizes == (6, 8, 10)


@pytest.mark.django_db
def test_two_double_9_sets_that_cannot_deal_a_table_say_why_and_save_nothing(director_client):
    form = {**TWO_DOUBLE_9, "tiles_drawn": "6:12, 8:11, 10:11"}
    response = director_client.post("/director/new/", form)
    assert response.status_code == 200
    assert (
        "A table of 10 drawing 11 tiles each needs 110 tiles, but two double-9 sets have only "
        "109 beside the engine: at least one must be left to draw."
    ) in response.content.decode()
    assert not Event.objects.exists()
