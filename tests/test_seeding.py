"""Seeding Game 1 by rating (issue 31 item 3), through the pages: the event form's option, off
by default; the draw with it on deals each division's players in a snake draft by rating (the
strongest spread over the tables, every table as strong as the others), unrated players after
the rated ones, at the table sizes the normal draw uses; the seating page says how the tables
were seeded; the event file keeps the option; a double-clicked draw seats once."""

import json
import random
from html.parser import HTMLParser

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext
from hypothesis import given
from hypothesis import strategies as st

from scoring.models import RatedPlayer, Rating
from scoring.services.ratings import compute_ratings
from scoring.services.simulation import seat_first_game
from tests.concurrency import at_once, form_key, logged_in, no_errors
from tests.factories import make_director, make_event, make_players
from tests.test_event_setup import NVSO_FORM
from tests.test_ratings import NAMES, game_one, register, short_event
from tournament.game.ratings import snake
from tournament.game.seating import seeded
from tournament.models import Action, Event, Seat, Table

FR = {"HTTP_ACCEPT_LANGUAGE": "fr-CA,fr;q=0.9,en;q=0.5"}


# -- helpers ---------------------------------------------------------------------------------


class Fields(HTMLParser):
    """What a page's form sends as it is drawn: inputs (a checkbox only when ticked), each
    select's chosen option, each textarea's text."""

    def __init__(self, html: str, action: str):
        super().__init__()
        self.action, self.inside, self.select, self.textarea = action, False, None, None
        self.fields: dict[str, str] = {}
        self.checkboxes: dict[str, bool] = {}
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self.inside = a.get("action") in (None, "", self.action)  # none: its own URL
        if not self.inside:
            return
        name = a.get("name")
        if tag == "input" and name:
            if a.get("type") == "checkbox":
                self.checkboxes[name] = "checked" in a
                if "checked" not in a:
                    return
                a.setdefault("value", "on")  # what a browser sends for a ticked box
            self.fields.setdefault(name, a.get("value") or "")
        elif tag == "select":
            self.select = name
        elif tag == "option" and self.select and "selected" in a:
            self.fields[self.select] = a.get("value", "")
        elif tag == "textarea":
            self.textarea = name
            self.fields[name] = ""

    def handle_data(self, data):
        if self.inside and self.textarea:
            self.fields[self.textarea] += data

    def handle_endtag(self, tag):
        if tag == "form":
            self.inside = False
        elif tag == "select":
            self.select = None
        elif tag == "textarea":
            self.textarea = None


def edit_form(client, event) -> Fields:
    url = f"/director/e/{event.slug}/edit/"
    return Fields(client.get(url).content.decode(), url)


def rate(players, mus) -> None:
    """Give each player a rating of μ (σ 2): as scoring/services/ratings.py leaves a person's
    rating and links their player of this event to it."""
    for player, mu in zip(players, mus, strict=True):
        rating = Rating.objects.create(
            player=player, mu=mu, sigma=2.0, score=round((mu - 6) * 100), games=10, events=2
        )
        RatedPlayer.objects.create(player=player, rating=rating)


def draw(client, event):
    """Draw Game 1 on its seating page and publish it, as a director does."""
    drawn = client.post(f"/director/e/{event.slug}/1/seat/", {}, follow=True)
    client.post(f"/director/e/{event.slug}/1/seat/", {"action": "publish"})
    return drawn


def tables_of(event) -> list[list[str]]:
    """Each table of Game 1 (table 1 first): its players' names, in seat order."""
    out: dict[int, list[str]] = {}
    seats = Seat.objects.filter(stage__event=event, stage__number=1).select_related("player")
    for seat in seats.order_by("table__number", "position"):
        out.setdefault(seat.table.number, []).append(seat.player.name)
    return [out[n] for n in sorted(out)]


def seeded_event(director, **fields):
    return make_event(director, seed_by_rating=True, **fields)


def note(page: str) -> str:
    start = page.index('id="seeding-note"')
    return " ".join(page[page.index(">", start) + 1 : page.index("</p>", start)].split())


# -- the event form --------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_event_form_turns_seeding_by_rating_on_and_off(director_client, event):
    form = edit_form(director_client, event)
    assert form.checkboxes["seed_by_rating"] is False  # off by default, offered unticked
    page = director_client.get(f"/director/e/{event.slug}/edit/").content.decode()
    assert "Seed Game 1 by rating" in page
    assert "so that the strongest are spread over the tables" in page  # its help

    response = director_client.post(
        f"/director/e/{event.slug}/edit/", {**form.fields, "seed_by_rating": "on"}
    )
    assert response.status_code == 302
    event.refresh_from_db()
    assert event.seed_by_rating
    form = edit_form(director_client, event)
    assert form.checkboxes["seed_by_rating"] is True

    fields = {k: v for k, v in form.fields.items() if k != "seed_by_rating"}  # unticked
    director_client.post(f"/director/e/{event.slug}/edit/", fields)
    event.refresh_from_db()
    assert not event.seed_by_rating
    changes = [
        a.data["fields"]
        for a in Action.objects.filter(event=event, verb="event.edited").order_by("pk")
    ]
    assert ["seed_by_rating", False, True] in changes[0]
    assert ["seed_by_rating", True, False] in changes[-1]


@pytest.mark.django_db
def test_a_new_event_does_not_seed_by_rating(director_client):
    assert director_client.post("/director/new/", NVSO_FORM).status_code == 302
    assert not Event.objects.get(name="NVSO 2026").seed_by_rating


# -- the draw --------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_seeded_draw_spreads_the_strongest_in_a_snake(director_client, director):
    event = seeded_event(director)
    players = make_players(event, count=16)
    rated = players[:12]
    rate(rated, [40 - rank for rank in range(12)])  # Player 01 is the strongest
    page = draw(director_client, event).content.decode()
    assert "4 tables drawn." in page
    tables = tables_of(event)
    assert [len(t) for t in tables] == [4, 4, 4, 4]
    rank = {p.name: i + 1 for i, p in enumerate(rated)}
    for table in tables:
        ranks = sorted(rank[name] for name in table if name in rank)
        assert len(ranks) == 3  # one of each 4 in strength, and one unrated
        low, mid, high = ranks
        assert low <= 4 and 5 <= mid <= 8 and 9 <= high <= 12
        assert low + mid == 9 and mid + high == 17  # the snake: 1, 8, 9 / 2, 7, 10 / ...
    top = {next(i for i, t in enumerate(tables) if f"Player {r:02d}" in t) for r in range(1, 5)}
    assert len(top) == 4  # the top 4 at 4 different tables
    sums = [sum(40 - rank[name] + 1 for name in table if name in rank) for table in tables]
    # Every table as strong as the others, within what one pass of the snake gives (the first
    # table's 1st against the last's 4th: 3 apart); a table alone with the top 4 would be 130.
    assert max(sums) - min(sums) <= 3
    assert sorted(name for t in tables for name in t) == sorted(p.name for p in players)


@pytest.mark.django_db
def test_ratings_from_an_earlier_event_seed_the_next_one(director_client, director):
    """The ratings as the site computes them (scoring/services/ratings.py) from an event played
    and closed through its pages: the same people (same id, same club) at the next event are
    seeded by them, the newcomers dealt after them."""
    first = short_event(director, "2026-03-01")
    register(first, NAMES)
    game_one(director_client, first, [[10, 20, 30, 40], [15, 25, 35, 45]])
    compute_ratings()
    nxt = short_event(director, "2026-04-01", seed_by_rating=True)
    register(nxt, NAMES + ["Ida", "Jo", "Kit", "Lu"])
    compute_ratings()
    rated = RatedPlayer.objects.filter(player__event=nxt)
    mu = dict(rated.values_list("player__name", "rating__mu"))
    assert set(mu) == set(NAMES)  # the newcomers have no rating yet
    assert len(set(mu.values())) == 4  # each place of the first event: 2 people alike
    page = draw(director_client, nxt).content.decode()
    assert "(8 of 12 players rated)" in page
    tables = tables_of(nxt)
    assert [len(t) for t in tables] == [4, 4, 4]
    at = {name: i for i, t in enumerate(tables) for name in t}
    snake_tables = [0, 1, 2, 2, 1, 0, 0, 1]  # the table of the 1st, 2nd, ... 8th strongest
    done = 0
    for value in sorted(set(mu.values()), reverse=True):  # equal ratings: in either order
        tier = [n for n in mu if mu[n] == value]
        assert sorted(at[n] for n in tier) == sorted(snake_tables[done : done + len(tier)])
        done += len(tier)
    assert sorted(at[n] for n in ("Ida", "Jo", "Kit", "Lu")) == [0, 1, 2, 2]  # the snake on


@pytest.mark.django_db
def test_each_division_is_seeded_apart_at_the_sizes_the_normal_draw_uses(director_client, director):
    names = [f"A{i:02d}" for i in range(1, 15)] + [f"B{i:02d}" for i in range(1, 10)]
    sizes = []
    for seeding in (False, True):
        event = make_event(director, seed_by_rating=seeding)
        a = make_players(event, names[:14], division="Open")
        b = make_players(event, names[14:], division="Seniors")
        rate(a[:10] + b[:3], [30 - i for i in range(10)] + [50, 45, 40])
        draw(director_client, event)
        tables = tables_of(event)
        sizes.append([len(t) for t in tables])
    assert sizes[0] == sizes[1]  # the seeded draw at the normal draw's tables, in its order
    open_tables = [t for t in tables if t[0].startswith("A")]
    senior_tables = [t for t in tables if t[0].startswith("B")]
    assert tables == open_tables + senior_tables  # divisions apart, in the draw's order
    assert all(len({name[0] for name in t}) == 1 for t in tables)
    assert [len(t) for t in senior_tables] == [5, 4]
    strongest = [f"A{i:02d}" for i in range(1, len(open_tables) + 1)]
    for t in open_tables:  # as many of Open's strongest as tables, one at each
        assert sum(name in t for name in strongest) == 1
    b1 = next(t for t in senior_tables if "B01" in t)
    b2 = next(t for t in senior_tables if "B02" in t)
    assert b1 is not b2  # the two strongest Seniors apart
    assert "B03" in b2  # the snake comes back: the third sits with the second


@pytest.mark.django_db
def test_unrated_players_are_seated_after_the_rated_ones(director_client, director):
    event = seeded_event(director)
    players = make_players(event, count=12)
    rate(players[:2], [30, 20])
    draw(director_client, event)
    tables = tables_of(event)
    assert [len(t) for t in tables] == [4, 4, 4]
    assert "Player 01" in tables[0] and "Player 02" in tables[1]  # the rated lead each pass
    assert sorted(n for t in tables for n in t) == [p.name for p in players]


@pytest.mark.django_db
def test_with_seeding_off_the_draw_ignores_ratings_and_says_nothing_of_them(director_client, event):
    players = make_players(event, count=8)
    rate(players, range(8))
    page = draw(director_client, event).content.decode()
    assert "2 tables drawn." in page and 'id="seeding-note"' not in page
    seated = Action.objects.get(event=event, verb="stage.seated")
    assert seated.data == {"stage": "Game 1", "tables": 2}


@pytest.mark.django_db
def test_the_seating_page_says_how_the_tables_were_seeded(director_client, client, director):
    event = seeded_event(director)
    players = make_players(event, count=10)
    page = director_client.get(f"/e/{event.slug}/1/seating/").content.decode()
    assert "from the 10 checked-in players, seeded by rating" in page
    assert 'id="seeding-note"' not in page  # nothing drawn yet

    rate(players[:7], range(7))
    draw(director_client, event)
    expected = (
        "Seeded by rating (7 of 10 players rated): dealt in a snake draft (1, 2, 3, 3, 2, 1, …), "
        "strongest first, so that the strongest are spread over the tables; the 3 players "
        "without a rating after them, at random."
    )
    assert note(client.get(f"/e/{event.slug}/1/seating/").content.decode()) == expected

    rate(players[7:], [1, 2, 3])
    draw(director_client, event)
    page = client.get(f"/e/{event.slug}/1/seating/").content.decode()
    assert note(page).startswith("Seeded by rating (all 10 players rated): dealt in a snake")

    RatedPlayer.objects.all().delete()
    draw(director_client, event)
    page = client.get(f"/e/{event.slug}/1/seating/").content.decode()
    assert note(page) == (
        "Seeded by rating, but none of the 10 players drawn has a rating yet: the tables were "
        "drawn at random."
    )


@pytest.mark.django_db
def test_a_cumulative_event_says_game_1_is_balanced_by_rating(director_client, director):
    event = seeded_event(director, format_kind="cumulative", format_games=2)
    make_players(event, count=8)
    page = director_client.get(f"/e/{event.slug}/1/seating/").content.decode()
    assert (
        "Game 1: a draw of the players checked in balanced by rating (a snake draft), "
        "divisions apart." in page
    )
    event.seed_by_rating = False
    event.save()
    page = director_client.get(f"/e/{event.slug}/1/seating/").content.decode()
    assert "Game 1: a random balanced draw of the players checked in" in page


@pytest.mark.django_db
def test_the_seating_page_reads_the_note_in_a_fixed_number_of_queries(client, director):
    counts = []
    for count in (8, 40):
        event = seeded_event(director)
        players = make_players(event, count=count)
        rate(players[: count // 2], range(count // 2))
        director_client = logged_in(director)
        draw(director_client, event)
        with CaptureQueriesContext(connection) as queries:
            page = client.get(f"/e/{event.slug}/1/seating/").content.decode()
        assert f"({count // 2} of {count} players rated)" in page
        counts.append(len(queries))
    assert counts[0] == counts[1]


@pytest.mark.django_db
def test_the_simulator_seeds_game_1_as_the_page_does(director):
    event = seeded_event(director)
    players = make_players(event, count=8)
    rate(players[:4], [10, 20, 30, 40])
    seat_first_game(event, random.Random(3), director)
    tables = tables_of(event)
    assert {"Player 04", "Player 01"} <= set(tables[0])  # 1st and 4th: the snake
    assert {"Player 03", "Player 02"} <= set(tables[1])
    assert Action.objects.get(verb="stage.seated").data["rated"] == 4


@pytest.mark.django_db
def test_the_seating_page_in_french(director_client, director):
    event = seeded_event(director)
    players = make_players(event, count=8)
    rate(players[:5], range(5))
    draw(director_client, event)
    page = director_client.get(f"/e/{event.slug}/1/seating/", **FR).content.decode()
    assert "parmi les 8 joueurs présents, placés selon leur cote" in page
    assert note(page).startswith("Placement selon la cote (5 joueurs cotés sur 8) : en serpentin")
    form = director_client.get(f"/director/e/{event.slug}/edit/", **FR).content.decode()
    assert "Placer la Partie 1 selon la cote" in form


# -- the event file --------------------------------------------------------------------------


def upload(client, text: str):
    return client.post(
        "/director/import/", {"file": SimpleUploadedFile("event.json", text.encode())}
    )


@pytest.mark.django_db
def test_the_event_file_keeps_the_option(director_client, director):
    event = seeded_event(director, slug="seeded")
    make_players(event, count=8)
    text = director_client.get("/director/e/seeded/event.json").content.decode()
    assert json.loads(text)["event"]["extra"]["seed_by_rating"] is True
    Event.objects.all().delete()
    assert upload(director_client, text).status_code == 302
    copy = Event.objects.get()
    assert copy.seed_by_rating
    again = director_client.get(f"/director/e/{copy.slug}/event.json").content.decode()
    assert again == text

    copy.seed_by_rating = False
    copy.save()
    text = director_client.get(f"/director/e/{copy.slug}/event.json").content.decode()
    assert "seed_by_rating" not in text  # off: as every file written before it
    Event.objects.all().delete()
    upload(director_client, text)
    assert not Event.objects.get().seed_by_rating


@pytest.mark.django_db
def test_a_file_whose_option_is_not_true_or_false_is_refused_saying_where(
    director_client, director
):
    event = seeded_event(director, slug="seeded")
    data = json.loads(director_client.get("/director/e/seeded/event.json").content)
    data["event"]["extra"]["seed_by_rating"] = "yes"
    event.delete()
    page = upload(director_client, json.dumps(data)).content.decode()
    assert "event.extra.seed_by_rating" in page
    assert not Event.objects.exists()


# -- exactly once ----------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_double_clicked_seeded_draw_seats_once(director):
    event = seeded_event(director)
    players = make_players(event, count=16)
    rate(players[:8], range(8))
    clients = [logged_in(director) for _ in range(3)]
    url = f"/e/{event.slug}/1/seating/"
    key = form_key(clients[0].get(url))
    seat_url = f"/director/e/{event.slug}/1/seat/"
    no_errors(at_once([lambda c=c: c.post(seat_url, {"once": key}) for c in clients]))
    assert Action.objects.filter(verb="stage.seated").count() == 1
    assert Table.objects.count() == 4
    seated = list(Seat.objects.values_list("player", flat=True))
    assert sorted(seated) == sorted(p.pk for p in players)
    first = tables_of(event)
    clients[1].post(seat_url, {"once": key})  # a retry later: the same draw
    assert tables_of(event) == first
    assert Action.objects.get(verb="stage.seated").data["rated"] == 8


# -- the plain rule --------------------------------------------------------------------------


@given(st.lists(st.integers(2, 8), min_size=1, max_size=12), st.integers(0, 10**6))
def test_the_snake_fills_each_table_to_its_size(sizes, seed):
    sizes = sorted(sizes, reverse=True)
    sizes = [s for s in sizes if s >= sizes[0] - 1]  # a draw's sizes differ by one at most
    players = list(range(sum(sizes)))
    tables = snake(players, sizes)
    assert [len(t) for t in tables] == sizes
    assert sorted(p for t in tables for p in t) == players
    n = len(sizes)
    for t in tables:  # one of every n in strength at each table
        assert [p // n for p in sorted(t)] == list(range(len(t)))


def test_the_snake_of_a_number_of_tables_is_unchanged():
    assert snake(list(range(8)), 3) == [[0, 5, 6], [1, 4, 7], [2, 3]]


@given(st.integers(4, 40), st.integers(0, 10**6))
def test_seeding_keeps_everyone_and_spreads_the_strongest(count, seed):
    rng = random.Random(seed)
    tables = max(1, count // 4)
    base, extra = divmod(count, tables)
    sizes = [base + 1] * extra + [base] * (tables - extra)
    players = [f"p{i}" for i in range(count)]
    strength = {p: rng.random() for p in players if rng.random() < 0.7}
    dealt = seeded(players, sizes, strength, rng=random.Random(seed))
    assert [len(t) for t in dealt] == sizes
    assert sorted(p for t in dealt for p in t) == sorted(players)
    strongest = sorted(strength, key=lambda p: -strength[p])[:tables]
    assert len({i for i, t in enumerate(dealt) for p in t if p in strongest}) == len(strongest)


def test_equal_ratings_and_unrated_players_come_in_a_random_order():
    players = [f"p{i}" for i in range(8)]
    draws = {
        tuple(map(tuple, seeded(players, [4, 4], {"p0": 1.0}, rng=random.Random(s))))
        for s in range(20)
    }
    assert len(draws) > 1
    assert all("p0" in d[0] for d in draws)


def test_a_seeding_that_does_not_add_up_is_refused():
    from tournament.game.seating import SeatingError

    with pytest.raises(SeatingError):
        seeded(["a", "b", "c"], [2, 2], {})


def test_a_director_is_needed_to_draw(client, db):
    event = seeded_event(make_director())
    make_players(event, count=8)
    assert draw(client, event).status_code == 200  # the login page
    assert not Table.objects.exists()
