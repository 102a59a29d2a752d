"""Infractions (PRODUCT.md §8): logged at the table, the rule's action, the director's log."""

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext

from scoring.models import Infraction
from scoring.services.infractions import change_infraction, log_infraction
from scoring.sheets import table_sheet
from tests.factories import make_director, make_event, make_players, play, seat
from tournament.models import Table

pytestmark = pytest.mark.django_db


@pytest.fixture
def table(seated):
    return Table.objects.get(stage=seated, number=1)


@pytest.fixture
def players(table):
    return table_sheet(table).players


@pytest.fixture
def keeper(table):
    user = get_user_model().objects.create_user("keeper")
    table.scorekeepers.add(user)
    return user


def table_url(table):
    return f"/e/{table.stage.event.slug}/{table.stage.number}/table/{table.number}/"


def log_url(table):
    return (
        f"/director/e/{table.stage.event.slug}/{table.stage.number}"
        f"/table/{table.number}/infraction/"
    )


def change_url(infraction):
    return f"/director/e/{infraction.table.stage.event.slug}/infractions/{infraction.pk}/"


def log_page(event, query=""):
    return f"/director/e/{event.slug}/infractions/{query}"


def form(player, kind="wrong_tile", engine=12, note=""):
    return {"player": player.pk, "kind": kind, "engine": engine, "note": note}


def log(table, player, user, kind="wrong_tile", engine=12, note=""):
    return log_infraction(table, player, engine, kind, note, user)


# -- logging from the table's page -------------------------------------------------------------


def test_a_scorekeeper_logs_from_the_tables_page_and_is_told_the_action(
    client, keeper, table, players
):
    client.force_login(keeper)
    page = client.get(table_url(table)).content.decode()
    assert 'id="infraction-form"' in page
    for p in players:  # a button per seated player
        assert f'value="{p.pk}"' in page and p.name in page

    response = client.post(log_url(table), form(players[1], note="played a 5 on a 6"))

    saved = Infraction.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"{table_url(table)}?logged={saved.pk}"
    assert (saved.player, saved.engine, saved.kind, saved.note) == (
        players[1],
        12,
        "wrong_tile",
        "played a 5 on a 6",
    )
    assert (saved.action, saved.original_action, saved.logged_by) == ("warning", "warning", keeper)
    assert saved.logged_at is not None
    page = client.get(response["Location"]).content.decode()
    assert 'id="infraction-action"' in page
    assert "Warning: no penalty this time" in page
    assert f"{players[1].name}: Wrong tile in round 12-12" in page


def test_a_directors_second_log_for_a_player_is_a_penalty_draw(director_client, table, players):
    director_client.post(log_url(table), form(players[0]))
    response = director_client.post(
        log_url(table), form(players[0], kind="out_of_turn"), follow=True
    )
    page = response.content.decode()
    assert "Penalty: draw one tile" in page and "alert-danger" in page
    assert "Warning: no penalty this time" not in page
    assert list(Infraction.objects.values_list("action", flat=True)) == [
        "warning",
        "penalty_draw",
    ]


def test_the_round_defaults_to_the_one_in_play(director_client, table):
    play(table, 2)
    page = director_client.get(table_url(table))
    field = page.context["infraction_form"]["engine"]
    assert field.value() == 10  # 12-12 and 11-11 are entered: 10-10 is in play
    assert [value for value, _ in field.field.choices] == [12, 11, 10]


def test_the_round_defaults_to_the_last_one_once_the_game_is_over(director_client, table):
    play(table, 13)
    field = director_client.get(table_url(table)).context["infraction_form"]["engine"]
    assert field.value() == 0


def test_anonymous_visitors_see_no_form_and_cannot_log(client, table, players):
    assert 'id="infraction-form"' not in client.get(table_url(table)).content.decode()
    response = client.post(log_url(table), form(players[0]))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert not Infraction.objects.exists()


def test_a_stranger_cannot_log(client, table, players):
    client.force_login(make_director("stranger"))
    assert 'id="infraction-form"' not in client.get(table_url(table)).content.decode()
    assert client.post(log_url(table), form(players[0])).status_code == 403
    assert client.get(log_url(table)).status_code == 403
    assert not Infraction.objects.exists()


def test_another_tables_scorekeeper_cannot_log_here(client, keeper, seated):
    other = Table.objects.get(stage=seated, number=2)
    client.force_login(keeper)
    assert client.post(log_url(other), form(table_sheet(other).players[0])).status_code == 403


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"kind": ""}, "Choose the kind of infraction."),
        ({"player": ""}, "Choose the player."),
        ({"engine": 9}, "Select a valid choice."),  # not started yet: not offered
        ({"note": "x" * 301}, "at most 300 characters"),
    ],
)
def test_a_wrong_log_says_why_and_saves_nothing(director_client, table, players, data, message):
    response = director_client.post(log_url(table), {**form(players[0]), **data})
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Infraction.objects.exists()


def test_a_player_from_another_table_is_refused(director, seated, table):
    elsewhere = table_sheet(Table.objects.get(stage=seated, number=2)).players[0]
    with pytest.raises(ValidationError, match="Choose a player seated at this table."):
        log(table, elsewhere, director)
    assert not Infraction.objects.exists()


@pytest.mark.parametrize(
    ("engine", "message"),
    [
        (13, "13 is not a round of this game: the engines are 12-12, 11-11"),
        (11, "Round 11-11 has not started at this table yet."),
    ],
)
def test_a_round_not_played_is_refused(director, table, players, engine, message):
    with pytest.raises(ValidationError, match=message):
        log(table, players[0], director, engine=engine)


def test_an_unknown_kind_is_refused(director, table, players):
    with pytest.raises(ValidationError, match="Choose the kind of infraction."):
        log(table, players[0], director, kind="rude")


def test_the_service_checks_who_logs(table, players):
    with pytest.raises(PermissionDenied):
        log(table, players[0], make_director("stranger"))


def test_a_closed_stage_refuses_the_scorekeeper_not_the_director(
    client, keeper, director, table, players
):
    table.stage.closed = True
    table.stage.save()
    client.force_login(keeper)
    assert 'id="infraction-form"' not in client.get(table_url(table)).content.decode()
    response = client.post(log_url(table), form(players[0]))
    assert "only a director can log an infraction" in response.content.decode()
    assert not Infraction.objects.exists()
    assert log(table, players[0], director).action == "warning"


# -- the action follows the event's rule -------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        ("warn_then_draw", ["warning", "penalty_draw", "penalty_draw"]),
        ("draw", ["penalty_draw", "penalty_draw", "penalty_draw"]),
        ("warn_then_skip", ["warning", "skip_turn", "skip_turn"]),
        ("skip", ["skip_turn", "skip_turn", "skip_turn"]),
    ],
)
def test_the_action_follows_the_events_rule(director, event, rule, expected):
    event.infraction_penalty = rule
    event.save()
    make_players(event, count=8)
    table = Table.objects.get(stage=seat(event), number=1)
    first, second = table_sheet(table).players[:2]
    actions = [log(table, first, director).action for _ in range(3)]
    assert actions == expected
    assert log(table, second, director).action == expected[0]  # each player has their own count


def test_a_game_is_one_table_of_one_stage(director, event):
    make_players(event, count=8)
    game1 = Table.objects.get(stage=seat(event), number=1)
    player = table_sheet(game1).players[0]
    log(game1, player, director)
    final = Table.objects.get(
        stage=seat(event, players=[player, *table_sheet(game1).players[1:]], stage_number=2),
        number=1,
    )
    assert log(final, player, director).action == "warning"
    assert log(game1, player, director).action == "penalty_draw"


def test_an_event_that_counts_warnings_per_event_warns_once(director_client, director, event):
    event.infraction_scope = "event"
    event.save()
    make_players(event, count=8)
    game1 = Table.objects.get(stage=seat(event), number=1)
    player = table_sheet(game1).players[0]
    director_client.post(log_url(game1), form(player))
    final = Table.objects.get(
        stage=seat(event, players=[player, *table_sheet(game1).players[1:]], stage_number=2),
        number=1,
    )
    director_client.post(log_url(final), form(player))
    actions = list(Infraction.objects.order_by("pk").values_list("action", flat=True))
    assert actions == ["warning", "penalty_draw"]  # the final's first is not a new warning


def test_the_rules_form_offers_the_scope_and_skip_every_time(director_client, event):
    page = director_client.get(f"/director/e/{event.slug}/edit/").content.decode()
    assert "Skip the next turn every time" in page
    assert "Per event: one warning for the whole event" in page


# -- a director voids or changes ---------------------------------------------------------------


def test_a_director_voids_with_a_reason_and_both_actions_are_kept(
    director_client, director, table, players
):
    infraction = log(table, players[0], director)
    response = director_client.post(
        change_url(infraction), {"action": "void", "reason": "Logged for the wrong player"}
    )
    assert response.status_code == 302
    infraction.refresh_from_db()
    assert (infraction.action, infraction.original_action) == ("void", "warning")
    assert (infraction.change_reason, infraction.changed_by) == (
        "Logged for the wrong player",
        director,
    )
    assert infraction.changed_at is not None
    # A voided infraction does not count: the next one is still the player's first.
    assert log(table, players[0], director).action == "warning"
    page = director_client.get(table_url(table)).content.decode()
    assert "logged as Warning; changed: Logged for the wrong player" in page


def test_a_director_chooses_skip_a_turn_instead(director_client, director, table, players):
    infraction = log(table, players[0], director)
    url = change_url(infraction) + f"?next={table_url(table)}"
    response = director_client.post(url, {"action": "skip_turn", "reason": "Second warning"})
    assert response["Location"] == table_url(table)
    infraction.refresh_from_db()
    assert (infraction.action, infraction.original_action) == ("skip_turn", "warning")
    # An override still counts: the next infraction is a penalty, not a warning.
    assert log(table, players[0], director).action == "penalty_draw"


def test_a_change_needs_a_reason_and_a_new_action(director_client, director, table, players):
    infraction = log(table, players[0], director)
    page = director_client.post(change_url(infraction), {"action": "void", "reason": " "})
    assert "Give the reason for the change." in page.content.decode()
    page = director_client.post(change_url(infraction), {"action": "warning", "reason": "why"})
    assert "already “Warning”" in page.content.decode()
    with pytest.raises(ValidationError, match="Give the reason for the change."):
        change_infraction(infraction, "void", "", director)
    infraction.refresh_from_db()
    assert (infraction.action, infraction.change_reason, infraction.changed_at) == (
        "warning",
        "",
        None,
    )


def test_only_a_director_changes_an_infraction(client, keeper, director, table, players):
    infraction = log(table, players[0], keeper)
    client.force_login(keeper)
    assert client.post(change_url(infraction), {"action": "void", "reason": "x"}).status_code == 403
    with pytest.raises(PermissionDenied):
        change_infraction(infraction, "void", "mine", keeper)
    infraction.refresh_from_db()
    assert infraction.action == "warning"


def test_another_events_infraction_is_a_404(director_client, table, players, director):
    infraction = log(table, players[0], director)
    other = make_event(director)
    url = f"/director/e/{other.slug}/infractions/{infraction.pk}/"
    assert director_client.get(url).status_code == 404


# -- where infractions show --------------------------------------------------------------------


def test_the_sheet_shows_a_tally_per_player(client, director, table, players):
    log(table, players[0], director)
    log(table, players[0], director, kind="out_of_turn")
    voided = log(table, players[1], director)
    change_infraction(voided, "void", "Not an infraction", director)
    response = client.get(table_url(table))
    tally = {
        p.pk: (counted, [i.action for i in entries])
        for p, counted, entries in response.context["tally"]
    }
    assert tally[players[0].pk] == (2, ["warning", "penalty_draw"])
    assert tally[players[1].pk] == (0, ["void"])
    assert tally[players[2].pk] == (0, [])
    page = response.content.decode()
    assert 'id="infraction-tally"' in page
    assert "Wrong tile: <strong>Warning</strong>" in page
    assert "Out of turn: <strong>Penalty draw of one tile</strong>" in page
    assert "void or change" not in page  # the public sees, directors change


def test_standings_count_infractions(client, director, seated, table, players):
    log(table, players[0], director)
    log(table, players[0], director)
    change_infraction(log(table, players[1], director), "void", "No", director)
    response = client.get(f"/e/{seated.event.slug}/1/")
    counts = {r.player.pk: r.infractions for r in response.context["rows"]}
    assert counts[players[0].pk] == 2
    assert counts[players[1].pk] == 0
    assert sum(counts.values()) == 2 and len(counts) == 8
    assert "<th" in response.content.decode() and "Infractions" in response.content.decode()


def test_the_player_page_lists_seats_tables_and_infractions(client, director, seated, table):
    players = table_sheet(table).players
    play(table, 2)
    log(table, players[0], director, engine=11, kind="no_last_tile_call", note="private remark")
    page = client.get(f"/e/{seated.event.slug}/player/{players[0].pk}/")
    assert page.status_code == 200
    (game,) = page.context["games"]
    assert (game["stage"], game["table"], game["rounds"], game["infractions"]) == (
        seated,
        table,
        2,
        1,
    )
    assert game["total"] == table_sheet(table).totals[players[0].pk]
    html = page.content.decode()
    assert players[0].name in html and players[1].name in html  # the tablemates
    assert "Did not announce last tile" in html and "11|11" in html
    assert "private remark" not in html  # notes are for directors
    assert client.get(f"/e/{seated.event.slug}/player/999999/").status_code == 404


def test_the_player_page_of_another_event_is_a_404(client, seated, director, players):
    other = make_event(director)
    assert client.get(f"/e/{other.slug}/player/{players[0].pk}/").status_code == 404


# -- the director's log ------------------------------------------------------------------------


@pytest.fixture
def logged(director, event):
    """Infractions at both tables of Game 1 and at the final."""
    make_players(event, count=8)
    game1 = seat(event)
    t1, t2 = Table.objects.filter(stage=game1).order_by("number")
    a, b = table_sheet(t1).players[:2]
    c = table_sheet(t2).players[0]
    final = Table.objects.get(stage=seat(event, players=[a, c, b], stage_number=2))
    return {
        "a1": log(t1, a, director, kind="wrong_tile"),
        "a2": log(t1, a, director, kind="out_of_turn"),
        "b1": log(t1, b, director, kind="wrong_tile"),
        "c1": log(t2, c, director, kind="open_double_not_satisfied"),
        "a3": log(final, a, director, kind="wrong_tile"),
        "players": (a, b, c),
        "tables": (t1, t2, final),
    }


def rows_of(response):
    return sorted(r.pk for r in response.context["table"].data)


def pks(logged, *names):
    return sorted(logged[n].pk for n in names)


def test_the_log_lists_every_infraction_of_the_event(director_client, event, logged):
    response = director_client.get(log_page(event))
    assert rows_of(response) == pks(logged, "a1", "a2", "b1", "c1", "a3")
    page = response.content.decode()
    assert 'id="infraction-log"' in page and "5 infractions" in page
    assert "Penalty draw of one tile" in page and "Did not satisfy an open double" in page


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("?stage=1", ["a1", "a2", "b1", "c1"]),
        ("?stage=2", ["a3"]),
        ("?table={t2}", ["c1"]),
        ("?player={a}", ["a1", "a2", "a3"]),
        ("?kind=wrong_tile", ["a1", "b1", "a3"]),
        ("?stage=1&player={a}&kind=wrong_tile", ["a1"]),
        ("?kind=", ["a1", "a2", "b1", "c1", "a3"]),
        ("?player=999999", ["a1", "a2", "b1", "c1", "a3"]),  # a bad filter is ignored
    ],
)
def test_the_log_filters(director_client, event, logged, query, expected):
    a, _b, _c = logged["players"]
    query = query.format(a=a.pk, t2=logged["tables"][1].pk)
    assert rows_of(director_client.get(log_page(event, query))) == pks(logged, *expected)


def test_the_log_shows_changes(director_client, director, event, logged):
    change_infraction(logged["a2"], "skip_turn", "Repeated", director)
    page = director_client.get(log_page(event)).content.decode()
    assert "Skip a turn <small" in page and "logged as Penalty draw of one tile" in page
    assert "Repeated" in page


def test_the_log_is_for_directors(client, event, logged):
    response = client.get(log_page(event))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    keeper = get_user_model().objects.create_user("keeper")
    logged["tables"][0].scorekeepers.add(keeper)
    client.force_login(keeper)
    assert client.get(log_page(event)).status_code == 403


def count_queries(client, url):
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


def event_with_infractions(director, players, per_player):
    event = make_event(director)
    make_players(event, count=players)
    stage = seat(event)
    for t in Table.objects.filter(stage=stage):
        play(t, 2)
        for p in table_sheet(t).players:
            for _ in range(per_player):
                log(t, p, director, engine=11)
    return event


def test_the_log_uses_a_fixed_number_of_queries_whatever_the_size(director_client, director):
    small = event_with_infractions(director, 4, 1)
    large = event_with_infractions(director, 40, 3)
    for query in ["", "?stage=1&kind=wrong_tile", "?sort=player"]:
        assert count_queries(director_client, log_page(small, query)) == count_queries(
            director_client, log_page(large, query)
        )


@pytest.mark.parametrize("path", ["", "table/1/"])
def test_standings_and_sheet_queries_stay_fixed_with_infractions(client, director, path):
    small = event_with_infractions(director, 8, 1)
    large = event_with_infractions(director, 60, 2)
    assert count_queries(client, f"/e/{small.slug}/1/{path}") == count_queries(
        client, f"/e/{large.slug}/1/{path}"
    )
