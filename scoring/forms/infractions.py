"""The forms of the infraction pages: log one, change one, filter the director's log."""

from django import forms
from django.utils.translation import gettext_lazy as _

from scoring.models import InfractionAction, InfractionKind
from scoring.services.infractions import NOTE_MAX, REASON_MAX, current_engine, engines_reached
from tournament.forms import OnceMixin

# Radio buttons drawn as big buttons (Bootstrap's btn-check): one tap each.
BUTTON = {"class": "btn-check", "autocomplete": "off"}


class InfractionForm(OnceMixin, forms.Form):
    """Player, round, kind and a note: a few taps at the table (PRODUCT.md §8)."""

    player = forms.TypedChoiceField(
        label=_("Player"),
        coerce=int,
        widget=forms.RadioSelect(attrs=BUTTON),
        error_messages={"required": _("Choose the player.")},
    )
    kind = forms.ChoiceField(
        label=_("Infraction"),
        choices=InfractionKind.choices,
        widget=forms.RadioSelect(attrs=BUTTON),
        error_messages={"required": _("Choose the kind of infraction.")},
    )
    engine = forms.TypedChoiceField(label=_("Round"), coerce=int)
    note = forms.CharField(label=_("Note"), max_length=NOTE_MAX, required=False)

    def __init__(self, *args, sheet, **kwargs):
        super().__init__(*args, **kwargs)
        self.players = {p.pk: p for p in sheet.players}
        self.fields["player"].choices = [(p.pk, p.name) for p in sheet.players]
        self.fields["engine"].choices = [(e, f"{e}-{e}") for e in engines_reached(sheet)]
        self.fields["engine"].initial = current_engine(sheet)

    def clean_player(self):
        return self.players[self.cleaned_data["player"]]


class ChangeInfractionForm(forms.Form):
    """A director voids an infraction or gives it another action, with a reason."""

    action = forms.ChoiceField(
        label=_("Action"), choices=InfractionAction.choices, widget=forms.RadioSelect
    )
    reason = forms.CharField(
        label=_("Reason for the change"),
        max_length=REASON_MAX,
        error_messages={"required": _("Give the reason for the change.")},
    )


class InfractionFilterForm(forms.Form):
    """The director's log, narrowed by stage, table, player or kind (GET parameters)."""

    stage = forms.TypedChoiceField(label=_("Stage"), coerce=int, required=False)
    table = forms.TypedChoiceField(label=_("Table"), coerce=int, required=False)
    player = forms.TypedChoiceField(label=_("Player"), coerce=int, required=False)
    kind = forms.ChoiceField(
        label=_("Kind"), choices=[("", _("Every kind")), *InfractionKind.choices], required=False
    )

    def __init__(self, *args, stages, tables, players, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["stage"].choices = [("", _("Every stage"))] + [
            (s.number, s.title) for s in stages
        ]
        self.fields["table"].choices = [("", _("Every table"))] + [
            (t.pk, _("%(stage)s, table %(n)s") % {"stage": t.stage.title, "n": t.number})
            for t in tables
        ]
        self.fields["player"].choices = [("", _("Every player"))] + [
            (p.pk, p.name) for p in players
        ]

    def filters(self) -> dict:
        """The query filters of the valid, non-empty choices; a bad one is ignored."""
        self.is_valid()
        data = getattr(self, "cleaned_data", {})
        lookups = {
            "stage": "table__stage__number",
            "table": "table_id",
            "player": "player_id",
            "kind": "kind",
        }
        return {
            lookup: data[name]
            for name, lookup in lookups.items()
            if data.get(name) not in (None, "")
        }
