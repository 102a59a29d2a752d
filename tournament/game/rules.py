"""The rules of the game as plain values: no Django here.

A ``RuleSet`` holds what PRODUCT.md §2 lets an event set; ``round_errors`` checks one round of
pip counts against PRODUCT.md §4. Everything is tested in ``tests/test_rules.py`` (two sets
mixed, PRODUCT.md §12: ``tests/test_rules_sets.py``).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TypeVar

from tournament.game.message import Message, Refusal

P = TypeVar("P", bound=Hashable)

SETS = (6, 9, 12, 15, 18)
COPIES = (1, 2)  # one set, or two copies of it mixed (PRODUCT.md §12)
MIN_TABLE, MAX_TABLE = 2, 12  # the tiles drawn, not this, decide what a set can deal
DOUBLE_BLANK_BONUS = 50

# NVSO: 15 tiles for every table size that a double-12 set can deal.
NVSO_TILES_DRAWN = {2: 15, 3: 15, 4: 15, 5: 15}


class RuleSetError(Refusal, ValueError):
    """A rule set that cannot be played; the message says why."""


def set_tiles(highest: int) -> int:
    """Tiles in a double-n set: (n+1)(n+2)/2 (double-12: 91)."""
    return (highest + 1) * (highest + 2) // 2


def set_pips(highest: int) -> int:
    """Pips in a double-n set: n(n+1)(n+2)/2 (double-12: 1,092)."""
    return highest * (highest + 1) * (highest + 2) // 2


def tile_value(low: int, high: int, double_blank_points: int = 0) -> int:
    """What a tile left in hand counts (PRODUCT.md §2, §4): its pips, and the double-blank
    ``double_blank_points`` (0, or 50 under that rule)."""
    if low == high == 0:
        return double_blank_points
    return low + high


def default_engines(highest: int) -> tuple[int, ...]:
    """The highest double down to 0-0."""
    return tuple(range(highest, -1, -1))


@dataclass(frozen=True)
class RuleSet:
    set: int = 12
    sets: int = 1
    engines: tuple[int, ...] = field(default_factory=lambda: default_engines(12))
    tiles_drawn: Mapping[int, int] = field(default_factory=lambda: dict(NVSO_TILES_DRAWN))
    table_size: int = 4
    game_minutes: int | None = 60
    round_in_progress: str = "finish"
    double_blank_points: int = 0
    advancement_tie: str = "all_advance"
    medal_tie: str = "nvso"
    infraction_penalty: str = "warn_then_draw"
    infraction_scope: str = "game"

    # -- the tiles ---------------------------------------------------------------------------
    # Everything below counts the combined tiles of the ``sets`` copies mixed (two double-9
    # sets: 110 tiles, 990 pips); ``set_tiles`` and ``set_pips`` count one copy.
    @property
    def tiles(self) -> int:
        """The tiles in play: every copy of the set (two double-9 sets: 110)."""
        return set_tiles(self.set) * self.sets

    @property
    def tiles_beside_engine(self) -> int:
        """The tiles left once the round's engine is drawn (once: its second copy stays in
        play, 109 beside a double-9 engine in two sets)."""
        return self.tiles - 1

    @property
    def total_pips(self) -> int:
        """The pips of every copy of the set (two double-9 sets: 990)."""
        return set_pips(self.set) * self.sets

    @property
    def double_blanks(self) -> int:
        """Double-blanks in the tiles: one a copy."""
        return self.sets

    def can_deal(self, players: int) -> bool:
        """A table can be dealt when its size is listed and leaves at least one tile to draw."""
        drawn = self.tiles_drawn.get(players)
        return drawn is not None and drawn * players < self.tiles_beside_engine

    @property
    def dealable_sizes(self) -> tuple[int, ...]:
        return tuple(sorted(n for n in self.tiles_drawn if self.can_deal(n)))

    def tiles_for(self, players: int) -> int | None:
        """Tiles each player draws at a table of ``players`` (None: it cannot be dealt).

        A size the chart lists draws what it says. A table the chart does not list is seated
        only where the draw does not choose its size: a playoff seats exactly the tied players,
        a no-show withdrawn once other tables have started leaves their table one smaller, a
        director allows a size for a stage the chart cannot seat. Such a table draws as the
        nearest larger size listed (as the largest listed when none is larger), and fewer when
        that would leave no tile to draw: (tiles beside the engine - 1) / players, rounded
        down. From 2 to ``MAX_TABLE`` players, at least one tile each."""
        if not MIN_TABLE <= players <= MAX_TABLE:
            return None
        if players in self.tiles_drawn:
            return self.tiles_drawn[players] if self.can_deal(players) else None
        listed = sorted(n for n in self.tiles_drawn if self.can_deal(n))
        if not listed:
            return None
        like = next((n for n in listed if n > players), listed[-1])
        drawn = min(self.tiles_drawn[like], (self.tiles_beside_engine - 1) // players)
        return drawn if drawn >= 1 else None

    def allowing(self, size: int | None) -> RuleSet:
        """This rule set with a table of ``size`` listed too, drawing ``tiles_for(size)``: a
        size a director allowed for one stage. Itself when ``size`` is None, listed already,
        or cannot be dealt."""
        if size is None or self.can_deal(size) or not self.deals(size):
            return self
        return replace(self, tiles_drawn={**self.tiles_drawn, size: self.tiles_for(size)})

    def deals(self, players: int) -> bool:
        """Whether a table of ``players`` can be dealt at all (``tiles_for``); the draw seats
        only the sizes the chart lists (``can_deal``)."""
        return self.tiles_for(players) is not None

    def problems(self) -> list[Message]:
        """Every reason this rule set cannot be played (empty when it can)."""
        out = []
        if self.set not in SETS:
            out.append(
                Message("The set must be double-%(sets)s.", sets=", double-".join(map(str, SETS)))
            )
            return out
        if self.sets not in COPIES:
            out.append(
                Message(
                    "Play with one set or two copies of it mixed, not %(sets)s.", sets=self.sets
                )
            )
            return out
        if not self.engines:
            out.append(Message("A game needs at least one engine."))
        bad = [e for e in self.engines if not 0 <= e <= self.set]
        if bad:
            out.append(
                Message(
                    "Engine %(engine)s is not a double of the double-%(set)s set (0 to %(set)s).",
                    engine=bad[0],
                    set=self.set,
                )
            )
        if len(set(self.engines)) != len(self.engines):
            out.append(Message("An engine is listed twice."))
        if not self.tiles_drawn:
            out.append(Message("Give the tiles drawn for at least one table size."))
        for size, drawn in sorted(self.tiles_drawn.items()):
            if not MIN_TABLE <= size <= MAX_TABLE:
                out.append(
                    Message(
                        "A table seats %(min)s to %(max)s players, not %(size)s.",
                        min=MIN_TABLE,
                        max=MAX_TABLE,
                        size=size,
                    )
                )
            elif drawn < 1:
                out.append(
                    Message(
                        "Players at a table of %(size)s must draw at least one tile.", size=size
                    )
                )
            elif not self.can_deal(size):
                out.append(self._cannot_deal(size, drawn))
        if self.table_size not in self.tiles_drawn:
            out.append(
                Message(
                    "The usual table size %(size)s has no tiles-drawn entry.", size=self.table_size
                )
            )
        if self.game_minutes is not None and self.game_minutes < 1:
            out.append(Message("The time limit must be at least one minute, or none."))
        if self.double_blank_points not in (0, DOUBLE_BLANK_BONUS):
            out.append(Message("The double-blank counts 0 or 50."))
        return out

    def _cannot_deal(self, size: int, drawn: int) -> Message:
        """Why a table of ``size`` drawing ``drawn`` each cannot be dealt from these tiles."""
        values = dict(
            size=size,
            drawn=drawn,
            needs=size * drawn,
            set=self.set,
            beside=self.tiles_beside_engine,
        )
        if self.sets == 2:
            return Message(
                "A table of %(size)s drawing %(drawn)s tiles each needs %(needs)s tiles, but two "
                "double-%(set)s sets have only %(beside)s beside the engine: at least one must "
                "be left to draw.",
                **values,
            )
        return Message(
            "A table of %(size)s drawing %(drawn)s tiles each needs %(needs)s tiles, but a "
            "double-%(set)s set has only %(beside)s beside the engine: at least one must be "
            "left to draw.",
            **values,
        )

    def check(self) -> RuleSet:
        problems = self.problems()
        if problems:
            raise RuleSetError(Message.joined(problems))
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
    def tile_values(self, engine: int) -> list[int]:
        """What each tile beside the round's engine counts in a hand, highest first: its pips,
        and the double-blank 50 under the 50-point rule (none in the 0-0 round of one set: it
        is the engine). Every copy of the set is there, less one copy of the engine."""
        return list(_tile_values(self.set, self.sets, self.double_blank_points, engine))

    def hand_limit(self, players: int) -> int | None:
        """The most tiles one player can hold at a table of ``players``: their own tiles and
        the whole bone pile (None when that size is not dealt under this rule set)."""
        if not self.can_deal(players):
            return None
        return self.tiles_beside_engine - (players - 1) * self.tiles_drawn[players]

    def max_pips(self, engine: int, players: int | None = None) -> int:
        """The most pips a player can be left with in the round of ``engine`` (PRODUCT.md §4).

        At a table of ``players``: the pips of the (tiles drawn + bone pile) highest tiles other
        than the engine (45 tiles and 731 pips at a 4-player double-12 table drawing 15, in the
        12-12 round). Without a dealable table size, every tile beside the engine: the set's
        pips minus the engine's (the bound of a whole round, ``round_max_pips``).
        """
        limit = self.hand_limit(players) if players is not None else None
        return _highest_pips(self.set, self.sets, self.double_blank_points, engine, limit)

    def round_max_pips(self, engine: int) -> int:
        """The most pips a whole round can add up to: every tile beside the engine."""
        return self.max_pips(engine)

    def blanks_in_play(self, engine: int) -> int:
        """The double-blanks beside the engine in the round of ``engine``: every copy's, less
        the one drawn as the engine in the 0-0 round."""
        return self.double_blanks - (engine == 0)

    def max_zeros(self, engine: int) -> int:
        """How many players can have 0 in the round of ``engine``: the player who dominoed,
        and when the double-blank counts 0, a player for each double-blank in play holding
        just that tile (two sets, not the 0-0 round: three 0s)."""
        if self.double_blank_points:
            return 1
        return 1 + self.blanks_in_play(engine)

    def zeros_reason(self, engine: int) -> str:
        """Who can have 0 in the round of ``engine``, for the message of a round with more."""
        if self.double_blank_points:
            return Message("only the player who dominoed can have 0 (the double-blank counts 50)")
        in_play = self.blanks_in_play(engine)
        if in_play == 2:
            return Message(
                "only the player who dominoed and two players each holding just a double-blank "
                "can have 0"
            )
        if in_play == 1 and engine == 0:
            return Message(
                "in the 0-0 round one double-blank is the engine, so only the player who "
                "dominoed and a player holding just the other double-blank can have 0"
            )
        if in_play == 1:
            return Message(
                "only the player who dominoed and a player holding just the double-blank can have 0"
            )
        return Message(
            "in the 0-0 round the double-blank is the engine, so only the player who "
            "dominoed can have 0"
        )

    def zeros_message(self, engine: int, zeros: int) -> str:
        """Why ``zeros`` players cannot all have 0 in the round of ``engine``."""
        return Message(ZEROS, n=zeros, why=self.zeros_reason(engine))

    def next_engine(self, rounds_played: int) -> int | None:
        """The engine of the next round, or None when every engine has been played."""
        if rounds_played < len(self.engines):
            return self.engines[rounds_played]
        return None


@lru_cache(maxsize=1024)
def _tile_values(
    the_set: int, copies: int, double_blank_points: int, engine: int
) -> tuple[int, ...]:
    """``RuleSet.tile_values``, computed once per set, copies, double-blank rule and engine (a
    large event checks hundreds of thousands of rounds against the same few)."""
    values = [
        tile_value(low, high, double_blank_points)
        for low in range(the_set + 1)
        for high in range(low, the_set + 1)
        for _copy in range(copies)
    ]
    if 0 <= engine <= the_set:  # the engine is drawn once: its other copy stays in play
        values.remove(tile_value(engine, engine, double_blank_points))
    return tuple(sorted(values, reverse=True))


@lru_cache(maxsize=1024)
def _highest_pips(
    the_set: int, copies: int, double_blank_points: int, engine: int, tiles: int | None
) -> int:
    """The pips of the ``tiles`` highest tiles beside the engine (all of them: None)."""
    values = _tile_values(the_set, copies, double_blank_points, engine)
    return sum(values if tiles is None else values[:tiles])


@dataclass
class RoundErrors:
    """Why a round cannot be saved: messages per player, and for the whole round."""

    fields: dict = field(default_factory=dict)
    whole: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.fields or self.whole)

    def add(self, key, message: str) -> None:
        self.fields.setdefault(key, []).append(message)


# The messages of a round's check, as templates: the server fills them here, and the entry
# page's script gets the same ones (round_checks, with {name} for %(name)s) to say the same
# thing before anything is sent.
ENTER_PIPS = Message(
    "Enter this player's pips (0 for the player who dominoed or who holds just the double-blank)."
)
NOT_WHOLE = Message("%(value)s is not a whole number of pips.")
NEGATIVE = Message("%(value)s is below 0: pips left in hand cannot be negative.")
ABOVE = Message("%(value)s is more than the %(max)s pips that can be left.")
ZEROS = Message("%(n)s players have 0: %(why)s.")
ROUND_SUM = Message(
    "The round adds up to %(sum)s, more than the %(max)s pips that can be left in hands."
)


def round_errors(rules: RuleSet, engine: int, pips: Mapping[P, object]) -> RoundErrors:
    """Check one round's pip counts (PRODUCT.md §4). Returns every error, none when valid."""
    errors = RoundErrors()
    bound = rules.max_pips(engine, len(pips))
    good: dict = {}
    for key, value in pips.items():
        if value is None or value == "":
            errors.add(key, ENTER_PIPS)
        elif isinstance(value, bool) or not isinstance(value, int):
            errors.add(key, Message(NOT_WHOLE, value=repr(value)))
        elif value < 0:
            errors.add(key, Message(NEGATIVE, value=value))
        elif value > bound:
            errors.add(key, Message(ABOVE, value=value, max=bound))
        else:
            good[key] = value
    zeros = [k for k, v in good.items() if v == 0]
    if len(zeros) > rules.max_zeros(engine):
        errors.whole.append(rules.zeros_message(engine, len(zeros)))
    round_bound = rules.round_max_pips(engine)
    if len(good) == len(pips) and sum(good.values()) > round_bound:
        errors.whole.append(Message(ROUND_SUM, sum=sum(good.values()), max=round_bound))
    return errors


def round_checks(
    rules: RuleSet, engines: Sequence[int], players: int, say: Callable[[str], str] = str
) -> dict:
    """What the entry page's script checks as the scorekeeper types, per engine the page may
    send (the round's, or a playoff's choice), from the same rules as ``round_errors``: the
    bound of one player's pips, of the round, how many may have 0 and why. ``say`` puts each
    message in the reader's language (``tournament.text.translated``)."""

    def template(message: str) -> str:  # entry.js fills {value}
        return re.sub(r"%\((\w+)\)s", r"{\1}", say(message))

    return {
        "engines": {
            str(engine): {
                "max": rules.max_pips(engine, players),
                "round_max": rules.round_max_pips(engine),
                "max_zeros": rules.max_zeros(engine),
                "zeros_why": say(rules.zeros_reason(engine)),
            }
            for engine in engines
        },
        "messages": {
            "enter": say(ENTER_PIPS),
            "not_whole": template(NOT_WHOLE),
            "negative": template(NEGATIVE),
            "above": template(ABOVE),
            "zeros": template(ZEROS),
            "round_sum": template(ROUND_SUM),
        },
    }


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
    return {p: bisect_left(ordered, t) + 1 for p, t in totals.items()}


def confirm_after_time(typed_before_call: int, typed: int) -> bool:
    """Whether the next round typed after time was called needs the scorekeeper's word that
    it was played before the call (PRODUCT.md §5).

    Scores may be typed after the call (paper-first events type every round after the game),
    so nothing is inferred from when rounds were typed: any round is accepted until the
    table's game is marked over. The round just after what was typed before the call is the
    one in progress (or the first typed late); a round beyond that asks for a confirmation,
    as a guard against a typo on the wrong table, never a refusal.
    """
    if typed_before_call < 0 or typed < 0:
        raise ValueError("Round counts cannot be negative")
    return typed > typed_before_call
