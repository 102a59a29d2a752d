"""A live region of a public page (tournament/caching.py LiveMixin, static/js/live.js)."""

from django import template
from django.utils.html import format_html
from django.utils.safestring import mark_safe

register = template.Library()


@register.simple_tag(takes_context=True)
def live_region(context, region_id: str, css_class: str = "live", container: str = ""):
    """The region as the view rendered it, with the state a phone will say it holds;
    ``container``: the region itself holds the pieces of that name (tournament/live.py)."""
    region = context["live_html"][region_id]
    return format_html(
        '<div class="{}" id="{}" data-live="{}"{}>{}</div>',
        css_class,
        region_id,
        region.state_id,
        format_html(' data-kc="{}"', container) if container else "",
        mark_safe(region.html),  # noqa: S308 (the region's own template rendered it)
    )
