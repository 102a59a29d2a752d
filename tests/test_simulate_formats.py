"""`manage.py simulate_event EVENT --to-medals` plays any format stage by stage as a director
runs it (issue 30 item 4): Game 1 seated from the players checked in, each stage played and
closed through the close page's service, the next seated by the format (a cumulative event's
next game by its reseating rule, the Final from the cut, semifinals), playoffs played, until
the medals. What lands in the database is checked against totals worked out here from the
pips saved; and the demo loader's second demo, a cumulative event with progressive tables."""

import io
from collections import defaultdict

import pytest
from django.core.management import CommandError, call_command

from scoring.models import Round, Score
from scoring.results import load_results
from scoring.services.rounds import record_round
from tests.factories import make_director, make_event, make_players, seat
from tournament.models import Event, Seat, Stage, StageKind, Table

pytestmark = pytest.mark.django_db


def to_medals(event, *args):
    out = io.StringIO()
    call_command("simulate_event", event.slug, "--to-medals", *map(str, args), stdout=out)
    return out.getvalue()


def stages(event, kind=None):
    found = event.stages.order_by("number")
    return list(found.filter(kind=kind) if kind else found)


def tables_of(stage) -> list[list[int]]:
    """Each table's players (ids) in seat order, table 1 first."""
    return [
        list(t.seats.order_by("position").values_list("player_id", flat=True))
        for t in Table.objects.filter(stage=stage).order_by("number")
    ]


def game_totals(stage) -> dict[int, int]:
    """Each player's total of one stage, summed here from every pip count saved."""
    totals: dict[int, int] = defaultdict(int)
    for score in Score.objects.filter(round__table__stage=stage):
        totals[score.player_id] += score.pips
    return dict(totals)


def shared_places(totals: dict[int, int]) -> dict[int, int]:
    """1, 1, 3 ranking: one more than the players with a lower total."""
    return {pk: 1 + sum(1 for t in totals.values() if t < total) for pk, total in totals.items()}


def assert_shared_medals(medals, totals: dict[int, int]) -> None:
    """The medals the "shared" tie rule gives ``totals``: gold to every lowest total, and so on
    by 1, 1, 3 places."""
    places = shared_places(totals)
    for place, medal in enumerate(("gold", "silver", "bronze"), start=1):
        holders = {pk for pk, p in places.items() if p == place}
        assert set(medals.award(medal).players) == holders, medal


def assert_everyone_once(stage, players) -> None:
    seated = list(Seat.objects.filter(stage=stage).values_list("player_id", flat=True))
    assert sorted(seated) == sorted(p.pk for p in players), stage.name


def assert_progressive(before, after) -> None:
    """Each table's lowest game total moved up one table, its highest down one; table 1's
    lowest and the last table's highest stayed; nobody else moved (k = 1)."""
    totals = game_totals(before)
    old, new = tables_of(before), tables_of(after)
    assert sorted(map(len, new)) == sorted(map(len, old))
    where = {pk: i for i, table in enumerate(new) for pk in table}
    last = len(old) - 1
    for i, table in enumerate(old):
        up = [pk for pk in table if where[pk] == i - 1]
        down = [pk for pk in table if where[pk] == i + 1]
        stay = [pk for pk in table if where[pk] == i]
        assert len(up) == (1 if i > 0 else 0) and len(down) == (1 if i < last else 0)
        assert all(totals[pk] == min(totals[p] for p in table) for pk in up)
        assert all(totals[pk] == max(totals[p] for p in table) for pk in down)
        assert len(stay) == len(table) - len(up) - len(down)


def cumulative_event(players=16, divisions=None, **fmt):
    event = make_event(make_director(), **{"medal_tie": "shared", **fmt})
    if divisions:
        for division in divisions:
            make_players(
                event,
                [f"{division} player {i:02d}" for i in range(1, players + 1)],
                division=division,
            )
    else:
        make_players(event, count=players)
    return event


# -- cumulative, progressive tables ---------------------------------------------------------------


def test_a_cumulative_event_with_progressive_tables_is_played_to_its_medals():
    event = cumulative_event(format_kind="cumulative", format_games=3, format_reseat="progressive")
    players = list(event.players.all())
    out = to_medals(event, "--seed", 4)
    assert "Game 1 seated from the 16 players checked in: 4 tables." in out
    games = stages(event)
    assert [(g.name, g.closed) for g in games] == [
        ("Game 1", True),
        ("Game 2", True),
        ("Game 3", True),
    ]
    for game in games:
        assert_everyone_once(game, players)
        assert Round.objects.filter(table__stage=game).exists()
    assert "Game 1: " in out and "; Game 2 seated: 4 tables (reseated progressively)." in out
    cumulative: dict[int, int] = defaultdict(int)
    for before, after in zip(games, games[1:], strict=False):
        for pk, total in game_totals(before).items():
            cumulative[pk] += total
        assert_progressive(before, after)
    for pk, total in game_totals(games[-1]).items():
        cumulative[pk] += total
    results = load_results(event)
    assert results.cumulative[games[-1].pk] == dict(cumulative)
    [medals] = results.medals
    assert_shared_medals(medals.result, cumulative)
    gold = ", ".join(sorted(results.players[pk].name for pk in medals.result.award("gold").players))
    assert f"Medals: gold {gold};" in out
    assert "played to its medals: 3 stages" in out and "(seed 4)" in out


# -- cumulative, then a Final of 4, two divisions ------------------------------------------------


def test_cumulative_then_a_final_of_four_per_division_is_played_to_its_medals():
    event = cumulative_event(
        players=9,
        divisions=["55-64", "65+"],
        format_kind="cumulative_final",
        format_games=2,
        format_final_size=4,
    )
    players = list(event.players.all())
    division = {p.pk: p.division for p in players}
    out = to_medals(event, "--seed", 6)
    assert "Game 1 seated from the 18 players checked in: 4 tables." in out
    game1, game2, final = stages(event)
    assert final.kind == StageKind.FINAL and all(s.closed for s in (game1, game2, final))
    cumulative: dict[int, int] = defaultdict(int)
    for game in (game1, game2):
        assert_everyone_once(game, players)
        assert all(len({division[pk] for pk in table}) == 1 for table in tables_of(game))
        for pk, total in game_totals(game).items():
            cumulative[pk] += total
    assert "Game 2 seated: 4 tables (reseated at random, fewest repeated tablemates)" in out
    final_tables = tables_of(final)
    assert len(final_tables) == 2, "one Final table per division"
    final_totals = game_totals(final)
    results = load_results(event)
    medals = {m.division: m.result for m in results.medals}
    assert set(medals) == {"55-64", "65+"}
    for name in medals:
        totals = {pk: t for pk, t in cumulative.items() if division[pk] == name}
        fourth = sorted(totals.values())[3]
        clear = {pk for pk, t in totals.items() if t < fourth}
        at_cut = clear | {pk for pk, t in totals.items() if t == fourth}
        [finalists] = [set(t) for t in final_tables if division[t[0]] == name]
        if len(at_cut) <= 5:  # a tie at the cut all go on while one table can deal them
            assert finalists == at_cut
        else:  # a playoff among the tied filled the last places
            assert clear < finalists < at_cut and len(finalists) == 4
        assert_shared_medals(medals[name], {pk: final_totals[pk] for pk in finalists})
        assert f"Medals ({name}): gold " in out


# -- a knockout ---------------------------------------------------------------------------------


def test_a_knockout_is_played_to_its_medals_each_stage_seated_from_the_last_ones_best():
    event = make_event(make_director(), medal_tie="shared")
    make_players(event, count=22)
    out = to_medals(event, "--seed", 8)
    played = stages(event)
    assert played[0].name == "Game 1" and played[-1].kind == StageKind.FINAL
    assert all(s.closed for s in played)
    assert_everyone_once(played[0], list(event.players.all()))
    for before, after in zip(played, played[1:], strict=False):
        # Each table sends on its lowest totals (the road to the Final says how many).
        totals = game_totals(before)
        going = {pk for table in tables_of(after) for pk in table}
        for table in tables_of(before):
            on = [totals[pk] for pk in table if pk in going]
            off = [totals[pk] for pk in table if pk not in going]
            assert on and (not off or max(on) < min(off)), after.name
        assert f"{before.name}: " in out and f"closed; {after.name} seated: " in out
    [final_table] = tables_of(played[-1])
    [medals] = load_results(event).medals
    final_totals = game_totals(played[-1])
    assert_shared_medals(medals.result, {pk: final_totals[pk] for pk in final_table})
    assert f"played to its medals: {len(played)} stages" in out


# -- a tie for a medal: its playoff is played ---------------------------------------------------


def enter_totals(table, totals: dict[int, int], user=None) -> None:
    """Two rounds that leave each player with their total: the lowest dominoes round 1, the
    others hold 1 pip; round 2 holds the rest."""
    low = min(totals, key=lambda pk: (totals[pk], pk))
    first = {pk: 0 if pk == low else 1 for pk in totals}
    record_round(table, first, user)
    record_round(table, {pk: totals[pk] - first[pk] for pk in totals}, user)


def test_a_tie_for_silver_is_played_off_and_the_medals_follow_it():
    event = make_event(
        make_director(),
        format_kind="cumulative",
        format_games=1,
        engines=[1, 0],
        game_minutes=None,
    )
    make_players(event, count=8)
    game1 = seat(event)
    planned = iter([5, 12, 12, 30, 31, 32, 33, 34])
    chosen = {}
    for table in Table.objects.filter(stage=game1).order_by("number"):
        seated = list(table.seats.order_by("position").values_list("player_id", flat=True))
        chosen.update({pk: next(planned) for pk in seated})
        enter_totals(table, {pk: chosen[pk] for pk in seated})
    out = to_medals(event, "--seed", 2)
    assert "Game 1 was seated already." in out
    playoffs = stages(event, StageKind.PLAYOFF)
    assert f"Game 1: 0 rounds at 2 tables; closed, {playoffs[0].name} to play." in out
    assert playoffs and all(p.closed for p in playoffs)
    tied = {pk for pk, total in chosen.items() if total == 12}
    assert {s.player_id for s in Seat.objects.filter(stage=playoffs[0])} == tied
    decider = game_totals(playoffs[-1])  # a tied playoff is played again: the last decides
    silver = min(decider, key=decider.get)
    [medals] = load_results(event).medals
    gold = next(pk for pk, total in chosen.items() if total == 5)
    assert medals.result.award("gold").players == (gold,)
    assert medals.result.award("silver").players == (silver,)
    assert medals.result.award("bronze").players == tuple(tied - {silver})
    assert f"{playoffs[0].name}: 1 round at 1 table; its round decides." in out


def test_a_tie_at_a_tables_top_is_played_off_before_the_final_is_seated():
    event = make_event(
        make_director(),
        medal_tie="shared",
        advancement_tie="playoff",
        engines=[1, 0],
        game_minutes=None,
    )
    make_players(event, count=8)
    game1 = seat(event)
    table1, table2 = Table.objects.filter(stage=game1).order_by("number")
    seated = [
        list(t.seats.order_by("position").values_list("player_id", flat=True))
        for t in (table1, table2)
    ]
    # The road to a Final of 4 takes each table's two lowest: table 1's second place is tied.
    enter_totals(table1, dict(zip(seated[0], [5, 9, 9, 30], strict=True)))
    enter_totals(table2, dict(zip(seated[1], [7, 15, 20, 30], strict=True)))
    out = to_medals(event, "--seed", 3)
    playoffs = stages(event, StageKind.PLAYOFF)
    assert {s.player_id for s in Seat.objects.filter(stage=playoffs[0])} == set(seated[0][1:3])
    decider = game_totals(playoffs[-1])
    final = event.stages.get(kind=StageKind.FINAL)
    assert final.closed
    assert {s.player_id for s in Seat.objects.filter(stage=final)} == {
        seated[0][0],
        min(decider, key=decider.get),
        *seated[1][:2],
    }
    lines = out.splitlines()
    assert lines[1] == f"Game 1: 0 rounds at 2 tables; closed, {playoffs[0].name} to play."
    assert lines[2] == f"{playoffs[0].name}: 1 round at 1 table; its round decides."
    assert lines[-4] == "Final seated: 1 table."  # once the playoff was played
    assert lines[-3].startswith("Final: ") and lines[-3].endswith("; closed.")
    [medals] = load_results(event).medals
    final_totals = game_totals(final)
    assert_shared_medals(medals.result, final_totals)


# -- refusals: nothing saved ---------------------------------------------------------------------


def refused(event, *args):
    with pytest.raises(CommandError) as error:
        to_medals(event, *args)
    return str(error.value)


def test_an_event_with_nobody_seated_or_checked_in_is_refused():
    event = make_event(make_director(), name="Empty Open")
    make_players(event, count=8, checked_in=False)
    assert refused(event) == (
        "Nothing was saved: Nobody is checked in: check players in, or seat Game 1 first."
    )
    assert "leave out --stage" in refused(event, "--stage", 1)


def test_a_refusal_at_a_later_stage_saves_nothing_not_even_game_1(monkeypatch):
    from scoring.services import simulation

    event = cumulative_event(players=8, format_kind="cumulative", format_games=2)
    real = simulation.simulate_stage

    def refuse_game_2(stage, *args, **kwargs):
        if stage.number == 2:
            raise simulation.SimulationRefused("Game 2, table 1: the deal failed")
        return real(stage, *args, **kwargs)

    monkeypatch.setattr(simulation, "simulate_stage", refuse_game_2)
    assert refused(event, "--seed", 1) == "Nothing was saved: Game 2, table 1: the deal failed"
    assert not Seat.objects.filter(stage__event=event).exists()
    assert not Round.objects.filter(table__stage__event=event).exists()
    assert not Stage.objects.filter(event=event, closed=True).exists()


def test_time_already_called_on_the_stage_to_play_is_refused():
    from tournament.services.clock import call_time, start_clock

    event = make_event(make_director())
    make_players(event, count=8)
    game1 = seat(event)
    start_clock(game1, None)
    call_time(game1, None)
    assert "Time was called on Game 1" in refused(event, "--seed", 1)
    assert not Round.objects.exists()


# -- the demo loader's second demo ----------------------------------------------------------------


def test_the_demo_loader_loads_both_demos_once():
    from scoring.services.demo import CUMULATIVE_ROUNDS_IN_GAME_3

    out = io.StringIO()
    call_command("load_demo", stdout=out)
    assert "Demo event loaded: /e/demo/" in out.getvalue()
    assert "Cumulative demo event loaded: /e/demo-club-night/" in out.getvalue()
    demo = Event.objects.get(slug="demo")
    assert demo.players.count() == 18 and not demo.format.is_cumulative
    club = Event.objects.get(slug="demo-club-night")
    fmt = club.format
    assert (fmt.kind, fmt.games, fmt.reseat, fmt.move) == ("cumulative", 3, "progressive", 1)
    players = list(club.players.all())
    assert len(players) == 20 and all(p.checked_in for p in players)
    game1, game2, game3 = stages(club)
    assert (game1.closed, game2.closed, game3.closed) == (True, True, False)
    for game in (game1, game2, game3):
        assert_everyone_once(game, players)
        assert [len(t) for t in tables_of(game)] == [4, 4, 4, 4, 4]
    for game in (game1, game2):  # untimed: every table played every engine
        assert Round.objects.filter(table__stage=game).count() == 5 * 13
    played = [
        Round.objects.filter(table=t).count()
        for t in Table.objects.filter(stage=game3).order_by("number")
    ]
    assert played == list(CUMULATIVE_ROUNDS_IN_GAME_3)
    assert_progressive(game1, game2)
    assert_progressive(game2, game3)
    results = load_results(club)
    expected = defaultdict(int)
    for game in (game1, game2):
        for pk, total in game_totals(game).items():
            expected[pk] += total
    assert results.cumulative[game2.pk] == dict(expected) and not results.medals

    again = io.StringIO()
    call_command("load_demo", stdout=again)
    assert "Demo event already loaded." in again.getvalue()
    assert "Cumulative demo event already loaded." in again.getvalue()
    assert Event.objects.count() == 2
    assert Round.objects.filter(table__stage__event=club).count() == 2 * 65 + sum(
        CUMULATIVE_ROUNDS_IN_GAME_3
    )


def test_a_playoff_of_three_at_tables_of_six_to_eight_is_played_to_the_medals():
    """The night of issue 45: two mixed double-9 sets, tables of 6 to 8, three players tied at
    the Final's cut. The site seats a playoff of exactly those three, a size the chart does not
    list: the simulator deals it as a table of 6 (15 tiles each) and plays on to the medals
    (once "The rule set deals no table of 3 players")."""
    event = make_event(
        make_director(),
        set_size=9,
        sets=2,
        engines=[9],
        tiles_drawn={"6": 15, "7": 13, "8": 12},
        table_size=7,
        game_minutes=None,
        format_kind="cumulative_final",
        format_games=1,
        format_final_size=6,
        advancement_tie="playoff",
        medal_tie="shared",
    )
    make_players(event, count=12)
    game1 = seat(event)
    planned = iter([1, 2, 3, 10, 20, 21, 4, 5, 10, 10, 22, 23])  # 5 clear, 3 tied for sixth
    for table in Table.objects.filter(stage=game1).order_by("number"):
        seated = list(table.seats.order_by("position").values_list("player_id", flat=True))
        record_round(table, {pk: next(planned) for pk in seated}, None)
    out = to_medals(event, "--seed", 5)
    [first, *replays] = stages(event, StageKind.PLAYOFF)
    assert Seat.objects.filter(stage=first).count() == 3
    assert f"{first.name}: 1 round at 1 table; its round decides." in out
    final = event.stages.get(kind=StageKind.FINAL)
    assert final.closed and Seat.objects.filter(stage=final).count() == 6
    assert "Medals: gold " in out
