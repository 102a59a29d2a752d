"""A series' standings (issue 31 item 1, PRODUCT.md §13): plain Python that knows nothing of
Django. Each event's result of every person in one division goes in (their place, medal, pips
and rounds played); the standings of the division over the series come out.

Two ways to count:

- ``points``: points by place at each event (``Rule.points``: the 1st place's, the 2nd's, ...;
  a place beyond the table scores 0; tied players share a place, so each scores that place's
  points), plus a medal bonus (``Rule.medal_bonus``: gold's, silver's, bronze's). Summed over
  every event, or each person's best N events (``Rule.best_of``: the others are dropped, and
  shown as dropped). Higher is better.
- ``per_round``: the lowest total per round played: a person's pips over every round they
  played at the counted events, divided by those rounds (clubs whose nights have different
  lengths). With ``best_of``, each person's N events of lowest average count. Lower is better.

Ties are broken by the rule's ``tie_break``: most wins (events where they placed 1st), the best
single event (most points in one counted event; per round, the lowest average of one), or head
to head (among the tied, who placed better at the events both played, most often). Still tied
after it: a shared place.

A person is any hashable key, and an event too; events are given in play order (of two events
scoring alike, the earlier counts when one must be dropped).
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from itertools import combinations

from tournament.game.awards import MEDALS
from tournament.game.rules import places

POINTS, PER_ROUND = "points", "per_round"
SCORINGS = (POINTS, PER_ROUND)
WINS, BEST_EVENT, HEAD_TO_HEAD = "wins", "best_event", "head_to_head"
TIE_BREAKS = (WINS, BEST_EVENT, HEAD_TO_HEAD)

DEFAULT_POINTS = (10, 8, 6, 5, 4, 3, 2, 1)
MOST_POINTS = 10_000  # points for one place, or one medal (the form's and the file's bound)
DEFAULT_MEDAL_BONUS = (3, 2, 1)


@dataclass(frozen=True)
class Rule:
    """How a series counts (the ``Series`` model's settings, as plain values)."""

    scoring: str = POINTS
    points: tuple[int, ...] = DEFAULT_POINTS
    medal_bonus: tuple[int, ...] = DEFAULT_MEDAL_BONUS
    best_of: int | None = None
    tie_break: str = WINS

    def __post_init__(self) -> None:
        if self.scoring not in SCORINGS:
            raise ValueError(f"Unknown scoring {self.scoring!r}")
        if self.tie_break not in TIE_BREAKS:
            raise ValueError(f"Unknown tie-break {self.tie_break!r}")
        if any(p < 0 for p in self.points) or any(b < 0 for b in self.medal_bonus):
            raise ValueError("Points and bonuses cannot be negative")
        if self.best_of is not None and self.best_of < 1:
            raise ValueError("Best N counts at least one event")

    def place_points(self, place: int | None) -> int:
        """The points of a place (tied players each score their shared place's); 0 beyond the
        table, and for no place (withdrew)."""
        if place is None or place > len(self.points):
            return 0
        return self.points[place - 1]

    def bonus(self, medal: str) -> int:
        """The medal bonus of ``medal`` ("gold", "silver", "bronze"; "" for none)."""
        if medal not in MEDALS or MEDALS.index(medal) >= len(self.medal_bonus):
            return 0
        return self.medal_bonus[MEDALS.index(medal)]

    def event_points(self, place: int | None, medal: str = "") -> int:
        return self.place_points(place) + self.bonus(medal)


def event_places[K: Hashable](
    keys: Mapping[K, tuple], playoffs: Sequence[Mapping[K, int]] = ()
) -> dict[K, int]:
    """Places at one event (PRODUCT.md §13) from each player's key (lower is better: medal,
    how far they went, their total there), ties sharing a place (1, 1, 3). A playoff orders
    the players it was played among: players of equal keys who all played one playoff are
    ordered by its pips, playoff after playoff in play order (a replayed playoff orders
    those it left tied), so the two who lost a cut playoff do not share a place. Players of
    equal keys of whom some did not play it stay tied."""
    groups: dict[tuple, list[K]] = {}
    for player, key in keys.items():
        groups.setdefault(key, []).append(player)
    refined: dict[K, tuple] = {}
    for key, members in groups.items():
        classes = [members]
        for playoff in playoffs:
            split: list[list[K]] = []
            for tied in classes:
                if len(tied) < 2 or not all(p in playoff for p in tied):
                    split.append(tied)
                    continue
                for pips in sorted({playoff[p] for p in tied}):
                    split.append([p for p in tied if playoff[p] == pips])
            classes = split
        for index, tied in enumerate(classes):
            for player in tied:
                refined[player] = (*key, index)
    ordered = sorted(refined.values())
    return {player: bisect_left(ordered, key) + 1 for player, key in refined.items()}


def shown_average(value: Fraction) -> Decimal:
    """An average as every page, export and PDF shows it: rounded half up to two decimals,
    exactly (12.345 is 12.35 everywhere, never 12.34 from a binary float)."""
    scaled = value * 100
    whole = scaled.numerator // scaled.denominator
    if scaled - whole >= Fraction(1, 2):
        whole += 1
    return Decimal(whole).scaleb(-2)


@dataclass(frozen=True)
class Showing:
    """A person's result at one event in their division: their place (None: withdrew, no
    place), medal, and the pips and rounds they played there."""

    place: int | None
    medal: str = ""
    pips: int = 0
    rounds: int = 0


@dataclass
class Cell[E: Hashable]:
    """A person's event in the standings: what it scored and whether it counts."""

    event: E
    showing: Showing
    points: int = 0
    counted: bool = True  # False: dropped (best N of M)

    @property
    def average(self) -> Fraction | None:
        """Pips per round played at this event (None: no round played)."""
        s = self.showing
        return Fraction(s.pips, s.rounds) if s.rounds else None


@dataclass
class Standing[K: Hashable, E: Hashable]:
    person: K
    cells: dict[E, Cell[E]]  # the events they played, in play order
    total: int | Fraction  # points (higher is better) or pips per round (lower is better)
    pips: int = 0  # per round: the counted events' pips and rounds
    rounds: int = 0
    wins: int = 0  # events where they placed 1st (counted or not)
    place: int = 0
    shared: bool = False  # the place is shared (still tied after the tie-break)
    by_tie_break: bool = False  # tied on the total, placed by the tie-break

    @property
    def counted(self) -> list[Cell[E]]:
        return [c for c in self.cells.values() if c.counted]

    @property
    def dropped(self) -> list[Cell[E]]:
        return [c for c in self.cells.values() if not c.counted]


@dataclass(frozen=True)
class Note:
    """The facts of the "what counts" note: the page words them."""

    scoring: str
    points: tuple[int, ...]
    medal_bonus: tuple[int, ...]  # () when every bonus is 0
    best_of: int | None  # None: every event counts
    events: int  # the events counted so far (M in "best N of M")
    tie_break: str


def note(rule: Rule, events: int) -> Note:
    bonus = rule.medal_bonus if any(rule.medal_bonus) else ()
    points = tuple(rule.points)
    while points and points[-1] == 0:
        points = points[:-1]  # trailing zeros say nothing a place beyond the table does not
    return Note(rule.scoring, points, bonus, rule.best_of, events, rule.tie_break)


def _cell_order(rule: Rule, cell: Cell, index: int) -> tuple:
    """Best first: most points, or lowest average (none played: last); earlier event first."""
    if rule.scoring == POINTS:
        return (-cell.points, index)
    average = cell.average
    return (average is None, average or 0, index)


def _standing[K: Hashable, E: Hashable](
    person: K, showings: list[tuple[int, E, Showing]], rule: Rule
) -> Standing[K, E]:
    cells = {
        event: Cell(event, s, rule.event_points(s.place, s.medal) if rule.scoring == POINTS else 0)
        for _index, event, s in showings
    }
    if rule.best_of is not None and len(cells) > rule.best_of:
        ranked = sorted(
            ((i, cells[e]) for i, e, _s in showings), key=lambda ic: _cell_order(rule, ic[1], ic[0])
        )
        for _i, cell in ranked[rule.best_of :]:
            cell.counted = False
    counted = [c for c in cells.values() if c.counted]
    pips = sum(c.showing.pips for c in counted)
    rounds = sum(c.showing.rounds for c in counted)
    if rule.scoring == POINTS:
        total: int | Fraction = sum(c.points for c in counted)
    else:
        total = Fraction(pips, rounds) if rounds else Fraction(0)
    wins = sum(1 for c in cells.values() if c.showing.place == 1)
    return Standing(person, cells, total, pips, rounds, wins)


def _best_event(rule: Rule, standing: Standing) -> int | Fraction:
    """The best counted event, as a key where lower is better."""
    if rule.scoring == POINTS:
        return -max((c.points for c in standing.counted), default=0)
    averages = [c.average for c in standing.counted if c.average is not None]
    return min(averages) if averages else Fraction(10**9)


def _head_to_head(tied: list[Standing]) -> dict[Hashable, int]:
    """Among ``tied``, how often each placed better than another of them at an event both
    played (both with a place), negated: lower is better."""
    won = {s.person: 0 for s in tied}
    for a, b in combinations(tied, 2):
        for event, cell in a.cells.items():
            other = b.cells.get(event)
            if other is None or cell.showing.place is None or other.showing.place is None:
                continue
            if cell.showing.place < other.showing.place:
                won[a.person] += 1
            elif other.showing.place < cell.showing.place:
                won[b.person] += 1
    return {person: -n for person, n in won.items()}


def standings[K: Hashable, E: Hashable](
    results: Mapping[E, Mapping[K, Showing]], rule: Rule, order: Sequence[E] | None = None
) -> list[Standing[K, E]]:
    """One division's standings over the events of ``results`` (event -> person -> showing),
    best first; ``order``: the events in play order (by default as given)."""
    order = list(order if order is not None else results)
    by_person: dict[K, list[tuple[int, E, Showing]]] = {}
    for index, event in enumerate(order):
        for person, showing in results.get(event, {}).items():
            by_person.setdefault(person, []).append((index, event, showing))
    rows = [_standing(person, showings, rule) for person, showings in by_person.items()]
    if rule.scoring == PER_ROUND:
        rows = [r for r in rows if r.rounds]  # nothing played, nothing to average
    primary = {r.person: (-r.total if rule.scoring == POINTS else r.total) for r in rows}
    groups: dict[int | Fraction, list[Standing]] = {}
    for r in rows:
        groups.setdefault(primary[r.person], []).append(r)
    secondary: dict[Hashable, int | Fraction] = {}
    for tied in groups.values():
        if len(tied) == 1:
            secondary[tied[0].person] = 0
        elif rule.tie_break == WINS:
            secondary.update({r.person: -r.wins for r in tied})
        elif rule.tie_break == BEST_EVENT:
            secondary.update({r.person: _best_event(rule, r) for r in tied})
        else:
            secondary.update(_head_to_head(tied))
    keys = {r.person: (primary[r.person], secondary[r.person]) for r in rows}
    ranked = places(keys)
    shares = Counter(ranked.values())
    for r in rows:
        r.place = ranked[r.person]
        r.shared = shares[r.place] > 1
        r.by_tie_break = len(groups[primary[r.person]]) > 1 and not r.shared
    return sorted(rows, key=lambda r: r.place)
