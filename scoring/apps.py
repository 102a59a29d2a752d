from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = _("Scoring")

    def ready(self):
        from scoring import tasks
        from tournament.history import catch_up, event_changed

        event_changed.connect(tasks.event_changed, dispatch_uid="scoring.backups")
        catch_up.connect(tasks.catch_up, dispatch_uid="scoring.backups.catch_up")
