"""The site's roles and its first director login (``manage.py setup_site``); a scorekeeper's
login is made with their tables (tournament/services/events.py, ``assign_scorekeeper``)."""

from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.db import transaction

ROLES = {
    "Directors": ["tournament.add_event", "scoring.add_series"],
    "Scorekeepers": [],
}


@transaction.atomic
def ensure_roles() -> None:
    """The roles' groups and their permissions, made when missing."""
    for name, perms in ROLES.items():
        group, _ = Group.objects.get_or_create(name=name)
        for perm in perms:
            app, codename = perm.split(".")
            group.permissions.add(
                Permission.objects.get(content_type__app_label=app, codename=codename)
            )


@transaction.atomic
def make_director(username: str = "director") -> str | None:
    """A director login ``username`` with a new password, returned to be shown once; None
    when the login is there already (its password is left as it is)."""
    User = get_user_model()
    if User.objects.filter(username=username).exists():
        return None
    password = secrets.token_urlsafe(9)
    director = User.objects.create_user(username, password=password)
    director.groups.add(Group.objects.get(name="Directors"))
    return password
