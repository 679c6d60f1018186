"""The cheap gates in front of the scans: they may only rule out texts that cannot match."""

import hashlib

import pytest

from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.sensitive.context import DetectorContext
from turncheck.worker.checks.sensitive.nearby import Keywords, overlaps
from turncheck.worker.checks.sensitive.private_values import find_private_values
from turncheck.worker.turns.structs import PrivateValue

WORDS = Keywords(["driver's license", "dl", "date of birth", "ss #"])


@pytest.mark.parametrize(
    "text",
    [
        "Your DRIVER\N{RIGHT SINGLE QUOTATION MARK}S LICENSE is on file.",
        "DL: A1234567",
        "date-of-birth 03/04/1985",
        "SS  # 123",
        "the D\N{LATIN CAPITAL LETTER I WITH DOT ABOVE}L is here",  # the regex reads İ as i
    ],
)
def test_all_in_finds_what_the_windowed_search_finds(text: str) -> None:
    """Every keyword a window search finds is among all_in's, however it is cased or spaced."""
    spans = WORDS.all_in(text, Budget.unlimited())
    assert spans == [m.span() for m in WORDS._pattern.finditer(text)]
    assert WORDS.last_in(text, 0, len(text)) == (spans[-1][1] if spans else -1)


def test_all_in_is_empty_without_a_needle() -> None:
    """A text without any keyword's literal part is ruled out before the regex runs."""
    assert WORDS.all_in("Your public order shipped on Friday.", Budget.unlimited()) == []


def test_overlaps_tells_whether_a_span_reaches_a_window() -> None:
    """A span overlaps a window when they share at least one character."""
    spans = [(10, 15), (40, 42)]
    assert overlaps(spans, 14, 20)
    assert not overlaps(spans, 15, 40)
    assert overlaps(spans, 0, 11)
    assert not overlaps([], 0, 100)


def _private(value: str, salt: str) -> PrivateValue:
    return PrivateValue(
        salt=salt, sha256=hashlib.sha256((salt + value).encode("utf-8")).hexdigest()
    )


def test_private_values_keep_the_first_longest_finding_per_start() -> None:
    """A value inside a longer one that is also a value is not reported twice."""
    text = "Card 4111 1111 1111 1111 and again 4111-1111-1111-1111, then 4111."
    ctx = DetectorContext(private_values=(_private("4111111111111111", "a"), _private("4111", "b")))
    found = [text[s:e] for s, e in find_private_values(text, ctx)]
    assert found == ["4111 1111 1111 1111", "4111-1111-1111-1111", "4111"]
