"""The history page's values behind each entry (``tournament.history.details``)."""

from django import template

from tournament.history import details

register = template.Library()


@register.filter
def history_details(action) -> list[str]:
    return details(action)
