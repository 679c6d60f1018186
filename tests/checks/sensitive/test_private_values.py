"""find_private_values: values the customer entered privately, found by salted digest."""

import hashlib
import random
import sys

import pytest
import regex

from turncheck.worker.checks.budget import Budget, BudgetSpent
from turncheck.worker.checks.sensitive.context import DetectorContext
from turncheck.worker.checks.sensitive.private_forms import (
    MAX_VALUE_WORDS,
    PUNCTUATION,
    WORD,
    grouped,
)
from turncheck.worker.checks.sensitive.private_values import (
    _matching_span,
    find_private_values,
    possible_starts,
)
from turncheck.worker.turns.structs import PrivateValue


def private(value: str, salt: str = "s4lt") -> PrivateValue:
    return PrivateValue(
        salt=salt, sha256=hashlib.sha256((salt + value).encode("utf-8")).hexdigest()
    )


def found(text: str, *values: PrivateValue) -> list[str]:
    ctx = DetectorContext(private_values=values)
    return [text[start:end] for start, end in find_private_values(text, ctx)]


@pytest.mark.parametrize(
    ("value", "text", "expected"),
    [
        ("4111111111111111", "I see card 4111111111111111 on file.", ["4111111111111111"]),
        ("4111111111111111", "I see card 4111 1111 1111 1111.", ["4111 1111 1111 1111"]),
        ("555-010-2030", "Is (555-010-2030) still right?", ["555-010-2030"]),
        ("Jane Q. Public", "Hello Jane Q. Public, welcome back!", ["Jane Q. Public"]),
        ("221B Baker Street", "Shipping to 221B\nBaker  Street, London.", ["221B\nBaker  Street"]),
        ("jane@example.com", "Confirmation goes to jane@example.com.", ["jane@example.com"]),
        ("X9-TRQ-551", "Code `X9-TRQ-551` accepted.", ["X9-TRQ-551"]),
    ],
)
def test_finds_a_repeated_private_value_with_exact_offsets(
    value: str, text: str, expected: list[str]
) -> None:
    """A value repeated word for word is found; punctuation, spacing and digit grouping do not hide it."""
    assert found(text, private(value)) == expected


@pytest.mark.parametrize(
    ("value", "text", "expected"),
    [
        ("0417", "PIN:0417.", ["0417"]),
        ("R7QK-22LP", "Reset: https://reset.example.com/?token=R7QK-22LP", ["R7QK-22LP"]),
        ("Hunter2-Zebra!", "Log in with pw=Hunter2-Zebra!&next=/home", ["Hunter2-Zebra!"]),
        ("jane@example.com", "[mail](mailto:jane@example.com?subject=Hi)", ["jane@example.com"]),
        ("4111111111111111", "card=4111-1111-1111-1111&ok", ["4111-1111-1111-1111"]),
        ("Maple Street", "Saved answer=Maple Street.", ["Maple Street"]),
        (
            "blue horse battery staple",
            "Is it blue horse battery staple?yes",
            ["blue horse battery staple"],
        ),
    ],
)
def test_finds_a_value_glued_to_punctuation_inside_a_word(
    value: str, text: str, expected: list[str]
) -> None:
    """A value glued to its label, a URL query or other punctuation is still found, exactly."""
    assert found(text, private(value)) == expected


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("4821", "We refunded $48.21 today."),
        ("4821", "That is 48,21 EUR."),
        ("0417", "The meeting is at 04:17."),
        ("shopwell", "Write to support@shopwell.example."),
        ("0417", "Order 904172:ok"),
    ],
)
def test_ignores_values_split_inside_numbers_names_and_longer_runs(value: str, text: str) -> None:
    """Decimal points, thousands commas and dots in names join, they do not separate."""
    assert found(text, private(value)) == []


@pytest.mark.parametrize(
    ("value", "text", "expected"),
    [
        ("482104170", "Account 482.104.170 is linked.", ["482.104.170"]),
        ("482104170", "Account 482.104.170 is linked.", ["482.104.170"]),
        ("48210417", "Account 4821 - 0417 is linked.", ["4821 - 0417"]),
        ("4821-0417", "Account 4821\t0417 is linked.", ["4821\t0417"]),
        ("4821 0417", "Account 4821  .  0417 is linked.", ["4821  .  0417"]),
        ("4821 0417", "Account 4821-0417 is linked.", ["4821-0417"]),
        ("4111111111111111", "Card 4111.1111 / 1111-1111 on file.", ["4111.1111 / 1111-1111"]),
        ("+1 555 010 2030", "Call +1.555.010.2030 today.", ["+1.555.010.2030"]),
        ("5550102030", "Phone:555/010/2030.", ["555/010/2030"]),
        ("5550102030", "(555.010.2030)", ["555.010.2030"]),
        ("4111111111111111", "Card 4111 - 1111 - 1111 - 1111.", ["4111 - 1111 - 1111 - 1111"]),
        ("4111 1111", "Card 4111 - 1111 - 1111 - 1111 - 22.", ["4111 - 1111"]),
        ("1111-1111-1111-22", "Card 4111 - 1111 - 1111 - 1111 - 22.", ["1111 - 1111 - 1111 - 22"]),
    ],
)
def test_finds_a_number_whatever_separates_its_digit_groups(
    value: str, text: str, expected: list[str]
) -> None:
    """A number typed as digits, or grouped by a space or hyphen, is found however the answer
    separates its groups: dots, slashes, tabs, double or spaced separators, mixed."""
    assert found(text, private(value)) == expected


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("48210417", "Account 4821.0418 is linked."),
        ("48210417", "Account 4821.0417 is a decimal, not grouped."),
        ("4821", "That is 48.21 today."),
        ("4821 0417", "Account 4821a0417 is linked."),
        ("48210417", "Account x4821.0417 is linked."),
        ("4111111111111112", "Card 4111 - 1111 - 1111 - 1111."),
        ("41111111111111", "Card 4111 - 1111 - 1111 - 1111."),
    ],
)
def test_ignores_other_numbers_and_decimals_when_regrouping(value: str, text: str) -> None:
    """Regrouping keeps every digit in order: another number, a decimal or a word is not it."""
    assert found(text, private(value)) == []


def test_finds_values_with_different_salts() -> None:
    """Each value is compared under its own salt."""
    text = "Your PIN 9931 and account 77-0042 are noted."
    assert found(text, private("9931", "a"), private("770042", "b")) == ["9931", "77-0042"]


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("4111111111111111", "Card ending 1111 only."),
        ("Jane", "Hello JANE, and Janet."),
        ("secret-code", "No value here, order #48213 at $1,249.99."),
    ],
)
def test_ignores_partial_or_differently_cased_values(value: str, text: str) -> None:
    """Part of a value, part of a word, or another case is not the value."""
    assert found(text, private(value)) == []


def test_returns_nothing_without_private_values() -> None:
    """With no private values there is nothing to find."""
    assert found("My card is 4111 1111 1111 1111") == []


def test_stops_when_the_budget_is_spent() -> None:
    """A spent budget raises BudgetSpent instead of running on."""
    ctx = DetectorContext(
        private_values=(private("x1"),), budget=Budget(deadline_s=0.0, clock=lambda: 1.0)
    )
    with pytest.raises(BudgetSpent):
        list(find_private_values("some words here", ctx))


def test_a_repeat_in_another_case_is_found_only_with_the_casefold_digest() -> None:
    """The producer opts in by sending the digest of the case-folded value as well."""
    import hashlib

    from turncheck.worker.checks.sensitive.context import DetectorContext
    from turncheck.worker.checks.sensitive.private_values import find_private_values
    from turncheck.worker.turns.structs import PrivateValue

    salt, value = "pepper", "Maple Street"
    exact = hashlib.sha256((salt + value).encode()).hexdigest()
    folded = hashlib.sha256((salt + value.casefold()).encode()).hexdigest()
    text = "We will ship to MAPLE STREET tomorrow."
    plain = DetectorContext(private_values=(PrivateValue(salt=salt, sha256=exact),))
    assert list(find_private_values(text, plain)) == []
    opted_in = DetectorContext(
        private_values=(PrivateValue(salt=salt, sha256=exact, sha256_casefold=folded),)
    )
    assert [text[s:e] for s, e in find_private_values(text, opted_in)] == ["MAPLE STREET"]


def test_a_long_text_read_in_windows_finds_what_one_window_finds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Windows of a few words, with the words either side as context, find the same runs, cut
    pieces and overlaps included, as the whole text read at once."""
    import random

    from turncheck.worker.checks.sensitive import private_values

    values = ["gate code 1234", "4111 1111 1111 1111", "R7QK-22LP", "Maple Street", "0417"]
    ctx = DetectorContext(private_values=tuple(private(v) for v in values))
    words = [
        *("PIN:0417.", "?token=R7QK-22LP", "answer=Maple", "Street", "gate", "code", "1234"),
        *("4111", "1111", "x", "the", "url=/a/b?c=d&e=f", '"Maple', 'Street"', "k:v,w"),
    ]
    rng = random.Random(5)
    for _ in range(60):
        text = "".join(rng.choice(words) + rng.choice([" ", "  ", "\n"]) for _ in range(80))
        monkeypatch.setattr(private_values, "ONE_WINDOW_CHARS", 10**9)
        whole = list(find_private_values(text, ctx))
        monkeypatch.setattr(private_values, "ONE_WINDOW_CHARS", 0)
        monkeypatch.setattr(private_values, "WINDOW_WORDS", rng.choice([1, 2, 7, 30]))
        assert list(find_private_values(text, ctx)) == whole


def test_a_megabyte_of_words_stops_when_the_budget_is_spent() -> None:
    """Hashing every run of a long text is the turn's budget's to spend, not the worker's."""
    ctx = DetectorContext(private_values=(private("x1"),), budget=Budget.of_ms(20))
    with pytest.raises(BudgetSpent):
        list(find_private_values("gate code 1234 " * 70_000, ctx))


def test_many_values_in_one_text_are_all_found() -> None:
    """Ten values, each written twice and one of them grouped otherwise: every copy is
    found."""
    values = [f"PIN {1000 + 7 * i}" for i in range(10)]
    text = " ".join(f"({v}) and «{v}»;" for v in values) + " card 4111-1111 1111-1111"
    got = found(text, *map(private, values), private("4111111111111111"))
    assert got == [c for v in values for c in (v, v)] + ["4111-1111 1111-1111"]


def test_every_word_that_starts_a_matching_run_is_among_the_possible_starts() -> None:
    """``possible_starts`` never leaves out a word from which a run has a form in the hits,
    whatever the punctuation, digit grouping or Unicode letters and digits."""
    rng = random.Random(21)
    vocabulary = [
        *("PIN:0417.", "(555)", "010-2030", "4111", "1111-1111", "+1", "555/010/2030", "-"),
        # Letters and digits beyond ASCII: Arabic-Indic and full-width digits, a combining accent.
        *("«STRASSE»", "Straße", "٤٢", "４１", "e\u0301", '"Maple', 'Street"', "...", "$48.21"),  # noqa: RUF001
        *("gate", "code", "9146", "a.b", "“quoted”", "*", "k:v,w", "x-", "-y", "((", "--"),
    ]
    for _ in range(300):
        tokens = rng.choices(vocabulary, k=rng.randint(1, 12))
        runs = [
            " ".join(tokens[i : i + k])
            for i in range(len(tokens))
            for k in range(1, MAX_VALUE_WORDS + 1)
        ]
        forms = [f for run in runs for f in _forms(run)]
        hits = set(rng.sample(forms, min(len(forms), rng.randint(1, 4))))
        possible = set(possible_starts(hits, tokens))
        for i in range(len(tokens)):
            for k in range(1, min(MAX_VALUE_WORDS, len(tokens) - i) + 1):
                joined = " ".join(tokens[i : i + k])
                if _matching_span(joined, 0, len(joined), hits) is not None:
                    assert i in possible, (tokens, hits, i, k)


def _forms(run: str) -> list[str]:
    """A run as written, stripped, compact and regrouped: what a hit may be."""
    stripped = run.strip(PUNCTUATION)
    return [run, stripped, stripped.replace(" ", "").replace("-", ""), *grouped(stripped)]


def test_the_word_pattern_cuts_every_character_as_regex_reads_non_space() -> None:
    """``WORD`` (stdlib ``re``) finds the same words as ``regex``'s ``\\S+`` in a text of
    every code point: both read the same characters as white space."""
    every = "".join(map(chr, range(sys.maxunicode + 1)))
    assert [m.span() for m in WORD.finditer(every)] == [
        m.span() for m in regex.compile(r"\S+").finditer(every)
    ]
