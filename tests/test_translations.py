"""French (PRODUCT.md §10): a complete catalog, a language switch on every page, French PDFs.

The catalog test collects every marked string the way ``make messages`` does, into a copy of
the catalog, and fails on any string with no French (new strings: run ``make messages``, then
translate what it lists in locale/fr/LC_MESSAGES/django.po). The page and PDF tests read what a
French reader gets: French words, French dates, and none of the site's English sentences.
"""

import datetime
import html
import io
import re
import shutil
import unicodedata
from pathlib import Path

import pdfplumber
import polib
import pytest
from django.conf import settings
from django.core.management import call_command
from django.utils import translation

from scoring.services.rounds import record_round
from scoring.services.stages import close_stage, seat_next_stage
from scoring.sheets import table_sheet
from tests.factories import make_event, make_players, play, seat
from tournament.models import Event

pytestmark = pytest.mark.django_db

CATALOG = Path(settings.BASE_DIR) / "locale" / "fr" / "LC_MESSAGES" / "django.po"
SOURCES = ("tournament", "scoring", "templates")  # what `make messages` reads (not tests)


# -- the catalog --------------------------------------------------------------------------------


def untranslated(po) -> list[str]:
    """The msgids of a catalog with no French, or only a fuzzy (guessed) one."""
    missing = []
    for entry in po:
        if entry.obsolete:
            continue
        if entry.fuzzy:
            missing.append(f"fuzzy: {entry.msgid!r}")
        elif entry.msgid_plural:
            if not all(entry.msgstr_plural.get(i) for i in range(3)):
                missing.append(repr(entry.msgid))
        elif not entry.msgstr:
            missing.append(repr(entry.msgid))
    return missing


def test_every_marked_string_has_a_french_translation(tmp_path, monkeypatch, settings):
    # The sources, seen through links, and a copy of the catalog: makemessages updates the copy.
    for name in SOURCES:
        (tmp_path / name).symlink_to(Path(settings.BASE_DIR) / name, target_is_directory=True)
    shutil.copytree(CATALOG.parent.parent.parent, tmp_path / "locale")
    settings.LOCALE_PATHS = [tmp_path / "locale"]
    monkeypatch.chdir(tmp_path)
    call_command("makemessages", locale=["fr"], symlinks=True, no_obsolete=True, verbosity=0)
    po = polib.pofile(str(tmp_path / "locale" / "fr" / "LC_MESSAGES" / "django.po"))
    assert len(po) > 500  # the collection did read the sources
    missing = untranslated(po)
    assert not missing, (
        f"{len(missing)} string(s) have no French: run `make messages` and translate them in "
        "locale/fr/LC_MESSAGES/django.po:\n" + "\n".join(missing)
    )


def test_the_committed_catalog_keeps_every_placeholder():
    po = polib.pofile(str(CATALOG))
    placeholder = re.compile(r"%\([a-z_]+\)[0-9]*[a-zA-Z]|\{[a-z_]+\}|%[sd]")
    for entry in po:
        pairs = (
            [(entry.msgid, entry.msgstr)]
            if not entry.msgid_plural
            else [(entry.msgid_plural, s) for s in entry.msgstr_plural.values()]
        )
        for english, french in pairs:
            wanted = sorted(set(placeholder.findall(english)))
            if entry.msgid_plural:  # a singular may say "one" instead of its count
                assert set(placeholder.findall(french)) <= set(wanted) | set(
                    placeholder.findall(entry.msgid)
                ), entry.msgid
            else:
                assert sorted(set(placeholder.findall(french))) == wanted, entry.msgid


def test_the_untranslated_check_sees_a_missing_and_a_fuzzy_string():
    po = polib.POFile()
    po.append(polib.POEntry(msgid="Standings", msgstr="Classement"))
    po.append(polib.POEntry(msgid="New string", msgstr=""))
    po.append(polib.POEntry(msgid="Guessed", msgstr="Deviné", flags=["fuzzy"]))
    po.append(polib.POEntry(msgid="%(n)s round", msgid_plural="%(n)s rounds", msgstr_plural={}))
    assert untranslated(po) == [
        "'New string'",
        "fuzzy: 'Guessed'",
        "'%(n)s round'",
    ]


# -- what a French reader sees ------------------------------------------------------------------


def english_sentences() -> list[str]:
    """The site's English phrases (two words or more, no placeholder) whose French differs:
    none of them may show on a French page or PDF."""
    po = polib.pofile(str(CATALOG))
    return [
        e.msgid
        for e in po
        if not e.msgid_plural
        and e.msgstr != e.msgid
        and len(e.msgid.split()) >= 2
        and not re.search(r"%\(|\{|%s", e.msgid)
    ]


def visible_text(page: str) -> str:
    """A page's text as read on screen: no tags, scripts or attributes."""
    page = re.sub(r"(?s)<(script|style)\b.*?</\1>", " ", page)
    page = re.sub(r"(?s)<[^>]+>", " ", page)
    return " ".join(html.unescape(page).split())


def squash(text: str) -> str:
    return "".join(unicodedata.normalize("NFC", text).split())


def assert_no_english(text: str, squashed: bool = False):
    """No English sentence of the catalog in ``text``, as whole words ("a list" is English,
    "la liste" is not); ``squashed``: a PDF's text, compared without spaces."""
    if squashed:
        seen = squash(text)
        leaks = [s for s in english_sentences() if squash(s) in seen]
    else:
        leaks = [s for s in english_sentences() if re.search(rf"(?<!\w){re.escape(s)}(?!\w)", text)]
    assert not leaks, f"English left on a French page: {leaks}"


@pytest.fixture
def french_event(director):
    """A French club's event, created by a director browsing in French: Partie 1 under way
    (two tables, two of their three rounds played)."""
    with translation.override("fr"):
        event = make_event(
            director,
            name="Tournoi de Montréal",
            slug="montreal",
            date=datetime.date(2026, 3, 14),
            engines=[2, 1, 0],
        )
    names = ["Amélie Roy", "Benoît Côté", "Chloé Gagnon", "Denis Lévesque", "Élise Tremblay",
             "François Bouchard", "Gisèle Morin", "Hugo Pelletier"]  # fmt: skip
    make_players(event, names=names)
    stage = seat(event)
    for table in stage.tables.all():
        play(table, 2)
    return event


def french_get(client, path):
    response = client.get(path, HTTP_ACCEPT_LANGUAGE="fr-CA,fr;q=0.9,en;q=0.5")
    assert response.status_code == 200, path
    return response


@pytest.mark.parametrize(
    ("path", "words"),
    [
        ("/", ["Tournois", "Tournoi de Montréal", "14 mars 2026", "8 joueurs"]),
        ("/e/montreal/", ["Phases", "Partie 1", "Finale", "locomotives", "minutes par partie"]),
        ("/e/montreal/1/", ["Classement", "Manches jouées", "Place", "Feuilles de marque"]),
        ("/e/montreal/1/table/1/", ["Locomotive", "Total", "Feuille de marque (PDF)"]),
        ("/e/montreal/1/seating/", ["Table 1", "Table 2"]),
        ("/e/montreal/bracket/", ["Partie 1", "Finale"]),
        ("/e/montreal/results/", ["Télécharger", "Résultats (PDF)"]),
        ("/e/montreal/find/", ["Chercher"]),
        ("/records/", ["Records"]),
    ],
)
def test_public_pages_are_french_for_a_french_browser(client, french_event, path, words):
    page = french_get(client, path).content.decode()
    assert '<html lang="fr">' in page
    text = visible_text(page)
    for word in words:
        assert word in text, (path, word)
    assert "Train mexicain" in text and "Connexion des directeurs" in text
    assert_no_english(text)


DIRECTOR_PAGES = [
    "/director/tables/",
    "/director/new/",
    "/director/import/",
    "/director/e/montreal/edit/",
    "/director/e/montreal/players/",
    "/director/e/montreal/players/import/",
    "/director/e/montreal/scorekeepers/",
    "/director/e/montreal/history/",
    "/director/e/montreal/infractions/",
    "/director/e/montreal/1/dashboard/",
    "/director/e/montreal/1/close/",
    "/director/e/montreal/1/table/1/enter/",
    "/director/e/montreal/1/table/1/infraction/",
    "/director/e/montreal/1/table/1/round/1/correct/",
    "/director/e/montreal/1/table/1/round/2/remove/",
]


def test_director_pages_are_french_too(client, french_event, director):
    client.force_login(director)
    for path in DIRECTOR_PAGES:
        response = client.get(path, HTTP_ACCEPT_LANGUAGE="fr")
        assert response.status_code == 200, path
        text = visible_text(response.content.decode())
        assert "Mes tables" in text and "Déconnexion" in text, path
        assert_no_english(text)
    edit = visible_text(
        client.get("/director/e/montreal/edit/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    )
    assert "Règles du jeu" in edit and "langue des feuilles imprimées" in edit.lower()


def test_a_players_page_and_a_tables_phone_are_french(client, french_event):
    player = french_event.players.get(name="Amélie Roy")
    text = visible_text(french_get(client, f"/e/montreal/player/{player.pk}/").content.decode())
    assert "Parties" in text and "Partie 1" in text
    assert_no_english(text)
    Event.objects.filter(pk=french_event.pk).update(table_entry=True)
    table = french_event.stages.get(number=1).tables.get(seats__player=player)
    text = visible_text(french_get(client, f"/t/{table.code}/").content.decode())
    assert "Est-ce votre table ?" in text and "Amélie Roy" in text
    assert_no_english(text)
    client.post(f"/t/{table.code}/", {"player": player.pk}, HTTP_ACCEPT_LANGUAGE="fr")
    text = visible_text(french_get(client, f"/t/{table.code}/enter/").content.decode())
    assert "Enregistrer la manche" in text and "Signaler une infraction" in text
    assert_no_english(text)


def test_an_english_browser_gets_english(client, french_event):
    text = visible_text(client.get("/e/montreal/1/", HTTP_ACCEPT_LANGUAGE="en-US").content.decode())
    assert "Standings" in text and "Rounds played" in text and "Classement" not in text


def test_the_switch_on_every_page_sets_french_and_remembers_it(client, french_event):
    page = client.get("/e/montreal/1/").content.decode()  # no Accept-Language: English
    form = re.search(r'(?s)<form method="post" action="(/i18n/setlang/)"[^>]*>(.*?)</form>', page)
    assert form, "no language switch"
    assert (
        'name="language"' in form[2] and '<option value="fr" lang="fr">Français</option>' in form[2]
    )
    assert 'name="next" value="/e/montreal/1/"' in form[2]
    assert '<label class="visually-hidden" for="language-switch">Language</label>' in form[2]

    response = client.post(form[1], {"language": "fr", "next": "/e/montreal/1/"})
    assert response.status_code == 302 and response["Location"] == "/e/montreal/1/"
    cookie = response.cookies[settings.LANGUAGE_COOKIE_NAME]
    assert cookie.value == "fr" and int(cookie["max-age"]) >= 30 * 24 * 3600
    # Remembered over the browser's own language, on every page.
    for path in ["/", "/e/montreal/", "/e/montreal/1/", "/accounts/login/"]:
        page = client.get(path, HTTP_ACCEPT_LANGUAGE="en").content.decode()
        assert '<html lang="fr">' in page, path
        assert '<option value="fr" lang="fr" selected>Français</option>' in page, path
    client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    assert "Standings" in visible_text(client.get("/e/montreal/1/").content.decode())


def test_a_language_the_site_does_not_speak_is_ignored(client, french_event):
    response = client.post("/i18n/setlang/", {"language": "xx", "next": "/"})
    assert response.status_code == 302
    assert settings.LANGUAGE_COOKIE_NAME not in response.cookies
    assert '<html lang="en">' in client.get("/").content.decode()


def test_an_entry_page_keeps_iso_dates_and_plain_numbers_in_french(client, french_event, director):
    """French formats dates as 14/03/2026: the date picker must still get 2026-03-14, and the
    charts' coordinates must stay SVG numbers (12.5, never 12,5)."""
    client.force_login(director)
    edit = client.get("/director/e/montreal/edit/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert 'type="date"' in edit and 'value="2026-03-14"' in edit
    sheet = french_get(client, "/e/montreal/1/table/1/").content.decode()
    svg = re.search(r"(?s)<svg viewBox.*?</svg>", sheet)
    assert svg, "no chart"
    numbers = re.findall(r'(?:x|y|x1|x2|y1|y2|points)="([^"]*)"', svg[0])
    assert numbers and not any("," in n and " " not in n for n in numbers), numbers
    assert re.search(r'points="[0-9.]+,[0-9.]+ ', svg[0])


# -- French PDFs ---------------------------------------------------------------------------------


def pdf_text(response) -> str:
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    with pdfplumber.open(io.BytesIO(response.content)) as doc:
        return "\n".join(unicodedata.normalize("NFC", p.extract_text() or "") for p in doc.pages)


@pytest.fixture
def finished_french(french_event, director):
    """Partie 1 finished and closed, the final played (totals 0, 15, 30, ...) and closed."""
    game1 = french_event.stages.get(number=1)
    for table in game1.tables.all():
        play(table, 1)
    close_stage(game1, director)
    table = seat_next_stage(french_event).tables.get()
    for _ in range(3):
        players = table_sheet(table).players
        record_round(table, {p.pk: 5 * i for i, p in enumerate(players)}, None)
    close_stage(table.stage, director)
    return french_event


PDFS = [
    ("/e/montreal/1/table/1/sheet.pdf", ["Locomotive", "Points", "Marqueur (nom et signature)"]),
    ("/e/montreal/1/blank-sheets.pdf", ["Locomotive", "Points", "Fin du temps"]),
    ("/e/montreal/1/seating.pdf", ["Joueurs de A à Z", "Table par table", "14 mars 2026"]),
    ("/e/montreal/1/standings.pdf", ["Classement", "Place", "Total", "14 mars 2026"]),
    ("/e/montreal/results.pdf", ["Résultats", "Médaille", "Or", "Argent", "Bronze", "Finale"]),
    ("/e/montreal/bracket.pdf", ["Tableau", "Partie 1", "Finale"]),
]


@pytest.mark.parametrize(("path", "words"), PDFS)
def test_pdfs_are_french_for_a_french_reader(client, finished_french, path, words):
    text = pdf_text(client.get(path, HTTP_ACCEPT_LANGUAGE="fr"))
    for word in words:
        assert squash(word) in squash(text), (path, word)
    assert_no_english(text, squashed=True)


def test_the_event_prints_its_sheets_in_its_own_language(client, director_client, finished_french):
    event = Event.objects.get(slug="montreal")
    form = {
        "name": event.name, "date": "2026-03-14", "venue": "", "set_size": 12, "engines": "2, 1, 0",
        "tiles_drawn": "2:15, 3:15, 4:15, 5:15", "table_size": 4, "game_minutes": 60,
        "round_in_progress": "finish", "double_blank_points": 0, "advancement_tie": "all_advance",
        "medal_tie": "nvso", "infraction_penalty": "warn_then_draw", "infraction_scope": "game",
        "paper_size": "letter", "sheet_language": "fr",
    }  # fmt: skip
    response = director_client.post("/director/e/montreal/edit/", form)
    assert response.status_code == 302
    event.refresh_from_db()
    assert event.sheet_language == "fr"
    # An English reader prints French sheets; the page around them stays English.
    text = pdf_text(client.get("/e/montreal/1/standings.pdf", HTTP_ACCEPT_LANGUAGE="en"))
    assert "Classement" in text and "standings" not in text.lower()
    assert "Standings" in visible_text(
        client.get("/e/montreal/1/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    )
    # And the other way round.
    director_client.post("/director/e/montreal/edit/", {**form, "sheet_language": "en"})
    text = pdf_text(client.get("/e/montreal/results.pdf", HTTP_ACCEPT_LANGUAGE="fr"))
    assert "Results" in text and "Gold" in text and "Résultats" not in text
    # A language the site does not speak is refused by the form, nothing saved.
    response = director_client.post("/director/e/montreal/edit/", {**form, "sheet_language": "de"})
    assert response.status_code == 200
    event.refresh_from_db()
    assert event.sheet_language == "en"


def test_the_reader_language_is_the_default(finished_french):
    assert Event._meta.get_field("sheet_language").default == ""
    assert Event.objects.get(slug="montreal").sheet_language == ""


# -- what the rules refuse, said in French -------------------------------------------------------


def test_the_rules_refusals_are_french_on_french_pages(director_client, event):
    """The plain-Python rules (rule set, clock, seating) say why in English; a French page shows
    it in French, through the forms and buttons a director uses."""
    fr = {"HTTP_ACCEPT_LANGUAGE": "fr"}
    form = {
        "name": "Tournoi", "date": "2026-09-19", "venue": "", "set_size": 12,
        "engines": "12, 13", "tiles_drawn": "2:15, 3:15, 4:15, 5:15", "table_size": 4,
        "game_minutes": 60, "round_in_progress": "finish", "double_blank_points": 0,
        "advancement_tie": "all_advance", "medal_tie": "nvso",
        "infraction_penalty": "warn_then_draw", "infraction_scope": "game",
        "paper_size": "letter", "sheet_language": "",
    }  # fmt: skip
    page = director_client.post("/director/new/", form, **fr).content.decode()
    assert "La locomotive 13 n&#x27;est pas un double du jeu double-12 (0 à 12)." in page
    assert "Ces règles ne permettent ni de distribuer ni de jouer" in page
    assert "is not a double" not in page

    make_players(event, count=1)
    page = director_client.post("/director/e/spring/1/seat/", follow=True, **fr).content.decode()
    assert "Le placement demande au moins 2 joueurs ; 1 présent(s)." in page

    page = director_client.post(
        "/director/e/spring/1/clock/", {"action": "pause"}, follow=True, **fr
    ).content.decode()
    assert "Le chronomètre n&#x27;a pas été démarré" in page
    # The same refusal in English for an English reader.
    page = director_client.post("/director/e/spring/1/clock/", {"action": "pause"}, follow=True)
    assert "The clock has not been started" in page.content.decode()


def test_the_sheet_language_travels_in_the_event_file(director_client, finished_french):
    from scoring.eventfile import EventFileError, dumps, export_event, import_event

    Event.objects.filter(slug="montreal").update(sheet_language="fr")
    data = export_event(Event.objects.get(slug="montreal"))
    assert data["event"]["extra"]["sheet_language"] == "fr"
    Event.objects.all().delete()
    assert import_event(dumps(data)).sheet_language == "fr"
    # Not set: not written, and read back as the reader's language.
    Event.objects.update(sheet_language="")
    data = export_event(Event.objects.get())
    assert "sheet_language" not in data["event"]["extra"]
    Event.objects.all().delete()
    assert import_event(dumps(data)).sheet_language == ""
    data["event"]["extra"]["sheet_language"] = "de"
    with pytest.raises(EventFileError) as refused:
        import_event(dumps(data))
    assert 'event.extra.sheet_language: "de" is not one of' in str(refused.value)
    assert Event.objects.count() == 1  # nothing imported
