"""The faster scans read the same facts as the patterns they stand for."""

import random
import re
from collections.abc import Iterable

import pytest

from tests.checks.facts.turns import check, support_turn, tool_round
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.facts.dates import DATE, date_keys, find_dates
from turncheck.worker.checks.facts.numbers import BARE_NUMBER, NUMBER
from turncheck.worker.checks.facts.patterns import (
    ANSWER_NUMBER,
    BARE_DOMAIN,
    MAY_BE_DOMAIN,
    MAY_BE_PHONE,
    PHONE,
    PLAIN_PHONE,
    answer_numbers,
)
from turncheck.worker.checks.result import Verdict

TEXTS = [
    "Order A-88213 ships March 4th, 2026 (eta 2026-03-04T09:00:00Z) for $1,200.50.",
    "Call +1 555 010 2030 or 0161 496 0000; see shop.example.io/returns or acme.com.",
    "MARCH 4 2026, 4 of mar. 2026, 03/04/26, 1.5 million, 500k, 15 percent, 12%",
    "\uff2darch 4, \u0130stanbul 2026-03-04, \u0131 5 May 2026",  # not ASCII
    "Mayday may 12 maybe 12.12.12, 12/12/1212, dec. 5, deck 5, 31 janitors, 1st of jan 2026",
    "x2026-01-01 22nd dec 2025, sept 9, 4.3.26, 12-25-2026 and 2026/3/4; +49 (0)89 2024 3310",
    "1-800-555-0199, 1 (800) 555-0199, +1(555)010-2030, x1-800-555-0199, 11 555 010 2030",
]


@pytest.mark.parametrize("text", TEXTS)
def test_find_dates_matches_the_case_blind_pattern(text: str) -> None:
    """Lower-cased matching of ASCII text finds the dates ``DATE`` finds, at the same offsets."""
    expected = [(m.span(), date_keys(m, case_from=None)) for m in DATE.finditer(text)]
    found = [(m.span(), date_keys(m, case_from=None)) for m in find_dates(text, Budget.unlimited())]
    assert found == expected


DATE_PIECES = ["1", "2", "0", "/", ".", "-", ",", " ", "\n", "Jan", "ju", "l", "N", "mar", "MA"]
DATE_PIECES += ["y", "st", "of", "a", "d", "s", "ep", "x", "_", "\t", "3rd", "dec", "\x00", "2026"]


def test_find_dates_matches_the_case_blind_pattern_on_any_text() -> None:
    """Months found by ``str.find`` and figures by a scan start every date ``DATE`` finds."""
    rng = random.Random(11)
    for _ in range(20_000):
        text = "".join(rng.choices(DATE_PIECES, k=rng.randint(0, 14)))
        expected = [(m.span(), date_keys(m, case_from=None)) for m in DATE.finditer(text)]
        found = find_dates(text, Budget.unlimited())
        assert [(m.span(), date_keys(m, case_from=None)) for m in found] == expected, text


@pytest.mark.parametrize("text", TEXTS)
def test_bare_number_reads_the_numbers_number_reads(text: str) -> None:
    """Leaving the currency out of the source scan moves no number."""
    expected = [(m["num"], m["mult"], m["pct"]) for m in NUMBER.finditer(text)]
    assert [(m["num"], m["mult"], m["pct"]) for m in BARE_NUMBER.finditer(text)] == expected


# Pieces of numbers and of what sits around them, joined at random.
NUMBER_PIECES = ["1", "20", "0", "/", ".", "-", ",", " ", "\n", "$", "€", "a", "B-", "k", "%"]
NUMBER_PIECES += [" million", "_", "x", "\u0663", "\u00a0", "12 345", ",00", "v", ":"]


def _number_texts() -> list[str]:
    rng = random.Random(12)
    pieces = NUMBER_PIECES
    return TEXTS + ["".join(rng.choices(pieces, k=rng.randint(0, 14))) for _ in range(20_000)]


def test_answer_numbers_are_the_numbers_finditer_reads() -> None:
    """Skipping ahead to where a number may start finds every ``ANSWER_NUMBER`` match,
    with the same groups, and no other."""

    def read(matches: Iterable[re.Match[str]]) -> list[object]:
        return [(m.span(), m.span("cur"), m.span("num"), m.groupdict()) for m in matches]

    for text in _number_texts():
        found = read(answer_numbers(text, Budget.unlimited()))
        assert found == read(ANSWER_NUMBER.finditer(text)), text


@pytest.mark.parametrize("text", TEXTS)
def test_phone_finds_what_the_plain_alternation_finds(text: str) -> None:
    """The skip-ahead ``PHONE`` reads the phones of its one-alternation specification."""
    assert [m.span() for m in PHONE.finditer(text)] == [
        m.span() for m in PLAIN_PHONE.finditer(text)
    ]


@pytest.mark.parametrize("text", TEXTS)
def test_cheap_tests_never_skip_a_domain_or_a_phone(text: str) -> None:
    """A text with a bare domain or a phone number always passes the cheap test for it."""
    if BARE_DOMAIN.search(text):
        assert MAY_BE_DOMAIN.search(text)
    if PHONE.search(text):
        assert "+" in text or MAY_BE_PHONE.search(text)


def test_a_lower_case_month_in_the_answer_is_still_not_a_date() -> None:
    """Matching lower-cased text keeps the answer's case rule: "may 12" is not a date."""
    turn = support_turn(
        "You may 12 times retry; it arrives March 4.",
        rounds=[tool_round("lookup", {"eta": "2026-03-04"})],
    )
    assert check(turn, kinds=["date"]).verdict is Verdict.PASSED


def test_a_long_text_folded_chunk_by_chunk_is_folded_as_a_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A run of punctuation cut by a chunk's edge is still one space."""
    import random

    from turncheck.worker.checks.budget import Budget
    from turncheck.worker.checks.facts import patterns

    monkeypatch.setattr(patterns, "_QUOTE_CHUNK_CHARS", 4)
    rng = random.Random(4)
    for _ in range(300):
        text = "".join(rng.choices(["A", "b", "-", " ", "!!", "ß", "_", "Σ", "\n"], k=40))
        assert patterns.long_quote_key(text, Budget.unlimited()) == patterns.quote_key(text)
