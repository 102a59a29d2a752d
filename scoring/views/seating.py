"""The seating list of a stage (public) and the directors' draw and move."""

from django.contrib import messages
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.generic import TemplateView

from scoring.printing import SHEETS_PER_PDF, table_blocks
from scoring.results import AdvanceError, game_stages, previous_tables
from scoring.services.printing import blank_on_seating
from scoring.services.stages import draw_first_game, reseat_game
from tournament.caching import live_context
from tournament.forms import MovePlayerForm
from tournament.game.seating import SeatingError, together, unusual_sizes
from tournament.mixins import DirectorRequiredMixin, StageMixin, posted_key
from tournament.models import Action, Seat, StageKind, Table
from tournament.services.seating import clear_seating, move_player, publish_seating, seat_stage
from tournament.text import name_sort_key, translated


def size_offer(rules, value) -> dict | None:
    """A table size a director may allow for a stage (``?allow=5`` after a refusal that named
    it): one the rule set does not list and can deal, with the tiles each player draws;
    None otherwise."""
    size = posted_size(value)
    if size is None or rules.can_deal(size) or not rules.deals(size):
        return None
    return {"size": size, "tiles": rules.tiles_for(size)}


def posted_size(value) -> int | None:
    """A table size as a form or an address gives it ("5"), None when missing or not one."""
    value = str(value or "")
    return int(value) if value.isdigit() and len(value) <= 2 else None


def allow_redirect(name: str, event, stage_number: int, refusal) -> str | None:
    """The page again, offering the table size a refusal named (``?allow=5``), if it named
    one."""
    size = getattr(refusal, "size", None) or getattr(refusal, "size_to_allow", None)
    if size is None:
        return None
    return f"{reverse(name, args=[event.slug, stage_number])}?allow={size}"


DRAFT_NOTE = gettext_lazy(
    "The seating is a draft: players do not see it until you press Publish (or start the clock)."
)


class SeatingView(StageMixin, TemplateView):
    """The seating list: A to Z with table numbers, then table by table."""

    template_name = "scoring/seating.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        if self.seating_hidden:  # a draft: the directors' alone; the page reloads once it moves
            ctx.update(live_context(self.event), live_reload=True)
            return ctx
        seats = list(Seat.objects.filter(stage=self.stage).select_related("player", "table"))
        ctx["alphabetical"] = sorted(seats, key=lambda s: name_sort_key(s.player.name))
        tables: dict[int, list[Seat]] = {}
        for seat in sorted(seats, key=lambda s: (s.table.number, s.position)):
            tables.setdefault(seat.table.number, []).append(seat)
        ctx["tables"] = sorted(tables.items())
        rules = self.event.rules
        unusual = unusual_sizes([len(seats) for seats in tables.values()], rules.table_size)
        ctx["seat_count"] = len(seats)
        if unusual and not (self.stage.kind == StageKind.FINAL and len(tables) == 1):
            ctx["unusual_sizes"] = {
                "sizes": ", ".join(map(str, unusual)),
                "usual": rules.table_size,
                "players": len(seats),
            }
        if tables:
            ctx["seeding"] = seeding_note(self.stage)
            # What the draw could not keep apart (issue 49 item 3): said before publishing.
            groups = {s.player: s.player.keep_apart for s in seats if s.player.keep_apart}
            numbered = sorted(tables.items())
            ctx["together"] = [
                (numbered[at - 1][0], group, [p.name for p in players])
                for at, group, players in together(
                    [[s.player for s in table_seats] for _n, table_seats in numbered], groups
                )
            ]
            ctx["keep_apart_groups"] = len(set(groups.values()))
        if len(tables) > SHEETS_PER_PDF:
            ctx["sheet_blocks"] = table_blocks(len(tables))
        if self.is_director:
            ctx["move_form"] = MovePlayerForm(stage=self.stage)
            ctx["checked_in_count"] = self.event.players.present().count()
            ctx["standby_note"] = self.standby_note(bool(tables))
            ctx["size_offer"] = size_offer(rules, self.request.GET.get("allow")) or (
                self.unlisted_offer(rules, [len(seats) for seats in tables.values()])
            )
        if self.stage.allowed_size and not rules.can_deal(self.stage.allowed_size):
            size = self.stage.allowed_size
            ctx["allowed_size"] = {"size": size, "tiles": rules.tiles_for(size)}
        return ctx

    def standby_note(self, seated: bool) -> dict | None:
        """For the first stage: before its draw, the standbys waiting for a no-show's place;
        once drawn, those left over (not seated), and the no-shows. None for a later stage, or
        when there are neither."""
        stage = self.stage
        if stage.kind != StageKind.QUALIFYING or stage.closed:
            return None
        if self.event.stages.filter(number__lt=stage.number).exists():
            return None
        standbys = list(self.event.players.standbys())
        no_shows = self.event.players.counts()["no_show"]
        if not standbys and not no_shows:
            return None
        return {"seated": seated, "standbys": standbys, "no_shows": no_shows}

    def unlisted_offer(self, rules, sizes: list[int]) -> dict | None:
        """A table left at a size this stage does not deal (a no-show withdrawn when the
        others could not be rebalanced), before any round: the size to allow for the stage,
        seating it again."""
        stage = self.stage
        odd = [n for n in sizes if not stage.rules.can_deal(n)]
        if not odd or stage.kind == StageKind.PLAYOFF or stage.closed:
            return None
        if Table.objects.filter(stage=stage, rounds_played__gt=0).exists():
            return None
        return size_offer(rules, min(odd))


def standby_phrases(standbys) -> list[str]:
    """What a first stage's draw did with the standbys and the no-shows, in words (none when
    it had neither)."""
    if standbys is None:
        return []
    said = []
    if standbys.seated:
        n = len(standbys.seated)
        said.append(
            ngettext(
                "%(n)s standby takes a no-show's place: %(names)s.",
                "%(n)s standbys take the no-shows' places: %(names)s.",
                n,
            )
            % {"n": n, "names": ", ".join(standbys.seated)}
        )
    if standbys.left:
        n = len(standbys.left)
        said.append(
            ngettext(
                "%(n)s standby is left over, not seated: %(names)s. A standby joins later by "
                "the late-arrival rule, from their page at the desk.",
                "%(n)s standbys are left over, not seated: %(names)s. A standby joins later by "
                "the late-arrival rule, from their page at the desk.",
                n,
            )
            % {"n": n, "names": ", ".join(standbys.left)}
        )
    if standbys.no_shows:
        n = standbys.no_shows
        said.append(
            ngettext(
                "%(n)s no-show (registered, not checked in) is not seated.",
                "%(n)s no-shows (registered, not checked in) are not seated.",
                n,
            )
            % {"n": n}
        )
    return said


def seeding_note(stage) -> dict | None:
    """How the stage's last draw was seeded by rating, as its history entry says: {"rated",
    "players", "unrated"}; None when it was not. One query."""
    last = (
        Action.objects.filter(stage=stage, verb="stage.seated")
        .order_by("-pk")
        .values_list("data", flat=True)
        .first()
    )
    if not last or "rated" not in last:
        return None
    return {**last, "unrated": last["players"] - last["rated"]}


class SeatStageView(DirectorRequiredMixin, StageMixin, TemplateView):
    """Draw the seating of a stage from the checked-in players, or move one player."""

    http_method_names = ["post"]

    def is_later_game(self) -> bool:
        """A cumulative event's game after the first: seated by the event's reseating rule."""
        games = game_stages(self.event.format, self.event.stages.all())
        return self.event.format.is_cumulative and any(g.pk == self.stage.pk for g in games[1:])

    def players_to_draw(self):
        """A later stage redraws only its own players (Game 1 draws the players checked in,
        ``draw_first_game``)."""
        seated = self.event.players.filter(seats__stage=self.stage, withdrawn=False)
        if not seated.exists():
            raise SeatingError(
                _("%(s)s is seated from the advancers: close the previous stage first.")
                % {"s": self.stage.title}
            )
        return seated

    def drawn(self, draw):
        """The page again after a draw, saying what it did: its tables, the standbys who
        took a no-show's place and those left over, the no-shows, the divisions left out."""
        request = self.request
        drawn = len(draw.tables)
        messages.success(
            request, ngettext("%(n)s table drawn.", "%(n)s tables drawn.", drawn) % {"n": drawn}
        )
        if drawn:
            messages.info(request, DRAFT_NOTE)
        for said in standby_phrases(draw.standbys):
            messages.info(request, said)
        for reason in draw.left_out:
            messages.warning(request, translated(reason))
        blank_on_seating(self.stage, request.build_absolute_uri("/"))
        offer = allow_redirect("seating", self.event, self.stage.number, draw)
        return redirect(offer or reverse("seating", args=[self.event.slug, self.stage.number]))

    def post(self, request, *args, **kwargs):
        allow = posted_size(request.POST.get("allow"))
        try:
            if "move" in request.POST:
                form = MovePlayerForm(request.POST, stage=self.stage)
                if not form.is_valid():
                    raise SeatingError(_("Choose a seated player and a table."))
                move_player(
                    self.stage,
                    form.cleaned_data["player"],
                    form.cleaned_data["table"],
                    request.user,
                )
                messages.success(
                    request,
                    _("%(p)s moved to table %(t)s.")
                    % {"p": form.cleaned_data["player"], "t": form.cleaned_data["table"].number},
                )
            elif request.POST.get("action") == "publish":
                if publish_seating(self.stage, request.user, posted_key(request)):
                    messages.success(
                        request,
                        _("The seating of %(s)s is published: players see it now.")
                        % {"s": self.stage.title},
                    )
                else:  # a double click, or another director was first
                    messages.info(request, _("This seating was already published."))
            elif request.POST.get("action") == "clear":
                count = clear_seating(
                    self.stage,
                    request.user,
                    posted_key(request),
                    reason=request.POST.get("reason", "")[:300],
                )
                if count:
                    messages.success(
                        request,
                        ngettext(
                            "The seating is removed: %(n)s table.",
                            "The seating is removed: %(n)s tables.",
                            count,
                        )
                        % {"n": count},
                    )
            elif self.is_later_game():
                reseat_game(
                    self.stage,
                    user=request.user,
                    key=posted_key(request),
                    allow=allow,
                    publish=False,
                )
                messages.success(request, _("%(s)s is seated again.") % {"s": self.stage.title})
                messages.info(request, DRAFT_NOTE)
                blank_on_seating(self.stage, request.build_absolute_uri("/"))
            elif self.stage.kind == StageKind.QUALIFYING:  # every division it can seat
                draw = draw_first_game(
                    self.stage,
                    user=request.user,
                    key=posted_key(request),
                    allow=allow,
                    first=request.POST.get("first") == "1",
                    publish=False,
                )
                if draw.already:
                    messages.info(
                        request,
                        _("%(s)s was drawn meanwhile, by another director: that seating stays.")
                        % {"s": self.stage.title},
                    )
                    return redirect("seating", self.event.slug, self.stage.number)
                return self.drawn(draw)
            else:  # a later stage redraws all its players, apart from their tablemates
                players = list(self.players_to_draw())
                draw = seat_stage(
                    self.stage,
                    players,
                    keep_apart=previous_tables(self.stage, players),
                    user=request.user,
                    key=posted_key(request),
                    allow=allow,
                    publish=False,
                )
                return self.drawn(draw)
        except (SeatingError, AdvanceError) as refusal:  # DivisionsNotSeated: one per division
            self.refused(refusal)
            offer = allow_redirect("seating", self.event, self.stage.number, refusal)
            if offer:
                return redirect(offer)
        return redirect("seating", self.event.slug, self.stage.number)
