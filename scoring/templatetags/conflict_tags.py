"""The seating conflicts a correction left (issue 12 item 4), shown on the event home and the
bracket until a director decides. A tag, so the event home (tournament/) need not import the
scoring app."""

from django import template

from scoring.results import load_results, seating_conflicts
from tournament.models import StageKind

register = template.Library()


@register.inclusion_tag("scoring/_seating_conflicts.html", takes_context=True)
def seating_conflict_notes(context, event, results=None):
    later = event.stages.filter(
        kind__in=(StageKind.SEMIFINAL, StageKind.FINAL), tables__isnull=False
    )
    conflicts = []
    if results is not None or later.exists():  # none before a later stage is seated
        conflicts = seating_conflicts(results or load_results(event))
    return {
        "event": event,
        "conflicts": conflicts,
        "is_director": context.get("is_director", False),
    }
