"""``find_labelled``: the prefix-less tokens of ``credential_labels``, where a label names them.

A value counts when the label just before it, on its line, names the provider
(``ALGOLIA_API_KEY=…``, ``"datadog_access_token": "…"``, "your airtable api
key is …", "a new cohere api token for you: …") and says it is a secret (a
word such as key, token, secret, password, credential, pat or auth, in the
label or in the few words before the provider's name); the label ends in
``=``, ``:``, ``=>``, ``:=`` or "is", and the value then fits one of the
provider's formats exactly: its characters and length, not followed by more
of them. It must look random, too: letters with digits, upper with lower
case, or letters no one could read aloud (``your-api-key-here`` and
``supersecretkey`` are placeholders; the caller drops masks).

Cost: one scan of the lower-cased text for every provider's name (a trie),
then, per name found, its own few formats matched at that place.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from turncheck.worker.checks import scan
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.sensitive.credential_labels import LABELLED, LabelledFormat
from turncheck.worker.checks.sensitive.word_trie import trie

# After the provider's name: the rest of the label on its line (key name or a few words,
# a dot only inside a dotted name), its closing quote, the separator, and the value's quote.
_LABEL = re.compile(
    r"(?:[a-z0-9_\- \t]|\.(?=[a-z0-9_])){0,40}?[\"'\]]?"
    r"(?:[ \t]*(?:=>|:=|=|:)|[ \t]+(?:is|was)(?:[ \t]*:)?(?=[ \t\"'`]))",
    re.IGNORECASE,
)
# A label may hold a separator of its own ("Datadog: API key = …"): one more is tried.
_SEPARATORS = 2
# Between the separator and the value: spaces, its opening quote (an `=` may be its own).
_GAP = r"[ \t\"'`=]{0,4}?"
# Not the head of a longer value: no more value characters, nor a dot or `=` going on.
_END = r"(?![a-z0-9_\-+/]|[.=:][a-z0-9])"
# A word saying the value is a secret, alone or closing a compound (``apikey``, ``ClientSecret``).
_SECRET_WORD = re.compile(
    r"(?<![a-z])(?:api|access|auth|app|client|secret|private|bot|service|user|signing"
    r"|encryption|master|admin|identity|upload|deploy)?[_\-. ]?"
    r"(?:keys?|tokens?|secrets?|passwords?|passwd|pwd|passphrase|credentials?|creds|pats?|auth)"
    r"(?![a-z])",
    re.IGNORECASE,
)
_CAMEL_SECRET = re.compile(r"[a-z](?:Key|Token|Secret|Password|Pat|Auth|Credentials?)(?![a-z])")
# Where the words before a provider's name stop belonging to its label.
_CLAUSE_BREAK = re.compile(r"[\n;!?:={}()\[\]<>\"',]|\.\s")
_BEFORE_CHARS = 24
_CONSONANTS = re.compile("[b-df-hj-np-tv-z]{5}")


def _spellings(name: str) -> set[str]:
    """``new relic`` as written, and joined by nothing, ``_``, ``-`` or ``.``."""
    return {joiner.join(name.split()) for joiner in (" ", "", "_", "-", ".")}


def _index() -> dict[str, tuple[re.Pattern[str], bool]]:
    """Each spelling of a provider's name: one pattern for the values of all its formats
    (alternatives, so one match tries them all), and whether it needs no secret word."""
    values: dict[str, list[LabelledFormat]] = {}
    for fmt in LABELLED:
        for name in fmt.names:
            for spelling in _spellings(name):
                values.setdefault(spelling, []).append(fmt)
    by_name: dict[str, tuple[re.Pattern[str], bool]] = {}
    for spelling, formats in values.items():
        either = "|".join(f"(?:{fmt.value}){_END}" for fmt in formats)
        pattern = re.compile(rf"{_GAP}(?P<token>{either})", re.IGNORECASE)
        by_name[spelling] = (pattern, all(fmt.bare for fmt in formats))
    return by_name


_BY_NAME = _index()
NAMES = tuple(sorted(_BY_NAME))
"""Every spelling of every provider's name, lower case: the gate's literals."""
_NAMES = re.compile(trie(list(NAMES)))
_NAMES_ANY = re.compile(trie(list(NAMES)), re.IGNORECASE)


def find_labelled(text: str, budget: Budget) -> Iterator[tuple[int, int]]:
    """Spans of the values found after a label naming their provider, in order of the names."""
    lowered = text.lower()
    # Lower-casing keeps every offset unless a character grew (only "İ" does).
    names = (
        scan.finditer(_NAMES, lowered, budget)
        if len(lowered) == len(text)
        else scan.finditer(_NAMES_ANY, text, budget)
    )
    for hit in names:
        budget.check()
        at, end = hit.span()
        if not _starts_a_name(text, at):
            continue
        span = _value_after(text, at, end, *_BY_NAME[hit.group().lower()])
        if span is not None:
            yield span


def _value_after(
    text: str, at: int, end: int, pattern: re.Pattern[str], bare: bool
) -> tuple[int, int] | None:
    """The span of the value ``pattern`` matches after the label of the name at ``at:end``."""
    for _ in range(_SEPARATORS):
        label = _LABEL.match(text, end)
        if label is None:
            return None
        end = label.end()
        if bare or _says_secret(text[at:end]) or _says_secret(_words_before(text, at)):
            match = pattern.match(text, end)
            if match is not None and _random_looking(match.group("token")):
                return match.span("token")
    return None


def _starts_a_name(text: str, at: int) -> bool:
    """Not the inside of a word (``lob`` in ``global``), but the head of a camel-case part."""
    if at == 0 or not text[at - 1].isalpha():
        return True
    return text[at - 1].islower() and text[at].isupper()


def _says_secret(label: str) -> bool:
    return _SECRET_WORD.search(label) is not None or _CAMEL_SECRET.search(label) is not None


def _words_before(text: str, at: int) -> str:
    """The words just before the provider's name in its clause (``API_KEY_`` of ``API_KEY_LOB``)."""
    before = text[max(0, at - _BEFORE_CHARS) : at]
    breaks = list(_CLAUSE_BREAK.finditer(before))
    return before[breaks[-1].end() :] if breaks else before


def _random_looking(value: str) -> bool:
    """Letters with digits, both cases, or letters no one could say (few vowels, or five
    consonants in a row): not a word nor a number (``your-api-key-here``, ``supersecretkey``)."""
    letters = [c for c in value.lower() if c.isalpha()]
    if not letters:
        return False
    if any(c.isdigit() for c in value):
        return True
    if any(c.isupper() for c in value) and any(c.islower() for c in value):
        return True
    word = "".join(letters)
    vowels = sum(c in "aeiou" for c in word)
    return vowels * 4 < len(word) or _CONSONANTS.search(word) is not None
