"""Views load the event, stage and table from the URL once, here; permission is an attribute."""

from django.contrib.auth.mixins import LoginRequiredMixin
from django.shortcuts import get_object_or_404
from django.utils import timezone
from django.utils.functional import cached_property
from django.utils.translation import gettext as _

from tournament.forms import ONCE_KEY
from tournament.models import Event, Stage, Table
from tournament.refusals import Refused


def posted_key(request) -> str:
    """The ``once`` key a plain HTML form was posted with ("" when missing or malformed)."""
    key = request.POST.get("once", "")
    return key if ONCE_KEY.fullmatch(key) else ""


class EventMixin:
    director_required = False

    @cached_property
    def event(self) -> Event:
        return get_object_or_404(Event, slug=self.kwargs["slug"])

    @cached_property
    def is_director(self) -> bool:
        return self.event.is_director(self.request.user)

    def dispatch(self, request, *args, **kwargs):
        # Every time on the event's pages, PDFs, exports and messages is in the event's zone
        # (tournament.middleware.TimeZoneMiddleware puts the site's back after the response).
        timezone.activate(self.event.zone)
        if self.director_required and request.user.is_authenticated and not self.is_director:
            raise Refused(_("Only the event's directors can do this."))
        return super().dispatch(request, *args, **kwargs)

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx.update(
            event=self.event, is_director=self.is_director, stages=list(self.event.stages.all())
        )
        return ctx


class StageMixin(EventMixin):
    @cached_property
    def stage(self) -> Stage:
        stage = get_object_or_404(Stage, event=self.event, number=self.kwargs["stage"])
        stage.event = self.event  # not asked for again
        return stage

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["stage"] = self.stage
        return ctx


class TableMixin(StageMixin):
    @cached_property
    def table(self) -> Table:
        return get_object_or_404(
            Table.objects.select_related("stage__event"),
            stage=self.stage,
            number=self.kwargs["table"],
        )

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["table"] = self.table
        return ctx


class DirectorRequiredMixin(LoginRequiredMixin):
    """Login first, then the event's directors only (LoginRequiredMixin runs before dispatch)."""

    director_required = True
