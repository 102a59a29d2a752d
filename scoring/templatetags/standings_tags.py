"""A stage's standings rows and the results' rows as HTML (templates/scoring/
_standings_table.html, _results_live.html), written here rather than in the template
language: a saved round has every phone's standings and results re-rendered, and at 1,000
rows the template's loop took about 20 ms (tens of thousands of variables looked up and
escaped), this about 3. The markup is the templates' own (tests/test_standings_rows.py keeps
them the same)."""

from functools import lru_cache
from html import escape

from django import template
from django.utils.safestring import mark_safe

register = template.Library()

# One row: a piece of the live region (tournament/live.py), its place numbered by the page
# from data-rank when it has one.
ROW = (
    '<!--k--><tr data-k="{key}"{rank}><td{place_mark}>{place}</td>'
    '<td class="player-name"><a href="{player_url}">{name}</a></td>'
    '<td class="fold-narrow"><a href="{table_url}">{table}</a></td>'
    '<td class="fold-narrow">{rounds}</td><td>{total}</td>'
    '<td class="fold-narrow">{infractions}</td></tr><!--/k-->\n'
)


def escaped(values: dict) -> dict[str, str]:
    return {name: escape(str(value)) for name, value in values.items()}


def rank_marks(rank: str) -> dict[str, str]:
    """A row's data-rank and its place cell's data-place, when it has a rank: the page numbers
    the places from it (static/js/live.js)."""
    if not rank:
        return {"rank": "", "place_mark": ""}
    return {"rank": f' data-rank="{rank}"', "place_mark": " data-place"}


# A row's HTML is kept by the values it is made of (``lru_cache``): a saved round changes a few
# rows of a thousand, the others are made of the same values at every render.


@lru_cache(maxsize=20_000)
def standings_row(items: tuple[tuple[str, str], ...]) -> str:
    values = escaped(dict(items))
    return ROW.format_map(values | rank_marks(values["rank"]))


@register.simple_tag
def standings_rows(rows) -> str:
    """The rows of ``scoring.lists.standings_rows``, every value escaped."""
    out = [standings_row(tuple(row.items())) for row in rows]
    return mark_safe("".join(out))  # noqa: S308 (every value escaped by standings_row)


# One row of a stage's results; the medal's cell only in a Final, shown once it closed.
RESULT_ROW = (
    '<!--k--><tr data-k="{key}"{rank}><td{place_mark}>{place}</td>'
    '<td class="player-name">{name}</td><td class="fold-narrow">{table}</td>'
    '<td class="text-end">{total}</td>{medal}</tr><!--/k-->'
)


@lru_cache(maxsize=20_000)
def result_row(
    medals: bool, closed: bool, name: str, outcome: str, items: tuple[tuple[str, str], ...]
) -> str:
    values = escaped(dict(items))
    medal = escape(outcome) if closed else ""
    values |= rank_marks(values["rank"]) | {
        "name": escape(name),
        "medal": f'<td class="medal-cell">{medal}</td>' if medals else "",
    }
    return RESULT_ROW.format_map(values)


@register.simple_tag
def results_rows(rows, medals: bool, closed: bool) -> str:
    """The rows of ``scoring.views.results.results_standings``: (standings row, outcome,
    text), every value escaped."""
    out = [
        result_row(medals, closed, row.player.name, str(outcome), tuple(text.items()))
        for row, outcome, text in rows
    ]
    return mark_safe("".join(out))  # noqa: S308 (every value escaped by result_row)
