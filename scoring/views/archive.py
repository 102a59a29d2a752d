"""The home page (the events, and the latest past events with their medallists), records
across events (issue 16 item 3); a player's other events are on their page."""

import re

from django.contrib import messages
from django.db.models import Count, Q
from django.shortcuts import get_object_or_404, redirect
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views import View
from django.views.generic import ListView, TemplateView

from scoring.archive import past_events, records
from scoring.models import Series
from scoring.services.archive import PersonRefusal, keep_apart, link_same_person
from tournament.mixins import DirectorRequiredMixin, EventMixin
from tournament.models import Event, Player


class HomeView(ListView):
    """The site's home page: the events listed, then the latest past events' medallists."""

    template_name = "scoring/home.html"
    context_object_name = "events"

    def get_queryset(self):
        # as Player's REGISTERED
        registered = Count("players", filter=Q(players__withdrawn=False, players__waiting=""))
        return Event.objects.listed().annotate(player_count=registered)

    def get_context_data(self, **kwargs):
        return super().get_context_data(past=past_events(timezone.localdate()), **kwargs)


class RecordsView(TemplateView):
    """Records over every event, or over a series' events (``?series=<slug>``); a series that
    is not there is said so, with the list to choose from (404)."""

    template_name = "scoring/records.html"

    def get(self, request, *args, **kwargs):
        ctx = self.get_context_data(**kwargs)
        return self.render_to_response(ctx, status=404 if ctx["unknown_series"] else 200)

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        slug = self.request.GET.get("series", "")
        series = Series.objects.filter(slug=slug).first() if slug else None
        unknown = bool(slug) and series is None
        ctx.update(
            every_series=list(Series.objects.order_by("name", "pk")),
            series=series,
            unknown_series=slug if unknown else "",
            groups=[] if unknown else records(series),
        )
        return ctx


class SamePersonView(DirectorRequiredMixin, EventMixin, View):
    """A director says a player is (or is not) the same person as another event's player."""

    def post(self, request, *args, **kwargs):
        player = get_object_or_404(Player, pk=kwargs["pk"], event=self.event)
        other_id = request.POST.get("other", "")
        # ASCII digits only ("²".isdigit()), and few enough for the database's integer.
        known = re.fullmatch(r"[0-9]{1,18}", other_id)
        other = Player.objects.filter(pk=int(other_id)).first() if known else None
        if (
            other is None
            or other.event_id == player.event_id
            or not other.event.is_director(request.user)
        ):
            messages.error(request, _("Choose a player of another event you direct."))
        elif request.POST.get("action") == "unlink":
            keep_apart(player, other, request.user)
            messages.success(
                request,
                _("Not the same person as %(name)s of %(event)s.")
                % {"name": other.name, "event": other.event},
            )
        else:
            try:
                link_same_person(player, other, request.user)
            except PersonRefusal as refusal:
                messages.error(request, str(refusal))
            else:
                messages.success(request, _("Linked to %(event)s.") % {"event": other.event})
        return redirect("player", self.event.slug, player.pk)
