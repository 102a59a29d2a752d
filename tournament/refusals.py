"""The site's refusals: one family, ``Refusal`` (tournament/game/message.py, where the game's
rules raise theirs without Django), each carrying its words for the reader.

- A refusal of an action (a round that cannot be saved, a stage that cannot close yet) is a
  ``Refusal`` of its own type, named where the action is (``RoundRejected``, ``AdvanceError``);
  a page shows it with ``tournament.mixins.RefusalMixin``: as a form error, or as a message.
- ``ValidationRefusal``: one whose reasons may name the form's fields (Django's
  ``ValidationError`` too), shown beside those fields.
- ``Refused`` and ``NotFound``: the 403 and 404 pages show their text. Raise ``Refused(_("..."))``
  or ``NotFound(_("..."))`` with a sentence translated when raised (the request's language).
  Any other ``PermissionDenied`` or ``Http404``, such as Django's own ``get_object_or_404``
  ("No Event matches the given query."), shows the page's general text only: those words are not
  written for the reader (tournament/views/errors.py, ``permission_denied`` and
  ``page_not_found``).

Every refusal's words are marked for translation; tests/test_refusals.py finds every exception
type of the two apps and fails for one outside the family.
"""

from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404

from tournament.game.message import Refusal

__all__ = ["NotFound", "Refusal", "Refused", "ValidationRefusal", "detail"]


class ValidationRefusal(Refusal, ValidationError):
    """A refusal whose reasons may name the form's fields: ``{"field": "why"}`` or one reason,
    as Django's ``ValidationError`` takes them (a form shows each beside its field)."""

    def texts(self) -> list[str]:
        return self.messages


class Refused(Refusal, PermissionDenied):
    """Not allowed, for the reason given: the 403 page says it under its heading."""


class NotFound(Refusal, Http404):
    """Not here, for the reason given: the 404 page says it under its heading."""


def detail(exception: BaseException | None) -> str:
    """What the 403 or 404 page says of ``exception``: its text when the site wrote it."""
    if isinstance(exception, Refused | NotFound) and exception.args:
        return str(exception)
    return ""
