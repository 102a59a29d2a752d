"""The game's checks of an event file: what its shape (``schema.py``) cannot say.

The rule set must be playable, the format too, each table at a size it can deal (a size
``tiles_drawn`` lists, or another dealt as ``RuleSet.tiles_for`` says), each round's engine the
next of its engines and its pips within the bounds, each player seated once
per stage, a cumulative event's stages in their order (its games, the playoffs of the cut, its
Final, the medal playoffs), each infraction in a round reached, each clock possible, each
playoff one the results call for.

No rule of the game is written here: the rule set is checked by ``RuleSet.problems`` (with the
sets mixed), the format by ``Format.problems``, each round by ``round_errors``, an infraction's
round by the infraction service's check, the clock by ``Clock``, and playoffs by computing the
results the way the site does (``compute_results``).
This module only asks them, and locates their answers in the file.

The checks read every part of the file that has the right shape; a value with a shape error (it
is reported already) reads as a ``Bad`` one, and the checks that need it are skipped.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field, replace
from datetime import UTC, timedelta
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from scoring.eventfile.errors import Errors, at, show
from scoring.eventfile.schema import (
    EARLIEST_DATE,
    LATEST_DATE,
    EventExtra,
    EventFile,
    EventInfo,
    Rules,
    RulesExtra,
    moment,
)
from scoring.results import ADVANCING_KINDS, compute_results, division_of
from scoring.services.infractions import engine_error
from scoring.sheets import SheetRound, TableSheet, build_sheet
from tournament.game.clock import Clock
from tournament.game.finals import FinalsOptions
from tournament.game.formats import CUMULATIVE, CUMULATIVE_FINAL, PROGRESSIVE, Format
from tournament.game.rules import MAX_TABLE, SETS, RuleSet, round_errors
from tournament.models import (
    FORMAT_FIELDS,
    AgeOn,
    Event,
    InfractionScope,
    Medal,
    PaperSize,
    Player,
    QualifierTie,
    Stage,
    StageKind,
    Table,
)
from tournament.registration import parse_brackets
from tournament.text import translated

# The event's fields a file sets.
EVENT_FIELDS = (
    "late_arrivals",
    "table_entry",
    "archived",
    "results_held",
    "signup_open",
    "signup_closes",
    "signup_capacity",
    "signup_approval",
    "age_brackets",
    "age_on",
    "name",
    "date",
    "venue",
    "set_size",
    "sets",
    "engines",
    "table_size",
    "game_minutes",
    "round_in_progress",
    "double_blank_points",
    "advancement_tie",
    "medal_tie",
    "infraction_penalty",
    "infraction_scope",
    "paper_size",
    "time_zone",
    "finals_top_n",
    "finals_fill_to",
    "finals_big_final",
    "sheet_language",
    "seed_by_rating",
    "qualifying_places",
    "next_level",
    "qualifier_tie",
    *FORMAT_FIELDS.values(),
)


class Bad:
    """A value with a shape error, already reported: ``raw`` as the file gave it."""

    def __init__(self, raw: Any = None) -> None:
        self.raw = raw


BAD: Any = Bad()


def _ok(*values: Any) -> bool:
    return Bad not in map(type, values)


def _given(value: Any, default: Any = None) -> Any:
    """An optional value: ``default`` when not given (or ``null``)."""
    return default if value is None else value


@dataclass
class TablePlan:
    number: int
    players: list[str]
    rounds: list[tuple[int, dict[str, int]]] = field(default_factory=list)  # (engine, pips)
    withdrew: dict[str, int] = field(default_factory=dict)
    joined: dict[str, int] = field(default_factory=dict)


@dataclass
class StagePlan:
    """What the checks learn of a stage beyond its shape."""

    name: str
    kind: str
    closed: bool
    medal: str = ""
    division: str | None = None  # None: not given, derived from the players
    table_ref: tuple[int, int] | None = None  # (stage index, table number)
    wildcards_of: int | None = None  # a wildcard playoff: the index of the stage it settles
    kept: dict[str, list[str]] = field(default_factory=dict)  # the seating kept (by division)
    allowed_size: int | None = None  # a table size a director allowed for the stage
    draft: bool = False  # its seating is a draft (absent in a file: published)
    tables: list[TablePlan] = field(default_factory=list)


@dataclass
class Plan:
    """A valid file: its models, the event's fields, and what the checks learnt of its
    stages (a playoff's division, the table an advancement playoff settles)."""

    file: EventFile
    event: dict[str, Any]
    stages: list[StagePlan]


def check(errors: Errors, file: EventFile | Bad, broken: frozenset[tuple]) -> Plan:
    """Record the game's errors of ``file`` (read as far as its shape allows; ``broken``: the
    places of its shape errors) and return what it says."""
    checks = _Checks(errors, broken)
    fields = checks.event(file.event)
    checks.players(file.players)
    checks.format_problems()
    stages = checks.stages(file.stages)
    plan = Plan(file, fields, stages)
    if not errors:
        _check_playoffs(errors, plan)
    return plan


def _the(value: Any, empty: Any) -> Any:
    """A list or object of the file, ``empty`` when it has a shape error."""
    return value if _ok(value) and value is not None else empty


def _not_seated(ref: Any) -> str:
    return _("%(value)s is not seated at this table") % {"value": show(ref)}


def _not_a_player(ref: Any) -> str:
    return _("%(value)s is not the id of a player in players") % {"value": show(ref)}


# -- the rule set --------------------------------------------------------------------------------


def usual_table_size(rules: RuleSet) -> int:
    """The usual table size when the file does not say: 4, else the dealable size nearest 4."""
    sizes = rules.dealable_sizes or tuple(sorted(rules.tiles_drawn)) or (4,)
    return min(sizes, key=lambda n: (abs(n - 4), n))


def _rule_problems(
    errors: Errors, where: str, rules: RuleSet, table_size_given: bool, complete: bool
) -> bool:
    """Record ``rules.problems()``, each at the part of the rule set that causes it.

    A problem is placed by asking the same question of a rule set that differs from a playable
    one in that part alone: an engine (alone, or with itself when listed again), one
    tiles-drawn entry, the time limit, the double-blank, or the usual table size. When a part
    was wrong (``complete`` false), problems of the whole (the usual table size against the
    tiles drawn) are left until it is corrected.
    """
    problems = rules.problems()
    if not problems:
        return True
    base = RuleSet(
        set=rules.set,
        sets=rules.sets,
        engines=(rules.set,),
        tiles_drawn={2: 1},
        table_size=2,
        game_minutes=None,
        double_blank_points=0,
    )
    some_size = next(iter(rules.tiles_drawn), 2)
    # Each engine alone (is it a double of the set?), and the first one listed again with
    # itself (a repeat): one small rule set per engine, never one per prefix of the list.
    candidates: list[tuple[str, RuleSet]] = []
    seen: set[int] = set()
    for i, engine in enumerate(rules.engines):
        again = (engine, engine) if engine in seen else (engine,)
        candidates.append((at(at(where, "engines"), i), replace(base, engines=again)))
        seen.add(engine)
    candidates.append((at(where, "engines"), replace(base, engines=rules.engines)))
    candidates += [
        (
            at(at(where, "tiles_drawn"), str(size)),
            replace(base, tiles_drawn={size: n}, table_size=size),
        )
        for size, n in rules.tiles_drawn.items()
    ]
    candidates.append(
        (
            at(where, "tiles_drawn"),
            replace(base, tiles_drawn=rules.tiles_drawn, table_size=some_size),
        )
    )
    candidates.append((at(where, "game_minutes"), replace(base, game_minutes=rules.game_minutes)))
    candidates.append(
        (
            at(where, "double_blank_points"),
            replace(base, double_blank_points=rules.double_blank_points),
        )
    )
    table_size_at = (
        at(at(where, "extra"), "table_size") if table_size_given else at(where, "tiles_drawn")
    )
    candidates.append(
        (table_size_at, replace(base, tiles_drawn=rules.tiles_drawn, table_size=rules.table_size))
    )
    whole = (table_size_at, where)
    for problem in problems:
        place = next((at for at, variant in candidates if problem in variant.problems()), where)
        if complete or place not in whole:
            errors.add(place, problem)
    return False


def _rules(errors: Errors, rules: Rules, broken: frozenset) -> tuple[RuleSet | None, dict, bool]:
    """The rule set to check tables and rounds with (None when its set, sets, engines, tiles
    drawn or double-blank have errors); the event fields it sets; and whether it is the file's
    own, without an error (not a stand-in for the checks of tables and rounds).

    Every part is checked even when another is wrong: a wrong part is replaced by a playable
    stand-in while ``RuleSet.problems`` is asked about the others.
    """
    where = "event.rules"
    the_set = rules.set_
    sets = rules.sets
    engines = rules.engines if _ok(rules.engines) and _ok(*rules.engines) else BAD
    tiles = rules.tiles_drawn
    if _ok(tiles):
        tiles = {int(size): drawn for size, drawn in tiles.items() if _ok(drawn)}
    tiles_complete = _ok(tiles) and ("event", "rules", "tiles_drawn") not in broken
    minutes = rules.game_minutes
    in_progress = rules.round_in_progress
    double_blank = rules.double_blank_points
    extra = _the(rules.extra, RulesExtra())
    table_size = extra.table_size
    site_penalty = extra.infraction_penalty
    scope = _given(extra.infraction_scope, InfractionScope.GAME)
    late = _given(extra.late_arrivals, False)
    fields = dict(
        set_size=the_set,
        sets=sets,
        engines=engines,
        tiles_drawn=tiles,
        game_minutes=minutes,
        round_in_progress=in_progress,
        double_blank_points=double_blank,
        advancement_tie=rules.advancement_tie,
        medal_tie=rules.medal_tie,
        infraction_penalty=_given(site_penalty, rules.infraction_penalty),
        infraction_scope=scope,
        late_arrivals=late if _ok(late) else False,
    )
    if not _ok(the_set):
        return None, fields, False
    if the_set not in SETS:
        errors.add(at(where, "set"), RuleSet(set=the_set).problems()[0])
        return None, fields, False
    complete = tiles_complete and _ok(
        sets,
        engines,
        minutes,
        double_blank,
        table_size,
        in_progress,
        rules.advancement_tie,
        rules.medal_tie,
        rules.infraction_penalty,
        site_penalty,
        scope,
    )
    ruleset = RuleSet(
        set=the_set,
        sets=sets if _ok(sets) else 1,
        engines=tuple(engines) if _ok(engines) else (the_set,),
        tiles_drawn=tiles if tiles_complete else ((_ok(tiles) and tiles) or {2: 1}),
        game_minutes=minutes if _ok(minutes) else None,
        double_blank_points=double_blank if _ok(double_blank) else 0,
        round_in_progress=in_progress if _ok(in_progress) else "finish",
    )
    given = table_size is not None and _ok(table_size)
    ruleset = replace(ruleset, table_size=table_size if given else usual_table_size(ruleset))
    fields["table_size"] = ruleset.table_size
    if _rule_problems(errors, where, ruleset, given, complete) and complete:
        return ruleset, fields, True
    # The tables and rounds are still checked when only the time limit or the usual table
    # size is wrong, not when the set, sets, engines, tiles drawn or double-blank are.
    for_tables = replace(
        ruleset, game_minutes=None, table_size=min(ruleset.tiles_drawn, default=ruleset.table_size)
    )
    if for_tables.problems() or not (tiles_complete and _ok(sets, engines, double_blank)):
        return None, fields, False
    timed = replace(for_tables, game_minutes=ruleset.game_minutes)
    return (for_tables if timed.problems() else timed), fields, False


# -- the whole file ------------------------------------------------------------------------------


class _Checks:
    def __init__(self, errors: Errors, broken: frozenset[tuple]) -> None:
        self.error = errors.add
        self.errors = errors
        self.broken = broken
        self.rules: RuleSet | None = None
        self.rules_clean = False  # the file's rule set, without an error (not a stand-in)
        self.format: Format | None = None  # None: its kind has an error
        self.format_bad: set[str] = set()  # Format's names whose value has an error
        self.field = 0  # the players not withdrawn
        self.divisions: dict[str, str] = {}  # player id -> division ("" for none)

    # -- moments ----------------------------------------------------------------------------
    def moment(self, text: Any, where: str) -> Any:
        """A moment from ``EARLIEST_DATE`` to ``LATEST_DATE``, like the event's date. Nothing
        ties it to the event's date: a club types in its paper sheets of 2024 today, a
        director tries the clock of next year's event now (the site lets both happen)."""
        if text is None or not _ok(text):
            return text
        value = moment(text)
        try:
            utc_day = value.astimezone(UTC).date()
        except OverflowError:
            utc_day = None
        if utc_day is not None and EARLIEST_DATE <= utc_day <= LATEST_DATE:
            return value
        self.error(
            where,
            _("%(value)s is not between %(lo)s and %(hi)s")
            % {"value": show(text), "lo": EARLIEST_DATE, "hi": LATEST_DATE},
        )
        return BAD

    # -- event and players ------------------------------------------------------------------
    def event(self, event: EventInfo | Bad) -> dict[str, Any]:
        if not _ok(event):
            return {}
        fields: dict[str, Any] = {"name": event.name, "date": event.date, "venue": event.venue}
        if _ok(event.rules):
            self.rules, rule_fields, self.rules_clean = _rules(
                self.errors, event.rules, self.broken
            )
            fields.update(rule_fields)
        fields.update(self.read_format(event.format))
        extra = _the(event.extra, EventExtra())
        fields["paper_size"] = _given(extra.paper_size, PaperSize.LETTER)
        # The event's zone (optional): a file without one takes the importing site's.
        fields["time_zone"] = _given(extra.time_zone, "")
        fields.update(self.finals(extra.finals))
        fields["sheet_language"] = _given(extra.sheet_language, "")
        seed = _given(extra.seed_by_rating, False)
        fields["seed_by_rating"] = seed if _ok(seed) else False
        fields["table_entry"] = _given(extra.table_entry, False)
        fields["archived"] = _given(extra.archived, False)
        # Qualifiers for the next level (issue 50 item 4): absent, none.
        qualifiers = _the(extra.qualifiers, None)
        for name, key, default in (
            ("qualifying_places", "places", 0),
            ("next_level", "next_level", ""),
            ("qualifier_tie", "tie", QualifierTie.ALL_QUALIFY),
        ):
            value = _given(getattr(qualifiers, key, None), default)
            fields[name] = value if _ok(value) else default
        fields["results_held"] = _given(extra.results_held, False)
        # Sign-up on the event's page (issue 49 item 1): absent, closed.
        signup = _the(extra.signup, None)
        if signup is not None:
            closes = signup.closes
            fields.update(
                signup_open=signup.open is True,
                signup_closes=moment(closes) if closes and _ok(closes) else None,
                signup_capacity=signup.capacity if _ok(signup.capacity) else None,
                signup_approval=signup.approval is True,
            )
        fields["age_on"] = _given(extra.age_on, AgeOn.EVENT_DATE)
        brackets = _given(extra.age_brackets, "")
        if _ok(brackets):
            try:
                parse_brackets(brackets)
            except ValueError as why:
                self.error("event.extra.age_brackets", str(why))
        fields["age_brackets"] = brackets
        return fields

    def finals(self, finals: Any) -> dict[str, Any]:
        """The finals options (issue 12). A file without them was written when each table's
        winner alone advanced: it imports as the top 1, unchanged."""
        if finals is None:
            return {"finals_top_n": 1}
        if not _ok(finals):
            return {}
        options = FinalsOptions(top_n=finals.top_n, fill_to=finals.fill_to)
        for option, why in options.problems():
            self.error(at("event.extra.finals", option), why)
        return {
            "finals_top_n": finals.top_n,
            "finals_fill_to": finals.fill_to,
            "finals_big_final": _given(finals.big_final, False),
        }

    # -- the format ---------------------------------------------------------------------------
    def read_format(self, given: Any) -> dict[str, Any]:
        """The event's format fields (PRODUCT.md §12). A file without a format was written
        before formats: a knockout, every setting its default."""
        if given is None:
            self.format = Format()
            return {}
        if not _ok(given) or not _ok(given.kind):
            return {}
        values = {name: getattr(given, name) for name in FORMAT_FIELDS}
        if values["games"] is None:  # not given: required of the cumulative kinds
            del values["games"]
            if Format(kind=given.kind).is_cumulative:
                self.error(
                    at("event.format", "games"),
                    _("missing: a cumulative event says how many games everyone plays"),
                )
                values["games"] = BAD
        good = {name: value for name, value in values.items() if _ok(value)}
        self.format = Format(**good)
        self.format_bad = set(values) - set(good)
        return {FORMAT_FIELDS[name]: value for name, value in good.items()}

    def format_problems(self) -> None:
        """``Format.problems`` (the number of games, the players moving, the Final's size
        against the rule set and the field), each at the setting that causes it: placed by
        asking the same question of a format that has only that setting of the file's."""
        fmt = self.format
        if fmt is None or not fmt.is_cumulative:
            return
        where = "event.format"
        parts = {
            "games": Format(kind=CUMULATIVE, games=fmt.games),
            "move": Format(kind=CUMULATIVE, games=1, reseat=PROGRESSIVE, move=fmt.move),
            "final_size": Format(kind=CUMULATIVE_FINAL, games=1, final_size=fmt.final_size),
        }
        players = self.field or None
        # A rule set with errors (reported) is no ground for the rest: the games alone.
        rules = self.rules if self.rules_clean else None
        whole = fmt if rules is not None else parts["games"]
        for problem in whole.problems(rules or RuleSet(), players):
            name = next(
                (
                    n
                    for n, part in parts.items()
                    if problem in part.problems(rules or RuleSet(), players)
                ),
                None,
            )
            self.error(at(where, name) if name else where, problem)

    def games(self) -> int | None:
        """How many games a cumulative event's file holds first (None: not a cumulative
        event, or its number of games is wrong)."""
        fmt = self.format
        if fmt is None or not fmt.is_cumulative or "games" in self.format_bad:
            return None
        if Format(kind=CUMULATIVE, games=fmt.games).problems(RuleSet()):
            return None
        return fmt.games

    # -- players ----------------------------------------------------------------------------
    def players(self, players: Any) -> None:
        first: dict[str, int] = {}
        signed: dict[int, int] = {}  # the order of sign-up -> the player who holds it
        for i, player in enumerate(_the(players, [])):
            if not _ok(player):
                continue
            extra = _the(player.extra, None)
            if extra is None or not (extra.withdrawn or extra.waiting):
                self.field += 1  # registered: neither withdrawn nor waiting (issue 49)
            where = at("players", i)
            place = None if extra is None else extra.signed_up
            if place in signed:
                self.error(
                    at(at(where, "extra"), "signed_up"),
                    _("%(value)s is the sign-up of %(other)s too")
                    % {"value": show(place), "other": at("players", signed[place])},
                )
            elif place is not None:
                signed[place] = i
            ref = player.id.raw if isinstance(player.id, Bad) else player.id
            if not isinstance(ref, str):
                continue
            # Known even when wrong, so that its seats are not reported as unknown too.
            if ref in first:
                self.error(
                    at(where, "id"),
                    _("%(value)s is the id of %(other)s too")
                    % {"value": show(ref), "other": at("players", first[ref])},
                )
            else:
                first[ref] = i
            division = player.division
            self.divisions.setdefault(ref, _given(division, "") if _ok(division) else "")

    # -- stages -----------------------------------------------------------------------------
    def stages(self, stages: Any) -> list[StagePlan]:
        out: list[StagePlan] = []
        finals: dict[str, int] = {}  # division ("" for the event's) -> the final's index
        for i, stage in enumerate(_the(stages, [])):
            where = at("stages", i)
            if not _ok(stage):
                out.append(StagePlan("", "", False))
                continue
            kind = stage.kind
            medal: Any = ""
            if kind == StageKind.PLAYOFF:
                if stage.medal is None:
                    self.error(
                        at(where, "medal"),
                        _('missing: a playoff decides "gold", "silver", "bronze" or "advance"'),
                    )
                    medal = BAD
                else:
                    medal = stage.medal
            elif stage.medal is not None and _ok(kind):
                self.error(at(where, "medal"), _("only a playoff stage decides a medal"))
            plan = StagePlan(
                stage.name if _ok(stage.name) else "",
                kind if _ok(kind) else "",
                stage.closed if _ok(stage.closed) else False,
                medal if _ok(medal) else "",
            )
            self.stage_extra(stage.extra, where, plan)
            if kind == StageKind.FINAL:
                # One final for the event, and one more per division that played its own
                # Final while another still needed a semifinal (its extra.division says which).
                key = plan.division or ""
                if key in finals:
                    other = at("stages", finals[key])
                    self.error(
                        at(where, "kind"),
                        _(
                            "a second final: %(other)s is the final of division %(division)s, "
                            "and a file has one final stage at most per division"
                        )
                        % {"other": other, "division": json.dumps(key)}
                        if key
                        else _(
                            "a second final: %(other)s is the final, and a file has one final "
                            "stage at most"
                        )
                        % {"other": other},
                    )
                finals.setdefault(key, i)
            if _ok(stage.tables):
                plan.tables = self.tables(stage.tables, at(where, "tables"), plan)
            out.append(plan)
        self.layout(out)
        for i, stage in enumerate(out):
            self.playoff_of(out, i, stage)
        return out

    def layout(self, stages: list[StagePlan]) -> None:
        """A cumulative event's stages (formats/event-file.md): its games first, kind
        "qualifying", all of them from the start; then, with a Final, the playoffs of the cut,
        the Final and the medal playoffs; without one, the medal playoffs."""
        games = self.games()
        if games is None:
            return
        if len(stages) < games:
            self.error(
                "stages",
                ngettext(
                    "%(count)s stage, but a cumulative event holds its %(games)s games "
                    "(event.format.games) from the start: its first stages",
                    "%(count)s stages, but a cumulative event holds its %(games)s games "
                    "(event.format.games) from the start: its first stages",
                    len(stages),
                )
                % {"count": len(stages), "games": games},
            )
            return
        for i, stage in enumerate(stages[:games]):
            if stage.kind and stage.kind != StageKind.QUALIFYING:
                self.error(
                    at(at("stages", i), "kind"),
                    _(
                        "%(value)s, but the first %(games)s stages are the games everyone plays "
                        '(event.format.games): kind "qualifying"'
                    )
                    % {"value": show(stage.kind), "games": games},
                )
        with_final = self.format.kind == CUMULATIVE_FINAL
        before_final = with_final
        for i, stage in enumerate(stages[games:], start=games):
            if not stage.kind:
                continue
            if before_final and stage.kind == StageKind.FINAL:
                before_final = False
                continue
            # What may follow the games: the playoffs of the cut (before the Final), else the
            # medal playoffs (a playoff's missing medal is an error already).
            if before_final:
                fits = stage.medal in ("", Medal.ADVANCE)
                says = _(
                    "%(value)s, but between its games and its Final a cumulative event has "
                    'only the playoffs of the cut (kind "playoff", medal "advance")'
                )
            else:
                fits = stage.medal != Medal.ADVANCE
                says = (
                    _("%(value)s, but after its Final a cumulative event has only medal playoffs")
                    if with_final
                    else _(
                        "%(value)s, but after its games a cumulative event without a Final "
                        "(event.format.kind) has only medal playoffs"
                    )
                )
            where = at("stages", i)
            if stage.kind != StageKind.PLAYOFF:
                self.error(at(where, "kind"), says % {"value": show(stage.kind)})
            elif not fits:
                self.error(at(where, "medal"), says % {"value": show(stage.medal)})
        if before_final:
            self.error(
                "stages",
                _(
                    'no stage of kind "final": a cumulative event with a Final '
                    "(event.format.kind) holds it from the start, after its %(games)s games"
                )
                % {"games": games},
            )

    def stage_extra(self, extra: Any, where: str, plan: StagePlan) -> None:
        if not _ok(extra):
            return
        where = at(where, "extra")
        plan.division = extra.division if _ok(extra.division) else None
        ref = _the(extra.table, None)
        if ref is not None and _ok(ref.stage, ref.table):
            plan.table_ref = (ref.stage, ref.table)
        if extra.wildcards_of is not None and _ok(extra.wildcards_of):
            plan.wildcards_of = extra.wildcards_of
        plan.draft = _given(extra.draft, False) is True
        size = extra.allowed_size
        if size is not None and _ok(size):
            if self.rules is not None and not self.rules.deals(size):
                self.error(
                    at(where, "allowed_size"),
                    _("a table of %(size)s cannot be dealt under event.rules") % {"size": size},
                )
            else:
                plan.allowed_size = size
        kept_at = at(where, "kept_seating")
        for division, refs in _the(extra.kept_seating, {}).items():
            if not _ok(refs):
                continue
            known = [
                ref for k, ref in enumerate(refs) if self.known(ref, at(at(kept_at, division), k))
            ]
            plan.kept[division] = known
        clock = extra.clock
        if clock is not None and _ok(clock):
            clock_at = at(where, "clock")
            moments = {
                key: self.moment(getattr(clock, key), at(clock_at, key))
                for key in ("started_at", "paused_at", "time_called_at")
            }
            if _ok(*moments.values(), clock.paused_total, clock.added_minutes):
                self.clock(clock, moments, clock_at)
        events_at = at(where, "clock_events")
        for j, pressed in enumerate(_the(extra.clock_events, [])):
            if _ok(pressed):
                self.moment(pressed.at, at(at(events_at, j), "at"))

    def clock(self, clock: Any, moments: dict[str, Any], where: str) -> Clock | None:
        """The stage's clock as ``tournament.game.clock`` reads it; an impossible one is an
        error at ``where``."""
        minutes = self.rules.game_minutes if self.rules else None
        added = clock.added_minutes
        if added and not minutes:
            self.error(
                at(where, "added_minutes"),
                _("an untimed game has no time limit to lengthen (event.rules.game_minutes)"),
            )
            return None
        try:
            return Clock(
                limit=None if not minutes else timedelta(minutes=minutes + (added or 0)),
                paused_total=timedelta(seconds=clock.paused_total or 0),
                **moments,
            )
        except ValueError as why:
            self.error(where, why)
            return None

    def tables(self, tables: list, where: str, stage: StagePlan) -> list[TablePlan]:
        out: list[TablePlan] = []
        numbers: dict[int, int] = {}
        seated: dict[str, str] = {}  # player id -> where they were first seated in the stage
        final_tables: dict[str, int] = {}  # division -> index of its final table
        if stage.kind == StageKind.PLAYOFF and len(tables) > 1:
            self.error(at(where, 1), _("a playoff is played at one table"))
        for j, table in enumerate(tables):
            place = at(where, j)
            if not _ok(table):
                out.append(TablePlan(0, []))
                continue
            number = table.number
            if _ok(number):
                if number in numbers:
                    self.error(
                        at(place, "number"),
                        _("table %(number)s is also %(other)s")
                        % {"number": number, "other": at(where, numbers[number])},
                    )
                numbers.setdefault(number, j)
            players = self.seats(table.players, at(place, "players"), seated)
            plan = TablePlan(number if _ok(number) else 0, players)
            extra = _the(table.extra, None)
            self.comings_and_goings(extra, at(place, "extra"), plan)
            division = self.table_division(players)
            if stage.kind == StageKind.FINAL and division is not None:
                if division in final_tables:
                    other = at(where, final_tables[division])
                    self.error(
                        place,
                        _(
                            "a second final table for division %(division)s (%(other)s is one): "
                            "a final has one table, one per division when players have divisions"
                        )
                        % {"division": json.dumps(division), "other": other}
                        if division
                        else _(
                            "a second final table (%(other)s is one): a final has one table, "
                            "one per division when players have divisions"
                        )
                        % {"other": other},
                    )
                final_tables.setdefault(division, j)
            if _ok(table.rounds):
                self.rounds(table.rounds, at(place, "rounds"), stage, plan)
            self.table_size(plan, at(place, "players"))
            if extra is not None:
                self.game_over(extra.game_over_after, at(place, "extra"), plan)
                self.table_minutes(extra.added_minutes, at(place, "extra"))
            if _ok(table.infractions):
                self.infractions(table.infractions, at(place, "infractions"), stage, plan)
            out.append(plan)
        return out

    def table_minutes(self, added: Any, where: str) -> None:
        """Minutes a director gave one table: only a timed game has a limit to lengthen."""
        minutes = self.rules.game_minutes if self.rules else None
        if _ok(added) and added and not minutes:
            self.error(
                at(where, "added_minutes"),
                _("an untimed game has no time limit to lengthen (event.rules.game_minutes)"),
            )

    def game_over(self, after: Any, where: str, table: TablePlan) -> None:
        """The round after which the table's game was marked over (time called): the table's
        last round. A round after it was not played (PRODUCT.md §5); nothing else limits the
        rounds entered after time was called."""
        if after is None or not _ok(after):
            return
        rounds = len(table.rounds)
        for n in range(after, rounds):
            self.error(
                at(at(where.removesuffix(".extra"), "rounds"), n),
                _(
                    "after the game was marked over after round %(after)s (%(where)s): no later "
                    "round was played"
                )
                % {"after": after, "where": at(where, "game_over_after")},
            )
        if after > rounds:
            self.error(
                at(where, "game_over_after"),
                ngettext(
                    "%(after)s, but the table has %(count)s round: the game is marked over after "
                    "its last round",
                    "%(after)s, but the table has %(count)s rounds: the game is marked over after "
                    "its last round",
                    rounds,
                )
                % {"after": after, "count": rounds},
            )

    def comings_and_goings(self, extra: Any, where: str, plan: TablePlan) -> None:
        """The table's ``extra.withdrew`` and ``extra.joined``: who left after which round,
        who joined at which round (each a player seated at the table)."""
        if extra is None:
            return
        for key, into in (("withdrew", plan.withdrew), ("joined", plan.joined)):
            given = getattr(extra, key)
            for ref, n in _the(given, {}).items():
                if ref not in plan.players:
                    self.error(at(at(where, key), ref), _not_seated(ref))
                elif _ok(n):
                    into[ref] = n

    def seats(self, refs: Any, where: str, seated: dict[str, str]) -> list[str]:
        players = []
        for k, ref in enumerate(_the(refs, [])):
            seat_at = at(where, k)
            if not self.known(ref, seat_at):
                continue
            if ref in seated:
                self.error(
                    seat_at,
                    _("%(value)s is seated twice in this stage (also %(other)s)")
                    % {"value": show(ref), "other": seated[ref]},
                )
                continue
            seated[ref] = seat_at
            players.append(ref)
        return players

    def known(self, ref: Any, where: str) -> bool:
        """A player id of players (one that is not a string is a shape error already)."""
        if not _ok(ref):
            return False
        if ref not in self.divisions:
            self.error(where, _not_a_player(ref))
            return False
        return True

    def table_division(self, players: list[str]) -> str | None:
        """The table's division as the site reads it (``results.table_division``: its first
        player's); None when no player is seated. The draw never mixes divisions, but a table
        seated before a player's division was changed keeps that player: such a table is
        kept as it is."""
        if not players:
            return None
        return division_of(self.divisions[p] for p in players)

    def table_size(self, table: TablePlan, where: str) -> None:
        """The table can be dealt (``RuleSet.deals``): at a size ``tiles_drawn`` lists, or at
        another by the deal of ``RuleSet.tiles_for`` (a playoff seats exactly the tied players,
        a no-show withdrawn once other tables started leaves a table one smaller, a director
        allows a size for a stage). The size is the most players of one round: a late arrival
        and a player who withdrew during the game may have held the same chair. A lone player
        left at a table with no round yet (a no-show withdrawn) is kept as the site keeps
        them."""
        players = table.players
        if self.rules is None or not players:
            return
        rounds = len(table.rounds)
        size = max(
            sum(1 for p in players if table.joined.get(p, 0) <= n <= table.withdrew.get(p, n))
            for n in range(1, rounds + 2)
        )
        if self.rules.deals(size) or (size < 2 and not rounds):
            return
        listed = ", ".join(map(str, sorted(self.rules.tiles_drawn)))
        self.error(
            where,
            _(
                "a table of %(size)s cannot be dealt: event.rules.tiles_drawn lists %(listed)s, "
                "a size it does not list draws as the nearest larger size listed (or the "
                "largest), and a table seats 2 to %(most)s players with at least one tile each "
                "and one left to draw"
            )
            % {"size": size, "listed": listed, "most": MAX_TABLE},
        )

    # -- rounds -----------------------------------------------------------------------------
    def rounds(self, rounds: list, where: str, stage: StagePlan, table: TablePlan) -> None:
        players = table.players
        if rounds and not players:
            self.error(where, _("a table with no players has no rounds"))
            return
        playoff = stage.kind == StageKind.PLAYOFF
        for n, round_ in enumerate(rounds):
            place = at(where, n)
            if not _ok(round_):
                table.rounds.append((-1, {}))
                continue
            engine = round_.engine
            if playoff and n >= 1:
                self.error(place, _("a playoff is one round"))
            elif self.rules is not None and _ok(engine):
                engine = self.round_engine(engine, place, n, playoff)
            playing = players
            if table.withdrew or table.joined:
                playing = [
                    p
                    for p in players
                    if table.joined.get(p, 0) <= n + 1 <= table.withdrew.get(p, n + 1)
                ]
            pips = self.pips(round_.pips, at(place, "pips"), playing, engine)
            extra = _the(round_.extra, None)
            good = _ok(engine, pips)
            if extra is not None:
                extra_at = at(place, "extra")
                good = _ok(self.moment(extra.entered_at, at(extra_at, "entered_at"))) and good
                changes_at = at(extra_at, "changes")
                for k, change in enumerate(_the(extra.changes, [])):
                    good = self.change(change, at(changes_at, k), players) and good
            table.rounds.append((engine, pips) if good else (engine if _ok(engine) else -1, {}))

    def round_engine(self, engine: int, where: str, n: int, playoff: bool) -> Any:
        """The engine of round ``n`` (from 0): the next of the rule set's, any double in a
        playoff."""
        rules = self.rules
        if playoff:
            problems = replace(rules, engines=(engine,)).problems()
            for problem in problems:
                self.error(at(where, "engine"), problem)
            return BAD if problems else engine
        expected = rules.next_engine(n)
        if expected is None:
            self.error(
                where,
                _("a game has %(count)s rounds (event.rules.engines): this would be round %(n)s")
                % {"count": len(rules.engines), "n": n + 1},
            )
            return BAD
        if engine != expected:
            self.error(
                at(where, "engine"),
                _(
                    "%(engine)s is out of order: round %(n)s is %(expected)s-%(expected)s, the "
                    "next of event.rules.engines"
                )
                % {"engine": engine, "n": n + 1, "expected": expected},
            )
            return BAD
        return engine

    def pips(self, pips: Any, where: str, players: list[str], engine: Any) -> Any:
        if not _ok(pips):
            return BAD
        good = True
        counts: dict[str, int] = {}
        for ref in players:
            if ref not in pips:
                self.error(at(where, ref), _("missing: every seated player has a pip count"))
                good = False
        for ref, count in pips.items():
            if ref not in players:
                known = ref in self.divisions
                self.error(at(where, ref), _not_seated(ref) if known else _not_a_player(ref))
                good = False
            elif not _ok(count):
                good = False
            else:
                counts[ref] = count
        if self.rules is not None and _ok(engine):
            errors = round_errors(self.rules, engine, counts)
            for ref, messages in errors.fields.items():
                for message in messages:
                    self.error(at(where, ref), message)
            for message in errors.whole:
                self.error(where, message)
            good = good and not errors
        return {ref: pips[ref] for ref in players} if good else BAD

    def change(self, change: Any, where: str, players: list[str]) -> bool:
        if not _ok(change):
            return False
        player = self.seated(change.player, at(where, "player"), players)
        changed_at = self.moment(change.changed_at, at(where, "changed_at"))
        return _ok(player, change.old_pips, change.new_pips, change.reason, changed_at)

    def seated(self, ref: Any, where: str, players: list[str]) -> Any:
        if not self.known(ref, where):
            return BAD
        if ref not in players:
            self.error(where, _not_seated(ref))
            return BAD
        return ref

    # -- infractions ------------------------------------------------------------------------
    def infractions(self, infractions: list, where: str, stage: StagePlan, table: TablePlan):
        if not infractions:
            return
        sheet = TableSheet(
            table=Table(stage=Stage(kind=stage.kind)),
            rules=self.rules,
            players=[],
            rounds=[
                SheetRound(n, engine, {}, {}) for n, (engine, _pips) in enumerate(table.rounds, 1)
            ],
        )
        for k, infraction in enumerate(infractions):
            place = at(where, k)
            if not _ok(infraction):
                continue
            self.seated(infraction.player, at(place, "player"), table.players)
            engine = infraction.engine
            if _ok(engine) and self.rules is not None:
                why = engine_error(sheet, engine)
                if why:
                    self.error(at(place, "engine"), why)
            extra = _the(infraction.extra, None)
            if extra is not None:
                extra_at = at(place, "extra")
                self.moment(extra.logged_at, at(extra_at, "logged_at"))
                self.moment(extra.changed_at, at(extra_at, "changed_at"))

    # -- playoffs ---------------------------------------------------------------------------
    def playoff_of(self, stages: list[StagePlan], i: int, stage: StagePlan) -> None:
        """A playoff's division, and the table whose tie an advancement playoff settles."""
        where = at("stages", i)
        players = [p for t in stage.tables for p in t.players]
        divisions = {self.divisions[p] for p in players}
        # A division given is kept as given, even when a player's division was changed since
        # the playoff was seated (a playoff in the wrong division is one the results do not
        # owe: ``_check_playoffs``); without one, the players' own.
        if stage.division is None and stage.kind == StageKind.PLAYOFF and len(divisions) == 1:
            stage.division = divisions.pop()
        ref_at = at(at(where, "extra"), "table")
        if stage.table_ref is not None and stage.medal != Medal.ADVANCE:
            self.error(
                ref_at, _("only an advancement playoff names the table whose tie it settles")
            )
            stage.table_ref = None
        if stage.kind != StageKind.PLAYOFF or stage.medal != Medal.ADVANCE:
            if stage.wildcards_of is not None:
                self.error(
                    at(at(where, "extra"), "wildcards_of"),
                    _("only an advancement playoff settles a stage's wildcards"),
                )
                stage.wildcards_of = None
            return
        if self.format is not None and self.format.is_cumulative:
            self.cut_playoff(stages, i, stage)
            return
        if stage.wildcards_of is not None:  # tied for the last wildcard: from several tables
            index = stage.wildcards_of
            if index >= i or stages[index].kind not in ADVANCING_KINDS:
                self.error(
                    at(at(where, "extra"), "wildcards_of"),
                    _("%(stage)s is not an earlier qualifying or semifinal stage")
                    % {"stage": at("stages", index)},
                )
                stage.wildcards_of = None
            return
        if stage.table_ref is not None:
            index, number = stage.table_ref
            if index >= len(stages) or stages[index].kind not in ADVANCING_KINDS:
                self.error(
                    ref_at,
                    _("%(stage)s is not a qualifying or semifinal stage")
                    % {"stage": at("stages", index)},
                )
                stage.table_ref = None
                return
            table = next((t for t in stages[index].tables if t.number == number), None)
            if table is None:
                self.error(
                    ref_at,
                    _("%(stage)s has no table %(number)s")
                    % {"stage": at("stages", index), "number": number},
                )
                stage.table_ref = None
            elif not set(players) <= set(table.players):
                self.error(ref_at, _("the playoff's players did not all play at that table"))
                stage.table_ref = None
            return
        found = [
            (index, t.number)
            for index, other in enumerate(stages)
            if other.kind in ADVANCING_KINDS
            for t in other.tables
            if players and set(players) <= set(t.players)
        ]
        if found:
            stage.table_ref = found[-1]
        else:
            self.error(
                where,
                _(
                    "an advancement playoff is played by players tied at one table of a "
                    "qualifying or semifinal stage: give it in extra.table"
                ),
            )

    def cut_playoff(self, stages: list[StagePlan], i: int, stage: StagePlan) -> None:
        """A cumulative event's advancement playoff: it settles the cut after the last game
        (its ``wildcards_of``, given or not), never a table's tie."""
        where = at(at("stages", i), "extra")
        if stage.table_ref is not None:
            self.error(
                at(where, "table"),
                _(
                    "a cumulative event's advancement playoff settles the cut after its last "
                    "game, not a table's tie"
                ),
            )
            stage.table_ref = None
        games = self.games()
        if games is None or games > len(stages):
            stage.wildcards_of = None  # the games are wrong (an error already)
            return
        last = games - 1
        if stage.wildcards_of is not None and stage.wildcards_of != last:
            self.error(
                at(where, "wildcards_of"),
                _(
                    "%(stage)s is not the last game (%(last)s): a cumulative event's advancement "
                    "playoff settles the cut after it"
                )
                % {"stage": at("stages", stage.wildcards_of), "last": at("stages", last)},
            )
        stage.wildcards_of = last


def _check_playoffs(errors: Errors, plan: Plan) -> None:
    """Compute the results as the site does: a playoff that no tie calls for, or played by
    other players than the tied ones, is an error at that playoff."""
    playoffs = [i for i, s in enumerate(plan.stages) if s.kind == StageKind.PLAYOFF]
    if not playoffs:
        return
    fields = plan.event
    event = Event(**{k: v for k, v in fields.items() if k in EVENT_FIELDS})
    event.tiles_drawn = {str(k): v for k, v in fields["tiles_drawn"].items()}
    divisions = {p.id: p.division or "" for p in plan.file.players}
    withdrawn = {p.id for p in plan.file.players if p.extra.withdrawn}
    away = {p.id for p in plan.file.players if p.extra.out_of_district}
    players: dict[str, Player] = {}

    def player(ref: str) -> Player:
        if ref not in players:
            players[ref] = Player(
                pk=ref,
                division=divisions[ref],
                withdrawn=ref in withdrawn,
                out_of_district=ref in away,
            )
        return players[ref]

    stages, table_pk, sheets = [], {}, {}
    next_pk = itertools.count(1)
    for i, s in enumerate(plan.stages):
        stage = Stage(
            pk=i + 1,
            number=i + 1,
            name=s.name,
            kind=s.kind,
            closed=s.closed,
            medal=s.medal,
            division=s.division or "",
        )
        stages.append(stage)
        # Only what the results read: closed qualifying and semifinal stages, the final and
        # the playoffs (a large open stage costs nothing here).
        counted = s.kind in (StageKind.PLAYOFF, StageKind.FINAL) or (
            s.closed and s.kind in ADVANCING_KINDS
        )
        for t in s.tables:
            table_pk[i, t.number] = next(next_pk)
            if not counted:
                continue
            table = Table(pk=table_pk[i, t.number], stage=stage, number=t.number)
            # The sheet as the site builds it: a late arrival's missed rounds scored the
            # table's highest, a player who withdrew during the game out of contention.
            sheet = build_sheet(
                table,
                event.rules,
                list(map(player, t.players)),
                {n: (e, dict(pips), None, False) for n, (e, pips) in enumerate(t.rounds, 1)},
                joined=t.joined,
                left=t.withdrew,
            )
            sheets.setdefault(stage, []).append(sheet)
    for i, s in enumerate(plan.stages):
        if s.table_ref is not None:
            stages[i].playoff_table_id = table_pk[s.table_ref]
        if s.wildcards_of is not None:
            stages[i].wildcards_of_id = stages[s.wildcards_of].pk
    # The results are computed once, with every playoff; a playoff round that does not fit is
    # found among the scored playoffs deciding the same thing, by its round number.
    # A withdrawn player is out of contention from the last stage they sit in, open or closed
    # (scoring/results.py ``withdrawn_from``): read from every table, counted here or not.
    out_from: dict[int, int] = {}
    for i, s in enumerate(plan.stages):
        if s.kind == StageKind.PLAYOFF:
            continue
        for t in s.tables:
            for ref in t.players:
                if ref in withdrawn:
                    out_from[ref] = max(out_from.get(ref, 0), i + 1)
    results = compute_results(
        event, {stage: sheets.get(stage, []) for stage in stages}, out_from=out_from
    )
    groups: dict[tuple, list[int]] = {}
    for i in playoffs:
        s, stage = plan.stages[i], stages[i]
        if not any(t.rounds for t in s.tables[:1]):
            continue
        if s.medal == Medal.ADVANCE and s.wildcards_of is None:
            key = ("table", stage.playoff_table_id, s.medal)
        else:
            key = ("division", stage.division, s.medal)
        groups.setdefault(key, []).append(i)
    for problem in results.playoff_problems:
        if problem.table_id is not None:
            key = ("table", problem.table_id, problem.decides)
        else:
            key = ("division", problem.division, problem.decides)
        among = groups.get(key, [])
        index = among[min(problem.round_number, len(among)) - 1] if among else None
        errors.add(
            "stages" if index is None else at("stages", index),
            _("this playoff does not fit the ties: %(why)s") % {"why": translated(problem.message)},
        )
    # A playoff still to play is one the results owe, between the players they name.
    # Indexed by what each settles, taken in order: one pass over the playoffs.
    owed: dict[tuple, list] = {}
    for o in results.owed:
        owed.setdefault((o.division, o.medal, o.table and o.table.pk), []).append(o)
    order = {p.id: n for n, p in enumerate(plan.file.players)}
    for i in playoffs:
        s = plan.stages[i]
        if s.closed and any(t.rounds for t in s.tables):
            continue  # it decided: checked above (an open one decides nothing yet)
        key = (s.division or "", s.medal, stages[i].playoff_table_id)
        if not owed.get(key):
            errors.add(
                at("stages", i),
                _("no %(medal)s playoff is owed: the results call for none") % {"medal": s.medal},
            )
            continue
        match = owed[key].pop(0)
        seated = [p for t in s.tables for p in t.players]
        if seated and set(seated) != set(match.owed.players):
            errors.add(
                at("stages", i),
                _("the %(medal)s playoff owed is between %(owed)s, not %(seated)s")
                % {
                    "medal": s.medal,
                    "owed": ", ".join(sorted(match.owed.players, key=order.get)),
                    "seated": ", ".join(seated),
                },
            )
