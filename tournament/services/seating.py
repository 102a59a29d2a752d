"""Seating a stage and moving a player: writes that must know whether rounds exist.

The arithmetic is tournament/game/seating.py's (plain Python); this module loads the rows, asks it
and saves the seating in one transaction.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Count, Max
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from tournament.game.finals import stage_tables
from tournament.game.formats import CUMULATIVE_FINAL
from tournament.game.message import Message
from tournament.game.seating import (
    DivisionsNotSeated,
    SeatingError,
    SizeNeeded,
    deal,
    rebalance,
    seatable_divisions,
    seeded,
    sizes_after_change,
    with_size_to_allow,
)
from tournament.history import claim, log_action, settle
from tournament.models import Event, Player, Seat, Stage, StageKind, Table
from tournament.services.signup import fill_places, mail_seated
from tournament.text import translated


def _played(tables) -> int:
    """The rounds entered at ``tables`` (scoring's rows, reached through each table: seating
    stands below scoring and never imports it)."""
    return tables.aggregate(n=Count("rounds"))["n"]


def _sizes_for(stage: Stage, count: int) -> list[int]:
    """Game 1 at balanced tables; a stage seated from advancers that one Final table holds
    (up to 6 or more with that option) at one table (tournament/game/finals.py). At the sizes
    the rule set lists, and the one a director allowed for the stage (``Stage.rules``); when
    they cannot seat everyone, the refusal names a size to allow (``SizeNeeded``)."""
    event, rules = stage.event, stage.rules
    try:
        if event.format.kind == CUMULATIVE_FINAL and stage.kind == StageKind.FINAL:
            if not rules.can_deal(count):
                raise SeatingError(
                    Message(
                        "A Final of %(n)s cannot be dealt at one table under this event's rules.",
                        n=count,
                    )
                )
            return [count]  # the cut's players, ties included while they can be dealt
        seeded = stage.kind != StageKind.QUALIFYING
        return stage_tables(count, rules, event.finals_options, seeded=seeded)
    except SeatingError as error:
        raise with_size_to_allow(error, count, rules, stage.title) from None


def allow_size(stage: Stage, size: int | None, user=None) -> None:
    """A director allows tables of ``size`` for ``stage`` (their players draw as
    ``RuleSet.tiles_for`` says), for the seating about to be drawn: kept with the stage, for
    its moves, withdrawals and late arrivals too. Nothing when ``size`` is None or listed."""
    if size is None:
        return
    rules = stage.event.rules
    if not rules.deals(size):
        raise SeatingError(
            _("A table of %(n)s players cannot be dealt under this event's rules.") % {"n": size}
        )
    # Read again under the event's lock (the caller's): another director may have allowed it.
    allowed = Stage.objects.filter(pk=stage.pk).values_list("allowed_size", flat=True).get()
    if rules.can_deal(size) or allowed == size:
        stage.allowed_size = allowed
        return
    stage.allowed_size = size
    Stage.objects.filter(pk=stage.pk).update(allowed_size=size)
    log_action(stage.event, "stage.size_allowed", user, stage=stage, size=size)


@dataclass
class Standbys:
    """What the first stage's draw did with the standbys (``take_standbys``): the names of
    those who took a no-show's place, of those left over (not seated), and the no-shows."""

    seated: list[str] = field(default_factory=list)
    left: list[str] = field(default_factory=list)
    no_shows: int = 0

    def outcome(self) -> dict:
        """For a form's key (``settle``): a repeat of the draw says the same."""
        return {"seated": self.seated, "left": self.left, "no_shows": self.no_shows}


@dataclass
class Draw:
    """A stage's draw: its tables, and why each division left out of it was (``seat_stage``'s
    ``leave_out``); for the first stage, what became of the standbys."""

    tables: list[Table]
    left_out: list[Message] = field(default_factory=list)
    size_to_allow: int | None = None  # a size that, allowed, would seat a division left out
    standbys: Standbys | None = None
    already: bool = False  # drawn meanwhile by another director: this draw changed nothing


def take_standbys(event: Event, user=None) -> Standbys:
    """Give the no-shows' places to the standbys, in order, before the first stage's draw
    (PRODUCT.md §14); called inside the draw's transaction, under the event's lock.

    The places are the event's capacity when it has one, else its registered players; those
    checked in take theirs, the standbys (checked in, ``PlayerQuerySet.standbys``: the waitlist
    in its order, then the walk-ons in the order added) take the rest and become registered,
    so the draw seats them; the standbys left over stay standby. A registered player not
    checked in is a no-show: not seated. Drawn again, the standbys already registered keep
    their place, and only places free again go to the next: the same call twice does the
    same as once."""
    counts = event.players.counts()
    places = event.signup_capacity if event.signup_capacity is not None else counts["registered"]
    free = max(places - counts["checked_in"], 0)
    standbys = list(event.players.standbys())  # the event's lock keeps them as read
    taking = standbys[:free]
    for player in taking:
        player.waiting = ""
        player.save(update_fields=["waiting"])
        log_action(event, "player.standby_seated", user, player=player.name)
    return Standbys(
        seated=[p.name for p in taking],
        left=[p.name for p in standbys[free:]],
        no_shows=counts["no_show"],
    )


def groups_of(players) -> dict[Player, str]:
    """Each player's keep-apart group, for those who have one."""
    return {p: p.keep_apart for p in players if p.keep_apart}


@transaction.atomic
def seat_stage(
    stage: Stage,
    players,
    *,
    keep_apart=None,
    rng: random.Random | None = None,
    user=None,
    key: str | None = None,
    leave_out: bool = False,
    arrange: Callable[[list[Player], list[int]], list[list[Player]]] | None = None,
    strength: Mapping[int, float] | None = None,
    allow: int | None = None,
    publish: bool = True,
) -> Draw:
    """Seat ``players`` at balanced random tables, division by division; replaces any seating.

    ``publish``: the seating is public at once (and its players told, ``mail_seated``); False
    makes it a draft, seen by the directors only until ``publish_seating`` (the seating page's
    draw, a stage seated from the close page: issue 49 item 4).

    Refused once a round has been entered at the stage, checked with the event and the
    stage's tables locked, so a round being saved at the same moment is either seen (and the
    draw refused) or waits and then finds its table gone (and is refused): none is lost.
    A repeat of the form's ``key`` answers with the tables of the first draw.

    ``leave_out``: a division that cannot be seated (one player alone in it) is left out of
    the draw, the others seated, and the draw says why; otherwise it refuses the whole draw.

    ``arrange``: how one division's players sit at tables of the sizes given, table 1 first (a
    cumulative event's reseating rule, tournament/game/reseating.py); by default a random deal
    keeping ``keep_apart`` apart.

    ``strength``: Game 1 seeded by rating (the event's option): each rated player's strength
    by their id, higher stronger, as the ratings (scoring's) give it; each division is dealt
    in a snake draft by strength, unrated players after the rated ones in a random order
    (tournament/game/seating.py ``seeded``). The history entry says how many were rated.

    ``allow``: a table size the rule set does not list, allowed for this stage by the
    director (``allow_size``) when the listed sizes cannot seat its players; the refusal of a
    draw that cannot seat them names such a size (``SizeNeeded``).
    """
    stage.event.locked()
    earlier = claim(key, user)
    if earlier is not None:
        return Draw(list(Table.objects.for_stage(stage)))
    list(Table.objects.select_for_update().filter(stage=stage))
    if _played(Table.objects.filter(stage=stage)):
        raise SeatingError(_("Rounds have been entered at this stage: move players one by one."))
    allow_size(stage, allow, user)
    players = list(players)
    by_division: dict[str, list[Player]] = {}
    for p in sorted(players, key=lambda p: p.pk):
        by_division.setdefault(p.division, []).append(p)
    groups = {division: len(by_division[division]) for division in sorted(by_division)}
    needed: list[int] = []  # the sizes that would seat a division that cannot be seated

    def sizes_for(count: int) -> list[int]:
        try:
            return _sizes_for(stage, count)
        except SizeNeeded as error:
            needed.append(error.size)
            raise

    if leave_out:
        try:
            sized, left_out = seatable_divisions(groups, sizes_for)
        except DivisionsNotSeated as error:
            error.size = needed[0] if needed else None
            raise
    else:
        sized, left_out = {d: _sizes_for(stage, count) for d, count in groups.items()}, []
    plan = []
    for division, sizes in sized.items():
        group = by_division[division]
        if stage.kind == StageKind.FINAL and len(sizes) > 1:
            raise SeatingError(
                (
                    _(
                        "The final is one table per division: %(n)s players need %(t)s. "
                        "Close the previous stage to seat a semifinal first."
                    )
                    if division
                    else _(
                        "The final is one table: %(n)s players need %(t)s. Close the previous "
                        "stage to seat a semifinal first."
                    )
                )
                % {"n": len(group), "t": len(sizes)}
            )
        if arrange is not None:
            plan.extend(arrange(group, sizes))
        elif strength is not None:
            by_pk = {p.pk: p for p in group}
            tables = seeded(list(by_pk), sizes, strength, rng=rng)
            plan.extend([by_pk[pk] for pk in table] for table in tables)
        else:
            # Game 1's draw keeps each keep-apart group (a household, a club) at different
            # tables where it can; a later stage keeps the tables it was given apart.
            apart = keep_apart if keep_apart is not None else groups_of(group)
            plan.extend(deal(group, sizes, keep_apart=apart or None, rng=rng))
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
    seeding = {}
    if strength is not None and arrange is None:
        drawn = [p.pk for table in plan for p in table]
        seeding = {"rated": sum(pk in strength for pk in drawn), "players": len(drawn)}
    stage.seating_draft = not publish
    Stage.objects.filter(pk=stage.pk).update(seating_draft=stage.seating_draft)
    log_action(stage.event, "stage.seated", user, stage=stage, tables=len(tables), **seeding)
    if publish:
        mail_seated(stage)
    settle(key, tables=len(tables))
    return Draw(tables, left_out, needed[0] if needed else None)


@transaction.atomic
def move_player(stage: Stage, player: Player, table: Table, user=None) -> Seat:
    """Move a seated player to another table of the same stage (before its rounds start)."""
    stage.event.locked()
    if table.stage_id != stage.pk:
        raise SeatingError(_("That table is not in this stage."))
    seat = Seat.objects.select_for_update().filter(stage=stage, player=player).first()
    if seat is None:
        raise SeatingError(_("%(p)s is not seated in %(s)s.") % {"p": player, "s": stage.title})
    if seat.table_id == table.pk:
        return seat
    if _played(Table.objects.filter(pk__in=[seat.table_id, table.pk])):
        raise SeatingError(
            _(
                "Rounds have been entered at one of these tables: a move would "
                "leave a player without scores."
            )
        )
    rules = stage.rules
    left_behind = Seat.objects.filter(table_id=seat.table_id).count() - 1
    if left_behind and not rules.can_deal(left_behind):
        raise SeatingError(
            ngettext(
                "Table %(t)s would be left with %(n)s player, which this rule set cannot deal.",
                "Table %(t)s would be left with %(n)s players, which this rule set cannot deal.",
                left_behind,
            )
            % {"t": seat.table.number, "n": left_behind}
        )
    divisions = set(table.seats.values_list("player__division", flat=True))
    if divisions and divisions != {player.division}:
        raise SeatingError(
            _("Table %(t)s plays in another division than %(p)s.")
            % {"t": table.number, "p": player}
        )
    new_size = table.seats.count() + 1
    if not rules.can_deal(new_size):
        raise SeatingError(
            _("Table %(t)s would seat %(n)s, which this rule set cannot deal.")
            % {"t": table.number, "n": new_size}
        )
    last = table.seats.aggregate(m=Max("position"))["m"] or 0
    seat.table, seat.position = table, last + 1
    seat.save(update_fields=["table", "position"])
    log_action(
        stage.event, "stage.player_moved", user, stage=stage, player=player.name, table=table.number
    )
    return seat


@transaction.atomic
def clear_seating(stage: Stage, user=None, key: str | None = None, reason: str = "") -> int:
    """Take back a stage's draw while no round has been entered (Game 1: its players are
    unseated, to be drawn again later), with a reason kept in the event's history; returns the
    number of tables removed."""
    if not reason.strip():
        raise SeatingError(_("Give the reason for removing the seating."))
    stage.event.locked()
    if claim(key, user) is not None:
        return 0
    if stage.kind != StageKind.QUALIFYING:
        raise SeatingError(
            _("A later stage is seated from the advancers: reopen the stage before it instead.")
        )
    list(Table.objects.select_for_update().filter(stage=stage))
    if _played(Table.objects.filter(stage=stage)):
        raise SeatingError(_("Rounds have been entered at this stage: its seating stays."))
    count = Table.objects.filter(stage=stage).count()
    if count:
        Seat.objects.filter(stage=stage).delete()
        Table.objects.filter(stage=stage).delete()
        log_action(stage.event, "stage.unseated", user, stage=stage, reason=reason, tables=count)
    stage.seating_draft = False  # nothing left to hide: the next draw makes a draft again
    Stage.objects.filter(pk=stage.pk).update(seating_draft=False)
    return count


# -- publishing (issue 49 item 4) -------------------------------------------------------------


class NothingToPublish(SeatingError):
    """Publish pressed for a stage with no seating."""


@transaction.atomic
def publish_seating(stage: Stage, user=None, key: str | None = None) -> bool:
    """A director publishes the stage's draft seating: the public pages, the hall screen and
    the API show it from now on, and each registrant seated who gave an e-mail is told their
    table. Exactly once: with the event locked, a second press (a double click, a second
    director) finds it published and changes nothing. Returns whether this press published."""
    stage.event.locked()
    if claim(key, user) is not None:
        return False
    published = publish_draft(stage, user)
    if not published and not Table.objects.filter(stage=stage).exists():
        raise NothingToPublish(
            _("%(s)s has no seating to publish: draw it first.") % {"s": stage.title}
        )
    settle(key, published=published)
    return published


def publish_draft(stage: Stage, user=None, because: str = "") -> bool:
    """Publish the stage's seating if it is a draft (inside the caller's transaction, the event
    locked): the Publish button, and a director who starts the stage's clock or enters its
    first round means it too (``because``: "clock", "round", said in the history). Returns
    whether it was a draft."""
    locked = Stage.objects.select_for_update().filter(pk=stage.pk, seating_draft=True).first()
    if locked is None:
        stage.seating_draft = False
        return False
    tables = Table.objects.filter(stage=locked).count()
    Stage.objects.filter(pk=stage.pk).update(seating_draft=False)
    stage.seating_draft = locked.seating_draft = False
    locked.event = stage.event
    log_action(stage.event, "stage.published", user, stage=locked, tables=tables, then=because)
    mail_seated(locked)
    return True


# -- the desk: withdrawals, no-shows and late arrivals ----------------------------------------


def _rebalance_stage(stage: Stage, division: str) -> int:
    """Bring a stage's tables of ``division`` back to balanced sizes, moving as few players as
    possible (before any round); returns the number of players moved."""
    Table.objects.filter(stage=stage, seats__isnull=True).delete()
    tables = list(
        Table.objects.for_stage(stage).filter(seats__player__division=division).distinct()
    )
    seats = {t.pk: list(t.seats.order_by("position")) for t in tables}
    seated = [seats[t.pk] for t in tables]
    count = sum(len(s) for s in seated)
    if count == 0:
        Table.objects.filter(pk__in=[t.pk for t in tables]).delete()
        return 0
    rules = stage.rules
    try:
        sizes = sizes_after_change(count, len(tables), rules.table_size, rules.dealable_sizes)
    except SeatingError as error:
        raise with_size_to_allow(error, count, rules, stage.title) from None
    plan = rebalance(seated, sizes)
    moved = 0
    for table, planned in zip(tables, plan, strict=True):
        if not planned:
            continue
        last = max((s.position for s in planned if s.table_id == table.pk), default=0)
        for seat in planned:
            if seat.table_id != table.pk:
                last += 1
                seat.table, seat.position = table, last
                seat.save(update_fields=["table", "position"])
                moved += 1
    emptied = [t.pk for t, planned in zip(tables, plan, strict=True) if not planned]
    Table.objects.filter(pk__in=emptied).delete()
    return moved


@transaction.atomic
def withdraw_player(player: Player, user=None, reason: str = "", key: str | None = None) -> str:
    """A player leaves the event (PRODUCT.md §3).

    Not seated yet: left out of every draw. Seated at a stage whose table has no round yet
    (a no-show at the start of Game 1): the seat is removed and the stage's tables rebalanced,
    keeping the others where they are as far as the sizes allow. Seated at a table that has
    played: the rounds played stay, the table plays on without them, and they can neither
    advance nor medal ("withdrew after round N"). Returns what happened, for the message.
    """
    event = player.event.locked()
    earlier = claim(key, user)
    if earlier is not None:
        return earlier.outcome.get("done", "")
    player = Player.objects.select_for_update().get(pk=player.pk)
    if player.withdrawn:
        return _("%(p)s had already withdrawn.") % {"p": player.name}
    if Seat.objects.filter(player=player).exists():
        done = _("%(p)s withdrew: out of every later stage and of the results.") % {
            "p": player.name
        }
    else:
        done = _("%(p)s withdrew before being seated.") % {"p": player.name}
    seats = Seat.objects.filter(player=player, stage__closed=False).select_related("table", "stage")
    for seat in seats:
        list(Table.objects.select_for_update().filter(stage=seat.stage))
        played = _played(Table.objects.filter(pk=seat.table_id))
        if played:
            seat.left_after = played
            seat.save(update_fields=["left_after"])
            done = _("%(p)s withdrew after round %(n)s of %(s)s; table %(t)s plays on.") % {
                "p": player.name,
                "n": played,
                "s": seat.stage.title,
                "t": seat.table.number,
            }
        elif _played(Table.objects.filter(stage=seat.stage)):
            # Other tables have started: this one's seat goes, its table stays as it is.
            seat.delete()
            done = _("%(p)s is removed from table %(t)s of %(s)s.") % {
                "p": player.name,
                "t": seat.table.number,
                "s": seat.stage.title,
            }
        elif seat.stage.kind in (StageKind.SEMIFINAL, StageKind.FINAL):
            # Seated from the advancers: the seat goes and nobody moves; the director calls
            # up the next advancer in their place, or keeps the seating (a lone finalist's
            # result stands), from the note on the event's home page.
            seat.delete()
            Table.objects.filter(stage=seat.stage, seats__isnull=True).delete()
            done = _(
                "%(p)s is removed from %(s)s. The next advancer can be called up in their "
                "place, or the seating kept (a finalist left alone wins by walkover): the note "
                "on the event's home page offers both."
            ) % {"p": player.name, "s": seat.stage.title}
        else:
            seat.delete()
            try:
                with transaction.atomic():
                    moved = _rebalance_stage(seat.stage, player.division)
            except SeatingError as why:
                # The others cannot be rebalanced at the sizes listed (12 at tables of 6 to 8
                # leave 11): the withdrawal stands, the tables stay as they are, and the
                # director is told what to do (allow a size for the stage, on its seating page).
                done = _(
                    "%(p)s is removed from table %(t)s of %(s)s; the tables stay as they are: "
                    "%(why)s"
                ) % {
                    "p": player.name,
                    "t": seat.table.number,
                    "s": seat.stage.title,
                    "why": translated(why),
                }
                continue
            done = ngettext(
                "%(p)s is removed from the seating of %(s)s; tables rebalanced "
                "(%(m)s player moved).",
                "%(p)s is removed from the seating of %(s)s; tables rebalanced "
                "(%(m)s players moved).",
                moved,
            ) % {"p": player.name, "s": seat.stage.title, "m": moved}
    player.withdrawn = True
    player.save(update_fields=["withdrawn"])
    log_action(event, "player.withdrew", user, reason=reason, player=player.name)
    promoted = fill_places(event, user)  # before the draw: the waitlist's first take the place
    if promoted:
        done = ngettext(
            "%(done)s %(names)s takes the place, from the waitlist.",
            "%(done)s %(names)s take the places, from the waitlist.",
            len(promoted),
        ) % {"done": done, "names": ", ".join(p.name for p in promoted)}
    settle(key, done=str(done))
    return str(done)


@transaction.atomic
def reinstate_player(player: Player, user=None) -> None:
    """Take back a withdrawal made by mistake: the player is drawn again, and a seat that
    kept their rounds plays on with them."""
    event = player.event.locked()
    player = Player.objects.select_for_update().get(pk=player.pk)
    if not player.withdrawn:
        return
    Seat.objects.filter(player=player, stage__closed=False).update(left_after=None)
    player.withdrawn = False
    player.save(update_fields=["withdrawn"])
    log_action(event, "player.reinstated", user, player=player.name)


@transaction.atomic
def seat_late_arrival(
    stage: Stage, player: Player, table: Table, user=None, key: str | None = None
) -> Seat:
    """A late player joins ``table`` at its next round (the event's late-arrival rule): each
    round the table played before scores the table's highest score of that round."""
    event = stage.event.locked()
    earlier = claim(key, user)
    if earlier is not None:
        return Seat.objects.get(pk=earlier.outcome["seat"])
    if table.stage_id != stage.pk or stage.closed:
        raise SeatingError(_("That table is not in this open stage."))
    player = Player.objects.select_for_update().get(pk=player.pk)
    if player.withdrawn:
        raise SeatingError(_("%(p)s has withdrawn.") % {"p": player.name})
    if Seat.objects.filter(stage=stage, player=player).exists():
        raise SeatingError(_("%(p)s is already seated in %(s)s.") % {"p": player, "s": stage.title})
    table = Table.objects.select_for_update().get(pk=table.pk)
    played = _played(Table.objects.filter(pk=table.pk))
    if played and not event.late_arrivals:
        raise SeatingError(
            _("Table %(t)s has started and this event does not let late arrivals join.")
            % {"t": table.number}
        )
    if table.game_over_after is not None or played >= len(event.rules.engines):
        raise SeatingError(_("Table %(t)s's game is over.") % {"t": table.number})
    divisions = set(table.seats.values_list("player__division", flat=True))
    if divisions and divisions != {player.division}:
        raise SeatingError(
            _("Table %(t)s plays in another division than %(p)s.")
            % {"t": table.number, "p": player}
        )
    size = table.seats.filter(left_after__isnull=True).count() + 1
    if not stage.rules.can_deal(size):
        raise SeatingError(
            _("Table %(t)s would seat %(n)s, which this rule set cannot deal.")
            % {"t": table.number, "n": size}
        )
    last = table.seats.aggregate(m=Max("position"))["m"] or 0
    seat = Seat.objects.create(
        stage=stage,
        table=table,
        player=player,
        position=last + 1,
        joined_at=played + 1 if played else None,
    )
    # A standby, a registrant on the waitlist or one awaiting approval whom the director seats
    # is a registered player from now on (issue 49 item 2).
    player.checked_in, player.waiting = True, ""
    player.save(update_fields=["checked_in", "waiting"])
    log_action(
        event,
        "stage.late_arrival",
        user,
        stage=stage,
        player=player.name,
        table=table.number,
        round=played + 1,
    )
    settle(key, seat=seat.pk)
    return seat
