"""Background work of the event app, each task a thin call of a service."""

from django.tasks import task
from django_tasks_db.models import DBTaskResult

from tournament.services.registration import read_later


@task()
def read_registration_list(reading_id: int) -> None:
    """Read a registration list too large for a request (tournament/services/registration.py)."""
    read_later(reading_id)


HEARTBEATS_KEPT = 5


@task()
def heartbeat() -> None:
    """The worker's sign of life for ``/healthz`` (tournament/health.py): done at once; the
    heartbeats but the newest few are forgotten (one a minute would pile up)."""
    done = DBTaskResult.objects.filter(task_path=HEARTBEAT_TASK).exclude(status="READY")
    old = done.order_by("-enqueued_at").values_list("pk", flat=True)[HEARTBEATS_KEPT:]
    DBTaskResult.objects.filter(pk__in=list(old)).delete()


HEARTBEAT_TASK = f"{heartbeat.func.__module__}.{heartbeat.func.__qualname__}"
