from crispy_forms.helper import FormHelper
from crispy_forms.layout import Fieldset, Layout, Submit
from django import forms
from django.utils.translation import gettext_lazy as _

from scoring.models import Round
from tournament.models import Event, Player, Table
from tournament.rules import RuleSet, default_engines


def parse_int_list(text: str, what: str) -> list[int]:
    items = [t.strip() for t in text.replace(";", ",").split(",") if t.strip()]
    try:
        return [int(t) for t in items]
    except ValueError:
        raise forms.ValidationError(
            _("%(what)s must be whole numbers separated by commas.") % {"what": what}
        ) from None


class EventForm(forms.ModelForm):
    engines = forms.CharField(
        label=_("Engines in play order"),
        required=False,
        help_text=_(
            "Comma-separated doubles, e.g. 12, 11, …, 0. Leave empty for the highest "
            "double down to 0-0."
        ),
    )
    tiles_drawn = forms.CharField(
        label=_("Tiles drawn by table size"),
        help_text=_(
            "size:tiles pairs, e.g. 2:15, 3:15, 4:15, 5:15 (NVSO). A table is seated "
            "only at a size listed here."
        ),
    )

    class Meta:
        model = Event
        fields = [
            "name",
            "date",
            "venue",
            "set_size",
            "engines",
            "tiles_drawn",
            "table_size",
            "game_minutes",
            "round_in_progress",
            "double_blank_points",
            "advancement_tie",
            "medal_tie",
            "infraction_penalty",
            "paper_size",
        ]
        widgets = {"date": forms.DateInput(attrs={"type": "date"})}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        event = self.instance
        self.initial["engines"] = ", ".join(map(str, event.engines))
        self.initial["tiles_drawn"] = ", ".join(
            f"{size}:{drawn}"
            for size, drawn in sorted(event.tiles_drawn.items(), key=lambda kv: int(kv[0]))
        )
        self.helper = FormHelper()
        self.helper.layout = Layout(
            Fieldset(_("Event"), "name", "date", "venue"),
            Fieldset(
                _("Rule set"),
                "set_size",
                "engines",
                "tiles_drawn",
                "table_size",
                "game_minutes",
                "round_in_progress",
                "double_blank_points",
            ),
            Fieldset(
                _("Ties and penalties"),
                "advancement_tie",
                "medal_tie",
                "infraction_penalty",
                "paper_size",
            ),
        )
        self.helper.add_input(Submit("save", _("Save event")))

    def clean_engines(self):
        return parse_int_list(self.cleaned_data["engines"], _("Engines"))

    def clean_tiles_drawn(self):
        pairs = {}
        for item in self.cleaned_data["tiles_drawn"].replace(";", ",").split(","):
            if not item.strip():
                continue
            size, sep, drawn = item.partition(":")
            try:
                pairs[int(size)] = int(drawn)
            except ValueError:
                raise forms.ValidationError(
                    _("Write each entry as size:tiles, e.g. 4:15 (not %(item)r).")
                    % {"item": item.strip()}
                ) from None
        if not pairs:
            raise forms.ValidationError(_("Give the tiles drawn for at least one table size."))
        return pairs

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        engines = data["engines"] or list(default_engines(data["set_size"]))
        rules = RuleSet(
            set=data["set_size"],
            engines=tuple(engines),
            tiles_drawn=data["tiles_drawn"],
            table_size=data["table_size"],
            game_minutes=data.get("game_minutes"),
            double_blank_points=data["double_blank_points"],
        )
        problems = rules.problems()
        if problems:
            raise forms.ValidationError(
                [
                    _("This rule set cannot be dealt or played: %(why)s") % {"why": p}
                    for p in problems
                ]
            )
        data["engines"] = engines
        data["tiles_drawn"] = {str(k): v for k, v in sorted(data["tiles_drawn"].items())}
        self.check_rules_in_play(data)
        return data

    # Rules that the entered rounds depend on: their bounds, engines and deals.
    LOCKED_IN_PLAY = {
        "set_size": _("domino set"),
        "engines": _("engines"),
        "tiles_drawn": _("tiles drawn"),
        "double_blank_points": _("double-blank points"),
    }

    def check_rules_in_play(self, data):
        """Once a round has been entered, the rules its scores were checked against stay."""
        event = self.instance
        if event.pk is None or not Round.objects.filter(table__stage__event=event).exists():
            return
        changed = [
            str(label)
            for name, label in self.LOCKED_IN_PLAY.items()
            if data[name] != getattr(event, name)
        ]
        if changed:
            raise forms.ValidationError(
                _("Rounds have been entered under these rules: the %(what)s cannot change now.")
                % {"what": ", ".join(changed)}
            )


class PlayerForm(forms.ModelForm):
    class Meta:
        model = Player
        fields = ["name", "ref", "club", "division", "checked_in"]

    def __init__(self, *args, event, **kwargs):
        super().__init__(*args, **kwargs)
        self.event = event
        self.helper = FormHelper()
        self.helper.form_class = "row g-2 align-items-end"
        self.helper.add_input(Submit("add", _("Add player")))

    def clean_ref(self):
        ref = self.cleaned_data["ref"].strip()
        if ref and self.event.players.filter(ref=ref).exclude(pk=self.instance.pk).exists():
            raise forms.ValidationError(
                _("Another player of this event has id %(ref)s.") % {"ref": ref}
            )
        return ref


class CsvImportForm(forms.Form):
    file = forms.FileField(
        label=_("CSV file"),
        help_text=_("A header line with name (required) and id, club, division (optional)."),
    )

    def clean_file(self):
        f = self.cleaned_data["file"]
        if f.size > 2_000_000:
            raise forms.ValidationError(_("The file is larger than 2 MB."))
        try:
            return f.read().decode("utf-8-sig")
        except UnicodeDecodeError:
            raise forms.ValidationError(
                _("The file is not UTF-8 text (save it as CSV UTF-8).")
            ) from None


class MovePlayerForm(forms.Form):
    player = forms.ModelChoiceField(queryset=Player.objects.none(), label=_("Player"))
    table = forms.ModelChoiceField(queryset=Table.objects.none(), label=_("To table"))

    def __init__(self, *args, stage, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["player"].queryset = Player.objects.filter(seats__stage=stage)
        self.fields["table"].queryset = Table.objects.for_stage(stage)
        self.fields["table"].label_from_instance = lambda t: _("Table %(n)s") % {"n": t.number}


class ScorekeeperForm(forms.Form):
    """Give a scorekeeper tables of an open stage; a new username gets a login."""

    username = forms.CharField(label=_("Scorekeeper's username"), max_length=150)
    tables = forms.ModelMultipleChoiceField(
        queryset=Table.objects.none(), label=_("Tables"), widget=forms.CheckboxSelectMultiple
    )

    def __init__(self, *args, event, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["tables"].queryset = (
            Table.objects.filter(stage__event=event, stage__closed=False)
            .select_related("stage")
            .order_by("stage__number", "number")
        )
        self.fields["tables"].label_from_instance = lambda t: f"{t.stage.name} · {t.number}"

    def clean_username(self):
        from django.contrib.auth.validators import UnicodeUsernameValidator

        username = self.cleaned_data["username"].strip()
        UnicodeUsernameValidator()(username)
        return username
