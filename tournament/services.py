"""Writes of the tournament app: one function per director action, each in a transaction."""

from __future__ import annotations

import csv
import io
import random
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Max
from django.utils.text import slugify

from tournament.models import Event, Player, Seat, Stage, StageKind, Table
from tournament.seating import SeatingError, deal, table_sizes

DEFAULT_STAGES = [("Game 1", StageKind.QUALIFYING), ("Final", StageKind.FINAL)]


def unique_slug(name: str, date) -> str:
    base = slugify(f"{name} {date.year}")[:70] or "event"
    slug, n = base, 2
    while Event.objects.filter(slug=slug).exists():
        slug, n = f"{base}-{n}", n + 1
    return slug


@transaction.atomic
def create_event(event: Event, director) -> Event:
    """Save a new event with its default stages (Game 1, then Final); its creator directs it."""
    if not event.slug:
        event.slug = unique_slug(event.name, event.date)
    event.save()
    if director is not None:
        event.directors.add(director)
    for number, (name, kind) in enumerate(DEFAULT_STAGES, start=1):
        Stage.objects.create(event=event, number=number, name=name, kind=kind)
    return event


def _sizes_for(event: Event, count: int) -> list[int]:
    rules = event.rules
    sizes = table_sizes(count, rules.smallest_table, rules.largest_table, rules.table_size)
    cannot = sorted({s for s in sizes if not rules.can_deal(s)})
    if cannot:
        raise SeatingError(
            f"{count} players would need a table of {cannot[0]}, which this rule set cannot "
            "deal. Check in more players or change the tiles drawn."
        )
    return sizes


@transaction.atomic
def seat_stage(stage: Stage, players, *, keep_apart=None, rng: random.Random | None = None):
    """Seat ``players`` at balanced random tables, division by division; replaces any seating.

    Refused once a round has been entered at the stage.
    """
    from scoring.models import Round

    if Round.objects.filter(table__stage=stage).exists():
        raise SeatingError("Rounds have been entered at this stage: move players one by one.")
    players = list(players)
    by_division: dict[str, list[Player]] = {}
    for p in sorted(players, key=lambda p: p.pk):
        by_division.setdefault(p.division, []).append(p)
    plan = []
    for division in sorted(by_division):
        group = by_division[division]
        sizes = _sizes_for(stage.event, len(group))
        if stage.kind == StageKind.FINAL and len(sizes) > 1:
            raise SeatingError(
                f"The final is one table{' per division' if division else ''}: "
                f"{len(group)} players need {len(sizes)}. Close the previous stage to seat a "
                "semifinal first."
            )
        plan.extend(deal(group, sizes, keep_apart=keep_apart, rng=rng))
    Seat.objects.filter(stage=stage).delete()
    Table.objects.filter(stage=stage).delete()
    tables = Table.objects.bulk_create(
        Table(stage=stage, number=n) for n in range(1, len(plan) + 1)
    )
    Seat.objects.bulk_create(
        Seat(stage=stage, table=table, player=p, position=i)
        for table, seated in zip(tables, plan, strict=True)
        for i, p in enumerate(seated, start=1)
    )
    return tables


@transaction.atomic
def move_player(stage: Stage, player: Player, table: Table) -> Seat:
    """Move a seated player to another table of the same stage (before its rounds start)."""
    from scoring.models import Round

    if table.stage_id != stage.pk:
        raise SeatingError("That table is not in this stage.")
    seat = Seat.objects.select_for_update().filter(stage=stage, player=player).first()
    if seat is None:
        raise SeatingError(f"{player} is not seated in {stage.name}.")
    if seat.table_id == table.pk:
        return seat
    if Round.objects.filter(table_id__in=[seat.table_id, table.pk]).exists():
        raise SeatingError(
            "Rounds have been entered at one of these tables: a move would "
            "leave a player without scores."
        )
    rules = stage.event.rules
    left_behind = Seat.objects.filter(table_id=seat.table_id).count() - 1
    if left_behind and not rules.can_deal(left_behind):
        raise SeatingError(
            f"Table {seat.table.number} would be left with {left_behind} player"
            f"{'s' if left_behind > 1 else ''}, which this rule set cannot deal."
        )
    divisions = set(table.seats.values_list("player__division", flat=True))
    if divisions and divisions != {player.division}:
        raise SeatingError(f"Table {table.number} plays in another division than {player}.")
    new_size = table.seats.count() + 1
    if not rules.can_deal(new_size):
        raise SeatingError(
            f"Table {table.number} would seat {new_size}, which this rule set cannot deal."
        )
    last = table.seats.aggregate(m=Max("position"))["m"] or 0
    seat.table, seat.position = table, last + 1
    seat.save(update_fields=["table", "position"])
    return seat


@dataclass
class CsvResult:
    created: int = 0
    errors: list[str] | None = None


CSV_COLUMNS = {"name", "id", "club", "division"}


@transaction.atomic
def import_players_csv(event: Event, text: str) -> CsvResult:
    """Add players from CSV text (``name`` required; ``id``, ``club``, ``division`` optional).

    All or nothing: every bad row is reported with its line number and nothing is saved.
    """
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    header = [h.strip().lower() for h in (reader.fieldnames or [])]
    if "name" not in header:
        return CsvResult(
            errors=["Line 1: the header must have a 'name' column (optional: id, club, division)."]
        )
    unknown = [h for h in header if h not in CSV_COLUMNS]
    if unknown:
        return CsvResult(
            errors=[f"Line 1: unknown column '{unknown[0]}' (allowed: name, id, club, division)."]
        )
    reader.fieldnames = header
    taken = set(event.players.exclude(ref="").values_list("ref", flat=True))
    errors, players = [], []
    limits = {f: Player._meta.get_field(f).max_length for f in ("name", "ref", "club", "division")}
    for row in reader:
        line = reader.line_num
        if None in row:
            errors.append(f"Line {line}: more values than columns.")
            continue
        values = {k: (v or "").strip() for k, v in row.items()}
        values["ref"] = values.pop("id", "")
        if not values["name"]:
            errors.append(f"Line {line}: the name is empty.")
        for f, limit in limits.items():
            if len(values.get(f, "")) > limit:
                errors.append(f"Line {line}: the {f} is longer than {limit} characters.")
        if values["ref"]:
            if values["ref"] in taken:
                errors.append(f"Line {line}: id '{values['ref']}' is already used.")
            taken.add(values["ref"])
        players.append(Player(event=event, **values))
    if not players and not errors:
        errors.append("The file has no players.")
    if errors:
        return CsvResult(errors=errors)
    Player.objects.bulk_create(players)
    return CsvResult(created=len(players))


@transaction.atomic
def assign_scorekeeper(username: str, tables) -> tuple[object, str | None]:
    """Give ``tables`` to the scorekeeper ``username``; a new one gets a login.

    Returns the user and, for a new login, its password (shown once to the director).
    """
    import secrets

    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    user, created = get_user_model().objects.get_or_create(username=username)
    password = None
    if created:
        password = secrets.token_urlsafe(9)
        user.set_password(password)
        user.save()
        group, _ = Group.objects.get_or_create(name="Scorekeepers")
        user.groups.add(group)
    for table in tables:
        table.scorekeepers.add(user)
    return user, password
