"""Every write path of a hall at once (issue 20): scorekeepers saving rounds and logging
infractions, the director running the clock, the desk checking players in and registering
late ones, all through the pages in threads at the same moment. On SQLite (WAL, immediate
write transactions, a busy timeout) the writers queue: no error, every write stored once.
CI runs it on PostgreSQL too."""

import pytest

from scoring.models import Infraction, Round
from tests.concurrency import at_once, form_key, hidden_fields, logged_in
from tests.factories import make_event, make_players, seat
from tests.test_concurrency import round_post
from tournament.models import ClockEvent, Player, Table

pytestmark = pytest.mark.django_db(transaction=True)


def log_infraction(client, table, player, n):
    url = (
        f"/director/e/{table.stage.event.slug}/{table.stage.number}/table/{table.number}"
        "/infraction/"
    )
    page = client.get(url)
    data = {k: v for k, v in hidden_fields(page).items() if k != "csrfmiddlewaretoken"}
    data.update(player=player.pk, kind="wrong_tile", engine=12, note=f"hall {n}")
    return client.post(url, data)


def test_every_write_path_of_a_hall_at_once_queues_and_stores_each_write_once(director):
    event = make_event(director, game_minutes=60)
    make_players(event, count=40)
    late = make_players(event, names=[f"Late {i}" for i in range(10)], checked_in=False)
    stage = seat(event)
    tables = list(Table.objects.filter(stage=stage).order_by("number"))
    slug = event.slug

    def keeper(table):
        client = logged_in(director)
        return [round_post(client, table, [0, 3, 8, 13]) for _ in range(4)]

    def referee(table):
        client = logged_in(director)
        players = list(table.seats.select_related("player").values_list("player", flat=True))
        return [
            log_infraction(client, table, Player.objects.get(pk=players[n % 4]), n)
            for n in range(3)
        ]

    def clock():
        client = logged_in(director)
        url = f"/director/e/{slug}/1/clock/"
        answers = []
        for action in ("start", "pause", "resume"):
            key = form_key(client.get(f"/e/{slug}/1/"))
            answers.append(client.post(url, {"action": action, "once": key}))
        return answers

    def desk():
        client = logged_in(director)
        url = f"/director/e/{slug}/players/check-in/"
        return [client.post(url, {"checked_in": "1", "player": [p.pk]}) for p in late]

    def registration():
        client = logged_in(director)
        url = f"/director/e/{slug}/players/"
        answers = []
        for n in range(5):
            key = form_key(client.get(url))
            answers.append(client.post(url, {"name": f"Walk-in {n}", "once": key}))
        return answers

    calls = [lambda t=t: keeper(t) for t in tables[:6]]
    calls += [lambda t=t: referee(t) for t in tables[6:]]
    calls += [clock, desk, registration]
    results = at_once(calls, timeout=300)
    for answers in results:
        assert not isinstance(answers, BaseException), repr(answers)
        assert [a.status_code for a in answers] == [302] * len(answers), [
            (a.status_code, a.content.decode()[:300]) for a in answers if a.status_code != 302
        ]
    for table in tables[:6]:
        assert list(Round.objects.filter(table=table).values_list("number", flat=True)) == [
            1,
            2,
            3,
            4,
        ]
    assert Infraction.objects.filter(table__in=tables[6:]).count() == 4 * 3
    assert list(ClockEvent.objects.filter(stage=stage).values_list("action", flat=True)) == [
        "start",
        "pause",
        "resume",
    ]
    assert Player.objects.filter(pk__in=[p.pk for p in late], checked_in=True).count() == 10
    assert Player.objects.filter(event=event, name__startswith="Walk-in").count() == 5
