import datetime
import re
import secrets
import zoneinfo

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Div, Fieldset, Layout, Submit
from django import forms
from django.conf import settings
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext_lazy as _

from tournament.fields import NameFormField
from tournament.game.finals import BIG_FINAL, FinalsOptions
from tournament.game.rules import RuleSet, default_engines
from tournament.models import (
    FORMAT_FIELDS,
    RULE_FIELDS,
    Event,
    Player,
    Table,
    event_format,
    rule_set,
    time_zone_names,
)
from tournament.registration import (
    ReadError,
    age_on,
    bracket_for,
    parse_brackets,
    paste_sheet,
    read_list,
)
from tournament.text import translated

ONCE_KEY = re.compile(r"[A-Za-z0-9_-]{16,64}")


def new_key() -> str:
    """A form's key, made when its page is drawn (tournament.history.claim)."""
    return secrets.token_urlsafe(18)


class OnceMixin:
    """A form that writes carries a key made when its page was drawn, sent back as ``once``,
    so that a repeat of the same post (double click, retry, resent form) writes once.

    A bound form keeps the key it was posted with; a malformed key counts as none.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["once"] = forms.CharField(
            widget=forms.HiddenInput, required=False, initial=new_key()
        )

    def clean_once(self) -> str:
        key = self.cleaned_data.get("once") or ""
        return key if ONCE_KEY.fullmatch(key) else ""


def parse_int_list(text: str, what: str) -> list[int]:
    items = [t.strip() for t in text.replace(";", ",").split(",") if t.strip()]
    try:
        return [int(t) for t in items]
    except ValueError:
        raise forms.ValidationError(
            _("%(what)s must be whole numbers separated by commas.") % {"what": what}
        ) from None


# The event's sign-up settings (issue 49), on its form under their own heading.
SIGNUP_FIELDS = ["signup_open", "signup_closes", "signup_capacity", "signup_approval"]


def in_zone(when: datetime.datetime, zone_name: str | None) -> datetime.datetime:
    """A date and time typed in the form (read in the page's zone) as meant: in the zone the
    form gives the event (a new event's, or one just changed)."""
    zone = zoneinfo.ZoneInfo(zone_name or settings.TIME_ZONE)
    typed = timezone.make_naive(when, timezone.get_current_timezone())
    return timezone.make_aware(typed, zone)


# Qualifiers for the next level (issue 50 item 4, PRODUCT.md §15).
QUALIFIER_FIELDS = ("qualifying_places", "next_level", "qualifier_tie")


class EventForm(OnceMixin, forms.ModelForm):
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
            *RULE_FIELDS.values(),
            "late_arrivals",
            "age_brackets",
            "age_on",
            "paper_size",
            "table_entry",
            "time_zone",
            *FORMAT_FIELDS.values(),
            "seed_by_rating",
            "finals_top_n",
            "finals_fill_to",
            "finals_big_final",
            "sheet_language",
            *SIGNUP_FIELDS,
            *QUALIFIER_FIELDS,
            "results_held",
        ]
        # A date picker takes ISO dates whatever the page's language (French shows 22/11/2026).
        widgets = {
            "date": forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
            "signup_closes": forms.DateTimeInput(
                attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"
            ),
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        event = self.instance
        self.initial["engines"] = ", ".join(map(str, event.engines))
        self.initial["tiles_drawn"] = ", ".join(
            f"{size}:{drawn}"
            for size, drawn in sorted(event.tiles_drawn.items(), key=lambda kv: int(kv[0]))
        )
        site_zone = _("The site's zone (%(zone)s)") % {"zone": settings.TIME_ZONE}
        self.fields["time_zone"].widget = forms.Select(
            choices=[("", site_zone), *((z, z) for z in time_zone_names())]
        )
        for name in self.DEFAULT_WHEN_MISSING:  # older forms do not send them: the defaults
            self.fields[name].required = False
        self.helper = FormHelper()
        rules = list(RULE_FIELDS.values())  # the rules of play, then (in RuleSet's order) ties
        ties = rules.index("advancement_tie")
        self.helper.layout = Layout(
            Fieldset(_("Event"), "name", "date", "venue"),
            Fieldset(_("Rule set"), *rules[:ties]),
            Fieldset(
                _("Ties and penalties"),
                *rules[ties:],
                "late_arrivals",
                "paper_size",
                "sheet_language",
            ),
            Fieldset(_("Table entry"), "table_entry"),
            Fieldset(_("Time"), "time_zone"),
            Fieldset(_("Format"), *FORMAT_FIELDS.values(), "seed_by_rating"),
            Fieldset(
                _("The road to the Final"), "finals_top_n", "finals_fill_to", "finals_big_final"
            ),
            Fieldset(_("Divisions by age (for imported lists)"), "age_brackets", "age_on"),
            Fieldset(_("Sign-up on the event's page"), *SIGNUP_FIELDS),
            Fieldset(_("Qualifiers for the next level"), *QUALIFIER_FIELDS),
            Fieldset(_("Publishing"), "results_held"),
        )
        self.helper.render_hidden_fields = True
        self.helper.add_input(Submit("save", _("Save event")))

    # Settings a form made before them does not send (a page open since, a script): their
    # defaults, never an error.
    DEFAULT_WHEN_MISSING = (
        "age_on",
        "sets",
        "format_kind",
        "format_games",
        "format_reseat",
        "format_move",
        "format_medals_from",
        *QUALIFIER_FIELDS,
    )

    def clean_age_brackets(self):
        text = self.cleaned_data["age_brackets"].strip()
        try:
            parse_brackets(text)
        except ValueError as error:
            raise forms.ValidationError(str(error)) from None
        return text

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
        for name in self.DEFAULT_WHEN_MISSING:
            if name not in self.errors and data.get(name) in (None, ""):
                data[name] = Event._meta.get_field(name).get_default()
        if self.errors:
            return data
        engines = data["engines"] or list(default_engines(data["set_size"]))
        rules = rule_set({**data, "engines": engines})
        problems = rules.problems()
        if problems:
            raise forms.ValidationError(
                [
                    _("This rule set cannot be dealt or played: %(why)s") % {"why": translated(p)}
                    for p in problems
                ]
            )
        data["engines"] = engines
        self.check_finals(data, rules)
        self.check_format(data, rules)
        data["tiles_drawn"] = {str(k): v for k, v in sorted(data["tiles_drawn"].items())}
        self.check_rules_in_play(data)
        if data.get("signup_closes"):
            data["signup_closes"] = in_zone(data["signup_closes"], data.get("time_zone"))
        return data

    def check_finals(self, data, rules: RuleSet) -> None:
        """The finals options must fit the rule set (issue 12); a top 0 (only the best overall,
        issue 30) needs the wildcards that fill the next stage."""
        options = FinalsOptions(top_n=data.get("finals_top_n"), fill_to=data.get("finals_fill_to"))
        for option, why in options.problems():
            self.add_error(f"finals_{option}", translated(why))
        if data.get("finals_big_final") and max(rules.dealable_sizes, default=0) < BIG_FINAL:
            self.add_error(
                "finals_big_final",
                _(
                    "List the tiles drawn at 6 or more players (e.g. 6:12) to seat a Final of "
                    "6 or more at one table."
                ),
            )

    def check_format(self, data, rules: RuleSet) -> None:
        """The format must fit the rule set and the field (issue 30)."""
        fmt = event_format(data)
        event = self.instance
        players = event.players.registered().count() if event.pk else None
        planned = (event.format_kind, event.format_games)
        if (
            event.pk
            and (data.get("format_kind"), data.get("format_games")) != planned
            and Table.objects.filter(stage__event=event).exists()
        ):
            self.add_error(
                None,
                _(
                    "Players are seated: the format and the number of games stay as they are. "
                    "Clear the seating to change them."
                ),
            )
        for problem in fmt.problems(rules, players or None):
            self.add_error(
                None, _("This format cannot be played: %(why)s") % {"why": translated(problem)}
            )

    # Rules that the entered rounds depend on: their bounds, engines and deals.
    LOCKED_IN_PLAY = {
        "set_size": _("domino set"),
        "sets": _("sets mixed together"),
        "format_kind": _("format"),
        "format_games": _("games everyone plays"),
        "engines": _("engines"),
        "tiles_drawn": _("tiles drawn"),
        "double_blank_points": _("double-blank points"),
    }

    def check_rules_in_play(self, data):
        """Once a round has been entered, the rules its scores were checked against stay."""
        event = self.instance
        if event.pk is None or not event.has_rounds():
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


class DeleteEventForm(OnceMixin, forms.Form):
    """Deleting an event is typed, not clicked: its short name, as in its links."""

    slug = forms.CharField(label=_("Type the event's short name to confirm"), max_length=80)

    def __init__(self, *args, event, **kwargs):
        super().__init__(*args, **kwargs)
        self.event = event

    def clean_slug(self):
        slug = self.cleaned_data["slug"].strip()
        if slug != self.event.slug:
            raise forms.ValidationError(
                _("That is not this event's short name (%(slug)s): nothing was deleted.")
                % {"slug": self.event.slug}
            )
        return slug


def clean_birth(birth):
    """A player's birth date, when given: not in the future, from 1900 on."""
    if birth is None:
        return None
    if birth > timezone.localdate():
        raise forms.ValidationError(_("A birth date cannot be in the future."))
    if birth.year < 1900:
        raise forms.ValidationError(_("Give a birth date from 1900 on."))
    return birth


class PlayerForm(OnceMixin, forms.ModelForm):
    class Meta:
        model = Player
        fields = [
            "name",
            "ref",
            "club",
            "division",
            "keep_apart",
            "birth_date",
            "out_of_district",
            "checked_in",
        ]
        widgets = {"birth_date": forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")}

    def __init__(self, *args, event, **kwargs):
        super().__init__(*args, **kwargs)
        self.event = event
        self.helper = FormHelper()
        self.helper.form_class = "row g-2 align-items-end"
        self.helper.add_input(Submit("add", _("Add player")))

    def clean_birth_date(self):
        return clean_birth(self.cleaned_data.get("birth_date"))

    def clean_ref(self):
        ref = self.cleaned_data["ref"].strip()
        if ref and self.event.players.filter(ref=ref).exclude(pk=self.instance.pk).exists():
            raise forms.ValidationError(
                _("Another player of this event has id %(ref)s.") % {"ref": ref}
            )
        return ref


class WalkOnForm(OnceMixin, forms.ModelForm):
    """A walk-on added at the check-in desk, checked in (issue 49 item 2): to play, or as
    standby, who plays only if a place is free at the draw (after the draw, either joins a
    table by the late-arrival rule)."""

    PLAY, STANDBY = "play", "standby"
    entry = forms.ChoiceField(
        label=_("Plays"),
        choices=[
            (PLAY, _("Now: registered")),
            (STANDBY, _("As standby: if a place is free at the draw")),
        ],
        widget=forms.RadioSelect,
        initial=PLAY,
    )

    class Meta:
        model = Player
        fields = ["name", "club", "division"]

    def __init__(self, *args, event, **kwargs):
        super().__init__(*args, **kwargs)
        self.event = event
        for name in ("name", "club", "division"):
            self.fields[name].widget.attrs["autocomplete"] = "off"

    def clean(self):
        data = super().clean()
        name, club = data.get("name"), data.get("club", "")
        if name and self.event.players.named(name, club):
            self.add_error(
                "name",
                _("%(name)s is already on this event's list: find them with the search.")
                % {"name": name},
            )
        return data


class PlayerEditForm(OnceMixin, forms.ModelForm):
    """A player's name, id, club and division, changed at any time (the desk's fixes)."""

    class Meta:
        model = Player
        fields = ["name", "ref", "club", "division", "keep_apart", "birth_date", "out_of_district"]
        widgets = {"birth_date": forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = FormHelper()
        self.helper.render_hidden_fields = True
        self.helper.form_tag = False

    def clean_birth_date(self):
        return clean_birth(self.cleaned_data.get("birth_date"))

    def clean_ref(self):
        ref = self.cleaned_data["ref"].strip()
        others = self.instance.event.players.exclude(pk=self.instance.pk)
        if ref and others.filter(ref=ref).exists():
            raise forms.ValidationError(
                _("Another player of this event has id %(ref)s.") % {"ref": ref}
            )
        return ref


class SignupForm(OnceMixin, forms.Form):
    """A registrant signs up on the event's page (issue 49). Every field is bounded; a birth
    date is asked only when the event's divisions go by age (it gives the division and is not
    kept); ``website``, hidden from people, is filled in only by robots."""

    name = NameFormField(label=_("Name"), max_length=120)
    club = NameFormField(label=_("Club"), max_length=120, required=False)
    birth_date = forms.DateField(
        label=_("Birth date"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
    )
    email = forms.EmailField(
        label=_("E-mail"),
        max_length=254,
        required=False,
        help_text=_(
            "Optional: your private link is sent there, and what becomes of your sign-up. It "
            "is used for nothing else."
        ),
    )
    website = forms.CharField(label=_("Leave this field empty"), max_length=200, required=False)

    def __init__(self, *args, event, **kwargs):
        super().__init__(*args, **kwargs)
        self.event = event
        try:
            self.brackets = parse_brackets(event.age_brackets)
        except ValueError:
            self.brackets = []
        if self.brackets:
            self.fields["birth_date"].help_text = _(
                "Optional: gives your division (ages on %(day)s: %(brackets)s)."
            ) % {
                "day": date_format(event.age_day),
                "brackets": ", ".join(b.label for b in self.brackets),
            }
        else:
            del self.fields["birth_date"]
        self.fields["name"].widget.attrs["autocomplete"] = "name"
        self.fields["email"].widget.attrs["autocomplete"] = "email"
        self.fields["website"].widget.attrs.update(autocomplete="off", tabindex="-1")
        self.helper = FormHelper()
        self.helper.form_tag = False  # the page's own <form>, with its token
        self.helper.disable_csrf = True
        self.helper.render_hidden_fields = True
        fields = ["name", "club", *(["birth_date"] if self.brackets else []), "email"]
        self.helper.layout = Layout(*fields, Div("website", css_class="signup-trap"))

    def clean_name(self):
        name = " ".join(self.cleaned_data["name"].split())
        if not name:
            raise forms.ValidationError(_("Give your name."))
        return name

    def clean_club(self):
        return " ".join(self.cleaned_data["club"].split())

    def clean_birth_date(self):
        birth = clean_birth(self.cleaned_data["birth_date"])
        if birth is None:
            return None
        age = age_on(birth, self.event.age_day)
        if bracket_for(age, self.brackets) is None:
            raise forms.ValidationError(
                _(
                    "On %(day)s you will be %(age)s: no division of this event takes that age "
                    "(%(brackets)s)."
                )
                % {
                    "day": date_format(self.event.age_day),
                    "age": age,
                    "brackets": ", ".join(b.label for b in self.brackets),
                }
            )
        return birth

    def clean(self):
        data = super().clean()
        if data.get("website"):
            raise forms.ValidationError(
                _(
                    "Not signed up: a field people do not see was filled in, as robots do. "
                    "Type the form in yourself."
                )
            )
        birth = data.get("birth_date")
        data["division"] = (
            bracket_for(age_on(birth, self.event.age_day), self.brackets) if birth else ""
        )
        return data


class SignupWithdrawForm(OnceMixin, forms.Form):
    """A registrant withdraws from their private link: a box to tick, then the button."""

    confirm = forms.BooleanField(
        label=_("Yes, I withdraw from this event"),
        error_messages={"required": _("Tick the box to confirm that you withdraw.")},
    )


class WithdrawForm(OnceMixin, forms.Form):
    reason = forms.CharField(
        label=_("Reason (kept in the history)"), max_length=300, required=False
    )


class DeletePlayerForm(OnceMixin, forms.Form):
    """Deleting a player registered by mistake: confirmed on its own page, once."""


class LateArrivalForm(OnceMixin, forms.Form):
    """Seat a player who was not drawn at a table of an open stage (a late arrival)."""

    table = forms.ModelChoiceField(queryset=Table.objects.none(), label=_("Table"))

    def __init__(self, *args, stage, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["table"].queryset = Table.objects.for_stage(stage)
        self.fields["table"].label_from_instance = lambda t: _("Table %(n)s") % {"n": t.number}


class CsvImportForm(OnceMixin, forms.Form):
    """A registration list, uploaded (CSV or .xlsx) or pasted: read, then previewed. A file
    over ``REGISTRATION_IN_REQUEST_BYTES`` is kept as ``large`` (its bytes), to be read in the
    background (tournament/services/players.py); any other as ``sheet``."""

    file = forms.FileField(
        label=_("List of players (CSV or Excel .xlsx)"),
        required=False,
        help_text=_(
            "Any registration export with a header line: the next page shows which column "
            "gives the name, id, club and division; other columns are ignored."
        ),
    )
    pasted = forms.CharField(
        label=_("Or paste names, one a line (optionally “name, club”)"),
        required=False,
        max_length=200_000,
        widget=forms.Textarea(attrs={"rows": 5}),
    )

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        if isinstance(data.get("file"), bytes):
            data["large"] = data["file"]
        elif data.get("file") is not None:
            data["sheet"] = data["file"]
        elif data.get("pasted", "").strip():
            try:
                data["sheet"] = paste_sheet(data["pasted"])
            except ReadError as error:
                raise forms.ValidationError(str(error)) from None
        else:
            raise forms.ValidationError(_("Choose a file or paste a list."))
        return data

    def clean_file(self):
        f = self.cleaned_data["file"]
        if f is None:
            return None
        if f.size > 2_000_000:
            raise forms.ValidationError(_("The file is larger than 2 MB."))
        data = f.read()
        if len(data) > settings.REGISTRATION_IN_REQUEST_BYTES:
            return data
        try:
            return read_list(data, f.name)
        except ReadError as error:
            raise forms.ValidationError(str(error)) from None


class MovePlayerForm(forms.Form):
    player = forms.ModelChoiceField(queryset=Player.objects.none(), label=_("Player"))
    table = forms.ModelChoiceField(queryset=Table.objects.none(), label=_("To table"))

    def __init__(self, *args, stage, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["player"].queryset = Player.objects.filter(seats__stage=stage)
        self.fields["table"].queryset = Table.objects.for_stage(stage)
        self.fields["table"].label_from_instance = lambda t: _("Table %(n)s") % {"n": t.number}


class RowsChoiceField(forms.ModelMultipleChoiceField):
    """Rows chosen by their ids, each id a whole number the database can hold: any other value
    (``99999999999999999999``, ``²``) is "not a valid value", never a query that overflows."""

    def _check_values(self, value):
        for pk in value:
            if not re.fullmatch(r"[0-9]{1,18}", str(pk)):
                raise forms.ValidationError(
                    self.error_messages["invalid_pk_value"],
                    code="invalid_pk_value",
                    params={"pk": pk},
                )
        return super()._check_values(value)


class ScorekeeperForm(forms.Form):
    """Give a scorekeeper tables of an open stage; a new username gets a login."""

    username = forms.CharField(label=_("Scorekeeper's username"), max_length=150)
    tables = RowsChoiceField(
        queryset=Table.objects.none(), label=_("Tables"), widget=forms.CheckboxSelectMultiple
    )

    def __init__(self, *args, event, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["tables"].queryset = (
            Table.objects.filter(stage__event=event, stage__closed=False)
            .select_related("stage")
            .order_by("stage__number", "number")
        )
        self.fields["tables"].label_from_instance = lambda t: f"{t.stage.title} · {t.number}"

    def clean_username(self):
        username = self.cleaned_data["username"].strip()
        UnicodeUsernameValidator()(username)
        return username
