import pytest
from django.test import Client

from tests.factories import make_director, make_event, make_players, seat


@pytest.fixture
def director(db):
    return make_director("boss")


@pytest.fixture
def director_client(director):
    client = Client()
    client.force_login(director)
    return client


@pytest.fixture
def event(director):
    return make_event(director, name="Spring Games", slug="spring")


@pytest.fixture
def seated(event):
    """An event with 8 checked-in players seated at two tables of Game 1."""
    make_players(event, count=8)
    return seat(event)


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
