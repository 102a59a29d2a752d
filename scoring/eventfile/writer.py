"""A valid event file into the site: a new event, its rows written in bulk in one transaction."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Model

from scoring.eventfile.checks import EVENT_FIELDS, Plan
from scoring.eventfile.schema import moment
from scoring.models import Infraction, Round, Score, ScoreChange
from scoring.services.rounds import store_totals
from tournament.models import Action, ClockEvent, Event, Player, Seat, Signup, Stage, Table
from tournament.services.events import unique_slug
from tournament.stage_names import recognise


def _when(text: str | None) -> datetime | None:
    return None if text is None else moment(text)


@transaction.atomic
def write_event(plan: Plan, *, director=None, slug: str | None = None) -> Event:
    """The new event of a file ``validate`` read, written in one transaction."""
    fields = {k: v for k, v in plan.event.items() if k in EVENT_FIELDS}
    event = Event(**fields)
    event.tiles_drawn = {str(k): v for k, v in sorted(plan.event["tiles_drawn"].items())}
    event.slug = slug or unique_slug(event.name, event.date)
    event.save()
    if director is not None:
        event.directors.add(director)
    file = plan.file
    players = Player.objects.bulk_create(
        Player(
            event=event,
            ref=p.id,
            name=p.name,
            division=p.division or "",
            club=p.extra.club or "",
            keep_apart=p.extra.keep_apart or "",
            checked_in=bool(p.extra.checked_in),
            withdrawn=bool(p.extra.withdrawn),
            waiting=p.extra.waiting or "",
            out_of_district=bool(p.extra.out_of_district),
            birth_date=p.extra.birth_date,
        )
        for p in file.players
    )
    # Sign-ups keep their order (the waitlist's); what a registrant gave to be written to (the
    # e-mail) is in no file.
    Signup.objects.bulk_create(
        Signup(event=event, player=player, place=p.extra.signed_up, seen=True)
        for p, player in zip(file.players, players, strict=True)
        if p.extra.signed_up is not None
    )
    Action.objects.bulk_create(
        Action(
            event=event,
            verb="player.edited",
            data={
                "player": old,
                "player_pk": by.pk,
                "renamed_from": old,
                "changes": f"name: {old} → {new}",
            },
        )
        for p, by in zip(file.players, players, strict=True)
        for former in [p.extra.former_names or []]
        for old, new in zip(former, [*former[1:], p.name], strict=False)
    )
    by_id = {p.ref: p for p in players}
    stages = Stage.objects.bulk_create(
        Stage(
            event=event,
            number=i,
            name=s.name,
            auto_name=recognise(s.name, s.kind, known.division or ""),
            kind=s.kind,
            closed=s.closed,
            medal=s.medal or "",
            division=known.division or "",
            allowed_size=known.allowed_size,
            seating_draft=known.draft,
            **_clock(s.extra.clock),
        )
        for i, (s, known) in enumerate(zip(file.stages, plan.stages, strict=True), start=1)
    )
    # "Keep the published seating": the advancers by the new players' ids, in the order the
    # site keeps them (by id: the players are created in the file's order).
    kept = [
        (
            stage,
            {
                division: sorted(by_id[ref].pk for ref in refs)
                for division, refs in known.kept.items()
            },
        )
        for stage, known in zip(stages, plan.stages, strict=True)
        if known.kept
    ]
    for stage, advancers in kept:
        stage.kept_advancers = advancers
    Stage.objects.bulk_update([stage for stage, _advancers in kept], ["kept_advancers"])
    tables = Table.objects.bulk_create(
        Table(
            stage=stage,
            number=t.number,
            game_over_after=t.extra.game_over_after,
            clock_added=timedelta(minutes=t.extra.added_minutes or 0),
        )
        for stage, s in zip(stages, file.stages, strict=True)
        for t in s.tables
    )
    table_of = {}
    found = iter(tables)
    for i, s in enumerate(file.stages):
        for t in s.tables:
            table_of[i, t.number] = next(found)
    linked = []
    for stage, known in zip(stages, plan.stages, strict=True):
        if known.table_ref is not None or known.wildcards_of is not None:
            stage.playoff_table = table_of[known.table_ref] if known.table_ref else None
            stage.wildcards_of = (
                stages[known.wildcards_of] if known.wildcards_of is not None else None
            )
            linked.append(stage)
    Stage.objects.bulk_update(linked, ["playoff_table", "wildcards_of"])
    Seat.objects.bulk_create(
        Seat(
            stage=stage,
            table=table_of[i, t.number],
            player=by_id[ref],
            position=k,
            left_after=(t.extra.withdrew or {}).get(ref),
            joined_at=(t.extra.joined or {}).get(ref),
        )
        for i, (stage, s) in enumerate(zip(stages, file.stages, strict=True))
        for t in s.tables
        for k, ref in enumerate(t.players, start=1)
    )
    ClockEvent.objects.bulk_create(
        ClockEvent(
            stage=stage,
            action=e.action,
            at=moment(e.at),
            minutes=e.minutes,
            reason=e.reason or "",
        )
        for stage, s in zip(stages, file.stages, strict=True)
        for e in s.extra.clock_events or []
    )
    # Each round's pips in seat order (as the checks read them), each score in that order.
    played = [
        (
            Round(
                table=table_of[i, t.number],
                number=n,
                engine=r.engine,
                awaiting_confirmation=bool(r.extra.awaiting_confirmation),
            ),
            r,
            pips,
        )
        for i, (s, known) in enumerate(zip(file.stages, plan.stages, strict=True))
        for t, read in zip(s.tables, known.tables, strict=True)
        for n, (r, (_engine, pips)) in enumerate(zip(t.rounds, read.rounds, strict=True), start=1)
    ]
    Round.objects.bulk_create(row for row, _r, _pips in played)
    Score.objects.bulk_create(
        Score(round=row, player=by_id[ref], pips=count)
        for row, _r, pips in played
        for ref, count in pips.items()
    )
    store_totals(Table.objects.filter(stage__event=event))
    changes = [
        (
            ScoreChange(
                round=row,
                player=by_id[c.player],
                old_pips=c.old_pips,
                new_pips=c.new_pips,
                reason=c.reason,
            ),
            _when(c.changed_at),
        )
        for row, r, _pips in played
        for c in r.extra.changes or []
    ]
    ScoreChange.objects.bulk_create(row for row, _ in changes)
    infractions = [
        (
            Infraction(
                table=table_of[i, t.number],
                player=by_id[f.player],
                engine=f.engine,
                kind=f.kind,
                note=f.note,
                action=f.action,
                original_action=f.extra.original_action or f.action,
                change_reason=f.extra.reason or "",
                changed_at=_when(f.extra.changed_at),
            ),
            _when(f.extra.logged_at),
        )
        for i, s in enumerate(file.stages)
        for t in s.tables
        for f in t.infractions
    ]
    Infraction.objects.bulk_create(row for row, _ in infractions)
    # Creation stamps "now" on these; the file's moments are put back where it gives them.
    _restore(Round, "entered_at", [(row, _when(r.extra.entered_at)) for row, r, _pips in played])
    _restore(ScoreChange, "changed_at", changes)
    _restore(Infraction, "logged_at", infractions)
    return event


def _clock(clock) -> dict:
    """A stage's clock fields, as its file gives them."""
    if clock is None:
        return {}
    return {
        "clock_started_at": _when(clock.started_at),
        "clock_paused_at": _when(clock.paused_at),
        "clock_paused_total": (
            None if clock.paused_total is None else timedelta(seconds=clock.paused_total)
        ),
        "time_called_at": _when(clock.time_called_at),
        "clock_added": timedelta(minutes=clock.added_minutes) if clock.added_minutes else None,
    }


def _restore(model: type[Model], name: str, rows: list[tuple[Model, datetime | None]]) -> None:
    given = []
    for row, when in rows:
        if when is not None:
            setattr(row, name, when)
            given.append(row)
    model.objects.bulk_update(given, [name], batch_size=500)
