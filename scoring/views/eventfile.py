"""A director downloads an event's file, or uploads one as a new event (formats/event-file.md)."""

from django import forms
from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin, PermissionRequiredMixin
from django.http import HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views import View
from django.views.generic import FormView

from scoring.eventfile import EventFileError, dumps, export_event, import_event
from tournament.mixins import DirectorRequiredMixin, EventMixin

MAX_UPLOAD = 20_000_000
SHOWN_ERRORS = 200


class EventFileForm(forms.Form):
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
    """A new event from an event file: all or nothing, every error shown with its place."""

    permission_required = "tournament.add_event"
    form_class = EventFileForm
    template_name = "scoring/event_import.html"

    def form_valid(self, form):
        try:
            event = import_event(form.cleaned_data["file"], director=self.request.user)
        except EventFileError as error:
            return self.render_to_response(
                self.get_context_data(
                    form=form,
                    errors=error.located[:SHOWN_ERRORS],
                    error_count=len(error.located),
                    more_errors=max(0, len(error.located) - SHOWN_ERRORS),
                )
            )
        messages.success(
            self.request,
            _("%(name)s imported as a new event.") % {"name": event.name},
        )
        return redirect(event)
