"""The top N overall instead of each table's winner (issue 30 item 1): a knockout whose tables
send nobody by place (top 0) and whose next stage is the best totals of the whole stage, per
division, ties at the cut by the advancement tie rule, as the wildcards.

The plan and the options as plain Python first, then the pages as a director uses them: the
event form, the players page, the seating, the round entry and the close page."""

import html
import io
import re

import pytest
from pypdf import PdfReader

from scoring.models import Round
from scoring.sheets import table_sheet
from tests.factories import make_event, make_players, seat
from tests.test_advancement import advance_url, play_totals
from tests.test_event_setup import NVSO_FORM
from tournament.game.finals import FinalsOptions, advance_per_table, plan_finals, wildcards
from tournament.game.rules import RuleSet
from tournament.models import Event, Stage, StageKind, Table

RULES = RuleSet()
BEST_4 = FinalsOptions(top_n=0, fill_to=4)
NEEDS_WILDCARDS = (
    "At least the top 1 of each table advances. 0 (none) goes with wildcards only: set how many "
    "of the best overall fill the next stage."
)


# -- the options and the plan (plain Python) -----------------------------------------------------


def test_top_0_needs_the_wildcards_that_fill_the_next_stage():
    assert FinalsOptions(top_n=0).problems() == [("top_n", NEEDS_WILDCARDS)]
    assert FinalsOptions(top_n=-1, fill_to=4).problems() == [("top_n", NEEDS_WILDCARDS)]
    assert BEST_4.problems() == []
    assert FinalsOptions(top_n=0, fill_to=1).problems() == [
        ("fill_to", "Wildcards fill a stage to at least 2 players.")
    ]


def test_top_0_sends_nobody_by_place_and_the_best_overall_fill_the_final():
    assert advance_per_table([4, 4, 4], BEST_4) == 0
    assert wildcards(0, 12, BEST_4) == 4
    plan = plan_finals(12, RULES, BEST_4)
    assert plan.describe() == (
        "12 players: Game 1, 3 tables of 4 (the best 4 overall) → 4 → Final of 4"
    )
    assert [(s.advance, s.wildcards, s.advancing) for s in plan.stages] == [(0, 4, 4), (0, 0, 0)]
    assert not plan.all_warnings


def test_the_best_overall_of_a_large_field_go_straight_to_the_final():
    plan = plan_finals(100, RULES, FinalsOptions(top_n=0, fill_to=5))
    assert plan.describe() == (
        "100 players: Game 1, 25 tables of 4 (the best 5 overall) → 5 → Final of 5"
    )


def test_a_semifinal_the_best_overall_filled_sends_its_tables_places():
    """The best 8 overall are two tables: each sends its top 2 (never a Final under 3), not
    the best 7 of 8 again and again."""
    options = FinalsOptions(top_n=0, fill_to=8)
    assert advance_per_table([4, 4], options) == 2 and wildcards(4, 8, options) == 0
    plan = plan_finals(40, RULES, options)
    assert plan.describe() == (
        "40 players: Game 1, 10 tables of 4 (the best 8 overall) → 8 → Semifinal, 2 tables of 4 "
        "(each table's top 2) → 4 → Final of 4"
    )


def test_a_tie_at_the_cut_that_sends_more_shows_on_the_closed_stages_road():
    plan = plan_finals(12, RULES, BEST_4, advancers=5)
    assert plan.describe() == (
        "12 players: Game 1, 3 tables of 4 (the best 4 overall) → 5 → Final of 5"
    )


def test_a_field_no_larger_than_the_cut_plays_by_table_places():
    plan = plan_finals(12, RULES, FinalsOptions(top_n=0, fill_to=12))
    assert plan.describe() == (
        "12 players: Game 1, 3 tables of 4 (each table's winner) → 3 → Final of 3"
    )


def test_besides_the_winners_is_unchanged():
    plan = plan_finals(12, RULES, FinalsOptions(top_n=1, fill_to=5))
    assert plan.describe() == (
        "12 players: Game 1, 3 tables of 4 (each table's winner, 2 wildcards) → 5 → Final of 5"
    )


# -- through the pages ---------------------------------------------------------------------------

pages = pytest.mark.django_db


def text(response) -> str:
    return html.unescape(response.content.decode())


def event_form(**changes):
    """The event form as a director fills it: two rounds a game (1-1, 0-0), untimed."""
    return {**NVSO_FORM, "engines": "1, 0", "game_minutes": "", **changes}


def new_event(director_client, **changes) -> Event:
    response = director_client.post("/director/new/", event_form(**changes))
    assert response.status_code == 302, text(response)
    return Event.objects.get(name=NVSO_FORM["name"])


def register(director_client, event, count):
    url = f"/director/e/{event.slug}/players/"
    for i in range(1, count + 1):
        assert director_client.post(url, {"name": f"Player {i:02d}"}).status_code == 302
    ids = list(event.players.values_list("pk", flat=True))
    director_client.post(f"{url}check-in/", {"player": ids, "checked_in": "1"})
    assert event.players.filter(checked_in=True).count() == count


def enter(director_client, table, pips, **more):
    """One round at ``table`` on its entry page: ``pips`` in seat order."""
    players = table_sheet(table).players
    stage = table.stage
    url = f"/director/e/{stage.event.slug}/{stage.number}/table/{table.number}/enter/"
    form = {f"p{p.pk}": n for p, n in zip(players, pips, strict=True)} | more
    response = director_client.post(url, form)
    assert response.status_code == 302, text(response)


def enter_totals(director_client, table, totals):
    """Both rounds of a game, leaving the table's players (seat order) with ``totals``: the
    lowest dominoes the 1-1 round, the others hold 1 pip; the rest is the 0-0 round."""
    lowest = totals.index(min(totals))
    first = [0 if i == lowest else 1 for i in range(len(totals))]
    enter(director_client, table, first)
    enter(director_client, table, [t - f for t, f in zip(totals, first, strict=True)])
    return table_sheet(table).players


def play_game_1(director_client, event, totals_by_table):
    """Seat Game 1 on its page and enter every round: table 1, 2, ... get these totals."""
    assert director_client.post(f"/director/e/{event.slug}/1/seat/", {}).status_code == 302
    game1 = event.stages.get(number=1)
    tables = list(Table.objects.filter(stage=game1).order_by("number"))
    assert [t.seats.count() for t in tables] == [len(t) for t in totals_by_table]
    seated = [
        enter_totals(director_client, table, totals)
        for table, totals in zip(tables, totals_by_table, strict=True)
    ]
    assert Round.objects.filter(table__stage=game1).count() == 2 * len(tables)
    return game1, seated


@pages
def test_the_event_form_takes_top_0_with_wildcards_and_says_what_it_means(director_client):
    page = text(director_client.get("/director/new/"))
    assert "0 means none: only the best overall go on" in page
    event = new_event(director_client, finals_top_n=0, finals_fill_to=4)
    assert event.finals_options == BEST_4


@pages
def test_the_event_form_refuses_top_0_without_wildcards(director_client, director):
    response = director_client.post("/director/new/", event_form(finals_top_n=0))
    assert response.status_code == 200 and NEEDS_WILDCARDS in text(response)
    assert not Event.objects.exists()
    event = make_event(director, engines=[1, 0], game_minutes=None)
    edit = f"/director/e/{event.slug}/edit/"
    response = director_client.post(edit, event_form(name=event.name, finals_top_n=0))
    assert NEEDS_WILDCARDS in text(response)
    event.refresh_from_db()
    assert event.finals_top_n is None


@pages
def test_the_final_seats_the_four_lowest_totals_overall_not_the_table_winners(director_client):
    event = new_event(director_client, finals_top_n=0, finals_fill_to=4)
    register(director_client, event, 12)
    road = "12 players: Game 1, 3 tables of 4 (the best 4 overall) → 4 → Final of 4"
    assert road in text(director_client.get(f"/e/{event.slug}/"))
    game1, (t1, t2, t3) = play_game_1(
        director_client, event, [[3, 4, 5, 30], [40, 6, 41, 42], [50, 51, 52, 53]]
    )
    close_page = text(director_client.get(advance_url(game1)))
    assert road in close_page
    director_client.post(advance_url(game1), {"action": "close"})
    final = Stage.objects.get(event=event, kind=StageKind.FINAL)
    finalists = {s.player for s in final.seats.all()}
    assert finalists == {t1[0], t1[1], t1[2], t2[1]}  # table 3's winner (50) stays out
    assert final.tables.count() == 1


@pages
def test_a_tie_at_the_cut_under_playoff_is_the_wildcard_playoff(director_client):
    event = new_event(director_client, finals_top_n=0, finals_fill_to=4, advancement_tie="playoff")
    register(director_client, event, 12)
    game1, (t1, t2, t3) = play_game_1(
        director_client, event, [[3, 4, 5, 30], [40, 6, 41, 42], [50, 51, 6, 53]]
    )
    director_client.post(advance_url(game1), {"action": "close"})
    playoff = Stage.objects.get(event=event, kind=StageKind.PLAYOFF)
    assert playoff.name == "Wildcard playoff: Game 1" and playoff.wildcards_of == game1
    assert {s.player for s in playoff.seats.all()} == {t2[1], t3[2]}
    final = Stage.objects.get(event=event, kind=StageKind.FINAL)
    assert not final.tables.exists()
    assert "playoff pending" in text(director_client.get(advance_url(game1)))
    table = playoff.tables.get()
    players = table_sheet(table).players
    enter(director_client, table, [0 if p == t3[2] else 9 for p in players], engine=12)
    director_client.post(advance_url(game1), {"action": "seat_next"})
    assert {s.player for s in final.seats.all()} == {t1[0], t1[1], t1[2], t3[2]}


@pages
def test_each_division_sends_its_own_best_overall(director_client, director):
    event = make_event(
        director, engines=[1, 0], game_minutes=None, finals_top_n=0, finals_fill_to=3
    )
    make_players(event, names=[f"Older {i}" for i in range(8)], division="60-64")
    make_players(event, names=[f"Younger {i}" for i in range(8)], division="55-59")
    game1 = seat(event)
    by_division = {
        "55-59": [[3, 4, 5, 30], [40, 41, 42, 43]],
        "60-64": [[10, 11, 20, 21], [12, 30, 31, 32]],
    }
    seated = {}
    for table in Table.objects.filter(stage=game1).order_by("number"):
        division = table.seats.first().player.division
        seated.setdefault(division, []).append(play_totals(table, by_division[division].pop(0)))
    director_client.post(advance_url(game1), {"action": "close"})
    finals = Stage.objects.filter(event=event, kind=StageKind.FINAL)
    (a, _b), (c, d) = seated["55-59"], seated["60-64"]
    # 55-59: the best three are one table's (its other table's winner, 40, stays out); 60-64:
    # 10 and 11 of one table, 12 of the other: each division cut alone, at its own Final table
    tables = {frozenset(s.player for s in t.seats.all()) for f in finals for t in f.tables.all()}
    assert tables == {frozenset({a[0], a[1], a[2]}), frozenset({c[0], c[1], d[0]})}


def bracket_marks(page: str, stage: str) -> dict[str, list[str]]:
    """A stage's players on the bracket page, by name, with the marks beside each name."""
    section = re.search(
        rf'<section class="bracket-stage[^"]*">\s*<h3[^>]*>{re.escape(stage)} .*?</section>',
        page,
        re.S,
    ).group(0)
    out = {}
    for cell in re.findall(r'<td class="bracket-name">(.*?)</td>', section, re.S):
        name = html.unescape(cell.split("<span", 1)[0]).strip()
        out[name] = [html.unescape(m).strip() for m in re.findall(r"<span[^>]*>(.*?)</span>", cell)]
    return out


LABELS = {"en": ("Game 1", "advances", "wildcard"), "fr": ("Partie 1", "se qualifie", "repêchage")}


@pages
@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_best_overall_advance_and_only_wildcards_are_called_wildcards(
    director_client, director, language
):
    """The best 4 overall of Game 1 advance, as table winners do: none is a wildcard (in
    French, no "repêché", which says a man); each table's winner plus the 2 best others are
    the winners and 2 wildcards ("repêchage", a word for a woman as for a man)."""
    headers = {"HTTP_ACCEPT_LANGUAGE": language}
    game, advances, wildcard = LABELS[language]
    event = new_event(director_client, finals_top_n=0, finals_fill_to=4)
    register(director_client, event, 12)
    game1, (t1, t2, _t3) = play_game_1(
        director_client, event, [[3, 4, 5, 30], [40, 6, 41, 42], [50, 51, 52, 53]]
    )
    director_client.post(advance_url(game1), {"action": "close"})
    page = director_client.get(f"/e/{event.slug}/bracket/", **headers).content.decode()
    marks = bracket_marks(page, game)
    best = {p.name for p in (t1[0], t1[1], t1[2], t2[1])}
    assert {name: m for name, m in marks.items() if m} == {name: [advances] for name in best}
    assert "repêché" not in page and "wildcard" not in page
    pdf = director_client.get(f"/e/{event.slug}/bracket.pdf", **headers).content
    printed = "".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf)).pages)
    assert t2[1].name in printed and wildcard not in printed and "repêché" not in printed

    other = make_event(
        director, engines=[1, 0], game_minutes=None, finals_top_n=1, finals_fill_to=5
    )
    make_players(other, count=12)
    game1 = seat(other)
    winners, wild = set(), set()
    tables = Table.objects.filter(stage=game1).order_by("number")
    for t, second in zip(tables, [10, 12, 14], strict=True):
        players = play_totals(t, [3, second, 20, 30])
        winners.add(players[0].name)
        if second < 14:
            wild.add(players[1].name)
    director_client.post(advance_url(game1), {"action": "close"})
    page = director_client.get(f"/e/{other.slug}/bracket/", **headers).content.decode()
    marked = {name: m for name, m in bracket_marks(page, game).items() if m}
    assert marked == {name: [advances] for name in winners} | {name: [wildcard] for name in wild}
    assert "repêché" not in page
