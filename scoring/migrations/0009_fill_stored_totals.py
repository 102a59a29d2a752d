"""Fill the stored totals (tournament 0013) of the rounds already entered: what
scoring.sheets.store_totals keeps from now on, worked out once for every table."""

from django.db import migrations
from django.db.models import Count, OuterRef, Subquery, Sum
from django.db.models.functions import Coalesce


def fill(apps, schema_editor):
    Score = apps.get_model("scoring", "Score")
    Round = apps.get_model("scoring", "Round")
    Seat = apps.get_model("tournament", "Seat")
    Table = apps.get_model("tournament", "Table")
    summed = (
        Score.objects.filter(round__table_id=OuterRef("table_id"), player_id=OuterRef("player_id"))
        .order_by()
        .values("player_id")
        .annotate(total=Sum("pips"))
        .values("total")
    )
    Seat.objects.update(pips_entered=Coalesce(Subquery(summed), 0))
    rounds = Round.objects.filter(table_id=OuterRef("pk")).order_by().values("table_id")
    Table.objects.update(
        rounds_played=Coalesce(Subquery(rounds.annotate(n=Count("pk")).values("n")), 0),
        rounds_awaiting=Coalesce(
            Subquery(rounds.filter(awaiting_confirmation=True).annotate(n=Count("pk")).values("n")),
            0,
        ),
    )


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0008_import_jobs"),
        ("tournament", "0013_stored_totals"),
    ]

    operations = [migrations.RunPython(fill, migrations.RunPython.noop)]
