"""Seating as plain Python: balanced tables from a list of players. No Django here."""

from __future__ import annotations

import random
from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

P = TypeVar("P", bound=Hashable)


class SeatingError(ValueError):
    """The players cannot be seated under the rule set; the message says why."""


def table_sizes(players: int, smallest: int, largest: int, usual: int) -> list[int]:
    """Balanced table sizes: they differ by one at most, none below ``smallest`` nor above
    ``largest``, as close to ``usual`` as the count allows. Larger tables first.

    A group too small for one table of ``smallest`` plays at one table when at least two.
    """
    if players < 2:
        raise SeatingError(f"Seating needs at least 2 players; {players} checked in.")
    if players < smallest:
        if players > largest:
            raise SeatingError(f"{players} players cannot be seated at one table.")
        return [players]
    lowest = -(-players // largest)  # fewest tables that keep every table within ``largest``
    highest = players // smallest  # most tables that keep every table at least ``smallest``
    if lowest > highest:
        raise SeatingError(
            f"{players} players cannot be split into tables of {smallest} to {largest}."
        )
    nearest = (2 * players + usual) // (2 * usual)  # players / usual, halves rounded up
    count = min(max(nearest, lowest), highest)
    base, extra = divmod(players, count)
    return [base + 1] * extra + [base] * (count - extra)


def deal(
    players: Sequence[P],
    sizes: Sequence[int],
    *,
    keep_apart: Mapping[P, Hashable] | None = None,
    rng: random.Random | None = None,
) -> list[list[P]]:
    """Seat ``players`` at tables of ``sizes`` at random.

    Players who share a ``keep_apart`` value (their previous table) are dealt to different
    tables where that can be avoided: the shuffled players are ordered group by group and dealt
    round the tables like cards, so a group no larger than the number of tables never meets.
    """
    if sum(sizes) != len(players):
        raise SeatingError("The table sizes do not add up to the players.")
    rng = rng or random.Random()
    order = list(players)
    rng.shuffle(order)
    if keep_apart:
        groups: dict[Hashable, list[P]] = {}
        for p in order:
            groups.setdefault(keep_apart.get(p), []).append(p)
        order = [p for group in sorted(groups.values(), key=len, reverse=True) for p in group]
    tables: list[list[P]] = [[] for _ in sizes]
    # Deal round the larger tables first, so that every pass round the room is a full one.
    rotation = sorted(range(len(sizes)), key=lambda t: -sizes[t])
    i = 0
    for p in order:
        while len(tables[rotation[i % len(rotation)]]) >= sizes[rotation[i % len(rotation)]]:
            i += 1
        tables[rotation[i % len(rotation)]].append(p)
        i += 1
    return tables
