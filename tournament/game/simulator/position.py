"""The position of a round in play: hands, boneyard, the personal trains and the Mexican
train, markers, the doubles waiting to be satisfied, whose turn it is. No Django here.

``tournament/game/simulator/moves.py`` says what may be done next and does it; this module only
holds the position (and builds one for a test: ``Position.build``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from tournament.game.simulator.tiles import Tile, full_set, is_double, normal

DOMINO = "domino"
BLOCKED = "blocked"


@dataclass
class Train:
    """A line of end-matching tiles from the engine.

    ``owner`` is the seat of a personal train, ``None`` for the Mexican train. ``end`` is the
    number the next tile must match (the engine's while the train has not started). ``tiles``
    are oriented ``(matched side, open side)``. Only personal trains carry a marker.
    """

    owner: int | None
    end: int
    tiles: list[Tile] = field(default_factory=list)
    marked: bool = False

    @property
    def mexican(self) -> bool:
        return self.owner is None

    @property
    def ends_in_double(self) -> bool:
        return bool(self.tiles) and is_double(self.tiles[-1])


@dataclass
class Position:
    """A round in progress.

    - ``trains``: one personal train per seat (index = seat), then the Mexican train (last).
    - ``open_doubles``: the trains that end in a double not yet satisfied, in the order the
      doubles were played (000: "they must be closed (one per turn) in the order they were
      played").
    - ``player``: whose turn it is; ``owes``: that player has played a double this turn and must
      still play a tile that is not a double; ``drew``: they drew and have not played since.
    - ``changed``: something changed in this turn (a tile played or drawn, a new marker);
      ``quiet``: turns in a row in which nothing did. Once every player has had such a turn
      with the boneyard empty, the round is "completely stalled" (NVSO E).
    - ``ending``: ``None`` while the round goes on, then ``"domino"`` or ``"blocked"``;
      ``turns``: the turns completed.
    """

    engine: int
    hands: list[list[Tile]]
    boneyard: list[Tile]
    trains: list[Train]
    open_doubles: list[int] = field(default_factory=list)
    player: int = 0
    owes: bool = False
    drew: bool = False
    changed: bool = False
    quiet: int = 0
    ending: str | None = None
    turns: int = 0

    @classmethod
    def start(cls, engine: int, hands: list[list[Tile]], boneyard: list[Tile], starter: int = 0):
        """The position just after the deal: every train empty, ``starter`` to play."""
        n = len(hands)
        trains = [Train(owner=seat, end=engine) for seat in range(n)] + [Train(None, engine)]
        return cls(engine, [list(h) for h in hands], list(boneyard), trains, player=starter)

    @classmethod
    def build(
        cls,
        engine: int,
        hands: list[list[Tile]],
        trains: dict[int | str, list[Tile]] | None = None,
        boneyard: list[Tile] | None = None,
        marked: tuple[int, ...] = (),
        open_doubles: list[int | str] | None = None,
        player: int = 0,
        highest: int | None = None,
    ) -> Position:
        """A constructed position (for tests): trains by seat, or ``"mexican"``, as chains of
        tiles from the engine; the boneyard is every tile not placed unless given.

        ``open_doubles`` defaults to the trains ending in a double, in train order.
        """
        position = cls.start(engine, hands, boneyard or [], starter=player)
        mexican = len(hands)
        for key, chain in (trains or {}).items():
            train = position.trains[mexican if key == "mexican" else key]
            for tile in chain:
                a, b = tile
                if train.end not in tile:
                    raise ValueError(f"{tile} does not match {train.end} on train {key}")
                out = b if a == train.end else a
                train.tiles.append((train.end, out))
                train.end = out
        for seat in marked:
            position.trains[seat].marked = True
        if open_doubles is None:
            position.open_doubles = [i for i, t in enumerate(position.trains) if t.ends_in_double]
        else:
            position.open_doubles = [mexican if k == "mexican" else k for k in open_doubles]
        if boneyard is None:
            placed = set(position.tiles_placed())
            highest = max(engine, *(max(t) for t in placed)) if highest is None else highest
            position.boneyard = [t for t in full_set(highest) if t not in placed]
        return position

    # -- reading the position -----------------------------------------------------------------
    @property
    def players(self) -> int:
        return len(self.hands)

    @property
    def mexican(self) -> int:
        """The Mexican train's index in ``trains``."""
        return len(self.hands)

    def on_table(self) -> list[Tile]:
        """The engine and every tile laid on a train, by name."""
        return [(self.engine, self.engine)] + [normal(t) for tr in self.trains for t in tr.tiles]

    def tiles_placed(self) -> list[Tile]:
        """Every tile's place, by name: the table, the hands, the boneyard (with repeats)."""
        return self.on_table() + [t for h in self.hands for t in h] + list(self.boneyard)

    def conservation_errors(self, highest: int, copies: int = 1) -> list[str]:
        """Each tile of the set in exactly one place (a hand, a train, the boneyard or the
        engine), none from elsewhere; with ``copies`` sets mixed, each tile in that many
        places. Empty when the position conserves the tiles."""
        seen = Counter(self.tiles_placed())
        want = Counter(full_set(highest, copies))
        errors = [f"{t} is in {n} places" for t, n in sorted(seen.items()) if n > max(want[t], 1)]
        errors += [f"{t} is missing" for t, n in sorted(want.items()) if seen[t] < n]
        errors += [f"{t} is not a tile of the set" for t in sorted(set(seen) - set(want))]
        return errors

    def in_play(self, number: int) -> bool:
        """Whether a tile bearing ``number`` that is not a double is still in a hand or the
        boneyard, so a double of it can still be satisfied (with two sets mixed, the other copy
        of the double does not satisfy it: ``moves``, rule 9)."""
        return any(number in t and t[0] != t[1] for t in self.boneyard) or any(
            number in t and t[0] != t[1] for h in self.hands for t in h
        )

    def live_doubles(self) -> list[int]:
        """The open doubles that can still be satisfied, in the order they were played.

        000: "If it is not possible to close a double because all 13 tiles of that denomination
        are played, that unsatisfied double no longer restricts play on eligible trains.
        However, if any other double is open, the restriction remains in place".
        """
        return [i for i in self.open_doubles if self.in_play(self.trains[i].end)]
