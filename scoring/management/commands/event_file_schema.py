"""Write the event file's JSON Schema (docs/event-file.schema.json) from its pydantic models.

    python manage.py event_file_schema [--check]

The schema is published for other tools that read or write event files; the models in
scoring/eventfile/schema.py are its one declaration. ``--check`` says whether the published
file is what the models give, without writing. Needs no database.
"""

from __future__ import annotations

from django.core.management import BaseCommand, CommandError

from scoring.eventfile.schema import SCHEMA_FILE, schema_text


class Command(BaseCommand):
    help = "Write the event file's JSON Schema (docs/event-file.schema.json) from its models."

    def add_arguments(self, parser):
        parser.add_argument(
            "--check", action="store_true", help="only say whether the file is what the models give"
        )

    def handle(self, *args, check, **options):
        new = schema_text()
        old = SCHEMA_FILE.read_text(encoding="utf-8") if SCHEMA_FILE.exists() else None
        if check:
            if new != old:
                raise CommandError(
                    f"{SCHEMA_FILE.name} is not what the models give: "
                    "run python manage.py event_file_schema."
                )
            self.stdout.write(f"{SCHEMA_FILE.name} is what the models give.")
            return
        SCHEMA_FILE.write_text(new, encoding="utf-8")
        self.stdout.write(self.style.SUCCESS(f"Wrote {SCHEMA_FILE}."))
