"""The hall's log-in codes (tournament/hall_login.py): one made after the right password from
the hall's network, used once from the address it was made for."""

from __future__ import annotations

import hmac
import logging
import secrets
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from tournament.models import HallLoginCode
from tournament.refusals import Refusal

logger = logging.getLogger(__name__)

CODE_MINUTES = 5
MAX_WRONG_TRIES = 3  # then the code is void: the password again, and a new code
CODES_PER_HOUR = 10  # a username's codes an hour: 30 guesses of a million at most


class CodeRefused(Refusal):
    """A typed code that logs nobody in, with the reason for the person who typed it.
    ``start_again``: the code can log nobody in any more (the password again for a new one).
    ``elsewhere``: it was sent from another address than its own (a pending log-in's cookie
    replayed by someone who read it): refused for them, the code's own log-in left as it was."""

    def __init__(self, message: str, start_again: bool = False, elsewhere: bool = False):
        super().__init__(message)
        self.start_again = start_again
        self.elsewhere = elsewhere


def start_hall_login(user, address: str) -> HallLoginCode:
    """After the right password from the hall's network: a new code for that username at that
    address (any earlier one for them is void), printed on the laptop's console. At most
    ``CODES_PER_HOUR`` codes a username an hour (``CodeRefused``): someone who read the password
    cannot try codes for ever."""
    with transaction.atomic():
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()  # one at a time
        since = timezone.now() - timedelta(hours=1)
        if HallLoginCode.objects.filter(user=user, made__gt=since).count() >= CODES_PER_HOUR:
            raise CodeRefused(
                _(
                    "Too many log-in codes for this username in the last hour: log in on the "
                    "laptop itself, or try again later."
                )
            )
        HallLoginCode.objects.filter(user=user, address=address, used=None).update(
            wrong_tries=MAX_WRONG_TRIES  # void, and still counted in the hour
        )
        code = HallLoginCode.objects.create(
            user=user, address=address, code=f"{secrets.randbelow(1_000_000):06d}"
        )
    logger.warning("Log-in code for %r from %s: %s", user.get_username(), address, code.code)
    return code


def use_hall_login_code(code_id: int, address: str, typed: str):
    """The user the code ``code_id`` logs in at ``address``, once: ``CodeRefused`` when the
    typed code is wrong (the wrong try is counted), used, expired or void."""
    with transaction.atomic():
        code = HallLoginCode.objects.select_for_update().filter(pk=code_id).first()
        refusal = _refusal(code, address)
        if refusal is None and not hmac.compare_digest(code.code, typed):
            code.wrong_tries += 1
            code.save(update_fields=["wrong_tries"])  # kept: the refusal is raised after commit
            refusal = _refusal(code, address) or CodeRefused(
                _("This is not the code shown on the laptop: try again.")
            )
        if refusal is None:
            code.used = timezone.now()
            code.save(update_fields=["used"])
    if refusal is not None:
        raise refusal
    return code.user


def _refusal(code: HallLoginCode | None, address: str) -> CodeRefused | None:
    """Why ``code`` can no longer log anyone in at ``address``, or None."""
    if code is None or code.used is not None or code.address != address:
        return CodeRefused(
            _("This code no longer works (used already, or from another address): log in again."),
            True,
            elsewhere=code is not None and code.address != address,
        )
    if code.made < timezone.now() - timedelta(minutes=CODE_MINUTES):
        return CodeRefused(
            _("This code is more than %(minutes)s minutes old: log in again for a new one.")
            % {"minutes": CODE_MINUTES},
            True,
        )
    if code.wrong_tries >= MAX_WRONG_TRIES:
        return CodeRefused(_("Too many wrong codes: log in again for a new one."), True)
    return None
