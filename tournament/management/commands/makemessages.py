"""Django's makemessages, which also collects the ``Message("...")`` texts of the plain-Python
rules (tournament/game/message.py)."""

from django.core.management.commands import makemessages


class Command(makemessages.Command):
    xgettext_options = [*makemessages.Command.xgettext_options, "--keyword=Message"]
