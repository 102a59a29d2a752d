from functools import partial

from django.contrib import admin

from tournament.models import ClockEvent, Event, Player, Seat, Stage, Table
from tournament.services import admin as writes


class ChangesEventAdmin(admin.ModelAdmin):
    """An edit or deletion in the admin bumps the event's version like any write of the site,
    through tournament/services/admin.py. ``event_of`` gives a row's event id."""

    event_of = None  # a static method of the row, set per model

    def save_model(self, request, obj, form, change):
        writes.save_row(obj, change, self.event_of)

    def delete_model(self, request, obj):
        writes.delete_row(obj, self.event_of)

    def delete_queryset(self, request, queryset):
        writes.delete_rows(queryset, self.event_of)

    def save_related(self, request, form, formsets, change):
        save = partial(super().save_related, request, form, formsets, change)
        writes.save_related(save, form.instance, self.event_of)


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
