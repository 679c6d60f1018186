"""``date_of_birth``: a full date written as someone's date of birth.

What counts: a date with day, month and year (``03/04/1985``, ``3-4-85``,
``03.04.1985``, ``1985-03-04``, ``March 4, 1985``, ``4 March 1985``,
``Mar 4 1985``, ``4th of March, 1985``, ``04-Mar-1985``) whose closest label
is a birth word ("date of birth", "DOB", "D.O.B.", "born", "birthday", "birth
date", "birthdate"): within 50 characters before the date, or 40 after it
when nothing labels it before; never across a sentence break or another
date. The span is the date itself.

What does not count: a date labelled as something else, even near a birth
word ("your birthday coupon expires on 12/31/2025": "expires" is closer); a
date without a birth word (deliveries, appointments); a year or a month and
day alone ("born in 1985", "my birthday is March 4"); impossible dates
(month 13, day 32) and version strings or IP addresses.
"""

from __future__ import annotations

from collections.abc import Iterator

import regex

from worker.checks.sensitive.context import DetectorContext
from worker.checks.sensitive.nearby import Keywords, overlaps

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?"
    r"|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_DAY = r"(?:0?[1-9]|[12][0-9]|3[01])(?:st|nd|rd|th)?"
_YEAR = r"(?:19|20)[0-9]{2}"
_DATE = regex.compile(
    rf"""
    (?<![0-9A-Za-z]|[0-9][./\-])
    (?:
        (?P<a>[0-9]{{1,2}})(?P<s>[/.\-])(?P<b>[0-9]{{1,2}})(?P=s)(?:{_YEAR}|[0-9]{{2}})
      | {_YEAR}(?P<t>[/.\-])(?:0?[1-9]|1[0-2])(?P=t)(?:0?[1-9]|[12][0-9]|3[01])
      | {_MONTH}\ {_DAY},?\ {_YEAR}
      | {_DAY}(?:\ of)?\ {_MONTH},?\ {_YEAR}
      | {_DAY}-{_MONTH}-{_YEAR}
    )
    (?![0-9A-Za-z]|[./\-][0-9])
    """,
    regex.VERBOSE | regex.IGNORECASE,
)
# A sentence ends at . ! ? followed by a capital, or at a blank line; "D.O.B. 0"
# does not end one.
_BREAK = regex.compile(r"[.!?]\s+(?=[A-Z])|\n\s*\n", regex.REVERSE)
_BREAK_AFTER = regex.compile(r"[.!?]\s+(?=[A-Z])|\n\s*\n")

BIRTH_WORDS = Keywords(
    [
        *("date of birth", "dob", "d.o.b", "born", "birthday", "birth date"),
        *("birthdate", "bday", "b-day", "birth"),
    ]
)
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
    ]
)


def _day_month_ok(match: regex.Match[str]) -> bool:
    if match.group("a") is None:
        return True
    a, b = int(match["a"]), int(match["b"])
    return a >= 1 and b >= 1 and ((a <= 12 and b <= 31) or (a <= 31 and b <= 12))


def _birth_label(text: str, start: int, end: int, previous_end: int) -> bool:
    lo = max(start - 50, previous_end)
    sentence = _BREAK.search(text, lo, start)
    if sentence is not None:
        lo = sentence.end()
    birth, other = BIRTH_WORDS.last_in(text, lo, start), OTHER_WORDS.last_in(text, lo, start)
    if birth >= 0 or other >= 0:
        return birth > other
    hi = min(end + 40, len(text))
    sentence = _BREAK_AFTER.search(text, end, hi)
    following = _DATE.search(text, end, hi)
    hi = min([hi] + [m.start() for m in (sentence, following) if m is not None])
    birth, other = BIRTH_WORDS.first_in(text, end, hi), OTHER_WORDS.first_in(text, end, hi)
    return birth >= 0 and (other < 0 or birth < other)


def find_date_of_birth(text: str, ctx: DetectorContext) -> Iterator[tuple[int, int]]:
    """Spans of dates written as dates of birth; see the module docstring."""
    # Only a date with a birth word within its label windows can count: most
    # texts have none, and then the scan below is skipped.
    labels = BIRTH_WORDS.all_in(text)
    if not labels:
        return
    previous_end = 0
    for match in _DATE.finditer(text):
        ctx.budget.check()
        start, end = match.span()
        if (
            overlaps(labels, start - 50, end + 40)
            and _day_month_ok(match)
            and _birth_label(text, start, end, previous_end)
        ):
            yield start, end
        previous_end = end
