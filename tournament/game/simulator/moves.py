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
9. Two sets mixed (PRODUCT.md §12; the rules texts play one set, so this is the site's
   reading): every tile but the engine is there twice. A double is satisfied by a tile that is
   not a double, as rule 5 closes one, so the second copy of a double is never laid on an open
   double of its number (live or not), and a double is live while a tile of its number that is
   not a double is in play. The engine's second copy may start a train, like any tile matching
   the engine, and is then a double to satisfy.
"""

from __future__ import annotations

from dataclasses import dataclass

from tournament.game.simulator.position import BLOCKED, DOMINO, Position
from tournament.game.simulator.tiles import Tile, is_double


@dataclass(frozen=True)
class Play:
    tile: Tile  # by name, (low, high)
    train: int  # index in Position.trains (seats, then the Mexican train)


@dataclass(frozen=True)
class Draw:
    pass


@dataclass(frozen=True)
class Mark:
    pass


Move = Play | Draw | Mark
DRAW, MARK = Draw(), Mark()


class IllegalMove(ValueError):
    """A move the rules do not allow in this position; the message says why.

    Not a refusal (``tournament.game.message.Refusal``): nobody types a move, the simulator's
    own players choose among the legal ones, so one raised is a fault of the simulator.
    """


def eligible_trains(position: Position) -> list[int]:
    """The trains the player to move may use when no double restricts play (rule 1)."""
    me = position.player
    return [i for i, t in enumerate(position.trains) if t.owner in (None, me) or t.marked]


def legal_plays(position: Position) -> list[Play]:
    """Every tile the player to move may lay, and where (rules 1, 5, 6, 7)."""
    if position.ending:
        return []
    hand = position.hands[position.player]
    live = position.live_doubles()
    trains = position.trains
    if position.owes:
        # After a double this turn: more doubles on eligible trains that do not end in an open
        # double; the closing tile on the first double still open (rule 5), or, if none of them
        # can be satisfied any more, on a free eligible train (rule 7).
        free = [i for i in eligible_trains(position) if i not in position.open_doubles]
        plays = [Play(t, i) for t in hand if is_double(t) for i in free if trains[i].end in t]
        closing = live[:1] or free
        plays += [
            Play(t, i) for t in hand if not is_double(t) for i in closing if trains[i].end in t
        ]
        return plays
    targets = live[:1] or eligible_trains(position)
    return [
        Play(t, i)
        for t in hand
        for i in targets
        if trains[i].end in t and not (is_double(t) and i in position.open_doubles)  # rule 9
    ]


def legal_moves(position: Position) -> list[Move]:
    """What the player to move may do now: play (rule 2), else draw once (rule 3), else mark."""
    if position.ending:
        return []
    plays = legal_plays(position)
    if plays:
        return plays
    if position.boneyard and not position.drew:
        return [DRAW]
    return [MARK]


def apply(position: Position, move: Move) -> None:
    """Make ``move`` for the player to move; raises ``IllegalMove`` if the rules forbid it."""
    if position.ending:
        raise IllegalMove(f"The round is over ({position.ending}).")
    allowed = legal_moves(position)
    if move not in allowed:
        raise IllegalMove(f"{move} is not allowed here; allowed: {allowed}")
    if isinstance(move, Play):
        _play(position, move)
    elif isinstance(move, Draw):
        position.hands[position.player].append(position.boneyard.pop())
        position.drew = position.changed = True
    else:
        train = position.trains[position.player]
        position.changed = position.changed or not train.marked
        train.marked = True
        _end_turn(position)


def _play(position: Position, move: Play) -> None:
    me = position.player
    position.hands[me].remove(move.tile)
    train = position.trains[move.train]
    a, b = move.tile
    out = b if a == train.end else a
    train.tiles.append((train.end, out))
    train.end = out
    if move.train in position.open_doubles:  # the tile satisfies that double
        position.open_doubles.remove(move.train)
    if train.owner == me:  # rule 4
        train.marked = False
    position.drew = False
    position.changed = True
    if is_double(move.tile):
        position.open_doubles.append(move.train)
        position.owes = True
    if not position.hands[me]:
        position.ending = DOMINO  # rule 8, "even if it is a double"
    elif not is_double(move.tile):
        _end_turn(position)


def _end_turn(position: Position) -> None:
    position.quiet = 0 if position.changed else position.quiet + 1
    position.owes = position.drew = position.changed = False
    position.turns += 1
    position.player = (position.player + 1) % position.players
    if not position.boneyard and position.quiet >= position.players:
        position.ending = BLOCKED  # rule 8: every player in turn could do nothing


def stalled(position: Position) -> bool:
    """Whether the boneyard is empty and no player could lay a tile on their own turn in this
    position: "completely stalled" (NVSO E), read from the position rather than from the count
    of quiet turns that ends a round in play."""
    if position.boneyard:
        return False
    for seat in range(position.players):
        probe = Position(
            position.engine,
            position.hands,
            position.boneyard,
            position.trains,
            list(position.open_doubles),
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
