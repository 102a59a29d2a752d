"""Writes about players, one function per director action, each in a transaction: add, edit,
delete, check in, and the desk's undo (issue 22): un-check-in a player checked in by mistake,
before the player is seated, with a reason kept in the event's history. Registration lists are
tournament/services/registration.py's."""

from __future__ import annotations

import datetime

from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from tournament.history import claim, log_action, settle
from tournament.models import Event, Player, Waiting
from tournament.refusals import Refusal, ValidationRefusal
from tournament.services.signup import fill_places
from tournament.text import labelled, semicolons


class PlayerRefused(ValidationRefusal):
    """The player was not added, changed or deleted; per field when a field is the reason."""


@transaction.atomic
def add_player(player: Player, user, key: str | None = None) -> Player:
    """Register one player (already validated), or add a walk-on as standby at the desk
    (``waiting`` standby, checked in: plays if a place is free at the draw, issue 49 item 2);
    a repeat of the form adds nobody."""
    earlier = claim(key, user)
    if earlier is not None:
        return Player.objects.get(pk=earlier.outcome["player"])
    player.event.locked()
    if player.ref and player.event.players.filter(ref=player.ref).exists():
        # Checked again under the event's lock: the same id typed at two desks at once.
        raise PlayerRefused(
            {"ref": _("Another player of this event has id %(ref)s.") % {"ref": player.ref}}
        )
    player.save()
    if player.waiting == Waiting.STANDBY:
        log_action(player.event, "player.standby_added", user, player=player.name)
    else:
        log_action(player.event, "players.added", user, count=1)
    settle(key, player=player.pk)
    return player


# What a director may change of a player, each with the word the history and the page say it
# with, in the language of whoever made the change.
EDITABLE = {
    "name": gettext_lazy("name"),
    "ref": gettext_lazy("id"),
    "club": gettext_lazy("club"),
    "division": gettext_lazy("division"),
    "keep_apart": gettext_lazy("keep apart group"),
    "birth_date": gettext_lazy("birth date"),
    "out_of_district": gettext_lazy("out of district"),
}


def shown_value(value) -> str:
    """A field's value as the history says it: yes or no, a date in ISO, "–" for nothing."""
    if isinstance(value, bool):
        return str(_("yes") if value else _("no"))
    if isinstance(value, datetime.date):
        return value.isoformat()
    return value or "–"


@transaction.atomic
def edit_player(player: Player, values: dict, user, key: str | None = None) -> list[str]:
    """Change a player's name, id, club or division (already validated), at any time: every
    page reads the player's row, so the change shows everywhere. The history keeps the old
    and the new values. Returns what changed ("name: Ann → Anne"); a repeat of the form's key
    changes nothing more.
    """
    event = player.event.locked()
    earlier = claim(key, user)
    if earlier is not None:
        return earlier.outcome.get("changes", [])
    player = Player.objects.select_for_update().get(pk=player.pk)
    ref = values.get("ref", player.ref)
    if ref and event.players.filter(ref=ref).exclude(pk=player.pk).exists():
        raise PlayerRefused(
            {"ref": _("Another player of this event has id %(ref)s.") % {"ref": ref}}
        )
    changes = []
    for attr, label in EDITABLE.items():
        if attr in values and values[attr] != getattr(player, attr):
            changes.append(
                labelled(
                    label, f"{shown_value(getattr(player, attr))} → {shown_value(values[attr])}"
                )
            )
            setattr(player, attr, values[attr])
    if changes:
        old_name = Player.objects.filter(pk=player.pk).values_list("name", flat=True).get()
        player.save()
        log_edited(event, user, player, old_name, changes)
    settle(key, changes=changes)
    return changes


def log_edited(event: Event, user, player: Player, old_name: str, changes: list[str]) -> None:
    """The history's entry for a player edited (by hand or by a list's import): what changed,
    and the old name when it changed."""
    renamed = {"renamed_from": old_name} if old_name != player.name else {}
    log_action(
        event,
        "player.edited",
        user,
        player=old_name,
        player_pk=player.pk,
        changes=semicolons(changes),
        **renamed,
    )


def has_played(player: Player) -> bool:
    """Whether the player was ever seated: a seat in a stage, a score or an infraction (the
    scoring app's rows hang off the player). Such a player can withdraw, not be deleted."""
    return (
        player.seats.exists()
        or player.scores.exists()  # a seat removed since (withdrawn) leaves its rounds
        or player.infractions.exists()
    )


def deleted_player_name(event: Event, pk: int) -> str | None:
    """The name of the event's player ``pk`` when deleted (as the history has it), or None."""
    gone = event.actions.filter(verb="player.deleted", data__player_pk=pk).first()
    return None if gone is None else gone.data.get("player", "")


@transaction.atomic
def delete_player(event: Event, pk: int, user, key: str | None = None) -> tuple[str, bool]:
    """Delete a player registered by mistake (a repeated row, a wrong name), who has never
    been seated; the history keeps who it was. Returns the player's name, and False when the
    player was deleted already (a double post, a second device): nothing more happens.
    Refused (``PlayerRefused``) for a player who was seated; ``Player.DoesNotExist`` for no
    player of the event, now or before."""
    event = event.locked()
    earlier = claim(key, user)
    if earlier is not None:
        return earlier.outcome.get("name", ""), False
    player = event.players.select_for_update().filter(pk=pk).first()
    if player is None:
        name = deleted_player_name(event, pk)
        if name is None:
            raise Player.DoesNotExist
        return name, False
    if has_played(player):
        raise PlayerRefused(_("%(name)s has played: withdraw instead.") % {"name": player.name})
    log_action(
        event,
        "player.deleted",
        user,
        player=player.name,
        player_pk=player.pk,
        ref=player.ref or "–",
        club=player.club or "–",
    )
    player.delete()
    fill_places(event, user)  # a place under the sign-up's capacity may be free
    settle(key, name=player.name)
    return player.name, True


@transaction.atomic
def check_in(event: Event, player_ids, checked_in: bool, user) -> int:
    """Check players in (or out); returns how many of the event's players were changed.

    Setting a state is the same twice over, so a repeated post changes nothing more.
    """
    event = event.locked()
    changing = event.players.filter(pk__in=player_ids).exclude(checked_in=checked_in)
    names = list(changing.alphabetical().values_list("name", flat=True))
    count = changing.update(checked_in=checked_in)
    if count:
        verb = "players.checked_in" if checked_in else "players.checked_out"
        log_action(event, verb, user, count=count, players=names)  # the history names them
    return count


class UncheckRefused(Refusal):
    """The player stays checked in; the message says why."""


def seated_in(player: Player) -> list[str]:
    """The stages the player is seated in, by name in the reader's language."""
    seats = player.seats.select_related(
        "stage__playoff_table__stage", "stage__wildcards_of"
    ).order_by("stage__number")
    return [seat.stage.title for seat in seats]


@transaction.atomic
def uncheck_in(player: Player, user, reason: str, key: str | None = None) -> bool:
    """Take back a player's check-in while the player is seated nowhere; returns whether the
    player was checked in and is now out."""
    reason = (reason or "").strip()
    if not reason:
        raise UncheckRefused(_("Give the reason."))
    event = player.event.locked()
    if claim(key, user) is not None:
        return False
    player = Player.objects.select_for_update().get(pk=player.pk)
    if not player.checked_in:
        return False
    stages = seated_in(player)
    if stages:
        raise UncheckRefused(
            _("%(p)s is seated in %(s)s: the check-in stays.")
            % {"p": player.name, "s": ", ".join(stages)}
        )
    player.checked_in = False
    player.save(update_fields=["checked_in"])
    log_action(event, "player.unchecked_in", user, reason=reason, player=player.name)
    return True
