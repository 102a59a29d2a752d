"""Places, advancement and medals, with their ties and playoffs (PRODUCT.md §6 and §7).

Plain Python that knows nothing of Django: totals and scored playoff rounds go in; places,
advancers, medals and the playoffs still owed come out. A player is any hashable key (an id, a
model instance); a total or a playoff score is pips, lower is better.

A playoff is one round among tied players; the lowest pips wins. "A tied playoff is played
again": among the players still tied for what the playoff decides, as a new round. Scored rounds
are passed in per playoff, named by the best outcome they decide ("advance", "gold", "silver",
"bronze"), in the order they were played. Until a playoff is scored, what it decides is owed,
never guessed.

Players tied with each other are listed sorted by key when the keys compare (ids, names), so a
result does not depend on the order the caller listed them in.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from tournament.game.message import Message, Refusal

GOLD, SILVER, BRONZE = "gold", "silver", "bronze"
MEDALS = (GOLD, SILVER, BRONZE)
ADVANCE = "advance"
PLAYOFF_PENDING = "playoff pending"

type AdvancementTieRule = Literal["all_advance", "playoff"]
type MedalTieRule = Literal["nvso", "shared", "playoff"]
ADVANCEMENT_TIE_RULES = ("all_advance", "playoff")
MEDAL_TIE_RULES = ("nvso", "shared", "playoff")

_NO_PLAYOFFS: Mapping[str, Sequence[Mapping[Any, int]]] = MappingProxyType({})


class PlayoffMismatch(Refusal, ValueError):
    """A scored playoff round that does not fit the ties of the totals given.

    Either it was played by other players than the ones tied, or no such round is owed (the
    playoff was already settled, or the totals have no tie that calls for it, e.g. after a
    correction). The caller should void that playoff; nothing is guessed around it.
    """

    def __init__(self, decides: str, round_number: int, message: str) -> None:
        super().__init__(
            Message(
                "the %(decides)s playoff, round %(round)s: %(why)s",
                decides=decides,
                round=round_number,
                why=message,
            )
        )
        self.decides = decides
        self.round_number = round_number


@dataclass(frozen=True)
class OwedPlayoff[P: Hashable]:
    """A one-round playoff that must still be played.

    `players` play it; `at_stake` is what it settles, best first: ("advance",), ("bronze",),
    ("silver", "bronze") for a tie for second under NVSO, ("gold", "silver", "bronze") for
    four tied for gold under the playoff rule. `round_number` is 1 for a first playoff and
    2, 3, ... when a tied playoff is played again.
    """

    players: tuple[P, ...]
    at_stake: tuple[str, ...]
    round_number: int = 1

    @property
    def decides(self) -> str:
        """The key its scored rounds are passed under: the best outcome at stake."""
        return self.at_stake[0]


@dataclass(frozen=True)
class Advancement[P: Hashable]:
    """Who advances from one table, and the playoff owed before anyone from a tie can."""

    advancing: tuple[P, ...]
    owed: OwedPlayoff[P] | None = None


@dataclass(frozen=True)
class MedalAward[P: Hashable]:
    """One medal, as `results.medals` of the event file lists it.

    - awarded: `players` holds its holders (several when shared);
    - `pending`: a playoff is owed `between` those players, `players` is empty;
    - `none`: the tie rule leaves it unawarded (no silver after a tie for gold) or no player is
      left to receive it; `players` is empty.
    """

    medal: str
    players: tuple[P, ...] = ()
    pending: bool = False
    between: tuple[P, ...] = ()
    none: bool = False

    def as_dict(self) -> dict[str, Any]:
        """The event file's entry: `{"medal", "players"}` plus `pending`/`between` or `none`."""
        entry: dict[str, Any] = {"medal": self.medal, "players": list(self.players)}
        if self.pending:
            entry["pending"] = "playoff"
            entry["between"] = list(self.between)
        if self.none:
            entry["none"] = True
        return entry


@dataclass(frozen=True)
class MedalResult[P: Hashable]:
    """Gold, silver and bronze in that order, and the playoffs still owed (best first)."""

    medals: tuple[MedalAward[P], ...]
    owed: tuple[OwedPlayoff[P], ...] = ()

    def award(self, medal: str) -> MedalAward[P]:
        """The award of one medal by name."""
        return self.medals[MEDALS.index(medal)]


def table_advancers[P: Hashable](
    totals: Mapping[P, int],
    tie_rule: AdvancementTieRule = "all_advance",
    playoffs: Sequence[Mapping[P, int]] = (),
    places: int = 1,
) -> Advancement[P]:
    """Who advances from a table (PRODUCT.md §6), or takes a wildcard.

    "A table's winner is its lowest game total. Ties at the top advance all tied players
    (default) or go to a one-round playoff at that table (setting)." With ``places`` more
    than 1 (the top N of each table, tournament/game/finals.py), the lowest ``places`` totals
    advance, and a tie across the last place advances all tied or goes to a playoff for the
    places left.

    `playoffs` are the table's scored playoff rounds in order, each the pips of the players who
    played it; a tied playoff is played again among those tied for the lowest pips. While a
    playoff is owed, nobody from the tie advances yet.
    """
    _check_rule(tie_rule, ADVANCEMENT_TIE_RULES)
    scored = _ScoredPlayoffs({ADVANCE: playoffs})
    groups = _ranked_groups(totals)
    if not groups:
        advancement: Advancement[P] = Advancement(())
    elif tie_rule == "all_advance":
        advancement = Advancement(
            tuple(player for place, group in groups if place <= places for player in group)
        )
    else:
        settled, owed = _settle_all(
            [
                (group, (ADVANCE,) * min(len(group), places - place + 1))
                for place, group in groups
                if place <= places
            ],
            scored,
        )
        advancement = Advancement(tuple(player for _, player in settled), _first(owed))
    scored.check_all_used()
    return advancement


def medals[P: Hashable](
    totals: Mapping[P, int],
    tie_rule: MedalTieRule = "nvso",
    playoffs: Mapping[str, Sequence[Mapping[P, int]]] = _NO_PLAYOFFS,
) -> MedalResult[P]:
    """Gold, silver and bronze from the final table's totals, lowest first (PRODUCT.md §7).

    The tie rules:

    - "nvso" (default), from the NVSO rules §G: "In the event of a tie in the final play for
      first place (gold medal), second and third place will be a one-round play off for third
      place (bronze medal). There will be no silver medal." So:
      two tie for the lowest total: both get gold; no silver; the next two players by total
      (and anyone tied with the second of them) play a one-round playoff, its winner gets
      bronze. Three or more tie for the lowest: all gold, no silver, no bronze. A tie for
      second (no tie for first): a playoff between the tied, the winner gets silver and the
      next in the playoff bronze. A tie for third: a playoff between the tied for bronze.
      When two tie for gold and a single player is left, there is nobody to play off against:
      that player gets bronze outright (and with nobody left, bronze is none).
    - "shared": the 1, 1, 3 ranking; places 1, 2 and 3 get gold, silver and bronze, tied
      players share, and a medal whose place is skipped is not awarded.
    - "playoff": every tie that touches a medal place is settled by a one-round playoff among
      the tied; the winner takes the best medal at stake, the next the next, and so on.

    `playoffs` maps what a playoff decides ("gold", "silver" or "bronze": the best medal at
    stake, so a playoff for silver and bronze is "silver") to its scored rounds in order.
    A medal a playoff is owed for reads pending, never a guess; with fewer than three
    finishers the medals nobody is left for are none.
    """
    _check_rule(tie_rule, MEDAL_TIE_RULES)
    scored = _ScoredPlayoffs(playoffs)
    groups = [group for _, group in _ranked_groups(totals)]
    if tie_rule == "shared":
        settled, owed = _shared_medals(totals), []
    elif tie_rule == "nvso" and groups and len(groups[0]) >= 2:
        settled, owed = _nvso_tie_for_gold(groups, scored)
    else:
        settled, owed = _settle_all(_contests(totals, MEDALS), scored)
    scored.check_all_used()
    return MedalResult(tuple(_award(medal, settled, owed) for medal in MEDALS), tuple(owed))


def medal_places[P: Hashable](result: MedalResult[P]) -> dict[P, int | str]:
    """The place to show beside each medalist (1 gold, 2 silver, 3 bronze), or
    `PLAYOFF_PENDING` for a player who still has a medal playoff to play. Players without a
    medal at stake are left out."""
    shown: dict[P, int | str] = {}
    for place, award in enumerate(result.medals, start=1):
        for player in award.players:
            shown[player] = place
        for player in award.between:
            shown[player] = PLAYOFF_PENDING
    return shown


# The rules, step by step.

# Outcomes given so far: (what, player) pairs, e.g. ("gold", "p1").
type _Settled[P] = list[tuple[str, P]]


def _shared_medals[P: Hashable](totals: Mapping[P, int]) -> _Settled[P]:
    """The shared rule: places 1, 2, 3 of the competition ranking get gold, silver, bronze."""
    return [
        (MEDALS[place - 1], player)
        for place, group in _ranked_groups(totals)
        if place <= len(MEDALS)
        for player in group
    ]


def _nvso_tie_for_gold[P: Hashable](
    groups: list[tuple[P, ...]], scored: _ScoredPlayoffs
) -> tuple[_Settled[P], list[OwedPlayoff[P]]]:
    """NVSO when several tie for the lowest total: all get gold, nobody gets silver, and with
    exactly two tied, the next two players by total (and anyone tied with the second of them)
    play off for bronze."""
    tied_for_gold = groups[0]
    settled: _Settled[P] = [(GOLD, player) for player in tied_for_gold]
    if len(tied_for_gold) > 2:
        return settled, []
    # Whole tie groups in total order until there are two players: a group of two or more
    # holds the second player and everyone tied with them; else the group after it does.
    bronze_playoff: tuple[P, ...] = ()
    for group in groups[1:]:
        if len(bronze_playoff) >= 2:
            break
        bronze_playoff += group
    if not bronze_playoff:
        return settled, []
    bronze, owed = _settle(_in_order(bronze_playoff), (BRONZE,), scored)
    return settled + bronze, owed


def _settle_all[P: Hashable](
    contests: list[tuple[tuple[P, ...], tuple[str, ...]]], scored: _ScoredPlayoffs
) -> tuple[_Settled[P], list[OwedPlayoff[P]]]:
    """Settle each (players, at stake) contest; see `_settle`."""
    settled: _Settled[P] = []
    owed: list[OwedPlayoff[P]] = []
    for players, at_stake in contests:
        more_settled, more_owed = _settle(players, at_stake, scored)
        settled += more_settled
        owed += more_owed
    return settled, owed


def _settle[P: Hashable](
    players: tuple[P, ...], at_stake: tuple[str, ...], scored: _ScoredPlayoffs
) -> tuple[_Settled[P], list[OwedPlayoff[P]]]:
    """Give what is at stake to the players contesting it, best outcome first.

    A single player takes it outright. Tied players play a one-round playoff, lowest pips
    first; players tied in that round contest their share of what is at stake again, in a new
    round (named by the best outcome it decides). A round not yet scored is owed.
    """
    if len(players) == 1:
        return [(at_stake[0], players[0])], []
    if len(at_stake) >= len(players) and len(set(at_stake)) == 1:  # a place for every one
        return [(at_stake[0], player) for player in players], []
    playoff = scored.next_round(at_stake[0], players)
    if playoff is None:
        return [], [OwedPlayoff(players, at_stake, scored.round_number(at_stake[0]))]
    return _settle_all(_contests(playoff, at_stake), scored)


def _contests[P: Hashable](
    scores: Mapping[P, int], at_stake: tuple[str, ...]
) -> list[tuple[tuple[P, ...], tuple[str, ...]]]:
    """Split what is at stake between the tie groups of `scores`, lowest first: the group at
    place n contests the outcomes from the n-th on, one per player, while any are left.
    (At stake gold, silver, bronze, scores 5, 7, 7, 9: ((a,), (gold,)), ((b, c), (silver,
    bronze)).)"""
    return [
        (group, at_stake[place - 1 : place - 1 + len(group)])
        for place, group in _ranked_groups(scores)
        if place <= len(at_stake)
    ]


def _award[P: Hashable](
    medal: str, settled: _Settled[P], owed: list[OwedPlayoff[P]]
) -> MedalAward[P]:
    """How the event file lists `medal`: its holders, pending while a playoff is owed for it,
    or none."""
    for playoff in owed:
        if medal in playoff.at_stake:
            return MedalAward(medal, pending=True, between=playoff.players)
    holders = _in_order(player for outcome, player in settled if outcome == medal)
    if holders:
        return MedalAward(medal, players=holders)
    return MedalAward(medal, none=True)


class _ScoredPlayoffs:
    """The scored playoff rounds, handed out in play order to the ties that need them."""

    def __init__(self, rounds: Mapping[str, Sequence[Mapping[Any, int]]]) -> None:
        self._rounds = rounds
        self._used: Counter[str] = Counter()

    def round_number(self, decides: str) -> int:
        """The number of the next round of the playoff that decides `decides`."""
        return self._used[decides] + 1

    def next_round(self, decides: str, players: tuple[Hashable, ...]) -> Mapping[Any, int] | None:
        """The next scored round of that playoff, or None when it is still owed."""
        rounds = self._rounds.get(decides, ())
        number = self.round_number(decides)
        if number > len(rounds):
            return None
        playoff = rounds[number - 1]
        if set(playoff) != set(players):
            raise PlayoffMismatch(
                decides,
                number,
                Message(
                    "played by %(played)s, but owed between %(owed)s",
                    played=list(_in_order(playoff)),
                    owed=list(players),
                ),
            )
        self._used[decides] += 1
        return playoff

    def check_all_used(self) -> None:
        """Refuse scored rounds that no tie called for."""
        for decides, rounds in self._rounds.items():
            if len(rounds) > self._used[decides]:
                raise PlayoffMismatch(
                    decides, self.round_number(decides), Message("no such playoff is owed")
                )


# Small helpers.


def _ranked_groups[P: Hashable](scores: Mapping[P, int]) -> list[tuple[int, tuple[P, ...]]]:
    """Tie groups, lowest score first, each with its competition place: (1, (a, b)), (3, (c,))."""
    by_score: dict[int, list[P]] = {}
    for player, score in scores.items():
        by_score.setdefault(score, []).append(player)
    ranked = []
    place = 1
    for score in sorted(by_score):
        group = _in_order(by_score[score])
        ranked.append((place, group))
        place += len(group)
    return ranked


def _in_order[P: Hashable](players: Iterable[P]) -> tuple[P, ...]:
    """Players in an order that does not depend on how the caller listed them: sorted by key
    when the keys compare (ids, names), else as given."""
    players = tuple(players)
    try:
        return tuple(sorted(players))  # type: ignore[type-var]
    except TypeError:
        return players


def _first[T](items: list[T]) -> T | None:
    return items[0] if items else None


def _check_rule(tie_rule: str, known: tuple[str, ...]) -> None:
    if tie_rule not in known:
        raise ValueError(f"unknown tie rule {tie_rule!r}: expected one of {', '.join(known)}")
