"""The series an event belongs to, for the event's home page (one query)."""

from django import template

from scoring.models import Series

register = template.Library()


@register.simple_tag
def series_of(event) -> Series | None:
    """The series the event is part of (an event belongs to one at most), or None."""
    return Series.objects.filter(entries__event=event).first()
