"""Players score their own table (issue 15): the sheet's QR code opens the table's entry on a
phone, for that table and stage only, with no account; a round entered from a phone counts at
once and waits for a second player (another phone at the table, or a director) to confirm it
or send it back with a note. The confirming phone types the round's code, which only the
phone that entered it shows (issue 46): a second browser on that phone, with another cookie
jar and browser name, sees no code of its own to type.

A phone is a "device": a random id kept in its session, with the table codes it opened. A code
works while the event allows table entry and the stage is open; a reissued code shuts out the
phones that opened the old one.
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.db.models import Case, F, Value, When
from django.utils import timezone
from django.utils.crypto import salted_hmac
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from scoring.models import CodeTries, InfractionKind, InfractionReport, Round, TableDevice
from scoring.services.infractions import current_engine, log_infraction
from scoring.services.rounds import (
    RoundRejected,
    _refuse,
    lock_table,
    store_totals,
    take_off_last_round,
)
from scoring.services.stages import settle_playoff
from scoring.sheets import table_sheet
from tournament.game.rules import RoundErrors
from tournament.history import claim, log_action, settle
from tournament.models import (
    CODE_LETTERS,
    Action,
    Player,
    Stage,
    StageKind,
    Table,
    new_table_code,
)
from tournament.security import client_ip

DEVICE = "table_device"  # session: this phone's id
CODES = "table_codes"  # session: {table id: the code it was opened with}
PLAYERS = "table_players"  # session: {table id: the seated player this phone said it is}
DEVICE_COOKIE = "table_device"  # signed: the device id, kept when the session is not
DEVICE_COOKIE_AGE = 365 * 24 * 3600
TRIES_PER_HOUR = 30  # wrong codes a phone (an address) may try in an hour
TRIES_WINDOW = timedelta(hours=1)
CONFIRM_DIGITS = 4  # a round's confirmation code: typed by a second player, on their phone


class WrongCode(RoundRejected):
    """The code typed to confirm a round is missing, not 4 digits, or not the one the entering
    phone shows (``guess``: a wrong code, counted against the address as a table code is)."""

    def __init__(self, message: str, guess: bool = False):
        super().__init__(RoundErrors(whole=[message]))
        self.guess = guess


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


def blocked(address: str) -> bool:
    """``address`` tried too many wrong codes this hour: no code opens anything for it."""
    hour_ago = timezone.now() - TRIES_WINDOW
    tries = CodeTries.objects.filter(address=address[:64], started__gt=hour_ago)
    return tries.filter(count__gte=TRIES_PER_HOUR).exists()


def count_wrong_code(address: str) -> None:
    """Count a wrong code from ``address`` for an hour, in the database: every worker, every
    server and a restart see the same count. One conditional UPDATE counts it (an hour-old
    count starts again at 1), so codes tried at the same moment are all counted."""
    address = address[:64]
    now = timezone.now()
    hour_ago = now - TRIES_WINDOW
    tries = CodeTries.objects.filter(address=address)
    counted = {
        "count": Case(When(started__lte=hour_ago, then=Value(1)), default=F("count") + 1),
        "started": Case(When(started__lte=hour_ago, then=Value(now)), default=F("started")),
    }
    if tries.update(**counted):
        return
    try:
        with transaction.atomic():
            CodeTries.objects.create(address=address, started=now, count=1)
    except IntegrityError:  # another request counted this address's first try meanwhile
        tries.update(**counted)
        return
    CodeTries.objects.filter(started__lte=hour_ago).delete()  # a new address: prune the old


def why_refused(code: str, session) -> str | None:
    """Why a code opens nothing, when it is no guess: the code is still a table's (its stage
    closed, or table entry turned off), or this phone opened it before and the table has a new
    code since. None for a code that was never valid for this phone (counted as a guess)."""
    code = clean_code(code)
    if not code:
        return None
    table = Table.objects.select_related("stage__event").filter(code=code).first()
    if table is None:
        opened_here = [pk for pk, was in session.get(CODES, {}).items() if was == code]
        table = (
            Table.objects.select_related("stage__event").filter(pk__in=opened_here).first()
            if all(pk.isdigit() for pk in opened_here)
            else None
        )
        if table is None:
            return None
    if not table.stage.event.table_entry:
        return _("Table entry is turned off: show this round to a director.")
    if table.stage.closed:
        return _("%(stage)s is closed: show this round to a director.") % {
            "stage": table.stage.title
        }
    return _(
        "This table has a new code: scan the new score sheet, or show this round to a director."
    )


def device_of(session) -> str:
    if DEVICE not in session:
        session[DEVICE] = secrets.token_hex(6)
    return session[DEVICE]


@dataclass(frozen=True)
class Phone:
    """A phone at a table, as far as the site can tell who holds it (issue 27): its device id,
    the seated player it said it is, and a fingerprint that a new cookie jar (a private tab of
    the same phone) does not change."""

    device: str
    player: Player | None = None
    fingerprint: str = ""

    def entered(self) -> dict:
        """What a round entered from this phone records besides its device (record_round)."""
        return {"entered_player": self.player, "entered_fingerprint": self.fingerprint}


def fingerprint(request) -> str:
    """The phone's address and browser, hashed: the same for every tab and cookie jar of one
    phone on the hall's network, different for another phone (or the same one elsewhere)."""
    seen = f"{client_ip(request)}\n{request.headers.get('User-Agent', '')}"
    return salted_hmac("scoring.table_entry.fingerprint", seen, algorithm="sha256").hexdigest()[:16]


def kept_device(request) -> str:
    """The device id the phone's long-lived signed cookie holds ("" when none, or forged)."""
    device = request.get_signed_cookie(
        DEVICE_COOKIE, default="", salt=DEVICE_COOKIE, max_age=DEVICE_COOKIE_AGE
    )
    return device if len(device) == 12 and all(c in "0123456789abcdef" for c in device) else ""


def keep_device(request, response) -> None:
    """Keep the phone's device id in a signed cookie for a year: a lost session keeps it."""
    response.set_signed_cookie(
        DEVICE_COOKIE,
        device_of(request.session),
        salt=DEVICE_COOKIE,
        max_age=DEVICE_COOKIE_AGE,
        httponly=True,
        samesite="Lax",
        secure=request.is_secure(),
    )


def join(request, table: Table, player_id: str) -> Phone:
    """The phone opens ``table`` with its current code as one of its seated players (the one
    who holds it); kept in its session and on the table's list of devices. A phone that lost
    its session keeps its device id (its signed cookie)."""
    seated = {str(s.player_id): s.player for s in table.seats.select_related("player")}
    player = seated.get(str(player_id or ""))
    if player is None:
        raise _refuse(_("Tap your name: which player at this table holds this phone?"))
    session = request.session
    if DEVICE not in session and kept_device(request):
        session[DEVICE] = kept_device(request)
    phone = Phone(device_of(session), player, fingerprint(request))
    session[CODES] = {**session.get(CODES, {}), str(table.pk): table.code}
    session[PLAYERS] = {**session.get(PLAYERS, {}), str(table.pk): player.pk}
    with transaction.atomic():
        joined, created = TableDevice.objects.get_or_create(
            table=table,
            device=phone.device,
            defaults={"player": player, "fingerprint": phone.fingerprint},
        )
        if created or joined.player_id != player.pk:
            log_action(
                table.stage.event,
                "table.device_joined",
                None,
                stage=table.stage,
                table=table.number,
                device=phone.device,
                player=player.name,
            )
        joined.player, joined.fingerprint = player, phone.fingerprint
        joined.save(update_fields=["player", "fingerprint", "last_seen"])
    return phone


def opened(session, table: Table) -> bool:
    """The phone opened this table with its current code (a reissued code shuts it out), and
    said which of its players holds it."""
    return (
        bool(table.code)
        and session.get(CODES, {}).get(str(table.pk)) == table.code
        and str(table.pk) in session.get(PLAYERS, {})
    )


def phone_at(request, table: Table) -> Phone:
    """This phone at ``table``: its device, the seated player it said it is (None when it did
    not say, or that player is no longer seated there), its fingerprint."""
    said = request.session.get(PLAYERS, {}).get(str(table.pk))
    seat = table.seats.select_related("player").filter(player_id=said).first() if said else None
    return Phone(device_of(request.session), seat and seat.player, fingerprint(request))


def not_second_player(round: Round, phone: Phone) -> str:
    """Why ``phone`` may not confirm (nor send back) ``round``: it is the phone that entered it
    (its device, or the same phone in a new cookie jar), or it names the player who entered it.
    "" when it is a second player's phone. Rounds entered before phones named their player
    (no player recorded) are checked by their device only, as they were."""
    same_phone = phone.device == round.entered_device or (
        round.entered_fingerprint and phone.fingerprint == round.entered_fingerprint
    )
    if same_phone:
        return _(
            "A second player confirms the round from their own phone: the round was entered "
            "from this phone."
        )
    if round.entered_player_id is None:
        return ""
    if phone.player is None:
        return _("Tap your name: which player at this table holds this phone?")
    if phone.player.pk == round.entered_player_id:
        return _("This round was entered by %(name)s: another player confirms it.") % {
            "name": phone.player.name
        }
    return ""


def confirm_code(round: Round) -> str:
    """The ``CONFIRM_DIGITS`` digits the phone that entered ``round`` shows, for the second
    player to type on their own phone: drawn from the round with the site's secret, so that
    no other page knows them, and a round entered again (a new row) has new ones."""
    seen = f"{round.pk}:{round.entered_device}:{round.entered_at.timestamp():.6f}"
    digest = salted_hmac("scoring.table_entry.confirm_code", seen, algorithm="sha256")
    return f"{int(digest.hexdigest(), 16) % 10**CONFIRM_DIGITS:0{CONFIRM_DIGITS}d}"


def entering_phone(round: Round) -> str:
    """The phone that shows ``round``'s code, as the confirming player reads it named."""
    if round.entered_player is None:
        return _("the phone that entered the round")
    return pgettext("a phone showing a code", "%(name)s's phone") % {
        "name": round.entered_player.name
    }


def check_code(round: Round, typed: str) -> None:
    """Refuse ``typed`` (as the phone sent it: spaces are ignored) unless it is ``round``'s code."""
    code = "".join((typed or "").split())
    shown = {"phone": entering_phone(round), "n": CONFIRM_DIGITS}
    if not code:
        raise WrongCode(_("Type the code shown on %(phone)s.") % shown)
    if not (len(code) == CONFIRM_DIGITS and code.isascii() and code.isdigit()):
        raise WrongCode(_("The code is %(n)s digits, shown on %(phone)s.") % shown)
    if not hmac.compare_digest(code, confirm_code(round)):
        raise WrongCode(
            _(
                "This is not the code shown on %(phone)s: look at the round there, then type "
                "its %(n)s digits."
            )
            % shown,
            guess=True,
        )


def confirm_round(round: Round, *, user=None, phone: Phone | None = None, code: str = "") -> bool:
    """A second player (another player's phone at the table, typing the ``code`` the entering
    phone shows) or a director (no ``phone``) confirms a round entered from a phone. False when
    it was confirmed already (a repeat confirms once)."""
    with transaction.atomic():
        table = lock_table(round.table)
        round = (
            Round.objects.filter(pk=round.pk, table=table).select_related("entered_player").first()
        )
        if round is None:
            raise _refuse(_("This round was sent back or removed meanwhile."))
        if not round.awaiting_confirmation:
            return False
        refused = phone and not_second_player(round, phone)
        if refused:
            raise _refuse(refused)
        if phone:
            check_code(round, code)
        round.awaiting_confirmation = False
        round.confirmed_at = timezone.now()
        round.confirmed_by = user if getattr(user, "is_authenticated", False) else None
        round.confirmed_device = phone.device if phone else ""
        round.confirmed_player = phone.player if phone else None
        round.confirmed_fingerprint = phone.fingerprint if phone else ""
        round.save(
            update_fields=[
                "awaiting_confirmation",
                "confirmed_at",
                "confirmed_by",
                "confirmed_device",
                "confirmed_player",
                "confirmed_fingerprint",
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
            **({"device": phone.device} if phone else {}),
            **({"phone": phone.player.name} if phone and phone.player else {}),
        )
        if table.stage.kind == StageKind.PLAYOFF:  # confirmed, the playoff's round decides
            settle_playoff(table.stage)
    return True


def send_back(
    round: Round, note: str, *, user=None, phone: Phone | None = None, key: str = ""
) -> None:
    """A second player (or a director) sends an unconfirmed round back with a note: the round
    is taken off the sheet, to be entered again; the note is shown at the table."""
    note = (note or "").strip()
    if not note:
        raise _refuse(_("Say what is wrong with the round, for the player who entered it."))
    with transaction.atomic():
        table = lock_table(round.table)
        if claim(key, user) is not None:
            return
        round = Round.objects.filter(pk=round.pk, table=table).first()
        if round is None or not round.awaiting_confirmation:
            raise _refuse(_("This round was confirmed or sent back meanwhile."))
        if phone and not_second_player(round, phone):
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
        pips = take_off_last_round(table, round)
        log_action(
            table.stage.event,
            "round.sent_back",
            user,
            stage=table.stage,
            reason=note,
            table=table.number,
            engine=round.engine,
            pips=pips,
            **({"device": phone.device} if phone else {}),
            **({"phone": phone.player.name} if phone and phone.player else {}),
        )
        settle(key)


def reissue_code(table: Table, user) -> Table:
    """A director gives the table a new code: phones that opened the old one are shut out."""
    with transaction.atomic():
        table = lock_table(table)
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


def _from_phone(player: Player | None, device: str, *, entered: bool) -> str:
    shown = {"player": player.name if player else "", "device": device[:4] + "…"}
    if entered:
        if player is None:
            return _("entered from a phone (device %(device)s)") % shown
        return _("entered from %(player)s's phone (device %(device)s)") % shown
    if player is None:
        return _("confirmed from a phone (device %(device)s)") % shown
    return _("confirmed from %(player)s's phone (device %(device)s)") % shown


def phone_trail(round: Round) -> str:
    """For the director: which phone entered a round, and which phone (or director) confirmed
    it, e.g. "entered from Ann Lee's phone (device 3f2a…), confirmed by director desk"."""
    entered = _from_phone(round.entered_player, round.entered_device, entered=True)
    if round.awaiting_confirmation:
        confirmed = _("not confirmed yet")
    elif round.confirmed_device:
        confirmed = _from_phone(round.confirmed_player, round.confirmed_device, entered=False)
    elif round.confirmed_by is not None:
        confirmed = _("confirmed by director %(name)s") % {
            "name": round.confirmed_by.get_username()
        }
    else:
        confirmed = _("confirmed by a director")
    return f"{entered}, {confirmed}"


def phone_rounds(table: Table) -> list[tuple[Round, str]]:
    """The table's rounds entered from phones, each with its phone_trail (director only)."""
    rounds = table.rounds.exclude(entered_device="").select_related(
        "entered_player", "confirmed_player", "confirmed_by"
    )
    return [(r, phone_trail(r)) for r in rounds.order_by("number")]


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
        table = lock_table(table)
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
        table = lock_table(report.table)
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
