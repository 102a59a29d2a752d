"""Login throttling (django-axes): who a client is, the throttle, and the locked-out page.

A username and address pair is locked out after ``AXES_FAILURE_LIMIT`` failed log-ins, until
``AXES_COOLOFF_TIME`` has passed since the last attempt (an attempt while locked out starts the
wait again); a successful log-in clears the count.

Who a client is: the connection's address, or behind ``PROXY_COUNT`` proxies the address the
outermost one saw, read from X-Forwarded-For only when the connection comes from one of
``TRUSTED_PROXIES`` (anyone else could write that header). When the traffic and the setting
disagree, the log says so once per process.
"""

from __future__ import annotations

import ipaddress
import logging

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


logger = logging.getLogger(__name__)

# What the log has already said in this process: each disagreement is logged once, not per
# request.
_warned: set[str] = set()


def client_ip(request) -> str:
    """The client's address: the connection's, or behind ``PROXY_COUNT`` proxies the one the
    outermost proxy saw, when the connection comes from a trusted proxy (X-Forwarded-For
    entries left of that one may be forged by the client, and so may the whole header when
    the connection does not come from a proxy)."""
    remote = request.META.get("REMOTE_ADDR", "")
    header = request.META.get("HTTP_X_FORWARDED_FOR", "")
    if not settings.PROXY_COUNT:
        if header:
            _warn_once(
                "forwarded",
                "Requests carry X-Forwarded-For but PROXY_COUNT is 0: behind a proxy every "
                "client looks like the proxy (%s), and one client's wrong passwords lock out "
                "everyone. Set PROXY_COUNT to the number of proxies in front of the site.",
                remote,
            )
        return remote
    if not is_trusted_proxy(remote):
        _warn_once(
            "untrusted",
            "PROXY_COUNT is %s but a request came straight from %s, which is not in "
            "TRUSTED_PROXIES: its X-Forwarded-For is ignored. Let only the proxy reach the "
            "site's port (gunicorn -b 127.0.0.1:...), or add the proxy to TRUSTED_PROXIES.",
            settings.PROXY_COUNT,
            remote,
        )
        return remote
    forwarded = [a.strip() for a in header.split(",")] if header else []
    if len(forwarded) < settings.PROXY_COUNT or not _is_address(forwarded[-settings.PROXY_COUNT]):
        _warn_once(
            "missing",
            "PROXY_COUNT is %s but a request from %s carries X-Forwarded-For %r: is the proxy "
            "adding the client's address (nginx: proxy_set_header X-Forwarded-For "
            "$proxy_add_x_forwarded_for)?",
            settings.PROXY_COUNT,
            remote,
            header,
        )
        return remote
    return forwarded[-settings.PROXY_COUNT]


def is_trusted_proxy(address: str) -> bool:
    """Whether a connection from ``address`` comes from one of ``TRUSTED_PROXIES``."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in trusted_networks())


def trusted_networks() -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    return [ipaddress.ip_network(n, strict=False) for n in settings.TRUSTED_PROXIES]


def _is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _warn_once(kind: str, message: str, *args) -> None:
    if kind not in _warned:
        _warned.add(kind)
        logger.warning(message, *args)


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
