"""Director undos of the registration desk (issue 22): un-check-in a player checked in by
mistake, before the player is seated. With a reason kept in the event's history; once however
often it is sent (the form's key, and a second device finds the player already out)."""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext as _

from tournament.history import claim, log_action
from tournament.models import Player


class UncheckRefused(Exception):
    """The player stays checked in; the message says why."""


def seated_in(player: Player) -> list[str]:
    """The stages the player is seated in, by name."""
    return list(player.seats.order_by("stage__number").values_list("stage__name", flat=True))


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
