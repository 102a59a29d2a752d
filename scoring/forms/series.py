"""A series' forms (issue 31 item 1): its name, short name and rule; adding one of the
director's events to it."""

from __future__ import annotations

import re

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Submit
from django import forms
from django.utils.formats import number_format
from django.utils.translation import gettext_lazy as _

from scoring.models import Series
from tournament.forms import OnceMixin
from tournament.game.awards import MEDALS
from tournament.game.series import MOST_POINTS
from tournament.models import Event

MOST_PLACES = 200  # a points table longer than any division
MOST_EVENTS = 1000
DIGITS = re.compile(r"[0-9]+")  # ASCII digits only: not "٣", "１２", "2⁶³", "+5" or "1_0"


def whole_numbers(text: str, what: str, most: int) -> list[int]:
    """Numbers typed as "10, 8, 6": ASCII digits separated by commas, each from 0 to
    ``most``; anything else is refused naming what is wrong, as the pips are (issue 46)."""
    numbers = []
    for item in (t.strip() for t in text.split(",")):
        if not item:
            continue
        if item.startswith("-") and DIGITS.fullmatch(item[1:]):
            raise forms.ValidationError(_("%(what)s cannot be negative.") % {"what": what})
        if not DIGITS.fullmatch(item):
            raise forms.ValidationError(
                _(
                    "%(what)s must be whole numbers separated by commas: “%(item)s” is not "
                    "one (type digits 0 to 9, a comma between numbers)."
                )
                % {"what": what, "item": item[:20]}
            )
        if len(item) > len(str(most)) or int(item) > most:
            raise forms.ValidationError(
                _("%(what)s: %(item)s is more than %(most)s.")
                % {
                    "what": what,
                    "item": item[:20] + ("…" if len(item) > 20 else ""),
                    "most": number_format(most, force_grouping=True),
                }
            )
        numbers.append(int(item))
    return numbers


class WholeNumberField(forms.IntegerField):
    """A whole number of ASCII digits (``int`` would read "٣" as 3)."""

    def to_python(self, value):
        raw = "" if value in self.empty_values else str(value).strip()
        if raw and not DIGITS.fullmatch(raw.removeprefix("-")):
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        return super().to_python(raw or value)


def _shown(numbers) -> str:
    return ", ".join(str(n) for n in numbers or ())


class SeriesForm(OnceMixin, forms.ModelForm):
    """A series' settings. The points table and medal bonus are typed as "10, 8, 6, 5"."""

    points = forms.CharField(
        label=_("Points by place"),
        required=False,
        help_text=_(
            "Points for 1st, 2nd, 3rd, ... place in a division at each event, e.g. "
            "10, 8, 6, 5, 4, 3, 2, 1; a place beyond the list scores 0."
        ),
    )
    medal_bonus = forms.CharField(
        label=_("Medal bonus"),
        required=False,
        help_text=_("Points added for gold, silver and bronze, e.g. 3, 2, 1; empty for none."),
    )
    best_of = WholeNumberField(
        label=_("Best events counted"),
        required=False,
        help_text=_("Count each player's best N events; leave empty to count every event."),
        widget=forms.NumberInput(attrs={"min": 1}),
    )

    class Meta:
        model = Series
        fields = ["name", "slug", "scoring", "points", "medal_bonus", "best_of", "tie_break"]
        widgets = {"scoring": forms.RadioSelect, "tie_break": forms.RadioSelect}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if not self.is_bound:
            self.initial["points"] = _shown(self.instance.points)
            self.initial["medal_bonus"] = _shown(self.instance.medal_bonus)
        self.helper = FormHelper()
        self.helper.render_hidden_fields = True
        self.helper.add_input(Submit("save", _("Save series")))

    def _numbers(self, name: str, what: str) -> list[int]:
        return whole_numbers(self.cleaned_data.get(name) or "", what, MOST_POINTS)

    def clean_points(self) -> list[int]:
        points = self._numbers("points", _("Points by place"))
        if not points:
            raise forms.ValidationError(
                _("Give the points of each place, e.g. 10, 8, 6, 5, 4, 3, 2, 1.")
            )
        if len(points) > MOST_PLACES:
            raise forms.ValidationError(
                _("Give the points of %(most)s places at most.") % {"most": MOST_PLACES}
            )
        return points

    def clean_medal_bonus(self) -> list[int]:
        bonus = self._numbers("medal_bonus", _("The medal bonus"))
        if len(bonus) > len(MEDALS):
            raise forms.ValidationError(
                _("The medal bonus is three numbers at most: gold, silver, bronze.")
            )
        return bonus + [0] * (len(MEDALS) - len(bonus))

    def clean_best_of(self) -> int | None:
        best_of = self.cleaned_data.get("best_of")
        if best_of is not None and not 1 <= best_of <= MOST_EVENTS:
            raise forms.ValidationError(
                _("Count from 1 to 1000 events, or leave it empty to count every event.")
            )
        return best_of


class AddEventForm(forms.Form):
    """One of the events the director directs (a superuser: any event)."""

    event = forms.ModelChoiceField(
        queryset=Event.objects.none(),
        label=_("Event"),
        error_messages={"invalid_choice": _("Choose one of the events you direct.")},
    )

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        events = Event.objects.all() if user.is_superuser else user.events.all()
        self.fields["event"].queryset = events.select_related("series_entry__series").order_by(
            "-date", "name"
        )
        self.fields["event"].label_from_instance = _event_label
        self.helper = FormHelper()
        self.helper.form_class = "row g-2 align-items-end"
        self.helper.add_input(Submit("add", _("Add to the series")))


def _event_label(event: Event) -> str:
    entry = getattr(event, "series_entry", None)
    label = f"{event.name} ({event.date})"
    if entry is not None:
        label += " · " + str(_("in %(series)s") % {"series": entry.series.name})
    return label
