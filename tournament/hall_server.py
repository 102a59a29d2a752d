"""gunicorn's settings under `make hall` (``gunicorn -c python:tournament.hall_server``).

Threads rather than many processes: the hall's requests are short and wait on SQLite's one
writer; two processes keep a PDF being drawn from holding up score entry. When the server is
ready it prints the URLs phones on the hall's network can open.
"""

import os

from tournament.hall import hall_urls

bind = [os.environ.get("HOST") or "0.0.0.0:8000"]  # noqa: S104 (the hall's network)
workers = int(os.environ.get("HALL_WORKERS", "2"))
threads = int(os.environ.get("HALL_THREADS", "8"))
worker_class = "gthread"
timeout = 120
graceful_timeout = 20
accesslog = "-" if os.environ.get("HALL_ACCESS_LOG") else None
wsgi_app = "tournament.wsgi:application"
control_socket_disable = True  # no shared socket in the home folder: two halls may run


def when_ready(server):
    urls = [url for b in server.cfg.bind for url in hall_urls(b)]
    lines = ["", "The site is served to the hall's network. Phones open:"]
    lines += [f"    {url}" for url in urls] or ["    (no network address: is Wi-Fi on?)"]
    lines += [
        "The director's event page has the join poster (address, QR code, Wi-Fi) to print.",
        "Stop with Ctrl+C.",
        "",
    ]
    print("\n".join(lines), flush=True)
