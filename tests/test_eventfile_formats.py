"""Formats and mixed sets in the event file (formats/event-file.md, "Formats and mixed sets";
PRODUCT.md §12): a cumulative event's format, games, Final and cut playoffs travel in the file
and back, ``results.cumulative`` follows each closed game, a format that cannot be played is
refused at its setting, and a file without them is the knockout with one set it always was.

The samples are written here by hand: 8 players, 3 games at 2 tables of 4 (3 rounds each, so
the totals can be added up by eye), then a Final of 4.
"""

import copy
import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from scoring.eventfile import EventFileError, dumps, export_event, import_event
from scoring.eventfile.schema import SCHEMA_FILE
from scoring.models import Infraction, Round, Score, ScoreChange
from tests.factories import make_event
from tests.test_formats_flow import CUT_TIE, tie_at_the_cut
from tournament.game.formats import Format
from tournament.game.rules import RuleSet
from tournament.models import ClockEvent, Event, Player, Seat, Stage, Table

pytestmark = pytest.mark.django_db

DATA = Path(__file__).parent / "data"
MODELS = [Event, Player, Stage, Table, Seat, ClockEvent, Round, Score, ScoreChange, Infraction]

RULES = {
    "set": 12,
    "engines": [12, 11, 10],
    "tiles_drawn": {"2": 15, "3": 15, "4": 15, "5": 15},
    "game_minutes": None,
    "round_in_progress": "finish",
    "double_blank_points": 0,
    "advancement_tie": "all_advance",
    "medal_tie": "nvso",
    "infraction_penalty": "warn_then_draw",
    "extra": {"table_size": 4},
}
PLAYERS = [f"p{n}" for n in range(1, 9)]

# Each game's tables, each player's pips in the three rounds (one 0 per round), in seat order.
GAMES = [
    [
        {"p1": [0, 10, 5], "p2": [20, 0, 10], "p3": [30, 20, 0], "p4": [40, 30, 20]},
        {"p5": [0, 15, 10], "p6": [25, 0, 15], "p7": [35, 25, 0], "p8": [45, 35, 25]},
    ],
    [
        {"p1": [0, 10, 10], "p5": [10, 0, 10], "p2": [20, 20, 0], "p6": [30, 30, 30]},
        {"p3": [0, 10, 10], "p7": [20, 0, 20], "p4": [30, 30, 0], "p8": [40, 40, 40]},
    ],
    [
        {"p1": [0, 5, 5], "p3": [10, 0, 10], "p5": [20, 20, 0], "p7": [30, 30, 30]},
        {"p2": [0, 10, 10], "p4": [10, 0, 10], "p6": [20, 20, 0], "p8": [50, 50, 50]},
    ],
]
# The cumulative totals after each game, added up by hand: lowest first, ties in players' order.
CUMULATIVE = {
    "Game 1": {"p1": 15, "p5": 25, "p2": 30, "p6": 40, "p3": 50, "p7": 60, "p4": 90, "p8": 105},
    "Game 2": {"p1": 35, "p5": 45, "p2": 70, "p3": 70, "p7": 100, "p6": 130, "p4": 150, "p8": 225},
    "Game 3": {"p1": 45, "p5": 85, "p2": 90, "p3": 90, "p4": 170, "p6": 170, "p7": 190, "p8": 375},
}
# The Final of the four lowest after Game 3 (p1 45, p5 85, p2 90, p3 90): p5 10, p1 30, p2 40.
FINAL = {"p1": [10, 10, 10], "p5": [0, 5, 5], "p2": [20, 0, 20], "p3": [30, 30, 0]}


def table(number: int, pips: dict[str, list[int]]) -> dict:
    rounds = [
        {"engine": engine, "pips": {p: counts[n] for p, counts in pips.items()}}
        for n, engine in enumerate(RULES["engines"])
        if all(len(counts) > n for counts in pips.values())
    ]
    return {"number": number, "players": list(pips), "rounds": rounds, "infractions": []}


def stage(name: str, kind: str, tables=(), closed: bool = True, **more) -> dict:
    return {"name": name, "kind": kind, **more, "closed": closed, "tables": list(tables)}


def game(n: int, closed: bool = True) -> dict:
    tables = [table(t, pips) for t, pips in enumerate(GAMES[n - 1], 1)]
    return stage(f"Game {n}", "qualifying", tables, closed=closed)


def event_file(kind: str = "cumulative_final", played: int = 3, final: bool = True, **fmt) -> dict:
    """The sample event: its games (the first ``played`` closed and seated, the rest not yet
    seated), then for ``cumulative_final`` its Final (played when ``final``)."""
    stages = [
        game(n) if n <= played else stage(f"Game {n}", "qualifying", closed=False)
        for n in (1, 2, 3)
    ]
    if kind == "cumulative_final":
        stages.append(
            stage("Final", "final", [table(1, FINAL)])
            if final
            else stage("Final", "final", closed=False)
        )
    return {
        "format": "mexican-train-event",
        "version": 1,
        "event": {
            "name": "Club cumulative",
            "date": "2026-03-14",
            "venue": "Hall",
            "rules": copy.deepcopy(RULES),
            "format": {"kind": kind, "games": 3, "reseat": "progressive", **fmt},
        },
        "players": [{"id": p, "name": f"Player {p[1:]}", "division": None} for p in PLAYERS],
        "stages": stages,
    }


def cumulative_file() -> dict:
    """A cumulative event without a Final: p2 and p3 tie for bronze on 90 (NVSO: a playoff),
    which p2 wins."""
    data = event_file("cumulative")
    playoff = {"p2": [10], "p3": [25]}
    data["stages"].append(stage("Bronze playoff", "playoff", [table(1, playoff)], medal="bronze"))
    return data


def cut_file() -> dict:
    """A Final of 3 under the playoff tie rule: p2 and p3 tie at the cut on 90, their playoff
    still to play, the Final not seated."""
    data = event_file(final=False, final_size=3)
    data["event"]["rules"]["advancement_tie"] = "playoff"
    cut = stage("Playoff", "playoff", [table(1, {"p2": [], "p3": []})], closed=False)
    cut["medal"] = "advance"
    data["stages"].insert(3, cut)
    return data


def seated(event: Event, stage_name: str, number: int) -> list[str]:
    """The player ids at a table, in seat order."""
    seats = Seat.objects.filter(stage__event=event, stage__name=stage_name, table__number=number)
    return list(seats.order_by("position").values_list("player__ref", flat=True))


def row_counts() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in MODELS}


def refused(data: dict) -> list[str]:
    """Import ``data``, expecting a refusal that writes nothing."""
    before = row_counts()
    with pytest.raises(EventFileError) as caught:
        import_event(json.dumps(data))
    assert row_counts() == before
    return caught.value.errors


def round_trip(data: dict) -> tuple[str, str]:
    """The file the site exports after importing ``data``, and the file exported after
    importing that one into the same (otherwise empty) site."""
    first = dumps(export_event(import_event(json.dumps(data))))
    return first, dumps(export_event(import_event(first)))


# -- into the database ---------------------------------------------------------------------------


def test_a_cumulative_final_file_lands_with_its_format_sets_and_stages():
    data = event_file(final_size=4, medals_from="cumulative_plus_final", move=1)
    event = import_event(json.dumps(data))
    assert event.format == Format(
        kind="cumulative_final",
        games=3,
        reseat="progressive",
        move=1,
        final_size=4,
        medals_from="cumulative_plus_final",
    )
    assert event.sets == 1
    assert [(s.number, s.name, s.kind, s.closed) for s in event.stages.order_by("number")] == [
        (1, "Game 1", "qualifying", True),
        (2, "Game 2", "qualifying", True),
        (3, "Game 3", "qualifying", True),
        (4, "Final", "final", True),
    ]
    assert seated(event, "Game 2", 1) == ["p1", "p5", "p2", "p6"]
    assert seated(event, "Final", 1) == ["p1", "p5", "p2", "p3"]
    assert Round.objects.filter(table__stage__event=event).count() == 3 * (2 * 3 + 1)


def test_a_cumulative_event_just_set_up_holds_its_games_and_final_with_no_tables():
    event = import_event(json.dumps(event_file(played=0, final=False)))
    stages = list(event.stages.order_by("number"))
    assert [(s.name, s.kind) for s in stages] == [
        ("Game 1", "qualifying"),
        ("Game 2", "qualifying"),
        ("Game 3", "qualifying"),
        ("Final", "final"),
    ]
    assert not Table.objects.filter(stage__event=event).exists()
    assert event.format.final_size is None  # one table's worth: not given, the default
    assert (event.format_reseat, event.format_move, event.format_medals_from) == (
        "progressive",
        1,
        "final",
    )


def test_the_format_settings_not_given_are_the_defaults():
    data = event_file(played=0, final=False)
    data["event"]["format"] = {"kind": "cumulative", "games": 3}
    data["stages"].pop()  # no Final
    event = import_event(json.dumps(data))
    assert event.format == Format(kind="cumulative", games=3)


def test_a_cumulative_events_advancement_playoff_settles_the_cut_after_its_last_game():
    event = import_event(json.dumps(cut_file()))
    playoff = event.stages.get(kind="playoff")
    assert playoff.number == 4
    assert playoff.medal == "advance"
    assert playoff.wildcards_of == event.stages.get(name="Game 3")
    assert playoff.playoff_table is None
    assert event.stages.get(kind="final").number == 5


# -- out and back --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sample", [cumulative_file, event_file, cut_file], ids=lambda f: f.__name__
)
def test_export_import_export_gives_the_same_file(sample):
    first, again = round_trip(sample())
    assert again == first
    written = json.loads(first)
    assert written["event"]["format"]["kind"] == sample()["event"]["format"]["kind"]
    assert "sets" not in written["event"]["rules"]


def test_the_format_is_written_whole_and_where_the_spec_puts_it():
    written = json.loads(round_trip(event_file(final_size=4))[0])
    assert list(written["event"]) == ["name", "date", "venue", "rules", "format", "extra"]
    assert written["event"]["format"] == {
        "kind": "cumulative_final",
        "games": 3,
        "reseat": "progressive",
        "move": 1,
        "final_size": 4,
        "medals_from": "final",
    }


def test_results_cumulative_is_every_players_total_after_each_closed_game():
    results = export_event(import_event(json.dumps(cumulative_file())))["results"]
    assert results["cumulative"] == CUMULATIVE
    assert list(results["cumulative"]["Game 3"]) == list(CUMULATIVE["Game 3"])  # lowest first
    assert results["advanced"] == {}  # no Final to go on to
    assert results["medals"] == [
        {"medal": "gold", "players": ["p1"]},
        {"medal": "silver", "players": ["p5"]},
        {"medal": "bronze", "players": ["p2"]},
    ]


def test_an_open_game_is_not_counted_and_no_one_advances_before_the_last_game_closes():
    data = event_file(final=False)
    data["stages"][2]["closed"] = False
    results = export_event(import_event(json.dumps(data)))["results"]
    assert results["cumulative"] == {k: CUMULATIVE[k] for k in ("Game 1", "Game 2")}
    assert results["advanced"] == {}
    assert results["medals"] == []


def test_the_four_lowest_play_the_final_and_its_totals_give_the_medals():
    results = export_event(import_event(json.dumps(event_file())))["results"]
    assert list(results["advanced"]) == ["Game 3"]
    assert sorted(results["advanced"]["Game 3"]) == ["p1", "p2", "p3", "p5"]
    assert "Final" not in results["cumulative"]
    assert [(m["medal"], m["players"]) for m in results["medals"]] == [
        ("gold", ["p5"]),
        ("silver", ["p1"]),
        ("bronze", ["p2"]),
    ]


def test_medals_from_the_cumulative_total_plus_the_final():
    data = event_file(medals_from="cumulative_plus_final")
    results = export_event(import_event(json.dumps(data)))["results"]
    # p1 45 + 30, p5 85 + 10, p2 90 + 40, p3 90 + 60
    assert [(m["medal"], m["players"]) for m in results["medals"]] == [
        ("gold", ["p1"]),
        ("silver", ["p5"]),
        ("bronze", ["p2"]),
    ]


def test_while_the_cut_playoff_is_owed_only_those_clear_of_the_cut_advance():
    results = export_event(import_event(json.dumps(cut_file())))["results"]
    assert sorted(results["advanced"]["Game 3"]) == ["p1", "p5"]


def played_cut(players: dict[str, list[int]]) -> dict:
    """The cut file with its playoff played and closed, the Final seated and not started."""
    data = cut_file()
    data["stages"][3] = stage("Playoff", "playoff", [table(1, players)], medal="advance")
    data["stages"][4]["tables"] = [table(1, {"p1": [], "p5": [], "p2": []})]
    return data


def test_the_cut_playoffs_winner_fills_the_last_place_of_the_final():
    data = played_cut({"p2": [10], "p3": [25]})
    first, again = round_trip(data)
    assert again == first
    assert sorted(json.loads(first)["results"]["advanced"]["Game 3"]) == ["p1", "p2", "p5"]


def test_a_cut_playoff_played_by_others_than_the_tied_is_refused_at_it():
    (error,) = refused(played_cut({"p2": [10], "p4": [25]}))
    assert error.startswith("stages[3]: this playoff does not fit the ties: ")
    assert "owed between ['p2', 'p3']" in error


def test_a_cumulative_event_run_on_the_site_round_trips_with_its_cut_playoff(director_client):
    event = tie_at_the_cut(director_client)
    data = export_event(event)
    # The playoff of the cut is played before the Final, which exists from the start.
    assert [(s["kind"], s.get("medal")) for s in data["stages"]] == [
        ("qualifying", None),
        ("playoff", "advance"),
        ("final", None),
    ]
    assert data["stages"][1]["extra"]["wildcards_of"] == 0
    ids = {p["name"]: p["id"] for p in data["players"]}
    assert sorted(data["results"]["advanced"]["Game 1"]) == sorted(
        ids[n] for n in ("P1", "P2", "P3")
    )
    assert data["results"]["cumulative"]["Game 1"] == {ids[n]: t for n, t in CUT_TIE.items()}
    text = dumps(data)
    assert dumps(export_event(import_event(text))) == text


def test_an_event_set_up_on_the_site_as_cumulative_round_trips(director):
    event = make_event(director, format_kind="cumulative_final", format_games=2)
    data = export_event(event)
    assert data["event"]["format"]["games"] == 2
    assert [(s["name"], s["kind"], s["tables"]) for s in data["stages"]] == [
        ("Game 1", "qualifying", []),
        ("Game 2", "qualifying", []),
        ("Final", "final", []),
    ]
    assert data["results"] == {"advanced": {}, "cumulative": {}, "medals": []}
    text = dumps(data)
    assert dumps(export_event(import_event(text))) == text


def test_the_samples_are_valid_by_the_published_schema():
    schema = Draft202012Validator(json.loads(SCHEMA_FILE.read_text(encoding="utf-8")))
    for sample in (cumulative_file(), event_file(), cut_file()):
        assert list(schema.iter_errors(sample)) == []
    data = event_file()
    data["event"]["format"]["kind"] = "swiss"
    assert not schema.is_valid(data)


# -- older files ---------------------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(DATA.glob("*.json")), ids=lambda p: p.stem)
def test_a_file_without_a_format_is_a_knockout_with_one_set_and_exports_the_same(path):
    text = path.read_text(encoding="utf-8")
    assert "format" not in json.loads(text)["event"]
    event = import_event(text)
    assert (event.format, event.sets) == (Format(), 1)
    exported = dumps(export_event(event))
    assert exported == text
    assert '"sets"' not in exported and '"cumulative"' not in exported


def test_a_knockout_may_say_so_and_is_written_as_before():
    text = (DATA / "shared-medals.json").read_text(encoding="utf-8")
    data = json.loads(text)
    data["event"]["format"] = {"kind": "knockout"}
    data["event"]["rules"]["sets"] = 1
    assert dumps(export_event(import_event(json.dumps(data)))) == text


# -- mixed sets ----------------------------------------------------------------------------------


def two_sets_file(tiles_drawn: dict[str, int]) -> dict:
    """Two double-9 sets mixed (110 tiles, 109 beside the engine), 12 players, nothing seated."""
    data = event_file(played=0, final=False)
    rules = data["event"]["rules"]
    rules.update(set=9, sets=2, engines=[9, 8, 7], tiles_drawn=tiles_drawn)
    rules["extra"]["table_size"] = 6
    data["players"] = [
        {"id": f"p{n}", "name": f"Player {n}", "division": None} for n in range(1, 13)
    ]
    data["event"]["format"] = {"kind": "cumulative_final", "games": 3, "final_size": 6}
    return data


def test_two_sets_travel_and_deal_tables_one_set_cannot():
    # 6 × 12 = 72 tiles: more than one double-9 set's 54 beside the engine, not two sets' 109.
    data = two_sets_file({"5": 12, "6": 12})
    event = import_event(json.dumps(data))
    assert (event.sets, event.rules.sets) == (2, 2)
    written = export_event(event)
    assert list(written["event"]["rules"])[:3] == ["set", "sets", "engines"]
    assert written["event"]["rules"]["sets"] == 2
    text = dumps(written)
    assert dumps(export_event(import_event(text))) == text


def test_a_two_set_file_whose_tiles_drawn_cannot_be_dealt_is_refused_at_the_size():
    data = two_sets_file({"6": 12, "8": 14})  # 8 × 14 = 112 tiles: more than 109
    rules = RuleSet(set=9, sets=2, engines=(9, 8, 7), tiles_drawn={8: 14}, table_size=8)
    (problem,) = rules.problems()
    assert refused(data) == [f"event.rules.tiles_drawn.8: {problem.removesuffix('.')}"]


# -- refused, each error at its place ------------------------------------------------------------


def fmt(data: dict) -> dict:
    return data["event"]["format"]


def test_an_unknown_kind_is_refused_at_the_kind():
    data = event_file()
    fmt(data)["kind"] = "swiss"
    assert refused(data) == [
        'event.format.kind: "swiss" is not one of "knockout", "cumulative", "cumulative_final"'
    ]


def test_zero_games_is_refused_at_the_games():
    data = event_file()
    fmt(data)["games"] = 0
    assert refused(data) == ["event.format.games: Everyone plays 1 to 12 games, not 0"]


def test_a_cumulative_format_without_its_number_of_games_is_refused():
    data = event_file()
    del fmt(data)["games"]
    assert refused(data) == [
        "event.format.games: missing: a cumulative event says how many games everyone plays"
    ]


def test_moving_more_than_half_a_table_is_refused_at_the_move():
    data = event_file()
    fmt(data)["move"] = 3
    rules = RuleSet(tiles_drawn={2: 15, 3: 15, 4: 15, 5: 15}, table_size=4)
    (problem,) = Format(kind="cumulative", reseat="progressive", move=3).problems(rules)
    assert "3 players cannot move up and 3 down at tables of 4" in problem
    assert refused(data) == [f"event.format.move: {problem.removesuffix('.')}"]


def test_a_final_larger_than_the_field_is_refused_at_its_size():
    data = event_file(played=0, final=False, final_size=5)
    data["players"] = data["players"][:4]
    assert refused(data) == [
        "event.format.final_size: A Final of 5 is larger than the field of 4 players"
    ]


def test_a_final_that_cannot_be_dealt_is_refused_at_its_size():
    data = event_file(final_size=6)
    (problem,) = refused(data)
    assert problem.startswith("event.format.final_size: A Final of 6 cannot be dealt")


def test_three_sets_is_refused_at_the_sets():
    data = event_file()
    data["event"]["rules"]["sets"] = 3
    assert refused(data) == ["event.rules.sets: 3 is not 1 or 2 (copies of the set mixed together)"]


@pytest.mark.parametrize("value", [True, "2", 2.0, None])
def test_sets_is_a_whole_number(value):
    data = event_file()
    data["event"]["rules"]["sets"] = value
    (error,) = refused(data)
    assert error.startswith("event.rules.sets: ")


def test_a_null_format_is_refused():
    data = event_file()
    data["event"]["format"] = None
    assert refused(data) == ["event.format: expected an object, not null"]


# -- the stages of a cumulative event ------------------------------------------------------------


def test_the_games_come_first_and_all_of_them():
    data = event_file()
    fmt(data)["games"] = 4
    assert refused(data) == [
        'stages[3].kind: "final", but the first 4 stages are the games everyone plays '
        '(event.format.games): kind "qualifying"',
        'stages: no stage of kind "final": a cumulative event with a Final (event.format.kind) '
        "holds it from the start, after its 4 games",
    ]
    data = event_file()
    data["stages"] = data["stages"][:2]
    assert refused(data) == [
        "stages: 2 stages, but a cumulative event holds its 3 games (event.format.games) "
        "from the start: its first stages"
    ]


def test_a_cumulative_event_without_a_final_has_only_medal_playoffs_after_its_games():
    data = event_file("cumulative")
    data["stages"].append(stage("Final", "final"))
    assert refused(data) == [
        'stages[3].kind: "final", but after its games a cumulative event without a Final '
        "(event.format.kind) has only medal playoffs"
    ]


def test_a_cumulative_final_holds_its_final_and_no_semifinal():
    data = event_file()
    data["stages"].pop()
    assert refused(data) == [
        'stages: no stage of kind "final": a cumulative event with a Final (event.format.kind) '
        "holds it from the start, after its 3 games"
    ]
    data = event_file()
    data["stages"].insert(3, stage("Semifinal", "semifinal", closed=False))
    assert refused(data) == [
        'stages[3].kind: "semifinal", but between its games and its Final a cumulative event '
        'has only the playoffs of the cut (kind "playoff", medal "advance")'
    ]


def test_a_medal_playoff_comes_after_the_final_and_a_cut_playoff_before_it():
    data = event_file(final=False)
    data["stages"].insert(3, stage("Gold playoff", "playoff", closed=False, medal="gold"))
    assert refused(data) == [
        'stages[3].medal: "gold", but between its games and its Final a cumulative event '
        'has only the playoffs of the cut (kind "playoff", medal "advance")'
    ]
    data = event_file(final=False)
    data["stages"].append(stage("Playoff", "playoff", closed=False, medal="advance"))
    assert refused(data) == [
        'stages[4].medal: "advance", but after its Final a cumulative event has only medal playoffs'
    ]


def test_a_cut_playoff_settles_no_tables_tie_and_no_other_games_cut():
    data = cut_file()
    data["stages"][3]["extra"] = {"table": {"stage": 2, "table": 1}}
    assert refused(data) == [
        "stages[3].extra.table: a cumulative event's advancement playoff settles the cut after "
        "its last game, not a table's tie"
    ]
    data = cut_file()
    data["stages"][3]["extra"] = {"wildcards_of": 1}
    assert refused(data) == [
        "stages[3].extra.wildcards_of: stages[1] is not the last game (stages[2]): a cumulative "
        "event's advancement playoff settles the cut after it"
    ]


# -- the best overall instead of each table's winner ---------------------------------------------


def with_finals(**finals) -> dict:
    data = json.loads((DATA / "shared-medals.json").read_text(encoding="utf-8"))
    data["event"].setdefault("extra", {})["finals"] = finals
    return data


def test_a_knockout_of_the_best_overall_travels():
    event = import_event(json.dumps(with_finals(top_n=0, fill_to=4)))
    assert (event.finals_top_n, event.finals_fill_to) == (0, 4)
    assert export_event(event)["event"]["extra"]["finals"]["top_n"] == 0


def test_the_best_overall_without_a_number_is_refused_at_its_setting():
    errors = refused(with_finals(top_n=0))
    assert any(e.startswith("event.extra.finals.top_n: At least the top 1") for e in errors)
