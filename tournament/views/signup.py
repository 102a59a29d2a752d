"""Sign-up on the event's page (issue 49): the form and a registrant's private page (public,
by its signed link); the director's answers to new sign-ups (the players page shows them)."""

import re

from django.contrib import messages
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.functional import cached_property
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.generic import FormView, TemplateView

from tournament.forms import SignupForm, SignupWithdrawForm
from tournament.mixins import DirectorRequiredMixin, EventMixin
from tournament.models import Seat, Signup
from tournament.refusals import NotFound
from tournament.security import client_ip
from tournament.services.signup import (
    SignupRefused,
    address_key,
    approve,
    closed_because,
    mail_on,
    mark_seen,
    places_left,
    sign_up,
    waitlist_number,
    withdraw_signup,
)


def signup_context(event, form=None) -> dict:
    """What the event's page and the sign-up page show of the sign-up: why it is closed, or
    the form and the places left."""
    closed = closed_because(event)
    if closed:
        return {"signup_closed": closed}
    return {
        "signup_form": form or SignupForm(event=event),
        "places_left": places_left(event),
        "signup_mail_on": mail_on(),
    }


# What the registrant's page says of where they stand.
ENTRY_TEXT = {
    "registered": gettext_lazy("You are registered."),
    "approval": gettext_lazy("Your sign-up holds a place and awaits a director's approval."),
    "withdrawn": gettext_lazy("You withdrew from this event."),
}


def entry_text(signup: Signup) -> str:
    entry = signup.player.entry
    if entry == "waitlist":
        return _("You are on the waitlist: number %(n)s.") % {"n": waitlist_number(signup)}
    return str(ENTRY_TEXT[entry])


class SignupView(EventMixin, FormView):
    """The sign-up form (also on the event's page, which posts here): a sign-up taken leads
    to the registrant's private page; a refusal is shown at its field."""

    template_name = "tournament/signup.html"
    form_class = SignupForm

    def get_form_kwargs(self):
        return {**super().get_form_kwargs(), "event": self.event}

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx.update(signup_context(self.event, ctx.get("form")))
        return ctx

    def form_valid(self, form):
        data = form.cleaned_data
        try:
            signup = sign_up(
                self.event,
                name=data["name"],
                club=data["club"],
                division=data["division"],
                email=data["email"],
                address=address_key(client_ip(self.request)),
                site=self.request.build_absolute_uri("/").rstrip("/"),
                key=data["once"],
            )
        except SignupRefused as refusal:
            self.refused(refusal, form)
            return self.form_invalid(form)
        messages.success(self.request, _("Thank you, %(name)s.") % {"name": signup.player.name})
        return redirect(signup.get_absolute_url())


class SignupStatusView(EventMixin, TemplateView):
    """A registrant's private page, by the signed link shown once signed up (and e-mailed):
    where they stand, their table once seated, and a way to withdraw. Kept by no cache and
    told to no other site (its address is the key)."""

    template_name = "tournament/signup_status.html"

    @cached_property
    def signup(self) -> Signup:
        signup = Signup.objects.from_token(self.event, self.kwargs["token"])
        if signup is None:
            raise NotFound(
                _("This link is no sign-up of this event: check that it was copied whole.")
            )
        return signup

    def dispatch(self, request, *args, **kwargs):
        response = super().dispatch(request, *args, **kwargs)
        response["Cache-Control"] = "private, no-store"
        response["Referrer-Policy"] = "same-origin"  # no other site is told its address
        response["X-Robots-Tag"] = "noindex"
        return response

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        signup, player = self.signup, self.signup.player
        seats = Seat.objects.filter(player=player).select_related(
            "table", "stage__playoff_table__stage", "stage__wildcards_of"
        )
        seated = seats.exists()  # a draft seat too: withdrawing is then the desk's
        seats = seats.filter(stage__seating_draft=False)  # a draft is the directors' alone
        ctx.update(
            signup=signup,
            player=player,
            entry=player.entry,
            entry_text=entry_text(signup),
            seats=list(seats.order_by("stage__number")),
            link=self.request.build_absolute_uri(signup.get_absolute_url()),
            mailed=bool(signup.email) and mail_on(),
        )
        if player.entry != "withdrawn" and not seated:
            ctx.setdefault("withdraw_form", SignupWithdrawForm())
        return ctx

    def post(self, request, *args, **kwargs):
        form = SignupWithdrawForm(request.POST)
        if not form.is_valid():
            return self.render_to_response(self.get_context_data(withdraw_form=form))
        try:
            done = withdraw_signup(self.signup, form.cleaned_data["once"])
        except SignupRefused as refusal:
            self.refused(refusal, form)
            return self.render_to_response(self.get_context_data(withdraw_form=form))
        messages.success(request, done)
        return redirect(self.signup.get_absolute_url())


class SignupsView(DirectorRequiredMixin, EventMixin, TemplateView):
    """The director's answers to sign-ups, from the players page: approve those awaiting
    approval (one, or every one listed), mark the new ones as seen."""

    http_method_names = ["post"]

    def post(self, request, *args, **kwargs):
        ids = [int(i) for i in request.POST.getlist("id") if re.fullmatch(r"[0-9]{1,18}", i)]
        if "approve" in request.POST:
            names = approve(self.event, ids, request.user)
            if names:
                messages.success(
                    request,
                    ngettext(
                        "Approved: %(names)s is registered.",
                        "Approved: %(names)s are registered.",
                        len(names),
                    )
                    % {"names": ", ".join(names)},
                )
            else:
                messages.info(request, _("Nobody was awaiting approval among them."))
        elif "seen" in request.POST:
            mark_seen(self.event, ids)
        return redirect(reverse("players", args=[self.event.slug]) + "#signups")
