import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from scoring.models import Round
from scoring.sheets import table_sheet
from tests.factories import make_director
from tournament.models import Table

pytestmark = pytest.mark.django_db


def test_a_director_gives_tables_to_a_new_scorekeeper_who_then_enters_rounds(
    director_client, seated
):
    t1, t2 = Table.objects.filter(stage=seated)
    url = f"/director/e/{seated.event.slug}/scorekeepers/"
    response = director_client.post(url, {"username": "desk1", "tables": [t1.pk]}, follow=True)
    page = response.content.decode()
    assert "Login created for desk1, password " in page
    password = page.split("Login created for desk1, password ")[1].split(":")[0]
    assert "desk1 keeps the score of 1 table." in page and "Game 1 · 1" in page

    keeper = Client()
    assert keeper.login(username="desk1", password=password)
    players = table_sheet(t1).players
    enter = f"/director/e/{seated.event.slug}/1/table/{{}}/enter/"
    form = {f"p{p.pk}": v for p, v in zip(players, [0, 3, 4, 5], strict=True)}
    assert keeper.post(enter.format(1), form).status_code == 302
    assert Round.objects.filter(table=t1).count() == 1
    assert keeper.get(enter.format(2)).status_code == 403


def test_an_existing_user_keeps_their_password(director_client, seated):
    get_user_model().objects.create_user("desk2", password="their-own-pass-99")
    t1 = Table.objects.filter(stage=seated).first()
    page = director_client.post(
        f"/director/e/{seated.event.slug}/scorekeepers/",
        {"username": "desk2", "tables": [t1.pk]},
        follow=True,
    )
    assert "Login created" not in page.content.decode()
    assert t1.scorekeepers.filter(username="desk2").exists()


def test_a_bad_username_or_no_table_saves_nothing(director_client, seated):
    url = f"/director/e/{seated.event.slug}/scorekeepers/"
    t1 = Table.objects.filter(stage=seated).first()
    page = director_client.post(url, {"username": "bad name!", "tables": [t1.pk]})
    assert "Enter a valid username" in page.content.decode()
    page = director_client.post(url, {"username": "desk3"})
    assert "This field is required" in page.content.decode()
    assert not get_user_model().objects.filter(username__startswith="desk").exists()


def test_only_the_events_directors_give_tables(client, seated):
    client.force_login(make_director("other"))
    t1 = Table.objects.filter(stage=seated).first()
    url = f"/director/e/{seated.event.slug}/scorekeepers/"
    assert client.post(url, {"username": "sneaky", "tables": [t1.pk]}).status_code == 403
    assert not t1.scorekeepers.exists()


def test_tables_of_another_event_cannot_be_given(director_client, seated):
    from tests.factories import make_event, make_players, seat

    other = make_event()
    make_players(other, count=4)
    foreign = Table.objects.get(stage=seat(other))
    page = director_client.post(
        f"/director/e/{seated.event.slug}/scorekeepers/",
        {"username": "desk4", "tables": [foreign.pk]},
    )
    assert "Select a valid choice" in page.content.decode()
    assert not foreign.scorekeepers.exists()
