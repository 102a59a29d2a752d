"""The site's refusals are one family (tournament/refusals.py): every refusal type is a
``Refusal``, its words are marked for translation, and one view mixin (``RefusalMixin``) shows
it as a form error or as a message, in the reader's language."""

import ast
import html
import importlib
import pkgutil
import re
from pathlib import Path

import pytest
from django import forms
from django.contrib.messages import constants
from django.contrib.messages.storage.cookie import CookieStorage
from django.core.exceptions import (
    MultipleObjectsReturned,
    ObjectDoesNotExist,
    ObjectNotUpdated,
    PermissionDenied,
    ValidationError,
)
from django.http import Http404
from django.test import RequestFactory
from django.utils import timezone, translation

import scoring
import tournament
from scoring.services.infractions import InfractionRejected
from scoring.services.rounds import RoundRejected
from tests.concurrency import hidden_fields
from tests.factories import make_players, seat
from tournament.game.clock import ClockError
from tournament.game.message import Message, Refusal
from tournament.game.rules import RoundErrors, RuleSetError
from tournament.game.seating import DivisionsNotSeated, SeatingError
from tournament.mixins import RefusalMixin
from tournament.models import Player
from tournament.refusals import NotFound, Refused, ValidationRefusal
from tournament.registration import ReadError
from tournament.services.clock import start_clock
from tournament.services.players import PlayerRefused

ROOT = Path(__file__).resolve().parent.parent
FR = {"HTTP_ACCEPT_LANGUAGE": "fr"}

# Exceptions of the two apps that are no refusal: nobody is told them (by name, a leading
# underscore aside).
NOT_REFUSALS = {
    # The simulator's own players choose among legal moves: one raised is a fault of it.
    "IllegalMove",
    # The event file's reader stops at its 1,000th error with it; the errors are the refusal.
    "TooManyErrors",
    # The hall's front stops reading a request with it and answers its HTTP status (400, 408,
    # 411, 413, 431), both languages at once: Django has not read the request.
    "NotTaken",
    # The sheet reader (plain Python, numpy and OpenCV) says with it why a photo is not read;
    # scoring/services/sheet_reading.py turns it into SheetNotRead, the refusal a person reads.
    "NotRead",
}
# Django's own, made for each model (``Player.DoesNotExist``): the code's, not the reader's.
DJANGOS = (ObjectDoesNotExist, MultipleObjectsReturned, ObjectNotUpdated)
# Modules not imported here: the WSGI application (it freezes the garbage collector) and the
# hall server's gunicorn settings.
NOT_IMPORTED = {"tournament.wsgi", "tournament.hall_server"}


def site_modules():
    for package in (tournament, scoring):
        yield package.__name__
        for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if ".migrations" not in module.name and module.name not in NOT_IMPORTED:
                yield module.name


def subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from subclasses(sub)


def site_exceptions() -> set[type]:
    for name in site_modules():
        importlib.import_module(name)
    return {
        cls
        for cls in subclasses(BaseException)
        if cls.__module__.partition(".")[0] in ("tournament", "scoring")
        and not issubclass(cls, DJANGOS)
    }


# -- one family ------------------------------------------------------------------------------


def test_every_exception_of_the_site_is_a_refusal():
    found = site_exceptions()
    names = {cls.__name__.lstrip("_") for cls in found}
    # The walk finds them, wherever a module moves to.
    assert {"RoundRejected", "ClockError", "UndoRefused", "CodeRefused", "Refused"} <= names
    outside = sorted(
        f"{cls.__module__}.{cls.__qualname__}"
        for cls in found
        if not issubclass(cls, Refusal) and cls.__name__.lstrip("_") not in NOT_REFUSALS
    )
    assert outside == [], "make these refusals (tournament.refusals.Refusal), or say why not"
    assert NOT_REFUSALS <= names  # an exemption outlives no class


def test_refusals_caught_as_value_or_validation_errors_still_are():
    for cls in (ClockError, RuleSetError, SeatingError, ReadError):
        assert issubclass(cls, ValueError), cls
    for cls in (InfractionRejected, PlayerRefused):
        assert issubclass(cls, ValidationError), cls
    assert issubclass(Refused, PermissionDenied) and issubclass(NotFound, Http404)


MARKERS = {"_", "gettext", "gettext_lazy", "_lazy", "ngettext", "pgettext", "Message"}


def _unmarked(node: ast.AST, marked: bool = False) -> bool:
    """Whether ``node`` holds words (an f-string, a string literal with a space: not a name
    such as ``"entered_by"``) outside a marking call."""
    if isinstance(node, ast.Call):
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        marked = marked or name in MARKERS
    if isinstance(node, ast.JoinedStr):
        return not marked
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        words = any(c.isalpha() for c in node.value) and any(c.isspace() for c in node.value)
        return not marked and words
    children = node.values if isinstance(node, ast.Dict) else list(ast.iter_child_nodes(node))
    return any(_unmarked(child, marked) for child in children)


@pytest.mark.parametrize(
    "source, unmarked",
    [
        ('X(f"{table}: {why}")', True),
        ('X("The clock has not been started")', True),
        ('X(_("%(s)s is closed.") % {"s": "the first stage"})', True),
        ('X(_("%(s)s is closed.") % {"s": stage.title})', False),
        ('X(Message("%(n)s players", n=n))', False),
        ('X(Round.objects.select_related("entered_by").get(pk=1))', False),
    ],
)
def test_the_check_of_marked_words(source, unmarked):
    assert _unmarked(ast.parse(source, mode="eval").body) is unmarked


def test_every_refusals_words_are_marked_for_translation():
    refusals = {cls.__name__ for cls in site_exceptions() if issubclass(cls, Refusal)}
    assert "SimulationRefused" in refusals
    unmarked = []
    for package in ("tournament", "scoring"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.Raise) or not isinstance(node.exc, ast.Call):
                    continue
                func = node.exc.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
                if name in refusals and any(
                    _unmarked(arg) for arg in [*node.exc.args, *node.exc.keywords]
                ):
                    unmarked.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert unmarked == []


def test_a_refusal_reads_in_the_active_language():
    refusal = ClockError(Message("Time has already been called"))
    assert refusal.message == "Time has already been called"
    with translation.override("en"):
        assert str(refusal) == "Time has already been called"
    with translation.override("fr"):
        assert str(refusal) == "La fin du temps a déjà été annoncée"
        assert refusal.texts() == ["La fin du temps a déjà été annoncée"]
        # A Message among a Message's values is translated too.
        joined = Message.joined([Message("The clock has not been started"), refusal.message])
        assert str(ClockError(joined)) == (
            "Le chronomètre n'a pas été démarré La fin du temps a déjà été annoncée"
        )
    assert str(Refused()) == "" and str(Refused("Not yours.")) == "Not yours."


# -- the mixin, through real pages ---------------------------------------------------------------


def uncheck_url(player):
    return f"/director/e/{player.event.slug}/players/{player.pk}/uncheck/"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "headers, shown",
    [
        ({}, "Player 01 is seated in Morning: the check-in stays."),
        (FR, "Player 01 est placé dans Morning : la présence est maintenue."),
    ],
)
def test_a_refusal_is_shown_as_the_forms_error(director_client, event, headers, shown):
    """The page's form, posted after the player was seated meanwhile: the form again, with the
    refusal as its error (``UncheckRefused``)."""
    make_players(event, count=8)
    player = Player.objects.get(name="Player 01")
    fields = hidden_fields(director_client.get(uncheck_url(player), **headers))
    seat(event)
    event.stages.filter(number=1).update(name="Morning")  # a name as typed: the same in French
    response = director_client.post(
        uncheck_url(player), {**fields, "reason": "checked in twice"}, **headers
    )
    assert response.status_code == 200
    assert response.context["form"].non_field_errors() == [shown]
    page = html.unescape(response.content.decode())
    assert re.search(r'<div class="alert alert-danger" role="alert">([^<]*)</div>', page)[1] == (
        shown
    )
    assert Player.objects.get(pk=player.pk).checked_in


@pytest.mark.django_db
@pytest.mark.parametrize(
    "headers, shown",
    [({}, "Time has already been called"), (FR, "La fin du temps a déjà été annoncée")],
)
def test_a_refusal_is_shown_as_a_message(director_client, seated, headers, shown):
    """Time called from two pages drawn before it (two directors): the second is told, in a
    red message on the page it comes back to (``ClockError``, a message of the game's rules)."""
    start_clock(seated, None, timezone.now())
    standings = f"/e/{seated.event.slug}/{seated.number}/"
    control = f"/director/e/{seated.event.slug}/{seated.number}/clock/"
    first = hidden_fields(director_client.get(standings, **headers))
    second = hidden_fields(director_client.get(standings, **headers))
    assert first["once"] != second["once"]
    director_client.post(control, {**first, "action": "call_time"}, follow=True, **headers)
    response = director_client.post(
        control, {**second, "action": "call_time"}, follow=True, **headers
    )
    assert [(m.level, m.message) for m in response.context["messages"]] == [
        (constants.ERROR, shown)
    ]
    assert f'<div class="alert alert-danger" role="alert">{shown}</div>' in html.unescape(
        response.content.decode()
    )


# -- the mixin's ways, one by one ------------------------------------------------------------------


class Page(RefusalMixin):
    def __init__(self):
        self.request = RequestFactory().post("/")
        self.request._messages = CookieStorage(self.request)

    def said(self) -> list[str]:
        return [m.message for m in self.request._messages]


class PlayerForm(forms.Form):
    ref = forms.CharField(required=False)


def test_a_refusal_per_field_goes_beside_its_field():
    form = PlayerForm({"ref": "A1"})
    assert form.is_valid()
    Page().refused(ValidationRefusal({"ref": "Another player has id A1."}), form)
    assert form.errors == {"ref": ["Another player has id A1."]}


def test_a_refusal_goes_beside_the_field_named():
    form = PlayerForm({"ref": "A1"})
    assert form.is_valid()
    Page().refused(RoundRejected(RoundErrors(whole=["Wrong code."])), form, "ref")
    assert form.errors == {"ref": ["Wrong code."]}


def test_each_reason_of_a_refusal_is_shown_apart():
    page = Page()
    refusal = DivisionsNotSeated(
        [Message("%(n)s players cannot be seated at one table.", n=n) for n in (9, 11)]
    )
    with translation.override("fr"):
        page.refused(refusal)
        assert page.said() == [
            "9 joueurs ne peuvent pas être placés à une seule table.",
            "11 joueurs ne peuvent pas être placés à une seule table.",
        ]
    form = PlayerForm({"ref": ""})
    assert form.is_valid()
    Page().refused(RoundRejected(RoundErrors(whole=["Reload.", "Enter every pip count."])), form)
    assert form.non_field_errors() == ["Reload.", "Enter every pip count."]
