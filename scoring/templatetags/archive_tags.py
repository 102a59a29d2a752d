"""``{% past_events %}``: the latest past events with their medalists, for the home page
(which belongs to the tournament app and may not import scoring)."""

from django import template
from django.utils import timezone

from scoring.archive import past_events as load_past_events

register = template.Library()


@register.inclusion_tag("scoring/_past_events.html")
def past_events():
    return {"past": load_past_events(timezone.localdate())}
