"""The seating conflicts a correction left (issue 12 item 4), shown on the event home and the
bracket until a director decides, and the games it left seated on the totals before it (issue
45 item 6). Tags, so the event home (tournament/) need not import the scoring app."""

from django import template

from scoring.results import current_conflicts, seated_on_old_totals, seating_conflicts

register = template.Library()


@register.inclusion_tag("scoring/_seating_conflicts.html", takes_context=True)
def seating_conflict_notes(context, event, results=None):
    """The notes; from ``results`` when the page has them (the bracket), else as kept for the
    event's version (the event home: every visitor, every view)."""
    conflicts = current_conflicts(event) if results is None else seating_conflicts(results)
    return {
        "event": event,
        "conflicts": conflicts,
        "is_director": context.get("is_director", False),
    }


@register.inclusion_tag("scoring/_old_totals_notes.html")
def old_totals_notes(event):
    """The games a correction left seated on the totals before it (issue 45 item 6), while
    they stay so: the history's entries, said on the event home for everyone."""
    return {"notes": seated_on_old_totals(event)}
