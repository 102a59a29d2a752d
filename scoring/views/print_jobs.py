"""All score sheets of a stage in one click (issue 14 item 4): a director starts a print job,
watches its progress, and downloads the one PDF (scoring/services/printing.py does the work)."""

from django.shortcuts import get_object_or_404, redirect
from django.views import View
from django.views.generic import TemplateView

from scoring.models import PrintJob
from scoring.printing import pdf_response
from scoring.services.printing import print_language, start_print
from tournament.mixins import DirectorRequiredMixin, StageMixin


class StartPrintView(DirectorRequiredMixin, StageMixin, View):
    http_method_names = ["post"]

    def post(self, request, *args, **kwargs):
        blank = request.POST.get("blank") == "1"
        job = start_print(
            self.stage, blank, request.build_absolute_uri("/"), print_language(self.event)
        )
        return redirect("print_job", self.event.slug, self.stage.number, job.pk)


class PrintJobMixin(DirectorRequiredMixin, StageMixin):
    def job(self) -> PrintJob:
        return get_object_or_404(PrintJob, pk=self.kwargs["pk"], stage=self.stage)


class PrintJobView(PrintJobMixin, TemplateView):
    """The job's progress (the page reloads itself every 2 s), then its PDF."""

    template_name = "scoring/print_job.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["job"] = self.job()
        return ctx


class PrintJobPdfView(PrintJobMixin, View):
    def get(self, request, *args, **kwargs):
        job = self.job()
        if not job.finished:
            return redirect("print_job", self.event.slug, self.stage.number, job.pk)
        kind = "blank-sheets" if job.blank else "sheets"
        return pdf_response(bytes(job.pdf), f"{self.event.slug}-{self.stage.number}-{kind}.pdf")
