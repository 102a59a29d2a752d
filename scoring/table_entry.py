"""Players score their own table (issue 15): the sheet's QR code opens the table's entry on a
phone, for that table and stage only, with no account; a round entered from a phone counts at
once and waits for a second player (another phone at the table, or a director) to confirm it
or send it back with a note.

A phone is a "device": a random id kept in its session, with the table codes it opened. A code
works while the event allows table entry and the stage is open; a reissued code shuts out the
phones that opened the old one.
"""

from __future__ import annotations

import secrets

from django.core.cache import cache
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from scoring.infractions import current_engine, log_infraction
from scoring.models import InfractionKind, InfractionReport, Round, TableDevice
from scoring.services import _locked, _refuse, take_off_last_round
from scoring.sheets import store_totals, table_sheet
from tournament.history import claim, log_action, settle
from tournament.models import CODE_LETTERS, Action, Stage, StageKind, Table, new_table_code

DEVICE = "table_device"  # session: this phone's id
CODES = "table_codes"  # session: {table id: the code it was opened with}
TRIES_PER_HOUR = 30  # wrong codes a phone (an address) may try in an hour


def clean_code(text: str) -> str:
    """A typed or scanned code, as stored: upper case, no spaces; "" when it cannot be one."""
    code = "".join(text.split()).upper()
    return code if len(code) == 6 and all(c in CODE_LETTERS for c in code) else ""


def table_for_code(code: str) -> Table | None:
    """The table a code opens: the event allows table entry and the stage is open."""
    table = (
        Table.objects.select_related("stage__event")
        .filter(code=clean_code(code), stage__event__table_entry=True, stage__closed=False)
        .first()
    )
    return table if code and table is not None else None


def _tries_key(address: str) -> str:
    return f"table-code-tries:{address}"


def blocked(address: str) -> bool:
    """``address`` tried too many wrong codes this hour: no code opens anything for it."""
    return (cache.get(_tries_key(address)) or 0) >= TRIES_PER_HOUR


def count_wrong_code(address: str) -> None:
    """Count a wrong code from ``address`` (for an hour)."""
    key = _tries_key(address)
    cache.add(key, 0, timeout=3600)
    try:
        cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.add(key, 1, timeout=3600)


def device_of(session) -> str:
    if DEVICE not in session:
        session[DEVICE] = secrets.token_hex(6)
    return session[DEVICE]


def join(session, table: Table) -> str:
    """The phone opens ``table`` with its current code; kept in its session and on the table's
    list of devices. Returns the device id."""
    device = device_of(session)
    session[CODES] = {**session.get(CODES, {}), str(table.pk): table.code}
    with transaction.atomic():
        joined, created = TableDevice.objects.get_or_create(table=table, device=device)
        if created:
            log_action(
                table.stage.event,
                "table.device_joined",
                None,
                stage=table.stage,
                table=table.number,
                device=device,
            )
        else:
            joined.save(update_fields=["last_seen"])
    return device


def opened(session, table: Table) -> bool:
    """The phone opened this table with its current code (a reissued code shuts it out)."""
    return bool(table.code) and session.get(CODES, {}).get(str(table.pk)) == table.code


def confirm_round(round: Round, *, user=None, device: str = "") -> bool:
    """A second player (another phone at the table) or a director confirms a round entered from
    a phone. False when it was confirmed already (a repeat confirms once)."""
    with transaction.atomic():
        table = _locked(round.table)
        round = Round.objects.filter(pk=round.pk, table=table).first()
        if round is None:
            raise _refuse(_("This round was sent back or removed meanwhile."))
        if not round.awaiting_confirmation:
            return False
        if device and device == round.entered_device:
            raise _refuse(
                _("A second player confirms the round: another phone at the table, or a director.")
            )
        round.awaiting_confirmation = False
        round.confirmed_at = timezone.now()
        round.confirmed_by = user if getattr(user, "is_authenticated", False) else None
        round.confirmed_device = device
        round.save(
            update_fields=[
                "awaiting_confirmation",
                "confirmed_at",
                "confirmed_by",
                "confirmed_device",
            ]
        )
        store_totals(Table.objects.filter(pk=table.pk))
        log_action(
            table.stage.event,
            "round.confirmed",
            user,
            stage=table.stage,
            table=table.number,
            engine=round.engine,
            **({"device": device} if device else {}),
        )
        if table.stage.kind == StageKind.PLAYOFF:  # confirmed, the playoff's round decides
            from scoring.advancement import settle_playoff

            settle_playoff(table.stage)
    return True


def send_back(round: Round, note: str, *, user=None, device: str = "", key: str = "") -> None:
    """A second player (or a director) sends an unconfirmed round back with a note: the round
    is taken off the sheet, to be entered again; the note is shown at the table."""
    note = (note or "").strip()
    if not note:
        raise _refuse(_("Say what is wrong with the round, for the player who entered it."))
    with transaction.atomic():
        table = _locked(round.table)
        if claim(key, user) is not None:
            return
        round = Round.objects.filter(pk=round.pk, table=table).first()
        if round is None or not round.awaiting_confirmation:
            raise _refuse(_("This round was confirmed or sent back meanwhile."))
        if device and device == round.entered_device:
            raise _refuse(
                _(
                    "A second player sends the round back: another phone at the table, or a "
                    "director."
                )
            )
        if table.stage.closed:
            raise _refuse(_("This stage is closed."))
        if table.rounds.filter(number__gt=round.number).exists():
            raise _refuse(_("Later rounds were entered: a director corrects this round instead."))
        take_off_last_round(table, round)
        log_action(
            table.stage.event,
            "round.sent_back",
            user,
            stage=table.stage,
            reason=note,
            table=table.number,
            engine=round.engine,
            **({"device": device} if device else {}),
        )
        settle(key)


def reissue_code(table: Table, user) -> Table:
    """A director gives the table a new code: phones that opened the old one are shut out."""
    with transaction.atomic():
        table = _locked(table)
        table.code = new_table_code()
        table.save(update_fields=["code"])
        table.devices.all().delete()
        log_action(
            table.stage.event, "table.code_reissued", user, stage=table.stage, table=table.number
        )
    return table


def awaiting(stage: Stage) -> list[Round]:
    """The stage's rounds waiting for a second player's confirmation, table by table."""
    rounds = Round.objects.filter(table__stage=stage, awaiting_confirmation=True)
    return list(rounds.select_related("table").order_by("table__number", "number"))


def last_note(table: Table):
    """The latest round sent back at this table, if no round was saved since: (engine, note)."""
    sent = (
        Action.objects.filter(
            event_id=table.stage.event_id, verb="round.sent_back", data__table=table.number
        )
        .filter(stage=table.stage)
        .order_by("-at", "-pk")
        .first()
    )
    if sent is None:
        return None
    later = table.rounds.filter(entered_at__gt=sent.at).exists()
    return None if later else (sent.data.get("engine"), sent.reason)


def report_infraction(
    table: Table, player_id: str, kind: str, note: str, device: str, key: str = ""
):
    """A phone at the table reports an infraction; a director logs or dismisses it. Returns
    the report (the same one for a repeated form)."""
    with transaction.atomic():
        table = _locked(table)
        earlier = claim(key, None)
        if earlier is not None:
            return InfractionReport.objects.get(pk=earlier.outcome["report"])
        seated = {str(s.player_id): s.player for s in table.seats.select_related("player")}
        note = (note or "").strip()[:300]
        if player_id not in seated:
            raise _refuse(_("Choose a player seated at this table."))
        if kind not in InfractionKind.values:
            raise _refuse(_("Choose the kind of infraction."))
        engine = current_engine(table_sheet(table))
        report = InfractionReport.objects.create(
            table=table,
            player=seated[player_id],
            engine=engine,
            kind=kind,
            note=note,
            device=device,
        )
        log_action(
            table.stage.event,
            "infraction.reported",
            None,
            stage=table.stage,
            table=table.number,
            player=seated[player_id].name,
            device=device,
        )
        settle(key, report=report.pk)
    return report


def handle_report(report: InfractionReport, user, *, log: bool) -> bool:
    """A director logs a reported infraction (the event's penalty applies) or dismisses it.
    False when it was handled already (a second device, a double tap)."""
    with transaction.atomic():
        table = _locked(report.table)
        report = InfractionReport.objects.select_for_update().get(pk=report.pk)
        if not report.open:
            return False
        if log:
            report.infraction = log_infraction(
                table, report.player, report.engine, report.kind, report.note, user
            )
        else:
            report.dismissed = True
            log_action(
                table.stage.event,
                "infraction.report_dismissed",
                user,
                stage=table.stage,
                table=table.number,
                player=report.player.name,
            )
        report.save(update_fields=["infraction", "dismissed"])
    return True
