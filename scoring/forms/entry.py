import re

from django import forms
from django.utils.translation import gettext_lazy as _

from scoring.plausibility import threshold_for
from tournament.forms import OnceMixin
from tournament.game.plausibility import typos
from tournament.game.rules import ABOVE, NEGATIVE, NOT_WHOLE, round_errors
from tournament.text import translated

# The question of a count above the threshold (issue 33 item 2), here and in entry.js alike.
QUESTION = _(
    "%(name)s: %(value)s is more than 999 hands in 1,000 leave at this table (19 in 20 leave "
    "0 to %(typical)s): is it %(typos)s?"
)
QUESTION_NO_TYPO = _(
    "%(name)s: %(value)s is more than 999 hands in 1,000 leave at this table (19 in 20 leave "
    "0 to %(typical)s): is it right?"
)
OR = _("%(some)s or %(last)s")
YES = _("Yes, save %(value)s")
YES_FOR = _("Yes, save %(value)s for %(name)s")
SURE = _("Answer the question above to save.")


def either(values) -> str:
    """28, 27 and 87 as "28, 27 or 87"."""
    values = [str(v) for v in values]
    if len(values) < 2:
        return "".join(values)
    return OR % {"some": ", ".join(values[:-1]), "last": values[-1]}


def question(threshold, name: str, value: int) -> str:
    found = typos(value, threshold.typical)
    values = {"name": name, "value": value, "typical": threshold.typical}
    if not found:
        return QUESTION_NO_TYPO % values
    return QUESTION % {**values, "typos": either(found)}


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
        # A count above what 999 losing hands in 1,000 leave asks first (issue 33 item 2); a
        # correction asks only about the counts it changes.
        self.plausible = threshold_for(rules, len(players))
        self.initial_pips = initial_pips or {}
        self.questions: list[dict] = []
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
        if not errors:
            self.ask(pips)
        return data

    def sure_token(self, player, value: int) -> str:
        """What the confirmation of ``value`` for ``player`` sends: that count, for that cell
        (a count changed since is asked about again)."""
        return f"{self.key(player)}:{value}"

    def ask(self, pips: dict) -> None:
        """Counts above the threshold not yet confirmed: the question, as the field ``sure``
        (one "Yes, save N" box per count) with its error; the JSON answer lists them."""
        if self.plausible is None:
            return
        unsure = [
            p
            for p in self.players
            if pips[p.pk] > self.plausible.rare and self.initial_pips.get(p.pk) != pips[p.pk]
        ]
        if not unsure:
            return
        name = self.add_prefix("sure")
        posted = set(self.data.getlist(name) if hasattr(self.data, "getlist") else [])
        asked = [p for p in unsure if self.sure_token(p, pips[p.pk]) not in posted]
        if not asked:
            return
        self.fields["sure"] = forms.MultipleChoiceField(
            label=_("Are you sure?"),
            widget=forms.CheckboxSelectMultiple,
            choices=[
                (self.sure_token(p, pips[p.pk]), YES_FOR % {"value": pips[p.pk], "name": p.name})
                for p in unsure
            ],
            required=False,
        )
        for p in asked:
            text = question(self.plausible, p.name, pips[p.pk])
            self.questions.append(
                {
                    "cell": self.key(p),
                    "value": pips[p.pk],
                    "text": text,
                    "typos": typos(pips[p.pk], self.plausible.typical),
                    "yes": YES % {"value": pips[p.pk]},
                }
            )
            self.add_error("sure", text)

    def plausible_config(self) -> dict | None:
        """What entry.js needs to ask the same question before sending (None: it asks
        nothing, the server does if it knows more by then)."""
        if self.plausible is None:
            return None
        return {
            "rare": self.plausible.rare,
            "typical": self.plausible.typical,
            "question": QUESTION
            % {"name": "{name}", "value": "{value}", "typical": "{typical}", "typos": "{typos}"},
            "question_no_typo": QUESTION_NO_TYPO
            % {"name": "{name}", "value": "{value}", "typical": "{typical}"},
            "or": OR % {"some": "{some}", "last": "{last}"},
            "yes": YES % {"value": "{value}"},
            "sure": str(SURE),
        }

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
