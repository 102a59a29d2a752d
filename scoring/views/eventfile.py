"""A director downloads an event's file, or uploads one as a new event (formats/event-file.md)."""

from django import forms
from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin, PermissionRequiredMixin
from django.http import HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views import View
from django.views.generic import DetailView, FormView

from scoring.eventfile import EventFileError, dumps, export_event
from scoring.models import ImportJob, ImportStatus
from scoring.services.imports import shown_errors, upload
from tournament.forms import OnceMixin
from tournament.mixins import DirectorRequiredMixin, EventMixin

MAX_UPLOAD = 20_000_000


def errors_context(shown: list, count: int) -> dict:
    """The located errors as the import pages list them (templates/scoring/_import_errors.html)."""
    return {"errors": shown, "error_count": count, "more_errors": count - len(shown)}


class EventFileForm(OnceMixin, forms.Form):
    file = forms.FileField(
        label=gettext_lazy("Event file"),
        help_text=gettext_lazy("A .json event file, as downloaded from an event's page."),
    )

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > MAX_UPLOAD:
            raise forms.ValidationError(_("The file is larger than 20 MB."))
        return upload.read()


class EventFileDownloadView(DirectorRequiredMixin, EventMixin, View):
    """The whole event as one JSON file, for the event's directors."""

    http_method_names = ["get"]

    def get(self, request, *args, **kwargs):
        return HttpResponse(
            dumps(export_event(self.event)),
            content_type="application/json; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="{self.event.slug}.json"'},
        )


class EventFileUploadView(LoginRequiredMixin, PermissionRequiredMixin, FormView):
    """A new event from an event file: all or nothing, every error shown with its place. A large
    file is imported in the background: its job's page follows it."""

    permission_required = "tournament.add_event"
    form_class = EventFileForm
    template_name = "scoring/event_import.html"

    def form_valid(self, form):
        try:
            made = upload(form.cleaned_data["file"], self.request.user, form.cleaned_data["once"])
        except EventFileError as error:
            return self.render_to_response(
                self.get_context_data(form=form, **errors_context(*shown_errors(error)))
            )
        if not isinstance(made, ImportJob):
            messages.success(
                self.request,
                _("%(name)s imported as a new event.") % {"name": made.name},
            )
        return redirect(made)


class ImportJobView(LoginRequiredMixin, DetailView):
    """A large file's import, step by step (the page reloads itself), then the new event, or
    the file's errors and the form to send it again. Only for the director who sent it."""

    template_name = "scoring/import_job.html"
    context_object_name = "job"

    def get_queryset(self):
        return ImportJob.objects.seen_by(self.request.user).defer("data").select_related("event")

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        job = ctx["job"]
        if job.status == ImportStatus.FAILED:
            ctx.update(errors_context(job.errors, job.error_count), form=EventFileForm())
        return ctx
