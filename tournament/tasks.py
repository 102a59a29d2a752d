"""Background work of the event app, each task a thin call of a service."""

from django.tasks import task

from tournament.services.registration import read_later
from tournament.services.signup import mail_seat, mail_signup
from tournament.services.worker import forget_heartbeats


@task()
def read_registration_list(reading_id: int) -> None:
    """Read a registration list too large for a request (tournament/services/registration.py)."""
    read_later(reading_id)


@task()
def send_signup_mail(signup_id: int, what: str) -> bool:
    """E-mail a registrant (tournament/services/signup.py): signed up, promoted, approved."""
    return mail_signup(signup_id, what)


@task()
def send_seat_mail(signup_id: int, stage_id: int) -> bool:
    """E-mail a registrant their table once a stage's seating is published."""
    return mail_seat(signup_id, stage_id)


@task()
def heartbeat() -> None:
    """The worker's sign of life for ``/healthz`` (tournament/health.py): done at once; the
    heartbeats but the newest few are forgotten (one a minute would pile up)."""
    forget_heartbeats(HEARTBEAT_TASK)


HEARTBEAT_TASK = f"{heartbeat.func.__module__}.{heartbeat.func.__qualname__}"
