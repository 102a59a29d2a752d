"""A series' standings as plain Python (tournament/game/series.py): points by place with a medal
bonus, best N of M, the lowest total per round, each tie-break, shared places."""

from fractions import Fraction

import pytest

from tournament.game.series import (
    BEST_EVENT,
    HEAD_TO_HEAD,
    PER_ROUND,
    WINS,
    Rule,
    Showing,
    note,
    standings,
)

MEDALS = {1: "gold", 2: "silver", 3: "bronze"}


def placed(*names):
    """An event where ``names`` placed 1st, 2nd, ... (medals for the first three)."""
    return {name: Showing(place=i, medal=MEDALS.get(i, "")) for i, name in enumerate(names, 1)}


def by_person(rows):
    return {r.person: r for r in rows}


def test_points_by_place_with_the_medal_bonus():
    rows = standings({"e1": placed("ann", "bob", "cy", "dee")}, Rule())
    assert [(r.person, r.total, r.place) for r in rows] == [
        ("ann", 13, 1),
        ("bob", 10, 2),
        ("cy", 7, 3),
        ("dee", 5, 4),
    ]


def test_a_place_beyond_the_table_and_a_withdrawal_score_nothing():
    rule = Rule(points=(3, 2, 1), medal_bonus=(0, 0, 0))
    event = placed("a", "b", "c", "d")
    event["w"] = Showing(place=None)
    rows = by_person(standings({"e": event}, rule))
    assert rows["d"].total == 0 and rows["w"].total == 0
    assert rows["d"].place == rows["w"].place == 4 and rows["w"].shared


def test_tied_players_each_score_their_shared_place():
    rule = Rule(medal_bonus=(0, 0, 0))
    event = {"a": Showing(1), "b": Showing(2), "c": Showing(2), "d": Showing(4)}
    rows = by_person(standings({"e": event}, rule))
    assert (rows["b"].total, rows["c"].total, rows["d"].total) == (8, 8, 5)


def test_points_sum_over_every_event():
    rule = Rule(medal_bonus=(0, 0, 0))
    results = {"e1": placed("a", "b"), "e2": placed("b", "a"), "e3": placed("a", "b")}
    rows = by_person(standings(results, rule))
    assert rows["a"].total == 28 and rows["b"].total == 26
    assert rows["a"].place == 1


def test_best_n_of_m_drops_each_persons_worst_events():
    rule = Rule(medal_bonus=(0, 0, 0), best_of=2)
    results = {
        "e1": placed("a", "b", "c"),
        "e2": placed("c", "b", "a"),
        "e3": placed("a", "c", "b"),
    }
    rows = by_person(standings(results, rule, order=["e1", "e2", "e3"]))
    assert rows["a"].total == 20 and [c.event for c in rows["a"].dropped] == ["e2"]
    assert rows["c"].total == 18 and [c.event for c in rows["c"].dropped] == ["e1"]
    # b scored 8, 8, 6: of the two 8s both count, the 6 is dropped
    assert rows["b"].total == 16 and [c.event for c in rows["b"].dropped] == ["e3"]
    # fewer events than N: nothing dropped
    assert not standings({"e1": placed("a")}, rule)[0].dropped


def test_of_two_events_scoring_alike_the_earlier_counts():
    rule = Rule(medal_bonus=(0, 0, 0), best_of=1)
    rows = standings({"e1": placed("x", "a"), "e2": placed("y", "a")}, rule, ["e1", "e2"])
    a = by_person(rows)["a"]
    assert [c.event for c in a.counted] == ["e1"] and [c.event for c in a.dropped] == ["e2"]


def test_lowest_total_per_round_over_nights_of_different_lengths():
    rule = Rule(scoring=PER_ROUND)
    results = {
        "night1": {"a": Showing(1, pips=60, rounds=6), "b": Showing(2, pips=70, rounds=6)},
        "night2": {"a": Showing(2, pips=200, rounds=13), "b": Showing(1, pips=100, rounds=13)},
    }
    rows = by_person(standings(results, rule))
    assert rows["a"].total == Fraction(260, 19)
    assert rows["b"].total == Fraction(170, 19)
    assert rows["b"].place == 1 and rows["a"].place == 2
    # a short night weighs less than a long one: b's one bad short night costs little
    only_short = by_person(standings({"night1": results["night1"]}, rule))
    assert only_short["a"].place == 1


def test_per_round_best_n_keeps_the_lowest_averages():
    rule = Rule(scoring=PER_ROUND, best_of=1)
    results = {
        "n1": {"a": Showing(1, pips=50, rounds=5)},
        "n2": {"a": Showing(1, pips=13, rounds=13)},
    }
    (a,) = standings(results, rule)
    assert a.total == 1 and [c.event for c in a.dropped] == ["n1"]


def test_most_wins_breaks_a_tie():
    rule = Rule(points=(5, 3, 1), medal_bonus=(0, 0, 0), tie_break=WINS)
    # a and c: 5 + 1 = 6 (one win each); b: 3 + 3 = 6 (no win)
    results = {"e1": placed("a", "b", "c"), "e2": placed("c", "b", "a")}
    rows = by_person(standings(results, rule))
    assert rows["a"].total == rows["b"].total == rows["c"].total == 6
    assert (rows["a"].place, rows["c"].place, rows["b"].place) == (1, 1, 3)
    assert rows["a"].shared and rows["b"].by_tie_break and not rows["b"].shared


def test_best_single_event_breaks_a_tie():
    rule = Rule(points=(6, 4, 3, 2), medal_bonus=(0, 0, 0), tie_break=BEST_EVENT)
    # a: 4 + 2 = 6; b: 3 + 3 = 6; a's best single event (4) beats b's (3)
    results = {"e1": placed("x", "a", "b", "y"), "e2": placed("x", "y", "b", "a")}
    rows = by_person(standings(results, rule))
    assert rows["a"].total == rows["b"].total == 6
    assert rows["a"].place < rows["b"].place


def test_best_single_event_per_round_is_the_lowest_average():
    rule = Rule(scoring=PER_ROUND, tie_break=BEST_EVENT)
    results = {
        "n1": {"a": Showing(1, pips=20, rounds=2), "b": Showing(2, pips=30, rounds=2)},
        "n2": {"a": Showing(2, pips=40, rounds=2), "b": Showing(1, pips=30, rounds=2)},
    }
    rows = by_person(standings(results, rule))
    assert rows["a"].total == rows["b"].total == 15
    assert rows["a"].place == 1 and rows["b"].place == 2


def test_head_to_head_counts_the_events_both_played():
    rule = Rule(points=(4, 2, 1), medal_bonus=(0, 0, 0), tie_break=HEAD_TO_HEAD)
    # a and b both on 5; they met twice and b placed better both times (once at an event
    # where a scored more elsewhere)
    results = {
        "e1": placed("b", "x", "a"),  # b 4, a 1
        "e2": {"a": Showing(1)},  # a 4 (b absent)
        "e3": placed("x", "y", "b"),  # b 1 (a absent)
    }
    rows = by_person(standings(results, rule))
    assert rows["a"].total == rows["b"].total == 5
    assert rows["b"].place < rows["a"].place


def test_still_tied_after_the_tie_break_share_a_place():
    for tie_break in (WINS, BEST_EVENT, HEAD_TO_HEAD):
        rule = Rule(medal_bonus=(0, 0, 0), tie_break=tie_break)
        results = {"e1": placed("a", "b"), "e2": placed("b", "a")}
        rows = by_person(standings(results, rule))
        assert rows["a"].place == rows["b"].place == 1
        assert rows["a"].shared and rows["b"].shared and not rows["a"].by_tie_break


def test_a_rule_refuses_what_cannot_count():
    with pytest.raises(ValueError):
        Rule(points=(10, -1))
    with pytest.raises(ValueError):
        Rule(best_of=0)
    with pytest.raises(ValueError):
        Rule(tie_break="coin")


def test_the_note_says_the_table_the_bonus_and_best_n_of_m():
    got = note(Rule(points=(10, 8, 0, 0), medal_bonus=(0, 0, 0), best_of=3), events=5)
    assert got.points == (10, 8) and got.medal_bonus == () and got.best_of == 3
    assert got.events == 5 and got.tie_break == WINS
