"""The plain-Python rules' messages in the reader's language, in templates."""

from django import template

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
