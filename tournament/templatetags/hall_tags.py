"""Whether the site serves a hall (`make hall`): pages show the laptop's own links then."""

from django import template
from django.conf import settings

register = template.Library()


@register.simple_tag
def serving_a_hall() -> bool:
    return settings.HALL
