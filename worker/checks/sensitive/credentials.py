"""``find_credentials``: API keys, tokens and private keys of common providers.

Counts every format of ``credential_formats.FORMATS`` (prefixes case-sensitive,
as the providers issue them; the list with each format in words is
``docs/credentials.md``): one scan finds every format's anchor, and each hit is
matched against the formats of that anchor alone, at its position. Tokens
without a prefix (``credential_labels.LABELLED``: Algolia, Datadog, Cohere…)
count after a label on their line naming their provider as a secret
(``ALGOLIA_API_KEY=…``, "your airtable api key is …"), when they fit the
provider's characters and length exactly and look random
(``labelled_tokens.py``). Besides the tables, by code of its own: AWS
secret keys (40 characters of mixed case and digits, only with an
AWS-secret word shortly before), Twilio ``SK``/``AC``
+ 32 hex with a Twilio word nearby and auth tokens (32 lower-case hex with
"twilio" itself shortly before, as in ``TWILIO_AUTH_TOKEN=``), the token
after ``Bearer``, the ``user:password`` of a URL (``postgres://admin:s3cret@db``:
the user info is the span), JWTs whose header decodes to JSON with ``"alg"``,
PEM/PGP/OpenSSH private key blocks (through the END line, or the BEGIN line
and the base64 lines under it when END is missing) and PuTTY key files.

Does not count: the example keys AWS prints throughout its documentation
(``AKIAIOSFODNN7EXAMPLE`` and its secret ``wJalrXUtnFEMI/K7MDENG/...EXAMPLEKEY``,
and the few other values providers print in their docs,
``credential_formats.DOCUMENTED_EXAMPLES``: an agent quoting the docs leaks
nobody's key; other keys with ``EXAMPLE`` inside still count), a prefix alone
or with too few characters after it (``sk-``, ``AKIA``), placeholders without
digits (``Bearer YOUR_TOKEN``), masks: a part after the prefix made mostly of
one character or of two (``AKIAXXXXXXXXXXXXXXXX``, ``sk-xxxx…``,
``sk_live_****``), or holding a stand-in word (``REDACTED``, ``YOUR``,
``xxxx``), a URL's user without a password
(``ssh://git@host``) or with a stand-in for one
(``user:password@``, ``user:${DB_PASSWORD}@``, ``user:<pass>@``), Stripe
publishable keys (``pk_live_``: public by design, shipped to browsers), UUIDs,
git SHAs, hex colours, order ids, public keys and certificates, passwords in
prose (``my password is hunter2``), a provider's value after a label that
says no secret (``Heroku request <UUID> failed``) or that reads as words
(``supersecretpassword``), client ids and other public identifiers, and keys
of providers not listed (a random value after ``api_key=`` alone is left:
without a provider its shape proves nothing).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterator

import regex

from turncheck.worker.checks import scan
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.sensitive.context import DetectorContext
from turncheck.worker.checks.sensitive.credential_formats import (
    DOCUMENTED_EXAMPLES,
    FORMATS,
    B,
    E,
    TokenFormat,
)
from turncheck.worker.checks.sensitive.labelled_tokens import find_labelled
from turncheck.worker.checks.sensitive.spans import merged
from turncheck.worker.checks.sensitive.word_trie import trie

# The token after Bearer has a digit: "Bearer YOUR_TOKEN" is a placeholder.
_BEARER = regex.compile(
    r"(?<![A-Za-z])(?:Bearer|bearer|BEARER)[ \t]{1,4}"
    r"(?P<token>(?=[A-Za-z0-9\-._~+/]*[0-9])[A-Za-z0-9\-._~+/]{16,}=*)"
)
_JWT = regex.compile(rf"{B}eyJ[A-Za-z0-9_\-]{{8,}}\.[A-Za-z0-9_\-]{{8,}}\.[A-Za-z0-9_\-]*")
_TWILIO = regex.compile(rf"{B}(?:SK|AC)[0-9a-fA-F]{{32}}{E}")
# 40 characters of base64 with upper, lower and a digit: not a (lower-case) git SHA.
_AWS_SECRET = regex.compile(
    r"(?<![A-Za-z0-9/+=])(?=[A-Za-z0-9/+]{0,39}[a-z])(?=[A-Za-z0-9/+]{0,39}[A-Z])"
    r"(?=[A-Za-z0-9/+]{0,39}[0-9])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])"
)
_AWS_SECRET_WORD = regex.compile(
    r"aws_?secret|secret_?access_?key|secret access key|SecretAccessKey|(?<!\p{L})secret(?!\p{L})",
    regex.IGNORECASE,
)
_TWILIO_WORD = regex.compile(r"twilio|account[ _]?sid|auth[ _]?token|api[ _]?key", regex.I)
# A Twilio auth token is bare lower-case hex, like an MD5: only with "twilio" itself nearby.
_TWILIO_TOKEN = regex.compile(rf"{B}(?=[0-9a-f]{{0,31}}[a-f])[0-9a-f]{{32}}{E}")
_TWILIO_NAME = regex.compile(r"twilio", regex.I)
_CONTEXT_CHARS = 60
# ``scheme://user:password@host``: the user info is the finding when it holds a password.
_URL_PASSWORD = regex.compile(
    r"(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]{1,15}://"
    r"(?P<token>[^\s:/?#@\[\]<>\"'`]*:(?P<password>[^\s/?#@\[\]<>\"'`]+))@"
)
# Passwords that stand for one in documentation: the field's name or a template slot.
_PASSWORD_PLACEHOLDER = regex.compile(
    r"(?:your[_\-]?|my[_\-]?|db[_\-]?)?(?:password|passwd|pass|pwd|pw|secret|changeme)"
    r"|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\{+[^{}]*\}+|<[^<>]*>|\[[^\[\]]*\]|%s",
    regex.IGNORECASE,
)

_PEM_BEGIN = regex.compile(
    r"-----BEGIN (?P<label>(?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?)-----"
    r"(?P<body>(?:[ \t]*\r?\n[ \t]*[A-Za-z0-9+/=]{16,})*)"
)
# A PuTTY key file: its header through the MAC line that closes the private part.
_PUTTY = regex.compile(
    r"PuTTY-User-Key-File-[0-9]+: [^\r\n]*(?:\r?\n[^\r\n]*){0,80}?\r?\nPrivate-MAC: [0-9a-fA-F]+"
    r"|PuTTY-User-Key-File-[0-9]+: [^\r\n]*"
)
# Inside a token's variable part, a word that shows it stands for one.
_STAND_IN = regex.compile(r"redacted|placeholder|your|xxxx|insert|replace", regex.IGNORECASE)


class _Candidate:
    """One format ready to match where its anchor stands."""

    __slots__ = ("anchor", "format", "pattern", "words")

    def __init__(self, fmt: TokenFormat, anchor: str) -> None:
        self.format = fmt
        self.anchor = anchor
        self.pattern = regex.compile(fmt.pattern)
        self.words = (
            regex.compile("|".join(map(regex.escape, fmt.words)), regex.IGNORECASE)
            if fmt.words
            else None
        )


def _index(formats: tuple[TokenFormat, ...]) -> dict[str, list[_Candidate]]:
    """Candidates by their anchor's first two characters, longer anchors first."""
    index: dict[str, list[_Candidate]] = {}
    for fmt in formats:
        for anchor in fmt.anchors:
            index.setdefault(anchor[:2], []).append(_Candidate(fmt, anchor))
    for candidates in index.values():
        candidates.sort(key=lambda c: -len(c.anchor))
    return index


_BY_HEAD = _index(FORMATS)
# One scan finds every anchor; each is then matched against its formats alone, at its
# position (a scan per format would cost the text's length 200 times).
_ANCHORS = re.compile(trie(sorted({a for f in FORMATS for a in f.anchors})))


def find_credentials(text: str, ctx: DetectorContext) -> Iterator[tuple[int, int]]:
    """Yield ``(start, end)`` of each credential in ``text``, in order."""
    budget = ctx.budget
    spans = list(_pem_blocks(text, budget))
    if "PuTTY-User-Key-File-" in text:
        spans.extend(m.span() for m in scan.finditer(_PUTTY, text, budget))
    if "eyJ" in text:
        jwts = scan.finditer(_JWT, text, budget)
        spans.extend(m.span() for m in jwts if _is_jwt(m.group()))
    spans.extend(_tokens(text, budget))
    found: list[regex.Match[str]] = list(scan.finditer(_BEARER, text, budget))
    found.extend(_near_words(_TWILIO, _TWILIO_WORD, text, budget))
    if scan.search(_TWILIO_NAME, text, budget):
        found.extend(_near_words(_TWILIO_TOKEN, _TWILIO_NAME, text, budget))
    if scan.search(_AWS_SECRET_WORD, text, budget):
        found.extend(_near_words(_AWS_SECRET, _AWS_SECRET_WORD, text, budget))
    if "://" in text and "@" in text:
        found.extend(
            m
            for m in scan.finditer(_URL_PASSWORD, text, budget)
            if not _PASSWORD_PLACEHOLDER.fullmatch(m.group("password"))
        )
    for match in found:
        budget.check()
        token = match.group("token") if "token" in match.re.groupindex else match.group()
        if not _placeholder(token) and token not in DOCUMENTED_EXAMPLES:
            spans.append(match.span("token") if "token" in match.re.groupindex else match.span())
    yield from merged(spans)


def _tokens(text: str, budget: Budget) -> Iterator[tuple[int, int]]:
    """Spans of the table's formats: each anchor found is matched by its own formats."""
    for at in _anchor_starts(text, budget):
        budget.check()
        for candidate in _BY_HEAD.get(text[at : at + 2], ()):
            piece = text[at : at + len(candidate.anchor)]
            if piece != candidate.anchor:
                continue
            match = _match_at(candidate, text, at)
            if match is None:
                continue
            start, end = match.span("token") if "token" in match.re.groupindex else match.span()
            words = candidate.words
            if words is not None and not words.search(text, max(0, start - _CONTEXT_CHARS), start):
                continue
            if not _stands_in(text[start:end], piece):
                yield start, end
    for start, end in find_labelled(text, budget):
        if not _stands_in(text[start:end], ""):
            yield start, end


def _anchor_starts(text: str, budget: Budget) -> Iterator[int]:
    """Where each anchor starts, in order, those inside another anchor's match too.

    The scan resumes after each match, so an anchor starting inside one (``_mmk``
    of MaxMind in ``…sc_mmk``, after Authress's ``sc_``) is looked for there by
    hand: a few anchored matches, where a lookahead scan would cost every position.
    """
    for hit in scan.finditer(_ANCHORS, text, budget):
        yield hit.start()
        for inner in range(hit.start() + 1, hit.end()):
            if _ANCHORS.match(text, inner) is not None:
                yield inner


def _match_at(candidate: _Candidate, text: str, at: int) -> regex.Match[str] | None:
    """The format's match that holds the anchor at ``at``, starting at most ``lead`` before."""
    for start in range(max(0, at - candidate.format.lead), at + 1):
        match = candidate.pattern.match(text, start)
        if match is not None and match.end() > at:
            return match
    return None


def _stands_in(token: str, anchor: str) -> bool:
    """Whether ``token`` is a mask, a placeholder or a documented example, not a secret.

    Judged on what follows the provider's fixed part: ``ghp_XXXX…``, ``sk-xxxx…``,
    ``pypi-…`` then one repeated character, a body of two characters
    (``0101…``), or a word like ``REDACTED`` or ``YOUR`` inside.
    """
    if token in DOCUMENTED_EXAMPLES:
        return True
    body = token.replace(anchor, "", 1) if anchor in token else token
    return len(set(body)) <= 2 or _placeholder(body) or _STAND_IN.search(body) is not None


def _placeholder(token: str) -> bool:
    """Whether one character makes up most of ``token`` (``AKIAXXXXXXXXXXXXXXXX``, ``sk-xxxx…``).

    Measured by variety, not by words: realistic keys written for documentation
    keep ``EXAMPLE`` inside and are still keys.
    """
    return max(map(token.count, set(token))) * 2 > len(token)


def _near_words(
    pattern: regex.Pattern[str], words: regex.Pattern[str], text: str, budget: Budget
) -> Iterator[regex.Match[str]]:
    """Matches of ``pattern`` with one of ``words`` shortly before."""
    for match in scan.finditer(pattern, text, budget):
        start = match.start()
        if words.search(text, max(0, start - _CONTEXT_CHARS), start) is not None:
            yield match


def _is_jwt(token: str) -> bool:
    """Whether the first segment decodes to a JSON object with ``alg``, as a JWT header does."""
    header = token.split(".", 1)[0]
    try:
        decoded = json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))
    except (binascii.Error, ValueError):  # UnicodeDecodeError and JSONDecodeError too
        return False
    return isinstance(decoded, dict) and "alg" in decoded


def _pem_blocks(text: str, budget: Budget) -> Iterator[tuple[int, int]]:
    if "-----BEGIN" not in text:
        return
    for match in scan.finditer(_PEM_BEGIN, text, budget):
        end_line = f"-----END {match.group('label')}-----"
        # A block has no more than a few hundred lines; the next BEGIN ends the search.
        end = text.find(end_line, match.end())
        following = text.find("-----BEGIN", match.end())
        if end != -1 and (following == -1 or end < following):
            yield match.start(), end + len(end_line)
        else:
            yield match.span()
