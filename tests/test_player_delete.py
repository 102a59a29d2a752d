"""A player registered by mistake (a repeated row, a wrong name) and never seated can be deleted
from the player's page, once, with a history entry (issue 28, item 2); a player who was seated
cannot: withdraw instead."""

import pytest

from tests.concurrency import at_once, hidden_fields, logged_in, no_errors, said
from tests.factories import make_director, make_event, make_players, seat
from tournament.models import Action, Player


def player_url(event, player):
    return f"/director/e/{event.slug}/players/{player.pk}/"


def delete_page(client, event, player):
    """The confirmation page, reached from the player's page's "Delete this player" button."""
    page = client.get(player_url(event, player)).content.decode()
    assert "Delete this player" in page
    href = f'href="/director/e/{event.slug}/players/{player.pk}/delete/"'
    assert href in page
    return client.get(f"/director/e/{event.slug}/players/{player.pk}/delete/")


def post_delete(client, event, player_pk, page):
    """Post the confirmation page's form as it is shown (its key)."""
    fields = {k: v for k, v in hidden_fields(page).items() if k != "csrfmiddlewaretoken"}
    return client.post(f"/director/e/{event.slug}/players/{player_pk}/delete/", fields)


@pytest.fixture
def ann(event):
    return Player.objects.create(event=event, name="Ann Lee", ref="12", club="Reno Club")


def test_a_never_seated_player_is_deleted_with_a_history_entry(director_client, event, ann):
    Player.objects.create(event=event, name="Bo Diaz")
    page = delete_page(director_client, event, ann)
    assert "Delete Ann Lee?" in page.content.decode()
    assert Player.objects.filter(pk=ann.pk).exists()  # the page alone deletes nothing
    done = post_delete(director_client, event, ann.pk, page)
    assert done["Location"] == f"/director/e/{event.slug}/players/"
    assert said(done) == ["Ann Lee is deleted."]
    assert list(event.players.values_list("name", flat=True)) == ["Bo Diaz"]
    players_page = director_client.get(done["Location"]).content.decode()
    assert "Ann Lee" in players_page  # the message
    assert f"/players/{ann.pk}/" not in players_page  # no longer listed
    history = director_client.get(f"/director/e/{event.slug}/history/").content.decode()
    assert "Player deleted: Ann Lee (id 12, club Reno Club)" in history


def test_a_double_post_deletes_once_and_says_it_is_deleted_already(director_client, event, ann):
    page = delete_page(director_client, event, ann)
    post_delete(director_client, event, ann.pk, page)
    again = post_delete(director_client, event, ann.pk, page)  # the same form, posted twice
    assert again.status_code == 302
    assert said(again)[-1] == "Ann Lee is already deleted."
    # A post without the page's key (an old page) is told the same.
    other = director_client.post(f"/director/e/{event.slug}/players/{ann.pk}/delete/")
    assert said(other)[-1] == "Ann Lee is already deleted."
    assert Action.objects.filter(event=event, verb="player.deleted").count() == 1


def test_a_second_device_with_its_own_page_is_told_it_is_deleted_already(event, director, ann):
    first, second = logged_in(director), logged_in(director)  # two phones of the director
    page_one = delete_page(first, event, ann)
    page_two = delete_page(second, event, ann)
    post_delete(first, event, ann.pk, page_one)
    answer = post_delete(second, event, ann.pk, page_two)
    assert answer.status_code == 302
    assert said(answer) == ["Ann Lee is already deleted."]
    second.get(answer["Location"])  # the message shown
    # Its page opened again after the deletion says so too.
    reopened = second.get(f"/director/e/{event.slug}/players/{ann.pk}/delete/")
    assert reopened["Location"] == f"/director/e/{event.slug}/players/"
    assert said(reopened) == ["Ann Lee is already deleted."]
    assert Action.objects.filter(event=event, verb="player.deleted").count() == 1


def test_a_player_who_was_seated_cannot_be_deleted(director_client, event):
    make_players(event, count=4)
    seat(event)
    player = event.players.first()
    page = director_client.get(player_url(event, player)).content.decode()
    assert "Delete this player" not in page
    assert f"{player.name} has played: withdraw instead." in page
    confirm = director_client.get(f"/director/e/{event.slug}/players/{player.pk}/delete/")
    assert 'id="delete-player-form"' not in confirm.content.decode()
    # A form posted all the same (an old page): refused, with the reason.
    answer = director_client.post(f"/director/e/{event.slug}/players/{player.pk}/delete/")
    assert answer["Location"] == player_url(event, player)
    assert said(answer) == [f"{player.name} has played: withdraw instead."]
    assert Player.objects.filter(pk=player.pk).exists()
    assert not Action.objects.filter(verb="player.deleted").exists()


def test_a_withdrawn_player_with_rounds_played_cannot_be_deleted(director_client, event):
    from tests.factories import play
    from tournament.services.seating import withdraw_player

    make_players(event, count=4)
    stage = seat(event)
    play(stage.tables.get(), 2)
    player = event.players.first()
    withdraw_player(player, None, "went home", "")
    answer = director_client.post(f"/director/e/{event.slug}/players/{player.pk}/delete/")
    assert said(answer) == [f"{player.name} has played: withdraw instead."]
    assert Player.objects.filter(pk=player.pk).exists()


def test_a_player_of_another_event_is_not_found_from_this_one(director_client, event, ann):
    assert delete_page(director_client, event, ann).status_code == 200
    other = make_event()
    stranger = Player.objects.create(event=other, name="Cy Young")
    url = f"/director/e/{event.slug}/players/{stranger.pk}/delete/"
    assert director_client.get(url).status_code == 404
    assert director_client.post(url).status_code == 404
    assert Player.objects.filter(pk=stranger.pk).exists()


@pytest.mark.django_db(transaction=True)
def test_two_devices_deleting_at_once_delete_once():
    director = make_director()
    event = make_event(director)
    ann = Player.objects.create(event=event, name="Ann Lee", club="Reno Club")
    clients = [logged_in(director), logged_in(director)]
    pages = [delete_page(c, event, ann) for c in clients]
    pairs = zip(clients, pages, strict=True)
    results = at_once([lambda c=c, p=p: post_delete(c, event, ann.pk, p) for c, p in pairs])
    no_errors(results)
    assert sorted(m for r in results for m in said(r)) == [
        "Ann Lee is already deleted.",
        "Ann Lee is deleted.",
    ]
    assert not Player.objects.filter(pk=ann.pk).exists()
    assert Action.objects.filter(event=event, verb="player.deleted").count() == 1
