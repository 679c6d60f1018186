"""Numbers read aloud, read back into digits, offsets kept (``read_spoken``).

A voice agent or a speech-to-text transcript says a card as "four one one one
...": ``read_spoken`` rewrites such a run of number words into the digits a
detector reads, and its ``MappedText`` maps each digit back onto the word it was
read from (``widen`` then stretches a mapped span over the whole last word).

What is read, any case, digits and words mixed ("4 one 1 one"):

* digit words: "zero", "nought", "naught", "one" .. "nine", and "oh" for zero
  inside a run ("oh" opening a run before a comma, or closing one after a comma,
  is an interjection: "Oh, one more thing");
* "double five" is 55, "triple seven" 777;
* pairs: teens and tens ("forty-one eleven" is 4111, "nineteen eighty-two" 1982,
  "twenty twenty-four" 2024, "twenty oh five" 2005; "forty" alone is 40);
* "hundred" as the digit pair 00 right after one digit or a teen ("one eight
  hundred five five five ..." is 1800555..., "nineteen hundred" 1900). Decided:
  "five hundred" is the 500 of an area code only inside a run long enough to be
  a number (below); "two hundred fifty", "two hundred and fifty", and any run
  with "thousand", "million" or "billion" are amounts and stay words;
* between words: spaces, line breaks, hyphens, commas, full stops and an
  ellipsis (a pause), and "then", "and then", "next", "followed by", "after
  that", "the rest is" (a number split across two sentences: "four one one
  one, one one one one. Then one one one one ...", "five one seven seven
  eight. The rest is two six zero one" read as one). "and" alone does not
  join. In a spoken text those words join digit groups too ("6397 3... and
  then 2185"): the speaker went on with one number. The spoken "dash" or "hyphen"
  between two numbers is ``-`` and "dot" is ``.`` ("one nine two dot one six
  eight dot oh dot one" is an address); other separators vanish, so a run is one
  digit string;
* four numbers joined by "dot" are an address, and there "N hundred (and) M"
  is one octet ("two hundred and sixteen dot ..." is 216.…;
  ``spoken_addresses``).

Where: a run is read when it holds at least two number words and reads as at
least 7 digits (a phone number, an SSN, a card) in any text, or 3 in a spoken
text (``spoken=True``: the voice channel and transcripts). A run right after a
currency sign or right before a currency, unit, time or quantity word ("dollars",
"percent", "steps", "days", "o'clock", "pm", ...) stays words.

Only in a spoken text:

* dates: "the fourth of March nineteen eighty-two", "March fourth, eighty-two",
  "4th of March 82" become "4 March 1982" (the form ``date_of_birth`` reads). A
  year of two digits is 19xx from 30 on, 20xx below (a fixed pivot: checks read
  no clock); "two thousand (and) five" is 2005;
* in an address read aloud, "underscore", "dash" and "hyphen" between two words
  become ``_`` and ``-`` ("jane underscore doe at example dot com"); the at and
  dot words are the email detector's own reading.

Not read: ordinals outside a date, fractions and decimals ("three point five"),
number words in other languages, letters spelled out ("A B C"), "o" for zero.

Cost: one scan for number words; a text without any pays that alone (~µs per KB)
and gets the same ``MappedText`` back. Scans go through ``scan.finditer``, bounded by
the turn's budget.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from turncheck.worker.checks import scan
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.spoken_addresses import quad_edits
from turncheck.worker.checks.spoken_dates import date_edits
from turncheck.worker.checks.spoken_words import DIGITS, TEENS, TENS, TOKEN
from turncheck.worker.checks.textmap import Edit, MappedText, edited

MIN_DIGITS_WRITTEN = 7
MIN_DIGITS_SPOKEN = 3

# A pause: a comma, a stop or an ellipsis ("6397 3... and then 2185").
_PAUSE = r"(?:\.\.\.|…|[,.;:])"
# Words that go on with a number after a pause: "then", "next", "the rest is".
_GOES_ON = (
    r"(?:and[ \t]+then|then|next|followed[ \t]+by|after[ \t]+that|"
    r"the[ \t]+rest(?:[ \t]+of[ \t]+it)?[ \t]+is)"
)
_SEPARATOR = (
    rf"(?:[ \t]*{_PAUSE}?[ \t]+{_GOES_ON}[ \t,:]+"
    r"|[ \t]+(?:dash|hyphen|dot)[ \t]+"
    r"|[ \t]*-[ \t]*"
    rf"|[ \t]*{_PAUSE}?[ \t\r\n]+)"
)
_BOUNDED = rf"(?<![\w'])(?:{TOKEN})(?![\w'])"
_RUN = re.compile(rf"{_BOUNDED}(?:{_SEPARATOR}{_BOUNDED})*", re.IGNORECASE)
_TOKEN = re.compile(_BOUNDED, re.IGNORECASE)
_WORD_SEPARATOR = re.compile(r"(?i)dash|hyphen|dot")
_GROUP_BREAK = re.compile(r"[,.;:…]|(?i:then|next|followed|after|rest)")
# Each of those words holds one of these: a substring search finds a text to read.
_GOES_ON_STEMS = ("then", "next", "follow", "after", "rest")
_GOES_ON_WORD = re.compile("(?i:" + "|".join(_GOES_ON_STEMS) + ")")

_AMOUNT_AFTER = re.compile(
    r"[ \t]*(?:%|(?:percent|per[ \t]cent|dollars?|bucks|cents?|euros?|pounds?|pence|yen|"
    r"rupees?|francs?|usd|eur|gbp|steps?|items?|units?|pieces?|days?|weeks?|months?|years?|"
    r"hours?|hrs|minutes?|mins?|seconds?|secs?|times|people|persons|o'clock|am|pm|a\.m|p\.m|"
    r"miles?|km|kilomet(?:er|re)s?|met(?:er|re)s?|kg|kilos?|grams?|pounds?|lbs?|feet|foot|"
    r"inches|percent|points?|calories|degrees|gb|mb|tb)\b)",
    re.IGNORECASE,
)
_AMOUNT_BEFORE = re.compile(r"[$£€¥₹][ \t]*$")
_AND_NUMBER = re.compile(rf"[ \t]+and[ \t]+{_BOUNDED}", re.IGNORECASE)
_EMAIL_JOINER = re.compile(
    r"(?<=[A-Za-z0-9])[ \t]+(underscore|dash|hyphen)[ \t]+(?=[A-Za-z0-9][^\n]{0,64}?\bat\b)",
    re.IGNORECASE,
)


def read_spoken(text: str, budget: Budget, *, spoken: bool) -> MappedText:
    """``text`` with its runs of spoken digits (and, when ``spoken``, dates and address
    words) read as written ones; ``span`` maps back into ``text``. See the module."""
    edits: list[Edit] = []
    if spoken:
        edits.extend(date_edits(text, budget))
    least = MIN_DIGITS_SPOKEN if spoken else MIN_DIGITS_WRITTEN
    lowered = text.lower()
    quads = quad_edits(text, lowered, budget)
    edits.extend(quads)
    # Said aloud, digit groups the speaker goes on with are read with no number word.
    goes_on = spoken and any(stem in lowered for stem in _GOES_ON_STEMS)
    runs = scan.finditer(_RUN, text, budget) if goes_on or _two_number_words(lowered) else ()
    for match in runs:
        edit = _run_edit(text, match, least, spoken=spoken)
        # A run inside an address said with hundreds is that address's.
        if edit is not None and not any(q[0] < edit[1] and edit[0] < q[1] for q in quads):
            edits.append(edit)
    if spoken and ("underscore" in text.lower() or "dash" in text.lower() or "hyphen" in text):
        for match in scan.finditer(_EMAIL_JOINER, text, budget):
            joiner = "_" if match.group(1).lower() == "underscore" else "-"
            edits.append((match.start(), match.end(), joiner, ()))
    if not edits:
        return MappedText(text)
    return edited(text, _apart(edits))


# Every number word holds one of these (teens and tens their unit's or "thirt", "fift",
# "twe", "ten", "eleven", "forty"): counting them is C-speed substring search, where one
# scan of the run pattern costs five times as much on text that holds no number.
_STEMS = (
    "zero", "oh", "nought", "naught", "one", "two", "thre", "four", "five", "six", "seven",
    "eight", "nine", "ten", "eleven", "twe", "thirt", "forty", "fift", "double", "triple",
)  # fmt: skip


def _two_number_words(lowered: str) -> bool:
    """Whether ``lowered`` may hold two number words, the least a run is read from."""
    count = 0
    for stem in _STEMS:
        count += lowered.count(stem)
        if count >= 2:
            return True
    return False


def widen(text: str, start: int, end: int) -> tuple[int, int]:
    """``text[start:end]`` stretched to whole words: a digit maps onto the first letter
    of its word, so a span ending on it ends inside that word."""
    while start > 0 and text[start - 1].isalpha() and text[start].isalpha():
        start -= 1
    while end < len(text) and text[end - 1].isalpha() and text[end].isalpha():
        end += 1
    return start, end


def _apart(edits: list[Edit]) -> list[Edit]:
    """``edits`` in order, each dropped that overlaps one kept before it (dates first)."""
    kept: list[Edit] = []
    for edit in sorted(edits, key=lambda e: e[0]):
        if kept and edit[0] < kept[-1][1]:
            continue
        kept.append(edit)
    return kept


@dataclass(frozen=True, slots=True)
class _Token:
    word: str  # lower case
    start: int
    end: int
    before: str  # the separator before it ("" for the first)


def _tokens(text: str, match: re.Match[str]) -> list[_Token]:
    tokens: list[_Token] = []
    previous = match.start()
    for token in _TOKEN.finditer(text, match.start(), match.end()):
        tokens.append(
            _Token(
                token.group().lower(), token.start(), token.end(), text[previous : token.start()]
            )
        )
        previous = token.end()
    return tokens


def _run_edit(text: str, match: re.Match[str], least: int, *, spoken: bool) -> Edit | None:
    """The edit reading the run ``match`` as digits, or None when it stays words."""
    tokens = _tokens(text, match)
    # "Oh, one more thing": an "oh" apart from the run by a comma or a stop is a word.
    if tokens and tokens[0].word == "oh" and len(tokens) > 1 and _breaks(tokens[1].before):
        tokens = tokens[1:]
    if tokens and tokens[-1].word == "oh" and _breaks(tokens[-1].before):
        tokens = tokens[:-1]
    said = sum(not token.word.isdigit() for token in tokens)
    # Said aloud, "6397 3... and then 2185" is one number the speaker went on with.
    goes_on = spoken and any(_GOES_ON_WORD.search(token.before) for token in tokens[1:])
    if said < 2 and not goes_on:
        return None  # "4111 1111 then one more": nothing spoken to read
    start, end = tokens[0].start, tokens[-1].end
    if _AMOUNT_BEFORE.search(text, max(0, start - 4), start) or _AMOUNT_AFTER.match(text, end):
        return None
    if tokens[-1].word == "hundred" and _AND_NUMBER.match(text, end):
        return None  # "two hundred and fifty"
    digits = _digits(tokens)
    if digits is None or sum(ch.isdigit() for ch, _ in digits) < least:
        return None
    return start, end, "".join(ch for ch, _ in digits), tuple(at for _, at in digits)


def _breaks(separator: str) -> bool:
    return _GROUP_BREAK.search(separator) is not None


def _digits(tokens: list[_Token]) -> list[tuple[str, int]] | None:
    """Each character read, with the offset of the word it was read from; None for an
    amount or a run that does not read as digits."""
    out: list[tuple[str, int]] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if i and (joiner := _WORD_SEPARATOR.search(token.before)) is not None:
            out.append(("." if joiner.group().lower() == "dot" else "-", token.start))
        word = token.word
        following = tokens[i + 1] if i + 1 < len(tokens) else None
        if word.isdigit():
            out.extend((ch, token.start + k) for k, ch in enumerate(word))
        elif word in DIGITS:
            out.append((DIGITS[word], token.start))
        elif word in TEENS:
            out.extend((ch, token.start) for ch in TEENS[word])
        elif word in TENS:
            out.append((TENS[word], token.start))
            if following is not None and _pairs_with(following) and not _breaks(following.before):
                out.append((DIGITS[following.word], following.start))
                i += 1
            else:
                out.append(("0", token.start))
        elif word in ("double", "triple"):
            if following is None or following.word not in DIGITS:
                return None
            times = 2 if word == "double" else 3
            out.extend((DIGITS[following.word], following.start) for _ in range(times))
            i += 1
        elif word == "hundred":
            previous = tokens[i - 1] if i else None
            if previous is None or not (previous.word in DIGITS or previous.word in TEENS):
                return None
            if following is not None and (following.word in TEENS or following.word in TENS):
                return None  # "two hundred fifty": an amount
            out.extend(("0", token.start) for _ in range(2))
        else:
            return None  # thousand, million, billion: an amount
        i += 1
    return out


def _pairs_with(token: _Token) -> bool:
    """Whether ``token`` is the unit after a ten ("forty-one"): one to nine."""
    return token.word in DIGITS and DIGITS[token.word] != "0"
