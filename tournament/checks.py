"""System checks of the site's own settings (`manage.py check --deploy`)."""

from __future__ import annotations

from django.conf import settings
from django.core.checks import Tags, Warning, register


@register(Tags.security, deploy=True)
def proxy_count_behind_https_proxy(app_configs, **kwargs):
    """A hosted site sits behind an HTTPS proxy (it trusts the proxy's X-Forwarded-Proto): with
    PROXY_COUNT 0 every client looks like the proxy, and one client's wrong passwords lock
    everyone out."""
    behind_proxy = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    if settings.DEBUG or settings.HALL or not behind_proxy or settings.PROXY_COUNT:
        return []
    return [
        Warning(
            "The site trusts an HTTPS proxy's X-Forwarded-Proto, but PROXY_COUNT is 0: every "
            "client would look like the proxy, and one client's wrong passwords would lock "
            "out everyone.",
            hint="Set PROXY_COUNT=1 behind one proxy that appends the client's address to "
            "X-Forwarded-For (README: Deploying on PostgreSQL).",
            id="tournament.W001",
        )
    ]
