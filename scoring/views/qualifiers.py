"""The qualifier and medal report for the games office (issue 50 item 4): a director's page,
its CSV and its PDF (one table per division). Reads only: scoring/qualifiers.py."""

from __future__ import annotations

from django.utils.functional import cached_property
from django.views import View
from django.views.generic import TemplateView
from django_tables2.export import TableExport

from scoring.exports import RowsExport, export_response
from scoring.qualifiers import COLUMNS, csv_rows, qualifier_report
from scoring.views.printing import PdfMixin
from tournament.mixins import DirectorRequiredMixin, EventMixin


class QualifierMixin(DirectorRequiredMixin, EventMixin):
    @cached_property
    def reports(self):
        return qualifier_report(self.event)

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["reports"] = self.reports
        ctx["columns"] = [header for _key, header in COLUMNS]
        ctx["away"] = any(r.standing.out_of_district for d in self.reports for r in d.rows)
        return ctx


class QualifierReportView(QualifierMixin, TemplateView):
    """Each division's players by place, medal and qualification, with the downloads."""

    template_name = "scoring/qualifiers.html"


class QualifierCsvView(QualifierMixin, View):
    """The report as a CSV: every decided division, one row a player."""

    def get(self, request, *args, **kwargs):
        headers, rows = csv_rows(self.reports)
        exporter = RowsExport(TableExport.CSV, headers, rows, "qualifiers")
        return export_response(exporter, f"{self.event.slug}-qualifiers")


class QualifierPdfView(QualifierMixin, PdfMixin, TemplateView):
    """The report on paper: one table per division."""

    template_name = "print/qualifiers.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["font_pt"] = fitting_font(ctx["columns"], self.reports)
        return ctx

    def get_filename(self) -> str:
        return f"{self.event.slug}-qualifiers.pdf"


# The width the report's table may take (a Letter or A4 page less its margins), in points, and
# the widest a DejaVu Sans character is on average, in ems, with each cell's padding.
LINE_POINTS = 525
CHARACTER_EMS = 0.64
PADDING_EMS = 0.7


def fitting_font(columns, reports, largest: float = 10.0, smallest: float = 5.0) -> float:
    """The type size (points) at which every division's table fits the page's width, each
    value on one line: the widest value of each column (its header too) sets it."""
    widest = [len(str(c)) for c in columns]
    for report in reports:
        for row in report.rows:
            for i, cell in enumerate(row.cells()):
                widest[i] = max(widest[i], len(cell) or 1)
    ems = sum(widest) * CHARACTER_EMS + len(widest) * PADDING_EMS
    return max(smallest, min(largest, LINE_POINTS / ems))
