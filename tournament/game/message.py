"""Messages of the plain-Python rules (rules.py, clock.py, seating.py), readable in any language,
and ``Refusal``, the one family of the site's refusals.

Those modules know nothing of Django, so they cannot translate. They say what is wrong in
English with a ``Message``: a plain ``str`` (the English text, for logs, tests and the event
file's errors) that also keeps its template and values, so that a page can show it in the
reader's language (``Message.translated``, ``tournament.text.translated``). ``manage.py
makemessages`` collects the templates (``Message`` is one of its keywords:
tournament/management/commands/makemessages.py). The site gives its ``gettext`` once it is
loaded (``translate_with``, tournament/apps.py); plain Python reads them in English.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

# English until the site gives its gettext (tournament/apps.py).
_gettext: Callable[[str], str] = str


def translate_with(gettext: Callable[[str], str]) -> None:
    """Read every ``Message`` through ``gettext`` from now on: the active language's."""
    global _gettext
    _gettext = gettext


class Message(str):
    template: str
    values: dict[str, Any]

    def __new__(cls, template: str, **values: Any) -> Message:
        message = super().__new__(cls, template % values if values else template)
        message.template, message.values = template, values
        return message

    @classmethod
    def joined(cls, messages: Iterable[Message], sep: str = " ") -> Message:
        """Several messages as one, each read in the reader's language ("A. B.")."""
        values = {f"m{i}": m for i, m in enumerate(messages)}
        return cls(sep.join(f"%({name})s" for name in values), **values)

    def translated(self) -> str:
        """The message in the active language, with the messages among its values."""
        if not self.values:
            return _gettext(self.template)
        return _gettext(self.template) % {
            name: value.translated() if isinstance(value, Message) else value
            for name, value in self.values.items()
        }


def text_of(message: Any) -> str:
    """Any message in the active language: a ``Message`` translated, a lazily translated
    string (Django's ``gettext_lazy``) or a text translated when written, as it is."""
    return message.translated() if isinstance(message, Message) else str(message)


class Refusal(Exception):
    """What the site will not do, and why, in words for the person who asked.

    ``message``: a ``Message`` (the game's rules, which cannot translate), a lazily translated
    string, or a text translated when raised (a request's language); ``str()`` gives it in the
    active language. ``texts()``: what a page shows, each apart, one form error or one
    message each (tournament/mixins.py, ``RefusalMixin``). Every refusal of the site is one
    of these (tests/test_refusals.py); a type that callers catch as ``ValueError`` or Django's
    ``ValidationError`` keeps that base too. A refusal with its reasons per field or in a list
    (a ``ValidationError``'s) has no single ``message``: its ``texts()`` are the reasons.
    """

    message: Any

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        if args and not isinstance(args[0], dict | list):
            self.message = args[0]

    def __str__(self) -> str:
        return " ".join(self.texts())

    def texts(self) -> list[str]:
        """What a page shows of the refusal, each text apart, in the active language."""
        message = getattr(self, "message", "")
        return [text_of(message)] if message != "" else []
