"""The rules engine that plays Mexican Train rounds (tournament/game/simulator/), against the rules
texts: NVSO (shared/rules/002) first, Puremco/Parsons 2007 (000) where NVSO is silent."""

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournament.game.rules import RuleSet
from tournament.game.simulator import (
    BLOCKED,
    DOMINO,
    DealError,
    IllegalMove,
    Play,
    Position,
    apply,
    deal,
    hand_pips,
    highest_first,
    keep_train,
    legal_moves,
    legal_plays,
    play_game,
    play_out,
    play_round,
    rounds_in_time,
)
from tournament.game.simulator.moves import DRAW, MARK, Draw, stalled
from tournament.game.simulator.tiles import full_set, normal

NVSO = RuleSet()
M = "mexican"


def plays(table):
    """The legal plays as a set of (tile, train) for easy comparison."""
    return {(p.tile, p.train) for p in legal_plays(table)}


# -- the deal -----------------------------------------------------------------------------------


def test_each_player_draws_the_rule_sets_tiles_and_the_engine_is_set_aside():
    hands, boneyard = deal(NVSO, 12, 4, random.Random(1))
    assert [len(h) for h in hands] == [15, 15, 15, 15] and len(boneyard) == 90 - 60
    dealt = [t for h in hands for t in h] + boneyard
    assert sorted(dealt) == sorted(t for t in full_set(12) if t != (12, 12))


def test_the_chart_by_table_size_is_followed():
    chart = RuleSet(tiles_drawn={2: 16, 6: 12, 8: 9}, table_size=6)
    assert [len(h) for h in deal(chart, 5, 8, random.Random(1))[0]] == [9] * 8
    assert [len(h) for h in deal(chart, 5, 6, random.Random(1))[0]] == [12] * 6


def test_a_size_the_chart_does_not_list_draws_as_the_next_larger_size_listed():
    """A playoff seats exactly the tied players, a withdrawal leaves a table one smaller: the
    chart 6, 7, 8 of two double-9 sets deals a table of 3 as a table of 6, one of 5 too."""
    chart = RuleSet(set=9, sets=2, tiles_drawn={6: 15, 7: 13, 8: 12}, table_size=7)
    assert [len(h) for h in deal(chart, 9, 3, random.Random(1))[0]] == [15] * 3
    assert [len(h) for h in deal(chart, 9, 5, random.Random(1))[0]] == [15] * 5
    assert [len(h) for h in deal(chart, 9, 2, random.Random(1))[0]] == [15] * 2


def test_a_size_above_the_chart_draws_as_its_largest_leaving_a_tile_to_draw():
    # NVSO lists 2 to 5 (15 each): 7 players would need 105 of the 90 tiles beside the engine,
    # so each draws 12 (89 / 7, rounded down), and one tile at least is left.
    hands, pile = deal(NVSO, 12, 7, random.Random(1))
    assert [len(h) for h in hands] == [12] * 7 and len(pile) == 90 - 84


def test_a_table_the_rule_set_cannot_deal_is_refused():
    with pytest.raises(DealError, match="no table of 13 players"):
        deal(NVSO, 12, 13, random.Random(1))
    with pytest.raises(DealError, match="no table of 1 players"):
        deal(NVSO, 12, 1, random.Random(1))
    with pytest.raises(DealError, match="Engine 13"):
        deal(NVSO, 13, 4, random.Random(1))


# -- whole rounds: conservation and legality over many seeds --------------------------------------


def random_choice(rng):
    def choose(table, allowed):
        return rng.choice(list(allowed))

    return choose


def snapshot(table: Position) -> Position:
    return replace(
        table,
        hands=[list(h) for h in table.hands],
        boneyard=list(table.boneyard),
        trains=[replace(t, tiles=list(t.tiles)) for t in table.trains],
        open_doubles=list(table.open_doubles),
    )


def check_transition(before: Position, move, after: Position) -> None:
    """What a move did, checked from the two positions (not from the engine's code)."""
    me = before.player
    if isinstance(move, Play):
        assert move.tile in before.hands[me]
        gone = list(before.hands[me])
        gone.remove(move.tile)
        assert after.hands[me] == gone
        train, was = after.trains[move.train], before.trains[move.train]
        assert train.tiles[:-1] == was.tiles and normal(train.tiles[-1]) == move.tile
        assert train.tiles[-1][0] == was.end, "the tile matches the end it was laid on"
        if train.owner == me:
            assert not train.marked, "the owner's play takes the marker off"
        else:
            assert train.marked == was.marked
        if after.ending is None and move.tile[0] != move.tile[1]:
            assert after.player == (me + 1) % before.players, "a tile that is not a double ends it"
        if move.tile[0] == move.tile[1] and after.ending is None:
            assert after.player == me and after.owes, "after a double the same player goes on"
    elif isinstance(move, Draw):
        assert after.hands[me] == before.hands[me] + [before.boneyard[-1]]
        assert after.boneyard == before.boneyard[:-1] and after.player == me
    else:
        assert after.trains[me].marked and after.hands == before.hands
        assert after.ending == BLOCKED or after.player == (me + 1) % before.players
    others = [i for i in range(before.players) if i != me]
    assert all(after.hands[i] == before.hands[i] for i in others)


def check_position(table: Position, highest: int) -> None:
    assert table.conservation_errors(highest) == []
    for train in table.trains:
        end = table.engine
        for laid in train.tiles:
            assert laid[0] == end
            end = laid[1]
        assert train.end == end
        assert not (train.mexican and train.marked)
    ending_in_double = {i for i, t in enumerate(table.trains) if t.ends_in_double}
    assert set(table.open_doubles) == ending_in_double
    assert len(table.open_doubles) == len(ending_in_double)


def play_checked(rules, engine, players, seed, choose):
    """A round played move by move; each move is one the rules allow and does what it says."""
    rng = random.Random(seed)
    hands, boneyard = deal(rules, engine, players, rng)
    table = Position.start(engine, hands, boneyard, starter=seed % players)
    check_position(table, rules.set)
    moves = 0
    while not table.ending:
        allowed = legal_moves(table)
        assert allowed, "a round in play always leaves the player a move"
        move = choose(table, allowed) if isinstance(allowed[0], Play) else allowed[0]
        assert move in allowed
        before = snapshot(table)
        apply(table, move)
        check_transition(before, move, table)
        check_position(table, rules.set)
        moves += 1
        assert moves < 2000
    if table.ending == DOMINO:
        assert [len(h) for h in table.hands].count(0) == 1
    else:
        assert stalled(table) and all(table.hands)
    return table


RULE_SETS = [
    (NVSO, 4),
    (RuleSet(tiles_drawn={2: 16, 3: 16, 4: 15, 5: 14, 6: 12, 7: 10, 8: 9}, table_size=8), 8),
    (RuleSet(tiles_drawn={3: 15}, table_size=3, double_blank_points=50), 3),
    (RuleSet(set=9, engines=tuple(range(9, -1, -1)), tiles_drawn={4: 10}), 4),
    (RuleSet(set=6, engines=tuple(range(6, -1, -1)), tiles_drawn={2: 5}, table_size=2), 2),
]


@settings(max_examples=60, deadline=None)
@given(
    which=st.sampled_from(range(len(RULE_SETS))),
    seed=st.integers(0, 10**9),
    engine_at=st.integers(0, 18),
    chooser=st.sampled_from(["random", "keep_train", "highest_first"]),
)
def test_every_move_is_legal_and_every_tile_is_in_one_place_after_every_move(
    which, seed, engine_at, chooser
):
    rules, players = RULE_SETS[which]
    engine = rules.engines[engine_at % len(rules.engines)]
    choose = {
        "random": random_choice(random.Random(seed)),
        "keep_train": keep_train,
        "highest_first": highest_first,
    }[chooser]
    play_checked(rules, engine, players, seed, choose)


def test_rounds_end_both_ways_over_many_seeds():
    endings = set()
    for seed in range(40):
        endings.add(
            play_checked(NVSO, 12 - seed % 13, 4, seed, random_choice(random.Random(seed))).ending
        )
    assert endings == {DOMINO, BLOCKED}


# -- constructed positions: the rules of play, one by one -----------------------------------------
# Double-12, engine 12-12, four seats (trains 0-3) and the Mexican train (index 4), unless said.


def test_the_eligible_trains_are_ones_own_the_mexican_and_the_marked_ones():
    table = Position.build(
        12,
        [[(1, 7), (1, 9), (3, 12)], [], [], []],
        trains={1: [(7, 12)], 2: [(9, 12)]},
        marked=(1,),
    )
    # Seat 1's train is marked: open to all. Seat 2's is not: only its owner plays there.
    assert plays(table) == {((1, 7), 1), ((3, 12), 0), ((3, 12), 4)}


def test_anyone_may_start_the_mexican_train_or_a_marked_train_not_yet_started():
    table = Position.build(12, [[(5, 12)], [], [], []], marked=(1,))
    assert plays(table) == {((5, 12), 0), ((5, 12), 1), ((5, 12), 4)}


def test_with_a_playable_tile_the_player_must_play_and_may_not_draw():
    table = Position.build(12, [[(4, 12), (1, 2)], [], [], []], boneyard=[(3, 5)])
    assert DRAW not in legal_moves(table) and MARK not in legal_moves(table)
    with pytest.raises(IllegalMove):
        apply(table, DRAW)


def test_without_one_the_player_draws_once_then_marks_and_the_turn_passes():
    table = Position.build(12, [[(1, 2)], [(3, 4)], [], []], boneyard=[(5, 6), (7, 8)])
    assert legal_moves(table) == [DRAW]
    apply(table, DRAW)
    assert table.hands[0] == [(1, 2), (7, 8)]
    assert legal_moves(table) == [MARK], "one draw only"
    with pytest.raises(IllegalMove):
        apply(table, DRAW)
    apply(table, MARK)
    assert table.trains[0].marked and table.player == 1


def test_a_drawn_tile_that_fits_must_be_played():
    table = Position.build(12, [[(1, 2)], [], [], []], boneyard=[(5, 6), (0, 12)])
    apply(table, DRAW)
    assert legal_moves(table) == [Play((0, 12), 0), Play((0, 12), 4)]


def test_with_the_boneyard_empty_a_player_who_cannot_play_passes_and_marks():
    table = Position.build(12, [[(1, 2)], [(3, 4)], [], []], boneyard=[])
    assert legal_moves(table) == [MARK]
    apply(table, MARK)
    assert table.trains[0].marked and table.player == 1 and table.hands[0] == [(1, 2)]


def test_a_marker_stays_when_another_plays_on_the_train_and_goes_when_its_owner_does():
    table = Position.build(
        12, [[(1, 7), (0, 5)], [(1, 3), (6, 6)], [], []], trains={1: [(7, 12)]}, marked=(1,)
    )
    apply(table, Play((1, 7), 1))
    assert table.trains[1].marked and table.player == 1
    apply(table, Play((1, 3), 1))
    assert not table.trains[1].marked


def test_a_double_must_be_satisfied_before_any_other_train_is_played():
    # Seat 1's train ends in an open 6-6 (not marked): seat 0 may only satisfy it.
    table = Position.build(12, [[(2, 6), (3, 12)], [(1, 1)], [], []], trains={1: [(6, 12), (6, 6)]})
    assert plays(table) == {((2, 6), 1)}
    apply(table, Play((2, 6), 1))
    assert table.open_doubles == [] and table.player == 1
    assert plays(table) == set(), "seat 1 holds nothing that fits once the double is closed"


def test_a_player_who_cannot_satisfy_the_double_draws_once_then_marks_and_the_next_must_try():
    table = Position.build(
        12,
        [[(3, 12)], [(9, 12)], [(2, 6)], []],
        trains={1: [(6, 12), (6, 6)]},
        boneyard=[(0, 1), (4, 5)],
    )
    assert legal_moves(table) == [DRAW], "the 3-12 may not start a train while the 6-6 is open"
    apply(table, DRAW)
    assert legal_moves(table) == [MARK]
    apply(table, MARK)
    assert table.trains[0].marked and table.player == 1
    apply(table, DRAW)
    apply(table, MARK)
    assert plays(table) == {((2, 6), 1)}, "seat 2 satisfies the double on seat 1's train"


def test_the_tile_drawn_to_satisfy_a_double_is_played_on_it():
    table = Position.build(
        12, [[(3, 12)], [], [], []], trains={1: [(6, 12), (6, 6)]}, boneyard=[(1, 6)]
    )
    apply(table, DRAW)
    assert legal_moves(table) == [Play((1, 6), 1)]


def test_who_plays_a_double_closes_it_with_a_tile_that_is_not_a_double():
    table = Position.build(
        12, [[(5, 5), (1, 5), (2, 8)], [], [], []], trains={0: [(5, 12)], M: [(8, 12)]}
    )
    apply(table, Play((5, 5), 0))
    assert table.player == 0 and table.owes and table.open_doubles == [0]
    # NVSO: "an additional tile that is not a double, therefore closing the double".
    assert plays(table) == {((1, 5), 0)}
    apply(table, Play((1, 5), 0))
    assert table.open_doubles == [] and table.player == 1


def test_several_doubles_in_one_turn_are_closed_in_the_order_they_were_played():
    table = Position.build(
        12,
        [[(5, 5), (8, 8), (1, 5), (2, 8), (3, 4)], [(3, 8), (9, 12)], [], []],
        trains={0: [(5, 12)], M: [(8, 12)]},
    )
    assert plays(table) == {((5, 5), 0), ((1, 5), 0), ((8, 8), 4), ((2, 8), 4)}
    apply(table, Play((5, 5), 0))
    # Another double may follow on an eligible train; the closing tile goes on the 5-5 only.
    assert plays(table) == {((8, 8), 4), ((1, 5), 0)}
    apply(table, Play((8, 8), 4))
    assert table.open_doubles == [0, 4]
    assert plays(table) == {((1, 5), 0)}, "not the 2-8 on the 8-8: the 5-5 came first"
    apply(table, Play((1, 5), 0))
    assert table.open_doubles == [4] and table.player == 1
    assert plays(table) == {((3, 8), 4)}, "the next player satisfies the 8-8 left open"


def test_doubles_left_open_are_satisfied_one_a_turn_in_order():
    table = Position.build(
        12,
        [[(5, 5), (8, 8), (9, 10)], [(3, 5), (3, 8)], [(4, 8), (4, 5)], []],
        trains={0: [(5, 12)], M: [(8, 12)]},
        boneyard=[(10, 11)],
    )
    apply(table, Play((5, 5), 0))
    apply(table, Play((8, 8), 4))
    assert legal_moves(table) == [DRAW]
    apply(table, DRAW)
    apply(table, MARK)
    assert table.open_doubles == [0, 4] and table.trains[0].marked
    assert plays(table) == {((3, 5), 0)}, "seat 1 must close the 5-5 first, not the 8-8"
    apply(table, Play((3, 5), 0))
    assert table.trains[0].marked, "seat 1's play on seat 0's train leaves its marker"
    assert plays(table) == {((4, 8), 4)}, "then seat 2 the 8-8"


def test_a_drawn_double_is_played_and_the_player_draws_again():
    table = Position.build(
        12,
        [[(5, 5), (9, 10)], [(3, 5), (3, 8)], [], []],
        trains={0: [(5, 12)], M: [(8, 12)]},
        boneyard=[(1, 2), (8, 8)],
    )
    apply(table, Play((5, 5), 0))
    assert legal_moves(table) == [DRAW]
    apply(table, DRAW)
    assert legal_moves(table) == [Play((8, 8), 4)]
    apply(table, Play((8, 8), 4))
    assert legal_moves(table) == [DRAW], "a double played: draw again for the closing tile"
    apply(table, DRAW)
    assert legal_moves(table) == [MARK]


def double_six_with_the_two_two_dead(**build):
    """Double-6, engine 6-6: seat 1's train ends in 2-2 and every other 2 is on the table."""
    trains = {
        0: [(5, 6), (2, 5), (0, 2)],
        1: [(2, 6), (2, 2)],
        2: [(3, 6), (2, 3)],
        M: [(4, 6), (2, 4), (1, 2)],
        **build.pop("trains", {}),
    }
    return Position.build(6, [[(0, 1), (3, 4)], [], [], []], trains=trains, highest=6, **build)


def test_a_double_that_can_no_longer_be_satisfied_stops_restricting_play():
    table = double_six_with_the_two_two_dead()
    assert table.open_doubles == [1] and table.live_doubles() == []
    assert plays(table) == {((0, 1), 0), ((0, 1), 4)}


def test_another_open_double_still_restricts_when_the_first_is_dead():
    table = double_six_with_the_two_two_dead(trains={3: [(1, 6), (1, 1)]}, open_doubles=[1, 3])
    assert table.live_doubles() == [3]
    assert plays(table) == {((0, 1), 3)}


def test_a_double_as_the_last_tile_dominoes():
    table = Position.build(
        12, [[(5, 5)], [(2, 3)], [(0, 0), (6, 6)], [(4, 4)]], trains={0: [(5, 12)]}
    )
    result = play_out(table, [keep_train] * 4)
    assert (result.ending, result.winner, result.pips) == (DOMINO, 0, (0, 5, 12, 8))


def test_a_round_nobody_can_play_with_the_boneyard_empty_is_blocked():
    table = Position.build(12, [[(1, 2)], [(3, 4)], [(5, 6)], [(7, 8)]], boneyard=[])
    result = play_out(table, [keep_train] * 4)
    assert (result.ending, result.winner, result.pips) == (BLOCKED, None, (3, 7, 11, 15))
    assert all(t.marked for t in table.trains[:4]) and result.turns == 8


# -- scores -------------------------------------------------------------------------------------


@pytest.mark.parametrize("points, expected", [(0, (0, 5, 6, 8)), (50, (0, 55, 6, 8))])
def test_round_scores_are_the_pips_left_the_double_blank_as_the_rule_set_says(points, expected):
    table = Position.build(12, [[(3, 12)], [(0, 0), (2, 3)], [(1, 5)], [(4, 4)]])
    assert play_out(table, [keep_train] * 4, double_blank_points=points).pips == expected


@pytest.mark.parametrize("points", [0, 50])
def test_a_played_round_scores_each_hand_left(points):
    rules = RuleSet(double_blank_points=points)
    for seed in range(12):
        hands, boneyard = deal(rules, 11, 4, random.Random(seed))
        table = Position.start(11, hands, boneyard)
        result = play_out(table, [keep_train] * 4, double_blank_points=points)
        counted = [
            sum(points if t == (0, 0) and points else t[0] + t[1] for t in h) for h in table.hands
        ]
        assert list(result.pips) == counted == [hand_pips(h, points) for h in table.hands]
        if result.ending == DOMINO:
            assert result.pips[result.winner] == 0 and not table.hands[result.winner]


# -- seeds and games ----------------------------------------------------------------------------


def test_a_seeded_round_is_reproducible():
    def moves(seed):
        log = []
        result = play_round(NVSO, 12, 4, random.Random(seed), watch=lambda t, m: log.append(m))
        return result, log

    assert moves(42) == moves(42)
    assert moves(42) != moves(43)


def test_a_game_plays_the_engines_in_order_and_rotates_the_starter():
    rng = random.Random(3)
    expected = [play_round(NVSO, e, 4, rng, starter=i % 4) for i, e in enumerate(NVSO.engines)]
    game = play_game(NVSO, 4, random.Random(3))
    assert game == expected and [r.engine for r in game] == list(range(12, -1, -1))
    assert play_game(NVSO, 4, random.Random(3), rounds=2, first=1) == play_game(
        NVSO, 4, random.Random(3), rounds=2, first=1
    )


def test_the_strategies_differ_and_each_plays_whole_rounds():
    rounds = [
        play_round(NVSO, 12, 4, random.Random(s), strategies=[strategy] * 4)
        for strategy in (keep_train, highest_first)
        for s in range(5)
    ]
    assert rounds[:5] != rounds[5:]


# -- time ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "minutes, limit, finish, void",
    [
        ([10] * 13, None, 13, 13),  # untimed: every engine
        ([15, 15, 15, 20, 10], 60, 4, 3),  # the fourth round is in progress at 60
        ([10] * 13, 60, 6, 6),  # six rounds end on the hour: none in progress, none starts
        ([70], 60, 1, 0),
        ([5] * 13, 60, 12, 12),
        ([4] * 13, 60, 13, 13),  # all done before time
    ],
)
def test_rounds_in_time_finish_or_void_the_round_in_progress(minutes, limit, finish, void):
    assert rounds_in_time(minutes, limit, "finish") == finish
    assert rounds_in_time(minutes, limit, "void") == void
