"""Playing whole rounds and games, and how long they take. No Django here."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate

from tournament.game.rules import RuleSet
from tournament.game.simulator.moves import Move, Play, apply, legal_moves
from tournament.game.simulator.position import DOMINO, Position
from tournament.game.simulator.strategies import Strategy, keep_train
from tournament.game.simulator.tiles import deal, hand_pips

Watch = Callable[[Position, Move], None]


@dataclass(frozen=True)
class RoundResult:
    """How a round ended: the score of each seat (the pips left in hand, the double-blank as the
    rule set says), ``"domino"`` or ``"blocked"``, the seat that dominoed, and its length."""

    engine: int
    pips: tuple[int, ...]
    ending: str
    winner: int | None
    turns: int
    moves: int

    @property
    def total(self) -> int:
        return sum(self.pips)

    @property
    def losing_hands(self) -> tuple[int, ...]:
        """The pips of every player who did not domino (all of them in a blocked round)."""
        return tuple(p for seat, p in enumerate(self.pips) if seat != self.winner)


def play_out(
    position: Position,
    strategies: Sequence[Strategy],
    double_blank_points: int = 0,
    watch: Watch | None = None,
) -> RoundResult:
    """Play ``position`` to the end of the round: each player's strategy picks among the plays the
    rules allow; drawing and marking are forced. ``watch(position, move)`` sees every move made."""
    moves = 0
    while not position.ending:
        allowed = legal_moves(position)
        move = allowed[0]
        if isinstance(move, Play) and len(allowed) > 1:
            move = strategies[position.player](position, allowed)
        apply(position, move)
        moves += 1
        if watch:
            watch(position, move)
    winner = position.player if position.ending == DOMINO else None
    return RoundResult(
        engine=position.engine,
        pips=tuple(hand_pips(h, double_blank_points) for h in position.hands),
        ending=position.ending,
        winner=winner,
        turns=position.turns + (1 if winner is not None else 0),
        moves=moves,
    )


def play_round(
    rules: RuleSet,
    engine: int,
    players: int,
    rng: random.Random,
    starter: int = 0,
    strategies: Sequence[Strategy] | None = None,
    watch: Watch | None = None,
) -> RoundResult:
    """Deal and play one round of ``engine`` at a table of ``players`` seats, ``starter`` first.

    The same ``rng`` state gives the same round. Raises ``tiles.DealError`` when the rule set
    cannot deal such a table.
    """
    hands, boneyard = deal(rules, engine, players, rng)
    position = Position.start(engine, hands, boneyard, starter=starter)
    strategies = list(strategies or [keep_train] * players)
    return play_out(position, strategies, rules.double_blank_points, watch)


def play_game(
    rules: RuleSet,
    players: int,
    rng: random.Random,
    rounds: int | None = None,
    first: int = 0,
    strategies: Sequence[Strategy] | None = None,
) -> list[RoundResult]:
    """The rounds of a game in engine order, from round ``first`` (0-based), ``rounds`` of them
    (all that are left by default). "Rotate the starter of each round in clockwise order"
    (NVSO C): seat 0 starts the first round, seat 1 the second, and so on."""
    engines = rules.engines[first:] if rounds is None else rules.engines[first : first + rounds]
    return [
        play_round(
            rules, engine, players, rng, starter=(first + i) % players, strategies=strategies
        )
        for i, engine in enumerate(engines)
    ]


# -- time ---------------------------------------------------------------------------------------


def round_minutes(rng: random.Random, mean: float, count: int) -> list[float]:
    """How long ``count`` rounds take at a table: about ``mean`` minutes each, a quarter either
    way (normal spread, never under a third of the mean)."""
    return [max(mean / 3, rng.gauss(mean, mean / 4)) for _ in range(count)]


def rounds_in_time(minutes: Sequence[float], limit: float | None, round_in_progress: str) -> int:
    """How many of a table's rounds, lasting ``minutes`` each back to back, count in a game of
    ``limit`` minutes (``None``: untimed, all of them). Rounds started before time is called are
    played; of those, the ones over by then count, and the one still in progress counts only
    under the rule "finish" (PRODUCT.md §5): never more than were started."""
    if limit is None:
        return len(minutes)
    started = finished = 0
    clock = 0.0
    for length in minutes:
        if clock >= limit:
            break
        started += 1
        clock += length
        finished += clock <= limit
    if round_in_progress not in ("finish", "void"):
        raise ValueError(f"The round in progress is 'finish' or 'void', not {round_in_progress!r}")
    return min(finished + (round_in_progress == "finish"), started)


def game_rng(seed: int, stage: int, table: int) -> random.Random:
    """The random stream of one table's game: the same seed plays the same game there."""
    return random.Random(f"{seed}:{stage}:{table}")


@dataclass(frozen=True)
class TimedGame:
    """A table's game against the clock: how long each of its rounds would take, back to back
    from the start, and the rounds that count."""

    minutes: list[float]
    rounds: list[RoundResult]

    def ended_at(self, index: int) -> float:
        """Minutes from the start of the game to the end of round ``index`` (0-based)."""
        return list(accumulate(self.minutes))[index]


def play_timed_game(
    rules: RuleSet,
    engines: Sequence[int],
    players: int | Sequence[int],
    rng: random.Random,
    minutes_per_round: float,
    limit: float | None = None,
    rounds: int | None = None,
) -> TimedGame:
    """Play a table's game of ``engines``: ``rounds`` rounds if given, else those that fit in
    ``limit`` minutes under the rule set's round-in-progress rule (all of them if ``None``).
    ``players``: the table's size, or the players of each round when they change (a late
    arrival joins, a player withdraws): each round is dealt to those who play it, in seat
    order. The starter rotates from seat 0 (NVSO C)."""
    minutes = round_minutes(rng, minutes_per_round, len(engines))
    if rounds is None:
        rounds = rounds_in_time(minutes, limit, rules.round_in_progress)
    sizes = [players] * len(engines) if isinstance(players, int) else list(players)
    played = [
        play_round(rules, engines[i], sizes[i], rng, starter=i % sizes[i])
        for i in range(min(rounds, len(engines)))
    ]
    return TimedGame(minutes, played)
