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
