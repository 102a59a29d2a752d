"""Every write of the site goes through a service (issue 29 item 2): the modules of
``tournament/`` and ``scoring/`` are read (their syntax, not run) for writes to the database
outside the places that write: the services, the event file's reader and writer, the
history's own store and the migrations. A write found elsewhere fails, unless it is on the
short list below with its reason.

What counts as a write, by its syntax:

- ``x.save()``, ``x.delete()`` (no positional argument: a model's, not a workbook's ``save(out)``
  nor the cache's ``delete(key)``); ``form.save(commit=False)`` writes nothing;
- ``x.create(name=...)`` (keywords only: a manager's, related managers included);
- ``update(...)``, ``create(...)`` or ``delete(...)`` on a manager or a query set
  (``Model.objects...``, ``....filter(...)``): not a dict's ``update``;
- ``bulk_create``, ``bulk_update``, ``get_or_create``, ``update_or_create``, ``create_user``,
  ``create_superuser``, and ``select_for_update`` (a lock is taken to write);
- ``transaction.atomic`` (a transaction is opened to write).

Not checked: many-to-many ``add``/``remove``/``set``/``clear`` (a set's own ``add`` reads
the same), a query set's ``update`` through a plain name (``tables.update(...)``). Sessions
(the registration list a director is previewing, the hall's log-in steps) and Django's cache
(public pages' fragments, the archive's medals) are a browser's or a page's, not the event's
data: they are written where they are used, and none of the forms above writes them.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APPS = ("tournament", "scoring")

# The places that write.
WRITERS = (
    "tournament/services/",
    "scoring/services/",
    "scoring/eventfile/",  # the event file's writer (a new event, all of it, in one transaction)
    "tournament/history.py",  # the history's own store: versions, entries, once-only forms
)

# A write outside them, and why it stays: (module, what) -> reason.
ALLOWED = {
    ("tournament/models.py", "select_for_update"): (
        "Event.locked(): the event's row lock, which every service takes first, kept with the model"
    ),
}

ALWAYS = {
    "bulk_create",
    "bulk_update",
    "get_or_create",
    "update_or_create",
    "create_user",
    "create_superuser",
    "select_for_update",
}
QUERY_SETS = {
    "objects",
    "filter",
    "exclude",
    "all",
    "none",
    "order_by",
    "select_related",
    "prefetch_related",
    "annotate",
    "distinct",
    "using",
    "select_for_update",
}


def _receiver(node: ast.expr) -> list[str]:
    """The attributes and methods a call's receiver goes through, last first:
    ``Player.objects.filter(...)`` gives ["filter", "objects", "Player"]."""
    names = []
    while True:
        if isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Attribute):
            names.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Name):
            names.append(node.id)
            return names
        else:
            return names


def _write(call: ast.Call) -> str | None:
    """What ``call`` writes, by its syntax (see the module's docstring), or None."""
    if not isinstance(call.func, ast.Attribute):
        return None
    method, receiver = call.func.attr, _receiver(call.func.value)
    keywords = {k.arg: k.value for k in call.keywords}
    if method in ALWAYS:
        return method
    if method in {"update", "create", "delete"} and QUERY_SETS & set(receiver):
        return method
    if method in {"save", "delete"} and not call.args:
        commit = keywords.get("commit")
        if isinstance(commit, ast.Constant) and commit.value is False:
            return None
        return method
    if method == "create" and not call.args and call.keywords:
        return method
    return None


def writes_in(source: str) -> list[tuple[int, str]]:
    """The writes of a module's source: (line, what)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and (what := _write(node)):
            found.append((node.lineno, what))
        elif isinstance(node, ast.Attribute) and node.attr == "atomic":
            found.append((node.lineno, "atomic"))
        elif isinstance(node, ast.ImportFrom) and any(a.name == "atomic" for a in node.names):
            found.append((node.lineno, "atomic"))
    return sorted(found)


def _modules():
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            if "/migrations/" in name or name.startswith(WRITERS):
                continue
            yield name, path


def writes_outside_services() -> dict[tuple[str, str], list[int]]:
    found: dict[tuple[str, str], list[int]] = {}
    for name, path in _modules():
        for line, what in writes_in(path.read_text(encoding="utf-8")):
            found.setdefault((name, what), []).append(line)
    return found


def test_every_write_of_the_site_is_in_a_service():
    found = writes_outside_services()
    stray = [
        f"{name}:{line}: {what}"
        for (name, what), lines in sorted(found.items())
        if (name, what) not in ALLOWED
        for line in lines
    ]
    assert not stray, "Writes outside the services (move them into one):\n" + "\n".join(stray)


def test_each_write_allowed_outside_the_services_is_still_there():
    found = writes_outside_services()
    assert [entry for entry in ALLOWED if entry not in found] == []


def test_the_check_finds_each_kind_of_write():
    source = """
from django.db import transaction
from django.db.transaction import atomic

def view(request, player, form, ctx, book, out, cache):
    player.save()
    player.save(update_fields=["name"])
    player.delete()
    Player.objects.create(name="x")
    player.event.players.create(name="y")
    Player.objects.filter(pk=1).update(name="z")
    Player.objects.filter(pk=1).delete()
    Player.objects.bulk_create([])
    Player.objects.get_or_create(name="x")
    Player.objects.select_for_update().get(pk=1)
    with transaction.atomic():
        pass
    form.save(commit=False)
    ctx.update(player=player)
    ctx.setdefault("a", set()).update({1})
    book.save(out)
    cache.delete("key")
    return Player.objects.filter(pk=1).first()
"""
    assert writes_in(source) == [
        (3, "atomic"),
        (6, "save"),
        (7, "save"),
        (8, "delete"),
        (9, "create"),
        (10, "create"),
        (11, "update"),
        (12, "delete"),
        (13, "bulk_create"),
        (14, "get_or_create"),
        (15, "select_for_update"),
        (16, "atomic"),
    ]


def test_a_module_that_writes_outside_the_services_fails_the_check(tmp_path, monkeypatch):
    app = tmp_path / "scoring"
    (app / "services").mkdir(parents=True)
    (app / "views").mkdir()
    (app / "services" / "rounds.py").write_text("def record(r):\n    r.save()\n")
    (app / "views" / "entry.py").write_text("def post(r):\n    r.save()\n")
    monkeypatch.setattr(__import__(__name__, fromlist=["ROOT"]), "ROOT", tmp_path)
    assert writes_outside_services() == {("scoring/views/entry.py", "save"): [2]}
