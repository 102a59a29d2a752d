"""Ratings and series standings worked out from PRODUCT.md §13 alone (issue 45), to check the
site's pages against: plain Python over plain rows, calling none of the site's code.

What goes in (``Season``) is what the database holds, read as rows: each event's players,
its stages, tables, seats (who joined late, who withdrew during the game), every pip count
saved, whether a table's game was marked over, the medals (§7: the table side, checked by its
own independent tests, is taken as given), the director's "same person" and "not the same
person" links. What comes out is what the pages should show: each person's rating (μ − 3σ
× 100, games, events) and its history, and each division's series rows as the CSV lists them.

The rules, as §13 and issue 45 say them:

- A person: the same name folded as the desk folds it (accents, case, apostrophes, spaces and
  punctuation) and the same club (folded alike, not empty) across events; two players of one
  event are two people (an event holding the name twice in one club joins neither
  automatically); a director's link joins, transitively; a "not the same person" link keeps
  two apart.
- Ratings: every finished game (a table of a closed stage, not a playoff, whose last round was
  played or marked as the last) ranks its players by game total, ties as ties (the rounds a
  late arrival missed score the table's highest of the round; a player who withdrew during
  the game is not ranked), OpenSkill Plackett-Luce from the package's defaults, events in date
  order (same date: by short name), stages then tables in order. Shown: round((μ − 3σ) × 100).
- A place at an event, per division: medallists first, then how far the player went (the
  deepest stage) and their total there; in a cumulative event the Final's players first, all
  ranked by the totals their medals came from, then the others by the cumulative total; a
  playoff orders the players of a tie it was played among; a withdrawn player, or one of a
  cumulative event who missed a game, has no place. Ties share a place (1, 1, 3).
- Points: the place's points (0 beyond the table) plus the medal bonus; best N of M keeps
  the N highest (of two alike, the earlier). Per round: pips over rounds actually played
  (a late arrival's filled rounds out of both sums), best N the lowest averages. Ties: most
  wins (events placed 1st), or the best single event; still tied, a shared place.
- An average is shown rounded half up to two decimals.
"""

from __future__ import annotations

import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

from openskill.models import PlackettLuce

MEDALS = ("gold", "silver", "bronze")
PLAYOFF = "playoff"


@dataclass
class SPlayer:
    pk: int
    event: int
    name: str
    club: str
    division: str
    withdrawn: bool


@dataclass
class STable:
    pk: int
    number: int
    seats: list[tuple[int, int | None, int | None]]  # (player, joined_at, left_after)
    rounds: list[dict[int, int]]  # in play order: player -> pips saved
    game_over_after: int | None


@dataclass
class SStage:
    number: int
    kind: str  # qualifying, semifinal, final, playoff
    closed: bool
    tables: list[STable]


@dataclass
class SEvent:
    pk: int
    slug: str
    name: str
    date: date
    engines: int
    kind: str  # knockout, cumulative, cumulative_final
    games: int  # cumulative kinds
    medals_from: str  # final, cumulative_plus_final
    stages: list[SStage]
    medals: dict[int, str]  # player -> medal


@dataclass
class Season:
    events: list[SEvent]  # every event of the site
    players: dict[int, SPlayer]
    links: list[tuple[int, int, bool]]  # (player, player, same person?) in the order made
    series: list[int] = field(default_factory=list)  # the series' events (ids)
    scoring: str = "points"
    points: tuple[int, ...] = (10, 8, 6, 5, 4, 3, 2, 1)
    medal_bonus: tuple[int, ...] = (3, 2, 1)
    best_of: int | None = None
    tie_break: str = "wins"


# -- people ----------------------------------------------------------------------------------


def fold(text: str) -> str:
    """Letters and digits only, without case or accents ("O’Brien" and "obrien" are one)."""
    text = text.casefold().replace("ß", "ss")
    bare = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return "".join(c for c in bare if c.isalnum() and c not in "\u02b9\u02bb\u02bc\u02bd")


def people(season: Season) -> dict[int, int]:
    """Every player's person: the lowest player id of their group."""
    parent = {pk: pk for pk in season.players}
    events_of = {pk: {p.event} for pk, p in season.players.items()}
    apart = {frozenset((a, b)) for a, b, same in _last_word(season.links) if not same}

    def root(pk):
        while parent[pk] != pk:
            pk = parent[pk]
        return pk

    def members(r):
        return [pk for pk in parent if root(pk) == r]

    def join(a, b):
        ra, rb = root(a), root(b)
        if ra == rb or events_of[ra] & events_of[rb]:
            return  # two players of one event are two people
        ma, mb = members(ra), members(rb)
        if any(frozenset((x, y)) in apart for x in ma for y in mb):
            return
        keep, gone = min(ra, rb), max(ra, rb)
        parent[gone] = keep
        events_of[keep] |= events_of[gone]

    for a, b, same in _last_word(season.links):
        if same:
            join(a, b)
    by_key: dict[tuple[str, str], list[int]] = defaultdict(list)
    for pk, p in sorted(season.players.items()):
        if fold(p.club) and fold(p.name):
            by_key[fold(p.name), fold(p.club)].append(pk)
    for pks in by_key.values():
        per_event = defaultdict(int)
        for pk in pks:
            per_event[season.players[pk].event] += 1
        alone = [pk for pk in pks if per_event[season.players[pk].event] == 1]
        for other in alone[1:]:
            join(alone[0], other)
    return {pk: root(pk) for pk in parent}


def _last_word(links):
    latest = {}
    for a, b, same in links:
        latest[frozenset((a, b))] = (a, b, same)
    return list(latest.values())


# -- games -----------------------------------------------------------------------------------


def table_totals(table: STable) -> dict[int, int]:
    """Each seated player's game total: pips saved, and for a late arrival the table's highest
    of each round missed; a player who withdrew counts the rounds played."""
    totals = {pk: 0 for pk, _j, _l in table.seats}
    for number, pips in enumerate(table.rounds, start=1):
        played = {
            pk: pips[pk]
            for pk, joined, left in table.seats
            if pk in pips
            and (joined is None or number >= joined)
            and (left is None or number <= left)
        }
        highest = max(played.values(), default=0)
        for pk, joined, _left in table.seats:
            if joined is not None and number < joined:
                totals[pk] += highest
            elif pk in played:
                totals[pk] += played[pk]
    return totals


def rounds_played(table: STable) -> dict[int, tuple[int, int]]:
    """Each player's (pips, rounds) over the rounds they actually played at the table."""
    out = {}
    for pk, joined, left in table.seats:
        mine = [
            pips[pk]
            for number, pips in enumerate(table.rounds, start=1)
            if pk in pips
            and (joined is None or number >= joined)
            and (left is None or number <= left)
        ]
        out[pk] = (sum(mine), len(mine))
    return out


def ended(event: SEvent, table: STable) -> bool:
    return bool(table.rounds) and (
        len(table.rounds) >= event.engines or table.game_over_after is not None
    )


def event_order(events: list[SEvent]) -> list[SEvent]:
    return sorted(events, key=lambda e: (e.date, e.slug))


# -- ratings ---------------------------------------------------------------------------------


@dataclass
class Rated:
    mu: float
    sigma: float
    games: int
    events: int
    shown: int
    history: list[tuple[str, int, int]]  # (event name, shown, games) in the order rated
    name: str  # the latest player's
    club: str
    player: int  # the latest player (their page shows the history)


def shown(mu: float, sigma: float) -> int:
    return round((mu - 3 * sigma) * 100)


def ratings(season: Season) -> dict[int, Rated]:
    model = PlackettLuce()
    person = people(season)
    now: dict[int, tuple[float, float, int]] = {}
    history: dict[int, list[tuple[str, int, int]]] = defaultdict(list)
    for event in event_order(season.events):
        played: set[int] = set()
        for stage in sorted(event.stages, key=lambda s: s.number):
            if not stage.closed or stage.kind == PLAYOFF:
                continue
            for table in sorted(stage.tables, key=lambda t: t.number):
                if not ended(event, table):
                    continue
                totals = table_totals(table)
                ranked: dict[int, int] = {}
                for pk, _joined, left in table.seats:
                    if left is None and person[pk] not in ranked:
                        ranked[person[pk]] = totals[pk]
                if len(ranked) < 2:
                    continue
                keys = sorted(ranked)
                teams = [
                    [model.create_rating([now[k][0], now[k][1]])] if k in now else [model.rating()]
                    for k in keys
                ]
                ranks = [1 + sum(t < ranked[k] for t in ranked.values()) for k in keys]
                for k, (after,) in zip(keys, model.rate(teams, ranks=ranks), strict=True):
                    now[k] = (after.mu, after.sigma, now.get(k, (0, 0, 0))[2] + 1)
                    played.add(k)
        for k in sorted(played):
            mu, sigma, games = now[k]
            history[k].append((event.name, shown(mu, sigma), games))
    latest: dict[int, SPlayer] = {}
    order = {e.pk: i for i, e in enumerate(event_order(season.events))}
    for pk, p in sorted(season.players.items(), key=lambda kv: (order[kv[1].event], kv[0])):
        latest[person[pk]] = p
    return {
        k: Rated(
            mu,
            sigma,
            games,
            len(history[k]),
            shown(mu, sigma),
            history[k],
            latest[k].name,
            latest[k].club,
            latest[k].pk,
        )
        for k, (mu, sigma, games) in now.items()
    }


# -- a place at an event ---------------------------------------------------------------------


@dataclass
class Showing:
    place: int | None
    medal: str
    pips: int
    rounds: int


def showings(season: Season, event: SEvent) -> dict[str, dict[int, Showing]]:
    """Division -> player -> their place, medal, and pips over the rounds played there."""
    players = season.players
    stages = sorted(event.stages, key=lambda s: s.number)
    games = [s for s in stages if s.kind != PLAYOFF]
    pips: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    reached: dict[int, tuple[int, int]] = {}  # (-depth, total)
    per_game: list[dict[int, int]] = []
    for stage in games:
        totals_here: dict[int, int] = {}
        for table in stage.tables:
            totals = table_totals(table)
            for pk, (p, n) in rounds_played(table).items():
                pips[pk][0] += p
                pips[pk][1] += n
            totals_here.update(totals)
        per_game.append(totals_here)
        if event.kind == "knockout":
            for pk, total in totals_here.items():
                reached[pk] = (-stage.number, total)
    if event.kind != "knockout":
        qualifying = [g for g in per_game[: event.games]]
        everyone = set().union(*qualifying) if qualifying else set()
        cumulative = {
            pk: sum(g[pk] for g in qualifying)
            for pk in everyone
            if all(pk in g for g in qualifying)
        }
        reached = {pk: (0, t) for pk, t in cumulative.items()}
        if event.kind == "cumulative_final" and len(per_game) > event.games:
            final = per_game[event.games]
            for pk, total in final.items():
                medal_total = total + (
                    cumulative.get(pk, 0) if event.medals_from == "cumulative_plus_final" else 0
                )
                reached[pk] = (-1, medal_total)
    playoffs = [
        {pk: pips_ for pk, pips_ in table.rounds[0].items()}
        for stage in stages
        if stage.kind == PLAYOFF and stage.closed
        for table in stage.tables
        if table.rounds
    ]
    out: dict[str, dict[int, Showing]] = defaultdict(dict)
    keys: dict[str, dict[int, tuple]] = defaultdict(dict)
    for pk in pips:
        p = players[pk]
        medal = event.medals.get(pk, "")
        if pk in reached and not p.withdrawn:
            rank = MEDALS.index(medal) if medal else len(MEDALS)
            keys[p.division][pk] = (rank, *reached[pk])
        out[p.division][pk] = Showing(None, medal, *pips[pk])
    for division, mine in keys.items():
        for pk, place in shared_places(refine(mine, playoffs)).items():
            s = out[division][pk]
            out[division][pk] = Showing(place, s.medal, s.pips, s.rounds)
    return out


def refine(keys: dict[int, tuple], playoffs: list[dict[int, int]]) -> dict[int, tuple]:
    """Players of equal keys who all played a playoff are ordered by it, playoff after
    playoff; the others stay tied."""
    groups: dict[tuple, list[int]] = defaultdict(list)
    for pk, key in keys.items():
        groups[key].append(pk)
    out = {}
    for key, members in groups.items():
        classes = [members]
        for playoff in playoffs:
            split = []
            for c in classes:
                if len(c) > 1 and all(pk in playoff for pk in c):
                    for pips in sorted({playoff[pk] for pk in c}):
                        split.append([pk for pk in c if playoff[pk] == pips])
                else:
                    split.append(c)
            classes = split
        for i, c in enumerate(classes):
            for pk in c:
                out[pk] = (*key, i)
    return out


def shared_places(keys: dict) -> dict:
    values = sorted(keys.values())
    return {pk: 1 + sum(v < k for v in values) for pk, k in keys.items()}


# -- the series ------------------------------------------------------------------------------


def half_up(value: Fraction) -> Decimal:
    """Rounded half up to two decimals, exactly."""
    return (
        (Decimal(value.numerator) / Decimal(value.denominator)).quantize(
            Decimal("0.01"), rounding=ROUND_HALF_UP
        )
        if value.denominator
        else Decimal(0)
    )


def finished(season: Season, event: SEvent) -> bool:
    """Every division's medals decided: the site's own word is not needed; the season's
    events are all played to their medals, and an owed playoff leaves no medal pending."""
    return bool(event.medals)


def _cell_order(values: dict, played: list, pk: int, per_round: bool) -> tuple:
    """Best first: most points, or the lowest average (none: last); the earlier first."""
    v, i = values[pk], played.index(pk)
    if per_round:
        return (v is None, v if v is not None else 0, i)
    return (-v, i)


def series_rows(season: Season) -> list[tuple]:
    """The series' rows as its CSV lists them: (division, place, name, *cells, total,
    [rounds, pips,] wins); a dropped cell in brackets, numbers as text."""
    person = people(season)
    by_pk = {e.pk: e for e in season.events}
    events = [by_pk[pk] for pk in season.series]
    events = sorted(events, key=lambda e: (e.date, e.pk))
    counted = [e for e in events if finished(season, e)]
    per_round = season.scoring == "per_round"
    cells: dict[str, dict[int, dict[int, Showing]]] = defaultdict(lambda: defaultdict(dict))
    latest: dict[int, str] = {}
    for event in counted:
        for division, mine in showings(season, event).items():
            for pk, s in mine.items():
                cells[division][person[pk]][event.pk] = s
                latest[person[pk]] = season.players[pk].name
    rows = []
    for division in sorted(cells):
        standing = {}
        for who, mine in cells[division].items():
            values = {}
            for e in counted:
                if e.pk not in mine:
                    continue
                s = mine[e.pk]
                if per_round:
                    values[e.pk] = Fraction(s.pips, s.rounds) if s.rounds else None
                else:
                    bonus = (
                        season.medal_bonus[MEDALS.index(s.medal)]
                        if s.medal and MEDALS.index(s.medal) < len(season.medal_bonus)
                        else 0
                    )
                    table = season.points
                    values[e.pk] = (
                        table[s.place - 1] if s.place and s.place <= len(table) else 0
                    ) + bonus
            played = [e.pk for e in counted if e.pk in values]
            kept = set(played)
            if season.best_of is not None and len(played) > season.best_of:
                ranked = sorted(played, key=lambda pk: _cell_order(values, played, pk, per_round))
                kept = set(ranked[: season.best_of])
            if per_round:
                p = sum(mine[pk].pips for pk in kept)
                n = sum(mine[pk].rounds for pk in kept)
                if not n:
                    continue
                total = Fraction(p, n)
                primary = total
                best = min((values[pk] for pk in kept if values[pk] is not None), default=0)
            else:
                p = n = 0
                total = sum(values[pk] for pk in kept)
                primary = -total
                best = -max((values[pk] for pk in kept), default=0)
            wins = sum(1 for pk in played if mine[pk].place == 1)
            second = -wins if season.tie_break == "wins" else best
            standing[who] = (primary, second, values, kept, total, wins, p, n)
        alike = defaultdict(int)
        for st in standing.values():
            alike[st[0]] += 1
        keys = {who: (st[0], st[1] if alike[st[0]] > 1 else 0) for who, st in standing.items()}
        places = shared_places(keys)
        for who, (_p, _s, values, kept, total, wins, p, n) in standing.items():
            shown_cells = []
            for e in counted:
                if e.pk not in values or values[e.pk] is None:
                    shown_cells.append("")
                    continue
                v = values[e.pk]
                text = str(half_up(v)) if per_round else str(v)
                shown_cells.append(text if e.pk in kept else f"({text})")
            rows.append(
                (
                    division,
                    str(places[who]),
                    latest[who],
                    *shown_cells,
                    str(half_up(total)) if per_round else str(total),
                    *((str(n), str(p)) if per_round else ()),
                    str(wins),
                )
            )
    return rows
