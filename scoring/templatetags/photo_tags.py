"""``{% sheet_photos table %}``: the photos of a table's paper sheet and the form that adds one,
for whoever may see them, else nothing (issue 33). On the table's pages: the event's directors
and the table's scorekeepers (a director also removes a photo, and sees the removed ones); on
a phone's entry page (``phone=True``): a phone that opened the table. A public visitor gets
nothing from it, and the images are served only by scoring/views/photos.py."""

from django import template
from django.urls import reverse

from scoring.forms.photos import PhotoForm, RemovePhotoForm
from scoring.photos import PHOTO_REFUSED, table_photos
from scoring.services.table_entry import opened

register = template.Library()

THUMB = 240  # the width a photo is shown at beside the grid (its link opens it whole)


@register.inclusion_tag("scoring/_sheet_photos.html", takes_context=True)
def sheet_photos(context, table, phone=False):
    request = context["request"]
    event = table.stage.event
    if phone:
        if not opened(request.session, table):
            return {"shown": False}
        is_director = False
        add_url = reverse("terminal_photo_add", args=[table.code])

        def src(photo):
            return reverse("terminal_photo", args=[table.code, photo.pk])
    else:
        if not table.can_score(request.user):
            return {"shown": False}
        is_director = event.is_director(request.user)
        where = [event.slug, table.stage.number, table.number]
        add_url = reverse("add_photo", args=where)

        def src(photo):
            return reverse("sheet_photo", args=[*where, photo.pk])

    refused = request.session.get(PHOTO_REFUSED)
    if refused and refused.get("table") == table.pk:  # shown once, at the photo's field
        del request.session[PHOTO_REFUSED]
    else:
        refused = None
    kept, removed = table_photos(table)
    photos = [
        {
            "photo": photo,
            "src": src(photo),
            "height": round(THUMB * photo.height / photo.width) if photo.width else THUMB,
            "remove_url": reverse(
                "remove_photo", args=[event.slug, table.stage.number, table.number, photo.pk]
            )
            if is_director
            else "",
        }
        for photo in kept
    ]
    return {
        "shown": True,
        "photos": photos,
        "thumb": THUMB,
        "removed": removed if is_director else [],
        "form": PhotoForm(),
        "remove_form": RemovePhotoForm(),
        "add_url": add_url,
        "next": request.get_full_path(),
        "phone": phone,
        "errors": refused["texts"] if refused else [],
        # The desk's camera reads the sheet (issue 51): the values fill a grid to confirm.
        "read_url": "" if phone or table.stage.closed else reverse("read_sheet", args=where),
        "read_form": PhotoForm(auto_id="id_read_%s"),
        # Under the phone's page title (h1) or the event page's table title (h2).
        "level": 2 if phone else 3,
    }
