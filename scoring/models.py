"""Round scores and their audit trail. Only scoring/services.py writes them."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from tournament.models import Player, Table


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
        settings.AUTH_USER_MODEL, verbose_name=_("logged by"), on_delete=models.SET_NULL,
        null=True, related_name="+",
    )
    logged_at = models.DateTimeField(_("logged at"), auto_now_add=True)
    change_reason = models.CharField(_("reason for the change"), max_length=300, blank=True)
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("changed by"), on_delete=models.SET_NULL,
        null=True, blank=True, related_name="+",
    )
    changed_at = models.DateTimeField(_("changed at"), null=True, blank=True)

    class Meta:
        verbose_name = _("infraction")
        verbose_name_plural = _("infractions")
        ordering = ["logged_at", "pk"]

    def __str__(self):
        return f"{self.player}: {self.get_kind_display()} ({self.get_action_display()})"
