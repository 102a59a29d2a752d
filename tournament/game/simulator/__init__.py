"""A faithful simulator of Mexican Train rounds (NVSO rules, 000 where NVSO is silent).

Plain Python, no Django: ``tiles`` (the set, pips, the deal), ``position`` (a round in play),
``moves`` (what is legal, in one place, and making a move), ``strategies`` (how a simulated
player chooses), ``play`` (a round, a game, how long rounds take), ``stats`` (figures over many
rounds, ``python -m tournament.game.simulator.stats``).
"""

from tournament.game.simulator.moves import IllegalMove, Play, apply, legal_moves, legal_plays
from tournament.game.simulator.play import (
    RoundResult,
    TimedGame,
    game_rng,
    play_game,
    play_out,
    play_round,
    play_timed_game,
    round_minutes,
    rounds_in_time,
)
from tournament.game.simulator.position import BLOCKED, DOMINO, Position, Train
from tournament.game.simulator.strategies import STRATEGIES, highest_first, keep_train
from tournament.game.simulator.tiles import DealError, deal, hand_pips

__all__ = [
    "BLOCKED",
    "DOMINO",
    "STRATEGIES",
    "DealError",
    "IllegalMove",
    "Play",
    "RoundResult",
    "TimedGame",
    "Position",
    "Train",
    "apply",
    "deal",
    "hand_pips",
    "highest_first",
    "keep_train",
    "legal_moves",
    "game_rng",
    "legal_plays",
    "play_game",
    "play_out",
    "play_round",
    "play_timed_game",
    "round_minutes",
    "rounds_in_time",
]
