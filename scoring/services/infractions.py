"""Every write of an infraction goes through here, one function per user action (PRODUCT.md §8).

The penalty rule itself is tournament/game/infractions.py's; this module loads the player's earlier
infractions in the game (that table of that stage), asks it, and saves the outcome.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import override

from scoring.models import Infraction, InfractionAction, InfractionKind
from scoring.services.rounds import lock_table
from scoring.sheets import TableSheet, table_sheet
from tournament.game.infractions import PER_GAME, action_for
from tournament.history import claim, log_action, settle
from tournament.models import Player, Seat, Table
from tournament.refusals import Refused, ValidationRefusal

NOTE_MAX = Infraction._meta.get_field("note").max_length
REASON_MAX = Infraction._meta.get_field("change_reason").max_length


def in_english(label) -> str:
    """A lazily translated word as the history keeps it: in English, the catalog's msgid, so
    that each reader reads it in their own language (``tournament.history.describe``)."""
    with override("en"):
        return str(label)


class InfractionRejected(ValidationRefusal):
    """Nothing was saved; ``message_dict`` says which field is wrong and why."""


def engines_reached(sheet: TableSheet) -> list[int]:
    """The engines of the rounds played at the table, and of the one in play, in play order."""
    played = [r.engine for r in sheet.rounds]
    return played if sheet.next_engine is None else [*played, sheet.next_engine]


def current_engine(sheet: TableSheet) -> int:
    """The round in play, or the last one once the game is over."""
    reached = engines_reached(sheet)
    return reached[-1] if reached else sheet.engines[0]


def engine_error(sheet: TableSheet, engine) -> str | None:
    if engine not in sheet.engines:
        engines = ", ".join(f"{e}-{e}" for e in sheet.engines)
        return _("%(engine)s is not a round of this game: the engines are %(engines)s.") % {
            "engine": engine,
            "engines": engines,
        }
    if engine not in engines_reached(sheet):
        return _("Round %(engine)s-%(engine)s has not started at this table yet.") % {
            "engine": engine
        }
    return None


@transaction.atomic
def log_infraction(
    table: Table, player: Player, engine: int, kind: str, note: str, user, key: str | None = None
) -> Infraction:
    """Log ``player``'s infraction in round ``engine`` at ``table``; the action is the rule's.

    The action follows the event's infraction penalty over the player's earlier infractions
    at this table, or in the whole event when it counts warnings per event (a voided one does
    not count). Scorekeepers of the table and directors may
    log; once the stage is closed, directors only.
    """
    table = lock_table(table)  # two desks logging for one player: consecutive actions
    event = table.stage.event
    repeat = claim(key, user)
    if repeat is not None:  # the same form sent twice (a double tap): logged once
        return Infraction.objects.get(pk=repeat.outcome["infraction"])
    if not table.can_score(user):
        raise Refused(_("You do not keep the score of this table."))
    if table.stage.closed and not event.is_director(user):
        raise InfractionRejected(_("This stage is closed: only a director can log an infraction."))
    errors: dict[str, str] = {}
    if player is None or not Seat.objects.filter(table=table, player=player).exists():
        errors["player"] = _("Choose a player seated at this table.")
    wrong_engine = engine_error(table_sheet(table), engine)
    if wrong_engine:
        errors["engine"] = wrong_engine
    if kind not in InfractionKind.values:
        errors["kind"] = _("Choose the kind of infraction.")
    note = (note or "").strip()
    if len(note) > NOTE_MAX:
        errors["note"] = _("Keep the note under %(most)s characters.") % {"most": NOTE_MAX}
    if errors:
        raise InfractionRejected(errors)
    earlier = Infraction.objects.filter(player=player)
    if event.infraction_scope == PER_GAME:
        earlier = earlier.filter(table=table)
    earlier = earlier.order_by("logged_at", "pk").values_list("action", flat=True)
    action = action_for(event.infraction_penalty, list(earlier))
    infraction = Infraction.objects.create(
        table=table,
        player=player,
        engine=engine,
        kind=kind,
        note=note,
        action=action,
        original_action=action,
        logged_by=user,
    )
    log_action(
        event, "infraction.logged", user, stage=table.stage, table=table.number, player=player.name
    )
    settle(key, infraction=infraction.pk)
    return infraction


@transaction.atomic
def change_infraction(infraction: Infraction, action: str, reason: str, user) -> Infraction:
    """A director voids an infraction (``action="void"``) or gives it another action.

    The action it was logged with stays in ``original_action``; who changed it, when and why
    are kept with the row.
    """
    table = lock_table(infraction.table)
    if not table.stage.event.is_director(user):
        raise Refused(_("Only the event's directors can change an infraction."))
    infraction = Infraction.objects.select_for_update().get(pk=infraction.pk)
    errors: dict[str, str] = {}
    if action not in InfractionAction.values:
        errors["action"] = _("Choose warning, penalty draw, skip a turn or void.")
    elif action == infraction.action:
        errors["action"] = _("This infraction is already “%(action)s”: choose another action.") % {
            "action": InfractionAction(action).label
        }
    reason = (reason or "").strip()
    if not reason:
        errors["reason"] = _("Give the reason for the change.")
    elif len(reason) > REASON_MAX:
        errors["reason"] = _("Keep the reason under %(most)s characters.") % {"most": REASON_MAX}
    if errors:
        raise InfractionRejected(errors)
    infraction.action = action
    infraction.change_reason = reason
    infraction.changed_by = user
    infraction.changed_at = timezone.now()
    infraction.save(update_fields=["action", "change_reason", "changed_by", "changed_at"])
    log_action(
        table.stage.event,
        "infraction.changed",
        user,
        stage=table.stage,
        reason=reason,
        table=table.number,
        player=infraction.player.name,
        action=in_english(InfractionAction(action).label),  # said in the reader's language
    )
    return infraction
