from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tournament", "0026_table_clock_added"),
    ]

    operations = [
        migrations.AddField(
            model_name="stage",
            name="seating_draft",
            field=models.BooleanField(default=False, verbose_name="seating is a draft"),
        ),
        migrations.AddField(
            model_name="event",
            name="results_held",
            field=models.BooleanField(
                default=False,
                help_text=(
                    'Standings, results, medals and the bracket say "not published yet" to '
                    'players and spectators until a director presses "Release results". '
                    "Directors and the ceremony see everything."
                ),
                verbose_name="hold standings and results until I release them",
            ),
        ),
    ]
