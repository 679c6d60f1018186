"""The regular expressions that find facts, shared by the answer and the sources.

Compiled once at import. Each is a single left-to-right scan with no nested
unbounded repetition, so a pass over a few kilobytes costs tens of microseconds.
"""

from __future__ import annotations

import re

from worker.checks.facts.numbers import CURRENCY, NUMBER

EMAIL = re.compile(
    r"(?<![\w.%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"
)

_PATH = r"""[^\s<>()\[\]{}"'`|\\^]"""
URL = re.compile(rf"(?:https?://|www\.){_PATH}+", re.IGNORECASE)
# A bare domain is a link when its top-level domain is a common one ("acme.com")
# or a path follows ("shop.example.io/returns"). Lower-case top-level domains
# only: "ASP.NET" and "Node.js" are names, not links.
_TLDS = "com|org|net|io|co|ai|app|dev|shop|store|help|info|biz|us|uk|ca|de|fr|es|au|eu"
BARE_DOMAIN = re.compile(
    r"(?<![\w@./-])(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+"
    rf"(?:(?:{_TLDS})(?![\w-])(?:/{_PATH}*)?|[a-z]{{2,}}/{_PATH}*)"
)
TRAILING = ".,;:!?"

# North-American numbers need separators or brackets: a bare ten-digit run is
# read as an ID (and still matched against source phones).
PHONE = re.compile(
    r"(?<![\w+])(?:(?:\+?1[\s.-]?)?(?:\([0-9]{3}\)\s?|[0-9]{3}[\s.-])[0-9]{3}[\s.-][0-9]{4}"
    r"|\+[0-9]{1,3}(?:[\s.-]?\(?[0-9]{1,4}\)?){2,5}"
    # National formats with a trunk 0, as in the UK and much of Europe:
    # "07700 900132", "020 7946 0958", "0161 496 0000".
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
# Cheap tests that an answer may hold a bare domain or a phone number at all:
# every match of ``BARE_DOMAIN`` holds a match of the first, every match of
# ``PHONE`` a "+" or a match of the second. Both start with a literal or a
# class, so a miss costs a fast scan instead of a full pass.
MAY_BE_DOMAIN = re.compile(rf"\.(?:(?:{_TLDS})(?![\w-])|[a-z]{{2,}}/)")
MAY_BE_PHONE = re.compile(r"[0-9]{3}[\s.-][0-9]{3}")
DIGITS = re.compile(r"[0-9]+")
ID_SEPARATOR = re.compile(r"[-_]")
# A number with a unit glued on ("128GB", "1080p", "500ml") is an amount, not an ID.
UNIT_TOKEN = re.compile(r"[0-9]+(?:\.[0-9]+)?[A-Za-z]{1,4}")
# Standalone numbers in the answer: not glued to a word ("GPT-4", "A88213").
ANSWER_NUMBER = re.compile(r"(?<![\w.])(?<![A-Za-z]-)" + NUMBER.pattern)

# The opening mark is read first, as one class, so ``re`` skips ahead to it.
QUOTE = re.compile(
    r"""["“'](?:(?<=")(?<![\w"].)(?=\S)(?P<d>[^"\n]{3,400}?)"(?!\w)"""
    r"|(?<=“)(?P<c>[^”\n]{3,400}?)”"
    r"|(?<=')(?<![\w'].)(?=\S)(?P<s>(?:[^'\n]|(?<=\w)'(?=\w)){3,400}?)'(?!\w))"
)
WORD = re.compile(r"\w+")
NON_WORD = re.compile(r"[\W_]+")

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


def phone_key(digits: str) -> str:
    """The national number: the last ten digits, so ``+1 555 010 2030`` = ``5550102030``."""
    return digits[-10:]


def id_key(token: str) -> str:
    """``a-88213`` -> ``A88213``: case and separators are formatting."""
    return token.upper().replace("-", "").replace("_", "").lstrip("#")


def quote_key(phrase: str) -> str:
    """Case, punctuation and spacing ignored: ``"Ships in 3-5 days!"`` -> ``ships in 3 5 days``."""
    return NON_WORD.sub(" ", phrase.casefold()).strip()
