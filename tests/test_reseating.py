"""Reseating between the games of a cumulative event (tournament/game/reseating.py): PRODUCT.md
§12 "Reseating between cumulative games". No database."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tournament.game.reseating import (
    by_standing,
    fewest_repeats,
    met_pairs,
    moving_at,
    progressive,
    progressive_balanced,
    repeats,
    seatings,
    standing_order,
)
from tournament.game.seating import SeatingError, seat_sizes, sizes_after_change

DEALABLE = (2, 3, 4, 5)


def random_game(players, sizes, rng):
    """A random seating of ``players`` at ``sizes`` (an earlier game)."""
    order = list(players)
    rng.shuffle(order)
    tables, start = [], 0
    for size in sizes:
        tables.append(order[start : start + size])
        start += size
    return tables


@st.composite
def fields(draw, most=60, earlier=(0, 3)):
    """Players, the next game's balanced sizes, every table of the earlier games, and a seed."""
    n = draw(st.integers(2, most))
    usual = draw(st.sampled_from([3, 4, 5]))
    sizes = seat_sizes(n, usual, DEALABLE)
    rng = random.Random(draw(st.integers(0, 2**32)))
    players = [f"p{i}" for i in range(n)]
    history = []
    for _ in range(draw(st.integers(*earlier))):
        history += random_game(
            players, seat_sizes(n, draw(st.sampled_from([3, 4, 5])), DEALABLE), rng
        )
    return players, sizes, history, rng


def assert_seats_everyone_once(tables, players, sizes):
    assert Counter(p for t in tables for p in t) == Counter(players)
    assert [len(t) for t in tables] == list(sizes)


def every_seating(players, sizes):
    """Every assignment of the players to the numbered tables (the brute force)."""
    if not players:
        yield [[] for _ in sizes]
        return
    first, rest = players[0], players[1:]
    for t, size in enumerate(sizes):
        if size == 0:
            continue
        smaller = list(sizes)
        smaller[t] -= 1
        for tables in every_seating(rest, smaller):
            tables[t] = [first, *tables[t]]
            yield tables


def fewest_possible(players, sizes, met):
    return min(repeats(tables, met) for tables in every_seating(players, sizes))


def swapped(tables, a, i, b, j):
    out = [list(t) for t in tables]
    out[a][i], out[b][j] = out[b][j], out[a][i]
    return out


# -- met pairs and repeats ------------------------------------------------------------------------


def test_met_pairs_are_every_pair_at_every_table_of_earlier_games():
    met = met_pairs([["a", "b", "c"], ["d", "e"], ["a", "d"]])
    assert met == {
        frozenset(p) for p in [("a", "b"), ("a", "c"), ("b", "c"), ("d", "e"), ("a", "d")]
    }


def test_repeats_count_the_pairs_who_already_met():
    met = met_pairs([["a", "b", "c", "d"], ["e", "f", "g", "h"]])
    assert repeats([["a", "e", "b", "f"], ["c", "g", "d", "h"]], met) == 4
    assert repeats([["a", "e", "c", "g"], ["b", "f", "d", "h"]], met) == 4
    assert repeats([["a", "e"], ["b", "f"], ["c", "g"], ["d", "h"]], met) == 0
    assert repeats([["a", "b", "c", "d"], ["e", "f", "g", "h"]], met) == 12


def test_seatings_count_who_sits_with_whom():
    assert seatings([4, 4]) == 35
    assert seatings([3, 3, 3]) == 280
    assert seatings([5, 4]) == 126
    assert seatings([4, 4, 4]) == 5775


# -- fewest repeats -------------------------------------------------------------------------------


@settings(max_examples=60)
@given(fields())
def test_fewest_repeats_seats_every_player_once_at_the_sizes_given(field):
    players, sizes, history, rng = field
    tables = fewest_repeats(players, sizes, met_pairs(history), rng)
    assert_seats_everyone_once(tables, players, sizes)


@settings(max_examples=60)
@given(fields(most=9, earlier=(1, 4)))
def test_fewest_repeats_is_the_true_minimum_on_small_fields(field):
    players, sizes, history, rng = field
    met = met_pairs(history)
    tables = fewest_repeats(players, sizes, met, rng)
    assert_seats_everyone_once(tables, players, sizes)
    assert repeats(tables, met) == fewest_possible(players, sizes, met)


@settings(max_examples=40)
@given(fields(most=16, earlier=(1, 4)))
def test_the_search_leaves_no_swap_that_lowers_the_repeats(field):
    players, sizes, history, rng = field
    met = met_pairs(history)
    tables = fewest_repeats(players, sizes, met, rng, exact_limit=0)
    assert_seats_everyone_once(tables, players, sizes)
    found = repeats(tables, met)
    for a, b in combinations(range(len(tables)), 2):
        for i in range(len(tables[a])):
            for j in range(len(tables[b])):
                assert repeats(swapped(tables, a, i, b, j), met) >= found


@settings(max_examples=80)
@given(
    st.integers(2, 60),
    st.sampled_from([3, 4, 5]),
    st.sampled_from([3, 4, 5]),
    st.randoms(use_true_random=False),
)
def test_game_2_has_no_repeat_when_each_game_1_table_fits_round_the_tables(n, one, two, rng):
    players = list(range(n))
    game_1 = random_game(players, seat_sizes(n, one, DEALABLE), rng)
    sizes = seat_sizes(n, two, DEALABLE)
    assume(max(len(t) for t in game_1) <= len(sizes))
    tables = fewest_repeats(players, sizes, met_pairs(game_1), rng)
    assert_seats_everyone_once(tables, players, sizes)
    assert repeats(tables, met_pairs(game_1)) == 0


def test_game_2_of_120_players_at_30_tables_has_no_repeat_by_the_search():
    rng = random.Random(30)
    players = [f"player {i}" for i in range(120)]
    sizes = [4] * 30
    history = random_game(players, sizes, rng)
    for _ in range(3):
        tables = fewest_repeats(players, sizes, met_pairs(history), rng)
        assert_seats_everyone_once(tables, players, sizes)
        assert repeats(tables, met_pairs(history)) == 0
        history += tables


def test_fewest_repeats_keeps_tablemates_apart_when_it_can_and_repeats_least_when_not():
    players = list("abcdefgh")
    game_1 = [list("abcd"), list("efgh")]
    # Two tables of four: two of each earlier table meet again at each table, at best.
    tables = fewest_repeats(players, [4, 4], met_pairs(game_1), random.Random(1))
    assert repeats(tables, met_pairs(game_1)) == 4
    # Four tables of two: nobody meets again.
    tables = fewest_repeats(players, [2, 2, 2, 2], met_pairs(game_1), random.Random(1))
    assert repeats(tables, met_pairs(game_1)) == 0


@pytest.mark.parametrize("exact_limit", [0, 20_000])
def test_fewest_repeats_is_the_same_for_the_same_rng_and_random_across_draws(exact_limit):
    players = [f"p{i}" for i in range(9)]
    met = met_pairs(random_game(players, [3, 3, 3], random.Random(5)))

    def draw(seed):
        return fewest_repeats(players, [3, 3, 3], met, random.Random(seed), exact_limit=exact_limit)

    assert draw(7) == draw(7)
    assert len({repr(draw(seed)) for seed in range(10)}) > 1


def test_fewest_repeats_refuses_sizes_that_do_not_add_up():
    with pytest.raises(SeatingError, match="do not add up"):
        fewest_repeats(list("abcde"), [4, 4], set(), random.Random(0))


# -- by standing ----------------------------------------------------------------------------------


def test_standing_order_is_cumulative_then_last_game_then_registration():
    cumulative = {"ann": 300, "bob": 250, "cy": 300, "di": 300, "ed": 400}
    last_game = {"ann": 90, "bob": 120, "cy": 80, "di": 90, "ed": 10}
    registration = {"ann": 4, "bob": 5, "cy": 3, "di": 1, "ed": 2}
    order = standing_order(cumulative, cumulative, last_game, registration)
    # bob lowest; cy's last game breaks the tie at 300; di registered before ann.
    assert order == ["bob", "cy", "di", "ann", "ed"]


def test_standing_order_puts_a_player_without_a_last_game_after_those_tied_with_one():
    cumulative = {"ann": 100, "bob": 100}
    order = standing_order(["ann", "bob"], cumulative, {"bob": 200}, {"ann": 1, "bob": 2})
    assert order == ["bob", "ann"]


def test_by_standing_seats_ranks_1_to_4_at_table_1_then_5_to_8():
    order = [f"rank {i}" for i in range(1, 13)]
    tables = by_standing(order, [4, 4, 4])
    assert tables == [order[0:4], order[4:8], order[8:12]]


def test_by_standing_gives_the_larger_tables_first():
    order = list(range(1, 14))
    assert by_standing(order, [4, 4, 5]) == [[1, 2, 3, 4, 5], [6, 7, 8, 9], [10, 11, 12, 13]]


@given(st.integers(2, 60), st.sampled_from([3, 4, 5]), st.randoms(use_true_random=False))
def test_by_standing_keeps_the_order_and_the_sizes_largest_first(n, usual, rng):
    sizes = seat_sizes(n, usual, DEALABLE)
    shuffled = list(sizes)
    rng.shuffle(shuffled)
    order = list(range(n))
    tables = by_standing(order, shuffled)
    assert [p for t in tables for p in t] == order
    assert [len(t) for t in tables] == sorted(sizes, reverse=True)


def test_by_standing_refuses_sizes_that_do_not_add_up():
    with pytest.raises(SeatingError, match="do not add up"):
        by_standing(list(range(7)), [4, 4])


# -- progressive ----------------------------------------------------------------------------------


def test_progressive_moves_the_lowest_up_and_the_highest_down_one_table():
    tables = [["a1", "a2", "a3", "a4"], ["b1", "b2", "b3", "b4"], ["c1", "c2", "c3", "c4"]]
    totals = {
        **{"a1": 40, "a2": 10, "a3": 30, "a4": 20},
        **{"b1": 15, "b2": 35, "b3": 5, "b4": 25},
        **{"c1": 70, "c2": 50, "c3": 90, "c4": 60},
    }
    out = progressive(tables, totals, totals, 1)
    # a2 (table 1's lowest) stays; a1 (its highest) goes down; b3 up, b2 down; c2 up; c3 stays.
    assert out == [
        ["a2", "a3", "a4", "b3"],
        ["b1", "b4", "a1", "c2"],
        ["c1", "c3", "c4", "b2"],
    ]


def test_progressive_moves_two_each_way_when_set():
    tables = [list("ABCDE"), list("FGHIJ"), list("KLMNO")]
    totals = {p: i for i, p in enumerate("EDCBA" + "JIHGF" + "ONMLK")}  # the later seat lower
    out = progressive(tables, totals, totals, 2)
    assert out == [
        ["C", "D", "E", "I", "J"],
        ["H", "A", "B", "N", "O"],
        ["K", "L", "M", "F", "G"],
    ]


def test_a_tie_at_a_moving_place_goes_to_the_lower_cumulative_then_the_earlier_seat_up():
    tables = [["a", "b", "c", "d"], ["e", "f", "g", "h"]]
    game = {"a": 50, "b": 50, "c": 50, "d": 50, "e": 20, "f": 20, "g": 20, "h": 20}
    cumulative = {"a": 100, "b": 100, "c": 90, "d": 80, "e": 120, "f": 100, "g": 100, "h": 130}
    out = progressive(tables, game, cumulative, 1)
    # Up from table 2: f and g tie on the lower cumulative 100: the earlier seat, f.
    # Down from table 1: a and b tie on the higher cumulative 100: the later seat, b.
    assert out == [["a", "c", "d", "f"], ["e", "g", "h", "b"]]


def test_a_tie_in_game_totals_moves_the_higher_cumulative_down():
    tables = [["a", "b", "c"], ["d", "e", "f"]]
    game = dict.fromkeys("abcdef", 30)
    cumulative = {"a": 10, "b": 90, "c": 50, "d": 70, "e": 20, "f": 40}
    assert progressive(tables, game, cumulative, 1) == [["a", "c", "e"], ["d", "f", "b"]]


def test_with_one_table_nobody_moves():
    table = ["a", "b", "c", "d"]
    totals = {"a": 4, "b": 3, "c": 2, "d": 1}
    assert progressive([table], totals, totals, 2) == [table]


@pytest.mark.parametrize(
    ("sizes", "move", "words"),
    [
        ([3, 3], 2, "2 players cannot move up and 2 down at tables of 3 (at most 1)"),
        ([5, 5], 3, "3 players cannot move up and 3 down at tables of 5 (at most 2)"),
        ([4, 4], 0, "At least 1 player moves up and 1 down"),
    ],
)
def test_progressive_refuses_a_move_larger_than_half_a_table_or_below_1(sizes, move, words):
    players = iter(range(100))
    tables = [[next(players) for _ in range(size)] for size in sizes]
    totals = {p: p for t in tables for p in t}
    with pytest.raises(SeatingError) as refused:
        progressive(tables, totals, totals, move)
    assert words in str(refused.value)


@st.composite
def progressive_fields(draw):
    n = draw(st.integers(2, 60))
    sizes = seat_sizes(n, draw(st.sampled_from([3, 4, 5])), DEALABLE)
    rng = random.Random(draw(st.integers(0, 2**32)))
    tables = random_game(list(range(n)), sizes, rng)
    low = draw(st.integers(0, 3))  # few distinct totals: ties at the moving places
    game = {p: draw(st.integers(low, low + 3)) for p in range(n)}
    cumulative = {p: game[p] + draw(st.integers(0, 2)) for p in range(n)}
    move = draw(st.integers(1, max(max(sizes) // 2, 1)))
    return tables, game, cumulative, move


def test_a_smaller_table_moves_half_of_itself_each_way():
    # 2 move at tables of 4 (the usual size); the table of 3 moves 1 each way (PRODUCT.md §12).
    tables = [list("abcd"), list("efgh"), list("ijk")]
    totals = {p: i for i, p in enumerate("abcdefghijk")}
    out = progressive(tables, totals, totals, 2, usual=4)
    # Table 3 sends 1 up and takes 2 from above: it and table 2 trade their sizes.
    assert out == [list("abef"), list("cdi"), list("jkgh")]
    now = {p: i for i, t in enumerate(out) for p in t}
    assert [now[p] for p in "abcd"] == [0, 0, 1, 1]
    assert [now[p] for p in "efgh"] == [0, 0, 2, 2]
    assert [now[p] for p in "ijk"] == [1, 2, 2]
    assert moving_at(2, 3) == 1 and moving_at(3, 5) == 2 and moving_at(1, 2) == 1


@settings(max_examples=150)
@given(progressive_fields())
def test_progressive_moves_exactly_move_each_way_by_the_tie_breaks(field):
    tables, game, cumulative, move = field
    out = progressive(tables, game, cumulative, move)
    moves = [moving_at(move, len(t)) for t in tables]
    last = len(tables) - 1
    sizes = [
        len(t)
        - (moves[i] if i > 0 else 0)
        - (moves[i] if i < last else 0)
        + (moves[i - 1] if i > 0 else 0)
        + (moves[i + 1] if i < last else 0)
        for i, t in enumerate(tables)
    ]
    assert_seats_everyone_once(out, [p for t in tables for p in t], sizes)
    was = {p: (i, seat) for i, t in enumerate(tables) for seat, p in enumerate(t)}
    now = {p: i for i, t in enumerate(out) for p in t}
    last = len(tables) - 1
    for i, table in enumerate(tables):
        up = [p for p in table if now[p] == i - 1]
        down = [p for p in table if now[p] == i + 1]
        assert all(now[p] in (i - 1, i, i + 1) for p in table)
        assert len(up) == (moving_at(move, len(table)) if 0 < i else 0)
        assert len(down) == (moving_at(move, len(table)) if i < last else 0)
        # the lowest (game, cumulative, seat) move up, the highest move down
        key = {p: (game[p], cumulative[p], was[p][1]) for p in table}
        others = [p for p in table if p not in up]
        if up:
            assert max(key[p] for p in up) < min(key[p] for p in others)
        others = [p for p in table if p not in down]
        if down:
            assert min(key[p] for p in down) > max(key[p] for p in others)
        # who stays keeps their order at the front; the arrivals follow, from above first
        staying = [p for p in table if now[p] == i]
        from_above = [p for p in tables[i - 1] if now[p] == i] if i else []
        from_below = [p for p in tables[i + 1] if now[p] == i] if i < last else []
        assert out[i] == staying + from_above + from_below


def test_progressive_balanced_is_progressive_when_nobody_withdrew():
    rng = random.Random(4)
    tables = random_game(list(range(13)), [5, 4, 4], rng)
    totals = {p: rng.randint(0, 200) for p in range(13)}
    assert progressive_balanced(tables, totals, totals, 1, [5, 4, 4]) == progressive(
        tables, totals, totals, 1
    )


def test_progressive_balanced_fills_a_table_a_withdrawal_left_short_from_the_next_one():
    # Game 1 at 4, 4, 4; two players of table 3 withdrew: 10 left, at 4, 3, 3 next.
    tables = [["a", "b", "c", "d"], ["e", "f", "g", "h"], ["i", "j"]]
    totals = {"a": 10, "b": 20, "c": 30, "d": 40, "e": 5, "f": 50, "g": 25, "h": 35}
    totals |= {"i": 1, "j": 60}
    out = progressive_balanced(tables, totals, totals, 1, [4, 3, 3])
    # d down, e up; f down, i up; then table 2 is one over and table 3 one short: table 2's
    # highest who sat there (h, 35) goes down too.
    assert out == [["a", "b", "c", "e"], ["g", "d", "i"], ["j", "f", "h"]]


def test_progressive_balanced_never_sends_the_last_tables_to_the_first():
    # Two players of table 1 withdrew: the players pass up one table at a time.
    tables = [["a", "b"], list("cdef"), list("ghij"), list("klmn")]
    totals = {p: i for i, p in enumerate("abcdefghijklmn")}
    out = progressive_balanced(tables, totals, totals, 1, [4, 4, 3, 3])
    was = {p: i for i, t in enumerate(tables) for p in t}
    now = {p: i for i, t in enumerate(out) for p in t}
    assert all(abs(now[p] - was[p]) <= 1 for p in was)
    # After the moves tables hold 2, 4, 4, 4: the fewest cross when the small tables are on
    # top, and table 2's lowest who sat there (d) fills table 1.
    assert out == [["a", "c", "d"], ["e", "b", "g"], ["h", "i", "f", "k"], ["l", "m", "n", "j"]]


def test_progressive_balanced_moves_fewer_at_a_table_a_withdrawal_left_small():
    # Move 2 at tables of 5; a table left with 3 moves 1 each way (half of 3).
    tables = [["a", "b", "c", "d", "e"], ["f", "g", "h"], ["i", "j", "k", "l", "m"]]
    totals = {p: i for i, p in enumerate("abcdefghijklm")}
    out = progressive_balanced(tables, totals, totals, 2, [5, 4, 4])
    assert_seats_everyone_once(out, list("abcdefghijklm"), [4, 5, 4])
    now = {p: i for i, t in enumerate(out) for p in t}
    assert (now["f"], now["g"], now["h"]) == (0, 1, 2)


def test_progressive_balanced_drops_the_last_table_when_fewer_are_seated():
    tables = [list("abcd"), list("efgh"), ["i"]]
    totals = {p: i for i, p in enumerate("abcdefghi")}
    out = progressive_balanced(tables, totals, totals, 1, [5, 4])
    # i (alone at table 3) goes up with h, who would have gone down
    assert out == [["a", "b", "c", "e"], ["f", "g", "d", "i", "h"]]


def test_progressive_balanced_refuses_a_move_larger_than_half_the_sizes():
    tables = [list("abcd"), list("efgh")]
    totals = {p: i for i, p in enumerate("abcdefgh")}
    with pytest.raises(SeatingError, match="at most 1"):
        progressive_balanced(tables, totals, totals, 2, [3, 3, 2])


@settings(max_examples=100)
@given(progressive_fields(), st.data())
def test_progressive_balanced_seats_everyone_left_at_the_balanced_sizes(field, data):
    tables, game, cumulative, move = field
    players = [p for t in tables for p in t]
    withdrawn = data.draw(st.sets(st.sampled_from(players), max_size=len(players) - 2))
    left = [[p for p in t if p not in withdrawn] for t in tables]
    sizes = sizes_after_change(len(players) - len(withdrawn), len(tables), 4, DEALABLE)
    assume(move <= max(max(sizes) // 2, 1))
    out = progressive_balanced(left, game, cumulative, move, sizes)
    assert Counter(p for t in out for p in t) == Counter(p for t in left for p in t)
    assert sorted(len(t) for t in out) == sorted(sizes)
    if len(withdrawn) <= 1 and len(sizes) == len(tables):
        was = {p: i for i, t in enumerate(left) for p in t}
        now = {p: i for i, t in enumerate(out) for p in t}
        assert all(abs(now[p] - was[p]) <= 1 for p in was)
