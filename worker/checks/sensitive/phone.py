"""``find_phone``: telephone numbers, international and North American.

Counts:
- international numbers written with ``+`` and a country code, in groups of
  digits split by single spaces, hyphens, dots or parentheses
  (``+44 20 7946 0958``, ``+1-202-555-0143``, ``+49 30 901820``,
  ``+15550102030``), when ``phonenumbers`` finds the length possible for
  that country;
- North American numbers 3-3-4 with separators (``(555) 010-2030``,
  ``555-010-2030``, ``555.010.2030``, ``555 010 2030``, ``1-800-555-0199``);
- the same with ``00`` for ``+`` when a separator follows the country code
  (``0044 20 7946 0958``);
- national numbers with a trunk 0 (``020 7946 0958``, ``0161 496 0755``,
  ``01 42 68 53 00``, ``03-1234-5678``, ``(020) 7946 0958``): 10 or 11 digits
  split by one kind of separator, valid in one of a few trunk-0 regions
  (``_NATIONAL_REGIONS``) *and* grouped the way that region writes its numbers,
  so ``0123 4567 89`` is an id and ``03-12-2026`` a date; 9 digits in the
  regions that write numbers in their own script (Bangkok's ``02 123 4567``,
  in Thai digits or ASCII ones);
- other national numbers with a trunk 0, 10 or 11 digits (9 to 11 after a
  phone word): split once after the area code (``(0116) 4960924``,
  ``05113 14803``, ``030 1234567``) and valid in any region that dials a
  trunk 0; written without separators (``0465188289``) and valid in one of
  ``_NATIONAL_REGIONS``, and not an ISBN-10; after a phone word, valid in
  any trunk-0 region however grouped;
- toll-free vanity numbers with three capitals or more (``1-800-FLOWERS``,
  ``1 (888) GOT-JUNK``);
- a bare run of 10 digits (or 11 starting with 1) only when a phone word
  (phone, call, text, mobile, tel, fax, SMS, WhatsApp...) comes shortly before;
- after a phone word with no id word beside it, any run of 7 to 15 digits in
  phone-like groups, though no numbering plan vouches for it: a national number
  without its trunk 0 or a local one (``call back on 65 6332-7362``,
  ``Phone: 800-7224``, ``text 3333235``, ``phone number is 320, 695, 1086``;
  ``phone_labels``).

An extension written right after a number belongs to it (``386.848.1591x976``,
``555-010-2030 ext. 12``, ``... #204``, ``... x12``): the span covers it.

A North American, national or vanity shape is dropped when a label word
shortly before it names an id (order, tracking, invoice, account, ticket...)
and none names a phone.

Does not count: SSNs (3-2-4), dates, times, ISO timestamps, prices, card
numbers (4-4-4-4), IP addresses, versions, ZIP+4 codes (5-4 digits after a
postal label or a state's code: ``ZIP code 00988-9407``), order or ticket ids
(a number glued to letters, ``#`` or another digit group: ``ORD-555-010-2030``,
``#5550102030``), a digit run inside a longer run, and, with no phone word before,
national formats without a trunk 0 (Spain's ``912 345 678``) or grouped
otherwise than their country writes them, and the digits of an IBAN (``BE 03 7310 1866 4084``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

import phonenumbers
import regex
from stdnum import isbn

from turncheck.worker.checks import scan
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.candidates import matches
from turncheck.worker.checks.gates.engine import Seed
from turncheck.worker.checks.sensitive.context import DetectorContext
from turncheck.worker.checks.sensitive.iban import find_iban
from turncheck.worker.checks.sensitive.phone_labels import label, labelled_numbers, zip_plus_4
from turncheck.worker.checks.sensitive.spans import merged

# Not glued to an id: no letter, digit, ``#``, or "word-"/"1." just before; no
# further digit group just after.
_BEFORE = r"(?<![\p{L}0-9_#+$€£]|[\p{L}0-9][\-./]|[0-9][ ,])"
# An extension may follow: "386.848.1591x976", "555-010-2030 ext. 12", "... #204".
_EXTENSION = regex.compile(
    r",?[ ]?(?:x|ext\.?|extn\.?|extension|\#)[ ]?[0-9]{1,6}(?![\p{L}0-9_]|[.,][0-9])",
    regex.IGNORECASE,
)
_AFTER = rf"(?!(?i:(?!{_EXTENSION.pattern}))(?:[\p{{L}}0-9_]|[\-./,][0-9]))"

_INTERNATIONAL = regex.compile(
    rf"""{_BEFORE}
    (?:\+|00(?=[1-9][0-9]{{0,2}}[ .\-(]))[0-9]{{1,3}}
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
# A national number: trunk 0 and area code (maybe in parentheses), then groups split
# by one kind of separator: ``020 7946 0958``, ``01 42 68 53 00``, ``03-1234-5678``.
_NATIONAL = regex.compile(
    rf"""{_BEFORE}
    (?:
        (?:0[1-9][0-9]{{0,4}}[ .\-]|\(0[1-9][0-9]{{0,4}}\)[ .\-]?)
        [0-9]{{1,8}}(?:[ .\-][0-9]{{1,8}}){{0,4}}
      | 0[1-9][0-9]{{7,10}}
    )
    {_AFTER}""",
    regex.VERBOSE,
)
# Regions whose national numbers carry a trunk 0, most written first; then those that
# write numbers in their own digits (Thai, Arabic-Indic, Persian, Bengali, Devanagari),
# which normalisation reads as ASCII ones: a number in them is most likely national.
_SCRIPT_REGIONS = ("TH", "EG", "SA", "AE", "IR", "BD", "PK", "NP")
_NATIONAL_REGIONS = (
    "GB", "FR", "DE", "JP", "AU", "IT", "NL", "IE", "BE", "CH", "AT", "SE", "NZ", "KR",
    "CN", "IN", "ZA", "TR", *_SCRIPT_REGIONS,
)  # fmt: skip
_NATIONAL_DIGITS = (9, 10, 11)
# Lengths a national number may have when grouped otherwise than its region writes it
# (Sweden's 8 digits after a phone word, Germany's 12-digit mobiles).
_LOOSE_DIGITS = (8, 9, 10, 11, 12)
_SEPARATORS = re.compile(r"[ .\-]")
# A date or a time at the start of a candidate, or right after it: "05.12.2026",
# "05 12 2026 10:30". Never a phone number, whatever a phone word says.
_DATE_START = re.compile(r"\(?[0-9]{1,2}\)?[ .\-][0-9]{1,2}[ .\-](?:19|20)[0-9]{2}(?![0-9])")
_TIME = re.compile(r"[0-9][:h][0-5][0-9]")
# Nine digits are national only where those regions write them so (Bangkok's "02 123
# 4567"): in Europe's formats too many nine-digit ids would read as phone numbers.
_NINE_DIGIT_REGIONS = _SCRIPT_REGIONS
# A toll-free vanity number: ``1-800-FLOWERS``, ``1 (888) GOT-JUNK``; three letters or more.
_VANITY = re.compile(
    r"(?<![A-Za-z0-9_#+$\-])(?:1[ .\-]?)?"
    r"(?:\(8(?:00|33|44|55|66|77|88)\) ?|8(?:00|33|44|55|66|77|88)[ .\-])"
    r"(?=(?:[0-9 .\-]*[A-Z]){3})[A-Z0-9]{3}[ .\-]?[A-Z0-9]{4,7}(?![A-Za-z0-9_])"
)
# Where a vanity number may be: a toll-free code and a capital letter soon after. Starts
# with a literal, which the engine finds fast; ``_VANITY`` then reads around each.
_TOLL_FREE = re.compile(r"8(?:00|33|44|55|66|77|88)[ .\-)] ?[A-Z0-9]{0,3}[A-Z]")
TOLL_FREE_SEEDS = (Seed.of(r"8(?:00|33|44|55|66|77|88)[ .\-)]"),)
_GROUP = re.compile(r"[0-9]+")
# Stretches of digits and separators long enough to hold a number: the shape
# patterns run only around these, not at every position of the text.
_RUN = regex.compile(r"[0-9][0-9 ().\-]{7,}")


@lru_cache(maxsize=4096)  # an agent repeats its own hotline in turn after turn
def _possible(candidate: str) -> bool:
    if candidate.startswith("00"):
        candidate = "+" + candidate[2:]
    try:
        number = phonenumbers.parse(candidate, None)
    except phonenumbers.NumberParseException:
        return False
    return phonenumbers.is_possible_number(number)


@lru_cache(maxsize=4096)
def _national(candidate: str, regions: tuple[str, ...] = _NATIONAL_REGIONS) -> bool:
    """Whether ``candidate`` is a valid number of a trunk-0 region written in that region's
    own grouping (``020 7946 0958`` in GB, ``01 42 68 53 00`` in France). Groups that no
    region writes, like ``0123 4567 89``, are ids."""
    groups = [len(group) for group in _GROUP.findall(candidate)]
    for region in regions:
        number = _valid_in(candidate, region)
        if number is None:
            continue
        written = phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.NATIONAL)
        if [len(group) for group in _GROUP.findall(written)] == groups:
            return True
    return False


@lru_cache(maxsize=4096)
def _national_loose(candidate: str, phone_word: bool) -> bool:
    """Whether ``candidate``, a trunk-0 number not grouped its region's own way, still is
    one: after a phone word, 8 to 12 digits valid in any trunk-0 region; unlabelled, 9 to
    12 digits split once after the area code (``(0116) 4960924``, ``030 1234567``) and
    valid in any trunk-0 region, or 10 or 11 written without separators and valid in one
    of the likely regions (``0465188289``)."""
    groups = _GROUP.findall(candidate)
    digits = sum(len(group) for group in groups)
    if phone_word:
        return any(_valid_in(candidate, region) for region in _trunk_regions())
    if len(groups) == 2 and 3 <= len(groups[0]) <= 6 and digits >= 9:
        return any(_valid_in(candidate, region) for region in _trunk_regions())
    if len(groups) == 1 and len(candidate) in (10, 11) and not isbn.is_valid(candidate):
        return any(_valid_in(candidate, region) for region in _NATIONAL_REGIONS)
    return False


@lru_cache(maxsize=1)
def _trunk_regions() -> tuple[str, ...]:
    """Every region whose numbers are dialled nationally with a trunk 0, the likely ones
    first: a number written with a phone word or split after its area code is tried in
    each, as nobody says which country it is from. Read once, on first use: it loads
    every region's metadata."""

    def trunk_0(region: str) -> bool:
        metadata = phonenumbers.PhoneMetadata.metadata_for_region(region)
        return metadata is not None and metadata.national_prefix == "0"

    others = phonenumbers.SUPPORTED_REGIONS - set(_NATIONAL_REGIONS)
    return (*_NATIONAL_REGIONS, *sorted(r for r in others if trunk_0(r)))


def _valid_in(candidate: str, region: str) -> phonenumbers.PhoneNumber | None:
    try:
        number = phonenumbers.parse(candidate, region)
    except phonenumbers.NumberParseException:
        return None
    return number if phonenumbers.is_valid_number(number) else None


def _international(text: str, start: int, end: int) -> int | None:
    """End of the longest prefix of ``text[start:end]`` that is a possible number."""
    while True:
        candidate = text[start:end]
        # "0044 20 ..." is "+44 20 ...": the 00 is not part of the number.
        digits = sum("0" <= ch <= "9" for ch in candidate) - 2 * candidate.startswith("00")
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
    budget = ctx.budget
    seeded = ctx.candidates or {}
    spans: list[tuple[int, int]] = []
    # A run starts where a labelled number's run can (``DIGIT_RUN_SEEDS``: seven
    # characters of a wider class), so one seed serves both: half the reports.
    for run in matches(_RUN, text, budget, seeded.get("phone.runs")):
        budget.check()
        # Room for a "+" or "(" before the run and for the lookarounds after it.
        pos, endpos = max(0, run.start() - 2), run.end() + 2
        if "+" in text[pos : run.start()] or text.startswith("00", run.start()):
            for match in scan.finditer(_INTERNATIONAL, text, budget, pos, endpos):
                budget.check()  # a phonenumbers parse each
                end = _international(text, match.start(), match.end())
                if end is not None:
                    spans.append((match.start(), end))
        for match in scan.finditer(_NANP, text, budget, pos, endpos):
            if label(text, match.start()) != "id":
                spans.append(match.span())
        for match in scan.finditer(_BARE, text, budget, pos, endpos):
            if label(text, match.start()) == "phone":
                spans.append(match.span())
        if text.startswith("0", run.start()) or text.startswith("(0", run.start() - 1):
            spans.extend(_nationals(text, pos, endpos, budget))
    for hint in matches(_TOLL_FREE, text, budget, seeded.get("phone.toll_free")):
        budget.check()
        # "1 (" may stand before the code; the longest tail ends 12 characters after it.
        vanity = _VANITY.search(text, max(0, hint.start() - 3), hint.start() + 16)
        if vanity is not None and label(text, vanity.start()) != "id":
            spans.append(vanity.span())
    spans.extend(labelled_numbers(text, budget, seeded.get("phone.runs")))
    # The digits of an IBAN ("BE 03 7310 1866 4084") are the IBAN's, not a phone number's.
    ibans = list(find_iban(text, ctx)) if spans else []
    for start, end in merged(spans):
        if any(start < iban_end and iban_start < end for iban_start, iban_end in ibans):
            continue
        if not zip_plus_4(text, start, end):  # "ZIP code 00988-9407" reads as +988 ...
            yield start, _with_extension(text, end)


def _with_extension(text: str, end: int) -> int:
    """``end`` moved past an extension written right after the number."""
    extension = _EXTENSION.match(text, end)
    return end if extension is None else extension.end()


def _nationals(text: str, pos: int, endpos: int, budget: Budget) -> Iterator[tuple[int, int]]:
    for match in scan.finditer(_NATIONAL, text, budget, pos, endpos):
        budget.check()
        start, end = match.span()
        named = label(text, start)
        if named == "id" or _DATE_START.match(text, start, end):
            continue
        if _TIME.search(text, start, min(len(text), end + 3)):
            continue
        phone_word = named == "phone"
        longest = _LOOSE_DIGITS[-1] if phone_word else _NATIONAL_DIGITS[-1]
        # "020 7946 0958 2 times": drop trailing groups past a national number's length.
        while end > start and sum("0" <= ch <= "9" for ch in text[start:end]) > longest:
            # No separator left ("(0116)4960924123"): the cut is -1 and the loop ends.
            end = max(text.rfind(sep, start, end) for sep in " .-")
        if end <= start:
            continue
        candidate = text[start:end]
        digits = sum("0" <= ch <= "9" for ch in candidate)
        regions = _NINE_DIGIT_REGIONS if digits == 9 else _NATIONAL_REGIONS
        one_separator = len(set(_SEPARATORS.findall(candidate))) <= 1
        if (digits in _NATIONAL_DIGITS and one_separator and _national(candidate, regions)) or (
            digits in _LOOSE_DIGITS and _national_loose(candidate, phone_word)
        ):
            yield start, end


def warm_up() -> None:
    """Load every region's metadata (~30 ms); otherwise a region's first parse costs 1-3 ms."""
    for region in phonenumbers.SUPPORTED_REGIONS:
        phonenumbers.PhoneMetadata.metadata_for_region(region)
    for code in phonenumbers.COUNTRY_CODES_FOR_NON_GEO_REGIONS:
        phonenumbers.PhoneMetadata.metadata_for_nongeo_region(code)
