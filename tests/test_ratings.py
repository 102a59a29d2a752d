"""Ratings computed from the whole history (issue 31 item 2): histories played through the
site, their ratings checked against openskill's own Plackett-Luce, replays after corrections
and late imports, people across events, the background task and its coalescing."""

import datetime
import re

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django_tasks_db.models import DBTaskResult
from openskill.models import PlackettLuce

from scoring.eventfile import dumps, export_event, import_event
from scoring.models import RatedPlayer, Rating, RatingPoint, RatingsState, Round
from scoring.services.ratings import compute_ratings
from scoring.services.rounds import record_round
from scoring.sheets import table_sheet
from tests.factories import make_event, seat
from tournament.models import Event, Player, Stage, StageKind, Table
from tournament.services.clock import call_time, start_clock
from tournament.services.events import delete_event
from tournament.services.seating import withdraw_player

pytestmark = pytest.mark.django_db

NAMES = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]


def short_event(director, date, **fields):
    """Two rounds a game (engines 1-1 then 0-0) unless told; each Game 1 table's winner goes
    to the Final."""
    fields.setdefault("finals_top_n", 1)
    fields.setdefault("engines", [1, 0])
    fields.setdefault("slug", f"ev-{date}")
    fields.setdefault("name", f"Night of {date}")
    return make_event(
        director,
        game_minutes=None,
        date=datetime.date.fromisoformat(date),
        **fields,
    )


def register(event, names, club="Lakeside"):
    """Players known across events by their id within their club (the id is the name)."""
    return [
        Player.objects.create(event=event, name=n, ref=n.lower(), club=club, checked_in=True)
        for n in names
    ]


def play(table, totals, user=None) -> dict[str, int]:
    """Two rounds at ``table`` leaving its players (seat order) with ``totals``: the first
    player with the lowest total dominoes round 1. Returns each player's total by name."""
    players = table_sheet(table).players
    lowest = totals.index(min(totals))
    first = {p.pk: 0 if i == lowest else 1 for i, p in enumerate(players)}
    record_round(table, first, user)
    record_round(table, {p.pk: t - first[p.pk] for p, t in zip(players, totals, strict=True)}, user)
    return {p.name: t for p, t in zip(players, totals, strict=True)}


def play_one(table, totals) -> dict[str, int]:
    """One round at ``table`` (a game of one engine) leaving its players with ``totals``."""
    players = table_sheet(table).players
    record_round(table, {p.pk: t for p, t in zip(players, totals, strict=True)}, None)
    return {p.name: t for p, t in zip(players, totals, strict=True)}


def close(client, stage):
    response = client.post(
        f"/director/e/{stage.event.slug}/{stage.number}/close/", {"action": "close"}
    )
    assert response.status_code == 302
    assert Stage.objects.get(pk=stage.pk).closed


def game_one(client, event, tables, user=None) -> list[dict[str, int]]:
    """Seat Game 1, play each table to the ``tables``' totals (seat order), close it through
    its page; the games played, by name, in table order."""
    stage = seat(event)
    games = [
        play(table, totals, user)
        for table, totals in zip(stage.tables.order_by("number"), tables, strict=True)
    ]
    close(client, stage)
    return games


def openskill(games):
    """Each name's rating after ``games`` (name -> total), computed with openskill itself."""
    model = PlackettLuce()
    ratings = {}
    for game in games:
        names = sorted(game)
        teams = [[ratings.get(n) or model.rating()] for n in names]
        ranks = [1 + sum(other < game[n] for other in game.values()) for n in names]
        for n, (after,) in zip(names, model.rate(teams, ranks=ranks), strict=True):
            ratings[n] = after
    return ratings


def rated():
    """Each person's rating row, by their shown player's name: (μ, σ, games, events)."""
    return {
        r.player.name: (r.mu, r.sigma, r.games, r.events)
        for r in Rating.objects.select_related("player")
    }


def assert_ratings(games, events):
    """The Rating rows are openskill's after ``games``; ``events`` counts each name's."""
    expected = openskill(games)
    played = {n: sum(n in g for g in games) for n in expected}
    got = rated()
    assert set(got) == set(expected)
    for name, r in expected.items():
        mu, sigma, n_games, n_events = got[name]
        assert (mu, sigma) == pytest.approx((r.mu, r.sigma), abs=1e-9), name
        assert (n_games, n_events) == (played[name], events[name]), name
    for rating in Rating.objects.all():
        assert rating.score == round((rating.mu - 3 * rating.sigma) * 100)


def test_two_events_with_ties_rate_as_openskill_does(director, director_client):
    spring = short_event(director, "2026-03-01")
    register(spring, NAMES)
    first = game_one(director_client, spring, [[10, 20, 20, 30], [15, 15, 40, 50]])
    # A later event: six of the same people, two new; a third only registered, not played.
    autumn = short_event(director, "2026-09-01")
    register(autumn, NAMES[2:] + ["Ivy", "Jo"])
    second = game_one(director_client, autumn, [[12, 12, 12, 40], [30, 22, 9, 9]])
    winter = short_event(director, "2026-12-01")
    (ann_winter,) = register(winter, ["Ann"])

    done = compute_ratings()

    assert (done.written, done.games, done.people, done.events) == (True, 4, 10, 2)
    events = {n: (n in NAMES) + (n in NAMES[2:] + ["Ivy", "Jo"]) for n in NAMES + ["Ivy", "Jo"]}
    assert_ratings(first + second, events)
    # The shown player is the latest: Ann's is the one registered for the winter's night.
    assert Rating.objects.get(player__name="Ann").player == ann_winter
    assert Rating.objects.get(player__name="Cy").player.event == autumn
    # A point per person per event played, their rating then and their games so far.
    after_spring = openskill(first)
    cy = Rating.objects.get(player__name="Cy")
    points = list(cy.points.values_list("event", "games", "mu", "player__event"))
    assert [(e, g, pe) for e, g, _, pe in points] == [
        (spring.pk, 1, spring.pk),
        (autumn.pk, 2, autumn.pk),
    ]
    assert points[0][2] == pytest.approx(after_spring["Cy"].mu, abs=1e-9)
    assert points[1][2] == pytest.approx(cy.mu)
    assert RatingPoint.objects.count() == sum(events.values())
    # Every player of a rated person points at their rating, the unplayed event's too.
    ann = Rating.objects.get(player__name="Ann")
    assert sorted(ann.members.values_list("player__event__slug", flat=True)) == [
        spring.slug,
        winter.slug,
    ]
    assert RatedPlayer.objects.count() == Player.objects.count()
    # The rows' own order is the leaderboard's: highest first.
    scores = list(Rating.objects.values_list("score", flat=True))
    assert scores == sorted(scores, reverse=True)


def test_a_player_who_withdrew_during_a_game_is_left_out_of_it(director, director_client):
    event = short_event(director, "2026-03-01")
    register(event, NAMES)
    stage = seat(event)
    t1, t2 = stage.tables.order_by("number")
    players = table_sheet(t1).players
    record_round(t1, {p.pk: 0 if i == 0 else 5 + i for i, p in enumerate(players)}, director)
    withdraw_player(Player.objects.get(pk=players[3].pk), director)
    record_round(t1, {p.pk: 0 if i == 1 else 3 for i, p in enumerate(players[:3])}, director)
    second = play(t2, [8, 16, 24, 32])
    close(director_client, stage)

    compute_ratings()

    first = {players[0].name: 3, players[1].name: 6, players[2].name: 10}
    assert_ratings([first, second], dict.fromkeys(NAMES, 1) | {players[3].name: 0})
    assert not Rating.objects.filter(player=players[3]).exists()


def test_a_late_arrival_is_ranked_by_the_game_total_the_table_gave_them(director, director_client):
    """Issue 45 item 2: a late arrival's total counts the rounds missed at the table's highest,
    as the table ranked them; they were left out of the game before."""
    event = short_event(director, "2026-03-01", engines=[2, 1, 0], late_arrivals=True)
    register(event, NAMES)
    (late,) = register(event, ["Ida"])
    late.checked_in = False
    late.save(update_fields=["checked_in"])
    stage = seat(event, players=event.players.filter(checked_in=True))
    t1, t2 = stage.tables.order_by("number")
    players = table_sheet(t1).players
    record_round(t1, dict(zip([p.pk for p in players], [0, 5, 9, 3], strict=True)), director)
    page = director_client.get(f"/director/e/{event.slug}/players/{late.pk}/").content.decode()
    key = re.search(r'id="late-form">.*?name="once" value="([^"]+)"', page, re.S).group(1)
    response = director_client.post(
        f"/director/e/{event.slug}/players/{late.pk}/", {"late": "1", "table": t1.pk, "once": key}
    )
    assert response.status_code == 302
    five = [*(p.pk for p in players), late.pk]
    record_round(t1, dict(zip(five, [4, 0, 2, 8, 1], strict=True)), director)
    record_round(t1, dict(zip(five, [3, 3, 0, 6, 2], strict=True)), director)
    for _ in range(3):
        sheet = table_sheet(t2)
        record_round(t2, {p.pk: 1 + i for i, p in enumerate(sheet.players)}, director)
    second = {p.name: 3 * (1 + i) for i, p in enumerate(table_sheet(t2).players)}
    close(director_client, stage)
    compute_ratings()
    first = dict(zip([p.name for p in players], [7, 8, 11, 17], strict=True)) | {"Ida": 9 + 3}
    assert table_sheet(t1).totals[late.pk] == 12  # 9 (the highest of round 1), then 1 and 2
    assert_ratings([first, second], dict.fromkeys([*NAMES, "Ida"], 1))


def test_playoffs_open_stages_and_unfinished_games_are_not_rated(director, director_client):
    # Games of one engine: a playoff's one round would be every engine played, were it rated.
    event = short_event(director, "2026-03-01", advancement_tie="playoff", engines=[1])
    register(event, NAMES)
    game1 = seat(event)
    t1, t2 = game1.tables.order_by("number")
    first = play_one(t1, [5, 5, 20, 30])  # a tie at the top: a playoff decides who advances
    second = play_one(t2, [40, 12, 20, 30])
    close(director_client, game1)
    playoff = Stage.objects.get(event=event, kind=StageKind.PLAYOFF)
    tied = table_sheet(playoff.tables.get()).players
    record_round(playoff.tables.get(), {tied[0].pk: 9, tied[1].pk: 0}, director)
    assert Stage.objects.get(pk=playoff.pk).closed
    final = Stage.objects.get(event=event, kind=StageKind.FINAL)
    if not final.tables.exists():
        director_client.post(f"/director/e/{event.slug}/1/close/", {"action": "seat_next"})
    final_game = play_one(final.tables.get(), [7, 3])  # played, not closed yet

    compute_ratings()
    assert_ratings([first, second], dict.fromkeys(NAMES, 1))

    close(director_client, final)
    compute_ratings()
    events = dict.fromkeys(NAMES, 1)
    assert_ratings([first, second, final_game], events)

    # A game marked over before its last engine (time called) is a finished game (issue 45
    # item 2): rated on the round its table played.
    later = short_event(director, "2026-04-01")
    register(later, NAMES)
    stage = seat(later)
    t1, t2 = stage.tables.order_by("number")
    players = table_sheet(t1).players
    record_round(t1, {p.pk: 0 if i == 0 else 4 for i, p in enumerate(players)}, director)
    timed = {p.name: 0 if i == 0 else 4 for i, p in enumerate(players)}
    third = play(t2, [8, 16, 24, 32])
    start_clock(stage, director, timezone.now() - datetime.timedelta(minutes=30))
    call_time(stage, director)
    director_client.post(
        f"/director/e/{later.slug}/1/close/", {"action": "end_games", "over": f"{t1.number}:1"}
    )
    assert Table.objects.get(pk=t1.pk).game_over_after == 1
    close(director_client, stage)
    compute_ratings()
    for name in NAMES:
        events[name] += 1
    assert_ratings([first, second, final_game, timed, third], events)


def test_a_player_who_wins_every_game_rises_and_one_who_loses_every_game_falls(
    director, director_client
):
    for month in range(1, 6):
        event = short_event(director, f"2026-{month:02d}-01")
        register(event, NAMES[:4])
        seat(event)
        stage = event.stages.get(number=1)
        table = stage.tables.get()
        players = table_sheet(table).players
        totals = {"Ann": 5, "Bo": 20, "Cy": 30, "Di": 60}
        play(table, [totals[p.name] for p in players])
        close(director_client, stage)
    compute_ratings()

    def points(name):
        return list(
            Rating.objects.get(player__name=name).points.values_list("score", "mu", "games")
        )

    ann, di = points("Ann"), points("Di")
    assert [g for *_, g in ann] == [1, 2, 3, 4, 5]
    assert all(after[0] > before[0] for before, after in zip(ann, ann[1:], strict=False))
    assert all(after[1] > before[1] for before, after in zip(ann, ann[1:], strict=False))
    assert all(after[1] < before[1] for before, after in zip(di, di[1:], strict=False))
    assert di[0][1] < PlackettLuce().mu and ann[0][1] > PlackettLuce().mu
    assert Rating.objects.first().player.name == "Ann"
    assert Rating.objects.last().player.name == "Di"


def snapshot():
    """The ratings as values, whatever the rows' ids: by person, then each point by event."""
    return {
        r.player.name: (
            r.mu,
            r.sigma,
            r.score,
            r.games,
            r.events,
            r.player.event.slug,
            [
                (p.event.slug, p.player.name, p.mu, p.sigma, p.score, p.games)
                for p in r.points.select_related("event", "player")
            ],
            sorted((m.player.event.slug, m.player.name) for m in r.members.all()),
        )
        for r in Rating.objects.select_related("player__event")
    }


def three_nights(director, client):
    nights = []
    tables = [
        [[10, 20, 20, 30], [15, 15, 40, 50]],
        [[12, 12, 12, 40], [30, 22, 9, 9]],
        [[5, 6, 7, 8], [40, 30, 20, 10]],
    ]
    for date, totals in zip(["2026-01-10", "2026-02-10", "2026-03-10"], tables, strict=True):
        event = short_event(director, date)
        register(event, NAMES)
        game_one(client, event, totals)
        nights.append(event)
    return nights


def test_a_correction_then_the_replay_equals_a_fresh_computation_in_any_order_of_import(
    director, director_client, django_capture_on_commit_callbacks
):
    nights = three_nights(director, director_client)
    compute_ratings()
    before = snapshot()
    # A closed stage's round corrected through its page (preview, then confirm): the change
    # asks for the ratings, computed once it is committed (the tests' tasks run at once).
    table = nights[0].stages.get(number=1).tables.get(number=1)
    rnd = Round.objects.get(table=table, number=2)
    pips = dict(rnd.scores.values_list("player_id", "pips"))
    top = min(pips, key=lambda pk: (pips[pk], pk))
    pips[top] += 40  # the table's winner falls to last
    url = f"/director/e/{nights[0].slug}/1/table/1/round/2/correct/"
    form = {f"p{pk}": v for pk, v in pips.items()} | {"reason": "Misread the sheet"}
    preview = director_client.post(url, form)
    with django_capture_on_commit_callbacks(execute=True):
        director_client.post(url, form | {"previewed": preview.context["previewed"]})
    corrected = snapshot()
    assert corrected != before
    assert RatingsState.objects.get().pending is False

    # The same history from its files, imported latest first (each an event dated earlier
    # than those already there): the same ratings, to the last digit.
    files = [(e.slug, dumps(export_event(e))) for e in nights]
    for event in nights:
        delete_event(event, director)
    for slug, text in reversed(files):
        import_event(text, director=director, slug=slug)
    assert compute_ratings(force=True).written
    assert snapshot() == corrected


def test_an_event_imported_late_and_dated_earlier_is_replayed_in_date_order(
    director, director_client, django_capture_on_commit_callbacks
):
    nights = three_nights(director, director_client)
    files = [(e.slug, dumps(export_event(e))) for e in nights]
    compute_ratings()
    all_three = snapshot()
    delete_event(Event.objects.get(slug=nights[0].slug), director)
    compute_ratings()
    assert snapshot() != all_three
    with django_capture_on_commit_callbacks(execute=True):  # the import asks for the ratings
        import_event(files[0][1], director=director, slug=files[0][0])
    assert snapshot() == all_three


def test_players_linked_through_the_page_become_one_person(
    director, director_client, django_capture_on_commit_callbacks
):
    spring = short_event(director, "2026-03-01")
    autumn = short_event(director, "2026-09-01")
    for event, ann in ((spring, "Ann Lee"), (autumn, "ann lee")):
        for name in [ann, *NAMES[1:]]:  # no ids: nobody is known across events yet
            Player.objects.create(event=event, name=f"{name} {event.date.month}", checked_in=True)
    first = game_one(director_client, spring, [[10, 20, 20, 30], [15, 15, 40, 50]])
    second = game_one(director_client, autumn, [[12, 12, 12, 40], [30, 22, 9, 9]])
    compute_ratings()
    assert Rating.objects.count() == 16
    ann_spring = Player.objects.get(name="Ann Lee 3")
    ann_autumn = Player.objects.get(name="ann lee 9")
    with django_capture_on_commit_callbacks(execute=True):
        response = director_client.post(
            f"/director/e/{autumn.slug}/player/{ann_autumn.pk}/same-person/",
            {"other": ann_spring.pk},
        )
    assert response.status_code == 302
    assert Rating.objects.count() == 15
    one = {"Ann Lee 3": "Ann", "ann lee 9": "Ann"}
    games = [{one.get(n, n): t for n, t in g.items()} for g in first + second]
    expected = openskill(games)["Ann"]
    ann = Rating.objects.get(player=ann_autumn)  # the latest player shows the person
    assert (ann.mu, ann.sigma, ann.games, ann.events) == pytest.approx(
        (expected.mu, expected.sigma, 2, 2)
    )
    assert set(ann.members.values_list("player", flat=True)) == {ann_spring.pk, ann_autumn.pk}


def test_an_unchanged_history_writes_nothing_in_a_fixed_number_of_queries(
    director, director_client, django_capture_on_commit_callbacks
):
    def queries():
        with CaptureQueriesContext(connection) as done:
            outcome = compute_ratings()
        assert not outcome.written
        sql = [q["sql"].split()[0].upper() for q in done.captured_queries]
        assert sql.count("SELECT") == len(sql)  # nothing written
        return len(sql)

    spring = short_event(director, "2026-03-01")
    register(spring, NAMES)
    game_one(director_client, spring, [[10, 20, 20, 30], [15, 15, 40, 50]])
    assert compute_ratings().written
    small = queries()
    for date in ["2026-04-01", "2026-05-01", "2026-06-01"]:
        event = short_event(director, date)
        register(event, NAMES)
        game_one(director_client, event, [[10, 20, 20, 30], [15, 15, 40, 50]])
    assert compute_ratings().written
    assert queries() == small

    # A round saved at a table still playing (the Final, open) asks for the ratings: the
    # computation reads the history and finds its fingerprint unchanged.
    state = RatingsState.objects.get()
    ids = sorted(Rating.objects.values_list("pk", flat=True))
    final = Stage.objects.get(event=event, kind=StageKind.FINAL)
    table = final.tables.get()
    players = table_sheet(table).players
    with django_capture_on_commit_callbacks(execute=True):
        record_round(table, {p.pk: 0 if i == 0 else 9 for i, p in enumerate(players)}, director)
    assert RatingsState.objects.get().computed_at == state.computed_at
    assert sorted(Rating.objects.values_list("pk", flat=True)) == ids


def test_changes_ask_for_one_computation_in_the_background_never_in_the_request(
    director, director_client, settings, django_capture_on_commit_callbacks
):
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
    event = short_event(director, "2026-03-01")
    register(event, NAMES)
    stage = seat(event)
    t1, t2 = stage.tables.order_by("number")
    play(t1, [10, 20, 20, 30])
    play(t2, [15, 15, 40, 50])

    def asked():
        return DBTaskResult.objects.filter(task_path="scoring.tasks.compute_ratings").count()

    with django_capture_on_commit_callbacks(execute=True):
        close(director_client, stage)
    assert asked() == 1 and RatingsState.objects.get().pending
    assert not Rating.objects.exists()  # not computed in the request
    with django_capture_on_commit_callbacks(execute=True):  # another change: already asked
        register(event, ["Ivy"])
        withdraw_player(Player.objects.get(event=event, name="Ivy"), director)
    assert asked() == 1

    DBTaskResult.objects.get().task.call()  # what the worker runs
    assert not RatingsState.objects.get().pending
    assert Rating.objects.count() == 8
    with django_capture_on_commit_callbacks(execute=True):  # the next change asks again
        withdraw_player(Player.objects.get(event=event, name="Bo"), director)
    assert asked() == 2 and RatingsState.objects.get().pending


def test_a_change_during_a_computation_asks_for_another(director, settings, monkeypatch):
    from scoring import tasks
    from scoring.services import ratings

    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
    event = short_event(director, "2026-03-01")
    register(event, NAMES)
    reading = ratings.read_history

    def read_while_a_change_comes():
        tasks.ratings_changed()  # a change committed while the history is read
        return reading()

    tasks.ratings_changed()
    assert DBTaskResult.objects.count() == 1
    monkeypatch.setattr(ratings, "read_history", read_while_a_change_comes)
    DBTaskResult.objects.get().task.call()  # lowers the flag first: the change asks again
    assert DBTaskResult.objects.count() == 2 and RatingsState.objects.get().pending
    tasks.ratings_changed()
    assert DBTaskResult.objects.count() == 2  # asked already


def test_deleting_an_event_recomputes_without_it(
    director, director_client, django_capture_on_commit_callbacks
):
    nights = three_nights(director, director_client)
    compute_ratings()
    assert Rating.objects.get(player__name="Ann").events == 3
    with django_capture_on_commit_callbacks(execute=True):
        delete_event(nights[2], director)
    assert Rating.objects.get(player__name="Ann").events == 2


def test_the_command_says_what_it_did(director, director_client, capsys):
    spring = short_event(director, "2026-03-01")
    register(spring, NAMES)
    game_one(director_client, spring, [[10, 20, 20, 30], [15, 15, 40, 50]])
    call_command("compute_ratings")
    call_command("compute_ratings")
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("Ratings computed: games rated 2, players rated 8, events 1 (")
    assert out[1].startswith("Ratings unchanged: games rated 2, players rated 8, events 1 (")
    RatingsState.objects.update(pending=True)  # a task asked for and lost: nothing asks again
    call_command("compute_ratings", "--force")
    assert capsys.readouterr().out.startswith("Ratings computed: games rated 2,")
    assert not RatingsState.objects.get().pending  # the next change asks again


def test_a_round_saved_during_play_asks_for_no_computation_a_close_does(
    director, director_client, settings, django_capture_on_commit_callbacks
):
    """Only closed stages' games are rated: a round saved at an open stage's table through the
    entry page asks for nothing (a hall saves one every second); closing the stage asks."""
    from tests.test_entry_edges import entry_post, entry_url

    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
    event = short_event(director, "2026-03-01")
    register(event, NAMES)
    stage = seat(event)
    t1, t2 = stage.tables.order_by("number")

    def asked():
        return DBTaskResult.objects.filter(task_path="scoring.tasks.compute_ratings").count()

    with django_capture_on_commit_callbacks(execute=True):
        response = director_client.post(entry_url(t1), entry_post(t1, [0, 5, 9, 12]))
    assert response.status_code == 302 and t1.rounds.count() == 1
    assert asked() == 0 and not RatingsState.objects.filter(pending=True).exists()

    players = table_sheet(t1).players
    record_round(t1, {p.pk: v for p, v in zip(players, [5, 0, 3, 8], strict=True)}, None)
    play(t2, [15, 15, 40, 50])
    with django_capture_on_commit_callbacks(execute=True):
        close(director_client, stage)
    assert asked() == 1
