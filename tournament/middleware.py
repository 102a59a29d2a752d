"""Middleware of the site: the health check, the refusal of text the site cannot store, and
the hall's sessions bound to their address (live pages' checks: tournament/caching.py)."""

from __future__ import annotations

import logging
from http import HTTPStatus
from urllib.parse import unquote_to_bytes

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import SESSION_KEY, logout
from django.db import DatabaseError, connection
from django.http import HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext as _

from tournament.text import bad_character

logger = logging.getLogger(__name__)

HEALTH_PATH = "/healthz"


class HealthCheckMiddleware:
    """``/healthz``: "ok" (200) when the database answers, 503 when it does not.

    First in MIDDLEWARE, so a monitor or a load balancer probing over plain HTTP, by the
    server's address, gets the answer itself: no HTTPS redirect, no host check, no session,
    no login. The answer names nothing but the database's state.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path_info != HEALTH_PATH:
            return self.get_response(request)
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")
        except DatabaseError as error:
            logger.warning("Health check: the database does not answer: %s", error)
            return health_response("database unreachable", status=503)
        return health_response("ok")


class OneLineRefusals(logging.Filter):
    """Django's request logger writes every 403 with the traceback of its ``PermissionDenied``:
    a few probes fill the log and hide the real errors. An expected refusal (a 4xx answer) is
    one line instead: status, method, path, who asked (a username or anonymous) and why, at
    WARNING for a refusal (403, 400, 429), at INFO for a page not found (404, 405). A server
    error (5xx) is left as it is, with its traceback. Set on the ``django.request`` logger and
    on the ``django.security`` loggers of a request refused as it is read (a 400 for too many
    form fields: Django logs it as an error, with its traceback) (settings.LOGGING)."""

    QUIET = {404, 405, 410}

    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if not isinstance(status, int) or status >= 500:
            return True
        request = getattr(record, "request", None)
        error = record.exc_info[1] if record.exc_info else None
        reason = str(error) if error is not None and str(error) else _phrase(status)
        user = getattr(request, "user", None)
        who = user.get_username() if getattr(user, "is_authenticated", False) else "anonymous"
        record.msg = "%s %s %s by %s: %s"
        record.args = (
            status,
            getattr(request, "method", "?"),
            _one_line(getattr(request, "path", "?")),
            _one_line(who),
            _one_line(reason),
        )
        record.exc_info, record.exc_text, record.stack_info = None, None, None
        level = logging.INFO if status in self.QUIET else logging.WARNING
        record.levelno, record.levelname = level, logging.getLevelName(level)
        return logging.getLogger(record.name).isEnabledFor(record.levelno)


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return str(status)


def _one_line(text: str) -> str:
    """``text`` on one line of the log: line breaks and other control characters escaped."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)


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
            # here: the logging settings (OneLineRefusals) load this module before the models
            from tournament.hall_login import session_is_here

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
