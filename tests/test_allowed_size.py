"""Where the sizes the rule set lists cannot seat a stage, the site says what the director can
do: allow a table size for that stage, and the page offers it (issue 45 item 1). A night of two
double-9 sets lists tables of 6, 7 and 8: after a withdrawal, 11 players cannot be seated at
them; tables of 5 allowed for the stage seat them at a 6 and a 5, each drawing 15 tiles (as
the tables of 6 do), and the event's file brings it back."""

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from scoring.eventfile import dumps, export_event
from scoring.models import Round
from scoring.services.simulation import simulate_stage
from scoring.services.stages import close_stage
from tests.concurrency import form_key
from tests.factories import make_event, make_players, seat
from tournament.models import Action, Event, Seat, Stage, Table
from tournament.services.seating import withdraw_player

pytestmark = pytest.mark.django_db

SIX_TO_EIGHT = {
    "set_size": 9,
    "sets": 2,
    "engines": [9, 8],
    "tiles_drawn": {"6": 15, "7": 13, "8": 12},
    "table_size": 7,
    "game_minutes": None,
}
FR = {"HTTP_ACCEPT_LANGUAGE": "fr"}


def seating_url(event, stage=1):
    return f"/director/e/{event.slug}/{stage}/seat/"


def offer_key(page: str) -> str:
    """The ``once`` key of the page's "allow tables of N" form."""
    found = re.search(r'id="allow-size-form">.*?name="once" value="([^"]+)"', page, re.S)
    assert found, "the page offers no size to allow"
    return found.group(1)


def sizes(stage) -> list[int]:
    return sorted((t.seats.count() for t in Table.objects.filter(stage=stage)), reverse=True)


def test_a_draw_the_listed_sizes_cannot_seat_names_a_size_and_the_page_allows_it(
    director_client, director
):
    event = make_event(director, **SIX_TO_EIGHT)
    make_players(event, count=11)
    answer = director_client.post(seating_url(event), {"once": "a" * 32}, follow=True)
    page = answer.content.decode()
    assert (
        "11 players cannot be seated at balanced tables of the sizes this rule set deals "
        "(6, 7, 8). Allow tables of 5 for Game 1: each of their players draws 15 tiles."
    ) in page
    assert answer.redirect_chain[-1][0] == f"/e/{event.slug}/1/seating/?allow=5"
    assert "Allow tables of 5 for this stage and seat it" in page
    assert not Table.objects.exists()

    answer = director_client.post(
        seating_url(event), {"once": offer_key(page), "allow": "5"}, follow=True
    )
    page = answer.content.decode()
    game1 = event.stages.get(number=1)
    assert sizes(game1) == [6, 5]
    assert game1.allowed_size == 5 and game1.rules.tiles_for(5) == 15
    assert "Tables of 5 are allowed for this stage: each of their players draws 15 tiles." in page
    assert Action.objects.filter(verb="stage.size_allowed", data__size=5).exists()


def test_the_refusal_and_the_offer_are_in_french(director_client, director):
    event = make_event(director, **SIX_TO_EIGHT)
    make_players(event, count=11)
    page = director_client.post(seating_url(event), {}, follow=True, **FR).content.decode()
    assert (
        "11 joueurs ne peuvent pas être placés à des tables équilibrées des tailles que ces "
        "règles permettent (6, 7, 8). Autorisez des tables de 5 pour Partie 1 : chacun de "
        "leurs joueurs pioche 15 dominos."
    ) in page
    assert "Autoriser des tables de 5 pour cette phase et la placer" in page
    director_client.post(seating_url(event), {"once": offer_key(page), "allow": "5"})
    page = director_client.get(f"/e/{event.slug}/1/seating/", **FR).content.decode()
    assert (
        "Des tables de 5 sont autorisées pour cette phase : chacun de leurs joueurs pioche 15 "
        "dominos."
    ) in page


def test_after_a_withdrawal_the_next_game_is_seated_with_the_size_the_close_page_offers(
    director_client, director
):
    """A cumulative night of 12 at tables of 6 to 8: one withdraws after Game 1, and Game 2's
    11 cannot be seated. The close page says so and offers tables of 5; the event with them
    comes back from its file."""
    event = make_event(director, format_kind="cumulative", format_games=2, **SIX_TO_EIGHT)
    make_players(event, count=12)
    game1 = seat(event)
    simulate_stage(game1, seed=3)
    withdraw_player(Seat.objects.filter(stage=game1).first().player, director, "Went home")
    close = f"/director/e/{event.slug}/1/close/"
    answer = director_client.post(close, {"once": form_key(director_client.get(close))})
    assert answer["Location"] == f"{close}?allow=5"
    page = director_client.get(answer["Location"]).content.decode()
    assert (
        "11 players cannot be seated at balanced tables of the sizes this rule set deals "
        "(6, 7, 8). Allow tables of 5 for Game 2: each of their players draws 15 tiles."
    ) in page
    assert "Allow tables of 5 for the next stage and seat it" in page
    answer = director_client.post(
        close, {"once": offer_key(page), "action": "seat_next", "allow": "5"}
    )
    game2 = event.stages.get(number=2)
    assert answer["Location"] == f"/e/{event.slug}/2/seating/"
    assert sizes(game2) == [6, 5] and game2.allowed_size == 5
    simulate_stage(game2, seed=3)
    assert Round.objects.filter(table__stage=game2).count() == 4

    text = director_client.get(f"/director/e/{event.slug}/event.json").content.decode()
    assert text == dumps(export_event(event))
    assert '"allowed_size": 5' in text
    Event.objects.all().delete()
    upload = director_client.post(
        "/director/import/", {"file": SimpleUploadedFile("night.json", text.encode())}
    )
    assert upload.status_code == 302
    copy = Event.objects.get()
    assert copy.stages.get(number=2).allowed_size == 5
    assert dumps(export_event(copy)) == text


def test_a_final_of_three_at_tables_of_six_to_eight_is_allowed_not_a_semifinal(
    director_client, director
):
    event = make_event(director, finals_top_n=1, **SIX_TO_EIGHT)
    make_players(event, count=18)  # Game 1 at three tables of 6: a winner each
    game1 = seat(event)
    simulate_stage(game1, seed=1)
    close_stage(game1, director)
    close = f"/director/e/{event.slug}/1/close/"
    key = form_key(director_client.get(close))
    answer = director_client.post(close, {"once": key, "action": "seat_next"})
    page = director_client.get(answer["Location"]).content.decode()
    assert (
        "A Final of 3 cannot be dealt at one table under this event&#x27;s rules (it deals "
        "tables of 6, 7, 8). Allow tables of 3 for Final: each of their players draws 15 tiles."
    ) in page
    director_client.post(close, {"once": offer_key(page), "action": "seat_next", "allow": "3"})
    final = event.stages.get(kind="final")
    assert sizes(final) == [3] and final.allowed_size == 3
    assert not event.stages.filter(kind="semifinal").exists()


def test_a_no_show_the_others_cannot_be_rebalanced_without_is_withdrawn_and_told_what_to_do(
    director_client, director
):
    """12 at two tables of 6: a no-show withdrawn before any round leaves 11, which tables of
    6 to 8 cannot seat. The withdrawal is made (once a 500), the tables stay as they are, and
    the seating page offers tables of 5."""
    from tests.test_desk import withdraw

    event = make_event(director, **SIX_TO_EIGHT)
    make_players(event, count=12)
    game1 = seat(event)
    no_show = Seat.objects.filter(stage=game1).first().player
    answer = withdraw(director_client, no_show, "Did not come")
    assert answer.status_code == 302
    page = director_client.get(answer["Location"]).content.decode()
    assert (
        f"{no_show.name} is removed from table 1 of Game 1; the tables stay as they are: 11 "
        "players cannot be seated at balanced tables of the sizes this rule set deals (6, 7, "
        "8). Allow tables of 5 for Game 1: each of their players draws 15 tiles."
    ) in page
    assert sizes(game1) == [6, 5]
    page = director_client.get(f"/e/{event.slug}/1/seating/").content.decode()
    director_client.post(seating_url(event), {"once": offer_key(page), "allow": "5"})
    game1 = Stage.objects.get(pk=game1.pk)
    assert game1.allowed_size == 5 and sizes(game1) == [6, 5]
    assert not Seat.objects.filter(player=no_show).exists()


@pytest.mark.parametrize("size", ["13", "1", "99"])
def test_a_size_that_cannot_be_dealt_is_refused_and_nothing_is_seated(
    director_client, director, size
):
    event = make_event(director, **SIX_TO_EIGHT)
    make_players(event, count=11)
    page = director_client.post(
        seating_url(event), {"once": "b" * 32, "allow": size}, follow=True
    ).content.decode()
    assert f"A table of {size} players cannot be dealt under this event&#x27;s rules." in page
    assert not Table.objects.exists() and event.stages.get(number=1).allowed_size is None
