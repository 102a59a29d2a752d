"""The medal ceremony and its papers (issue 50 item 3): what the projector page, the ceremony
script and the certificates show, read from an event's results. Reads only; the order is
tournament/game/ceremony.py's rule."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from scoring.printing import medal_totals_shown
from scoring.results import EventResults
from scoring.series import event_showings
from tournament.game import ceremony as rule
from tournament.game.awards import MEDALS
from tournament.models import Medal, Player, StageKind
from tournament.text import name_sort_key


@dataclass(frozen=True)
class Holder:
    player: Player
    total: str  # the total the medal came from, as the results show it ("" when none)
    away: bool = False  # out of district: a duplicate medal by their place among everybody


@dataclass(frozen=True)
class Reveal:
    """One press of the ceremony, ready to show."""

    division: str
    medal: str
    how: str
    holders: tuple[Holder, ...]
    between: tuple[Player, ...]

    @property
    def label(self) -> str:
        return Medal(self.medal).label

    @property
    def awarded(self) -> bool:
        return bool(self.holders)

    @property
    def said(self) -> str:
        """How the medal was settled, in a sentence ("" for a lone lowest total)."""
        if self.how == rule.SHARED:
            sharing = sum(not h.away for h in self.holders)
            return ngettext(
                "Tied: %(n)s player shares it.", "Tied: %(n)s players share it.", sharing
            ) % {"n": sharing}
        if self.how == rule.PLAYOFF:
            return _("Won in a one-round playoff.")
        if self.how == rule.TIE_FOR_GOLD:
            return _("Not awarded: players tied for gold.")
        if self.how == rule.NOBODY:
            return _("Not awarded.")
        if self.how == rule.PENDING:
            return _("Playoff pending between %(names)s.") % {
                "names": ", ".join(p.name for p in self.between)
            }
        return ""


def played_off(results: EventResults) -> dict[str, set[int]]:
    """Division -> the players who played one of its closed medal playoffs."""
    out: dict[str, set[int]] = {}
    for stage, sheets in results.sheets.items():
        if stage.kind == StageKind.PLAYOFF and stage.closed and stage.medal in MEDALS:
            players = out.setdefault(stage.division, set())
            players.update(p.pk for sheet in sheets for p in sheet.players)
    return out


def reveals(results: EventResults) -> list[Reveal]:
    """The ceremony's reveals in the order they are read out: each division's bronze, silver
    and gold (divisions in the results' order)."""
    players = results.players
    totals = medal_totals_shown(results)
    order = rule.ceremony([(d.division, d.result) for d in results.medals], played_off(results))
    # the out-of-district players' duplicate medals, read out with the district's (PRODUCT.md
    # §15): after its holders, marked
    away = {
        (d.division, medal): sorted(pk for pk, m in d.outside.items() if m == medal)
        for d in results.medals
        for medal in MEDALS
    }
    return [
        Reveal(
            r.division,
            r.medal,
            r.how,
            tuple(Holder(players[pk], totals.get(pk, "")) for pk in r.players)
            + tuple(
                Holder(players[pk], totals.get(pk, ""), away=True)
                for pk in away.get((r.division, r.medal), ())
            ),
            tuple(players[pk] for pk in r.between),
        )
        for r in order
    ]


@dataclass(frozen=True)
class Certificate:
    player: Player
    division: str
    medal: str  # "" when none
    place: int | None  # their place in their division; None: withdrew

    @property
    def title(self) -> str:
        """What the certificate awards: the medal, the place, or taking part."""
        if self.medal:
            return {
                "gold": _("Gold medal"),
                "silver": _("Silver medal"),
                "bronze": _("Bronze medal"),
            }[self.medal]
        if self.place is not None:
            return _("Place %(place)s") % {"place": self.place}
        return _("Participant")


def certificates(results: EventResults, everyone: bool = False) -> list[Certificate]:
    """A certificate for each medallist (ceremony order: division by division, gold first),
    or with ``everyone`` for each player who played, by place in their division."""
    shown = event_showings(results)
    players = results.players
    out = []
    for division, showings in shown.items():
        for pk, showing in showings.items():
            if showing.medal or everyone:
                out.append(Certificate(players[pk], division, showing.medal, showing.place))

    def key(c: Certificate):
        medal = MEDALS.index(c.medal) if c.medal else len(MEDALS)
        place = c.place if c.place is not None else 10**9
        return (c.division, medal, place, name_sort_key(c.player.name))

    return sorted(out, key=key)
