"""Writes of the tournament app: one function per director action, each in a transaction."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from tournament.history import claim, log_action, setting_changes, settle
from tournament.models import Event, Player, Stage, StageKind
from tournament.registration import Entry, Sheet, entries, parse_brackets
from tournament.text import name_key

# Named in the language of the director who creates the event (a stage's name is stored).
# (name in the creating director's language, the parts it is made of: tournament/stage_names.py)
DEFAULT_STAGES = [
    (gettext_lazy("Game 1"), StageKind.QUALIFYING, {"kind": "game", "n": 1}),
    (gettext_lazy("Final"), StageKind.FINAL, {"kind": "final"}),
]


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
    """Save a new event with its default stages (Game 1, then Final); its creator directs it.

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
    for number, (name, kind, parts) in enumerate(DEFAULT_STAGES, start=1):
        Stage.objects.create(event=event, number=number, name=str(name), kind=kind, auto_name=parts)
    log_action(event, "event.created", director)
    settle(key, event=event.pk)
    return event


@transaction.atomic
def update_event(event: Event, user) -> Event:
    """Save a director's changes to the event's details or rules (already validated)."""
    before = event.locked()
    event.version = before.version  # never write back a version read before
    event.save()
    log_action(event, "event.edited", user, fields=setting_changes(before, event))
    return event


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
def add_player(player: Player, user, key: str | None = None) -> Player:
    """Register one player (already validated); a repeat of the form adds nobody."""
    earlier = claim(key, user)
    if earlier is not None:
        return Player.objects.get(pk=earlier.outcome["player"])
    player.event.locked()
    if player.ref and player.event.players.filter(ref=player.ref).exists():
        # Checked again under the event's lock: the same id typed at two desks at once.
        raise ValidationError(
            {"ref": _("Another player of this event has id %(ref)s.") % {"ref": player.ref}}
        )
    player.save()
    log_action(player.event, "players.added", user, count=1)
    settle(key, player=player.pk)
    return player


EDITABLE = {"name": "name", "ref": "id", "club": "club", "division": "division"}


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
        raise ValidationError(
            {"ref": _("Another player of this event has id %(ref)s.") % {"ref": ref}}
        )
    changes = []
    for attr, label in EDITABLE.items():
        if attr in values and values[attr] != getattr(player, attr):
            changes.append(f"{label}: {getattr(player, attr) or '–'} → {values[attr] or '–'}")
            setattr(player, attr, values[attr])
    if changes:
        old_name = Player.objects.filter(pk=player.pk).values_list("name", flat=True).get()
        player.save()
        renamed = {"renamed_from": old_name} if old_name != player.name else {}
        log_action(
            event,
            "player.edited",
            user,
            player=old_name,
            player_pk=player.pk,
            changes="; ".join(changes),
            **renamed,
        )
    settle(key, changes=changes)
    return changes


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
    Refused (``ValidationError``) for a player who was seated; ``Player.DoesNotExist`` for no
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
        raise ValidationError(_("%(name)s has played: withdraw instead.") % {"name": player.name})
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


LIMITS = {f: Player._meta.get_field(f).max_length for f in ("name", "ref", "club", "division")}


@dataclass
class ImportChoices:
    """What the director decided in the preview, by line: divisions typed over the computed
    ones, registered players to add anyway, changed names and clubs to apply; and whether the
    rows with problems are skipped."""

    divisions: dict[int, str] = field(default_factory=dict)
    add_anyway: set[int] = field(default_factory=set)
    apply: set[int] = field(default_factory=set)
    skip_problems: bool = False


@dataclass
class ImportResult:
    created: int = 0
    changed: int = 0
    skipped: int = 0
    errors: list[str] = field(default_factory=list)


def preview_import(
    event: Event, sheet: Sheet, mapping: dict, choices: ImportChoices | None = None
) -> list[Entry]:
    """Each row of the list as the player it would register, checked against the event's
    players (registered already, changed since, new) and the director's choices."""
    choices = choices or ImportChoices()
    try:
        brackets = parse_brackets(event.age_brackets)
    except ValueError:
        brackets = []
    rows = entries(sheet, mapping, brackets, event.age_day, LIMITS)
    for entry in rows:
        if entry.line in choices.divisions:
            entry.division = choices.divisions[entry.line].strip()[: LIMITS["division"]]
    registered = list(event.players.values_list("pk", "ref", "name", "club", "search_key"))
    by_ref = {ref: (pk, name, club) for pk, ref, name, club, _ in registered if ref}
    by_name = {(key, club.casefold()): pk for pk, _, _, club, key in registered}
    for entry in rows:
        if entry.ref and entry.ref in by_ref:
            pk, name, club = by_ref[entry.ref]
            entry.match = pk
            same = name == entry.name and (club == entry.club or not entry.club)
            entry.status = "same" if same else "changed"
        elif (name_key(entry.name), entry.club.casefold()) in by_name:
            entry.match = by_name[name_key(entry.name), entry.club.casefold()]
            entry.status = "same"
        elif entry.repeats is not None:
            entry.status = "repeat"
    return rows


def adds_player(entry: Entry, choices: ImportChoices) -> bool:
    """Whether confirming the preview registers this row as a new player: a new row without
    problems, or a registered one or a repeat of an earlier row that the director ticked."""
    if entry.problems or entry.status == "changed":
        return False
    return entry.status == "new" or entry.line in choices.add_anyway


def import_problems(rows: list[Entry], choices: ImportChoices) -> list[str]:
    """What stops the import: rows with problems, unless the director skips them."""
    if choices.skip_problems:
        return []
    return [
        _("Line %(line)s: %(problems)s.") % {"line": e.line, "problems": "; ".join(e.problems)}
        for e in rows
        if e.problems
    ]


@transaction.atomic
def import_registration(
    event: Event, sheet: Sheet, mapping: dict, choices: ImportChoices, user=None, key=None
) -> ImportResult:
    """Register the previewed list, in one transaction: the new players, the registered ones
    the director adds anyway, the changed names and clubs the director applies. Nothing is
    saved while a row has a problem (unless skipped). The mapping is remembered for the
    event. A repeat of the form's key imports nothing more."""
    earlier = claim(key, user)
    if earlier is not None:
        return ImportResult(**earlier.outcome)
    event = event.locked()
    rows = preview_import(event, sheet, mapping, choices)
    errors = import_problems(rows, choices)
    if not errors and not rows:
        errors = [_("The list has no players.")]
    taken = set(event.players.exclude(ref="").values_list("ref", flat=True))
    new, changed, skipped = [], 0, 0
    for e in rows:
        if e.problems:
            skipped += 1
            continue
        if e.status == "changed" and e.line in choices.apply:
            player = Player.objects.select_for_update().get(pk=e.match)
            changes = [
                f"{label}: {getattr(player, f) or '–'} → {value or '–'}"
                for f, label, value in (("name", "name", e.name), ("club", "club", e.club))
                if value and value != getattr(player, f)
            ]
            if changes:
                old_name = player.name
                player.name, player.club = e.name, e.club or player.club
                player.save()
                renamed = {"renamed_from": old_name} if old_name != player.name else {}
                log_action(
                    event,
                    "player.edited",
                    user,
                    player=old_name,
                    player_pk=player.pk,
                    changes="; ".join(changes),
                    **renamed,
                )
                changed += 1
            continue
        if not adds_player(e, choices):
            skipped += 1
            continue
        ref = e.ref
        if ref and ref in taken:
            if e.status == "new":
                errors.append(
                    _("Line %(line)s: id %(ref)s is already used.") % {"line": e.line, "ref": ref}
                )
            ref = ""  # added anyway: the registered player keeps the id
        if ref:
            taken.add(ref)
        new.append(Player(event=event, name=e.name, ref=ref, club=e.club, division=e.division))
    if errors:
        transaction.set_rollback(True)
        return ImportResult(errors=errors)
    Player.objects.bulk_create(new)
    headers = {
        role: sheet.header[i]
        for role, i in mapping.items()
        if i is not None and i < len(sheet.header)
    }
    Event.objects.filter(pk=event.pk).update(import_mapping=headers)
    if new:
        log_action(event, "players.added", user, count=len(new))
    result = ImportResult(created=len(new), changed=changed, skipped=skipped)
    settle(key, created=result.created, changed=result.changed, skipped=result.skipped)
    return result


@transaction.atomic
def assign_scorekeeper(event: Event, username: str, tables, by=None) -> tuple[object, str | None]:
    """Give ``tables`` to the scorekeeper ``username``; a new one gets a login.

    Returns the user and, for a new login, its password (shown once to the director).
    """
    import secrets

    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

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
