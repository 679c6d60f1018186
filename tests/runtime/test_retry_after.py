"""Reading ``Retry-After`` as receivers really write it, sensible or not."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from turncheck.worker.runtime.retry_after import MAX_S, retry_after_s

NOW = datetime(2026, 12, 1, 10, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("120", 120.0),
        (" 7 ", 7.0),
        ("0005", 5.0),
        ("Tue, 01 Dec 2026 10:01:30 GMT", 90.0),
        ("Tue, 01 Dec 2026 09:00:00 GMT", 0.0),
        ("soon", None),
        (None, None),
    ],
)
def test_retry_after_reads_seconds_and_dates(header: str | None, expected: float | None) -> None:
    """Delta-seconds or an HTTP date, from now; a past date is no wait; nonsense is ignored."""
    assert retry_after_s(header, NOW) == expected


@pytest.mark.parametrize(
    "header", ["²", "١٢", "٣", "12²", "1e3", "-1", "+5", "inf", "nan", "1.5", ""]
)
def test_a_value_that_is_not_ascii_digits_or_a_date_is_ignored_not_raised(header: str) -> None:
    """Superscript and Arabic-Indic digits pass ``str.isdigit`` (and ``float`` reads some);
    they, exponents, signs and ``inf``/``nan`` are no Retry-After at all."""
    assert retry_after_s(header, NOW) is None


@pytest.mark.parametrize(
    "header", ["9" * 5000, "86401", "99999999999999999999", "Fri, 31 Dec 9999 23:59:59 GMT"]
)
def test_a_huge_wait_is_capped_without_overflowing(header: str) -> None:
    """A wait past a day, in however many digits, is read as a day: a finite number."""
    assert retry_after_s(header, NOW) == MAX_S
