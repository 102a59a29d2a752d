"""Sign-up on the event's page (issue 49): one function per action, each in a transaction
under the event's row lock, so that the capacity holds however many sign up at once (on
PostgreSQL the lock queues them; on SQLite every write transaction is one at a time anyway:
IMMEDIATE mode).

- ``sign_up``: a registrant takes a place (registered, or awaiting a director's approval when
  the event asks for it) while the capacity allows, else the next place on the waitlist. The
  list import's repeat check applies: the same name and club, or the same e-mail, is refused.
- ``withdraw_signup``: the registrant leaves from their private link, before being seated.
- ``fill_places``: the first on the waitlist take the places freed (a withdrawal, a player
  deleted, a larger capacity), in order, until Game 1 is seated.
- ``approve``, ``mark_seen``: the director's answers on the players page.
- ``mail_signup``: the e-mail a registrant who gave an address is sent, by the background
  worker (tournament/tasks.py), never in a request; without a mailer (no EMAIL_HOST) nothing
  is queued and nothing is sent.
- ``mail_seated``, ``mail_seat``: once a stage's seating is published, each registrant seated
  in it is told their table (with its page), or, in a stage seated from the advancers, that
  they advance to it and at which table.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.core import mail
from django.db import transaction
from django.db.models import Max
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import formats, timezone, translation
from django.utils.crypto import salted_hmac
from django.utils.translation import gettext as _

from tournament.history import claim, log_action, settle
from tournament.models import (
    HOLDS_A_PLACE,
    Event,
    Player,
    Seat,
    Signup,
    Stage,
    StageKind,
    Table,
    Waiting,
)
from tournament.refusals import ValidationRefusal
from tournament.text import name_key

logger = logging.getLogger(__name__)

HOUR = timedelta(hours=1)

# The history's verb of a sign-up, by what the registrant waits for.
SIGNED_UP = {"": "signup.registered", Waiting.WAITLIST: "signup.waitlisted"}
SIGNED_UP[Waiting.APPROVAL] = "signup.pending"


class SignupRefused(ValidationRefusal):
    """The sign-up was not taken; per field when a field is the reason."""


# -- reading ----------------------------------------------------------------------------------


def mail_on() -> bool:
    """Whether the site sends e-mail: an SMTP server is configured (EMAIL_HOST, settings.py)."""
    return settings.SEND_EMAIL


def closed_because(event: Event) -> str | None:
    """Why the event's page takes no sign-up now, or None when it takes them."""
    if not event.signup_open:
        return _("Sign-up is closed.")
    if event.signup_closes is not None and timezone.now() >= event.signup_closes:
        when = timezone.localtime(event.signup_closes, event.zone)
        return _("Sign-up closed on %(when)s.") % {
            "when": formats.date_format(when, "DATETIME_FORMAT")
        }
    if Table.objects.filter(stage__event=event).exists():
        return _("Sign-up is closed: the players are seated.")
    return None


def places_left(event: Event) -> int | None:
    """The places a sign-up may still take (0: the next one goes on the waitlist); None when
    the event sets no capacity."""
    if event.signup_capacity is None:
        return None
    return max(event.signup_capacity - event.players.filter(HOLDS_A_PLACE).count(), 0)


def waitlist_number(signup: Signup) -> int:
    """The registrant's number on the waitlist: 1 for the next to be promoted."""
    earlier = signup.event.players.waitlist().filter(signup__place__lt=signup.place)
    return earlier.count() + 1


def address_key(address: str) -> str:
    """The address a sign-up came from, as kept: hashed with the site's secret."""
    return salted_hmac("tournament.signup.address", address, algorithm="sha256").hexdigest()[:16]


def waits_for(taken: int, capacity: int | None, approval: bool) -> str:
    """What a new sign-up waits for, with ``taken`` of the ``capacity``'s places held: a place
    on the waitlist when none is left, else a director's approval when the event asks for it,
    else nothing (registered)."""
    if capacity is not None and taken >= capacity:
        return Waiting.WAITLIST
    return Waiting.APPROVAL if approval else ""


def same_person(event: Event, name: str, club: str, email: str) -> dict[str, str]:
    """Why a sign-up repeats a player of the event, by field ({} when it does not): the same
    name and club (accents, case and punctuation aside), or the same e-mail, as the list
    import's repeat check says (tournament/registration.py, ``repeat_of``)."""
    key, club_key = name_key(name), name_key(club)
    for player in event.players.filter(search_key=key[:120]):
        if name_key(player.club) != club_key:
            continue
        if player.withdrawn:
            why = _("%(name)s withdrew from this event: ask a director to take you back.")
        else:
            why = _(
                "%(name)s is already on this event's list. Lost your private link? Ask a director."
            )
        return {"name": why % {"name": player.name}}
    if email and event.signups.filter(email__iexact=email).exists():
        return {"email": _("This e-mail has already signed up for this event.")}
    return {}


def over_the_limit(address: str) -> str | None:
    """Why no sign-up is taken from ``address`` (hashed) now: too many from it, or from
    everyone, in the last hour (SIGNUPS_PER_ADDRESS, SIGNUPS_PER_HOUR; 0: no limit). Counted
    in the database: every worker and server sees the same counts."""
    hour_ago = timezone.now() - HOUR
    recent = Signup.objects.filter(created__gt=hour_ago)
    per_address, per_hour = settings.SIGNUPS_PER_ADDRESS, settings.SIGNUPS_PER_HOUR
    if per_address and address and recent.filter(address=address).count() >= per_address:
        return _(
            "Too many sign-ups from this connection in the last hour: try again later, or ask "
            "a director to add the players."
        )
    if per_hour and recent.count() >= per_hour:
        return _("The site takes no more sign-ups this hour: try again later.")
    return None


# -- writing ----------------------------------------------------------------------------------


@transaction.atomic
def sign_up(
    event: Event,
    *,
    name: str,
    club: str = "",
    division: str = "",
    email: str = "",
    address: str = "",
    site: str = "",
    key: str | None = None,
) -> Signup:
    """Sign a registrant up (values already validated): registered, awaiting approval or on
    the waitlist, in the order the sign-ups come. ``address``: where it came from, hashed
    (``address_key``); ``site``: the scheme and host of the page, for the e-mails' links. A
    repeat of the form's ``key`` answers the sign-up the first post made. Refused
    (``SignupRefused``) when the event takes no sign-up, over a limit, or for a repeat."""
    earlier = claim(key)
    if earlier is not None:
        return Signup.objects.select_related("event", "player").get(pk=earlier.outcome["signup"])
    event = event.locked()
    why = closed_because(event) or over_the_limit(address)
    if why:
        raise SignupRefused(why)
    repeat = same_person(event, name, club, email)
    if repeat:
        raise SignupRefused(repeat)
    taken = event.players.filter(HOLDS_A_PLACE).count()
    waiting = waits_for(taken, event.signup_capacity, event.signup_approval)
    player = Player.objects.create(
        event=event, name=name, club=club, division=division, waiting=waiting
    )
    place = (event.signups.aggregate(last=Max("place"))["last"] or 0) + 1
    signup = Signup.objects.create(
        event=event,
        player=player,
        place=place,
        email=email,
        language=translation.get_language() or "",
        site=site[:200],
        address=address,
    )
    log_action(event, SIGNED_UP[waiting], None, player=player.name, place=place)
    settle(key, signup=signup.pk)
    mail_later(signup, "signed_up")
    return signup


@transaction.atomic
def withdraw_signup(signup: Signup, key: str | None = None) -> str:
    """The registrant withdraws, from their private link, before being seated (once seated, a
    director withdraws them at the desk); the first on the waitlist takes a place freed.
    Returns what happened, for the message; a repeat of the form changes nothing more."""
    event = signup.event.locked()
    earlier = claim(key)
    if earlier is not None:
        return earlier.outcome.get("done", "")
    player = Player.objects.select_for_update().get(pk=signup.player_id)
    if player.withdrawn:
        return _("You had already withdrawn.")
    if player.seats.exists():
        raise SignupRefused(_("You are seated: tell a director at the desk that you leave."))
    player.withdrawn = True
    player.save(update_fields=["withdrawn"])
    log_action(event, "signup.withdrew", None, player=player.name)
    fill_places(event)
    done = _("You withdrew from %(event)s.") % {"event": event.name}
    settle(key, done=done)
    return done


def fill_places(event: Event, user=None) -> list[Player]:
    """Give the places free under the event's capacity to the first on the waitlist, in
    order (each awaits a director's approval when the event asks for it), while nobody is
    seated (PRODUCT.md §14: promoted when a registered player withdraws before the draw).
    Called inside the writes that free a place, under the event's lock. Returns the players
    promoted."""
    if Table.objects.filter(stage__event=event).exists():
        return []
    waitlist = event.players.waitlist().select_related("signup")
    if event.signup_capacity is not None:
        free = event.signup_capacity - event.players.filter(HOLDS_A_PLACE).count()
        waitlist = waitlist[: max(free, 0)]
    promoted = list(waitlist)
    for player in promoted:
        player.waiting = Waiting.APPROVAL if event.signup_approval else ""
        player.save(update_fields=["waiting"])
        log_action(event, "signup.promoted", user, player=player.name)
        mail_later(player.signup, "promoted")
    return promoted


@transaction.atomic
def approve(event: Event, player_ids, user) -> list[str]:
    """Register the sign-ups awaiting approval among ``player_ids``; returns their names.
    Setting a state: a repeat approves nobody more."""
    event = event.locked()
    players = list(
        event.players.awaiting_approval().filter(pk__in=player_ids).select_related("signup")
    )
    for player in players:
        player.waiting = ""
        player.save(update_fields=["waiting"])
        log_action(event, "signup.approved", user, player=player.name)
        if hasattr(player, "signup"):
            mail_later(player.signup, "approved")
    return [p.name for p in players]


@transaction.atomic
def mark_seen(event: Event, signup_ids) -> int:
    """The director has seen these new sign-ups: the players page lists them no more as new.
    Returns how many were new."""
    return event.signups.filter(pk__in=signup_ids, seen=False).update(seen=True)


# -- e-mail -----------------------------------------------------------------------------------

# What a registrant is told, and when: on signing up (registered, awaiting approval or on the
# waitlist, as they stand when the e-mail is written), on a promotion, on an approval.
MAILS = ("signed_up", "promoted", "approved")


def mail_later(signup: Signup, what: str) -> None:
    """Queue the e-mail ``what`` for the registrant, once the transaction commits, when they
    gave an address and the site sends e-mail; the background worker sends it."""
    if not signup.email or not mail_on():
        return
    from tournament.tasks import send_signup_mail

    pk = signup.pk
    transaction.on_commit(lambda: send_signup_mail.enqueue(pk, what))


def mail_signup(signup_id: int, what: str) -> bool:
    """Write and send the e-mail ``what`` to a registrant, in the language they signed up in
    (the task's work). Returns whether one was sent: none without a mailer, an address, or
    the sign-up (deleted since)."""
    signup = Signup.objects.select_related("event", "player").filter(pk=signup_id).first()
    if signup is None or not signup.email or not mail_on() or what not in MAILS:
        return False
    if signup.player.withdrawn:  # withdrew before the worker came to it: nothing to say
        return False
    with translation.override(signup.language or settings.LANGUAGE_CODE):
        context = {
            "what": what,
            "signup": signup,
            "event": signup.event,
            "player": signup.player,
            "entry": signup.player.entry,
            "number": waitlist_number(signup),
            "link": signup.site + signup.get_absolute_url(),
        }
        subject = " ".join(render_to_string("tournament/signup_mail_subject.txt", context).split())
        body = render_to_string("tournament/signup_mail.txt", context)
    mail.EmailMessage(subject, body, to=[signup.email]).send()
    return True


# A stage seated from the advancers: its players are told they advance to it.
ADVANCED_KINDS = (StageKind.SEMIFINAL, StageKind.FINAL)


def mail_seated(stage: Stage) -> None:
    """Queue, once the transaction commits, the e-mail of each registrant seated at ``stage``
    who gave an address (called when its seating is published); nothing without a mailer or for
    a playoff (played at once, at the table)."""
    if not mail_on() or stage.kind == StageKind.PLAYOFF:
        return
    from tournament.tasks import send_seat_mail

    signups = Signup.objects.filter(player__seats__stage=stage, player__withdrawn=False).exclude(
        email=""
    )
    stage_id = stage.pk
    for pk in signups.values_list("pk", flat=True):
        transaction.on_commit(lambda pk=pk: send_seat_mail.enqueue(pk, stage_id))


def mail_seat(signup_id: int, stage_id: int) -> bool:
    """Write and send a registrant their table at a stage (the task's work): "seated at table
    N" with the table's page, or "you advance to the Final, table N". Read when sent: the table
    as it is then; nothing when the registrant is no longer seated there, withdrew, or the
    stage's seating became a draft again. Returns whether one was sent."""
    signup = Signup.objects.select_related("event", "player").filter(pk=signup_id).first()
    if signup is None or not signup.email or not mail_on() or signup.player.withdrawn:
        return False
    seat = (
        Seat.objects.filter(player=signup.player, stage_id=stage_id, stage__seating_draft=False)
        .select_related("table", "stage__event")
        .first()
    )
    if seat is None:
        return False
    stage, event = seat.stage, signup.event
    url = reverse("table", args=[event.slug, stage.number, seat.table.number])
    with translation.override(signup.language or settings.LANGUAGE_CODE):
        context = {
            "what": "advanced" if stage.kind in ADVANCED_KINDS else "seated",
            "event": event,
            "player": signup.player,
            "stage": stage.title,
            "table": seat.table.number,
            "table_link": signup.site + url,
            "link": signup.site + signup.get_absolute_url(),
        }
        subject = " ".join(render_to_string("tournament/seat_mail_subject.txt", context).split())
        body = render_to_string("tournament/seat_mail.txt", context)
    mail.EmailMessage(subject, body, to=[signup.email]).send()
    return True
