"""The names the site gives stages (issue 28 item 17): stored as the parts they are made of
(``Stage.auto_name``) and said in the reader's language when shown; a name a director typed is
shown as typed.

The parts: ``{"kind": "game", "n": 1}``, ``{"kind": "final"}`` (a division's Final adds the
stage's division), ``{"kind": "semifinal", "n": 2}`` (``n`` absent for the first),
``{"kind": "playoff", "medals": ["silver", "bronze"], "replay": 1}`` (a tie at a table or at
the wildcards' cut names the stage it settles: ``Stage.playoff_table``, ``Stage.wildcards_of``).
"""

from __future__ import annotations

import re

from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import override, pgettext_lazy

# What a playoff settles, as its name says it.
AT_STAKE = {
    "gold": pgettext_lazy("a playoff for", "gold"),
    "silver": pgettext_lazy("a playoff for", "silver"),
    "bronze": pgettext_lazy("a playoff for", "bronze"),
}


def say(parts: dict, stage=None) -> str:
    """The name made of ``parts`` in the active language; ``stage`` gives the division and the
    stage a table's or the wildcards' playoff settles."""
    kind = parts.get("kind")
    division = getattr(stage, "division", "") if stage is not None else ""
    if kind == "game":
        return _("Game %(n)s") % {"n": parts.get("n", 1)}
    if kind == "final":
        return _("Final (%(division)s)") % {"division": division} if division else _("Final")
    if kind == "semifinal":
        n = parts.get("n")
        return _("Semifinal %(n)s") % {"n": n} if n else _("Semifinal")
    if kind != "playoff":
        return ""
    table = getattr(stage, "playoff_table", None) if stage is not None else None
    of = getattr(stage, "wildcards_of", None) if stage is not None else None
    if table is not None:
        name = _("Playoff: %(stage)s, table %(n)s") % {
            "stage": table.stage.title,
            "n": table.number,
        }
    elif of is not None and parts.get("cut"):
        name = _("Playoff for the Final's last places")
    elif of is not None:
        name = _("Wildcard playoff: %(stage)s") % {"stage": of.title}
    elif parts.get("medals"):
        medals = _(" and ").join(str(AT_STAKE.get(m, m)) for m in parts.get("medals", []))
        name = capfirst(_("%(medals)s playoff") % {"medals": medals})
    else:
        return ""
    if division:
        name += f" ({division})"
    if parts.get("replay"):
        name += _(", replay %(n)s") % {"n": parts["replay"]}
    return name


def in_english(parts: dict, stage=None) -> str:
    """The stored name of a site-made stage (the event file and the history keep it)."""
    with override("en"):
        return say(parts, stage)


_MEDALS = {"gold": "gold", "silver": "silver", "bronze": "bronze"}
_FR_MEDALS = {"l'or": "gold", "l'argent": "silver", "le bronze": "bronze"}


def _without(name: str, division: str) -> str:
    suffix = f" ({division})"
    return name[: -len(suffix)] if division and name.endswith(suffix) else name


def recognise(name: str, kind: str, division: str = "") -> dict:
    """The parts of a stored name when the site made it (in English, or in French by a French
    director before the site kept the parts), else {} (a name a director typed)."""
    name = name.strip()
    bare = _without(name, division)
    if kind == "qualifying":
        m = re.fullmatch(r"(?:Game|Partie) (\d+)", name)
        return {"kind": "game", "n": int(m[1])} if m else {}
    if kind == "final":
        return {"kind": "final"} if bare in ("Final", "Finale") else {}
    if kind == "semifinal":
        m = re.fullmatch(r"(?:Semifinal|Demi-finale)(?: (\d+))?", name)
        if not m:
            return {}
        return {"kind": "semifinal", **({"n": int(m[1])} if m[1] else {})}
    if kind != "playoff":
        return {}
    replay = 0
    m = re.fullmatch(r"(.*), (?:replay|reprise) (\d+)", name)
    if m:
        name, replay = m[1], int(m[2])
        bare = _without(name, division)
    parts: dict = {"kind": "playoff"}
    if replay:
        parts["replay"] = replay
    if bare in (
        "Playoff for the Final's last places",
        "Barrage pour les dernières places de la finale",
    ):
        return {**parts, "cut": True}
    if re.fullmatch(r"(?:Playoff|Barrage) ?: .*, table \d+", bare) or re.fullmatch(
        r"(?:Wildcard playoff|Barrage de repêchage) ?: .*", bare
    ):
        return parts
    m = re.fullmatch(r"(.+) playoff", bare)
    words, known = (m[1].lower().split(" and "), _MEDALS) if m else ([], {})
    if not m:
        m = re.fullmatch(r"[Bb]arrage pour (.+)", bare)
        words, known = (m[1].split(" et "), _FR_MEDALS) if m else ([], {})
    if m and words and all(w in known for w in words):
        return {**parts, "medals": [known[w] for w in words]}
    return {}
