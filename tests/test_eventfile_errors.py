"""An event file with errors is refused whole: every error named by its place, nothing written.

Each case changes one thing in a valid example (the NVSO 2019 file: Game 1 at four tables of
four, the Final, a bronze playoff still to play) and expects exactly the errors it names.
"""

import copy
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from scoring import eventfile
from scoring.eventfile import EventFileError, export_event, import_event
from scoring.models import Infraction, Round, Score, ScoreChange
from tournament.models import ClockEvent, Event, Player, Seat, Stage, Table

pytestmark = pytest.mark.django_db

BASE_FILE = Path(__file__).parent / "data" / "nvso-tie-for-gold-bronze-pending.json"
BASE = json.loads(BASE_FILE.read_text(encoding="utf-8"))
MODELS = [Event, Player, Stage, Table, Seat, ClockEvent, Round, Score, ScoreChange, Infraction]


def row_counts():
    return {model.__name__: model.objects.count() for model in MODELS}


def refused(data) -> list[str]:
    """Import ``data``, expecting a refusal; check that nothing at all was written."""
    before = row_counts()
    with pytest.raises(EventFileError) as caught:
        import_event(data)
    assert row_counts() == before
    return caught.value.errors


def changed(change) -> dict:
    data = copy.deepcopy(BASE)
    change(data)
    return data


def rules(data):
    return data["event"]["rules"]


def game1(data, table=0):
    return data["stages"][0]["tables"][table]


def test_the_base_file_is_valid():
    assert import_event(copy.deepcopy(BASE)).players.count() == 16


# -- the file itself ------------------------------------------------------------------------------


def test_malformed_json_is_located_by_line_and_column():
    text = '{\n  "format": "mexican-train-event",\n  "version": 1\n  "event": {}\n}\n'
    assert refused(text) == ["line 4, column 3: not valid JSON: Expecting ',' delimiter"]


def test_a_file_that_is_not_utf8_text_is_located_by_line_and_column():
    assert refused(b'{"format": "\xff"}') == [
        "line 1, column 13: not UTF-8 text (byte 13 cannot be read)"
    ]
    assert refused('{\n  "format": "é\ud800"}'.encode("utf-8", "surrogatepass")) == [
        "line 2, column 15: not UTF-8 text (byte 18 cannot be read)"
    ]


def test_a_file_that_is_not_an_object():
    assert refused("[]") == ["file: expected an object, not a list"]


@pytest.mark.parametrize(
    ("key", "value", "error"),
    [
        (
            "format",
            "mexican-train-results",
            'format: "mexican-train-results" is not "mexican-train-event"',
        ),
        ("version", 2, "version: 2 is not a version this site reads (1)"),
        ("version", True, "version: true is not a version this site reads (1)"),
        ("version", "1", 'version: "1" is not a version this site reads (1)'),
    ],
)
def test_another_format_or_version_is_refused_before_anything_else(key, value, error):
    data = changed(lambda d: d.update({key: value}))
    data["players"] = "not even a list"  # not reported: the file is not one this site reads
    assert refused(data) == [error]


def test_a_missing_key():
    data = changed(lambda d: rules(d).pop("medal_tie"))
    assert refused(data) == ["event.rules.medal_tie: missing"]


def test_an_unknown_key_outside_extra():
    data = changed(lambda d: d["stages"][0].update(tabels=[]))
    assert refused(data) == [
        "stages[0].tabels: unknown key (expected name, kind, closed, tables, medal, extra)"
    ]


def test_unknown_keys_inside_extra_are_ignored():
    data = changed(lambda d: d["players"][0]["extra"].update(shirt_size="L"))
    assert import_event(data).players.get(ref="p1").club == "Arlington"


def test_a_key_given_twice():
    text = json.dumps(BASE).replace('"p1": 0', '"p1": 0, "p1": 3', 1)
    assert refused(text) == ["stages[0].tables[0].rounds[0].pips.p1: given twice"]


# -- wrong types ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "error"),
    [
        (lambda d: rules(d).update(set=True), "event.rules.set: true is not a whole number"),
        (lambda d: rules(d).update(set="12"), 'event.rules.set: "12" is not a whole number'),
        (lambda d: d["stages"][0].update(closed=1), "stages[0].closed: 1 is not true or false"),
        (
            lambda d: game1(d)["rounds"][0]["pips"].update(p2=True),
            "stages[0].tables[0].rounds[0].pips.p2: true is not a whole number of pips",
        ),
        (
            lambda d: game1(d)["rounds"][0]["pips"].update(p2="29"),
            'stages[0].tables[0].rounds[0].pips.p2: "29" is not a whole number of pips',
        ),
        (
            lambda d: game1(d)["rounds"][0]["pips"].update(p2=29.5),
            "stages[0].tables[0].rounds[0].pips.p2: 29.5 is not a whole number of pips",
        ),
        (
            lambda d: game1(d)["rounds"][0]["pips"].update(p2=None),
            "stages[0].tables[0].rounds[0].pips.p2: null is not a whole number of pips",
        ),
        (
            lambda d: game1(d).update(number="1"),
            'stages[0].tables[0].number: "1" is not a whole number',
        ),
        (lambda d: d.update(stages={}), "stages: expected a list, not an object"),
        (lambda d: d["event"].update(rules=[]), "event.rules: expected an object, not a list"),
        (
            lambda d: rules(d).update(engines=[12, "11"]),
            'event.rules.engines[1]: "11" is not a whole number',
        ),
        (
            lambda d: d["players"][0]["extra"].update(checked_in="yes"),
            'players[0].extra.checked_in: "yes" is not true or false',
        ),
        (
            lambda d: d["event"].update(date="19/09/2019"),
            'event.date: "19/09/2019" is not a date such as 2019-09-19',
        ),
        (
            lambda d: game1(d)["rounds"][0]["extra"].update(entered_at="2019-09-19 13:20"),
            'stages[0].tables[0].rounds[0].extra.entered_at: "2019-09-19 13:20" is not a date '
            "and time such as 2019-09-19T10:00:00+00:00",
        ),
        (
            lambda d: game1(d)["rounds"][0]["extra"].update(entered_at="2019-09-19T13:20:00"),
            'stages[0].tables[0].rounds[0].extra.entered_at: "2019-09-19T13:20:00" has no time '
            "zone (such as +00:00)",
        ),
        (lambda d: d["event"].update(name=" "), "event.name: cannot be empty"),
        (lambda d: d["players"][0].update(id="x" * 61), "players[0].id: longer than 60 characters"),
    ],
)
def test_a_value_of_the_wrong_type(change, error):
    errors = refused(changed(change))
    assert errors[0] == error


def test_a_wrong_player_id_type_is_reported_where_it_is_used():
    data = changed(lambda d: game1(d)["players"].__setitem__(0, 1))
    assert refused(data)[0] == "stages[0].tables[0].players[0]: 1 is not a player id (a string)"


# -- unknown values -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "error"),
    [
        (
            lambda d: rules(d).update(medal_tie="coin_toss"),
            'event.rules.medal_tie: "coin_toss" is not one of "nvso", "shared", "playoff"',
        ),
        (
            lambda d: rules(d).update(round_in_progress="finished"),
            'event.rules.round_in_progress: "finished" is not one of "finish", "void"',
        ),
        (
            lambda d: rules(d).update(advancement_tie="all"),
            'event.rules.advancement_tie: "all" is not one of "all_advance", "playoff"',
        ),
        (
            lambda d: rules(d).update(infraction_penalty="skip_always"),
            'event.rules.infraction_penalty: "skip_always" is not one of "warn_then_draw", '
            '"draw", "warn_then_skip", "skip"',
        ),
        (
            lambda d: d["stages"][0].update(kind="heat"),
            'stages[0].kind: "heat" is not one of "qualifying", "semifinal", "final", "playoff"',
        ),
        (
            lambda d: d["stages"][2].update(medal="platinum"),
            'stages[2].medal: "platinum" is not one of "gold", "silver", "bronze", "advance"',
        ),
        (
            lambda d: game1(d)["infractions"][0].update(kind="cheating"),
            'stages[0].tables[0].infractions[0].kind: "cheating" is not one of "wrong_tile", '
            '"out_of_turn", "drew_with_playable", "no_last_tile_call", '
            '"open_double_not_satisfied", "other"',
        ),
        (
            lambda d: game1(d)["infractions"][0].update(action="disqualify"),
            'stages[0].tables[0].infractions[0].action: "disqualify" is not one of "warning", '
            '"penalty_draw", "skip_turn", "void"',
        ),
        (
            lambda d: d["event"]["extra"].update(paper_size="legal"),
            'event.extra.paper_size: "legal" is not one of "letter", "a4"',
        ),
    ],
)
def test_an_unknown_value(change, error):
    assert refused(changed(change)) == [error]


# -- the rule set: RuleSet.problems(), each at its place -------------------------------------


@pytest.mark.parametrize(
    ("change", "errors"),
    [
        (
            lambda d: rules(d).update(set=7),
            [
                "event.rules.set: The set must be double-6, double-9, double-12, double-15, "
                "double-18"
            ],
        ),
        (
            lambda d: rules(d).update(engines=[12, 13, 11, 10]),
            ["event.rules.engines[1]: Engine 13 is not a double of the double-12 set (0 to 12)"],
        ),
        (
            lambda d: rules(d).update(engines=[12, 11, 10, 11]),
            ["event.rules.engines[3]: An engine is listed twice"],
        ),
        (
            lambda d: rules(d).update(engines=[]),
            ["event.rules.engines: A game needs at least one engine"],
        ),
        (
            lambda d: rules(d)["tiles_drawn"].update({"6": 15}),
            [
                "event.rules.tiles_drawn.6: A table of 6 drawing 15 tiles each needs 90 tiles, "
                "but a double-12 set has only 90 beside the engine: at least one must be left "
                "to draw"
            ],
        ),
        (
            lambda d: rules(d)["tiles_drawn"].update({"13": 5}),
            ["event.rules.tiles_drawn.13: A table seats 2 to 12 players, not 13"],
        ),
        (
            lambda d: rules(d)["tiles_drawn"].update({"04": 15}),
            ['event.rules.tiles_drawn.04: "04" is not a table size such as "4"'],
        ),
        (
            lambda d: rules(d)["tiles_drawn"].update({"1": 15, "five": 15}),
            [
                'event.rules.tiles_drawn.five: "five" is not a table size such as "4"',
                "event.rules.tiles_drawn.1: A table seats 2 to 12 players, not 1",
            ],
        ),
        (
            lambda d: rules(d).update(double_blank_points=25),
            ["event.rules.double_blank_points: The double-blank counts 0 or 50"],
        ),
        (
            lambda d: rules(d).update(game_minutes=0),
            ["event.rules.game_minutes: The time limit must be at least one minute, or none"],
        ),
        (
            lambda d: rules(d)["extra"].update(table_size=6),
            ["event.rules.extra.table_size: The usual table size 6 has no tiles-drawn entry"],
        ),
    ],
)
def test_a_rule_set_that_cannot_be_played(change, errors):
    assert refused(changed(change)) == errors


@pytest.mark.parametrize(
    ("tiles", "error"),
    [
        (None, "event.rules.tiles_drawn: missing"),
        ("4:15", "event.rules.tiles_drawn: expected an object, not a string"),
    ],
)
def test_a_rule_set_without_its_tiles_drawn_is_refused_not_a_crash(tiles, error):
    # Once an AttributeError (a 500 on the import page): the rules were checked with no
    # tiles drawn at all.
    def change(d):
        if tiles is None:
            del rules(d)["tiles_drawn"]
        else:
            rules(d)["tiles_drawn"] = tiles

    assert refused(changed(change)) == [error]


def test_a_table_size_not_in_tiles_drawn_is_dealt_as_the_nearest_larger_size_listed():
    """A table of 4 where the chart lists 2 and 3 draws as the largest listed (15 each): the
    site leaves such tables (a playoff of the tied players, a withdrawal, a size a director
    allowed for a stage), so the file is read with them (issue 45 item 1)."""

    def two_or_three(d):
        rules(d)["tiles_drawn"] = {"2": 15, "3": 15}
        rules(d)["extra"]["table_size"] = 3

    event = import_event(changed(two_or_three))
    assert event.rules.tiles_for(4) == 15
    assert [t.seats.count() for t in event.stages.get(number=1).tables.all()] == [4, 4, 4, 4]


def test_a_table_that_cannot_be_dealt_at_all_is_refused_at_the_table():
    def thirteen(d):
        d["players"] += [{"id": f"q{n}", "name": f"Extra {n}", "division": None} for n in range(9)]
        table = game1(d)
        table["players"] += [f"q{n}" for n in range(9)]
        for r in table["rounds"]:
            r["pips"].update({f"q{n}": 1 for n in range(9)})

    assert refused(changed(thirteen)) == [
        "stages[0].tables[0].players: a table of 13 cannot be dealt: event.rules.tiles_drawn "
        "lists 2, 3, 4, 5, a size it does not list draws as the nearest larger size listed (or "
        "the largest), and a table seats 2 to 12 players with at least one tile each and one "
        "left to draw"
    ]


# -- players and seats ----------------------------------------------------------------------------


def test_two_players_with_the_same_id():
    data = changed(lambda d: d["players"].append({**d["players"][0], "name": "Ann Lee II"}))
    assert refused(data) == ['players[16].id: "p1" is the id of players[0] too']


def test_an_empty_division_is_not_a_division():
    data = changed(lambda d: d["players"][3].update(division=""))
    assert refused(data) == [
        'players[3].division: "" is not a division name: write null for no division'
    ]


def test_an_unknown_player_id():
    data = changed(
        lambda d: game1(d, 1)["infractions"].append(
            {"player": "p99", "engine": 12, "kind": "other", "action": "warning", "note": ""}
        )
    )
    assert refused(data) == [
        'stages[0].tables[1].infractions[0].player: "p99" is not the id of a player in players'
    ]


def test_a_player_seated_twice_in_a_stage():
    def twice(d):
        game1(d, 1)["players"].append("p1")
        for r in game1(d, 1)["rounds"]:
            r["pips"]["p1"] = 5

    assert refused(changed(twice)) == [
        'stages[0].tables[1].players[4]: "p1" is seated twice in this stage (also '
        "stages[0].tables[0].players[0])",
        'stages[0].tables[1].rounds[0].pips.p1: "p1" is not seated at this table',
        'stages[0].tables[1].rounds[1].pips.p1: "p1" is not seated at this table',
        'stages[0].tables[1].rounds[2].pips.p1: "p1" is not seated at this table',
    ]


def test_two_tables_with_the_same_number():
    data = changed(lambda d: game1(d, 3).update(number=1))
    assert refused(data) == ["stages[0].tables[3].number: table 1 is also stages[0].tables[0]"]


def test_a_table_that_mixes_divisions_is_kept_as_it_is():
    """The draw never mixes divisions, but a player's division corrected after the draw (a
    wrong age bracket found at the table) leaves their table as it was: the file keeps it."""

    def divisions(d):
        for p in d["players"]:
            p["division"] = "55-59" if p["id"] in ("p1", "p2", "p5", "p9", "p13") else "60-64"

    event = import_event(changed(divisions))
    table = event.stages.get(number=1).tables.get(number=1)
    seated = table.seats.order_by("position").values_list("player__ref", "player__division")
    assert list(seated) == [("p1", "55-59"), ("p2", "55-59"), ("p3", "60-64"), ("p4", "60-64")]
    text = eventfile.dumps(export_event(event))
    Event.objects.all().delete()
    assert eventfile.dumps(export_event(import_event(text))) == text


def test_the_file_is_read_by_the_sites_own_rules_not_copies_of_them():
    """Which stages advance players and a table's division are scoring/results.py's, one place."""
    from scoring import results

    assert eventfile.ADVANCING_KINDS is results.ADVANCING_KINDS
    assert eventfile.division_of is results.division_of


# -- stages ---------------------------------------------------------------------------------------


def test_more_than_one_final():
    data = changed(lambda d: d["stages"].insert(1, copy.deepcopy(d["stages"][1])))
    assert refused(data)[0] == (
        "stages[2].kind: a second final: stages[1] is the final, and a file has one final "
        "stage at most"
    )


def test_a_final_has_one_table():
    def second_table(d):
        d["stages"][1]["tables"].append({"number": 2, "players": ["p2", "p3"], "rounds": []})

    assert refused(changed(second_table)) == [
        "stages[1].tables[1]: a second final table (stages[1].tables[0] is one): a final has "
        "one table, one per division when players have divisions"
    ]


def test_a_playoff_says_what_it_decides_and_only_a_playoff_does():
    def medals(d):
        d["stages"][2].pop("medal")
        d["stages"][0]["medal"] = "gold"

    assert refused(changed(medals)) == [
        "stages[0].medal: only a playoff stage decides a medal",
        'stages[2].medal: missing: a playoff decides "gold", "silver", "bronze" or "advance"',
    ]


# -- rounds: the engines and PRODUCT.md §4 ---------------------------------------------------------


def test_engines_out_of_order():
    data = changed(lambda d: game1(d, 1)["rounds"][1].update(engine=10))
    assert refused(data) == [
        "stages[0].tables[1].rounds[1].engine: 10 is out of order: round 2 is 11-11, the next "
        "of event.rules.engines"
    ]


def test_more_rounds_than_engines():
    def short_game(d):
        rules(d)["engines"] = [12, 11]

    errors = refused(changed(short_game))
    assert errors[0] == (
        "stages[0].tables[0].rounds[2]: a game has 2 rounds (event.rules.engines): this would "
        "be round 3"
    )


def test_pips_above_what_can_be_left_in_hand():
    data = changed(lambda d: game1(d, 2)["rounds"][0]["pips"].update(p10=2000))
    assert refused(data) == [
        "stages[0].tables[2].rounds[0].pips.p10: 2000 is more than the 731 pips that can be left"
    ]


def test_the_fifty_point_double_blank_raises_the_bound():
    def double_blank(d):
        rules(d)["double_blank_points"] = 50
        game1(d, 2)["rounds"][0]["pips"].update(p9=10, p10=769, p12=5)  # bound 731 - 12 + 50

    assert import_event(changed(double_blank)).rules.max_pips(12, 4) == 769
    data = changed(lambda d: game1(d, 2)["rounds"][0]["pips"].update(p9=10, p10=769, p12=5))
    assert refused(data) == [
        "stages[0].tables[2].rounds[0].pips.p10: 769 is more than the 731 pips that can be left"
    ]


def test_negative_pips():
    data = changed(lambda d: game1(d)["rounds"][0]["pips"].update(p2=-3))
    assert refused(data) == [
        "stages[0].tables[0].rounds[0].pips.p2: -3 is below 0: pips left in hand cannot be negative"
    ]


def test_three_players_cannot_all_have_0():
    data = changed(lambda d: game1(d)["rounds"][0]["pips"].update(p2=0, p3=0))
    assert refused(data) == [
        "stages[0].tables[0].rounds[0].pips: 3 players have 0: only the player who dominoed and "
        "a player holding just the double-blank can have 0"
    ]


def test_a_round_cannot_add_up_to_more_than_the_set_leaves():
    data = changed(lambda d: game1(d)["rounds"][0]["pips"].update(p2=600, p3=600))
    assert refused(data) == [
        "stages[0].tables[0].rounds[0].pips: The round adds up to 1230, more than the 1068 "
        "pips that can be left in hands"
    ]


def test_every_seated_player_has_a_pip_count_and_nobody_else():
    def pips(d):
        game1(d)["rounds"][1]["pips"].pop("p4")
        game1(d)["rounds"][1]["pips"]["p5"] = 12

    assert refused(changed(pips)) == [
        "stages[0].tables[0].rounds[1].pips.p4: missing: every seated player has a pip count",
        'stages[0].tables[0].rounds[1].pips.p5: "p5" is not seated at this table',
    ]


def test_rounds_typed_after_time_was_called_are_accepted():
    """Paper-first events type every round after the game (issue 19): when a round was typed
    says nothing about whether it was played, under "finish" or "void"."""

    def typed_late(d):
        rules(d)["round_in_progress"] = "void"
        for r in game1(d)["rounds"]:
            r["extra"]["entered_at"] = "2019-09-19T14:30:00+00:00"

    event = import_event(changed(typed_late))
    game = Round.objects.filter(table__stage__event=event, table__stage__number=1)
    assert game.filter(table__number=1).count() == 3


def test_a_round_after_the_game_was_marked_over():
    data = changed(lambda d: game1(d).update(extra={"game_over_after": 2}))
    assert refused(data) == [
        "stages[0].tables[0].rounds[2]: after the game was marked over after round 2 "
        "(stages[0].tables[0].extra.game_over_after): no later round was played"
    ]


def test_a_game_marked_over_after_a_round_the_table_does_not_have():
    data = changed(lambda d: game1(d).update(extra={"game_over_after": 5}))
    assert refused(data) == [
        "stages[0].tables[0].extra.game_over_after: 5, but the table has 3 rounds: the game "
        "is marked over after its last round"
    ]


def test_minutes_added_to_an_untimed_game():
    def untimed(d):
        rules(d)["game_minutes"] = None
        d["stages"][0]["extra"]["clock"]["added_minutes"] = 10

    errors = refused(changed(untimed))
    assert errors[0] == (
        "stages[0].extra.clock.added_minutes: an untimed game has no time limit to lengthen "
        "(event.rules.game_minutes)"
    )


@pytest.mark.parametrize(
    ("change", "error"),
    [
        (
            lambda d: rules(d).setdefault("extra", {}).update(infraction_penalty="twice"),
            'event.rules.extra.infraction_penalty: "twice" is not one of "warn_then_draw", '
            '"draw", "warn_then_skip", "skip"',
        ),
        (
            lambda d: rules(d).setdefault("extra", {}).update(infraction_scope="stage"),
            'event.rules.extra.infraction_scope: "stage" is not one of "game", "event"',
        ),
        (
            lambda d: d["stages"][0]["extra"]["clock_events"][0].update(minutes=0),
            "stages[0].extra.clock_events[0].minutes: 0 is below 1",
        ),
    ],
)
def test_the_rules_of_issue_19_in_extra(change, error):
    assert refused(changed(change)) == [error]


def test_an_impossible_clock():
    data = changed(lambda d: d["stages"][0]["extra"]["clock"].update(started_at=None))
    assert refused(data) == [
        "stages[0].extra.clock: A clock that has not been started cannot be paused or called"
    ]


# -- infractions ----------------------------------------------------------------------------------


def test_an_infraction_of_a_player_at_another_table_in_a_round_not_started():
    def infraction(d):
        rules(d)["engines"] = list(range(12, -1, -1))
        game1(d)["infractions"][0].update(player="p5", engine=5)

    assert refused(changed(infraction)) == [
        'stages[0].tables[0].infractions[0].player: "p5" is not seated at this table',
        "stages[0].tables[0].infractions[0].engine: Round 5-5 has not started at this table yet",
    ]


def test_an_infraction_in_a_round_that_is_not_in_the_game():
    data = changed(lambda d: game1(d)["infractions"][0].update(engine=13))
    assert refused(data) == [
        "stages[0].tables[0].infractions[0].engine: 13 is not a round of this game: the "
        "engines are 12-12, 11-11, 10-10, 9-9, 8-8, 7-7, 6-6, 5-5, 4-4, 3-3, 2-2, 1-1, 0-0"
    ]


# -- playoffs: the results the site computes ------------------------------------------------------


def test_a_playoff_between_other_players_than_the_tied_ones():
    data = changed(lambda d: d["stages"][2]["tables"][0].update(players=["p9", "p5"]))
    assert refused(data) == ["stages[2]: the bronze playoff owed is between p9, p13, not p9, p5"]


def test_a_scored_playoff_between_other_players_than_the_tied_ones():
    def played(d):
        d["stages"][2]["tables"][0].update(
            players=["p9", "p5"], rounds=[{"engine": 12, "pips": {"p9": 0, "p5": 20}}]
        )

    assert refused(changed(played)) == [
        "stages[2]: the bronze playoff owed is between p9, p13, not p9, p5"
    ]
    closed = changed(played)
    closed["stages"][2]["closed"] = True
    assert refused(closed) == [
        "stages[2]: this playoff does not fit the ties: Final: the bronze playoff, round 1: "
        "played by ['p5', 'p9'], but owed between ['p13', 'p9']"
    ]


def test_an_open_playoff_decides_nothing_even_when_scored():
    """Issue 12 item 7: "advancers and medals are computed only from closed stages"."""

    def scored(d):
        d["stages"][2]["tables"][0]["rounds"] = [{"engine": 12, "pips": {"p9": 0, "p13": 20}}]

    event = import_event(changed(scored))
    bronze = next(m for m in export_event(event)["results"]["medals"] if m["medal"] == "bronze")
    assert bronze == {
        "medal": "bronze",
        "players": [],
        "pending": "playoff",
        "between": ["p9", "p13"],
    }


def test_a_playoff_that_no_tie_calls_for():
    data = changed(lambda d: d["stages"][2].update(medal="silver"))
    assert refused(data) == ["stages[2]: no silver playoff is owed: the results call for none"]


def test_a_playoff_has_one_round_at_one_table():
    def two_rounds(d):
        playoff = d["stages"][2]
        playoff["tables"][0]["rounds"] = [
            {"engine": 12, "pips": {"p9": 5, "p13": 5}},
            {"engine": 11, "pips": {"p9": 0, "p13": 5}},
        ]
        playoff["tables"].append({**copy.deepcopy(playoff["tables"][0]), "number": 2})

    errors = refused(changed(two_rounds))
    assert errors[:2] == [
        "stages[2].tables[1]: a playoff is played at one table",
        "stages[2].tables[0].rounds[1]: a playoff is one round",
    ]


def test_a_playoff_round_is_played_with_a_double_of_the_set():
    data = changed(
        lambda d: d["stages"][2]["tables"][0].update(
            rounds=[{"engine": 13, "pips": {"p9": 0, "p13": 5}}]
        )
    )
    assert refused(data) == [
        "stages[2].tables[0].rounds[0].engine: Engine 13 is not a double of the double-12 set "
        "(0 to 12)"
    ]


def test_an_advancement_playoff_names_a_table_that_exists():
    data = json.loads((BASE_FILE.parent / "advancement-playoff.json").read_text())
    data["stages"][2]["extra"]["table"]["table"] = 7
    assert refused(data) == ["stages[2].extra.table: stages[0] has no table 7"]


# -- all at once, and all or nothing --------------------------------------------------------------


def test_every_error_is_reported_at_once():
    def many(d):
        rules(d)["medal_tie"] = "coin_toss"
        d["players"][3]["name"] = ""
        game1(d, 2)["rounds"][0]["pips"]["p10"] = 2000
        game1(d, 3)["rounds"][2]["engine"] = 9

    assert refused(changed(many)) == [
        'event.rules.medal_tie: "coin_toss" is not one of "nvso", "shared", "playoff"',
        "players[3].name: cannot be empty",
        "stages[0].tables[2].rounds[0].pips.p10: 2000 is more than the 731 pips that can be left",
        "stages[0].tables[3].rounds[2].engine: 9 is out of order: round 3 is 10-10, the next "
        "of event.rules.engines",
    ]


def test_a_failure_while_writing_leaves_nothing_behind(monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(Infraction.objects, "bulk_create", broken)
    before = row_counts()
    with pytest.raises(RuntimeError):
        import_event(copy.deepcopy(BASE))
    assert row_counts() == before


def test_the_import_command_lists_every_error_and_writes_nothing(tmp_path, capsys):
    path = tmp_path / "bad.json"
    data = changed(lambda d: game1(d, 2)["rounds"][0]["pips"].update(p10=2000, p11=1))
    data["event"]["date"] = "2019-13-01"
    path.write_text(json.dumps(data))
    with pytest.raises(CommandError, match=r"Nothing was imported: 2 errors in .*bad\.json\."):
        call_command("import_event", str(path))
    assert capsys.readouterr().err.splitlines() == [
        'event.date: "2019-13-01" is not a date such as 2019-09-19',
        "stages[0].tables[2].rounds[0].pips.p10: 2000 is more than the 731 pips that can be left",
    ]
    assert row_counts() == {name: 0 for name in row_counts()}


def test_the_error_list_is_also_a_message():
    error = EventFileError.at([("players[0].id", "cannot be empty")])
    assert error.errors == ["players[0].id: cannot be empty"]
    assert str(error) == "The event file has 1 error:\nplayers[0].id: cannot be empty"
    assert eventfile.EventFileError is EventFileError


def test_an_empty_tiles_drawn_is_refused_on_the_import_page_not_a_crash(director_client):
    # Once a 500: the tables were checked with the smallest table of no tiles drawn at all.
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tests.concurrency import form_key

    content = json.dumps(changed(lambda d: rules(d).update(tiles_drawn={}))).encode()
    before = row_counts()
    key = form_key(director_client.get("/director/import/"))
    page = director_client.post(
        "/director/import/", {"file": SimpleUploadedFile("e.json", content), "once": key}
    )
    assert page.status_code == 200
    assert (
        "<code>event.rules.tiles_drawn</code>: Give the tiles drawn for at least one table size"
    ) in page.content.decode()
    assert row_counts() == before
