"""The log's filter and formatter, read by the logging settings before the apps are loaded:
nothing of the apps is imported here.

A refusal (4xx) is one line (``OneLineRefusals``). The lines are JSON when asked
(``LOG_FORMAT=json``), one object a line, for a host's log service: the time, level, logger
and message, the traceback when there is one, and the fields a record carries (a request's
line: method, path, status, milliseconds, user, client)."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from http import HTTPStatus

# What every LogRecord has: the rest of a record's attributes are fields given with extra=.
STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name, value in vars(record).items():
            if name not in STANDARD and not name.startswith("_") and name != "request":
                line[name] = value if isinstance(value, str | int | float | bool) else str(value)
        if record.exc_info:
            line["traceback"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


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
        reason = str(error) if error is not None and str(error) else phrase(status)
        user = getattr(request, "user", None)
        who = user.get_username() if getattr(user, "is_authenticated", False) else "anonymous"
        record.msg = "%s %s %s by %s: %s"
        record.args = (
            status,
            getattr(request, "method", "?"),
            one_line(getattr(request, "path", "?")),
            one_line(who),
            one_line(reason),
        )
        record.exc_info, record.exc_text, record.stack_info = None, None, None
        level = logging.INFO if status in self.QUIET else logging.WARNING
        record.levelno, record.levelname = level, logging.getLevelName(level)
        return logging.getLogger(record.name).isEnabledFor(record.levelno)


def phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return str(status)


def one_line(text: str) -> str:
    """``text`` on one line of the log: line breaks and other control characters escaped."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)
