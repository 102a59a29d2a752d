"""The format's plain rules (issue 30 item 6, tournament/game/formats.py): what cannot be
played, the cut to a cumulative event's Final with its ties, the totals the medals come from,
and cumulative totals as sums. No database: milliseconds each."""

from hypothesis import given
from hypothesis import strategies as st

from tournament.game import formats
from tournament.game.formats import Format
from tournament.game.rules import RuleSet

NVSO = RuleSet(engines=(1, 0))
CHART = RuleSet(tiles_drawn={2: 16, 3: 16, 4: 15, 5: 14, 6: 12, 7: 10, 8: 9})


def said(problems) -> list[str]:
    return [str(p) for p in problems]


def test_a_knockout_has_nothing_more_to_check():
    assert Format().problems(NVSO, players=3) == []


def test_a_progressive_move_larger_than_half_the_usual_table_is_refused():
    # k is checked against the usual table size (4), not the smallest the rules allow (3).
    assert Format(kind=formats.CUMULATIVE, reseat=formats.PROGRESSIVE, move=2).problems(NVSO) == []
    fmt = Format(kind=formats.CUMULATIVE, reseat=formats.PROGRESSIVE, move=3)
    (problem,) = said(fmt.problems(NVSO))
    assert problem.startswith("At most half a table moves each way: 3 players")
    assert "tables of 4 (at most 2)" in problem
    assert fmt.problems(RuleSet(table_size=6, tiles_drawn={5: 14, 6: 12, 7: 10})) == []


def test_a_final_larger_than_the_field_or_than_a_table_can_deal_is_refused():
    fmt = Format(kind=formats.CUMULATIVE_FINAL, final_size=8)
    assert said(fmt.problems(NVSO)) == [
        "A Final of 8 cannot be dealt at one table under these rules (tables of 2, 3, 4, 5)."
    ]
    assert fmt.problems(CHART, players=12) == []
    assert said(fmt.problems(CHART, players=7)) == [
        "A Final of 8 is larger than the field of 7 players."
    ]


def test_games_out_of_range_are_refused():
    assert said(Format(kind=formats.CUMULATIVE, games=0).problems(NVSO)) == [
        "Everyone plays 1 to 12 games, not 0."
    ]


def test_the_final_is_a_tables_worth_unless_set():
    assert Format(kind=formats.CUMULATIVE_FINAL).final_players(NVSO) == 4
    assert Format(kind=formats.CUMULATIVE_FINAL, final_size=6).final_players(CHART) == 6


def test_all_tied_at_the_cut_go_on_while_one_table_can_deal_them():
    totals = {"a": 1, "b": 2, "c": 3, "d": 4, "e": 4, "f": 9}
    assert formats.final_cut(totals, 4, NVSO).advancing == ("a", "b", "c", "d", "e")


def test_a_tie_at_the_cut_too_large_for_one_table_goes_to_a_playoff():
    totals = {"a": 1, "b": 2, "c": 3, "d": 4, "e": 4, "f": 4, "g": 9}
    cut = formats.final_cut(totals, 4, NVSO)  # six would go on: no double-12 table of six
    assert cut.advancing == ("a", "b", "c")
    assert cut.owed.players == ("d", "e", "f") and cut.owed.at_stake == ("advance",)
    settled = formats.final_cut(totals, 4, NVSO, [{"d": 9, "e": 0, "f": 7}])
    assert settled.advancing == ("a", "b", "c", "e") and settled.owed is None


def test_the_medals_come_from_the_totals_the_format_says():
    cumulative = {"a": 100, "b": 90, "c": 120}
    final = {"a": 10, "b": 40}
    assert formats.medal_totals(Format(kind=formats.CUMULATIVE), cumulative) == cumulative
    from_final = Format(kind=formats.CUMULATIVE_FINAL)
    assert formats.medal_totals(from_final, cumulative, final) == final
    both = Format(kind=formats.CUMULATIVE_FINAL, medals_from=formats.CUMULATIVE_PLUS_FINAL)
    assert formats.medal_totals(both, cumulative, final) == {"a": 110, "b": 130}


games = st.lists(
    st.dictionaries(st.sampled_from("abcdefgh"), st.integers(0, 400), max_size=8), max_size=5
)


@given(games)
def test_a_cumulative_total_is_the_sum_of_the_games_played(played):
    totals = formats.cumulative_totals(played)
    for player in {p for game in played for p in game}:
        assert totals[player] == sum(game.get(player, 0) for game in played)
    assert set(totals) == {p for game in played for p in game}
