"""Every page of the site in French (issue 45 item 10): a site with the demos, events of each
format in progress and finished, a series and ratings, every URL the site has opened as a
visitor, a table's phone, a scorekeeper and a director, and the pages a form's post leads to.
A page fails on a server error, on English left (a word of the site's English that French does
not use, once the names people typed are taken out), on "None" printed, on a count whose word
does not agree with its number ("1 présents", "21 présent"), on "division" (French says
"catégorie") and on ":" or ";" with no space before it.
"""

from __future__ import annotations

import datetime
import html
import io
import json
import re
from collections import defaultdict
from html.parser import HTMLParser
from pathlib import Path

import polib
import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db.models import Q
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone
from PIL import Image

from scoring.eventfile import import_event
from scoring.models import (
    ImportJob,
    ImportStatus,
    Infraction,
    InfractionReport,
    PrintJob,
    Rating,
    Round,
    Series,
    SeriesEvent,
    SheetPhoto,
    SheetReading,
)
from scoring.services.infractions import change_infraction, log_infraction
from scoring.services.ratings import compute_ratings
from scoring.services.series import create_series
from tests.factories import make_director, make_event, make_players, play, seat
from tests.importing import preview_fields
from tests.season import play_season
from tests.test_advancement import play_totals
from tests.test_translations import CATALOG, pdf_text
from tournament.models import (
    Action,
    ClockEvent,
    Event,
    ListReading,
    Player,
    Signup,
    Stage,
    Table,
)
from tournament.services.clock import start_clock
from tournament.services.events import assign_scorekeeper
from tournament.services.players import check_in
from tournament.services.seating import seat_late_arrival, withdraw_player
from tournament.services.signup import sign_up

pytestmark = pytest.mark.django_db

FR = {"HTTP_ACCEPT_LANGUAGE": "fr-CA,fr;q=0.9,en;q=0.5"}
PASSWORD = "a-Long-pass-phrase-42"
DATA = Path(__file__).parent / "data"


# -- the site ------------------------------------------------------------------------------------


def build_site(settings) -> dict:
    """The demos (a knockout's Game 1 under way, a cumulative club night's Game 3 under way), a
    season of finished nights of each format in a series (a cut playoff, late arrivals,
    players who withdrew), an event finished after medal playoffs and a replay, one with a
    bronze playoff to play, one under way with phones at its tables, one whose Game 1 is played
    and not closed, one just opened with players to check in; ratings and background jobs."""
    director = make_director("director", PASSWORD)  # the demos' director
    call_command("load_demo", stdout=io.StringIO())
    season = create_series(Series(name="Saison des clubs", slug="saison"), director)
    play_season(director, 3, season)
    pending = (DATA / "nvso-tie-for-gold-bronze-pending.json").read_bytes()
    import_event(pending, director=director, slug="barrage")
    medals = (DATA / "playoff-medals-with-replay.json").read_bytes()
    medals = import_event(medals, director=director, slug="medailles")
    SeriesEvent.objects.create(series=season, event=medals)
    live = under_way(director)
    played = make_event(director, name="Soirée de clôture", slug="cloture",
                        advancement_tie="playoff", engines=[1, 0])  # fmt: skip
    make_players(played, names=[f"Joueur {chr(65 + i)}" for i in range(8)])
    for table in seat(played).tables.order_by("number"):
        play_totals(table, [10, 10, 20, 30] if table.number == 1 else [5, 15, 25, 35])
    coming = make_event(director, name="Soirée à venir", slug="a-venir", signup_open=True,
                        signup_capacity=9, signup_approval=False)  # fmt: skip
    make_players(coming, checked_in=False)
    sign_up(coming, name="Inscrite Un", club="Club des Érables")  # registered
    sign_up(coming, name="Inscrite Deux")  # the last place
    sign_up(coming, name="Inscrite Trois")  # on the waitlist
    keeper = get_user_model().objects.create_user("marqueuse", password=PASSWORD)
    assign_scorekeeper(live, keeper.username, live.stages.get(number=1).tables.filter(number=1))
    ImportJob.objects.create(by=director, status=ImportStatus.DONE, event=live)
    errors = [["players[3].id", "« p1 » est déjà l'id de players[0]"], ["stages[0]", "manquant"]]
    ImportJob.objects.create(by=director, status=ImportStatus.FAILED, errors=errors, error_count=3)
    ListReading.objects.create(event=live, by=director, status="reading", language="fr")
    compute_ratings()
    settings.RATING_MIN_GAMES = 1
    return {"director": director, "keeper": keeper, "live": live}


def under_way(director) -> Event:
    """A knockout's Game 1 under way, the clock running: phones enter rounds; a late arrival
    seated, a player withdrawn, one not checked in; infractions of each action."""
    event = make_event(director, name="Tournoi de Québec", slug="quebec", table_entry=True,
                       late_arrivals=True)  # fmt: skip
    make_players(event, names=[f"Joueuse {chr(65 + i)}" for i in range(12)])
    late, absent = make_players(event, names=["Joueuse Retard", "Joueuse Absente"],
                                checked_in=False)  # fmt: skip
    stage = seat(event, players=event.players.exclude(pk__in=[late.pk, absent.pk]))
    start_clock(stage, director, now=timezone.now() - datetime.timedelta(minutes=20))
    t1, t2, t3 = stage.tables.order_by("number")
    for table in (t2, t3):
        play(table, 2, director)
    check_in(event, [late.pk], True, director)
    seat_late_arrival(stage, Player.objects.get(pk=late.pk), t3, director)
    withdraw_player(t2.seats.order_by("position").last().player, director, "malade")
    someone = t2.seats.order_by("position").first().player
    logged = [
        log_infraction(t2, someone, 11, kind, "vue par l'arbitre", director)
        for kind in ["wrong_tile", "out_of_turn", "drew_with_playable"]
    ]  # a warning, then penalty draws: one changed to a skipped turn, one voided
    change_infraction(logged[1], "skip_turn", "décision de l'arbitre", director)
    change_infraction(logged[2], "void", "erreur de saisie", director)
    return event


# -- every URL the site has ----------------------------------------------------------------------

# URLs no GET opens here, each with why.
NOT_OPENED = {
    "event_stream": "a stream held open for a phone's updates, not a page",
    "set_language": "the language switch: a post",
    "favicon.ico": "a redirect to the icon",
    "sheet_reading_cell": "a cell of a sheet's photo, a JPEG: no words",
}
PARAM = re.compile(r"<(?:\w+:)?(\w+)>")
# The events whose PDFs are read (a PDF takes a second): a knockout under way (phones, an
# infraction of each action, a late arrival, a withdrawal), a cumulative event under way, and
# finished ones: a cumulative event with a Final and withdrawals, a knockout after medal
# playoffs and a replay.
PDF_EVENTS = ["quebec", "demo-club-night", "final-evening-3", "medailles"]
# A blank sheet is a filled sheet with its numbers left out: one of each is read.
PDF_CAP = {"stage_blank_sheets_pdf": 1, "table_blank_sheet_pdf": 1}


def url_patterns(resolver=None, prefix: str = ""):
    """(name, route) of every URL of the site but the admin's."""
    resolver = resolver or get_resolver()
    for entry in resolver.url_patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            if not route.startswith("admin/"):
                yield from url_patterns(entry, route)
        elif isinstance(entry, URLPattern):
            yield entry.name or route, route


def sample_stages(event: Event) -> list[Stage]:
    """The first and last stage, and one of each kind and state (a playoff played or to play,
    a semifinal, a stage under way, one not seated yet)."""
    stages = list(event.stages.order_by("number"))
    seated = set(Table.objects.filter(stage__event=event).values_list("stage_id", flat=True))
    chosen, seen = [], set()
    for i, stage in enumerate(stages):
        shape = (stage.kind, stage.closed, stage.pk in seated)
        if shape not in seen or i in (0, len(stages) - 1):
            seen.add(shape)
            chosen.append(stage)
    return chosen


def sample_players(event: Event) -> list[Player]:
    """Two players of the event, the ones with most to say: an infraction, a playoff, a
    withdrawal, a late arrival, not checked in; else the first."""
    players = event.players.order_by("pk")
    picks = [
        players.filter(pk__in=Infraction.objects.values("player")).first(),
        players.filter(seats__stage__kind="playoff").first(),
        players.filter(withdrawn=True).first(),
        players.filter(seats__joined_at__gt=1).first(),
        players.filter(checked_in=False).first(),
        players.first(),
    ]
    return list({p.pk: p for p in picks if p is not None}.values())[:2]


def sample_tables(stage: Stage) -> list[Table]:
    """Table 1, and a table with an infraction, a phone's report or a photo."""
    tables = Table.objects.filter(stage=stage).order_by("number")
    busy = tables.filter(
        Q(infractions__isnull=False) | Q(infraction_reports__isnull=False) | Q(photos__isnull=False)
    )
    return list({t.pk: t for t in [tables.first(), busy.first()] if t is not None}.values())


def kwargs_for(name: str, route: str) -> list[dict]:
    """The values of the URL's parameters the site's objects give (a sample of each kind of
    player, stage, table and round; an address that names nothing)."""
    params = set(PARAM.findall(route))
    if not params:
        return [{}]
    if route.startswith(("s/", "director/s/")):
        series = list(Series.objects.order_by("pk"))
        if params == {"slug"}:
            return [{"slug": s.slug} for s in series] + [{"slug": "nulle-part"}]
        one = SeriesEvent.objects.select_related("series", "event").first()
        return [{"slug": one.series.slug, "event": one.event.slug}]
    if params == {"code"}:
        return [{"code": c} for c in [Table.objects.exclude(code="").first().code, "WRONGCODE"]]
    if params == {"code", "number"}:
        waiting = Round.objects.filter(awaiting_confirmation=True).select_related("table")
        return [{"code": r.table.code, "number": r.number} for r in waiting[:1]]
    if params == {"code", "pk"}:
        photos = SheetPhoto.objects.exclude(table__code="").select_related("table")
        return [{"code": p.table.code, "pk": p.pk} for p in photos[:1]]
    if params == {"pk"}:
        return [{"pk": job.pk} for job in ImportJob.objects.order_by("pk")]
    if params == {"slug", "token"}:  # a registrant's private page, and a link not the site's
        signups = Signup.objects.select_related("event").order_by("pk")
        return [{"slug": s.event.slug, "token": s.token} for s in signups] + [
            {"slug": "a-venir", "token": "pas-un-lien"}
        ]
    out = []
    for event in Event.objects.order_by("pk"):
        if route.endswith(".pdf") and event.slug not in PDF_EVENTS:
            continue
        out += event_kwargs(name, params, event, pdf=route.endswith(".pdf"))
    if params == {"slug"}:
        out.append({"slug": "nulle-part"})
    return out


def event_kwargs(name: str, params: set, event: Event, pdf: bool) -> list[dict]:
    slug = event.slug
    if params == {"slug"}:
        return [{"slug": slug}]
    if params == {"slug", "pk"}:
        if name == "infraction_change":
            picks = Infraction.objects.filter(table__stage__event=event).order_by("pk")[:2]
        elif name == "players_import_reading":
            picks = ListReading.objects.filter(event=event)
        else:
            picks = sample_players(event)
        return [{"slug": slug, "pk": p.pk} for p in picks]
    out = []
    stages = sample_stages(event)
    if pdf:  # a second each: the first stage and the last
        stages = list({s.pk: s for s in stages[:1] + stages[-1:]}.values())
    for stage in stages:
        at = {"slug": slug, "stage": stage.number}
        if params == {"slug", "stage"}:
            out.append(at)
        elif params == {"slug", "stage", "pk"}:
            out += [{**at, "pk": job.pk} for job in PrintJob.objects.filter(stage=stage)]
        else:
            out += table_kwargs(name, params, at, stage)[: 1 if pdf else None]
    return out


def table_kwargs(name: str, params: set, at: dict, stage: Stage) -> list[dict]:
    out = []
    for table in sample_tables(stage):
        here = {**at, "table": table.number}
        if params == {"slug", "stage", "table"}:
            out.append(here)
        elif params == {"slug", "stage", "table", "round"}:
            last = table.rounds.order_by("number").last()
            out += [{**here, "round": last.number}] if last else []
        elif name == "infraction_report":
            out += [{**here, "pk": r.pk} for r in InfractionReport.objects.filter(table=table)]
        elif name == "sheet_reading":  # a photo of the sheet read (tests/test_sheet_confirm.py)
            out += [{**here, "pk": r.pk} for r in SheetReading.objects.filter(table=table)]
        else:
            out += [{**here, "pk": p.pk} for p in SheetPhoto.objects.filter(table=table)]
    return out


def site_urls() -> dict[str, list[str]]:
    """Every URL of the site with the sample's values, by URL name."""
    urls = {}
    for name, route in url_patterns():
        if name not in NOT_OPENED:
            urls[name] = [
                "/" + PARAM.sub(lambda m, kw=kw: str(kw[m[1]]), route)
                for kw in kwargs_for(name, route)
            ][: PDF_CAP.get(name)]
    return urls


def asked_urls() -> tuple[list[str], list[str]]:
    """Pages as a question makes them (a search, a filter, a choice): the public's and the
    directors'."""
    rated = Rating.objects.select_related("player__event").order_by("-games", "pk").first()
    mine = f"/e/{rated.player.event.slug}/player/{rated.player_id}/"
    code = Table.objects.exclude(code="").first().code
    public = [
        "/records/?series=saison",
        "/ratings/?q=Joueuse",
        "/ratings/?q=personne",
        "/e/quebec/find/?q=Joueuse",
        "/e/quebec/find/?q=personne",
        "/e/demo/1/?sort=name",
        f"{mine}?add=personne",  # an opponent the rating finds nobody for
        f"{mine}?vs={rated.player_id}",
        f"/t/{code}/?change=1",
    ]
    directors = [
        "/director/e/quebec/desk/?q=personne",
        "/director/e/quebec/infractions/?kind=wrong_tile",
        "/director/e/quebec/1/close/?allow=5",
        "/e/quebec/1/seating/?allow=5",
    ]
    return public, directors


def role_urls(urls: dict[str, list[str]], role: str) -> list[str]:
    """What each role opens: a director everything; a visitor every page but the directors'
    (one of them: the log-in it leads to); a table's phone its table and its event's pages; a
    scorekeeper their tables and every page of their event (the directors' refused)."""
    every = [url for paths in urls.values() for url in paths]
    public, directors = asked_urls()
    if role == "director":
        return every + public + directors
    if role == "visitor":
        return [u for u in every if not u.startswith("/director/")] + public + ["/director/tables/"]
    if role == "phone":
        return [u for u in every + public if u.startswith(("/t/", "/e/quebec/"))]
    return [u for u in every if "/e/quebec/" in u or u.startswith(("/director/tables/", "/acc"))]


# -- what a French reader must not meet ----------------------------------------------------------

WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
# What a catalog's text holds that is not words a reader reads: placeholders, tags, entities,
# quoted keys and dotted names of the event file ("event.format.kind", "gold").
NOT_WORDS = re.compile(
    r"%\([a-z_]+\)[0-9]*[sd]|\{[a-z_]+\}|%[sd]|<[^>]+>|&\w+;|\"[^\"]*\"|“[^”]*”|«[^»]*»"
    r"|\b\w+(?:[._\[\]]+\w+)+\b"
)
# English words the catalog's English may not hold, a French page must not show either.
MORE_ENGLISH = {"none", "the", "and", "of", "with", "semicolons", "commas", "tabs", "whole"}


def words(text: str) -> set[str]:
    return {w.lower() for w in WORD.findall(NOT_WORDS.sub(" ", text)) if len(w) > 1}


def english_only_words() -> set[str]:
    """Words of the site's English that its French never uses ("game", "warning"), from the
    catalog: a French page that shows one left something in English."""
    english, french = set(MORE_ENGLISH), set()
    for entry in polib.pofile(str(CATALOG)):
        english |= words(entry.msgid) | words(entry.msgid_plural or "")
        if all(path.startswith(FILE_KEYS) for path, _line in entry.occurrences):
            continue  # its French names the event file's keys: "kind", "players", "true"
        french |= words(entry.msgstr)
        for text in entry.msgstr_plural.values():
            french |= words(text)
    return english - french


# Where the catalog's French names the keys of the event and series files, as they are.
FILE_KEYS = ("scoring/eventfile/", "scoring/forms/seriesfile", "scoring/views/seriesfile")


def typed_names() -> list[str]:
    """What people typed, which a page shows as typed: names of events, venues, players,
    clubs, divisions, series, users; notes and reasons."""
    values = set()
    for model, fields in [
        (Event, ["name", "venue"]),
        (Player, ["name", "club", "division"]),
        (Series, ["name"]),
        (get_user_model(), ["username"]),
        (Infraction, ["note", "change_reason"]),
        (InfractionReport, ["note"]),
        (Action, ["reason"]),
        (ClockEvent, ["reason"]),
    ]:
        for row in model.objects.values_list(*fields):
            values |= {v for v in row if v}
    values |= set(Stage.objects.filter(auto_name={}).values_list("name", flat=True))
    return sorted(values, key=len, reverse=True)


def without(text: str, names: list[str]) -> str:
    """``text`` with every typed name taken out (spaces in a name may be a PDF's line break)."""
    for name in names:
        if name in text or len(name.split()) > 1:
            pattern = r"\s+".join(re.escape(part) for part in name.split())
            text = re.sub(rf"(?<!\w){pattern}(?!\w)", " ¶ ", text)
    return text


def page_text(content: str) -> str:
    """What a page says to a reader: its text (a cell, a line, an item, a label, each apart),
    what its scripts show (their JSON's sentences), and the labels, titles and placeholders
    read by a screen reader or in a tooltip."""
    shown = [
        text
        for data in re.findall(
            r'(?s)<script[^>]*type="application/json"[^>]*>(.*?)</script>', content
        )
        for text in strings(json.loads(html.unescape(data)))
        if not re.fullmatch(r"[a-z0-9_]*", text)  # a state's name: "paused", "not_started"
    ]
    said = re.findall(r'\s(?:aria-label|title|placeholder|alt|data-confirm)="([^"]*)"', content)
    content = re.sub(r"(?s)<(script|style)\b.*?</\1>", " ", content)
    content = re.sub(r'(?s)<(\w+)[^>]*\slang="en"[^>]*>.*?</\1>', " ", content)  # "English"
    content = re.sub(r"(?s)<!--.*?-->", " ", content)
    content = re.sub(BLOCK, " ⁞ ", content)
    content = re.sub(r"(?s)<[^>]+>", " ", content)
    return " ".join(html.unescape(" ⁞ ".join([content, *shown, *said])).split())


# Where a page's text breaks: what is on either side is not one phrase ("Ligne 2 | nouveau").
BLOCK = re.compile(
    r"(?i)</?(?:td|th|tr|li|p|div|br|label|option|h\d|button|dt|dd|legend|caption|ul|ol)\b[^>]*>"
)


def strings(data) -> list[str]:
    if isinstance(data, str):
        return [data]
    if isinstance(data, dict):
        return [s for v in data.values() for s in strings(v)]
    if isinstance(data, list):
        return [s for v in data for s in strings(v)]
    return []


class Reader:
    """Reads pages as a French reader, and keeps what is wrong with each."""

    def __init__(self):
        self.english = english_only_words()
        self.names: list[str] = []
        self.findings: list[str] = []

    def names_changed(self):
        self.names = typed_names()
        self.name_words = {w for name in self.names for w in WORD.findall(name)}

    def read(self, where: str, text: str, pdf: bool = False) -> None:
        """Find what is wrong in ``text``, a page's (or ``pdf``: a PDF's, whose lines break a
        typed name anywhere: its words are each taken as typed)."""
        text = MACHINE.sub(" ", without(text, self.names))
        for match in WORD.finditer(text):
            word = match[0]
            if word.lower() in self.english and not (pdf and word in self.name_words):
                self.found(where, f"English {word!r}", text, match)
        for match in re.finditer(r"\bNone\b", text):
            self.found(where, "None", text, match)
        for problem, match in disagreeing_counts(text):
            self.found(where, f"{problem} {match[0]!r}", text, match)
        for match in re.finditer(r"(?i)\bdivisions?\b", text):
            self.found(where, "“division” (French says catégorie)", text, match)
        for match in GLUED.finditer(text):
            self.found(where, f"no space before {match[0]!r}", text, match)

    def found(self, where: str, what: str, text: str, match: re.Match) -> None:
        context = text[max(0, match.start() - 60) : match.end() + 40].replace("\n", "⏎")
        self.findings.append(f"{where}: {what} in …{context}…")


# French puts a space before ":", ";", "?" and "!" ("Total : 12"), never "Total: 12".
GLUED = re.compile(r"(?<=[^\s\u00a0\u202f⁞])[:;?!](?=[\s⁞]|$)")
# Not words a reader reads: placeholders a script fills, addresses and time zones, names of
# states and of the event file's fields ("{value}", "America/New_York", "not_started",
# "players[3].id"), and what the site generates of letters and digits mixed: a password, a
# code ("P2IS36HseJ00" holds no English "IS").
MACHINE = re.compile(
    r"\{\w+\}|%\(\w+\)[sd]|\S*/\S*|\S*\w[_.\[\]]+\w\S*"
    r"|(?<!\S)(?=[\w-]*\d)(?=[\w-]*[^\W\d_])[\w-]{6,}(?!\S)"
)


def counted_words() -> tuple[set[str], set[str]]:
    """The French plural words the catalog puts after a count ("joueurs", "présents",
    "modifiés") and their singulars: "1 présents" and "21 présent" do not agree."""
    counted, french = set(), set()
    after = re.compile(r"%\(\w+\)[sd](?:\s*</?\w+[^>]*>)*[\s\u00a0]+([^\W\d_]+)")
    for entry in polib.pofile(str(CATALOG)):
        for text in [entry.msgstr, *entry.msgstr_plural.values()]:
            french |= words(text)
            counted |= {w.lower() for w in after.findall(text)}
    plural = {
        w for w in counted if w.endswith(("s", "x")) and w[:-1] in french and w not in NOT_PLURAL
    }
    return plural, {w[:-1] for w in plural}


NOT_PLURAL = {"des", "les", "ces", "mes", "ses", "nos", "vos", "aux", "mois", "dans", "sous"}
# A count and the word after it: in running text, the word in lower case ("2026 Partie 1" is
# a date and a heading).
COUNT = re.compile(r"(?<![\w.,/:'’-])(\d+)[ \u00a0\u202f]+([^\W\d_]+)(?![\w'’-])")
PLURAL, SINGULAR = counted_words()


def disagreeing_counts(text: str):
    """Each count whose word does not agree with its number (0 and 1 are singular in French)."""
    for match in COUNT.finditer(text):
        n, word = int(match[1]), match[2]
        if not word[0].islower():
            continue
        if n <= 1 and word in PLURAL:
            yield "a plural after 0 or 1", match
        elif n >= 2 and word in SINGULAR:
            yield "a singular after 2 or more", match


# -- the forms, posted as a browser posts them ---------------------------------------------------


class Forms(HTMLParser):
    """A page's forms: each one's action and what it sends as shown (hidden fields, values
    typed, options selected, boxes ticked)."""

    def __init__(self, page: str):
        super().__init__()
        self.forms: list[dict] = []
        self.select = None
        self.textarea = None
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self.forms.append({"action": a.get("action") or "", "id": a.get("id"), "data": {}})
            return
        if not self.forms:
            return
        data = self.forms[-1]["data"]
        name = a.get("name")
        if tag == "input" and name and name != "csrfmiddlewaretoken":
            kind = a.get("type", "text")
            if kind in ("checkbox", "radio"):
                if "checked" in a:
                    data[name] = a.get("value", "on")
            elif kind not in ("submit", "button", "file"):
                data[name] = a.get("value", "")
        elif tag == "select":
            self.select = name
        elif tag == "option" and self.select and ("selected" in a or self.select not in data):
            data[self.select] = a.get("value", "")
        elif tag == "textarea" and name:
            self.textarea = name
            data[name] = ""

    def handle_endtag(self, tag):
        if tag == "select":
            self.select = None
        elif tag == "textarea":
            self.textarea = None

    def handle_data(self, text):
        if self.textarea and self.forms:
            self.forms[-1]["data"][self.textarea] += text


def submit(client: Client, page_url: str, action: str, files=None, **data):
    """Open ``page_url``, post its form whose action (or id) is ``action`` with ``data``
    changed, and follow to the page the post leads to."""
    page = client.get(page_url)
    assert page.status_code == 200, page_url
    forms = Forms(page.content.decode()).forms
    form = next((f for f in forms if action in (f["action"], f["id"])), None)
    assert form is not None, (page_url, action, [f["action"] or f["id"] for f in forms])
    posted = {**form["data"], **data, **(files or {})}
    return client.post(form["action"] or page_url, posted, follow=True)


def jpeg() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (400, 300), (245, 243, 236)).save(out, "JPEG")
    return out.getvalue()


REGISTRATION = (
    "Nom;Prénom;Date de naissance;Club;Courriel\n"
    "Lévesque;Anne;1950-04-02;Québec;anne@exemple.ca\n"
    "Roy;Benoît;1948-11-20;Québec;\n"
    "Côté;Chloé;1944-01-15;Lévis;\n"
    "Gagnon;Denis;1939-07-30;Lévis;\n"
    "Pelletier;Hugo;1952-02-11;;\n"
    "Morin;Gisèle;1946-09-09;Québec;\n"
    "Lévesque;Anne;1950-04-02;Québec;anne@exemple.ca\n"
).encode()


def post_forms(built: dict, roles: dict[str, Client], site) -> None:
    """The forms of each role, posted as a browser posts them; the page each leads to is read
    (its message, or the form's errors)."""
    phone, keeper, boss = roles["phone"], roles["scorekeeper"], roles["director"]
    game1 = built["live"].stages.get(number=1)
    t1, t3 = game1.tables.get(number=1), game1.tables.get(number=3)
    players = [s.player for s in t1.seats.order_by("position")]
    # A table's phone: a round (the second player confirms it), an infraction, a photo.
    terminal = f"/t/{t1.code}/enter/"
    values = {f"p{p.pk}": v for p, v in zip(players, [0, 12, 7, 30], strict=True)}
    site.posted("phone", terminal, submit(phone, terminal, "round-form", **values))
    report = f"/t/{t1.code}/infraction/"
    report = submit(phone, terminal, report, player=players[1].pk, kind="other")
    site.posted("phone", f"/t/{t1.code}/infraction/", report)
    photo = {"photo": SimpleUploadedFile("feuille.jpg", jpeg(), content_type="image/jpeg")}
    photos = f"/t/{t1.code}/photos/"
    site.posted("phone", photos, submit(phone, terminal, photos, files=photo))
    # The scorekeeper and the director log infractions; a round without its pips is refused.
    page = "/director/e/quebec/1/table/{}/infraction/"
    logged = submit(keeper, page.format(1), "infraction-form", player=players[2].pk,
                    kind="out_of_turn", engine=12)  # fmt: skip
    site.posted("scorekeeper", page.format(1), logged)
    logged = submit(boss, page.format(3), "infraction-form", kind="wrong_tile", engine=11,
                    player=t3.seats.first().player_id)  # fmt: skip
    site.posted("director", page.format(3), logged)
    enter = "/director/e/quebec/1/table/3/enter/"
    site.posted("director", enter, submit(boss, enter, "round-form"), refused=True)
    # A photo read by the camera: not a sheet, refused with its reason (the reading's page).
    photo = {"photo": SimpleUploadedFile("feuille.jpg", jpeg(), content_type="image/jpeg")}
    enter = "/director/e/quebec/1/table/1/enter/"  # table 1: in the sample
    site.posted("director", enter, submit(boss, enter, "read-sheet-form", files=photo))
    # The desk: a tap without the script, the undo page, a tap as the script sends it.
    absent = built["live"].players.get(name="Joueuse Absente")
    check_in = "/director/e/quebec/players/check-in/"
    tap = {"player": absent.pk, "checked_in": "1", "back": "desk", "q": ""}
    site.posted("director", check_in, boss.post(check_in, tap, follow=True))
    uncheck = f"/director/e/quebec/players/{absent.pk}/uncheck/"
    site.posted("director", uncheck, submit(boss, uncheck, "uncheck-form", reason="erreur"))
    answer = boss.post(check_in, tap, HTTP_ACCEPT="application/json")
    site.read("director", f"{check_in} (JSON)", " ⁞ ".join(strings(answer.json())))
    for url, data in [
        ("/director/e/quebec/1/print/", {"blank": "1"}),
        ("/director/e/quebec/scorekeepers/", {"username": "marqueur2", "tables": [t3.pk]}),
        ("/director/e/quebec/1/clock/", {"action": "pause"}),
        ("/director/e/cloture/1/close/", {}),  # the Final seated
    ]:
        site.posted("director", url, boss.post(url, data, follow=True))
    # A registration list as a French club's system exports it: the preview, the import; the
    # players checked in together, one changed, Game 1 drawn.
    Event.objects.filter(slug="a-venir").update(age_brackets="50-59, 60-69, 70-79, 80+")
    upload = "/director/e/a-venir/players/import/"
    csv = SimpleUploadedFile("inscriptions.csv", REGISTRATION)
    preview = boss.post(upload, {"pasted": "", "file": csv}, follow=True)
    site.posted("director", upload, preview)
    confirm = "/director/e/a-venir/players/import/preview/"
    fields = {**preview_fields(preview.content.decode()), "action": "confirm"}
    site.posted("director", confirm, boss.post(confirm, fields, follow=True))
    everyone = list(Player.objects.filter(event__slug="a-venir").values_list("pk", flat=True))
    url = "/director/e/a-venir/players/check-in/"
    site.posted("director", url, boss.post(url, {"player": everyone, "checked_in": "1"},
                                           follow=True))  # fmt: skip
    url = f"/director/e/a-venir/players/{everyone[0]}/"
    site.posted("director", url, submit(boss, url, "player-edit-form", club="Lévis"))
    url = "/director/e/a-venir/1/seat/"
    site.posted("director", url, boss.post(url, {}, follow=True))
    # A new event and a new series, from their forms.
    made = submit(boss, "/director/new/", "", name="Tournoi d'automne", date="2026-10-03")
    site.posted("director", "/director/new/", made)
    made = submit(boss, "/director/s/new/", "", name="Circuit d'automne", slug="automne")
    site.posted("director", "/director/s/new/", made)


# -- reading every page --------------------------------------------------------------------------


def french_client(user=None) -> Client:
    client = Client(raise_request_exception=False, **FR)
    if user is not None:
        client.force_login(user)
    return client


def phone_client(table: Table) -> Client:
    """A table's phone, its language chosen on the switch: the code on the sheet, then the
    player holding it."""
    client = Client(raise_request_exception=False)
    client.post("/i18n/setlang/", {"language": "fr", "next": "/"})
    client.get(f"/t/{table.code}/")
    player = table.seats.order_by("position").first().player
    client.post(f"/t/{table.code}/", {"player": player.pk})
    return client


class Site:
    """The pages read so far, and what is wrong with them."""

    def __init__(self):
        self.reader = Reader()
        self.opened: dict[str, list[int]] = defaultdict(list)  # the statuses, by role

    def read(self, role: str, url: str, response) -> None:
        if isinstance(response, str):  # what a script shows
            self.reader.read(f"{role} {url}", response)
            return
        status = response.status_code
        self.opened[role].append(status)
        where = f"{role} {url} ({status})"
        if status >= 500:
            self.reader.findings.append(f"{where}: server error")
            return
        kind = response.get("Content-Type", "")
        if kind.startswith("text/html"):
            self.reader.read(where, page_text(response.content.decode()))
        elif kind == "application/pdf":
            self.reader.read(where, pdf_text(response), pdf=True)

    def posted(self, role: str, url: str, response, refused: bool = False) -> None:
        """Read the page a post led to: the next page once the post is taken (its message),
        the form again with its errors when it is ``refused``."""
        assert response.status_code == 200, (url, response.status_code)
        assert bool(response.redirect_chain) != refused, (url, "refused" if refused else "taken")
        self.read(role, url, response)


def test_every_page_of_the_site_reads_french(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    built = build_site(settings)
    roles = {
        "visitor": french_client(),
        "phone": phone_client(built["live"].stages.get(number=1).tables.get(number=1)),
        "scorekeeper": french_client(built["keeper"]),
        "director": french_client(built["director"]),
    }
    site = Site()
    site.reader.names_changed()
    post_forms(built, roles, site)
    site.reader.names_changed()  # the imported players, the new event and series
    urls = site_urls()
    assert not [name for name, paths in urls.items() if not paths], "a URL the sample misses"
    pdfs = set()  # a PDF is the same for everyone: read once
    for role, client in roles.items():
        for url in role_urls(urls, role):
            if url not in pdfs:
                response = client.get(url)
                site.read(role, url, response)
                if response.get("Content-Type") == "application/pdf":
                    pdfs.add(url)
    opened = {role: statuses.count(200) for role, statuses in site.opened.items()}
    assert opened["director"] > 600 and opened["visitor"] > 250, opened
    assert opened["scorekeeper"] > 20 and opened["phone"] > 15, opened
    findings = site.reader.findings
    assert not findings, f"{len(findings)} problems on French pages:\n" + "\n".join(findings)


# -- the reader itself, and the catalog -----------------------------------------------------------


def test_the_reader_finds_english_none_counts_and_glued_punctuation():
    reader = Reader()
    reader.names = ["Game Night Club"]  # a name someone typed stays as typed
    reader.name_words = {"Game", "Night", "Club"}
    reader.read("page", "Game Night Club ⁞ Partie 2, table 3 ⁞ 21 présents ⁞ 1 présent ⁞ Total : 4")
    reader.read("page", "Identifiant créé, mot de passe P2IS36HseJ00 : donnez-le-lui ⁞ 12e ⁞ 1er")
    reader.read("page", "mot de passe Time-4_you-Q : donnez-le-lui")
    assert reader.findings == []
    page = (
        "Game 2, table 3 ⁞ Gold : Ann ⁞ Warning: no penalty this time ⁞ Place None ⁞ "
        "1 présents ⁞ 21 présent ⁞ 0 modifiés ⁞ Catégorie ⁞ par division ⁞ Tables terminées: 5"
    )
    reader.read("page", page)
    found = [f.split(" in …")[0] for f in reader.findings]
    assert found == [
        "page: English 'Game'",
        "page: English 'Gold'",
        "page: English 'Warning'",
        "page: English 'no'",
        "page: English 'penalty'",
        "page: English 'this'",
        "page: English 'time'",
        "page: English 'None'",
        "page: English 'division'",
        "page: None",
        "page: a plural after 0 or 1 '1 présents'",
        "page: a singular after 2 or more '21 présent'",
        "page: a plural after 0 or 1 '0 modifiés'",
        "page: “division” (French says catégorie)",
        "page: no space before ':'",
        "page: no space before ':'",
    ]


def test_a_pages_text_is_what_a_reader_reads():
    page = (
        '<html lang="fr"><title>Tableau</title><select><option lang="en">English</option>'
        '</select><p>Ligne 2</p><p>nouveau</p><button aria-label="Cocher Anne">✓</button>'
        '<script>var x = "Game";</script><script type="application/json">'
        '{"state": "not_started", "label": "Pas démarré", "url": "/e/x/1/clock.json"}</script>'
    )
    assert page_text(page) == (
        "Tableau ⁞ Ligne 2 ⁞ ⁞ nouveau ⁞ ⁞ ✓ ⁞ ⁞ Pas démarré ⁞ /e/x/1/clock.json ⁞ Cocher Anne"
    )


def french_texts():
    for entry in polib.pofile(str(CATALOG)):
        if not entry.obsolete:
            for text in [entry.msgstr, *entry.msgstr_plural.values()]:
                yield entry.msgid, text


def test_the_catalog_puts_a_space_before_french_punctuation():
    """ "Total : 12", "a ; b", "Prêt ?", "Fini !": a space (or a no-break space) before each,
    but in a time (10:42), an address or a "size:tiles" pair (4:15)."""
    glued = []
    for msgid, text in french_texts():
        words = re.sub(r"<[^>]+>", " ", text)
        words = re.sub(r"https?://\S+|\w:\w|\?\w+=", "", words)
        words = re.sub(r"%\([a-z_]+\)[sdr]|\{[a-z_]+\}|%[sd]", "X", words)
        if re.search(r"(?<=[^\s\u00a0\u202f(])[:;?!]", words):
            glued.append(msgid)
    assert glued == []


def test_the_catalog_calls_a_division_a_categorie():
    said = [msgid for msgid, text in french_texts() if re.search(r"(?i)\bdivisions?\b(?!\))", text)]
    assert said == []
