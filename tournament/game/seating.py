"""Seating as plain Python: balanced tables from a list of players. No Django here."""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import TypeVar

from tournament.game.message import Message, Refusal
from tournament.game.ratings import snake
from tournament.game.rules import MAX_TABLE, MIN_TABLE, RuleSet

P = TypeVar("P", bound=Hashable)


class SeatingError(Refusal, ValueError):
    """The players cannot be seated under the rule set; the message says why."""


def table_sizes(players: int, smallest: int, largest: int, usual: int) -> list[int]:
    """Balanced table sizes: they differ by one at most, none below ``smallest`` nor above
    ``largest``, as close to ``usual`` as the count allows. Larger tables first.

    A group too small for one table of ``smallest`` plays at one table when at least two.
    """
    if players < 2:
        raise SeatingError(
            Message("Seating needs at least 2 players; %(n)s checked in.", n=players)
        )
    if players < smallest:
        if players > largest:
            raise SeatingError(Message("%(n)s players cannot be seated at one table.", n=players))
        return [players]
    lowest = -(-players // largest)  # fewest tables that keep every table within ``largest``
    highest = players // smallest  # most tables that keep every table at least ``smallest``
    if lowest > highest:
        raise SeatingError(
            Message(
                "%(n)s players cannot be split into tables of %(smallest)s to %(largest)s.",
                n=players,
                smallest=smallest,
                largest=largest,
            )
        )
    nearest = (2 * players + usual) // (2 * usual)  # players / usual, halves rounded up
    count = min(max(nearest, lowest), highest)
    base, extra = divmod(players, count)
    return [base + 1] * extra + [base] * (count - extra)


def seat_sizes(players: int, usual: int, dealable: Sequence[int]) -> list[int]:
    """Balanced table sizes for ``players`` under a rule set (PRODUCT.md §2 "table size").

    The usual size, or one more or fewer; when those cannot seat everyone, the other sizes
    the rule set deals (``dealable``), nearest the usual first: 5 players on a double-9 set
    dealing 2 to 4 sit at a table of 3 and one of 2. Sizes still differ by one at most.
    """
    dealable = sorted(set(dealable))
    if players < 2:
        raise SeatingError(
            Message("Seating needs at least 2 players; %(n)s checked in.", n=players)
        )
    if not dealable:
        raise SeatingError(Message("The rule set deals no table size."))
    widest = max(abs(size - usual) for size in dealable)
    for spread in range(1, max(widest, 1) + 1):
        allowed = [size for size in dealable if abs(size - usual) <= spread]
        if not allowed:
            continue
        try:
            sizes = table_sizes(players, min(allowed), max(allowed), usual)
        except SeatingError:
            continue
        if all(size in dealable for size in sizes):
            return sizes
    listed = ", ".join(map(str, dealable))
    raise SeatingError(
        Message(
            "%(n)s players cannot be seated at balanced tables of the sizes this rule set "
            "deals (%(sizes)s).",
            n=players,
            sizes=listed,
        )
    )


def size_to_allow(players: int, rules: RuleSet) -> int | None:
    """A table size the rule set does not list that, allowed for a stage, seats ``players`` at
    balanced tables: the one nearest the sizes listed (the smaller of two as near), dealt as
    ``RuleSet.tiles_for`` says. None when no size would (or the listed sizes seat them)."""
    dealable = rules.dealable_sizes
    if not dealable or players < MIN_TABLE:
        return None
    try:
        seat_sizes(players, rules.table_size, dealable)
    except SeatingError:
        pass
    else:
        return None
    candidates = sorted(
        (n for n in range(MIN_TABLE, MAX_TABLE + 1) if n not in dealable and rules.deals(n)),
        key=lambda n: (min(abs(n - d) for d in dealable), n),
    )
    for size in candidates:
        try:
            seat_sizes(players, rules.table_size, (*dealable, size))
        except SeatingError:
            continue
        return size
    return None


class SizeNeeded(SeatingError):
    """The players cannot be seated at the sizes the rule set lists, and a table of ``size``,
    allowed for the stage, would seat them: the message says so."""

    def __init__(self, message: Message, size: int):
        super().__init__(message)
        self.size = size


def with_size_to_allow(
    error: SeatingError, players: int, rules: RuleSet, stage: str
) -> SeatingError:
    """``error`` (the ``players`` of ``stage`` cannot be seated under ``rules``) with what the
    director can do: allow, for this stage, a table size that would seat them
    (``size_to_allow``); ``error`` itself when none would."""
    size = size_to_allow(players, rules)
    if size is None:
        return error
    return SizeNeeded(
        Message(
            "%(why)s Allow tables of %(size)s for %(stage)s: each of their players draws "
            "%(tiles)s tiles.",
            why=error.args[0],
            size=size,
            stage=stage,
            tiles=rules.tiles_for(size),
        ),
        size,
    )


class DivisionsNotSeated(SeatingError):
    """No division of a draw can be seated: ``reasons`` says why, one message per division."""

    def __init__(self, reasons: Sequence[Message]):
        super().__init__(reasons[0])
        self.reasons = list(reasons)

    def texts(self) -> list[str]:
        return [reason.translated() for reason in self.reasons]


def seatable_divisions(
    groups: Mapping[str, int], sizes_for: Callable[[int], list[int]]
) -> tuple[dict[str, list[int]], list[Message]]:
    """The table sizes of each division of a draw that can be seated (``groups``: how many
    players each has; ``sizes_for``: the sizes for a count, or ``SeatingError``), and why each
    other division cannot be, with what the director can do: one player alone in a division
    does not keep the others from their tables. When none can: a draw of one group raises
    its ``SeatingError``, of several ``DivisionsNotSeated``.
    """
    sizes: dict[str, list[int]] = {}
    left_out: list[Message] = []
    for division, players in groups.items():
        try:
            sizes[division] = sizes_for(players)
        except SeatingError as error:
            if len(groups) == 1:
                raise
            left_out.append(division_left_out(division, players, error))
    if not sizes:
        raise DivisionsNotSeated(left_out)
    return sizes, left_out


def division_left_out(division: str, players: int, error: SeatingError) -> Message:
    """Why a division is left out of a draw, and what the director can do about it."""
    if players < 2:
        if not division:
            return Message(
                "Players without a division: 1 player checked in, a table needs at least 2: "
                "give them a division, or check in more."
            )
        return Message(
            "Division %(division)s: 1 player checked in, a table needs at least 2: move them "
            "to another division, or check in more.",
            division=division,
        )
    if not division:
        return Message(
            "Players without a division cannot be seated: %(reason)s",
            reason=error.args[0],
        )
    return Message(
        "Division %(division)s cannot be seated: %(reason)s",
        division=division,
        reason=error.args[0],
    )


def unusual_sizes(sizes: Sequence[int], usual: int) -> list[int]:
    """The table sizes more than one away from the usual size (said on the seating page)."""
    return sorted({size for size in sizes if abs(size - usual) > 1}, reverse=True)


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
        raise SeatingError(Message("The table sizes do not add up to the players."))
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


def seeded(
    players: Sequence[P],
    sizes: Sequence[int],
    strength: Mapping[P, float],
    *,
    rng: random.Random | None = None,
) -> list[list[P]]:
    """Seat ``players`` at tables of ``sizes`` balanced by strength (seeding by rating).

    The players with a ``strength`` (higher is stronger) come strongest first, then those
    without one in a random order, as a draw deals them; the list is dealt in a snake draft
    (``ratings.snake``), so the strongest are spread over the tables and each table gets one
    of every so many in strength. Equal strengths are in a random order, and so are the seats
    at each table: the order of a sheet says nothing of the seeding.
    """
    if sum(sizes) != len(players):
        raise SeatingError(Message("The table sizes do not add up to the players."))
    rng = rng or random.Random()
    order = list(players)
    rng.shuffle(order)
    rated = sorted((p for p in order if p in strength), key=lambda p: -strength[p])
    unrated = [p for p in order if p not in strength]
    tables = snake(rated + unrated, sizes)
    for table in tables:
        rng.shuffle(table)
    return tables


def sizes_after_change(players: int, tables: int, usual: int, dealable: Sequence[int]) -> list[int]:
    """Balanced sizes for ``players`` once someone has left a seated stage: the same number of
    tables when they stay within one of the usual size (nobody changes table for nothing),
    else what a new draw would use (``seat_sizes``)."""
    if tables >= 1 and players >= 2 * tables:
        base, extra = divmod(players, tables)
        sizes = [base + 1] * extra + [base] * (tables - extra)
        if all(size in dealable and abs(size - usual) <= 1 for size in sizes):
            return sizes
    return seat_sizes(players, usual, dealable)


def rebalance(tables: Sequence[Sequence[P]], sizes: Sequence[int]) -> list[list[P]]:
    """``tables`` brought to ``sizes`` (balanced sizes for their players, no more tables than
    now) moving as few players as it can: the largest tables stay, each given the largest size
    left; the players of a table that goes, and the extra players of a table above its size,
    fill the tables below theirs. Returns one list per table of ``tables`` (empty: it goes).
    """
    if sum(sizes) != sum(len(t) for t in tables) or len(sizes) > len(tables):
        raise SeatingError(Message("The table sizes do not fit the players seated."))
    staying = sorted(range(len(tables)), key=lambda i: (-len(tables[i]), i))[: len(sizes)]
    target = dict(zip(staying, sorted(sizes, reverse=True), strict=True))
    out = [list(t) if i in target else [] for i, t in enumerate(tables)]
    movers = [p for i, t in enumerate(tables) if i not in target for p in t]
    for i in staying:
        while len(out[i]) > target[i]:
            movers.append(out[i].pop())
    for i in sorted(staying):
        while len(out[i]) < target[i]:
            out[i].append(movers.pop(0))
    return out


def apart_pairs(group_of: Mapping[P, str]) -> set[frozenset[P]]:
    """Every pair of players who share a keep-apart group: as if they had met (a reseating
    by fewest repeats keeps them apart as it keeps earlier tablemates apart)."""
    groups: dict[str, list[P]] = {}
    for player, group in group_of.items():
        if group:
            groups.setdefault(group, []).append(player)
    return {
        frozenset((a, b)) for members in groups.values() for a in members for b in members if a != b
    }


def together(
    tables: Sequence[Sequence[P]], group_of: Mapping[P, str]
) -> list[tuple[int, str, list[P]]]:
    """(table number, group, its players there) for each table where two or more of one
    keep-apart group sit, table 1 first: what a seating could not keep apart."""
    out = []
    for number, table in enumerate(tables, start=1):
        groups: dict[str, list[P]] = {}
        for player in table:
            if group_of.get(player):
                groups.setdefault(group_of[player], []).append(player)
        out += [(number, g, members) for g, members in sorted(groups.items()) if len(members) > 1]
    return out
