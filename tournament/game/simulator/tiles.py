"""The tiles: a double-n set, pips, the deal. No Django here.

A tile is a pair ``(low, high)`` with ``low <= high``; the same pair names it in a hand, in the
boneyard and in the rule texts ("the 3-5"). Once laid on a train it is stored oriented
``(matched side, open side)``.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from tournament.game.message import Message, Refusal
from tournament.game.rules import RuleSet, tile_value

Tile = tuple[int, int]


class DealError(Refusal, ValueError):
    """A round that cannot be dealt by the rule set; the message says why."""


def full_set(highest: int, copies: int = 1) -> list[Tile]:
    """Every tile of a double-``highest`` set, in a fixed order; with ``copies`` sets mixed
    (PRODUCT.md §12), each tile that many times."""
    return [(a, b) for a in range(highest + 1) for b in range(a, highest + 1)] * copies


def is_double(tile: Tile) -> bool:
    return tile[0] == tile[1]


def normal(tile: Tile) -> Tile:
    """The tile's name, whichever way it was laid."""
    a, b = tile
    return (a, b) if a <= b else (b, a)


def tile_pips(tile: Tile, double_blank_points: int = 0) -> int:
    """What a tile left in hand scores: its pips, the double-blank as the rule set says."""
    return tile_value(*tile, double_blank_points)


def hand_pips(hand: Iterable[Tile], double_blank_points: int = 0) -> int:
    """A round's score for one player: the pips left in hand (PRODUCT.md §4)."""
    return sum(tile_pips(t, double_blank_points) for t in hand)


def tiles_to_draw(rules: RuleSet, players: int) -> int:
    """Tiles each player draws at a table of ``players``: the rule set's chart, or for a size
    it does not list (a playoff, a table a withdrawal left smaller) the deal of
    ``RuleSet.tiles_for``."""
    drawn = rules.tiles_for(players)
    if drawn is None:
        sizes = ", ".join(map(str, rules.dealable_sizes))
        raise DealError(
            Message(
                "The rule set deals no table of %(n)s players (it deals tables of %(sizes)s).",
                n=players,
                sizes=sizes or Message("no size"),
            )
        )
    return drawn


def deal(
    rules: RuleSet, engine: int, players: int, rng: random.Random
) -> tuple[list[list[Tile]], list[Tile]]:
    """Set the engine aside, shuffle the rest, deal each player their tiles: (hands, boneyard).

    NVSO B: "Begin play by turning up the double twelve domino. Turn the other dominoes face
    down and shuffle them. Each player then draws 15 tiles. The remaining tiles are gathered
    into ... bone piles". F: each later round's engine is set aside the same way.
    With two sets mixed (PRODUCT.md §12) every tile is there twice and the engine is drawn
    once: its second copy is shuffled and dealt with the rest.
    """
    if not 0 <= engine <= rules.set:
        raise DealError(
            Message(
                "Engine %(engine)s is not a double of the double-%(set)s set.",
                engine=engine,
                set=rules.set,
            )
        )
    drawn = tiles_to_draw(rules, players)
    tiles = full_set(rules.set, rules.sets)
    tiles.remove((engine, engine))
    rng.shuffle(tiles)
    hands = [tiles[i * drawn : (i + 1) * drawn] for i in range(players)]
    return hands, tiles[players * drawn :]
