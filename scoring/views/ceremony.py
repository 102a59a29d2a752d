"""The medal ceremony (issue 50 item 3): the projector's page, one press a medal, the script
read out and the certificates (PDF). The director's: the page runs the room's ceremony."""

from __future__ import annotations

from django.utils.functional import cached_property
from django.views.generic import TemplateView

from scoring.ceremony import certificates, reveals
from scoring.results import load_results
from scoring.views.printing import PdfMixin
from tournament.mixins import DirectorRequiredMixin, EventMixin


class CeremonyMixin(DirectorRequiredMixin, EventMixin):
    @cached_property
    def results(self):
        """With whole sheets: the players' clubs, and each round's (series places)."""
        return load_results(self.event)

    @cached_property
    def reveals(self):
        return reveals(self.results)


def step_asked(value: str | None, last: int) -> int:
    """The step a link asks for (0: the title), within 0 to ``last``; anything else is 0."""
    try:
        step = int(value or 0)
    except ValueError:
        return 0
    return min(max(step, 0), last)


class CeremonyView(CeremonyMixin, TemplateView):
    """Step 0 is the title; step n shows the n-th reveal large, the medals of its division
    revealed before it beneath; the last step after it closes the ceremony."""

    template_name = "scoring/ceremony.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        shown = self.reveals
        end = len(shown) + 1
        step = step_asked(self.request.GET.get("step"), end)
        current = shown[step - 1] if 0 < step < end else None
        ctx.update(
            step=step,
            end=end,
            current=current,
            earlier=[r for r in shown[: step - 1] if current and r.division == current.division][
                ::-1
            ],
            divisions=any(r.division for r in shown),
            reveals=shown,
            previous=step - 1 if step > 0 else None,
            next=step + 1 if step < end else None,
        )
        return ctx


class CeremonyScriptPdfView(CeremonyMixin, PdfMixin, TemplateView):
    """The script read out, in the page's order: names as typed, their clubs."""

    template_name = "print/ceremony.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["reveals"] = self.reveals
        ctx["divisions"] = any(r.division for r in self.reveals)
        return ctx

    def get_filename(self) -> str:
        return f"{self.event.slug}-ceremony.pdf"


class CertificatesPdfView(CeremonyMixin, PdfMixin, TemplateView):
    """A page each: the event, the medal or the place, the name. The medallists', or with
    ``?everyone=1`` every player's."""

    template_name = "print/certificates.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["certificates"] = certificates(
            self.results, everyone=self.request.GET.get("everyone") == "1"
        )
        return ctx

    def get_filename(self) -> str:
        return f"{self.event.slug}-certificates.pdf"
