import django_tables2 as tables
from django.http import HttpRequest
from django.urls import reverse
from django.utils.dateformat import format as date_format
from django.utils.html import format_html
from django.utils.http import urlencode
from django.utils.timezone import localtime
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _
from django_tables2 import RequestConfig

from scoring.exports import export_player_id
from tournament.game.rules import places
from tournament.text import name_sort_key

MAX_PER_PAGE = 500


def configure(request: HttpRequest, table: tables.Table, per_page: int) -> tables.Table:
    """Sort and paginate ``table`` as the request's ?sort=, ?page= and ?per_page= say.

    django-tables2's own ``RequestConfig`` takes any whole number for these, and a
    ``per_page`` of -1 ends in a 500. Here a ``per_page`` outside 1 to MAX_PER_PAGE is
    ignored, and a page that is not a number or past the end shows the first or the last page.
    An unknown sort is ignored by django-tables2 itself.
    """
    RequestConfig(request, paginate=False).configure(table)
    asked = request.GET.get(table.prefixed_per_page_field, "")
    if asked.isascii() and asked.isdigit() and len(asked) <= 3 and 1 <= int(asked) <= MAX_PER_PAGE:
        per_page = int(asked)
    table.paginate(per_page=per_page)
    table.page = table.paginator.get_page(request.GET.get(table.prefixed_page_field))
    return table


def player_url(event, player) -> str:
    return reverse("player", args=[event.slug, player.pk])


# -- the public standings: plain rows, one template (django-tables2 renders cell by cell, with a
# reverse() per link: 1.4 s for 1,000 rows; the exports keep StandingsTable below).

STANDINGS_COLUMNS = [
    ("place", _("Place")),
    ("player", _("Player")),
    ("table", _("Table")),
    ("rounds", _("Rounds played")),
    ("total", _("Total")),
    ("infractions", _("Infractions")),
]
# Columns a phone does not show (the class "fold-narrow", static/css/site.css): a player's table,
# rounds and infractions are on their own page.
FOLDED_ON_PHONES = {"table", "rounds", "infractions"}
# A player who withdrew has no place: after everyone placed.
_SORT_KEYS = {
    "place": lambda r: (r.place is None, r.place or 0),
    "player": lambda r: name_sort_key(r.player.name),
    "table": lambda r: r.table.number,
    "rounds": lambda r: r.rounds,
    "total": lambda r: r.total,
    "infractions": lambda r: r.infractions,
}


def standings_sort(asked: str) -> str:
    """The ?sort= asked for if it names a column (with "-" for descending), else "place"."""
    return asked if asked.removeprefix("-") in _SORT_KEYS else "place"


def standings_headers(sort: str) -> list[tuple[str, str, str]]:
    """(label, th class, the sort its link asks for) per column, as django-tables2 drew them."""
    out = []
    for name, label in STANDINGS_COLUMNS:
        fold = " fold-narrow" if name in FOLDED_ON_PHONES else ""
        if sort == name:
            out.append((label, f"asc orderable{fold}", f"-{name}"))
        elif sort == f"-{name}":
            out.append((label, f"desc orderable{fold}", name))
        else:
            out.append((label, f"orderable{fold}", name))
    return out


def url_head(name: str, *args) -> str:
    """The URL of ``name`` for ``args`` followed by an id, without the id: "/e/x/player/"."""
    url = reverse(name, args=[*args, 0])
    return url[: url.rindex("0/")]


UNRANKED = "—"


def shown_total(total: int | None) -> str:
    """A total as a list shows it: "—" when there is none (not seated, not played)."""
    return UNRANKED if total is None else str(total)


def place_text(place: int | None, sharing: int, withdrew_after: int | None = None) -> str:
    """A place as the standings show it: T3 when shared; a withdrawal says so; a player with
    no round played yet is unranked: "—"."""
    if place is None:
        if withdrew_after is None:
            return UNRANKED
        return _("withdrew after round %(n)s") % {"n": withdrew_after}
    if sharing > 1:
        # Translators: a place shared by a tie ("T5": tied for fifth), as short as a place.
        return gettext("T%(place)s") % {"place": place}
    return str(place)


def tie_format() -> str:
    """A shared place as place_text writes it, with %s for the place (a live page numbers its
    rows itself: tournament/live.py)."""
    return gettext("T%(place)s") % {"place": "%s"}


def rank_keys(rows) -> dict[int, int]:
    """Per placed row's player, the number a live page ranks the row by (tournament/live.py:
    one more than the rows ranked lower, shared when equal): the total when the places by
    lowest total are the places shown, else the place itself (a Final's settled medals)."""
    placed = {r.player.pk: r.place for r in rows if r.place is not None}
    totals = {r.player.pk: r.total for r in rows if r.place is not None}
    return totals if places(totals) == placed else placed


def progress_text(progress) -> str:
    """What a stage in progress says above its standings (a StageProgress), or "" when they
    are final."""
    if progress is None:
        return ""
    if not progress.rounds:
        return gettext("No round has been played yet: nobody is ranked.")
    rounds = ngettext(
        "Partial standings: %(rounds)s of %(expected)s round played",
        "Partial standings: %(rounds)s of %(expected)s rounds played",
        progress.expected,
    ) % {"rounds": progress.rounds, "expected": progress.expected}
    tables = ngettext(
        "%(finished)s of %(tables)s table finished",
        "%(finished)s of %(tables)s tables finished",
        progress.tables,
    ) % {"finished": progress.finished, "tables": progress.tables}
    return f"{rounds}, {tables}."


def standings_rows(event, stage, rows, sort: str) -> list[dict[str, str]]:
    """The rows sorted as asked, as the template shows them (text, nothing left to look up
    or format): places shared by several rows show as T3."""
    shared: dict[int | None, int] = {}
    for row in rows:
        shared[row.place] = shared.get(row.place, 0) + 1
    name = sort.removeprefix("-")
    ordered = sorted(rows, key=_SORT_KEYS[name], reverse=sort.startswith("-"))
    player, table = url_head("player", event.slug), url_head("table", event.slug, stage.number)
    ranks = rank_keys(rows)
    return [
        {
            "key": f"p{r.player.pk}",
            "rank": str(ranks.get(r.player.pk, "")),
            "place": place_text(r.place, shared[r.place], r.withdrew_after),
            "player_url": f"{player}{r.player.pk}/",
            "name": r.player.name,
            "table_url": f"{table}{r.table.number}/",
            "table": str(r.table.number),
            "rounds": str(r.rounds),
            "total": str(r.total) if r.rounds else "—",  # an unplayed playoff: no total yet
            "infractions": str(r.infractions),
        }
        for r in ordered
    ]


def table_cards(event, stage, sheets) -> list[dict[str, str]]:
    """The stage's tables as the standings page lists them: link, rounds played and finished
    ("13 rounds · finished"), rounds not confirmed. Text ready to show: 250 cards cost 5 ms."""
    head = url_head("table", event.slug, stage.number)
    name, finished = gettext("Table %(n)s"), gettext("finished")
    return [
        {
            "key": f"t{sheet.table.pk}",
            "url": f"{head}{sheet.table.number}/",
            "name": name % {"n": sheet.table.number},
            "state": " · ".join(
                [ngettext("%(n)s round", "%(n)s rounds", sheet.played) % {"n": sheet.played}]
                + ([finished] if sheet.game_over else [])
            ),
            "awaiting": ngettext("%(n)s not confirmed", "%(n)s not confirmed", waiting)
            % {"n": waiting}
            if (waiting := sheet.awaiting_count)
            else "",
        }
        for sheet in sheets
    ]


class StandingsTable(tables.Table):
    """A stage's standings: place, player, table, rounds played, total; sortable."""

    place = tables.Column(verbose_name=_("Place"), order_by=("rank",), empty_values=())
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
        return place_text(value, self.shared.get(value, 1), record.withdrew_after)

    def render_table(self, value):
        return value.number

    def render_total(self, value, record):
        """No round entered yet (an unplayed playoff): "—", not 0."""
        return value if record.rounds else "—"

    def value_place(self, value, record):
        """Exports give the place as a number; tied rows share it; a withdrawal says so; a
        player with no round played yet has none (an empty cell)."""
        if value is None and record.withdrew_after is not None:
            return _("withdrew after round %(n)s") % {"n": record.withdrew_after}
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
        verbose_name=_("Stage"), accessor="table__stage", order_by=("table__stage__number",)
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
        verbose_name=_("Change"),
        accessor="pk",
        orderable=False,
        attrs={"td": {"class": "text-end"}},
    )

    class Meta:
        attrs = {"class": "table table-sm table-striped align-middle", "id": "infraction-log"}
        row_attrs = {"data-infraction": lambda record: record.pk}
        orderable = True
        empty_text = _("No infraction logged.")

    def render_stage(self, value):
        return value.title

    def render_table(self, value):
        return value.number

    def render_total(self, value, record):
        """No round entered yet (an unplayed playoff): "—", not 0."""
        return value if record.rounds else "—"

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
