"""Ratings (PRODUCT.md §13): every finished game moves its players' multiplayer ratings.

A game is one table of a stage, its players ranked by their game totals (lower is better,
equal totals tie). The model is OpenSkill's Plackett-Luce (Weng and Lin 2011, the ``openskill``
package), made for games of many players ranked by place, not Elo's pairs. Each player is a
team of one.

Ratings are replayed from the whole history in date order (``replay``), so a correction or an
event imported late gives exactly what a fresh computation gives. A rating is shown as its
conservative value μ − 3σ on a friendly scale (×100, ``shown``): a new player starts at 0 and
climbs as the games show what they are.

Plain Python: a player is any hashable key (the site passes a person's key).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

SCALE = 100  # the friendly scale: μ − 3σ × 100
MODEL = PlackettLuce()  # the package's defaults: μ 25, σ 25/3, β 25/6


@dataclass(frozen=True)
class Rating:
    mu: float = MODEL.mu
    sigma: float = MODEL.sigma
    games: int = 0

    @property
    def shown(self) -> int:
        return shown(self.mu, self.sigma)


def shown(mu: float, sigma: float) -> int:
    """The conservative rating on the friendly scale."""
    return round((mu - 3 * sigma) * SCALE)


def ranks(totals: Mapping[Hashable, int]) -> dict[Hashable, int]:
    """Places by game total, lowest first; equal totals share a place (1, 2, 2, 4)."""
    ordered = sorted(totals.values())
    return {player: ordered.index(total) + 1 for player, total in totals.items()}


def rate_game(
    ratings: Mapping[Hashable, Rating], totals: Mapping[Hashable, int]
) -> dict[Hashable, Rating]:
    """The ratings of one game's players after it (a player not yet rated starts new)."""
    players = sorted(totals, key=repr)  # the same order whatever the caller's
    if len(players) < 2:
        return {}
    before = [ratings.get(p, Rating()) for p in players]
    teams = [[MODEL.create_rating([r.mu, r.sigma])] for r in before]
    place = ranks(totals)
    after = MODEL.rate(teams, ranks=[place[p] for p in players])
    return {
        p: Rating(team[0].mu, team[0].sigma, r.games + 1)
        for p, r, team in zip(players, before, after, strict=True)
    }


def expected_places(ratings: Sequence[Rating]) -> list[tuple[int, float]]:
    """Each player's expected place at one table and the chance of that order, as the model
    predicts it from the ratings (1 is the best)."""
    if len(ratings) < 2:
        return [(1, 1.0) for _ in ratings]
    teams = [[MODEL.create_rating([r.mu, r.sigma])] for r in ratings]
    return [(int(rank), float(chance)) for rank, chance in MODEL.predict_rank(teams)]


def win_chances(ratings: Sequence[Rating]) -> list[float]:
    """Each player's chance of winning the table (lowest total), summing to 1."""
    if len(ratings) < 2:
        return [1.0 for _ in ratings]
    teams = [[MODEL.create_rating([r.mu, r.sigma])] for r in ratings]
    return [float(p) for p in MODEL.predict_win(teams)]


def snake(players: Sequence[Hashable], tables: int | Sequence[int]) -> list[list[Hashable]]:
    """Players listed strongest first, dealt to ``tables`` tables in a snake draft (1, 2, ...,
    n, n, ..., 2, 1, 1, 2, ...): each table gets one of every ``tables`` in strength.

    ``tables`` may give each table's size instead (the draw's sizes, summing to the players):
    the draft then passes over a table once it is full, so a table of one fewer simply sits out
    the last pass."""
    if isinstance(tables, int):
        sizes = [len(players)] * tables
    else:
        sizes = list(tables)
        if sum(sizes) != len(players):
            raise ValueError("The table sizes do not add up to the players.")
    count = len(sizes)
    out: list[list[Hashable]] = [[] for _ in range(count)]
    step = 0
    for player in players:
        while True:
            turn, pos = divmod(step, count)
            table = pos if turn % 2 == 0 else count - 1 - pos
            step += 1
            if len(out[table]) < sizes[table]:
                break
        out[table].append(player)
    return out
