"""Background work of the event app, each task a thin call of a service."""

from django.tasks import task

from tournament.services.registration import read_later


@task()
def read_registration_list(reading_id: int) -> None:
    """Read a registration list too large for a request (tournament/services/registration.py)."""
    read_later(reading_id)
