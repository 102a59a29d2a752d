"""The infraction penalty rule (tournament/game/infractions.py): PRODUCT.md §2 and §8."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournament.game.infractions import (
    ACTION_LABELS,
    ACTIONS,
    DEFAULT_RULE,
    RULE_LABELS,
    RULES,
    action_for,
    actions_for_sequence,
)


def test_default_rule_is_nvso():
    assert DEFAULT_RULE == "warn_then_draw"
    assert RULES == ("warn_then_draw", "draw", "warn_then_skip", "skip")


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        ("warn_then_draw", ["warning", "penalty_draw", "penalty_draw", "penalty_draw"]),
        ("draw", ["penalty_draw", "penalty_draw", "penalty_draw", "penalty_draw"]),
        ("warn_then_skip", ["warning", "skip_turn", "skip_turn", "skip_turn"]),
        ("skip", ["skip_turn", "skip_turn", "skip_turn", "skip_turn"]),
    ],
)
def test_sequences_per_rule(rule: str, expected: list[str]):
    assert actions_for_sequence(rule, 4) == expected
    assert actions_for_sequence(rule, 0) == []
    assert action_for(rule, []) == expected[0]


@pytest.mark.parametrize(
    ("rule", "first"), [("warn_then_draw", "warning"), ("warn_then_skip", "warning")]
)
def test_voided_first_infraction_means_the_next_is_a_warning(rule: str, first: str):
    assert action_for(rule, ["void"]) == first
    assert action_for(rule, ["void", "void"]) == first


def test_voided_entries_do_not_count_later_either():
    assert action_for("warn_then_draw", ["warning", "void"]) == "penalty_draw"
    assert action_for("draw", ["void"]) == "penalty_draw"


def test_a_director_override_still_counts_as_an_infraction():
    # The first entry was changed to skip-a-turn: the player has had their first infraction.
    assert action_for("warn_then_draw", ["skip_turn"]) == "penalty_draw"
    assert action_for("warn_then_skip", ["penalty_draw"]) == "skip_turn"


def test_unknown_rule_raises():
    with pytest.raises(ValueError, match="Unknown infraction penalty rule 'skip_always'"):
        action_for("skip_always", [])
    with pytest.raises(ValueError, match="Unknown infraction penalty rule"):
        actions_for_sequence("", 2)


def test_unknown_earlier_action_raises():
    with pytest.raises(ValueError, match="Unknown infraction action 'caution'"):
        action_for("warn_then_draw", ["caution"])


def test_negative_count_raises():
    with pytest.raises(ValueError):
        actions_for_sequence("draw", -1)


def test_labels():
    assert set(ACTION_LABELS) == set(ACTIONS)
    assert ACTION_LABELS["warning"] == "Warning: no penalty this time"
    assert ACTION_LABELS["penalty_draw"] == "Penalty: draw one tile"
    assert ACTION_LABELS["skip_turn"] == "Penalty: skip the next turn"
    assert set(RULE_LABELS) == set(RULES)


@given(
    rule=st.sampled_from(RULES),
    voided=st.lists(st.booleans(), max_size=20),
)
def test_at_most_one_warning_per_game(rule: str, voided: list[bool]):
    """Log infractions one by one, a director voiding some of them as they go."""
    actions: list[str] = []
    for void in voided:
        actions.append("void" if void else action_for(rule, actions))
    counted = [action for action in actions if action != "void"]
    warnings = counted.count("warning")
    if rule.startswith("warn_"):
        assert warnings == (1 if counted else 0)
        assert not counted or counted[0] == "warning"
    else:
        assert warnings == 0
    assert all(action in ACTIONS for action in actions)


@given(rule=st.sampled_from(RULES), n=st.integers(min_value=0, max_value=30))
def test_sequence_matches_action_for(rule: str, n: int):
    actions = actions_for_sequence(rule, n)
    assert len(actions) == n
    assert all(action == action_for(rule, actions[:i]) for i, action in enumerate(actions))
