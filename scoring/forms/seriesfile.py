"""The form that uploads a series file (docs/series-file.md)."""

from django import forms
from django.conf import settings
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from tournament.forms import OnceMixin


def megabytes(size: int) -> str:
    """A size in MB as the reader writes numbers: 1, 2.5 (English), 2,5 (French)."""
    value = size / 1_000_000
    return number_format(value, decimal_pos=0 if value == int(value) else 1)


class SeriesFileForm(OnceMixin, forms.Form):
    file = forms.FileField(
        label=gettext_lazy("Series file"),
        help_text=gettext_lazy("A .series.json file, as downloaded from a series' page."),
    )

    def clean_file(self) -> bytes:
        """The file's bytes; a file larger than a request imports is refused, saying the limit
        (a series file is read and written within the request, all of it at once)."""
        upload = self.cleaned_data["file"]
        most = settings.IMPORT_IN_REQUEST_BYTES
        if upload.size > most:
            raise forms.ValidationError(
                _(
                    "The file is larger than %(most)s MB, the most a series file may be here. "
                    "Import its events' files one by one instead (a large one is imported in "
                    "the background), then add them to a new series."
                )
                % {"most": megabytes(most)}
            )
        return upload.read()
