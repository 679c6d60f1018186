"""``find_phone``: telephone numbers, international and North American.

Counts:
- international numbers written with ``+`` and a country code, in groups of
  digits split by single spaces, hyphens, dots or parentheses
  (``+44 20 7946 0958``, ``+1-202-555-0143``, ``+49 30 901820``,
  ``+15550102030``), when ``phonenumbers`` finds the length possible for
  that country;
- North American numbers 3-3-4 with separators (``(555) 010-2030``,
  ``555-010-2030``, ``555.010.2030``, ``555 010 2030``, ``1-800-555-0199``);
- a bare run of 10 digits (or 11 starting with 1) only when a phone word
  (phone, call, text, mobile, tel, fax, SMS, WhatsApp...) comes shortly before.

A North American shape is dropped when a label word shortly before it names
an id (order, tracking, invoice, account, ticket...) and none names a phone.

Does not count: SSNs (3-2-4), dates, times, ISO timestamps, prices, card
numbers (4-4-4-4), IP addresses, versions, ZIP+4 codes, order or ticket ids
(a number glued to letters, ``#`` or another digit group: ``ORD-555-010-2030``,
``#5550102030``), a digit run inside a longer run, and national formats of
other countries without ``+`` (``020 7946 0958``).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

import phonenumbers
import regex

from worker.checks.sensitive.context import DetectorContext
from worker.checks.sensitive.spans import merged

# Not glued to an id: no letter, digit, ``#``, or "word-"/"1." just before; no
# further digit group just after.
_BEFORE = r"(?<![\p{L}0-9_#+$€£]|[\p{L}0-9][\-./]|[0-9][ ,])"
_AFTER = r"(?![\p{L}0-9_]|[\-./,][0-9])"

_INTERNATIONAL = regex.compile(
    rf"""{_BEFORE}
    \+[0-9]{{1,3}}
    (?:(?:[ .\-]|[ ]?\((?=[0-9]{{1,4}}\)))?\(?[0-9]{{1,5}}\)?){{1,6}}
    {_AFTER}""",
    regex.VERBOSE,
)
_NANP = regex.compile(
    rf"""{_BEFORE}
    (?:1[ .\-]?)?
    (?:\([0-9]{{3}}\)[ ]?[0-9]{{3}}[ .\-]|[0-9]{{3}}(?P<sep>[ .\-])[0-9]{{3}}(?P=sep))
    [0-9]{{4}}
    {_AFTER}""",
    regex.VERBOSE,
)
_BARE = regex.compile(rf"{_BEFORE}1?[2-9][0-9]{{9}}{_AFTER}")
# Label words shortly before a number (same line) say what it is: "phone: ..."
# vs "order ...". A phone word anywhere there wins: "call our order desk".
_LABEL = regex.compile(
    r"(?<!\p{L})(?:(?P<phone>phone|phones|call|called|calling|tel|telephone|mobile|cell|"
    r"cellphone|text|texting|sms|fax|whatsapp|dial|ring|reach|hotline|helpline)"
    r"|(?P<id>order|orders|tracking|invoice|account|acct|ref|reference|ticket|case|"
    r"confirmation|serial|po|item|product|part|model|transaction|receipt|booking|"
    r"policy|claim|id|isbn|sku|upc))(?!\p{L})",
    regex.IGNORECASE,
)
_LABEL_CHARS = 32
# Stretches of digits and separators long enough to hold a number: the shape
# patterns run only around these, not at every position of the text.
_RUN = regex.compile(r"[0-9][0-9 ().\-]{7,}")


def _label(text: str, start: int) -> str | None:
    """``"phone"``, ``"id"`` or ``None``: what the label words shortly before name."""
    window = text[max(0, start - _LABEL_CHARS) : start]
    window = window[window.rfind("\n") + 1 :]
    kinds = {match.lastgroup for match in _LABEL.finditer(window)}
    if "phone" in kinds:
        return "phone"
    return "id" if kinds else None


@lru_cache(maxsize=4096)  # an agent repeats its own hotline in turn after turn
def _possible(candidate: str) -> bool:
    try:
        number = phonenumbers.parse(candidate, None)
    except phonenumbers.NumberParseException:
        return False
    return phonenumbers.is_possible_number(number)


def _international(text: str, start: int, end: int) -> int | None:
    """End of the longest prefix of ``text[start:end]`` that is a possible number."""
    while True:
        candidate = text[start:end]
        digits = sum("0" <= ch <= "9" for ch in candidate)
        if digits < 7:
            return None
        if digits <= 15 and _possible(candidate):
            return end
        # "+1 202 555 0143 2 times": the last group may not belong to the number.
        cut = max(candidate.rfind(sep) for sep in " .-(")
        if cut <= 0:
            return None
        end = start + len(candidate[:cut].rstrip(" .-("))


def find_phone(text: str, ctx: DetectorContext) -> Iterator[tuple[int, int]]:
    """Yield ``(start, end)`` of each phone number in ``text``."""
    spans: list[tuple[int, int]] = []
    for run in _RUN.finditer(text):
        # Room for a "+" or "(" before the run and for the lookarounds after it.
        pos, endpos = max(0, run.start() - 2), run.end() + 2
        if "+" in text[pos : run.start()]:
            for match in _INTERNATIONAL.finditer(text, pos, endpos):
                end = _international(text, match.start(), match.end())
                if end is not None:
                    spans.append((match.start(), end))
        for match in _NANP.finditer(text, pos, endpos):
            if _label(text, match.start()) != "id":
                spans.append(match.span())
        for match in _BARE.finditer(text, pos, endpos):
            if _label(text, match.start()) == "phone":
                spans.append(match.span())
    yield from merged(spans)


def warm_up() -> None:
    """Load every region's metadata (~30 ms); otherwise a region's first parse costs 1-3 ms."""
    for region in phonenumbers.SUPPORTED_REGIONS:
        phonenumbers.PhoneMetadata.metadata_for_region(region)
    for code in phonenumbers.COUNTRY_CODES_FOR_NON_GEO_REGIONS:
        phonenumbers.PhoneMetadata.metadata_for_nongeo_region(code)
