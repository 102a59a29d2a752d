"""A cumulative event's pages (issue 30 item 4, pages part; item 2's last sentence): a game's
standings show its totals beside the running totals, per division, places by the cumulative
total, withdrawals marked, on the page and in the part phones poll; the event's standings after
every game; the format's road on the event home and the close page, and what a close does;
the seating page says which rule placed everyone, and a director's move still works. Read
back through the pages, in English and French, with a fixed number of queries whatever the
event's size."""

import json
import re
from html import unescape

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import translation
from playwright.sync_api import expect

from scoring.services.stages import close_and_seat
from tests import browser as b
from tests.factories import make_director, make_event, make_players, seat
from tests.test_advancement import play_totals, short_event
from tests.test_desk import withdraw
from tests.test_formats_flow import SHORT, close, create, enter, names, play_game, seat_game_1
from tournament.game import formats
from tournament.game.formats import road
from tournament.game.rules import RuleSet
from tournament.models import Event, Player, Seat, StageKind, Table

pytestmark = pytest.mark.django_db

FR = {"HTTP_ACCEPT_LANGUAGE": "fr"}
PASSWORD = "a-Long-pass-phrase-42"  # tests/factories.py make_director's
MEDALS = ["Gold", "Silver", "Bronze"]
LIVE = {"HTTP_X_LIVE_REGION": "live-standings"}  # as static/js/live.js asks, holding nothing


def text(html: str) -> str:
    """A page's words as a person reads them: no tags, spaces collapsed."""
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html))).strip()


def get(client, url, **headers) -> str:
    with translation.override(translation.get_language()):  # a French request leaves French on
        response = client.get(url, **headers)
    assert response.status_code == 200, url
    return response.content.decode()


def game_tables(page: str) -> dict[str, list[tuple[str, str, str, str, str, str]]]:
    """A game's standings as shown, by division: (place, name, table, game, running, note)."""
    out = {}
    for division, body in re.findall(
        r'<table class="[^"]*cumulative-standings" data-division="([^"]*)">(.*?)</table>',
        page,
        re.S,
    ):
        out[division] = [
            tuple(text(cell) for cell in row)
            for row in re.findall(
                r"<tr[^>]*><td[^>]*>(.*?)</td><td class=\"player-name\">(.*?)</td>"
                r"<td class=\"fold-narrow\">(.*?)</td><td class=\"game-total\">(.*?)</td>"
                r"<td class=\"running-total\">(.*?)</td><td class=\"note\">(.*?)</td></tr>",
                body,
                re.S,
            )
        ]
    return out


def event_tables(page: str) -> dict[str, dict[str, list[str]]]:
    """The standings after every game, by division: name -> [place, game, running, …, total,
    note]."""
    out = {}
    for division, body in re.findall(
        r'<table class="[^"]*cumulative-all" data-division="([^"]*)">(.*?)</table>', page, re.S
    ):
        body = body[body.index("<tbody") :]
        rows = {}
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S):
            cells = [text(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
            rows[cells[1]] = [cells[0], *cells[2:]]
        out[division] = rows
    return out


def two_divisions(client, **settings) -> Event:
    """16 players checked in, 8 in each of two divisions (P1-P8 in 60-69, P9-P16 in 70-79)."""
    event = create(client, **settings)
    make_players(event, names(16)[:8], division="60-69")
    make_players(event, names(16)[8:], division="70-79")
    return event


GAME1 = {f"P{i}": 10 + i for i in range(1, 17)}
GAME2 = {f"P{i}": 70 - 3 * i for i in range(1, 17)}


def places_by(totals: dict[str, int], players: list[str]) -> dict[str, str]:
    """Each player's place by ``totals`` among ``players``, lowest first (T3 when shared)."""
    out = {}
    for name in players:
        place = 1 + sum(totals[o] < totals[name] for o in players)
        shared = sum(totals[o] == totals[name] for o in players) > 1
        out[name] = f"T{place}" if shared else str(place)
    return out


# -- a game's standings ----------------------------------------------------------------------------


def test_a_games_standings_show_its_totals_beside_the_running_totals_per_division(
    director_client, client
):
    event = two_divisions(director_client, format_kind="cumulative", format_games=3)
    game1 = seat_game_1(director_client, event)
    play_game(director_client, game1, GAME1)
    close(director_client, game1)
    game2 = event.stages.get(number=2)
    play_game(director_client, game2, GAME2)

    page = get(client, f"/e/{event.slug}/2/")
    shown = game_tables(page)
    assert list(shown) == ["60-69", "70-79"]
    running = {n: GAME1[n] + GAME2[n] for n in names(16)}
    table_of = {s.player.name: str(s.table.number) for s in Seat.objects.filter(stage=game2)}
    for division, players in (("60-69", names(16)[:8]), ("70-79", names(16)[8:])):
        rows = shown[division]
        assert sorted(r[1] for r in rows) == sorted(players)
        expected = places_by(running, players)
        for place, name, table, game, total, note in rows:
            assert (place, table, game, total, note) == (
                expected[name],
                table_of[name],
                str(GAME2[name]),
                str(running[name]),
                "",
            ), name
        assert [int(r[4]) for r in rows] == sorted(running[n] for n in players)
    assert "Game 2" in text(page) and "Cumulative" in text(page)

    # Game 1's page: its own totals, the running total after it (the same numbers).
    first = game_tables(get(client, f"/e/{event.slug}/1/"))
    rows = {r[1]: r for d in first.values() for r in d}
    assert {n: (r[3], r[4]) for n, r in rows.items()} == {
        n: (str(GAME1[n]), str(GAME1[n])) for n in names(16)
    }

    # The part phones poll says the same.
    part = json.loads(get(client, f"/e/{event.slug}/2/", **LIVE))["html"]
    assert game_tables(part) == shown


def test_a_game_in_progress_shows_the_tables_that_have_not_started_without_a_total(
    director_client, client
):
    event = create(director_client, format_kind="cumulative", format_games=2)
    make_players(event, names(8))
    game1 = seat_game_1(director_client, event)
    page = get(client, f"/e/{event.slug}/1/")
    rows = game_tables(page)[""]
    assert sorted(r[1] for r in rows) == names(8)
    assert {(r[0], r[3], r[4]) for r in rows} == {("—", "—", "—")}
    assert "No round has been played yet" in text(page)

    table1 = Table.objects.get(stage=game1, number=1)
    enter(director_client, table1, GAME1)
    rows = game_tables(get(client, f"/e/{event.slug}/1/"))[""]
    at_table1 = {s.player.name for s in table1.seats.select_related("player")}
    for _place, name, _table, game, _running, _note in rows:
        assert game == (str(GAME1[name]) if name in at_table1 else "—"), name


def test_a_player_who_withdrew_keeps_the_games_played_marked_and_without_a_place(
    director_client, client
):
    event = two_divisions(director_client, format_kind="cumulative", format_games=2)
    game1 = seat_game_1(director_client, event)
    play_game(director_client, game1, GAME1)
    close(director_client, game1)
    p3 = Player.objects.get(event=event, name="P3")
    assert withdraw(director_client, p3, "felt unwell").status_code == 302
    game2 = event.stages.get(number=2)
    assert not game2.seats.filter(player=p3).exists()
    play_game(director_client, game2, GAME2)

    rows = game_tables(get(client, f"/e/{event.slug}/2/"))["60-69"]
    assert rows[-1] == ("—", "P3", "—", "—", "—", "withdrew")
    others = [n for n in names(8) if n != "P3"]
    running = {n: GAME1[n] + GAME2[n] for n in others}
    assert {r[1]: r[0] for r in rows[:-1]} == places_by(running, others)

    everything = event_tables(get(client, f"/e/{event.slug}/standings/"))["60-69"]
    # place, Game 1 and the running total, Game 2 and the running total, total, note
    assert everything["P3"] == ["—", str(GAME1["P3"]), str(GAME1["P3"]), "—", "—"] + [
        str(GAME1["P3"]),
        "withdrew",
    ]


# -- the standings after every game ----------------------------------------------------------------


def test_the_event_standings_show_every_game_and_the_running_totals_reachable_from_the_home(
    director_client, client
):
    event = two_divisions(
        director_client, format_kind="cumulative", format_games=2, format_reseat="by_standing"
    )
    home = get(client, f"/e/{event.slug}/")
    link = re.search(r'<a href="([^"]+)" id="cumulative-link">([^<]+)</a>', home)
    assert link.group(1) == f"/e/{event.slug}/standings/"
    assert link.group(2) == "Standings: every game and the running totals"
    assert "No game has been played yet." in text(get(client, link.group(1)))

    game1 = seat_game_1(director_client, event)
    play_game(director_client, game1, GAME1)
    close(director_client, game1)
    game2 = event.stages.get(number=2)
    play_game(director_client, game2, GAME2)
    close(director_client, game2)

    page = get(client, link.group(1))
    shown = event_tables(page)
    final = {n: GAME1[n] + GAME2[n] for n in names(16)}
    for division, players in (("60-69", names(16)[:8]), ("70-79", names(16)[8:])):
        expected = places_by(final, players)
        order = sorted(players, key=lambda n: final[n])
        medals = dict(zip(order[:3], MEDALS, strict=True))
        assert list(shown[division]) == order
        for name in players:
            g1, g2 = str(GAME1[name]), str(GAME2[name])
            assert shown[division][name] == [
                expected[name],
                g1,
                g1,
                g2,
                str(final[name]),
                str(final[name]),
                medals.get(name, ""),
            ], name
    assert "Game 1" in text(page) and "Game 2" in text(page)
    assert "Places by the cumulative total" in text(page)
    # The last game's page says the medals beside the running totals that gave them.
    last = {r[1]: r for d in game_tables(get(client, f"/e/{event.slug}/2/")).values() for r in d}
    assert {n: (r[4], r[5]) for n, r in last.items() if r[5]} == {
        n: (str(final[n]), medal)
        for players in (names(16)[:8], names(16)[8:])
        for n, medal in zip(sorted(players, key=final.get)[:3], MEDALS, strict=True)
    }


def test_a_knockout_has_no_cumulative_standings_and_its_pages_say_no_road_of_games(
    director_client, client
):
    event = make_event(slug="ko")
    make_players(event, count=8)
    seat(event)
    assert client.get("/e/ko/standings/").status_code == 404
    assert "cumulative-link" not in get(client, "/e/ko/")
    page = get(client, "/e/ko/1/")
    assert "cumulative-standings" not in page and 'id="standings"' in page
    assert "seating-rule" not in get(client, "/e/ko/1/seating/")


# -- the road --------------------------------------------------------------------------------------


def road_of(page: str) -> list[str]:
    return [text(m) for m in re.findall(r'<span class="format-road">(.*?)</span>', page, re.S)]


def test_the_road_of_each_format_as_plain_words():
    rules = RuleSet()
    assert road(formats.Format(formats.CUMULATIVE, 3), rules) == (
        "Cumulative: 3 games, the lowest total wins. Between games, players are reseated at "
        "random, with the fewest repeated tablemates."
    )
    final = formats.Format(formats.CUMULATIVE_FINAL, 3, final_size=8)
    assert road(final, rules, 48) == (
        "3 games at 12 tables of 4 (48 players), then a Final of 8; the Final's totals give "
        "the medals. Between games, players are reseated at random, with the fewest repeated "
        "tablemates."
    )
    assert road(final, rules, 6).startswith(
        "3 games at 2 tables of 3 (6 players), then a Final of 6;"
    )
    progressive = formats.Format(formats.CUMULATIVE, 2, reseat=formats.PROGRESSIVE, move=2)
    assert road(progressive, rules, 13).endswith(
        "reseated progressively: each table's 2 lowest totals move up a table and its 2 highest "
        "down a table."
    )
    one = formats.Format(formats.CUMULATIVE_FINAL, 1, medals_from=formats.CUMULATIVE_PLUS_FINAL)
    assert road(one, rules) == (
        "1 game, then a Final of 4; the cumulative total plus the Final's gives the medals."
    )


def test_the_event_home_says_the_road_in_english_and_french(director_client, client):
    event = two_divisions(
        director_client,
        format_kind="cumulative_final",
        format_games=3,
        format_final_size=4,
        format_reseat="by_standing",
    )
    english = road_of(get(client, f"/e/{event.slug}/"))
    assert (
        english
        == [
            "3 games at 2 tables of 4 (8 players), then a Final of 4; the Final's totals give the "
            "medals. Between games, players are reseated by standing: the lowest cumulative totals "
            "at table 1, the next at table 2, and so on."
        ]
        * 2
    )
    page = get(client, f"/e/{event.slug}/", **FR)
    assert (
        road_of(page)
        == [
            "3 parties à 2 tables de 4 (8 joueurs), puis une finale de 4 ; les totaux de la "
            "finale donnent les médailles. Entre les parties, les joueurs sont replacés par "
            "classement : les plus bas totaux cumulés à la table 1, les suivants à la table 2, "
            "et ainsi de suite."
        ]
        * 2
    )
    assert "Le parcours jusqu'à la finale" in text(page)

    response = director_client.post(
        "/director/new/",
        {**SHORT, "name": "Tuesday Club", "format_kind": "cumulative", "format_games": 3},
    )
    assert response.status_code == 302
    cumulative = Event.objects.get(name="Tuesday Club")
    assert road_of(get(client, f"/e/{cumulative.slug}/")) == [
        "Cumulative: 3 games, the lowest total wins. Between games, players are reseated at "
        "random, with the fewest repeated tablemates."
    ]
    assert road_of(get(client, f"/e/{cumulative.slug}/", **FR)) == [
        "Cumulatif : 3 parties, le plus bas total l'emporte. Entre les parties, les joueurs "
        "sont replacés au hasard, en répétant le moins possible les voisins de table."
    ]


def advance_page(client, stage, **headers) -> str:
    return get(client, f"/director/e/{stage.event.slug}/{stage.number}/close/", **headers)


def finalists(page: str) -> str:
    return text(re.search(r'id="finalists".*?<p class="mb-1">(.*?)</p>', page, re.S).group(1))


def closing(page: str) -> str:
    found = re.search(r'id="closing-does">(.*?)</p>', page, re.S)
    return text(found.group(1)) if found else ""


def test_the_close_page_says_what_closing_a_game_does_then_lists_the_finals_players(
    director_client,
):
    event = create(
        director_client,
        format_kind="cumulative_final",
        format_games=2,
        format_final_size=4,
        format_reseat="progressive",
    )
    make_players(event, names(12))
    game1 = seat_game_1(director_client, event)
    play_game(director_client, game1, GAME1)
    page = advance_page(director_client, game1)
    assert closing(page) == (
        "Closing Game 1 seats Game 2: everyone still playing is reseated progressively: each "
        "table's lowest total moves up a table and its highest down a table."
    )
    assert road_of(page) == [
        "2 games at 3 tables of 4 (12 players), then a Final of 4; the Final's totals give the "
        "medals. Between games, players are reseated progressively: each table's lowest total "
        "moves up a table and its highest down a table."
    ]
    assert closing(advance_page(director_client, game1, **FR)) == (
        "Clore Partie 1 place Partie 2 : tous ceux qui jouent encore sont replacés en "
        "progression : à chaque table, le plus bas total monte d'une table et le plus haut "
        "descend d'une table."
    )
    # The preview's cumulative standings: the places this close publishes.
    preview = {r[1]: r for r in game_tables(page)[""]}
    assert {n: r[4] for n, r in preview.items()} == {n: str(GAME1[n]) for n in names(12)}

    close(director_client, game1)
    game2 = event.stages.get(number=2)
    play_game(director_client, game2, GAME2)
    page = advance_page(director_client, game2)
    assert closing(page) == (
        "Game 2 is the last game: closing it sends the 4 lowest cumulative totals of each "
        "division to the Final (a tie at the cut is played off)."
    )
    total = {n: GAME1[n] + GAME2[n] for n in names(12)}
    best = sorted(names(12), key=lambda n: total[n])[:4]
    assert finalists(page) == ", ".join(f"{n} ({total[n]})" for n in best)  # as the close will
    close(director_client, game2)
    page = advance_page(director_client, game2)
    assert not closing(page)
    assert finalists(page) == ", ".join(f"{n} ({total[n]})" for n in best)
    final = event.stages.get(kind=StageKind.FINAL)
    assert sorted(s.player.name for s in final.seats.select_related("player")) == sorted(best)
    assert closing(advance_page(director_client, final)) == (
        "Closing Final gives the medals from its totals alone."
    )
    in_final = dict(zip(best, [30, 12, 20, 25], strict=True))
    play_game(director_client, final, in_final)
    close(director_client, final)
    # The standings after every game: the Final's totals beside the games', its medals.
    shown = event_tables(get(director_client, f"/e/{event.slug}/standings/"))[""]
    assert {n: row[-3:] for n, row in shown.items() if n in best} == {
        best[0]: ["30", str(total[best[0]]), "finalist"],
        best[1]: ["12", str(total[best[1]]), "Gold"],
        best[2]: ["20", str(total[best[2]]), "Silver"],
        best[3]: ["25", str(total[best[3]]), "Bronze"],
    }
    assert {row[-3] for n, row in shown.items() if n not in best} == {"—"}


def test_the_close_page_of_the_last_game_of_a_cumulative_event_says_it_gives_the_medals(
    director_client,
):
    event = create(director_client, format_kind="cumulative", format_games=1)
    make_players(event, names(8))
    game1 = seat_game_1(director_client, event)
    play_game(director_client, game1, GAME1)
    page = advance_page(director_client, game1)
    assert closing(page) == (
        "Game 1 is the last game: closing it gives the medals from the cumulative totals."
    )
    assert road_of(page) == [
        "Cumulative: 1 game at 2 tables of 4 (8 players), the lowest total wins."
    ]


# -- the seating page ------------------------------------------------------------------------------


def seating_rule(page: str) -> str:
    return text(re.search(r'<p id="seating-rule">(.*?)</p>', page, re.S).group(1))


def test_the_seating_page_says_which_rule_placed_everyone_and_a_director_may_move_a_player(
    director_client, client
):
    event = create(
        director_client,
        format_kind="cumulative",
        format_games=2,
        format_reseat="progressive",
        format_move=2,
        table_size=5,  # tables of 4 or 5: 2 may move each way
    )
    make_players(event, names(14))
    game1 = seat_game_1(director_client, event)
    assert seating_rule(get(client, f"/e/{event.slug}/1/seating/")) == (
        "Game 1: a random balanced draw of the players checked in, divisions apart."
    )
    play_game(director_client, game1, GAME1)
    close(director_client, game1)
    url = f"/e/{event.slug}/2/seating/"
    assert seating_rule(get(client, url)) == (
        "Game 2: everyone still playing is reseated progressively: each table's 2 lowest totals "
        "move up a table and its 2 highest down a table, divisions apart."
    )
    assert seating_rule(get(client, url, **FR)) == (
        "Partie 2 : tous ceux qui jouent encore sont replacés en progression : à chaque table, "
        "les 2 plus bas totaux montent d'une table et les 2 plus hauts descendent d'une table, "
        "catégories séparées."
    )
    director_page = get(director_client, url)
    assert "reseats everyone still playing by the event's reseating rule" in text(director_page)

    game2 = event.stages.get(number=2)
    seat = Seat.objects.filter(stage=game2, table__number=1).select_related("player").first()
    table3 = Table.objects.get(stage=game2, number=3)
    response = director_client.post(
        f"/director/e/{event.slug}/2/seat/",
        {"move": "1", "player": seat.player.pk, "table": table3.pk},
        follow=True,
    )
    assert f"{seat.player.name} moved to table 3." in text(response.content.decode())
    seat.refresh_from_db()
    assert seat.table == table3
    assert seating_rule(get(client, url)).endswith(
        f"divisions apart. Moved by a director since: {seat.player.name} to table 3."
    )
    assert seating_rule(get(client, url, **FR)).endswith(
        f"Déplacés par un directeur depuis : {seat.player.name} à la table 3."
    )


# -- a fixed number of queries ---------------------------------------------------------------------


def cumulative_event(players: int) -> Event:
    """A cumulative event of 3 games: Game 1 closed, Game 2 seated by standing and played."""
    director = make_director()
    event = short_event(
        director, format_kind="cumulative", format_games=3, format_reseat="by_standing"
    )
    make_players(event, count=players)
    game1 = seat(event)
    totals = {p.name: 10 + i % 17 for i, p in enumerate(event.players.order_by("pk"))}
    for table in Table.objects.filter(stage=game1):
        play_totals(table, totals)
    close_and_seat(game1, director)
    for table in Table.objects.filter(stage=event.stages.get(number=2)):
        play_totals(table, {n: t + 3 for n, t in totals.items()})
    return event


def count_queries(client, url) -> int:
    cache.clear()  # the page as its first reader after a change gets it: nothing cached
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200, url
    return len(queries)


@pytest.mark.parametrize(
    "url, director",
    [
        ("/e/{e}/", False),
        ("/e/{e}/standings/", False),
        ("/e/{e}/1/", False),
        ("/e/{e}/2/", False),
        ("/e/{e}/2/seating/", False),
        ("/e/{e}/", True),
        ("/e/{e}/2/seating/", True),
        ("/director/e/{e}/2/close/", True),
    ],
)
def test_the_pages_of_a_cumulative_event_use_a_fixed_number_of_queries(client, url, director):
    counts = []
    for size in (12, 48):
        event = cumulative_event(size)
        assert Seat.objects.filter(stage__event=event, stage__number=2).count() == size
        if director:
            client.force_login(event.directors.get())
        counts.append(count_queries(client, url.format(e=event.slug)))
    assert counts[0] == counts[1], counts


# -- on a phone ------------------------------------------------------------------------------------


@pytest.mark.browser
def test_the_cumulative_standings_on_a_320_px_phone(browser, live_server, transactional_db, pages):
    event = cumulative_event(12)
    event.name, event.slug = "Club Night", "club"
    event.save()
    page = pages(viewport={"width": 320, "height": 640}, is_mobile=True, has_touch=True)
    page.goto(live_server.url + "/e/club/standings/")
    rows = page.locator("table.cumulative-all tbody tr")
    assert rows.count() == 12
    first = rows.first.locator("td").all_inner_texts()
    assert first[0] == "1" and first[2] == first[3]  # Game 1 alone: its total is the running
    page.screenshot(path=str(b.artifact("cumulative-all-320.png")), full_page=True)
    page.goto(live_server.url + "/e/club/2/")
    rows = page.locator("table.cumulative-standings tbody tr")
    assert rows.count() == 12
    cells = rows.first.locator("td").all_inner_texts()
    assert cells[0] == "1" and int(cells[4]) > int(cells[3]) > 0
    page.screenshot(path=str(b.artifact("cumulative-game-320.png")), full_page=True)
    # The road, the seating rule and the close page, each checked by axe as it opens.
    page.goto(live_server.url + "/e/club/")
    expect(page.locator(".format-road")).to_contain_text("Cumulative: 3 games at 3 tables of 4")
    page.goto(live_server.url + "/e/club/2/seating/")
    expect(page.locator("#seating-rule")).to_contain_text("Game 2: everyone still playing")
    page.goto(live_server.url + "/accounts/login/?next=/director/e/club/2/close/")
    b.log_in(page, event.directors.get().username, PASSWORD)
    expect(page.locator("#closing-does")).to_contain_text("Closing Game 2 seats Game 3")
    expect(page.locator("#cumulative-standings tbody tr")).to_have_count(12)
