"""Round scores and their audit trail. Only scoring/services/rounds.py writes them."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from tournament.fields import NameField
from tournament.models import Event, Player, Table


class Round(models.Model):
    """One deal at one table, played with one engine."""

    table = models.ForeignKey(
        Table, verbose_name=_("table"), on_delete=models.CASCADE, related_name="rounds"
    )
    number = models.PositiveSmallIntegerField(_("round number"))
    engine = models.PositiveSmallIntegerField(_("engine"))
    entered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("entered by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    entered_at = models.DateTimeField(_("entered at"), auto_now_add=True)
    # Entered by a player's phone (table entry, issue 15): counted at once, confirmed by a
    # second device or a director. Rounds saved by directors and scorekeepers never wait.
    awaiting_confirmation = models.BooleanField(_("awaiting confirmation"), default=False)
    entered_device = models.CharField(_("entered from device"), max_length=12, blank=True)
    confirmed_at = models.DateTimeField(_("confirmed at"), null=True, blank=True)
    confirmed_device = models.CharField(_("confirmed from device"), max_length=12, blank=True)
    # Who the phones said they are, and what each phone looked like (the fingerprint of
    # scoring/services/table_entry.py): the confirming phone must be another player's, on
    # another phone (issue 27).
    entered_player = models.ForeignKey(
        Player,
        verbose_name=_("entered by player"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    entered_fingerprint = models.CharField(
        _("entering phone's fingerprint"), max_length=16, blank=True
    )
    confirmed_player = models.ForeignKey(
        Player,
        verbose_name=_("confirmed by player"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    confirmed_fingerprint = models.CharField(
        _("confirming phone's fingerprint"), max_length=16, blank=True
    )
    confirmed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("confirmed by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        verbose_name = _("round")
        verbose_name_plural = _("rounds")
        ordering = ["table", "number"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="round_number_unique"),
            models.UniqueConstraint(fields=["table", "engine"], name="round_engine_unique"),
        ]

    def __str__(self):
        return f"{self.table}, round {self.number} ({self.engine}-{self.engine})"


class Score(models.Model):
    """A player's pips left in hand after one round."""

    round = models.ForeignKey(
        Round, verbose_name=_("round"), on_delete=models.CASCADE, related_name="scores"
    )
    player = models.ForeignKey(
        Player, verbose_name=_("player"), on_delete=models.CASCADE, related_name="scores"
    )
    pips = models.IntegerField(_("pips"))

    class Meta:
        verbose_name = _("score")
        verbose_name_plural = _("scores")
        constraints = [
            models.UniqueConstraint(
                fields=["round", "player"], name="one_score_per_player_per_round"
            ),
            models.CheckConstraint(condition=Q(pips__gte=0), name="score_pips_not_negative"),
        ]

    def __str__(self):
        return f"{self.player}: {self.pips}"


class ScoreChange(models.Model):
    """Who changed a saved score, when, from what to what, and why."""

    round = models.ForeignKey(
        Round, verbose_name=_("round"), on_delete=models.CASCADE, related_name="changes"
    )
    player = models.ForeignKey(
        Player, verbose_name=_("player"), on_delete=models.CASCADE, related_name="+"
    )
    old_pips = models.IntegerField(_("old pips"))
    new_pips = models.IntegerField(_("new pips"))
    reason = models.CharField(_("reason"), max_length=300)
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("changed by"),
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
    )
    changed_at = models.DateTimeField(_("changed at"), auto_now_add=True)

    class Meta:
        verbose_name = _("score change")
        verbose_name_plural = _("score changes")
        ordering = ["-changed_at"]

    def __str__(self):
        return f"{self.player} {self.old_pips} → {self.new_pips} ({self.round})"


class InfractionKind(models.TextChoices):
    WRONG_TILE = "wrong_tile", _("Wrong tile")
    OUT_OF_TURN = "out_of_turn", _("Out of turn")
    DREW_WITH_PLAYABLE = "drew_with_playable", _("Drew while holding a playable tile")
    NO_LAST_TILE_CALL = "no_last_tile_call", _("Did not announce last tile")
    OPEN_DOUBLE = "open_double_not_satisfied", _("Did not satisfy an open double")
    OTHER = "other", _("Other")


class InfractionAction(models.TextChoices):
    WARNING = "warning", _("Warning")
    PENALTY_DRAW = "penalty_draw", _("Penalty draw of one tile")
    SKIP_TURN = "skip_turn", _("Skip a turn")
    VOID = "void", _("Void")


class Infraction(models.Model):
    """A rules error in play (PRODUCT.md §8), with the action the penalty rule gave it."""

    table = models.ForeignKey(
        Table, verbose_name=_("table"), on_delete=models.CASCADE, related_name="infractions"
    )
    player = models.ForeignKey(
        Player, verbose_name=_("player"), on_delete=models.CASCADE, related_name="infractions"
    )
    engine = models.PositiveSmallIntegerField(_("round (engine)"))
    kind = models.CharField(_("kind"), max_length=32, choices=InfractionKind.choices)
    note = models.CharField(_("note"), max_length=300, blank=True)
    action = models.CharField(_("action"), max_length=16, choices=InfractionAction.choices)
    original_action = models.CharField(
        _("action when logged"), max_length=16, choices=InfractionAction.choices
    )
    logged_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("logged by"),
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
    )
    logged_at = models.DateTimeField(_("logged at"), auto_now_add=True)
    change_reason = models.CharField(_("reason for the change"), max_length=300, blank=True)
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("changed by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    changed_at = models.DateTimeField(_("changed at"), null=True, blank=True)

    class Meta:
        verbose_name = _("infraction")
        verbose_name_plural = _("infractions")
        ordering = ["logged_at", "pk"]

    def __str__(self):
        return f"{self.player}: {self.get_kind_display()} ({self.get_action_display()})"


class PersonLink(models.Model):
    """Two players of different events who are, or are not, the same person, as a director
    said (issue 16: a player's page across events; issue 45: "not the same person" keeps apart
    two players the same name and club would join). Stored once per pair, the lower player id
    first, with the director's last word; every word said is in both events' histories."""

    first = models.ForeignKey(
        Player, verbose_name=_("first player"), on_delete=models.CASCADE, related_name="+"
    )
    second = models.ForeignKey(
        Player, verbose_name=_("second player"), on_delete=models.CASCADE, related_name="+"
    )
    same = models.BooleanField(
        _("the same person"),
        default=True,
        help_text=_("Unticked: a director said they are not the same person."),
    )
    made_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("linked by"),
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
    )
    made_at = models.DateTimeField(_("linked at"), auto_now_add=True)

    class Meta:
        verbose_name = _("same person link")
        constraints = [
            models.UniqueConstraint(fields=["first", "second"], name="person_link_once"),
            models.CheckConstraint(condition=Q(first__lt=F("second")), name="person_link_ordered"),
        ]

    def __str__(self):
        return f"{self.first_id} {'=' if self.same else '≠'} {self.second_id}"


class TableDevice(models.Model):
    """A phone that opened a table's entry with the table's code (issue 15): which tables have
    a device, and since when. ``device`` is a random id kept in the phone's session and in a
    long-lived signed cookie; ``player`` is who the phone said it is, ``fingerprint`` what the
    phone looked like when it said so (issue 27)."""

    table = models.ForeignKey(
        Table, verbose_name=_("table"), on_delete=models.CASCADE, related_name="devices"
    )
    device = models.CharField(_("device"), max_length=12)
    player = models.ForeignKey(
        Player,
        verbose_name=_("player"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    fingerprint = models.CharField(_("fingerprint"), max_length=16, blank=True)
    first_seen = models.DateTimeField(_("first seen"), auto_now_add=True)
    last_seen = models.DateTimeField(_("last seen"), auto_now=True)

    class Meta:
        verbose_name = _("table device")
        constraints = [
            models.UniqueConstraint(fields=["table", "device"], name="table_device_once"),
        ]

    def __str__(self):
        return f"{self.table}: {self.device}"


class CodeTries(models.Model):
    """Wrong table codes tried from one address in the current hour (issue 27): kept in the
    database, so that every worker, every server and a restart count the same tries."""

    address = models.CharField(_("address"), max_length=64, unique=True)
    started = models.DateTimeField(_("hour started"))
    count = models.PositiveIntegerField(_("wrong codes"), default=0)

    class Meta:
        verbose_name = _("wrong table codes")
        verbose_name_plural = _("wrong table codes")

    def __str__(self):
        return f"{self.address}: {self.count}"


class InfractionReportQuerySet(models.QuerySet):
    def open(self):
        """The reports that wait for a director: neither logged nor dismissed."""
        return self.filter(infraction=None, dismissed=False)


class InfractionReport(models.Model):
    """An infraction reported from a table's phone (issue 15): a director logs it (the event's
    penalty then applies, as scoring/services/infractions.py says) or dismisses it."""

    table = models.ForeignKey(
        Table, verbose_name=_("table"), on_delete=models.CASCADE, related_name="infraction_reports"
    )
    player = models.ForeignKey(
        Player, verbose_name=_("player"), on_delete=models.CASCADE, related_name="+"
    )
    engine = models.PositiveSmallIntegerField(_("round (engine)"))
    kind = models.CharField(_("kind"), max_length=32, choices=InfractionKind.choices)
    note = models.CharField(_("note"), max_length=300, blank=True)
    device = models.CharField(_("reported from device"), max_length=12)
    reported_at = models.DateTimeField(_("reported at"), auto_now_add=True)
    infraction = models.ForeignKey(
        Infraction,
        verbose_name=_("logged infraction"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    dismissed = models.BooleanField(_("dismissed"), default=False)

    objects = InfractionReportQuerySet.as_manager()

    class Meta:
        verbose_name = _("reported infraction")
        ordering = ["reported_at", "pk"]

    def __str__(self):
        return f"{self.player}: {self.get_kind_display()} (reported)"

    @property
    def open(self) -> bool:
        return self.infraction_id is None and not self.dismissed


class Backup(models.Model):
    """Where and when an event's file was last backed up, and the last failure (if any, and
    newer than the last success): shown on the director's event page. Written by
    scoring/services/backups.py only, never in a save's transaction."""

    event = models.OneToOneField(
        "tournament.Event",
        verbose_name=_("event"),
        on_delete=models.CASCADE,
        related_name="backup",
    )
    # When a server process last took the event's turn to write (one file per BACKUP_SECONDS
    # across every process of the server).
    started_at = models.DateTimeField(_("last started at"), null=True, blank=True)
    written_at = models.DateTimeField(_("last written at"), null=True, blank=True)
    path = models.CharField(_("last file"), max_length=1000, blank=True)
    version = models.PositiveBigIntegerField(_("event version in the last file"), default=0)
    # Where the disk holding the last file's folder was mounted (a USB stick's mount point):
    # a later backup into the same folder on another disk is refused (scoring/services/backups.py).
    mount = models.CharField(_("disk of the last file"), max_length=1000, blank=True)
    failed_at = models.DateTimeField(_("last failed at"), null=True, blank=True)
    failure = models.CharField(_("why it failed"), max_length=500, blank=True)

    class Meta:
        verbose_name = _("backup")
        verbose_name_plural = _("backups")

    def __str__(self):
        return f"{self.event}: {self.path or 'no backup yet'}"

    @property
    def failing(self) -> bool:
        return self.failed_at is not None and (
            self.written_at is None or self.failed_at >= self.written_at
        )


class PrintJob(models.Model):
    """All score sheets of a stage as one PDF, rendered in the background in blocks (issue 14):
    kept until what the sheets show changes (``key``: the stage's version for filled sheets,
    its seating for blank ones)."""

    stage = models.ForeignKey(
        "tournament.Stage", verbose_name=_("stage"), on_delete=models.CASCADE, related_name="+"
    )
    blank = models.BooleanField(_("blank score sheets"), default=False)
    key = models.CharField(_("version of the sheets"), max_length=64)
    site = models.CharField(_("address in the QR codes"), max_length=300)
    language = models.CharField(_("language"), max_length=8, blank=True)  # of the sheets
    blocks = models.PositiveIntegerField(_("blocks"))
    done = models.PositiveIntegerField(_("blocks done"), default=0)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    pdf = models.BinaryField(_("PDF"), null=True, blank=True)
    error = models.CharField(_("error"), max_length=300, blank=True)

    class Meta:
        verbose_name = _("print job")
        constraints = [
            models.UniqueConstraint(fields=["stage", "blank", "key"], name="print_job_once"),
        ]

    def __str__(self):
        return f"{self.stage} sheets ({self.done}/{self.blocks})"

    @property
    def finished(self) -> bool:
        return self.pdf is not None

    @property
    def percent(self) -> int:
        return 100 if self.finished else int(90 * self.done / max(self.blocks, 1))


class PrintBlock(models.Model):
    """One block of a print job's tables, rendered by one task."""

    job = models.ForeignKey(
        PrintJob, verbose_name=_("print job"), on_delete=models.CASCADE, related_name="parts"
    )
    first = models.PositiveIntegerField(_("first table"))
    last = models.PositiveIntegerField(_("last table"))
    pdf = models.BinaryField(_("PDF"), null=True, blank=True)

    class Meta:
        ordering = ["first"]

    def __str__(self):
        return f"tables {self.first}-{self.last}"


class ImportStatus(models.TextChoices):
    QUEUED = "queued", _("waiting for a worker")
    READING = "reading", _("reading the file")
    CHECKING = "checking", _("checking the file")
    WRITING = "writing", _("writing the event")
    DONE = "done", _("imported")
    FAILED = "failed", _("not imported")


class ImportJobQuerySet(models.QuerySet):
    def seen_by(self, user):
        """The jobs a user may follow: their own uploads (a superuser: every one)."""
        return self if user.is_superuser else self.filter(by=user)


class ImportJob(models.Model):
    """An event file too large to import within a request (issue 11), imported by a background
    task (scoring/services/imports.py) while its page shows how far it got. The file is kept until
    the task is done with it; the outcome (the event, or the file's errors) stays."""

    STEPS = [ImportStatus.QUEUED, ImportStatus.READING, ImportStatus.CHECKING, ImportStatus.WRITING]

    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("by"), on_delete=models.CASCADE, related_name="+"
    )
    data = models.BinaryField(_("file"), null=True, blank=True)  # dropped once done or failed
    language = models.CharField(_("language"), max_length=8, blank=True)  # of the messages
    status = models.CharField(
        _("status"), max_length=10, choices=ImportStatus, default=ImportStatus.QUEUED
    )
    # The file's errors as [place, message], the first SHOWN_ERRORS of error_count; a failed
    # job without any stopped on an error of the site's own (logged).
    errors = models.JSONField(_("errors"), default=list, blank=True)
    error_count = models.PositiveIntegerField(_("number of errors"), default=0)
    event = models.ForeignKey(
        Event,
        verbose_name=_("event"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(_("uploaded at"), auto_now_add=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    objects = ImportJobQuerySet.as_manager()

    class Meta:
        verbose_name = _("event file import")
        verbose_name_plural = _("event file imports")

    def __str__(self):
        return f"import {self.pk} ({self.status})"

    def get_absolute_url(self):
        return reverse("import_job", args=[self.pk])

    @property
    def finished(self) -> bool:
        return self.status in (ImportStatus.DONE, ImportStatus.FAILED)

    @property
    def crashed(self) -> bool:
        return self.status == ImportStatus.FAILED and not self.error_count

    @property
    def step(self) -> int:
        """The step the import is at, 1 to ``len(STEPS)`` (the last once finished)."""
        return self.STEPS.index(self.status) + 1 if self.status in self.STEPS else len(self.STEPS)


# -- seasons and ratings (issue 31, PRODUCT.md §13) ------------------------------------------

DEFAULT_SERIES_POINTS = [10, 8, 6, 5, 4, 3, 2, 1]
DEFAULT_MEDAL_BONUS = [3, 2, 1]


def default_series_points():
    return list(DEFAULT_SERIES_POINTS)


def default_medal_bonus():
    return list(DEFAULT_MEDAL_BONUS)


class SeriesScoring(models.TextChoices):
    POINTS = "points", _("Points by place at each event")
    PER_ROUND = "per_round", _("Lowest total per round played")


class SeriesTieBreak(models.TextChoices):
    WINS = "wins", _("Most wins")
    BEST_EVENT = "best_event", _("Best single event")
    HEAD_TO_HEAD = "head_to_head", _("Head to head")


class Series(models.Model):
    """Events grouped into a club's season, a league or a qualifying tour: standings over its
    events (scoring/series.py, by the rule of tournament/game/series.py)."""

    name = NameField(_("name"), max_length=200)
    slug = models.SlugField(_("short name in links"), max_length=80, unique=True)
    directors = models.ManyToManyField(
        settings.AUTH_USER_MODEL, verbose_name=_("directors"), related_name="series", blank=True
    )
    scoring = models.CharField(
        _("standings by"),
        max_length=16,
        choices=SeriesScoring.choices,
        default=SeriesScoring.POINTS,
    )
    points = models.JSONField(
        _("points by place"),
        default=default_series_points,
        help_text=_("Points for 1st, 2nd, 3rd, ... place in a division at each event."),
    )
    medal_bonus = models.JSONField(
        _("medal bonus"),
        default=default_medal_bonus,
        help_text=_("Points added for gold, silver and bronze."),
    )
    best_of = models.PositiveSmallIntegerField(
        _("best events counted"),
        null=True,
        blank=True,
        help_text=_("Count each player's best N events; leave empty to count every event."),
    )
    tie_break = models.CharField(
        _("ties broken by"),
        max_length=16,
        choices=SeriesTieBreak.choices,
        default=SeriesTieBreak.WINS,
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("series")
        verbose_name_plural = _("series")
        ordering = ["name", "pk"]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("series", args=[self.slug])

    def is_director(self, user) -> bool:
        if not user.is_authenticated:
            return False
        return user.is_superuser or self.directors.filter(pk=user.pk).exists()


class SeriesEvent(models.Model):
    """An event of a series: an event belongs to at most one."""

    series = models.ForeignKey(
        Series, verbose_name=_("series"), on_delete=models.CASCADE, related_name="entries"
    )
    event = models.OneToOneField(
        Event, verbose_name=_("event"), on_delete=models.CASCADE, related_name="series_entry"
    )
    added_at = models.DateTimeField(_("added at"), auto_now_add=True)

    class Meta:
        verbose_name = _("event of a series")
        verbose_name_plural = _("events of a series")

    def __str__(self):
        return f"{self.series} · {self.event}"


class Rating(models.Model):
    """A person's rating after every finished game of the whole history, as
    scoring/services/ratings.py last computed it (derived: never entered, never in an event
    file). ``player`` is the person's latest player (the name shown); ``score`` is the
    conservative rating μ − 3σ on the friendly scale (×100)."""

    player = models.OneToOneField(
        Player, verbose_name=_("player"), on_delete=models.CASCADE, related_name="rating"
    )
    mu = models.FloatField(_("mean (μ)"))
    sigma = models.FloatField(_("uncertainty (σ)"))
    score = models.IntegerField(_("rating"), db_index=True)
    games = models.PositiveIntegerField(_("games rated"))
    events = models.PositiveIntegerField(_("events"))

    class Meta:
        verbose_name = _("rating")
        ordering = ["-score", "pk"]

    def __str__(self):
        return f"{self.player_id}: {self.score}"


class RatingPoint(models.Model):
    """A person's rating after one event (the chart of their rating over time)."""

    rating = models.ForeignKey(
        Rating, verbose_name=_("rating"), on_delete=models.CASCADE, related_name="points"
    )
    player = models.ForeignKey(
        Player, verbose_name=_("player"), on_delete=models.CASCADE, related_name="+"
    )
    event = models.ForeignKey(
        Event, verbose_name=_("event"), on_delete=models.CASCADE, related_name="+"
    )
    mu = models.FloatField(_("mean (μ)"))
    sigma = models.FloatField(_("uncertainty (σ)"))
    score = models.IntegerField(_("rating"))
    games = models.PositiveIntegerField(_("games rated so far"))

    class Meta:
        verbose_name = _("rating after an event")
        ordering = ["rating", "pk"]

    def __str__(self):
        return f"{self.rating_id} @ {self.event_id}: {self.score}"


class RatedPlayer(models.Model):
    """Every player of a rated person, in any event (registered ones too, for seeding by
    rating): which rating is theirs."""

    player = models.OneToOneField(
        Player,
        verbose_name=_("player"),
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="rated",
    )
    rating = models.ForeignKey(
        Rating, verbose_name=_("rating"), on_delete=models.CASCADE, related_name="members"
    )

    class Meta:
        verbose_name = _("rated player")

    def __str__(self):
        return f"{self.player_id} → {self.rating_id}"


class RatingsState(models.Model):
    """One row: whether a computation of the ratings is asked for, and what the last one
    read (a fingerprint of its inputs: a change that touches no finished game computes
    nothing)."""

    pending = models.BooleanField(_("computation asked for"), default=False)
    fingerprint = models.CharField(_("inputs read"), max_length=64, blank=True)
    computed_at = models.DateTimeField(_("computed at"), null=True, blank=True)
    games = models.PositiveIntegerField(_("games rated"), default=0)

    class Meta:
        verbose_name = _("state of the ratings")
        verbose_name_plural = _("state of the ratings")

    def __str__(self):
        return f"ratings: {self.games} games"


def sheet_photo_path(photo: SheetPhoto, filename: str) -> str:
    table = photo.table
    return f"sheets/{table.stage.event.slug}/{table.stage.number}/{table.number}/{filename}"


class SheetPhoto(models.Model):
    """A photo of a table's paper sheet (issue 33): re-encoded on the server, seen by directors
    and that table's scorekeeper or phones only. A removed photo keeps its row (the history says
    who removed it and why); its image is deleted."""

    table = models.ForeignKey(
        Table, verbose_name=_("table"), on_delete=models.CASCADE, related_name="photos"
    )
    image = models.ImageField(_("image"), upload_to=sheet_photo_path, blank=True)
    width = models.PositiveIntegerField(_("width"), default=0)
    height = models.PositiveIntegerField(_("height"), default=0)
    added_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("added by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    added_device = models.CharField(_("added from device"), max_length=12, blank=True)
    added_at = models.DateTimeField(_("added at"), auto_now_add=True)
    removed_at = models.DateTimeField(_("removed at"), null=True, blank=True)
    removed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("removed by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    removed_reason = models.CharField(_("why removed"), max_length=200, blank=True)

    class Meta:
        verbose_name = _("photo of a sheet")
        verbose_name_plural = _("photos of sheets")
        ordering = ["table", "added_at", "pk"]

    def __str__(self):
        return f"{self.table_id}: {self.image.name or '—'}"


class ReadingStatus(models.TextChoices):
    QUEUED = "queued", _("being read")
    DONE = "done", _("read")
    REFUSED = "refused", _("not read")


class SheetReading(models.Model):
    """A photo of a table's filled paper sheet read by the camera (issue 51 item 3): the upload
    waits here while the background worker reads it (scoring/services/sheet_reading.py); once
    read, the photo is kept with the table's photos (``photo``) and the cells wait for a person
    to confirm them and press Save. A refused photo keeps only why (``refusal``), shown in the
    reader's language. Nothing here is a score: rounds are saved by record_round alone."""

    table = models.ForeignKey(
        Table, verbose_name=_("table"), on_delete=models.CASCADE, related_name="readings"
    )
    photo = models.ForeignKey(
        SheetPhoto,
        verbose_name=_("photo"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="readings",
    )
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    key = models.CharField(_("form key"), max_length=64, blank=True)
    status = models.CharField(
        _("status"), max_length=10, choices=ReadingStatus, default=ReadingStatus.QUEUED
    )
    # Why a photo was not read: the reader's code (scoring.services.sheet_reading.message) and
    # its values, shown in the language of whoever looks; ``message`` for any other refusal.
    refusal = models.CharField(_("why not read"), max_length=20, blank=True)
    refusal_params = models.JSONField(_("values of the refusal"), default=dict, blank=True)
    message = models.TextField(_("message"), blank=True)
    # A row per engine of {"state", "value", "confidence", "sure", "box": [x, y, w, h]} per
    # player (``players``: their ids in seat order); ``box``: the cell in ``flat``'s pixels.
    cells = models.JSONField(_("cells"), default=list, blank=True)
    players = models.JSONField(_("players"), default=list, blank=True)
    engines = models.JSONField(_("engines"), default=list, blank=True)
    upload = models.BinaryField(_("uploaded photo"), null=True, blank=True)  # dropped once read
    flat = models.BinaryField(_("straightened page"), null=True, blank=True)  # JPEG
    created_at = models.DateTimeField(_("uploaded at"), auto_now_add=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        verbose_name = _("reading of a sheet")
        verbose_name_plural = _("readings of sheets")
        ordering = ["table", "created_at", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["key"], condition=~Q(key=""), name="sheet_reading_key_once"
            )
        ]

    def __str__(self):
        return f"{self.table_id}: {self.status}"
