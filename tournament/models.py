"""Events, their rule sets, players, stages, tables and seats."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from tournament.rules import NVSO_TILES_DRAWN, RuleSet, default_engines


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


class InfractionPenalty(models.TextChoices):
    WARN_THEN_DRAW = "warn_then_draw", _("First a warning, then draw one tile")
    DRAW = "draw", _("Draw one tile every time")
    WARN_THEN_SKIP = "warn_then_skip", _("First a warning, then skip a turn")


class PaperSize(models.TextChoices):
    LETTER = "letter", _("US Letter")
    A4 = "a4", _("A4")


def default_engine_list():
    return list(default_engines(12))


def default_tiles_drawn():
    return {str(size): drawn for size, drawn in NVSO_TILES_DRAWN.items()}


class EventQuerySet(models.QuerySet):
    def directed_by(self, user):
        if user.is_superuser:
            return self
        return self.filter(directors=user)


class Event(models.Model):
    name = models.CharField(_("name"), max_length=200)
    slug = models.SlugField(_("short name in links"), max_length=80, unique=True)
    date = models.DateField(_("date"))
    venue = models.CharField(_("venue"), max_length=200, blank=True)
    directors = models.ManyToManyField(
        settings.AUTH_USER_MODEL, verbose_name=_("directors"), related_name="events", blank=True
    )
    # The rule set (PRODUCT.md §2); defaults are NVSO's.
    set_size = models.PositiveSmallIntegerField(
        _("domino set"), choices=SetSize.choices, default=SetSize.DOUBLE_12
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
    paper_size = models.CharField(
        _("paper size"), max_length=8, choices=PaperSize.choices, default=PaperSize.LETTER
    )
    created = models.DateTimeField(_("created"), auto_now_add=True)

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
                condition=Q(table_size__gte=2, table_size__lte=8), name="event_table_size_2_to_8"
            ),
        ]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("event", args=[self.slug])

    @property
    def rules(self) -> RuleSet:
        return RuleSet(
            set=self.set_size,
            engines=tuple(self.engines),
            tiles_drawn={int(size): drawn for size, drawn in self.tiles_drawn.items()},
            table_size=self.table_size,
            game_minutes=self.game_minutes,
            round_in_progress=self.round_in_progress,
            double_blank_points=self.double_blank_points,
            advancement_tie=self.advancement_tie,
            medal_tie=self.medal_tie,
            infraction_penalty=self.infraction_penalty,
        )

    def is_director(self, user) -> bool:
        if not user.is_authenticated:
            return False
        return user.is_superuser or self.directors.filter(pk=user.pk).exists()


class Player(models.Model):
    event = models.ForeignKey(
        Event, verbose_name=_("event"), on_delete=models.CASCADE, related_name="players"
    )
    name = models.CharField(_("name"), max_length=120)
    ref = models.CharField(
        _("player id"),
        max_length=60,
        blank=True,
        help_text=_("The id from a registration list or event file, if any."),
    )
    club = models.CharField(_("club"), max_length=120, blank=True)
    division = models.CharField(_("division"), max_length=60, blank=True)
    checked_in = models.BooleanField(_("checked in"), default=False)

    class Meta:
        verbose_name = _("player")
        verbose_name_plural = _("players")
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(
                fields=["event", "ref"], condition=~Q(ref=""), name="player_ref_unique_in_event"
            ),
        ]

    def __str__(self):
        return self.name


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
    name = models.CharField(_("name"), max_length=80)
    kind = models.CharField(_("kind"), max_length=12, choices=StageKind.choices)
    closed = models.BooleanField(_("closed"), default=False)
    # A playoff stage says what it decides, for which division, and (advancement) which table.
    medal = models.CharField(_("decides"), max_length=8, choices=Medal.choices, blank=True)
    division = models.CharField(_("division"), max_length=60, blank=True)
    playoff_table = models.ForeignKey(
        "Table", verbose_name=_("tie at table"), on_delete=models.CASCADE, null=True,
        blank=True, related_name="playoffs",
    )
    # The clock (PRODUCT.md §5): facts as recorded; tournament/clock.py computes the rest.
    clock_started_at = models.DateTimeField(_("clock started"), null=True, blank=True)
    clock_paused_at = models.DateTimeField(_("clock paused"), null=True, blank=True)
    clock_paused_total = models.DurationField(_("time paused"), null=True, blank=True)
    time_called_at = models.DateTimeField(_("time called"), null=True, blank=True)

    objects = StageQuerySet.as_manager()

    class Meta:
        verbose_name = _("stage")
        verbose_name_plural = _("stages")
        ordering = ["event", "number"]
        constraints = [
            models.UniqueConstraint(fields=["event", "number"], name="stage_number_unique"),
        ]

    def __str__(self):
        return f"{self.event} – {self.name}"

    def get_absolute_url(self):
        return reverse("standings", args=[self.event.slug, self.number])


class TableQuerySet(models.QuerySet):
    def for_stage(self, stage):
        return self.filter(stage=stage).order_by("number")


class Table(models.Model):
    stage = models.ForeignKey(
        Stage, verbose_name=_("stage"), on_delete=models.CASCADE, related_name="tables"
    )
    number = models.PositiveSmallIntegerField(_("table number"))
    scorekeepers = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        verbose_name=_("scorekeepers"),
        blank=True,
        related_name="scored_tables",
    )

    objects = TableQuerySet.as_manager()

    class Meta:
        verbose_name = _("table")
        verbose_name_plural = _("tables")
        ordering = ["stage", "number"]
        constraints = [
            models.UniqueConstraint(fields=["stage", "number"], name="table_number_unique"),
        ]

    def __str__(self):
        return f"{self.stage.name}, table {self.number}"

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


class ClockAction(models.TextChoices):
    START = "start", _("Started")
    PAUSE = "pause", _("Paused")
    RESUME = "resume", _("Resumed")
    CALL_TIME = "call_time", _("Time called")


class ClockEvent(models.Model):
    """Who pressed which clock button, and when."""

    stage = models.ForeignKey(
        Stage, verbose_name=_("stage"), on_delete=models.CASCADE, related_name="clock_events"
    )
    action = models.CharField(_("action"), max_length=10, choices=ClockAction.choices)
    at = models.DateTimeField(_("at"))
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("by"), on_delete=models.SET_NULL, null=True,
        related_name="+",
    )

    class Meta:
        verbose_name = _("clock event")
        verbose_name_plural = _("clock events")
        ordering = ["stage", "at"]

    def __str__(self):
        return f"{self.stage}: {self.get_action_display()} at {self.at:%H:%M:%S}"
