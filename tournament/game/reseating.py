"""Reseating between the games of a cumulative event, as plain Python: no Django here
(issue 30, PRODUCT.md §12 "Reseating between cumulative games").

- ``fewest_repeats`` (the default): a random seating in which as few pairs as possible sit
  together again (``met_pairs`` of every earlier game, counted by ``repeats``);
- ``by_standing``: the cumulative places in order (``standing_order``), table 1 takes the best;
- ``progressive``: after each game, each table's ``move`` lowest game totals move up a table and
  its ``move`` highest move down; ``progressive_balanced`` does the same once withdrawn players
  have left the tables, and brings them back to balanced sizes.

A player is any hashable key; a table is a list of players in seat order; table sizes are the
balanced sizes the caller gives (``seating.seat_sizes``), largest first. Divisions are reseated
apart: the caller calls these once per division.
"""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from itertools import combinations
from typing import TypeVar

from tournament.game.message import Message
from tournament.game.seating import SeatingError, deal

P = TypeVar("P", bound=Hashable)

# Up to this many distinct seatings, ``fewest_repeats`` tries them all (the true minimum).
EXACT_LIMIT = 20_000
# Above, a search of this many steps for each player, while the swaps weighed (a step weighs
# every swap of one player) stay below ``SEARCH_WORK``: 120 players take a fraction of a second.
STEPS_PER_PLAYER, SEARCH_WORK = 60, 360_000


def met_pairs(tables: Iterable[Sequence[P]]) -> set[frozenset[P]]:
    """Every pair of players who sat at one table (pass every table of every earlier game)."""
    return {frozenset(pair) for table in tables for pair in combinations(table, 2)}


def repeats(tables: Sequence[Sequence[P]], met: Collection[frozenset[P]]) -> int:
    """How many pairs seated together at ``tables`` have already met."""
    return sum(frozenset(pair) in met for table in tables for pair in combinations(table, 2))


def _check_sizes(players: int, sizes: Sequence[int]) -> None:
    if sum(sizes) != players or any(size < 1 for size in sizes):
        raise SeatingError(Message("The table sizes do not add up to the players."))


# -- fewest repeats -------------------------------------------------------------------------------


def fewest_repeats(
    players: Sequence[P],
    sizes: Sequence[int],
    met: Collection[frozenset[P]],
    rng: random.Random,
    *,
    exact_limit: int = EXACT_LIMIT,
) -> list[list[P]]:
    """A random seating of ``players`` at tables of ``sizes`` (table ``i`` seats ``sizes[i]``)
    with as few pairs who already ``met`` as it can: nobody meets the same player twice while
    that can be avoided. The same ``rng`` state gives the same seating.

    When the distinct seatings number at most ``exact_limit`` (12 players at 3 tables: 5,775)
    every one is tried, and one of the best is drawn at random: the true minimum. Above, a
    search: a deal keeping earlier tablemates apart, then swaps of two players between tables,
    with restarts, for a bounded number of steps; its seating has no swap of two players that
    would lower the repeats, and no repeat at all when the only earlier game's tables are no
    larger than the number of tables. When nobody has met, a plain random deal.
    """
    _check_sizes(len(players), sizes)
    n = len(players)
    index = {p: i for i, p in enumerate(players)}
    neighbours: list[set[int]] = [set() for _ in range(n)]
    for pair in met:
        ends = [index[p] for p in pair if p in index]
        if len(ends) == 2:
            a, b = ends
            neighbours[a].add(b)
            neighbours[b].add(a)
    adjacent = [sorted(s) for s in neighbours]
    if not any(adjacent):  # nobody has met: any seating will do
        blocks = deal(list(range(n)), sizes, rng=rng)
    elif seatings(sizes) <= exact_limit:
        blocks = _exact(n, sizes, adjacent, rng)
    else:
        blocks = _search(n, sizes, adjacent, neighbours, rng)
    out = [[players[i] for i in block] for block in blocks]
    for table in out:
        rng.shuffle(table)
    return out


def seatings(sizes: Sequence[int]) -> int:
    """How many distinct seatings ``sizes`` give (who sits with whom; tables of one size are
    interchangeable, seats are not counted)."""
    count = math.factorial(sum(sizes))
    for size in sizes:
        count //= math.factorial(size)
    for size in set(sizes):
        count //= math.factorial(sizes.count(size))
    return count


def _exact(
    n: int, sizes: Sequence[int], adjacent: list[list[int]], rng: random.Random
) -> list[list[int]]:
    """One of the seatings with the fewest repeats, drawn at random among them: every seating
    is enumerated once (tables of one size in order of their first player), pruned as soon as
    it has more repeats than the best so far."""
    masks = [sum(1 << j for j in adj) for adj in adjacent]
    order = sorted(range(len(sizes)), key=lambda t: -sizes[t])  # equal sizes side by side
    best = [math.inf]
    found: list[list[list[int]]] = []

    last = len(order) - 1
    # From a table on, when every table left has its size, each takes the first player left.
    alike = [len({sizes[u] for u in order[t:]}) == 1 for t in range(len(order))]

    def repeated(block: Sequence[int]) -> int:
        bits = sum(1 << i for i in block)
        return sum((masks[i] & bits).bit_count() for i in block) // 2

    def place(t: int, left: list[int], prev_first: int, cost: int, chosen: list[list[int]]):
        if t == last:
            cost += repeated(left)
            if cost <= best[0]:
                if cost < best[0]:
                    best[0] = cost
                    found.clear()
                found.append([*chosen, left])
            return
        size = sizes[order[t]]
        same = t > 0 and sizes[order[t - 1]] == size
        for k, first in enumerate(left[:1] if alike[t] else left):
            if same and first < prev_first:
                continue
            for others in combinations(left[k + 1 :], size - 1):
                block = (first, *others)
                extra = repeated(block)
                if cost + extra > best[0]:
                    continue
                taken = set(block)
                chosen.append(list(block))
                place(t + 1, [i for i in left if i not in taken], first, cost + extra, chosen)
                chosen.pop()

    place(0, list(range(n)), -1, 0, [])
    picked = rng.choice(found)
    out: list[list[int]] = [[] for _ in sizes]
    for size in sorted(set(sizes), reverse=True):
        slots = [order[t] for t in range(len(order)) if sizes[order[t]] == size]
        blocks = [picked[t] for t in range(len(order)) if sizes[order[t]] == size]
        rng.shuffle(blocks)
        for slot, block in zip(slots, blocks, strict=True):
            out[slot] = block
    return out


class _Room:
    """A seating under search: who sits where, and how many earlier tablemates each player
    would find at each table (``clash[p][t]``)."""

    def __init__(self, table_of: list[int], tables: int, adjacent: list[list[int]]):
        self.table_of = table_of
        self.adjacent = adjacent
        self.clash = [[0] * tables for _ in table_of]
        for p, adj in enumerate(adjacent):
            for q in adj:
                self.clash[p][table_of[q]] += 1

    def repeats(self) -> int:
        return sum(self.clash[p][t] for p, t in enumerate(self.table_of)) // 2

    def gain(self, p: int, q: int, met: bool) -> int:
        """How the repeats change when ``p`` and ``q`` (at different tables) swap."""
        a, b = self.table_of[p], self.table_of[q]
        cp, cq = self.clash[p], self.clash[q]
        return cp[b] + cq[a] - cp[a] - cq[b] - 2 * met

    def swap(self, p: int, q: int) -> None:
        a, b = self.table_of[p], self.table_of[q]
        for r in self.adjacent[p]:
            self.clash[r][a] -= 1
            self.clash[r][b] += 1
        for r in self.adjacent[q]:
            self.clash[r][b] -= 1
            self.clash[r][a] += 1
        self.table_of[p], self.table_of[q] = b, a


def _search(
    n: int,
    sizes: Sequence[int],
    adjacent: list[list[int]],
    neighbours: list[set[int]],
    rng: random.Random,
) -> list[list[int]]:
    """A seating with few repeats: starts from a deal keeping earlier tablemates apart, then
    from greedy draws; each start walks by swaps of a player who meets someone again (the best
    swap for them, sideways on a plateau, now and then a worse one); the best seating seen is
    then improved by the best swaps until none helps."""
    steps = max(min(STEPS_PER_PLAYER * n, SEARCH_WORK // n), 500)
    restart_after = max(steps // 4, 100)
    tables = len(sizes)

    # First start: earlier tablemates apart (one earlier game: nobody meets again when each
    # of its tables is no larger than the number of tables).
    group = _components(n, adjacent)
    start = deal(list(range(n)), sizes, keep_apart=dict(enumerate(group)), rng=rng)
    best_of = _table_of(n, start)
    best = _Room(list(best_of), tables, adjacent).repeats()
    step = 0
    while best and step < steps:
        start_of = list(best_of) if step == 0 else _greedy(n, sizes, neighbours, rng)
        room = _Room(start_of, tables, adjacent)
        now = room.repeats()
        if now < best:
            best, best_of = now, list(room.table_of)
        stale = 0
        while now and step < steps and stale < restart_after:
            step += 1
            stale += 1
            clashing = [p for p in range(n) if room.clash[p][room.table_of[p]]]
            p = rng.choice(clashing)
            a = room.table_of[p]
            low, moves = math.inf, []
            for q in range(n):
                if room.table_of[q] == a:
                    continue
                d = room.gain(p, q, q in neighbours[p])
                if d < low:
                    low, moves = d, [q]
                elif d == low:
                    moves.append(q)
            if not moves or (low > 0 and rng.random() > 0.1):
                continue
            room.swap(p, rng.choice(moves))
            now += low
            if now < best:
                best, best_of, stale = now, list(room.table_of), 0
    room = _Room(best_of, tables, adjacent)
    _descend(room, n, neighbours)
    blocks: list[list[int]] = [[] for _ in sizes]
    for p, t in enumerate(room.table_of):
        blocks[t].append(p)
    return blocks


def _descend(room: _Room, n: int, neighbours: list[set[int]]) -> None:
    """The best swap of two players, again and again, while one lowers the repeats."""
    while True:
        low, pick = 0, None
        for p in range(n):
            if not room.clash[p][room.table_of[p]]:
                continue
            for q in range(n):
                if room.table_of[q] != room.table_of[p]:
                    d = room.gain(p, q, q in neighbours[p])
                    if d < low:
                        low, pick = d, (p, q)
        if pick is None:
            return
        room.swap(*pick)


def _table_of(n: int, tables: Sequence[Sequence[int]]) -> list[int]:
    out = [0] * n
    for t, table in enumerate(tables):
        for p in table:
            out[p] = t
    return out


def _components(n: int, adjacent: list[list[int]]) -> list[int]:
    """Each player's group of earlier tablemates, met directly or through others."""
    group = [-1] * n
    for root in range(n):
        if group[root] >= 0:
            continue
        group[root] = root
        todo = [root]
        while todo:
            for q in adjacent[todo.pop()]:
                if group[q] < 0:
                    group[q] = root
                    todo.append(q)
    return group


def _greedy(
    n: int, sizes: Sequence[int], neighbours: list[set[int]], rng: random.Random
) -> list[int]:
    """Players in random order, each to a table with room where they meet the fewest earlier
    tablemates (then the most room left, then at random)."""
    order = list(range(n))
    rng.shuffle(order)
    seated: list[list[int]] = [[] for _ in sizes]
    table_of = [0] * n
    for p in order:
        choices = [t for t in range(len(sizes)) if len(seated[t]) < sizes[t]]
        keys = {
            t: (sum(q in neighbours[p] for q in seated[t]), len(seated[t]) - sizes[t])
            for t in choices
        }
        low = min(keys.values())
        t = rng.choice([t for t in choices if keys[t] == low])
        seated[t].append(p)
        table_of[p] = t
    return table_of


# -- by standing ----------------------------------------------------------------------------------


def standing_order(
    players: Iterable[P],
    cumulative: Mapping[P, int],
    last_game: Mapping[P, int],
    registration: Mapping[P, int],
) -> list[P]:
    """The players by cumulative total, lowest first; a tie by the last game's total (lowest
    first; a player without one after those with one), then by registration order."""
    return sorted(
        players,
        key=lambda p: (
            cumulative[p],
            p not in last_game,
            last_game.get(p, 0),
            registration[p],
        ),
    )


def by_standing(order: Sequence[P], sizes: Sequence[int]) -> list[list[P]]:
    """Tables in standing order: table 1 takes the first players of ``order``, then table 2,
    and so on, the tables taking ``sizes`` largest first."""
    _check_sizes(len(order), sizes)
    out: list[list[P]] = []
    start = 0
    for size in sorted(sizes, reverse=True):
        out.append(list(order[start : start + size]))
        start += size
    return out


# -- progressive ----------------------------------------------------------------------------------


def _check_move(move: int, usual: int) -> None:
    """``move`` is checked against the usual table size (PRODUCT.md §12): at most half of it."""
    if move < 1:
        raise SeatingError(Message("At least 1 player moves up and 1 down at each table."))
    if move > max(usual // 2, 1):
        raise SeatingError(
            Message(
                "At most half a table moves each way: %(move)s players cannot move up "
                "and %(move)s down at tables of %(size)s (at most %(most)s).",
                move=move,
                size=usual,
                most=usual // 2,
            )
        )


def moving_at(move: int, size: int) -> int:
    """How many players of a table of ``size`` move up (and as many down) when ``move`` move
    at the usual table: ``move``, or half that table, rounded down, at a table too small for
    it (PRODUCT.md §12: a club moving 2 at tables of 4 moves 1 at a table of 3)."""
    return min(move, size // 2)


def progressive(
    tables: Sequence[Sequence[P]],
    game_totals: Mapping[P, int],
    cumulative: Mapping[P, int],
    move: int,
    usual: int | None = None,
) -> list[list[P]]:
    """The next game's tables of a progressive event, from the last game's ``tables`` in table
    order (table 1 first).

    At each table the ``move`` lowest game totals move up one table and the ``move`` highest
    move down one (at a table smaller than the ``usual`` size, half that table, rounded down:
    ``moving_at``); table 1's lowest and the last table's highest stay. A tie at a moving place:
    the lower cumulative total moves up (the higher moves down), then the earlier seat moves
    up (the later seat moves down). Every table keeps its size when its neighbours move as many
    as it does (a smaller table, moving fewer, trades sizes with its neighbour); with one table
    nobody moves. Players who stay keep their seat order; those who arrive sit after them,
    those from the table above first, each group in its seat order.

    Refused (``SeatingError``) when ``move`` is below 1 or more than half the ``usual`` table
    size (by default the largest table's).
    """
    if not tables:
        return []
    _check_move(move, usual if usual is not None else max(len(t) for t in tables))
    return _moved(tables, game_totals, cumulative, [moving_at(move, len(t)) for t in tables])


def movers(
    tables: Sequence[Sequence[P]],
    game_totals: Mapping[P, int],
    cumulative: Mapping[P, int],
    moves: Sequence[int],
) -> list[tuple[list[P], list[P]]]:
    """(who moves up, who moves down) at each of ``tables`` (table 1 first), table ``i``'s
    ``moves[i]`` lowest up and as many highest down, each in seat order: table 1's lowest and
    the last table's highest stay; with one table nobody moves. A tie at a moving place: the
    lower cumulative total moves up (the higher down), then the earlier seat up (the later
    down). What a progressive game's close page lists."""
    last = len(tables) - 1
    out = []
    for i, table in enumerate(tables):
        ranked = sorted(
            range(len(table)), key=lambda s: (game_totals[table[s]], cumulative[table[s]], s)
        )
        m = moves[i] if last else 0
        up = set(ranked[:m]) if i > 0 else set()
        down = set(ranked[len(ranked) - m :]) if i < last and m else set()
        out.append(
            (
                [table[s] for s in range(len(table)) if s in up],
                [table[s] for s in range(len(table)) if s in down],
            )
        )
    return out


def _moved(
    tables: Sequence[Sequence[P]],
    game_totals: Mapping[P, int],
    cumulative: Mapping[P, int],
    moves: Sequence[int],
) -> list[list[P]]:
    """``tables`` after table ``i``'s ``moves[i]`` lowest moved up and highest moved down."""
    last = len(tables) - 1
    moving = movers(tables, game_totals, cumulative, moves)
    ups = [up for up, _down in moving]
    downs = [down for _up, down in moving]
    out: list[list[P]] = []
    for i, table in enumerate(tables):
        leaving = set(ups[i]) | set(downs[i])
        staying = [p for p in table if p not in leaving]
        from_above = downs[i - 1] if i > 0 else []
        from_below = ups[i + 1] if i < last else []
        out.append(staying + from_above + from_below)
    return out


def progressive_balanced(
    tables: Sequence[Sequence[P]],
    game_totals: Mapping[P, int],
    cumulative: Mapping[P, int],
    move: int,
    sizes: Sequence[int],
    usual: int | None = None,
) -> list[list[P]]:
    """``progressive`` once withdrawn players have left the last game's ``tables`` (table 1
    first; a table left empty is gone), then the tables brought to the balanced ``sizes``
    (``seating.sizes_after_change``). Returns the next game's tables in order, table 1 first.

    ``move`` is checked against the ``usual`` table size (by default the largest of
    ``sizes``); a smaller table, or one that lost players, moves half of its players (rounded
    down) each way when that is fewer (``moving_at``), so nobody moves both ways. The
    balancing keeps the ladder: players pass from a table to the next one, never from the
    last tables to the first. Tables get the sizes that move the fewest players across tables
    (the larger first when it is all one), and the bottom tables go when there are fewer.
    Across each table's border the fewest players move: going down, the table's highest
    stayer first (then one who came up from below, who goes back); going up, its lowest
    stayer first (then one who came down). With no withdrawal this is ``progressive``.
    """
    _check_sizes(sum(len(t) for t in tables), sizes)
    _check_move(move, usual if usual is not None else max(sizes))
    present = [list(t) for t in tables if t]
    moved = _moved(present, game_totals, cumulative, [moving_at(move, len(t)) for t in present])
    origin = {p: (i, seat) for i, table in enumerate(present) for seat, p in enumerate(table)}

    def key(p: P) -> tuple[int, int, int]:
        return (game_totals[p], cumulative[p], origin[p][1])

    count = max(len(moved), len(sizes))
    out = moved + [[] for _ in range(count - len(moved))]
    targets = _arranged([len(t) for t in out], sizes)
    flow: list[int] = []
    surplus = 0  # flow[i] > 0: players going down from table i to i + 1; < 0: up
    for here, target in zip(out[:-1], targets, strict=False):
        surplus += len(here) - target
        flow.append(surplus)
    for i, f in enumerate(flow):
        if f > 0:  # down: stayers, then who came up from below, then who came down from above
            rank = sorted(out[i], key=lambda p: (-_class(origin[p][0], i, i + 1), key(p)))
            going = rank[len(rank) - f :]
            out[i] = [p for p in out[i] if p not in going]
            out[i + 1] += [p for p in rank if p in going]
    for i in reversed(range(len(flow))):
        if flow[i] < 0:  # up: stayers, then who came down from above, then who came up
            rank = sorted(out[i + 1], key=lambda p: (_class(origin[p][0], i + 1, i), key(p)))
            going = rank[: -flow[i]]
            out[i + 1] = [p for p in out[i + 1] if p not in going]
            out[i] += going
    return [t for t in out if t]


def _class(origin: int, here: int, back: int) -> int:
    """How soon a player at table ``here`` leaves it towards ``back``: one who sat here last
    game (0), one who came from ``back`` and returns (1), one who came from beyond (2)."""
    return 0 if origin == here else 1 if origin == back else 2


def _arranged(counts: Sequence[int], sizes: Sequence[int]) -> list[int]:
    """Which of the balanced ``sizes`` each table takes (the tables past ``len(sizes)`` none),
    so that the fewest players cross the borders between tables (players at each table now:
    ``counts``); the larger sizes first when that is all one."""
    tables, small = len(sizes), min(sizes)
    bigs = sum(size > small for size in sizes)
    if not bigs or max(sizes) > small + 1:  # all one size, or not balanced: as given
        return sorted(sizes, reverse=True) + [0] * (len(counts) - tables)
    prefix = [0]
    for c in counts:
        prefix.append(prefix[-1] + c)
    last = len(counts) - 1

    def crossing(i: int, used: int) -> int:
        """Players crossing the border below table ``i`` when ``used`` larger sizes went to
        tables 1 to ``i``."""
        if i == last:
            return 0
        seated = min(i + 1, tables) * small + used
        return abs(prefix[i + 1] - seated)

    # cost[i][used]: the fewest crossings below tables i.. when ``used`` larger sizes went to
    # the tables before i; pick[i][used]: whether table i takes a larger size.
    cost: list[list[float]] = [[0] * (bigs + 1) for _ in range(len(counts) + 1)]
    pick = [[False] * (bigs + 1) for _ in range(len(counts))]
    for i in reversed(range(len(counts))):
        for used in range(bigs + 1):
            if i >= tables:
                cost[i][used] = crossing(i, used) + cost[i + 1][used]
                continue
            best = math.inf
            for larger in (True, False):
                after = used + larger
                if after > bigs or tables - i - 1 < bigs - after:
                    continue
                total = crossing(i, after) + cost[i + 1][after]
                if total < best:
                    best, pick[i][used] = total, larger
            cost[i][used] = best
    out: list[int] = []
    used = 0
    for i in range(len(counts)):
        larger = i < tables and pick[i][used]
        out.append(0 if i >= tables else small + larger)
        used += larger
    return out
