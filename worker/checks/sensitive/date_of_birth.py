"""``date_of_birth``: a full date written as someone's date of birth.

What counts: a date with day, month and year (``03/04/1985``, ``3-4-85``,
``03.04.1985``, ``1985-03-04``, ``19850304``, and with a month name in any
order, an ordinal day and a four- or two-digit year: ``March 4, 1985``,
``4 March 1985``, ``Mar 4 1985``, ``4th of March, 1985``, ``04-Mar-1985``,
``4-Mar-85``, ``March 4th '82``, ``1985 March 4``) whose closest label is a
birth word: within 50 characters before the date, or 40 after it when nothing
labels it before; never across another date. Across a sentence break only
one way: a date opening its sentence (a few words first: "It's", "We have it
as") answers or reads back the sentence just before it, question or not, when
that one's last label is a birth word ending at most 100 characters before the
date ("Please tell me your date of birth. It's 6/24/1991", "Born? March 4th,
1982.", "Thanks, your DOB is saved. Our records show 14.01.2002"), no other
date's label comes between, and what opens the date's sentence is an answer's
or a read-back's words: answers, thanks, pronouns, "have", "shows", "on file"
("Sure, it's", "Mine is", "We have"; not "The meeting is", "We'll see you
on"). The span is the date itself.

Birth words are strong or weak. Strong ones name the field and always count:
"date of birth", "DOB", "D.O.B.", "birth date", "birthdate", "date de
naissance", "fecha de nacimiento", "Geburtsdatum". Weak ones ("born",
"birthday", "birth", "bday", "b-day", "geboren") count only when they are about a
person:

- a person is their subject or owner: "I was born", "you were born", "the
  patient was born", "my birthday", "your son's birthday";
- or they label a field: first in their line, sentence or clause, or right
  after a record's label and its colon, and followed by nothing but the date
  ("Born: 4 Mar 1985", "Geboren am 04.03.1985", "Dana Whitfield, born
  3/4/85", "Member: born 1958-04-03").

What does not count: a date labelled as something else, even near a birth
word ("your birthday coupon expires on 12/31/2025": "expires" is closer; "Born
to Run was released on ..."); a weak word about a company, product, feature
or event ("Acme was born in a garage on ...", "our company's birthday is
...", "birthday reminders go out on ...", "your birthday discount applies
on ..."); a date given as an example ("e.g.", "for example", "format" closer
to it than the birth word); a date without a birth word (deliveries,
appointments); a year or a month and day alone ("born in 1985", "my birthday
is March 4"); impossible dates (month 13, day 32) and version strings or IP
addresses. A name alone is not a person here ("Jane was
born on ..." does not count): it could as well be a company's.
"""

from __future__ import annotations

from collections.abc import Iterator

import regex

from turncheck.worker.checks import scan
from turncheck.worker.checks.sensitive.context import DetectorContext
from turncheck.worker.checks.sensitive.nearby import Keywords, overlaps

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?"
    r"|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_DAY = r"(?:0?[1-9]|[12][0-9]|3[01])(?:st|nd|rd|th)?"
_YEAR = r"(?:19|20)[0-9]{2}"
# With a month name, a year may be written with two digits: "4 Mar 82", "March 4th, '82".
_NAMED_YEAR = rf"(?:{_YEAR}|['\u2019]?[0-9]{{2}})"
# Between the parts of a date with a month name: a space, comma, hyphen, slash or dot.
_PART = r"(?:,?\ |[\-/.])"
_DATE = regex.compile(
    rf"""
    (?<![0-9A-Za-z]|[0-9][./\-])
    (?:
        (?P<a>[0-9]{{1,2}})(?P<s>[/.\-])(?P<b>[0-9]{{1,2}})(?P=s)(?:{_YEAR}|[0-9]{{2}})
      | {_YEAR}(?P<t>[/.\-])(?:0?[1-9]|1[0-2])(?P=t)(?:0?[1-9]|[12][0-9]|3[01])
      | {_YEAR}(?:0[1-9]|1[0-2])(?:0[1-9]|[12][0-9]|3[01])
      | {_MONTH}{_PART}(?:the\ )?{_DAY}{_PART}{_NAMED_YEAR}
      | {_DAY}(?:\ of)?{_PART}{_MONTH}{_PART}{_NAMED_YEAR}
      | {_YEAR}{_PART}(?:{_MONTH}{_PART}{_DAY}|{_DAY}{_PART}{_MONTH})
    )
    (?![0-9A-Za-z]|[./\-][0-9])
    """,
    regex.VERBOSE | regex.IGNORECASE,
)
# A sentence ends at . ! ? followed by a capital, or at a blank line; "D.O.B. 0"
# does not end one.
_BREAK = regex.compile(r"[.!?]\s+(?=[A-Z])|\n\s*\n", regex.REVERSE)
_BREAK_AFTER = regex.compile(r"[.!?]\s+(?=[A-Z])|\n\s*\n")
# A date may answer or confirm the sentence before its own: it opens its sentence
# (a few words first: "It's", "Sure, mine is", "We have it as") and the birth word
# ends close enough before it.
_LEAD_CHARS = 40
# The words such an opening is made of: answers, thanks, pronouns and the verbs a
# record is read back with. They refer back to the date asked for or named; any
# other word ("The meeting is ...", "We'll see you on ...") starts a statement about
# something else.
_ANSWER_WORDS = frozenset(
    (
        *("sure", "yes", "yeah", "yep", "ok", "okay", "of", "course", "certainly", "it"),
        *("it's", "its", "is", "was", "that's", "that", "mine", "mine's", "my", "his", "her"),
        *("their", "would", "be", "the", "on", "i", "i'm", "am", "he", "she", "they", "were"),
        *("here", "you", "go", "um", "uh", "so", "and", "dob", "born", "date", "birth"),
        *("thanks", "thank", "great", "perfect", "alright", "right", "got", "noted"),
        *("we", "we've", "i've", "have", "has", "had", "as", "your", "our", "yours"),
        *("record", "records", "file", "shows", "show", "says", "reads", "listed"),
        *("recorded", "registered", "entered", "confirmed", "correct", "down", "just"),
    )
)
_WORD = regex.compile(r"[a-z']+")
_ASKED_CHARS = 100

# Each word's longest piece is a substring every text is searched for before
# any regex runs (``Keywords.all_in``): a new word with a new piece costs time.
_STRONG = (
    *("date of birth", "dob", "d.o.b", "birth date", "birthdate", "date de naissance"),
    *("fecha de nacimiento", "geburtsdatum"),
)
_WEAK = ("born", "birthday", "bday", "b-day", "birth", "geboren")
BIRTH_WORDS = Keywords([*_STRONG, *_WEAK])
_WEAK_FOLDED = frozenset(w.replace("-", "") for w in _WEAK)
# Labels of other dates that win when they are closer than a birth word.
OTHER_WORDS = Keywords(
    [
        *("expires", "expire", "expired", "expiry", "expiration", "exp", "valid"),
        *("due", "deliver", "delivered", "delivery", "ship", "ships", "shipped"),
        *("arrive", "arrives", "arrival", "appointment", "scheduled", "booked"),
        *("renew", "renews", "renewal", "until", "through", "ordered", "order"),
        *("placed", "purchased", "issued", "issue date", "effective", "starts"),
        *("ends", "ended", "closed", "opened", "joined", "since", "updated"),
        *("invoice", "payment", "paid", "charged", "refund", "deadline", "by"),
        *("released", "launched", "founded", "established", "created", "go out"),
    ]
)
# A date given as an example of the format, not anyone's.
EXAMPLE_WORDS = Keywords(
    ["e.g", "eg", "for example", "for instance", "example", "such as", "format", "sample"]
)
# "format MM/DD/YYYY: 03/04/1985": the example word described the placeholder.
_PLACEHOLDER = regex.compile(r"\b(?:[DMY]{1,4}[/.\-]){2}[DMY]{2,4}\b", regex.IGNORECASE)

_PERSON = (
    r"(?:customer|client|member|patient|applicant|policyholder|holder|insured|passenger"
    r"|guest|employee|student|user|child|kid|baby|son|daughter|wife|husband|spouse"
    r"|partner|mother|father|mom|mum|dad|parent|brother|sister|grandson|granddaughter"
    r"|dependent|dependant|beneficiary|cardholder|traveller|traveler|person|friend)"
)
# Whose birth a weak word is about, right before it: a person subject for
# "born" ("you were born", "the patient was born"), a person owner for the
# others ("my birthday", "the customer's birthday").
_BORN_SUBJECT = regex.compile(
    rf"(?i:\b(?:i|you|he|she|they|{_PERSON}s?)\s+(?:(?:was|were|am|is|are|'m|'re|got|been)\s+)*)$"
)
_OWNER = regex.compile(
    rf"(?i:\b(?:my|your|his|her|their|{_PERSON}s?['\u2019]s?)\s+(?:[0-9]+(?:st|nd|rd|th)\s+)?)$"
)
# "birthday sale", "birthday reminders": the word names something else.
_MODIFIES = regex.compile(
    r"(?i:[\ \-](?:sale|discount|coupon|reward|reminder|party|gift|offer|email|message|club"
    r"|bonus|treat|week|month|special|promo|deal|voucher|card|cake|present|event|perk|point"
    r"|credit|month)s?\b)"
)
# What may stand between a field label and its date, and before the label.
_TO_DATE = regex.compile(r"(?i:[\s:=\-\u2013\u2014\"'(?]|\b(?:on|am|el|le|is|was|the)\b)*+$")
# A record's label ends in a colon, so a value after one opens a field too:
# "Patient: born 31.10.1940".
_FIELD_START = regex.compile(r"(?:^|[\n.!?;:,(|{\[])[\s\"'*_#>\-]*$")


def _day_month_ok(match: regex.Match[str]) -> bool:
    if match.group("a") is None:
        return True
    a, b = int(match["a"]), int(match["b"])
    return a >= 1 and b >= 1 and ((a <= 12 and b <= 31) or (a <= 31 and b <= 12))


def _about_a_person(text: str, word: tuple[int, int], lo: int, date: tuple[int, int]) -> bool:
    """Whether a weak birth word at ``word`` labels a person's birth (see the docstring)."""
    start, end = word
    before = text[max(lo, start - 40) : start]
    folded = text[start:end].casefold().replace("-", "")
    born = folded in ("born", "geboren")
    if not born and _MODIFIES.match(text, end):
        return False
    if (_BORN_SUBJECT if born else _OWNER).search(before):
        return True
    # A field label: first in its clause, and the date right after it.
    return (
        date[0] >= end
        and _TO_DATE.match(text, end, date[0]) is not None
        and _FIELD_START.search(text, max(lo, start - 10), start) is not None
    )


def _is_birth(text: str, word: tuple[int, int], lo: int, date: tuple[int, int]) -> bool:
    folded = text[word[0] : word[1]].casefold().replace("-", "")
    return folded not in _WEAK_FOLDED or _about_a_person(text, word, lo, date)


def _birth_label(text: str, start: int, end: int, previous_end: int) -> bool:
    lo = max(start - 50, previous_end)
    sentence = _BREAK.search(text, lo, start)
    if sentence is not None:
        lo = sentence.end()
    birth = BIRTH_WORDS.last_span_in(text, lo, start)
    other = OTHER_WORDS.last_in(text, lo, start)
    if birth is not None or other >= 0:
        if birth is None or birth[1] <= other:
            return False
        example = EXAMPLE_WORDS.last_in(text, birth[1], start)
        if example >= 0 and not _PLACEHOLDER.search(text, example, start):
            return False
        return _is_birth(text, birth, lo, (start, end))
    if sentence is not None and _asked_before(text, sentence, start, end, previous_end):
        return True
    hi = min(end + 40, len(text))
    sentence = _BREAK_AFTER.search(text, end, hi)
    following = _DATE.search(text, end, hi)
    hi = min([hi] + [m.start() for m in (sentence, following) if m is not None])
    after = BIRTH_WORDS.first_span_in(text, end, hi)
    other = OTHER_WORDS.first_in(text, end, hi)
    return (
        after is not None
        and (other < 0 or after[0] < other)
        and _is_birth(text, after, end, (start, end))
    )


def _asked_before(
    text: str, sentence: regex.Match[str], start: int, end: int, previous_end: int
) -> bool:
    """Whether the sentence just before the date's asks for or names a birth date ("Please
    tell me your date of birth. It's 6/24/1991"): the date opens its own sentence, and the
    birth word is the last label of the one before, close enough."""
    if start - sentence.end() > _LEAD_CHARS:
        return False
    lead = text[sentence.end() : start].casefold().replace("\u2019", "'")
    if not _ANSWER_WORDS.issuperset(_WORD.findall(lead)):
        return False
    lo = max(start - _ASKED_CHARS, previous_end)
    earlier = _BREAK.search(text, lo, sentence.start())
    if earlier is not None:
        lo = earlier.end()
    # The break's own mark closes the sentence: "D.O.B." ends at it.
    hi = sentence.start() + 1
    birth = BIRTH_WORDS.last_span_in(text, lo, hi)
    if birth is None or OTHER_WORDS.last_in(text, birth[1], start) >= 0:
        return False
    if EXAMPLE_WORDS.last_in(text, birth[1], start) >= 0:
        return False
    return _is_birth(text, birth, lo, (start, end))


def find_date_of_birth(text: str, ctx: DetectorContext) -> Iterator[tuple[int, int]]:
    """Spans of dates written as dates of birth; see the module docstring."""
    # Only a date with a birth word within its label windows can count: most
    # texts have none, and then the scan below is skipped.
    labels = BIRTH_WORDS.all_in(text, ctx.budget)
    if not labels:
        return
    previous_end = 0
    for match in scan.finditer(_DATE, text, ctx.budget):
        ctx.budget.check()
        start, end = match.span()
        if (
            overlaps(labels, start - 50, end + 40)
            and _day_month_ok(match)
            and _birth_label(text, start, end, previous_end)
        ):
            yield start, end
        previous_end = end
