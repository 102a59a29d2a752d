"""The plain-Python rules' messages in the reader's language, in templates."""

from django import template

from tournament import text
from tournament.text import translated as _translated

register = template.Library()


@register.filter
def translated(message) -> str:
    """A ``tournament.game.message.Message`` (a plan's warning, a rule's refusal) translated."""
    return _translated(message)


@register.filter
def described(plan) -> str:
    """A ``tournament.game.finals.FinalsPlan`` told in the reader's language."""
    return plan.describe(say=_translated)


@register.simple_tag
def colon() -> str:
    """ ":" after a label, as the reader's language writes it: ``Total{% colon %} 12``."""
    return text.colon()


@register.simple_tag
def semicolon() -> str:
    """ ";" between items, as the reader's language writes it."""
    return text.semicolon()


@register.filter
def semicolons(items) -> str:
    """A list's items one after the other, "a; b" ("a ; b" in French)."""
    return text.semicolons(items)
