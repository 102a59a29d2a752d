"""Registration lists into an event (PRODUCT.md §2): a list read as a preview, the director's
choices, then imported exactly once; a list too large for a request (issue 27) read by a
background task. tournament/registration.py reads the lists; this module writes.

A list up to ``REGISTRATION_IN_REQUEST_BYTES`` is read within the request. A larger one (up to
2 MB) becomes a ``ListReading``: a background task (tournament/tasks.py) reads it within the
same limits, and its page shows how far it got, then the same preview, or why the list was
refused. No web worker waits."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from tournament.history import claim, log_action, settle
from tournament.models import Event, ListReading, ListReadingStatus, Player
from tournament.registration import (
    Entry,
    ReadError,
    Sheet,
    entries,
    parse_brackets,
    read_list,
    stored,
)
from tournament.services.players import EDITABLE, log_edited
from tournament.text import labelled, name_key, semicolons

logger = logging.getLogger(__name__)


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
        _("Line %(line)s: %(problems)s.") % {"line": e.line, "problems": semicolons(e.problems)}
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
                labelled(label, f"{getattr(player, f) or '–'} → {value or '–'}")
                for f, label, value in (
                    ("name", EDITABLE["name"], e.name),
                    ("club", EDITABLE["club"], e.club),
                )
                if value and value != getattr(player, f)
            ]
            if changes:
                old_name = player.name
                player.name, player.club = e.name, e.club or player.club
                player.save()
                log_edited(event, user, player, old_name, changes)
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
        new.append(
            Player(
                event=event,
                name=e.name,
                ref=ref,
                club=e.club,
                division=e.division,
                birth_date=e.birth,
                out_of_district=e.out_of_district,
            )
        )
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


def start_reading(event, user, data: bytes, key: str) -> ListReading:
    """The reading of an uploaded list, queued; the director's earlier readings for the event,
    read or not, are dropped (nothing is kept that no preview will show). A repeat of the form
    (``key``: a double click, a retry) answers the reading the first post queued."""
    from tournament.tasks import read_registration_list

    with transaction.atomic():
        earlier = claim(key, user)
        if earlier is not None:
            reading = ListReading.objects.filter(pk=earlier.outcome.get("reading")).first()
            if reading is not None:
                return reading
        # A new list replaces the director's earlier ones for the event, as in the session.
        ListReading.objects.filter(event=event, by=user).delete()
        reading = ListReading.objects.create(
            event=event, by=user, data=data, language=translation.get_language() or ""
        )
        settle(key, reading=reading.pk)
        reading_id = reading.pk
        transaction.on_commit(lambda: read_registration_list.enqueue(reading_id))
    return reading


def read_later(reading_id: int) -> None:
    """Read a queued list (the task); keep the list as read, or why it was refused; drop the
    file. A task run twice reads once."""
    if not ListReading.objects.filter(pk=reading_id, status=ListReadingStatus.QUEUED).update(
        status=ListReadingStatus.READING
    ):
        return
    reading = ListReading.objects.get(pk=reading_id)
    try:
        with translation.override(reading.language or None):
            try:
                outcome = {
                    "status": ListReadingStatus.DONE,
                    "sheet": stored(read_list(bytes(reading.data))),
                }
            except ReadError as error:
                outcome = {"status": ListReadingStatus.FAILED, "error": str(error)}
    except Exception:  # noqa: BLE001 (the page says it failed; the log has why)
        logger.exception("Reading of registration list %s failed", reading_id)
        outcome = {"status": ListReadingStatus.FAILED, "error": ""}
    ListReading.objects.filter(pk=reading_id).update(
        data=None, finished_at=timezone.now(), **outcome
    )


def take_reading(reading: ListReading) -> dict | None:
    """The list as read, handed once to the director's preview (which keeps it in the
    session from then on): the reading keeps no copy."""
    with transaction.atomic():
        sheet = (
            ListReading.objects.select_for_update()
            .filter(pk=reading.pk)
            .values_list("sheet", flat=True)
            .first()
        )
        ListReading.objects.filter(pk=reading.pk).update(sheet=None)
    return sheet
