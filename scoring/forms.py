from django import forms
from django.utils.translation import gettext_lazy as _

from tournament.rules import round_errors


class RoundForm(forms.Form):
    """One pip count per seated player, checked as a whole round (PRODUCT.md §4)."""

    def __init__(
        self,
        *args,
        players,
        rules,
        engine,
        correction=False,
        choose_engine=False,
        initial_pips=None,
        **kwargs,
    ):
        super().__init__(*args, **kwargs)
        self.players, self.rules, self.engine = players, rules, engine
        if choose_engine:
            # A playoff's one round: the director picks the engine (default the highest).
            self.fields["engine"] = forms.TypedChoiceField(
                label=_("Engine"),
                coerce=int,
                initial=engine,
                choices=[(e, f"{e}-{e}") for e in range(rules.set, -1, -1)],
            )
        # With a choice of engine, the exact bound is checked in clean() once it is known.
        bound = rules.max_pips(0 if choose_engine else engine)
        for p in players:
            self.fields[self.key(p)] = forms.IntegerField(
                label=p.name,
                min_value=0,
                max_value=bound,
                error_messages={
                    "required": _("Enter this player's pips (0 for the player who dominoed)."),
                    "invalid": _("Enter a whole number of pips."),
                    "min_value": _("Pips left in hand cannot be negative."),
                    "max_value": _("%(limit_value)s is the most pips that can be left."),
                },
                initial=(initial_pips or {}).get(p.pk),
                widget=forms.NumberInput(attrs={"inputmode": "numeric", "class": "pips"}),
            )
        if correction:
            self.fields["reason"] = forms.CharField(
                label=_("Reason for the correction"), max_length=300
            )

    @staticmethod
    def key(player) -> str:
        return f"p{player.pk}"

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        pips = {p.pk: data[self.key(p)] for p in self.players}
        self.engine = data.get("engine", self.engine)
        errors = round_errors(self.rules, self.engine, pips)
        by_pk = {p.pk: p for p in self.players}
        for pk, messages in errors.fields.items():
            for m in messages:
                self.add_error(self.key(by_pk[pk]), m)
        for m in errors.whole:
            self.add_error(None, m)
        data["pips"] = pips
        return data
