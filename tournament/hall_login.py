"""Log-ins from the hall's network under `make hall`: a password and a code from the laptop.

The hall's Wi-Fi is plain HTTP and its password is on the poster: anyone on it can read a
password or a session cookie as it crosses. So, under HALL, a log-in from any address but the
laptop's own takes, after the right password, a 6-digit code that the site prints on the
console `make hall` runs in and shows on a page only the laptop itself opens: once, within
``CODE_MINUTES``, for that username at that address. The session it opens is bound to that
address and lasts ``HALL_SESSION_HOURS``: a read password alone, or a read cookie sent from
another device, logs nobody in (tournament.middleware.HallSessionMiddleware). Log-ins on the
laptop itself, and everything outside HALL, are as before.
"""

from __future__ import annotations

import ipaddress
from datetime import timedelta

from django import forms
from django.conf import settings
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.mixins import LoginRequiredMixin
from django.shortcuts import redirect
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.generic import FormView, TemplateView

from tournament import hall
from tournament.mixins import RefusalMixin
from tournament.models import HallLoginCode
from tournament.refusals import Refused
from tournament.services.hall_login import (
    CODE_MINUTES,
    MAX_WRONG_TRIES,
    CodeRefused,
    start_hall_login,
    use_hall_login_code,
)

PENDING = "hall_login"  # the phone's session: which code it waits for, and where it goes next
BOUND_ADDRESS = "hall_address"  # a hall-network session's address


# -- the rules ---------------------------------------------------------------------------------


def is_laptop(address: str) -> bool:
    """Whether a connection from ``address`` comes from the laptop itself: loopback, or one of
    its own addresses on the hall's network (its own traffic never crosses the Wi-Fi)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return ip.is_loopback or str(ip) in hall.lan_addresses()


def needs_code(request) -> bool:
    return settings.HALL and not is_laptop(request.META.get("REMOTE_ADDR", ""))


def session_is_here(request) -> bool:
    """Whether a logged-in session under HALL is used where it was opened: at the address its
    hall-network log-in bound it to, or else on the laptop itself."""
    address = request.META.get("REMOTE_ADDR", "")
    bound = request.session.get(BOUND_ADDRESS)
    return address == bound if bound else is_laptop(address)


def pending_codes():
    """The codes still waiting to be typed, newest first."""
    since = timezone.now() - timedelta(minutes=CODE_MINUTES)
    return (
        HallLoginCode.objects.filter(used=None, made__gt=since, wrong_tries__lt=MAX_WRONG_TRIES)
        .select_related("user")
        .order_by("-made")
    )


# -- the pages ---------------------------------------------------------------------------------


class HallLoginView(RefusalMixin, auth_views.LoginView):
    """Django's log-in page; from the hall's network under HALL, the right password leads to
    the code page instead of logging in."""

    def form_valid(self, form):
        if not needs_code(self.request):
            return super().form_valid(form)
        user = form.get_user()
        try:
            code = start_hall_login(user, self.request.META["REMOTE_ADDR"])
        except CodeRefused as refusal:
            self.refused(refusal, form)
            return self.form_invalid(form)
        self.request.session[PENDING] = {
            "code": code.pk,
            "backend": user.backend,
            "next": self.get_success_url(),
        }
        return redirect("login_code")


class CodeForm(forms.Form):
    code = forms.CharField(
        label=gettext_lazy("Log-in code"),
        help_text=gettext_lazy(
            "6 digits, shown on the laptop's screen (“Log-in codes”): ask the director."
        ),
        max_length=6,
        min_length=6,
        widget=forms.TextInput(
            attrs={"inputmode": "numeric", "autocomplete": "one-time-code", "autofocus": True}
        ),
    )

    def clean_code(self):
        code = self.cleaned_data["code"].strip()
        if not (code.isascii() and code.isdigit()):
            raise forms.ValidationError(_("The code is 6 digits."))
        return code


class LoginCodeView(RefusalMixin, FormView):
    """The phone's second step: the code from the laptop's screen."""

    form_class = CodeForm
    template_name = "registration/login_code.html"

    def dispatch(self, request, *args, **kwargs):
        self.pending = request.session.get(PENDING)
        if not self.pending:
            return redirect("login")
        return super().dispatch(request, *args, **kwargs)

    def form_valid(self, form):
        address = self.request.META.get("REMOTE_ADDR", "")
        try:
            user = use_hall_login_code(self.pending["code"], address, form.cleaned_data["code"])
        except CodeRefused as refusal:
            # A code sent from another address (its session's cookie replayed) is refused for
            # that sender only: the phone that waits for it still logs in with it.
            if refusal.start_again and not refusal.elsewhere:
                del self.request.session[PENDING]
            self.refused(refusal, form, "code")
            return self.render_to_response(
                self.get_context_data(form=form, start_again=refusal.start_again)
            )
        pending = self.request.session.pop(PENDING)
        login(self.request, user, backend=pending["backend"])
        self.request.session[BOUND_ADDRESS] = address
        self.request.session.set_expiry(settings.HALL_SESSION_HOURS * 3600)
        return redirect(pending["next"])


def shows_codes(user) -> bool:
    """Directors (who may create events, or direct one) see the hall's log-in codes."""
    return user.has_perm("tournament.add_event") or user.events.exists()


class LoginCodesView(LoginRequiredMixin, TemplateView):
    """The codes waiting to be typed on phones: on the laptop's own screen only."""

    template_name = "registration/login_codes.html"

    def dispatch(self, request, *args, **kwargs):
        if request.user.is_authenticated:
            if not is_laptop(request.META.get("REMOTE_ADDR", "")):
                raise Refused(_("Log-in codes are shown on the laptop's own screen only."))
            if not shows_codes(request.user):
                raise Refused(_("Only directors see the log-in codes."))
        return super().dispatch(request, *args, **kwargs)

    def get_context_data(self, **kwargs):
        codes = [
            (c, timezone.localtime(c.made + timedelta(minutes=CODE_MINUTES)))
            for c in pending_codes()
        ]
        return super().get_context_data(codes=codes, **kwargs)
