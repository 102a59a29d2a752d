"""Closing stages, advancing players, seating the next stage, playoffs and medals.

PRODUCT.md §6 and §7. The rules are scoring/awards.py's (plain Python); this module loads the
rows (a fixed number of queries per event), calls it, and saves the outcome in a transaction.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import F

from scoring import awards
from scoring.sheets import TableSheet, event_sheets
from tournament.models import Event, Medal, Player, Seat, Stage, StageKind, Table
from tournament.seating import SeatingError
from tournament.services import seat_stage

ADVANCING_KINDS = (StageKind.QUALIFYING, StageKind.SEMIFINAL)


class AdvanceError(Exception):
    """A stage cannot be closed or the next one seated yet; the message says why."""


def table_division(sheet: TableSheet) -> str:
    """A table never mixes divisions: its division is its players'."""
    return sheet.players[0].division if sheet.players else ""


def scored_round(sheet: TableSheet) -> dict[int, int] | None:
    """A playoff table's one round, as player id -> pips, once it is entered."""
    return dict(sheet.rounds[0].pips) if sheet.rounds else None


@dataclass
class PlayoffOwed:
    """A playoff the tie rule asks for: who plays it and what it decides."""

    owed: awards.OwedPlayoff
    division: str = ""
    table: Table | None = None  # the table whose tie it settles (advancement)

    @property
    def medal(self) -> str:
        return self.owed.decides


@dataclass
class DivisionMedals:
    division: str
    result: awards.MedalResult


@dataclass
class EventResults:
    """Everything the bracket, results page and event file show, computed from the sheets."""

    event: Event
    sheets: dict[Stage, list[TableSheet]]
    advancement: dict[int, awards.Advancement] = field(default_factory=dict)  # by table id
    medals: list[DivisionMedals] = field(default_factory=list)
    owed: list[PlayoffOwed] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def players(self) -> dict[int, Player]:
        return {p.pk: p for sheets in self.sheets.values() for s in sheets for p in s.players}

    def stage(self, number: int) -> Stage:
        return next(s for s in self.sheets if s.number == number)

    def advancing(self, stage: Stage) -> list[Player]:
        """The players who go on from a closed qualifying or semifinal stage."""
        players = self.players
        return [
            players[pk]
            for sheet in self.sheets[stage]
            for pk in self.advancement.get(sheet.table.pk, awards.Advancement(())).advancing
        ]

    def owed_for(self, stage: Stage) -> list[PlayoffOwed]:
        return [o for o in self.owed if o.table is not None and o.table.stage_id == stage.pk]

    @property
    def final(self) -> Stage | None:
        return next((s for s in self.sheets if s.kind == StageKind.FINAL), None)

    def medal_of(self) -> dict[int, str]:
        """Player id -> the medal they won."""
        return {
            pk: award.medal
            for division in self.medals
            for award in division.result.medals
            for pk in award.players
        }


def _playoff_rounds(sheets_by_stage, **match) -> dict[str, list[dict[int, int]]]:
    """Scored playoff rounds, in play order, by what they decide, for stages matching ``match``."""
    rounds: dict[str, list[dict[int, int]]] = {}
    for stage, sheets in sorted(sheets_by_stage.items(), key=lambda kv: kv[0].number):
        if stage.kind != StageKind.PLAYOFF or not sheets:
            continue
        if any(getattr(stage, key) != value for key, value in match.items()):
            continue
        scored = scored_round(sheets[0])
        if scored is not None:
            rounds.setdefault(stage.medal, []).append(scored)
    return rounds


def compute_results(event: Event, sheets: dict[Stage, list[TableSheet]]) -> EventResults:
    """Advancers of every closed stage, medals once the final is closed, playoffs owed."""
    rules = event.rules
    results = EventResults(event=event, sheets=sheets)
    for stage, stage_sheets in sheets.items():
        if not stage.closed or stage.kind not in ADVANCING_KINDS:
            continue
        for sheet in stage_sheets:
            rounds = _playoff_rounds(sheets, playoff_table_id=sheet.table.pk).get(Medal.ADVANCE, [])
            try:
                adv = awards.table_advancers(sheet.totals, rules.advancement_tie, rounds)
            except awards.PlayoffMismatch as mismatch:
                results.problems.append(f"{stage.name}, table {sheet.table.number}: {mismatch}")
                adv = awards.table_advancers(sheet.totals, rules.advancement_tie)
            results.advancement[sheet.table.pk] = adv
            if adv.owed:
                results.owed.append(PlayoffOwed(adv.owed, table_division(sheet), sheet.table))
    final = results.final
    if final is not None and final.closed:
        totals_by_division: dict[str, dict[int, int]] = {}
        for sheet in sheets[final]:
            totals_by_division.setdefault(table_division(sheet), {}).update(sheet.totals)
        for division, totals in sorted(totals_by_division.items()):
            rounds = _playoff_rounds(sheets, division=division)
            rounds.pop(Medal.ADVANCE, None)
            try:
                result = awards.medals(totals, rules.medal_tie, rounds)
            except awards.PlayoffMismatch as mismatch:
                results.problems.append(f"{final.name}: {mismatch}")
                result = awards.medals(totals, rules.medal_tie)
            results.medals.append(DivisionMedals(division, result))
            results.owed.extend(PlayoffOwed(o, division) for o in result.owed)
    return results


def load_results(event: Event) -> EventResults:
    return compute_results(event, event_sheets(event))


# -- completeness --------------------------------------------------------------------------------


def incomplete_tables(stage: Stage, sheets: Iterable[TableSheet]) -> list[Table]:
    """Tables that still owe rounds: engines left to play, and time not called (or the round
    that was in progress when it was called still to enter)."""
    from tournament.clocks import entry_after_time

    def owes_rounds(sheet: TableSheet) -> bool:
        if sheet.next_engine is None or not sheet.players:
            return False
        after_time = entry_after_time(sheet)
        return after_time is None or after_time.may_enter

    return [s.table for s in sheets if owes_rounds(s)]


# -- writes --------------------------------------------------------------------------------------


def _playoff_name(owed: PlayoffOwed) -> str:
    if owed.table is not None:
        name = f"Playoff: {owed.table.stage.name}, table {owed.table.number}"
    else:
        medals = " and ".join(
            m.capitalize() if i == 0 else m for i, m in enumerate(owed.owed.at_stake)
        )
        name = f"{medals} playoff"
    if owed.division:
        name += f" ({owed.division})"
    if owed.owed.round_number > 1:
        name += f", replay {owed.owed.round_number - 1}"
    return name


def _next_number(event: Event) -> int:
    last = event.stages.order_by("-number").values_list("number", flat=True).first()
    return (last or 0) + 1


def _seated(stage: Stage) -> set[int]:
    return set(stage.seats.values_list("player_id", flat=True))


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
        match = {"division": owed.division, "medal": owed.medal, "playoff_table": owed.table}
        existing = list(event.stages.filter(kind=StageKind.PLAYOFF, **match).order_by("number"))
        played = [s for s in existing if s.pk not in unplayed]
        waiting = [s for s in existing if s.pk in unplayed]
        if len(played) >= owed.owed.round_number:
            continue
        same = next((s for s in waiting if _seated(s) == set(owed.owed.players)), None)
        if same is not None:
            keep.add(same.pk)
            continue
        stage = Stage.objects.create(
            event=event,
            number=_next_number(event),
            name=_playoff_name(owed),
            kind=StageKind.PLAYOFF,
            **match,
        )
        table = Table.objects.create(stage=stage, number=1)
        Seat.objects.bulk_create(
            Seat(stage=stage, table=table, player_id=pk, position=i)
            for i, pk in enumerate(owed.owed.players, start=1)
        )
        created.append(stage)
    Stage.objects.filter(pk__in=set(unplayed) - keep).delete()
    return created


def _entrants(results: EventResults, before: Stage) -> dict[str, list[Player]]:
    """For each division, the advancers of the last closed stage it played before ``before``."""
    latest: dict[str, Stage] = {}
    for stage, sheets in sorted(results.sheets.items(), key=lambda kv: kv[0].number):
        if stage.number >= before.number or stage.kind not in ADVANCING_KINDS:
            continue
        for sheet in sheets:
            latest[table_division(sheet)] = stage
    entrants: dict[str, list[Player]] = {}
    for division, stage in latest.items():
        if not stage.closed:
            raise AdvanceError(f"{stage.name} is not closed yet.")
        if results.owed_for(stage):
            raise AdvanceError(f"{stage.name} has playoffs to score before anyone advances.")
        entrants[division] = [p for p in results.advancing(stage) if p.division == division]
    return entrants


def next_stage_plan(event: Event, results: EventResults | None = None):
    """The stage to seat next and who plays it: (stage or None to create, is_semifinal, players).

    More advancers in a division than one table can hold means a semifinal for that division;
    the divisions that fit wait for the final.
    """
    results = results or load_results(event)
    target = next(
        (
            s
            for s in sorted(results.sheets, key=lambda s: s.number)
            if s.kind in (StageKind.SEMIFINAL, StageKind.FINAL)
            and not results.sheets[s]
            and not s.closed
        ),
        None,
    )
    if target is None:
        raise AdvanceError("Every stage is seated: there is no next stage to seat.")
    entrants = _entrants(results, target)
    largest = event.rules.largest_table
    too_many = {d: ps for d, ps in entrants.items() if len(ps) > largest}
    if too_many:
        return target, True, [p for ps in too_many.values() for p in ps]
    return target, False, [p for ps in entrants.values() for p in ps]


@transaction.atomic
def seat_next_stage(event: Event, rng=None) -> Stage:
    """Seat the next stage from the advancers, keeping players of a previous table apart."""
    results = load_results(event)
    target, semifinal, players = next_stage_plan(event, results)
    if not players:
        raise AdvanceError("Nobody advances yet.")
    if semifinal:
        event.stages.filter(number__gte=target.number).order_by("-number").update(
            number=F("number") + 1000
        )
        event.stages.filter(number__gte=target.number + 1000).update(number=F("number") - 999)
        earlier = event.stages.filter(kind=StageKind.SEMIFINAL).count()
        name = f"Semifinal {earlier + 1}" if earlier else "Semifinal"
        target = Stage.objects.create(
            event=event, number=target.number, name=name, kind=StageKind.SEMIFINAL
        )
    previous = {
        seat.player_id: seat.table_id
        for seat in Seat.objects.filter(stage__event=event, player__in=players).exclude(
            stage__kind=StageKind.PLAYOFF
        )
    }
    try:
        seat_stage(target, players, keep_apart={p: previous.get(p.pk) for p in players}, rng=rng)
    except SeatingError as error:
        raise AdvanceError(str(error)) from error
    return target


@transaction.atomic
def close_stage(stage: Stage, user) -> list[Stage]:
    """Close a stage whose tables all have their rounds; create the playoffs its ties ask for.

    Returns the playoff stages created. A closed playoff or final settles medals.
    """
    stage = Stage.objects.select_for_update().get(pk=stage.pk)
    if stage.closed:
        raise AdvanceError(f"{stage.name} is already closed.")
    from scoring.sheets import stage_sheets

    sheets = stage_sheets(stage)
    if not sheets:
        raise AdvanceError(f"Nobody is seated in {stage.name}.")
    waiting = incomplete_tables(stage, sheets)
    if waiting:
        numbers = ", ".join(str(t.number) for t in waiting)
        raise AdvanceError(f"Tables {numbers} still have rounds to play.")
    stage.closed = True
    stage.save(update_fields=["closed"])
    return sync_playoffs(stage.event)


def settle_playoff(stage: Stage) -> list[Stage]:
    """A playoff's round was entered: close it and create a replay if it tied."""
    if stage.kind != StageKind.PLAYOFF:
        return []
    Stage.objects.filter(pk=stage.pk).update(closed=True)
    stage.closed = True
    return sync_playoffs(stage.event)


# -- corrections after a stage is closed ---------------------------------------------------------


def _outcomes(results: EventResults) -> dict[str, str]:
    """What a correction can change, as sentences keyed by what they are about."""
    players = results.players
    out = {}
    for stage in results.sheets:
        if stage.closed and stage.kind in ADVANCING_KINDS:
            advancing = sorted(p.name for p in results.advancing(stage))
            out[f"advance:{stage.pk}"] = f"{stage.name}: {', '.join(advancing) or 'nobody'} advance"
    for division in results.medals:
        suffix = f" ({division.division})" if division.division else ""
        for award in division.result.medals:
            if award.pending:
                who = "playoff pending between " + ", ".join(
                    players[pk].name for pk in award.between
                )
            elif award.none:
                who = "not awarded"
            else:
                who = ", ".join(players[pk].name for pk in award.players)
            out[f"medal:{division.division}:{award.medal}"] = (
                f"{award.medal.capitalize()}{suffix}: {who}"
            )
    return out


def correction_effects(round_, pips: dict[int, int]) -> list[tuple[str, str]]:
    """(before, after) for every advancement or medal that correcting ``round_`` would change."""
    event = round_.table.stage.event
    sheets = event_sheets(event)
    before = _outcomes(compute_results(event, sheets))
    corrected = {
        stage: [
            s.with_round(round_.number, pips) if s.table.pk == round_.table_id else s
            for s in stage_sheets
        ]
        for stage, stage_sheets in sheets.items()
    }
    after = _outcomes(compute_results(event, corrected))
    return [
        (before.get(key, "—"), after.get(key, "—"))
        for key in sorted(set(before) | set(after))
        if before.get(key) != after.get(key)
    ]
