"""The road to the Final as plain Python: no Django here (issue 12, PRODUCT.md §6).

For the players of one division, the stages from here to the Final: how many tables of which
sizes, how many advance from each table, how many wildcards fill the next stage, and a warning
wherever a stage would seat fewer than 3 players (no bronze possible) or a table the rules do
not expect. A stage that seats a single table is that division's Final.

The director's choices (stored with the event) are a ``FinalsOptions``:

- ``top_n``: the top N of each table advance. ``None`` (the default) is automatic: each table's
  winner, or more when that would leave fewer than 3 players for the next stage (two tables of
  3 send their top 2: a Final of 4, never of 2). ``0`` is none: only the best overall go on,
  the ``fill_to`` best totals of the stage, whatever their table (issue 30 item 1); a stage
  they filled (no larger than ``fill_to``) sends its tables' places as by default.
- ``fill_to``: wildcards, the best totals among the players who did not advance, fill the next
  stage up to this many players (the Final, or a semifinal when it is larger than one table).
- ``big_final``: the Final may seat 6 or more at one table, up to the largest size the rule set
  lists tiles for (PRODUCT.md §2: e.g. 12 tiles at 6 players).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import reduce

from tournament.game.message import Message
from tournament.game.rules import RuleSet
from tournament.game.seating import SeatingError, seat_sizes, unusual_sizes

NO_BRONZE = 3  # fewer players than this in a stage: no bronze can be awarded
BIG_FINAL = 6


@dataclass(frozen=True)
class FinalsOptions:
    top_n: int | None = None
    fill_to: int | None = None
    big_final: bool = False

    def problems(self) -> list[tuple[str, Message]]:
        """(the option, why) for each choice that cannot be played."""
        out = []
        if self.top_n is not None and (self.top_n < 0 or self.top_n == 0 and self.fill_to is None):
            out.append(
                (
                    "top_n",
                    Message(
                        "At least the top 1 of each table advances. 0 (none) goes with "
                        "wildcards only: set how many of the best overall fill the next stage."
                    ),
                )
            )
        if self.fill_to is not None and self.fill_to < 2:
            out.append(("fill_to", Message("Wildcards fill a stage to at least 2 players.")))
        return out

    def best_overall(self, players: int) -> bool:
        """Whether a stage of ``players`` sends only its best totals overall (``top_n`` 0),
        nobody by table place: a stage larger than the ``fill_to`` they fill the next with."""
        return self.top_n == 0 and self.fill_to is not None and players > self.fill_to


@dataclass(frozen=True)
class PlannedStage:
    name: str
    players: int
    tables: tuple[int, ...]  # table sizes, larger first
    advance: int = 0  # advancing from each table (0: this is the Final, or only the best overall)
    wildcards: int = 0  # wildcards joining the next stage (with advance 0: the best overall)
    warnings: tuple[str, ...] = ()
    advancers: int | None = None  # known once the stage closes: a tie may send more on

    @property
    def advancing(self) -> int:
        """Players going on to the next stage (table places and wildcards; once closed, the
        advancers it really has, ties included)."""
        if self.is_final:
            return 0
        if self.advancers is not None:
            return self.advancers
        return len(self.tables) * self.advance + self.wildcards

    @property
    def is_final(self) -> bool:
        return len(self.tables) == 1

    def describe(self) -> Message:
        """ "Semifinal, 10 tables of 5 → 10", "Final of 4"."""
        if self.is_final and self.name != "Final":
            return Message(
                "%(name)s at one table of %(players)s is the Final",
                name=self.name,
                players=self.players,
            )
        if self.is_final:
            return Message("%(name)s of %(players)s", name=self.name, players=self.players)
        sizes = reduce(
            lambda a, b: Message("%(a)s or %(b)s", a=a, b=b),
            map(str, sorted(set(self.tables), reverse=True)),
        )
        if not self.advance:
            top = Message("the best %(n)s overall", n=self.wildcards)
        elif self.advance == 1:
            top = Message("each table's winner")
        else:
            top = Message("each table's top %(k)s", k=self.advance)
        values = {"name": self.name, "count": len(self.tables), "sizes": sizes, "top": top}
        if not self.wildcards or not self.advance:
            return Message(
                "%(name)s, %(count)s tables of %(sizes)s (%(top)s) → %(advancing)s",
                advancing=self.advancing,
                **values,
            )
        wild = (
            Message("%(n)s wildcard", n=1)
            if self.wildcards == 1
            else Message("%(n)s wildcards", n=self.wildcards)
        )
        return Message(
            "%(name)s, %(count)s tables of %(sizes)s (%(top)s, %(wild)s) → %(advancing)s",
            wild=wild,
            advancing=self.advancing,
            **values,
        )


@dataclass(frozen=True)
class FinalsPlan:
    players: int
    stages: tuple[PlannedStage, ...] = ()
    warnings: tuple[str, ...] = field(default=())  # the plan's own (cannot seat, ...)

    @property
    def final(self) -> PlannedStage | None:
        last = self.stages[-1] if self.stages else None
        return last if last is not None and last.is_final else None

    @property
    def all_warnings(self) -> list[str]:
        return [w for s in self.stages for w in s.warnings] + list(self.warnings)

    def describe(self, say: Callable[[str], str] = str) -> str:
        """ "24 players: Game 1, 6 tables of 4 (each table's winner) → 6 → …  → Final of 4";
        ``say`` puts each part in the reader's language (``tournament.text.translated``)."""
        parts = [say(s.describe()) for s in self.stages]
        return say(Message("%(players)s players:", players=self.players)) + " " + " → ".join(parts)


def final_capacity(rules: RuleSet, options: FinalsOptions) -> int:
    """The most players one Final table seats: the usual size plus one, or with ``big_final``
    the largest size the rule set deals (6 or more when it lists tiles for them)."""
    if options.big_final and rules.dealable_sizes:
        return max(rules.largest_table, max(rules.dealable_sizes))
    return rules.largest_table


def stage_tables(
    players: int, rules: RuleSet, options: FinalsOptions, *, seeded: bool = True
) -> list[int]:
    """Table sizes for a stage of ``players``. A stage seated from advancers (``seeded``) that
    fits one Final table (``big_final``: up to the largest dealable size) is one table."""
    if seeded and players >= 2 and players <= final_capacity(rules, options):
        if rules.can_deal(players):
            return [players]
    return seat_sizes(players, rules.table_size, rules.dealable_sizes)


def advance_per_table(tables: Sequence[int], options: FinalsOptions) -> int:
    """How many advance from each table of a stage seated at ``tables`` (two or more).

    The director's top N, never a whole table; by default automatic: the winner, or more
    while fewer than 3 would go on (two tables send their top 2). 0 when only the best
    overall go on (``FinalsOptions.best_overall``: the wildcards are all who advance).
    """
    if options.best_overall(sum(tables)):
        return 0
    most = max(1, min(tables) - 1)
    if options.top_n:
        return min(options.top_n, most)
    k = 1
    while len(tables) * k < NO_BRONZE and k < most:
        k += 1
    return k


def wildcards(advancing: int, players: int, options: FinalsOptions) -> int:
    """How many wildcards fill the next stage: up to ``fill_to`` players, never everyone.

    With ``top_n`` 0 they are the best overall of a stage larger than ``fill_to``; a stage
    they filled sends its tables' places and no wildcards."""
    if options.fill_to is None:
        return 0
    if options.top_n == 0 and not options.best_overall(players):
        return 0
    return max(0, min(options.fill_to, players - 1) - advancing)


def _stage_warnings(
    name: str, players: int, tables: Sequence[int], rules: RuleSet, *, big: bool = False
) -> list[str]:
    out = []
    if players < NO_BRONZE:
        out.append(
            Message(
                "%(name)s seats only %(players)s players: no bronze can be awarded.",
                name=name,
                players=players,
            )
        )
    odd = [] if big and len(tables) == 1 else unusual_sizes(tables, rules.table_size)
    if odd:
        sizes = ", ".join(map(str, odd))
        out.append(
            Message(
                "%(name)s has tables of %(sizes)s, not the usual %(size)s (one more or fewer) "
                "of the rules.",
                name=name,
                sizes=sizes,
                size=rules.table_size,
            )
        )
    return out


def plan_finals(
    players: int,
    rules: RuleSet,
    options: FinalsOptions | None = None,
    *,
    first: str = Message("Game 1"),
    seeded: bool = False,
    semifinals: int = 0,
    advancers: int | None = None,
) -> FinalsPlan:
    """The stages from a stage of ``players`` (named ``first``) to the Final.

    ``seeded``: the first stage is itself seated from advancers (a semifinal or the Final:
    it may be one big table); ``semifinals``: how many semifinals were played before it (for
    the names "Semifinal 2", ...); ``advancers``: how many the first stage really sends on,
    once its results are known (a tie at a table's top sends them all, say).
    """
    options = options or FinalsOptions()
    stages: list[PlannedStage] = []
    name, count = first, players
    while True:
        try:
            tables = stage_tables(count, rules, options, seeded=seeded)
        except SeatingError as why:
            return FinalsPlan(
                players, tuple(stages), (Message("%(name)s: %(why)s", name=name, why=why.args[0]),)
            )
        warnings = _stage_warnings(name, count, tables, rules, big=seeded and options.big_final)
        if len(tables) == 1:
            stages.append(PlannedStage(name, count, tuple(tables), warnings=tuple(warnings)))
            return FinalsPlan(players, tuple(stages))
        k = advance_per_table(tables, options)
        if options.top_n is not None and k < options.top_n:
            warnings.append(
                Message(
                    "%(name)s: the top %(n)s would be a whole table of %(size)s; the top %(k)s "
                    "advance.",
                    name=name,
                    n=options.top_n,
                    size=min(tables),
                    k=k,
                )
            )
        advancing = len(tables) * k
        wild = wildcards(advancing, count, options)
        planned = PlannedStage(name, count, tuple(tables), k, wild, tuple(warnings), advancers)
        stages.append(planned)
        count, advancers = planned.advancing, None
        seeded = True
        if count > final_capacity(rules, options) or not rules.can_deal(count):
            semifinals += 1
            # Messages: said in the reader's language on the close page's road (item 17).
            name = (
                Message("Semifinal")
                if semifinals == 1
                else Message("Semifinal %(n)s", n=semifinals)
            )
        else:
            name = Message("Final")
