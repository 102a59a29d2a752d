"""The standings' and the results' rows written in Python (scoring/templatetags/
standings_tags.py) are the markup the templates wrote before, byte for byte, escaping
included."""

from types import SimpleNamespace

import pytest
from django.template import Context, Template
from django.utils import translation

from scoring.templatetags.standings_tags import results_rows, standings_rows
from tournament.models import Medal

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


# A stage's results as templates/scoring/_results_live.html wrote them.
TEMPLATE_RESULTS = Template(
    "{% for r, outcome, text in rows %}"
    '<!--k--><tr data-k="{{ text.key }}"{% if text.rank %} data-rank="{{ text.rank }}"{% endif %}>'
    "<td{% if text.rank %} data-place{% endif %}>{{ text.place }}</td>"
    '<td class="player-name">{{ r.player.name }}</td><td class="fold-narrow">{{ text.table }}</td>'
    '<td class="text-end">{{ text.total }}</td>'
    '{% if medals %}<td class="medal-cell">{% if stage.closed %}{{ outcome }}{% endif %}</td>'
    "{% endif %}</tr><!--/k-->{% endfor %}"
)


@pytest.mark.parametrize("medals", [False, True])
@pytest.mark.parametrize("closed", [False, True])
def test_the_results_rows_are_the_templates_markup(medals, closed):
    def result(name, outcome, **text):
        base = {"key": "s1p1", "rank": "20", "place": "1", "table": "3", "total": "20"}
        return (SimpleNamespace(player=SimpleNamespace(name=name)), outcome, base | text)

    rows = [
        result("Ann Lee", Medal.GOLD.label),  # a lazy translation, as the page has it
        result("O'Brien & <Sons>", "playoff pending", key="s1p2", rank="", place="T2"),
        result("Zoë", "", key="s1p3", rank="31", place="3", total="—"),
    ]
    stage = SimpleNamespace(closed=closed)
    context = Context({"rows": rows, "medals": medals, "stage": stage})
    assert results_rows(rows, medals, closed) == TEMPLATE_RESULTS.render(context)


def test_a_row_kept_from_an_earlier_render_is_made_again_when_a_value_changes():
    """The rows are kept by the values they show (a saved round remakes only its table's):
    any other value, or the same medal in another language, makes another row."""
    first = standings_rows([row()])
    assert standings_rows([row()]) == first
    for name, value in [("total", "31"), ("name", "Zoë <b>"), ("rank", ""), ("place", "T1")]:
        changed = [row(**{name: value})]
        made = standings_rows(changed)
        assert made != first and made == TEMPLATE_ROW.render(Context({"plain_rows": changed}))
    gold = [(SimpleNamespace(player=SimpleNamespace(name="Ann")), Medal.GOLD.label, row())]
    assert ">Gold<" in results_rows(gold, True, True)
    with translation.override("fr"):
        assert ">Or<" in results_rows(gold, True, True)
