"""An event's page (public; its directors see their counts, plans and links too): its stages
with their tables and seats, how the event is played, the sign-up when open, the backups."""

from django.conf import settings
from django.core.cache import cache
from django.db.models import Count
from django.views.generic import TemplateView

from tournament.caching import version_key
from tournament.finals import event_plans, event_roads
from tournament.mixins import EventMixin
from tournament.models import Event, Seat, StageKind, Table
from tournament.views.signup import signup_context


def stage_counts(event: Event) -> tuple[dict[int, int], dict[int, int]]:
    """Stage id -> its tables, and -> its seats: two grouped counts, not one COUNT(DISTINCT)
    over tables x seats (seconds at 4,000); the event home keeps them until the event changes
    (every visitor opens it)."""
    stages = Table.objects.filter(stage__event=event).values("stage").order_by()
    tables = dict(stages.annotate(n=Count("pk")).values_list("stage", "n"))
    seats = Seat.objects.filter(stage__event=event).values("stage").order_by()
    return tables, dict(seats.annotate(n=Count("pk")).values_list("stage", "n"))


class EventHomeView(EventMixin, TemplateView):
    template_name = "scoring/event_home.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        tables, seated = cache.get_or_set(
            f"stage-counts:{version_key(self.event)}",
            lambda: stage_counts(self.event),
            settings.FRAGMENT_CACHE_SECONDS,
        )
        rows = ctx["stages"]  # play order, playoffs' names joined (EventMixin)
        fmt = self.event.format
        first_game = next((s for s in rows if s.kind == StageKind.QUALIFYING), None)
        for s in rows:
            s.table_count, s.seat_count = tables.get(s.pk, 0), seated.get(s.pk, 0)
            # a cumulative event's later game: seated by its reseating rule (issue 30)
            s.later_game = fmt.is_cumulative and s.kind == StageKind.QUALIFYING and s != first_game
        ctx["stage_rows"] = rows
        if self.is_director:  # the players' counts are the directors' (event_home.html)
            ctx["counts"] = self.event.players.counts()
        ctx["backups_on"], ctx["backup_dir"] = settings.BACKUPS_ON, settings.BACKUP_DIR
        # A cumulative format's road is public (how the event is played); a knockout's finals
        # plan, with its warnings, is for its directors.
        ctx["roads"] = event_roads(self.event)
        if self.is_director and not ctx["roads"]:
            ctx["finals_plans"] = event_plans(self.event)
        if self.event.signup_open:
            ctx.update(signup_context(self.event))
        return ctx
