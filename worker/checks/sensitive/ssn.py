"""``ssn``: US Social Security numbers.

What counts: ``234-56-7891``, ``234 56 7891``, ``234.56.7891`` or
``234 - 56 - 7891`` (one kind of separator, used twice; any Unicode dash, an
em dash too, is a hyphen by the time the detector reads the text) anywhere;
a bare ``234567891`` only when an SSN word ("SSN", "social security", "SS#",
...) labels it: the closest label, or one earlier in the same clause past a
record word (account, customer, member, policy, claim, case) that does not
label the number itself ("I updated the SSN on your account to 234567891";
"the SSN and account number 234567891" stays the account's). The number
must be one the SSA could issue: area not 000, 666 or 900-999 (9xx are ITINs
and the advertising range 987-65-432x), group not 00, serial not 0000, and
not one of the numbers famous from wallet inserts, ads and forms
(078-05-1120, 219-09-9999, 457-55-5462, and the placeholder 123-45-6789 that
forms print as the example: an agent repeating it leaks nobody's number).

What does not count: partial numbers ("ending in 7891"), masked ones
("***-**-7891"), a 3-2-4 number inside a longer run of digits or letters,
phone numbers, dates and zip+4 codes (different shapes), a number labelled
as something else ("order 234-56-7891", "case number 234567891"), and a bare
nine-digit number without an SSN word.
"""

from __future__ import annotations

from collections.abc import Iterator

import regex

from turncheck.worker.checks import scan
from turncheck.worker.checks.sensitive.context import DetectorContext
from turncheck.worker.checks.sensitive.nearby import Keywords, label_is, overlaps

# Not inside a longer number or code: no letter or digit glued on either side,
# and no "digit + separator" continuing it ("1-123-45-6789", "123-45-6789-0",
# "1 - 123 - 45 - 6789"). A "+" glued before it means a phone number.
_SSN = regex.compile(
    r"""
    (?<![0-9A-Za-z+]|[0-9][.,/:\-\ ]|[0-9]\ ?-\ )
    # The area first, outside the alternation: a pattern that starts with a
    # plain character class lets the engine skip to the next digit.
    (?P<area>[0-9]{3})
    (?:
        (?P<sep>\ ?-\ ?|[.\ ])(?P<group>[0-9]{2})(?P=sep)(?P<serial>[0-9]{4})
      | (?P<bgroup>[0-9]{2})(?P<bserial>[0-9]{4})
    )
    (?![0-9A-Za-z]|[.,/:\-\ ][0-9]|\ ?-\ [0-9])
    """,
    regex.VERBOSE,
)

# Wallet-insert and advertising numbers, and the example every form prints.
_FAMOUS = frozenset({"078051120", "219099999", "457555462", "123456789"})

SSN_WORDS = Keywords(
    [
        "ssn",
        "ssns",
        "ss#",
        "ss #",
        "ss no",
        "social security",
        "social security number",
        "social sec",
        "soc sec",
        "social",
    ]
)
# Records that hold an SSN among other things: "the SSN on your account is ..."
# names the SSN, not the account, unless the word labels the number itself.
_RECORD_WORDS = ["account", "acct", "customer", "member", "policy", "claim", "case"]
# Words that name a number as something other than an SSN wherever they stand.
_NAMING_WORDS = [
    *("order", "invoice", "ticket", "reference", "ref", "confirmation", "tracking"),
    *("transaction", "routing", "phone", "call", "tel", "fax", "zip", "sku", "part"),
    *("model", "serial", "booking", "reservation"),
]
# Words that say a number is something other than an SSN when they label it.
OTHER_WORDS = Keywords([*_RECORD_WORDS, *_NAMING_WORDS])
RECORD_WORDS = Keywords(_RECORD_WORDS)
NAMING_WORDS = Keywords(_NAMING_WORDS)
# Where a clause ends: a label before it does not reach a number after it.
_CLAUSE_END = regex.compile(r"[.;!?\n]", regex.REVERSE)
_NUMBER = regex.compile(r"[0-9]{3}")
# What may stand between a record word and a number it labels: the rest of a label.
_LABEL_REST = regex.compile(r"(?i)(?:[\s#:.\-]|number|num|no|id)*+")


def _issuable(area: str, group: str, serial: str) -> bool:
    if area in ("000", "666") or area[0] == "9" or group == "00" or serial == "0000":
        return False
    return area + group + serial not in _FAMOUS


def find_ssn(text: str, ctx: DetectorContext) -> Iterator[tuple[int, int]]:
    """Spans of SSNs in ``text``; see the module docstring for what counts."""
    ssn_labels: list[tuple[int, int]] | None = None  # found once, at the first bare number
    for match in scan.finditer(_SSN, text, ctx.budget):
        ctx.budget.check()
        start, end = match.span()
        area = match["area"]
        if match.group("sep") is not None:
            if not _issuable(area, match["group"], match["serial"]):
                continue
            # A formatted SSN counts unless another label claims it.
            if not SSN_WORDS.near(text, start, end, 40, 30) and label_is(
                text, start, end, OTHER_WORDS, SSN_WORDS, 30, 0
            ):
                continue
            yield start, end
        elif _issuable(area, match["bgroup"], match["bserial"]):
            if ssn_labels is None:
                ssn_labels = SSN_WORDS.all_in(text, ctx.budget)
            # A bare number needs an SSN word within its label windows.
            if overlaps(ssn_labels, start - 60, end + 40) and (
                label_is(text, start, end, SSN_WORDS, OTHER_WORDS, 60, 40)
                or _named_in_clause(text, start)
            ):
                yield start, end


def _named_in_clause(text: str, start: int) -> bool:
    """Whether an SSN word earlier in the clause names the number at ``start`` past
    a closer record word that does not label it ("I updated the SSN on your account
    to 234567891"; not "the SSN and account number 234567891")."""
    lo = max(start - 60, 0)
    clause_end = _CLAUSE_END.search(text, lo, start)
    if clause_end is not None:
        lo = clause_end.end()
    label = SSN_WORDS.last_span_in(text, lo, start)
    if label is None:
        return False
    between = label[1]
    if _NUMBER.search(text, between, start) or NAMING_WORDS.last_in(text, between, start) >= 0:
        return False
    record = RECORD_WORDS.last_in(text, between, start)
    return record < 0 or _LABEL_REST.fullmatch(text, record, start) is None
