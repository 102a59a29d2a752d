"""The site's ratings and series standings agree with an independent computation from
PRODUCT.md §13 (issue 45): seasons generated and played by the site's own simulator
(tests/season.py: knockouts untimed and timed, cumulative nights with and without a Final,
cut playoffs, late arrivals, withdrawals between games and during one, two nights on one
date, names typed differently from night to night), then what the pages show (the
leaderboard, each person's rating history on their player page, the series' CSV under both
rules, the series page's totals) compared with tests/season_spec.py, written from the spec
without calling the site's code.

Each season prints its agreement (``pytest -s``); ``SEASON_SEEDS=0-9`` plays more seasons.
"""

from __future__ import annotations

import csv
import io
import os
import re
from collections import Counter
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from html import unescape

import pytest

from scoring.models import Series
from scoring.services.ratings import compute_ratings
from tests import season_spec as spec
from tests.season import cut_playoffs, play_season, read_season
from tests.test_ratings_pages import rows_of
from tests.test_series_pages import _Rows

pytestmark = pytest.mark.django_db


def seeds() -> list[int]:
    first, _, last = os.environ.get("SEASON_SEEDS", "0-2").partition("-")
    return list(range(int(first), int(last or first) + 1))


def number(cell: str):
    """A cell compared by its value: 12.3 and 12.30 are one; a dropped one keeps brackets."""
    dropped = cell.startswith("(") and cell.endswith(")")
    inner = cell[1:-1] if dropped else cell
    try:
        return (dropped, Fraction(Decimal(inner)))
    except InvalidOperation:
        return (dropped, inner)


def comparable(row) -> tuple:
    return tuple(number(str(c)) for c in row)


def csv_rows(client, series) -> list[list[str]]:
    response = client.get(f"/s/{series.slug}/export/?_export=csv")
    assert response.status_code == 200
    reader = csv.reader(io.StringIO(response.content.decode("utf-8-sig")))
    return list(reader)[1:]


def agreement(expected: list, got: list) -> int:
    """How many of ``expected`` are among ``got`` (each row found once)."""
    left = Counter(map(comparable, got))
    found = 0
    for row in map(comparable, expected):
        if left[row]:
            left[row] -= 1
            found += 1
    return found


def ratings_agreement(client, season: spec.Season) -> tuple[int, int]:
    expected = spec.ratings(season)
    page = client.get("/ratings/").content.decode()
    board = Counter(
        (unescape(name), unescape(club), score, games, events)
        for _place, name, club, score, games, events, _last in rows_of(page, "ratings")
    )
    slugs = {e.pk: e.slug for e in season.events}
    found = 0
    for rated in expected.values():
        row = (shown(rated.name), shown(rated.club), str(rated.shown), str(rated.games))
        row += (str(rated.events),)
        player = season.players[rated.player]
        mine = client.get(f"/e/{slugs[player.event]}/player/{player.pk}/").content.decode()
        history = (
            [
                (unescape(event), int(score), int(games))
                for _n, _d, event, score, games in rows_of(mine, "rating-history")
            ]
            if 'id="rating-history"' in mine
            else []
        )
        expected_history = [(shown(e), score, games) for e, score, games in rated.history]
        if board[row] and history == expected_history:
            board[row] -= 1
            found += 1
    return found, len(expected)


def shown(text: str) -> str:
    """A name as a page's text shows it (spaces collapsed)."""
    return " ".join(text.split())


def page_totals(client, series) -> list[str]:
    parser = _Rows()
    parser.feed(client.get(f"/s/{series.slug}/").content.decode())
    return [re.sub(r"\s*\(.*", "", row[-2]) for division in parser.divisions for row in division]


@pytest.mark.parametrize("seed", seeds())
def test_ratings_and_series_agree_with_the_spec(director, client, settings, seed):
    settings.RATING_MIN_GAMES = 1  # everyone rated is on the leaderboard
    series = Series.objects.create(
        name="Rivertown season", slug="rivertown", best_of=3, tie_break="wins"
    )
    events = play_season(director, seed, series)
    compute_ratings()
    lines = [f"season {seed}: {len(events)} nights, {cut_playoffs(events)} cut playoffs"]
    rated, of = ratings_agreement(client, read_season(series))
    lines.append(f"  ratings: {rated} of {of} agree (leaderboard row and history)")
    total_rows = total_found = 0
    for scoring, tie_break in (("points", "wins"), ("per_round", "best_event")):
        series.scoring, series.tie_break = scoring, tie_break
        series.save()
        season = read_season(series)
        expected = spec.series_rows(season)
        got = csv_rows(client, series)
        found = agreement(expected, got)
        total_rows += len(expected)
        total_found += found
        lines.append(f"  series ({scoring}): {found} of {len(expected)} CSV rows agree")
        if scoring == "per_round":
            shown = page_totals(client, series)
            same = sum(
                1 for page, row in zip(shown, got, strict=False) if number(page) == number(row[-4])
            )
            lines.append(f"  series page totals equal to the CSV's: {same} of {len(got)}")
            total_rows += len(got)
            total_found += same if len(shown) == len(got) else 0
    print("\n".join(lines))
    assert (rated, total_found) == (of, total_rows), "\n".join(lines)
