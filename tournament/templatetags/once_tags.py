"""``{% once_field %}``: the hidden key that makes a plain HTML form's write exactly-once
(tournament.history.claim); Django forms get it from ``tournament.forms.OnceMixin``."""

from django import template
from django.utils.html import format_html

from tournament.forms import new_key

register = template.Library()


@register.simple_tag
def once_field():
    return format_html('<input type="hidden" name="once" value="{}">', new_key())
