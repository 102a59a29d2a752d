"""Registration lists into an event (directors): upload or paste a list, wait for a large one,
then the preview where the director chooses, then the import."""

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.generic import FormView, TemplateView

from tournament.forms import (
    CsvImportForm,
    new_key,
)
from tournament.mixins import DirectorRequiredMixin, EventMixin, posted_key
from tournament.models import (
    ListReading,
    ListReadingStatus,
)
from tournament.registration import (
    ROLE_LABELS,
    ROLES,
    clean_mapping,
    from_stored,
    guess_mapping,
    mapping_key,
    mapping_problem,
    stored,
)
from tournament.services.registration import (
    ImportChoices,
    adds_player,
    import_registration,
    preview_import,
    start_reading,
    take_reading,
)

SESSION_LIST = "players-import-%s"


class CsvImportView(DirectorRequiredMixin, EventMixin, FormView):
    """Bring the registration list: upload a CSV or Excel file, or paste names. It is read and
    kept (in the director's session, until confirmed) for the preview; nothing is saved yet."""

    form_class = CsvImportForm
    template_name = "tournament/players_import.html"

    def form_valid(self, form):
        if "large" in form.cleaned_data:
            reading = start_reading(
                self.event, self.request.user, form.cleaned_data["large"], form.cleaned_data["once"]
            )
            return redirect("players_import_reading", self.event.slug, reading.pk)
        self.request.session[SESSION_LIST % self.event.pk] = stored(form.cleaned_data["sheet"])
        return redirect("players_import_preview", self.event.slug)

    def form_invalid(self, form):
        if form.errors:
            form.add_error(None, _("Nothing was imported: correct the file and upload it again."))
        return super().form_invalid(form)


class ListReadingView(DirectorRequiredMixin, EventMixin, TemplateView):
    """A large list read in the background: how far it got (the page reloads itself), then the
    preview, or why the list was refused and the upload form again. Only for the director who
    sent it."""

    template_name = "tournament/players_import_reading.html"

    def get(self, request, *args, **kwargs):
        reading = get_object_or_404(
            ListReading.objects.defer("data", "sheet"),
            pk=kwargs["pk"],
            event=self.event,
            by=request.user,
        )
        if reading.status == ListReadingStatus.DONE:
            sheet = take_reading(reading)
            if sheet is not None:
                request.session[SESSION_LIST % self.event.pk] = sheet
            return redirect("players_import_preview", self.event.slug)
        form = CsvImportForm() if reading.status == ListReadingStatus.FAILED else None
        return self.render_to_response(self.get_context_data(reading=reading, form=form))


class ImportPreviewView(DirectorRequiredMixin, EventMixin, TemplateView):
    """The list as read: which column gives what (guessed, remembered for the event), every
    row as the player it would register with its problems, duplicates and computed division;
    nothing is saved until the director confirms."""

    template_name = "tournament/players_import_preview.html"
    SHOWN = 10  # the first rows, as the file has them

    def dispatch(self, request, *args, **kwargs):
        if request.user.is_authenticated and self.is_director:
            stored = request.session.get(SESSION_LIST % self.event.pk)
            if stored is None:
                messages.info(request, _("Upload the list first."))
                return redirect("players_import", self.event.slug)
            self.sheet = from_stored(stored)
            self.dropped = stored.get("dropped", [])
        return super().dispatch(request, *args, **kwargs)

    @property
    def width(self) -> int:
        return max([len(self.sheet.header), *(len(c) for _, c in self.sheet.rows[:200])])

    def mapping(self) -> dict:
        if "map-name" in self.request.POST:
            raw = {role: self.request.POST.get(f"map-{role}") for role in ROLES}
            return clean_mapping(raw, self.width)
        remembered = self.event.import_mapping or {}
        if remembered and all(h in self.sheet.header for h in remembered.values()):
            raw = {role: self.sheet.header.index(h) for role, h in remembered.items()}
            return clean_mapping(raw, self.width)
        return guess_mapping(self.sheet.header)

    def choices(self) -> ImportChoices:
        post = self.request.POST
        lines = {line for line, _ in self.sheet.rows}

        def picked(prefix):
            return {
                int(k[len(prefix) :])
                for k in post
                if k.startswith(prefix)
                and k[len(prefix) :].isdigit()
                and int(k[len(prefix) :]) in lines
            }

        divisions = {}
        if "map-name" in post and post.get("divisions") == mapping_key(self.mapping()):
            for line in lines:
                if f"division-{line}" in post:
                    divisions[line] = post[f"division-{line}"][:60]
        return ImportChoices(
            divisions=divisions,
            add_anyway=picked("add-"),
            apply=picked("apply-"),
            skip_problems=post.get("skip_problems") == "1",
        )

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        mapping = kwargs.get("mapping") or self.mapping()
        choices = kwargs.get("choices") or self.choices()
        problem = mapping_problem(mapping)
        rows = [] if problem else preview_import(self.event, self.sheet, mapping, choices)
        columns = [
            (i, self.sheet.header[i] if i < len(self.sheet.header) else f"#{i + 1}")
            for i in range(self.width)
        ]
        ctx.update(
            sheet=self.sheet,
            dropped=self.dropped,
            columns=columns,
            first_rows=[
                (line, [cells[i] if i < len(cells) else "" for i in range(self.width)])
                for line, cells in self.sheet.rows[: self.SHOWN]
            ],
            roles=[(role, ROLE_LABELS[role], mapping[role]) for role in ROLES],
            mapping_problem=problem,
            rows=rows,
            choices=choices,
            counts={
                status: sum(1 for r in rows if r.status == status and not r.problems)
                for status in ("new", "same", "changed", "repeat")
            },
            adding=sum(1 for r in rows if adds_player(r, choices)),
            problems=[r for r in rows if r.problems],
            divisions_key=mapping_key(mapping),
            with_ages=bool(self.event.age_brackets)
            and (mapping["birth"] is not None or mapping["age"] is not None),
            once=kwargs.get("once") or new_key(),
        )
        return ctx

    def post(self, request, *args, **kwargs):
        mapping, choices = self.mapping(), self.choices()
        key = posted_key(request)
        if request.POST.get("action") != "confirm" or mapping_problem(mapping):
            return self.render_to_response(
                self.get_context_data(mapping=mapping, choices=choices, once=key)
            )
        result = import_registration(self.event, self.sheet, mapping, choices, request.user, key)
        if result.errors:
            for error in result.errors:
                messages.error(request, error)
            messages.error(request, _("Nothing was imported: fix the list or skip those rows."))
            return self.render_to_response(
                self.get_context_data(mapping=mapping, choices=choices, once=key)
            )
        request.session.pop(SESSION_LIST % self.event.pk, None)
        messages.success(
            request,
            _("%(imported)s, %(changed)s, %(skipped)s.")
            % {
                "imported": ngettext(
                    "%(n)s player imported", "%(n)s players imported", result.created
                )
                % {"n": result.created},
                "changed": ngettext("%(n)s changed", "%(n)s changed", result.changed)
                % {"n": result.changed},
                "skipped": ngettext("%(n)s skipped", "%(n)s skipped", result.skipped)
                % {"n": result.skipped},
            },
        )
        return redirect("players", self.event.slug)
