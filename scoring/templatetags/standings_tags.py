"""A stage's standings rows as HTML (templates/scoring/_standings_table.html), written here
rather than in the template language: a saved round has every phone's standings re-rendered,
and at 1,000 rows the template's loop took about 70 ms (80,000 variables looked up and
escaped), this about 5. The markup is the template's own (tests/test_standings_rows.py keeps
the two the same)."""

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


@register.simple_tag
def standings_rows(rows) -> str:
    """The rows of ``scoring.lists.standings_rows``, every value escaped."""
    out = []
    for row in rows:
        values = {name: escape(str(value)) for name, value in row.items()}
        rank = values["rank"]
        out.append(
            ROW.format_map(
                values
                | {
                    "rank": f' data-rank="{rank}"' if rank else "",
                    "place_mark": " data-place" if rank else "",
                }
            )
        )
    return mark_safe("".join(out))  # noqa: S308 (every value escaped above)
