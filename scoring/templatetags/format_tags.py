"""Which rule placed everyone in a stage of a cumulative event (issue 30): Game 1 a random
balanced draw, a later game the event's reseating rule, the Final the cut; and the players a
director moved since. A tag, so the seating page (tournament/) says it without its view
computing it."""

from django import template
from django.utils.translation import gettext as _

from scoring.results import game_stages
from tournament.game import formats
from tournament.models import Action, StageKind
from tournament.text import translated

register = template.Library()


@register.simple_tag
def seating_rule(event, stage, stages=None):
    """{"text", "later" (a game after the first: drawn again by the rule), "moves"} for a
    stage of a cumulative event; None for a knockout. Two queries at most."""
    fmt = event.format
    if not fmt.is_cumulative:
        return None
    games = game_stages(fmt, stages if stages is not None else event.stages.all())
    at = next((i for i, g in enumerate(games) if g.pk == stage.pk), None)
    later = bool(at)
    if at == 0 and event.seed_by_rating:
        text = _(
            "%(s)s: a draw of the players checked in balanced by rating (a snake draft), "
            "divisions apart."
        )
    elif at == 0:
        text = _("%(s)s: a random balanced draw of the players checked in, divisions apart.")
    elif later:
        text = _("%(s)s: everyone still playing is reseated %(rule)s, divisions apart.")
    elif stage.kind == StageKind.FINAL:
        text = _("%(s)s: the lowest cumulative totals after the last game, at one table.")
    else:
        return None
    text %= {"s": stage.title, "rule": translated(formats.reseat_rule(fmt))}
    moves: list[str] = []
    seatings = Action.objects.filter(
        stage=stage, verb__in=("stage.seated", "stage.unseated", "stage.player_moved")
    ).order_by("pk")
    for verb, data in seatings.values_list("verb", "data"):
        if verb != "stage.player_moved":
            moves = []  # a new draw, or none: the moves before it are gone
        else:
            moves.append(
                _("%(p)s to table %(t)s") % {"p": data.get("player", ""), "t": data.get("table")}
            )
    return {"text": text, "later": later, "moves": moves}
