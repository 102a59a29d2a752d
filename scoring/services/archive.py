"""A director says two players of different events are (or are not) the same person (issue 16
item 3): the links scoring/archive.py reads with the registration ids."""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext as _

from scoring.models import PersonLink
from tournament.history import log_action
from tournament.models import Event, Player


def link_same_person(player: Player, other: Player, user) -> bool:
    """Say ``player`` and ``other`` (another event's) are the same person; False when they were
    already linked (a repeated post links once)."""
    if other.event_id == player.event_id:
        raise ValueError(_("Two players of one event are two people."))
    first, second = sorted((player, other), key=lambda p: p.pk)
    with transaction.atomic():
        Event.objects.select_for_update().get(pk=player.event_id)
        _link, created = PersonLink.objects.get_or_create(
            first=first, second=second, defaults={"made_by": user}
        )
        if created:
            log_action(
                player.event, "player.linked", user, player=player.name, other=str(other.event)
            )
    return created


def unlink_same_person(player: Player, other: Player, user) -> bool:
    first, second = sorted((player, other), key=lambda p: p.pk)
    with transaction.atomic():
        Event.objects.select_for_update().get(pk=player.event_id)
        removed, _ = PersonLink.objects.filter(first=first, second=second).delete()
        if removed:
            log_action(
                player.event, "player.unlinked", user, player=player.name, other=str(other.event)
            )
    return bool(removed)
