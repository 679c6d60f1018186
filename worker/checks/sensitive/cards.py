"""``card``: payment card numbers (PANs).

What counts: 13-19 digits, written together or grouped the way cards are
printed (4-4-4-4, 4-4-4-4-3, 4-4-4-1..3, Amex 4-6-5, Diners 4-6-4) with one
kind of single separator (space or hyphen), that pass the Luhn check AND
start with a real issuer prefix at a length that issuer uses:

- Visa 4: 13, 16, 19; Mastercard 51-55, 2221-2720: 16; Amex 34, 37: 15;
- Discover 6011, 644-649, 65, 622126-622925: 16-19; JCB 3528-3589: 16-19;
- Diners 300-305, 36, 38-39: 14-19; UnionPay 62: 16-19.

A grouped card followed by more groups ("4111 1111 1111 1111 123", a CVV)
still counts when its leading groups alone are a card.

What does not count: Maestro-only prefixes (50, 56-59, 60, 61, 63, 66-69
outside the ranges above) and 12-digit cards, left out because they match
too many ordinary numbers; masked numbers ("**** 1111"); a digit run glued
to letters or inside a longer one (tracking numbers, timestamps, IBANs); a
run preceded by a number-bearing code ("DE89 3704 ..."); and anything
failing Luhn or the issuer table.
"""

from __future__ import annotations

from collections.abc import Iterator

import regex
from stdnum import luhn

from worker.checks.sensitive.context import DetectorContext

# A maximal run of digit groups joined by single spaces or hyphens. Possessive,
# so a run is never cut short to fit: a prefix is chosen below, on purpose.
# Not after a letter, digit or decimal point, nor after a code that holds a
# digit ("DE89 3704 ...", "A1 4111 ...": an IBAN or some reference).
_RUN = regex.compile(
    r"""
    (?<![0-9A-Za-z]|[0-9][.,]|[0-9][0-9A-Za-z]*[\ \-]|[A-Za-z]{2}[0-9]{2}(?:\ [0-9A-Za-z]{4})*\ )
    # "[0-9][0-9]*+", not "[0-9]++": a possessive first item stops the engine
    # from skipping ahead to the next digit.
    [0-9][0-9]*+(?:[\ \-][0-9]++)*+
    """,
    regex.VERBOSE,
)
_GLUED_AFTER = regex.compile(r"[A-Za-z]|[.,][0-9]")

# (prefix low, prefix high, digits of the prefix, lengths)
_ISSUERS: tuple[tuple[int, int, int, frozenset[int]], ...] = (
    (4, 4, 1, frozenset({13, 16, 19})),
    (51, 55, 2, frozenset({16})),
    (2221, 2720, 4, frozenset({16})),
    (34, 34, 2, frozenset({15})),
    (37, 37, 2, frozenset({15})),
    (6011, 6011, 4, frozenset(range(16, 20))),
    (644, 649, 3, frozenset(range(16, 20))),
    (65, 65, 2, frozenset(range(16, 20))),
    (62, 62, 2, frozenset(range(16, 20))),  # UnionPay; holds Discover's 622126-622925
    (3528, 3589, 4, frozenset(range(16, 20))),
    (300, 305, 3, frozenset(range(14, 20))),
    (36, 36, 2, frozenset(range(14, 20))),
    (38, 39, 2, frozenset(range(14, 20))),
)


def _issuer_length_ok(digits: str) -> bool:
    n = len(digits)
    return any(
        low <= int(digits[:width]) <= high and n in lengths
        for low, high, width, lengths in _ISSUERS
    )


def _card_like(sizes: list[int]) -> bool:
    if len(sizes) == 1:
        return True
    if len(sizes) == 3:
        return sizes in ([4, 6, 5], [4, 6, 4])
    return all(s == 4 for s in sizes[:-1]) and 1 <= sizes[-1] <= 4


def is_card_number(digits: str) -> bool:
    """Whether a bare digit string is a card number by issuer, length and Luhn."""
    return 13 <= len(digits) <= 19 and _issuer_length_ok(digits) and luhn.is_valid(digits)


def find_card(text: str, ctx: DetectorContext) -> Iterator[tuple[int, int]]:
    """Spans of card numbers in ``text``; see the module docstring for what counts."""
    for match in _RUN.finditer(text):
        ctx.budget.check()
        start, end = match.span()
        if end - start < 13:  # fewer than 13 digits, separators or not
            continue
        if _GLUED_AFTER.match(text, end):
            continue
        run = match.group()
        groups = regex.split(r"[ \-]", run)
        separators = {run[i] for i in range(len(run)) if run[i] in " -"}
        if len(separators) > 1:
            continue
        # The whole run, else the longest run of leading groups that is a card.
        for count in range(len(groups), 0, -1):
            head = groups[:count]
            digits = "".join(head)
            if _card_like([len(g) for g in head]) and is_card_number(digits):
                yield start, start + sum(map(len, head)) + count - 1
                break
