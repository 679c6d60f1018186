"""markup.plain: the words a reader sees, with offsets that lead back to the text as written."""

import pytest

from turncheck.worker.checks.budget import Budget, BudgetSpent
from turncheck.worker.checks.markup import has_markup, plain

UNLIMITED = Budget.unlimited()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("**Acme** Support", "Acme Support"),
        ("__Acme__ and _Acme_ and *Acme*", "Acme and Acme and Acme"),
        ("**_Acme_** ~~old~~ `code`", "Acme old code"),
        ("Ac**me** Sup*port*", "Acme Support"),
        ("<b>Acme</b> Support", "Acme Support"),
        ("<span class='x'>Ac</span>me", "Acme"),
        ("Acme<br>Support", "Acme Support"),
        ("<p>one</p><p>two</p>", " one  two "),
        ("a <!-- hidden --> b", "a  b"),
        (
            "Acme Support\u2122, Acme\u00ae, \u00a9 Acme, Acme\u2120",
            "Acme Support, Acme,  Acme, Acme",
        ),
        ("Don&#39;t &amp; &trade; &zwj;", "Don't &  "),
        ('See [the page](https://x.example/a_(b) "title") now', "See [the page now"),
        ("![logo](/img/logo.png)", "![logo"),
        ("1. first\n  2) second\n> 3. quoted", " first\n second\n quoted"),
        ("```python\nprint()\n```", " \nprint()\n "),
    ],
)
def test_plain_takes_out_what_is_not_read_as_words(text: str, expected: str) -> None:
    """Tags, entities, emphasis, link targets, list numbers, fences and signs go."""
    assert plain(text, UNLIMITED).text == expected


@pytest.mark.parametrize(
    "text",
    [
        "snake_case and 2*3 and a * b and 2**10",
        "Version 3.2 ships on May 4. Then 5.1 follows.",
        "x < y > z and &unknown; and [1]",
        "first_last@mailbox.example",
        "Plain words only.",
    ],
)
def test_plain_leaves_text_without_markup_as_it_is(text: str) -> None:
    """Markers inside words, comparisons, unknown entities and mid-line numbers stay."""
    assert plain(text, UNLIMITED).text == text


def test_plain_returns_the_text_itself_when_no_markup_can_start() -> None:
    """The fast path: no character that can start markup, no copy and no offsets table."""
    text = "Thanks for waiting, your parcel left the warehouse at 10.30 today."
    assert not has_markup(text)
    view = plain(text, UNLIMITED)
    assert view.text is text
    assert view.breaks == ()


@pytest.mark.parametrize(
    "text",
    [
        "**Acme** Support",
        "<b>Acme</b> <i>Support</i>&trade; and [Acme](https://a.example)",
        "1. **Never** offer a <em>discount</em> &amp; never &#8212; ever\n2. Escalate",
        "&NotEqualTilde; then Acme",  # an entity that decodes to two characters
    ],
)
def test_every_kept_character_maps_back_to_itself(text: str) -> None:
    """Each character of the plain text points at itself in the text, or (put in for a tag
    or an entity) at where that begins."""
    view = plain(text, UNLIMITED)
    for i, ch in enumerate(view.text):
        assert text[view.origin(i)] in (ch, "&", "<")
    for word in ("Acme", "Support", "Never", "discount", "Escalate"):
        at = view.text.find(word)
        if at >= 0:
            start, end = view.span(at, at + len(word))
            assert text[start:end] == word


def test_a_span_across_removed_markup_covers_it_in_the_original() -> None:
    """A phrase found across a tag maps to the whole stretch as written, tag included."""
    text = "Try <b>Acme</b> Support today"
    view = plain(text, UNLIMITED)
    at = view.text.index("Acme Support")
    start, end = view.span(at, at + len("Acme Support"))
    assert text[start:end] == "Acme</b> Support"


def test_a_long_text_of_markup_is_read_within_the_budget() -> None:
    """A megabyte of tags is the turn's budget's business: a spent budget stops it."""
    text = "<b>x</b> " * 150_000
    assert plain(text, UNLIMITED).text == "x " * 150_000
    with pytest.raises(BudgetSpent):
        plain(text, Budget(deadline_s=0.0, clock=lambda: 1.0))
