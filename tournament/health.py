"""What ``/healthz`` says (tournament/middleware.py ``HealthCheckMiddleware``): whether the
database, the cache and the background worker are alive.

- the database: one ``SELECT 1``;
- the cache: a value written and read back (Redis on a hosted site, each process's memory
  otherwise);
- the worker (``manage.py db_worker``): it runs a heartbeat task queued at most once a
  ``HEARTBEAT_SECONDS`` by the checks themselves; it is alive while the last heartbeat ran
  and none has waited longer than ``WORKER_LATE_SECONDS``. Before any heartbeat was queued
  (a site just started) it is "starting".

A load balancer asks the plain ``/healthz``: 200 while the database and the cache answer, so
that a worker's trouble does not take the web servers out of service. ``/healthz?worker=1``
(the hall's container, whose worker runs beside its server) is 503 as well when the worker
is not alive.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta

from django.core.cache import cache
from django.db import DatabaseError, connection
from django.utils import timezone
from django_tasks_db.backend import DatabaseBackend
from django_tasks_db.models import DBTaskResult

from tournament.tasks import HEARTBEAT_TASK, heartbeat

logger = logging.getLogger(__name__)

HEARTBEAT_SECONDS = 60
WORKER_LATE_SECONDS = 120


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool = True
    detail: str = "ok"

    def line(self) -> str:
        return f"{self.name}: {self.detail}"


def database() -> Check:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError as error:
        logger.warning("Health check: the database does not answer: %s", error)
        return Check("database", False, "unreachable")
    return Check("database")


def cache_check() -> Check:
    key = "healthz:probe"
    try:
        token = timezone.now().isoformat()
        cache.set(key, token, 30)
        if cache.get(key) != token:
            return Check("cache", False, "does not keep what it is given")
    except Exception as error:  # a cache server down raises its client's own errors
        logger.warning("Health check: the cache does not answer: %s", error)
        return Check("cache", False, "unreachable")
    return Check("cache")


def worker() -> Check:
    """The background worker, by its heartbeats (a task queued here, at most once a minute
    across every process: the cache holds the turn)."""
    if not isinstance(heartbeat.get_backend(), DatabaseBackend):
        return Check("worker", True, "none (tasks run inside the requests)")
    now = timezone.now()
    beats = DBTaskResult.objects.filter(task_path=HEARTBEAT_TASK)
    try:
        waiting = beats.filter(status="READY").order_by("enqueued_at").first()
        last = beats.filter(status="SUCCESSFUL").order_by("-finished_at").first()
        if waiting is None and cache.add("healthz:heartbeat", 1, HEARTBEAT_SECONDS):
            heartbeat.enqueue()
    except DatabaseError as error:
        logger.warning("Health check: the worker's tasks cannot be read: %s", error)
        return Check("worker", False, "unknown")
    if waiting is not None and now - waiting.enqueued_at > timedelta(seconds=WORKER_LATE_SECONDS):
        waited = int((now - waiting.enqueued_at).total_seconds())
        return Check("worker", False, f"not running (a task has waited {waited} s)")
    if last is None:
        return Check("worker", True, "starting (no heartbeat yet)")
    seen = int((now - last.finished_at).total_seconds())
    return Check("worker", True, f"ok (last heartbeat {seen} s ago)")


def checks(with_worker: bool = True) -> list[Check]:
    """The database first: without it nothing else is asked."""
    first = database()
    if not first.ok:
        return [first]
    found = [first, cache_check()]
    if with_worker:
        found.append(worker())
    return found
