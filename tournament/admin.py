from django.contrib import admin
from django.db import transaction

from tournament.history import changed
from tournament.models import ClockEvent, Event, Player, Seat, Stage, Table


class ChangesEventAdmin(admin.ModelAdmin):
    """An edit or deletion in the admin bumps the event's version like any write of the site
    (tournament/history.py), so no cached page shows the row as it was. ``event_of`` gives a
    row's event id."""

    event_of = None  # a static method of the row, set per model

    def _bump(self, objs) -> None:
        for event_id in {self.event_of(obj) for obj in objs}:
            changed(event_id)

    def save_model(self, request, obj, form, change):
        with transaction.atomic():
            if change:
                # What the site keeps itself (editable=False: the versions, the stored totals
                # of scoring.sheets.store_totals) is never written back as the form read it.
                fields = obj._meta.concrete_fields
                obj.save(update_fields=[f.name for f in fields if f.editable and not f.primary_key])
            else:
                super().save_model(request, obj, form, change)
            self._bump([obj])

    def delete_model(self, request, obj):
        with transaction.atomic():
            self._bump([obj])
            super().delete_model(request, obj)

    def delete_queryset(self, request, queryset):
        with transaction.atomic():
            self._bump(list(queryset))
            super().delete_queryset(request, queryset)

    def save_related(self, request, form, formsets, change):
        with transaction.atomic():
            super().save_related(request, form, formsets, change)
            self._bump([form.instance])


class StageInline(admin.TabularInline):
    model = Stage
    extra = 0
    fields = ["number", "name", "kind", "closed"]


@admin.register(Event)
class EventAdmin(ChangesEventAdmin):
    @staticmethod
    def event_of(obj):
        return obj.pk

    list_display = ["name", "date", "venue", "set_size", "game_minutes"]
    search_fields = ["name", "venue"]
    prepopulated_fields = {"slug": ["name"]}
    filter_horizontal = ["directors"]
    inlines = [StageInline]


@admin.register(Player)
class PlayerAdmin(ChangesEventAdmin):
    @staticmethod
    def event_of(obj):
        return obj.event_id

    list_display = ["name", "event", "ref", "club", "division", "checked_in"]
    list_filter = ["event", "checked_in", "division"]
    search_fields = ["name", "ref", "club"]


@admin.register(Stage)
class StageAdmin(ChangesEventAdmin):
    @staticmethod
    def event_of(obj):
        return obj.event_id

    list_display = ["name", "event", "number", "kind", "closed"]
    list_filter = ["event", "kind", "closed"]


@admin.register(Table)
class TableAdmin(ChangesEventAdmin):
    @staticmethod
    def event_of(obj):
        return obj.stage.event_id

    list_display = ["__str__", "stage", "number"]
    list_filter = ["stage__event"]
    filter_horizontal = ["scorekeepers"]


@admin.register(Seat)
class SeatAdmin(ChangesEventAdmin):
    @staticmethod
    def event_of(obj):
        return obj.stage.event_id

    list_display = ["player", "table", "stage", "position"]
    list_filter = ["stage__event", "stage"]
    list_select_related = ["player", "table__stage__event", "stage__event"]
    # Who sits at which table is the seating's (tournament/services/seating.py), which keeps
    # each seat's total with it: the admin does not seat a player nor move one.
    readonly_fields = ["stage", "table", "player"]

    def has_add_permission(self, request):
        return False


@admin.register(ClockEvent)
class ClockEventAdmin(ChangesEventAdmin):
    @staticmethod
    def event_of(obj):
        return obj.stage.event_id

    list_display = ["stage", "action", "at", "by"]
    list_filter = ["stage__event", "action"]
