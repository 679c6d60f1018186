"""Tests for the whole-word keyword proximity helper."""

from __future__ import annotations

import pytest

from turncheck.worker.checks.sensitive.nearby import Keywords, label_is

LICENSE = Keywords(["lic", "driver's license", "date of birth"])
ACCOUNT = Keywords(["account"])
OTHER = Keywords(["balance", "order"])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("lic # 12345", True),
        ("LIC: 12345", True),
        ("public 12345", False),
        ("publicly 12345", False),
        ("license 12345", False),
        ("drivers license 12345", True),
        ("driver\N{RIGHT SINGLE QUOTATION MARK}s license 12345", True),
        ("date-of-birth 12345", True),
        ("date  of\nbirth 12345", True),
        ("date_of_birth 12345", True),
    ],
)
def test_near_matches_whole_words_only(text: str, expected: bool) -> None:
    """A keyword counts only as a whole word, with flexible spaces and apostrophes."""
    start = text.index("12345")
    assert LICENSE.near(text, start, start + 5) is expected


def test_near_respects_the_window() -> None:
    """A keyword further away than the window does not count."""
    text = "lic " + "x " * 50 + "12345"
    start = text.index("12345")
    assert not LICENSE.near(text, start, start + 5, before=20, after=20)
    assert LICENSE.near(text, start, start + 5, before=200, after=20)


def test_near_window_edge_does_not_cut_a_word() -> None:
    """A window ending inside "republic" or "license" never shows "lic"."""
    text = "12345 xx republic"
    assert not LICENSE.near(text, 0, 5, before=0, after=len("12345 xx repub"))
    assert not LICENSE.near("12345 licensed", 0, 5, before=0, after=4)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("account number 12345678", True),
        ("account balance is 12345678", False),
        ("order 12345678 on your account", False),
        ("12345678 is your account", True),
        ("account 999 and then 12345678", False),
        ("nothing here 12345678", False),
    ],
)
def test_label_is_prefers_the_closest_label_before(text: str, expected: bool) -> None:
    """The closest label before a number decides; one after counts only when none is before."""
    start = text.index("12345678")
    assert label_is(text, start, start + 8, ACCOUNT, OTHER) is expected


def test_keywords_needs_a_phrase() -> None:
    """An empty keyword set is a programming error."""
    with pytest.raises(ValueError):
        Keywords([" "])


def test_span_lookups_give_the_keyword_itself() -> None:
    """``last_span_in`` and ``first_span_in`` give a keyword's start and end, or None."""
    text = "driver's license or lic 12345 then lic"
    assert LICENSE.last_span_in(text, 0, 29) == (20, 23)
    assert LICENSE.first_span_in(text, 0, 29) == (0, 16)
    assert LICENSE.first_span_in(text, 24, 34) is None
    assert LICENSE.last_span_in(text, 0, 29)[1] == LICENSE.last_in(text, 0, 29)
