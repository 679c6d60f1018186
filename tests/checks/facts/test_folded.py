"""The scans that read a text with its digits folded (``folded``, ``phone_starts``) find what
the plain scans find, span for span, on every corpus text, disguised copies, the bench's
answers and sources, random texts and texts dense in digits; and the quick tests in front
of ``_hedged`` and ``_in_words`` change no answer."""

from __future__ import annotations

import random
import re
from datetime import date
from decimal import Decimal
from functools import cache
from typing import Any

import pytest

from tests.checks.gates.texts import bench_turn_texts, corpus_texts, disguise, random_text
from turncheck.worker.checks import candidates
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.facts import dates, standalone
from turncheck.worker.checks.facts.extract import _hedged
from turncheck.worker.checks.facts.folded import digit_blind, fold, folded
from turncheck.worker.checks.facts.index import SourceIndex
from turncheck.worker.checks.facts.numbers import SOURCE_NUMBER
from turncheck.worker.checks.facts.patterns import (
    ANSWER_NUMBER,
    COMPOUND,
    HEDGE,
    LIST_MARKER,
    MAY_BE_PHONE,
    PHONE,
    TOKEN,
    answer_numbers,
    line_starts,
)
from turncheck.worker.checks.facts.starts import RUN_PATTERN, phone_starts, token_starts
from turncheck.worker.checks.facts.words import spellings
from turncheck.worker.checks.textmap import normalize

# Pieces dense in what the folded scans read: phones in every form, dates, compound IDs,
# digits glued to words, the characters their lookarounds read, and digits of other scripts.
_PIECES = (
    "+1 555 010 2030",
    "1-800-555-0199",
    "1 (800) 555-0199",
    "(555) 010-2030",
    "555-010-2030",
    "+49 30 901820",
    "+49 (0)89 2024 3310",
    "07700 900132",
    "020 7946 0958",
    "0161 496 0000",
    "2026-03-04",
    "4.3.26",
    "03/04/2026",
    "4th of March",
    "12 MAY",
    "ORD-2024-0042",
    "125-2419873360",
    "10-14",
    "120-night",
    "A1_2",
    "#A-88213",
    "SW-104893",
    "1Z999AA10123456784",
    "x12",
    "1,234.56",
    "\u0663\u0664\u0665",
    "\uff11\uff12\uff13",
)
_GLUE = ("", " ", ".", ",", "/", "-", "_", "(", ")", "+", ":", "\n", "\t", "\u00a0", "a", "7")


def _dense(rng: random.Random) -> str:
    return "".join(rng.choice(_PIECES) + rng.choice(_GLUE) for _ in range(rng.randrange(1, 9)))


@cache
def _texts() -> tuple[str, ...]:
    rng = random.Random(2121)
    texts = list(corpus_texts())
    texts += [disguise(t, rng) for t in texts]
    texts += bench_turn_texts(rng, 200)
    texts += [random_text(rng, rng.randrange(1, 400)) for _ in range(1000)]
    texts += [_dense(rng) for _ in range(3000)]
    return tuple(normalize(t, Budget.unlimited()).text for t in texts)


def _spans(pattern: re.Pattern[str], text: str) -> list[tuple[tuple[int, int], ...]]:
    return [tuple(m.span(g) for g in range(pattern.groups + 1)) for m in pattern.finditer(text)]


@pytest.mark.parametrize("pattern", [COMPOUND, SOURCE_NUMBER, MAY_BE_PHONE, TOKEN])
def test_a_digit_blind_pattern_matches_the_folded_text_where_it_matches_the_text(
    pattern: re.Pattern[str],
) -> None:
    """Every group of every match falls at the same offsets in the folded text."""
    assert digit_blind(pattern)
    assert [t for t in _texts() if _spans(pattern, fold(t)) != _spans(pattern, t)] == []


def test_the_folded_scans_find_what_the_plain_ones_find() -> None:
    """``COMPOUND`` opening with "0" on the folded text, ``dates._DIGIT_START`` ignoring case
    on it (on the lower-cased text, as it was written, for ASCII text), and the phone runs."""
    folded_compound = folded(COMPOUND)
    runs = re.compile(MAY_BE_PHONE.pattern)
    differences = []
    for text in _texts():
        folded_text = fold(text)
        if _spans(folded_compound, folded_text) != _spans(COMPOUND, text):
            differences.append(("compound", text))
        if text.isascii():
            digit_starts = dates._FOLDED_DIGIT_START.finditer(folded_text)
            written = dates._DIGIT_START.finditer(text.lower())
            if [m.span() for m in digit_starts] != [m.span() for m in written]:
                differences.append(("dates", text))
        if _spans(RUN_PATTERN, folded_text) != _spans(runs, text):
            differences.append(("runs", text))
    assert differences == []


@pytest.mark.parametrize(("pattern", "starts"), [(PHONE, phone_starts), (TOKEN, token_starts)])
def test_the_starts_hold_every_match(pattern: re.Pattern[str], starts: Any) -> None:
    """``PHONE`` tried at ``phone_starts`` alone, and ``TOKEN`` at ``token_starts``, find
    every match a scan of the whole text finds."""
    budget = Budget.unlimited()
    differences = []
    for text in [*_texts(), "##12 #a-1 x#1_b a-_1 -1 \u00e91 1#2 #", "#1"]:
        tried = candidates.matches(pattern, text, budget, starts(text, fold(text)))
        if [m.span() for m in tried] != [m.span() for m in pattern.finditer(text)]:
            differences.append(text)
    assert differences == []


@pytest.mark.parametrize(
    "pattern",
    [PHONE, dates.DATE, re.compile(r"(?P<a>[0-9])(?P=a)"), re.compile("[0-5]"), re.compile("7")],
)
def test_a_pattern_that_tells_digits_apart_is_not_folded(pattern: re.Pattern[str]) -> None:
    """A digit as a literal, a class with some digits, a back-reference: refused."""
    assert not digit_blind(pattern)
    with pytest.raises(ValueError, match="digit-blind"):
        folded(pattern)


def test_the_hedge_test_answers_as_the_search_does() -> None:
    """``_hedged``'s look at the last character before an amount answers as ``HEDGE``'s
    search over the 16 characters before it, on every number of every text."""
    number = re.compile("[0-9]+")
    differences = []
    for text in [*_texts(), "About 5", "APPROX. 5", "close to\t5", "~5", "hand\u017fome 5"]:
        for m in number.finditer(text):
            plain = HEDGE.search(text, max(0, m.start() - 16), m.start()) is not None
            if _hedged(text, m) != plain:
                differences.append((text, m.start()))
    assert differences == []


def test_numbers_in_words_are_found_with_or_without_the_quick_test() -> None:
    """A spelled amount is found in the sources in any case and punctuation, and one whose
    words the sources lack is not, as the lookup in the folded text says."""
    rng = random.Random(7)
    for _ in range(300):
        value = rng.choice([rng.randrange(1, 100), rng.randrange(100, 10_000), 10**6 + 5])
        spelled = rng.choice(spellings(value))
        blob = rng.choice(["Pay ", "PAY: ", ""]) + rng.choice([spelled, spelled.upper()])
        blob = blob.replace(" ", rng.choice([" ", "-", ", ", "\n\x00\n"]))
        index = SourceIndex(blob, date(2026, 11, 29), 3, Budget.unlimited())
        words = index.quote_text
        expected = any(f" {w} " in words for w in spellings(value))
        assert index._in_words(Decimal(value)) is expected
        other = SourceIndex(blob, date(2026, 11, 29), 3, Budget.unlimited())
        assert other._in_words(Decimal(value + 1)) is any(
            f" {w} " in words for w in spellings(value + 1)
        )


def test_compound_spans_read_the_folded_sources_as_the_sources() -> None:
    """The IDs among hyphenated digit groups are the ones the plain scan finds."""
    budget = Budget.unlimited()
    differences = []
    for text in _texts():
        expected = [
            m.span()
            for m in COMPOUND.finditer(text)
            if (m.start() > 1 and text[m.start() - 1] in "-_" and text[m.start() - 2].isalpha())
            or standalone.is_id_token(m.group())
        ]
        if standalone.compound_spans(text, budget) != expected:
            differences.append(text)
    assert differences == []


def test_the_answers_numbers_and_list_markers_are_found_where_a_scan_finds_them() -> None:
    """Numbers started from the folded text's digits and the currency signs, and list
    markers tried at line starts alone, are the matches of a scan of the whole text."""
    budget = Budget.unlimited()
    differences = []
    for text in [*_texts(), "$5 and €3,50 or ₹ 7, 1.\n 2) x\n(3. y"]:
        folded_numbers = answer_numbers(text, budget, fold(text))
        if [m.span() for m in folded_numbers] != [m.span() for m in ANSWER_NUMBER.finditer(text)]:
            differences.append(("numbers", text))
        at = line_starts(text)
        markers = candidates.matches(LIST_MARKER, text, budget, at)
        if [m.span() for m in markers] != [m.span() for m in LIST_MARKER.finditer(text)]:
            differences.append(("markers", text))
    assert differences == []
