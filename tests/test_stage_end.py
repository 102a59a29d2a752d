"""Closing a stage ends it (issue 12 item 3): its clock stops and reads "Closed"; a table that
stopped because time was called counts as finished on the standings, the big screen and the
close page."""

import json
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from tests.factories import play
from tournament.models import ClockEvent, Stage, Table
from tournament.services.clock import call_time, start_clock

pytestmark = pytest.mark.django_db
MIN = timedelta(minutes=1)


def close_url(stage):
    return f"/director/e/{stage.event.slug}/{stage.number}/close/"


def clock_json(client, stage):
    return json.loads(client.get(f"/e/{stage.event.slug}/{stage.number}/clock.json").content)


def short(stage):
    event = stage.event
    event.engines = [1, 0]
    event.save()
    return stage


def test_closing_a_stage_stops_its_clock_and_it_reads_closed(director_client, seated, director):
    short(seated)
    for t in Table.objects.filter(stage=seated):
        play(t, 2)
    start_clock(seated, director, timezone.now() - 20 * MIN)
    before = clock_json(director_client, seated)
    assert before["state"] == "running"
    director_client.post(close_url(seated), {"action": "close"})
    stage = Stage.objects.get(pk=seated.pk)
    assert stage.closed and stage.time_called_at is not None
    assert ClockEvent.objects.filter(stage=stage, reason="Stage closed").count() == 1
    after = clock_json(director_client, stage)
    assert after["state"] == "closed" and after["label"].startswith("Closed (stopped at ")
    assert 39 * 60 <= after["remaining"] <= 40 * 60  # what was left when it closed, frozen
    again = clock_json(director_client, stage)
    assert again["remaining"] == after["remaining"]
    big = director_client.get(f"/e/{stage.event.slug}/{stage.number}/clock/").content.decode()
    assert 'data-state="closed"' in big and "Closed (stopped at" in big
    assert re.search(r'id="big-digits"[^>]*>(39|40):\d\d<', big)


def test_a_clock_never_started_reads_closed_once_the_stage_closes(director_client, seated):
    short(seated)
    for t in Table.objects.filter(stage=seated):
        play(t, 2)
    director_client.post(close_url(seated), {"action": "close"})
    data = clock_json(director_client, seated)
    assert data["state"] == "closed" and data["label"] == "Closed"


def test_tables_stopped_by_time_called_count_as_finished(director_client, seated, director):
    short(seated)
    seated.event.engines = [2, 1, 0]
    seated.event.save()
    t1, t2 = Table.objects.filter(stage=seated)
    play(t1, 1)
    play(t2, 2)
    start_clock(seated, director, timezone.now() - 30 * MIN)
    call_time(seated, director)
    director_client.post(close_url(seated), {"action": "end_games", "over": ["1:1", "2:2"]})
    standings = director_client.get(f"/e/{seated.event.slug}/1/").content.decode()
    assert standings.count("· finished") == 2
    big = director_client.get(f"/e/{seated.event.slug}/1/clock/").content.decode()
    assert '<ul id="finished-tables" data-clock-finished><li>1</li><li>2</li></ul>' in big
    close = director_client.get(close_url(seated)).content.decode()
    assert "still have rounds to play" not in close and "Confirm: close Game 1" in close
    director_client.post(close_url(seated), {"action": "close"})
    assert Stage.objects.get(pk=seated.pk).closed
    assert clock_json(director_client, seated)["state"] == "closed"
