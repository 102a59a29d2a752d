"""How a simulated player chooses among the plays the rules allow. No Django here.

A strategy is a function ``(position, plays) -> Play``; it is only asked when the rules leave a
choice (``moves.legal_plays`` gave more than one play) and must return one of ``plays``.
Ties are broken by a fixed order, so a seeded round plays the same way every time.

- ``highest_first``: lay the tile with the most pips, to be left with as few as possible.
- ``keep_train`` (the default): what the rules texts tell a player to do at the deal, "form a
  personal train" from the hand and keep the rest as "extras" (NVSO B). It plays extras on the
  Mexican train or a marked train first, highest pips first, keeps the planned line for its own
  train (and plays on its own train first when that takes its marker off), and likes a double
  it can close in the same turn.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

from tournament.game.simulator.moves import Play
from tournament.game.simulator.position import Position
from tournament.game.simulator.tiles import Tile, is_double

Strategy = Callable[[Position, Sequence[Play]], Play]

PLAN_BUDGET = 100  # tiles tried when planning a personal train (a longer search plays no better)


def _fixed_order(play: Play) -> tuple:
    return (play.tile, -play.train)


def highest_first(position: Position, plays: Sequence[Play]) -> Play:
    """The play that sheds the most pips; on a tie, one's own train, then the Mexican train."""
    me, mexican = position.player, position.mexican

    def score(p: Play):
        return (sum(p.tile), p.train == me, p.train == mexican, _fixed_order(p))

    return max(plays, key=score)


@lru_cache(maxsize=4096)
def _plan(hand: tuple[Tile, ...], end: int, budget: int) -> tuple[Tile, ...]:
    by_number: dict[int, list[int]] = {}
    for i, (a, b) in enumerate(hand):
        by_number.setdefault(a, []).append(i)
        if b != a:
            by_number.setdefault(b, []).append(i)
    best: tuple[Tile, ...] = ()
    best_len = best_pips = tried = 0
    path: list[Tile] = []
    used = [False] * len(hand)

    def extend(open_end: int, pips: int) -> None:
        nonlocal best, best_len, best_pips, tried
        depth = len(path)
        if depth > best_len or (depth == best_len and pips > best_pips):
            best, best_len, best_pips = tuple(path), depth, pips
        for i in by_number.get(open_end, ()):
            if used[i]:
                continue
            if tried >= budget:
                return
            tried += 1
            a, b = tile = hand[i]
            used[i] = True
            path.append(tile)
            extend(b if a == open_end else a, pips + a + b)
            path.pop()
            used[i] = False

    extend(end, 0)
    return best


def planned_train(hand: Sequence[Tile], end: int, budget: int = PLAN_BUDGET) -> list[Tile]:
    """The longest line of end-matching tiles from ``hand`` starting at ``end`` (most pips on a
    tie), found by a depth-first search that stops after ``budget`` tiles tried."""
    return list(_plan(tuple(sorted(hand)), end, budget))


def keep_train(position: Position, plays: Sequence[Play]) -> Play:
    """Extras elsewhere first, the planned personal train kept going, highest pips first."""
    me = position.player
    hand = position.hands[me]
    own = position.trains[me]
    plan = planned_train(hand, own.end)
    planned = set(plan)
    numbers_held = {}
    for tile in hand:
        if not is_double(tile):
            for n in set(tile):
                numbers_held[n] = numbers_held.get(n, 0) + 1

    def score(p: Play):
        tile, on_own = p.tile, p.train == me
        if position.owes:
            rank = 0 if is_double(tile) else 1  # close the double of this turn
        elif is_double(tile) and numbers_held.get(tile[0]):
            rank = 5  # a double with its closing tile in hand: two tiles this turn
        elif on_own and own.marked and plan and tile == plan[0]:
            rank = 4  # take the marker off
        elif not on_own and tile not in planned:
            rank = 3  # an extra, played where it costs the personal train nothing
        elif on_own and plan and tile == plan[0]:
            rank = 2  # keep the personal train going
        elif on_own:
            rank = 1
        else:
            rank = 0  # a tile the personal train needed
        return (rank, sum(tile), _fixed_order(p))

    return max(plays, key=score)


STRATEGIES: dict[str, Strategy] = {"keep_train": keep_train, "highest_first": highest_first}
