"""``iban``: International Bank Account Numbers.

What counts: a registered country code, two check digits and that country's
basic bank account number, exactly as long as the IBAN registry says for the
country, passing mod-97 and the country's BBAN structure (digits where the
registry wants digits). Printed compact (``DE89370400440532013000``) or in
groups (any grouping) with any separators, mixed or not: one to three spaces
or tabs, a hyphen, slash or dot with up to two spaces around it
(``DE89 3704 0044 0532 0130 00``, ``HU85-1177-3016-...``,
``FR76/3000.6000 0112``); a line break may stand in for one where the IBAN
wraps. The same separators may stand between the country code and the
check digits (``BE 03 7310 1866 4084``, ``GB-29-NWBK-...``). Letters in any
case; a lower-case country code set apart from its check digits needs the
word IBAN shortly before it (``at 12 ...`` is prose). No label word is needed
otherwise: a checksum, an exact
length and a structure together are rare by chance, and they are what makes
a wide choice of separators safe.

What does not count: IBANs glued to other letters or digits, a run whose
country length ends inside a group, and national check digits (not
validated, so IBANs made for tests still count).
"""

from __future__ import annotations

from collections.abc import Iterator

import regex
from stdnum import iban
from stdnum.exceptions import ValidationError

from turncheck.worker.checks import scan
from turncheck.worker.checks.candidates import matches
from turncheck.worker.checks.gates.engine import Seed
from turncheck.worker.checks.sensitive.context import DetectorContext

# From the SWIFT IBAN registry (the one python-stdnum ships), country + length;
# one string keeps the table readable.
_REGISTRY = (
    "AD24 AE23 AL28 AT20 AZ28 BA20 BE16 BG22 BH22 BI27 BR29 BY28 CH21 CR22 CY28 CZ24 "
    "DE22 DJ27 DK18 DO28 EE20 EG29 ES24 FI18 FK18 FO18 FR27 GB22 GE22 GI23 GL18 GR27 "
    "GT28 HN28 HR21 HU28 IE22 IL23 IQ23 IS26 IT27 JO30 KW30 KZ20 LB28 LC32 LI21 LT20 "
    "LU20 LV21 LY25 MC27 MD24 ME22 MK19 MN20 MR27 MT31 MU30 NI28 NL18 NO15 OM23 PK24 "
    "PL28 PS29 PT25 QA29 RO24 RS22 RU33 SA24 SC31 SD18 SE24 SI19 SK24 SM27 SO23 ST25 "
    "SV28 TL23 TN24 TR26 UA29 VA22 VG24 XK20 YE30"
)
_LENGTHS = {entry[:2]: int(entry[2:]) for entry in _REGISTRY.split()}

# The country code and check digits, then letters and digits in groups split
# by separators, or by a line break. Groups are usually of four,
# but any grouping is read: a zero-width space standing in for a space is
# removed by normalisation and leaves "2122 3307" as "21223307". Possessive,
# so a long run never backtracks.
_CANDIDATE = regex.compile(
    r"""
    (?<![0-9A-Za-z])[A-Za-z]{2}(?:[\ \t]{0,2}[\-/.][\ \t]{0,2}|[\ \t]{1,3})?[0-9]{2}
    (?:(?:[\ \t]{0,2}[\-/.][\ \t]{0,2}|[\ \t]{1,3}|\ ?\r?\n[\ \t]*+)?[0-9A-Za-z]++){1,30}+
    (?![0-9A-Za-z])
    """,
    regex.VERBOSE,
)
_GROUP = regex.compile(r"[0-9A-Za-z]++")
# Where a candidate starts: the country code, the check digits and the zero to five
# separator characters between them, one seed per count (a seed has one length).
SEEDS = tuple(
    Seed.of("[A-Za-z]{2}" + r"[ \t\-/.]" * separators + "[0-9]{2}") for separators in range(6)
)

# Where a candidate can start: a country code and check digits not glued to a
# word. Found from the digits, which the engine skips to fast; the candidate
# pattern, starting at letters, would be tried at every word of the text.
_START = regex.compile(r"[0-9](?<=(?<![0-9A-Za-z])[A-Za-z]{2}[\ \t\-/.]{0,5}[0-9])[0-9]")

# The word that lets a lower-case country code stand apart from its check digits.
_LABEL = regex.compile(r"(?i)(?<![A-Za-z])iban(?![A-Za-z])")
_LABEL_CHARS = 40


def _valid(compact: str) -> bool:
    try:
        iban.validate(compact, check_country=False)
    except ValidationError:
        return False
    return True


def _country_code_ok(text: str, start: int) -> bool:
    """Whether the country code reads as one: glued to its check digits, in capitals,
    or after the word IBAN. Lower-case and apart, it is a word ("at 12 ...", "be 03 ...")."""
    code = text[start : start + 2]
    if text[start + 2].isdigit() or code.isupper():
        return True
    return _LABEL.search(text, max(0, start - _LABEL_CHARS), start) is not None


def find_iban(text: str, ctx: DetectorContext) -> Iterator[tuple[int, int]]:
    """Spans of IBANs in ``text``; see the module docstring for what counts."""
    budget = ctx.budget
    starts = None if ctx.candidates is None else ctx.candidates.get("iban")
    if starts is None:
        first = scan.search(_START, text, budget)
        if first is None:
            return
        # Every candidate's country code and separators stand at most seven characters
        # before its first check digit: from there on is the scan over the whole text.
        found = scan.finditer(_CANDIDATE, text, budget, max(0, first.start() - 7))
    else:
        found = matches(_CANDIDATE, text, budget, starts)
    for match in found:
        budget.check()
        start = match.start()
        length = _LENGTHS.get(text[start : start + 2].upper())
        if length is None:
            continue
        # The IBAN ends where a group ends with exactly the country's length;
        # overshooting inside a group means the run is something else.
        compact, end = "", start
        for group in _GROUP.finditer(text, start, match.end()):
            compact += group.group()
            end = group.end()
            if len(compact) >= length:
                break
        if len(compact) != length:
            continue
        if not _country_code_ok(text, start):
            continue
        if _valid(compact.upper()):
            yield start, end
