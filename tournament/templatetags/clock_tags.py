"""``{% stage_clock stage %}``: the stage's remaining time, counting down (PRODUCT.md §5).

Used on the score-entry pages, the public event home and, with the directors' buttons, on the
stage's standings page. It renders ``tournament/_clock.html``.
"""

from django import template

from tournament.clock import read_clock

register = template.Library()


@register.inclusion_tag("tournament/_clock.html", takes_context=True)
def stage_clock(context, stage, controls=False, marked=False, table=None):
    """The clock of an open stage; with ``controls``, the buttons and the clock's log;
    ``marked``: the page's checks say the clock's mark (StandingsView.live_extra), so that
    static/js/clock.js need not read clock.json in case a change was missed.

    An untimed stage whose clock was never started shows nothing to the public, as before
    there were clocks; directors still get the buttons. A one-round playoff has no clock.
    ``table``: that table's own clock (its phone, its entry page): the stage's with the minutes
    a director gave the table.
    """
    if not stage.has_clock:
        return {"reading": None}
    reading = read_clock(stage, table=table)
    controls = bool(controls) and not stage.closed
    if stage.closed or not (reading.shown or controls):
        return {"reading": None}
    out = {
        "reading": reading,
        "config": reading.config(),
        "stage": stage,
        "controls": controls,
        "marked": marked,
        # A stream for a visitor with no session only (tournament/streams.py).
        "streamed": not context["request"].user.is_authenticated if "request" in context else False,
    }
    if controls:
        out["csrf_token"] = context.get("csrf_token")
        out["clock_events"] = list(stage.clock_events.select_related("by"))
        if stage.time_called_at is None:
            out["ran_out_at"] = reading.called_at
    return out
