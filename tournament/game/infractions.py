"""The infraction penalty rule as plain values: no Django here.

PRODUCT.md §8: "The action follows the event's penalty rule: the first infraction of a player
in a game is a warning (excused); each later one is a penalty draw of one tile; a director can
choose skip-a-turn or void an entry, with a reason."

PRODUCT.md §2, infraction penalty: "first infraction of a player in a game is excused
(warning); each later one is a penalty draw of one tile" (default); other values seen: "skip
the next turn (`000`); first not excused". The event also chooses whether the warning is
counted per game (the default) or per event (``SCOPES``): the caller passes the player's earlier
infractions of that game or of the whole event.

The event file (formats/event-file.md) names the rules ``event.rules.infraction_penalty``:
``"warn_then_draw"``, ``"draw"``, ``"warn_then_skip"`` or ``"skip"``, and the actions
``infractions[].action``: ``"warning"``, ``"penalty_draw"``, ``"skip_turn"`` or ``"void"``.

A voided entry (action ``"void"``, set by a director) is as if it had never been logged: it
does not count as a player's first infraction. A director's override of an earlier entry (say
skip-a-turn instead of a warning) still counts as an infraction, so it is never followed by a
warning.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tournament.game.message import Message

WARN_THEN_DRAW = "warn_then_draw"
DRAW = "draw"
WARN_THEN_SKIP = "warn_then_skip"
SKIP = "skip"

RULES = (WARN_THEN_DRAW, DRAW, WARN_THEN_SKIP, SKIP)
DEFAULT_RULE = WARN_THEN_DRAW

RULE_LABELS: dict[str, str] = {
    WARN_THEN_DRAW: "First infraction a warning, then draw one tile for each",
    DRAW: "Draw one tile for every infraction",
    WARN_THEN_SKIP: "First infraction a warning, then skip the next turn for each",
    SKIP: "Skip the next turn for every infraction",
}

# Whose earlier infractions make a new one a repeat: the player's in the same game (the
# default: "first infraction of a player in a game is excused"), or in the whole event.
PER_GAME = "game"
PER_EVENT = "event"
SCOPES = (PER_GAME, PER_EVENT)

WARNING = "warning"
PENALTY_DRAW = "penalty_draw"
SKIP_TURN = "skip_turn"
VOID = "void"

ACTIONS = (WARNING, PENALTY_DRAW, SKIP_TURN, VOID)

# What the scorekeeper applies at the table, read in the reader's language (Message).
ACTION_LABELS: dict[str, Message] = {
    WARNING: Message("Warning: no penalty this time"),
    PENALTY_DRAW: Message("Penalty: draw one tile"),
    SKIP_TURN: Message("Penalty: skip the next turn"),
    VOID: Message("Void: this entry does not count"),
}

# The action for a player's first counted infraction in a game, and for each later one.
_FIRST_AND_LATER: dict[str, tuple[str, str]] = {
    WARN_THEN_DRAW: (WARNING, PENALTY_DRAW),
    DRAW: (PENALTY_DRAW, PENALTY_DRAW),
    WARN_THEN_SKIP: (WARNING, SKIP_TURN),
    SKIP: (SKIP_TURN, SKIP_TURN),  # `000`: "draw a tile or skip their next turn", no warning
}


def _check_rule(rule: str) -> None:
    if rule not in _FIRST_AND_LATER:
        raise ValueError(
            f"Unknown infraction penalty rule {rule!r}; expected one of {', '.join(RULES)}"
        )


def action_for(rule: str, earlier_actions: Sequence[str]) -> str:
    """The action for a player's new infraction.

    ``earlier_actions`` are the actions of that player's earlier infractions in the same game
    (or, when the event counts them per event, in the whole event).
    Voided ones (``"void"``) do not count; under ``"warn_then_draw"`` and ``"warn_then_skip"``
    the first counted infraction is a warning ("first infraction of a player in a game is
    excused") and each later one a penalty draw of one tile or a skipped turn; under ``"draw"``
    every one is a penalty draw.

    Raises ``ValueError`` for an unknown rule or action.
    """
    _check_rule(rule)
    unknown = [action for action in earlier_actions if action not in ACTIONS]
    if unknown:
        raise ValueError(
            f"Unknown infraction action {unknown[0]!r}; expected one of {', '.join(ACTIONS)}"
        )
    first, later = _FIRST_AND_LATER[rule]
    return first if counted(earlier_actions) == 0 else later


def counted(actions: Iterable[str]) -> int:
    """How many of a player's infractions count: every one but the voided ones."""
    return sum(1 for action in actions if action != VOID)


def actions_for_sequence(rule: str, n: int) -> list[str]:
    """The actions for a player's ``n`` infractions in one game, none voided."""
    _check_rule(rule)
    if n < 0:
        raise ValueError(f"The number of infractions cannot be negative, got {n}")
    actions: list[str] = []
    for _ in range(n):
        actions.append(action_for(rule, actions))
    return actions
