import django_tables2 as tables
from django.urls import reverse
from django.utils.dateformat import format as date_format
from django.utils.html import format_html
from django.utils.http import urlencode
from django.utils.timezone import localtime
from django.utils.translation import gettext_lazy as _

from scoring.exports import export_player_id


def player_url(event, player) -> str:
    return reverse("player", args=[event.slug, player.pk])


class StandingsTable(tables.Table):
    """A stage's standings: place, player, table, rounds played, total; sortable."""

    place = tables.Column(verbose_name=_("Place"))
    player = tables.Column(
        verbose_name=_("Player"),
        order_by=("player__name",),
        linkify=lambda record: player_url(record.table.stage.event, record.player),
    )
    player_id = tables.Column(
        verbose_name=_("Player id"), accessor="player", visible=False, orderable=False
    )  # in exports only
    table = tables.Column(
        verbose_name=_("Table"),
        order_by=("table__number",),
        linkify=lambda record: record.table.get_absolute_url(),
    )
    rounds = tables.Column(verbose_name=_("Rounds played"))
    total = tables.Column(verbose_name=_("Total"))
    infractions = tables.Column(verbose_name=_("Infractions"))

    class Meta:
        attrs = {"class": "table table-striped table-sm align-middle", "id": "standings"}
        orderable = True

    def render_place(self, value, record):
        return f"T{value}" if self.shared[value] > 1 else value

    def render_table(self, value):
        return value.number

    def value_place(self, value):
        """Exports give the place as a number; tied rows share it."""
        return value

    def value_player_id(self, value):
        return export_player_id(value)

    def before_render(self, request):
        self.shared = {}
        for row in self.data:
            self.shared[row.place] = self.shared.get(row.place, 0) + 1


class InfractionLogTable(tables.Table):
    """The director's log of an event's infractions, newest first (PRODUCT.md §8).

    Its rows come with their table, stage, event, player and users joined in: one query.
    """

    logged_at = tables.DateTimeColumn(verbose_name=_("Logged"), format="D H:i")
    stage = tables.Column(
        verbose_name=_("Stage"), accessor="table__stage__name", order_by=("table__stage__number",)
    )
    table = tables.Column(
        verbose_name=_("Table"),
        order_by=("table__stage__number", "table__number"),
        linkify=lambda record: record.table.get_absolute_url(),
    )
    engine = tables.Column(verbose_name=_("Round"))
    player = tables.Column(
        verbose_name=_("Player"),
        order_by=("player__name",),
        linkify=lambda record: player_url(record.table.stage.event, record.player),
    )
    kind = tables.Column(verbose_name=_("Kind"))
    note = tables.Column(verbose_name=_("Note"), orderable=False)
    action = tables.Column(verbose_name=_("Action"))
    logged_by = tables.Column(verbose_name=_("Logged by"), order_by=("logged_by__username",))
    change_reason = tables.Column(verbose_name=_("Changed"), orderable=False)
    change = tables.Column(
        verbose_name="", accessor="pk", orderable=False, attrs={"td": {"class": "text-end"}}
    )

    class Meta:
        attrs = {"class": "table table-sm table-striped align-middle", "id": "infraction-log"}
        row_attrs = {"data-infraction": lambda record: record.pk}
        orderable = True
        empty_text = _("No infraction logged.")

    def render_table(self, value):
        return value.number

    def render_engine(self, value):
        return f"{value}-{value}"

    def render_action(self, value, record):
        if record.action == record.original_action:
            return value
        return format_html(
            '{} <small class="text-muted">({})</small>',
            value,
            _("logged as %(action)s") % {"action": record.get_original_action_display()},
        )

    def render_change_reason(self, value, record):
        return format_html(
            '{} <small class="text-muted">({}, {})</small>',
            value,
            record.changed_by or "?",
            date_format(localtime(record.changed_at), "D H:i"),
        )

    def render_change(self, value, record):
        url = reverse("infraction_change", args=[record.table.stage.event.slug, value])
        back = self.request.get_full_path() if getattr(self, "request", None) else ""
        if back:
            url = f"{url}?{urlencode({'next': back})}"
        return format_html(
            '<a class="btn btn-outline-secondary btn-sm" href="{}">{}</a>', url, _("Void or change")
        )
