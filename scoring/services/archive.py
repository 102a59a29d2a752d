"""A director says two players of different events are (or are not) the same person (issue 16
item 3, issue 45 item 4): the links scoring/archive.py ``people`` reads with the names, clubs
and registration ids (tournament/game/people.py).

Each pair keeps the director's last word (``PersonLink.same``); every word said is written in
the history of both players' events (who, when, which way), which also moves both events'
versions, so everything computed from the people (a series' standings, the ratings) is read
again.
"""

from __future__ import annotations

from itertools import combinations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from scoring.archive import probable_people
from scoring.models import PersonLink, Series
from tournament.history import claim, log_action, settle
from tournament.models import Event, Player
from tournament.refusals import Refusal


class PersonRefusal(Refusal):
    """A "same person" word the site will not record; the message says why."""


def _lock(events) -> None:
    """The events' rows, locked in id order (two directors linking the same players from
    either side wait on each other, never deadlock)."""
    list(Event.objects.select_for_update().filter(pk__in=events).order_by("pk"))


def _say(player: Player, other: Player, same: bool, user) -> bool:
    """Record that ``player`` and ``other`` are (``same``) or are not the same person; False
    when that is already the pair's word (a repeated post writes nothing). The caller holds
    both events' locks."""
    if other.event_id == player.event_id:
        raise PersonRefusal(_("Two players of one event are two people."))
    first, second = sorted((player, other), key=lambda p: p.pk)
    by = user if getattr(user, "is_authenticated", False) else None
    link = PersonLink.objects.filter(first=first, second=second).first()
    if link is None:
        PersonLink.objects.create(first=first, second=second, same=same, made_by=by)
    elif link.same == same:
        return False
    else:
        PersonLink.objects.filter(pk=link.pk).update(same=same, made_by=by, made_at=timezone.now())
    verb = "player.linked" if same else "player.not_same"
    log_action(player.event, verb, user, player=player.name, other=str(other.event))
    log_action(other.event, verb, user, player=other.name, other=str(player.event))
    return True


def link_same_person(player: Player, other: Player, user) -> bool:
    """Say ``player`` and ``other`` (another event's) are the same person; False when they
    were already said to be (a repeated post links once)."""
    with transaction.atomic():
        _lock([player.event_id, other.event_id])
        return _say(player, other, True, user)


def keep_apart(player: Player, other: Player, user) -> bool:
    """Say ``player`` and ``other`` are not the same person, whatever their names and clubs
    say (an undone link, or two members of one name); False when already said."""
    with transaction.atomic():
        _lock([player.event_id, other.event_id])
        return _say(player, other, False, user)


def settle_probable(series: Series, keys: list[str], same: bool, user, key: str | None = None):
    """The series page's one step (issue 45): for each name of ``keys`` still offered as a
    probable match among the series' players (scoring/archive.py ``probable_people``), say
    its people are (``same``) or are not one person. Returns how many names were settled; a
    name no longer offered (settled by a first click, or changed meanwhile) is left alone, so
    a repeated post changes nothing. ``key``: the form's (a repeat answers as the first)."""
    with transaction.atomic():
        Series.objects.select_for_update().get(pk=series.pk)
        events = list(
            Event.objects.filter(series_entry__series=series)
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        _lock(events)
        if not series.is_director(user):
            raise PersonRefusal(_("Only the series' directors can do this."))
        earlier = claim(key, user)
        if earlier is not None:
            return earlier.outcome.get("settled", 0)
        wanted = set(keys)
        settled = 0
        for group in probable_people(list(Event.objects.filter(pk__in=events))):
            if group.key not in wanted:
                continue
            firsts = [players[-1] for players in group.people]  # each person's earliest
            # one person: each joined to the first; different people: every pair kept apart
            pairs = combinations(firsts, 2) if not same else ((firsts[0], o) for o in firsts[1:])
            for one, other in pairs:
                _say(one, other, same, user)
            settled += 1
        settle(key, settled=settled)
        return settled


def settled_message(settled: int, same: bool) -> str:
    if not settled:
        return _("Nothing left to settle: these players were settled already.")
    if same:
        return ngettext(
            "%(n)s name linked: its players are one person.",
            "%(n)s names linked: each one's players are one person.",
            settled,
        ) % {"n": settled}
    return ngettext(
        "%(n)s name kept apart: its players are different people.",
        "%(n)s names kept apart: each one's players are different people.",
        settled,
    ) % {"n": settled}
