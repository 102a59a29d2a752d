"""What the player to move may do, and doing it: the rules of play in one place.

The rules texts: ``002`` (NVSO, primary) and ``000`` (Puremco/Parsons 2007) where NVSO says
nothing, in ``shared/rules/``. ``legal_moves`` is the only statement of what is allowed; the
players' strategies choose among its answer and ``apply`` refuses anything else, so the tests
that check a move check it against the same rules.

A turn is a sequence of moves by one player:

- ``Play(tile, train)``: lay a tile from the hand on a train (its end must match).
- ``Draw()``: take one tile from the boneyard.
- ``Mark()``: put the marker on one's own train (it stays if already there); the turn ends.

The rules, with where each comes from:

1. Eligible trains (NVSO D, H1): one's own personal train, the Mexican train, and any personal
   train with a marker. A train not yet started is started with a tile matching the engine;
   anyone may start the Mexican train (NVSO C), and a marked train that has not started is
   started by whoever can (NVSO D: the marker goes "where the train will begin").
2. Must play (NVSO D): with a playable tile, a player must play; one tile a turn, doubles
   excepted.
3. Draw once, then mark (NVSO D, H1): with no playable tile, draw one tile and play it if
   possible; otherwise mark one's train and the turn ends. With the boneyard empty, pass and
   mark (NVSO E).
4. The marker comes off when its owner plays on their own train (NVSO D).
5. A double (NVSO D "Playing a Double"): who plays a double must also play a tile that is not
   a double, "therefore closing the double"; with none, draw (again after each double played)
   and play it if possible, or mark. Several doubles in one turn (000 "Playing Two or More
   Doubles", which the issue asks for and NVSO's summary leaves out): after a double the
   player may lay further doubles on eligible trains, then the closing tile goes on the first
   double of the turn, "the only eligible double for the additional tile is the first one you
   played". NVSO's "therefore closing" is read as binding, so the additional tile does not go
   on another train as 000 would allow.
6. Open doubles (NVSO D "An Open Double", 000): after a turn, while a double is open the only
   play for anyone (the train's owner or not, marked or not) is to satisfy it; several open
   doubles are satisfied one a turn, in the order they were played.
7. A double that can no longer be satisfied (NVSO H2, 000): when every tile of its number is
   on the table, it no longer restricts play; the next open double, if any, does. If none of
   the doubles of a player's turn can still be satisfied, the tile that must follow goes on an
   eligible train that does not end in an open double.
8. The round ends when a player has played their last tile, "even if it is a double", or when
   the boneyard is empty and no one can play (NVSO E).
"""

from __future__ import annotations

from dataclasses import dataclass

from tournament.game.simulator.table import BLOCKED, DOMINO, Table
from tournament.game.simulator.tiles import Tile, is_double


@dataclass(frozen=True)
class Play:
    tile: Tile  # by name, (low, high)
    train: int  # index in Table.trains (seats, then the Mexican train)


@dataclass(frozen=True)
class Draw:
    pass


@dataclass(frozen=True)
class Mark:
    pass


Move = Play | Draw | Mark
DRAW, MARK = Draw(), Mark()


class IllegalMove(ValueError):
    """A move the rules do not allow in this position; the message says why."""


def eligible_trains(table: Table) -> list[int]:
    """The trains the player to move may use when no double restricts play (rule 1)."""
    me = table.player
    return [i for i, t in enumerate(table.trains) if t.owner in (None, me) or t.marked]


def legal_plays(table: Table) -> list[Play]:
    """Every tile the player to move may lay, and where (rules 1, 5, 6, 7)."""
    if table.ending:
        return []
    hand = table.hands[table.player]
    live = table.live_doubles()
    trains = table.trains
    if table.owes:
        # After a double this turn: more doubles on eligible trains that do not end in an open
        # double; the closing tile on the first double still open (rule 5), or, if none of them
        # can be satisfied any more, on a free eligible train (rule 7).
        free = [i for i in eligible_trains(table) if i not in table.open_doubles]
        plays = [Play(t, i) for t in hand if is_double(t) for i in free if trains[i].end in t]
        closing = live[:1] or free
        plays += [
            Play(t, i) for t in hand if not is_double(t) for i in closing if trains[i].end in t
        ]
        return plays
    targets = live[:1] or eligible_trains(table)
    return [Play(t, i) for t in hand for i in targets if trains[i].end in t]


def legal_moves(table: Table) -> list[Move]:
    """What the player to move may do now: play (rule 2), else draw once (rule 3), else mark."""
    if table.ending:
        return []
    plays = legal_plays(table)
    if plays:
        return plays
    if table.boneyard and not table.drew:
        return [DRAW]
    return [MARK]


def apply(table: Table, move: Move) -> None:
    """Make ``move`` for the player to move; raises ``IllegalMove`` if the rules forbid it."""
    if table.ending:
        raise IllegalMove(f"The round is over ({table.ending}).")
    allowed = legal_moves(table)
    if move not in allowed:
        raise IllegalMove(f"{move} is not allowed here; allowed: {allowed}")
    if isinstance(move, Play):
        _play(table, move)
    elif isinstance(move, Draw):
        table.hands[table.player].append(table.boneyard.pop())
        table.drew = table.changed = True
    else:
        train = table.trains[table.player]
        table.changed = table.changed or not train.marked
        train.marked = True
        _end_turn(table)


def _play(table: Table, move: Play) -> None:
    me = table.player
    table.hands[me].remove(move.tile)
    train = table.trains[move.train]
    a, b = move.tile
    out = b if a == train.end else a
    train.tiles.append((train.end, out))
    train.end = out
    if move.train in table.open_doubles:  # the tile satisfies that double
        table.open_doubles.remove(move.train)
    if train.owner == me:  # rule 4
        train.marked = False
    table.drew = False
    table.changed = True
    if is_double(move.tile):
        table.open_doubles.append(move.train)
        table.owes = True
    if not table.hands[me]:
        table.ending = DOMINO  # rule 8, "even if it is a double"
    elif not is_double(move.tile):
        _end_turn(table)


def _end_turn(table: Table) -> None:
    table.quiet = 0 if table.changed else table.quiet + 1
    table.owes = table.drew = table.changed = False
    table.turns += 1
    table.player = (table.player + 1) % table.players
    if not table.boneyard and table.quiet >= table.players:
        table.ending = BLOCKED  # rule 8: every player in turn could do nothing


def stalled(table: Table) -> bool:
    """Whether the boneyard is empty and no player could lay a tile on their own turn in this
    position: "completely stalled" (NVSO E), read from the position rather than from the count
    of quiet turns that ends a round in play."""
    if table.boneyard:
        return False
    for seat in range(table.players):
        probe = Table(
            table.engine,
            table.hands,
            table.boneyard,
            table.trains,
            list(table.open_doubles),
            player=seat,
        )
        if legal_plays(probe):
            return False
    return True


__all__ = [
    "DRAW",
    "MARK",
    "Draw",
    "IllegalMove",
    "Mark",
    "Move",
    "Play",
    "apply",
    "eligible_trains",
    "legal_moves",
    "legal_plays",
    "stalled",
]
