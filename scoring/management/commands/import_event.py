"""Read an event file (formats/event-file.md) into the site as a new event."""

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management import BaseCommand, CommandError

from scoring.eventfile import EventFileError, import_event


class Command(BaseCommand):
    help = (
        "Create a new event from an event file and print its short name. All or nothing: a "
        "file with errors writes nothing, and every error is listed with its place in the file."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", metavar="FILE", help="the event file (JSON)")
        parser.add_argument(
            "--director", metavar="USERNAME", help="make this user a director of the new event"
        )

    def handle(self, *args, file, director=None, **options):
        user = None
        if director:
            user = get_user_model().objects.filter(username=director).first()
            if user is None:
                raise CommandError(f"No user is called {director!r}.")
        try:
            data = Path(file).read_bytes()
        except OSError as why:
            raise CommandError(f"Cannot read {file}: {why.strerror}.") from None
        try:
            event = import_event(data, director=user)
        except EventFileError as error:
            for line in error.errors:
                self.stderr.write(line)
            count = len(error.errors)
            raise CommandError(
                f"Nothing was imported: {count} error{'s' if count != 1 else ''} in {file}."
            ) from None
        self.stdout.write(event.slug)
