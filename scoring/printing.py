"""The one renderer of the site's PDFs: an HTML template through WeasyPrint (PRODUCT.md §9).

Every printable page is a template under ``templates/print/`` extending ``print/base.html``,
which links ``static/css/print.css`` and sets the page size from the event (US Letter or A4).
Static files are read from disk, never over the network: ``_StaticFetcher`` answers the
stylesheet's URL and ``data:`` URIs and refuses every other one, so a PDF never waits on a web
request.
"""

from __future__ import annotations

import base64
import hashlib
import io
import mimetypes
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from urllib.parse import urlsplit

import segno
from django.conf import settings
from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import staticfiles_storage
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.http import content_disposition_header
from django.utils.translation import gettext
from PIL import Image, ImageDraw
from weasyprint import HTML
from weasyprint.urls import URLFetcher, URLFetcherResponse

from scoring.cumulative import cumulative_standings, out_note
from scoring.lists import place_text, shown_total
from scoring.results import compute_results
from scoring.sheet_reader.layout import MARGIN, SCHEME, SheetLayout
from scoring.sheets import TableSheet, event_summaries
from tournament.clock import read_clock, table_clock
from tournament.game import formats
from tournament.models import PaperSize, Player, Stage, StageKind

PAGE_SIZES = {PaperSize.LETTER: "letter", PaperSize.A4: "A4"}
# The large paper of each (?paper=large on the bracket): Tabloid (11 x 17 in, CSS "ledger"), A3.
LARGE_PAGE_SIZES = {PaperSize.LETTER: "ledger", PaperSize.A4: "A3"}


class _StaticFetcher(URLFetcher):
    """Serve ``STATIC_URL`` paths from the static files on disk and ``data:`` URIs (the QR
    codes); refuse anything else."""

    def fetch(self, url, headers=None):
        if url.startswith("data:"):
            return super().fetch(url, headers)
        path = urlsplit(url).path
        prefix = urlsplit(settings.STATIC_URL).path
        if not prefix.startswith("/"):
            prefix = "/" + prefix
        if not path.startswith(prefix):
            raise ValueError(f"PDFs only load static files, not {url}")
        name = path.removeprefix(prefix)
        found = finders.find(name) or _collected(name)
        if not found:
            raise ValueError(f"No static file {name}")
        content_type = mimetypes.guess_type(found)[0] or "application/octet-stream"
        return URLFetcherResponse(
            url, Path(found).read_bytes(), headers={"Content-Type": content_type}
        )


def _collected(name: str) -> str | None:
    """A static file after collectstatic (production, where finders may be off)."""
    try:
        path = staticfiles_storage.path(name)
    except NotImplementedError:  # pragma: no cover (a storage without local paths)
        return None
    return path if Path(path).is_file() else None


def page_size(event, large: bool = False) -> str:
    """The CSS page size of an event's paper: ``letter`` (the default) or ``A4``; ``large``:
    Tabloid or A3."""
    paper = getattr(event, "paper_size", PaperSize.LETTER)
    sizes = LARGE_PAGE_SIZES if large else PAGE_SIZES
    return sizes.get(paper, sizes[PaperSize.LETTER])


def render_pdf(
    template_name: str,
    context: dict,
    request: HttpRequest | None = None,
    *,
    scale: float = 1.0,
    refit: Callable[[int], float | None] | None = None,
) -> bytes:
    """The PDF of ``template_name`` rendered with ``context`` (its ``event`` sets the paper).

    ``scale`` is given to the template as ``scale``. ``refit(page_count)``, when given, is
    asked once about the laid-out pages: it answers None to keep them, or another scale to
    render at once more (kept whatever its count). So a PDF is rendered at most twice.
    """
    document = _layout(template_name, context, request, scale)
    if refit is not None:
        again = refit(len(document.pages))
        if again is not None:
            document = _layout(template_name, context, request, again)
    return document.write_pdf()


def _layout(template_name: str, context: dict, request: HttpRequest | None, scale: float):
    """The laid-out WeasyPrint document of the template at ``scale``."""
    base_url = request.build_absolute_uri("/") if request is not None else "http://localhost/"
    html = render_to_string(
        template_name,
        {
            **context,
            "page_size": page_size(context.get("event"), context.get("large_paper", False)),
            "scale": scale,
        },
        request=request,
    )
    return HTML(string=html, base_url=base_url, url_fetcher=_StaticFetcher()).render()


def pdf_response(pdf: bytes, filename: str) -> HttpResponse:
    """A PDF shown in the browser (inline), saved under ``filename`` if the user saves it."""
    response = HttpResponse(pdf, content_type="application/pdf")
    response["Content-Disposition"] = content_disposition_header(False, filename)
    return response


def qr_data_uri(url: str) -> str:
    """A QR code of ``url`` as an SVG ``data:`` URI, for an ``<img>`` of any printed size."""
    return segno.make(url, error="m").svg_data_uri()


SHEETS_PER_PDF = 50  # about 10 seconds of WeasyPrint: well inside a server's request timeout


def table_blocks(count: int, size: int = SHEETS_PER_PDF) -> list[tuple[int, int]]:
    """Table numbers 1..count in blocks of ``size``: [(1, 50), (51, 100), ...]."""
    return [(first, min(first + size - 1, count)) for first in range(1, count + 1, size)]


PAPER_LETTERS = {"letter": "L", "A4": "A"}  # a sheet version's paper


def sheet_layout(sheet: TableSheet, paper: str, before: bool) -> SheetLayout:
    """Where the parts of ``sheet``'s page lie, on ``paper`` ("letter" or "A4")."""
    return SheetLayout(paper, len(sheet.players), len(sheet.engines), before)


def sheet_version(sheet: TableSheet, layout: SheetLayout) -> str:
    """What the sheet's QR code says of the printed page beside its table: the layout's scheme,
    the paper, and a fingerprint of the seating and the rows (``1L3f9a2c01``). A photo of a
    sheet printed before the table was seated again, or on other paper, is told apart."""
    seats = ",".join(str(p.pk) for p in sheet.players)
    engines = ",".join(map(str, sheet.engines))
    key = f"{sheet.table.pk}|{seats}|{engines}|{int(layout.before)}|{layout.paper}"
    digest = hashlib.sha256(key.encode()).hexdigest()[:8]
    return f"{SCHEME}{PAPER_LETTERS.get(layout.paper, 'L')}{digest}"


def paper_of_version(version: str) -> str | None:
    """The paper a sheet version was printed on ("letter", "A4"), None for another scheme."""
    if len(version) != 10 or version[0] != str(SCHEME):
        return None
    return next((paper for paper, letter in PAPER_LETTERS.items() if letter == version[1]), None)


def _png_uri(image) -> str:
    out = io.BytesIO()
    image.save(out, "PNG", optimize=True)
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode()


# A corner mark: a solid black square, as an image (a drawn square's edges would join the grid's
# ruling for a program that reads the grid's lines).
MARK_IMAGE = _png_uri(Image.new("L", (8, 8), 0))

_boxes_images: dict[tuple[float, float, float], str] = {}


def digit_boxes_uri(layout: SheetLayout) -> str:
    """The three light digit boxes of a pip cell as a PNG ``data:`` URI (an image, 600 dpi:
    crisp on paper, and no lines for a program that reads the grid's ruling)."""
    (width, height), gap = layout.box_size, layout.box_gap
    key = (width, height, gap)
    if key not in _boxes_images:
        dots = 600 / 25.4
        strip_w, strip_h = layout.strip()
        image = Image.new("L", (round(strip_w * dots), round(strip_h * dots)), 255)
        draw = ImageDraw.Draw(image)
        line = max(1, round(0.2 * dots))
        for i in range(3):
            left = round(i * (width + gap) * dots)
            box = (left, 0, left + round(width * dots) - 1, round(height * dots) - 1)
            draw.rectangle(box, outline=170, width=line)
        _boxes_images[key] = _png_uri(image)
    return _boxes_images[key]


@dataclass
class SheetPage:
    """One printed sheet: the table's sheet, its live page's address and that as a QR code
    (with the sheet's version, for the camera), and where its parts lie on the page."""

    sheet: TableSheet
    live_url: str
    qr: str
    # A cumulative event: each player's cumulative total before this game, seat order ("—":
    # none yet); None on other sheets.
    before: list[str] | None = None
    layout: SheetLayout | None = None
    version: str = ""
    # When this table's time was called: the room's, or later for a table a director gave
    # minutes of its own (tournament.clock.table_clock); None while it plays.
    time_called: datetime | None = None

    @property
    def tally(self):
        return self.sheet.tally()

    @property
    def corrected(self) -> bool:
        """A cell of the grid is marked corrected (``84*``): the sheet says what the mark means."""
        return any(r.corrected for r in self.sheet.rounds)

    @property
    def compact(self) -> bool:
        """Many players or engines: smaller type, so the sheet still fits its one page."""
        return self.layout.compact

    @property
    def marks(self):
        """The corner marks, from the page's content box (the section's top left corner)."""
        return [_inside(box) for box in self.layout.marks()]

    @property
    def mark_image(self) -> str:
        return MARK_IMAGE

    @property
    def boxes(self) -> str:
        return digit_boxes_uri(self.layout)

    @property
    def strips(self):
        """The digit boxes to print, a list per engine row not played yet (every row of a
        blank sheet): each pip cell's strip, from the content box."""
        played = {r.engine for r in self.sheet.rounds}
        return [
            [_inside(self.layout.strip_at(row, col)) for col in range(len(self.sheet.players))]
            for row, engine in enumerate(self.sheet.engines)
            if self.layout.readable and (self.blank or engine not in played)
        ]

    blank: bool = False


def _inside(box) -> dict:
    """A box of the page as CSS millimetres from the content box's top left corner."""
    return {"x": round(box.x - MARGIN, 3), "y": round(box.y - MARGIN, 3), "w": box.w, "h": box.h}


def sheets_context(
    stage, sheets: list[TableSheet], blank: bool, absolute, codes: bool = False
) -> dict:
    """What ``print/sheets.html`` needs for ``sheets`` of ``stage``; ``absolute(path)`` makes
    the full address a QR code carries (the request's, or a print job's site address).

    ``codes``: the sheets carry each table's code (its QR code opens the table's entry on a
    phone): only the directors' sheets, never a public download."""
    event = stage.event
    before = cumulative_before(stage)
    paper = page_size(event)
    pages = []
    now = timezone.now()
    for sheet in sheets:
        if codes and event.table_entry:  # the QR code opens the table's entry on a phone
            path = reverse("table_code", args=[sheet.table.code])
        else:
            path = reverse("table", args=[event.slug, stage.number, sheet.table.number])
        url = absolute(path)
        shown = None
        if before is not None:
            shown = [shown_total(before.get(p.pk)) for p in sheet.players]
        called = table_clock(sheet.table, stage).effective_time_called_at(now)
        layout = sheet_layout(sheet, paper, before is not None)
        version = sheet_version(sheet, layout)
        qr = qr_data_uri(f"{url}?sheet={version}")
        pages.append(
            SheetPage(sheet, url, qr, shown, layout, version, time_called=called, blank=blank)
        )
    clock = read_clock(stage, now)
    return {
        "event": event,
        "stage": stage,
        "pages": pages,
        "blank": blank,
        "clock_started": clock.clock.started_at,
        "time_called": clock.called_at,
        "codes": codes and event.table_entry,
    }


def cumulative_before(stage) -> dict[int, int] | None:
    """Each player's cumulative total before ``stage``, a cumulative event's game after the
    first (or its Final when the medals add the cumulative total to it), for its score sheets:
    the table knows where it stands. None for any other stage."""
    fmt = stage.event.format
    if not fmt.is_cumulative or stage.kind == StageKind.PLAYOFF:
        return None
    if stage.kind == StageKind.FINAL and fmt.medals_from != formats.CUMULATIVE_PLUS_FINAL:
        return None
    results = compute_results(stage.event, event_summaries(stage.event))
    if stage.kind != StageKind.FINAL and stage.pk not in {g.pk for g in results.games}:
        return None
    earlier = [g for g in results.games if g.number < stage.number and g.pk in results.cumulative]
    return results.cumulative[earlier[-1].pk] if earlier else None


# -- a cumulative event's bracket and results (PRODUCT.md §12) ---------------------------------


@dataclass
class BoardRow:
    """One player's line of a cumulative event's table: their place by the cumulative total,
    each game's total beside the running total after it, the cumulative total, and the marks
    beside the name, every number as it is shown ("—": a game not played)."""

    player: Player
    place: str
    # Per game: its total and the running total after it; None where the running total is not
    # a column of its own (after the first game it is that game's total, after the last the
    # cumulative total).
    cells: list[tuple[str, str | None]]
    total: str
    medal: str = ""
    finalist: bool = False  # plays the Final (cumulative, then a Final)
    pending: bool = False  # a playoff decides their place at the cut or their medal
    note: str = ""  # withdrew, or missed a game: keeps the games played, cannot medal
    cut_above: bool = False  # the cut to the Final runs above this row


@dataclass
class BoardDivision:
    division: str
    rows: list[BoardRow]


@dataclass
class CumulativeBoard:
    """What the bracket and the results show of a cumulative event, on the page and on paper:
    a table of players × games per division, the medals with the totals they came from."""

    games: list[Stage]  # the games shown, in play order (closed, or under way)
    upcoming: list[Stage]  # the games not played yet
    divisions: list[BoardDivision]
    has_final: bool
    medal_rows: list[dict]  # as the knockout's, each with its (player, total shown) entries
    medals_from: str  # where the medals come from, said in words

    @property
    def game_numbers(self) -> set[int]:
        return {g.number for g in self.games} | {g.number for g in self.upcoming}

    @property
    def rows(self) -> list[BoardRow]:
        return [row for d in self.divisions for row in d.rows]

    @property
    def heads(self) -> list[tuple[Stage, bool]]:
        """Each game shown and whether the running total after it has a column."""
        return [(g, _running_column(i, len(self.games))) for i, g in enumerate(self.games)]

    @property
    def numbers(self) -> int:
        """The table's columns of numbers: a game's total, the running totals between the
        first and the last game, the cumulative total."""
        return 2 * len(self.games) - 1 if len(self.games) > 1 else len(self.games) + 1

    @property
    def columns(self) -> int:
        """The table's columns: place, player and its numbers."""
        return 2 + self.numbers

    @property
    def named(self) -> bool:
        """The event has divisions: each part of the table says whose it is."""
        return any(d.division for d in self.divisions)

    @property
    def widest_total(self) -> int:
        """The digits of the largest number the table shows (a column's width on paper)."""
        numbers = [row.total for row in self.rows]
        numbers += [n for row in self.rows for cell in row.cells for n in cell if n]
        return max((len(n) for n in numbers if n.isdigit()), default=1)


def cumulative_board(results, medal_rows: list[dict]) -> CumulativeBoard | None:
    """A cumulative event's board from its results (``scoring.cumulative``'s standings, games
    under way shown as they stand) and the medal rows the pages show; None for a knockout."""
    fmt = results.format
    if not fmt.is_cumulative:
        return None
    standings = cumulative_standings(results)
    shown = {g.pk for g in standings.games}
    games = {g.pk for g in results.games}
    pending = {  # a playoff at the cut, or for a medal of the cumulative totals
        pk
        for owed in results.owed
        if owed.stage is not None and owed.stage.pk in games
        for pk in owed.owed.players
    }
    last = results.games[-1] if results.games else None
    between = [_running_column(i, len(standings.games)) for i in range(len(standings.games))]
    divisions = []
    for division, rows in standings.divisions.items():
        cut = last is not None and fmt.has_final and (last.pk, division) in results.wildcards
        shared = Counter(row.place for row in rows if row.place is not None)
        board_rows, finalists_seen = [], False
        for row in rows:
            board = BoardRow(
                row.player,
                place_text(row.place, shared[row.place]),
                [
                    (shown_total(game), shown_total(running) if column else None)
                    for game, running, column in zip(row.games, row.running, between, strict=True)
                ],
                str(row.total),
                medal=row.medal,
                finalist=row.finalist,
                pending=row.player.pk in pending,
                note=out_note(row) if row.out else "",
            )
            if cut and finalists_seen and not row.finalist and not row.out:
                board.cut_above, cut = True, False
            finalists_seen = finalists_seen or row.finalist
            board_rows.append(board)
        divisions.append(BoardDivision(division, board_rows))
    totals = medal_totals_shown(results)
    rows = [{**m, "entries": [(p, totals.get(p.pk, "")) for p in m["players"]]} for m in medal_rows]
    return CumulativeBoard(
        standings.games,
        [g for g in results.games if g.pk not in shown],
        divisions,
        fmt.has_final,
        rows,
        _medals_from(fmt),
    )


def _running_column(index: int, games: int) -> bool:
    """Whether the running total after game ``index`` (of ``games`` shown) has a column: not
    after the first (its own total) nor after the last (the cumulative total)."""
    return 0 < index < games - 1


def _medals_from(fmt: formats.Format) -> str:
    if fmt.kind == formats.CUMULATIVE:
        return gettext("Medals from the cumulative totals, lowest first.")
    if fmt.medals_from == formats.CUMULATIVE_PLUS_FINAL:
        return gettext("Medals from the cumulative total plus the Final's, lowest first.")
    return gettext("Medals from the Final's totals, lowest first.")


def medal_totals_shown(results) -> dict[int, str]:
    """Each medallist's total their medal came from, as shown: the cumulative total, the
    Final's, or both added ("230 + 40 = 270")."""
    fmt = results.format
    last = results.games[-1] if results.games else None
    cumulative = results.cumulative.get(last.pk, {}) if last is not None else {}
    final = results.final if fmt.has_final else None
    final_totals = (
        {pk: t for sheet in results.sheets.get(final, []) for pk, t in sheet.totals.items()}
        if final is not None
        else {}
    )
    totals = formats.medal_totals(fmt, cumulative, final_totals)
    if fmt.kind == formats.CUMULATIVE_FINAL and fmt.medals_from == formats.CUMULATIVE_PLUS_FINAL:
        return {
            pk: f"{cumulative.get(pk, 0)} + {final_totals[pk]} = {total}"
            for pk, total in totals.items()
        }
    return {pk: str(total) for pk, total in totals.items()}
