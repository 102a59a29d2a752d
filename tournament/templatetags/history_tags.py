"""The history page's values behind each entry (``tournament.history.details``)."""

from django import template

from tournament.history import details, who

register = template.Library()


@register.filter
def history_details(action) -> list[str]:
    return details(action)


@register.filter
def history_who(action) -> str:
    return who(action)
