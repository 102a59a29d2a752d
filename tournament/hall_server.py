"""gunicorn's settings under `make hall` (``gunicorn -c python:tournament.hall_server``).

Threads rather than many processes: the hall's requests are short and wait on SQLite's one
writer; two processes keep a PDF being drawn from holding up score entry. When the server is
ready it prints the URLs phones on the hall's network can open.

When it is ready, and again when it has stopped (Ctrl+C, SIGTERM), the server backs up every
event changed since its last backup file (``scoring.services.backups.catch_up``, which listens to
``tournament.history.catch_up``): the changes a process killed before its backup's turn left
unwritten, and the last ones before a stop.
"""

import logging
import os

from tournament.gunicorn_hooks import post_worker_init  # noqa: F401 (a hook gunicorn reads)
from tournament.hall import bind_port, given_addresses, hall_urls, in_container

PUBLIC = os.environ.get("HOST") or "0.0.0.0:8000"  # noqa: S104 (the hall's network)
# Under `make hall` the hall's front (tournament/hall_front.py) listens on HOST, takes each
# request whole, serves the phones' streams itself, and passes the rest on to a socket of its
# own, each connection led by a PROXY protocol line: the client's address (REMOTE_ADDR).
UPSTREAM = os.environ.get("HALL_UPSTREAM", "")
bind = [UPSTREAM or PUBLIC]
workers = int(os.environ.get("HALL_WORKERS", "2"))
threads = int(os.environ.get("HALL_THREADS", "8"))
if UPSTREAM:
    proxy_protocol = "v1"
else:
    # Served alone (tests/bench_hall.py): phones on the public pages hold a stream each
    # (tournament/streams.py), a thread of its own beside the threads that answer requests.
    os.environ.setdefault("LIVE_STREAMS", "200")
    threads += int(os.environ["LIVE_STREAMS"] or 0)
worker_class = "gthread"
timeout = 120
graceful_timeout = 20
keepalive = 10  # a phone asks every 3 s (LIVE_REFRESH_SECONDS): it keeps its connection
accesslog = "-" if os.environ.get("HALL_ACCESS_LOG") else None
wsgi_app = "tournament.wsgi:application"
control_socket_disable = True  # no shared socket in the home folder: two halls may run


def catch_up_backups() -> int:
    """Back up every event changed since its last file; how many files were written. In
    gunicorn's master, before it starts its workers (and after they stopped): its database
    connection is closed again, never shared with a worker."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournament.settings")
    import django

    django.setup()  # before the imports below (models): gunicorn reads this file first
    from django.db import connections

    from tournament.history import catch_up

    try:
        return sum(written for _receiver, written in catch_up.send(sender=None))
    except Exception:  # the server serves (or stops) all the same; the failure is logged
        logging.getLogger(__name__).exception("The backups at the server's start or stop failed")
        return 0
    finally:
        connections.close_all()


def backed_up(written: int) -> str:
    """The console's line (English, as the rest of the hall's console) after a catch-up."""
    events = "event" if written == 1 else "events"
    return f"Backed up {written} {events} changed since their last backup."


def when_ready(server):
    written = catch_up_backups()
    urls = hall_urls(PUBLIC)
    lines = [backed_up(written)] if written else []
    lines += ["", "The site is served to the hall's network. Phones open:"]
    if in_container() and not given_addresses():
        # A container sees its own network, not the laptop's: the laptop's address is asked.
        port = bind_port(PUBLIC)
        lines += [
            f"    http://<this computer's address on the Wi-Fi>:{port}/",
            "    (run with HALL_ADDRESS=<that address> to have it printed here and on the",
            "    join poster: README, 'The hall in a container')",
        ]
    else:
        lines += [f"    {url}" for url in urls] or ["    (no network address: is Wi-Fi on?)"]
    lines += [
        "The director's event page has the join poster (address, QR code, Wi-Fi) to print.",
        "Stop with Ctrl+C.",
        "",
    ]
    print("\n".join(lines), flush=True)


def on_exit(server):
    written = catch_up_backups()
    if written:
        print(backed_up(written), flush=True)
