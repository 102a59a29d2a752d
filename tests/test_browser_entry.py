"""Round entry in a real browser at a real table (issue 10): keyboard first, checked before it
is sent, exactly once from two devices, a double click or a dropped connection."""

import pytest
from playwright.sync_api import expect

from scoring.models import Round
from tests import browser as b
from tests.factories import make_director, make_event, make_players, seat

pytestmark = pytest.mark.browser

PASSWORD = "a-Long-pass-phrase-42"
ENTER = "/director/e/spring/1/table/1/enter/"
DIGITS = set("0123456789")


@pytest.fixture
def site(browser, live_server, transactional_db):
    director = make_director("desk", PASSWORD)
    make_director("desk2", PASSWORD).events.add(
        make_event(director, name="Spring Games", slug="spring")
    )
    event = director.events.get()
    make_players(event, count=8)
    stage = seat(event)
    return {"url": live_server.url, "director": director, "table": stage.tables.get(number=1)}


def seated(table):
    return [s.player for s in table.seats.select_related("player").order_by("position")]


def at_entry(site, pages, username="desk", **context):
    page = pages(**context)
    page.goto(site["url"] + ENTER)
    b.log_in(page, username, PASSWORD)
    expect(page.get_by_role("heading", name="Round 12-12")).to_be_visible()
    return page


class Keys:
    """The keys pressed, to count those beyond the digits."""

    def __init__(self, page):
        self.page, self.pressed = page, []

    def type(self, text):
        for key in text:
            self.press(key)

    def press(self, key):
        self.pressed.append(key)
        self.page.keyboard.press(key)

    @property
    def beyond_digits(self):
        return [k for k in self.pressed if k not in DIGITS]


def test_a_round_of_four_takes_four_keys_beyond_the_digits(site, pages):
    page = at_entry(site, pages)
    players = seated(site["table"])
    first = page.locator(f"input[name=p{players[0].pk}]")
    expect(first).to_be_focused()  # focus starts in the first cell

    keys = Keys(page)
    for i, value in enumerate(["0", "25", "9", "41"]):
        keys.type(value)
        keys.press("Tab" if i < 3 else "Enter")
    expect(page.get_by_role("heading", name="Round 11-11")).to_be_visible()
    assert keys.beyond_digits == ["Tab", "Tab", "Tab", "Enter"]
    assert len(keys.beyond_digits) <= 5
    saved = Round.objects.get(table=site["table"])
    assert sorted(saved.scores.values_list("pips", flat=True)) == [0, 9, 25, 41]
    # ... and after the save, focus is back in the first cell for the next round
    expect(page.locator(f"input[name=p{players[0].pk}]")).to_be_focused()

    # Enter in a cell that is not the last moves on, it does not send
    keys.type("3")
    keys.press("Enter")
    expect(page.locator(f"input[name=p{players[1].pk}]")).to_be_focused()
    assert Round.objects.count() == 1


def test_mistakes_are_shown_at_the_field_before_anything_is_sent(site, pages):
    page = at_entry(site, pages)
    posts = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    players = seated(site["table"])
    cells = [page.locator(f"input[name=p{p.pk}]") for p in players]
    save = page.get_by_role("button", name="Save round 12-12")
    expect(page.locator("#save-why")).to_have_text("Enter every player's pips to save.")
    expect(save).to_be_disabled()

    cells[1].fill("2000")
    feedback = page.locator(f"#{cells[1].get_attribute('id')}-error")
    expect(feedback).to_have_text("2000 is more than the 731 pips that can be left.")
    cells[1].fill("7x")
    expect(feedback).to_have_text("'7x' is not a whole number of pips.")
    for cell in cells:
        cell.fill("0")
    expect(page.locator("#round-errors")).to_have_text(
        "4 players have 0: only the player who dominoed and a player holding just the "
        "double-blank can have 0."
    )
    expect(page.locator("#save-why")).to_have_text("Fix the marked cells to save.")
    cells[-1].press("Enter")
    assert posts == []  # nothing was sent

    for cell, value in zip(cells, ["0", "0", "5", "6"], strict=True):
        cell.fill(value)  # the domino and the double-blank: both 0, fine by default
    expect(save).to_be_enabled()
    expect(page.locator("#round-errors")).to_be_hidden()
    save.click()
    expect(page.get_by_role("heading", name="Round 11-11")).to_be_visible()
    assert len(posts) == 1


def test_a_stale_page_is_refused_with_what_was_saved_and_keeps_its_values(site, pages):
    laptop = at_entry(site, pages, "desk")
    phone = at_entry(site, pages, "desk2", **b.PHONE)
    players = seated(site["table"])
    for page, values in ((laptop, [0, 5, 6, 7]), (phone, [3, 0, 8, 9])):
        for player, value in zip(players, values, strict=True):
            page.locator(f"input[name=p{player.pk}]").fill(str(value))
    laptop.get_by_role("button", name="Save round 12-12").click()
    expect(laptop.get_by_role("heading", name="Round 11-11")).to_be_visible()

    phone.get_by_role("button", name="Save round 12-12").click()
    errors = phone.locator("#entry-status")  # one message: the round is saved (issue 28 item 22)
    expect(errors).to_contain_text("Round 12-12 was saved meanwhile from another device")
    names = ", ".join(f"{p.name} {v}" for p, v in zip(players, [0, 5, 6, 7], strict=True))
    expect(errors).to_contain_text("Saved by desk at ")
    expect(errors).to_contain_text(names)
    for player, value in zip(players, [3, 0, 8, 9], strict=True):  # what was typed is kept
        expect(phone.locator(f"input[name=p{player.pk}]")).to_have_value(str(value))
    assert Round.objects.count() == 1

    phone.get_by_role("link", name="Load the next round").click()
    expect(phone.get_by_role("heading", name="Round 11-11")).to_be_visible()


def test_a_double_click_saves_one_round(site, pages):
    page = at_entry(site, pages)
    for player, value in zip(seated(site["table"]), [0, 5, 6, 7], strict=True):
        page.locator(f"input[name=p{player.pk}]").fill(str(value))
    page.get_by_role("button", name="Save round 12-12").dblclick()
    expect(page.get_by_role("heading", name="Round 11-11")).to_be_visible()
    assert Round.objects.count() == 1


def test_a_round_typed_without_a_connection_waits_and_is_saved_once(site, pages):
    page = at_entry(site, pages, **b.PHONE)
    players = seated(site["table"])
    page.wait_for_load_state("load")  # the page's script holds the round once offline
    page.context.set_offline(True)
    for player, value in zip(players, [0, 5, 6, 7], strict=True):
        page.locator(f"input[name=p{player.pk}]").fill(str(value))
    page.get_by_role("button", name="Save round 12-12").click()
    status = page.locator("#entry-status")
    expect(status).to_contain_text("Waiting to send (no connection)")
    names = ", ".join(f"{p.name} {v}" for p, v in zip(players, [0, 5, 6, 7], strict=True))
    expect(status).to_contain_text(names)
    assert Round.objects.count() == 0

    page.context.set_offline(False)  # the connection returns: the browser sends it again
    expect(page.get_by_role("heading", name="Round 11-11")).to_be_visible()
    assert Round.objects.count() == 1
    assert page.evaluate("localStorage.getItem('mexican-train-rounds-to-send')") == "[]"


def test_phone_cells_open_the_number_pad_and_are_tall_enough_to_tap(site, pages):
    page = at_entry(site, pages, **b.PHONE)
    for player in seated(site["table"]):
        cell = page.locator(f"input[name=p{player.pk}]")
        assert cell.get_attribute("inputmode") == "numeric"
        assert cell.bounding_box()["height"] >= 44


def test_a_correction_is_checked_before_it_is_sent(site, pages):
    page = at_entry(site, pages)
    players = seated(site["table"])
    for player, value in zip(players, [0, 5, 6, 7], strict=True):
        page.locator(f"input[name=p{player.pk}]").fill(str(value))
    page.get_by_role("button", name="Save round 12-12").click()
    expect(page.get_by_role("heading", name="Round 11-11")).to_be_visible()

    page.goto(site["url"] + "/director/e/spring/1/table/1/round/1/correct/")
    cell = page.locator(f"input[name=p{players[1].pk}]")
    cell.fill("900")
    expect(page.locator(f"#{cell.get_attribute('id')}-error")).to_have_text(
        "900 is more than the 731 pips that can be left."
    )
    cell.fill("15")
    page.get_by_label("Reason for the correction").fill("misread 15 as 5")
    page.get_by_role("button", name="Save correction").click()
    expect(page.get_by_text("Round corrected: 1 score changed.")).to_be_visible()
    assert sorted(Round.objects.get().scores.values_list("pips", flat=True)) == [0, 6, 7, 15]
