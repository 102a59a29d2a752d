"""Refusals the site words itself, for its reader: the 403 and 404 pages show their text.

Raise ``Refused(_("..."))`` or ``NotFound(_("..."))`` with a sentence translated when raised
(the request's language). Any other ``PermissionDenied`` or ``Http404``, such as Django's own
``get_object_or_404`` ("No Event matches the given query."), shows the page's general text
only: those words are not written for the reader (tournament/views/errors.py, ``permission_denied``
and ``page_not_found``).
"""

from django.core.exceptions import PermissionDenied
from django.http import Http404


class Refused(PermissionDenied):
    """Not allowed, for the reason given: the 403 page says it under its heading."""


class NotFound(Http404):
    """Not here, for the reason given: the 404 page says it under its heading."""


def detail(exception: BaseException | None) -> str:
    """What the 403 or 404 page says of ``exception``: its text when the site wrote it."""
    if isinstance(exception, Refused | NotFound) and exception.args:
        return str(exception.args[0])
    return ""
