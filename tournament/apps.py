from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TournamentConfig(AppConfig):
    name = "tournament"
    verbose_name = _("Tournament")

    def ready(self):
        from django.utils.translation import gettext

        from tournament import checks  # noqa: F401 (registers the site's system checks)
        from tournament.game import message

        message.translate_with(gettext)  # the game's messages and refusals: the reader's language
