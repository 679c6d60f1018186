"""``find_email``: email addresses, RFC-ish but practical.

Counts: a local part of letters, digits and ``. _ % + - '`` (starting with a
letter, digit or underscore; no two dots in a row), ``@``, then a domain of
one or more labels and a top-level label of two or more letters (or punycode
``xn--``). Inside a URL (after ``scheme://`` or ``mailto:`` in the same run of
non-space text) the ``@`` may be percent-encoded as ``%40``
(``?email=lena%40example.se``); the span is the address as written.

Does not count: ``@mentions`` and handles without a local part or a dotted
domain (``@sam``, ``sam@localhost``), package and version pins
(``lodash@4.17.21``), retina file names (``logo@2x.png``: a domain ending in a
file extension is a file), scp-style git remotes (``git@github.com:org/x``),
quoted local parts, spelled-out addresses (``sam at acme dot com``), and
``%40`` outside a URL.
"""

from __future__ import annotations

from collections.abc import Iterator

import regex

from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.sensitive.context import DetectorContext

_SHAPE = r"""
    (?<![\p{L}0-9._%+\-@])              # not the tail of a longer local part
    (?P<local>[\p{L}0-9_](?:[\p{L}0-9._%+'\-]*[\p{L}0-9_])?)
    AT
    (?P<domain>(?:[\p{L}0-9](?:[\p{L}0-9\-]{0,61}[\p{L}0-9])?\.)+
               (?P<tld>\p{L}{2,24}|xn--[a-z0-9\-]{2,59}))
    (?![\p{L}0-9_\-]|\.[\p{L}0-9]|@)     # the whole domain, not a prefix of it
"""
_EMAIL = regex.compile(_SHAPE.replace("AT", "@", 1), regex.VERBOSE)
# Inside a URL an address is often percent-encoded: ``?email=lena%40example.se``.
_ENCODED = regex.compile(_SHAPE.replace("AT", "%40", 1), regex.VERBOSE)
_URL_START = regex.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://|mailto:", regex.IGNORECASE)
# An at sign that can join an address: a local part ends right before it, a
# domain starts right after. A window with none of these holds no address.
_JOINTS = {
    at_sign: regex.compile(rf"(?<=[\p{{L}}0-9_]){at_sign}(?=[\p{{L}}0-9])")
    for at_sign in ("@", "%40")
}

# Endings that make ``name@2x.png`` a file, not an address. (``.zip`` and
# ``.mov`` are registered TLDs too, but nobody's mailbox lives there.)
_FILE_EXTENSIONS = frozenset({
    "png", "jpg", "jpeg", "gif", "svg", "webp", "bmp", "ico", "tif", "tiff", "heic", "pdf",
    "txt", "md", "csv", "tsv", "json", "xml", "yaml", "yml", "html", "htm", "css", "js", "mjs",
    "ts", "tsx", "jsx", "py", "rb", "go", "rs", "java", "kt", "zip", "tar", "gz", "tgz", "rar",
    "mp3", "mp4", "mov", "wav", "avi", "mkv", "doc", "docx", "xls", "xlsx", "ppt", "pptx",
    "log", "lock", "toml", "ini", "cfg", "conf",
})  # fmt: skip
_RETINA = regex.compile(r"[0-9]+(?:\.[0-9]+)?x\.", regex.IGNORECASE)


def find_email(text: str, ctx: DetectorContext) -> Iterator[tuple[int, int]]:
    """Yield ``(start, end)`` of each email address in ``text``, in order."""
    budget = ctx.budget
    if "%40" not in text:
        yield from _addresses(_EMAIL, "@", text, budget)
        return
    encoded = (span for span in _addresses(_ENCODED, "%40", text, budget) if _in_url(text, span[0]))
    yield from sorted([*_addresses(_EMAIL, "@", text, budget), *encoded])


def _addresses(
    pattern: regex.Pattern[str], at_sign: str, text: str, budget: Budget
) -> Iterator[tuple[int, int]]:
    joint = _JOINTS[at_sign]
    pos = 0
    at = text.find(at_sign)
    while at != -1:
        budget.check()
        # A local part has at most 64 characters (RFC 5321): scan only around each "@".
        lo, hi = max(pos, at - 64), at + 256
        if joint.search(text, lo, hi) is None:
            # No address in this window, nor in that of any "@" before the next joint:
            # skip them ("@" * 200_000 is one search, not 200,000).
            following = joint.search(text, at + 1)
            if following is None:
                return
            at = text.find(at_sign, max(at + 1, following.start() - 256))
            continue
        match = pattern.search(text, lo, hi)
        if match is None:
            at = text.find(at_sign, at + 1)
            continue
        if _counts(text, match):
            yield match.span()
        pos = match.end()
        at = text.find(at_sign, pos)


def _in_url(text: str, start: int) -> bool:
    """Whether ``start`` is inside a URL: the run of non-space text before it has a scheme."""
    token_start = max(text.rfind(ch, 0, start) for ch in " \t\n\"'<>()") + 1
    return _URL_START.search(text, token_start, start) is not None


def _counts(text: str, match: regex.Match[str]) -> bool:
    local, domain, tld = match.group("local", "domain", "tld")
    if ".." in local or tld.lower() in _FILE_EXTENSIONS or _RETINA.match(domain):
        return False
    # ``git@github.com:org/repo.git`` is a remote, not a mailbox.
    end = match.end()
    return not (text.startswith(":", end) and text[end + 1 : end + 2].isalnum())
