"""Closing stages, advancing players, seating the next stage, playoffs and medals.

PRODUCT.md §6 and §7. The rules are scoring/awards.py's (plain Python); this module loads the
rows (a fixed number of queries per event), calls it, and saves the outcome in a transaction.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import F
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from scoring import awards
from scoring.models import Round
from scoring.seats import seat_stage
from scoring.sheets import TableSheet, event_sheets, store_totals
from tournament import finals
from tournament.clock_store import stop_at_close
from tournament.history import claim, log_action, settle
from tournament.message import Message
from tournament.models import Event, Medal, Player, Seat, Stage, StageKind, Table
from tournament.seating import SeatingError
from tournament.stage_names import say
from tournament.text import translated

ADVANCING_KINDS = (StageKind.QUALIFYING, StageKind.SEMIFINAL)


class AdvanceError(Exception):
    """A stage cannot be closed or the next one seated yet; the message says why."""


def table_division(sheet: TableSheet) -> str:
    """A table never mixes divisions: its division is its players'."""
    return division_of(p.division for p in sheet.players)


def division_of(divisions: Iterable[str]) -> str:
    """The division of a table whose players play in ``divisions`` (the first one's, as a
    table never mixes them; "" for none)."""
    return next(iter(divisions), "")


def scored_round(sheet: TableSheet) -> dict[int, int] | None:
    """A playoff table's one round, as player id -> pips, once it is entered."""
    return dict(sheet.rounds[0].pips) if sheet.rounds else None


@dataclass
class PlayoffOwed:
    """A playoff the tie rule asks for: who plays it and what it decides."""

    owed: awards.OwedPlayoff
    division: str = ""
    table: Table | None = None  # the table whose tie it settles (advancement)
    stage: Stage | None = None  # the stage it settles: its table, wildcards or medals

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
    # (stage id, division) -> the wildcards filling the next stage (tournament/finals.py)
    wildcards: dict[tuple[int, str], awards.Advancement] = field(default_factory=dict)
    # division -> its Final: the first stage where it sits at one table (PRODUCT.md §6)
    deciding: dict[str, Stage] = field(default_factory=dict)
    medals: list[DivisionMedals] = field(default_factory=list)
    owed: list[PlayoffOwed] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    playoff_problems: list[PlayoffProblem] = field(default_factory=list)

    @property
    def players(self) -> dict[int, Player]:
        return {p.pk: p for sheets in self.sheets.values() for s in sheets for p in s.players}

    def stage(self, number: int) -> Stage:
        return next(s for s in self.sheets if s.number == number)

    def advancing(self, stage: Stage) -> list[Player]:
        """The players who go on from a closed qualifying or semifinal stage."""
        players = self.players
        at_tables = [
            players[pk]
            for sheet in self.sheets[stage]
            for pk in self.advancement.get(sheet.table.pk, awards.Advancement(())).advancing
        ]
        wild = [
            players[pk]
            for (stage_id, _division), adv in sorted(self.wildcards.items())
            if stage_id == stage.pk
            for pk in adv.advancing
        ]
        return at_tables + wild

    def wildcards_of(self, stage: Stage) -> set[int]:
        return {
            pk
            for (stage_id, _division), adv in self.wildcards.items()
            if stage_id == stage.pk
            for pk in adv.advancing
        }

    def owed_for(self, stage: Stage) -> list[PlayoffOwed]:
        return [o for o in self.owed if o.stage is not None and o.stage.pk == stage.pk]

    def decides(self, stage: Stage) -> list[str]:
        """The divisions whose Final ``stage`` is."""
        return [d for d, s in self.deciding.items() if s.pk == stage.pk]

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


@dataclass(frozen=True)
class PlayoffProblem:
    """A scored playoff round that does not fit the ties: which playoffs it is among (those
    deciding ``decides`` for ``table_id``, or in ``division`` for medals) and which round."""

    message: str
    decides: str
    round_number: int
    table_id: int | None = None
    division: str = ""


class _ScoredPlayoffs:
    """The scored playoff rounds, in play order, indexed once by what they settle: by the
    table whose tie an advancement playoff settles, by the stage whose last wildcards it
    settles, and by division for medal playoffs.

    Only closed playoffs decide anything (formats/event-file.md: "advancers and medals are
    computed only from closed stages"), even when a round is scored in an open one.
    """

    def __init__(self, sheets_by_stage: dict[Stage, list[TableSheet]]) -> None:
        self.by_table: dict[int | None, list[dict[int, int]]] = {}
        self.by_wildcards: dict[tuple[int, str], list[dict[int, int]]] = {}
        self.by_division: dict[str, dict[str, list[dict[int, int]]]] = {}
        for stage, sheets in sorted(sheets_by_stage.items(), key=lambda kv: kv[0].number):
            if stage.kind != StageKind.PLAYOFF or not sheets or not stage.closed:
                continue
            scored = scored_round(sheets[0])
            if scored is None:
                continue
            if stage.medal == Medal.ADVANCE and stage.wildcards_of_id is not None:
                key = (stage.wildcards_of_id, stage.division)
                self.by_wildcards.setdefault(key, []).append(scored)
            elif stage.medal == Medal.ADVANCE:
                self.by_table.setdefault(stage.playoff_table_id, []).append(scored)
            else:
                medals = self.by_division.setdefault(stage.division, {})
                medals.setdefault(stage.medal, []).append(scored)

    def advancement(self, table_id: int) -> list[dict[int, int]]:
        return self.by_table.get(table_id, [])

    def wildcards(self, stage_id: int, division: str) -> list[dict[int, int]]:
        return self.by_wildcards.get((stage_id, division), [])

    def medals(self, division: str) -> dict[str, list[dict[int, int]]]:
        return self.by_division.get(division, {})


def by_division(sheets: Iterable[TableSheet]) -> dict[str, list[TableSheet]]:
    """A stage's seated tables, division by division."""
    out: dict[str, list[TableSheet]] = {}
    for sheet in sheets:
        if sheet.players:
            out.setdefault(table_division(sheet), []).append(sheet)
    return out


def deciding_stages(sheets: dict[Stage, list[TableSheet]]) -> dict[str, Stage]:
    """Each division's Final: the first stage (not a playoff) where it sits at one table. A
    Game 1 or semifinal of a single table is that division's Final (PRODUCT.md §6)."""
    deciding: dict[str, Stage] = {}
    for stage, stage_sheets in sorted(sheets.items(), key=lambda kv: kv[0].number):
        if stage.kind == StageKind.PLAYOFF:
            continue
        for division, tables in by_division(stage_sheets).items():
            if len(tables) == 1:
                deciding.setdefault(division, stage)
    return deciding


def compute_results(event: Event, sheets: dict[Stage, list[TableSheet]]) -> EventResults:
    """Advancers of every closed stage as the finals options say (top N of each table,
    wildcards), medals once a division's Final is closed, playoffs owed.

    Linear in the sheets: the scored playoffs are indexed once, not searched per table."""
    rules, options = event.rules, event.finals_options
    results = EventResults(event=event, sheets=sheets, deciding=deciding_stages(sheets))
    playoffs = _ScoredPlayoffs(sheets)
    for stage, stage_sheets in sorted(sheets.items(), key=lambda kv: kv[0].number):
        if not stage.closed or stage.kind not in ADVANCING_KINDS:
            continue
        for division, tables in by_division(stage_sheets).items():
            if results.deciding.get(division) is stage:
                continue  # this division's Final: medals below
            _advance_division(results, playoffs, stage, division, tables, rules, options)
    for division, final in sorted(results.deciding.items()):
        if not final.closed:
            continue
        totals: dict[int, int] = {}
        for sheet in by_division(sheets[final])[division]:
            totals.update(sheet.contenders)
        try:
            result = awards.medals(totals, rules.medal_tie, playoffs.medals(division))
        except awards.PlayoffMismatch as mismatch:
            message = Message("%(stage)s: %(why)s", stage=final.title, why=mismatch.args[0])
            results.problems.append(message)
            results.playoff_problems.append(
                PlayoffProblem(message, mismatch.decides, mismatch.round_number, division=division)
            )
            result = awards.medals(totals, rules.medal_tie)
        results.medals.append(DivisionMedals(division, result))
        results.owed.extend(PlayoffOwed(o, division, stage=final) for o in result.owed)
    return results


def _advance_division(results, playoffs, stage, division, tables, rules, options) -> None:
    """Who goes on from one division's tables of a closed stage: the top N of each table
    (tournament/finals.py), then the wildcards once every table's tie is settled."""
    k = finals.advance_per_table([len(s.players) for s in tables], options)
    settled = True
    for sheet in tables:
        rounds = playoffs.advancement(sheet.table.pk)
        try:
            adv = awards.table_advancers(sheet.contenders, rules.advancement_tie, rounds, places=k)
        except awards.PlayoffMismatch as mismatch:
            message = Message(
                "%(stage)s, table %(table)s: %(why)s",
                stage=stage.title,
                table=sheet.table.number,
                why=mismatch.args[0],
            )
            results.problems.append(message)
            results.playoff_problems.append(
                PlayoffProblem(
                    message, mismatch.decides, mismatch.round_number, table_id=sheet.table.pk
                )
            )
            adv = awards.table_advancers(sheet.contenders, rules.advancement_tie, places=k)
        results.advancement[sheet.table.pk] = adv
        if adv.owed:
            settled = False
            results.owed.append(PlayoffOwed(adv.owed, division, sheet.table, stage))
    if not settled:
        return
    advancing = {pk for s in tables for pk in results.advancement[s.table.pk].advancing}
    players = sum(len(s.players) for s in tables)
    wild = finals.wildcards(len(advancing), players, options)
    if not wild:
        return
    rest = {pk: t for s in tables for pk, t in s.contenders.items() if pk not in advancing}
    rounds = playoffs.wildcards(stage.pk, division)
    try:
        adv = awards.table_advancers(rest, rules.advancement_tie, rounds, places=wild)
    except awards.PlayoffMismatch as mismatch:
        message = Message("%(stage)s, wildcards: %(why)s", stage=stage.title, why=mismatch.args[0])
        results.problems.append(message)
        results.playoff_problems.append(
            PlayoffProblem(message, mismatch.decides, mismatch.round_number, division=division)
        )
        adv = awards.table_advancers(rest, rules.advancement_tie, places=wild)
    results.wildcards[(stage.pk, division)] = adv
    if adv.owed:
        results.owed.append(PlayoffOwed(adv.owed, division, stage=stage))


def load_results(event: Event) -> EventResults:
    return compute_results(event, event_sheets(event))


# -- completeness --------------------------------------------------------------------------------


def incomplete_tables(stage: Stage, sheets: Iterable[TableSheet]) -> list[Table]:
    """Tables whose game is not over: engines left to play, and not marked over after their
    last round (once time is called). Nothing is inferred from when rounds were typed."""
    return [s.table for s in sheets if s.players and not s.game_over]


# -- writes --------------------------------------------------------------------------------------


def _playoff_parts(owed: PlayoffOwed) -> dict:
    """What a playoff's name is made of (tournament/stage_names.py): the medals it settles and
    which replay it is; a tie at a table or at the wildcards' cut names its stage."""
    parts: dict = {"kind": "playoff"}
    if owed.table is None and owed.medal != Medal.ADVANCE:
        parts["medals"] = list(owed.owed.at_stake)
    if owed.owed.round_number > 1:
        parts["replay"] = owed.owed.round_number - 1
    return parts


def _next_number(event: Event) -> int:
    last = event.stages.order_by("-number").values_list("number", flat=True).first()
    return (last or 0) + 1


def _seated(stage: Stage) -> set[int]:
    return set(stage.seats.values_list("player_id", flat=True))


def _playoff_match(owed: PlayoffOwed) -> dict:
    """The fields of the playoff stage that plays ``owed``."""
    return {
        "division": owed.division,
        "medal": owed.medal,
        "playoff_table": owed.table,
        "wildcards_of": owed.stage if owed.table is None and owed.medal == Medal.ADVANCE else None,
    }


def not_yet_created(event: Event, owed: Iterable[PlayoffOwed]) -> list[PlayoffOwed]:
    """The owed playoffs that no playoff stage plays yet (the close page lists these; one
    created is a stage of its own, announced when created)."""
    playoffs = event.stages.filter(kind=StageKind.PLAYOFF)
    return [
        o
        for o in owed
        if sum(_seated(s) == set(o.owed.players) for s in playoffs.filter(**_playoff_match(o)))
        < o.owed.round_number  # a replay is owed once the first playoff tied
    ]


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


def _entrants(results: EventResults, before: Stage) -> dict[str, list[Player]]:
    """For each division still playing, the advancers of the last stage it played before
    ``before``. A division whose Final was earlier (one table) has none: it never waits on
    another, nor holds one up."""
    latest: dict[str, Stage] = {}
    for stage, sheets in sorted(results.sheets.items(), key=lambda kv: kv[0].number):
        if stage.number >= before.number or stage.kind not in ADVANCING_KINDS:
            continue
        for division in by_division(sheets):
            latest[division] = stage
    entrants: dict[str, list[Player]] = {}
    for division, stage in sorted(latest.items()):
        final = results.deciding.get(division)
        if final is not None and final.number <= stage.number:
            continue
        if not stage.closed:
            raise AdvanceError(_("%(s)s is not closed yet.") % {"s": stage.title})
        if any(o.division == division for o in results.owed_for(stage)):
            raise AdvanceError(
                _("%(s)s has playoffs to score before anyone advances.") % {"s": stage.title}
            )
        entrants[division] = [p for p in results.advancing(stage) if p.division == division]
    return entrants


def close_advancers(results: EventResults, stage: Stage) -> dict[str, int]:
    """By division, how many ``stage``'s close sends on (its results computed as closed: the
    close page's preview, or once closed), ties included. A division whose tie a playoff
    still decides is left out: its plan's count holds."""
    if not stage.closed or stage.kind not in ADVANCING_KINDS:
        return {}
    owed = {o.division for o in results.owed_for(stage)}
    counts: dict[str, int] = {}
    for player in results.advancing(stage):
        counts[player.division] = counts.get(player.division, 0) + 1
    return {
        division: counts.get(division, 0)
        for division in by_division(results.sheets[stage])
        if division not in owed and results.deciding.get(division) is not stage
    }


def needs_semifinal(event: Event, players: int) -> bool:
    """More players than one Final table holds (tournament/finals.py): a semifinal first."""
    rules = event.rules
    return players > finals.final_capacity(rules, event.finals_options) or not rules.can_deal(
        players
    )


def next_stage_plan(event: Event, results: EventResults | None = None):
    """The stage to seat next and who plays it: (stage or None to create, is_semifinal, players).

    More advancers in a division than one Final table holds means a semifinal for that
    division; the divisions that fit wait for the final.
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
        raise AdvanceError(_("Every stage is seated: there is no next stage to seat."))
    entrants = _entrants(results, target)
    if not entrants and results.deciding:
        raise AdvanceError(
            _("Every division has played its Final: a stage of one table decides the medals.")
        )
    too_many = {d: ps for d, ps in entrants.items() if needs_semifinal(event, len(ps))}
    if too_many:
        return target, True, [p for ps in too_many.values() for p in ps]
    return target, False, [p for ps in entrants.values() for p in ps]


def _insert_stage(event: Event, number: int, name: str, kind: str, **fields) -> Stage:
    """A new stage played at ``number``; the stages from there on move one later."""
    event.stages.filter(number__gte=number).order_by("-number").update(number=F("number") + 1000)
    event.stages.filter(number__gte=number + 1000).update(number=F("number") - 999)
    return Stage.objects.create(event=event, number=number, name=name, kind=kind, **fields)


def _after(event: Event, decided: Stage | None) -> int:
    """Where a playoff is played: right after the stage whose tie it settles and the playoffs
    already after it (so before the stage it seats), or last."""
    if decided is None:
        return _next_number(event)
    number = Stage.objects.get(pk=decided.pk).number
    for stage in event.stages.filter(number__gt=number).order_by("number"):
        if stage.kind != StageKind.PLAYOFF:
            break
        number = stage.number
    return number + 1


def previous_tables(stage: Stage, players) -> dict[Player, int | None]:
    """Each player's table in the stages before ``stage`` (not playoffs): a later stage keeps
    earlier tablemates apart as far as possible, when seated and when redrawn."""
    players = list(players)
    previous = {
        seat.player_id: seat.table_id
        for seat in Seat.objects.filter(
            stage__event=stage.event_id, stage__number__lt=stage.number, player__in=players
        )
        .exclude(stage__kind=StageKind.PLAYOFF)
        .order_by("stage__number")
    }
    return {p: previous.get(p.pk) for p in players}


def _seat_from(event: Event, stage: Stage, players: list[Player], rng, user) -> None:
    """Seat ``players`` at ``stage``, apart from their previous tablemates where possible."""
    try:
        seat_stage(stage, players, keep_apart=previous_tables(stage, players), rng=rng, user=user)
    except SeatingError as error:
        raise AdvanceError(translated(error)) from error


@transaction.atomic
def seat_next_stage(event: Event, rng=None, user=None, key: str | None = None) -> Stage:
    """Seat the next stage from the advancers, keeping players of a previous table apart.

    Serialized on the event: two directors confirming at once seat it once (the second finds
    it seated and is refused, or with the same form ``key`` gets the first one's stage).
    """
    event = event.locked()
    earlier = claim(key, user)
    if earlier is not None:
        return Stage.objects.get(pk=earlier.outcome["stage"])
    results = load_results(event)
    target, semifinal, players = next_stage_plan(event, results)
    if not players:
        raise AdvanceError(_("Nobody advances yet."))
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
            _seat_from(event, final, ready[division], rng, user)
        earlier = event.stages.filter(kind=StageKind.SEMIFINAL).count()
        name = _("Semifinal %(n)s") % {"n": earlier + 1} if earlier else _("Semifinal")
        parts = {"kind": "semifinal", **({"n": earlier + 1} if earlier else {})}
        target = _insert_stage(event, target.number, name, StageKind.SEMIFINAL, auto_name=parts)
        log_action(event, "stage.created", user, stage=target)
    _seat_from(event, target, players, rng, user)
    settle(key, stage=target.pk)
    return target


@transaction.atomic
def close_stage(stage: Stage, user) -> list[Stage]:
    """Close a stage whose tables all have their rounds; create the playoffs its ties ask for.

    Returns the playoff stages created. A closed playoff or final settles medals.
    """
    stage.event.locked()
    stage = Stage.objects.select_for_update().select_related("event").get(pk=stage.pk)
    if stage.closed:
        raise AdvanceError(_("%(s)s is already closed.") % {"s": stage.title})
    from scoring.sheets import stage_sheets

    sheets = stage_sheets(stage)
    if not sheets:
        raise AdvanceError(_("Nobody is seated in %(s)s.") % {"s": stage.title})
    waiting = incomplete_tables(stage, sheets)
    if waiting:
        numbers = ", ".join(str(t.number) for t in waiting)
        raise AdvanceError(_("Tables %(t)s still have rounds to play.") % {"t": numbers})
    stop_at_close(stage, user)
    stage.closed = True
    stage.save(update_fields=["closed"])
    log_action(stage.event, "stage.closed", user, stage=stage)
    return sync_playoffs(stage.event)


def _drop_unneeded_stages(event: Event, user) -> bool:
    """Once every division has played its Final (a stage of one table: 5 players, a small
    division), the semifinals and Final left unseated are not played: they are removed."""
    results = load_results(event)
    divisions = {
        table_division(sheet)
        for stage, sheets in results.sheets.items()
        if stage.kind != StageKind.PLAYOFF
        for sheet in sheets
        if sheet.players
    }
    if not divisions or not divisions <= set(results.deciding):
        return False
    for stage in results.sheets:
        if stage.kind in (StageKind.SEMIFINAL, StageKind.FINAL) and not results.sheets[stage]:
            log_action(event, "stage.removed", user, name=stage.name)
            stage.delete()
    return True


@dataclass
class Closed:
    """What closing a stage from its page did: the playoffs it created, the stage it seated
    (or why that stage could not be seated yet)."""

    playoffs: list[Stage]
    seated: Stage | None = None
    seat_error: str = ""


@transaction.atomic
def close_and_seat(stage: Stage, user, key: str | None = None, override: str = "") -> Closed:
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
    if stage.kind in ADVANCING_KINDS and _drop_unneeded_stages(event, user):
        pass  # every division has played its Final: nothing to seat
    elif stage.kind in ADVANCING_KINDS and not closed.playoffs:
        try:
            with transaction.atomic():
                closed.seated = seat_next_stage(event, user=user)
        except AdvanceError as why:
            closed.seat_error = str(why)
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


# -- corrections after a stage is closed ---------------------------------------------------------


def _outcomes(results: EventResults) -> dict[str, str]:
    """What a correction can change, as sentences keyed by what they are about."""
    players = results.players
    out = {}
    for stage in results.sheets:
        if stage.closed and stage.kind in ADVANCING_KINDS:
            advancing = sorted(p.name for p in results.advancing(stage))
            out[f"advance:{stage.pk}"] = (
                _("%(s)s: %(who)s advance") % {"s": stage.title, "who": ", ".join(advancing)}
                if advancing
                else _("%(s)s: nobody advances") % {"s": stage.title}
            )
    for division in results.medals:
        suffix = f" ({division.division})" if division.division else ""
        for award in division.result.medals:
            if award.pending:
                who = _("playoff pending between %(who)s") % {
                    "who": ", ".join(players[pk].name for pk in award.between)
                }
            elif award.none:
                who = _("not awarded")
            else:
                who = ", ".join(players[pk].name for pk in award.players)
            out[f"medal:{division.division}:{award.medal}"] = (
                f"{Medal(award.medal).label}{suffix}: {who}"
            )
    return out


def correction_effects(round_, pips: dict[int, int] | None) -> list[tuple[str, str]]:
    """(before, after) for every advancement or medal that correcting ``round_`` would change
    (``pips`` None: removing it)."""
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


# -- a correction after the next stage is seated (issue 12 item 4) -------------------------------


@dataclass
class SeatingConflict:
    """A correction changed who advances from ``source`` after ``stage`` was seated from it:
    ``out`` are seated there but no longer advance, ``in_`` advance but are not seated."""

    stage: Stage
    source: Stage
    division: str
    out: list[Player]
    in_: list[Player]
    advancers: list[int]  # the advancers now, by id (what "keep" is recorded against)

    seats: list[Seat] = field(default_factory=list)


def seating_conflicts(results: EventResults) -> list[SeatingConflict]:
    """Every seated semifinal or Final whose players are not the advancers of the stage it was
    seated from, unless the director kept the published seating for these advancers."""
    conflicts = []
    ordered = sorted(results.sheets, key=lambda s: s.number)
    for stage in ordered:
        if stage.kind not in (StageKind.SEMIFINAL, StageKind.FINAL) or not results.sheets[stage]:
            continue
        for division, tables in by_division(results.sheets[stage]).items():
            source = None
            for earlier in ordered:
                if earlier.number >= stage.number or earlier.kind not in ADVANCING_KINDS:
                    continue
                if division in by_division(results.sheets[earlier]):
                    source = earlier
            if source is None or not source.closed:
                continue
            if any(o.division == division for o in results.owed_for(source)):
                continue  # the advancers are not known yet
            now = [p for p in results.advancing(source) if p.division == division]
            ids = sorted(p.pk for p in now)
            if stage.kept_advancers.get(division) == ids:
                continue
            seated = [p for s in tables for p in s.players]
            out = [p for p in seated if p.pk not in set(ids)]
            in_ = [p for p in now if p not in seated]
            if out or in_:
                conflicts.append(SeatingConflict(stage, source, division, out, in_, ids))
    return conflicts


def find_conflict(event: Event, stage: Stage, division: str) -> SeatingConflict | None:
    for conflict in seating_conflicts(load_results(event)):
        if conflict.stage.pk == stage.pk and conflict.division == division:
            conflict.seats = list(
                Seat.objects.filter(stage=stage, player__division=division).select_related("table")
            )
            return conflict
    return None


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
    from scoring.models import Round

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
        for s in Seat.objects.filter(stage=stage):
            counts[s.table_id] += 1
        for coming in extra:
            table = min(tables, key=lambda t: (counts[t.pk], t.number))
            Seat.objects.create(
                stage=stage, table=table, player=coming, position=counts[table.pk] + 1
            )
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
