"""The table-code limit under `make hall` (issue 27): 30 wrong codes an hour per address,
counted in the database, so that the hall's two workers count the same tries and a restart
forgets none of them."""

from scoring.services.table_entry import TRIES_PER_HOUR
from tests.hall import Hall, Phone

OPEN_A_TABLE = """
from tournament.models import Event, Table
table = Table.objects.filter(stage__closed=False).order_by("pk").first()
Event.objects.filter(pk=table.stage.event_id).update(table_entry=True)
print(table.code)
"""


def status(port: int, path: str) -> int:
    return Phone(port).get(path)[0].status  # a new connection, whichever worker takes it


def test_wrong_codes_are_counted_across_the_halls_workers_and_a_restart(tmp_path):
    with Hall(tmp_path) as hall:
        code = hall.manage("shell", "--no-imports", "-c", OPEN_A_TABLE).strip()
        assert status(hall.port, f"/t/{code}/") == 200
        wrong = [status(hall.port, f"/t/ZZZZZ{i % 10}/") for i in range(TRIES_PER_HOUR)]
        assert wrong == [404] * TRIES_PER_HOUR
        assert status(hall.port, "/t/ZZZZZZ/") == 429
        assert [status(hall.port, f"/t/{code}/") for _ in range(10)] == [429] * 10
    with Hall(tmp_path) as restarted:  # the same folder and database, started again
        assert [status(restarted.port, f"/t/{code}/") for _ in range(10)] == [429] * 10
