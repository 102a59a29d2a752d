"""The join poster's form: the hall's Wi-Fi as the director types it, and the address."""

from django import forms
from django.utils.translation import gettext_lazy as _


class PosterForm(forms.Form):
    wifi_name = forms.CharField(
        label=_("Wi-Fi name"),
        max_length=32,
        help_text=_("As phones list it (up to 32 characters)."),
    )
    wifi_password = forms.CharField(
        label=_("Wi-Fi password"),
        max_length=63,
        required=False,
        help_text=_("Leave empty for an open network."),
    )
    address = forms.ChoiceField(
        label=_("The site's address for phones"),
        help_text=_("An address of this laptop on the hall's network."),
    )

    def __init__(self, *args, addresses: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["address"].choices = [(a, a) for a in addresses]
        self.fields["address"].initial = addresses[0] if addresses else ""
