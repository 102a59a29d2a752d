"""The standings, bracket and results read table summaries (scoring/sheets.py
``load_summaries``: totals summed by the database, rounds counted) instead of every pip count.
They must say exactly what the full sheets say, whatever happened at the tables: corrections,
rounds from a phone not confirmed yet, a withdrawal during the game, a late arrival (whose
missed rounds score the table's highest), a game marked over, infractions, playoffs."""

import random

import pytest

from scoring.models import Round
from scoring.results import compute_results
from scoring.services.infractions import log_infraction
from scoring.services.rounds import correct_round, end_games, record_round, store_totals
from scoring.services.stages import close_stage
from scoring.sheets import (
    TableSummary,
    event_sheets,
    event_summaries,
    stage_sheets,
    stage_standings,
    stage_summaries,
    table_sheet,
)
from scoring.views.results import bracket, medal_rows
from tests.factories import make_event, make_players, seat
from tournament.models import Player, Table
from tournament.services.clock import call_time, start_clock
from tournament.services.seating import seat_late_arrival, withdraw_player

pytestmark = pytest.mark.django_db


def what_shows(sheet):
    return {
        "table": sheet.table.pk,
        "players": [p.pk for p in sheet.players],
        "totals": sheet.totals,
        "played": sheet.played,
        "awaiting": sheet.awaiting_count,
        "over": sheet.game_over,
        "places": sheet.places,
        "contenders": sheet.contenders,
        "infractions": sheet.infraction_counts,
        "left": sheet.left,
        "joined": sheet.joined,
    }


def standings(stage, sheets):
    return [
        (r.place, r.player.pk, r.table.pk, r.rounds, r.total, r.infractions, r.withdrew_after)
        for r in stage_standings(stage, sheets)
    ]


def outcomes(event, sheets):
    results = compute_results(event, sheets)
    tables = [
        (b["stage"].pk, t["sheet"].table.pk, [{**r, "player": r["player"].pk} for r in t["rows"]])
        for b in bracket(results)
        for t in b["tables"]
    ]
    medals = [
        {**m, "players": [p.pk for p in m["players"]], "between": [p.pk for p in m["between"]]}
        for m in medal_rows(results)
    ]
    owed = [(o.owed.players, o.owed.decides, o.division) for o in results.owed]
    return tables, medals, owed, [str(p) for p in results.problems]


def assert_summaries_agree(event):
    for stage in event.stages.all():
        stage.event = event
        full, summary = stage_sheets(stage), stage_summaries(stage)
        assert [what_shows(s) for s in summary] == [what_shows(s) for s in full]
        assert standings(stage, summary) == standings(stage, full)
    assert outcomes(event, event_summaries(event)) == outcomes(event, event_sheets(event))


def pips_for(sheet, rng):
    """A legal round for the players who play next: one goes out, the others hold pips."""
    players = sheet.next_players
    out = rng.choice(players)
    return {p.pk: 0 if p is out else rng.randint(1, 40) for p in players}


def play_some(table, rounds, rng, device=""):
    for _ in range(rounds):
        sheet = table_sheet(table)
        if sheet.next_engine is None:
            return
        record_round(table, pips_for(sheet, rng), None, device=device)


@pytest.mark.parametrize("seed", range(6))
def test_the_summaries_say_what_the_sheets_say(director, seed):
    rng = random.Random(seed)
    event = make_event(director, engines=[3, 2, 1, 0], late_arrivals=True)
    make_players(event, count=16)
    stage = seat(event, seed=seed)
    t1, t2, t3, t4 = stage.tables.order_by("number")
    play_some(t1, rng.randint(1, 3), rng)
    play_some(t2, 2, rng)
    late = Player.objects.create(event=event, name="Late Comer", checked_in=True)
    seat_late_arrival(stage, late, t2, director)  # joins at round 3: rounds 1-2 filled
    play_some(t2, rng.randint(0, 2), rng)
    play_some(t3, rng.randint(1, 4), rng)
    leaver = table_sheet(t3).players[rng.randrange(4)]
    withdraw_player(leaver, director, "feeling unwell")
    play_some(t3, 4, rng)
    play_some(t4, rng.randint(1, 3), rng)
    play_some(t4, 1, rng, device="phone-1")  # not confirmed yet
    first = Round.objects.filter(table=t1).order_by("number").first()
    sheet = table_sheet(t1)
    fixed = {p: pips + rng.randint(1, 9) if pips else 0 for p, pips in sheet.rounds[0].pips.items()}
    correct_round(first, fixed, director, "misread a 6 for a 9")
    log_infraction(t1, sheet.players[0], 3, "out_of_turn", "", director)
    assert_summaries_agree(event)
    assert any(isinstance(s, TableSummary) for s in stage_summaries(stage))

    # Time is called: the tables still playing end where they are; the stage closes, and the
    # ties its totals leave are playoffs (played ones are read from their rounds).
    start_clock(stage, director)
    call_time(stage, director)
    marks = {s.table.number: s.played for s in stage_sheets(stage) if s.played and not s.game_over}
    end_games(stage, marks, director)
    for table in (t1, t2, t3, t4):
        if not table_sheet(table).played:
            play_some(table, 4, rng)
    Round.objects.filter(table__stage=stage).update(awaiting_confirmation=False)
    store_totals(Table.objects.filter(stage=stage))  # confirmed at once, as confirm_round does
    close_stage(stage, director)
    assert_summaries_agree(event)
    for playoff in event.stages.filter(kind="playoff"):
        for table in playoff.tables.all():
            play_some(table, 1, rng)
    assert_summaries_agree(event)


def test_a_tie_in_the_totals_is_shared_the_same_way(director):
    """Summed totals that tie share a place as the running totals do (1, 1, 3, 4)."""
    event = make_event(director, engines=[1, 0], game_minutes=None)
    make_players(event, count=4)
    stage = seat(event)
    table = stage.tables.get()
    players = table_sheet(table).players
    record_round(table, dict(zip([p.pk for p in players], [0, 5, 5, 9], strict=True)), None)
    record_round(table, dict(zip([p.pk for p in players], [5, 0, 7, 2], strict=True)), None)
    stage.event = event
    (summary,) = stage_summaries(stage)
    assert isinstance(summary, TableSummary)
    assert summary.places == {
        players[0].pk: 1,
        players[1].pk: 1,
        players[2].pk: 4,
        players[3].pk: 3,
    }
    assert_summaries_agree(event)


def test_the_results_page_says_a_withdrawal_and_shared_places_as_the_standings_do(client, director):
    """The results list shows text made from the summaries: a player who withdrew during the
    game "withdrew after round 1" (not "None"), a shared place T1."""
    event = make_event(director, engines=[2, 1, 0], game_minutes=None)
    make_players(event, count=4)
    stage = seat(event)
    table = stage.tables.get()
    players = table_sheet(table).players
    record_round(table, dict(zip([p.pk for p in players], [0, 5, 5, 9], strict=True)), None)
    withdraw_player(players[3], director, "went home")
    page = client.get(f"/e/{event.slug}/results/").content.decode()
    assert "<td>withdrew after round 1</td>" in page and "<td>None</td>" not in page
    assert page.count("<td data-place>T2</td>") == 2 and "<td data-place>1</td>" in page
