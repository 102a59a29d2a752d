"""What a director reads on the close page (issue 45 item 9, close-page part): a progressive
game's close page lists who moves up and down, and the last game's close page names the
players tied at the cut who will play for the last places. Read through the close page, in
English and French, before and after the close."""

import re

import pytest

from tests.factories import make_players
from tests.test_formats_flow import CUT_TIE, close, create, names, play_game, seat_game_1
from tests.test_formats_pages import FR, advance_page, text
from tournament.models import Table

pytestmark = pytest.mark.django_db


def moves(page: str) -> list[str]:
    found = re.search(r'<ul id="moves"[^>]*>(.*?)</ul>', page, re.S)
    return [text(li) for li in re.findall(r"<li>(.*?)</li>", found.group(1), re.S)] if found else []


def cut_tie(page: str) -> str:
    found = re.search(r'<p[^>]*id="cut-tie"[^>]*>(.*?)</p>', page, re.S)
    return text(found.group(1)) if found else ""


def seats(stage) -> list[list[str]]:
    return [
        [s.player.name for s in t.seats.select_related("player").order_by("position")]
        for t in Table.objects.filter(stage=stage).order_by("number")
    ]


def test_the_close_page_of_a_progressive_game_lists_who_moves_up_and_down(director_client):
    event = create(
        director_client,
        format_kind="cumulative",
        format_games=2,
        format_reseat="progressive",
        format_move=2,
    )
    make_players(event, names(11))
    game1 = seat_game_1(director_client, event)
    tables = seats(game1)
    assert [len(t) for t in tables] == [4, 4, 3]
    # At every table the earlier seat has the lower total: the movers are known by seat.
    totals = {name: 10 * (seat + 1) for table in tables for seat, name in enumerate(table)}
    play_game(director_client, game1, totals)
    (a, b, c, d), (e, f, g, h), (i, j, k) = tables
    page = advance_page(director_client, game1)
    assert moves(page) == [
        f"Table 1 — down to table 2: {c}, {d}",
        f"Table 2 — up to table 1: {e}, {f} · down to table 3: {g}, {h}",
        f"Table 3 — up to table 2: {i}",  # a table of 3 moves 1 each way
    ]
    assert moves(advance_page(director_client, game1, **FR)) == [
        f"Table 1 — descente à la table 2 : {c}, {d}",
        f"Table 2 — montée à la table 1 : {e}, {f} · descente à la table 3 : {g}, {h}",
        f"Table 3 — montée à la table 2 : {i}",
    ]
    close(director_client, game1)
    game2 = seats(event.stages.get(number=2))
    where = {name: n for n, table in enumerate(game2, start=1) for name in table}
    assert [where[n] for n in (c, d, e, f, g, h, i)] == [2, 2, 1, 1, 3, 3, 2]  # as listed
    assert moves(advance_page(director_client, game1))[0] == f"Table 1 — down to table 2: {c}, {d}"


def test_the_close_page_of_the_last_game_names_the_players_tied_at_the_cut(director_client):
    event = create(
        director_client,
        format_kind="cumulative_final",
        format_games=1,
        format_final_size=4,
        advancement_tie="playoff",
    )
    make_players(event, names(8))
    game1 = seat_game_1(director_client, event)
    play_game(director_client, game1, CUT_TIE)
    page = advance_page(director_client, game1)
    assert cut_tie(page) == (
        "Tied at the cut: P4 (8), P5 (8) play off for the last place in the Final."
    )
    assert cut_tie(advance_page(director_client, game1, **FR)) == (
        "À égalité à la coupure : P4 (8), P5 (8) jouent un barrage pour la dernière place "
        "en finale."
    )
    close(director_client, game1)
    assert cut_tie(advance_page(director_client, game1)).startswith("Tied at the cut: P4 (8), P5")


def test_three_tied_for_two_places_are_named_with_the_places_left(director_client):
    event = create(
        director_client,
        format_kind="cumulative_final",
        format_games=1,
        format_final_size=4,
        advancement_tie="playoff",
    )
    make_players(event, names(8))
    game1 = seat_game_1(director_client, event)
    play_game(director_client, game1, {**CUT_TIE, "P3": 8})
    assert cut_tie(advance_page(director_client, game1)) == (
        "Tied at the cut: P3 (8), P4 (8), P5 (8) play off for the last 2 places in the Final."
    )
