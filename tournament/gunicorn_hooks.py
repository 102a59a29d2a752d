"""gunicorn's hooks for every server of the site: the hall's (tournament/hall_server.py imports
them) and a hosted site's application servers (``-c python:tournament.gunicorn_hooks``: README
"Deploying on PostgreSQL", ``manage.py serve web``)."""

import signal
import sys


def post_worker_init(worker):
    """A worker told to stop ends its phones' streams first: they would otherwise hold it for
    the whole graceful timeout (the phones open them again on the next server).

    Ctrl+C reaches the worker (SIGINT) and its master's quick stop (SIGQUIT) follows at once:
    the second signal is ignored, and neither calls gunicorn's own quick stop, which shuts its
    thread pool down from within the signal handler: a handler run while the worker's main
    thread holds the pool's lock (handing it a connection, or the first handler's shutdown)
    waited for that lock for ever, and the hall with it."""
    from tournament.streams import hub

    stop = signal.getsignal(signal.SIGTERM)

    def end_streams(signum, frame):
        hub().stop()
        if callable(stop):
            stop(signum, frame)

    def quit_now(signum, frame):
        if not worker.alive:
            return  # already stopping
        worker.alive = False
        hub().stop()
        # The pool's threads end their requests and are joined as the process exits.
        sys.exit(0)

    signal.signal(signal.SIGTERM, end_streams)
    signal.signal(signal.SIGINT, quit_now)
    signal.signal(signal.SIGQUIT, quit_now)
