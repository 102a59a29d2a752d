import django_tables2 as tables
from django.utils.translation import gettext_lazy as _


class StandingsTable(tables.Table):
    """A stage's standings: place, player, table, rounds played, total; sortable."""

    place = tables.Column(verbose_name=_("Place"))
    player = tables.Column(verbose_name=_("Player"), order_by=("player__name",))
    table = tables.Column(
        verbose_name=_("Table"),
        order_by=("table__number",),
        linkify=lambda record: record.table.get_absolute_url(),
    )
    rounds = tables.Column(verbose_name=_("Rounds played"))
    total = tables.Column(verbose_name=_("Total"))

    class Meta:
        attrs = {"class": "table table-striped table-sm align-middle", "id": "standings"}
        orderable = True

    def render_place(self, value, record):
        return f"T{value}" if self.shared[value] > 1 else value

    def render_table(self, value):
        return value.number

    def before_render(self, request):
        self.shared = {}
        for row in self.data:
            self.shared[row.place] = self.shared.get(row.place, 0) + 1
