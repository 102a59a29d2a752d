"""What a live region sends when it changes (tournament/live.py): pieces, not the whole."""

from tournament.live import changes, split


def region(rows: list[tuple[str, int, str]], note: str | None = "Partial") -> str:
    """A standings region: an optional note, then rows (key, rank, place) in order."""
    shown = f'<!--k--><p data-k="note">{note}</p><!--/k-->' if note is not None else ""
    body = "".join(
        f'<!--k--><tr data-k="{k}" data-rank="{r}"><td data-place>{t}</td><td>{r}</td></tr>'
        "<!--/k-->"
        for k, r, t in rows
    )
    rows_html = f'<tbody data-kc="rows" data-places="T%s"><!--c:rows-->{body}<!--/c--></tbody>'
    return f"<div>{shown}<table>{rows_html}</table></div>"


def test_the_marks_are_cut_out_of_what_a_page_shows():
    shown = split(region([("a", 5, "1")])).html
    assert "<!--" not in shown and "<td data-place>1</td>" in shown


def test_a_row_that_moves_sends_itself_and_the_rows_whose_neighbour_changed():
    # The site ranks a row by its total (scoring.lists.rank_keys): the places shown follow.
    before = split(region([("a", 5, "1"), ("b", 9, "2"), ("c", 12, "3"), ("d", 20, "4")]))
    # "a" scores 30: last. Every other row's place moved by one, but places are not sent.
    after = split(region([("b", 9, "1"), ("c", 12, "2"), ("d", 20, "3"), ("a", 35, "4")]))
    found = changes(before.state, after)
    assert set(found["pieces"]) == {"a"}
    assert "<td data-place></td>" in found["pieces"]["a"]
    assert found["order"] == {"rows": {"b": "", "a": "d"}}
    assert "gone" not in found


def test_a_changed_note_a_row_gone_and_one_added():
    before = split(region([("a", 5, "1"), ("b", 9, "2")], note="1 of 2"))
    after = split(region([("a", 5, "1"), ("c", 7, "2")], note="2 of 2"))
    found = changes(before.state, after)
    assert set(found["pieces"]) == {"note", "c"}
    assert found["gone"] == ["b"]
    assert found["order"] == {"rows": {"c": "a"}}


def test_nothing_changed_sends_nothing_and_a_new_frame_sends_the_whole():
    rows = [("a", 1, "5"), ("b", 2, "9")]
    assert changes(split(region(rows)).state, split(region(rows))) == {}
    assert changes(split(region(rows)).state, split(region(rows, note=None))) is None
