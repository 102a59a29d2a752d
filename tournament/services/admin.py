"""The admin's writes (tournament/admin.py, scoring/admin.py): a row saved or deleted there bumps
its event's version like any write of the site (tournament/history.py), in one transaction, so
no cached page shows the row as it was. ``event_of`` gives a row's event id."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from django.db import transaction
from django.db.models import Model, QuerySet

from tournament.history import changed

IdOf = Callable[[Model], int]


def _bump(rows: Iterable[Model], event_of: IdOf) -> None:
    for event_id in {event_of(row) for row in rows}:
        changed(event_id)


@transaction.atomic
def save_row(row: Model, change: bool, event_of: IdOf) -> None:
    """A row the admin's form added or edited. An edit writes the fields the form edits only:
    what the site keeps itself (editable=False: the versions, the stored totals of
    scoring.services.rounds.store_totals) is never written back as the form read it."""
    if change:
        fields = row._meta.concrete_fields
        row.save(update_fields=[f.name for f in fields if f.editable and not f.primary_key])
    else:
        row.save()
    _bump([row], event_of)


@transaction.atomic
def save_related(save: Callable[[], None], row: Model, event_of: IdOf) -> None:
    """The admin's own ``save`` of what its form edits beside ``row`` (its inlines, its
    many-to-many fields)."""
    save()
    _bump([row], event_of)


@transaction.atomic
def delete_row(row: Model, event_of: IdOf) -> None:
    _bump([row], event_of)
    row.delete()


@transaction.atomic
def delete_rows(rows: QuerySet, event_of: IdOf) -> None:
    _bump(list(rows), event_of)
    rows.delete()
