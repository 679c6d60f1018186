"""``routing_number`` and ``bank_account``: US routing numbers, bank account numbers.

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

Account numbers: 4-30 digits, or 6-30 capital letters and digits with a run
of at least six digits (a bank code before the digits, as domestic numbers
abroad are written: ``NWBK60161331926819``, ``X0542811101000000123456``),
together or in groups joined by one kind of single space or hyphen, every
group holding a digit (so a capital word before a number is not taken into
it); 30, the longest national account number an IBAN carries. Labelled by an
account word ("account", "acct", "account number", "checking", "savings",
"a/c"): the closest label before the number, or after it when none is
before. Numbers with fewer than eight digits need that label right before
them ("acct 48213"). Not counted: amounts and counts
("account balance is 1500", "$1500", "1,500.00", "1500 USD", "12345678
points", "250000 reward points"), numbers labelled as something else
("order 1234 on your account", "call 8005550100", "Unix time 1767225600"),
masked or partial numbers ("account ending in 4321", "****4321"), digits
inside a hyphenated or underscored identifier ("Account ID acme-prod-4821"),
years, compact dates (YYYYMMDD), phone, SSN and zip+4 shapes, card numbers,
IBANs (the IBAN detector's) and routing numbers the routing detector takes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import regex
from stdnum import iban

from turncheck.worker.checks import scan
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.gates.engine import Seed
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
# Four digits that every number ``_ACCOUNT`` keeps holds (of its run of six, when it
# has letters), with a separator or none between each two.
_FOUR_DIGITS = re.compile("[0-9](?:[ -]?[0-9]){3}")
# How far from an account word's needle four digits of a number it labels can be: the
# label window before the number (60 characters; 40 after it) and the longest number
# (30 characters, 29 separators), whose run of six digits may be at its far end.
_NEEDLE_REACH = 120
# The longest national account number an IBAN carries.
_LONGEST = 30
# Groups of capitals and digits, each holding a digit, so "PIN 123456" is never one
# number; one kind of separator between them. The match starts at the first digit:
# the engine skips ahead to digits fast, and would try a pattern opening with a
# letter at every capital of the text. The capitals before it (a bank code) are
# looked behind for, and put back into the span by ``_with_bank_code``. "[0-9]"
# then "[0-9A-Z]*+", not "[0-9A-Z]++": a possessive first item stops the skipping.
_LETTERS_BEFORE = rf"(?<={_BEFORE}[A-Z]{{0,{_LONGEST - 6}}}+)"
_GROUP = "[A-Z]*+[0-9][0-9A-Z]*+"
_ACCOUNT = regex.compile(
    rf"{_LETTERS_BEFORE}[0-9][0-9A-Z]*+(?:([\ \-]){_GROUP}(?:\1{_GROUP})*+)?+{_AFTER}"
)
_SIX_DIGITS = re.compile("[0-9]{6}")
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


# Where an account word's needle stands, in any case (``candidates``): a number is read
# only near one. ``_RESYNC``: a character no number holds, where a scan from the left
# and one started there are in step.
NEEDLE_SEEDS = tuple(
    Seed.of("".join(f"[{c.upper()}{c}]" if c.isalpha() else re.escape(c) for c in needle))
    for needle in ACCOUNT_WORDS.needles
)
_RESYNC = regex.compile(r"[^0-9A-Z \-]", regex.REVERSE)
# A number that a needle counts for ends past 40 characters before it and starts at
# most 60 after it (``_needle_near``'s widest windows).
_NEEDLE_BEFORE, _NEEDLE_AFTER = 40, 60


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


def _with_bank_code(text: str, start: int, end: int) -> tuple[int, int]:
    """The span of the number ``_ACCOUNT`` found at ``start:end``, with the capitals
    glued before its first digit."""
    while start and "A" <= text[start - 1] <= "Z":
        start -= 1
    return start, end


def _is_iban(compact: str) -> bool:
    # A country code and check digits first: most codes are not, and are not validated.
    return compact[:2].isalpha() and compact[2:4].isdigit() and iban.is_valid(compact)


def _digit_count(run: str) -> int:
    """How many digits the account number ``run`` has; 0 when it cannot be one."""
    compact = run.replace(" ", "").replace("-", "")
    if len(compact) > _LONGEST:
        return 0
    if not compact.isdigit():
        # Letters: a bank code with the account's digits; an IBAN is the IBAN detector's.
        if _SIX_DIGITS.search(compact) is None or _is_iban(compact):
            return 0
        return sum(ch.isdigit() for ch in compact)
    sizes = tuple(len(g) for g in _GROUP_SPLIT.split(run))
    if len(sizes) > 1 and (sizes in _OTHER_SHAPES or min(sizes) < 2):
        return 0
    if len(compact) == 4 and compact[:2] in ("19", "20"):
        return 0  # a year
    if len(compact) == 8 and _COMPACT_DATE.fullmatch(compact):
        return 0
    if len(compact) < 4 or is_card_number(compact):
        return 0
    return len(compact)


def find_bank_account(text: str, ctx: DetectorContext) -> Iterator[tuple[int, int]]:
    """Spans of bank account numbers labelled as such; see the module docstring."""
    if text.isascii() and not _number_near_needle(text):
        return
    needles = None
    if ctx.candidates is not None and text.isascii():  # offsets of ``_needle_near``'s folding
        needles = ctx.candidates.get("bank.needles")
    # Keyword spans are found once, at the first candidate that needs them.
    labels: list[tuple[int, int]] | None = None
    routing_labels: list[tuple[int, int]] | None = None
    for match in _numbers(text, ctx.budget, needles):
        ctx.budget.check()
        start, end = _with_bank_code(text, *match.span())
        run = text[start:end]
        count = _digit_count(run)
        if not count:
            continue
        # Short numbers are mostly something else: only a label right before counts.
        before, after = (30, 0) if count < 8 else (60, 40)
        # ``label_is`` takes only a keyword wholly inside the windows, and every keyword
        # holds a needle: most numbers have none near them, and then the keywords of the
        # whole text are never looked for.
        if not _needle_near(text, start - before, end + after):
            continue
        if labels is None:
            labels = ACCOUNT_WORDS.all_in(text, ctx.budget)
        if not labels:  # no account word, no account number
            return
        # Without an account word within the label windows no label can claim it.
        if not overlaps(labels, start - before, end + after):
            continue
        if count == 9 and not any(ch.isalpha() for ch in run):
            if routing_labels is None:
                routing_labels = ROUTING_WORDS.all_in(text, ctx.budget)
            if _is_routing(text, start, end, routing_labels):
                continue
        if label_is(text, start, end, ACCOUNT_WORDS, OTHER_WORDS, before, after):
            yield start, end


def _numbers(
    text: str, budget: Budget, needles: tuple[int, ...] | None
) -> Iterator[regex.Match[str]]:
    """``_ACCOUNT``'s matches over the whole text; with ``needles`` (where a needle starts,
    ascending), only those near one. One scan goes forward through the stretches near
    needles; where a character no number holds (``_RESYNC``) stands between what it has
    read and the next stretch, a scan started after that character is in step with the
    whole text's, and takes over: the text between is never read."""
    if needles is None:
        yield from scan.finditer(_ACCOUNT, text, budget)
        return
    found: Iterator[regex.Match[str]] | None = None
    ahead: regex.Match[str] | None = None  # found past the last stretch, not given yet
    read_to = 0  # the end of the last match found
    for lo, hi in _stretches(needles):
        resync = _RESYNC.search(text, read_to, lo) if lo > read_to else None
        if found is None or resync is not None:
            # ``ahead``, if any, ends before the stretch: no needle there counts for it.
            found = scan.finditer(_ACCOUNT, text, budget, 0 if resync is None else resync.end())
            ahead = None
        while True:
            match = ahead if ahead is not None else next(found, None)
            ahead = None
            if match is None:
                return
            read_to = match.end()
            if match.start() > hi:
                ahead = match
                break
            yield match


def _stretches(needles: tuple[int, ...]) -> Iterator[tuple[int, int]]:
    """Where the numbers near ``needles`` start or end, as merged ``(lo, hi)`` stretches."""
    lo = hi = -1
    for at in needles:
        if hi >= 0 and at - _NEEDLE_BEFORE <= hi:
            hi = at + _NEEDLE_AFTER
            continue
        if hi >= 0:
            yield lo, hi
        lo, hi = max(0, at - _NEEDLE_BEFORE), at + _NEEDLE_AFTER
    if hi >= 0:
        yield lo, hi


def _needle_near(text: str, lo: int, hi: int) -> bool:
    """Whether ``text[lo:hi]`` holds, case-folded as ``Keywords.all_in`` reads it, a needle
    of an account word: every account word wholly inside it does."""
    window = text[max(lo, 0) : hi].casefold().replace("\u0307", "")
    return any(needle in window for needle in ACCOUNT_WORDS.needles)


def _number_near_needle(text: str) -> bool:
    """Whether an ASCII ``text`` has four digits near a needle of an account word: a
    number that a label counts for has its four (``_FOUR_DIGITS``) within reach of the
    label's needle."""
    lowered = text.lower()  # ASCII: the case folding of ``Keywords.all_in``, offsets kept
    for needle in ACCOUNT_WORDS.needles:
        at = lowered.find(needle)
        while at >= 0:
            lo, hi = at - _NEEDLE_REACH, at + len(needle) + _NEEDLE_REACH
            if _FOUR_DIGITS.search(text, max(lo, 0), hi) is not None:
                return True
            at = lowered.find(needle, at + 1)
    return False
