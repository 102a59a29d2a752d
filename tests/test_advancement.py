"""Closing stages, advancing, playoffs and medals, through the pages a director uses."""

import pytest

from scoring.models import Round
from scoring.results import load_results
from scoring.services.rounds import record_round
from scoring.sheets import table_sheet
from tests.factories import make_event, make_players, publish_drafts, seat
from tournament.models import Seat, Stage, StageKind, Table

pytestmark = pytest.mark.django_db


def short_event(director, **fields):
    """Two rounds a game (engines 1-1 then 0-0) keep the arithmetic readable; each Game 1
    table's winner advances (the director's choice: tests/test_finals.py has the default)."""
    fields.setdefault("finals_top_n", 1)
    return make_event(director, engines=[1, 0], game_minutes=None, **fields)


def play_totals(table, totals):
    """Enter two rounds at ``table`` that leave its players (seat order) with ``totals``.

    The first player with the lowest total dominoes the first round; the rest is in round two.
    """
    players = table_sheet(table).players
    if isinstance(totals, dict):  # by name, whatever the seat order
        totals = [totals[p.name] for p in players]
    totals = list(totals)
    first = {p.pk: 0 if i == totals.index(min(totals)) else 1 for i, p in enumerate(players)}
    record_round(table, first, None)
    second = {p.pk: t - first[p.pk] for p, t in zip(players, totals, strict=True)}
    if list(second.values()).count(0) > 1:  # a second domino would be two zeros: shift it
        raise AssertionError("choose totals with at most one player at 1 or below")
    record_round(table, second, None)
    return players


def advance_url(stage):
    return f"/director/e/{stage.event.slug}/{stage.number}/close/"


def names(players):
    return sorted(p.name for p in players)


@pytest.fixture
def game1(director):
    event = short_event(director)
    make_players(event, count=8)
    return seat(event)


def test_a_stage_cannot_close_while_tables_have_rounds_to_play(director_client, game1):
    t1, t2 = Table.objects.filter(stage=game1)
    play_totals(t1, [3, 10, 20, 30])
    page = director_client.get(advance_url(game1)).content.decode()
    assert "These tables still have rounds to play:" in page and "Confirm" not in page
    response = director_client.post(advance_url(game1), {"action": "close"}, follow=True)
    assert "Tables 2 still have rounds to play." in response.content.decode()
    game1.refresh_from_db()
    assert not game1.closed


def test_each_tables_lowest_total_advances_to_the_final(director_client, game1):
    t1, t2 = Table.objects.filter(stage=game1)
    a = play_totals(t1, [3, 10, 20, 30])
    b = play_totals(t2, [40, 12, 20, 30])
    preview = director_client.get(advance_url(game1)).content.decode()
    assert "When you confirm" in preview and preview.count("advances</span>") == 2
    director_client.post(advance_url(game1), {"action": "close"})
    final = Stage.objects.get(event=game1.event, kind=StageKind.FINAL)
    assert names(p.player for p in Seat.objects.filter(stage=final)) == names([a[0], b[1]])
    assert final.tables.count() == 1


def test_a_tie_at_a_tables_top_advances_every_tied_player(director_client, game1):
    t1, t2 = Table.objects.filter(stage=game1)
    a = play_totals(t1, [5, 5, 20, 30])
    b = play_totals(t2, [40, 12, 20, 30])
    director_client.post(advance_url(game1), {"action": "close"})
    final = Stage.objects.get(event=game1.event, kind=StageKind.FINAL)
    assert names(s.player for s in final.seats.all()) == names([a[0], a[1], b[1]])


def test_a_tie_at_a_tables_top_is_a_playoff_under_that_rule(director_client, director):
    event = short_event(director, advancement_tie="playoff")
    make_players(event, count=8)
    game1 = seat(event)
    t1, t2 = Table.objects.filter(stage=game1)
    a = play_totals(t1, [5, 5, 20, 30])
    play_totals(t2, [40, 12, 20, 30])
    director_client.post(advance_url(game1), {"action": "close"})
    playoff = Stage.objects.get(event=event, kind=StageKind.PLAYOFF)
    assert playoff.medal == "advance" and playoff.playoff_table == t1
    assert names(s.player for s in playoff.seats.all()) == names(a[:2])
    assert not Stage.objects.get(event=event, kind=StageKind.FINAL).tables.exists()
    page = director_client.get(advance_url(game1)).content.decode()
    assert "playoff pending" in page
    record_round(playoff.tables.get(), {a[0].pk: 9, a[1].pk: 0}, None, engine=1)
    director_client.post(advance_url(game1), {"action": "seat_next"})
    final = Stage.objects.get(event=event, kind=StageKind.FINAL)
    assert a[1] in [s.player for s in final.seats.all()]
    assert a[0] not in [s.player for s in final.seats.all()]


def test_more_advancers_than_a_table_holds_play_a_semifinal(director_client, director):
    event = short_event(director, finals_top_n=None)  # the default: automatic
    make_players(event, count=24)
    game1 = seat(event)
    tables = list(Table.objects.filter(stage=game1))
    assert len(tables) == 6
    for t in tables:
        play_totals(t, [3, 10, 20, 30])
    director_client.post(advance_url(game1), {"action": "close"})
    semifinal = Stage.objects.get(event=event, kind=StageKind.SEMIFINAL)
    assert semifinal.number == 2
    assert Stage.objects.get(event=event, kind=StageKind.FINAL).number == 3
    assert sorted(t.seats.count() for t in semifinal.tables.all()) == [3, 3]
    for t in semifinal.tables.all():
        play_totals(t, [3, 10, 20])
    director_client.post(advance_url(semifinal), {"action": "close"})
    final = Stage.objects.get(event=event, kind=StageKind.FINAL)
    assert final.seats.count() == 4  # two tables of 3 send their top 2: never a Final of 2


def test_players_from_the_same_table_are_kept_apart_in_the_next_stage(director_client, director):
    event = short_event(director)
    make_players(event, count=24)
    game1 = seat(event)
    for t in Table.objects.filter(stage=game1):
        play_totals(t, [3, 3, 3, 30])  # three tied at every top: 18 advance
    director_client.post(advance_url(game1), {"action": "close"})
    semifinal = Stage.objects.get(event=event, kind=StageKind.SEMIFINAL)
    previous = {s.player_id: s.table_id for s in Seat.objects.filter(stage=game1)}
    for table in semifinal.tables.all():
        came_from = [previous[s.player_id] for s in table.seats.all()]
        assert len(came_from) == len(set(came_from))


@pytest.fixture
def final(director):
    """A closed Game 1 is skipped: the final is seated directly with five players."""
    event = short_event(director)
    make_players(event, ["Ann", "Bo", "Cy", "Di", "Ed"])
    return seat(event, stage_number=2)


def close(client, stage):
    """Close the stage on its page; the next stage it seats is published, as a director does."""
    closed = client.post(advance_url(stage), {"action": "close"}, follow=True)
    publish_drafts(client, stage.event)
    return closed


def medals(event):
    results = load_results(event)
    players = results.players
    return {
        a.medal: ("pending", names(players[pk] for pk in a.between))
        if a.pending
        else names(players[pk] for pk in a.players)
        for a in results.medals[0].result.medals
    }


def test_final_totals_give_gold_silver_bronze(director_client, final):
    play_totals(final.tables.get(), dict(Ann=3, Bo=10, Cy=20, Di=30, Ed=40))
    close(director_client, final)
    assert medals(final.event) == {"gold": ["Ann"], "silver": ["Bo"], "bronze": ["Cy"]}


def test_tie_for_gold_gives_no_silver_and_a_bronze_playoff(director_client, final):
    table = final.tables.get()
    play_totals(table, dict(Ann=5, Bo=5, Cy=20, Di=20, Ed=40))
    close(director_client, final)
    assert medals(final.event) == {
        "gold": ["Ann", "Bo"],
        "silver": [],
        "bronze": ("pending", ["Cy", "Di"]),
    }
    playoff = Stage.objects.get(event=final.event, kind=StageKind.PLAYOFF)
    assert playoff.medal == "bronze" and playoff.name == "Bronze playoff"
    response = director_client.get(f"/e/{final.event.slug}/results/")
    final_rows = {r.player.name: o for r, o, _text in response.context["stage_standings"][0][1]}
    assert final_rows == {
        "Ann": "Gold",
        "Bo": "Gold",
        "Cy": "playoff pending",
        "Di": "playoff pending",
        "Ed": "",
    }
    cy, di = sorted(table_sheet(playoff.tables.get()).players, key=lambda p: p.name)
    record_round(playoff.tables.get(), {cy.pk: 12, di.pk: 0}, None, engine=12)
    assert medals(final.event)["bronze"] == ["Di"]
    page = director_client.get(f"/e/{final.event.slug}/results/").content.decode()
    assert "playoff pending" not in page and "not awarded" in page


def test_a_tied_playoff_is_played_again(director_client, final):
    play_totals(final.tables.get(), dict(Ann=3, Bo=10, Cy=10, Di=30, Ed=40))
    close(director_client, final)
    first = Stage.objects.get(event=final.event, kind=StageKind.PLAYOFF)
    assert first.medal == "silver"
    bo, cy = sorted(table_sheet(first.tables.get()).players, key=lambda p: p.name)
    record_round(first.tables.get(), {bo.pk: 7, cy.pk: 7}, None, engine=12)
    replay = Stage.objects.filter(event=final.event, kind=StageKind.PLAYOFF).last()
    assert replay != first and replay.name == "Silver and bronze playoff, replay 1"
    assert medals(final.event)["silver"] == ("pending", ["Bo", "Cy"])
    record_round(replay.tables.get(), {bo.pk: 0, cy.pk: 7}, None, engine=12)
    assert medals(final.event) == {"gold": ["Ann"], "silver": ["Bo"], "bronze": ["Cy"]}


def test_medals_per_division(director_client, director):
    event = short_event(director)
    make_players(event, ["A1", "A2", "A3"], division="55-59")
    make_players(event, ["B1", "B2", "B3"], division="60-64")
    final = seat(event, stage_number=2)
    for table in final.tables.all():
        play_totals(table, {"A1": 3, "A2": 10, "A3": 20, "B1": 3, "B2": 10, "B3": 20})
    close(director_client, final)
    results = load_results(event)
    assert [d.division for d in results.medals] == ["55-59", "60-64"]
    page = director_client.get(f"/e/{event.slug}/results/").content.decode()
    medals_html = page[page.index('id="medals"') :]
    assert medals_html.count("· 55-59") == 3 and medals_html.count("· 60-64") == 3
    gold = [a for d in results.medals for a in d.result.medals if a.medal == "gold"]
    assert [results.players[a.players[0]].name for a in gold] == ["A1", "B1"]


def test_the_bracket_is_public_and_shows_advancers_and_medals(client, director_client, game1):
    t1, t2 = Table.objects.filter(stage=game1)
    a = play_totals(t1, [3, 10, 20, 30])
    b = play_totals(t2, [40, 12, 20, 30])
    close(director_client, game1)
    final = Stage.objects.get(event=game1.event, kind=StageKind.FINAL)
    play_totals(final.tables.get(), [2, 9])
    close(director_client, final)
    page = client.get(f"/e/{game1.event.slug}/bracket/").content.decode()
    assert page.count("advances</span>") == 2
    assert a[0].name in page and b[1].name in page and "Gold</span>" in page
    assert "Game 1" in page and "Final" in page


def test_closing_is_for_the_events_directors(client, game1):
    from tests.factories import make_director

    client.force_login(make_director("other"))
    assert client.post(advance_url(game1), {"action": "close"}).status_code == 403
    game1.refresh_from_db()
    assert not game1.closed and not Round.objects.exists()


def test_a_playoff_round_is_entered_on_its_page_with_a_chosen_engine(director_client, final):
    play_totals(final.tables.get(), dict(Ann=5, Bo=5, Cy=20, Di=20, Ed=40))
    close(director_client, final)
    playoff = Stage.objects.get(event=final.event, kind=StageKind.PLAYOFF)
    url = f"/director/e/{final.event.slug}/{playoff.number}/table/1/enter/"
    page = director_client.get(url).content.decode()
    assert "Playoff: one round, lowest pips wins" in page and 'value="12" selected' in page
    cy, di = sorted(table_sheet(playoff.tables.get()).players, key=lambda p: p.name)
    response = director_client.post(url, {"engine": 6, f"p{cy.pk}": 0, f"p{di.pk}": 1025})
    assert "1025 is more than the 1024 pips that can be left." in response.content.decode()
    assert not Round.objects.filter(table__stage=playoff).exists()
    director_client.post(url, {"engine": 6, f"p{cy.pk}": 0, f"p{di.pk}": 1024})
    assert Round.objects.get(table__stage=playoff).engine == 6
    assert medals(final.event)["bronze"] == ["Cy"]
    page = director_client.get(url).content.decode()
    assert "This stage is closed." in page


def test_correcting_a_closed_stage_shows_what_changes_and_needs_confirmation(
    director_client, game1
):
    from scoring.models import ScoreChange

    t1, t2 = Table.objects.filter(stage=game1)
    a = play_totals(t1, [3, 10, 20, 30])
    play_totals(t2, [40, 12, 20, 30])
    close(director_client, game1)
    url = f"/director/e/{game1.event.slug}/1/table/{t1.number}/round/2/correct/"
    second = {p.pk: pips for p, pips in zip(a, [3, 9, 19, 29], strict=True)}
    second[a[1].pk] = 1  # Bo's 10 becomes 2: Bo now wins the table, not Ann
    form = {f"p{pk}": v for pk, v in second.items()} | {"reason": "Misread the sheet"}
    response = director_client.post(url, form)
    page = response.content.decode()
    assert "Game 1 is closed. This correction changes:" in page and "Confirm the correction" in page
    [(before, after), seated] = response.context["effects"]  # the Final is seated already
    assert seated == (f"Final seats {a[0].name}", f"Final seats {a[1].name}")
    assert a[0].name in before and a[1].name not in before
    assert a[1].name in after and a[0].name not in after
    assert not ScoreChange.objects.exists()
    director_client.post(url, form | {"previewed": response.context["previewed"]})
    change = ScoreChange.objects.get()
    assert (change.old_pips, change.new_pips, change.reason) == (9, 1, "Misread the sheet")
    advancing = load_results(game1.event).advancing(Stage.objects.get(pk=game1.pk))
    assert a[1] in advancing and a[0] not in advancing


@pytest.mark.parametrize("page", ["bracket", "results"])
def test_bracket_and_results_use_a_fixed_number_of_queries(client, director, page):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    counts = []
    for size in (8, 40):
        event = short_event(director)
        make_players(event, count=size)
        game1 = seat(event)
        for t in Table.objects.filter(stage=game1):
            play_totals(t, [3, 10, 20, 30, 40][: t.seats.count()])
        game1.closed = True
        game1.save()
        with CaptureQueriesContext(connection) as queries:
            assert client.get(f"/e/{event.slug}/{page}/").status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1]


def test_a_second_semifinal_gets_its_own_name(director_client, director):
    event = short_event(director)
    make_players(event, count=90)
    game1 = seat(event)
    for t in Table.objects.filter(stage=game1):
        play_totals(t, [3, 10, 20, 30, 40][: t.seats.count()])
    close(director_client, game1)
    semi = Stage.objects.get(event=event, kind=StageKind.SEMIFINAL)
    for t in semi.tables.all():
        play_totals(t, [3, 10, 20, 30, 40][: t.seats.count()])
    close(director_client, semi)
    assert list(event.stages.values_list("name", flat=True)) == [
        "Game 1",
        "Semifinal",
        "Semifinal 2",
        "Final",
    ]


def test_the_final_is_never_seated_at_several_tables(director_client, director):
    from tournament.game.seating import SeatingError

    event = short_event(director)
    make_players(event, count=8)
    with pytest.raises(SeatingError, match="The final is one table: 8 players need 2."):
        seat(event, stage_number=2)
    assert not Table.objects.exists()
    page = director_client.post(f"/director/e/{event.slug}/2/seat/", follow=True)
    assert "Final is seated from the advancers: close the previous stage first." in (
        page.content.decode()
    )


def test_drawing_a_later_stage_again_keeps_its_own_players(director_client, game1):
    t1, t2 = Table.objects.filter(stage=game1)
    play_totals(t1, [3, 10, 20, 30])
    play_totals(t2, [40, 12, 20, 30])
    close(director_client, game1)
    final = Stage.objects.get(event=game1.event, kind=StageKind.FINAL)
    finalists = set(final.seats.values_list("player_id", flat=True))
    director_client.post(f"/director/e/{game1.event.slug}/{final.number}/seat/")
    assert set(final.seats.values_list("player_id", flat=True)) == finalists


def test_a_correction_that_changes_a_tie_replaces_the_unplayed_playoff(director_client, final):
    from scoring.models import Round as RoundModel
    from scoring.models import ScoreChange

    table = final.tables.get()
    play_totals(table, dict(Ann=3, Bo=10, Cy=10, Di=30, Ed=40))
    close(director_client, final)
    assert medals(final.event)["silver"] == ("pending", ["Bo", "Cy"])
    second = RoundModel.objects.get(table=table, number=2)
    pips = {s.player_id: s.pips for s in second.scores.all()}
    di = final.event.players.get(name="Di")
    cy = final.event.players.get(name="Cy")
    pips[di.pk] -= 20  # Di 10: Bo, Cy and Di now tie for second
    url = f"/director/e/{final.event.slug}/{final.number}/table/1/round/2/correct/"
    form = {f"p{pk}": v for pk, v in pips.items()} | {"reason": "Di's 20 was a 0"}
    director_client.post(url, form | {"previewed": ""})  # not what was previewed: a preview
    assert not ScoreChange.objects.exists()
    preview = director_client.post(url, form)
    director_client.post(url, form | {"previewed": preview.context["previewed"]})
    playoffs = Stage.objects.filter(event=final.event, kind=StageKind.PLAYOFF)
    assert [names(s.player for s in p.seats.all()) for p in playoffs] == [["Bo", "Cy", "Di"]]
    assert cy.pk in {s.player_id for s in playoffs.get().seats.all()}
    assert medals(final.event)["silver"] == ("pending", ["Bo", "Cy", "Di"])


def test_a_confirmation_saves_only_the_pips_that_were_previewed(director_client, game1):
    from scoring.models import ScoreChange

    t1, t2 = Table.objects.filter(stage=game1)
    a = play_totals(t1, [3, 10, 20, 30])
    play_totals(t2, [40, 12, 20, 30])
    close(director_client, game1)
    url = f"/director/e/{game1.event.slug}/1/table/{t1.number}/round/2/correct/"
    form = {f"p{p.pk}": v for p, v in zip(a, [3, 9, 19, 29], strict=True)} | {"reason": "x"}
    preview = director_client.post(url, form | {f"p{a[2].pk}": 18})
    edited = form | {f"p{a[1].pk}": 1, "previewed": preview.context["previewed"]}
    again = director_client.post(url, edited)
    assert again.context["confirming"] and not ScoreChange.objects.exists()


def test_playoff_pending_shows_only_at_the_stage_the_playoff_decides(director_client, game1):
    t1, t2 = Table.objects.filter(stage=game1)
    for t in (t1, t2):
        play_totals(t, [5, 5, 20, 30])
    close(director_client, game1)
    final = Stage.objects.get(event=game1.event, kind=StageKind.FINAL)
    play_totals(final.tables.get(), [3, 3, 10, 12])  # tie for gold: a bronze playoff
    close(director_client, final)
    response = director_client.get(f"/e/{game1.event.slug}/bracket/")
    pending = {
        b["stage"].name: sorted(
            r["player"].name for t in b["tables"] for r in t["rows"] if r["pending"]
        )
        for b in response.context["bracket"]
    }
    assert pending["Game 1"] == [] and len(pending["Final"]) == 2


def test_the_close_page_after_time_is_called_uses_a_fixed_number_of_queries(
    director_client, director
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tournament.services.clock import call_time, start_clock

    counts = []
    for size in (8, 40):
        event = short_event(director)
        make_players(event, count=size)
        game1 = seat(event)
        for t in Table.objects.filter(stage=game1):
            record_round(t, {s.player_id: i for i, s in enumerate(t.seats.all())}, None)
        start_clock(game1, director)
        call_time(game1, director)
        with CaptureQueriesContext(connection) as queries:
            page = director_client.get(advance_url(game1))
        assert "These tables still have rounds to play" in page.content.decode()
        counts.append(len(queries))
    assert counts[0] == counts[1]


def test_a_withdrawal_in_the_final_leaves_game_1s_advancers_as_published(director_client, game1):
    t1, t2 = Table.objects.filter(stage=game1)
    play_totals(t1, [3, 10, 20, 30])
    play_totals(t2, [40, 12, 20, 30])
    director_client.post(advance_url(game1), {"action": "close"})
    before = {s.pk for s in load_results(game1.event).advancing(game1)}
    final = Stage.objects.get(event=game1.event, kind=StageKind.FINAL)
    final_table = final.tables.get()
    players = table_sheet(final_table).players
    record_round(final_table, {p.pk: 0 if i == 0 else 5 for i, p in enumerate(players)}, None)
    from tournament.services.seating import withdraw_player

    withdraw_player(players[1], reason="unwell")  # an advancer leaves during the Final
    game1.refresh_from_db()
    after = load_results(game1.event)
    assert {s.pk for s in after.advancing(game1)} == before  # Game 1's outcome stands
    assert players[1].pk not in after.medal_of()
