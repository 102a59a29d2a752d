"""The ratings' pages (issue 31 items 2 and 5): the leaderboard (order, provisional players
hidden, search, club, pages, a fixed number of queries) and a player's rating on their page
(the chart and its table, the expected place at a table of chosen opponents), read as a
visitor reads them."""

import datetime
import re

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django.utils.formats import date_format

from scoring.charts import BOTTOM, HEIGHT, TOP
from scoring.models import RatedPlayer, Rating, RatingPoint, RatingsState
from scoring.views import ratings as ratings_views
from tests.factories import make_event, make_players, play, publish_drafts, seat
from tournament.game import ratings as rule
from tournament.models import Seat

pytestmark = pytest.mark.django_db


def text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


def rows_of(page: str, table_id: str) -> list[list[str]]:
    """Each body row of the table ``table_id`` as the text of its cells."""
    table = page[page.index(f'id="{table_id}"') :]
    body = table[table.index("<tbody>") : table.index("</tbody>")]
    return [
        [text(cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)
    ]


def computed(games: int = 10) -> RatingsState:
    state = RatingsState.objects.first() or RatingsState()
    state.computed_at, state.games = timezone.now(), games
    state.fingerprint = f"f{RatingsState.objects.count()}{timezone.now().timestamp()}"
    state.save()
    return state


def rate(players, mu: float, sigma: float, games: int, history=()) -> Rating:
    """A rated person: ``players`` (latest last), their rating, and ``history`` as
    (player, mu, sigma, games) after each event, rows written as the computation writes them."""
    latest = players[-1]
    rating = Rating.objects.create(
        player=latest,
        mu=mu,
        sigma=sigma,
        score=rule.shown(mu, sigma),
        games=games,
        events=len({p.event_id for p in players}),
    )
    for p in players:
        RatedPlayer.objects.create(player=p, rating=rating)
    for p, m, s, g in history:
        RatingPoint.objects.create(
            rating=rating, player=p, event=p.event, mu=m, sigma=s, score=rule.shown(m, s), games=g
        )
    return rating


@pytest.fixture
def board(director):
    """Six people of one club night and one of another club: three qualified with distinct
    ratings, two qualified tied, one provisional (4 games of 5)."""
    event = make_event(director, name="Club night", slug="club-night")
    names = ["Ana Núñez", "Bob Stone", "Cleo Park", "Dan Ortiz", "Eve Ray", "Fay Lu"]
    players = make_players(event, names, club="Laval")
    (other,) = make_players(event, ["Gus Moe"], club="Québec")
    ana, bob, cleo, dan, eve, fay = players
    rate([ana], 30, 2, 12)
    rate([bob], 28, 2, 9)
    rate([cleo], 27, 2, 6)
    rate([dan], 27, 2, 6)  # tied with Cleo
    rate([eve], 40, 3, 4)  # the best μ − 3σ of all, but provisional
    rate([other], 24, 2, 8)
    computed()
    return event, players, other


def test_the_leaderboard_lists_qualified_players_by_their_shown_rating(client, board):
    event, (ana, bob, cleo, dan, eve, fay), gus = board
    page = client.get("/ratings/").content.decode()
    rows = rows_of(page, "ratings")
    assert [r[1] for r in rows] == ["Ana Núñez", "Bob Stone", "Cleo Park", "Dan Ortiz", "Gus Moe"]
    assert [r[0] for r in rows] == ["1", "2", "T3", "T3", "5"]
    assert rows[0][3] == str(rule.shown(30, 2)) == "2400" and rows[0][4] == "12"
    assert rows[4][2] == "Québec" and rows[0][6] == f"Club night {event.date.isoformat()}"
    assert "Eve Ray" not in page and "Fay Lu" not in page  # provisional, and not rated
    assert f'href="/e/club-night/player/{ana.pk}/"' in page
    note = text(page[page.index('id="ratings-note"') :])
    assert "μ − 3σ, times 100" in note and "fewer than 5 rated games" in note
    assert "Last computed:" in note and "recomputed in the background" in note


def test_the_minimum_of_games_is_a_setting(client, board, settings):
    settings.RATING_MIN_GAMES = 10
    rows = rows_of(client.get("/ratings/").content.decode(), "ratings")
    assert [r[1] for r in rows] == ["Ana Núñez"]
    settings.RATING_MIN_GAMES = 1  # a page kept before the change is not shown after it
    rows = rows_of(client.get("/ratings/").content.decode(), "ratings")
    assert rows[0][1] == "Eve Ray" and len(rows) == 6


def test_search_by_name_and_club_keep_the_overall_place(client, board):
    page = client.get("/ratings/", {"q": "nunez"}).content.decode()  # no accent, no case
    assert [r[:2] for r in rows_of(page, "ratings")] == [["1", "Ana Núñez"]]
    page = client.get("/ratings/", {"q": "park"}).content.decode()
    assert [r[:2] for r in rows_of(page, "ratings")] == [["T3", "Cleo Park"]]
    page = client.get("/ratings/", {"club": "québec"}).content.decode()
    assert [r[:2] for r in rows_of(page, "ratings")] == [["5", "Gus Moe"]]
    assert 'id="ratings-club" value="québec"' in page
    # Each club on the board is a link to its players.
    page = client.get("/ratings/").content.decode()
    assert '<a href="?club=Qu%C3%A9bec">Québec</a>' in page
    page = client.get("/ratings/", {"q": "Zed"}).content.decode()
    assert 'id="ratings"' not in page and "No rated player matches." in page
    # Bad input is ignored or found nowhere, never a 500.
    for query in ({"q": "x" * 500}, {"club": "<b>x</b>"}, {"page": "-1"}, {"page": "²"}):
        assert client.get("/ratings/", query).status_code == 200


def test_before_any_rating_the_page_says_so(client, db):
    page = client.get("/ratings/").content.decode()
    assert "Nobody is rated yet" in page and "Last computed" not in page


def many(director, n: int, events: int = 5):
    """``n`` qualified people spread over ``events`` events and three clubs, distinct ratings."""
    made = [make_event(director, slug=f"many-{n}-{e}") for e in range(events)]
    for i in range(n):
        event = made[i % events]
        (p,) = make_players(event, [f"Person {i:04d}"], club=f"Club {i % 3}")
        rate([p], 20 + i / 10, 2, 5 + i % 7)
    computed()


def test_the_leaderboard_has_pages(client, director, monkeypatch):
    monkeypatch.setattr(ratings_views, "PER_PAGE", 100)  # 1,000 on the site: the same paging
    many(director, 130)
    page = client.get("/ratings/").content.decode()
    rows = rows_of(page, "ratings")
    assert len(rows) == 100 and rows[0][:2] == ["1", "Person 0129"]
    assert "Page 1 of 2" in text(page) and "130 rated players" in text(page)
    page = client.get("/ratings/", {"page": "2"}).content.decode()
    rows = rows_of(page, "ratings")
    assert [r[0] for r in rows] == [str(n) for n in range(101, 131)]
    assert rows[-1][1] == "Person 0000"
    # Past the end: the last page; not a number: the first.
    assert rows_of(client.get("/ratings/?page=9").content.decode(), "ratings") == rows
    assert rows_of(client.get("/ratings/?page=x").content.decode(), "ratings")[0][0] == "1"
    # A search keeps its words from page to page.
    page = client.get("/ratings/", {"club": "Club 1"}).content.decode()
    assert len(rows_of(page, "ratings")) == 43


def queries(client, path: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(path).status_code == 200
    return len(captured)


@pytest.mark.parametrize(
    "path", ["/ratings/", "/ratings/?page=2", "/ratings/?q=Person&club=Club+1"]
)
def test_the_leaderboard_asks_the_same_queries_at_any_size(client, director, path):
    many(director, 30)
    cache.clear()
    small, small_kept = queries(client, path), queries(client, path)
    many(director, 260)
    cache.clear()
    large, large_kept = queries(client, path), queries(client, path)
    assert small == large and small_kept == large_kept
    assert large_kept < large  # kept: no row read until the ratings change


def test_a_new_computation_shows_at_once(client, board):
    event, (ana, *_), _gus = board
    assert rows_of(client.get("/ratings/").content.decode(), "ratings")[0][3] == "2400"
    Rating.objects.filter(player=ana).update(score=1)
    assert rows_of(client.get("/ratings/").content.decode(), "ratings")[0][3] == "2400"  # kept
    computed()
    rows = rows_of(client.get("/ratings/").content.decode(), "ratings")
    assert rows[-1][1] == "Ana Núñez" and rows[-1][3] == "1"


def test_the_site_links_the_leaderboard(client, board):
    home = client.get("/").content.decode()
    nav = home[home.index("<nav") : home.index("</nav>")]
    assert 'href="/ratings/"' in nav
    assert 'href="/ratings/"' in home[home.index('id="past-events"') :]
    records = client.get("/records/").content.decode()
    assert 'href="/ratings/"' in records[records.index("<main") :]


def test_the_leaderboard_in_french(client, board):
    page = client.get("/ratings/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert '<html lang="fr">' in page
    head = text(page[page.index('id="ratings"') :][:2000])
    for word in ("Place", "Joueur", "Club", "Parties"):
        assert word in head
    assert ">Rechercher<" in page


# -- a player's page ------------------------------------------------------------------------


@pytest.fixture
def history(director):
    """Ana played three events (the latest is the one her page is read in), rated after each."""
    events = [
        make_event(director, name=name, slug=slug, date=datetime.date(2026, month, 1))
        for name, slug, month in [
            ("Winter night", "winter", 1),
            ("Spring night", "spring-night", 4),
            ("Summer games", "summer", 7),
        ]
    ]
    anas = [make_players(e, ["Ana Núñez"], ref="7", club="Laval")[0] for e in events]
    points = [(anas[0], 25.5, 7.0, 3), (anas[1], 27.0, 5.0, 8), (anas[2], 28.0, 4.0, 12)]
    rating = rate(anas, 28.0, 4.0, 12, points)
    computed()
    return events, anas, rating


def values_drawn(page: str) -> list[int]:
    """The ratings the chart's dots stand for, read back through its axis."""
    svg = page[page.index('id="rating-chart"') :]
    ticks = [int(v) for v in re.findall(r'text-anchor="end"[^>]*>(-?\d+)<', svg)]
    low, top = min(ticks), max(ticks)
    plot = HEIGHT - TOP - BOTTOM
    ys = [float(y) for y in re.findall(r'<circle class="chart-dot" cx="[^"]+" cy="([^"]+)"', svg)]
    return [round(top - (y - TOP) * (top - low) / plot) for y in ys]


def assert_drawn(page: str, scores: list[int]) -> None:
    """The chart's dots stand for ``scores``, within the rounding of a tenth of a pixel."""
    drawn = values_drawn(page)
    assert len(drawn) == len(scores)
    assert all(abs(a - b) <= 2 for a, b in zip(drawn, scores, strict=True)), (drawn, scores)


def test_a_players_page_draws_their_rating_after_each_event(client, history):
    events, anas, rating = history
    page = client.get(f"/e/summer/player/{anas[2].pk}/").content.decode()
    now = text(re.search(r'<p id="rating-now">(.*?)</p>', page, re.S).group(1))
    assert now.startswith(f"{rating.score} after 12 rated games") and "provisional" not in now
    scores = [rule.shown(*mu_sigma) for mu_sigma in [(25.5, 7.0), (27.0, 5.0), (28.0, 4.0)]]
    assert scores == [450, 1200, 1600]
    assert_drawn(page, scores)
    assert 'role="img" aria-labelledby="rating-chart-title"' in page
    rows = rows_of(page, "rating-history")
    assert [r[2] for r in rows] == ["Winter night", "Spring night", "Summer games"]
    assert [r[3] for r in rows] == ["450", "1200", "1600"] and [r[4] for r in rows] == [
        "3",
        "8",
        "12",
    ]
    assert [r[1] for r in rows] == [date_format(e.date) for e in events]
    assert f'href="/e/winter/player/{anas[0].pk}/"' in page
    # The same section on her page of an earlier event: one person.
    page = client.get(f"/e/winter/player/{anas[0].pk}/").content.decode()
    assert_drawn(page, scores)


def test_a_rating_below_zero_draws_below_the_axis_zero(client, history):
    events, anas, rating = history
    RatingPoint.objects.filter(rating=rating, event=events[0]).update(score=-230)
    page = client.get(f"/e/summer/player/{anas[2].pk}/").content.decode()
    assert_drawn(page, [-230, 1200, 1600])
    assert min(int(v) for v in re.findall(r'text-anchor="end"[^>]*>(-?\d+)<', page)) == -500


def test_a_player_under_the_minimum_is_provisional(client, director):
    event = make_event(director, slug="first-night")
    (zoe,) = make_players(event, ["Zoé"])
    rate([zoe], 26.0, 6.5, 3, [(zoe, 26.0, 6.5, 3)])
    computed()
    page = client.get(f"/e/first-night/player/{zoe.pk}/").content.decode()
    assert 'id="rating-provisional"' in page
    assert "fewer than 5 rated games: not on the leaderboard yet" in text(page)
    assert "Zoé" not in client.get("/ratings/").content.decode()


def test_an_unrated_player_has_no_rating_section(client, seated):
    player = seated.event.players.first()
    page = client.get(f"/e/spring/player/{player.pk}/").content.decode()
    assert 'id="rating"' not in page


@pytest.fixture
def table_of_four(director):
    """A seated event: every player of table 1 rated but one; the player read is rated."""
    event = make_event(director, slug="tonight")
    make_players(event, count=8)
    stage = seat(event)
    table = stage.tables.get(number=1)
    me, *mates = [s.player for s in table.seats.select_related("player").order_by("position")]
    rate([me], 29.0, 2.5, 20)
    rate([mates[0]], 24.0, 3.0, 15)
    rate([mates[1]], 22.0, 4.0, 2)  # provisional
    computed()
    other = stage.tables.get(number=2).seats.select_related("player").first().player
    rate([other], 35.0, 1.5, 40)
    return event, table, me, mates, other


def expected_rows(page: str) -> dict[str, list[str]]:
    return {r[1]: r for r in rows_of(page, "expected")}


def test_the_expected_place_at_their_latest_table(client, table_of_four):
    event, table, me, mates, other = table_of_four
    page = client.get(f"/e/tonight/player/{me.pk}/").content.decode()
    ticked = re.findall(r'name="vs" value="(\d+)" id="vs-\d+" checked', page)
    assert sorted(map(int, ticked)) == sorted(p.pk for p in mates)
    shown = expected_rows(page)
    ratings = [
        rule.Rating(29.0, 2.5, 20),
        rule.Rating(24.0, 3.0, 15),
        rule.Rating(22.0, 4.0, 2),
        rule.Rating(),  # not rated: a new player
    ]
    places, chances = rule.expected_places(ratings), rule.win_chances(ratings)
    for player, (place, _), chance in zip([me, *mates], places, chances, strict=True):
        row = shown[player.name]
        assert row[0] == str(place) and row[3] == f"{round(100 * chance)} %"
    assert shown[me.name][0] == "1"
    assert "provisional" in shown[mates[1].name][2]
    assert "not rated yet" in shown[mates[2].name][2]


def test_opponents_chosen_and_added_by_name(client, table_of_four):
    event, table, me, mates, other = table_of_four
    url = f"/e/tonight/player/{me.pk}/"
    page = client.get(url, {"vs": [mates[0].pk], "add": other.name.upper()}).content.decode()
    shown = expected_rows(page)
    assert set(shown) == {me.name, mates[0].name, other.name}
    assert shown[other.name][0] == "1"  # 35 ± 1.5 against 29 ± 2.5
    ratings = [rule.Rating(29.0, 2.5), rule.Rating(24.0, 3.0), rule.Rating(35.0, 1.5)]
    assert shown[me.name][0] == str(rule.expected_places(ratings)[0][0])
    # Everyone unticked: nothing to show, and the page says so.
    page = client.get(url, {"add": ""}).content.decode()
    assert 'id="expected"' not in page and "Choose at least one opponent." in page


@pytest.mark.parametrize(
    "query, message",
    [
        ({"vs": ["abc"]}, "Choose the opponents from the list."),
        ({"vs": ["²"]}, "Choose the opponents from the list."),
        ({"vs": ["99999999"]}, "Choose opponents among the other players."),
        ({"vs": ["1" * 30]}, "Choose the opponents from the list."),
        ({"add": "Nobody Here"}, "No other player is called"),
        ({"add": "Player"}, "Several people are called"),
    ],
)
def test_bad_opponents_get_a_clear_message(client, table_of_four, query, message):
    event, table, me, mates, other = table_of_four
    response = client.get(f"/e/tonight/player/{me.pk}/", query)
    assert response.status_code == 200
    page = response.content.decode()
    errors = page[page.index('id="expected-errors"') :][:400]
    assert message in errors and 'id="expected"' not in page


def test_more_than_seven_opponents_are_refused_a_player_of_another_event_is_not(
    client, table_of_four, director
):
    event, table, me, mates, other = table_of_four
    eight = [p.pk for p in event.players.exclude(pk=me.pk)]
    extra = make_players(event, count=1, names=["Extra One"])
    page = client.get(f"/e/tonight/player/{me.pk}/", {"vs": [*eight, extra[0].pk]})
    assert "Choose at most 7 opponents: a table holds 8 players." in page.content.decode()
    seven = eight[:7]
    page = client.get(f"/e/tonight/player/{me.pk}/", {"vs": seven, "add": "Extra One"})
    assert "Choose at most 7 opponents" in page.content.decode()
    # Ratings are site-wide (issue 45 item 4): anyone rated, from any event, by name or ticked.
    away = make_event(director, name="Away night", slug="away")
    (elsewhere,) = make_players(away, ["Far Away"])
    rate([elsewhere], 31.0, 2.0, 12)
    computed()
    for query in ({"vs": [elsewhere.pk]}, {"add": "far away"}):
        page = client.get(f"/e/tonight/player/{me.pk}/", query).content.decode()
        row = next(r for r in rows_of(page, "expected") if r[1].startswith("Far Away"))
        assert row[1] == "Far Away Away night" and row[2] == f"{rule.shown(31.0, 2.0)}"
        assert f'href="/e/away/player/{elsewhere.pk}/"' in page
    page = client.get(f"/e/tonight/player/{me.pk}/", {"vs": [me.pk]}).content.decode()
    assert "Choose opponents among the other players." in page  # not against themself


def test_the_player_page_is_not_kept_past_a_new_computation(client, table_of_four):
    event, table, me, mates, other = table_of_four
    url = f"/e/tonight/player/{me.pk}/"
    first = client.get(url)
    etag = first.headers["ETag"]
    assert client.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 304
    Rating.objects.filter(player=me).update(score=4321)
    computed()
    again = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 200 and "4321" in again.content.decode()


def test_the_player_page_asks_the_same_queries_with_more_rated_history(client, history, director):
    events, anas, rating = history
    url = f"/e/summer/player/{anas[2].pk}/"
    few = queries(client, url)
    for month in range(8, 12):
        later = make_event(director, slug=f"m{month}", date=datetime.date(2026, month, 2))
        (p,) = make_players(later, ["Ana Núñez"])
        RatedPlayer.objects.create(player=p, rating=rating)
        RatingPoint.objects.create(
            rating=rating, player=p, event=later, mu=28, sigma=4, score=1600, games=20
        )
    computed()
    assert queries(client, url) == few
    with_opponents = f"{url}?add=Nobody"
    assert queries(client, with_opponents) <= few + 2


def test_the_expected_place_in_french(client, table_of_four):
    event, table, me, mates, other = table_of_four
    page = client.get(f"/e/tonight/player/{me.pk}/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert '<html lang="fr">' in page
    head = page[page.index('id="expected"') :][:600]
    assert "Joueur" in head


def test_played_games_show_on_the_page(client, table_of_four):
    """The page's games and the rating part stand together: a round played changes neither
    the rating (computed in the background) nor the opponents offered."""
    event, table, me, mates, other = table_of_four
    play(table, 2)
    page = client.get(f"/e/tonight/player/{me.pk}/").content.decode()
    assert 'id="player-games"' in page and 'id="expected"' in page


# -- the pages over ratings computed from games played through the site ---------------------


def night(director, client, date: str, names: list[str]):
    """An event of two tables of 4 (two rounds a game), Game 1 played and closed through its
    page; the players are the same people from one night to the next (id within the club)."""
    event = make_event(
        director,
        slug=f"night-{date}",
        name=f"Night of {date}",
        engines=[1, 0],
        game_minutes=None,
        finals_top_n=1,
        date=datetime.date.fromisoformat(date),
    )
    make_players(event, names, ref="", club="Lakeside")
    for p in event.players.all():
        p.ref = p.name.lower()
        p.save(update_fields=["ref"])
    stage = seat(event)
    for table in stage.tables.order_by("number"):
        play(table, 2, director)
    response = client.post(f"/director/e/{event.slug}/1/close/", {"action": "close"})
    assert response.status_code == 302
    publish_drafts(client, event)  # the Final it seats
    return event


def test_the_pages_show_the_ratings_computed_from_games_played(
    client, director, director_client, settings
):
    from scoring.services.ratings import compute_ratings

    names = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]
    first = night(director, director_client, "2026-03-01", names)
    second = night(director, director_client, "2026-04-01", names)
    compute_ratings()
    settings.RATING_MIN_GAMES = 2  # each played one game a night
    ratings = list(Rating.objects.select_related("player").order_by("-score", "pk"))
    assert len(ratings) == 8 and all(r.games == 2 and r.events == 2 for r in ratings)
    assert {r.player.event_id for r in ratings} == {second.pk}  # shown as their latest
    rows = rows_of(client.get("/ratings/").content.decode(), "ratings")
    assert [(r[1], r[3], r[4], r[5]) for r in rows] == [
        (r.player.name, str(r.score), "2", "2") for r in ratings
    ]
    best = ratings[0]
    page = client.get(f"/e/{second.slug}/player/{best.player_id}/").content.decode()
    points = list(RatingPoint.objects.filter(rating=best).order_by("event__date"))
    assert [p.event_id for p in points] == [first.pk, second.pk]
    assert [r[3] for r in rows_of(page, "rating-history")] == [str(p.score) for p in points]
    assert_drawn(page, [p.score for p in points])
    assert text(re.search(r'<p id="rating-now">(.*?)</p>', page, re.S).group(1)).startswith(
        f"{best.score} after 2 rated games"
    )
    # The expected place against their latest table (a Final seated by the close, for a
    # table's winner), as the rule predicts it from the rows.
    shown = expected_rows(page)
    seat = Seat.objects.filter(player_id=best.player_id).order_by("-stage__number").first()
    latest = {s.player.name for s in seat.table.seats.select_related("player")}
    assert set(shown) == latest and len(latest) >= 2
    mine = RatedPlayer.objects.select_related("rating", "player")
    at_table = [r for r in mine if r.player.name in shown and r.player.event_id == second.pk]
    me = next(r for r in at_table if r.player_id == best.player_id)
    table = [me, *sorted((r for r in at_table if r is not me), key=lambda r: r.player.name)]
    models = [rule.Rating(r.rating.mu, r.rating.sigma, r.rating.games) for r in table]
    for r, chance in zip(table, rule.win_chances(models), strict=True):
        assert shown[r.player.name][3] == f"{round(100 * chance)} %"


def test_players_rated_but_all_provisional_are_counted_not_called_nobody(client, board, settings):
    settings.RATING_MIN_GAMES = 1000  # everyone rated is still provisional
    page = client.get("/ratings/").content.decode()
    assert 'id="ratings"' not in page and "Nobody is rated yet" not in page
    rated = Rating.objects.count()
    assert f"{rated} players are rated so far" in text(page)
    assert "provisional rating shows on the player's page" in text(page)


def test_the_leaderboard_in_french_while_everyone_is_provisional(client, board, settings):
    """Issue 45 item 3: the count given to the plural was a lazy object, and French's plural
    formula (n % 1000000) made the page a 500."""
    settings.RATING_MIN_GAMES = 1000
    response = client.get("/ratings/", HTTP_ACCEPT_LANGUAGE="fr")
    assert response.status_code == 200
    rated = Rating.objects.count()
    assert f"{rated} joueurs sont cotés pour l'instant" in text(response.content.decode())


def test_a_provisional_players_page_in_french(client, director):
    event = make_event(director, slug="first-night")
    (zoe,) = make_players(event, ["Zoé"])
    rate([zoe], 26.0, 6.5, 3, [(zoe, 26.0, 6.5, 3)])
    computed()
    response = client.get(f"/e/first-night/player/{zoe.pk}/", HTTP_ACCEPT_LANGUAGE="fr")
    assert response.status_code == 200
    page = text(response.content.decode())
    assert "après 3 parties cotées" in page
    assert "(moins de 5 parties cotées : pas encore au classement des cotes)" in page
