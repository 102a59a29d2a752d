"""Director undos that change stages (issue 22): reopen a closed stage, remove a playoff created
by mistake. Each needs a reason (kept in the event's history), runs under the event's lock and
happens once however often it is sent: a form's key is claimed, and a second device's post
finds the stage already open or the playoff already gone and changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import transaction
from django.utils.translation import gettext as _

from scoring.models import Round
from scoring.results import ADVANCING_KINDS, load_results
from scoring.services.stages import sync_playoffs
from tournament.history import changed, claim, log_action
from tournament.models import ClockEvent, Seat, Stage, StageKind, Table
from tournament.refusals import Refusal


class UndoRefused(Refusal):
    """The undo was not done; the message says why (nothing was saved)."""


def _reason(reason: str | None) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise UndoRefused(_("Give the reason."))
    return reason


# -- reopening a closed stage --------------------------------------------------------------------


@dataclass
class ReopenPlan:
    """What reopening ``stage`` does, as the page lists it before the director confirms.

    ``unseat``: later stages seated from its advancers, whose seating is removed (a semifinal
    created when it was seated goes with its seating); ``playoffs``: its playoffs not yet
    played, removed (no longer owed once the stage is open); ``blocked_by``: stages that have
    rounds already (a later stage, or one of its playoffs played): then the stage is not
    reopened, its rounds are corrected instead.
    """

    stage: Stage
    unseat: list[Stage] = field(default_factory=list)
    playoffs: list[Stage] = field(default_factory=list)
    blocked_by: list[Stage] = field(default_factory=list)
    marked_over: list[Table] = field(default_factory=list)

    @property
    def removes_stage(self) -> list[Stage]:
        """Semifinals created by seating them: removed with their seating (seating the next
        stage creates one again if the advancers need it)."""
        return [s for s in self.unseat if s.kind == StageKind.SEMIFINAL]

    @property
    def fingerprint(self) -> str:
        """What the page listed, to refuse a confirm sent from a page that is out of date."""
        return ",".join(str(s.pk) for s in self.unseat + self.playoffs) or "-"


def _depends_on(stage: Stage, stages: list[Stage]) -> tuple[list[Stage], list[Stage]]:
    """(later stages seated from ``stage``'s outcome, its playoffs) among ``stages``."""
    if stage.kind in ADVANCING_KINDS:
        later = [
            s
            for s in stages
            if s.number > stage.number and s.kind in (StageKind.SEMIFINAL, StageKind.FINAL)
        ]
        playoffs = [
            s
            for s in stages
            if s.kind == StageKind.PLAYOFF
            and s.playoff_table_id is not None
            and s.playoff_table.stage_id == stage.pk
        ]
        return later, playoffs
    if stage.kind == StageKind.FINAL:
        playoffs = [
            s
            for s in stages
            if s.kind == StageKind.PLAYOFF and s.playoff_table_id is None and s.medal
        ]
        return [], playoffs
    return [], []


def reopen_plan(stage: Stage) -> ReopenPlan:
    """What reopening a closed stage would remove, or which stages' rounds prevent it."""
    plan = ReopenPlan(stage)
    stages = list(stage.event.stages.select_related("playoff_table").order_by("number"))
    later, playoffs = _depends_on(stage, stages)
    ids = [s.pk for s in later + playoffs]
    seated = set(Table.objects.filter(stage_id__in=ids).values_list("stage_id", flat=True))
    played = set(
        Round.objects.filter(table__stage_id__in=ids).values_list("table__stage_id", flat=True)
    )
    for s in later:
        if s.pk in played:
            plan.blocked_by.append(s)
        elif s.pk in seated:
            plan.unseat.append(s)
    for s in playoffs:
        (plan.blocked_by if s.pk in played else plan.playoffs).append(s)
    plan.marked_over = list(
        Table.objects.filter(stage=stage, game_over_after__isnull=False).order_by("number")
    )
    return plan


def _remove_stages(stages: list[Stage]) -> None:
    """Delete stages. The others keep their numbers (gaps are only gaps in the play order): a
    page drawn before the removal never acts on another stage that took the number."""
    Stage.objects.filter(pk__in=[s.pk for s in stages]).delete()


def _reset_clock(stage: Stage) -> None:
    """A stage whose seating is removed has not begun: its clock starts again from nothing."""
    ClockEvent.objects.filter(stage=stage).delete()
    Stage.objects.filter(pk=stage.pk).update(
        clock_started_at=None,
        clock_paused_at=None,
        clock_paused_total=None,
        time_called_at=None,
        clock_added=None,
    )


@dataclass
class Reopened:
    stage: Stage
    unseated: list[str]
    playoffs_removed: list[str]


@transaction.atomic
def reopen_stage(
    stage: Stage, user, reason: str, key: str | None = None, shown: str | None = None
) -> Reopened | None:
    """Reopen a closed stage so that it takes rounds again (a late table's missing round).

    Allowed while no stage that depends on it has a round: the seating of the later stages is
    removed and its unplayed playoffs go (``reopen_plan``). ``shown``: the plan's fingerprint
    as the page listed it; a different plan now refuses (the page is out of date).
    Returns None when nothing was done: the same form again, or the stage already open.
    """
    reason = _reason(reason)
    event = stage.event.locked()
    if claim(key, user) is not None:
        return None
    stage = Stage.objects.select_for_update().select_related("event").get(pk=stage.pk)
    if not stage.closed:
        return None
    if stage.kind == StageKind.PLAYOFF:
        raise UndoRefused(_("A playoff reopens when its round is removed."))
    plan = reopen_plan(stage)
    if plan.blocked_by:
        raise UndoRefused(
            _("%(s)s has rounds entered: correct %(stage)s's rounds instead.")
            % {"s": ", ".join(s.title for s in plan.blocked_by), "stage": stage.title}
        )
    if shown is not None and shown != plan.fingerprint:
        raise UndoRefused(_("What reopening removes has changed meanwhile: reload the page."))
    unseated = [s.name for s in plan.unseat]
    Seat.objects.filter(stage__in=plan.unseat).delete()
    Table.objects.filter(stage__in=plan.unseat).delete()
    for later in plan.unseat:
        _reset_clock(later)
        changed(event, later, "stage.unseated")  # its pages show no seating now
    _remove_stages(plan.removes_stage)
    stage.closed = False
    stage.save(update_fields=["closed"])
    log_action(
        event,
        "stage.reopened",
        user,
        stage=stage,
        reason=reason,
        unseated=", ".join(unseated) or _("none"),
    )
    before = set(event.stages.filter(kind=StageKind.PLAYOFF).values_list("name", flat=True))
    sync_playoffs(event)  # the stage's playoffs are owed no longer: the unplayed ones go
    after = set(event.stages.filter(kind=StageKind.PLAYOFF).values_list("name", flat=True))
    return Reopened(stage, unseated, sorted(before - after))


# -- removing a playoff created by mistake -------------------------------------------------------


def playoff_still_owed(playoff: Stage) -> bool:
    """Whether the tie rules ask for this playoff now (same players, same decision)."""
    results = load_results(playoff.event)
    seated = set(playoff.seats.values_list("player_id", flat=True))
    return any(
        o.division == playoff.division
        and o.medal == playoff.medal
        and (o.table.pk if o.table is not None else None) == playoff.playoff_table_id
        and set(o.owed.players) == seated
        for o in results.owed
    )


@transaction.atomic
def remove_playoff(playoff: Stage, user, reason: str, key: str | None = None) -> bool:
    """Remove a playoff stage that has no round (created by mistake: the tie rule was changed
    since, say). One the tie rules still ask for would only be created again: refused, with
    what to do instead. Returns whether it was removed now."""
    reason = _reason(reason)
    event = playoff.event.locked()
    if claim(key, user) is not None:
        return False
    playoff = Stage.objects.select_for_update().filter(pk=playoff.pk).first()
    if playoff is None:
        return False  # removed meanwhile (another device, or the tie went away)
    if playoff.kind != StageKind.PLAYOFF:
        raise UndoRefused(_("Only a playoff is removed this way."))
    if Round.objects.filter(table__stage=playoff).exists():
        raise UndoRefused(
            _("This playoff has its round: remove the round first, on the table's page.")
        )
    if playoff_still_owed(playoff):
        raise UndoRefused(
            _(
                "The tie rule still asks for this playoff: correct the tied scores, change the "
                "tie rule, or reopen the stage it decides; it goes by itself then."
            )
        )
    name = playoff.name
    _remove_stages([playoff])
    log_action(event, "playoff.removed", user, reason=reason, name=name)
    return True
