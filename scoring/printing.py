"""The one renderer of the site's PDFs: an HTML template through WeasyPrint (PRODUCT.md §9).

Every printable page is a template under ``templates/print/`` extending ``print/base.html``,
which links ``static/css/print.css`` and sets the page size from the event (US Letter or A4).
Static files are read from disk, never over the network: ``_StaticFetcher`` answers the
stylesheet's URL and ``data:`` URIs and refuses every other one, so a PDF never waits on a web
request.
"""

from __future__ import annotations

import mimetypes
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import segno
from django.conf import settings
from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import staticfiles_storage
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.http import content_disposition_header
from weasyprint import HTML
from weasyprint.urls import URLFetcher, URLFetcherResponse

from scoring.sheets import TableSheet
from tournament.clock import read_clock
from tournament.models import PaperSize

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


@dataclass
class SheetPage:
    """One printed sheet: the table's sheet, its live page's address and that as a QR code."""

    sheet: TableSheet
    live_url: str
    qr: str

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
        return len(self.sheet.players) > 5 or len(self.sheet.engines) > 13


def sheets_context(
    stage, sheets: list[TableSheet], blank: bool, absolute, codes: bool = False
) -> dict:
    """What ``print/sheets.html`` needs for ``sheets`` of ``stage``; ``absolute(path)`` makes
    the full address a QR code carries (the request's, or a print job's site address).

    ``codes``: the sheets carry each table's code (its QR code opens the table's entry on a
    phone): only the directors' sheets, never a public download."""
    event = stage.event
    pages = []
    for sheet in sheets:
        if codes and event.table_entry:  # the QR code opens the table's entry on a phone
            path = reverse("table_code", args=[sheet.table.code])
        else:
            path = reverse("table", args=[event.slug, stage.number, sheet.table.number])
        url = absolute(path)
        pages.append(SheetPage(sheet, url, qr_data_uri(url)))
    clock = read_clock(stage)
    return {
        "event": event,
        "stage": stage,
        "pages": pages,
        "blank": blank,
        "clock_started": clock.clock.started_at,
        "time_called": clock.called_at,
        "codes": codes and event.table_entry,
    }
