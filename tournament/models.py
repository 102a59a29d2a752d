"""Events, their rule sets, players, stages, tables and seats; the event's history and the
submissions already handled (exactly-once forms)."""

from __future__ import annotations

import dataclasses
import secrets
import zoneinfo
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core import signing
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from tournament.fields import NameField, SearchKeyField
from tournament.game import formats
from tournament.game.finals import FinalsOptions
from tournament.game.rules import NVSO_TILES_DRAWN, RuleSet, default_engines
from tournament.stage_names import recognise, say
from tournament.text import name_key


class SetSize(models.IntegerChoices):
    DOUBLE_6 = 6, _("Double-6")
    DOUBLE_9 = 9, _("Double-9")
    DOUBLE_12 = 12, _("Double-12")
    DOUBLE_15 = 15, _("Double-15")
    DOUBLE_18 = 18, _("Double-18")


class RoundInProgress(models.TextChoices):
    FINISH = "finish", _("Finished and counts")
    VOID = "void", _("Does not count")


class AdvancementTie(models.TextChoices):
    ALL_ADVANCE = "all_advance", _("All tied players advance")
    PLAYOFF = "playoff", _("One-round playoff at the table")


class MedalTie(models.TextChoices):
    NVSO = "nvso", _("NVSO: tie for gold means no silver, playoff for bronze")
    SHARED = "shared", _("Shared medals (1, 1, 3 ranking)")
    PLAYOFF = "playoff", _("One-round playoff for every tied medal place")


MAX_QUALIFYING_PLACES = 999


class QualifierTie(models.TextChoices):
    """A tie across the last qualifying place (PRODUCT.md §15; tournament/game/qualifiers.py)."""

    ALL_QUALIFY = "all_qualify", _("Every player tied at the last qualifying place qualifies")
    ALTERNATES = (
        "alternates",
        _("Players tied across the last qualifying place are alternates; the games office decides"),
    )


class InfractionPenalty(models.TextChoices):
    WARN_THEN_DRAW = "warn_then_draw", _("First a warning, then draw one tile")
    DRAW = "draw", _("Draw one tile every time")
    WARN_THEN_SKIP = "warn_then_skip", _("First a warning, then skip a turn")
    SKIP = "skip", _("Skip the next turn every time")


class InfractionScope(models.TextChoices):
    GAME = "game", _("Per game: each game starts with a warning")
    EVENT = "event", _("Per event: one warning for the whole event")


class PaperSize(models.TextChoices):
    LETTER = "letter", _("US Letter")
    A4 = "a4", _("A4")


# Letters easy to read aloud and hard to mix up (no I, O, Q, U, V, Z, S).
CODE_LETTERS = "ABCDEFGHJKLMNPRTWXY"


def new_table_code() -> str:
    """A table's code: 6 random letters (19**6, about 47 million), not guessable from another
    table's."""
    return "".join(secrets.choice(CODE_LETTERS) for _ in range(6))


def time_zone_names() -> list[str]:
    return sorted(zoneinfo.available_timezones())


def validate_time_zone(value: str) -> None:
    if value and value not in zoneinfo.available_timezones():
        raise ValidationError(
            _("%(zone)s is not a time zone (such as America/Los_Angeles).") % {"zone": value}
        )


def default_time_zone() -> str:
    """A new event's zone: the site's (the laptop's own under `make run` and `make hall`)."""
    return settings.TIME_ZONE


def default_engine_list():
    return list(default_engines(12))


def default_tiles_drawn():
    return {str(size): drawn for size, drawn in NVSO_TILES_DRAWN.items()}


class FormatKind(models.TextChoices):
    KNOCKOUT = formats.KNOCKOUT, _("Knockout: each table's winners go on to a Final")
    CUMULATIVE = formats.CUMULATIVE, _("Cumulative: everyone plays every game, totals add up")
    CUMULATIVE_FINAL = formats.CUMULATIVE_FINAL, _("Cumulative games, then a Final")


class Reseat(models.TextChoices):
    FEWEST_REPEATS = formats.FEWEST_REPEATS, _("At random, fewest repeated tablemates")
    BY_STANDING = formats.BY_STANDING, _("By standing: the best at table 1")
    PROGRESSIVE = formats.PROGRESSIVE, _("Progressive: the lowest move up, the highest down")


class MedalsFrom(models.TextChoices):
    FINAL = formats.FROM_FINAL, _("The Final's totals")
    CUMULATIVE_PLUS_FINAL = formats.CUMULATIVE_PLUS_FINAL, _("Cumulative total plus the Final")


class AgeOn(models.TextChoices):
    EVENT_DATE = "event", _("The event's date")
    YEAR_END = "dec31", _("December 31 of the event's year")


# The event's fields that hold its rule set (PRODUCT.md §2), in RuleSet's order: RuleSet's name
# -> the event's field (the set alone is named apart). The rule set, the event's form and its
# layout read them here: a new rule is a field of RuleSet and of Event, nowhere else.
RULE_FIELDS: dict[str, str] = {
    f.name: "set_size" if f.name == "set" else f.name for f in dataclasses.fields(RuleSet)
}


def rule_set(values: Mapping[str, Any]) -> RuleSet:
    """The rule set of the event's field ``values`` (an event's, or a form's cleaned data):
    engines as a tuple, tiles drawn by whole table size; a rule not given is RuleSet's
    default."""
    given = {name: values[field] for name, field in RULE_FIELDS.items() if field in values}
    if "engines" in given:
        given["engines"] = tuple(given["engines"])
    if "tiles_drawn" in given:
        given["tiles_drawn"] = {int(size): drawn for size, drawn in given["tiles_drawn"].items()}
    return RuleSet(**given)


# The event's fields that hold its format (PRODUCT.md §12): Format's name -> the event's field.
FORMAT_FIELDS: dict[str, str] = {
    f.name: f"format_{f.name}" for f in dataclasses.fields(formats.Format)
}


def event_format(values: Mapping[str, Any]) -> formats.Format:
    """The format of the event's field ``values`` (an event's, or a form's cleaned data); a
    setting not given is Format's default."""
    return formats.Format(
        **{name: values[field] for name, field in FORMAT_FIELDS.items() if field in values}
    )


class EventQuerySet(models.QuerySet):
    def listed(self):
        """The events the home page lists: not archived."""
        return self.filter(archived=False)


class Event(models.Model):
    name = NameField(_("name"), max_length=200)
    slug = models.SlugField(_("short name in links"), max_length=80, unique=True)
    date = models.DateField(_("date"))
    venue = NameField(_("venue"), max_length=200, blank=True)
    directors = models.ManyToManyField(
        settings.AUTH_USER_MODEL, verbose_name=_("directors"), related_name="events", blank=True
    )
    # The rule set (PRODUCT.md §2); defaults are NVSO's.
    set_size = models.PositiveSmallIntegerField(
        _("domino set"), choices=SetSize.choices, default=SetSize.DOUBLE_12
    )
    sets = models.PositiveSmallIntegerField(
        _("sets mixed together"),
        choices=[(1, _("One set")), (2, _("Two sets mixed"))],
        default=1,
        help_text=_("Two copies of the set mixed (e.g. two double-9 sets) deal larger tables."),
    )
    engines = models.JSONField(
        _("engines in play order"),
        default=default_engine_list,
        help_text=_("The double that starts each round, in play order."),
    )
    tiles_drawn = models.JSONField(
        _("tiles drawn by table size"),
        default=default_tiles_drawn,
        help_text=_("Tiles each player draws, by the number of players at the table."),
    )
    table_size = models.PositiveSmallIntegerField(_("usual table size"), default=4)
    game_minutes = models.PositiveSmallIntegerField(
        _("time limit (minutes)"),
        null=True,
        blank=True,
        default=60,
        help_text=_("Minutes per game; leave empty for untimed games."),
    )
    round_in_progress = models.CharField(
        _("round in progress when time is called"),
        max_length=10,
        choices=RoundInProgress.choices,
        default=RoundInProgress.FINISH,
    )
    double_blank_points = models.PositiveSmallIntegerField(
        _("double-blank left in hand counts"), choices=[(0, "0"), (50, "50")], default=0
    )
    advancement_tie = models.CharField(
        _("tie at a table's top"),
        max_length=12,
        choices=AdvancementTie.choices,
        default=AdvancementTie.ALL_ADVANCE,
    )
    medal_tie = models.CharField(
        _("tie rule for the medals"), max_length=10, choices=MedalTie.choices, default=MedalTie.NVSO
    )
    infraction_penalty = models.CharField(
        _("infraction penalty"),
        max_length=16,
        choices=InfractionPenalty.choices,
        default=InfractionPenalty.WARN_THEN_DRAW,
    )
    infraction_scope = models.CharField(
        _("warnings count"),
        max_length=8,
        choices=InfractionScope.choices,
        default=InfractionScope.GAME,
    )
    table_entry = models.BooleanField(
        _("players enter their table's rounds"),
        default=False,
        help_text=_(
            "The QR code on each score sheet opens the table's entry on a player's phone; a "
            "second player confirms each round."
        ),
    )
    paper_size = models.CharField(
        _("paper size"), max_length=8, choices=PaperSize.choices, default=PaperSize.LETTER
    )
    time_zone = models.CharField(
        _("time zone"),
        max_length=64,
        blank=True,
        default=default_time_zone,
        validators=[validate_time_zone],
        help_text=_("Every time of the event is shown in it (empty: the site's zone)."),
    )
    # The format (issue 30, tournament/game/formats.py): knockout, or cumulative games.
    format_kind = models.CharField(
        _("format"), max_length=20, choices=FormatKind.choices, default=FormatKind.KNOCKOUT
    )
    format_games = models.PositiveSmallIntegerField(
        _("games everyone plays"),
        default=3,
        help_text=_("Cumulative formats: the games whose totals add up."),
    )
    format_reseat = models.CharField(
        _("reseating between games"),
        max_length=20,
        choices=Reseat.choices,
        default=Reseat.FEWEST_REPEATS,
    )
    format_move = models.PositiveSmallIntegerField(
        _("players moving up and down"),
        default=1,
        help_text=_(
            "Progressive reseating: after each game, each table's lowest totals move up one "
            "table and its highest move down."
        ),
    )
    format_final_size = models.PositiveSmallIntegerField(
        _("players in the Final"),
        null=True,
        blank=True,
        help_text=_(
            "Cumulative, then a Final: the lowest cumulative totals that play it (per "
            "division). Leave empty for one table's worth."
        ),
    )
    format_medals_from = models.CharField(
        _("medals from"), max_length=24, choices=MedalsFrom.choices, default=MedalsFrom.FINAL
    )
    # Seeding by rating (issue 31): Game 1's tables balanced by the players' ratings.
    seed_by_rating = models.BooleanField(
        _("seed Game 1 by rating"),
        default=False,
        help_text=_(
            "The draw deals Game 1's players to tables by rating (a snake draft), so that the "
            "strongest are spread over the tables."
        ),
    )
    # The road to the Final (issue 12, tournament/game/finals.py); empty: automatic.
    finals_top_n = models.PositiveSmallIntegerField(
        _("players advancing from each table"),
        null=True,
        blank=True,
        help_text=_(
            "Leave empty for the automatic choice: each table's winner, or the top 2 when "
            "only two tables play (never a Final of fewer than 3). 0 means none: only the best "
            "overall go on, as many as the wildcards fill the next stage to."
        ),
    )
    finals_fill_to = models.PositiveSmallIntegerField(
        _("fill the next stage with wildcards up to"),
        null=True,
        blank=True,
        help_text=_(
            "Players: the best totals among those who did not advance fill the Final (or a "
            "semifinal) to this size, tied players by the tie rule at a table's top."
        ),
    )
    finals_big_final = models.BooleanField(
        _("a Final of 6 or more at one table"),
        default=False,
        help_text=_(
            "Up to the largest table size listed under tiles drawn (e.g. 6:12 for 12 tiles "
            "each at 6 players)."
        ),
    )
    late_arrivals = models.BooleanField(
        _("late arrivals may join"),
        default=False,
        help_text=_(
            "A house rule: a player who comes late joins at the next round, and each round "
            "missed scores the table's highest score of that round."
        ),
    )
    age_brackets = models.CharField(
        _("divisions by age"),
        max_length=300,
        blank=True,
        help_text=_(
            "Age brackets that give a player's division from the birth date or age in an "
            "imported list, e.g. 50-54, 55-59, 60-64, 65-69, 70-74, 75-79, 80-84, 85-89, 90+."
        ),
    )
    age_on = models.CharField(
        _("ages taken on"), max_length=6, choices=AgeOn.choices, default=AgeOn.EVENT_DATE
    )
    # The players import's last column mapping (role -> header), offered again next time.
    import_mapping = models.JSONField(_("import columns"), default=dict, blank=True, editable=False)
    archived = models.BooleanField(
        _("archived"),
        default=False,
        help_text=_("Left off the home page's list; its pages stay public by their address."),
    )
    sheet_language = models.CharField(
        _("language of the printed sheets"),
        max_length=8,
        blank=True,
        default="",
        choices=[("", _("The reader's language"))] + list(settings.LANGUAGES),
        help_text=_(
            "Score sheets, seating, standings, bracket and results PDFs are printed in this "
            "language; by default in the language of whoever prints them."
        ),
    )
    # Sign-up on the event's page (issue 49, tournament/services/signup.py).
    signup_open = models.BooleanField(
        _("players sign up on the event's page"),
        default=False,
        help_text=_(
            "A form on the event's page takes name, club, birth date and e-mail; each "
            "registrant gets a private link to their status."
        ),
    )
    signup_closes = models.DateTimeField(
        _("sign-up closes"),
        null=True,
        blank=True,
        help_text=_(
            "Date and time, in the event's zone. Empty: open until a director closes it or "
            "Game 1 is seated."
        ),
    )
    signup_capacity = models.PositiveIntegerField(
        _("places"),
        null=True,
        blank=True,
        help_text=_(
            "Players registered at most, those added by a director included; later sign-ups "
            "go on a waitlist, in order. Empty: no limit."
        ),
    )
    signup_approval = models.BooleanField(
        _("a director approves each sign-up"),
        default=False,
        help_text=_(
            "A sign-up holds its place but is not registered until a director approves it."
        ),
    )
    # Qualifiers for the next level (issue 50 item 4, PRODUCT.md §15).
    qualifying_places = models.PositiveSmallIntegerField(
        _("qualifying places per division"),
        default=0,
        validators=[MaxValueValidator(MAX_QUALIFYING_PLACES)],
        help_text=_(
            "The first places of each division qualify for the next level (state or national "
            "games). 0: nobody qualifies here."
        ),
    )
    next_level = models.CharField(
        _("next level"),
        max_length=80,
        blank=True,
        help_text=_("The games the qualifiers go on to, e.g. State Games, shown as typed."),
    )
    qualifier_tie = models.CharField(
        _("a tie at the last qualifying place"),
        max_length=12,
        choices=QualifierTie.choices,
        default=QualifierTie.ALL_QUALIFY,
    )
    # Publishing (issue 49 item 4): standings and results kept from the public until a director
    # releases them (an event that announces its medals at a ceremony).
    results_held = models.BooleanField(
        _("hold standings and results until I release them"),
        default=False,
        help_text=_(
            'Standings, results, medals and the bracket say "not published yet" to players '
            'and spectators until a director presses "Release results". Directors and the '
            "ceremony see everything."
        ),
    )
    created = models.DateTimeField(_("created"), auto_now_add=True)
    # Bumped in the same transaction as every write that changes what the event's pages show
    # (tournament/history.py): caches and live pages key on it.
    version = models.PositiveBigIntegerField(_("version"), default=0, editable=False)
    # Bumped with ``version`` by every write but those of one table alone (history.TABLE_VERBS):
    # a table's page keys on it and on the table's own ``version``.
    shared_version = models.PositiveBigIntegerField(
        _("version of what every table shows"), default=0, editable=False
    )

    objects = EventQuerySet.as_manager()

    class Meta:
        verbose_name = _("event")
        verbose_name_plural = _("events")
        ordering = ["-date", "name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(set_size__in=[6, 9, 12, 15, 18]), name="event_set_size_known"
            ),
            models.CheckConstraint(
                condition=Q(table_size__gte=2, table_size__lte=12),
                name="event_table_size_2_to_12",
            ),
            models.CheckConstraint(condition=Q(sets__in=[1, 2]), name="event_sets_1_or_2"),
            models.CheckConstraint(
                condition=Q(signup_capacity__isnull=True) | Q(signup_capacity__gte=1),
                name="event_signup_capacity_at_least_1",
            ),
        ]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("event", args=[self.slug])

    @property
    def zone(self) -> zoneinfo.ZoneInfo:
        """The zone every time of the event is shown in."""
        try:
            return zoneinfo.ZoneInfo(self.time_zone or settings.TIME_ZONE)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            return zoneinfo.ZoneInfo(settings.TIME_ZONE)

    @property
    def rules(self) -> RuleSet:
        return rule_set({field: getattr(self, field) for field in RULE_FIELDS.values()})

    @property
    def finals_options(self) -> FinalsOptions:
        return FinalsOptions(
            top_n=self.finals_top_n, fill_to=self.finals_fill_to, big_final=self.finals_big_final
        )

    @property
    def format(self) -> formats.Format:
        return event_format({field: getattr(self, field) for field in FORMAT_FIELDS.values()})

    @property
    def age_day(self):
        """The day ages are taken on, for divisions by age."""
        if self.age_on == AgeOn.YEAR_END:
            return self.date.replace(month=12, day=31)
        return self.date

    def locked(self) -> Event:
        """This event's row, locked until the transaction ends: the writes that seat, draw,
        close or create for an event queue here one at a time (on SQLite every write
        transaction is one at a time anyway: IMMEDIATE mode)."""
        return Event.objects.select_for_update().get(pk=self.pk)

    def has_rounds(self) -> bool:
        """Whether any round has been entered (the scoring app's rounds hang off tables)."""
        return self.stages.filter(tables__rounds__isnull=False).exists()

    def is_director(self, user) -> bool:
        """A yes is kept by this instance (a page asks it for its buttons, its table, its
        photos: one request's event); a no is asked again (a director just added)."""
        if not user.is_authenticated:
            return False
        if user.is_superuser:
            return True
        known = self.__dict__.setdefault("_directors_known", set())
        if user.pk not in known and self.directors.filter(pk=user.pk).exists():
            known.add(user.pk)
        return user.pk in known


class Waiting(models.TextChoices):
    """What a player who signed up waits for before being registered (issue 49); a walk-on
    the desk adds as standby waits for a free place at the draw (issue 49 item 2)."""

    WAITLIST = "waitlist", _("on the waitlist")
    APPROVAL = "approval", _("awaiting approval")
    STANDBY = "standby", _("standby")


# Registered: a player of the event who has not withdrawn and waits for nothing (a place on the
# waitlist, a director's approval). Every page that counts players counts them so (issue 28
# item 21): PlayerQuerySet.registered() and counts().
REGISTERED = Q(withdrawn=False, waiting="")
WITHDREW = Q(withdrawn=True)
# Holding a place of the event's sign-up capacity: registered, or awaiting approval.
HOLDS_A_PLACE = Q(withdrawn=False, waiting__in=["", Waiting.APPROVAL])
# A standby (issue 49 item 2): at the hall (checked in) to play if a place is free, a
# registrant on the waitlist or a walk-on the desk added as standby. The first stage's draw
# gives the no-shows' places to them in order (tournament/services/seating.py).
STANDING_BY = Q(withdrawn=False, checked_in=True, waiting__in=[Waiting.WAITLIST, Waiting.STANDBY])
# A no-show: registered and not checked in (before the draw: not here yet); not seated.
NO_SHOW = REGISTERED & Q(checked_in=False)


class PlayerQuerySet(models.QuerySet):
    def registered(self):
        """The players not withdrawn: those an event counts as registered."""
        return self.filter(REGISTERED)

    def present(self):
        """Checked in and not withdrawn: the players a draw seats."""
        return self.registered().filter(checked_in=True)

    def waitlist(self):
        """The players on the waitlist, first to be promoted first (the order they signed up)."""
        return self.filter(withdrawn=False, waiting=Waiting.WAITLIST).order_by("signup__place")

    def awaiting_approval(self):
        return self.filter(withdrawn=False, waiting=Waiting.APPROVAL).order_by("signup__place")

    def standbys(self):
        """The standbys, in the order they take a free place at the draw (PRODUCT.md §14):
        the waitlist's in its order, then the walk-ons in the order the desk added them."""
        return self.filter(STANDING_BY).order_by(
            models.Case(models.When(waiting=Waiting.WAITLIST, then=0), default=1),
            "signup__place",
            "pk",
        )

    def counts(self, seated_in: int | None = None) -> dict[str, int]:
        """The counts the event page, the players page and the desk show, in one query:
        ``registered`` (not withdrawn, waiting for nothing), ``withdrew``, ``checked_in``
        (registered and checked in: present, what the road to the Final starts from),
        ``seated`` (registered and seated in the stage of id ``seated_in``; 0 without one),
        ``waitlisted`` and ``pending`` (signed up, on the waitlist or awaiting approval),
        ``standby`` (checked in to play if a place is free) and ``no_show`` (registered, not
        checked in)."""
        return self.aggregate(
            # Before the count named "checked_in": a filter on the field comes first.
            standby=models.Count("pk", filter=STANDING_BY, distinct=True),
            no_show=models.Count("pk", filter=NO_SHOW, distinct=True),
            registered=models.Count("pk", filter=REGISTERED, distinct=True),
            withdrew=models.Count("pk", filter=WITHDREW, distinct=True),
            checked_in=models.Count("pk", filter=REGISTERED & Q(checked_in=True), distinct=True),
            seated=models.Count(
                "seats", filter=REGISTERED & Q(seats__stage_id=seated_in), distinct=True
            ),
            waitlisted=models.Count(
                "pk", filter=Q(withdrawn=False, waiting=Waiting.WAITLIST), distinct=True
            ),
            pending=models.Count(
                "pk", filter=Q(withdrawn=False, waiting=Waiting.APPROVAL), distinct=True
            ),
        )

    def matching(self, text: str):
        """The players whose name contains ``text``, without case, accents, punctuation or
        spaces ("obrien" and "O’Brien" find O'Brien)."""
        key = name_key(text)
        return self.filter(search_key__contains=key) if key else self

    def named(self, name: str, club: str = "") -> list[Player]:
        """The players of this name and club, accents, case and punctuation aside: the same
        person, as the list import's repeat check says."""
        club_key = name_key(club)
        return [
            p for p in self.filter(search_key=name_key(name)[:120]) if name_key(p.club) == club_key
        ]

    def alphabetical(self):
        """A to Z as a person reads it (``tournament.text.name_sort_key``): "Émile" among the
        E's, the same on SQLite and PostgreSQL."""
        return self.order_by(*self.model._meta.ordering)


class Player(models.Model):
    event = models.ForeignKey(
        Event, verbose_name=_("event"), on_delete=models.CASCADE, related_name="players"
    )
    name = NameField(_("name"), max_length=120)
    ref = NameField(
        _("player id"),
        max_length=60,
        blank=True,
        help_text=_("The id from a registration list or event file, if any."),
    )
    club = NameField(_("club"), max_length=120, blank=True)
    # Players who share it (a household, a club, a pair the director names) are seated at
    # different tables where the field allows (issue 49 item 3; tournament/game/seating.py).
    keep_apart = NameField(
        _("keep apart group"),
        max_length=60,
        blank=True,
        help_text=_(
            "Players given the same group (a household, a club) are seated at different "
            "tables where the field allows."
        ),
    )
    division = NameField(_("division"), max_length=60, blank=True)
    # Senior games: an athlete from outside the district never takes a medal or a qualifying
    # place from one inside; both receive it (PRODUCT.md §15, tournament/game/qualifiers.py).
    out_of_district = models.BooleanField(
        _("out of district"),
        default=False,
        help_text=_(
            "Takes the medal and qualifying place of their place among every player; the "
            "players of the district keep theirs (duplicate medals and places)."
        ),
    )
    birth_date = models.DateField(
        _("birth date"),
        null=True,
        blank=True,
        help_text=_("Optional; printed on the qualifier report for the games office."),
    )
    checked_in = models.BooleanField(_("checked in"), default=False)
    withdrawn = models.BooleanField(
        _("withdrawn"),
        default=False,
        help_text=_("Left the event: not drawn, cannot advance or medal; rounds played stay."),
    )
    # A player who signed up on the event's page past its capacity, or whose sign-up a director
    # has to approve: not registered yet (not counted, not drawn). "" for everyone else.
    waiting = models.CharField(
        _("waiting"), max_length=10, choices=Waiting.choices, blank=True, default=""
    )
    # The name without case, accents, punctuation and spaces, for searches ("jose nunez" finds
    # José Núñez, "obrien" finds O'Brien) and A-to-Z lists (tournament.text.name_key).
    search_key = SearchKeyField(_("search key"), max_length=120, source="name", blank=True)

    objects = PlayerQuerySet.as_manager()

    class Meta:
        verbose_name = _("player")
        verbose_name_plural = _("players")
        ordering = ["search_key", "name"]  # A to Z (PlayerQuerySet.alphabetical)
        constraints = [
            models.UniqueConstraint(
                fields=["event", "ref"], condition=~Q(ref=""), name="player_ref_unique_in_event"
            ),
            models.CheckConstraint(
                condition=Q(waiting__in=["", *Waiting.values]), name="player_waiting_known"
            ),
        ]

    def __str__(self):
        return self.name

    @property
    def entry(self) -> str:
        """Where the player stands: "withdrawn", "waitlist", "approval", "standby" (a walk-on
        added as standby) or "registered"."""
        if self.withdrawn:
            return "withdrawn"
        return self.waiting or "registered"

    @property
    def standing_by(self) -> bool:
        """A standby (``STANDING_BY``): checked in to play if a place is free."""
        return (
            not self.withdrawn
            and self.checked_in
            and self.waiting in (Waiting.WAITLIST, Waiting.STANDBY)
        )


class SignupQuerySet(models.QuerySet):
    def from_token(self, event: Event, token: str) -> Signup | None:
        """The event's sign-up whose private link carries ``token``; None for a token this
        site did not sign, or another event's."""
        try:
            pk = signing.Signer(salt=Signup.TOKEN_SALT, sep=".").unsign(token)
        except signing.BadSignature:
            return None
        if not (pk.isascii() and pk.isdigit() and len(pk) < 19):
            return None
        return self.select_related("player", "event").filter(event=event, pk=int(pk)).first()

    def unseen(self):
        """The sign-ups no director has marked as seen, oldest first."""
        return self.filter(seen=False).order_by("place")


class Signup(models.Model):
    """A player who signed up on the event's page (issue 49): the order they came in, and
    what the site keeps to write to them. Where they stand (registered, on the waitlist,
    awaiting approval, withdrawn) is their player's, as for every player.

    The e-mail is kept only to send the registrant their link and what becomes of their
    sign-up; the birth date is not kept (it gives the division, then goes); the address they
    signed up from is kept hashed, to count sign-ups per address and hour."""

    TOKEN_SALT = "tournament.signup.link"  # noqa: S105 (a salt, not a secret)

    event = models.ForeignKey(
        Event, verbose_name=_("event"), on_delete=models.CASCADE, related_name="signups"
    )
    player = models.OneToOneField(
        Player, verbose_name=_("player"), on_delete=models.CASCADE, related_name="signup"
    )
    place = models.PositiveIntegerField(
        _("order of sign-up"), help_text=_("1 for the event's first sign-up, and so on.")
    )
    email = models.EmailField(_("e-mail"), blank=True)
    language = models.CharField(_("language"), max_length=8, blank=True)  # of the e-mails
    # The scheme and host the registrant signed up on: the e-mails' links go there.
    site = models.CharField(_("site"), max_length=200, blank=True)
    address = models.CharField(_("address (hashed)"), max_length=16, blank=True)
    seen = models.BooleanField(_("seen by a director"), default=False)
    created = models.DateTimeField(_("signed up at"), auto_now_add=True, db_index=True)

    objects = SignupQuerySet.as_manager()

    class Meta:
        verbose_name = _("sign-up")
        verbose_name_plural = _("sign-ups")
        ordering = ["event", "place"]
        constraints = [
            models.UniqueConstraint(fields=["event", "place"], name="signup_place_unique"),
        ]
        indexes = [models.Index(fields=["address", "created"], name="signup_address_created")]

    def __str__(self):
        return f"{self.player} ({self.place})"

    def get_absolute_url(self):
        return reverse("signup_status", args=[self.event.slug, self.token])

    @property
    def token(self) -> str:
        """The private link's token: the sign-up's id, signed with the site's secret."""
        return signing.Signer(salt=self.TOKEN_SALT, sep=".").sign(str(self.pk))


class StageKind(models.TextChoices):
    QUALIFYING = "qualifying", _("Qualifying")
    SEMIFINAL = "semifinal", _("Semifinal")
    FINAL = "final", _("Final")
    PLAYOFF = "playoff", _("Playoff")


class Medal(models.TextChoices):
    GOLD = "gold", _("Gold")
    SILVER = "silver", _("Silver")
    BRONZE = "bronze", _("Bronze")
    ADVANCE = "advance", _("Advancement")


class StageQuerySet(models.QuerySet):
    def open(self):
        return self.filter(closed=False)


class Stage(models.Model):
    event = models.ForeignKey(
        Event, verbose_name=_("event"), on_delete=models.CASCADE, related_name="stages"
    )
    number = models.PositiveSmallIntegerField(_("number"), help_text=_("Order of play."))
    name = NameField(_("name"), max_length=80)
    kind = models.CharField(_("kind"), max_length=12, choices=StageKind.choices)
    closed = models.BooleanField(_("closed"), default=False)
    # A playoff stage says what it decides, for which division, and (advancement) which table.
    medal = models.CharField(_("decides"), max_length=8, choices=Medal.choices, blank=True)
    division = NameField(_("division"), max_length=60, blank=True)
    playoff_table = models.ForeignKey(
        "Table",
        verbose_name=_("tie at table"),
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="playoffs",
    )
    wildcards_of = models.ForeignKey(
        "self",
        verbose_name=_("wildcards of"),
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="wildcard_playoffs",
        help_text=_("A playoff for the last wildcards of this stage (a tie at the cut)."),
    )
    # A correction changed who advances after this stage was seated, and the director kept
    # the published seating: division -> the advancers (player ids) it was kept against.
    kept_advancers = models.JSONField(_("seating kept against the advancers"), default=dict)
    # A table size the tiles-drawn chart does not list, allowed by a director for this stage
    # when the listed sizes cannot seat its players (after withdrawals, 11 players at tables of
    # 6 to 8); such a table draws as RuleSet.tiles_for says.
    allowed_size = models.PositiveSmallIntegerField(
        _("table size allowed for this stage"),
        null=True,
        blank=True,
        help_text=_(
            "A size the tiles drawn do not list, allowed when the listed sizes cannot seat this "
            "stage's players: its players draw as at the nearest larger size listed."
        ),
    )
    # The clock (PRODUCT.md §5): facts as recorded; tournament/game/clock.py computes the rest.
    clock_started_at = models.DateTimeField(_("clock started"), null=True, blank=True)
    clock_paused_at = models.DateTimeField(_("clock paused"), null=True, blank=True)
    clock_paused_total = models.DurationField(_("time paused"), null=True, blank=True)
    time_called_at = models.DateTimeField(_("time called"), null=True, blank=True)
    clock_added = models.DurationField(
        _("time added"),
        null=True,
        blank=True,
        help_text=_("Minutes a director added to this stage's time limit."),
    )
    # A seating drawn on the seating page is a draft, seen by directors only, until one of them
    # publishes it (or starts the clock, or enters a round): issue 49 item 4.
    seating_draft = models.BooleanField(_("seating is a draft"), default=False)
    version = models.PositiveBigIntegerField(_("version"), default=0, editable=False)
    # A name the site made (tournament/stage_names.py): its parts, said in the reader's
    # language; {} for a name a director typed.
    auto_name = models.JSONField(_("name made by the site"), default=dict, blank=True)

    objects = StageQuerySet.as_manager()

    class Meta:
        verbose_name = _("stage")
        verbose_name_plural = _("stages")
        ordering = ["event", "number"]
        constraints = [
            models.UniqueConstraint(fields=["event", "number"], name="stage_number_unique"),
        ]

    def __str__(self):
        return f"{self.event} – {self.title}"

    def get_absolute_url(self):
        return reverse("standings", args=[self.event.slug, self.number])

    @property
    def has_clock(self) -> bool:
        """A game has the event's clock; a playoff is one round (PRODUCT.md §7), played out
        without one."""
        return self.kind != StageKind.PLAYOFF

    @property
    def rules(self) -> RuleSet:
        """The event's rule set, with the table size a director allowed for this stage (drawing
        as ``RuleSet.tiles_for`` says): what this stage's seating deals."""
        return self.event.rules.allowing(self.allowed_size)

    @property
    def title(self) -> str:
        """The stage's name as a reader sees it: a name the site made in the active language,
        a name a director typed as typed (one typed over the site's in the admin, too)."""
        if self.auto_name and recognise(self.name, self.kind, self.division):
            return say(self.auto_name, self) or self.name
        return self.name


class TableQuerySet(models.QuerySet):
    def for_stage(self, stage):
        return self.filter(stage=stage).order_by("number")


class Table(models.Model):
    stage = models.ForeignKey(
        Stage, verbose_name=_("stage"), on_delete=models.CASCADE, related_name="tables"
    )
    number = models.PositiveSmallIntegerField(_("table number"))
    game_over_after = models.PositiveSmallIntegerField(
        _("game over after round"),
        null=True,
        blank=True,
        help_text=_(
            "Marked once time is called: the table's last round (no later one was played)."
        ),
    )
    scorekeepers = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        verbose_name=_("scorekeepers"),
        blank=True,
        related_name="scored_tables",
    )
    code = models.CharField(
        _("table code"),
        max_length=8,
        default=new_table_code,
        help_text=_("Printed on the score sheet: players open their table's entry with it."),
    )
    # Kept by scoring.services.rounds.store_totals in the transaction of every write of a
    # round: what the standings, the bracket and the results read instead of counting them.
    rounds_played = models.PositiveSmallIntegerField(_("rounds entered"), default=0, editable=False)
    rounds_awaiting = models.PositiveSmallIntegerField(
        _("rounds awaiting confirmation"), default=0, editable=False
    )
    # Minutes a director gave this table alone (a late start, a spilled set): its time is
    # called that long after the room's (tournament/game/clock.py TableClock).
    clock_added = models.DurationField(
        _("time added to this table"),
        default=timedelta(0),
        help_text=_("Minutes a director added to this table's clock only."),
    )
    # Bumped with the event's version by a write of this table alone (history.TABLE_VERBS).
    version = models.PositiveBigIntegerField(_("version"), default=0, editable=False)

    objects = TableQuerySet.as_manager()

    class Meta:
        verbose_name = _("table")
        verbose_name_plural = _("tables")
        ordering = ["stage", "number"]
        constraints = [
            models.UniqueConstraint(fields=["stage", "number"], name="table_number_unique"),
            models.UniqueConstraint(fields=["code"], name="table_code_unique"),
        ]

    def __str__(self):
        return f"{self.stage.title}, table {self.number}"

    def get_absolute_url(self):
        return reverse("table", args=[self.stage.event.slug, self.stage.number, self.number])

    def can_score(self, user) -> bool:
        """Directors of the event and this table's scorekeepers enter its rounds."""
        if not user.is_authenticated:
            return False
        return self.stage.event.is_director(user) or self.scorekeepers.filter(pk=user.pk).exists()


class Seat(models.Model):
    stage = models.ForeignKey(
        Stage, verbose_name=_("stage"), on_delete=models.CASCADE, related_name="seats"
    )
    table = models.ForeignKey(
        Table, verbose_name=_("table"), on_delete=models.CASCADE, related_name="seats"
    )
    player = models.ForeignKey(
        Player, verbose_name=_("player"), on_delete=models.CASCADE, related_name="seats"
    )
    position = models.PositiveSmallIntegerField(_("seat"))
    # A player who withdrew during the stage: the rounds they played at this table.
    left_after = models.PositiveSmallIntegerField(_("withdrew after round"), null=True, blank=True)
    # A late arrival (the event's house rule): the first round they played; each round before
    # it scores the table's highest score of that round.
    joined_at = models.PositiveSmallIntegerField(_("joined at round"), null=True, blank=True)
    # The sum of the pips entered for the player at this table, kept by
    # scoring.services.rounds.store_totals with the rounds (a late arrival's missed rounds are
    # not in it: their sheet fills them).
    pips_entered = models.IntegerField(_("pips entered"), default=0, editable=False)

    class Meta:
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        ordering = ["table", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["stage", "player"], name="one_seat_per_player_per_stage"
            ),
            models.UniqueConstraint(fields=["table", "position"], name="seat_position_unique"),
        ]

    def __str__(self):
        return f"{self.player} at {self.table}"

    def plays(self, round_number: int) -> bool:
        """Whether the seat's player plays round ``round_number`` (1 = the first) at the
        table: not before a late arrival, not after a withdrawal."""
        if self.joined_at is not None and round_number < self.joined_at:
            return False
        return self.left_after is None or round_number <= self.left_after


class ClockAction(models.TextChoices):
    START = "start", _("Started")
    PAUSE = "pause", _("Paused")
    RESUME = "resume", _("Resumed")
    CALL_TIME = "call_time", _("Time called")
    UNDO_CALL = "undo_call", _("Time called taken back")
    ADD_MINUTES = "add_minutes", _("Minutes added")


class ClockEvent(models.Model):
    """Who pressed which clock button, and when."""

    stage = models.ForeignKey(
        Stage, verbose_name=_("stage"), on_delete=models.CASCADE, related_name="clock_events"
    )
    action = models.CharField(_("action"), max_length=12, choices=ClockAction.choices)
    at = models.DateTimeField(_("at"))
    minutes = models.PositiveSmallIntegerField(_("minutes added"), null=True, blank=True)
    reason = models.CharField(_("reason"), max_length=300, blank=True)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("by"),
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
    )

    class Meta:
        verbose_name = _("clock event")
        verbose_name_plural = _("clock events")
        ordering = ["stage", "at"]

    def __str__(self):
        return f"{self.stage}: {self.get_action_display()} at {self.at:%H:%M:%S}"


class Action(models.Model):
    """One entry of an event's history: who did what, when, and why (tournament/history.py).

    ``verb`` names the action ("round.saved", "clock.time_called", ...); ``data`` holds what
    its sentence needs (table number, engine, names), so the sentence is written in the
    reader's language when shown.
    """

    event = models.ForeignKey(
        Event, verbose_name=_("event"), on_delete=models.CASCADE, related_name="actions"
    )
    stage = models.ForeignKey(
        Stage,
        verbose_name=_("stage"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    verb = models.CharField(_("action"), max_length=40)
    data = models.JSONField(_("details"), default=dict, blank=True)
    reason = models.CharField(_("reason"), max_length=300, blank=True)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    at = models.DateTimeField(_("at"), auto_now_add=True, db_index=True)

    class Meta:
        verbose_name = _("history entry")
        verbose_name_plural = _("history")
        ordering = ["-at", "-pk"]

    def __str__(self):
        from tournament.history import describe

        return describe(self)


class Submission(models.Model):
    """A form already handled: the key its page was drawn with, and what it did.

    A form that writes carries a random key made when the page was drawn; the service that
    handles it records the key in the same transaction as its write. A repeat of the key
    (double click, browser retry, resent form, a second device with the same page) finds the
    row and answers with the first outcome instead of writing again.
    """

    key = models.CharField(_("key"), max_length=64, unique=True)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    outcome = models.JSONField(_("outcome"), default=dict, blank=True)
    at = models.DateTimeField(_("at"), auto_now_add=True)

    class Meta:
        verbose_name = _("handled form")
        verbose_name_plural = _("handled forms")

    def __str__(self):
        return self.key


class HallLoginCode(models.Model):
    """A one-time code for a log-in from the hall's network under `make hall`
    (tournament/hall_login.py): made after the right password, shown on the laptop's screen,
    valid for that username at that address, once, for a few minutes."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        on_delete=models.CASCADE,
        related_name="+",
    )
    address = models.GenericIPAddressField(_("address"))
    code = models.CharField(_("code"), max_length=6)
    made = models.DateTimeField(_("made"), auto_now_add=True)
    used = models.DateTimeField(_("used"), null=True, blank=True)
    wrong_tries = models.PositiveSmallIntegerField(_("wrong tries"), default=0)

    class Meta:
        verbose_name = _("hall log-in code")
        verbose_name_plural = _("hall log-in codes")

    def __str__(self):
        return f"{self.user} @ {self.address}"


class ListReadingStatus(models.TextChoices):
    QUEUED = "queued", _("waiting for its turn")
    READING = "reading", _("being read")
    DONE = "done", _("list read")
    FAILED = "failed", _("list refused")


class ListReading(models.Model):
    """A registration list too large to read within a request (issue 27), read by a background
    task (tournament/services/players.py) while its page shows how far it got. The file is dropped
    once read; the list as read is kept until the director's preview takes it."""

    STEPS = [ListReadingStatus.QUEUED, ListReadingStatus.READING]

    event = models.ForeignKey(
        Event, verbose_name=_("event"), on_delete=models.CASCADE, related_name="+"
    )
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("by"), on_delete=models.CASCADE, related_name="+"
    )
    data = models.BinaryField(_("file"), null=True, blank=True)
    language = models.CharField(_("language"), max_length=8, blank=True)  # of the messages
    status = models.CharField(
        _("status"), max_length=10, choices=ListReadingStatus, default=ListReadingStatus.QUEUED
    )
    sheet = models.JSONField(_("list as read"), null=True, blank=True)
    error = models.TextField(_("why it was refused"), blank=True)
    created_at = models.DateTimeField(_("uploaded at"), auto_now_add=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        verbose_name = _("registration list reading")
        verbose_name_plural = _("registration list readings")

    def __str__(self):
        return f"list reading {self.pk} ({self.status})"

    @property
    def step(self) -> int:
        return self.STEPS.index(self.status) + 1 if self.status in self.STEPS else len(self.STEPS)
