"""Middleware of the site: the health check, the refusal of text the site cannot store, and
the hall's sessions bound to their address (live pages' checks: tournament/caching.py)."""

from __future__ import annotations

import logging
import time
from urllib.parse import unquote_to_bytes

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import SESSION_KEY, logout
from django.core.exceptions import DisallowedHost
from django.http import HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext as _

from tournament import hall, health
from tournament.hall_login import session_is_here
from tournament.logs import one_line
from tournament.security import client_ip
from tournament.text import bad_character

logger = logging.getLogger(__name__)

HEALTH_PATH = "/healthz"


class HealthCheckMiddleware:
    """``/healthz``: "ok" (200) and a line for each of the database, the cache and the
    background worker (tournament/health.py); 503 when the database or the cache does not
    answer, and with ``?worker=1`` when the worker is not alive either.

    First in MIDDLEWARE, so a monitor or a load balancer probing over plain HTTP, by the
    server's address, gets the answer itself: no HTTPS redirect, no host check, no session,
    no login. The answer names nothing but those states.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path_info != HEALTH_PATH:
            return self.get_response(request)
        found = health.checks()
        if not found[0].ok:
            return health_response("database unreachable", status=503)
        required = found if request.GET.get("worker") == "1" else found[:2]
        healthy = all(check.ok for check in required)
        lines = ["ok" if healthy else "unhealthy", *(check.line() for check in found)]
        return health_response("\n".join(lines) + "\n", status=200 if healthy else 503)


class RequestLogMiddleware:
    """One line a request (``LOG_REQUESTS``), at INFO on the logger ``tournament.requests``:
    method, path, status, milliseconds, who (a username or anonymous) and the client's
    address, also as the record's fields (``LOG_FORMAT=json`` writes them as such). Second in
    MIDDLEWARE: the health probes are not logged; what every later middleware takes is."""

    log = logging.getLogger("tournament.requests")

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        began = time.perf_counter()
        response = self.get_response(request)
        user = getattr(request, "user", None)
        fields = {
            "method": request.method,
            "path": one_line(request.path),
            "status": response.status_code,
            "ms": round((time.perf_counter() - began) * 1000, 1),
            "user": user.get_username() if getattr(user, "is_authenticated", False) else "",
            "client": client_ip(request),
        }
        self.log.info(
            "%s %s %s %.1f ms %s %s",
            fields["method"],
            fields["path"],
            fields["status"],
            fields["ms"],
            fields["user"] or "anonymous",
            fields["client"],
            extra=fields,
        )
        return response


class PrivateHostMiddleware:
    """The hall served from its container image (``HALL_CONTAINER``): the container does not
    see the laptop's addresses, so ALLOWED_HOSTS is ``*`` and this checks each request's host
    instead: a private network's address or name (``tournament.hall.private_host``), as the
    hall is reached by nothing else. Anything else is refused as Django refuses a host it does
    not allow (400)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        host = request.get_host()
        if not hall.private_host(host):
            raise DisallowedHost(f"Invalid HTTP_HOST header for the hall: {host!r}.")
        return self.get_response(request)


def health_response(text: str, status: int = 200) -> HttpResponse:
    response = HttpResponse(text, status=status, content_type="text/plain; charset=utf-8")
    response["Cache-Control"] = "no-store"
    return response


class RefuseBadTextMiddleware:
    """Refuse, with a 400 page that says why, a request whose query string or form data holds
    text the site cannot store: a NUL, bytes that are not UTF-8 (a lone surrogate among them),
    a carriage return without a line feed. One place for every form and search, Django's own
    (log in) included; files sent in a form are checked by their importers.

    Django decodes form data leniently (a lone surrogate becomes U+FFFD), so the raw query
    string and the raw urlencoded body are read here, strictly.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        problem = request_text_problem(request)
        if problem is not None:
            return render(request, "400.html", {"problem": problem}, status=400)
        return self.get_response(request)


def request_text_problem(request) -> str | None:
    """What in the request's query string or form data cannot be stored, or None."""
    problem = form_text_problem(_raw(request.META.get("QUERY_STRING", "")))
    if problem is None and request.method == "POST":
        if request.content_type == "application/x-www-form-urlencoded":
            problem = form_text_problem(request.body)
        elif request.content_type == "multipart/form-data":
            problem = multipart_text_problem(request.POST)
    return problem


def multipart_text_problem(data) -> str | None:
    """The first field of parsed multipart form data that cannot be stored. Django decoded it
    leniently: a NUL or a bare CR is still there to see, a lone surrogate is not."""
    for name, values in data.lists():
        for text in (name, *values):
            why = bad_character(text)
            if why:
                return _field_problem(name, why)
    return None


def form_text_problem(raw: bytes) -> str | None:
    """The first field of urlencoded ``raw`` data (name=value&...) that cannot be stored."""
    for pair in raw.split(b"&"):
        name, _sep, value = pair.partition(b"=")
        field = _decode(name, strict=False)
        for part in (name, value):
            try:
                text = _decode(part, strict=True)
            except UnicodeDecodeError:
                why = _("bytes that are not UTF-8 text (a lone surrogate or a broken character)")
                return _field_problem(field, why)
            why = bad_character(text)
            if why:
                return _field_problem(field, why)
    return None


def _decode(part: bytes, strict: bool) -> str:
    return unquote_to_bytes(part.replace(b"+", b" ")).decode(
        "utf-8", "strict" if strict else "replace"
    )


def _raw(text: str) -> bytes:
    """WSGI hands the query string over as bytes read as Latin-1: the bytes again."""
    try:
        return text.encode("latin-1")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


def _field_problem(field: str, why: str) -> str:
    return _("The field “%(field)s” holds %(why)s.") % {"field": field[:40], "why": why}


class TimeZoneMiddleware:
    """Each request starts in the site's zone and leaves none behind: an event's pages switch
    to the event's zone (tournament.mixins.EventMixin), and a server thread reused for the next
    request must not keep it."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        timezone.deactivate()
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()


class HallSessionMiddleware:
    """Under HALL, a logged-in session is used only where it was opened: a hall-network log-in
    (with the laptop's code, tournament/hall_login.py) at its own address, any other on the
    laptop itself. A cookie read on the Wi-Fi and sent from another device is logged out, with
    a message that says why. After the authentication and messages middleware."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if settings.HALL and SESSION_KEY in request.session:
            if not session_is_here(request):
                logout(request)
                messages.warning(
                    request,
                    _(
                        "You were logged out: this session was opened on another device. "
                        "Log in again on this one."
                    ),
                )
        return self.get_response(request)
