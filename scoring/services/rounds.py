"""Every write of a score goes through here, one function per user action, in a transaction."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Count, OuterRef, QuerySet, Subquery, Sum
from django.db.models.functions import Coalesce
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from scoring.models import Round, Score, ScoreChange
from scoring.sheets import table_sheet
from tournament.clock import entry_after_time
from tournament.game.rules import RoundErrors, round_errors
from tournament.history import claim, log_action, settle
from tournament.models import Event, Seat, StageKind, Table
from tournament.refusals import Refusal
from tournament.services.admin import IdOf, delete_rows
from tournament.services.seating import publish_draft
from tournament.text import semicolons, translated


class RoundRejected(Refusal):
    """The round was not saved; ``errors`` says which field is wrong and why."""

    def __init__(self, errors: RoundErrors):
        super().__init__(semicolons(self.reasons(errors)))
        self.errors = errors

    @staticmethod
    def reasons(errors: RoundErrors) -> list[str]:
        return errors.whole + [m for ms in errors.fields.values() for m in ms]

    def texts(self) -> list[str]:
        """Each reason apart (the whole round's, then each player's), as a page shows them."""
        return self.reasons(self.errors)


class RoundTaken(RoundRejected):
    """The form was for a round that another device has saved meanwhile: ``saved`` is it."""

    def __init__(self, saved: Round):
        message = _(
            "Round %(e)s-%(e)s was saved meanwhile from another device: the form was not saved."
        ) % {"e": saved.engine}
        super().__init__(RoundErrors(whole=[message]))
        self.saved = saved


def lock_table(table: Table) -> Table:
    """Lock the event, then the table row: one write at a time per event, in one order (a
    round, an infraction, a phone's report). The table read again, with its stage and event.

    A table that no longer exists (the stage's seating was drawn again) refuses the write.
    """
    table.stage.event.locked()
    try:
        return Table.objects.select_for_update().select_related("stage__event").get(pk=table.pk)
    except Table.DoesNotExist:
        raise RoundRejected(
            RoundErrors(whole=[_("This table's seating was drawn again: reload the page.")])
        ) from None


def _check(sheet, engine: int, pips: dict[int, object], number: int) -> dict[int, int]:
    """The round's pips, checked: one for every player who plays round ``number`` (not a late
    arrival before they joined, nor a player after they withdrew)."""
    seated = {p.pk for p in sheet.playing(number)}
    found = round_errors(sheet.rules, engine, pips)
    errors = RoundErrors(  # in the reader's language
        {key: [translated(m) for m in messages] for key, messages in found.fields.items()},
        [translated(m) for m in found.whole],
    )
    if set(pips) != seated:
        errors.whole.append(_("Enter a pip count for every player seated at the table."))
    if errors:
        raise RoundRejected(errors)
    return {pid: int(v) for pid, v in pips.items()}


def _refuse(message: str) -> RoundRejected:
    return RoundRejected(RoundErrors(whole=[message]))


def store_totals(tables: QuerySet[Table]) -> None:
    """Keep what the summaries read, for ``tables``: each seat's sum of the pips entered for
    its player (``Seat.pips_entered``) and each table's rounds entered and awaiting
    confirmation (``Table.rounds_played``, ``rounds_awaiting``), worked out again from the
    rounds as they stand. Called in the transaction of every write of a round or a score (the
    event locked: one write at a time), so a stored total is never older than its sheet, and a
    page of 1,000 players reads 1,000 totals, not a sum over 13,000 pip counts. The tests
    check after each of them that every stored total is right (tests/conftest.py)."""
    summed = (
        Score.objects.filter(round__table_id=OuterRef("table_id"), player_id=OuterRef("player_id"))
        .order_by()
        .values("player_id")
        .annotate(total=Sum("pips"))
        .values("total")
    )
    Seat.objects.filter(table__in=tables).update(pips_entered=Coalesce(Subquery(summed), 0))
    rounds = Round.objects.filter(table_id=OuterRef("pk")).order_by().values("table_id")
    counted = rounds.annotate(n=Count("pk")).values("n")
    waiting = rounds.filter(awaiting_confirmation=True).annotate(n=Count("pk")).values("n")
    tables.update(
        rounds_played=Coalesce(Subquery(counted), 0),
        rounds_awaiting=Coalesce(Subquery(waiting), 0),
    )


@transaction.atomic
def record_round(
    table: Table,
    pips: dict[int, object],
    user,
    engine: int | None = None,
    *,
    number: int | None = None,
    key: str | None = None,
    played_before_call: bool = False,
    last: bool = False,
    device: str = "",
    entered: dict | None = None,
) -> Round:
    """Save the next round of ``table``: a pip count for every seated player, all or nothing.

    Exactly once: ``key`` is the form's key, made when its page was drawn; a repeat of it (a
    double click, a retry after a dropped connection) answers with the round it saved.
    ``number`` and ``engine`` are the round the page showed; when another device saved that
    round meanwhile, the form is refused (``RoundTaken``) rather than filed under the next one.
    Once time is called, rounds are still accepted until the table's game is marked over
    (``last``: this round is the table's last); one more than a round past what was typed
    before the call needs ``played_before_call`` (PRODUCT.md §5, ``rules.confirm_after_time``).
    ``device``: saved from a player's phone (scoring/services/table_entry.py), the round awaits
    a second player's confirmation; ``entered``: what else the round records of the phone (its
    player and fingerprint, scoring.services.table_entry.Phone.entered).
    """
    table = lock_table(table)
    earlier = claim(key, user)
    if earlier is not None:
        saved = Round.objects.filter(pk=earlier.outcome.get("round")).first()
        if saved is None:
            raise _refuse(_("This round was saved, then removed by a director."))
        return saved
    sheet = table_sheet(table)
    if table.stage.closed:
        raise _refuse(_("This stage is closed."))
    if number is not None and number <= len(sheet.rounds):
        raise RoundTaken(Round.objects.select_related("entered_by").get(table=table, number=number))
    if number is not None and number != len(sheet.rounds) + 1:
        raise _refuse(
            _("This page is out of date: the next round is round %(n)s. Reload it.")
            % {"n": len(sheet.rounds) + 1}
        )
    next_engine = sheet.next_engine
    if next_engine is None:
        raise _refuse(game_over_message(sheet))
    after_time = entry_after_time(sheet)
    if after_time is None and last:
        raise _refuse(_("A game is marked over only once time has been called."))
    if after_time is not None and after_time.needs_confirmation and not played_before_call:
        raise _refuse(
            _(
                "Time was called after round %(before)s had been typed: confirm that round "
                "%(n)s was played before the call."
            )
            % {"before": after_time.typed_before, "n": after_time.typed + 1}
        )
    if sheet.is_playoff:
        # A playoff is one round with the engine the director picks (default the highest).
        next_engine = next_engine if engine is None else engine
        if not 0 <= next_engine <= sheet.rules.set:
            raise _refuse(
                _("The engine must be a double of the set, 0 to %(set)s.")
                % {"set": sheet.rules.set}
            )
    elif engine is not None and engine != next_engine:
        raise _refuse(
            _(
                "Round %(e)s-%(e)s has already been entered; the next round is %(n)s-%(n)s. "
                "Reload the page."
            )
            % {"e": engine, "n": next_engine}
        )
    clean = _check(sheet, next_engine, pips, len(sheet.rounds) + 1)
    saved = Round.objects.create(
        table=table,
        number=len(sheet.rounds) + 1,
        engine=next_engine,
        entered_by=user,
        awaiting_confirmation=bool(device),
        entered_device=device,
        **(entered or {}),
    )
    Score.objects.bulk_create(Score(round=saved, player_id=pid, pips=v) for pid, v in clean.items())
    store_totals(Table.objects.filter(pk=table.pk))
    if table.stage.seating_draft:  # a round entered at a draft: play has started, it is public
        publish_draft(table.stage, user, because="round")
    log_action(
        table.stage.event,
        "round.saved",
        user,
        stage=table.stage,
        table=table.number,
        engine=saved.engine,
        pips={_name(sheet, pk): v for pk, v in clean.items()},
        **({"device": device} if device else {}),
        **_phone_of(entered),
    )
    if last:
        _mark_over(table, saved.number, user)
    settle(key, round=saved.pk)
    if sheet.is_playoff and not device:  # a phone's playoff round decides once confirmed
        from scoring.services.stages import settle_playoff

        settle_playoff(table.stage)
    return saved


def _name(sheet, player_id: int) -> str:
    """A player's name as the history keeps it (their pips by name, in seat order)."""
    return next((p.name for p in sheet.players if p.pk == player_id), str(player_id))


def game_over_message(sheet) -> str:
    if sheet.marked_over:
        # Rounds are named by their engine, as the sheet names them (issue 28 items 12, 13).
        after = sheet.table.game_over_after
        last = next((r for r in sheet.rounds if r.number == after), None)
        if last is None:
            return _("This table's game was marked over before its first round.")
        return _("Game over after round %(e)s-%(e)s (time called).") % {"e": last.engine}
    return _("Every round of this table has been entered: the game is over.")


def _phone_of(entered: dict | None) -> dict:
    """The history's word for a phone's round: the player who said they hold it."""
    player = (entered or {}).get("entered_player")
    return {"phone": player.name} if player is not None else {}


def _mark_over(table: Table, after_round: int, user) -> None:
    table.game_over_after = after_round
    table.save(update_fields=["game_over_after"])
    last = Round.objects.filter(table=table, number=after_round).values_list("engine", flat=True)
    named = {"engine": last[0]} if last else {}  # the history names it by its engine
    log_action(
        table.stage.event,
        "table.game_over",
        user,
        stage=table.stage,
        table=table.number,
        rounds=after_round,
        **named,
    )


@transaction.atomic
def end_game(table: Table, rounds_shown: int, user, key: str | None = None) -> Table:
    """Mark the table's game over after its last round typed, once time is called.

    ``rounds_shown``: the rounds the page showed; a round typed meanwhile by another device
    refuses the mark (the page is out of date) rather than ending the game on the wrong round.
    """
    table = lock_table(table)
    if claim(key, user) is None:
        _end(table, rounds_shown, user)
    return table


@transaction.atomic
def end_games(stage, rounds_shown: dict[int, int], user, key: str | None = None) -> list[int]:
    """From the close page: mark several tables' games over at once (table number -> the
    rounds the page showed for it). All or nothing; returns the table numbers marked."""
    stage.event.locked()
    if claim(key, user) is not None:
        return []
    tables = Table.objects.select_for_update().select_related("stage__event")
    for table in tables.filter(stage=stage, number__in=rounds_shown).order_by("number"):
        _end(table, rounds_shown[table.number], user)
    return sorted(rounds_shown)


def _end(table: Table, rounds_shown: int, user) -> None:
    sheet = table_sheet(table)
    if table.stage.closed:
        raise _refuse(_("This stage is closed."))
    if sheet.next_engine is None:
        raise _refuse(game_over_message(sheet))
    if entry_after_time(sheet) is None:
        raise _refuse(_("A game is marked over only once time has been called."))
    if rounds_shown != len(sheet.rounds):
        raise _refuse(
            ngettext(
                "Table %(t)s has %(n)s round now, not %(shown)s: reload the page.",
                "Table %(t)s has %(n)s rounds now, not %(shown)s: reload the page.",
                len(sheet.rounds),
            )
            % {"t": table.number, "n": len(sheet.rounds), "shown": rounds_shown}
        )
    _mark_over(table, len(sheet.rounds), user)


@transaction.atomic
def reopen_game(table: Table, user, reason: str) -> Table:
    """A director takes back a table's "game over" mark (the stage still open), with a reason."""
    if not reason.strip():
        raise _refuse(_("Give the reason."))
    table = lock_table(table)
    if table.stage.closed:
        raise _refuse(_("This stage is closed."))
    if table.game_over_after is None:
        return table
    table.game_over_after = None
    table.save(update_fields=["game_over_after"])
    log_action(
        table.stage.event,
        "table.game_reopened",
        user,
        stage=table.stage,
        reason=reason,
        table=table.number,
    )
    return table


@transaction.atomic
def correct_round(
    round: Round, pips: dict[int, object], user, reason: str, key: str | None = None
) -> list[ScoreChange]:
    """A director corrects a saved round; every changed pip count is recorded with the reason.

    A repeat of the form's ``key`` changes nothing more (and says so: no score changed).
    """
    if not reason.strip():
        raise _refuse(_("Give the reason for the correction."))
    table = lock_table(round.table)
    if claim(key, user) is not None:
        return []
    sheet = table_sheet(table)
    clean = _check(sheet, round.engine, pips, round.number)
    changes = []
    for score in round.scores.select_for_update():
        new = clean[score.player_id]
        if new != score.pips:
            changes.append(
                ScoreChange(
                    round=round,
                    player_id=score.player_id,
                    old_pips=score.pips,
                    new_pips=new,
                    reason=reason.strip(),
                    changed_by=user,
                )
            )
            score.pips = new
            score.save(update_fields=["pips"])
    ScoreChange.objects.bulk_create(changes)
    stage = round.table.stage
    if changes:
        store_totals(Table.objects.filter(pk=table.pk))
        log_action(
            stage.event,
            "round.corrected",
            user,
            stage=stage,
            reason=reason,
            table=round.table.number,
            engine=round.engine,
            changes=len(changes),
            scores={_name(sheet, c.player_id): [c.old_pips, c.new_pips] for c in changes},
        )
    if changes and (stage.closed or stage.kind == StageKind.PLAYOFF):
        from scoring.services.stages import sync_playoffs

        sync_playoffs(stage.event)  # a corrected tie may call for a playoff
    return changes


def take_off_last_round(table: Table, round: Round) -> dict[str, int]:
    """Take the table's last round off its sheet (the table locked): that engine is entered
    next, and a game marked over after it is open again. Returns its pips by player name, as
    typed, for the history entry that keeps them."""
    pips = {s.player.name: s.pips for s in round.scores.select_related("player").order_by("pk")}
    Round.objects.filter(pk=round.pk).delete()
    store_totals(Table.objects.filter(pk=table.pk))
    if table.game_over_after is not None:
        table.game_over_after = None
        table.save(update_fields=["game_over_after"])
    return pips


@transaction.atomic
def remove_round(round: Round, user, reason: str, key: str | None = None) -> None:
    """A director removes a table's last round (saved at the wrong table, say), with a reason:
    the table's next round is that engine again. An earlier round is corrected instead.

    The removed pips are kept in the event's history. A table marked over after that round is
    open again; a playoff whose round is removed takes it again.
    """
    if not (reason or "").strip():
        raise _refuse(_("Give the reason for removing the round."))
    table = lock_table(round.table)
    if claim(key, user) is not None:
        return
    sheet = table_sheet(table)
    if not sheet.rounds or sheet.rounds[-1].number != round.number:
        raise _refuse(
            _("Only the table's last round can be removed: correct an earlier one instead.")
        )
    removed = {_name(sheet, pk): v for pk, v in sheet.rounds[-1].pips.items()}
    take_off_last_round(table, round)
    stage = table.stage
    if stage.kind == StageKind.PLAYOFF and stage.closed:
        stage.closed = False
        stage.save(update_fields=["closed"])
    log_action(
        stage.event,
        "round.removed",
        user,
        stage=stage,
        reason=reason,
        table=table.number,
        engine=round.engine,
        pips=removed,
    )
    if stage.closed or stage.kind == StageKind.PLAYOFF:
        from scoring.services.stages import sync_playoffs

        sync_playoffs(stage.event)


@transaction.atomic
def delete_in_admin(rows: QuerySet, event_of: IdOf, table_of: IdOf) -> None:
    """Rounds or scores deleted in the admin (scoring/admin.py): their tables' stored totals
    are worked out again in the same transaction, the events then the tables locked first, in
    the order a round's save locks them. ``table_of`` gives a row's table id."""
    listed = list(rows)
    events = Event.objects.filter(pk__in={event_of(row) for row in listed})
    list(events.select_for_update().order_by("pk"))
    tables = Table.objects.filter(pk__in={table_of(row) for row in listed})
    list(tables.select_for_update().order_by("pk"))
    delete_rows(rows, event_of)
    store_totals(tables)
