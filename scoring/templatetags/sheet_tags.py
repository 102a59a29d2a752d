"""The score sheet's sizes (scoring/sheet_reader/layout.py) written as CSS lengths."""

from django import template

register = template.Library()


@register.filter
def mm(value) -> str:
    """A length in millimetres as CSS, with a point whatever the language (``12.5mm``)."""
    return f"{float(value):.3f}mm"
