"""The hall screen (issue 50 item 2): one page for the projector that shows in turn what the
room needs, each for a set time: the clock, the standings (a screenful at a time), the tables
still playing, and before the clock starts the seating (name → table, A to Z). The director
chooses which (``?show=clock,standings,tables,seating&seconds=20``, from the form on the page).
It follows the event as the standings page does (its regions, static/js/live.js); the turning
is static/js/screen.js."""

from __future__ import annotations

from django.urls import reverse
from django.utils.functional import SimpleLazyObject, cached_property
from django.utils.translation import gettext_lazy as _

from scoring.printing import qr_data_uri
from scoring.views.hall import phone_url
from scoring.views.results import StandingsView
from tournament.clock import read_clock
from tournament.text import name_sort_key

PANELS = {  # in the screen's order: the seating first, while players look for their table
    "seating": _("Seating"),
    "clock": _("Clock"),
    "standings": _("Standings"),
    "tables": _("Tables still playing"),
}
SECONDS = (5, 120, 15)  # the shortest and longest time a panel is shown, and the default


def panels_asked(value: str | None) -> list[str]:
    """The panels a link asks for, in the screen's order; every panel when none is known."""
    asked = set((value or "").split(","))
    return [name for name in PANELS if name in asked] or list(PANELS)


def seconds_asked(value: str | None) -> int:
    low, high, default = SECONDS
    if not value or not value.isascii() or not value.isdigit() or len(value) > 4:
        return default
    return min(max(int(value), low), high)


def seating_rows(sheets) -> list[tuple[str, int]]:
    """(name, table number) of everyone seated, A to Z as people read names."""
    rows = [(p.name, s.table.number) for s in sheets for p in s.players]
    return sorted(rows, key=lambda row: name_sort_key(row[0]))


def playing(sheets) -> list:
    """The tables whose game is not over, by number."""
    return sorted((s for s in sheets if not s.game_over), key=lambda s: s.table.number)


class HallScreenView(StandingsView):
    """The room's screen shows only what is published, whoever is logged in on the projector's
    computer: a draft seating is never on it, nor standings held back (issue 49 items 4, 6)."""

    template_name = "scoring/hall_screen.html"
    live_regions = {
        "live-standings": "scoring/_standings_live.html",
        "live-screen-playing": "scoring/_screen_playing.html",
        "live-screen-seating": "scoring/_screen_seating.html",
    }

    @cached_property
    def seating_hidden(self) -> bool:
        return self.stage.seating_draft

    @cached_property
    def results_hidden(self) -> bool:
        return self.event.results_held

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        sheets = ctx["sheets"]
        join_url = phone_url(self.request, reverse("event", args=[self.event.slug]))
        ctx.update(
            join_qr=qr_data_uri(join_url),
            clock_state=read_clock(self.stage).state,
            panels=panels_asked(",".join(self.request.GET.getlist("show"))),
            panel_names=PANELS,
            seconds=seconds_asked(self.request.GET.get("seconds")),
            seating=SimpleLazyObject(lambda: seating_rows(sheets)),
            playing=SimpleLazyObject(lambda: playing(sheets)),
        )
        return ctx
