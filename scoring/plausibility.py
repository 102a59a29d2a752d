"""The "are you sure?" threshold of an event's rule set at a table size (issue 33 item 2).

The rule sets the site offers are in the shipped file (``tournament.game.plausibility``,
``manage.py compute_thresholds``). Any other (a custom draw, the 50-point double-blank, a
custom list of engines) is simulated once by a background task (``scoring.tasks.
compute_threshold``) and kept in Django's cache; until it is there, no round asks anything.
``PLAUSIBILITY_ROUNDS`` (setting, default ``plausibility.ROUNDS``) is the task's number of
rounds; 0 computes nothing (the tests, but for the ones that ask for it).
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import asdict

from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError

from tournament.game import plausibility
from tournament.game.plausibility import Threshold
from tournament.game.rules import RuleSet

logger = logging.getLogger(__name__)

ASKED_SECONDS = 3600  # a task asked for a rule set is not asked again within this time


def cache_key(text: str) -> str:
    return "plausible:" + hashlib.sha256(text.encode()).hexdigest()[:32]


def threshold_for(rules: RuleSet, players: int) -> Threshold | None:
    """The threshold of ``rules`` at a table of ``players``: the shipped file's, else the
    cache's; else None, the background task asked (once) to compute it."""
    key = plausibility.key(rules, players)
    found = plausibility.shipped().get(key)
    if found is not None or not rules.can_deal(players):
        return found
    kept = cache.get(cache_key(key))
    if kept is not None:
        return Threshold(**kept)
    rounds = getattr(settings, "PLAUSIBILITY_ROUNDS", plausibility.ROUNDS)
    if rounds and cache.add(cache_key(key) + ":asked", True, ASKED_SECONDS):
        from scoring.tasks import compute_threshold  # here: the task calls this module

        try:
            compute_threshold.enqueue(
                the_set=rules.set,
                sets=rules.sets,
                engines=list(rules.engines),
                drawn=rules.tiles_drawn[players],
                double_blank_points=rules.double_blank_points,
                players=players,
            )
        except DatabaseError:  # the task's queue is busy: the entry page is drawn all the same
            logger.exception("The threshold of %s was not asked for", key)
            cache.delete(cache_key(key) + ":asked")
    return None


def compute(
    the_set: int,
    sets: int,
    engines: list[int],
    drawn: int,
    double_blank_points: int,
    players: int,
) -> Threshold:
    """Simulate the rule set at a table of ``players`` and keep its threshold in the cache."""
    rules = RuleSet(
        set=the_set,
        sets=sets,
        engines=tuple(engines),
        tiles_drawn={players: drawn},
        table_size=players,
        double_blank_points=double_blank_points,
    ).check()
    rounds = getattr(settings, "PLAUSIBILITY_ROUNDS", plausibility.ROUNDS) or plausibility.ROUNDS
    found = plausibility.simulated(rules, players, rounds)
    cache.set(cache_key(plausibility.key(rules, players)), asdict(found), None)
    return found
