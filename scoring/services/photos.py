"""Photos of a table's paper sheet (issue 33): added from the table's page (a director, its
scorekeeper) or from a phone that opened the table, removed by a director with a reason. Each
write is in the table's history (``table.photo_added``, ``table.photo_removed``).

- The upload is re-encoded before anything is written (scoring/photos.py ``reencode``): a file
  refused stores nothing. A table that keeps ``MAX_PHOTOS`` already, or a repeated form, is
  answered before the upload is decoded (and checked again in the transaction that stores it).
- A repeated form (double tap, retry) stores one photo: the form's key is claimed in the
  transaction that stores it, and the file is written only by the request that claimed it.
- The image goes to Django's default storage (``STORAGES["default"]``: the media folder by
  default, S3 or any other storage on a hosted site) under ``sheets/<event>/<stage>/<table>/``.
- With backups on, a copy goes into the event's backup folder, beside its event files
  (``BACKUP_DIR/<event>/sheets/<stage>/<table>/``): a copy of that folder carries the photos.
  A failed copy (the USB stick pulled) is logged, never raised: the photo is stored.
- A removed photo keeps its row (who added it, who removed it, when, why); its image and its
  backup copy are deleted.
"""

from __future__ import annotations

import logging
import secrets
from pathlib import Path

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from scoring.models import SheetPhoto
from scoring.photos import PhotoRefused, reencode
from scoring.services.backups import BackupFailed, backup_folder, write_atomically
from scoring.services.rounds import RoundRejected, lock_table
from tournament.history import claim, log_action, settle
from tournament.models import Submission, Table

logger = logging.getLogger(__name__)

REASON_LENGTH = 200  # SheetPhoto.removed_reason
MAX_PHOTOS = 12  # kept at one table: a sheet takes one or two; a laptop's disk is not endless


def add_photo(
    table: Table, upload, *, user=None, device: str = "", holder: str = "", key: str = ""
) -> SheetPhoto:
    """Store a photo of ``table``'s sheet from ``upload`` (a file), re-encoded; added by a
    director or scorekeeper (``user``) or by the phone ``device`` (held by the player named
    ``holder``, as the history says). A repeated form (its ``key`` claimed already) stores
    nothing and returns the photo it stored."""
    earlier = Submission.objects.filter(key=key).first() if key else None
    if earlier is not None:  # a repeat: its photo, without decoding the upload again
        return stored_by(earlier)
    check_room(table)  # a full table refuses before the upload is decoded
    encoded = reencode(upload)  # refused before anything is written
    try:
        with transaction.atomic():
            table = lock_table(table)
            earlier = claim(key, user)
            if earlier is not None:
                return stored_by(earlier)
            check_room(table)
            photo = SheetPhoto(
                table=table,
                width=encoded.width,
                height=encoded.height,
                added_by=user if getattr(user, "is_authenticated", False) else None,
                added_device=device[:12],
            )
            stored = ""
            try:
                photo.image.save(
                    f"{secrets.token_hex(8)}.jpg", ContentFile(encoded.data), save=False
                )
                stored = photo.image.name
                photo.save()
                log_action(
                    table.stage.event,
                    "table.photo_added",
                    user,
                    stage=table.stage,
                    table=table.number,
                    photo=photo.pk,
                    **({"device": device} if device else {}),
                    **({"phone": holder} if holder else {}),
                )
                settle(key, photo=photo.pk)
            except BaseException:
                if stored:  # the row rolls back: its file goes too
                    photo.image.storage.delete(stored)
                raise
            name, data = photo.image.name, encoded.data
            transaction.on_commit(lambda: copy_to_backup(name, data))
    except RoundRejected as refusal:  # the table's seating drawn again meanwhile
        raise PhotoRefused(str(refusal)) from None
    return photo


def stored_by(earlier) -> SheetPhoto:
    """The photo an earlier form with the same key stored (refused when it was removed since)."""
    photo = SheetPhoto.objects.filter(pk=(earlier.outcome or {}).get("photo")).first()
    if photo is None:
        raise PhotoRefused(_("This photo was stored and removed since."))
    return photo


def check_room(table: Table) -> None:
    """Refuse a photo at a table that keeps ``MAX_PHOTOS`` already."""
    if table.photos.filter(removed_at=None).count() >= MAX_PHOTOS:
        raise PhotoRefused(
            _(
                "This table has %(n)s photos of its sheet already: a director removes one "
                "before another is added."
            )
            % {"n": MAX_PHOTOS}
        )


def remove_photo(photo: SheetPhoto, user, reason: str) -> bool:
    """A director removes a photo, saying why: its image (and backup copy) deleted, its row
    kept for the history. False when it was removed already (a second device, a double tap)."""
    reason = " ".join((reason or "").split())
    if not reason:
        raise PhotoRefused(_("Say why the photo is removed (it is written in the history)."))
    if len(reason) > REASON_LENGTH:
        raise PhotoRefused(
            _("Say why in at most %(n)s characters.") % {"n": REASON_LENGTH},
        )
    try:
        with transaction.atomic():
            table = lock_table(photo.table)
            photo = SheetPhoto.objects.select_for_update().filter(pk=photo.pk).first()
            if photo is None or photo.removed_at is not None:
                return False
            name = photo.image.name
            photo.removed_at = timezone.now()
            photo.removed_by = user
            photo.removed_reason = reason
            photo.image = ""
            photo.save(update_fields=["removed_at", "removed_by", "removed_reason", "image"])
            log_action(
                table.stage.event,
                "table.photo_removed",
                user,
                stage=table.stage,
                reason=reason,
                table=table.number,
                photo=photo.pk,
            )
            if name:
                storage = SheetPhoto._meta.get_field("image").storage
                transaction.on_commit(lambda: forget(storage, name))
    except RoundRejected as refusal:
        raise PhotoRefused(str(refusal)) from None
    return True


def backup_copy_path(name: str) -> Path | None:
    """Where the backup folder keeps the photo stored as ``name``: ``sheets/<event>/<stage>/
    <table>/<file>`` at ``BACKUP_DIR/<event>/sheets/<stage>/<table>/<file>``. None with backups
    off, the folder not there (the photo is stored all the same), or a name of another shape."""
    parts = name.split("/")
    if not settings.BACKUPS_ON or len(parts) != 5 or parts[0] != "sheets" or ".." in parts:
        return None
    try:
        root = backup_folder()
    except BackupFailed as why:
        logger.warning("Photo %s not copied to the backup folder: %s", name, why)
        return None
    _sheets, event, stage, table, file = parts
    return root.resolve() / event / "sheets" / stage / table / file


def copy_to_backup(name: str, data: bytes) -> None:
    """Write the photo into the event's backup folder, whole or not at all (after the commit)."""
    path = backup_copy_path(name)
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, data)
    except OSError as error:
        logger.warning("Photo %s not copied to the backup folder: %s", name, error)


def delete_image(storage, name: str) -> None:
    try:
        storage.delete(name)
    except OSError as error:
        logger.warning("Photo %s not deleted: %s", name, error)


def forget(storage, name: str) -> None:
    """Delete a removed photo's image and its backup copy (after the commit)."""
    delete_image(storage, name)
    path = backup_copy_path(name)
    if path is not None:
        try:
            path.unlink(missing_ok=True)
        except OSError as error:
            logger.warning("Removed photo %s not deleted from the backup folder: %s", name, error)


def photo_deleted(sender, instance: SheetPhoto, **kwargs) -> None:
    """A photo's row deleted with its table (an event deleted, a stage's seating drawn again):
    its image goes once the deletion commits. Its backup copy stays, with the event's files in
    the backup folder."""
    name = instance.image.name
    if name:
        storage = instance.image.storage
        transaction.on_commit(lambda: delete_image(storage, name))
