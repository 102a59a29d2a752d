"""Background work of the event app, each task a thin call of a service."""

from django.tasks import task

from tournament import list_readings


@task()
def read_registration_list(reading_id: int) -> None:
    """Read a registration list too large for a request (tournament/list_readings.py)."""
    list_readings.read(reading_id)
