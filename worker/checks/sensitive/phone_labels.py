"""What the words before a number say it is, for ``phone``: a phone number or an id.

``label`` reads the label words shortly before a number on its line ("phone:",
"call", "order", "tracking"): a phone word anywhere there wins ("call our order
desk"). ``labelled_numbers`` finds the numbers a phone word vouches for when no
numbering plan does: a national number written without its trunk 0 or a local
one ("call the customer back on 65 6332-7362", "Phone: 800-7224", "text
3333235"). After a phone word (phone, call, ring, text, dial, mobile, cell,
callback, contact number, reach ... on), with no id word (order, reference,
tracking, account ...) beside it, a run of 7 to 15 digits in phone-like groups
is a phone number: one unbroken run, or groups of two digits or more (the first
may be one, or an area code in parentheses) split by a space, a hyphen, a dot or
a comma and a space ("320, 695, 1086", as a voice agent writes a pause).

Not read as one, whatever the label: a date or a time, an SSN's 3-2-4, a
ZIP+4 (5-4 digits), a range of two years ("2019-2024"), a number glued to
letters or another digit group.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

import regex

from turncheck.worker.checks import scan
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.candidates import matches
from turncheck.worker.checks.gates.engine import Seed

# Label words shortly before a number (same line) say what it is: "phone: ..."
# vs "order ...". A phone word anywhere there wins: "call our order desk".
_PHONE_WORDS = (
    r"phone|phones|call|called|calling|callback|tel|telephone|mobile|cell|cellphone|text|"
    r"texting|sms|fax|whatsapp|dial|ring|reach|hotline|helpline|contact(?:'s)?[ ]number"
)
_ID_WORDS = (
    r"order|orders|tracking|invoice|account|acct|ref|reference|ticket|case|confirmation|"
    r"serial|po|item|product|part|model|transaction|receipt|booking|policy|claim|id|isbn|"
    r"sku|upc"
)
LABEL = regex.compile(
    rf"(?<!\p{{L}})(?:(?P<phone>{_PHONE_WORDS})|(?P<id>{_ID_WORDS}))(?!\p{{L}})",
    regex.IGNORECASE,
)
LABEL_CHARS = 32

# Not glued to an id (as ``phone``'s own shapes): no letter, digit, sign or "word-"
# just before; no letter or further digit group just after.
_BEFORE = r"(?<![\p{L}0-9_#+$€£]|[\p{L}0-9][\-./]|[0-9][ ,])"
_AFTER = r"(?![\p{L}0-9_]|[\-./,][0-9]|,[ ][0-9])"
_LABELLED = regex.compile(
    rf"{_BEFORE}(?:\([0-9]{{1,5}}\)[ ]?[0-9]{{2,6}}|[0-9]{{1,15}})"
    rf"(?:(?:[ .\-]|,[ ])[0-9]{{2,6}}){{0,5}}{_AFTER}"
)
_DIGITS = (7, 15)
# Where a labelled number may be: seven characters of digits and separators or more.
_DIGIT_RUN = regex.compile(r"[0-9][0-9 ().,\-]{6,}")
# Where a run starts: its first seven characters (``candidates``). ``phone``'s own runs,
# eight characters of a narrower class, start at these too.
DIGIT_RUN_SEEDS = (Seed.of(r"[0-9][0-9 ().,\-]{6}"),)
# Never a phone number, whatever the label says.
_DATE = re.compile(r"\(?[0-9]{1,2}\)?[ .\-][0-9]{1,2}[ .\-](?:19|20)[0-9]{2}(?![0-9])")
_TIME = re.compile(r"[0-9][:h][0-5][0-9]")
_SSN = re.compile(r"[0-9]{3}-[0-9]{2}-[0-9]{4}")
_YEARS = re.compile(r"(?:19|20)[0-9]{2}[ \-](?:19|20)[0-9]{2}")
_ZIP_PLUS_4 = re.compile(r"[0-9]{5}-[0-9]{4}")
# A ZIP+4 is one after a postal label or a US state's code ("Austin, TX 78701-1234").
_POSTAL = regex.compile(
    r"(?:(?<!\p{L})(?:zip|zipcode|postal|post[ ]?code|postcode)(?!\p{L})[^\n]{0,24}"
    r"|(?<![\p{L}])[A-Z]{2},?[ ])$",
    regex.IGNORECASE,
)


def label(text: str, start: int) -> str | None:
    """``"phone"``, ``"id"`` or ``None``: what the label words shortly before name."""
    kinds = _kinds(text, start)
    if "phone" in kinds:
        return "phone"
    return "id" if kinds else None


def _kinds(text: str, start: int) -> set[str | None]:
    window = text[max(0, start - LABEL_CHARS) : start]
    window = window[window.rfind("\n") + 1 :]
    return {match.lastgroup for match in LABEL.finditer(window)}


def zip_plus_4(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is a US ZIP+4 code: 5-4 digits after a postal label
    or a state's code."""
    if not _ZIP_PLUS_4.fullmatch(text, start, end):
        return False
    line_start = text.rfind("\n", 0, start) + 1
    return _POSTAL.search(text, max(line_start, start - 40), start) is not None


def labelled_numbers(
    text: str, budget: Budget, starts: Sequence[int] | None = None
) -> Iterator[tuple[int, int]]:
    """Yield ``(start, end)`` of each number a phone word shortly before vouches for;
    ``starts``: where ``DIGIT_RUN_SEEDS`` match (``candidates``), or None."""
    # Led by the digits, not the words: a text full of "call" and no number costs nothing.
    for run in matches(_DIGIT_RUN, text, budget, starts):
        # Room for "(" before the run and for the lookarounds after it.
        pos, endpos = max(0, run.start() - 1), min(len(text), run.end() + 2)
        for match in scan.finditer(_LABELLED, text, budget, pos, endpos):
            start, end = match.span()
            if _phone_like(text, start, end) and _kinds(text, start) == {"phone"}:
                yield start, end


def _phone_like(text: str, start: int, end: int) -> bool:
    if end - start < _DIGITS[0]:
        return False
    candidate = text[start:end]
    digits = sum("0" <= ch <= "9" for ch in candidate)
    if not _DIGITS[0] <= digits <= _DIGITS[1]:
        return False
    if _DATE.match(candidate) or _TIME.search(text, start, min(len(text), end + 3)):
        return False
    if _SSN.fullmatch(candidate) or _YEARS.fullmatch(candidate):
        return False
    return not zip_plus_4(text, start, end)
