"""Issue 50 item 4, qualifiers (PRODUCT.md §15): the first N of each division qualify for the
next level, ties at the last slot by the event's rule; an out-of-district player never takes a
medal or a slot from a player of the district: both receive it. The rule against the spec's,
written here as a plain function, over random divisions and simulator-played events; the
director's pages, the report's CSV and PDF (read back by their text and positions), in English
and French; the event file."""

import csv
import io
import random
import re
from datetime import date

import pdfplumber
import pytest

from scoring.eventfile import dumps, export_event
from scoring.qualifiers import qualifier_report
from scoring.results import load_results
from scoring.series import event_order
from scoring.services.simulation import play_to_medals
from tests import roundtrip
from tests.concurrency import form_key
from tests.factories import make_event, make_players, seat
from tests.importing import confirm, preview_fields, upload
from tests.test_advancement import close, play_totals, short_event
from tournament.game import awards, qualifiers
from tournament.game.awards import MEDALS
from tournament.models import Event, Player

MEDAL_RULES = ("nvso", "shared", "playoff")
TIE_RULES = (qualifiers.ALL_QUALIFY, qualifiers.ALTERNATES)


# -- the spec's rule, written plainly ------------------------------------------------------------


def spec_qualified(place: int, sharing: int, slots: int, tie_rule: str) -> str:
    """The first ``slots`` places qualify; a place shared across the last slot: every tied
    player qualifies, or (alternates) none of them does and they are alternates."""
    if place > slots:
        return ""
    if place + sharing - 1 > slots and tie_rule == qualifiers.ALTERNATES:
        return qualifiers.ALTERNATE
    return qualifiers.QUALIFIED


def spec(field, finalists, away, medal_rule, slots, tie_rule, playoffs=None):
    """Each player's (place, medal, qualified), PRODUCT.md §15 read literally:

    1. by the full order of every player, to the out-of-district players only: the place
       counts everybody strictly ahead; places 1 to 3 of the Final are gold, silver, bronze;
    2. by the same order with the out-of-district players removed, to the district's players:
       the event's medal tie rule on that order (the Final's totals of the district's players),
       the place counts the district's players ahead (medallists first, in medal order).

    ``field``: player -> (how far they went, total), lower is better; ``finalists``: the
    Final's totals."""
    district = [p for p in field if p not in away]
    result = awards.medals(
        {p: t for p, t in finalists.items() if p not in away}, medal_rule, playoffs or {}
    )
    medal = {p: a.medal for a in result.medals for p in a.players}

    def rank(p):
        m = medal.get(p)
        return (MEDALS.index(m) if m else 3, *field[p])

    out = {}
    for p in district:
        place = 1 + sum(rank(q) < rank(p) for q in district)
        sharing = sum(rank(q) == rank(p) for q in district)
        out[p] = (place, medal.get(p, ""), spec_qualified(place, sharing, slots, tie_rule))
    for p in field:
        if p not in away:
            continue
        place = 1 + sum(field[q] < field[p] for q in field)
        sharing = sum(field[q] == field[p] for q in field)
        won = MEDALS[place - 1] if p in finalists and place <= 3 else ""
        out[p] = (place, won, spec_qualified(place, sharing, slots, tie_rule))
    return out


def the_rule(field, finalists, away, medal_rule, slots, tie_rule, playoffs=None):
    """The site's rule, as scoring/results.py and scoring/qualifiers.py call it."""
    split = qualifiers.split_medals(finalists, away, medal_rule, playoffs)
    medals = {p: a.medal for a in split.district.medals for p in a.players} | split.outside
    shown = qualifiers.standings(field, away, medals, slots, tie_rule)
    return {p: (s.place, s.medal, s.qualified) for p, s in shown.items()}


def random_division(rng: random.Random):
    """A division's players: a Final of 2 to 6 and up to 8 players out before it, totals
    close enough to tie often, some of them out of district."""
    final = [f"f{i}" for i in range(rng.randint(2, 6))]
    before = [f"b{i}" for i in range(rng.randint(0, 8))]
    finalists = {p: rng.randint(0, 6) for p in final}
    field = {p: (0, t) for p, t in finalists.items()}
    field |= {p: (1, rng.randint(0, 6)) for p in before}
    away = {p for p in field if rng.random() < 0.3}
    return field, finalists, away


def test_the_rule_is_the_specs_over_hundreds_of_random_divisions():
    rng = random.Random(50)
    checked = away_medals = ties_at_the_cut = 0
    for _ in range(800):
        field, finalists, away = random_division(rng)
        medal_rule, tie_rule = rng.choice(MEDAL_RULES), rng.choice(TIE_RULES)
        slots = rng.randint(0, 7)
        got = the_rule(field, finalists, away, medal_rule, slots, tie_rule)
        assert got == spec(field, finalists, away, medal_rule, slots, tie_rule), (
            field,
            finalists,
            away,
            medal_rule,
            slots,
            tie_rule,
        )
        checked += 1
        away_medals += any(got[p][1] for p in away)
        ties_at_the_cut += any(q == qualifiers.ALTERNATE for _p, _m, q in got.values())
    assert checked == 800 and away_medals > 50 and ties_at_the_cut > 20


def test_nobody_in_district_loses_anything_to_a_player_from_outside():
    """Each district player's place, medal and qualification are what they would be if the
    out-of-district players had not played at all."""
    rng = random.Random(4)
    for _ in range(500):
        field, finalists, away = random_division(rng)
        medal_rule, tie_rule, slots = rng.choice(MEDAL_RULES), rng.choice(TIE_RULES), 3
        got = the_rule(field, finalists, away, medal_rule, slots, tie_rule)
        alone = the_rule(
            {p: k for p, k in field.items() if p not in away},
            {p: t for p, t in finalists.items() if p not in away},
            set(),
            medal_rule,
            slots,
            tie_rule,
        )
        assert {p: got[p] for p in alone} == alone


def test_with_nobody_out_of_district_the_medals_are_the_tie_rules_alone():
    rng = random.Random(7)
    for _ in range(300):
        _field, finalists, _away = random_division(rng)
        rule = rng.choice(MEDAL_RULES)
        split = qualifiers.split_medals(finalists, set(), rule)
        assert split.district == awards.medals(finalists, rule) and split.outside == {}


def test_an_out_of_district_winner_takes_gold_and_so_does_the_best_of_the_district():
    finalists = {"Ann": 3, "Bo": 10, "Cy": 20, "Di": 30}
    field = {p: (0, t) for p, t in finalists.items()}
    got = the_rule(field, finalists, {"Ann"}, "nvso", 2, qualifiers.ALL_QUALIFY)
    assert got == {
        "Ann": (1, "gold", "qualified"),
        "Bo": (1, "gold", "qualified"),
        "Cy": (2, "silver", "qualified"),
        "Di": (3, "bronze", ""),
    }


def test_a_tie_across_the_last_slot_qualifies_everyone_tied_or_makes_them_alternates():
    places = {"a": 1, "b": 2, "c": 2, "d": 4}
    assert qualifiers.qualifying(places, 2) == {
        "a": "qualified",
        "b": "qualified",
        "c": "qualified",
    }
    assert qualifiers.qualifying(places, 2, qualifiers.ALTERNATES) == {
        "a": "qualified",
        "b": "alternate",
        "c": "alternate",
    }
    assert qualifiers.qualifying(places, 3, qualifiers.ALTERNATES)["c"] == "qualified"
    assert qualifiers.qualifying(places, 0) == {}


# -- simulator-played events ---------------------------------------------------------------------


def played_event(director, seed: int, medal_tie: str) -> Event:
    """An event of two divisions played to its medals by the simulator, some players out of
    district from the start, four qualifying places a division."""
    rng = random.Random(seed)
    event = make_event(
        director,
        engines=[2, 1, 0],
        game_minutes=None,
        medal_tie=medal_tie,
        advancement_tie=rng.choice(["all_advance", "playoff"]),
        finals_top_n=1,
        qualifying_places=4,
        qualifier_tie=rng.choice(TIE_RULES),
    )
    for division in ("55-64", "65+"):
        for player in make_players(
            event, [f"{division} {n:02d}" for n in range(rng.randint(8, 14))], division=division
        ):
            player.out_of_district = rng.random() < 0.3
            player.save()
    play_to_medals(event, seed, director)
    return event


@pytest.mark.django_db
def test_simulator_played_events_give_the_specs_medals_and_qualifiers(director):
    """The report of each event, division by division, against the spec over the event's
    order (how far each player went, their total there) and its Final's totals."""
    away_medals = 0
    for seed in range(6):
        event = played_event(director, seed, MEDAL_RULES[seed % 3])
        results = load_results(event)
        assert not results.problems  # every medal playoff was among the district's players
        order = event_order(results)
        report = {d.division: d for d in qualifier_report(event)}
        players = {p.pk: p for p in event.players.all()}
        medal_playoffs: dict[str, dict[str, list]] = {}
        for stage, sheets in sorted(results.sheets.items(), key=lambda kv: kv[0].number):
            if stage.kind == "playoff" and stage.closed and stage.medal in MEDALS and sheets:
                by = medal_playoffs.setdefault(stage.division, {})
                by.setdefault(stage.medal, []).append(dict(sheets[0].rounds[0].pips))
        for division, final in results.deciding.items():
            assert report[division].decided
            finalists = {
                pk: t
                for s in results.sheets[final]
                for pk, t in s.totals.items()
                if players[pk].division == division
            }
            field = {pk: k for pk, k in order.reached.items() if players[pk].division == division}
            away = {pk for pk in field if players[pk].out_of_district}
            want = spec(
                field,
                finalists,
                away,
                event.medal_tie,
                4,
                event.qualifier_tie,
                medal_playoffs.get(division),
            )
            got = {
                r.player.pk: (r.standing.place, r.standing.medal, r.standing.qualified)
                for r in report[division].rows
            }
            # the spec counts ties by the order alone; a playoff splits the tied who played it
            for pk, (place, medal, qualified) in want.items():
                assert got[pk][1] == medal, (seed, division, players[pk].name)
                if pk in away or not any(
                    pk in r for rs in medal_playoffs.get(division, {}).values() for r in rs
                ):
                    assert got[pk] == (place, medal, qualified), (seed, players[pk].name)
            away_medals += sum(bool(got[pk][1]) for pk in away)
    assert away_medals > 0


@pytest.mark.django_db
def test_a_played_event_with_qualifiers_and_players_from_outside_comes_back_from_its_file(
    director,
):
    carried = 0
    for seed in (3, 4, 7, 10):
        made = roundtrip.Director(seed, director)
        event = made.set_up()
        made.register(event)
        rng = random.Random(seed)
        for player in event.players.all():
            player.out_of_district = rng.random() < 0.3
            player.birth_date = date(1940 + rng.randint(0, 25), rng.randint(1, 12), 1)
            player.save()
        Event.objects.filter(pk=event.pk).update(
            qualifying_places=3, next_level="State Games", qualifier_tie=rng.choice(TIE_RULES)
        )
        event.refresh_from_db()
        made.run(event)
        text = dumps(export_event(event))
        assert '"out_of_district": true' in text and '"next_level": "State Games"' in text
        carried += '"qualifiers": [' in text
        before = [
            [(r.player.name, r.player.birth_date, r.standing) for r in d.rows]
            for d in qualifier_report(event)
        ]
        trip = roundtrip.round_trip(event)
        assert trip.ok, trip.refused or trip.differences
        copy = Event.objects.get()
        assert (copy.qualifying_places, copy.next_level) == (3, "State Games")
        after = [
            [(r.player.name, r.player.birth_date, r.standing) for r in d.rows]
            for d in qualifier_report(copy)
        ]
        assert after == before
        roundtrip.empty_the_site()
    assert carried  # at least one reached its medals with the report in the file


# -- through the pages ---------------------------------------------------------------------------


@pytest.fixture
def final(director):
    """Five players at the Final (Game 1 skipped), each table's two rounds typed in."""
    event = short_event(director, name="Spring Games", slug="spring", medal_tie="shared")
    make_players(event, ["Ann", "Bo", "Thelma", "Zoë", "Ed"])
    return seat(event, stage_number=2)


def edit_player(client, player: Player, **changes):
    url = f"/director/e/{player.event.slug}/players/{player.pk}/"
    data = {
        "name": player.name,
        "ref": player.ref,
        "club": player.club,
        "division": player.division,
        "keep_apart": player.keep_apart,
        "birth_date": player.birth_date.isoformat() if player.birth_date else "",
        "once": form_key(client.get(url)),
        **changes,
    }
    if player.out_of_district and "out_of_district" not in changes:
        data["out_of_district"] = "on"
    return client.post(url, data)


def set_qualifiers(client, event, **changes):
    from tournament.forms import EventForm

    form = EventForm(instance=event)
    data = {n: (form[n].value() if form[n].value() is not None else "") for n in form.fields}
    data = {k: v for k, v in data.items() if v is not False}
    data.update(date=event.date.isoformat(), **changes)
    data["once"] = form_key(client.get(f"/director/e/{event.slug}/edit/"))
    return client.post(f"/director/e/{event.slug}/edit/", data)


def marked_and_played(client, stage, totals, **settings):
    event = stage.event
    ann = event.players.get(name="Ann")
    assert (
        edit_player(client, ann, out_of_district="on", birth_date="1950-03-07").status_code == 302
    )
    response = set_qualifiers(client, event, **settings)
    assert response.status_code == 302, response.content.decode()[:3000]
    play_totals(stage.tables.get(), totals)
    close(client, stage)
    return event


def report_rows(client, slug="spring"):
    page = client.get(f"/director/e/{slug}/qualifiers/")
    assert page.status_code == 200
    body = page.content.decode()
    rows = re.findall(r"<tr(?: class=\"fw-bold\")?>\s*<td>(.*?)</tr>", body, re.S)
    return [
        [re.sub(r"<[^>]+>", "", c).strip() for c in ("<td>" + r).split("</td>")[:-1]] for r in rows
    ]


def test_the_director_marks_a_player_out_of_district_and_sets_the_qualifiers(
    director_client, final
):
    event = marked_and_played(
        director_client,
        final,
        dict(Ann=3, Bo=10, Thelma=20, Zoë=20, Ed=40),
        qualifying_places="2",
        next_level="State Games",
        qualifier_tie="all_qualify",
    )
    ann = event.players.get(name="Ann")
    assert ann.out_of_district and ann.birth_date == date(1950, 3, 7)
    players = director_client.get("/director/e/spring/players/").content.decode()
    assert re.search(r">Ann</a> <span class=\"badge[^\"]*\">out of district</span>", players)
    # by place; at a place, the district's player before the one from outside
    assert [r[0] for r in report_rows(director_client)] == ["Bo", "Ann", "Thelma", "Zoë", "Ed"]
    rows = {r[0]: r[1:] for r in report_rows(director_client)}
    # Ann wins outright; Bo, the best of the district, takes gold too; Thelma and Zoë share
    # silver (the shared rule) and the second qualifying place: both qualify
    assert rows["Ann"] == ["1950-03-07", "—", "1", "Gold", "yes", "yes"]
    assert rows["Bo"] == ["—", "—", "1", "Gold", "yes", ""]
    assert rows["Thelma"] == rows["Zoë"] == ["—", "—", "2", "Silver", "yes", ""]
    assert rows["Ed"] == ["—", "—", "4", "", "", ""]
    page = director_client.get("/director/e/spring/qualifiers/").content.decode()
    assert "The first 2 places of each division qualify for State Games." in page
    home = director_client.get("/director/e/spring/").content.decode()
    assert 'href="/director/e/spring/qualifiers/"' in home or "/director/e/spring/qualifiers/" in (
        director_client.get("/e/spring/").content.decode()
    )


def test_alternates_at_the_last_slot(director_client, final):
    marked_and_played(
        director_client,
        final,
        dict(Ann=3, Bo=10, Thelma=20, Zoë=20, Ed=40),
        qualifying_places="2",
        qualifier_tie="alternates",
    )
    rows = {r[0]: r[1:] for r in report_rows(director_client)}
    assert rows["Bo"][4] == "yes" and rows["Thelma"][4] == rows["Zoë"][4] == "alternate"


def test_the_results_ceremony_and_api_show_both_golds(director_client, final, client):
    marked_and_played(
        director_client, final, dict(Ann=3, Bo=10, Thelma=20, Zoë=30, Ed=40), qualifying_places="3"
    )
    results = client.get("/e/spring/results/").content.decode()
    gold = results.split("medal-gold", 1)[1].split("</div></div>", 1)[0]
    assert "Bo" in gold and "Ann (out of district)" in gold
    bronze = results.split("medal-bronze", 1)[1].split("</div></div>", 1)[0]
    assert "Zoë" in bronze and "Thelma" not in bronze
    api = client.get("/api/events/spring/results/").json()
    gold = next(m for m in api["medals"] if m["medal"] == "gold")
    assert [p["name"] for p in gold["players"]] == ["Bo"]
    assert [p["name"] for p in gold["out_of_district"]] == ["Ann"]
    script = director_client.get("/director/e/spring/ceremony/?step=3").content.decode()
    assert "Bo" in script and "Ann" in script and "(out of district)" in script


def test_with_nobody_out_of_district_the_results_are_as_before(director_client, final, client):
    play_totals(final.tables.get(), dict(Ann=3, Bo=10, Thelma=20, Zoë=30, Ed=40))
    close(director_client, final)
    results = client.get("/e/spring/results/").content.decode()
    assert "out of district" not in results
    rows = {r[0]: r[1:] for r in report_rows(director_client)}
    assert rows["Ann"][3:] == ["Gold", "", ""]  # no qualifying places set: nobody qualifies


def test_the_csv_has_every_column_in_english_and_french(director_client, final):
    marked_and_played(
        director_client, final, dict(Ann=3, Bo=10, Thelma=20, Zoë=30, Ed=40), qualifying_places="2"
    )
    response = director_client.get("/director/e/spring/qualifiers.csv")
    assert response.status_code == 200
    assert "spring-qualifiers.csv" in response["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert rows[0] == [
        "Name",
        "Birth date",
        "Division",
        "Place",
        "Medal",
        "Qualified",
        "Out of district",
    ]
    assert rows[1] == ["Bo", "", "", "1", "Gold", "yes", ""]
    assert rows[2] == ["Ann", "1950-03-07", "", "1", "Gold", "yes", "yes"]
    director_client.cookies["django_language"] = "fr"
    rows = list(
        csv.reader(
            io.StringIO(
                director_client.get("/director/e/spring/qualifiers.csv").content.decode("utf-8-sig")
            )
        )
    )
    assert rows[0] == [
        "Nom",
        "Date de naissance",
        "Catégorie",
        "Place",
        "Médaille",
        "Qualifié",
        "Hors district",
    ]
    assert rows[2] == ["Ann", "1950-03-07", "", "1", "Or", "oui", "oui"]


def test_the_report_page_in_french(director_client, final):
    marked_and_played(
        director_client,
        final,
        dict(Ann=3, Bo=10, Thelma=20, Zoë=30, Ed=40),
        qualifying_places="2",
        next_level="Jeux du Québec",
    )
    director_client.cookies["django_language"] = "fr"
    page = director_client.get("/director/e/spring/qualifiers/").content.decode()
    assert "Les 2 premières places de chaque catégorie se qualifient pour Jeux du Québec." in page
    assert "Rapport des qualifiés et des médailles" in page
    assert "hors district" in page


def pdf_words(response):
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    pages = pdfplumber.open(io.BytesIO(response.content)).pages
    return pages, [page.extract_words(keep_blank_chars=False) for page in pages]


def test_the_pdf_has_one_table_per_division_each_value_on_one_line(director_client, director):
    event = short_event(director, name="Spring Games", slug="spring", medal_tie="shared")
    long = "Maria Fernanda de los Santos Villanueva-Rodríguez y Ortega del Valle"
    make_players(event, [long, "Bo", "Cy"], division="55-59")
    make_players(event, ["Dee", "Eve", "Flo"], division="60-64")
    stage = seat(event, stage_number=2)
    for table in stage.tables.all():
        names = sorted(table.seats.values_list("player__name", flat=True))
        play_totals(table, {n: 10 * (i + 1) for i, n in enumerate(names)})
    Player.objects.filter(name=long).update(birth_date=date(1948, 11, 30), out_of_district=True)
    Event.objects.filter(pk=event.pk).update(qualifying_places=2, next_level="State Games")
    close(director_client, stage)
    pages, words = pdf_words(director_client.get("/director/e/spring/qualifiers.pdf"))
    assert len(pages) == 1
    page, found = pages[0], words[0]
    text = page.extract_text()
    assert "Qualifier and medal report" in text and "55-59" in text and "60-64" in text
    # one table per division: its heading, then its header row
    heads = [i for i, line in enumerate(text.splitlines()) if line.startswith("Name Birth date")]
    assert len(heads) == 2
    assert text.splitlines()[heads[0] - 1] == "55-59" and text.splitlines()[heads[1] - 1] == "60-64"
    # every row's cells on one line: a row's words share one baseline, and the name and the
    # birth date read whole
    lines = text.splitlines()
    row = next(line for line in lines if line.startswith("Maria"))
    assert row == f"{long} 1948-11-30 55-59 3 Bronze yes"  # third of all: bronze
    maria = next(w for w in found if w["text"] == "Maria")
    for piece in ("Valle", "1948-11-30", "55-59", "Bronze"):
        assert any(w["text"] == piece and abs(w["top"] - maria["top"]) < 1 for w in found)
    assert max(w["x1"] for w in found) <= page.width
    french = director_client
    french.cookies["django_language"] = "fr"
    _pages, words = pdf_words(french.get("/director/e/spring/qualifiers.pdf"))
    text = " ".join(w["text"] for w in words[0])
    assert "Date de naissance" in text and "Médaille" in text and "Qualifié" in text


def test_the_report_is_the_directors(client, final):
    for url in ("qualifiers/", "qualifiers.csv", "qualifiers.pdf"):
        response = client.get(f"/director/e/spring/{url}")
        assert response.status_code in (302, 403)


def test_a_birth_date_in_the_future_is_refused_and_nothing_saved(director_client, final):
    ann = final.event.players.get(name="Ann")
    response = edit_player(director_client, ann, birth_date="2999-01-01")
    assert response.status_code == 200
    assert "A birth date cannot be in the future." in response.content.decode()
    ann.refresh_from_db()
    assert ann.birth_date is None


def test_qualifying_places_out_of_bounds_are_refused(director_client, final):
    response = set_qualifiers(director_client, final.event, qualifying_places="-1")
    assert response.status_code == 200
    response = set_qualifiers(director_client, final.event, qualifying_places="5000")
    assert response.status_code == 200
    final.event.refresh_from_db()
    assert final.event.qualifying_places == 0


def test_the_list_import_keeps_birth_dates_and_out_of_district(director_client, director):
    event = make_event(director, slug="listed")
    text = b"Name,Birth date,Out of district\nAnn,1950-03-07,yes\nBo,,no\nCy,03/07/1951,maybe\n"
    preview = upload(director_client, event.slug, text)
    page = preview.content.decode()
    assert preview_fields(page)["map-away"] == "2" and preview_fields(page)["map-birth"] == "1"
    assert "“maybe” is neither yes nor no: not out of district" in page
    assert confirm(director_client, event.slug, preview).status_code == 302
    players = {p.name: p for p in event.players.all()}
    assert players["Ann"].out_of_district and players["Ann"].birth_date == date(1950, 3, 7)
    assert not players["Bo"].out_of_district and players["Bo"].birth_date is None
    assert not players["Cy"].out_of_district and players["Cy"].birth_date == date(1951, 3, 7)
