"""An event's history and version: every write of the site calls ``log_action`` (or, for a
write that is no history entry, ``changed``) inside its transaction.

- The entry says who did what, when and why (PRODUCT.md §3 "records it"; the undo actions, the
  corrections and the desk's changes are shown on the event's history page).
- The event's and the stage's ``version`` go up in the same transaction, so a page rendered
  for a version is never shown for a later one (caches, conditional GET, live updates).
- Once the transaction commits, ``event_changed`` is sent (backups listen to it); a write that
  rolls back sends nothing.

``claim`` and ``settle`` make a form's write exactly-once: see ``tournament.models.Submission``.
"""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.db.models import F
from django.dispatch import Signal
from django.utils.translation import gettext_lazy as _

from tournament.models import Action, Event, Stage, Submission

# Sent after the commit of a write to an event: ``event_id``, ``stage_id`` (or None), ``verb``.
event_changed = Signal()

# The sentence of each verb; ``data`` fills it in. A new kind of action adds one line here.
VERBS = {
    "event.created": _("Event created"),
    "event.edited": _("Event details or rules changed"),
    "players.added": _("%(count)s player(s) added"),
    "players.checked_in": _("%(count)s player(s) checked in"),
    "players.checked_out": _("%(count)s player(s) checked out"),
    "player.checked_in": _("%(player)s checked in"),
    "player.checked_out": _("%(player)s checked out"),
    "player.edited": _("Player %(player)s changed: %(changes)s"),
    "player.withdrew": _("%(player)s withdrew"),
    "player.reinstated": _("%(player)s's withdrawal taken back"),
    "stage.late_arrival": _(
        "%(stage)s: %(player)s arrived late, joins table %(table)s at round %(round)s"
    ),
    "event.archived": _("Event archived"),
    "event.unarchived": _("Event listed again"),
    "stage.seated": _("%(stage)s seated at %(tables)s table(s)"),
    "stage.unseated": _("%(stage)s: seating removed (%(tables)s table(s))"),
    "stage.player_moved": _("%(stage)s: %(player)s moved to table %(table)s"),
    "stage.closed": _("%(stage)s closed"),
    "stage.created": _("%(stage)s created"),
    "stage.removed": _("%(name)s removed"),
    "stage.correction_applied": _(
        "%(stage)s: corrected advancers seated (%(into)s instead of %(out)s); "
        "tables to replay: %(tables)s"
    ),
    "stage.seating_kept": _("%(stage)s: published seating kept despite a correction"),
    "clock.start": _("%(stage)s: clock started"),
    "clock.pause": _("%(stage)s: clock paused"),
    "clock.resume": _("%(stage)s: clock resumed"),
    "clock.call_time": _("%(stage)s: time called"),
    "clock.undo_call": _("%(stage)s: time called taken back"),
    "clock.add_minutes": _("%(stage)s: %(minutes)s minute(s) added to the clock"),
    "round.saved": _("%(stage)s, table %(table)s: round %(engine)s-%(engine)s saved"),
    "round.corrected": _(
        "%(stage)s, table %(table)s: round %(engine)s-%(engine)s corrected (%(changes)s)"
    ),
    "table.game_over": _("%(stage)s, table %(table)s: game over after round %(rounds)s"),
    "table.game_reopened": _("%(stage)s, table %(table)s: game reopened"),
    "round.removed": _("%(stage)s, table %(table)s: round %(engine)s-%(engine)s removed"),
    "infraction.logged": _("%(stage)s, table %(table)s: infraction of %(player)s logged"),
    "infraction.changed": _("%(stage)s, table %(table)s: infraction of %(player)s now %(action)s"),
    "scorekeeper.assigned": _("%(username)s keeps the score of %(count)s table(s)"),
    "stage.reopened": _("%(stage)s reopened; seating removed: %(unseated)s"),
    "playoff.removed": _("%(name)s removed (created by mistake)"),
    "player.unchecked_in": _("%(player)s: check-in undone"),
    "table.device_joined": _("%(stage)s, table %(table)s: a phone joined (%(device)s)"),
    "round.confirmed": _("%(stage)s, table %(table)s: round %(engine)s-%(engine)s confirmed"),
    "round.sent_back": _("%(stage)s, table %(table)s: round %(engine)s-%(engine)s sent back"),
    "table.code_reissued": _("%(stage)s, table %(table)s: new table code"),
    "stage.closed_unconfirmed": _("%(stage)s closed with %(count)s round(s) not confirmed"),
    "infraction.reported": _("%(stage)s, table %(table)s: infraction of %(player)s reported"),
    "infraction.report_dismissed": _(
        "%(stage)s, table %(table)s: reported infraction of %(player)s dismissed"
    ),
    "player.linked": _("%(player)s: the same person as in %(other)s"),
    "player.unlinked": _("%(player)s: no longer linked to %(other)s"),
}


def describe(action: Action) -> str:
    """The entry as a sentence in the active language."""
    template = VERBS.get(action.verb)
    if template is None:
        return action.verb
    try:
        return str(template) % action.data
    except (KeyError, TypeError, ValueError):
        return str(template)


def changed(event: Event | int, stage: Stage | int | None = None, verb: str = "") -> None:
    """Bump the event's (and stage's) version now; send ``event_changed`` after the commit."""
    event_id = event if isinstance(event, int) else event.pk
    stage_id = stage if isinstance(stage, int) or stage is None else stage.pk
    Event.objects.filter(pk=event_id).update(version=F("version") + 1)
    if stage_id is not None:
        Stage.objects.filter(pk=stage_id).update(version=F("version") + 1)
    transaction.on_commit(
        lambda: event_changed.send(sender=Event, event_id=event_id, stage_id=stage_id, verb=verb)
    )


def log_action(
    event: Event,
    verb: str,
    user=None,
    *,
    stage: Stage | None = None,
    reason: str = "",
    **data,
) -> Action:
    """Record an action in the event's history and bump its version (in the caller's
    transaction). ``data`` fills in the verb's sentence; the stage's name is added."""
    if stage is not None:
        data.setdefault("stage", stage.name)
    user = user if getattr(user, "is_authenticated", False) else None
    action = Action.objects.create(
        event=event, stage=stage, verb=verb, data=data, reason=reason.strip(), by=user
    )
    changed(event, stage, verb)
    return action


# -- exactly-once forms ----------------------------------------------------------------------


def claim(key: str | None, user=None) -> Submission | None:
    """Claim a form's key for the write about to happen, inside the write's transaction.

    Returns None when the key is new (the write goes on; ``settle`` records its outcome), or
    the earlier ``Submission`` of the same key (the write must not happen again: answer with
    its outcome). Two requests with one key at once: the second waits on the unique key until
    the first commits, then gets its submission; if the first rolled back, the second writes.
    A form without a key (an old page) is handled as new.
    """
    if not key:
        return None
    user = user if getattr(user, "is_authenticated", False) else None
    try:
        with transaction.atomic():
            Submission.objects.create(key=key, by=user)
    except IntegrityError:
        return Submission.objects.get(key=key)
    return None


def settle(key: str | None, **outcome) -> None:
    """Record what a claimed key's write did, for the answer to a repeat."""
    if key:
        Submission.objects.filter(key=key).update(outcome=outcome)
