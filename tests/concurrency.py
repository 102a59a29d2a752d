"""Run requests at the same moment from several threads, as a hall of devices would.

Each thread has its own database connection (Django's connections are per thread), so the
writes really race: use these helpers only in ``django_db(transaction=True)`` tests.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable

from django.db import connections
from django.test import Client

ONCE = re.compile(r'name="once" value="([A-Za-z0-9_-]+)"')


def at_once(calls: list[Callable[[], object]], timeout: float = 120) -> list[object]:
    """Start every call at the same moment (a barrier), each in its own thread; return what
    each returned, or the exception it raised."""
    barrier = threading.Barrier(len(calls))
    results: list[object] = [None] * len(calls)

    def run(i: int, call: Callable[[], object]) -> None:
        try:
            barrier.wait(timeout)
            results[i] = call()
        except BaseException as error:  # noqa: BLE001 (the test looks at it)
            results[i] = error
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
    assert not any(t.is_alive() for t in threads), "a request never finished"
    return results


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def form_key(response) -> str:
    """The ``once`` key of the (first) form a page was drawn with."""
    found = ONCE.search(response.content.decode())
    assert found, "the page has no form key"
    return found.group(1)


def hidden_fields(response) -> dict[str, str]:
    """The hidden inputs of a page's forms, read from its HTML (in threads, a test client's
    ``response.context`` may hold what another thread rendered: Django's template signal is
    global)."""
    html = response.content.decode()
    fields = {}
    for tag in re.findall(r"<input[^>]*>", html):
        if 'type="hidden"' in tag:
            name = re.search(r'name="([^"]+)"', tag)
            value = re.search(r'value="([^"]*)"', tag)
            if name:
                fields.setdefault(name.group(1), value.group(1) if value else "")
    return fields


def said(response) -> list[str]:
    """The messages an answer left for the page it redirects to (a redirect may be a save's
    "Round 12-12 saved." or a refusal's "Nobody is seated at this table.")."""
    return [str(m) for m in response.wsgi_request._messages]


def no_errors(results) -> None:
    """Every request answered, none with an exception or a server error."""
    for r in results:
        assert not isinstance(r, BaseException), repr(r)
        assert r.status_code < 500, r.status_code
