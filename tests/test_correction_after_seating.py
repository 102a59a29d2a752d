"""A correction after the next stage is seated (issue 12 item 4): the conflict shows on the
event home and the bracket until a director applies it (the affected seats swapped, the tables
whose players changed replay) or keeps the published seating with a reason."""

import pytest
from django.db.models import Count

from scoring.models import Round
from scoring.services.rounds import correct_round, record_round
from scoring.sheets import table_sheet
from tests.concurrency import at_once, form_key, logged_in, no_errors
from tests.factories import make_director, make_event, make_players, seat
from tests.test_advancement import advance_url, play_totals
from tournament.models import Action, Seat, Stage, StageKind, Table

pytestmark = pytest.mark.django_db


@pytest.fixture
def seated_semifinal(director, director_client):
    """24 players: Game 1 closed (six winners), the semifinal seated at two tables of 3 and
    both tables' first round entered. Then table 1 of Game 1 is corrected: its winner changes."""
    event = make_event(director, engines=[1, 0], game_minutes=None)
    make_players(event, count=24)
    game1 = seat(event)
    for t in Table.objects.filter(stage=game1):
        play_totals(t, [3, 10, 20, 30])
    director_client.post(advance_url(game1), {"action": "close"})
    semifinal = Stage.objects.get(event=event, kind=StageKind.SEMIFINAL)
    for t in semifinal.tables.all():
        players = table_sheet(t).players
        record_round(t, {p.pk: n for p, n in zip(players, [0, 5, 7], strict=True)}, director)
    t1 = Table.objects.get(stage=game1, number=1)
    sheet = table_sheet(t1)
    winner, second = sheet.players[0], sheet.players[1]  # totals 3 and 10
    last = t1.rounds.order_by("-number").first()
    pips = {s.player_id: s.pips for s in last.scores.all()}
    pips[winner.pk] += 20  # the winner's last round was 20 more: 23, the second wins
    correct_round(last, pips, director, "Sheet misread")
    return event, semifinal, winner, second


def conflict_url(stage):
    return f"/director/e/{stage.event.slug}/{stage.number}/correction/"


def test_the_conflict_shows_on_the_event_home_and_the_bracket(
    client, director_client, seated_semifinal
):
    event, semifinal, winner, second = seated_semifinal
    for page in (f"/e/{event.slug}/", f"/e/{event.slug}/bracket/"):
        text = director_client.get(page).content.decode()
        assert "A correction to Game 1 changed who advances, but Semifinal is already seated." in (
            text
        )
        assert f"Advance now: {second.name}" in text
        assert f"Seated but no longer advance: {winner.name}" in text
        assert conflict_url(semifinal) in text
    public = client.get(f"/e/{event.slug}/").content.decode()
    assert "changed who advances" in public and "The directors are deciding." in public


def test_applying_swaps_the_seat_and_only_that_table_replays(director_client, seated_semifinal):
    event, semifinal, winner, second = seated_semifinal
    table_of = dict(Seat.objects.filter(stage=semifinal).values_list("player", "table__number"))
    changed = table_of[winner.pk]
    page = director_client.get(conflict_url(semifinal)).content.decode()
    assert f"Table {changed} changes players: its entered rounds are removed" in page
    response = director_client.post(conflict_url(semifinal), {"action": "apply"}, follow=True)
    assert f"Tables that must replay: {changed}." in response.content.decode()
    seated = dict(Seat.objects.filter(stage=semifinal).values_list("player", "table__number"))
    assert winner.pk not in seated and seated[second.pk] == changed
    rounds = dict(
        Table.objects.filter(stage=semifinal).annotate(n=Count("rounds")).values_list("number", "n")
    )
    assert rounds[changed] == 0 and rounds[3 - changed] == 1
    assert "changed who advances" not in director_client.get(f"/e/{event.slug}/").content.decode()
    assert Action.objects.filter(event=event, verb="stage.correction_applied").count() == 1
    again = director_client.post(conflict_url(semifinal), {"action": "apply"}, follow=True)
    assert "already matches who advances" in again.content.decode()


def test_keeping_the_published_seating_needs_a_reason(director_client, seated_semifinal):
    event, semifinal, winner, _second = seated_semifinal
    response = director_client.post(
        conflict_url(semifinal), {"action": "keep", "reason": " "}, follow=True
    )
    assert "Give the reason for keeping the published seating." in response.content.decode()
    assert "changed who advances" in director_client.get(f"/e/{event.slug}/").content.decode()
    director_client.post(
        conflict_url(semifinal), {"action": "keep", "reason": "Announced before the appeal"}
    )
    assert winner.pk in set(Seat.objects.filter(stage=semifinal).values_list("player", flat=True))
    assert Round.objects.filter(table__stage=semifinal).count() == 2
    assert "changed who advances" not in director_client.get(f"/e/{event.slug}/").content.decode()
    kept = Action.objects.get(event=event, verb="stage.seating_kept")
    assert kept.reason == "Announced before the appeal"


@pytest.mark.django_db(transaction=True)
def test_two_directors_applying_at_once_apply_it_once(director, director_client, seated_semifinal):
    event, semifinal, winner, second = seated_semifinal
    clients = [logged_in(make_director()) for _ in range(3)]
    for c in clients:
        event.directors.add(c.session["_auth_user_id"])
    url = conflict_url(semifinal)
    posts = [{"action": "apply", "once": form_key(c.get(url))} for c in clients]
    results = at_once(
        [lambda c=c, p=p: c.post(url, p) for c, p in zip(clients, posts, strict=True)]
    )
    no_errors(results)
    seated = list(Seat.objects.filter(stage=semifinal).values_list("player", flat=True))
    assert len(seated) == 6 and second.pk in seated and winner.pk not in seated
    assert Action.objects.filter(event=event, verb="stage.correction_applied").count() == 1
