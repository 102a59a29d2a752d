from django.contrib import admin

from scoring.models import Round, Score, ScoreChange


class ScoreInline(admin.TabularInline):
    model = Score
    extra = 0


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin):
    list_display = ["__str__", "engine", "entered_by", "entered_at"]
    list_filter = ["table__stage__event"]
    inlines = [ScoreInline]


@admin.register(Score)
class ScoreAdmin(admin.ModelAdmin):
    list_display = ["player", "round", "pips"]
    list_select_related = ["player", "round__table__stage__event"]


@admin.register(ScoreChange)
class ScoreChangeAdmin(admin.ModelAdmin):
    list_display = ["player", "round", "old_pips", "new_pips", "reason", "changed_by",
                    "changed_at"]
    readonly_fields = [f.name for f in ScoreChange._meta.fields]
