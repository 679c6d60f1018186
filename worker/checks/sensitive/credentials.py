"""``find_credentials``: API keys, tokens and private keys of common providers.

Counts (prefixes are case-sensitive, as the providers issue them): AWS access
key ids (``AKIA``/``ASIA`` + 16) and secret keys (40 characters of mixed
case and digits, only with an AWS-secret word shortly before); Stripe secret
and restricted keys (``sk_``/``rk_`` live or test) and webhook signing
secrets (``whsec_``), GitHub (``ghp_ gho_ ghu_ ghs_ ghr_ github_pat_``),
GitLab (``glpat-``), Slack tokens (``xoxb- xoxp- xoxa- xoxr- xapp-``) and
webhook URLs, Google API keys (``AIza`` + 35), OAuth client secrets
(``GOCSPX-``) and OAuth tokens (``ya29.``), OpenAI (``sk-``, ``sk-proj-``),
Anthropic (``sk-ant-``), Hugging Face (``hf_``), SendGrid (``SG.x.y``), npm
(``npm_``), Twilio ``SK``/``AC`` + 32 hex with a Twilio word nearby and auth
tokens (32 lower-case hex with "twilio" itself shortly before, as in
``TWILIO_AUTH_TOKEN=``), Azure ``AccountKey=`` and ``SharedAccessKey=``
values, the token after ``Bearer``, the ``user:password`` of a URL
(``postgres://admin:s3cret@db``: the user info is the span), JWTs whose
header decodes to JSON with ``"alg"``, and PEM/PGP private key blocks
(through the END line, or the BEGIN line and the base64 lines under it when
END is missing).

Does not count: the example keys AWS prints throughout its documentation
(``AKIAIOSFODNN7EXAMPLE`` and its secret ``wJalrXUtnFEMI/K7MDENG/...EXAMPLEKEY``,
a handful of values: an agent quoting the docs leaks nobody's key; other keys
with ``EXAMPLE`` inside still count), a prefix alone or with too few
characters after it (``sk-``, ``AKIA``), placeholders without digits
(``Bearer YOUR_TOKEN``) or made mostly of one character
(``AKIAXXXXXXXXXXXXXXXX``, ``sk-xxxx…``), a URL's user without a password
(``ssh://git@host``) or with a stand-in for one
(``user:password@``, ``user:${DB_PASSWORD}@``, ``user:<pass>@``), Stripe
publishable keys (``pk_live_``: public by design, shipped to browsers), UUIDs,
git SHAs, hex colours, order ids, public keys and certificates, passwords in
prose (``my password is hunter2``), and keys of providers not listed.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterator

import regex

from turncheck.worker.checks import scan
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.sensitive.context import DetectorContext
from turncheck.worker.checks.sensitive.spans import merged

_B = r"(?<![A-Za-z0-9_\-])"  # not the tail of a longer identifier
_E = r"(?![A-Za-z0-9_\-])"  # nor its head
# One pattern per family: each starts with a literal prefix, which the engine
# finds fast; one alternation of all of them was 50 times slower.
_FAMILIES: tuple[str, ...] = (
    rf"{_B}(?:AKIA|ASIA)[A-Z0-9]{{16}}{_E}",
    rf"{_B}(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{{16,}}",
    rf"{_B}whsec_[A-Za-z0-9+/]{{24,}}={{0,2}}",
    rf"{_B}gh[pousr]_[A-Za-z0-9]{{30,}}",
    rf"{_B}github_pat_[A-Za-z0-9_]{{40,}}",
    rf"{_B}glpat-[A-Za-z0-9_\-]{{20,}}",
    rf"{_B}xox[abprs]-(?=[A-Za-z0-9\-]*[0-9])[A-Za-z0-9][A-Za-z0-9\-]{{14,}}",
    rf"{_B}xapp-(?=[A-Za-z0-9\-]*[0-9])[A-Za-z0-9][A-Za-z0-9\-]{{14,}}",
    r"https://hooks\.slack\.com/services/T[A-Z0-9]{6,}/B[A-Z0-9]{6,}/[A-Za-z0-9]{16,}",
    rf"{_B}AIza[A-Za-z0-9_\-]{{35}}{_E}",
    rf"{_B}GOCSPX-[A-Za-z0-9_\-]{{24,}}{_E}",
    rf"{_B}ya29\.[A-Za-z0-9_\-]{{20,}}",
    rf"{_B}sk-ant-[A-Za-z0-9_\-]{{20,}}",
    rf"{_B}sk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{{20,}}",
    rf"{_B}sk-[A-Za-z0-9]{{20,}}{_E}",
    rf"{_B}hf_[A-Za-z0-9]{{30,}}{_E}",
    rf"{_B}SG\.[A-Za-z0-9_\-]{{16,}}\.[A-Za-z0-9_\-]{{16,}}",
    rf"{_B}npm_[A-Za-z0-9]{{30,}}{_E}",
    r"(?<![A-Za-z])(?:AccountKey|SharedAccessKey)=[A-Za-z0-9+/]{20,}={0,2}",
    # The token after Bearer has a digit: "Bearer YOUR_TOKEN" is a placeholder.
    r"(?<![A-Za-z])(?:Bearer|bearer|BEARER)[ \t]{1,4}"
    r"(?P<token>(?=[A-Za-z0-9\-._~+/]*[0-9])[A-Za-z0-9\-._~+/]{16,}=*)",
)
_PLAIN = tuple(regex.compile(pattern) for pattern in _FAMILIES)
_JWT = regex.compile(rf"{_B}eyJ[A-Za-z0-9_\-]{{8,}}\.[A-Za-z0-9_\-]{{8,}}\.[A-Za-z0-9_\-]*")
_TWILIO = regex.compile(rf"{_B}(?:SK|AC)[0-9a-fA-F]{{32}}{_E}")
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
_TWILIO_TOKEN = regex.compile(rf"{_B}(?=[0-9a-f]{{0,31}}[a-f])[0-9a-f]{{32}}{_E}")
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

# The example credentials AWS's documentation prints (IAM, CLI, STS, SigV4 pages).
_DOCUMENTED_EXAMPLES = frozenset({
    "AKIAIOSFODNN7EXAMPLE", "AKIAI44QH8DHBEXAMPLE", "ASIAIOSFODNN7EXAMPLE",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY",
    "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY",
})  # fmt: skip

_PEM_BEGIN = regex.compile(
    r"-----BEGIN (?P<label>(?:RSA |EC |OPENSSH |DSA |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?)-----"
    r"(?P<body>(?:[ \t]*\r?\n[ \t]*[A-Za-z0-9+/=]{16,})*)"
)


def find_credentials(text: str, ctx: DetectorContext) -> Iterator[tuple[int, int]]:
    """Yield ``(start, end)`` of each credential in ``text``, in order."""
    budget = ctx.budget
    spans = list(_pem_blocks(text, budget))
    if "eyJ" in text:
        jwts = scan.finditer(_JWT, text, budget)
        spans.extend(m.span() for m in jwts if _is_jwt(m.group()))
    found: list[regex.Match[str]] = []
    for pattern in _PLAIN:
        found.extend(scan.finditer(pattern, text, budget))
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
        if not _placeholder(token) and token not in _DOCUMENTED_EXAMPLES:
            spans.append(match.span("token") if "token" in match.re.groupindex else match.span())
    yield from merged(spans)


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
