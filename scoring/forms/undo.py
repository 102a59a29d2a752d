"""The undo pages' forms (issue 22): each asks for the reason kept in the event's history."""

from django import forms
from django.utils.translation import gettext_lazy as _

from tournament.forms import OnceMixin


class ReasonForm(OnceMixin, forms.Form):
    reason = forms.CharField(label=_("Why"), max_length=300)

    def __init__(self, *args, label=None, **kwargs):
        super().__init__(*args, **kwargs)
        if label:
            self.fields["reason"].label = label


class ReopenStageForm(ReasonForm):
    """Reopening a closed stage: ``shown`` is what the page listed as removed, so that a
    confirm from a page drawn before a later stage was seated is refused, not applied."""

    shown = forms.CharField(widget=forms.HiddenInput, max_length=400)
