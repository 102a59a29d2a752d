"""A series' writes (issue 31 item 1): create and edit a series, add an event to it and take one
out. Each in a transaction; adding or taking out an event writes the event's history entry
(which also moves the event's version, so the series' standings are read again:
scoring/series.py)."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from scoring.models import Series, SeriesEvent
from tournament.history import claim, log_action, settle
from tournament.models import Event
from tournament.refusals import Refusal


class SeriesRefusal(Refusal):
    """A series' write the site will not make; the message says why."""


def _check_director(series: Series, event: Event | None, user) -> None:
    """``user`` directs the series (and the event); None is the site itself (a command)."""
    if user is None:
        return
    if not series.is_director(user):
        raise SeriesRefusal(_("Only the series' directors can change it."))
    if event is not None and not event.is_director(user):
        raise SeriesRefusal(
            _("Only the directors of %(event)s can add it to a series or take it out.")
            % {"event": event.name}
        )


@transaction.atomic
def create_series(series: Series, director, key: str | None = None) -> Series:
    """Save a new series (its settings already checked); its creator directs it.

    ``key``: the form's key (``tournament.history.claim``); a repeat of it answers with the
    series the first post created. A short name taken in the meantime is refused
    (``SeriesRefusal``), saving nothing.
    """
    earlier = claim(key, director)
    if earlier is not None:
        return Series.objects.get(pk=earlier.outcome["series"])
    try:
        with transaction.atomic():
            series.save(force_insert=True)
    except IntegrityError:
        raise SeriesRefusal(
            _("Another series already uses the short name %(slug)s.") % {"slug": series.slug}
        ) from None
    if director is not None:
        series.directors.add(director)
    settle(key, series=series.pk)
    return series


@transaction.atomic
def update_series(series: Series, user) -> Series:
    """Save a director's changes to a series' name, short name or rule (already checked)."""
    locked = Series.objects.select_for_update().get(pk=series.pk)
    _check_director(locked, None, user)
    try:
        with transaction.atomic():
            series.save()
    except IntegrityError:
        raise SeriesRefusal(
            _("Another series already uses the short name %(slug)s.") % {"slug": series.slug}
        ) from None
    return series


@transaction.atomic
def add_event(series: Series, event: Event, user) -> SeriesEvent:
    """Add ``event`` to ``series``. An event belongs to one series at most: one in another
    series is refused, naming it (``SeriesRefusal``); one already in this series stays as it
    is (a repeated post adds it once, writes no second entry). ``user`` must direct both the
    series and the event (None: the site itself, e.g. an import)."""
    event = event.locked()
    _check_director(series, event, user)
    entry = SeriesEvent.objects.filter(event=event).select_related("series").first()
    if entry is not None:
        if entry.series_id == series.pk:
            return entry
        raise SeriesRefusal(
            _("%(event)s is already in the series %(series)s: an event belongs to one series.")
            % {"event": event.name, "series": entry.series.name}
        )
    entry = SeriesEvent.objects.create(series=series, event=event)
    log_action(event, "series.event_added", user, series=series.name)
    return entry


@transaction.atomic
def remove_event(series: Series, event: Event, user) -> bool:
    """Take ``event`` out of ``series``; False when it was not in it (a repeat)."""
    event = event.locked()
    _check_director(series, event, user)
    removed, _deleted = SeriesEvent.objects.filter(series=series, event=event).delete()
    if removed:
        log_action(event, "series.event_removed", user, series=series.name)
    return bool(removed)
