from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = _("Scoring")

    def ready(self):
        from django.db.models.signals import post_delete, post_save

        from scoring import tasks
        from tournament.history import catch_up, event_changed
        from tournament.models import Event

        event_changed.connect(tasks.event_changed, dispatch_uid="scoring.backups")
        event_changed.connect(tasks.ratings_changed, dispatch_uid="scoring.ratings")
        post_save.connect(tasks.event_saved, sender=Event, dispatch_uid="scoring.ratings.made")
        post_delete.connect(tasks.event_deleted, sender=Event, dispatch_uid="scoring.ratings.gone")
        catch_up.connect(tasks.catch_up, dispatch_uid="scoring.backups.catch_up")
        # A sheet's photo deleted with its table: its image goes too (scoring/services/photos.py).
        from scoring.models import SheetPhoto
        from scoring.services.photos import photo_deleted

        post_delete.connect(photo_deleted, sender=SheetPhoto, dispatch_uid="scoring.photos.gone")
