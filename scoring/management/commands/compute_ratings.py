"""Compute the players' ratings from the whole history (scoring/services/ratings.py): what the
background task does after every change, here and now (a director, or cron)."""

from django.core.management import BaseCommand

from scoring.services.ratings import begin_asked, compute_ratings


class Command(BaseCommand):
    help = (
        "Compute every player's rating from every finished game of every event, and say what "
        "was done. Nothing is written when no finished game changed since the last computation."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--force", action="store_true", help="write the ratings even if nothing changed"
        )

    def handle(self, *args, force=False, **options):
        begin_asked()  # a request left waiting (a task lost) is answered here: the next asks again
        done = compute_ratings(force=force)
        what = "Ratings computed" if done.written else "Ratings unchanged"
        self.stdout.write(
            f"{what}: games rated {done.games}, players rated {done.people}, events "
            f"{done.events} ({done.seconds:.1f} s)."
        )
