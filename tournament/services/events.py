"""Writes about events, one function per director action, each in a transaction: create (with
a free slug), edit, archive, delete, and a scorekeeper given tables."""

from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import IntegrityError, transaction
from django.utils.text import slugify
from django.utils.translation import gettext_lazy

from tournament.game.formats import Format
from tournament.history import claim, log_action, setting_changes, settle
from tournament.models import Event, Stage, StageKind, Table
from tournament.services.signup import fill_places
from tournament.stage_names import say

# Named in the language of the director who creates the event (a stage's name is stored).
# (name in the creating director's language, the parts it is made of: tournament/stage_names.py)
DEFAULT_STAGES = [
    (gettext_lazy("Game 1"), StageKind.QUALIFYING, {"kind": "game", "n": 1}),
    (gettext_lazy("Final"), StageKind.FINAL, {"kind": "final"}),
]


def planned_stages(fmt: Format) -> list[tuple[str, str, dict]]:
    """The stages an event of format ``fmt`` starts with (PRODUCT.md §12): Game 1 and the Final
    of a knockout; a cumulative event's games (and its Final) from the start. Named in the
    active language, as stored."""
    if not fmt.is_cumulative:
        return [(str(name), kind, parts) for name, kind, parts in DEFAULT_STAGES]
    stages = [
        (say({"kind": "game", "n": n}), StageKind.QUALIFYING, {"kind": "game", "n": n})
        for n in range(1, fmt.games + 1)
    ]
    if fmt.has_final:
        stages.append((say({"kind": "final"}), StageKind.FINAL, {"kind": "final"}))
    return stages


def _create_stages(event: Event) -> None:
    for number, (name, kind, parts) in enumerate(planned_stages(event.format), start=1):
        Stage.objects.create(event=event, number=number, name=name, kind=kind, auto_name=parts)


def sync_stages(event: Event, user=None) -> bool:
    """Give an event whose format changed before anything was seated the stages of its new
    format; returns whether they changed. Once a table is seated the stages stay (the form
    refuses a new format then)."""
    if Table.objects.filter(stage__event=event).exists():
        return False
    have = [(s.name, s.kind) for s in event.stages.order_by("number")]
    if have == [(name, kind) for name, kind, _parts in planned_stages(event.format)]:
        return False
    event.stages.all().delete()
    _create_stages(event)
    log_action(event, "event.stages_planned", user, stages=event.stages.count())
    return True


# How many times a new event tries the next free short name when another director's event
# took the one it picked in the meantime (two events of the same name created at once).
SLUG_ATTEMPTS = 10


def unique_slug(name: str, date) -> str:
    words = slugify(name)
    if str(date.year) not in words.split("-"):  # "Spring Open 2026" says its year already
        words = slugify(f"{name} {date.year}")
    base = words[:70] or "event"
    slug, n = base, 2
    while Event.objects.filter(slug=slug).exists():
        slug, n = f"{base}-{n}", n + 1
    return slug


def _insert_with_free_slug(event: Event) -> None:
    """Insert a new event under the next free short name. The name is checked, then inserted:
    an event of the same name created at the same moment may take it in between, so the insert
    runs in a savepoint and, refused by the unique constraint, picks the next free name."""
    for attempt in range(1, SLUG_ATTEMPTS + 1):
        event.slug = unique_slug(event.name, event.date)
        try:
            with transaction.atomic():
                event.save(force_insert=True)
            return
        except IntegrityError:
            event.pk = None
            if attempt == SLUG_ATTEMPTS:
                raise


@transaction.atomic
def create_event(event: Event, director, key: str | None = None) -> Event:
    """Save a new event with the stages its format starts with (``planned_stages``); its
    creator directs it.

    ``key``: the form's key; a repeat of it answers with the event the first post created.
    """
    earlier = claim(key, director)
    if earlier is not None:
        return Event.objects.get(pk=earlier.outcome["event"])
    if event.slug:
        event.save()
    else:
        _insert_with_free_slug(event)
    if director is not None:
        event.directors.add(director)
    _create_stages(event)
    log_action(event, "event.created", director)
    settle(key, event=event.pk)
    return event


@transaction.atomic
def update_event(event: Event, user) -> Event:
    """Save a director's changes to the event's details or rules (already validated)."""
    before = event.locked()
    # never write back a version read before
    event.version, event.shared_version = before.version, before.shared_version
    event.save()
    log_action(event, "event.edited", user, fields=setting_changes(before, event))
    if before.format != event.format:
        sync_stages(event, user)
    fill_places(event, user)  # a larger capacity takes the first on the waitlist
    return event


@transaction.atomic
def hold_results(event: Event, held: bool, user) -> bool:
    """Hold the event's standings and results back from the public, or release them (issue 49
    item 4: an event that announces its medals at a ceremony). Setting a state: a repeat (a
    double click, a second director) changes nothing. Returns whether it changed."""
    event = event.locked()
    if event.results_held == held:
        return False
    event.results_held = held
    event.save(update_fields=["results_held"])
    log_action(event, "event.results_held" if held else "event.results_released", user)
    return True


@transaction.atomic
def set_archived(event: Event, archived: bool, user) -> None:
    """Archive an event (left off the home page's list, public by its address) or list it
    again."""
    event = event.locked()
    if event.archived != archived:
        event.archived = archived
        event.save(update_fields=["archived"])
        log_action(event, "event.archived" if archived else "event.unarchived", user)


@transaction.atomic
def delete_event(event: Event, user, key: str | None = None) -> str:
    """Delete an event and everything in it; returns its name. A repeat of the form deletes
    nothing more."""
    earlier = claim(key, user)
    if earlier is not None:
        return earlier.outcome.get("name", "")
    event = event.locked()
    name = event.name
    event.delete()
    settle(key, name=name)
    return name


@transaction.atomic
def assign_scorekeeper(event: Event, username: str, tables, by=None) -> tuple[object, str | None]:
    """Give ``tables`` to the scorekeeper ``username``; a new one gets a login.

    Returns the user and, for a new login, its password (shown once to the director).
    """
    user, created = get_user_model().objects.get_or_create(username=username)
    password = None
    if created:
        password = secrets.token_urlsafe(9)
        user.set_password(password)
        user.save()
        group, _ = Group.objects.get_or_create(name="Scorekeepers")
        user.groups.add(group)
    for table in tables:
        table.scorekeepers.add(user)
    log_action(event, "scorekeeper.assigned", by, username=username, count=len(tables))
    return user, password
