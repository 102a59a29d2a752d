"""A photo of a table's paper sheet read by the camera, then confirmed by a person (issue 51
item 3): the table's pages send the photo (``ReadSheetView``), the worker reads it, and the
reading's page (``ReadingView``) shows "Reading the photo…" until the values fill the table's
grid, each unsure cell marked with its photo beside it. Nothing is saved until a person
presses Save, for one round or the whole sheet; each round goes through record_round with its
form's key and the entry form's checks (``RoundForm``). A round saved already and read
otherwise is shown as a difference, never changed here: a director corrects it on its own page.
"""

from dataclasses import dataclass, field

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.functional import cached_property
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views import View
from django.views.generic import TemplateView

from scoring.forms.entry import RoundForm
from scoring.forms.photos import PhotoForm
from scoring.models import ReadingStatus, SheetReading
from scoring.photos import PhotoRefused
from scoring.services.rounds import RoundRejected, RoundTaken, record_round
from scoring.services.sheet_reading import cell_crop, refusal_text, start_reading
from scoring.sheets import table_sheet
from scoring.views.photos import ScorekeeperTableMixin, back, not_here, refused_back


class ReadSheetView(ScorekeeperTableMixin, View):
    """A director or the table's scorekeeper sends a photo of the filled sheet to be read."""

    http_method_names = ["post"]

    def post(self, request, *args, **kwargs):
        form = PhotoForm(request.POST, request.FILES)
        if not form.is_valid():
            return refused_back(request, form, self.table.get_absolute_url())
        try:
            reading = start_reading(
                self.table, form.cleaned_data["photo"], request.user, form.cleaned_data["once"]
            )
        except PhotoRefused as refusal:
            self.refused(refusal)
            return back(request, self.table.get_absolute_url())
        return redirect(reading_url(reading))


def reading_url(reading: SheetReading) -> str:
    table = reading.table
    return reverse(
        "sheet_reading", args=[table.stage.event.slug, table.stage.number, table.number, reading.pk]
    )


@dataclass
class ReadCell:
    """One cell of the grid as read: the player, what was read, and whether to check it."""

    player: object
    state: str
    value: int | None
    sure: bool
    crop_url: str
    field: object = None  # the form's field (a round not saved yet)
    saved: int | None = None  # the saved pips (a round saved already)

    @property
    def differs(self) -> bool:
        return self.saved is not None and self.state == "number" and self.value != self.saved


@dataclass
class ReadRow:
    """A round of the sheet: saved already (``saved``), to save (``form``), or not written."""

    number: int
    engine: int
    cells: list[ReadCell]
    form: RoundForm | None = None
    saved: bool = False
    correct_url: str = ""
    unsure: int = 0
    differences: list[ReadCell] = field(default_factory=list)


class ReadingView(ScorekeeperTableMixin, TemplateView):
    """The reading of a photo: being read, refused (and why), or the grid to confirm."""

    @cached_property
    def reading(self) -> SheetReading:
        return get_object_or_404(SheetReading, pk=self.kwargs["pk"], table=self.table)

    @cached_property
    def sheet(self):
        return table_sheet(self.table)

    def where(self) -> list:
        return [self.event.slug, self.stage.number, self.table.number]

    def stale(self) -> str:
        """Why this reading no longer fits the table ("" when it does)."""
        if self.stage.closed:
            return _("This stage is closed.")
        if self.reading.players != [p.pk for p in self.sheet.players]:
            return _("The table was seated again since this photo was read: read it again.")
        return ""

    def rows(self, data=None) -> list[ReadRow]:
        reading, sheet = self.reading, self.sheet
        players = {p.pk: p for p in sheet.players}
        rows = []
        for index, engine in enumerate(reading.engines):
            number = index + 1
            read = reading.cells[index]
            saved = sheet.rounds[index] if index < len(sheet.rounds) else None
            cells = [
                ReadCell(
                    player=players[pk],
                    state=c["state"],
                    value=c["value"],
                    sure=c["sure"],
                    crop_url=reverse(
                        "sheet_reading_cell", args=[*self.where(), reading.pk, index, column]
                    ),
                    saved=saved.pips.get(pk) if saved else None,
                )
                for column, (pk, c) in enumerate(zip(reading.players, read, strict=True))
            ]
            row = ReadRow(number, engine, cells, unsure=sum(not c.sure for c in cells))
            if saved is not None:
                row.saved = True
                row.differences = [c for c in cells if c.differs]
                if self.is_director:
                    row.correct_url = reverse("correct_round", args=[*self.where(), number])
            elif any(c.state != "empty" for c in cells) and sheet.next_engine is not None:
                row.form = self.round_form(row, data)
            else:
                continue  # not written on the sheet, or after the game's end
            rows.append(row)
        return rows

    def round_form(self, row: ReadRow, data) -> RoundForm:
        """The entry page's form for the round, the values read as its initial values: the
        same checks as typed values, the same key against a double Save."""
        playing = {p.pk for p in self.sheet.playing(row.number)}
        players = [c.player for c in row.cells if c.player.pk in playing]
        form = RoundForm(
            data,
            players=players,
            rules=self.sheet.rules,
            engine=row.engine,
            number=row.number,
            prefix=f"r{row.number}",
            initial={
                RoundForm.key(c.player): c.value
                for c in row.cells
                if c.state == "number" and c.player.pk in playing
            },
        )
        for cell in row.cells:
            if cell.player.pk in playing:
                cell.field = form[RoundForm.key(cell.player)]
        return form

    def get(self, request, *args, **kwargs):
        return self.page(self.rows() if self.reading.status == ReadingStatus.DONE else [])

    def page(self, rows, status: int = 200):
        reading = self.reading
        stale = self.stale() if reading.status == ReadingStatus.DONE else ""
        forms = [r for r in rows if r.form is not None]
        ctx = {
            "reading": reading,
            "refusal": refusal_text(reading) if reading.status == ReadingStatus.REFUSED else "",
            "stale": stale,
            "rows": [] if stale else rows,
            "next_number": forms[0].number if forms else None,
            "to_save": len(forms),
            "unsure": sum(r.unsure for r in forms),
            "entry_url": reverse("enter_round", args=self.where()),
            "upload": PhotoForm(auto_id="id_read_%s"),
            "read_url": reverse("read_sheet", args=self.where()),
        }
        return render(
            self.request, "scoring/sheet_reading.html", self.get_context_data(**ctx), status=status
        )

    def post(self, request, *args, **kwargs):
        if self.reading.status != ReadingStatus.DONE or self.stale():
            return redirect(reading_url(self.reading))
        rows = [r for r in self.rows(request.POST) if r.form is not None]
        asked = request.POST.get("save", "")
        if asked != "all":
            rows = [r for r in rows if str(r.number) == asked]
            if not rows:  # saved already (a second click), or a page out of date
                messages.info(request, _("This round is saved already."))
                return redirect(reading_url(self.reading))
        if not all([r.form.is_valid() for r in rows]):
            return self.page(self.rows_with(rows), status=200)
        saved = 0
        for row in rows:
            form = row.form
            try:
                record_round(
                    self.table,
                    form.cleaned_data["pips"],
                    request.user,
                    engine=row.engine,
                    number=row.number,
                    key=form.cleaned_data["once"],
                )
            except RoundTaken:
                messages.warning(
                    request,
                    _("Round %(e)s-%(e)s was saved meanwhile: compare it below.")
                    % {"e": row.engine},
                )
                break
            except RoundRejected as refusal:
                if saved:
                    self.say_saved(saved)
                self.refused(refusal, form)
                self.__dict__.pop("sheet", None)
                return self.page(self.rows_with(rows))
            saved += 1
        self.say_saved(saved)
        return redirect(reading_url(self.reading))

    def rows_with(self, posted: list[ReadRow]) -> list[ReadRow]:
        """The page's rows, the posted rounds with their forms as posted (their errors)."""
        by_number = {r.number: r for r in posted}
        rows = self.rows()
        for i, row in enumerate(rows):
            if row.form is not None and row.number in by_number:
                rows[i] = by_number[row.number]
        return rows

    def say_saved(self, saved: int) -> None:
        if saved:
            messages.success(
                self.request,
                ngettext("%(n)s round saved.", "%(n)s rounds saved.", saved) % {"n": saved},
            )


class ReadingCellView(ScorekeeperTableMixin, View):
    """The photo of one cell, cut from the straightened sheet: for the table's directors and
    scorekeepers, as its photos are."""

    def get(self, request, *args, **kwargs):
        reading = SheetReading.objects.filter(pk=kwargs["pk"], table=self.table).first()
        data = cell_crop(reading, kwargs["row"], kwargs["column"]) if reading else None
        if data is None:
            raise not_here()
        response = HttpResponse(data, content_type="image/jpeg")
        response["Cache-Control"] = "private, max-age=300"
        return response
