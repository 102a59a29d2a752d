"""Login throttling (django-axes): who a client is, the throttle, and the locked-out page.

A username and address pair is locked out after ``AXES_FAILURE_LIMIT`` failed log-ins, until
``AXES_COOLOFF_TIME`` has passed since the last attempt (an attempt while locked out starts the
wait again); a successful log-in clears the count.
"""

from __future__ import annotations

from axes.backends import AxesStandaloneBackend
from axes.helpers import get_cool_off
from django.conf import settings
from django.shortcuts import render
from django.utils import timezone


class LoginThrottleBackend(AxesStandaloneBackend):
    """django-axes' throttle for log-ins over HTTP; a log-in without a request (the test
    client's ``login``, a management command) has no address to throttle and is let through
    to the next backend."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


def client_ip(request) -> str:
    """The client's address: the connection's, or behind ``PROXY_COUNT`` proxies the one the
    outermost proxy saw (X-Forwarded-For entries left of it may be forged by the client)."""
    remote = request.META.get("REMOTE_ADDR", "")
    if not settings.PROXY_COUNT:
        return remote
    forwarded = [a.strip() for a in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    if len(forwarded) < settings.PROXY_COUNT or not forwarded[-settings.PROXY_COUNT]:
        return remote
    return forwarded[-settings.PROXY_COUNT]


def locked_out(request, original_response=None, credentials=None):
    """The locked-out page (429): when the username may try again from this address."""
    cool_off = get_cool_off(request)
    response = render(
        request,
        "registration/locked_out.html",
        {
            "minutes": round(cool_off.total_seconds() / 60),
            "until": timezone.localtime(timezone.now() + cool_off),
            "failure_limit": settings.AXES_FAILURE_LIMIT,
        },
        status=429,
    )
    response["Retry-After"] = str(int(cool_off.total_seconds()))
    return response
