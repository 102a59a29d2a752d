"""French (PRODUCT.md §10), what the site refuses: an event file's errors, the reason on a 403
or 404 page, and the big clock with its language switch, for a French reader.

The English of the same messages is asserted, unchanged, by the event file's tests
(test_eventfile_errors.py, test_eventfile.py, test_eventfile_limits.py) and the pages' own.
"""

import copy
import html
import json
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import RequestFactory
from django.utils import translation

from scoring.eventfile import EventFileError, validate
from tests.factories import make_director, make_event, make_players, seat
from tests.test_translations import assert_no_english, visible_text
from tournament.models import Event, Player
from tournament.refusals import NotFound, Refused
from tournament.views.errors import page_not_found, permission_denied

pytestmark = pytest.mark.django_db

FR = {"HTTP_ACCEPT_LANGUAGE": "fr"}
BASE = json.loads(
    (Path(__file__).parent / "data" / "nvso-tie-for-gold-bronze-pending.json").read_text(
        encoding="utf-8"
    )
)


def upload(client, content: bytes, **headers) -> str:
    response = client.post(
        "/director/import/", {"file": SimpleUploadedFile("event.json", content)}, **headers
    )
    assert response.status_code == 200  # the form again, with the errors
    return response.content.decode()


def changed(change) -> dict:
    data = copy.deepcopy(BASE)
    change(data)
    return data


# -- the event file ------------------------------------------------------------------------------


def test_a_french_director_reads_an_event_files_errors_in_french(director_client):
    def wrong(data):
        data["event"]["name"] = 5  # not a string
        data["event"]["colour"] = "red"  # a key the format does not have
        del data["stages"][0]["closed"]  # a key it needs
        data["stages"][1]["tables"] = {}  # not a list
        data["stages"][0]["tables"][2]["rounds"][0]["pips"]["p10"] = 2000  # a rule of the game

    page = upload(director_client, json.dumps(changed(wrong)).encode(), **FR)
    shown = html.unescape(page)
    assert "Rien n'a été importé." in shown and "Le fichier comporte 5 erreurs" in shown
    for error in [
        "<code>event.name</code>: 5 n'est pas une chaîne de caractères",
        "<code>event.colour</code>: clé inconnue (clés attendues : name, date, venue, rules, "
        "format, extra)",
        "<code>stages[0].closed</code>: manquante",
        "<code>stages[1].tables</code>: il faut une liste, pas un objet",
        "<code>stages[0].tables[2].rounds[0].pips.p10</code>: 2000 dépasse les 731 points qui "
        "peuvent rester en main",
    ]:
        assert error in shown, error
    assert_no_english(visible_text(page))
    assert not Event.objects.exists() and not Player.objects.exists()


def test_a_file_that_is_not_json_or_not_utf8_is_located_in_french(director_client):
    shown = html.unescape(upload(director_client, b'{"format": \n  mexican}', **FR))
    assert "<code>ligne 2, colonne 3</code>: JSON non valide : une valeur est attendue" in shown
    assert "Le fichier comporte 1 erreur" in shown
    shown = html.unescape(upload(director_client, b'{"format": "\xff"}', **FR))
    assert "<code>ligne 1, colonne 13</code>: pas du texte UTF-8 (l'octet 13 est illisible)" in (
        shown
    )
    shown = html.unescape(upload(director_client, b"[]", **FR))
    assert "<code>fichier</code>: il faut un objet, pas une liste" in shown
    # The same file, for an English reader: the words the English tests know.
    shown = html.unescape(upload(director_client, b'{"format": \n  mexican}'))
    assert "<code>line 2, column 3</code>: not valid JSON: Expecting value" in shown
    assert not Event.objects.exists()


def refused_in_french(data) -> EventFileError:
    with translation.override("fr"), pytest.raises(EventFileError) as refused:
        validate(json.dumps(data))
    return refused.value


def test_the_rules_clock_infractions_and_playoffs_refuse_in_french():
    def infraction(d):  # a player of another table, in a round not reached
        d["event"]["rules"]["engines"] = list(range(12, -1, -1))
        d["stages"][0]["tables"][0]["infractions"][0].update(player="p5", engine=5)

    refused = refused_in_french(changed(infraction))
    assert refused.errors == [
        'stages[0].tables[0].infractions[0].player: "p5" n\'est pas placé à cette table',
        "stages[0].tables[0].infractions[0].engine: La manche 5-5 n'a pas encore commencé à "
        "cette table",
    ]
    assert str(refused).startswith("Le fichier du tournoi a 2 erreurs :\n")

    clock = refused_in_french(
        changed(lambda d: d["stages"][0]["extra"]["clock"].update(started_at=None))
    )
    assert clock.errors == [
        "stages[0].extra.clock: Un chronomètre qui n'a pas été démarré ne peut être ni en pause "
        "ni à la fin du temps"
    ]
    assert str(clock).startswith("Le fichier du tournoi a 1 erreur :\n")

    def other_players(d):  # the bronze playoff seats p5, who is not tied with p9
        d["stages"][2]["tables"][0]["players"] = ["p9", "p5"]

    assert refused_in_french(changed(other_players)).errors == [
        'stages[2]: le barrage "bronze" dû se joue entre p9, p13, pas entre p9, p5'
    ]

    def played_by_others(d):  # and played: the results computed do not fit it
        other_players(d)
        d["stages"][2]["closed"] = True
        d["stages"][2]["tables"][0]["rounds"] = [{"engine": 12, "pips": {"p9": 10, "p5": 20}}]

    assert refused_in_french(changed(played_by_others)).errors == [
        'stages[2]: ce barrage ne correspond pas aux égalités : Final : le barrage "bronze", '
        "manche 1 : joué par ['p5', 'p9'], mais dû entre ['p13', 'p9']"
    ]


# -- 403 and 404 ---------------------------------------------------------------------------------


@pytest.fixture
def montreal(director):
    """A French club's event (its stages named in French), Partie 1 seated."""
    with translation.override("fr"):
        event = make_event(director, name="Tournoi de Montréal", slug="montreal")
    make_players(event, count=8)
    seat(event)
    return event


def refusal(response, status: int) -> str:
    assert response.status_code == status
    return visible_text(response.content.decode())


def test_a_403_page_says_the_sites_reason_in_french(client, montreal):
    client.force_login(make_director("other"))
    text = refusal(client.get("/director/e/montreal/edit/", **FR), 403)
    assert "Action non autorisée Seuls les directeurs du tournoi peuvent faire cela." in text
    assert_no_english(text)
    text = refusal(client.get("/director/e/montreal/edit/"), 403)
    assert "Not allowed Only the event's directors can do this." in text

    keeper = get_user_model().objects.create_user("keeper", password="x")
    client.force_login(keeper)
    text = refusal(client.get("/director/e/montreal/1/table/1/enter/", **FR), 403)
    assert "Vous ne tenez pas le score de cette table." in text
    assert_no_english(text)


def test_a_404_page_says_the_sites_reason_in_french_and_never_djangos_words(client, montreal):
    text = refusal(client.get("/e/montreal/1/sheets.pdf?tables=x-3", **FR), 404)
    assert (
        "Page introuvable Donnez les tables par une plage de numéros, par exemple ?tables=1-50."
    ) in text
    text = refusal(client.get("/e/montreal/1/sheets.pdf?tables=7-9", **FR), 404)
    assert "Cette phase n'a aucune table numérotée de 7 à 9." in text
    assert_no_english(text)
    text = refusal(client.get("/e/montreal/1/sheets.pdf?tables=7-9"), 404)
    assert "This stage has no table numbered 7 to 9." in text
    # Django's own 404s (no such event, stage, URL) get the page's general text only.
    for path in ["/e/nowhere/", "/e/montreal/9/", "/no/such/page/"]:
        text = refusal(client.get(path, **FR), 404)
        assert "Il n'y a ici aucun tournoi, aucune phase, aucune table ni aucun joueur" in text
        assert "Event" not in text and "Stage" not in text and "correspond" not in text, path
        assert_no_english(text)
        text = refusal(client.get(path), 404)
        assert "There is no such event, stage, table or player here." in text
        assert "matches the given query" not in text and "Event" not in text, path


def test_a_refusals_reason_is_escaped_and_only_the_sites_own_is_shown(director):
    request = RequestFactory().get("/somewhere/")
    request.user = AnonymousUser()
    page = permission_denied(request, Refused("<b>Not</b> & never")).content.decode()
    assert "&lt;b&gt;Not&lt;/b&gt; &amp; never" in page and "<b>Not</b>" not in page
    page = page_not_found(request, NotFound("<i>gone</i>")).content.decode()
    assert "&lt;i&gt;gone&lt;/i&gt;" in page
    from django.core.exceptions import PermissionDenied
    from django.http import Http404

    assert "secret" not in permission_denied(request, PermissionDenied("secret")).content.decode()
    assert "secret" not in page_not_found(request, Http404("secret")).content.decode()


# -- the big clock -------------------------------------------------------------------------------


def test_the_big_clock_speaks_french_and_has_the_language_switch(client, montreal):
    page = client.get("/e/montreal/1/clock/", **FR).content.decode()
    assert '<html lang="fr">' in page
    text = visible_text(page)
    for words in ["Temps restant", "Pas démarré", "Tables terminées", "Trouvez votre table"]:
        assert words in text, words
    assert_no_english(text)
    assert '<form method="post" action="/i18n/setlang/"' in page
    assert '<option value="fr" lang="fr" selected>Français</option>' in page
    assert '<label class="visually-hidden" for="language-switch">Langue</label>' in page
    assert 'name="next" value="/e/montreal/1/clock/"' in page
    # The switch takes the room's screen back to English, on the same page.
    response = client.post("/i18n/setlang/", {"language": "en", "next": "/e/montreal/1/clock/"})
    assert response.status_code == 302 and response["Location"] == "/e/montreal/1/clock/"
    text = visible_text(client.get("/e/montreal/1/clock/", **FR).content.decode())
    assert "Time left" in text and "Temps restant" not in text
