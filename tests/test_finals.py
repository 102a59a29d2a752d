"""The road to the Final through the pages (issue 12 items 1-2, issue 19 item 3): the plan on
the event home and the close page, the finals options on the event settings page, advancement
that follows them, and a one-table stage that is its division's Final."""

import pytest
from django.utils import translation

from scoring.results import load_results
from tests.factories import make_event, make_players, seat
from tests.test_advancement import advance_url, play_totals
from tests.test_event_setup import NVSO_FORM
from tournament.models import Event, Stage, StageKind, Table

pytestmark = pytest.mark.django_db

TWENTY_FOUR = (
    "24 players: Game 1, 6 tables of 4 (each table&#x27;s winner) → 6 → Semifinal, 2 tables "
    "of 3 (each table&#x27;s top 2) → 4 → Final of 4"
)


def short_event(director, **fields):
    return make_event(director, engines=[1, 0], game_minutes=None, **fields)


def edit(client, event, **changes):
    form = {**NVSO_FORM, "name": event.name, "engines": "1, 0", "game_minutes": ""}
    return client.post(f"/director/e/{event.slug}/edit/", {**form, **changes})


def test_the_director_sees_the_plan_for_the_players_checked_in(director_client, director, client):
    event = short_event(director)
    make_players(event, count=24)
    make_players(event, names=["No Show"], checked_in=False)
    page = director_client.get(f"/e/{event.slug}/").content.decode()
    assert "The road to the Final" in page and TWENTY_FOUR in page
    assert "no bronze" not in page
    assert "The road to the Final" not in client.get(f"/e/{event.slug}/").content.decode()


def test_choosing_only_the_winners_warns_of_a_final_of_two(director_client, director):
    event = short_event(director)
    make_players(event, count=24)
    assert edit(director_client, event, finals_top_n=1).status_code == 302
    assert Event.objects.get(pk=event.pk).finals_top_n == 1
    page = director_client.get(f"/e/{event.slug}/").content.decode()
    assert "→ Final of 2" in page
    assert "Final seats only 2 players: no bronze can be awarded." in page


def test_the_plan_and_its_warnings_read_in_french(director_client, director):
    event = short_event(director, finals_top_n=1)
    make_players(event, count=24)
    with translation.override(translation.get_language()):  # the request leaves French on
        page = director_client.get(f"/e/{event.slug}/", HTTP_ACCEPT_LANGUAGE="fr").content
    text = page.decode()
    assert (
        "24 joueurs : Partie 1, 6 tables de 4 (le gagnant de chaque table) → 6 → Demi-finale, "
        "2 tables de 3 (le gagnant de chaque table) → 2 → Finale à 2"
    ) in text
    assert "Finale ne réunit que 2 joueurs : aucune médaille de bronze ne peut être attribuée." in (
        text
    )
    assert "players:" not in text and "no bronze" not in text


@pytest.mark.parametrize(
    ("changes", "why"),
    [
        ({"finals_top_n": 0}, "At least the top 1 of each table advances."),
        ({"finals_fill_to": 1}, "Wildcards fill a stage to at least 2 players."),
        ({"finals_big_final": "on"}, "List the tiles drawn at 6 or more players"),
        ({"finals_top_n": "two"}, "Enter a whole number."),
    ],
)
def test_finals_options_that_do_not_fit_are_refused(director_client, director, changes, why):
    event = short_event(director)
    response = edit(director_client, event, **changes)
    assert response.status_code == 200 and why in response.content.decode()
    event.refresh_from_db()
    assert event.finals_options == type(event.finals_options)()


def test_twenty_four_players_reach_a_final_of_four_by_the_plan(director_client, director):
    event = short_event(director)
    make_players(event, count=24)
    game1 = seat(event)
    for t in Table.objects.filter(stage=game1):
        play_totals(t, [3, 10, 20, 30])
    close_page = director_client.get(advance_url(game1)).content.decode()
    assert TWENTY_FOUR in close_page
    director_client.post(advance_url(game1), {"action": "close"})
    semifinal = Stage.objects.get(event=event, kind=StageKind.SEMIFINAL)
    assert (
        "6 players: Semifinal, 2 tables of 3"
        in director_client.get(advance_url(semifinal)).content.decode()
    )
    for t in semifinal.tables.all():
        play_totals(t, [3, 10, 20])
    director_client.post(advance_url(semifinal), {"action": "close"})
    final = Stage.objects.get(event=event, kind=StageKind.FINAL)
    assert final.seats.count() == 4 and final.tables.count() == 1


def test_wildcards_fill_the_final_with_the_best_totals(director_client, director):
    event = short_event(director)
    make_players(event, count=12)
    edit(director_client, event, finals_fill_to=5)
    game1 = seat(event)
    tables = list(Table.objects.filter(stage=game1))
    seconds = []
    for t, second in zip(tables, [10, 12, 14], strict=True):
        players = play_totals(t, [3, second, 20, 30])
        seconds.append(players[1])
    director_client.post(advance_url(game1), {"action": "close"})
    final = Stage.objects.get(event=event, kind=StageKind.FINAL)
    seated = {s.player for s in final.seats.all()}
    assert len(seated) == 5 and seconds[0] in seated and seconds[1] in seated
    assert seconds[2] not in seated
    bracket = director_client.get(f"/e/{event.slug}/bracket/").content.decode()
    assert bracket.count(">wildcard</span>") == 2


def test_a_tie_for_the_last_wildcard_is_a_playoff_under_that_rule(director_client, director):
    event = short_event(director, advancement_tie="playoff")
    make_players(event, count=12)
    edit(director_client, event, advancement_tie="playoff", finals_fill_to=4)
    game1 = seat(event)
    for t in Table.objects.filter(stage=game1):
        play_totals(t, [3, 10, 20, 30])  # three seconds tied at 10 for one wildcard
    director_client.post(advance_url(game1), {"action": "close"})
    playoff = Stage.objects.get(event=event, kind=StageKind.PLAYOFF)
    assert playoff.name == "Wildcard playoff: Game 1" and playoff.seats.count() == 3
    assert not Stage.objects.get(event=event, kind=StageKind.FINAL).tables.exists()


def test_a_big_final_seats_six_at_one_table(director_client, director):
    event = short_event(director, tiles_drawn={"2": 15, "3": 15, "4": 15, "5": 15, "6": 12})
    make_players(event, count=24)
    edit(
        director_client,
        event,
        tiles_drawn="2:15, 3:15, 4:15, 5:15, 6:12",
        finals_big_final="on",
    )
    assert Event.objects.get(pk=event.pk).finals_big_final
    game1 = seat(event)
    for t in Table.objects.filter(stage=game1):
        play_totals(t, [3, 10, 20, 30])
    director_client.post(advance_url(game1), {"action": "close"})
    final = Stage.objects.get(event=event, kind=StageKind.FINAL)
    assert final.tables.count() == 1 and final.seats.count() == 6
    assert not Stage.objects.filter(event=event, kind=StageKind.SEMIFINAL).exists()


def test_five_players_at_one_table_play_their_final_in_game_1(director_client, director):
    event = short_event(director)
    players = make_players(event, count=5)
    game1 = seat(event)
    assert (
        "Game 1 at one table of 5 is the Final"
        in director_client.get(f"/e/{event.slug}/").content.decode()
    )
    totals = {p.name: t for p, t in zip(players, [3, 10, 20, 30, 40], strict=True)}
    play_totals(game1.tables.get(), totals)
    response = director_client.post(advance_url(game1), {"action": "close"}, follow=True)
    page = response.content.decode()
    assert "Seating needs at least 2 players" not in page
    assert not Stage.objects.filter(event=event, kind=StageKind.FINAL).exists()
    results = director_client.get(f"/e/{event.slug}/results/").content.decode()
    assert "Player 01" in results and "Gold" in results
    medals = {m.medal: m.players for d in load_results(event).medals for m in d.result.medals}
    assert medals["gold"] == (players[0].pk,) and medals["bronze"] == (players[2].pk,)


def test_a_small_division_is_its_own_final_and_never_holds_up_the_other(director_client, director):
    event = short_event(director)
    big = make_players(event, count=8, division="55-59")
    small = make_players(event, names=[f"Small {i}" for i in range(4)], division="60-64")
    game1 = seat(event)
    for t in Table.objects.filter(stage=game1):
        play_totals(t, [3, 10, 20, 30])
    director_client.post(advance_url(game1), {"action": "close"})
    results = load_results(event)
    by_division = {d.division: d.result for d in results.medals}
    assert set(by_division) == {"60-64"}
    assert by_division["60-64"].award("gold").players[0] in {p.pk for p in small}
    final = Stage.objects.get(event=event, kind=StageKind.FINAL)
    finalists = {s.player for s in final.seats.all()}
    assert len(finalists) == 4 and finalists <= set(big)
    for t in final.tables.all():
        play_totals(t, [3, 10, 20, 30])
    director_client.post(advance_url(final), {"action": "close"})
    assert {d.division for d in load_results(event).medals} == {"55-59", "60-64"}


def test_a_divisions_own_final_travels_in_the_event_file(director_client, director):
    """One division plays its Final while another still needs a semifinal: two final stages,
    the second with its division; the event file carries both and imports again."""
    from scoring.eventfile import dumps, export_event, import_event

    event = short_event(director)
    make_players(event, count=24, division="55-59")
    make_players(event, names=[f"Small {i}" for i in range(8)], division="60-64")
    game1 = seat(event)
    for t in Table.objects.filter(stage=game1):
        play_totals(t, [3, 10, 20, 30])
    director_client.post(advance_url(game1), {"action": "close"})
    finals = Stage.objects.filter(event=event, kind=StageKind.FINAL)
    assert sorted(f.division for f in finals) == ["", "60-64"]
    text = dumps(export_event(event))
    again = import_event(text, slug="again")
    assert dumps(export_event(again)).replace('"again"', f'"{event.slug}"') == text


def test_a_wildcard_playoff_travels_in_the_event_file(director_client, director):
    """The playoff for the last wildcard (players from several tables) names the stage whose
    wildcards it settles; scored, it counts again once imported."""
    from scoring.eventfile import dumps, export_event, import_event
    from scoring.services.rounds import record_round

    event = short_event(director, advancement_tie="playoff")
    make_players(event, count=12)
    edit(director_client, event, advancement_tie="playoff", finals_fill_to=4)
    game1 = seat(event)
    for t in Table.objects.filter(stage=game1):
        play_totals(t, [3, 10, 20, 30])  # three seconds tied at 10 for one wildcard
    director_client.post(advance_url(game1), {"action": "close"})
    playoff = Stage.objects.get(event=event, kind=StageKind.PLAYOFF)
    table = playoff.tables.get()
    seated = [s.player for s in table.seats.order_by("position")]
    record_round(table, {p.pk: n for n, p in enumerate(seated)}, director)  # the first wins
    text = dumps(export_event(event))
    assert '"wildcards_of": 0' in text
    again = import_event(text, slug="again")
    assert dumps(export_event(again)).replace('"again"', f'"{event.slug}"') == text
    wildcard = Stage.objects.get(event=again, kind=StageKind.PLAYOFF)
    assert wildcard.wildcards_of == again.stages.get(number=1)
