"""An IPv4 address read aloud with hundreds, read back into a dotted quad (``quad_edits``).

"two hundred and sixteen dot one hundred and sixty-four dot two one eight dot
seventy-two" is 216.164.218.72. ``spoken`` reads digits one by one and keeps
"two hundred and fifty" as words, an amount; but four numbers joined by "dot"
are an address, and there each number is one octet however it is said: "N
hundred", "N hundred (and) M" (M a digit, a teen, a ten or a ten and a digit),
a pair or a ten ("sixty-four", "forty"), or digits one by one ("two one eight").

Read only when one of the four says "hundred" (the others ``spoken`` reads as
it is) and every octet is 0..255: "three hundred dot ..." is not an address.
Each digit maps back onto the word it was read from, each dot onto its "dot".
"""

from __future__ import annotations

import re

from turncheck.worker.checks import scan
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.spoken_words import DIGITS, NUMBER_WORD, cardinal
from turncheck.worker.checks.textmap import Edit

_WORD = rf"(?<![\w'])(?:[0-9]{{1,3}}|{NUMBER_WORD}|hundred)(?![\w'])"
# One octet: up to five words ("two hundred and forty-one"), "and" only after "hundred".
_OCTET = rf"{_WORD}(?:(?:[ \t]*-[ \t]*|(?<=hundred)[ \t]+and[ \t]+|[ \t]+){_WORD}){{0,4}}"
_QUAD = re.compile(rf"{_OCTET}(?:[ \t]+dot[ \t]+{_OCTET}){{3}}", re.IGNORECASE)
_DOT = re.compile(r"[ \t]+dot[ \t]+", re.IGNORECASE)
_OCTET_WORD = re.compile(rf"{_WORD}|(?<![\w'])and(?![\w'])", re.IGNORECASE)


def quad_edits(text: str, lowered: str, budget: Budget) -> list[Edit]:
    """The edits reading each spoken dotted quad with a "hundred" in ``text`` as digits."""
    if "hundred" not in lowered or " dot " not in lowered:
        return []
    edits: list[Edit] = []
    for match in scan.finditer(_QUAD, text, budget):
        edit = _quad_edit(text, match)
        if edit is not None:
            edits.append(edit)
    return edits


def _quad_edit(text: str, match: re.Match[str]) -> Edit | None:
    start, end = match.span()
    parts: list[tuple[int, int]] = []
    dots: list[int] = []
    at = start
    for dot in _DOT.finditer(text, start, end):
        parts.append((at, dot.start()))
        dots.append(dot.start() + dot.group().lower().index("dot"))
        at = dot.end()
    parts.append((at, end))
    if len(parts) != 4:
        return None
    octets: list[list[tuple[str, int]]] = []
    for part in parts:
        octet = _octet(text, *part)
        if octet is None:
            return None
        octets.append(octet)
    if not any("hundred" in text[s:e].lower() for s, e in parts):
        return None  # ``spoken`` reads it as it is
    read: list[tuple[str, int]] = []
    for k, octet in enumerate(octets):
        if k:
            read.append((".", dots[k - 1]))
        read.extend(octet)
    return start, end, "".join(ch for ch, _ in read), tuple(offset for _, offset in read)


def _octet(text: str, start: int, end: int) -> list[tuple[str, int]] | None:
    """Each digit of the octet said in ``text[start:end]``, with the offset of its word."""
    words = [(m.group().lower(), m.start()) for m in _OCTET_WORD.finditer(text, start, end)]
    names = [word for word, _ in words]
    if "hundred" in names:
        if names.index("hundred") != 1 or names[0] not in DIGITS or names[0] == "oh":
            return None
        rest = words[3:] if len(names) > 2 and names[2] == "and" else words[2:]
        value = cardinal([word for word, _ in rest]) if rest else 0
        if value is None or (rest and value == 0):
            return None
        hundreds, hundred_at = DIGITS[names[0]], words[1][1]
        at = rest[0][1] if rest else hundred_at
        tens_at = at if value >= 10 else hundred_at
        digits = [(hundreds, words[0][1]), (f"{value:02d}"[0], tens_at), (f"{value:02d}"[1], at)]
    elif "and" in names:
        return None
    else:
        digits = []
        k = 0
        while k < len(words):
            pair = cardinal(names[k : k + 2]) if k + 1 < len(words) else None
            if pair is not None and pair >= 20 and names[k + 1] in DIGITS:
                digits.extend((ch, words[k][1]) for ch in str(pair))  # "sixty-four"
                k += 2
                continue
            single = cardinal(names[k : k + 1])
            if single is None:
                return None
            digits.extend((ch, words[k][1]) for ch in names[k] if names[k].isdigit())
            if not names[k].isdigit():
                digits.extend((ch, words[k][1]) for ch in str(single))
            k += 1
    value_text = "".join(ch for ch, _ in digits)
    if not value_text or len(value_text) > 3 or int(value_text) > 255:
        return None
    return digits
