"""The medal ceremony's order (issue 50 item 3): each division's medals revealed bronze, silver,
then gold, each said as it was settled.

Plain Python that knows nothing of Django: the medals of each division (tournament/game/
awards.py) and the players who played a medal playoff go in; the reveals come out, in the order
they are read out.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass

from tournament.game.awards import BRONZE, GOLD, SILVER, MedalResult

CEREMONY_ORDER = (BRONZE, SILVER, GOLD)

# How a medal was settled, as the ceremony says it.
OUTRIGHT = "outright"  # the lowest total of those left, alone
SHARED = "shared"  # tied, and the tie rule lets them share it
PLAYOFF = "playoff"  # won in a one-round playoff
TIE_FOR_GOLD = "tie_for_gold"  # not awarded: players tied for gold (NVSO: no silver, ...)
NOBODY = "nobody"  # not awarded: no player left for it, or its place taken by a tie
PENDING = "pending"  # a playoff is still owed for it


@dataclass(frozen=True)
class Reveal[P: Hashable]:
    """One press of the ceremony: a division's medal, its holders and how it was settled."""

    division: str
    medal: str
    how: str
    players: tuple[P, ...] = ()
    between: tuple[P, ...] = ()  # a pending medal's playoff players


def ceremony[P: Hashable](
    divisions: Sequence[tuple[str, MedalResult[P]]],
    played_off: Mapping[str, Collection[P]],
) -> list[Reveal[P]]:
    """The reveals, division by division (in the order given), bronze, silver, gold in each.

    ``played_off`` maps a division to the players who played one of its closed medal playoffs:
    a medal held by one of them was won in a playoff (the NVSO rule's bronze after a tie for
    gold, a tie for second or third, or any tie under the playoff rule)."""
    reveals: list[Reveal[P]] = []
    for division, result in divisions:
        gold = result.award(GOLD)
        for medal in CEREMONY_ORDER:
            award = result.award(medal)
            if award.pending:
                how = PENDING
            elif award.none or not award.players:
                how = TIE_FOR_GOLD if medal != GOLD and len(gold.players) >= 2 else NOBODY
            elif len(award.players) >= 2:
                how = SHARED
            elif award.players[0] in played_off.get(division, ()):
                how = PLAYOFF
            else:
                how = OUTRIGHT
            reveals.append(Reveal(division, medal, how, award.players, award.between))
    return reveals
