import re

from django import forms
from django.utils.translation import gettext_lazy as _

from tournament.forms import OnceMixin
from tournament.game.rules import ABOVE, NEGATIVE, NOT_WHOLE, round_errors
from tournament.text import translated


class PipsField(forms.IntegerField):
    """A pip count as the entry page's script takes it: ASCII digits only (not ``1_0``, ``٣``,
    ``１２``, ``+5``, ``5.0``, which Python's ``int`` would read), with the script's message; a
    minus sign before digits is left to the ``min_value`` message, as the script does."""

    def to_python(self, value):
        raw = "" if value in self.empty_values else str(value).strip()
        if raw == "":
            return None
        if re.fullmatch(r"-?[0-9]+", raw):
            try:
                return int(raw)
            except ValueError:  # more digits than Python reads
                pass
        raise forms.ValidationError(translated(NOT_WHOLE) % {"value": f"'{raw}'"}, code="invalid")


class RoundForm(OnceMixin, forms.Form):
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
        number=None,
        after_time=None,
        **kwargs,
    ):
        super().__init__(*args, **kwargs)
        self.players, self.rules, self.engine = players, rules, engine
        if number is not None:
            # The round the page shows: a device whose page is out of date is refused, not
            # filed under the next round (scoring.services.rounds.record_round).
            self.fields["number"] = forms.IntegerField(
                widget=forms.HiddenInput,
                initial=number,
                min_value=1,
                max_value=1000,
                required=False,
            )
            if not choose_engine:
                self.fields["shown_engine"] = forms.TypedChoiceField(
                    widget=forms.HiddenInput,
                    coerce=int,
                    initial=engine,
                    choices=[(e, e) for e in range(rules.set + 1)],
                    required=False,
                    empty_value=None,
                )
        if choose_engine:
            # A playoff's one round: the director picks the engine (default the highest).
            self.fields["engine"] = forms.TypedChoiceField(
                label=_("Engine"),
                coerce=int,
                initial=engine,
                choices=[(e, f"{e}-{e}") for e in range(rules.set, -1, -1)],
            )
        # With a choice of engine, the exact bound is checked in clean() once it is known.
        bound = rules.max_pips(0 if choose_engine else engine, len(players))
        for i, p in enumerate(players):
            attrs = {
                "inputmode": "numeric",
                "pattern": "[0-9]*",
                "autocomplete": "off",
                "enterkeyhint": "done" if i == len(players) - 1 else "next",
                "class": "pips",
            }
            if i == 0:
                attrs["autofocus"] = (
                    True  # keyboard first: the first cell, on load and after a save
                )
            self.fields[self.key(p)] = PipsField(
                label=p.name,
                min_value=0,
                max_value=bound,
                error_messages={
                    "required": _(
                        "Enter this player's pips (0 for the player who dominoed or who holds "
                        "just the double-blank)."
                    ),
                    # The rule core's messages (the page's script shows the same ones).
                    "min_value": translated(NEGATIVE) % {"value": "%(show_value)s"},
                    "max_value": translated(ABOVE)
                    % {"value": "%(show_value)s", "max": "%(limit_value)s"},
                },
                initial=(initial_pips or {}).get(p.pk),
                widget=forms.TextInput(attrs=attrs),
            )
        if after_time is not None:
            # Time was called (PRODUCT.md §5): rounds are still typed until the game is
            # marked over; a round beyond the one in progress needs the scorekeeper's word.
            if after_time.needs_confirmation:
                self.fields["played_before_call"] = forms.BooleanField(
                    label=after_time.confirmation,
                    error_messages={"required": after_time.unconfirmed},
                )
            self.fields["last"] = forms.BooleanField(
                label=_("Game over after this round: no later round was played at this table."),
                required=False,
            )
        if correction:
            self.fields["reason"] = forms.CharField(
                label=_("Reason for the correction"), max_length=300
            )

    @staticmethod
    def key(player) -> str:
        return f"p{player.pk}"

    def pip_fields(self):
        """The pip cells, in seat order (the grid of the page)."""
        return [self[self.key(p)] for p in self.players]

    def choice_fields(self):
        """The visible fields beside the pips: a playoff's engine, the confirmations after
        time is called, a correction's reason."""
        pips = {self.key(p) for p in self.players}
        return [f for f in self.visible_fields() if f.name not in pips]

    def clean(self):
        data = super().clean()
        self.refuse_repeated_fields()
        if self.errors:
            return data
        pips = {p.pk: data[self.key(p)] for p in self.players}
        self.engine = data.get("engine", self.engine)
        errors = round_errors(self.rules, self.engine, pips)
        by_pk = {p.pk: p for p in self.players}
        for pk, messages in errors.fields.items():
            for m in messages:
                self.add_error(self.key(by_pk[pk]), translated(m))
        for m in errors.whole:
            self.add_error(None, translated(m))
        data["pips"] = pips
        return data

    def refuse_repeated_fields(self) -> None:
        """A field posted twice (a page's form sends each once) is refused, never read as
        its last value: at the field when the page shows it, else for the whole form."""
        if not hasattr(self.data, "getlist"):
            return
        for name, field in self.fields.items():
            if len(self.data.getlist(self.add_prefix(name))) > 1:
                if field.widget.is_hidden:
                    self.add_error(
                        None, _("The form was sent with a field twice: reload the page.")
                    )
                else:
                    self.add_error(
                        name, _("This field was sent more than once: enter the value again.")
                    )


class RemoveRoundForm(OnceMixin, forms.Form):
    """Removing a table's last round: the reason is kept in the event's history."""

    reason = forms.CharField(label=_("Why this round is removed"), max_length=300)
