"""Writes of stages (PRODUCT.md §6 and §7): close a stage, seat the next one, create and settle
playoffs, and apply or keep a correction's effect on a later stage's seating. Each in a
transaction with the event locked; what to do is read from scoring/results.py, whose rules
are tournament/game/awards.py's and tournament/game/finals.py's."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import F
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from scoring.models import RatedPlayer, Round
from scoring.results import (
    ADVANCING_KINDS,
    SEATED_ON_OLD_TOTALS,
    AdvanceError,
    _after,
    _entrants,
    _playoff_match,
    _playoff_parts,
    _seated,
    divisions_played,
    find_conflict,
    game_stages,
    incomplete_tables,
    load_results,
    next_stage_plan,
    previous_tables,
    reseating_rule,
    seating_changes,
    still_playing,
    table_division,
    walkover,
    walkover_undecided,
)
from scoring.services.rounds import correct_round, remove_round, store_totals
from scoring.sheets import stage_sheets
from tournament.game import finals
from tournament.game.message import Message
from tournament.game.seating import SeatingError
from tournament.history import claim, log_action, settle
from tournament.models import Event, Player, Seat, Stage, StageKind, Table
from tournament.services.clock import stop_at_close
from tournament.services.seating import Draw, Standbys, seat_stage, take_standbys
from tournament.stage_names import say
from tournament.text import translated


def sync_playoffs(event: Event) -> list[Stage]:
    """Make the playoff stages match what the tie rules ask for now.

    A playoff that is owed and missing is created; one not yet played that is no longer owed,
    or owed between other players (after a correction), is removed. A played playoff that no
    longer fits is left for the director: the results page names it.
    """
    results = load_results(event)
    unplayed = {
        stage.pk: stage
        for stage, sheets in results.sheets.items()
        if stage.kind == StageKind.PLAYOFF and not any(s.rounds for s in sheets)
    }
    created, keep = [], set()
    for owed in results.owed:
        match = _playoff_match(owed)
        existing = list(event.stages.filter(kind=StageKind.PLAYOFF, **match).order_by("number"))
        played = [s for s in existing if s.pk not in unplayed]
        waiting = [s for s in existing if s.pk in unplayed]
        if len(played) >= owed.owed.round_number:
            continue
        same = next((s for s in waiting if _seated(s) == set(owed.owed.players)), None)
        if same is not None:
            keep.add(same.pk)
            continue
        parts = _playoff_parts(owed)
        stage = Stage(event=event, kind=StageKind.PLAYOFF, auto_name=parts, **match)
        stage = _insert_stage(
            event,
            _after(event, owed.stage),
            say(parts, stage),
            StageKind.PLAYOFF,
            auto_name=parts,
            **match,
        )
        table = Table.objects.create(stage=stage, number=1)
        Seat.objects.bulk_create(
            Seat(stage=stage, table=table, player_id=pk, position=i)
            for i, pk in enumerate(owed.owed.players, start=1)
        )
        log_action(event, "stage.created", stage=stage)
        created.append(stage)
    for stage in Stage.objects.filter(pk__in=set(unplayed) - keep):
        log_action(event, "stage.removed", name=stage.name)
        stage.delete()
    return created


def _insert_stage(event: Event, number: int, name: str, kind: str, **fields) -> Stage:
    """A new stage played at ``number``; the stages from there on move one later."""
    event.stages.filter(number__gte=number).order_by("-number").update(number=F("number") + 1000)
    event.stages.filter(number__gte=number + 1000).update(number=F("number") - 999)
    return Stage.objects.create(event=event, number=number, name=name, kind=kind, **fields)


def _seat_from(
    event: Event,
    stage: Stage,
    players: list[Player],
    rng,
    user,
    results=None,
    key=None,
    allow: int | None = None,
    publish: bool = True,
) -> None:
    """Seat ``players`` at ``stage``, apart from their previous tablemates where possible, or
    by a cumulative event's reseating rule; ``allow``: a table size allowed for the stage;
    ``publish``: public at once, else a draft (``seat_stage``)."""
    arrange = reseating_rule(results, stage, rng) if results is not None else None
    try:
        seat_stage(
            stage,
            players,
            keep_apart=previous_tables(stage, players),
            rng=rng,
            user=user,
            arrange=arrange,
            key=key,
            allow=allow,
            publish=publish,
        )
    except SeatingError as error:
        refusal = AdvanceError(translated(error))
        refusal.size_to_allow = getattr(error, "size", None)
        raise refusal from error


@transaction.atomic
def draw_first_game(
    stage: Stage,
    players=None,
    *,
    rng=None,
    user=None,
    key: str | None = None,
    allow: int | None = None,
    first: bool = False,
    publish: bool = True,
) -> Draw:
    """Seat Game 1 from the players checked in, as its seating page draws it: every division
    that can be seated (one that cannot is left out, and the draw says why), at random, or by
    rating when the event seeds Game 1 by rating (``seeding_strength``). ``allow``: a table
    size allowed for Game 1 (``tournament.services.seating.allow_size``).

    Without ``players`` (the seating page), the standbys first take the no-shows' places
    (``take_standbys``), then the players checked in are read, all under the event's lock,
    so two directors drawing at once promote each standby once. ``first``: the page showed
    no seating (its first draw); a draw made meanwhile by another director is kept, and this
    one changes nothing (``Draw.already``). A repeat of the form's ``key`` answers as the
    first post did."""
    event = stage.event.locked()
    earlier = claim(key, user)
    if earlier is not None:
        said = earlier.outcome.get("standbys")
        return Draw(
            list(Table.objects.for_stage(stage)),
            standbys=Standbys(**said) if said is not None else None,
            already=bool(earlier.outcome.get("already")),
        )
    if first and Table.objects.filter(stage=stage).exists():
        settle(key, already=True)
        return Draw(list(Table.objects.for_stage(stage)), already=True)
    standbys = None
    if players is None:
        standbys = take_standbys(event, user)
        players = event.players.present()
    draw = seat_stage(
        stage,
        players,
        rng=rng,
        user=user,
        leave_out=True,
        strength=seeding_strength(event),
        allow=allow,
        publish=publish,
    )
    draw.standbys = standbys
    settle(key, tables=len(draw.tables), standbys=standbys and standbys.outcome())
    return draw


def seeding_strength(event: Event) -> dict[int, float] | None:
    """Each rated player's strength for seeding Game 1 by rating (issue 31), by player id;
    None when the event does not seed. One query.

    The strength is the rating's μ, the model's best estimate of a player's skill, not the
    shown μ − 3σ: that one is made cautious for the leaderboard, and would seed a strong player
    with few games among the weak ones. A player is rated when their person has played a
    finished game (scoring/services/ratings.py links every player of a rated person)."""
    if not event.seed_by_rating:
        return None
    rated = RatedPlayer.objects.filter(player__event=event)
    return dict(rated.values_list("player_id", "rating__mu"))


@transaction.atomic
def reseat_game(
    stage: Stage,
    rng=None,
    user=None,
    key: str | None = None,
    allow: int | None = None,
    publish: bool = True,
) -> Stage:
    """Seat (or seat again) a cumulative event's game after the first by its reseating rule,
    from the seating page: everyone still playing, once the game before it is closed;
    ``allow``: a table size allowed for it when the listed sizes cannot seat them."""
    event = stage.event.locked()
    results = load_results(event)
    earlier = [g for g in results.games if g.number < stage.number]
    if not earlier:
        raise AdvanceError(_("Seat %(s)s from the players checked in.") % {"s": stage.title})
    if not earlier[-1].closed:
        raise AdvanceError(_("%(s)s is not closed yet.") % {"s": earlier[-1].title})
    players = still_playing(results, earlier[-1])
    _seat_from(
        event, stage, players, rng, user, results=results, key=key, allow=allow, publish=publish
    )
    return stage


@transaction.atomic
def seat_next_stage(
    event: Event,
    rng=None,
    user=None,
    key: str | None = None,
    allow: int | None = None,
    publish: bool = True,
) -> Stage:
    """Seat the next stage from the advancers, keeping players of a previous table apart.

    Serialized on the event: two directors confirming at once seat it once (the second finds
    it seated and is refused, or with the same form ``key`` gets the first one's stage).
    ``allow``: a table size allowed for the stages seated now, when the sizes the rule set
    lists cannot seat them (the refusal names one: ``AdvanceError.size_to_allow``).
    """
    event = event.locked()
    earlier = claim(key, user)
    if earlier is not None:
        return Stage.objects.get(pk=earlier.outcome["stage"])
    results = load_results(event)
    target, semifinal, players = next_stage_plan(event, results, allow)
    if not players:
        raise AdvanceError(_("Nobody advances yet."))
    if semifinal:
        _final_to_allow(event, target, players)
    ready: dict[str, list[Player]] = {}
    if semifinal:
        # The divisions that fit one table play their Final now: none waits on another.
        waiting = {p.pk for p in players}
        for division, group in _entrants(results, target).items():
            if group and not any(p.pk in waiting for p in group):
                ready[division] = group
        for division in sorted(ready, reverse=True):
            final = _insert_stage(
                event,
                target.number,
                _("Final (%(division)s)") % {"division": division},
                StageKind.FINAL,
                division=division,
                auto_name={"kind": "final"},
            )
            log_action(event, "stage.created", user, stage=final)
            _seat_from(event, final, ready[division], rng, user, allow=allow, publish=publish)
        earlier = event.stages.filter(kind=StageKind.SEMIFINAL).count()
        name = _("Semifinal %(n)s") % {"n": earlier + 1} if earlier else _("Semifinal")
        parts = {"kind": "semifinal", **({"n": earlier + 1} if earlier else {})}
        target = _insert_stage(event, target.number, name, StageKind.SEMIFINAL, auto_name=parts)
        log_action(event, "stage.created", user, stage=target)
    _seat_from(event, target, players, rng, user, results=results, allow=allow, publish=publish)
    settle(key, stage=target.pk)
    return target


def _final_to_allow(event: Event, final: Stage, players: list[Player]) -> None:
    """Advancers that one Final table would hold, but at a size the rule set does not deal (3
    at tables of 6 to 8), and that no semifinal at the sizes it deals can seat: refused, naming
    the size to allow for the Final (``AdvanceError.size_to_allow``), not a semifinal of one
    table."""
    rules = event.rules
    counts = Counter(p.division for p in players)
    for size in sorted(set(counts.values())):
        if size > finals.final_capacity(rules, event.finals_options) or not rules.deals(size):
            continue
        try:
            finals.stage_tables(size, rules, event.finals_options)
        except SeatingError:
            break
        # a semifinal at the sizes listed seats them
    else:
        return
    refusal = AdvanceError(
        translated(
            Message(
                "A Final of %(n)s cannot be dealt at one table under this event's rules (it "
                "deals tables of %(sizes)s). Allow tables of %(n)s for %(stage)s: each of their "
                "players draws %(tiles)s tiles.",
                n=size,
                sizes=", ".join(map(str, rules.dealable_sizes)),
                stage=final.title,
                tiles=rules.tiles_for(size),
            )
        )
    )
    refusal.size_to_allow = size
    raise refusal


@transaction.atomic
def close_stage(stage: Stage, user) -> list[Stage]:
    """Close a stage whose tables all have their rounds; create the playoffs its ties ask for.

    Returns the playoff stages created. A closed playoff or final settles medals.
    """
    stage.event.locked()
    stage = Stage.objects.select_for_update().select_related("event").get(pk=stage.pk)
    if stage.closed:
        raise AdvanceError(_("%(s)s is already closed.") % {"s": stage.title})
    sheets = stage_sheets(stage)
    if not sheets:
        raise AdvanceError(_("Nobody is seated in %(s)s.") % {"s": stage.title})
    waiting = incomplete_tables(stage, sheets)
    if waiting:
        numbers = ", ".join(str(t.number) for t in waiting)
        raise AdvanceError(_("Tables %(t)s still have rounds to play.") % {"t": numbers})
    for sheet in sheets:
        if walkover(sheet) and find_conflict(stage.event, stage, table_division(sheet)):
            raise AdvanceError(walkover_undecided(stage))
    stop_at_close(stage, user)
    stage.closed = True
    stage.save(update_fields=["closed"])
    log_action(stage.event, "stage.closed", user, stage=stage)
    return sync_playoffs(stage.event)


def _drop_unneeded_stages(event: Event, user) -> bool:
    """Once every division has played its Final (a stage of one table: 5 players, a small
    division), the semifinals and Final left unseated are not played: they are removed."""
    results = load_results(event)
    divisions = divisions_played(results)
    if not divisions or not divisions <= set(results.deciding):
        return False
    for stage in results.sheets:
        if stage.kind in (StageKind.SEMIFINAL, StageKind.FINAL) and not results.sheets[stage]:
            log_action(event, "stage.removed", user, name=stage.name)
            stage.delete()
    return True


def _is_last_game(stage: Stage) -> bool:
    """Whether ``stage`` is a cumulative event's last game."""
    games = game_stages(stage.event.format, stage.event.stages.all())
    return bool(games) and games[-1].pk == stage.pk


@dataclass
class Closed:
    """What closing a stage from its page did: the playoffs it created, the stage it seated
    (or why that stage could not be seated yet)."""

    playoffs: list[Stage]
    seated: Stage | None = None
    seat_error: str = ""
    size_to_allow: int | None = None  # a table size that, allowed, would seat the next stage


@transaction.atomic
def close_and_seat(
    stage: Stage, user, key: str | None = None, override: str = "", rng=None, publish: bool = True
) -> Closed:
    """The director confirms the close: close the stage and, when nobody waits on a playoff,
    seat the next stage. A repeat of the form's ``key`` answers with what the first did.

    Rounds entered from players' phones and not confirmed yet stop the close, unless the
    director overrides with a reason (kept in the history)."""
    event = stage.event.locked()
    earlier = claim(key, user)
    if earlier is not None:
        seated = earlier.outcome.get("seated")
        return Closed(
            list(Stage.objects.filter(pk__in=earlier.outcome.get("playoffs", []))),
            Stage.objects.filter(pk=seated).first() if seated else None,
        )
    unconfirmed = Round.objects.filter(table__stage=stage, awaiting_confirmation=True).count()
    if unconfirmed and not override.strip():
        raise AdvanceError(
            ngettext(
                "%(n)s round entered from a player's phone is not confirmed. Confirm it on "
                "its table's page, or give the reason to close anyway.",
                "%(n)s rounds entered from players' phones are not confirmed. Confirm them "
                "on the tables' pages, or give the reason to close anyway.",
                unconfirmed,
            )
            % {"n": unconfirmed}
        )
    if unconfirmed:
        log_action(
            event, "stage.closed_unconfirmed", user, stage=stage, reason=override, count=unconfirmed
        )
    closed = Closed(close_stage(stage, user))
    fmt = event.format
    if fmt.is_cumulative and not fmt.has_final and _is_last_game(stage):
        pass  # the last game of a cumulative event: its totals give the medals
    elif (
        stage.kind in ADVANCING_KINDS
        and not fmt.is_cumulative
        and _drop_unneeded_stages(event, user)
    ):
        pass  # every division has played its Final: nothing to seat
    elif stage.kind in ADVANCING_KINDS and not closed.playoffs:
        try:
            with transaction.atomic():
                closed.seated = seat_next_stage(event, rng=rng, user=user, publish=publish)
        except AdvanceError as why:
            closed.seat_error = str(why)
            closed.size_to_allow = why.size_to_allow
    settle(
        key,
        playoffs=[p.pk for p in closed.playoffs],
        seated=closed.seated.pk if closed.seated else None,
    )
    return closed


def settle_playoff(stage: Stage) -> list[Stage]:
    """A playoff's round was entered: close it and create a replay if it tied."""
    if stage.kind != StageKind.PLAYOFF:
        return []
    Stage.objects.filter(pk=stage.pk).update(closed=True)
    stage.closed = True
    return sync_playoffs(stage.event)


@transaction.atomic
def apply_correction(stage: Stage, division: str, user, key: str | None = None) -> list[int]:
    """Seat the advancers as corrected: each player who no longer advances gives their seat to
    one who now does; a table whose players changed loses its rounds (it replays), the others
    keep theirs. Returns the numbers of the tables that must replay."""
    event = stage.event.locked()
    earlier = claim(key, user)
    if earlier is not None:
        return earlier.outcome["replay"]
    stage = Stage.objects.select_for_update().get(pk=stage.pk)
    if stage.closed:
        raise AdvanceError(
            _("%(s)s is closed: reopen it before its seating can change.") % {"s": stage.title}
        )
    conflict = find_conflict(event, stage, division)
    if conflict is None:
        raise AdvanceError(
            _("The seating of %(s)s already matches who advances.") % {"s": stage.title}
        )
    seats = {s.player_id: s for s in conflict.seats}
    changed: set[int] = set()
    for leaving, coming in zip(conflict.out, conflict.in_, strict=False):
        seat = seats[leaving.pk]
        seat.player = coming
        seat.save(update_fields=["player"])
        changed.add(seat.table_id)
    for leaving in conflict.out[len(conflict.in_) :]:
        seat = seats[leaving.pk]
        changed.add(seat.table_id)
        seat.delete()
    extra = conflict.in_[len(conflict.out) :]
    if extra:
        tables = list(Table.objects.filter(stage=stage).order_by("number"))
        counts = {t.pk: 0 for t in tables}
        last = {t.pk: 0 for t in tables}  # a withdrawal leaves a gap in the positions
        for s in Seat.objects.filter(stage=stage):
            counts[s.table_id] += 1
            last[s.table_id] = max(last[s.table_id], s.position)
        for coming in extra:
            table = min(tables, key=lambda t: (counts[t.pk], t.number))
            last[table.pk] += 1
            Seat.objects.create(stage=stage, table=table, player=coming, position=last[table.pk])
            counts[table.pk] += 1
            changed.add(table.pk)
    replay = sorted(Table.objects.filter(pk__in=changed).values_list("number", flat=True))
    Round.objects.filter(table_id__in=changed).delete()
    store_totals(Table.objects.filter(pk__in=changed))
    Table.objects.filter(pk__in=changed).update(game_over_after=None)
    kept = dict(stage.kept_advancers)
    kept.pop(division, None)
    Stage.objects.filter(pk=stage.pk).update(kept_advancers=kept)
    log_action(
        event,
        "stage.correction_applied",
        user,
        stage=stage,
        out=", ".join(p.name for p in conflict.out),
        into=", ".join(p.name for p in conflict.in_),
        tables=", ".join(map(str, replay)),
    )
    settle(key, replay=replay)
    return replay


@transaction.atomic
def keep_seating(stage: Stage, division: str, reason: str, user, key: str | None = None) -> None:
    """Keep the published seating of ``stage`` despite the correction, with the reason."""
    event = stage.event.locked()
    if claim(key, user) is not None:
        return
    reason = (reason or "").strip()[:300]
    if not reason:
        raise AdvanceError(_("Give the reason for keeping the published seating."))
    stage = Stage.objects.select_for_update().get(pk=stage.pk)
    conflict = find_conflict(event, stage, division)
    if conflict is None:
        raise AdvanceError(
            _("The seating of %(s)s already matches who advances.") % {"s": stage.title}
        )
    stage.kept_advancers = {**stage.kept_advancers, division: conflict.advancers}
    stage.save(update_fields=["kept_advancers"])
    log_action(event, "stage.seating_kept", user, stage=stage, reason=reason)
    settle(key)


@dataclass
class Corrected:
    """What saving a correction did: the scores it changed (their count, on a repeat of the
    form), the stage it seated again, and the games left seated on the totals before it."""

    changes: int
    reseated: Stage | None = None
    kept: list[Stage] = field(default_factory=list)


@transaction.atomic
def correct_and_reseat(
    round: Round, pips: dict, user, reason: str, key: str | None = None, reseat: int | None = None
) -> Corrected:
    """A director corrects a round (``correct_round``) and, on a closed stage, settles what it
    changes to the stages seated after it (issue 45 item 6), in one transaction with the event
    locked: the stage ``reseat`` (its id: the preview's choice) is seated again from the
    corrected totals when no round is entered there yet, a cumulative game by its reseating
    rule (``reseat_game``), a semifinal or Final with the corrected advancers
    (``apply_correction``); every other game the corrected totals would seat otherwise is
    recorded in the history as seated on the totals before the correction, which the event
    home says while it stays so. A semifinal or Final left as it is shows its seating conflict.

    A repeat of the form's ``key`` (a double click) answers with what the first did."""
    event = round.table.stage.event.locked()
    earlier = claim(key, user)
    if earlier is not None:
        outcome = earlier.outcome
        return Corrected(
            outcome.get("changes", 0),
            Stage.objects.filter(pk=outcome.get("reseated")).first(),
            list(Stage.objects.filter(pk__in=outcome.get("kept", [])).order_by("number")),
        )
    stage = Stage.objects.get(pk=round.table.stage_id)
    before = load_results(event) if stage.closed else None
    done = Corrected(len(correct_round(round, pips, user, reason)))
    if done.changes and before is not None:
        done.reseated, done.kept = _follow_totals(event, before, round.table, user, reseat)
    settle(
        key,
        changes=done.changes,
        reseated=done.reseated.pk if done.reseated else None,
        kept=[s.pk for s in done.kept],
    )
    return done


@transaction.atomic
def remove_closed_round(round: Round, user, reason: str, key: str | None = None) -> list[Stage]:
    """A director removes a table's last round (``remove_round``); on a closed stage, the games
    its corrected totals would seat otherwise are recorded as seated on the totals before it,
    as a correction's are (``correct_and_reseat``). Returns those games."""
    event = round.table.stage.event.locked()
    stage = Stage.objects.get(pk=round.table.stage_id)
    before = load_results(event) if stage.closed else None
    table = round.table
    remove_round(round, user, reason, key)
    if before is None:
        return []
    return _follow_totals(event, before, table, user)[1]


def _follow_totals(
    event: Event, before, table: Table, user, reseat: int | None = None
) -> tuple[Stage | None, list[Stage]]:
    """After a change to ``table``'s totals (``before``: the results before it), the stages
    seated after it that the totals now seat otherwise: the stage ``reseat`` (an id) seated
    again when it has no round yet, each other game recorded as seated on the old totals.
    Returns the stage seated again and the games recorded."""
    reseated, kept = None, []
    for change in seating_changes(before, load_results(event)):
        if change.stage.pk == reseat and not change.played and reseated in (None, change.stage):
            reseated = change.stage
            if change.moves:  # the seating players saw stays public (they are told anew)
                reseat_game(change.stage, user=user, publish=not change.stage.seating_draft)
            else:
                apply_correction(change.stage, change.division, user)
        elif change.moves:
            log_action(
                event,
                SEATED_ON_OLD_TOTALS,
                user,
                stage=change.stage,
                source=table.stage.name,
                source_parts=table.stage.auto_name,
                table=table.number,
            )
            kept.append(change.stage)
    return reseated, kept
