"""An event's format as plain Python: no Django here (issue 30, PRODUCT.md §12).

- ``knockout`` (the default): Game 1, semifinals as needed, a Final; each table's winners go
  on (tournament/game/finals.py), medals from the Final's totals.
- ``cumulative``: everyone plays ``games`` games (Game 1 … Game K), reseated between them
  (tournament/game/reseating.py); the standings are the sum of each player's game totals, and
  the medals come from the cumulative totals once the last game is closed.
- ``cumulative_final``: the same games, then the ``final_size`` lowest cumulative totals of
  each division play a Final; its totals alone give the medals, or (``medals_from``) the
  cumulative total plus the Final's.

A player is any hashable key; a total is pips, lower is better.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import reduce

from tournament.game import awards
from tournament.game.message import Message, Refusal
from tournament.game.rules import RuleSet
from tournament.game.seating import SeatingError, seat_sizes

KNOCKOUT, CUMULATIVE, CUMULATIVE_FINAL = "knockout", "cumulative", "cumulative_final"
KINDS = (KNOCKOUT, CUMULATIVE, CUMULATIVE_FINAL)
FEWEST_REPEATS, BY_STANDING, PROGRESSIVE = "fewest_repeats", "by_standing", "progressive"
RESEAT_RULES = (FEWEST_REPEATS, BY_STANDING, PROGRESSIVE)
FROM_FINAL, CUMULATIVE_PLUS_FINAL = "final", "cumulative_plus_final"
MEDALS_FROM = (FROM_FINAL, CUMULATIVE_PLUS_FINAL)
MAX_GAMES = 12


class FormatError(Refusal, ValueError):
    """A format that cannot be played with this rule set; the message says why."""


@dataclass(frozen=True)
class Format:
    kind: str = KNOCKOUT
    games: int = 3
    reseat: str = FEWEST_REPEATS
    move: int = 1
    final_size: int | None = None
    medals_from: str = FROM_FINAL

    @property
    def is_cumulative(self) -> bool:
        return self.kind in (CUMULATIVE, CUMULATIVE_FINAL)

    @property
    def has_final(self) -> bool:
        """Whether a Final is played after the games (a cumulative event's is optional)."""
        return self.kind != CUMULATIVE

    def final_players(self, rules: RuleSet) -> int:
        """How many play each division's Final of a ``cumulative_final`` event: the size set,
        else one table's worth (the event's usual table size)."""
        return self.final_size if self.final_size is not None else rules.table_size

    def problems(self, rules: RuleSet, players: int | None = None) -> list[Message]:
        """Every reason this format cannot be played under ``rules`` (with ``players``
        registered, when known); empty when it can."""
        out: list[Message] = []
        if self.kind not in KINDS:
            return [Message("The format must be knockout, cumulative or cumulative then a Final.")]
        if not self.is_cumulative:
            return out
        if not 1 <= self.games <= MAX_GAMES:
            out.append(
                Message(
                    "Everyone plays 1 to %(max)s games, not %(games)s.",
                    max=MAX_GAMES,
                    games=self.games,
                )
            )
        if self.reseat not in RESEAT_RULES:
            out.append(Message("Reseat players by fewest repeats, by standing or progressively."))
        if self.reseat == PROGRESSIVE:
            most = most_moving(rules)
            if not 1 <= self.move <= most:
                out.append(
                    Message(
                        "At most half a table moves each way: %(move)s players cannot move up "
                        "and %(move)s down at tables of %(size)s (at most %(most)s).",
                        move=self.move,
                        size=rules.table_size,
                        most=most,
                    )
                    if self.move > most
                    else Message("At least 1 player moves up and 1 down at each table.")
                )
        if self.kind == CUMULATIVE_FINAL:
            if self.medals_from not in MEDALS_FROM:
                out.append(Message("Medals come from the Final, or the cumulative total plus it."))
            size = self.final_players(rules)
            if size < 2:
                out.append(Message("A Final seats at least 2 players."))
            elif not rules.can_deal(size):
                out.append(
                    Message(
                        "A Final of %(size)s cannot be dealt at one table under these rules "
                        "(tables of %(sizes)s).",
                        size=size,
                        sizes=", ".join(map(str, rules.dealable_sizes)) or "—",
                    )
                )
            elif players is not None and size > players:
                out.append(
                    Message(
                        "A Final of %(size)s is larger than the field of %(players)s players.",
                        size=size,
                        players=players,
                    )
                )
        return out

    def check(self, rules: RuleSet, players: int | None = None) -> Format:
        problems = self.problems(rules, players)
        if problems:
            raise FormatError(Message.joined(problems))
        return self


def most_moving(rules: RuleSet) -> int:
    """The most players a progressive event may move up (and as many down) at each table: half
    the usual table size (PRODUCT.md §12). At a smaller table half that table, rounded down,
    moves each way (``reseating.moving_at``), so nobody moves both ways."""
    return max(rules.table_size // 2, 1)


def reseat_rule(fmt: Format) -> Message:
    """How a cumulative event reseats its players between games (PRODUCT.md §12), as the end
    of "players are reseated …": the road, the close page and the seating page say it."""
    if fmt.reseat == BY_STANDING:
        return Message(
            "by standing: the lowest cumulative totals at table 1, the next at table 2, and so on"
        )
    if fmt.reseat == PROGRESSIVE:
        if fmt.move == 1:
            return Message(
                "progressively: each table's lowest total moves up a table and its highest "
                "down a table"
            )
        return Message(
            "progressively: each table's %(k)s lowest totals move up a table and its %(k)s "
            "highest down a table",
            k=fmt.move,
        )
    return Message("at random, with the fewest repeated tablemates")


def road(fmt: Format, rules: RuleSet, players: int | None = None) -> Message:
    """A cumulative format's road in one or two sentences (the event home and the close page):
    "Cumulative: 3 games, the lowest total wins." or "3 games, then a Final of 8; the Final's
    totals give the medals.", the tables a game seats when the ``players`` of one division
    are known, and the reseating rule between games. A knockout's road is its finals plan
    (tournament/game/finals.py)."""
    if not fmt.is_cumulative:
        return Message("Knockout: each table's winners go on to a Final.")
    games = Message("1 game") if fmt.games == 1 else Message("%(n)s games", n=fmt.games)
    tables = _game_tables(rules, players)
    if tables is not None:
        games = Message(
            "%(games)s at %(tables)s (%(players)s players)",
            games=games,
            tables=tables,
            players=players,
        )
    size = fmt.final_players(rules)
    if players is not None and 2 <= players < size:
        size = players  # a division smaller than the Final: all of it plays the Final
    if fmt.kind == CUMULATIVE:
        first = Message("Cumulative: %(games)s, the lowest total wins.", games=games)
    elif fmt.medals_from == CUMULATIVE_PLUS_FINAL:
        first = Message(
            "%(games)s, then a Final of %(size)s; the cumulative total plus the Final's "
            "gives the medals.",
            games=games,
            size=size,
        )
    else:
        first = Message(
            "%(games)s, then a Final of %(size)s; the Final's totals give the medals.",
            games=games,
            size=size,
        )
    if fmt.games < 2:
        return first
    between = Message("Between games, players are reseated %(rule)s.", rule=reseat_rule(fmt))
    return Message.joined([first, between])


def _game_tables(rules: RuleSet, players: int | None) -> Message | None:
    """ "3 tables of 4", "2 tables of 5 or 4", "one table of 3": how ``players`` sit in a
    game; None when unknown or when they cannot be seated."""
    if players is None:
        return None
    try:
        tables = seat_sizes(players, rules.table_size, rules.dealable_sizes)
    except SeatingError:
        return None
    sizes = reduce(
        lambda a, b: Message("%(a)s or %(b)s", a=a, b=b),
        map(str, sorted(set(tables), reverse=True)),
    )
    if len(tables) == 1:
        return Message("one table of %(sizes)s", sizes=sizes)
    return Message("%(count)s tables of %(sizes)s", count=len(tables), sizes=sizes)


def cumulative_totals[P: Hashable](games: Iterable[Mapping[P, int]]) -> dict[P, int]:
    """Each player's sum of their game totals, over the games they played."""
    out: dict[P, int] = {}
    for game in games:
        for player, total in game.items():
            out[player] = out.get(player, 0) + total
    return out


def final_cut[P: Hashable](
    totals: Mapping[P, int],
    size: int,
    rules: RuleSet,
    playoffs: Sequence[Mapping[P, int]] = (),
) -> awards.Advancement[P]:
    """Who plays a ``cumulative_final`` event's Final from one division's cumulative totals
    (PRODUCT.md §12): the ``size`` lowest. A tie at the cut: under "all advance" every tied
    player goes on while the Final can still be dealt at one table; otherwise, and under
    "playoff", one playoff round among the players tied at the cut fills the places left (a
    tied playoff is played again). While it is owed, only the players clear of the cut go on.
    """
    if rules.advancement_tie == "all_advance":
        everyone = awards.table_advancers(totals, "all_advance", places=size)
        if rules.can_deal(len(everyone.advancing)) or len(everyone.advancing) <= size:
            return everyone
    return awards.table_advancers(totals, "playoff", playoffs, places=size)


def medal_totals[P: Hashable](
    fmt: Format, cumulative: Mapping[P, int], final: Mapping[P, int] | None = None
) -> dict[P, int]:
    """The totals the medals are given from: the cumulative totals (``cumulative``), the
    Final's (``cumulative_final``), or each finalist's cumulative total plus their Final's
    (``medals_from`` ``cumulative_plus_final``)."""
    if fmt.kind == CUMULATIVE:
        return dict(cumulative)
    final = final or {}
    if fmt.medals_from == CUMULATIVE_PLUS_FINAL:
        return {p: cumulative.get(p, 0) + t for p, t in final.items()}
    return dict(final)
