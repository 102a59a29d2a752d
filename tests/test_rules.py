"""The rule set and round checks (tournament/game/rules.py): PRODUCT.md §1, §2, §4. No database."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from tournament.game.rules import (
    DOUBLE_BLANK_BONUS,
    NVSO_TILES_DRAWN,
    SETS,
    RuleSet,
    RuleSetError,
    default_engines,
    places,
    round_errors,
    running_totals,
    set_pips,
    set_tiles,
)

NVSO = RuleSet()
# The chart by table size in the rules texts `000`/`003` (double-12).
CHART_12 = {2: 16, 3: 16, 4: 15, 5: 14, 6: 12, 7: 10, 8: 9}


def problem_text(rules: RuleSet) -> str:
    return " ".join(rules.problems())


# -- the sets -----------------------------------------------------------------------------------


def test_double_12_set_has_91_tiles_and_1092_pips():
    assert set_tiles(12) == 91
    assert set_pips(12) == 1092


@pytest.mark.parametrize(
    ("highest", "tiles", "pips"),
    [(6, 28, 168), (9, 55, 495), (12, 91, 1092), (15, 136, 2040), (18, 190, 3420)],
)
def test_every_set_has_its_tiles_and_pips(highest, tiles, pips):
    assert set_tiles(highest) == tiles
    assert set_pips(highest) == pips


@pytest.mark.parametrize("n", SETS)
def test_set_pips_follow_the_formula_and_a_tile_count(n):
    assert set_pips(n) == n * (n + 1) * (n + 2) // 2
    # Counted tile by tile: every pair a <= b of 0..n.
    tiles = [(a, b) for a in range(n + 1) for b in range(a, n + 1)]
    assert set_tiles(n) == len(tiles)
    assert set_pips(n) == sum(a + b for a, b in tiles)


# -- NVSO defaults --------------------------------------------------------------------------------


def test_nvso_defaults_are_double_12_engines_12_down_to_0():
    assert NVSO.set == 12
    assert NVSO.engines == tuple(range(12, -1, -1))
    assert len(NVSO.engines) == 13
    assert NVSO.table_size == 4
    assert NVSO.game_minutes == 60
    assert NVSO.double_blank_points == 0


def test_nvso_defaults_draw_15_tiles_at_every_dealable_table():
    assert set(NVSO.tiles_drawn.values()) == {15}
    assert NVSO.dealable_sizes == (2, 3, 4, 5)
    assert NVSO.problems() == []
    assert NVSO.check() is NVSO


def test_nvso_defaults_seat_3_to_5_around_the_usual_4():
    assert NVSO.smallest_table == 3
    assert NVSO.largest_table == 5


def test_double_12_leaves_90_tiles_beside_the_engine():
    assert NVSO.tiles_beside_engine == 90
    assert NVSO.total_pips == 1092


def test_nvso_deals_5_players_but_not_6():
    assert NVSO.can_deal(5)  # 5 x 15 = 75 < 90
    assert not NVSO.can_deal(6)  # not listed at all
    assert not RuleSet(tiles_drawn={**NVSO_TILES_DRAWN, 6: 15}).can_deal(6)  # 90 = 90


def test_default_rule_sets_do_not_share_their_tiles_drawn():
    a, b = RuleSet(), RuleSet()
    assert a.tiles_drawn is not b.tiles_drawn


# -- problems() -----------------------------------------------------------------------------------


def test_six_players_drawing_15_at_double_12_leave_nothing_to_draw():
    rules = RuleSet(tiles_drawn={**NVSO_TILES_DRAWN, 6: 15})
    problems = rules.problems()
    assert len(problems) == 1
    text = problems[0]
    assert "6" in text and "15" in text
    assert "90" in text
    assert "left to draw" in text
    with pytest.raises(RuleSetError, match="left to draw"):
        rules.check()


def test_double_6_with_15_tiles_is_refused():
    rules = RuleSet(set=6, engines=default_engines(6))
    text = problem_text(rules)
    assert "double-6" in text
    assert "27" in text  # 28 tiles, 27 beside the engine
    assert "left to draw" in text
    # Every listed table size is refused, even two players (30 > 27).
    assert len(rules.problems()) == len(NVSO_TILES_DRAWN)
    assert rules.dealable_sizes == ()


@pytest.mark.parametrize("engine", [13, -1, 99])
def test_an_engine_out_of_the_set_is_refused(engine):
    rules = RuleSet(engines=(12, 11, engine))
    text = problem_text(rules)
    assert f"Engine {engine}" in text
    assert "0 to 12" in text
    assert "double-12" in text


def test_an_engine_of_a_smaller_set_is_checked_against_that_set():
    rules = RuleSet(set=9, engines=(10, 9), tiles_drawn={2: 15, 3: 13, 4: 10})
    assert "0 to 9" in problem_text(rules)


def test_a_repeated_engine_is_refused():
    rules = RuleSet(engines=(12, 11, 11, 10))
    assert "twice" in problem_text(rules)


def test_an_empty_engine_list_is_refused():
    rules = RuleSet(engines=())
    text = problem_text(rules)
    assert "at least one engine" in text


def test_a_usual_table_size_without_tiles_drawn_is_refused():
    rules = RuleSet(table_size=6)
    text = problem_text(rules)
    assert "6" in text
    assert "no tiles-drawn entry" in text


def test_no_tiles_drawn_at_all_is_refused():
    text = problem_text(RuleSet(tiles_drawn={}))
    assert "at least one table size" in text


@pytest.mark.parametrize("size", [0, 1, 13, 20])
def test_a_table_size_outside_2_to_12_is_refused(size):
    rules = RuleSet(tiles_drawn={**NVSO_TILES_DRAWN, size: 5})
    text = problem_text(rules)
    assert "2 to 12" in text
    assert f"not {size}" in text


def test_drawing_no_tile_is_refused():
    text = problem_text(RuleSet(tiles_drawn={**NVSO_TILES_DRAWN, 4: 0}))
    assert "at least one tile" in text


def test_a_set_that_is_not_offered_is_refused():
    text = problem_text(RuleSet(set=7))
    assert "double-12" in text and "double-6" in text


def test_a_time_limit_below_one_minute_is_refused_but_none_is_fine():
    assert "one minute" in problem_text(RuleSet(game_minutes=0))
    assert RuleSet(game_minutes=None).problems() == []


def test_the_double_blank_counts_0_or_50_only():
    assert RuleSet(double_blank_points=50).problems() == []
    assert "0 or 50" in problem_text(RuleSet(double_blank_points=25))


def test_check_raises_with_every_problem():
    rules = RuleSet(engines=(), table_size=7)
    with pytest.raises(RuleSetError) as caught:
        rules.check()
    assert "engine" in str(caught.value)
    assert "no tiles-drawn entry" in str(caught.value)


def test_the_double_12_chart_from_the_rules_texts_is_dealable():
    rules = RuleSet(tiles_drawn=CHART_12)
    assert rules.problems() == []
    assert rules.dealable_sizes == (2, 3, 4, 5, 6, 7, 8)
    for size, drawn in CHART_12.items():
        assert size * drawn < 90


def test_the_double_9_chart_from_the_rules_texts_is_dealable():
    rules = RuleSet(set=9, engines=default_engines(9), tiles_drawn={2: 15, 3: 13, 4: 10})
    assert rules.problems() == []
    assert rules.dealable_sizes == (2, 3, 4)


def test_the_004_chart_is_dealable():
    chart = {2: 15, 3: 15, 4: 15, 5: 12, 6: 12, 7: 10, 8: 10}
    assert RuleSet(tiles_drawn=chart).problems() == []


def test_a_club_starting_at_9_9_and_a_short_game_are_playable():
    assert RuleSet(engines=tuple(range(9, -1, -1))).problems() == []
    assert RuleSet(engines=(12, 11, 10, 9, 8, 7)).problems() == []
    assert RuleSet(engines=tuple(range(13))).problems() == []  # 0-0 up to 12-12


# -- max_pips -------------------------------------------------------------------------------------


def test_double_12_round_12_bound_is_1068():
    assert NVSO.max_pips(12) == 1092 - 24 == 1068


def test_double_12_round_0_bound_is_all_the_pips():
    assert NVSO.max_pips(0) == 1092


@pytest.mark.parametrize("engine", range(13))
def test_bound_is_set_pips_minus_engine_pips(engine):
    assert NVSO.max_pips(engine) == 1092 - 2 * engine


def test_fifty_point_double_blank_raises_the_bound_by_50():
    rules = RuleSet(double_blank_points=DOUBLE_BLANK_BONUS)
    assert rules.max_pips(12) == 1068 + 50
    assert rules.max_pips(1) == 1090 + 50


def test_fifty_point_double_blank_does_not_raise_the_0_0_round():
    rules = RuleSet(double_blank_points=DOUBLE_BLANK_BONUS)
    assert rules.max_pips(0) == 1092


def test_max_pips_of_double_6():
    assert RuleSet(set=6).max_pips(6) == 168 - 12


# -- next_engine ----------------------------------------------------------------------------------


def test_next_engine_follows_the_engines_in_play_order():
    assert NVSO.next_engine(0) == 12
    assert NVSO.next_engine(1) == 11
    assert NVSO.next_engine(12) == 0


def test_next_engine_is_none_when_every_engine_has_been_played():
    assert NVSO.next_engine(13) is None
    assert NVSO.next_engine(20) is None


def test_next_engine_of_an_ascending_game():
    rules = RuleSet(engines=tuple(range(13)))
    assert [rules.next_engine(i) for i in range(14)] == [*range(13), None]


# -- round_errors ---------------------------------------------------------------------------------


def test_a_valid_round_gives_no_errors():
    errors = round_errors(NVSO, 12, {"ann": 0, "bob": 34, "cy": 112, "dee": 7})
    assert not errors
    assert errors.fields == {}
    assert errors.whole == []


def test_a_blocked_round_with_no_zero_is_accepted():
    assert not round_errors(NVSO, 12, {"ann": 3, "bob": 34, "cy": 112})


@pytest.mark.parametrize("value", ["12", "", "abc", 12.0, 3.5, True, False, None, [1]])
def test_a_value_that_is_not_a_whole_number_is_refused_at_that_player(value):
    errors = round_errors(NVSO, 12, {"ann": 0, "bob": value, "cy": 20})
    assert errors
    assert list(errors.fields) == ["bob"]
    assert len(errors.fields["bob"]) == 1
    message = errors.fields["bob"][0]
    assert "whole number" in message or "Enter this player's pips" in message


def test_a_missing_value_asks_for_the_pips():
    errors = round_errors(NVSO, 12, {"ann": None, "bob": 3})
    assert "Enter this player's pips" in errors.fields["ann"][0]


def test_a_string_number_is_named_in_its_message():
    errors = round_errors(NVSO, 12, {"ann": "12", "bob": 3})
    assert "'12'" in errors.fields["ann"][0]
    assert "whole number" in errors.fields["ann"][0]


def test_a_bool_is_not_a_pip_count():
    errors = round_errors(NVSO, 12, {"ann": True, "bob": 3})
    assert "whole number" in errors.fields["ann"][0]


def test_a_negative_count_is_refused():
    errors = round_errors(NVSO, 12, {"ann": -1, "bob": 3})
    assert list(errors.fields) == ["ann"]
    assert "negative" in errors.fields["ann"][0]
    assert "-1" in errors.fields["ann"][0]


FOUR = {"ann": 0, "bob": 3, "cy": 7}  # three more players: a table of four with "dee"


def test_a_count_above_the_bound_is_refused_with_the_bound():
    errors = round_errors(NVSO, 12, {"ann": 1069, "bob": 3})
    assert list(errors.fields) == ["ann"]
    message = errors.fields["ann"][0]
    assert "1012" in message  # a 2-player table: 75 tiles at most in one hand
    assert "1069" in message


# PRODUCT.md §4: at most the pips of the (tiles drawn + bone pile) highest tiles other than the
# round's engine, for the table's size.
@pytest.mark.parametrize(
    ("players", "engine", "bound"),
    [(4, 12, 731), (5, 12, 535), (2, 12, 1012), (3, 12, 893), (4, 0, 743), (4, 6, 743)],
)
def test_the_bound_is_the_highest_tiles_one_hand_can_hold(players, engine, bound):
    assert NVSO.max_pips(engine, players) == bound
    values = NVSO.tile_values(engine)
    assert len(values) == 90 and sum(values) == 1092 - 2 * engine
    hand = 15 + (90 - 15 * players)  # own tiles and the whole bone pile
    assert sum(values[:hand]) == bound


def test_an_extra_digit_typo_is_refused_at_a_table_of_four():
    errors = round_errors(NVSO, 12, {**FOUR, "dee": 870})
    assert errors.fields["dee"] == ["870 is more than the 731 pips that can be left."]
    assert not round_errors(NVSO, 12, {**FOUR, "dee": 731})


def test_a_table_size_the_rules_do_not_deal_falls_back_to_the_whole_set():
    assert NVSO.max_pips(12, 7) == NVSO.max_pips(12) == 1068
    assert not round_errors(NVSO, 12, {"ann": 1068})


def test_the_50_point_double_blank_is_the_highest_tile_in_a_hand():
    rules = RuleSet(double_blank_points=50)
    assert rules.tile_values(12)[0] == 50
    assert rules.max_pips(12, 4) == 731 - 12 + 50  # the double-blank replaces a 12-pip tile
    assert rules.max_pips(0, 4) == NVSO.max_pips(0, 4)  # the 0-0 round: it is the engine
    assert rules.round_max_pips(12) == 1068 + 50 and rules.round_max_pips(0) == 1092


def test_two_zeros_are_the_domino_and_the_double_blank_at_0():
    assert not round_errors(NVSO, 12, {"ann": 0, "bob": 0, "cy": 40, "dee": 9})


def test_three_zeros_are_always_refused():
    errors = round_errors(NVSO, 12, {"a": 0, "b": 0, "c": 0, "d": 4})
    assert errors.fields == {}
    assert errors.whole == [
        "3 players have 0: only the player who dominoed and a player holding just the "
        "double-blank can have 0."
    ]


def test_two_zeros_are_refused_under_the_50_point_rule():
    errors = round_errors(RuleSet(double_blank_points=50), 12, {"ann": 0, "bob": 0, "cy": 40})
    assert errors.whole == [
        "2 players have 0: only the player who dominoed can have 0 (the double-blank counts 50)."
    ]


def test_two_zeros_are_refused_in_the_0_0_round():
    errors = round_errors(NVSO, 0, {"ann": 0, "bob": 0, "cy": 40})
    assert errors.whole == [
        "2 players have 0: in the 0-0 round the double-blank is the engine, so only the "
        "player who dominoed can have 0."
    ]


def test_a_round_adding_up_to_more_than_the_bound_is_refused():
    errors = round_errors(NVSO, 12, {"ann": 600, "bob": 469, "cy": 0})
    assert errors.fields == {}
    assert len(errors.whole) == 1
    assert "1069" in errors.whole[0]
    assert "1068" in errors.whole[0]


def test_a_round_adding_up_to_exactly_the_bound_is_accepted():
    assert not round_errors(NVSO, 12, {"ann": 600, "bob": 468, "cy": 0})


def test_the_sum_is_not_checked_while_a_field_is_wrong():
    errors = round_errors(NVSO, 12, {"ann": 800, "bob": 800, "cy": "x"})
    assert list(errors.fields) == ["cy"]
    assert errors.whole == []


def test_every_wrong_field_is_reported_at_once():
    errors = round_errors(NVSO, 12, {"ann": -2, "bob": 2000, "cy": "x", "dee": 5})
    assert set(errors.fields) == {"ann", "bob", "cy"}


engines = st.sampled_from(default_engines(12))
rule_sets = st.sampled_from([NVSO, RuleSet(double_blank_points=50)])
player_keys = st.lists(st.integers(1, 500), min_size=1, max_size=8, unique=True)


@st.composite
def valid_rounds(draw):
    """Pip counts in [0, bound], at most one zero, adding up to at most the bound."""
    rules = draw(rule_sets)
    engine = draw(engines)
    keys = draw(player_keys)
    bound = rules.max_pips(engine, len(keys))
    zero_at = draw(st.none() | st.sampled_from(keys))
    others = [k for k in keys if k != zero_at]
    budget = draw(st.integers(len(others), rules.round_max_pips(engine)))
    pips = {}
    for i, key in enumerate(others):
        left = len(others) - i - 1  # players still to draw, each needing at least 1
        value = draw(st.integers(1, max(1, min(bound, budget - left))))
        pips[key] = value
        budget -= value
    assume(budget >= 0)
    if zero_at is not None:
        pips[zero_at] = 0
    return rules, engine, pips


@given(valid_rounds())
def test_any_round_within_the_bounds_is_accepted(case):
    rules, engine, pips = case
    bound = rules.max_pips(engine, len(pips))
    assert sum(pips.values()) <= rules.round_max_pips(engine)
    assert all(0 <= v <= bound for v in pips.values())
    assert list(pips.values()).count(0) <= 1
    errors = round_errors(rules, engine, pips)
    assert not errors, (errors.fields, errors.whole)


@given(
    rules=rule_sets,
    engine=engines,
    keys=player_keys,
    data=st.data(),
)
def test_a_value_outside_0_to_the_bound_is_always_reported_at_that_player(
    rules, engine, keys, data
):
    bound = rules.max_pips(engine, len(keys))
    pips = {k: data.draw(st.integers(0, bound)) for k in keys}
    bad = data.draw(st.sampled_from(keys))
    pips[bad] = data.draw(st.integers(bound + 1, 10**6) | st.integers(-(10**6), -1))
    errors = round_errors(rules, engine, pips)
    assert bad in errors.fields
    assert str(pips[bad]) in errors.fields[bad][0]
    if pips[bad] > bound:
        assert str(bound) in errors.fields[bad][0]


anything = (
    st.integers(-2000, 3000)
    | st.text(max_size=4)
    | st.floats(allow_nan=False)
    | st.booleans()
    | st.none()
)


@given(
    rules=rule_sets,
    engine=engines,
    pips=st.dictionaries(st.integers(1, 50), anything, min_size=1, max_size=8),
)
def test_errors_never_mention_a_player_whose_value_is_fine(rules, engine, pips):
    bound = rules.max_pips(engine, len(pips))
    errors = round_errors(rules, engine, pips)
    for key, value in pips.items():
        fine = type(value) is int and 0 <= value <= bound
        assert (key in errors.fields) is not fine


# -- running_totals and places --------------------------------------------------------------------


def test_running_totals_add_round_by_round():
    rounds = [{"ann": 10, "bob": 0}, {"ann": 0, "bob": 25}, {"ann": 5, "bob": 5}]
    assert running_totals(rounds) == [
        {"ann": 10, "bob": 0},
        {"ann": 10, "bob": 25},
        {"ann": 15, "bob": 30},
    ]


def test_running_totals_of_no_round_is_empty():
    assert running_totals([]) == []


def test_running_totals_keep_a_player_who_missed_a_round():
    totals = running_totals([{"ann": 10, "bob": 3}, {"ann": 4}])
    assert totals[-1] == {"ann": 14, "bob": 3}


def test_running_totals_do_not_alias_earlier_rows():
    totals = running_totals([{"ann": 1}, {"ann": 2}])
    assert totals[0] == {"ann": 1}


def test_lowest_total_is_first():
    assert places({"ann": 40, "bob": 12, "cy": 90}) == {"bob": 1, "ann": 2, "cy": 3}


def test_ties_share_a_place_and_skip_the_next():
    assert places({"ann": 12, "bob": 12, "cy": 30}) == {"ann": 1, "bob": 1, "cy": 3}


def test_a_tie_for_second_shares_second():
    assert places({"a": 5, "b": 9, "c": 9, "d": 10}) == {"a": 1, "b": 2, "c": 2, "d": 4}


def test_places_of_nobody_is_empty():
    assert places({}) == {}


round_scores = st.dictionaries(st.sampled_from("ABCDEFGH"), st.integers(0, 1068), min_size=1)


@given(st.lists(round_scores, max_size=13), st.randoms(use_true_random=False))
def test_game_totals_do_not_depend_on_round_order(rounds, rnd):
    shuffled = list(rounds)
    rnd.shuffle(shuffled)
    final = running_totals(rounds)[-1] if rounds else {}
    assert (running_totals(shuffled)[-1] if shuffled else {}) == final
    for player, total in final.items():
        assert total == sum(r.get(player, 0) for r in rounds)


@given(
    st.dictionaries(st.integers(0, 30), st.integers(0, 40), max_size=10),
    st.randoms(use_true_random=False),
)
def test_places_do_not_depend_on_the_order_of_players(totals, rnd):
    items = list(totals.items())
    rnd.shuffle(items)
    assert places(dict(items)) == places(totals)


@given(st.dictionaries(st.integers(0, 30), st.integers(0, 40), max_size=10))
def test_a_place_is_one_more_than_the_players_strictly_ahead(totals):
    result = places(totals)
    for player, total in totals.items():
        assert result[player] == 1 + sum(1 for t in totals.values() if t < total)
