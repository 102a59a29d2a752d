"""An event's results as its rows stand: who advances, who plays off, the medals, what the next
stage would be, and what a late correction would change (PRODUCT.md §6 and §7). Reads only:
a fixed number of queries per event; the rules are tournament/game/awards.py's (plain
Python); the writes are scoring/services/stages.py's."""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.conf import settings
from django.core.cache import cache
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from scoring.sheets import TableSheet, event_sheets, event_summaries
from tournament.caching import version_key
from tournament.game import awards, clock, finals, formats, qualifiers, reseating
from tournament.game.message import Message
from tournament.game.seating import SeatingError, apart_pairs
from tournament.models import Action, Event, Medal, Player, Seat, Stage, StageKind, Table
from tournament.refusals import Refusal
from tournament.text import name_sort_key

ADVANCING_KINDS = (StageKind.QUALIFYING, StageKind.SEMIFINAL)


class AdvanceError(Refusal):
    """A stage cannot be closed or the next one seated yet; the message says why.
    ``size_to_allow``: when the stage cannot be seated at the sizes the rule set lists, a
    table size that, allowed for it, would seat it (the message names it)."""

    size_to_allow: int | None = None


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
    """A division's medals: ``result``, the tie rule's among its in-district players (all of
    them when nobody is out of district), and ``outside``, the duplicate medals of its
    out-of-district players by their place among everybody (tournament/game/qualifiers.py)."""

    division: str
    result: awards.MedalResult
    outside: dict[int, str] = field(default_factory=dict)

    def holders(self, medal: str) -> list[int]:
        """Everyone holding ``medal``: the in-district holders, then the out-of-district."""
        award = self.result.award(medal)
        return [*award.players, *sorted(pk for pk, m in self.outside.items() if m == medal)]


@dataclass
class EventResults:
    """Everything the bracket, results page and event file show, computed from the sheets."""

    event: Event
    sheets: dict[Stage, list[TableSheet]]
    advancement: dict[int, awards.Advancement] = field(default_factory=dict)  # by table id
    # (stage id, division) -> the wildcards filling the next stage (tournament/game/finals.py)
    wildcards: dict[tuple[int, str], awards.Advancement] = field(default_factory=dict)
    # division -> its Final: the first stage where it sits at one table (PRODUCT.md §6)
    deciding: dict[str, Stage] = field(default_factory=dict)
    medals: list[DivisionMedals] = field(default_factory=list)
    owed: list[PlayoffOwed] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    playoff_problems: list[PlayoffProblem] = field(default_factory=list)
    # A cumulative event (PRODUCT.md §12): its games in order, and after each closed game the
    # cumulative total of every player seated in its games so far (stage id -> player id ->).
    format: formats.Format = field(default_factory=formats.Format)
    games: list[Stage] = field(default_factory=list)
    cumulative: dict[int, dict[int, int]] = field(default_factory=dict)
    _away: set[int] | None = field(default=None, repr=False, compare=False)

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

    def by_total(self, stage: Stage) -> set[int]:
        """The players ``stage`` sends on by their total, whatever their table: its wildcards,
        the best N overall, a cumulative game's cut to the Final."""
        return {
            pk
            for (stage_id, _division), adv in self.wildcards.items()
            if stage_id == stage.pk
            for pk in adv.advancing
        }

    def wildcards_of(self, stage: Stage) -> set[int]:
        """The stage's wildcards: the players it sends on by their total beside those its
        division's tables send by place. Where the tables send nobody by place (only the best
        N overall go on; a cumulative game's cut) those players simply advance."""
        by_place = {
            table_division(sheet)
            for sheet in self.sheets.get(stage, ())
            if self.advancement.get(sheet.table.pk, awards.Advancement(())).advancing
        }
        return {
            pk
            for (stage_id, division), adv in self.wildcards.items()
            if stage_id == stage.pk and division in by_place
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
        """Player id -> the medal they won (an out-of-district player's duplicate included)."""
        return {
            **{
                pk: award.medal
                for division in self.medals
                for award in division.result.medals
                for pk in award.players
            },
            **{pk: medal for division in self.medals for pk, medal in division.outside.items()},
        }

    def out_of_district(self) -> set[int]:
        """The players marked out of district (PRODUCT.md §15), worked out once."""
        if self._away is None:
            self._away = {pk for pk, p in self.players.items() if p.out_of_district}
        return self._away


@dataclass(frozen=True)
class PlayoffProblem:
    """A scored playoff round that does not fit the ties: which playoffs it is among (those
    deciding ``decides`` for ``table_id``, or in ``division`` for medals) and which round."""

    message: str
    decides: str
    round_number: int
    table_id: int | None = None
    division: str = ""


class _PlayoffIndex:
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


def divisions_played(results: EventResults) -> set[str]:
    """The divisions seated in any stage but a playoff."""
    return {
        table_division(sheet)
        for stage, sheets in results.sheets.items()
        if stage.kind != StageKind.PLAYOFF
        for sheet in sheets
        if sheet.players
    }


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


def withdrawn_from(sheets: dict[Stage, list[TableSheet]]) -> dict[int, int]:
    """Each withdrawn player -> the number of the last stage (not a playoff) they hold a seat
    in: they are out of contention there and in every later stage (PRODUCT.md §12: a
    withdrawn player cannot advance or medal), while the stages before it keep what sent them
    on. A player who withdrew before playing a stage seated from advancers has lost that seat
    (tournament/services/seating.py), so the stage they advanced from no longer counts them."""
    out: dict[int, int] = {}
    for stage, stage_sheets in sheets.items():
        if stage.kind == StageKind.PLAYOFF:
            continue
        for sheet in stage_sheets:
            for p in sheet.players:
                if p.withdrawn:
                    out[p.pk] = max(out.get(p.pk, 0), stage.number)
    return out


def in_contention(sheet: TableSheet, out_from: dict[int, int]) -> dict[int, int]:
    """``sheet.contenders`` less the withdrawn players out of contention at its stage."""
    number = sheet.table.stage.number
    return {
        pk: total
        for pk, total in sheet.contenders.items()
        if pk not in out_from or number < out_from[pk]
    }


def compute_results(
    event: Event,
    sheets: dict[Stage, list[TableSheet]],
    out_from: dict[int, int] | None = None,
) -> EventResults:
    """Advancers of every closed stage as the finals options say (top N of each table,
    wildcards), medals once a division's Final is closed, playoffs owed; a cumulative event's
    standings, cut and medals (``_cumulative_results``). ``out_from``: the withdrawn players'
    ``withdrawn_from``, when ``sheets`` do not hold every stage's seats (an import's check).

    Linear in the sheets: the scored playoffs are indexed once, not searched per table."""
    rules, options = event.rules, event.finals_options
    playoffs = _PlayoffIndex(sheets)
    out_from = withdrawn_from(sheets) if out_from is None else out_from
    if event.format.is_cumulative:
        return _cumulative_results(event, sheets, playoffs, out_from)
    results = EventResults(event=event, sheets=sheets, deciding=deciding_stages(sheets))
    for stage, stage_sheets in sorted(sheets.items(), key=lambda kv: kv[0].number):
        if not stage.closed or stage.kind not in ADVANCING_KINDS:
            continue
        for division, tables in by_division(stage_sheets).items():
            if results.deciding.get(division) is stage:
                continue  # this division's Final: medals below
            _advance_division(results, playoffs, stage, division, tables, rules, options, out_from)
    for division, final in sorted(results.deciding.items()):
        if not final.closed:
            continue
        totals: dict[int, int] = {}
        for sheet in by_division(sheets[final])[division]:
            totals.update(in_contention(sheet, out_from))
        _award_medals(results, playoffs, final, division, totals)
    return results


def _award_medals(results, playoffs, final: Stage, division: str, totals: dict[int, int]) -> None:
    """One division's medals from ``totals`` (the Final's, or a cumulative event's), with the
    medal tie rule and the playoffs it owes."""
    rule = results.event.rules.medal_tie
    away = results.out_of_district() & set(totals)
    try:
        split = qualifiers.split_medals(totals, away, rule, playoffs.medals(division))
    except awards.PlayoffMismatch as mismatch:
        message = Message("%(stage)s: %(why)s", stage=final.title, why=mismatch.args[0])
        results.problems.append(message)
        results.playoff_problems.append(
            PlayoffProblem(message, mismatch.decides, mismatch.round_number, division=division)
        )
        split = qualifiers.split_medals(totals, away, rule)
    result = split.district
    results.medals.append(DivisionMedals(division, result, split.outside))
    results.owed.extend(PlayoffOwed(o, division, stage=final) for o in result.owed)


def game_stages(fmt: formats.Format, stages: Iterable[Stage]) -> list[Stage]:
    """A cumulative event's games: its first ``games`` qualifying stages, in play order."""
    ordered = sorted(stages, key=lambda s: s.number)
    return [s for s in ordered if s.kind == StageKind.QUALIFYING][: fmt.games]


def game_totals(sheets: list[TableSheet]) -> dict[int, int]:
    """Each seated player's total of one game (a player who withdrew during it: the rounds
    played)."""
    return {pk: total for sheet in sheets for pk, total in sheet.totals.items()}


def _cumulative_results(event: Event, sheets, playoffs: _PlayoffIndex, out_from) -> EventResults:
    """A cumulative event (PRODUCT.md §12): after each closed game, everyone's cumulative total;
    once the last game is closed, the medals from those totals (``cumulative``) or each
    division's cut to its Final (``cumulative_final``), whose close gives the medals.

    Only players who played every game and did not withdraw contend for the cut and the
    medals; a player who withdrew keeps the games played in the standings."""
    fmt, rules = event.format, event.rules
    games = game_stages(fmt, sheets)
    results = EventResults(event=event, sheets=sheets, format=fmt, games=games)
    running: dict[int, int] = {}
    out: set[int] = set()  # withdrew, or missed a game
    closed_games = 0
    for game in games:
        if not game.closed:
            break
        totals = game_totals(sheets[game])
        out |= {pk for s in sheets[game] for pk in s.left} | (set(running) - set(totals))
        if closed_games:
            out |= set(totals) - set(running)  # joined after Game 1
        running = formats.cumulative_totals([running, totals])
        results.cumulative[game.pk] = dict(running)
        closed_games += 1
    players = results.players
    last = games[-1] if games else None
    # withdrew from the event, unless seated in the Final already (it counts them no more)
    out |= {pk for pk in running if pk in out_from and last and out_from[pk] <= last.number}
    final = results.final if fmt.has_final else None
    for division in sorted(by_division(sheets[last]) if last else ()):
        results.deciding[division] = last
    if final is not None:
        for division in by_division(sheets[final]):
            results.deciding[division] = final
    if last is None or closed_games < len(games) or len(games) < fmt.games:
        return results
    contenders: dict[str, dict[int, int]] = {}
    for pk, total in running.items():
        if pk not in out:
            contenders.setdefault(players[pk].division, {})[pk] = total
    for division, totals in sorted(contenders.items()):
        if not fmt.has_final:
            _award_medals(results, playoffs, last, division, totals)
            continue
        size = fmt.final_players(rules)
        try:
            cut = formats.final_cut(totals, size, rules, playoffs.wildcards(last.pk, division))
        except awards.PlayoffMismatch as mismatch:
            message = Message("%(stage)s, cut: %(why)s", stage=last.title, why=mismatch.args[0])
            results.problems.append(message)
            results.playoff_problems.append(
                PlayoffProblem(message, mismatch.decides, mismatch.round_number, division=division)
            )
            cut = formats.final_cut(totals, size, rules)
        results.wildcards[(last.pk, division)] = cut
        if cut.owed:
            results.owed.append(PlayoffOwed(cut.owed, division, stage=last))
        if final is None or not final.closed or division not in by_division(sheets[final]):
            continue
        finalists = {
            pk: t
            for sheet in by_division(sheets[final])[division]
            for pk, t in in_contention(sheet, out_from).items()
        }
        _award_medals(
            results, playoffs, final, division, formats.medal_totals(fmt, totals, finalists)
        )
    return results


def _advance_division(results, playoffs, stage, division, tables, rules, options, out_from) -> None:
    """Who goes on from one division's tables of a closed stage: the top N of each table
    (tournament/game/finals.py), then the wildcards once every table's tie is settled."""
    k = finals.advance_per_table([len(s.players) for s in tables], options)
    settled = True
    contending = {sheet.table.pk: in_contention(sheet, out_from) for sheet in tables}
    for sheet in tables:
        rounds = playoffs.advancement(sheet.table.pk)
        contenders = contending[sheet.table.pk]
        try:
            adv = awards.table_advancers(contenders, rules.advancement_tie, rounds, places=k)
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
            adv = awards.table_advancers(contenders, rules.advancement_tie, places=k)
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
    rest = {
        pk: t for s in tables for pk, t in contending[s.table.pk].items() if pk not in advancing
    }
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


def walkover(sheet: TableSheet) -> bool:
    """A table of a stage seated from the advancers left with one player and no round (the
    others withdrew and nobody was called up): that player's result stands unplayed."""
    return (
        sheet.table.stage.kind in (StageKind.SEMIFINAL, StageKind.FINAL)
        and len(sheet.players) == 1
        and not sheet.rounds
    )


def walkover_undecided(stage: Stage) -> str:
    """Why a stage left with a lone player by a withdrawal cannot close yet."""
    return _(
        "A withdrawal left a player alone in %(s)s: call up the next advancer, or keep the "
        "seating so that their result stands, from the note on the event's home page."
    ) % {"s": stage.title}


def incomplete_tables(stage: Stage, sheets: Iterable[TableSheet]) -> list[Table]:
    """Tables whose game is not over: engines left to play, and not marked over after their
    last round (once time is called). Nothing is inferred from when rounds were typed. A
    walkover has nothing to play."""
    return [s.table for s in sheets if s.players and not s.game_over and not walkover(s)]


def short_table_notes(stage: Stage, sheets: Iterable[TableSheet]) -> list[str]:
    """At a stage's close, each table that played fewer rounds than the most any table of the
    stage played (a late start, time lost), named for the director who decides: "Table 4
    played 9 rounds, the others 12" (PRODUCT.md §15). The tables not named all played the
    most. A walkover and an empty table played nothing to compare; a playoff is one round."""
    if stage.kind == StageKind.PLAYOFF:
        return []
    rounds = {s.table.number: len(s.rounds) for s in sheets if s.players and not walkover(s)}
    short, most = clock.short_tables(rounds)
    return [
        ngettext(
            "Table %(t)s played %(n)s round, the others %(most)s.",
            "Table %(t)s played %(n)s rounds, the others %(most)s.",
            played,
        )
        % {"t": number, "n": played, "most": most}
        for number, played in short
    ]


# -- writes --------------------------------------------------------------------------------------


def _playoff_parts(owed: PlayoffOwed) -> dict:
    """What a playoff's name is made of (tournament/stage_names.py): the medals it settles and
    which replay it is; a tie at a table or at the wildcards' cut names its stage."""
    parts: dict = {"kind": "playoff"}
    if owed.table is None and owed.medal == Medal.ADVANCE and owed.stage is not None:
        if owed.stage.event.format.is_cumulative:
            parts["cut"] = True  # the places left in a cumulative event's Final
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


def needs_semifinal(event: Event, players: int, allow: int | None = None) -> bool:
    """More players than one Final table holds (tournament/game/finals.py), or a Final of a
    size the rule set does not deal (unless ``allow``ed for it): a semifinal first."""
    rules = event.rules.allowing(allow)
    return players > finals.final_capacity(rules, event.finals_options) or not rules.can_deal(
        players
    )


def next_stage_plan(event: Event, results: EventResults | None = None, allow: int | None = None):
    """The stage to seat next and who plays it: (stage or None to create, is_semifinal, players).

    More advancers in a division than one Final table holds means a semifinal for that
    division; the divisions that fit wait for the final. ``allow``: a table size allowed for
    the stage seated next (a Final of 3 at tables of 6 to 8).
    """
    results = results or load_results(event)
    if results.format.is_cumulative:
        return _next_game_plan(results)
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
    too_many = {d: ps for d, ps in entrants.items() if needs_semifinal(event, len(ps), allow)}
    if too_many:
        return target, True, [p for ps in too_many.values() for p in ps]
    return target, False, [p for ps in entrants.values() for p in ps]


def _next_game_plan(results: EventResults):
    """A cumulative event's next stage: the next game, played by everyone still in (the last
    game's players who have not withdrawn), or the Final, played by each division's cut."""
    stages = sorted(results.sheets, key=lambda s: s.number)
    target = next(
        (
            s
            for s in stages
            if s.kind in (StageKind.QUALIFYING, StageKind.FINAL)
            and not results.sheets[s]
            and not s.closed
        ),
        None,
    )
    if target is None:
        raise AdvanceError(_("Every stage is seated: there is no next stage to seat."))
    before = [s for s in results.games if s.number < target.number]
    if not before:
        raise AdvanceError(_("Seat %(s)s from the players checked in.") % {"s": target.title})
    previous = before[-1]
    if not previous.closed:
        raise AdvanceError(_("%(s)s is not closed yet.") % {"s": previous.title})
    if target.kind == StageKind.FINAL:
        if results.owed_for(previous):
            raise AdvanceError(
                _("%(s)s has playoffs to score before anyone advances.") % {"s": previous.title}
            )
        return target, False, results.advancing(previous)
    return target, False, still_playing(results, previous)


def still_playing(results: EventResults, game: Stage) -> list[Player]:
    """The players of a cumulative event's ``game`` who play the next one: all but those who
    withdrew."""
    players = [p for sheet in results.sheets[game] for p in sheet.players if p.pk not in sheet.left]
    return [p for p in players if not p.withdrawn]


def reseating_rule(results, stage: Stage, rng=None):
    """How a cumulative event seats ``stage``, a game after the first (PRODUCT.md §12), as
    ``seat_stage``'s ``arrange``: the event's reseating rule, from the games before it. None for
    any other stage (a random draw)."""
    fmt = results.format
    earlier = [g for g in results.games if g.number < stage.number]
    if not fmt.is_cumulative or stage.kind != StageKind.QUALIFYING or not earlier:
        return None
    previous = earlier[-1]
    sheets = sorted(results.sheets[previous], key=lambda s: s.table.number)
    game = game_totals(sheets)
    cumulative = results.cumulative.get(previous.pk, game)
    rng = rng or random.Random()

    def arrange(players: list[Player], sizes: list[int]) -> list[list[Player]]:
        by_pk = {p.pk: p for p in players}
        if fmt.reseat == formats.BY_STANDING:
            order = reseating.standing_order(
                list(by_pk), cumulative, game, {pk: pk for pk in by_pk}
            )
            tables = reseating.by_standing(order, sizes)
        elif fmt.reseat == formats.PROGRESSIVE:
            last = [[p.pk for p in s.players if p.pk in by_pk] for s in sheets]
            tables = reseating.progressive_balanced(
                [t for t in last if t], game, cumulative, fmt.move, sizes, stage.event.table_size
            )
        else:
            met = reseating.met_pairs(
                [p.pk for p in s.players] for g in earlier for s in results.sheets[g]
            )
            # keep-apart groups (a household, a club) as if they had met: apart where possible
            met |= apart_pairs({pk: getattr(p, "keep_apart", "") for pk, p in by_pk.items()})
            tables = reseating.fewest_repeats(sorted(by_pk), sizes, met, rng)
        return [[by_pk[pk] for pk in table] for table in tables]

    return arrange


@dataclass(frozen=True)
class TableMoves:
    """Who leaves one table of a progressive game for the next game: ``up`` to table ``above``,
    ``down`` to table ``below`` (names, seat order)."""

    division: str
    table: int
    up: list[str]
    above: int | None
    down: list[str]
    below: int | None


def progressive_moves(results: EventResults, stage: Stage) -> list[TableMoves]:
    """Who moves up and down after ``stage``, a game of a progressive event with another game
    after it, as the next game's seating moves them (tournament/game/reseating.py): each
    division's tables in order, the players still playing, once ``stage`` is closed (the close
    page's preview closes it in the results it shows). Empty for any other stage."""
    fmt, games = results.format, results.games
    at = next((i for i, g in enumerate(games) if g.pk == stage.pk), None)
    if fmt.reseat != formats.PROGRESSIVE or at is None or at + 1 >= len(games):
        return []
    if not stage.closed or stage.pk not in results.cumulative:
        return []
    sheets = sorted(results.sheets[stage], key=lambda s: s.table.number)
    game = game_totals(sheets)
    cumulative = results.cumulative[stage.pk]
    playing = still_playing(results, stage)
    out = []
    for division in sorted({p.division for p in playing}):
        names = {p.pk: p.name for p in playing if p.division == division}
        tables = [(s.table.number, [p.pk for p in s.players if p.pk in names]) for s in sheets]
        tables = [(number, pks) for number, pks in tables if pks]
        moving = reseating.movers(
            [pks for _number, pks in tables],
            game,
            cumulative,
            [reseating.moving_at(fmt.move, len(pks)) for _number, pks in tables],
        )
        for i, ((number, _pks), (up, down)) in enumerate(zip(tables, moving, strict=True)):
            if up or down:
                out.append(
                    TableMoves(
                        division,
                        number,
                        [names[pk] for pk in up],
                        tables[i - 1][0] if up else None,
                        [names[pk] for pk in down],
                        tables[i + 1][0] if down else None,
                    )
                )
    return out


@dataclass(frozen=True)
class CutTie:
    """Players tied at the cut of a cumulative event's Final: a playoff among them decides the
    ``places`` left (names with their cumulative totals)."""

    division: str
    players: list[str]
    places: int


def cut_ties(results: EventResults, stage: Stage) -> list[CutTie]:
    """The ties at the cut that ``stage``, a cumulative event's last game, leaves to a playoff
    (its close page names them), by division; empty for any other stage or once played."""
    if not results.format.has_final or not results.games or results.games[-1].pk != stage.pk:
        return []
    totals = results.cumulative.get(stage.pk, {})
    players = results.players
    return [
        CutTie(
            o.division,
            [
                f"{players[pk].name} ({totals.get(pk, 0)})"
                for pk in sorted(
                    o.owed.players,
                    key=lambda pk: (totals.get(pk, 0), name_sort_key(players[pk].name)),
                )
            ],
            len(o.owed.at_stake),
        )
        for o in results.owed_for(stage)
        if o.table is None and o.medal == Medal.ADVANCE
    ]


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


# -- corrections after a stage is closed ---------------------------------------------------------


def _outcomes(results: EventResults) -> dict[str, str]:
    """What a correction can change, as sentences keyed by what they are about."""
    players = results.players
    out = {}
    cut = results.games[-1:] if results.format.kind == formats.CUMULATIVE_FINAL else []
    for stage in results.sheets:
        if results.format.is_cumulative and stage not in cut:
            continue  # everyone plays every game: only the cut to the Final sends players on
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
            away = [pk for pk in division.holders(award.medal) if pk not in award.players]
            if away:  # the duplicate medals of out-of-district players
                who = "; ".join(
                    [
                        who,
                        *(
                            _("%(name)s (out of district)") % {"name": players[pk].name}
                            for pk in away
                        ),
                    ]
                )
            out[f"medal:{division.division}:{award.medal}"] = _("%(medal)s: %(who)s") % {
                "medal": f"{Medal(award.medal).label}{suffix}",
                "who": who,
            }
    return out


@dataclass
class CorrectionEffects:
    """What correcting a round of a closed stage would change: ``lines``, (before, after)
    sentences (who advances, who moves up or down, who sits where, who medals); ``seating``,
    the seated stages the corrected totals would seat otherwise."""

    lines: list[tuple[str, str]]
    seating: list[SeatingChange] = field(default_factory=list)

    @property
    def reseat(self) -> Stage | None:
        """The stage that can be seated again from the corrected totals: the first one
        changed that has no round entered yet."""
        return next((c.stage for c in self.seating if not c.played), None)

    @property
    def kept(self) -> list[Stage]:
        """The games with rounds entered that the corrected totals would seat otherwise: they
        keep their seating, and the event page says it followed the old totals."""
        return [c.stage for c in self.seating if c.played and c.moves]


def correction_effects(round_, pips: dict[int, int] | None) -> CorrectionEffects:
    """What correcting ``round_`` to ``pips`` (None: removing it) would change: every
    advancement, move, seat and medal."""
    event = round_.table.stage.event
    sheets = event_sheets(event)
    corrected = {
        stage: [
            s.with_round(round_.number, pips) if s.table.pk == round_.table_id else s
            for s in stage_sheets
        ]
        for stage, stage_sheets in sheets.items()
    }
    before, after = compute_results(event, sheets), compute_results(event, corrected)
    was, now = _outcomes(before), _outcomes(after)
    lines = [
        (was.get(key, "—"), now.get(key, "—"))
        for key in sorted(set(was) | set(now))
        if was.get(key) != now.get(key)
    ]
    lines += _move_lines(before, after)
    seating = seating_changes(before, after)
    for change in seating:
        lines += _seat_lines(change)
    return CorrectionEffects(lines, seating)


# -- what a correction changes to the seating (issue 45 item 6) ----------------------------------

# The reseating rules that read the totals (the fewest repeats reads who sat together).
RULES_ON_TOTALS = (formats.BY_STANDING, formats.PROGRESSIVE)


@dataclass
class SeatingChange:
    """A seated stage that corrected totals would seat otherwise: a cumulative game whose
    players would sit at other tables (``moves``: the player, their table now, the table the
    corrected totals give), or a semifinal or Final seated from advancers who change (a
    ``SeatingConflict``: ``out`` would give their seats to ``in_``). ``played``: rounds are
    entered there, so it can no longer be seated again."""

    stage: Stage
    played: bool
    moves: list[tuple[Player, int, int]] = field(default_factory=list)
    division: str = ""
    out: list[Player] = field(default_factory=list)
    in_: list[Player] = field(default_factory=list)


def _played(results: EventResults, stage: Stage) -> bool:
    return any(s.played for s in results.sheets[stage])


def seated_at(results: EventResults, stage: Stage) -> dict[int, int]:
    """Each player seated in ``stage`` (by id) -> their table's number, as seated."""
    return {p.pk: s.table.number for s in results.sheets[stage] for p in s.players}


def rule_seatings(results: EventResults) -> dict[Stage, dict[int, int]]:
    """Where the reseating rule seats each player (id -> table number) of every seated game
    of a cumulative event reseated by standing or progressive, the game before it closed:
    from ``results``' totals, the players and the table sizes in place, as ``reseat_game``
    seats them. A division whose players the rule cannot seat as they are (a player who
    joined late, a withdrawal) is left out."""
    fmt = results.format
    if not fmt.is_cumulative or fmt.reseat not in RULES_ON_TOTALS:
        return {}
    out = {}
    for previous, game in zip(results.games, results.games[1:], strict=False):
        sheets = sorted(results.sheets[game], key=lambda s: s.table.number)
        known = results.cumulative.get(previous.pk)
        if not sheets or not previous.closed or known is None:
            continue
        arrange = reseating_rule(results, game)
        seated: dict[int, int] = {}
        for tables in by_division(sheets).values():
            players = sorted({p for s in tables for p in s.players}, key=lambda p: p.pk)
            if any(p.pk not in known for p in players):
                continue
            try:
                plan = arrange(players, [len(s.players) for s in tables])
            except SeatingError:
                continue
            for sheet, table in zip(tables, plan, strict=True):
                seated.update({p.pk: sheet.table.number for p in table})
        out[game] = seated
    return out


def seating_changes(before: EventResults, after: EventResults) -> list[SeatingChange]:
    """The seated stages whose seating a correction changes, ``before`` and ``after`` it, in
    play order: the cumulative games the reseating rule seats otherwise from the corrected
    totals (each player whose table the rule changes, and who does not already sit there),
    and the semifinals and Finals seated from advancers who change."""
    old, new = rule_seatings(before), rule_seatings(after)
    players = after.players
    out = []
    for game, tables in new.items():
        was, here = old.get(game, {}), seated_at(after, game)
        moves = sorted(
            (
                (players[pk], here[pk], table)
                for pk, table in tables.items()
                if was.get(pk, table) != table and here.get(pk, table) != table
            ),
            key=lambda m: (m[1], m[2], name_sort_key(m[0].name)),
        )
        if moves:
            out.append(SeatingChange(game, _played(after, game), moves))
    known = {(c.stage.pk, c.division): c for c in seating_conflicts(before)}
    for c in seating_conflicts(after):
        k = known.get((c.stage.pk, c.division))
        if k is not None and k.advancers == c.advancers:
            continue  # the seating was not the advancers' before the correction either
        played = _played(after, c.stage)
        out.append(SeatingChange(c.stage, played, division=c.division, out=c.out, in_=c.in_))
    return sorted(out, key=lambda c: c.stage.number)


def _table_moves(stage: Stage, m: TableMoves) -> str:
    """One table's moves, as the close page says them: "Game 1, table 2 — up to table 1: Ann ·
    down to table 3: Bo"."""
    moving = []
    if m.up:
        moving.append(_("up to table %(n)s: %(names)s") % {"n": m.above, "names": ", ".join(m.up)})
    if m.down:
        moving.append(
            _("down to table %(n)s: %(names)s") % {"n": m.below, "names": ", ".join(m.down)}
        )
    where = _("%(s)s, table %(t)s") % {"s": stage.title, "t": m.table}
    if m.division:
        where += f" ({m.division})"
    return f"{where} — " + (" · ".join(moving) or _("nobody moves"))


def _move_lines(before: EventResults, after: EventResults) -> list[tuple[str, str]]:
    """(before, after) for each table of a progressive event's closed games whose players
    moving up or down a correction changes."""
    out = []
    for game in after.games:
        was = {(m.division, m.table): m for m in progressive_moves(before, game)}
        now = {(m.division, m.table): m for m in progressive_moves(after, game)}
        for key in sorted(set(was) | set(now)):
            old, new = was.get(key), now.get(key)
            if old != new:
                blank = TableMoves(key[0], key[1], [], None, [], None)
                out.append((_table_moves(game, old or blank), _table_moves(game, new or blank)))
    return out


def _seat_lines(change: SeatingChange) -> list[tuple[str, str]]:
    """(before, after) for each seat of ``change``."""
    title = change.stage.title
    if change.division:
        title += f" ({change.division})"
    lines = [
        (
            _("%(s)s: %(player)s at table %(t)s") % {"s": title, "player": p.name, "t": here},
            _("%(s)s: %(player)s at table %(t)s") % {"s": title, "player": p.name, "t": there},
        )
        for p, here, there in change.moves
    ]
    if change.out or change.in_:
        lines.append(
            (
                _("%(s)s seats %(who)s") % {"s": title, "who": _names(change.out)},
                _("%(s)s seats %(who)s") % {"s": title, "who": _names(change.in_)},
            )
        )
    return lines


def _names(players: list[Player]) -> str:
    return ", ".join(p.name for p in players) or "—"


# A correction left a game seated as the totals before it gave (scoring/services/stages.py
# ``correct_and_reseat``): its history entry, and the note on the event home.
SEATED_ON_OLD_TOTALS = "stage.seated_on_old_totals"


def seated_on_old_totals(event: Event) -> list[Action]:
    """The history's entries saying a game was seated on the totals before a correction that
    are still true, the latest of each game: the game is seated otherwise than its reseating
    rule seats it from the totals now (seating it again, a correction back, or taking its
    seating away ends the note). Kept for the event's version; one query while there is
    none."""

    def compute():
        entries = list(
            Action.objects.filter(event=event, verb=SEATED_ON_OLD_TOTALS, stage__isnull=False)
            .select_related("stage")
            .order_by("at", "pk")
        )
        if not entries:
            return []
        latest = {a.stage_id: a for a in entries}
        results = load_results(event)
        ruled = {stage.pk: tables for stage, tables in rule_seatings(results).items()}
        seated = {stage.pk: seated_at(results, stage) for stage in results.sheets}

        def still_true(pk: int) -> bool:
            here, tables = seated.get(pk), ruled.get(pk)
            if not here:
                return False  # its seating was removed
            if not tables:
                return True  # the rule cannot seat it as it is: nothing says it follows
            return any(here.get(player) != table for player, table in tables.items())

        return [a for pk, a in latest.items() if still_true(pk)]

    return cache.get_or_set(
        f"old-totals:{version_key(event)}", compute, settings.FRAGMENT_CACHE_SECONDS
    )


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
    seated from, unless the director kept the published seating for these advancers.

    Linear in the seats: each stage's divisions and each source's advancers are worked out
    once, and players are compared by id."""
    conflicts = []
    ordered = sorted(results.sheets, key=lambda s: s.number)
    divisions = {stage.pk: by_division(results.sheets[stage]) for stage in ordered}
    advancers: dict[int, dict[str, list[Player]]] = {}  # source stage id -> division ->
    for stage in ordered:
        if stage.kind not in (StageKind.SEMIFINAL, StageKind.FINAL):
            continue
        for division, tables in divisions[stage.pk].items():
            source = None
            for earlier in ordered:
                if earlier.number >= stage.number or earlier.kind not in ADVANCING_KINDS:
                    continue
                if division in divisions[earlier.pk]:
                    source = earlier
            if source is None or not source.closed:
                continue
            if any(o.division == division for o in results.owed_for(source)):
                continue  # the advancers are not known yet
            if source.pk not in advancers:
                advancers[source.pk] = {}
                for p in results.advancing(source):
                    advancers[source.pk].setdefault(p.division, []).append(p)
            now = advancers[source.pk].get(division, [])
            ids = sorted(p.pk for p in now)
            if stage.kept_advancers.get(division) == ids:
                continue
            seated = [p for s in tables for p in s.players]
            advancing, seated_ids = set(ids), {p.pk for p in seated}
            out = [p for p in seated if p.pk not in advancing]
            in_ = [p for p in now if p.pk not in seated_ids]
            if out or in_:
                conflicts.append(SeatingConflict(stage, source, division, out, in_, ids))
    return conflicts


def current_conflicts(event: Event) -> list[SeatingConflict]:
    """The seating conflicts as the event stands, for its pages (the note on the event home):
    worked out once per change of the event from the tables' summaries, as the bracket reads
    them; none before a semifinal or Final is seated. A director's decision reads them afresh
    (``find_conflict``)."""

    def compute():
        later = event.stages.filter(
            kind__in=(StageKind.SEMIFINAL, StageKind.FINAL), tables__isnull=False
        )
        if not later.exists():
            return []
        return seating_conflicts(compute_results(event, event_summaries(event)))

    key = f"seating-conflicts:{version_key(event)}"
    return cache.get_or_set(key, compute, settings.FRAGMENT_CACHE_SECONDS)


def find_conflict(event: Event, stage: Stage, division: str) -> SeatingConflict | None:
    for conflict in seating_conflicts(load_results(event)):
        if conflict.stage.pk == stage.pk and conflict.division == division:
            conflict.seats = list(
                Seat.objects.filter(stage=stage, player__division=division).select_related("table")
            )
            return conflict
    return None
