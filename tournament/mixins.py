"""Views load the event, stage and table from the URL once, here; permission is an attribute;
a refusal is shown one way (``RefusalMixin``)."""

from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.exceptions import ValidationError
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, render
from django.utils import timezone
from django.utils.functional import cached_property
from django.utils.translation import gettext as _

from tournament.caching import live_context
from tournament.forms import ONCE_KEY
from tournament.models import Event, Stage, Table
from tournament.refusals import Refusal, Refused


class RefusalMixin:
    """Shows a refusal (``tournament.refusals``) where the page shows what went wrong.

    In a view's ``except``: ``self.refused(refusal, form)`` puts each of its texts on the form,
    above its fields, or beside ``field``; a refusal with reasons per field
    (``ValidationRefusal``) puts each beside its field. Without a form each text is a red
    message at the top of the next page. Then the view answers as it does for an invalid form
    (``form_invalid``, the page again, or a redirect).
    """

    def refused(self, refusal: Refusal, form=None, field: str | None = None) -> None:
        if form is not None and isinstance(refusal, ValidationError) and field is None:
            form.add_error(None, refusal)  # a reason per field goes beside its field
            return
        for text in refusal.texts():
            if form is not None:
                form.add_error(field, text)
            else:
                messages.error(self.request, text)


def posted_key(request) -> str:
    """The ``once`` key a plain HTML form was posted with ("" when missing or malformed)."""
    key = request.POST.get("once", "")
    return key if ONCE_KEY.fullmatch(key) else ""


class EventMixin(RefusalMixin):
    director_required = False
    # What the page shows that may not be published yet (issue 49 item 4): "seating" (a draft
    # seating of its stage), "results" (standings and results held back). A reader who is no
    # director gets the "not published yet" page in its place: the PDFs, exports and table
    # pages. (The live pages say it in their regions instead, and follow the publishing.)
    hides: tuple[str, ...] = ()

    @cached_property
    def event(self) -> Event:
        return get_object_or_404(Event, slug=self.kwargs["slug"])

    @cached_property
    def is_director(self) -> bool:
        return self.event.is_director(self.request.user)

    @cached_property
    def results_hidden(self) -> bool:
        """The event holds its standings and results back and the reader is no director: the
        page says "not published yet" in their place (issue 49 item 4)."""
        return self.event.results_held and not self.is_director

    def dispatch(self, request, *args, **kwargs):
        # Every time on the event's pages, PDFs, exports and messages is in the event's zone
        # (tournament.middleware.TimeZoneMiddleware puts the site's back after the response).
        timezone.activate(self.event.zone)
        if self.director_required and request.user.is_authenticated and not self.is_director:
            raise Refused(_("Only the event's directors can do this."))
        hidden = self.not_published() if request.method in ("GET", "HEAD") else None
        if hidden:
            return not_published_response(request, self.event, hidden, getattr(self, "stage", None))
        return super().dispatch(request, *args, **kwargs)

    def not_published(self) -> str | None:
        """What this page would show that is not published yet ("results"), or None."""
        if "results" in self.hides and self.results_hidden:
            return "results"
        return None

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        # A playoff's name says the table or the stage it settles: joined, not asked per playoff.
        stages = self.event.stages.select_related("playoff_table__stage", "wildcards_of")
        ctx.update(event=self.event, is_director=self.is_director, stages=list(stages))
        ctx["results_hidden"] = self.results_hidden
        return ctx


class StageMixin(EventMixin):
    @cached_property
    def stage(self) -> Stage:
        stage = get_object_or_404(Stage, event=self.event, number=self.kwargs["stage"])
        stage.event = self.event  # not asked for again
        return stage

    def not_published(self) -> str | None:
        if "seating" in self.hides and self.seating_hidden:
            return "seating"
        return super().not_published()

    @cached_property
    def seating_hidden(self) -> bool:
        """The stage's seating is a draft and the reader is no director: its pages say "not
        published yet" in place of who sits where (issue 49 item 4)."""
        return self.stage.seating_draft and not self.is_director

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["stage"] = self.stage
        ctx["seating_hidden"] = self.seating_hidden
        return ctx


class TableMixin(StageMixin):
    @cached_property
    def table(self) -> Table:
        table = get_object_or_404(Table, stage=self.stage, number=self.kwargs["table"])
        table.stage = self.stage  # and its event: not asked for again
        return table

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["table"] = self.table
        return ctx


class DirectorRequiredMixin(LoginRequiredMixin):
    """Login first, then the event's directors only (LoginRequiredMixin runs before dispatch)."""

    director_required = True


def not_published_response(request, event: Event, what: str, stage: Stage | None):
    """The page said "not published yet" (``what``: "seating" or "results"), which reloads
    itself once the event moves; a live page's check is told to load the page again."""
    if "X-Live-Version" in request.headers or "X-Live-Region" in request.headers:
        return JsonResponse({"version": event.version, "reload": True})
    context = {
        "event": event,
        "stage": stage,
        "stages": list(event.stages.all()),
        "what": what,
        "live_reload": True,
        **live_context(event),
    }
    response = render(request, "tournament/not_published.html", context)
    response["Cache-Control"] = "no-cache"
    return response
