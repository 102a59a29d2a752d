"""The hall's network: which address phones use, and the join poster for the wall."""

from __future__ import annotations

from django.conf import settings
from django.urls import reverse
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.views.generic import FormView

from scoring.forms.hall import PosterForm
from scoring.printing import pdf_response, qr_data_uri, render_pdf
from tournament.hall import hall_urls
from tournament.mixins import DirectorRequiredMixin, EventMixin

LOOPBACK = ("127.", "localhost", "[::1]")


def phone_addresses(request) -> list[str]:
    """Addresses phones on the hall's network can open, best first: under `make hall` the
    laptop's own addresses (phones find an address more surely than a name), then the one this
    page was opened by unless it is one of them or this computer's loopback, which no phone
    reaches; else the one this page was opened by."""
    own = request.build_absolute_uri("/")
    if not settings.HALL:
        return [own]
    addresses = hall_urls(settings.HALL_BIND)
    if own not in addresses and not request.get_host().startswith(LOOPBACK):
        addresses.append(own)
    return addresses or [own]


def phone_url(request, path: str) -> str:
    """``path`` on this site as a phone on the hall's network opens it."""
    return phone_addresses(request)[0].rstrip("/") + path


class PosterView(DirectorRequiredMixin, EventMixin, FormView):
    """The join poster: a one-page PDF for the wall (the Wi-Fi, the site's address and its QR
    code, "find your table"). Nothing is stored: the form's answer is the PDF."""

    form_class = PosterForm
    template_name = "scoring/poster_form.html"

    def get_form_kwargs(self):
        return {**super().get_form_kwargs(), "addresses": phone_addresses(self.request)}

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["hall"] = settings.HALL
        ctx["loopback_only"] = all(
            a.split("//", 1)[1].startswith(LOOPBACK) for a in phone_addresses(self.request)
        )
        return ctx

    def form_valid(self, form):
        data = form.cleaned_data
        url = data["address"].rstrip("/") + reverse("event", args=[self.event.slug])
        wifi = wifi_join_text(data["wifi_name"], data["wifi_password"])
        context = {
            "event": self.event,
            "url": url,
            "qr": qr_data_uri(url),
            "wifi_name": data["wifi_name"],
            "wifi_password": data["wifi_password"],
            "wifi_qr": qr_data_uri(wifi),
        }
        pdf = render_pdf("print/poster.html", context, self.request)
        return pdf_response(pdf, f"{slugify(self.event.slug)}-{_('poster')}.pdf")


def wifi_join_text(name: str, password: str) -> str:
    """What a phone's camera reads to join a Wi-Fi network (the WIFI: scheme)."""

    def escaped(text: str) -> str:
        for special in ("\\", ";", ",", ":", '"'):
            text = text.replace(special, "\\" + special)
        return text

    if not password:
        return f"WIFI:T:nopass;S:{escaped(name)};;"
    return f"WIFI:T:WPA;S:{escaped(name)};P:{escaped(password)};;"
