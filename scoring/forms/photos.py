"""The forms of a sheet's photos (issue 33): one photo (a phone's camera opens at once), and a
director's reason for removing one. The photo itself is checked and re-encoded by the service
(scoring/photos.py): a file that is no image is refused there, with its message."""

from django import forms
from django.utils.translation import gettext_lazy as _

from scoring.photos import MAX_UPLOAD_BYTES, too_large_message
from scoring.services.photos import REASON_LENGTH
from tournament.forms import OnceMixin


class PhotoForm(OnceMixin, forms.Form):
    photo = forms.FileField(
        label=_("Photo of the filled sheet"),
        # accept: the phone offers its photos; capture: its back camera opens directly.
        widget=forms.FileInput(attrs={"accept": "image/*", "capture": "environment"}),
        error_messages={
            "required": _("Take or choose a photo of the sheet."),
            "empty": _("The file is empty: take the photo again."),
        },
    )

    def clean_photo(self):
        photo = self.cleaned_data["photo"]
        if photo.size > MAX_UPLOAD_BYTES:
            raise forms.ValidationError(too_large_message())
        return photo


class RemovePhotoForm(forms.Form):
    reason = forms.CharField(
        label=_("Why remove it"),
        max_length=REASON_LENGTH,
        error_messages={
            "required": _("Say why the photo is removed (it is written in the history).")
        },
    )
