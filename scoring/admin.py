from django.contrib import admin

from scoring.models import Infraction, Round, Score, ScoreChange
from scoring.services.rounds import delete_in_admin
from tournament.admin import ChangesEventAdmin


class ReadOnlyAdmin(ChangesEventAdmin):
    """Scores are written by scoring/services/rounds.py only: the admin shows them, it does not
    edit."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class KeepsTotalsAdmin(ReadOnlyAdmin):
    """A round or a score deleted in the admin: its table's stored totals are worked out again
    in the same transaction (scoring.services.rounds.delete_in_admin). ``table_of`` gives a
    row's table id."""

    table_of = None  # a static method of the row, set per model

    def delete_model(self, request, obj):
        self.delete_queryset(request, type(obj).objects.filter(pk=obj.pk))

    def delete_queryset(self, request, queryset):
        delete_in_admin(queryset, self.event_of, self.table_of)


class ScoreInline(admin.TabularInline):
    model = Score
    extra = 0

    has_add_permission = ReadOnlyAdmin.has_add_permission
    has_change_permission = ReadOnlyAdmin.has_change_permission


@admin.register(Round)
class RoundAdmin(KeepsTotalsAdmin):
    @staticmethod
    def event_of(obj):
        return obj.table.stage.event_id

    @staticmethod
    def table_of(obj):
        return obj.table_id

    list_display = ["__str__", "engine", "entered_by", "entered_at"]
    list_filter = ["table__stage__event"]
    inlines = [ScoreInline]


@admin.register(Score)
class ScoreAdmin(KeepsTotalsAdmin):
    @staticmethod
    def event_of(obj):
        return obj.round.table.stage.event_id

    @staticmethod
    def table_of(obj):
        return obj.round.table_id

    list_display = ["player", "round", "pips"]
    list_select_related = ["player", "round__table__stage__event"]


@admin.register(ScoreChange)
class ScoreChangeAdmin(ReadOnlyAdmin):
    @staticmethod
    def event_of(obj):
        return obj.round.table.stage.event_id

    list_display = ["player", "round", "old_pips", "new_pips", "reason", "changed_by", "changed_at"]


@admin.register(Infraction)
class InfractionAdmin(ReadOnlyAdmin):
    @staticmethod
    def event_of(obj):
        return obj.table.stage.event_id

    list_display = ["player", "table", "engine", "kind", "action", "logged_by", "logged_at"]
    list_filter = ["table__stage__event", "kind", "action"]
