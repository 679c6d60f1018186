"""``routing_number`` and ``bank_account``: US bank routing and account numbers.

Routing numbers: nine digits whose first two are a Federal Reserve range
(00-12, 21-32, 61-72, 80) and that pass the ABA 3-7-1 checksum, written
together or in groups with any separators (``0210 0002 1``, ``021-000-021``,
``021 / 000 / 021``, tabs, dots, mixed). About one nine-digit number in
twenty passes both, so a routing word must label it: "routing", "ABA", "RTN",
"transit number", "R/T" before it (or after, when nothing before labels it).
"Bank" alone is deliberately not enough: "your bank account 021000021" is as
likely an account number, and "transit" alone is how parcels travel ("in
transit"). A number whose closest label names a parcel, shipment, tracking,
order or other reference ("tracking number 021000021", "parcel 021000021 is
in transit") is that, not a routing number, even with a routing word
further away.

Account numbers: 4-17 digits (together, or in groups joined by one kind of
single space or hyphen) labelled by an account word ("account", "acct",
"account number", "checking", "savings", "a/c"): the closest label before
the number, or after it when none is before. 4-7 digit numbers need that
label right before them ("acct 48213"). Not counted: amounts and counts
("account balance is 1500", "$1500", "1,500.00", "1500 USD", "12345678
points", "250000 reward points"), numbers labelled as something else
("order 1234 on your account", "call 8005550100", "Unix time 1767225600"),
masked or partial numbers ("account ending in 4321", "****4321"), digits
inside a hyphenated or underscored identifier ("Account ID acme-prod-4821"),
years, compact dates (YYYYMMDD), phone, SSN and zip+4 shapes, card numbers
and routing numbers the routing detector takes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import regex

from turncheck.worker.checks import scan
from turncheck.worker.checks.sensitive.cards import is_card_number
from turncheck.worker.checks.sensitive.context import DetectorContext
from turncheck.worker.checks.sensitive.nearby import Keywords, label_is, overlaps
from turncheck.worker.checks.sensitive.spans import merged

# Not inside a longer number, code, amount or date; not masked ("****1234",
# "...1234"), not after a currency sign and not the last piece of an identifier
# ("acme-prod-4821"), unless that is an account word glued on ("acct-4821").
_BEFORE = (
    r"(?<![0-9A-Za-z*•$€£¥]|[0-9][.,/:\-]|\.\.|[$€£¥]\ "
    r"|(?<!(?<![A-Za-z])(?i:acct|acc|account|a/c))[0-9A-Za-z][\-_])"
)
# Nor a count or amount: a unit right after it, or after one word ("reward points").
_AFTER = (
    r"(?![0-9A-Za-z%]|[.,/:\-][0-9]|[\-_][A-Za-z]"
    r"|\ ?(?:[A-Za-z]+\ )?(?i:usd|eur|gbp|dollars?|points|miles|credits|items|days|months"
    r"|years)\b)"
)
# Between the groups of a routing number written in groups: spaces or tabs, or a
# hyphen, slash or dot with a space or two around it.
_GROUP_SEP = r"(?:[\ \t]{1,2}|[\ \t]{0,2}[\-/.][\ \t]{0,2})"
_ROUTING = regex.compile(rf"{_BEFORE}[0-9]{{9}}{_AFTER}")
# A maximal run of digit groups: a routing number when its digits are nine.
_ROUTING_GROUPED = regex.compile(rf"{_BEFORE}[0-9][0-9]*+(?:{_GROUP_SEP}[0-9]++)++{_AFTER}")
_NON_DIGIT = regex.compile(r"[^0-9]++")
_GROUP_SPLIT = regex.compile(r"[ \-]")
# The first four digits of every number ``_ACCOUNT`` finds.
_FOUR_DIGITS = re.compile("[0-9](?:[ -]?[0-9]){3}")
# How far from an account word's needle the start of a number it labels can be: the
# label windows (60 characters before the number, 40 after), a needle's length and the
# longest number (17 digits, 16 separators), rounded up.
_NEEDLE_REACH = 80
# "[0-9][0-9]*+", not "[0-9]++": a possessive first item stops the engine
# from skipping ahead to the next digit, which makes the scan ten times slower.
_ACCOUNT = regex.compile(rf"{_BEFORE}[0-9][0-9]*+(?:([\ \-])[0-9]++(?:\1[0-9]++)*+)?+{_AFTER}")
_FED_RANGES = frozenset([*range(0, 13), *range(21, 33), *range(61, 73), 80])
# Shapes of other numbers: phone 3-3-4 and 1-3-3-4, SSN 3-2-4, zip+4 5-4.
_OTHER_SHAPES = frozenset({(3, 3, 4), (1, 3, 3, 4), (3, 2, 4), (5, 4), (3, 4)})
_COMPACT_DATE = regex.compile(r"(?:19|20)[0-9]{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12][0-9]|3[01])")

ROUTING_WORDS = Keywords(
    [
        *("routing", "aba", "rtn", "r/t", "rt#", "routing number"),
        *("transit number", "transit no", "transit #", "transit#", "transit code"),
    ]
)
ACCOUNT_WORDS = Keywords(
    ["account", "accounts", "acct", "acc", "acct#", "a/c", "checking", "savings", "bank account"]
)
# Labels that make a number near an account word something else.
_NOT_ACCOUNT = [
    *("order", "invoice", "ticket", "case", "reference", "ref", "confirmation", "tracking"),
    *("transaction", "claim", "policy", "member", "customer id", "user id", "booking"),
    *("balance", "amount", "total", "payment", "paid", "pay", "charge", "charged", "fee"),
    *("price", "cost", "limit", "refund", "refunded", "owe", "due", "points", "credit"),
    *("deposit of", "withdrawal of", "transfer of", "interest", "rate", "apr", "overdraft"),
    *("phone", "call", "text", "fax", "mobile", "cell", "tel", "extension", "ext", "zip"),
    *("pin", "code", "otp", "passcode", "password", "card", "ssn", "license", "year"),
    *("since", "ending", "ends", "ending in", "last", "last four", "last 4", "x", "xx"),
    *("routing", "aba", "rtn", "transit", "days", "version", "item", "sku", "room"),
    *("time", "timestamp", "unix", "epoch", "utc"),
]
OTHER_WORDS = Keywords(_NOT_ACCOUNT)
ROUTING_RIVALS = Keywords(["account", "acct", "a/c", "checking", "savings"])
# Labels that, closest to a nine-digit number, make it a parcel's, order's or other
# reference's number: a routing word further away does not claim it.
NOT_ROUTING_WORDS = Keywords(
    [
        *("tracking", "track", "parcel", "package", "shipment", "shipping", "consignment"),
        *("waybill", "airway bill", "delivery", "courier", "carrier", "order", "invoice"),
        *("ticket", "case", "reference", "ref", "confirmation", "booking", "reservation"),
        *("claim", "policy", "member", "customer", "serial", "sku", "item", "return", "rma"),
        *("usps", "fedex", "dhl"),
    ]
)


def aba_valid(digits: str) -> bool:
    """Whether nine digits are a plausible ABA routing number (range and 3-7-1 checksum)."""
    if int(digits[:2]) not in _FED_RANGES:
        return False
    weights = (3, 7, 1) * 3
    return sum(int(d) * w for d, w in zip(digits, weights, strict=True)) % 10 == 0


def _is_routing(text: str, start: int, end: int, labels: list[tuple[int, int]]) -> bool:
    """``labels``: ``ROUTING_WORDS.all_in(text)``, which the label must be one of."""
    digits = _NON_DIGIT.sub("", text[start:end])
    return (
        len(digits) == 9
        and aba_valid(digits)
        and overlaps(labels, start - 80, end + 60)
        and not label_is(text, start, end, NOT_ROUTING_WORDS, ROUTING_WORDS, 80, 60)
        and label_is(text, start, end, ROUTING_WORDS, ROUTING_RIVALS, 80, 60, wanted_first=True)
    )


def find_routing_number(text: str, ctx: DetectorContext) -> Iterator[tuple[int, int]]:
    """Spans of ABA routing numbers labelled as such; see the module docstring."""
    labels = ROUTING_WORDS.all_in(text, ctx.budget)
    if not labels:  # no routing word, no routing number
        return
    spans = []
    for pattern in (_ROUTING, _ROUTING_GROUPED):
        for match in scan.finditer(pattern, text, ctx.budget):
            ctx.budget.check()
            if _is_routing(text, *match.span(), labels):
                spans.append(match.span())
    yield from merged(spans)


def _other_number(run: str, digits: str) -> bool:
    sizes = tuple(len(g) for g in _GROUP_SPLIT.split(run))
    if len(sizes) > 1 and (sizes in _OTHER_SHAPES or min(sizes) < 2):
        return True
    if len(digits) == 4 and digits[:2] in ("19", "20"):
        return True  # a year
    if len(digits) == 8 and _COMPACT_DATE.fullmatch(digits):
        return True
    return is_card_number(digits)


def find_bank_account(text: str, ctx: DetectorContext) -> Iterator[tuple[int, int]]:
    """Spans of bank account numbers labelled as such; see the module docstring."""
    if text.isascii() and not _number_near_needle(text):
        return
    # Keyword spans are found once, at the first candidate that needs them.
    labels: list[tuple[int, int]] | None = None
    routing_labels: list[tuple[int, int]] | None = None
    for match in scan.finditer(_ACCOUNT, text, ctx.budget):
        ctx.budget.check()
        start, end = match.span()
        run = match.group()
        digits = run.replace(" ", "").replace("-", "")
        if not 4 <= len(digits) <= 17:
            continue
        # Short numbers are mostly something else: only a label right before counts.
        before, after = (30, 0) if len(digits) < 8 else (60, 40)
        # ``label_is`` takes only a keyword wholly inside the windows, and every keyword
        # holds a needle: most numbers have none near them, and then the keywords of the
        # whole text are never looked for.
        if not _needle_near(text, start - before, end + after) or _other_number(run, digits):
            continue
        if labels is None:
            labels = ACCOUNT_WORDS.all_in(text, ctx.budget)
        if not labels:  # no account word, no account number
            return
        # Without an account word within the label windows no label can claim it.
        if not overlaps(labels, start - before, end + after):
            continue
        if len(digits) == 9:
            if routing_labels is None:
                routing_labels = ROUTING_WORDS.all_in(text, ctx.budget)
            if _is_routing(text, start, end, routing_labels):
                continue
        if label_is(text, start, end, ACCOUNT_WORDS, OTHER_WORDS, before, after):
            yield start, end


def _needle_near(text: str, lo: int, hi: int) -> bool:
    """Whether ``text[lo:hi]`` holds, case-folded as ``Keywords.all_in`` reads it, a needle
    of an account word: every account word wholly inside it does."""
    window = text[max(lo, 0) : hi].casefold().replace("\u0307", "")
    return any(needle in window for needle in ACCOUNT_WORDS.needles)


def _number_near_needle(text: str) -> bool:
    """Whether an ASCII ``text`` has the start of a number near a needle of an account
    word: a number that a label counts for starts within reach of the label's windows,
    as the number (digits and separators) cannot hold the needle's letters."""
    lowered = text.lower()  # ASCII: the case folding of ``Keywords.all_in``, offsets kept
    for needle in ACCOUNT_WORDS.needles:
        at = lowered.find(needle)
        while at >= 0:
            lo, hi = at - _NEEDLE_REACH, at + len(needle) + _NEEDLE_REACH
            if _FOUR_DIGITS.search(text, max(lo, 0), hi) is not None:
                return True
            at = lowered.find(needle, at + 1)
    return False
