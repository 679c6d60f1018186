"""``find_email``: email addresses, RFC-ish but practical.

Counts: a local part of letters, digits and ``. _ % + - '`` (starting with a
letter, digit or underscore; no two dots in a row), ``@``, then a domain of
one or more labels and a top-level label of two or more letters (or punycode
``xn--``). Inside a URL (after ``scheme://`` or ``mailto:`` in the same run of
non-space text) the ``@`` may be percent-encoded as ``%40``
(``?email=lena%40example.se``); the span is the address as written. A lone
``@`` written for "at" right before an address does not hide it (``reach me
@jane@example.org``), nor does one anywhere before it (the domain is read
from the address's own at sign).

Obfuscated addresses count too: the at sign written ``[at]``, ``(at)``,
``{at}``, ``<at>`` (any case, spaces inside or around allowed) or ``[@]``,
or an ``@`` with spaces after it (``jane @ example.com``, ``jane@ example.com``;
not ``all @example.com addresses``, which names a domain); the dots of the
domain written ``[dot]``, ``(dot)``, ``{dot}``, ``<dot>``, ``[.]`` or `` . ``
(spaces on both sides: not a full stop). Spelled out, the words at and dot
count together, in any one case (``jane dot doe at example dot com``,
``sam AT example DOT com``), when what comes before "at" is not a word prose
puts there (``find us at acme dot com``, ``available at ...``) and the
address ends in a country's two letters or a common generic domain
(``visit us at acme-shop dot example`` is a website). The dots of the local
part may be written out too (``jane [dot] doe [at] ...``).

Does not count: ``@mentions`` and handles without a local part or a dotted
domain (``@sam``, ``sam@localhost``), package and version pins
(``lodash@4.17.21``), retina file names (``logo@2x.png``: a domain ending in a
file extension is a file), scp-style git remotes (``git@github.com:org/x``),
quoted local parts, an at written as a word with plain dots (``meet us at
example.com``, ``US AT HELP.EXAMPLE.COM``), and ``%40`` outside a URL.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import regex

from turncheck.worker.checks import scan
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.sensitive.context import DetectorContext
from turncheck.worker.checks.sensitive.spans import merged

_SHAPE = r"""
    (?<![\p{L}0-9._%+\-])               # not the tail of a longer local part,
    (?<![\p{L}0-9._%+\-]@)              # nor of another address ("@jane@..." is a stray @)
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

# Where an "@" has spaces around it, code reads like mail ("inputs @ self.weight"):
# only these endings, or a country's two letters, make it an address.
_GENERIC_TLDS = frozenset({
    "com", "org", "net", "edu", "gov", "mil", "int", "info", "biz", "name", "pro", "mobi",
    "app", "dev", "io", "ai", "email", "mail", "online", "shop", "store", "tech", "site",
    "xyz", "cloud", "company", "agency", "support", "help", "team", "work", "global",
})  # fmt: skip
# An obfuscated at sign or dot: a word or the sign itself in brackets, spaced or not.
_BRACKETED = r"[\ \t]*+[\[({{<][\ \t]*+(?i:{word}|{sign})[\ \t]*+[\])}}>][\ \t]*+"
_AT_TOKEN = (
    _BRACKETED.format(word="at", sign="@")
    + r"|[\ \t]*+@[\ \t]++|[\ \t]++(?P<word_at>AT|at|At)[\ \t]++|@"
)
_DOT_WORD = r"[\ \t]++(?P<word_dot>DOT|dot|Dot)[\ \t]++|[\ \t]++(?P<spaced_dot>\.)[\ \t]++"
_DOT_TOKEN = _BRACKETED.format(word="dot", sign=r"\.") + rf"|{_DOT_WORD}|\."
_LOCAL_DOT = _BRACKETED.format(word="dot", sign=r"\.") + r"|[\ \t]++(?:DOT|dot|Dot)[\ \t]++"
# Words that come before "at" in prose, not a mailbox: "find us at acme dot com",
# "available at shop dot example dot com" name a website.
_PROSE_BEFORE_AT = frozenset({
    "i", "me", "my", "you", "your", "we", "us", "our", "he", "him", "his", "she", "her",
    "they", "them", "their", "it", "its", "one", "someone", "anyone", "this", "that",
    "look", "looking", "looked", "visit", "find", "found", "available", "located", "posted",
    "listed", "online", "here", "there", "out", "up", "in", "on", "site", "website", "page",
    "home", "work", "is", "are", "was", "were", "be", "been", "and", "or", "also", "only",
    "both", "live", "hosted", "published", "signup", "register", "login", "download", "go",
    "open", "check", "see", "read", "shop", "buy", "order", "apply", "book", "join",
    "i'm", "we're", "you're", "they're",
})  # fmt: skip
_OBFUSCATED = regex.compile(
    rf"""
    (?<![\p{{L}}0-9._%+\-@'\u2019])
    # "jane [dot] doe [at] ...": the local part's dots may be written out too.
    (?P<local>(?:[\p{{L}}0-9_](?:[\p{{L}}0-9._%+'\-]*[\p{{L}}0-9_])?(?:{_LOCAL_DOT}))*
              [\p{{L}}0-9_](?:[\p{{L}}0-9._%+'\-]*[\p{{L}}0-9_])?)
    (?P<at>{_AT_TOKEN})
    (?P<domain>(?:[\p{{L}}0-9](?:[\p{{L}}0-9\-]{{0,61}}[\p{{L}}0-9])?(?:{_DOT_TOKEN}))+
               (?P<tld>\p{{L}}{{2,24}}))
    (?![\p{{L}}0-9_\-]|\.[\p{{L}}0-9]|@)
    """,
    regex.VERBOSE,
)
# Where an obfuscated address may be: a bracketed at sign or dot, an "@" with a
# space after it, the word dot or a spaced dot (an at written as a word needs one).
# Most texts have none; these tests rule them out in a few microseconds (a regex
# of all the tokens took 25 to 50).
_BRACKETED_TOKEN = re.compile(r"[\[({<][ \t]*(?:[aA][tT]|[dD][oO][tT]|[@.])[ \t]*[)\]}>]")


def _may_be_obfuscated(text: str) -> bool:
    if _BRACKETED_TOKEN.search(text) is not None:
        return True
    if "@" in text and ("@ " in text or "@\t" in text):
        return True
    return " dot" in text.lower() or " . " in text


# An at sign that can join an address: a local part ends right before it, a
# domain starts right after. Only these are searched around: "@" * 200_000 is one scan.
_AT_HINT = regex.compile(rf"(?<=[\p{{L}}0-9_])(?:{_AT_TOKEN})(?=[\p{{L}}0-9])")


def find_email(text: str, ctx: DetectorContext) -> Iterator[tuple[int, int]]:
    """Yield ``(start, end)`` of each email address in ``text``, in order."""
    budget = ctx.budget
    obfuscated = _may_be_obfuscated(text)
    if "%40" not in text and not obfuscated:
        yield from _addresses(_EMAIL, "@", text, budget)
        return
    spans = list(_addresses(_EMAIL, "@", text, budget))
    if "%40" in text:
        encoded = _addresses(_ENCODED, "%40", text, budget)
        spans.extend(span for span in encoded if _in_url(text, span[0]))
    if obfuscated:
        spans.extend(_obfuscated(text, budget))
    yield from merged(spans)


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
        if match.end() == hi:
            # The window, set by an earlier "@" (a stray one), may have cut the domain
            # short ("jane@example.co"): read it again from its own at sign.
            own_hi = match.start("domain") + 256
            match = pattern.match(text, match.start(), own_hi) or match
        if _counts(text, match):
            yield match.span()
        pos = match.end()
        at = text.find(at_sign, pos)


def _obfuscated(text: str, budget: Budget) -> Iterator[tuple[int, int]]:
    """Addresses with an obfuscated at sign or dot; plain ones are ``_addresses``'s."""
    pos = 0
    for hint in scan.finditer(_AT_HINT, text, budget):
        budget.check()
        if hint.start() < pos:
            continue
        # A local part has at most 64 characters, a domain at most 253.
        lo, hi = max(pos, hint.start() - 64), hint.end() + 256
        match = _OBFUSCATED.search(text, lo, hi)
        while match is not None and match.end("at") <= hint.start():
            match = _OBFUSCATED.search(text, match.end(), hi)  # an address before this one
        if match is None or match.start("at") > hint.start():
            continue
        pos = match.end()
        bracketed_dot = any(ch in match.group("domain") for ch in "[](){}<>")
        word_dot = bool(match.captures("word_dot") or match.captures("spaced_dot"))
        if match.group("at") == "@" and not (bracketed_dot or word_dot):
            continue  # a plain address
        word_at = match.group("word_at")
        if word_at and not (bracketed_dot or word_dot):
            continue  # "meet us at example.com": prose
        if word_at and match.group("local").casefold() in _PROSE_BEFORE_AT:
            continue  # "find us at acme dot com": a website
        if ("@" in match.group("at") or word_at) and not _mail_tld(match.group("tld")):
            continue  # "inputs @ self.weight": Python's matrix product, not mail
        if ".." in match.group("local") or match.group("tld").lower() in _FILE_EXTENSIONS:
            continue
        yield match.span()


def _mail_tld(tld: str) -> bool:
    """A country's two letters or a common generic top-level domain, in one case or title case."""
    if not (tld.islower() or tld.isupper() or tld.istitle()):
        return False
    return len(tld) == 2 or tld.lower() in _GENERIC_TLDS


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
