"""Make the site ready for a newcomer: the roles, a director login and a demo event."""

import secrets

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.core.management import BaseCommand, call_command

ROLES = {
    "Directors": ["tournament.add_event"],
    "Scorekeepers": [],
}


def ensure_roles():
    for name, perms in ROLES.items():
        group, _ = Group.objects.get_or_create(name=name)
        for perm in perms:
            app, codename = perm.split(".")
            group.permissions.add(
                Permission.objects.get(content_type__app_label=app, codename=codename)
            )


class Command(BaseCommand):
    help = "Create the roles, a 'director' login (password printed once) and the demo event."

    def add_arguments(self, parser):
        parser.add_argument("--no-demo", action="store_true", help="Skip the demo event.")

    def handle(self, *args, no_demo=False, **options):
        ensure_roles()
        User = get_user_model()
        director = User.objects.filter(username="director").first()
        if director is None:
            password = secrets.token_urlsafe(9)
            director = User.objects.create_user("director", password=password)
            director.groups.add(Group.objects.get(name="Directors"))
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
