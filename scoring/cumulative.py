"""A cumulative event's standings as its pages show them (PRODUCT.md §12): for every player,
each game's total and the running total after it, their place by the cumulative total within
their division, and whether they still contend. Reads only, from ``EventResults`` (a fixed
number of queries whatever the event's size); the totals that decide anything are
scoring/results.py's (closed games only), while these rows may show games in progress."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.utils.translation import gettext as _

from scoring.results import EventResults, game_totals
from tournament.game.rules import places
from tournament.models import Player, Stage


@dataclass
class CumulativeRow:
    player: Player
    games: list[int | None]  # each game's total; None: not seated in it
    running: list[int | None]  # the cumulative total after each game; None: not played
    total: int
    place: int | None = None  # by the cumulative total in the division; None: out
    out: bool = False  # withdrew or missed a game: keeps the games played, cannot medal
    withdrew: bool = False  # withdrew (before or during a game shown)
    medal: str = ""
    finalist: bool = False  # goes on to the Final (cumulative, then a Final)

    @property
    def played(self) -> int:
        return sum(total is not None for total in self.games)


@dataclass
class CumulativeStandings:
    games: list[Stage]  # the games shown, in play order
    divisions: dict[str, list[CumulativeRow]] = field(default_factory=dict)  # best first

    @property
    def rows(self) -> list[CumulativeRow]:
        return [row for rows in self.divisions.values() for row in rows]


def cumulative_standings(
    results: EventResults, through: Stage | None = None, include_open: bool = True
) -> CumulativeStandings:
    """The standings of a cumulative event after ``through`` (by default every game played),
    division by division, best first. ``include_open``: a game in progress counts as it
    stands once a round is entered (a live page); otherwise only closed games (what
    decides)."""
    games = [
        g
        for g in results.games
        if results.sheets.get(g)
        and (g.closed or (include_open and any(s.played for s in results.sheets[g])))
        and (through is None or g.number <= through.number)
    ]
    per_game: list[dict[int, int]] = []
    left: set[int] = set()
    for game in games:
        per_game.append(game_totals(results.sheets[game]))
        left |= {pk for s in results.sheets[game] for pk in s.left}
    players = results.players
    medals = results.medal_of()
    last = results.games[-1] if results.games else None
    finalists = {p.pk for p in results.advancing(last)} if last is not None else set()
    rows: dict[str, list[CumulativeRow]] = {}
    for pk in sorted({pk for game in per_game for pk in game}):
        totals = [game.get(pk) for game in per_game]
        running, sum_ = [], 0
        for total in totals:
            if total is not None:
                sum_ += total
            running.append(sum_ if total is not None else None)
        player = players[pk]
        withdrew = player.withdrawn or pk in left
        out = withdrew or None in totals
        row = CumulativeRow(
            player,
            totals,
            running,
            sum_,
            out=out,
            withdrew=withdrew,
            medal=medals.get(pk, ""),
            finalist=pk in finalists,
        )
        rows.setdefault(player.division, []).append(row)
    standings = CumulativeStandings(games)
    for division in sorted(rows):
        contending = {row.player.pk: row.total for row in rows[division] if not row.out}
        ranked = places(contending)
        for row in rows[division]:
            row.place = ranked.get(row.player.pk)
        standings.divisions[division] = sorted(
            rows[division],
            key=lambda r: (r.out, r.total if not r.out else -r.played, r.player.name),
        )
    return standings


def out_note(row: CumulativeRow) -> str:
    """Why a row that is out has no place: the player withdrew, or missed a game (keeping the
    games played)."""
    return _("withdrew") if row.withdrew else _("missed a game")
