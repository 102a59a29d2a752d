from django.contrib import admin

from tournament.models import ClockEvent, Event, Player, Seat, Stage, Table


class StageInline(admin.TabularInline):
    model = Stage
    extra = 0
    fields = ["number", "name", "kind", "closed"]


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    list_display = ["name", "date", "venue", "set_size", "game_minutes"]
    search_fields = ["name", "venue"]
    prepopulated_fields = {"slug": ["name"]}
    filter_horizontal = ["directors"]
    inlines = [StageInline]


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ["name", "event", "ref", "club", "division", "checked_in"]
    list_filter = ["event", "checked_in", "division"]
    search_fields = ["name", "ref", "club"]


@admin.register(Stage)
class StageAdmin(admin.ModelAdmin):
    list_display = ["name", "event", "number", "kind", "closed"]
    list_filter = ["event", "kind", "closed"]


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ["__str__", "stage", "number"]
    list_filter = ["stage__event"]
    filter_horizontal = ["scorekeepers"]


@admin.register(Seat)
class SeatAdmin(admin.ModelAdmin):
    list_display = ["player", "table", "stage", "position"]
    list_filter = ["stage__event", "stage"]
    list_select_related = ["player", "table__stage__event", "stage__event"]


@admin.register(ClockEvent)
class ClockEventAdmin(admin.ModelAdmin):
    list_display = ["stage", "action", "at", "by"]
    list_filter = ["stage__event", "action"]
