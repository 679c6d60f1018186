"""``card``: payment card numbers (PANs).

What counts: 13-19 digits, written together or grouped the way cards are
printed (4-4-4-4, 4-4-4-4-3, 4-4-4-1..3, Amex 4-6-5, Diners 4-6-4) or read
back digit by digit ("4 5 3 9 1 4 8 8 ...", commas allowed between the
groups of four: "4 5 3 9, 1 4 8 8, ..."). Between two groups any separator a
writer uses, mixed or not: one to three spaces or tabs, a hyphen or slash
with up to two spaces around it ("4111 - 1111", any Unicode dash is a hyphen
by then), or a dot between two digits or spaced on both sides ("4111.1111",
"4111 . 1111": not a full stop and a space); a line break may stand
in for one where the number wraps ("4539 1488\n0343 6467"). The checksum is
what makes a wide choice of separators safe: the digits must pass the Luhn
check AND start with a real issuer prefix at a length that issuer uses:

- Visa 4: 13, 16, 19; Mastercard 51-55, 2221-2720: 16; Amex 34, 37: 15;
- Discover 6011, 644-649, 65, 622126-622925: 16-19; JCB 3528-3589: 16-19;
- Diners 300-305, 36, 38-39: 14-19; UnionPay 62: 16-19; Mir 2200-2204: 16-19;
- Maestro 5018, 5020, 5038, 5893, 6304, 6759, 6761-6763: 13-19.

A grouped card followed by more groups ("4111 1111 1111 1111 123", a CVV)
still counts when its leading groups alone are a card.

What does not count: Maestro's broad ranges (50, 56-59, 60, 61, 63, 66-69
outside the four-digit prefixes above) and 12-digit cards, left out because
they match too many ordinary numbers; masked numbers ("**** 1111"); a digit
run glued to letters or inside a longer one (tracking numbers, timestamps,
IBANs); a run preceded by a number-bearing code ("DE89 3704 ..."); groups
not printed the way cards are (dates 2026-01-15, phone numbers 3-3-4, amounts
1,249.99, times 10:30); a product barcode labelled as one (EAN, UPC, GTIN,
barcode, ISBN: "EAN 4006381333931") when no card word is closer to it;
and anything failing Luhn or the issuer table.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice

import regex
from stdnum import luhn

from turncheck.worker.checks import scan
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.sensitive.context import DetectorContext
from turncheck.worker.checks.sensitive.nearby import Keywords, label_is, overlaps

# A maximal run of digit groups joined by separators (spaces or tabs; a hyphen
# or slash, spaced or not; a dot between digits or with spaces on both sides,
# not a full stop and a space)
# or, in a number read digit by digit, by ", " ("4 5 3 9, 1 4 8 8, ...").
# Possessive, so a run is never cut short to fit: a prefix is chosen below, on
# purpose. Not after a letter, digit or decimal point, nor after a code that
# holds a digit ("DE89 3704 ...", "A1 4111 ...": an IBAN or some reference).
_SEP = r"(?:[\ \t]{0,2}[\-/][\ \t]{0,2}|\.|[\ \t]{1,2}\.[\ \t]{1,2}|[\ \t]{1,3})"
_RUN = regex.compile(
    rf"""
    (?<![0-9A-Za-z]|[0-9][.,]|[0-9][0-9A-Za-z]*[\ \-]
       |[A-Za-z]{{2}}[0-9]{{2}}(?:\ [0-9A-Za-z]{{4}})*\ )
    # "[0-9][0-9]*+", not "[0-9]++": a possessive first item stops the engine
    # from skipping ahead to the next digit.
    [0-9][0-9]*+(?:(?:{_SEP}|,\ (?=[0-9]\ [0-9](?![0-9])))[0-9]++)*+
    """,
    regex.VERBOSE,
)
_GROUP = regex.compile(r"[0-9]++")
# Digit by digit, the groups a reader pauses between: "4 5 3 9".
_SPOKEN_GROUP = regex.compile(r"[0-9](?:\ [0-9])*+")
# Where a number wraps: a line break, maybe indented, then more digits.
_WRAP = regex.compile(r"[\ \-]?\r?\n[\ \t]*+(?=[0-9])")
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
    (2200, 2204, 4, frozenset(range(16, 20))),  # Mir
    # Maestro: only its four-digit prefixes; its broad ranges would match too much.
    *((p, p, 4, frozenset(range(13, 20))) for p in (5018, 5020, 5038, 5893, 6304, 6759)),
    (6761, 6763, 4, frozenset(range(13, 20))),
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
    if all(s == 1 for s in sizes):
        return True  # digit by digit
    return all(s == 4 for s in sizes[:-1]) and 1 <= sizes[-1] <= 4


def is_card_number(digits: str) -> bool:
    """Whether a bare digit string is a card number by issuer, length and Luhn."""
    return 13 <= len(digits) <= 19 and _issuer_length_ok(digits) and luhn.is_valid(digits)


# A product's barcode passes Luhn now and then ("EAN 4006381333931"): labelled as one,
# and no card word closer, it is not a card.
_BARCODE_WORDS = Keywords(
    [
        *("ean", "ean-13", "ean13", "ean-8", "ean8", "upc", "upc-a", "upc-e", "gtin"),
        *("gtin-13", "gtin-14", "barcode", "bar code", "isbn", "isbn-13", "jan", "itf-14"),
    ]
)
_CARD_WORDS = Keywords(
    [
        *("card", "cards", "credit", "debit", "visa", "mastercard", "amex", "discover"),
        *("pan", "cc", "jcb", "diners", "unionpay", "maestro", "payment", "charge"),
    ]
)
_BARCODE_BEFORE_CHARS = 40
_BARCODE_AFTER_CHARS = 24

# A candidate: its groups as (start, end, digits), in order.
_Groups = list[tuple[int, int, str]]
# A card has at most 19 digits, so at most 19 groups: a run's later ones are never read.
_MOST_GROUPS = 19
_CHUNK = regex.compile(r"[^,]++")


def _groups(text: str, start: int, end: int) -> _Groups:
    """The first groups of digits in ``text[start:end]``, as many as a card can have."""
    found = islice(_GROUP.finditer(text, start, end), _MOST_GROUPS)
    return [(m.start(), m.end(), m.group()) for m in found]


def _spoken(text: str, start: int, end: int, budget: Budget) -> _Groups | None:
    """Groups of a number read digit by digit with commas between them; None if it is not."""
    groups: _Groups = []
    for chunk in _CHUNK.finditer(text, start, end):
        budget.check()
        group = _SPOKEN_GROUP.fullmatch(text, chunk.start() + (chunk.start() > start), chunk.end())
        if group is None:
            return None
        groups.append((group.start(), group.end(), group.group().replace(" ", "")))
    return groups


def _wrapped(text: str, groups: _Groups, end: int) -> tuple[_Groups, int]:
    """``groups`` continued over line breaks while the number can still grow."""
    digit_count = sum(len(g[2]) for g in groups)
    # Under 19 digits, ``groups`` holds all of its groups, the last one's end included.
    while digit_count < 19 and (wrap := _WRAP.match(text, end)) is not None:
        more = _RUN.match(text, wrap.end())
        if more is None:
            break
        extra = _groups(text, *more.span())
        groups, end = groups + extra, more.end()
        digit_count += sum(len(g[2]) for g in extra)
    return groups, end


def find_card(text: str, ctx: DetectorContext) -> Iterator[tuple[int, int]]:
    """Spans of card numbers in ``text``; see the module docstring for what counts."""
    resume = 0  # the end of the last card: a wrapped card's later lines are inside it
    barcode_words = _BARCODE_WORDS.all_in(text, ctx.budget)
    lines = "\n" in text or "\r" in text
    for match in scan.finditer(_RUN, text, ctx.budget):
        ctx.budget.check()
        start, end = match.span()
        if start < resume:
            continue
        wraps = lines and (
            text[end : end + 1] in ("\n", "\r")
            or (text[end + 1 : end + 2] in ("\n", "\r") and text[end] in " -")
        )
        if end - start < 13 and not wraps:  # fewer than 13 digits, separators or not
            continue
        if "," in match.group():
            spoken = _spoken(text, start, end, ctx.budget)
            if spoken is None:
                continue
            groups = spoken
        else:
            groups = _groups(text, start, end)
            if wraps:
                groups, end = _wrapped(text, groups, end)
        if _GLUED_AFTER.match(text, end):
            continue
        card_end = _leading_card(text, groups)
        if card_end is None and "," not in match.group():
            # "Card 2 - 4111 1111 ...": a list number joined on by another separator.
            for i in _boundaries(text, groups):
                card_end = _leading_card(text, groups[i:])
                if card_end is not None:
                    start = groups[i][0]
                    break
        if card_end is not None:
            resume = card_end
            if not _labelled_barcode(text, start, card_end, barcode_words):
                yield start, card_end


def _labelled_barcode(text: str, start: int, end: int, words: list[tuple[int, int]]) -> bool:
    lo, hi = start - _BARCODE_BEFORE_CHARS, end + _BARCODE_AFTER_CHARS
    return overlaps(words, lo, hi) and label_is(
        text,
        start,
        end,
        _BARCODE_WORDS,
        _CARD_WORDS,
        _BARCODE_BEFORE_CHARS,
        _BARCODE_AFTER_CHARS,
    )


def _leading_card(text: str, groups: _Groups) -> int | None:
    """The end of the whole run, else of the longest run of leading groups, that is a card."""
    for count in range(min(len(groups), _MOST_GROUPS), 0, -1):
        head = groups[:count]
        digits = "".join(g[2] for g in head)
        if count == 1 < len(groups) and _GLUED_AFTER.match(text, head[0][1]):
            return None  # a decimal point: "4111111111111111.50" is an amount
        if _card_like([len(g[2]) for g in head]) and is_card_number(digits):
            return head[-1][1]
    return None


def _boundaries(text: str, groups: _Groups) -> Iterator[int]:
    """Groups after which a card may start: the separator before differs from the one after
    ("2 - 4111 1111"), so the run is two numbers side by side, not one cut anywhere."""
    for i in range(1, min(len(groups) - 1, _MOST_GROUPS)):
        before = text[groups[i - 1][1] : groups[i][0]]
        if before != text[groups[i][1] : groups[i + 1][0]]:
            yield i
