"""The background worker's heartbeats (tournament/health.py, ``/healthz``): its writes."""

from django_tasks_db.models import DBTaskResult

HEARTBEATS_KEPT = 5


def forget_heartbeats(task_path: str) -> None:
    """The finished heartbeats but the newest ``HEARTBEATS_KEPT``: one a minute would pile up."""
    done = DBTaskResult.objects.filter(task_path=task_path).exclude(status="READY")
    old = done.order_by("-enqueued_at").values_list("pk", flat=True)[HEARTBEATS_KEPT:]
    DBTaskResult.objects.filter(pk__in=list(old)).delete()
