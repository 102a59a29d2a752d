"""The rules of the game as plain values: no Django here.

A ``RuleSet`` holds what PRODUCT.md §2 lets an event set; ``round_errors`` checks one round of
pip counts against PRODUCT.md §4. Everything is tested in ``tests/test_rules.py``.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

P = TypeVar("P", bound=Hashable)

SETS = (6, 9, 12, 15, 18)
MIN_TABLE, MAX_TABLE = 2, 8
DOUBLE_BLANK_BONUS = 50

# NVSO: 15 tiles for every table size that a double-12 set can deal.
NVSO_TILES_DRAWN = {2: 15, 3: 15, 4: 15, 5: 15}


class RuleSetError(ValueError):
    """A rule set that cannot be played; the message says why."""


def set_tiles(highest: int) -> int:
    """Tiles in a double-n set: (n+1)(n+2)/2 (double-12: 91)."""
    return (highest + 1) * (highest + 2) // 2


def set_pips(highest: int) -> int:
    """Pips in a double-n set: n(n+1)(n+2)/2 (double-12: 1,092)."""
    return highest * (highest + 1) * (highest + 2) // 2


def default_engines(highest: int) -> tuple[int, ...]:
    """The highest double down to 0-0."""
    return tuple(range(highest, -1, -1))


@dataclass(frozen=True)
class RuleSet:
    set: int = 12
    engines: tuple[int, ...] = field(default_factory=lambda: default_engines(12))
    tiles_drawn: Mapping[int, int] = field(default_factory=lambda: dict(NVSO_TILES_DRAWN))
    table_size: int = 4
    game_minutes: int | None = 60
    round_in_progress: str = "finish"
    double_blank_points: int = 0
    advancement_tie: str = "all_advance"
    medal_tie: str = "nvso"
    infraction_penalty: str = "warn_then_draw"

    # -- the tiles ---------------------------------------------------------------------------
    @property
    def tiles_beside_engine(self) -> int:
        return set_tiles(self.set) - 1

    @property
    def total_pips(self) -> int:
        return set_pips(self.set)

    def can_deal(self, players: int) -> bool:
        """A table can be dealt when its size is listed and leaves at least one tile to draw."""
        drawn = self.tiles_drawn.get(players)
        return drawn is not None and drawn * players < self.tiles_beside_engine

    @property
    def dealable_sizes(self) -> tuple[int, ...]:
        return tuple(sorted(n for n in self.tiles_drawn if self.can_deal(n)))

    def problems(self) -> list[str]:
        """Every reason this rule set cannot be played (empty when it can)."""
        out = []
        if self.set not in SETS:
            out.append(f"The set must be double-{', double-'.join(map(str, SETS))}.")
            return out
        if not self.engines:
            out.append("A game needs at least one engine.")
        bad = [e for e in self.engines if not 0 <= e <= self.set]
        if bad:
            out.append(
                f"Engine {bad[0]} is not a double of the double-{self.set} set (0 to {self.set})."
            )
        if len(set(self.engines)) != len(self.engines):
            out.append("An engine is listed twice.")
        if not self.tiles_drawn:
            out.append("Give the tiles drawn for at least one table size.")
        for size, drawn in sorted(self.tiles_drawn.items()):
            if not MIN_TABLE <= size <= MAX_TABLE:
                out.append(f"A table seats {MIN_TABLE} to {MAX_TABLE} players, not {size}.")
            elif drawn < 1:
                out.append(f"Players at a table of {size} must draw at least one tile.")
            elif not self.can_deal(size):
                out.append(
                    f"A table of {size} drawing {drawn} tiles each needs {size * drawn} tiles, "
                    f"but a double-{self.set} set has only {self.tiles_beside_engine} beside "
                    "the engine: at least one must be left to draw."
                )
        if self.table_size not in self.tiles_drawn:
            out.append(f"The usual table size {self.table_size} has no tiles-drawn entry.")
        if self.game_minutes is not None and self.game_minutes < 1:
            out.append("The time limit must be at least one minute, or none.")
        if self.double_blank_points not in (0, DOUBLE_BLANK_BONUS):
            out.append("The double-blank counts 0 or 50.")
        return out

    def check(self) -> RuleSet:
        problems = self.problems()
        if problems:
            raise RuleSetError(" ".join(problems))
        return self

    # -- seating bounds ----------------------------------------------------------------------
    @property
    def smallest_table(self) -> int:
        """Tables are the usual size, or one fewer when the count does not divide."""
        sizes = [n for n in self.dealable_sizes if n >= self.table_size - 1]
        return min(sizes) if sizes else self.table_size

    @property
    def largest_table(self) -> int:
        """Tables are the usual size, or one more, but never more than can be dealt."""
        sizes = [n for n in self.dealable_sizes if n <= self.table_size + 1]
        return max(sizes) if sizes else self.table_size

    # -- pips --------------------------------------------------------------------------------
    def max_pips(self, engine: int) -> int:
        """The most pips a player can be left with in the round of ``engine``.

        The set's pips minus the engine's; the 50-point double-blank adds 50, except in the
        0-0 round where the double-blank is the engine.
        """
        bound = self.total_pips - 2 * engine
        if self.double_blank_points and engine != 0:
            bound += self.double_blank_points
        return bound

    def next_engine(self, rounds_played: int) -> int | None:
        """The engine of the next round, or None when every engine has been played."""
        if rounds_played < len(self.engines):
            return self.engines[rounds_played]
        return None


@dataclass
class RoundErrors:
    """Why a round cannot be saved: messages per player, and for the whole round."""

    fields: dict = field(default_factory=dict)
    whole: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.fields or self.whole)

    def add(self, key, message: str) -> None:
        self.fields.setdefault(key, []).append(message)


def round_errors(rules: RuleSet, engine: int, pips: Mapping[P, object]) -> RoundErrors:
    """Check one round's pip counts (PRODUCT.md §4). Returns every error, none when valid."""
    errors = RoundErrors()
    bound = rules.max_pips(engine)
    good: dict = {}
    for key, value in pips.items():
        if value is None or value == "":
            errors.add(key, "Enter this player's pips (0 for the player who dominoed).")
        elif isinstance(value, bool) or not isinstance(value, int):
            errors.add(key, f"{value!r} is not a whole number of pips.")
        elif value < 0:
            errors.add(key, f"{value} is below 0: pips left in hand cannot be negative.")
        elif value > bound:
            errors.add(key, f"{value} is more than the {bound} pips that can be left.")
        else:
            good[key] = value
    zeros = [k for k, v in good.items() if v == 0]
    if len(zeros) > 1:
        errors.whole.append(f"{len(zeros)} players have 0: at most one player dominoes in a round.")
    if len(good) == len(pips) and sum(good.values()) > bound:
        errors.whole.append(
            f"The round adds up to {sum(good.values())}, more than the {bound} pips "
            "that can be left in hands."
        )
    return errors


def running_totals(rounds: Sequence[Mapping[P, int]]) -> list[dict[P, int]]:
    """The running total of each player after each round."""
    out: list[dict[P, int]] = []
    totals: dict[P, int] = {}
    for r in rounds:
        totals = {**totals, **{p: totals.get(p, 0) + v for p, v in r.items()}}
        out.append(totals)
    return out


def places(totals: Mapping[P, int]) -> dict[P, int]:
    """Competition ranking by lowest total: ties share a place and skip the next (1, 1, 3)."""
    ordered = sorted(totals.values())
    return {p: ordered.index(t) + 1 for p, t in totals.items()}


def rounds_allowed_after_time(entered_before: int, round_in_progress: str, engines: int) -> int:
    """How many rounds a table may have once time is called (PRODUCT.md §5).

    ``entered_before``: the rounds entered up to the moment time was called. Under "finish"
    (the default) the round in progress is played out and counts, so one more may be entered;
    under "void" it does not count, so none. No new round starts either way, and never more
    rounds than the game has engines (a table that finished them all before time is complete).
    """
    if round_in_progress not in ("finish", "void"):
        raise ValueError(f"The round in progress is 'finish' or 'void', not {round_in_progress!r}")
    extra = 1 if round_in_progress == "finish" else 0
    return min(entered_before + extra, engines)
