"""The standings' rows written in Python (scoring/templatetags/standings_tags.py) are the
markup the template wrote before, byte for byte, escaping included."""

from django.template import Context, Template

from scoring.templatetags.standings_tags import standings_rows

# The row as templates/scoring/_standings_table.html wrote it in the template language.
TEMPLATE_ROW = Template(
    "{% for r in plain_rows %}"
    '<!--k--><tr data-k="{{ r.key }}"{% if r.rank %} data-rank="{{ r.rank }}"{% endif %}>'
    "<td{% if r.rank %} data-place{% endif %}>{{ r.place }}</td>"
    '<td class="player-name"><a href="{{ r.player_url }}">{{ r.name }}</a></td>'
    '<td class="fold-narrow"><a href="{{ r.table_url }}">{{ r.table }}</a></td>'
    '<td class="fold-narrow">{{ r.rounds }}</td><td>{{ r.total }}</td>'
    '<td class="fold-narrow">{{ r.infractions }}</td></tr><!--/k-->\n'
    "{% endfor %}"
)


def row(**given) -> dict[str, str]:
    base = {
        "key": "p1",
        "rank": "20",
        "place": "1",
        "player_url": "/e/spring/player/1/",
        "name": "Ann Lee",
        "table_url": "/e/spring/1/table/3/",
        "table": "3",
        "rounds": "13",
        "total": "20",
        "infractions": "0",
    }
    return base | given


def test_the_rows_are_the_templates_markup():
    rows = [
        row(),
        row(key="p2", rank="", place="T2 (withdrew)", name='O\'Brien & <Sons> "Jr"'),
        row(key="p3", rank="44", place="T2", total="—", name="Zoë Ça"),
    ]
    written = standings_rows(rows)
    assert written == TEMPLATE_ROW.render(Context({"plain_rows": rows}))
    assert "O&#x27;Brien &amp; &lt;Sons&gt; &quot;Jr&quot;" in written
    assert standings_rows([]) == ""
