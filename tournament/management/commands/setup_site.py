"""Make the site ready for a newcomer: the roles, a director login and a demo event."""

from django.core.management import BaseCommand, call_command

from tournament.services.accounts import ensure_roles, make_director


class Command(BaseCommand):
    help = "Create the roles, a 'director' login (password printed once) and the demo event."

    def add_arguments(self, parser):
        parser.add_argument("--no-demo", action="store_true", help="Skip the demo event.")

    def handle(self, *args, no_demo=False, **options):
        ensure_roles()
        password = make_director("director")
        if password is not None:
            self.stdout.write(
                self.style.SUCCESS(
                    f"Director login created: user 'director', password '{password}'"
                )
            )
        else:
            self.stdout.write(
                "Director login: user 'director' (password as printed when it "
                "was created; `manage.py changepassword director` resets it)"
            )
        if not no_demo:
            call_command("load_demo", stdout=self.stdout)
