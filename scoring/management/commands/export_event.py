"""Write an event as an event file (formats/event-file.md)."""

from pathlib import Path

from django.core.management import BaseCommand, CommandError

from scoring.eventfile import dumps, export_event
from tournament.models import Event


class Command(BaseCommand):
    help = "Write the event file of EVENT (its short name in links) to FILE, or to the screen."

    def add_arguments(self, parser):
        parser.add_argument("event", metavar="EVENT", help="the event's short name (slug)")
        parser.add_argument("-o", "--output", metavar="FILE", help="write the file here")

    def handle(self, *args, event, output=None, **options):
        found = Event.objects.filter(slug=event).first()
        if found is None:
            raise CommandError(f"No event has the short name {event!r}.")
        text = dumps(export_event(found))
        if output:
            Path(output).write_text(text, encoding="utf-8")
            self.stderr.write(f"{found.name} written to {output}.")
        else:
            self.stdout.write(text, ending="")
