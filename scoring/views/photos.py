"""Photos of a table's paper sheet (issue 33): added from the table's pages by a director or
its scorekeeper, or from a phone that opened the table; removed by a director with a reason.

An image is served only through these views, each checking who asks: the event's directors and
the table's scorekeepers (``Table.can_score``), or a phone that opened this table with its
current code. Anyone else (a public visitor, another table's phone) gets a 404, as for a photo
that does not exist; no photo is ever at a public or static address."""

from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin
from django.http import FileResponse
from django.shortcuts import get_object_or_404, redirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views import View

from scoring.forms.photos import PhotoForm, RemovePhotoForm
from scoring.models import SheetPhoto
from scoring.photos import PHOTO_REFUSED, PhotoRefused
from scoring.services.photos import add_photo, remove_photo
from scoring.services.table_entry import opened, phone_at
from scoring.views.table_entry import TableCodeMixin
from tournament.mixins import DirectorRequiredMixin, TableMixin
from tournament.refusals import NotFound, Refused


def not_here():
    return NotFound(_("There is no such photo, or it is not yours to see."))


def image_response(photo: SheetPhoto):
    """The photo's JPEG, for the person the view let through; kept by their browser only."""
    if not photo.image:
        raise not_here()
    try:
        file = photo.image.open("rb")
    except OSError:
        raise not_here() from None
    response = FileResponse(file, content_type="image/jpeg")
    response["Content-Disposition"] = f'inline; filename="sheet-photo-{photo.pk}.jpg"'
    response["Cache-Control"] = "private, max-age=300"
    return response


def kept(table, pk: int) -> SheetPhoto:
    photo = SheetPhoto.objects.filter(pk=pk, table=table, removed_at=None).first()
    if photo is None:
        raise not_here()
    return photo


class PhotoAddMixin:
    """Posting the photo form: stored once (its key), or refused with the reason, which the
    page it goes back to shows at the photo's field (``PHOTO_REFUSED``)."""

    http_method_names = ["post"]

    def store(self, request, table, **writer):
        form = PhotoForm(request.POST, request.FILES)
        if not form.is_valid():
            texts = [str(error) for errors in form.errors.values() for error in errors]
        else:
            try:
                add_photo(
                    table, form.cleaned_data["photo"], key=form.cleaned_data["once"], **writer
                )
            except PhotoRefused as refusal:
                texts = [str(text) for text in refusal.texts()]
            else:
                messages.success(request, _("Photo of the sheet added."))
                return
        request.session[PHOTO_REFUSED] = {"table": table.pk, "texts": texts}


def refused_back(request, form, fallback: str):
    """Each of ``form``'s errors said as a message, then back to the page it was on."""
    for errors in form.errors.values():
        for error in errors:
            messages.error(request, error)
    return back(request, fallback)


def back(request, fallback: str):
    """Back to the page the form was on (a path of this site), else ``fallback``."""
    to = request.POST.get("next", "")
    allowed = url_has_allowed_host_and_scheme(to, allowed_hosts={request.get_host()})
    return redirect(to if to.startswith("/") and allowed else fallback)


class ScorekeeperTableMixin(LoginRequiredMixin, TableMixin):
    """The table's directors and scorekeepers only."""

    def dispatch(self, request, *args, **kwargs):
        if request.user.is_authenticated and not self.table.can_score(request.user):
            raise Refused(_("You do not keep the score of this table."))
        return super().dispatch(request, *args, **kwargs)


class AddPhotoView(PhotoAddMixin, ScorekeeperTableMixin, View):
    """A director or the table's scorekeeper adds a photo from the table's pages."""

    def post(self, request, *args, **kwargs):
        self.store(request, self.table, user=request.user)
        return back(request, self.table.get_absolute_url())


class PhotoImageView(TableMixin, View):
    """A photo, for the event's directors and the table's scorekeepers: 404 for anyone else."""

    def get(self, request, *args, **kwargs):
        if not self.table.can_score(request.user):
            raise not_here()
        return image_response(kept(self.table, kwargs["pk"]))


class RemovePhotoView(DirectorRequiredMixin, TableMixin, View):
    """A director removes a photo, saying why (the history keeps the reason)."""

    http_method_names = ["post"]

    def post(self, request, *args, **kwargs):
        photo = get_object_or_404(SheetPhoto, pk=kwargs["pk"], table=self.table)
        form = RemovePhotoForm(request.POST)
        if not form.is_valid():
            return refused_back(request, form, self.table.get_absolute_url())
        try:
            if remove_photo(photo, request.user, form.cleaned_data["reason"]):
                messages.success(request, _("Photo removed."))
        except PhotoRefused as refusal:
            self.refused(refusal)
        return back(request, self.table.get_absolute_url())


class TerminalAddPhotoView(PhotoAddMixin, TableCodeMixin, View):
    """A phone that opened the table adds a photo of its sheet."""

    def post(self, request, code):
        if not opened(request.session, self.table):
            return redirect("table_code", self.table.code)
        phone = phone_at(request, self.table)
        holder = phone.player.name if phone.player else ""
        self.store(request, self.table, device=phone.device, holder=holder)
        return redirect("table_terminal", self.table.code)


class TerminalPhotoView(TableCodeMixin, View):
    """A photo, for a phone that opened its table with the current code: 404 for any other."""

    def get(self, request, code, pk):
        if not opened(request.session, self.table):
            raise not_here()
        return image_response(kept(self.table, pk))
