"""Places, advancement and medals with their ties and playoffs (tournament/game/awards.py):
PRODUCT.md §6 and §7."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournament.game.awards import (
    PLAYOFF_PENDING,
    Advancement,
    MedalAward,
    MedalResult,
    OwedPlayoff,
    PlayoffMismatch,
    medal_places,
    medals,
    table_advancers,
)
from tournament.game.rules import places


def holders(result: MedalResult) -> dict[str, tuple]:
    return {award.medal: award.players for award in result.medals}


def none_of(medal: str) -> MedalAward:
    return MedalAward(medal, none=True)


# Places.


def test_places_are_a_competition_ranking_by_lowest_total():
    assert places({"a": 12, "b": 10, "c": 10, "d": 30}) == {"b": 1, "c": 1, "a": 3, "d": 4}


# §6 Advancement.


def test_table_winner_is_the_lowest_total():
    assert table_advancers({"a": 80, "b": 41, "c": 95}) == Advancement(("b",))


def test_tie_at_the_top_advances_all_tied_players_by_default():
    assert table_advancers({"a": 41, "b": 41, "c": 95}) == Advancement(("a", "b"))


def test_tie_at_the_top_goes_to_a_one_round_playoff_when_set():
    advancement = table_advancers({"a": 41, "b": 41, "c": 95}, "playoff")
    assert advancement == Advancement((), OwedPlayoff(("a", "b"), ("advance",)))
    assert advancement.owed is not None and advancement.owed.decides == "advance"


def test_advancement_playoff_winner_advances():
    advancement = table_advancers({"a": 41, "b": 41, "c": 95}, "playoff", [{"a": 9, "b": 3}])
    assert advancement == Advancement(("b",))


def test_advancement_playoff_tied_is_played_again_among_those_tied_for_lowest():
    totals = {"a": 41, "b": 41, "c": 41, "d": 95}
    advancement = table_advancers(totals, "playoff", [{"a": 5, "b": 5, "c": 20}])
    assert advancement == Advancement((), OwedPlayoff(("a", "b"), ("advance",), round_number=2))
    advancement = table_advancers(totals, "playoff", [{"a": 5, "b": 5, "c": 20}, {"a": 0, "b": 7}])
    assert advancement == Advancement(("a",))


def test_no_playoff_at_a_table_without_a_tie_at_the_top():
    assert table_advancers({"a": 41, "b": 50, "c": 50}, "playoff") == Advancement(("a",))


def test_empty_table_advances_nobody():
    assert table_advancers({}, "playoff") == Advancement(())


# §7 Medals, default NVSO rule.


def test_lowest_total_gold_next_silver_third_bronze():
    result = medals({"a": 150, "b": 90, "c": 120, "d": 200})
    assert holders(result) == {"gold": ("b",), "silver": ("c",), "bronze": ("a",)}
    assert result.owed == ()


def test_tie_for_gold_gives_no_silver():
    result = medals({"a": 90, "b": 90, "c": 120, "d": 150})
    assert result.award("gold") == MedalAward("gold", players=("a", "b"))
    assert result.award("silver") == none_of("silver")


def test_tie_for_gold_next_two_play_off_for_bronze():
    result = medals({"a": 90, "b": 90, "c": 120, "d": 150, "e": 170})
    assert result.award("bronze") == MedalAward("bronze", pending=True, between=("c", "d"))
    assert result.owed == (OwedPlayoff(("c", "d"), ("bronze",)),)
    result = medals({"a": 90, "b": 90, "c": 120, "d": 150}, playoffs={"bronze": [{"c": 9, "d": 2}]})
    assert holders(result) == {"gold": ("a", "b"), "silver": (), "bronze": ("d",)}


def test_tie_for_gold_bronze_playoff_takes_anyone_tied_with_the_second_of_the_next_two():
    result = medals({"a": 90, "b": 90, "c": 120, "d": 150, "e": 150, "f": 170})
    assert result.owed == (OwedPlayoff(("c", "d", "e"), ("bronze",)),)
    result = medals({"a": 90, "b": 90, "c": 120, "d": 120, "e": 120, "f": 170})
    assert result.owed == (OwedPlayoff(("c", "d", "e"), ("bronze",)),)


def test_tie_for_gold_with_one_player_left_gives_that_player_bronze():
    result = medals({"a": 90, "b": 90, "c": 120})
    assert holders(result) == {"gold": ("a", "b"), "silver": (), "bronze": ("c",)}
    assert result.owed == ()


def test_tie_for_gold_with_nobody_left_gives_no_bronze():
    result = medals({"a": 90, "b": 90})
    assert result.medals == (
        MedalAward("gold", players=("a", "b")),
        none_of("silver"),
        none_of("bronze"),
    )


def test_three_tied_for_gold_gives_no_silver_and_no_bronze():
    result = medals({"a": 90, "b": 90, "c": 90, "d": 120, "e": 150})
    assert result.medals == (
        MedalAward("gold", players=("a", "b", "c")),
        none_of("silver"),
        none_of("bronze"),
    )
    assert result.owed == ()


def test_tie_for_second_is_a_playoff_winner_silver_next_bronze():
    totals = {"a": 90, "b": 120, "c": 120, "d": 150}
    result = medals(totals)
    assert result.medals == (
        MedalAward("gold", players=("a",)),
        MedalAward("silver", pending=True, between=("b", "c")),
        MedalAward("bronze", pending=True, between=("b", "c")),
    )
    assert result.owed == (OwedPlayoff(("b", "c"), ("silver", "bronze")),)
    assert result.owed[0].decides == "silver"
    result = medals(totals, playoffs={"silver": [{"b": 14, "c": 6}]})
    assert holders(result) == {"gold": ("a",), "silver": ("c",), "bronze": ("b",)}


def test_tie_for_second_among_three_leaves_the_last_in_the_playoff_without_a_medal():
    totals = {"a": 90, "b": 120, "c": 120, "d": 120}
    result = medals(totals, playoffs={"silver": [{"b": 14, "c": 6, "d": 30}]})
    assert holders(result) == {"gold": ("a",), "silver": ("c",), "bronze": ("b",)}


def test_tie_for_third_is_a_playoff_for_bronze():
    totals = {"a": 90, "b": 100, "c": 120, "d": 120, "e": 120}
    result = medals(totals)
    assert holders(result) == {"gold": ("a",), "silver": ("b",), "bronze": ()}
    assert result.owed == (OwedPlayoff(("c", "d", "e"), ("bronze",)),)
    result = medals(totals, playoffs={"bronze": [{"c": 8, "d": 3, "e": 11}]})
    assert holders(result)["bronze"] == ("d",)


def test_tied_playoff_is_played_again():
    totals = {"a": 90, "b": 100, "c": 120, "d": 120, "e": 120}
    first = {"c": 3, "d": 3, "e": 11}
    result = medals(totals, playoffs={"bronze": [first]})
    assert result.award("bronze") == MedalAward("bronze", pending=True, between=("c", "d"))
    assert result.owed == (OwedPlayoff(("c", "d"), ("bronze",), round_number=2),)
    result = medals(totals, playoffs={"bronze": [first, {"c": 0, "d": 5}]})
    assert holders(result)["bronze"] == ("c",)


def test_tie_below_the_winner_of_a_playoff_for_silver_is_played_again_for_bronze():
    totals = {"a": 90, "b": 120, "c": 120, "d": 120}
    first = {"b": 2, "c": 9, "d": 9}
    result = medals(totals, playoffs={"silver": [first]})
    assert result.award("silver") == MedalAward("silver", players=("b",))
    assert result.owed == (OwedPlayoff(("c", "d"), ("bronze",)),)
    result = medals(totals, playoffs={"silver": [first], "bronze": [{"c": 4, "d": 1}]})
    assert holders(result) == {"gold": ("a",), "silver": ("b",), "bronze": ("d",)}


def test_playoff_pending_until_scored():
    result = medals({"a": 90, "b": 120, "c": 120})
    assert result.award("silver").players == ()
    assert result.award("silver").pending
    assert medal_places(result) == {"a": 1, "b": PLAYOFF_PENDING, "c": PLAYOFF_PENDING}
    result = medals({"a": 90, "b": 120, "c": 120}, playoffs={"silver": [{"b": 5, "c": 0}]})
    assert medal_places(result) == {"a": 1, "c": 2, "b": 3}


def test_fewer_than_three_finishers_leave_the_other_medals_unawarded():
    result = medals({"a": 90, "b": 120})
    assert result.medals == (
        MedalAward("gold", players=("a",)),
        MedalAward("silver", players=("b",)),
        none_of("bronze"),
    )
    assert medals({}).medals == (none_of("gold"), none_of("silver"), none_of("bronze"))


def test_medals_read_as_the_event_file_lists_them():
    result = medals({"p1": 90, "p2": 90, "p7": 120, "p9": 150, "p12": 150})
    assert [award.as_dict() for award in result.medals] == [
        {"medal": "gold", "players": ["p1", "p2"]},
        {"medal": "silver", "players": [], "none": True},
        {"medal": "bronze", "players": [], "pending": "playoff", "between": ["p12", "p7", "p9"]},
    ]


# §7 the other tie rules.


def test_shared_rule_ties_share_and_the_next_place_is_skipped():
    result = medals({"a": 90, "b": 90, "c": 120, "d": 120, "e": 150}, "shared")
    assert result.medals == (
        MedalAward("gold", players=("a", "b")),
        none_of("silver"),
        MedalAward("bronze", players=("c", "d")),
    )
    assert result.owed == ()


def test_shared_rule_tie_for_second_gives_no_bronze():
    result = medals({"a": 90, "b": 120, "c": 120, "d": 150}, "shared")
    assert holders(result) == {"gold": ("a",), "silver": ("b", "c"), "bronze": ()}
    assert result.award("bronze").none


def test_shared_rule_three_tied_for_gold_take_gold_only():
    result = medals({"a": 90, "b": 90, "c": 90, "d": 150}, "shared")
    assert holders(result) == {"gold": ("a", "b", "c"), "silver": (), "bronze": ()}


def test_playoff_rule_tie_for_gold_is_a_playoff_for_gold_and_silver():
    totals = {"a": 90, "b": 90, "c": 120, "d": 150}
    result = medals(totals, "playoff")
    assert result.owed == (OwedPlayoff(("a", "b"), ("gold", "silver")),)
    assert result.award("bronze") == MedalAward("bronze", players=("c",))
    result = medals(totals, "playoff", {"gold": [{"a": 7, "b": 4}]})
    assert holders(result) == {"gold": ("b",), "silver": ("a",), "bronze": ("c",)}


def test_playoff_rule_four_tied_for_gold_settles_every_medal_by_playoff():
    totals = {"a": 90, "b": 90, "c": 90, "d": 90, "e": 150}
    first = {"a": 2, "b": 2, "c": 8, "d": 8}
    result = medals(totals, "playoff", {"gold": [first]})
    assert result.owed == (
        OwedPlayoff(("a", "b"), ("gold", "silver"), round_number=2),
        OwedPlayoff(("c", "d"), ("bronze",)),
    )
    playoffs = {"gold": [first, {"a": 1, "b": 0}], "bronze": [{"c": 6, "d": 5}]}
    result = medals(totals, "playoff", playoffs)
    assert holders(result) == {"gold": ("b",), "silver": ("a",), "bronze": ("d",)}


def test_playoff_rule_tie_for_third_is_a_playoff_for_bronze():
    result = medals({"a": 90, "b": 100, "c": 120, "d": 120}, "playoff")
    assert result.owed == (OwedPlayoff(("c", "d"), ("bronze",)),)


# Refusals.


def test_unknown_tie_rule_is_refused():
    with pytest.raises(ValueError, match="unknown tie rule 'coin'"):
        medals({"a": 1}, "coin")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown tie rule"):
        table_advancers({"a": 1}, "nvso")  # type: ignore[arg-type]


def test_playoff_played_by_other_players_than_the_tied_is_refused():
    with pytest.raises(PlayoffMismatch, match="owed between") as raised:
        medals({"a": 90, "b": 120, "c": 120, "d": 150}, playoffs={"silver": [{"b": 1, "d": 2}]})
    assert (raised.value.decides, raised.value.round_number) == ("silver", 1)


def test_playoff_that_no_tie_calls_for_is_refused():
    with pytest.raises(PlayoffMismatch, match="no such playoff is owed"):
        medals({"a": 90, "b": 120, "c": 150}, playoffs={"silver": [{"b": 1, "c": 2}]})
    with pytest.raises(PlayoffMismatch, match="round 2: no such playoff is owed"):
        medals({"a": 90, "b": 120, "c": 120}, playoffs={"silver": [{"b": 1, "c": 2}, {"b": 1}]})
    with pytest.raises(PlayoffMismatch):
        table_advancers({"a": 1, "b": 1}, "all_advance", [{"a": 1, "b": 2}])


# Properties.

TIE_RULES = ("nvso", "shared", "playoff")
player_totals = st.dictionaries(
    st.sampled_from([f"p{n}" for n in range(1, 9)]), st.integers(0, 12), max_size=8
)


def play_owed(data, playoffs: dict[str, list[dict]], owed) -> OwedPlayoff:
    """Score one owed playoff, picked by hypothesis; returns the playoff played."""
    playoff = data.draw(st.sampled_from(owed))
    pips = {player: data.draw(st.integers(0, 3)) for player in playoff.players}
    playoffs.setdefault(playoff.decides, []).append(pips)
    return playoff


@given(player_totals, st.sampled_from(TIE_RULES), st.data())
def test_a_medal_never_goes_to_more_players_than_the_tie_rule_allows(totals, rule, data):
    playoffs: dict[str, list[dict]] = {}
    result = medals(totals, rule)
    for _ in range(6):
        for award in result.medals:
            assert sum([bool(award.players), award.pending, award.none]) == 1
            shared = award.medal == "gold" and rule == "nvso"
            if len(award.players) > 1:
                assert shared or rule == "shared"
                assert len({totals[player] for player in award.players}) == 1
        if not result.owed:
            break
        play_owed(data, playoffs, result.owed)
        result = medals(totals, rule, playoffs)


@given(player_totals, st.sampled_from(TIE_RULES), st.data())
def test_a_playoff_result_never_takes_a_medal_from_a_player_who_did_not_play_it(totals, rule, data):
    playoffs: dict[str, list[dict]] = {}
    before = medals(totals, rule)
    for _ in range(6):
        if not before.owed:
            break
        played = play_owed(data, playoffs, before.owed)
        after = medals(totals, rule, playoffs)
        for award_before, award_after in zip(before.medals, after.medals, strict=True):
            for player in set(award_before.players) - set(played.players):
                assert player in award_after.players
            if not award_before.pending:
                assert award_after == award_before
        before = after


@given(player_totals, st.sampled_from(TIE_RULES), st.data())
def test_results_do_not_depend_on_the_order_players_are_listed(totals, rule, data):
    playoffs: dict[str, list[dict]] = {}
    result = medals(totals, rule)
    for _ in range(4):
        if not result.owed:
            break
        play_owed(data, playoffs, result.owed)
        result = medals(totals, rule, playoffs)

    def shuffled(mapping: dict) -> dict:
        return dict(data.draw(st.permutations(list(mapping.items()))))

    shuffled_playoffs = {
        key: [shuffled(pips) for pips in rounds] for key, rounds in playoffs.items()
    }
    assert medals(shuffled(totals), rule, shuffled_playoffs) == result
    assert places(shuffled(totals)) == places(totals)
    for advancement_rule in ("all_advance", "playoff"):
        advancement = table_advancers(totals, advancement_rule)
        assert table_advancers(shuffled(totals), advancement_rule) == advancement


@given(player_totals)
def test_places_are_consistent_with_totals(totals):
    ranking = places(totals)
    assert ranking.keys() == totals.keys()
    for player, total in totals.items():
        assert ranking[player] == 1 + sum(other < total for other in totals.values())


@given(player_totals, st.sampled_from(TIE_RULES), st.data())
def test_every_medal_is_settled_once_the_playoffs_are_played(totals, rule, data):
    playoffs: dict[str, list[dict]] = {}
    result = medals(totals, rule)
    while result.owed:
        playoff = result.owed[0]
        # Distinct pips after a first round, so that the replays end.
        if playoff.round_number == 1:
            pips = {player: data.draw(st.integers(0, 2)) for player in playoff.players}
        else:
            pips = {player: index for index, player in enumerate(playoff.players)}
        playoffs.setdefault(playoff.decides, []).append(pips)
        result = medals(totals, rule, playoffs)
    assert not any(award.pending for award in result.medals)
    if rule == "playoff":
        awarded = [award.medal for award in result.medals if award.players]
        assert awarded == ["gold", "silver", "bronze"][: len(totals)]
        assert all(len(award.players) == 1 for award in result.medals if award.players)


@given(player_totals, st.data())
def test_advancement_playoff_ends_with_exactly_one_tied_player_advancing(totals, data):
    rounds: list[dict] = []
    advancement = table_advancers(totals, "playoff")
    while advancement.owed is not None:
        owed_players = advancement.owed.players
        if len(rounds) < 2:
            pips = {player: data.draw(st.integers(0, 1)) for player in owed_players}
        else:
            pips = {player: index for index, player in enumerate(owed_players)}
        rounds.append(pips)
        advancement = table_advancers(totals, "playoff", rounds)
    tied_at_top = table_advancers(totals, "all_advance").advancing
    assert len(advancement.advancing) == min(1, len(totals))
    assert set(advancement.advancing) <= set(tied_at_top)
