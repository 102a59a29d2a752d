"""Start the site as the container image runs it (Containerfile, compose.yaml).

    python manage.py serve hall      # the hall on one laptop: everything in one container
    python manage.py serve web       # one application server of a hosted site
    python manage.py serve worker    # the background worker of a hosted site
    python manage.py serve prepare   # a hosted site's migrations and roles, then exits

``hall`` does what `make hall` does: migrations, the roles and the director's login (its
password printed the first time), the demo event, the background workers (one per core) and
gunicorn with the hall's settings (tournament/hall_server.py), which prints the addresses
phones open. ``web`` serves with gunicorn on ``HOST`` (default 0.0.0.0:8000); the site's
settings come from the environment, as "Deploying on PostgreSQL" in the README says.

The command stays the container's first process: a stop (SIGTERM from ``docker stop``,
SIGINT from Ctrl+C) is passed on to every process it started, and it returns when they have
all ended, with the server's exit status.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

from django.core.management import BaseCommand, CommandError, call_command

ROLES = ("hall", "web", "worker", "prepare")


def worker_command() -> list[str]:
    return [sys.executable, "manage.py", "db_worker", "--interval", "2"]


def web_command() -> list[str]:
    """gunicorn for one application server of a hosted site: threads, so that a phone's
    stream (LIVE_STREAMS) holds a thread and not a process."""
    bind = os.environ.get("HOST") or "0.0.0.0:8000"  # noqa: S104 (the container's own network)
    workers = os.environ.get("WEB_WORKERS", "2")
    threads = int(os.environ.get("WEB_THREADS", "8")) + int(os.environ.get("LIVE_STREAMS") or 0)
    return [
        *[sys.executable, "-m", "gunicorn", "tournament.wsgi"],
        *["--bind", bind, "--workers", workers, "--threads", str(threads)],
        *["--worker-class", "gthread", "--timeout", "60", "--graceful-timeout", "20"],
        *["--config", "python:tournament.gunicorn_hooks"],
        "--control-socket-disable",
    ]


def hall_command() -> list[str]:
    return [sys.executable, "-m", "tournament.hall_front"]


class Command(BaseCommand):
    help = "Start the site as its container image does: hall, web, worker or prepare."

    def add_arguments(self, parser):
        parser.add_argument("role", choices=ROLES)
        parser.add_argument(
            "--workers",
            type=int,
            default=os.cpu_count() or 2,
            help="Background workers beside the hall's server (default: one per core).",
        )

    def handle(self, *args, role, workers, **options):
        if role in ("hall", "prepare"):
            call_command("migrate", interactive=False, verbosity=1, stdout=self.stdout)
            call_command("setup_site", no_demo=role != "hall", stdout=self.stdout)
        if role == "prepare":
            return
        if role == "worker":
            commands = [worker_command()]
        elif role == "web":
            commands = [web_command()]
        else:
            commands = [hall_command()] + [worker_command() for _ in range(max(workers, 1))]
        sys.exit(supervise(commands))


def supervise(commands: list[list[str]]) -> int:
    """Run ``commands`` side by side until the first one (the server) ends; a stop signal
    reaches every one of them. The first one's exit status."""
    processes = [subprocess.Popen(command) for command in commands]  # noqa: S603 (our own)

    def pass_on(signum, _frame):
        for process in processes:
            if process.poll() is None:
                process.send_signal(signum)

    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, pass_on)
    status = processes[0].wait()
    for process in processes[1:]:
        if process.poll() is None:
            process.terminate()
    for process in processes[1:]:
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
    if status is None:
        raise CommandError("The server did not end.")
    return status
