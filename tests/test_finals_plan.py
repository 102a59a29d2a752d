"""The road to the Final for every field size (issue 12 item 1): the plan as a table."""

import pytest

from tournament.game.finals import FinalsOptions, plan_finals
from tournament.game.rules import RuleSet

DEFAULT = RuleSet()
SIX_AT_ONE_TABLE = RuleSet(tiles_drawn={2: 15, 3: 15, 4: 15, 5: 15, 6: 12})
OPTIONS = {
    "default": (DEFAULT, FinalsOptions()),
    "top 1": (DEFAULT, FinalsOptions(top_n=1)),  # each table's winner: the old way
    "top 2": (DEFAULT, FinalsOptions(top_n=2)),
    "fill to 5": (DEFAULT, FinalsOptions(fill_to=5)),
    "big final": (SIX_AT_ONE_TABLE, FinalsOptions(big_final=True)),
}

# (players, option, the plan as the event home and the close page say it, its warnings)
PLANS = [
    (
        4,
        "default",
        [
            "Game 1 at one table of 4 is the Final",
        ],
        [],
    ),
    (
        4,
        "top 1",
        [
            "Game 1 at one table of 4 is the Final",
        ],
        [],
    ),
    (
        4,
        "top 2",
        [
            "Game 1 at one table of 4 is the Final",
        ],
        [],
    ),
    (
        4,
        "fill to 5",
        [
            "Game 1 at one table of 4 is the Final",
        ],
        [],
    ),
    (
        4,
        "big final",
        [
            "Game 1 at one table of 4 is the Final",
        ],
        [],
    ),
    (
        5,
        "default",
        [
            "Game 1 at one table of 5 is the Final",
        ],
        [],
    ),
    (
        5,
        "top 1",
        [
            "Game 1 at one table of 5 is the Final",
        ],
        [],
    ),
    (
        5,
        "top 2",
        [
            "Game 1 at one table of 5 is the Final",
        ],
        [],
    ),
    (
        5,
        "fill to 5",
        [
            "Game 1 at one table of 5 is the Final",
        ],
        [],
    ),
    (
        5,
        "big final",
        [
            "Game 1 at one table of 5 is the Final",
        ],
        [],
    ),
    (
        9,
        "default",
        [
            "Game 1, 2 tables of 5 or 4 (each table's top 2) → 4",
            "Final of 4",
        ],
        [],
    ),
    (
        9,
        "top 1",
        [
            "Game 1, 2 tables of 5 or 4 (each table's winner) → 2",
            "Final of 2",
        ],
        [
            "Final seats only 2 players: no bronze can be awarded.",
            "Final has tables of 2, not the usual 4 (one more or fewer) of the rules.",
        ],
    ),
    (
        9,
        "top 2",
        [
            "Game 1, 2 tables of 5 or 4 (each table's top 2) → 4",
            "Final of 4",
        ],
        [],
    ),
    (
        9,
        "fill to 5",
        [
            "Game 1, 2 tables of 5 or 4 (each table's top 2, 1 wildcard) → 5",
            "Final of 5",
        ],
        [],
    ),
    (
        9,
        "big final",
        [
            "Game 1, 2 tables of 5 or 4 (each table's top 2) → 4",
            "Final of 4",
        ],
        [],
    ),
    (
        12,
        "default",
        [
            "Game 1, 3 tables of 4 (each table's winner) → 3",
            "Final of 3",
        ],
        [],
    ),
    (
        12,
        "top 1",
        [
            "Game 1, 3 tables of 4 (each table's winner) → 3",
            "Final of 3",
        ],
        [],
    ),
    (
        12,
        "top 2",
        [
            "Game 1, 3 tables of 4 (each table's top 2) → 6",
            "Semifinal, 2 tables of 3 (each table's top 2) → 4",
            "Final of 4",
        ],
        [],
    ),
    (
        12,
        "fill to 5",
        [
            "Game 1, 3 tables of 4 (each table's winner, 2 wildcards) → 5",
            "Final of 5",
        ],
        [],
    ),
    (
        12,
        "big final",
        [
            "Game 1, 3 tables of 4 (each table's winner) → 3",
            "Final of 3",
        ],
        [],
    ),
    (
        24,
        "default",
        [
            "Game 1, 6 tables of 4 (each table's winner) → 6",
            "Semifinal, 2 tables of 3 (each table's top 2) → 4",
            "Final of 4",
        ],
        [],
    ),
    (
        24,
        "top 1",
        [
            "Game 1, 6 tables of 4 (each table's winner) → 6",
            "Semifinal, 2 tables of 3 (each table's winner) → 2",
            "Final of 2",
        ],
        [
            "Final seats only 2 players: no bronze can be awarded.",
            "Final has tables of 2, not the usual 4 (one more or fewer) of the rules.",
        ],
    ),
    (
        24,
        "top 2",
        [
            "Game 1, 6 tables of 4 (each table's top 2) → 12",
            "Semifinal, 3 tables of 4 (each table's top 2) → 6",
            "Semifinal 2, 2 tables of 3 (each table's top 2) → 4",
            "Final of 4",
        ],
        [],
    ),
    (
        24,
        "fill to 5",
        [
            "Game 1, 6 tables of 4 (each table's winner) → 6",
            "Semifinal, 2 tables of 3 (each table's top 2, 1 wildcard) → 5",
            "Final of 5",
        ],
        [],
    ),
    (
        24,
        "big final",
        [
            "Game 1, 6 tables of 4 (each table's winner) → 6",
            "Final of 6",
        ],
        [],
    ),
    (
        25,
        "default",
        [
            "Game 1, 6 tables of 5 or 4 (each table's winner) → 6",
            "Semifinal, 2 tables of 3 (each table's top 2) → 4",
            "Final of 4",
        ],
        [],
    ),
    (
        25,
        "top 1",
        [
            "Game 1, 6 tables of 5 or 4 (each table's winner) → 6",
            "Semifinal, 2 tables of 3 (each table's winner) → 2",
            "Final of 2",
        ],
        [
            "Final seats only 2 players: no bronze can be awarded.",
            "Final has tables of 2, not the usual 4 (one more or fewer) of the rules.",
        ],
    ),
    (
        25,
        "top 2",
        [
            "Game 1, 6 tables of 5 or 4 (each table's top 2) → 12",
            "Semifinal, 3 tables of 4 (each table's top 2) → 6",
            "Semifinal 2, 2 tables of 3 (each table's top 2) → 4",
            "Final of 4",
        ],
        [],
    ),
    (
        25,
        "fill to 5",
        [
            "Game 1, 6 tables of 5 or 4 (each table's winner) → 6",
            "Semifinal, 2 tables of 3 (each table's top 2, 1 wildcard) → 5",
            "Final of 5",
        ],
        [],
    ),
    (
        25,
        "big final",
        [
            "Game 1, 6 tables of 5 or 4 (each table's winner) → 6",
            "Final of 6",
        ],
        [],
    ),
    (
        48,
        "default",
        [
            "Game 1, 12 tables of 4 (each table's winner) → 12",
            "Semifinal, 3 tables of 4 (each table's winner) → 3",
            "Final of 3",
        ],
        [],
    ),
    (
        48,
        "top 1",
        [
            "Game 1, 12 tables of 4 (each table's winner) → 12",
            "Semifinal, 3 tables of 4 (each table's winner) → 3",
            "Final of 3",
        ],
        [],
    ),
    (
        48,
        "top 2",
        [
            "Game 1, 12 tables of 4 (each table's top 2) → 24",
            "Semifinal, 6 tables of 4 (each table's top 2) → 12",
            "Semifinal 2, 3 tables of 4 (each table's top 2) → 6",
            "Semifinal 3, 2 tables of 3 (each table's top 2) → 4",
            "Final of 4",
        ],
        [],
    ),
    (
        48,
        "fill to 5",
        [
            "Game 1, 12 tables of 4 (each table's winner) → 12",
            "Semifinal, 3 tables of 4 (each table's winner, 2 wildcards) → 5",
            "Final of 5",
        ],
        [],
    ),
    (
        48,
        "big final",
        [
            "Game 1, 12 tables of 4 (each table's winner) → 12",
            "Semifinal, 3 tables of 4 (each table's winner) → 3",
            "Final of 3",
        ],
        [],
    ),
    (
        100,
        "default",
        [
            "Game 1, 25 tables of 4 (each table's winner) → 25",
            "Semifinal, 6 tables of 5 or 4 (each table's winner) → 6",
            "Semifinal 2, 2 tables of 3 (each table's top 2) → 4",
            "Final of 4",
        ],
        [],
    ),
    (
        100,
        "top 1",
        [
            "Game 1, 25 tables of 4 (each table's winner) → 25",
            "Semifinal, 6 tables of 5 or 4 (each table's winner) → 6",
            "Semifinal 2, 2 tables of 3 (each table's winner) → 2",
            "Final of 2",
        ],
        [
            "Final seats only 2 players: no bronze can be awarded.",
            "Final has tables of 2, not the usual 4 (one more or fewer) of the rules.",
        ],
    ),
    (
        100,
        "top 2",
        [
            "Game 1, 25 tables of 4 (each table's top 2) → 50",
            "Semifinal, 13 tables of 4 or 3 (each table's top 2) → 26",
            "Semifinal 2, 7 tables of 4 or 3 (each table's top 2) → 14",
            "Semifinal 3, 4 tables of 4 or 3 (each table's top 2) → 8",
            "Semifinal 4, 2 tables of 4 (each table's top 2) → 4",
            "Final of 4",
        ],
        [],
    ),
    (
        100,
        "fill to 5",
        [
            "Game 1, 25 tables of 4 (each table's winner) → 25",
            "Semifinal, 6 tables of 5 or 4 (each table's winner) → 6",
            "Semifinal 2, 2 tables of 3 (each table's top 2, 1 wildcard) → 5",
            "Final of 5",
        ],
        [],
    ),
    (
        100,
        "big final",
        [
            "Game 1, 25 tables of 4 (each table's winner) → 25",
            "Semifinal, 6 tables of 5 or 4 (each table's winner) → 6",
            "Final of 6",
        ],
        [],
    ),
    (
        200,
        "default",
        [
            "Game 1, 50 tables of 4 (each table's winner) → 50",
            "Semifinal, 13 tables of 4 or 3 (each table's winner) → 13",
            "Semifinal 2, 3 tables of 5 or 4 (each table's winner) → 3",
            "Final of 3",
        ],
        [],
    ),
    (
        200,
        "top 1",
        [
            "Game 1, 50 tables of 4 (each table's winner) → 50",
            "Semifinal, 13 tables of 4 or 3 (each table's winner) → 13",
            "Semifinal 2, 3 tables of 5 or 4 (each table's winner) → 3",
            "Final of 3",
        ],
        [],
    ),
    (
        200,
        "top 2",
        [
            "Game 1, 50 tables of 4 (each table's top 2) → 100",
            "Semifinal, 25 tables of 4 (each table's top 2) → 50",
            "Semifinal 2, 13 tables of 4 or 3 (each table's top 2) → 26",
            "Semifinal 3, 7 tables of 4 or 3 (each table's top 2) → 14",
            "Semifinal 4, 4 tables of 4 or 3 (each table's top 2) → 8",
            "Semifinal 5, 2 tables of 4 (each table's top 2) → 4",
            "Final of 4",
        ],
        [],
    ),
    (
        200,
        "fill to 5",
        [
            "Game 1, 50 tables of 4 (each table's winner) → 50",
            "Semifinal, 13 tables of 4 or 3 (each table's winner) → 13",
            "Semifinal 2, 3 tables of 5 or 4 (each table's winner, 2 wildcards) → 5",
            "Final of 5",
        ],
        [],
    ),
    (
        200,
        "big final",
        [
            "Game 1, 50 tables of 4 (each table's winner) → 50",
            "Semifinal, 13 tables of 4 or 3 (each table's winner) → 13",
            "Semifinal 2, 3 tables of 5 or 4 (each table's winner) → 3",
            "Final of 3",
        ],
        [],
    ),
    (
        1000,
        "default",
        [
            "Game 1, 250 tables of 4 (each table's winner) → 250",
            "Semifinal, 63 tables of 4 or 3 (each table's winner) → 63",
            "Semifinal 2, 16 tables of 4 or 3 (each table's winner) → 16",
            "Semifinal 3, 4 tables of 4 (each table's winner) → 4",
            "Final of 4",
        ],
        [],
    ),
    (
        1000,
        "top 1",
        [
            "Game 1, 250 tables of 4 (each table's winner) → 250",
            "Semifinal, 63 tables of 4 or 3 (each table's winner) → 63",
            "Semifinal 2, 16 tables of 4 or 3 (each table's winner) → 16",
            "Semifinal 3, 4 tables of 4 (each table's winner) → 4",
            "Final of 4",
        ],
        [],
    ),
    (
        1000,
        "top 2",
        [
            "Game 1, 250 tables of 4 (each table's top 2) → 500",
            "Semifinal, 125 tables of 4 (each table's top 2) → 250",
            "Semifinal 2, 63 tables of 4 or 3 (each table's top 2) → 126",
            "Semifinal 3, 32 tables of 4 or 3 (each table's top 2) → 64",
            "Semifinal 4, 16 tables of 4 (each table's top 2) → 32",
            "Semifinal 5, 8 tables of 4 (each table's top 2) → 16",
            "Semifinal 6, 4 tables of 4 (each table's top 2) → 8",
            "Semifinal 7, 2 tables of 4 (each table's top 2) → 4",
            "Final of 4",
        ],
        [],
    ),
    (
        1000,
        "fill to 5",
        [
            "Game 1, 250 tables of 4 (each table's winner) → 250",
            "Semifinal, 63 tables of 4 or 3 (each table's winner) → 63",
            "Semifinal 2, 16 tables of 4 or 3 (each table's winner) → 16",
            "Semifinal 3, 4 tables of 4 (each table's winner, 1 wildcard) → 5",
            "Final of 5",
        ],
        [],
    ),
    (
        1000,
        "big final",
        [
            "Game 1, 250 tables of 4 (each table's winner) → 250",
            "Semifinal, 63 tables of 4 or 3 (each table's winner) → 63",
            "Semifinal 2, 16 tables of 4 or 3 (each table's winner) → 16",
            "Semifinal 3, 4 tables of 4 (each table's winner) → 4",
            "Final of 4",
        ],
        [],
    ),
]


@pytest.mark.parametrize(("players", "option", "expected", "warnings"), PLANS)
def test_plan_for_every_field_size(players, option, expected, warnings):
    rules, options = OPTIONS[option]
    plan = plan_finals(players, rules, options)
    assert [stage.describe() for stage in plan.stages] == expected
    assert plan.describe() == f"{players} players: " + " → ".join(expected)
    assert plan.all_warnings == warnings
    assert plan.final is not None
    if option != "top 1":
        assert plan.final.players >= 3 and not warnings


@pytest.mark.parametrize("players", range(4, 1001))
def test_default_never_gives_a_final_under_three(players):
    plan = plan_finals(players, DEFAULT)
    assert plan.final is not None and plan.final.players >= 3, plan.describe()
    assert not plan.all_warnings


def test_twenty_four_players_no_longer_play_a_final_of_two():
    plan = plan_finals(24, DEFAULT)
    assert [(s.name, len(s.tables), s.advance) for s in plan.stages] == [
        ("Game 1", 6, 1),
        ("Semifinal", 2, 2),
        ("Final", 1, 0),
    ]


def test_stage_of_two_players_warns_no_bronze():
    plan = plan_finals(2, DEFAULT)
    assert plan.all_warnings[0] == "Game 1 seats only 2 players: no bronze can be awarded."


def test_top_n_never_sends_a_whole_table():
    plan = plan_finals(12, DEFAULT, FinalsOptions(top_n=4))
    assert plan.stages[0].advance == 3
    assert plan.all_warnings[0] == (
        "Game 1: the top 4 would be a whole table of 4; the top 3 advance."
    )


def test_table_smaller_than_the_rules_expect_is_warned():
    double_nine = RuleSet(set=9, engines=tuple(range(9, -1, -1)), tiles_drawn={2: 15, 3: 13, 4: 10})
    plan = plan_finals(5, double_nine)
    assert plan.stages[0].tables == (3, 2)
    assert any("tables of 2" in w for w in plan.all_warnings)


def test_big_final_needs_tiles_for_that_size():
    plan = plan_finals(24, DEFAULT, FinalsOptions(big_final=True))
    assert plan.final.players == 4  # no tiles listed for 6: a semifinal first


def test_only_the_winners_warn_of_a_final_of_two():
    plan = plan_finals(24, DEFAULT, FinalsOptions(top_n=1))
    assert plan.final.players == 2
    assert "Final seats only 2 players: no bronze can be awarded." in plan.all_warnings


def test_plan_from_a_semifinal():
    plan = plan_finals(6, DEFAULT, seeded=True, first="Semifinal")
    assert plan.describe() == (
        "6 players: Semifinal, 2 tables of 3 (each table's top 2) → 4 → Final of 4"
    )
