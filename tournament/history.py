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

import datetime

from django.core.exceptions import FieldDoesNotExist
from django.db import IntegrityError, transaction
from django.db.models import DateTimeField, F
from django.dispatch import Signal
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.text import capfirst
from django.utils.translation import gettext as gettext_now
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from tournament.models import Action, Event, Stage, Submission, Table
from tournament.stage_names import say

# Sent after the commit of a write to an event: ``event_id``, ``stage_id`` (or None), ``verb``.
event_changed = Signal()
# Sent by the hall's server (tournament/hall_server.py) when it is ready and when it has
# stopped: what listens to ``event_changed`` catches up on what a killed process left undone.
# Each receiver returns how many files it wrote (backups: scoring/tasks.py).
catch_up = Signal()

# The sentence of each verb; ``data`` fills it in. A new kind of action adds one line here.
VERBS = {
    "event.created": _("Event created"),
    "event.edited": _("Event details or rules changed"),
    "event.stages_planned": _("The stages planned again for the new format (%(stages)s)"),
    "players.added": ngettext_lazy("%(count)s player added", "%(count)s players added", "count"),
    "players.checked_in": ngettext_lazy(
        "%(count)s player checked in", "%(count)s players checked in", "count"
    ),
    "players.checked_out": ngettext_lazy(
        "%(count)s player checked out", "%(count)s players checked out", "count"
    ),
    "player.checked_in": _("%(player)s checked in"),
    "player.checked_out": _("%(player)s checked out"),
    "player.edited": _("Player %(player)s changed: %(changes)s"),
    "player.deleted": _("Player deleted: %(player)s (id %(ref)s, club %(club)s)"),
    "player.withdrew": _("%(player)s withdrew"),
    "player.reinstated": _("%(player)s's withdrawal taken back"),
    "stage.late_arrival": _(
        "%(stage)s: %(player)s arrived late, joins table %(table)s at round %(round)s"
    ),
    "event.archived": _("Event archived"),
    "event.unarchived": _("Event listed again"),
    "stage.seated": ngettext_lazy(
        "%(stage)s seated at %(tables)s table", "%(stage)s seated at %(tables)s tables", "tables"
    ),
    "stage.unseated": ngettext_lazy(
        "%(stage)s: seating removed (%(tables)s table)",
        "%(stage)s: seating removed (%(tables)s tables)",
        "tables",
    ),
    "stage.published": ngettext_lazy(
        "%(stage)s: seating published (%(tables)s table)",
        "%(stage)s: seating published (%(tables)s tables)",
        "tables",
    ),
    "event.results_released": _("Standings and results released to the public"),
    "event.results_held": _("Standings and results held back from the public"),
    "stage.player_moved": _("%(stage)s: %(player)s moved to table %(table)s"),
    "stage.closed": _("%(stage)s closed"),
    "stage.created": _("%(stage)s created"),
    "stage.removed": _("%(name)s removed"),
    "stage.correction_applied": _(
        "%(stage)s: corrected advancers seated (%(into)s instead of %(out)s); "
        "tables to replay: %(tables)s"
    ),
    "stage.seating_kept": _("%(stage)s: published seating kept despite a correction"),
    "stage.seated_on_old_totals": _(
        "%(stage)s was seated on the totals before the correction of table %(table)s (%(source)s)"
    ),
    "stage.size_allowed": _("%(stage)s: tables of %(size)s allowed"),
    "clock.start": _("%(stage)s: clock started"),
    "clock.pause": _("%(stage)s: clock paused"),
    "clock.resume": _("%(stage)s: clock resumed"),
    "clock.call_time": _("%(stage)s: time called"),
    "clock.undo_call": _("%(stage)s: time called taken back"),
    "clock.add_minutes": ngettext_lazy(
        "%(stage)s: %(minutes)s minute added to the clock",
        "%(stage)s: %(minutes)s minutes added to the clock",
        "minutes",
    ),
    "table.minutes_added": ngettext_lazy(
        "%(stage)s, table %(table)s: %(minutes)s minute added to its clock (%(total)s min in all)",
        "%(stage)s, table %(table)s: %(minutes)s minutes added to its clock (%(total)s min in all)",
        "minutes",
    ),
    "table.minutes_removed": ngettext_lazy(
        "%(stage)s, table %(table)s: %(minutes)s minute taken off its clock (%(total)s min left)",
        "%(stage)s, table %(table)s: %(minutes)s minutes taken off its clock (%(total)s min left)",
        "minutes",
    ),
    "round.saved": _("%(stage)s, table %(table)s: round %(engine)s-%(engine)s saved"),
    "round.corrected": ngettext_lazy(
        "%(stage)s, table %(table)s: round %(engine)s-%(engine)s corrected "
        "(%(changes)s score changed)",
        "%(stage)s, table %(table)s: round %(engine)s-%(engine)s corrected "
        "(%(changes)s scores changed)",
        "changes",
    ),
    "table.game_over": _("%(stage)s, table %(table)s: game over after round %(rounds)s"),
    # rounds are named by their engine, as the sheet names them (an older entry has no engine)
    "table.game_over.engine": _(
        "%(stage)s, table %(table)s: game over after round %(engine)s-%(engine)s"
    ),
    "table.game_reopened": _("%(stage)s, table %(table)s: game reopened"),
    "round.removed": _("%(stage)s, table %(table)s: round %(engine)s-%(engine)s removed"),
    "infraction.logged": _("%(stage)s, table %(table)s: infraction of %(player)s logged"),
    "infraction.changed": _("%(stage)s, table %(table)s: infraction of %(player)s now %(action)s"),
    "scorekeeper.assigned": ngettext_lazy(
        "%(username)s keeps the score of %(count)s table",
        "%(username)s keeps the score of %(count)s tables",
        "count",
    ),
    "stage.reopened": _("%(stage)s reopened; seating removed: %(unseated)s"),
    "playoff.removed": _("%(name)s removed (created by mistake)"),
    "player.unchecked_in": _("%(player)s: check-in undone"),
    "table.device_joined": _("%(stage)s, table %(table)s: a phone joined (%(device)s)"),
    "round.confirmed": _("%(stage)s, table %(table)s: round %(engine)s-%(engine)s confirmed"),
    "round.sent_back": _("%(stage)s, table %(table)s: round %(engine)s-%(engine)s sent back"),
    "table.code_reissued": _("%(stage)s, table %(table)s: new table code"),
    "table.photo_added": _("%(stage)s, table %(table)s: photo of the sheet added"),
    "table.photo_removed": _("%(stage)s, table %(table)s: photo of the sheet removed"),
    "stage.closed_unconfirmed": ngettext_lazy(
        "%(stage)s closed with %(count)s round not confirmed",
        "%(stage)s closed with %(count)s rounds not confirmed",
        "count",
    ),
    "infraction.reported": _("%(stage)s, table %(table)s: infraction of %(player)s reported"),
    "infraction.report_dismissed": _(
        "%(stage)s, table %(table)s: reported infraction of %(player)s dismissed"
    ),
    "player.linked": _("%(player)s: the same person as in %(other)s"),
    "player.unlinked": _("%(player)s: no longer linked to %(other)s"),
    "player.not_same": _("%(player)s: not the same person as in %(other)s"),
    "series.event_added": _("Added to the series %(series)s"),
    "series.event_removed": _("Taken out of the series %(series)s"),
    "signup.registered": _("%(player)s signed up on the event's page"),
    "signup.pending": _("%(player)s signed up on the event's page, awaiting approval"),
    "signup.waitlisted": _("%(player)s signed up on the event's page: on the waitlist"),
    "signup.promoted": _("%(player)s takes a place, from the waitlist"),
    "player.standby_added": _("%(player)s added at the desk as standby"),
    "player.standby_seated": _("%(player)s, standby, takes a no-show's place at the draw"),
    "signup.approved": _("%(player)s's sign-up approved"),
    "signup.withdrew": _("%(player)s withdrew, from their sign-up link"),
}


# The verbs that change one table's own page alone, its sheet (they name the table): a table's
# page keys on its table's ``version`` and the event's ``shared_version`` (TableSheetView), which
# every other write bumps. Not the infractions: a warning can count across the event.
TABLE_VERBS = frozenset(
    {
        "round.saved",
        "round.corrected",
        "round.removed",
        "round.confirmed",
        "round.sent_back",
        "table.game_over",
        "table.game_reopened",
        "table.device_joined",
        "table.code_reissued",
        "table.photo_added",
        "table.photo_removed",
    }
)


class _Known(dict):
    """An entry's data; a value an older entry did not record reads "?"."""

    def __missing__(self, key):
        return "?"


def describe(action: Action) -> str:
    """The entry as a sentence in the active language."""
    template = VERBS.get(action.verb)
    if action.verb == "table.game_over" and "engine" in action.data:
        template = VERBS["table.game_over.engine"]
    if template is None:
        return action.verb
    data = dict(action.data)
    stage = action.stage if action.stage_id else None
    if stage is not None and data.get("stage") == stage.name:
        data["stage"] = stage.title  # a name the site made, in the reader's language
    if data.get("source_parts"):  # another stage the entry names, as the site named it
        data["source"] = say(data["source_parts"]) or data.get("source", "?")
    if isinstance(data.get("action"), str):  # an infraction's action, kept in English
        data["action"] = gettext_now(data["action"])
    try:
        return str(template % _Known(data))
    except (TypeError, ValueError):
        return str(template % _Known())


def who(action: Action) -> str:
    """Who did it: the director's or scorekeeper's login, or the phone of the player who said
    they hold it (a round entered, confirmed or sent back from a table's phone)."""
    if action.by_id is not None:
        return str(action.by)
    if action.data.get("phone"):
        return _("%(name)s's phone") % {"name": action.data["phone"]}
    if action.data.get("device"):
        return _("a player's phone")
    return "—"


def details(action: Action) -> list[str]:
    """The values behind the entry, one line each, in the active language: a correction's
    old → new pips per player, a removed or saved round's pips, an event setting's old → new.
    An entry written before these were kept has none."""
    data = action.data
    if action.verb == "round.corrected":
        return [
            _("%(player)s: %(old)s → %(new)s") % {"player": name, "old": old, "new": new}
            for name, (old, new) in data.get("scores", {}).items()
        ]
    if action.verb in ("round.removed", "round.saved", "round.sent_back"):
        return [
            _("%(player)s: %(pips)s") % {"player": name, "pips": pips}
            for name, pips in data.get("pips", {}).items()
        ]
    if action.verb in ("players.checked_in", "players.checked_out"):
        return list(data.get("players", []))
    if action.verb == "event.edited":
        return [
            _("%(field)s: %(old)s → %(new)s")
            % {
                "field": _setting_label(name),
                "old": _setting_value(name, old),
                "new": _setting_value(name, new),
            }
            for name, old, new in data.get("fields", [])
        ]
    return []


# The event's fields whose change is no setting a director made.
_NOT_SETTINGS = {"id", "version", "shared_version", "slug", "archived", "import_mapping"}


def setting_changes(before: Event, after: Event) -> list[list]:
    """[field, old, new] for each of the event's settings that differs (JSON values, shown
    with the field's label and choices by ``details``)."""
    out = []
    for field in Event._meta.concrete_fields:
        if field.name in _NOT_SETTINGS:
            continue
        old, new = field.value_from_object(before), field.value_from_object(after)
        if old != new:
            out.append([field.name, _json_value(old), _json_value(new)])
    return out


def _json_value(value):
    if isinstance(value, (str, int, float, bool, list, dict)) or value is None:
        return value
    return str(value)  # a date


def _setting_label(name: str) -> str:
    try:
        return capfirst(Event._meta.get_field(name).verbose_name)
    except FieldDoesNotExist:  # a field since removed
        return name


def _setting_value(name: str, value) -> str:
    try:
        field = Event._meta.get_field(name)
    except FieldDoesNotExist:
        field = None
    if value is None or value == "" or value == [] or value == {}:
        return "—"
    if field is not None and field.choices:
        return str(dict(field.flatchoices).get(value, value))
    if isinstance(field, DateTimeField) and isinstance(value, str):
        try:
            when = datetime.datetime.fromisoformat(value)
        except ValueError:
            return value
        return date_format(timezone.localtime(when), "DATETIME_FORMAT")  # the event's zone
    if isinstance(value, bool):
        return gettext_now("yes") if value else gettext_now("no")
    if isinstance(value, list):
        return ", ".join(map(str, value))
    if isinstance(value, dict):
        items = sorted(value.items(), key=lambda kv: (len(str(kv[0])), str(kv[0])))
        return ", ".join(f"{k}:{v}" for k, v in items)
    return str(value)


def changed(
    event: Event | int, stage: Stage | int | None = None, verb: str = "", table: int | None = None
) -> None:
    """Bump the event's (and stage's) version now; send ``event_changed`` after the commit.
    ``table``: the number of the stage's table that alone changed (a verb of TABLE_VERBS): its
    version goes up instead of what every table's page shows."""
    event_id = event if isinstance(event, int) else event.pk
    stage_id = stage if isinstance(stage, int) or stage is None else stage.pk
    events = Event.objects.filter(pk=event_id)
    if table is not None and stage_id is not None:
        events.update(version=F("version") + 1)
        Table.objects.filter(stage_id=stage_id, number=table).update(version=F("version") + 1)
    else:
        events.update(version=F("version") + 1, shared_version=F("shared_version") + 1)
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
    table = data.get("table") if verb in TABLE_VERBS else None
    changed(event, stage, verb, table if isinstance(table, int) else None)
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
