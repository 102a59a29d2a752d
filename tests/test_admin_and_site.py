import os
import subprocess
import sys

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from tests.factories import play
from tests.test_standings import shown_rows
from tournament.models import Event, Seat, Table

pytestmark = pytest.mark.django_db

MODELS = [
    "tournament/event",
    "tournament/player",
    "tournament/stage",
    "tournament/table",
    "tournament/seat",
    "tournament/clockevent",
    "scoring/round",
    "scoring/score",
    "scoring/scorechange",
    "scoring/infraction",
]


@pytest.mark.parametrize("model", MODELS)
def test_admin_lists_and_opens_every_model(admin_client, seated, model):
    play(Table.objects.filter(stage=seated).first(), 1)
    listing = admin_client.get(f"/admin/{model}/")
    assert listing.status_code == 200
    assert listing.context["cl"].result_count >= 0


def test_admin_shows_scores_but_does_not_edit_them(admin_client, seated):
    play(Table.objects.filter(stage=seated).first(), 1)
    assert admin_client.get("/admin/scoring/score/add/").status_code == 403


def test_a_score_deleted_in_the_admin_leaves_its_seats_total_right(admin_client, seated):
    from scoring.models import Score

    table = Table.objects.filter(stage=seated).first()
    play(table, 2)
    score = Score.objects.filter(round__table=table, round__number=1, pips__gt=0).first()
    response = admin_client.post(f"/admin/scoring/score/{score.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    seat = Seat.objects.get(table=table, player=score.player_id)
    left = Score.objects.get(round__table=table, round__number=2, player=score.player_id)
    assert seat.pips_entered == left.pips
    rows = {row[1]: row for row in shown_rows(admin_client.get("/e/spring/1/").content.decode())}
    assert rows[score.player.name][4] == str(left.pips)  # the total the standings show


def test_admin_does_not_seat_or_move_a_player(admin_client, seated):
    play(Table.objects.filter(stage=seated).first(), 2)
    seat = Seat.objects.filter(stage=seated, table__number=1).first()
    elsewhere = Table.objects.get(stage=seated, number=2)
    assert admin_client.get("/admin/tournament/seat/add/").status_code == 403
    form = {"position": 9, "left_after": "", "joined_at": ""}
    response = admin_client.post(
        f"/admin/tournament/seat/{seat.pk}/change/", {**form, "table": elsewhere.pk}
    )
    assert response.status_code == 302
    seat.refresh_from_db()
    assert seat.position == 9 and seat.table.number == 1  # moved by the seating, not here


def test_an_admin_edit_never_writes_back_what_the_site_keeps(rf, seated):
    """A row the admin read before a round was saved: its edit writes what the form edits,
    not the table's round count nor the event's version as they were read."""
    from django.contrib import admin as site

    table = Table.objects.filter(stage=seated).first()
    stale_table, stale_event = Table.objects.get(pk=table.pk), Event.objects.get(pk=seated.event_id)
    play(table, 2)
    version = Event.objects.get(pk=seated.event_id).version
    request = rf.post("/admin/")
    stale_table.number = 7
    site.site._registry[Table].save_model(request, stale_table, None, change=True)
    stale_event.venue = "Hall B"
    site.site._registry[Event].save_model(request, stale_event, None, change=True)
    table.refresh_from_db()
    assert (table.number, table.rounds_played) == (7, 2)
    event = Event.objects.get(pk=seated.event_id)
    assert (event.venue, event.version) == ("Hall B", version + 2)  # each save bumps it


def test_setup_site_creates_a_director_and_the_demo_event_once(capsys):
    call_command("setup_site")
    out = capsys.readouterr().out
    assert "Director login created: user 'director', password '" in out
    password = out.split("password '")[1].split("'")[0]
    director = get_user_model().objects.get(username="director")
    assert director.check_password(password)
    assert director.has_perm("tournament.add_event")
    demo = Event.objects.get(slug="demo")
    assert demo.is_director(director)
    assert demo.players.count() == 18 and demo.stages.get(number=1).tables.count() == 5
    assert Event.objects.get(slug="demo-club-night").format.is_cumulative
    call_command("setup_site")
    assert Event.objects.count() == 2  # the knockout demo and the cumulative club night
    assert "Demo event already loaded." in capsys.readouterr().out


def run_manage(*args, **env):
    return subprocess.run(  # noqa: S603 (our own manage.py)
        [sys.executable, "manage.py", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "DATABASE_URL": "sqlite:///:memory:", **env},
        check=False,
    )


def test_production_settings_pass_check_deploy():
    result = run_manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DEBUG="0",
        SECRET_KEY="x" * 20 + os.urandom(24).hex(),
        ALLOWED_HOSTS="example.org",
        PROXY_COUNT="1",  # behind the README's HTTPS proxy (tournament.W001 without it)
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_production_refuses_to_start_without_a_secret_key():
    result = run_manage("check", DEBUG="0", SECRET_KEY="", ALLOWED_HOSTS="example.org")
    assert result.returncode != 0
    assert "Set SECRET_KEY in the environment when DEBUG is off" in result.stderr


def test_a_bad_debug_value_fails_loudly():
    result = run_manage("check", DEBUG="maybe")
    assert result.returncode != 0 and "DEBUG must be true or false" in result.stderr
