"""Where a ``PHONE`` or a ``TOKEN`` match may start in a text: every offset, and maybe more.

Both are then tried there alone (``checks.candidates``): the same matches as a
scan of the whole text, found without reading it character by character.

``PHONE`` opens with a class (``[+(0-9]``), which ``re`` skips ahead to slowly,
and a source text has far more digits than phone numbers. Every match, though,
opens with "+" or holds three digits, a space, dot or hyphen and three digits
(what the gate ``gates.facts`` "phone" rests on), starting at most ``_LEAD``
characters into it:

* "1 (800) 555-0199": "555-019" at 8, the furthest in;
* "(555) 010-2030": 6; "1-800-555-0199": 2; "07700 900132": 2; "555-010-2030": 0.

Those runs are found in the text ``folded.fold``-ed, by a pattern that opens with a
literal, which ``re`` skips ahead to fast. Reported one after another, an
occurrence the scan stepped over overlaps one it reported, which starts at most
``_RUN - 1`` before it. So every match starts at a "+" or within ``_LEAD``
characters before to ``_RUN - 1`` after a reported run, at a "(" or a digit.
"""

from __future__ import annotations

import re

# ``patterns.MAY_BE_PHONE`` (``[0-9]{3}[\s.-][0-9]{3}``) for the folded text, where a digit
# is "0": it opens with the literal "000".
RUN_PATTERN = re.compile(r"000[\s.-]000")
_RUN = 7
_LEAD = 8
# What a match's first character may be, in the folded text.
_OPENINGS = frozenset("(0")


def phone_starts(text: str, folded_text: str) -> list[int]:
    """Ascending offsets of ``text`` where a ``PHONE`` match may start: every one where one
    does. ``folded_text``: ``folded.fold(text)``."""
    found: set[int] = set()
    at = text.find("+")
    while at != -1:
        found.add(at)
        at = text.find("+", at + 1)
    for m in RUN_PATTERN.finditer(folded_text):
        run = m.start()
        lo = max(0, run - _LEAD)
        window = folded_text[lo : run + _RUN]
        found.update(lo + i for i, ch in enumerate(window) if ch in _OPENINGS)
    return sorted(found)


# In the folded text reversed: a digit and the run of what ``TOKEN`` is made of before it.
_TOKEN_RUN = re.compile(r"0[A-Za-z0-9_-]*")


def token_starts(text: str, folded_text: str) -> list[int]:
    """Ascending offsets of ``text`` where a ``TOKEN`` match may start: every one where one
    does. ``folded_text``: ``folded.fold(text)``.

    ``TOKEN`` starts with a lookbehind, so ``re`` tries it at every character. A match
    holds a digit (it may not end before one its look ahead saw: letters, digits, "-"
    and "_" may not follow it), and starts where no letter, digit, "-" or "_" comes
    before it: at the start of the run of those that holds its digits, or at a "#" just
    before. Read from the right, in the folded text reversed, each such run is one match
    of ``_TOKEN_RUN`` from its last digit, which ``re`` skips ahead to fast."""
    size = len(text)
    found = []
    for m in _TOKEN_RUN.finditer(folded_text[::-1]):
        start = size - m.end()
        found.append(start)
        if start and text[start - 1] == "#":
            found.append(start - 1)
    found.reverse()
    return found
