"""A stage's standings rows and the results' rows as HTML (templates/scoring/
_standings_table.html, _results_live.html), written here rather than in the template
language: a saved round has every phone's standings and results re-rendered, and at 1,000
rows the template's loop took about 20 ms (tens of thousands of variables looked up and
escaped), this about 3. The markup is the templates' own (tests/test_standings_rows.py keeps
them the same)."""

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


# Each row's HTML by the values it is made of: a saved round changes a few rows of a thousand,
# the others are made of the same values at every render (kept for the process, a few events'
# rows at most).
_MADE: dict[tuple, str] = {}


def made(row: tuple, make, *args) -> str:
    """The HTML of a row made of ``row`` (every value it shows), ``make(*args)`` only the
    first time."""
    html = _MADE.get(row)
    if html is None:
        html = make(*args)
        if len(_MADE) >= 20_000:
            _MADE.clear()
        _MADE[row] = html
    return html


def standings_row(row: dict) -> str:
    values = escaped(row)
    return ROW.format_map(values | rank_marks(values["rank"]))


@register.simple_tag
def standings_rows(rows) -> str:
    """The rows of ``scoring.lists.standings_rows``, every value escaped."""
    out = [made((ROW, *row.items()), standings_row, row) for row in rows]
    return mark_safe("".join(out))  # noqa: S308 (every value escaped by standings_row)


# One row of a stage's results; the medal's cell only in a Final, shown once it closed.
RESULT_ROW = (
    '<!--k--><tr data-k="{key}"{rank}><td{place_mark}>{place}</td>'
    '<td class="player-name">{name}</td><td class="fold-narrow">{table}</td>'
    '<td class="text-end">{total}</td>{medal}</tr><!--/k-->'
)


@register.simple_tag
def results_rows(rows, medals: bool, closed: bool) -> str:
    """The rows of ``scoring.views.results.results_standings``: (standings row, outcome,
    text), every value escaped."""

    def result_row(name: str, outcome: str, text: dict) -> str:
        values = escaped(text)
        medal = escape(outcome) if closed else ""
        values |= rank_marks(values["rank"]) | {
            "name": escape(name),
            "medal": f'<td class="medal-cell">{medal}</td>' if medals else "",
        }
        return RESULT_ROW.format_map(values)

    out = []
    for row, outcome, text in rows:
        shown = (RESULT_ROW, medals, closed, row.player.name, str(outcome), *text.items())
        out.append(made(shown, result_row, row.player.name, str(outcome), text))
    return mark_safe("".join(out))  # noqa: S308 (every value escaped by result_row)
