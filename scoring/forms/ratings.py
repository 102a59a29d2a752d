"""The forms of the ratings' pages (issue 31): the leaderboard's search, and the opponents of
a player's expected place. Both are read from the query string (GET): they write nothing."""

import re

from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from scoring.archive import people
from tournament.models import Event, Player
from tournament.text import name_key

NAME_MAX = 100
MAX_OPPONENTS = 7  # a table holds 8 at most
MATCHES = 200  # the players a name may find (one person over many events counts once)
ID = re.compile(r"[0-9]{1,18}")  # ASCII digits ("²".isdigit()), few enough for the database


class LeaderboardForm(forms.Form):
    """Narrow the leaderboard by name (part of it) and club; a bad value is ignored."""

    q = forms.CharField(label=_("Name"), max_length=NAME_MAX, required=False)
    # Chosen from the leaderboard's clubs (the template's list, drawn only when the page is
    # not kept): a club nobody on the leaderboard plays for lists nobody.
    club = forms.CharField(label=_("Club"), max_length=120, required=False)

    def filters(self) -> dict[str, str]:
        """``{"q": ..., "club": ...}`` of the valid, non-empty values."""
        self.is_valid()  # a field that is not valid is left out of cleaned_data
        return {k: v.strip() for k, v in self.cleaned_data.items() if v and v.strip()}


class OpponentsForm(forms.Form):
    """Whom a player's expected place is worked out against: up to 7 players, ticked (``vs``,
    their ids), and one more found by name (``add``), from any event: ratings are site-wide
    (issue 45 item 4), and a person found in several events is found once."""

    vs = forms.Field(label=_("Opponents"), required=False, widget=forms.CheckboxSelectMultiple)
    add = forms.CharField(label=_("Add a player by name"), max_length=NAME_MAX, required=False)

    def __init__(self, *args, event: Event, player: Player, **kwargs):
        super().__init__(*args, **kwargs)
        self.event, self.player = event, player

    def clean_vs(self) -> list[Player]:
        asked = self.cleaned_data.get("vs") or []
        if isinstance(asked, str):
            asked = [asked]
        if any(not isinstance(a, str) or not ID.fullmatch(a) for a in asked):
            raise forms.ValidationError(_("Choose the opponents from the list."))
        ids = {int(a) for a in asked}
        if len(ids) > MAX_OPPONENTS:
            raise forms.ValidationError(self.too_many())
        found = self.players().filter(pk__in=ids).select_related("event")
        players = list(found.order_by("name", "pk"))
        if len(players) != len(ids):
            raise forms.ValidationError(_("Choose opponents among the other players."))
        return players

    def clean_add(self) -> Player | None:
        name = self.cleaned_data.get("add", "").strip()
        if not name:
            return None
        # Without case, accents or punctuation; a name that is whole wins over longer ones.
        # Each person once, as their latest player; this event's players first.
        found = self.players().matching(name).select_related("event")
        found = found.order_by("search_key", "-event__date", "-pk")[:MATCHES]
        person_of = people().person_of
        mine = person_of.get(self.player.pk)
        matches: dict[int, Player] = {}
        for p in found:
            who = person_of.get(p.pk, -p.pk)
            if who != mine:
                matches.setdefault(who, p)
        here = [p for p in matches.values() if p.event_id == self.event.pk]
        for candidates in (list(matches.values()), here):
            exact = [p for p in candidates if name_key(p.name) == name_key(name)]
            if len(exact) == 1 or len(candidates) == 1:
                return (exact or candidates)[0]
        if not matches:
            raise forms.ValidationError(_("No other player is called “%(name)s”.") % {"name": name})
        raise forms.ValidationError(
            _("Several people are called “%(name)s”: type more of the name.") % {"name": name}
        )

    def clean(self):
        data = super().clean()
        chosen = data.get("vs") or []
        added = data.get("add")
        if added is not None and added not in chosen:
            chosen = [*chosen, added]
            if len(chosen) > MAX_OPPONENTS:
                self.add_error("add", self.too_many())
        data["opponents"] = chosen
        return data

    def players(self):
        """Every other player of the site (ratings are site-wide)."""
        return Player.objects.exclude(pk=self.player.pk)

    @staticmethod
    def too_many() -> str:
        return ngettext(
            "Choose at most %(n)s opponent: a table holds %(seats)s players.",
            "Choose at most %(n)s opponents: a table holds %(seats)s players.",
            MAX_OPPONENTS,
        ) % {"n": MAX_OPPONENTS, "seats": MAX_OPPONENTS + 1}
