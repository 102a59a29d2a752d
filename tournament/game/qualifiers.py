"""Qualifiers for the next level and out-of-district athletes (issue 50 item 4, PRODUCT.md §15).

Plain Python that knows nothing of Django. Senior games send the first N of each division on to
the state or national games, and let athletes from outside the district play without taking a
medal or a qualifying place from those inside: medals and places are awarded twice over.

- **In district**: the division's order with the out-of-district players taken out. Its medals
  are the event's medal tie rule applied to the Final's totals of the in-district players
  (tournament/game/awards.py, with the playoffs that rule owes); its places are the usual place
  at an event (medals first, then how far a player went, then their total, a playoff ordering
  the tied players who played it: tournament/game/series.py ``event_places``).
- **Out of district**: the full order of every player. An out-of-district player's place is
  their competition place among everybody by how far they went and their total (a tie shares
  the place, 1, 1, 3); the medal is that place's among the Final's players (1 gold, 2 silver,
  3 bronze). An out-of-district player never plays a medal playoff: tied with others, they share
  the place, so nobody in the district waits on a playoff that would only decide a duplicate.
- **Qualifying places**: the first ``slots`` places of each order qualify, in-district players
  by their in-district place, out-of-district players by their place among everybody. A tie
  across the last qualifying place: every tied player qualifies (``ALL_QUALIFY``, the usual
  senior games practice and the default) or they are listed as alternates and the games
  office decides (``ALTERNATES``).

Nobody in district ever loses a medal or a place to an athlete from outside: removing the
out-of-district players can only move an in-district player up.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tournament.game.awards import MEDALS, MedalResult, MedalTieRule
from tournament.game.awards import medals as medal_rule
from tournament.game.rules import places as competition_places
from tournament.game.series import event_places

ALL_QUALIFY, ALTERNATES = "all_qualify", "alternates"
TIE_RULES = (ALL_QUALIFY, ALTERNATES)
QUALIFIED, ALTERNATE = "qualified", "alternate"


@dataclass(frozen=True)
class Standing:
    """One player's outcome for the games office: the place that earned it (among the
    in-district players, or among everybody for an out-of-district player), the medal ("" for
    none) and whether they qualify (``QUALIFIED``, ``ALTERNATE`` or "")."""

    place: int
    medal: str = ""
    qualified: str = ""
    out_of_district: bool = False


@dataclass(frozen=True)
class SplitMedals[P: Hashable]:
    """A division's medals awarded twice over: ``district``, the tie rule's medals among the
    in-district players (its owed playoffs are the division's), and ``outside``, each
    out-of-district medallist's medal by their place among everybody."""

    district: MedalResult[P]
    outside: dict[P, str]


def split_medals[P: Hashable](
    totals: Mapping[P, int],
    out_of_district: Collection[P],
    tie_rule: MedalTieRule = "nvso",
    playoffs: Mapping[str, Sequence[Mapping[P, int]]] | None = None,
) -> SplitMedals[P]:
    """The medals of a division's Final from its contenders' ``totals``. With nobody out of
    district this is exactly ``awards.medals`` (and ``outside`` is empty)."""
    away = set(out_of_district) & set(totals)
    district = {p: t for p, t in totals.items() if p not in away}
    result = medal_rule(district, tie_rule, playoffs or {})
    return SplitMedals(result, outside_medals(totals, away))


def outside_medals[P: Hashable](
    totals: Mapping[P, int], out_of_district: Collection[P]
) -> dict[P, str]:
    """Each out-of-district medallist's medal: their competition place among every player of
    the Final by total (1 gold, 2 silver, 3 bronze; a tie shares the place)."""
    ranked = competition_places(totals)
    return {
        p: MEDALS[place - 1]
        for p, place in ranked.items()
        if p in out_of_district and place <= len(MEDALS)
    }


def qualifying[P: Hashable](
    places: Mapping[P, int], slots: int, tie_rule: str = ALL_QUALIFY
) -> dict[P, str]:
    """Who qualifies from ``places`` (1 is best, tied players share a place): the places up to
    ``slots``. Players sharing a place that starts within the slots but runs past the last
    all qualify (``ALL_QUALIFY``) or are alternates (``ALTERNATES``). Players left out are not
    listed."""
    if tie_rule not in TIE_RULES:
        raise ValueError(f"unknown qualifier tie rule {tie_rule!r}")
    sharing: dict[int, int] = {}
    for place in places.values():
        sharing[place] = sharing.get(place, 0) + 1
    out: dict[P, str] = {}
    for player, place in places.items():
        if place > slots:
            continue
        across = place + sharing[place] - 1 > slots
        out[player] = ALTERNATE if across and tie_rule == ALTERNATES else QUALIFIED
    return out


def standings[P: Hashable](
    field: Mapping[P, tuple[Any, ...]],
    out_of_district: Collection[P],
    medals: Mapping[P, str],
    slots: int = 0,
    tie_rule: str = ALL_QUALIFY,
    playoffs: Sequence[Mapping[P, int]] = (),
) -> dict[P, Standing]:
    """Every placed player's place, medal and qualification in one division.

    ``field``: each placed player's key in the division's order without medals (how far they
    went, then their total there; lower is better). ``medals``: the medal of each medallist,
    in-district (the tie rule's) and out-of-district (``outside_medals``) alike. ``playoffs``:
    the division's closed playoff rounds in play order (they order the tied players who played
    them, as a place at an event does)."""
    away = set(out_of_district)
    district = {
        p: (_medal_rank(medals.get(p, "")), *key) for p, key in field.items() if p not in away
    }
    district_places = event_places(district, playoffs)
    everybody = competition_places(dict(field))
    outside = qualifying(everybody, slots, tie_rule)  # a tie counts everybody tied
    qualified = {
        **qualifying(district_places, slots, tie_rule),
        **{p: q for p, q in outside.items() if p in away},
    }
    return {
        p: Standing(
            district_places[p] if p not in away else everybody[p],
            medals.get(p, ""),
            qualified.get(p, ""),
            p in away,
        )
        for p in field
    }


def _medal_rank(medal: str) -> int:
    return MEDALS.index(medal) if medal in MEDALS else len(MEDALS)
