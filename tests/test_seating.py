"""Balanced tables and the random deal (tournament/game/seating.py): PRODUCT.md §3, §6. No
database."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from tournament.game.rules import RuleSet
from tournament.game.seating import (
    SeatingError,
    deal,
    seat_sizes,
    size_to_allow,
    table_sizes,
    unusual_sizes,
)

NVSO_BOUNDS = (3, 5, 4)  # smallest, largest, usual


def can_split(players: int, smallest: int, largest: int) -> bool:
    """Some number of tables k seats everyone within the bounds: k*smallest <= n <= k*largest."""
    return any(k * smallest <= players <= k * largest for k in range(1, players + 1))


# -- table_sizes ----------------------------------------------------------------------------------


@pytest.mark.parametrize("count", range(2, 201))
def test_nvso_table_sizes_are_balanced_for_2_to_200_players(count):
    sizes = table_sizes(count, *NVSO_BOUNDS)
    assert sum(sizes) == count
    assert max(sizes) - min(sizes) <= 1
    assert sizes == sorted(sizes, reverse=True)
    if count >= 3:
        assert min(sizes) >= 3
        assert max(sizes) <= 5
    else:
        assert sizes == [2]


@pytest.mark.parametrize(
    ("count", "sizes"),
    [
        (4, [4]),
        (5, [5]),
        (3, [3]),
        (6, [3, 3]),
        (7, [4, 3]),
        (8, [4, 4]),
        (9, [5, 4]),
        (11, [4, 4, 3]),
        (12, [4, 4, 4]),
        (13, [5, 4, 4]),
        (40, [4] * 10),
        (41, [5] + [4] * 9),
        (43, [4] * 10 + [3]),
    ],
)
def test_nvso_table_sizes_stay_close_to_4(count, sizes):
    assert table_sizes(count, *NVSO_BOUNDS) == sizes


@pytest.mark.parametrize("count", [10, 14, 18, 22, 26, 30])
def test_a_count_halfway_between_table_counts_gets_one_of_the_two_nearest_splits(count):
    # count / 4 = k.5: either k tables of 4 or 5, or k + 1 tables of 3 or 4. Which one is not
    # specified (the module uses round(), so it alternates with k's parity).
    k = count // 4
    sizes = table_sizes(count, *NVSO_BOUNDS)
    assert len(sizes) in (k, k + 1)
    assert sum(sizes) == count and max(sizes) - min(sizes) <= 1


def test_two_players_play_at_one_table():
    assert table_sizes(2, *NVSO_BOUNDS) == [2]


@pytest.mark.parametrize("count", [0, 1, -3])
def test_fewer_than_two_players_cannot_be_seated(count):
    with pytest.raises(SeatingError, match="at least 2 players"):
        table_sizes(count, *NVSO_BOUNDS)


def test_a_count_that_cannot_be_split_raises_with_a_message():
    # Tables of exactly 4: six players make neither one table nor two.
    with pytest.raises(SeatingError, match="6 players cannot be split into tables of 4 to 4"):
        table_sizes(6, 4, 4, 4)


def test_a_small_group_above_the_largest_table_cannot_be_seated():
    with pytest.raises(SeatingError, match="cannot be seated at one table"):
        table_sizes(5, 6, 4, 4)


def test_a_group_below_the_smallest_table_plays_at_one_table():
    assert table_sizes(4, 5, 6, 5) == [4]


bounds = st.integers(2, 8).flatmap(
    lambda smallest: st.integers(smallest, 8).flatmap(
        lambda largest: st.tuples(
            st.just(smallest), st.just(largest), st.integers(smallest, largest)
        )
    )
)


@given(count=st.integers(2, 400), rule=bounds)
def test_table_sizes_are_balanced_within_the_bounds_or_refused(count, rule):
    smallest, largest, usual = rule
    if count >= smallest and not can_split(count, smallest, largest):
        with pytest.raises(SeatingError, match=f"{count} players cannot be split"):
            table_sizes(count, smallest, largest, usual)
        return
    sizes = table_sizes(count, smallest, largest, usual)
    assert sum(sizes) == count
    assert max(sizes) - min(sizes) <= 1
    assert sizes == sorted(sizes, reverse=True)
    assert max(sizes) <= largest
    if count >= smallest:
        assert min(sizes) >= smallest
    else:
        assert sizes == [count]


@given(count=st.integers(3, 400))
def test_nvso_bounds_always_split_three_or_more(count):
    sizes = table_sizes(count, *NVSO_BOUNDS)
    assert 3 <= min(sizes) <= max(sizes) <= 5


# -- seat_sizes: any size the set can deal ---------------------------------------------------


def test_double_9_seats_five_players_three_and_two():
    # `000`'s double-9 chart deals 2 to 4: tables of 3 to 4 cannot seat 5, tables of 2 can help
    assert seat_sizes(5, 4, (2, 3, 4)) == [3, 2]
    assert unusual_sizes([3, 2], 4) == [2]


def test_the_usual_sizes_are_kept_when_they_fit():
    for count in range(2, 120):
        assert seat_sizes(count, 4, (2, 3, 4, 5)) == table_sizes(count, *NVSO_BOUNDS)


def test_the_nearest_other_size_comes_first():
    # usual 6 at double-18 dealing 2..8: 7 players sit 4 + 3 only if 5..7 cannot (they can: 7)
    assert seat_sizes(7, 6, range(2, 9)) == [7]
    # usual 4, dealing 2, 3, 4 and 8: nine players at 3 + 3 + 3, not at one 8 and a 1
    assert seat_sizes(9, 4, (2, 3, 4, 8)) == [3, 3, 3]


def test_sizes_that_cannot_be_dealt_are_never_used():
    # a rule set dealing only 2 and 4: 7 players would need a table of 3
    with pytest.raises(SeatingError, match="cannot be seated at balanced tables"):
        seat_sizes(7, 4, (2, 4))


@given(count=st.integers(2, 300), usual=st.integers(2, 8), data=st.data())
def test_seat_sizes_are_balanced_and_dealable_or_refused(count, usual, data):
    dealable = data.draw(st.sets(st.integers(2, 8), min_size=1).map(sorted))
    assume(usual in dealable)
    try:
        sizes = seat_sizes(count, usual, dealable)
    except SeatingError:
        return
    assert sum(sizes) == count and max(sizes) - min(sizes) <= 1
    assert set(sizes) <= set(dealable)


# -- deal -----------------------------------------------------------------------------------------


def names(count: int) -> list[str]:
    return [f"p{i:03d}" for i in range(count)]


def test_deal_seats_every_player_once_at_tables_of_the_sizes():
    players = names(13)
    tables = deal(players, [5, 4, 4], rng=random.Random(1))
    assert [len(t) for t in tables] == [5, 4, 4]
    assert sorted(p for t in tables for p in t) == players


def test_deal_refuses_sizes_that_do_not_add_up():
    with pytest.raises(SeatingError, match="do not add up"):
        deal(names(9), [4, 4])


def test_deal_with_the_same_seed_is_reproducible():
    players = names(23)
    previous = {p: i % 5 for i, p in enumerate(players)}
    sizes = table_sizes(23, *NVSO_BOUNDS)
    first = deal(players, sizes, keep_apart=previous, rng=random.Random(2019))
    again = deal(players, sizes, keep_apart=previous, rng=random.Random(2019))
    assert first == again
    assert deal(players, sizes, rng=random.Random(7)) == deal(players, sizes, rng=random.Random(7))


def test_deal_is_random_across_seeds():
    players = names(20)
    sizes = table_sizes(20, *NVSO_BOUNDS)
    dealt = {tuple(map(tuple, deal(players, sizes, rng=random.Random(s)))) for s in range(10)}
    assert len(dealt) > 1


def test_deal_does_not_change_the_list_it_is_given():
    players = names(8)
    deal(players, [4, 4], rng=random.Random(3))
    assert players == names(8)


def test_two_tables_of_a_previous_stage_are_split_across_the_next():
    # Two previous tables of 4; the four advancers of each must not meet again.
    players = names(8)
    previous = {p: "T1" if i < 4 else "T2" for i, p in enumerate(players)}
    for seed in range(20):
        tables = deal(players, [4, 4], keep_apart=previous, rng=random.Random(seed))
        for table in tables:
            assert Counter(previous[p] for p in table) == {"T1": 2, "T2": 2}


@st.composite
def stages(draw):
    """A count of players, balanced sizes, and previous-table groups no larger than the tables."""
    count = draw(st.integers(2, 120))
    sizes = table_sizes(count, *NVSO_BOUNDS)
    tables = len(sizes)
    players = [f"p{i}" for i in range(count)]
    keep_apart = {}
    group = 0
    i = 0
    while i < count:
        size = draw(st.integers(1, tables))
        for p in players[i : i + size]:
            keep_apart[p] = f"g{group}"
        group += 1
        i += size
    return players, sizes, keep_apart


@given(stages(), st.integers(0, 2**32 - 1))
def test_deal_seats_everyone_once_and_keeps_small_groups_apart(stage, seed):
    players, sizes, keep_apart = stage
    tables = deal(players, sizes, keep_apart=keep_apart, rng=random.Random(seed))
    assert [len(t) for t in tables] == sizes
    seated = [p for t in tables for p in t]
    assert sorted(seated) == sorted(players)
    assert len(set(seated)) == len(players)
    for table in tables:
        groups = [keep_apart[p] for p in table]
        assert len(groups) == len(set(groups)), (table, groups)


@given(
    st.lists(st.integers(0, 6), min_size=1, max_size=12),
    st.integers(0, 2**32 - 1),
)
def test_deal_respects_any_sizes(sizes, seed):
    assume(sum(sizes) > 0)
    players = list(range(sum(sizes)))
    tables = deal(players, sizes, rng=random.Random(seed))
    assert [len(t) for t in tables] == sizes
    assert sorted(p for t in tables for p in t) == players


@given(st.integers(2, 120), st.integers(0, 2**32 - 1))
def test_deal_with_a_seed_is_reproducible_for_any_count(count, seed):
    players = names(count)
    sizes = table_sizes(count, *NVSO_BOUNDS)
    assert deal(players, sizes, rng=random.Random(seed)) == deal(
        players, sizes, rng=random.Random(seed)
    )


# -- a size the chart does not list (issue 45 item 1) --------------------------------------------

SIX_TO_EIGHT = RuleSet(set=9, sets=2, tiles_drawn={6: 15, 7: 13, 8: 12}, table_size=7)


def test_a_size_the_chart_does_not_list_draws_as_the_nearest_larger_size_listed():
    assert [SIX_TO_EIGHT.tiles_for(n) for n in (2, 3, 5, 6, 7, 8)] == [15, 15, 15, 15, 13, 12]
    # Above the chart: as its largest (12), fewer when that leaves nothing to draw (108 / 10).
    assert SIX_TO_EIGHT.tiles_for(9) == 12 and SIX_TO_EIGHT.tiles_for(10) == 10
    assert SIX_TO_EIGHT.tiles_for(1) is None and SIX_TO_EIGHT.tiles_for(13) is None
    assert not SIX_TO_EIGHT.can_deal(5) and SIX_TO_EIGHT.deals(5)


@given(st.integers(2, 12), st.sampled_from([6, 9, 12, 15, 18]), st.sampled_from([1, 2]))
def test_every_table_dealt_leaves_a_tile_to_draw(players, the_set, copies):
    rules = RuleSet(set=the_set, sets=copies, tiles_drawn={4: 1}, table_size=4)
    drawn = rules.tiles_for(players)
    assert drawn is None or 1 <= drawn and drawn * players < rules.tiles_beside_engine


def test_a_size_allowed_for_a_stage_is_dealt_there():
    allowed = SIX_TO_EIGHT.allowing(5)
    assert allowed.can_deal(5) and allowed.tiles_drawn[5] == 15
    assert seat_sizes(11, 7, allowed.dealable_sizes) == [6, 5]
    assert SIX_TO_EIGHT.allowing(None) is SIX_TO_EIGHT and SIX_TO_EIGHT.allowing(7) is SIX_TO_EIGHT


def test_the_size_to_allow_is_one_that_seats_everyone_nearest_the_chart():
    assert size_to_allow(11, SIX_TO_EIGHT) == 5  # 6 + 5
    assert size_to_allow(3, SIX_TO_EIGHT) == 3  # a Final of 3
    assert size_to_allow(12, SIX_TO_EIGHT) is None  # 6 + 6: nothing to allow
    nvso_four_five = RuleSet(tiles_drawn={4: 15, 5: 15}, table_size=5)
    assert size_to_allow(11, nvso_four_five) == 3  # 4 + 4 + 3 (as near as 5 + 6: smaller first)
