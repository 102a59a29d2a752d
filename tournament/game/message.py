"""Messages of the plain-Python rules (rules.py, clock.py, seating.py), readable in any language.

Those modules know nothing of Django, so they cannot translate. They say what is wrong in
English with a ``Message``: a plain ``str`` (the English text, for logs, tests and the event
file's errors) that also keeps its template and values, so that a page can show it in the
reader's language (``tournament.text.translated``). ``manage.py makemessages`` collects the
templates (``Message`` is one of its keywords: tournament/management/commands/makemessages.py).
"""

from __future__ import annotations

from typing import Any


class Message(str):
    template: str
    values: dict[str, Any]

    def __new__(cls, template: str, **values: Any) -> Message:
        message = super().__new__(cls, template % values if values else template)
        message.template, message.values = template, values
        return message
