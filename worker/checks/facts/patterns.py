"""The regular expressions that find facts, shared by the answer and the sources.

Compiled once at import. Each is a single left-to-right scan with no nested
unbounded repetition, so a pass over a few kilobytes costs tens of microseconds.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from turncheck.worker.checks import scan
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.facts.numbers import CURRENCY, NUMBER

EMAIL = re.compile(
    r"(?<![\w.%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"
)

# What ``EMAIL``'s local part is made of.
_LOCAL = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._%+-")


def email_starts(text: str, at_signs: Sequence[int]) -> list[int]:
    """Where an ``EMAIL`` match may start, given every "@" of ``text`` (``at_signs``,
    ascending): at the start of the run of local-part characters before an "@". A match
    starts after a character that is none of them (its look behind refuses each), and
    reads them all up to its "@", so it starts there or nowhere. Each run ends at its
    "@" and starts past the "@" before: one walk back per "@", the text read once."""
    found = []
    floor = 0
    for at in at_signs:
        start = at
        while start > floor and text[start - 1] in _LOCAL:
            start -= 1
        if start < at:
            found.append(start)
        floor = at + 1
    return found


_PATH = r"""[^\s<>()\[\]{}"'`|\\^]"""
URL = re.compile(rf"(?:https?://|www\.){_PATH}+", re.IGNORECASE)
# A bare domain is a link when its top-level domain is a common one ("acme.com")
# or a path follows ("shop.example.io/returns"). Lower-case top-level domains
# only: "ASP.NET" and "Node.js" are names, not links.
TLDS = "com|org|net|io|co|ai|app|dev|shop|store|help|info|biz|us|uk|ca|de|fr|es|au|eu"
BARE_DOMAIN = re.compile(
    r"(?<![\w@./-])(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+"
    rf"(?:(?:{TLDS})(?![\w-])(?:/{_PATH}*)?|[a-z]{{2,}}/{_PATH}*)"
)
TRAILING = ".,;:!?"

# North-American numbers need separators or brackets: a bare ten-digit run is
# read as an ID (and still matched against source phones). The first
# character is read as one class, so ``re`` skips ahead to it; a lookbehind on
# it picks the forms it can start (see ``IGNORED``), in the order of the plain
# alternation ``test_scans`` checks it against.
_NANP = r"(?:\([0-9]{3}\)\s?|[0-9]{3}[\s.-])[0-9]{3}[\s.-][0-9]{4}"
PHONE = re.compile(
    rf"""
    [+(0-9](?<![\w+].)
    (?:
        (?<=\+)1[\s.-]?{_NANP}                                    # +1 555 010 2030
      | (?<=\+)[0-9]{{1,3}}(?:[\s.-]?\(?[0-9]{{1,4}}\)?){{2,5}}       # +49 30 901820
      | (?<=1)[\s.-]?{_NANP}                                      # 1-800-555-0199
      | (?<=\()[0-9]{{3}}\)\s?[0-9]{{3}}[\s.-][0-9]{{4}}             # (555) 010-2030
      | (?<=[0-9])[0-9]{{2}}[\s.-][0-9]{{3}}[\s.-][0-9]{{4}}          # 555-010-2030
      # National formats with a trunk 0, as in the UK and much of Europe:
      # "07700 900132", "020 7946 0958", "0161 496 0000".
      | (?<=0)[1-9][0-9]{{1,3}}[\s-][0-9]{{3,4}}(?:[\s-]?[0-9]{{3,4}})?
    )
    (?![\w-])
    """,
    re.VERBOSE,
)
# ``PHONE`` as one alternation: slower (no skip-ahead), kept as its specification.
PLAIN_PHONE = re.compile(
    r"(?<![\w+])(?:(?:\+?1[\s.-]?)?(?:\([0-9]{3}\)\s?|[0-9]{3}[\s.-])[0-9]{3}[\s.-][0-9]{4}"
    r"|\+[0-9]{1,3}(?:[\s.-]?\(?[0-9]{1,4}\)?){2,5}"
    r"|0[1-9][0-9]{1,3}[\s-][0-9]{3,4}(?:[\s-]?[0-9]{3,4})?)(?![\w-])"
)

# Not facts (see ``extract`` for why); matched only to keep their digits from
# being read as amounts. The pattern opens with one character class, which
# lets ``re`` skip ahead to candidate characters instead of trying every
# position (it does not for an alternation of classes); the "not inside a
# word" test then looks back from that character (``(?<![\w.].)``), and a
# lookbehind on it picks the branches it can start.
IGNORED = re.compile(
    r"""
    [0-9vV](?<![\w.].)
    (?:
        (?<=[0-9])[0-9]?(?::[0-9]{2}){0,2}\s?(?:[ap]\.?m\b\.?)           # 9am, 5:30 pm, 10 a.m.
      | (?<=[0-9])(?<!:.)[0-9]?:[0-9]{2}(?::[0-9]{2})?(?![0-9:])           # 17:00, 9:30:15
      | (?<=[0-9])[0-9]*(?:st|nd|rd|th)\b                                 # 1st, 22nd
      | (?<=2)4/7(?:/365)?(?![0-9])                                       # 24/7
      | (?<=[vV])[0-9]+(?:\.[0-9]+)*\b                                    # v2, v2.1
      | (?<=[0-9])[0-9]*\.[0-9]+\.[0-9]+(?:\.[0-9]+)*(?![\w.]?[0-9])     # 2.1.3, 10.0.0.1
    )
    """,
    re.VERBOSE,
)
LIST_MARKER = re.compile(r"^[ \t]*\(?[0-9]{1,3}[.)](?=\s)", re.MULTILINE)

# Tokens that hold a digit; ``extract`` decides which are IDs.
TOKEN = re.compile(
    rf"(?<![\w@./{CURRENCY}-])#?(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*"
    r"(?![\w@-]|[.,][0-9])"
)
_HAS_DIGIT = "(?=[A-Za-z0-9_-]*[0-9])"
# Sources: every token that holds a digit, wherever it sits ("/orders/A-88213").
# The first character is read as a class (so ``re`` skips ahead to it), then a
# digit is asked for: that character itself, or one further on. No token
# starts right after a letter or digit (one that could would have started a
# character earlier, or been part of the token before), so those positions are
# turned away before the look for a digit.
SOURCE_TOKEN = re.compile(
    rf"[A-Za-z0-9](?<![A-Za-z0-9].)(?:(?<=[0-9])|{_HAS_DIGIT})[A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*"
)
# An ID written in spaced groups after a code of capitals: "MTR 0041 7723",
# "TP 202", "1Z 999 AA1 01 2345 6784". The code holds a letter in its first two
# characters, each group a digit and at most four characters ("UPS
# 1Z999AA10123456784" is a word and an ID). ``spaced_id_key`` turns away
# currency codes ("CHF 189") and other words that come before numbers.
SPACED_ID = re.compile(
    r"[A-Z0-9](?<![\w.,/@#$-].)(?:(?<=[A-Z])[A-Z0-9]{1,3}|(?<=[0-9])[A-Z][A-Z0-9]{0,2})"
    r"(?: (?=[A-Z]*[0-9])[A-Z0-9]{1,4})+(?![\w:/-]|[.,][0-9])"
)
_NOT_ID_CODES = frozenset(
    {
        *("USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD", "NZD", "SEK", "NOK", "DKK", "PLN"),
        *("CZK", "HUF", "INR", "CNY", "RMB", "HKD", "SGD", "MXN", "BRL", "ZAR", "KRW", "TRY"),
        *("AED", "SAR", "ILS", "RUB", "THB", "PHP", "IDR", "MYR", "VND"),
        *("ID", "NO", "NR", "REF", "PIN", "OK", "AM", "PM", "VAT", "TAX", "GST", "HST", "APR"),
        *("FY", "UTC", "GMT", "CET", "CEST", "BST", "EST", "EDT", "PST", "PDT", "CST", "CDT"),
    }
)
_YEAR = re.compile(r"(?:19|20)[0-9]{2}")
# "card ending in 4170", "ends with 4170", "last four 4170": the four digits are an ID,
# the end of a longer number.
CARD_ENDING = re.compile(
    r"[el](?<![\w].)(?:(?<=e)nd(?:ing|s)(?:\s+(?:in|with))?"
    r"|(?<=l)ast\s+(?:four|4)(?:\s+digits)?(?:\s+(?:of|are|is))?)"
    r"[\s:]*(?:[*•x·.]+\s*)?(?P<digits>[0-9]{4})(?![0-9])",
    re.IGNORECASE,
)
# Sources: a token that starts with digits and goes on after a hyphen or an
# underscore ("2024-0042", "125-2419873306", "10-14", "120-night"), or the
# digit part of one that started with a code ("ORD-2024-0042"); ``standalone``
# asks ``is_id_token`` which are IDs.
COMPOUND = re.compile(r"[0-9](?<![\w.].)[0-9]*(?:[-_][A-Za-z0-9]+)+")
# Cheap tests that an answer may hold a bare domain or a phone number at all:
# every match of ``BARE_DOMAIN`` holds a match of the first, every match of
# ``PHONE`` a "+" or a match of the second. Both start with a literal or a
# class, so a miss costs a fast scan instead of a full pass.
MAY_BE_DOMAIN = re.compile(rf"\.(?:(?:{TLDS})(?![\w-])|[a-z]{{2,}}/)")
MAY_BE_PHONE = re.compile(r"[0-9]{3}[\s.-][0-9]{3}")
DIGITS = re.compile(r"[0-9]+")
ID_SEPARATOR = re.compile(r"[-_]")
# A number with a unit glued on ("128GB", "1080p", "500ml") is an amount, not an ID.
UNIT_TOKEN = re.compile(r"[0-9]+(?:\.[0-9]+)?[A-Za-z]{1,4}")
# Standalone numbers in the answer: not glued to a word ("GPT-4", "A88213").
ANSWER_NUMBER = re.compile(r"(?<![\w.])(?<![A-Za-z]-)" + NUMBER.pattern)
# Where an ``ANSWER_NUMBER`` match may start: its first character (a currency sign
# or a digit) read first, as one class, so ``re`` skips ahead to it, then the same
# look behind. A scan that starts with a look behind tries it at every character.
_NUMBER_START = re.compile(rf"[{CURRENCY}0-9](?<![\w.].)(?<![A-Za-z]-.)")
# Its digits in the text ``folded.fold``-ed, opening with a literal, which ``re`` skips
# ahead to faster than to a class; the currency signs are looked for one by one.
_FOLDED_NUMBER_START = re.compile(r"0(?<![\w.].)(?<![A-Za-z]-.)")


def _number_starts(text: str, folded_text: str | None) -> list[int]:
    """The offsets where ``_NUMBER_START`` matches in ``text``, ascending."""
    if folded_text is None:
        return [m.start() for m in _NUMBER_START.finditer(text)]
    starts = [m.start() for m in _FOLDED_NUMBER_START.finditer(folded_text)]
    signs = False
    for sign in CURRENCY:
        at = text.find(sign)
        while at != -1:
            if _NUMBER_START.match(text, at):
                starts.append(at)
                signs = True
            at = text.find(sign, at + 1)
    if signs:
        starts.sort()
    return starts


def line_starts(text: str) -> list[int] | None:
    """Where each line of ``text`` starts, where ``LIST_MARKER`` may match; None for a text
    ``scan`` reads in windows."""
    if len(text) > scan.LONG_TEXT_CHARS:
        return None
    starts = [0]
    at = text.find("\n")
    while at != -1:
        starts.append(at + 1)
        at = text.find("\n", at + 1)
    return starts


def answer_numbers(
    text: str, budget: Budget, folded_text: str | None = None
) -> Iterator[re.Match[str]]:
    """The ``ANSWER_NUMBER`` matches in ``text``, as ``finditer`` finds them: each from a
    start ``_NUMBER_START`` finds, past the match before (a start inside it is skipped,
    as ``finditer`` goes on from its end). A text ``scan`` reads in windows is left to it.
    ``folded_text``: ``folded.fold(text)`` when the caller has it."""
    if len(text) > scan.LONG_TEXT_CHARS:
        yield from scan.finditer(ANSWER_NUMBER, text, budget)
        return
    end = 0
    for at in _number_starts(text, folded_text):
        if at < end:
            continue
        m = ANSWER_NUMBER.match(text, at)
        if m is not None:
            end = m.end()
            yield m


# The opening mark is read first, as one class, so ``re`` skips ahead to it.
QUOTE = re.compile(
    r"""["“'](?:(?<=")(?<![\w"].)(?=\S)(?P<d>[^"\n]{3,400}?)"(?!\w)"""
    r"|(?<=“)(?P<c>[^”\n]{3,400}?)”"
    r"|(?<=')(?<![\w'].)(?=\S)(?P<s>(?:[^'\n]|(?<=\w)'(?=\w)){3,400}?)'(?!\w))"
)
WORD = re.compile(r"\w+")
NON_WORD = re.compile(r"[\W_]+")
_QUOTE_CHUNK_CHARS = 65_536

HEDGE = re.compile(
    r"(?:about|around|roughly|approximately|approx\.?|nearly|almost|close to|some|~)\s*$",
    re.IGNORECASE,
)


def strip_trailing(text: str, start: int, end: int) -> int:
    """The end of a link without the sentence punctuation after it."""
    while end > start and text[end - 1] in TRAILING:
        end -= 1
    return end


def link_key(link: str) -> str:
    """``https://www.Shop.example.com/returns/`` -> ``shop.example.com/returns``."""
    key = link.lower().split("#", 1)[0]
    for prefix in ("https://", "http://"):
        key = key.removeprefix(prefix)
    return key.removeprefix("www.").rstrip("/")


def phone_digits(phone: str) -> str:
    """The digits of a phone number, without the trunk "(0)" of "+49 (0)89 2024 3310"."""
    return "".join(DIGITS.findall(phone.replace("(0)", "")))


def national_number(digits: str) -> str:
    """A phone's digits without an international "00" or a trunk "0": ``030 901820`` ->
    ``30901820``, as ``+49 30 901820`` ends."""
    return digits.lstrip("0")


def id_key(token: str) -> str:
    """``a-88213`` -> ``A88213``: case, separators and spaces are formatting."""
    return token.upper().replace("-", "").replace("_", "").replace(" ", "").lstrip("#")


# A flight number with its padding zero: "BA0287" is "BA287".
_FLIGHT_KEY = re.compile(
    r"(?P<airline>[A-Z]{2}|[0-9][A-Z]|[A-Z][1-9])0+(?P<number>[1-9][0-9]{0,3})"
)


def flight_key(key: str) -> str | None:
    """``BA0287`` -> ``BA287``; None when ``key`` (an ``id_key``) is not a padded flight number."""
    m = _FLIGHT_KEY.fullmatch(key)
    return m["airline"] + m["number"] if m else None


def spaced_id_key(match: re.Match[str]) -> str | None:
    """The ``id_key`` of a ``SPACED_ID`` match; None when its code is a currency or a word
    ("USD 129", "ID 48213"), it holds fewer than two digits, or it is a code and a year
    ("Q1 2026")."""
    code, *groups = match.group().split(" ")
    if code in _NOT_ID_CODES:
        return None
    if sum(c.isdigit() for g in groups for c in g) < 2:
        return None
    if len(groups) == 1 and _YEAR.fullmatch(groups[0]):
        return None
    return id_key(match.group())


def quote_key(phrase: str) -> str:
    """Case, punctuation and spacing ignored: ``"Ships in 3-5 days!"`` -> ``ships in 3 5 days``."""
    return NON_WORD.sub(" ", phrase.casefold()).strip()


def long_quote_key(text: str, budget: Budget) -> str:
    """``quote_key(text)`` chunk by chunk, checking the budget between chunks.

    Case folding goes character by character, and a run of punctuation that a
    chunk's edge splits leaves a space on each side of it: one is dropped.
    """
    pieces: list[str] = []
    for start in range(0, len(text), _QUOTE_CHUNK_CHARS):
        budget.check()
        piece = NON_WORD.sub(" ", text[start : start + _QUOTE_CHUNK_CHARS].casefold())
        if pieces and pieces[-1].endswith(" ") and piece.startswith(" "):
            piece = piece[1:]
        if piece:
            pieces.append(piece)
    return "".join(pieces).strip()
