"""The players of an event (directors): the list, the registration desk and its check-in, one
player's page (edit, withdraw, reinstate, a late arrival) and deleting a player."""

import re

from django.contrib import messages
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils.formats import localize
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.generic import FormView, TemplateView
from django.views.generic.edit import FormMixin

from tournament.forms import (
    CsvImportForm,
    DeletePlayerForm,
    LateArrivalForm,
    PlayerEditForm,
    PlayerForm,
    WalkOnForm,
    WithdrawForm,
)
from tournament.game.seating import SeatingError
from tournament.mixins import DirectorRequiredMixin, EventMixin, posted_key
from tournament.models import (
    Event,
    Player,
    Seat,
    Signup,
    StageKind,
    Waiting,
)
from tournament.services.players import (
    EDITABLE,
    PlayerRefused,
    add_player,
    check_in,
    delete_player,
    deleted_player_name,
    edit_player,
    has_played,
)
from tournament.services.seating import reinstate_player, seat_late_arrival, withdraw_player
from tournament.services.signup import places_left
from tournament.text import semicolons


class PlayersView(DirectorRequiredMixin, EventMixin, FormMixin, TemplateView):
    """Register players by hand, check them in and out."""

    template_name = "tournament/players.html"
    form_class = PlayerForm

    def get_form_kwargs(self):
        return {**super().get_form_kwargs(), "event": self.event}

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["players"] = self.event.players.select_related("signup")
        ctx["counts"] = self.event.players.counts()
        ctx["csv_form"] = CsvImportForm()
        # Sign-ups (issue 49): the new ones, those to approve, the waitlist in order.
        ctx["new_signups"] = self.event.signups.unseen().select_related("player")
        ctx["to_approve"] = self.event.players.awaiting_approval()
        ctx["waitlist"] = self.event.players.waitlist()
        return ctx

    def post(self, request, *args, **kwargs):
        form = self.get_form()
        if not form.is_valid():
            return self.render_to_response(self.get_context_data(form=form))
        form.instance.event = self.event
        try:
            player = add_player(
                form.save(commit=False), request.user, key=form.cleaned_data["once"]
            )
        except PlayerRefused as refusal:
            self.refused(refusal, form)
            return self.render_to_response(self.get_context_data(form=form))
        messages.success(request, _("%(name)s added.") % {"name": player.name})
        return redirect("players", self.event.slug)


class CheckInView(DirectorRequiredMixin, EventMixin, TemplateView):
    """Check players in or out: one tap per player on the desk page, or several at once.

    Setting a state twice is setting it once: a double tap, or the same player tapped at two
    desks, checks in once (``check_in`` locks the event and changes only what differs).
    """

    http_method_names = ["post"]

    def post(self, request, *args, **kwargs):
        state = request.POST.get("checked_in")
        back = request.POST.get("back")
        if state not in ("0", "1"):  # checking out is asked for, never what a post falls to
            messages.error(request, _("Nothing changed: tap Check in or Undo check-in."))
            return redirect("desk" if back == "desk" else "players", self.event.slug)
        checked_in = state == "1"
        ids = request.POST.getlist("player") or [kwargs.get("pk")]
        ids = [int(i) for i in ids if re.fullmatch(r"[0-9]{1,12}", str(i))]
        count = check_in(self.event, ids, checked_in, request.user)
        if "application/json" in request.headers.get("Accept", ""):
            counts = desk_counts(self.event)
            return JsonResponse(
                {
                    "changed": count,
                    "state": checked_in,
                    **counts,
                    "phrases": count_phrases(counts),
                }
            )
        messages.success(request, check_in_message(self.event, ids, checked_in, count))
        if back == "desk":
            q = request.POST.get("q", "")[:100]
            url = reverse("desk", args=[self.event.slug])
            return redirect(f"{url}?q={q}" if q else url)
        return redirect(reverse("players", args=[self.event.slug]) + "#players")


def check_in_message(event: Event, ids: list[int], checked_in: bool, count: int) -> str:
    """What a check-in post says: the player's name for one tap at the desk, and a repeated
    tap says that nothing more happened."""
    name = event.players.filter(pk=ids[0]).values_list("name", flat=True).first() if ids else None
    if len(ids) != 1 or name is None:
        if checked_in:
            return ngettext("%(n)s checked in.", "%(n)s checked in.", count) % {"n": count}
        return ngettext("%(n)s checked out.", "%(n)s checked out.", count) % {"n": count}
    if checked_in:
        done = _("%(name)s checked in.") if count else _("%(name)s was already checked in.")
    else:
        done = _("%(name)s checked out.") if count else _("%(name)s was not checked in.")
    return done % {"name": name}


def first_stage(event: Event):
    """The event's first stage (Game 1), or None."""
    return event.stages.order_by("number").first()


def desk_counts(event: Event, first=None) -> dict:
    """Checked in, standby, no-show, registered (not withdrawn), withdrew, seated in the first
    stage (``first``, read when not given)."""
    first = first if first is not None else first_stage(event)
    return event.players.counts(seated_in=first.pk if first is not None else None)


def count_phrases(counts: dict) -> dict[str, list[str]]:
    """The desk's counts in words, each as [before, number, after] ("", "21", " présents"):
    the page shows the number in bold, and the answer to a tap gives them again, so that the
    script puts the whole phrase in place, its words agreeing with the new number."""
    phrases = {
        "checked_in": ngettext("%(n)s checked in", "%(n)s checked in", counts["checked_in"]),
        "standby": ngettext("%(n)s standby", "%(n)s standbys", counts["standby"]),
        "no_show": ngettext("%(n)s no-show", "%(n)s no-shows", counts["no_show"]),
        "registered": ngettext("%(n)s registered", "%(n)s registered", counts["registered"]),
        "seated": ngettext("%(n)s seated", "%(n)s seated", counts["seated"]),
    }
    out = {}
    for name, phrase in phrases.items():
        before, _number, after = phrase.partition("%(n)s")
        out[name] = [before, localize(counts[name]), after]
    return out


def desk_row(player: Player, drawn: bool, seated: bool, late: bool) -> dict:
    """What a desk row says of a player besides the check-in, as it reads checked in ("in")
    and not ("out"), for static/js/desk.js to swap after a tap; and whether the row offers a
    table by the late-arrival rule once the player is checked in ("late": Game 1 is drawn
    and open, ``late``, and the player is not seated in it). A registrant on the waitlist
    checked in is a standby; once Game 1 is drawn, a registered player not checked in is a
    no-show."""
    if player.waiting == Waiting.WAITLIST:
        said = {"in": _("standby"), "out": player.get_waiting_display()}
    elif player.waiting:
        said = {"in": player.get_waiting_display(), "out": player.get_waiting_display()}
    else:
        said = {"in": "", "out": _("no-show") if drawn and not seated else ""}
    said["now"] = said["in"] if player.checked_in else said["out"]
    said["late"] = late and not seated and not player.withdrawn
    return said


class DeskView(DirectorRequiredMixin, EventMixin, TemplateView):
    """The check-in desk: search as you type, one tap per player, the counts; made for a
    phone. Every player is on the page (the script filters them as one types); without the
    script, the search goes to the server. A walk-on is added here, checked in: to play, or
    as standby (issue 49 item 2); once Game 1 is drawn, a player checked in and not seated in
    it (a standby left over, a late arrival) is offered a table by the late-arrival rule."""

    template_name = "tournament/desk.html"

    def walk_on_form(self, data=None) -> WalkOnForm:
        """Standby by default while the sign-up's places are all taken, before the draw."""
        form = WalkOnForm(data, event=self.event)
        full = places_left(self.event) == 0
        if full and not Seat.objects.filter(stage__event=self.event).exists():
            form.fields["entry"].initial = WalkOnForm.STANDBY
        return form

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        q = self.request.GET.get("q", "").strip()[:100]
        players = self.event.players.matching(q).alphabetical()
        first = first_stage(self.event)
        counts = desk_counts(self.event, first)
        ctx.update(q=q, players=players, counts=counts, phrases=count_phrases(counts))
        # Once Game 1 is drawn: who is seated in it (the others join by the late-arrival rule
        # while it is open).
        drawn = first is not None and first.tables.exists()
        seated = (
            set(Seat.objects.filter(stage=first).values_list("player_id", flat=True))
            if drawn
            else set()
        )
        late = drawn and not first.closed
        ctx["rows"] = [(p, desk_row(p, drawn, p.pk in seated, late)) for p in players]
        ctx.setdefault("walk_on_form", self.walk_on_form())
        ctx["desk_texts"] = {
            "in": _("In ✓"),
            "out": _("Check in"),
            "failed": _("Not saved: check the connection and tap again."),
            "checked_in": _("%(name)s checked in."),
            "checked_out": _("%(name)s checked out."),
        }
        return ctx

    def post(self, request, *args, **kwargs):
        """Add a walk-on, checked in, to play or as standby."""
        form = self.walk_on_form(request.POST)
        if not form.is_valid():
            return self.render_to_response(self.get_context_data(walk_on_form=form))
        player = form.save(commit=False)
        player.event, player.checked_in = self.event, True
        standby = form.cleaned_data["entry"] == WalkOnForm.STANDBY
        player.waiting = Waiting.STANDBY if standby else ""
        try:
            player = add_player(player, request.user, key=form.cleaned_data["once"])
        except PlayerRefused as refusal:
            self.refused(refusal, form)
            return self.render_to_response(self.get_context_data(walk_on_form=form))
        if player.waiting == Waiting.STANDBY:
            done = _("%(name)s added as standby, checked in.")
        else:
            done = _("%(name)s added, checked in.")
        done %= {"name": player.name}
        first = first_stage(self.event)
        if first is not None and not first.closed and first.tables.exists():
            # Game 1 is drawn: the walk-on joins a table by the late-arrival rule.
            messages.success(
                request, f"{done} " + _("Seat them at a table by the late-arrival rule.")
            )
            return redirect(reverse("player_edit", args=[self.event.slug, player.pk]) + "#late")
        messages.success(request, done)
        return redirect("desk", self.event.slug)


class PlayerView(DirectorRequiredMixin, EventMixin, TemplateView):
    """One player for the desk: fix the name, id, club and division; withdraw (or take it
    back); seat a late arrival."""

    template_name = "tournament/player_edit.html"

    @property
    def player(self) -> Player:
        if not hasattr(self, "_player"):
            self._player = get_object_or_404(Player, event=self.event, pk=self.kwargs["pk"])
        return self._player

    def late_stage(self):
        """The seated, open qualifying stage a player not seated in it may join."""
        return (
            self.event.stages.open()
            .filter(kind=StageKind.QUALIFYING, tables__isnull=False)
            .exclude(seats__player=self.player)
            .distinct()
            .order_by("number")
            .first()
        )

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        player = self.player
        ctx["player"] = player
        ctx.setdefault("form", PlayerEditForm(instance=player))
        ctx.setdefault("withdraw_form", WithdrawForm())
        stage = None if player.withdrawn else self.late_stage()
        if stage is not None:
            ctx["late_stage"] = stage
            ctx.setdefault("late_form", LateArrivalForm(stage=stage))
        ctx["seats"] = player.seats.select_related("stage", "table").order_by("stage__number")
        ctx["played"] = has_played(player)
        signup = Signup.objects.filter(player=player).select_related("event").first()
        if signup is not None:  # to give a registrant who lost it their private link
            ctx["signup"] = signup
            ctx["signup_link"] = self.request.build_absolute_uri(signup.get_absolute_url())
        return ctx

    def post(self, request, *args, **kwargs):
        player = self.player
        if "withdraw" in request.POST:
            form = WithdrawForm(request.POST)
            if not form.is_valid():
                return self.render_to_response(self.get_context_data(withdraw_form=form))
            done = withdraw_player(
                player, request.user, form.cleaned_data["reason"], form.cleaned_data["once"]
            )
            messages.success(request, done)
        elif "reinstate" in request.POST:
            reinstate_player(player, request.user)
            messages.success(request, _("%(p)s plays again.") % {"p": player.name})
        elif "late" in request.POST:
            stage = self.late_stage()
            if stage is None:
                messages.error(request, _("No seated stage for this player to join."))
                return redirect("player_edit", self.event.slug, player.pk)
            form = LateArrivalForm(request.POST, stage=stage)
            if not form.is_valid():
                return self.render_to_response(self.get_context_data(late_form=form))
            try:
                seat = seat_late_arrival(
                    stage, player, form.cleaned_data["table"], request.user, posted_key(request)
                )
            except SeatingError as refusal:
                self.refused(refusal, form)
                return self.render_to_response(self.get_context_data(late_form=form))
            messages.success(
                request,
                _("%(p)s joins table %(t)s.") % {"p": player.name, "t": seat.table.number},
            )
        else:
            form = PlayerEditForm(request.POST, instance=player)
            if not form.is_valid():
                return self.render_to_response(self.get_context_data(form=form))
            values = {f: form.cleaned_data[f] for f in EDITABLE}
            try:
                changes = edit_player(player, values, request.user, form.cleaned_data["once"])
            except PlayerRefused as refusal:
                self.refused(refusal, form)
                return self.render_to_response(self.get_context_data(form=form))
            if changes:
                messages.success(request, _("Saved: %(c)s.") % {"c": semicolons(changes)})
            else:
                messages.info(request, _("Nothing changed."))
        return redirect("player_edit", self.event.slug, player.pk)


class PlayerDeleteView(DirectorRequiredMixin, EventMixin, FormView):
    """Delete a player registered by mistake (a repeated row, a wrong name) who has never
    been seated: a confirmation page, then the deletion. A repeat of the post, or a second
    device, is told the player is deleted already; a player who has played is refused."""

    template_name = "tournament/player_delete.html"
    form_class = DeletePlayerForm

    def get(self, request, *args, **kwargs):
        player = self.event.players.filter(pk=kwargs["pk"]).first()
        if player is None:
            return self.already_deleted()
        return self.render_to_response(
            self.get_context_data(player=player, played=has_played(player))
        )

    def already_deleted(self, name: str | None = None):
        name = name if name is not None else deleted_player_name(self.event, self.kwargs["pk"])
        if name is None:
            raise Http404
        messages.info(self.request, _("%(name)s is already deleted.") % {"name": name})
        return redirect("players", self.event.slug)

    def form_valid(self, form):
        pk = self.kwargs["pk"]
        try:
            name, deleted = delete_player(
                self.event, pk, self.request.user, form.cleaned_data["once"]
            )
        except Player.DoesNotExist:
            raise Http404 from None
        except PlayerRefused as refusal:
            self.refused(refusal)
            return redirect("player_edit", self.event.slug, pk)
        if not deleted:
            return self.already_deleted(name)
        messages.success(self.request, _("%(name)s is deleted.") % {"name": name})
        return redirect("players", self.event.slug)
