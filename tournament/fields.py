"""Model fields for names people type (players, clubs, divisions, events, stages)."""

from django import forms
from django.db import models

from tournament.text import name_key, without_bidi_controls


class NameFormField(forms.CharField):
    def to_python(self, value):
        return without_bidi_controls(super().to_python(value))


class NameField(models.CharField):
    """A name as typed, without bidirectional embedding, override and isolate characters.

    Names reach the site from forms, CSV files and event files, and are shown on pages, PDFs,
    exports and in form choices; the field is the one place all of those pass, so it removes
    the characters on every save (``bulk_create`` included), in every form and lookup
    (``CharField.get_prep_value`` goes through ``to_python``). Stored
    names are then safe wherever they are shown, and a name that differs only by them is the
    same name (an id stays unique).

    The column is a plain ``CharField``'s: ``deconstruct`` says so, and migrations need none.
    """

    def deconstruct(self):
        name, _path, args, kwargs = super().deconstruct()
        return name, "django.db.models.CharField", args, kwargs

    def to_python(self, value):
        value = super().to_python(value)
        return value if value is None else without_bidi_controls(value)

    def pre_save(self, model_instance, add):
        value = self.to_python(super().pre_save(model_instance, add))
        setattr(model_instance, self.attname, value)
        return value

    def formfield(self, **kwargs):
        return super().formfield(**{"form_class": NameFormField, **kwargs})


class SearchKeyField(models.CharField):
    """The name key of another field of the row (``tournament.text.name_key``), set on every
    save, ``bulk_create`` included: searches and A-to-Z lists compare keys, on SQLite and
    PostgreSQL."""

    def __init__(self, *args, source: str = "name", **kwargs):
        self.source = source
        kwargs.setdefault("editable", False)
        kwargs.setdefault("db_index", True)
        super().__init__(*args, **kwargs)

    def deconstruct(self):
        name, _path, args, kwargs = super().deconstruct()
        kwargs.pop("editable", None)
        kwargs["editable"] = False
        return name, "django.db.models.CharField", args, kwargs

    def pre_save(self, model_instance, add):
        value = name_key(getattr(model_instance, self.source) or "")[: self.max_length]
        setattr(model_instance, self.attname, value)
        return value
