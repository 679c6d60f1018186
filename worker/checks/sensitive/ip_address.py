"""``find_ip_address``: IPv4 and IPv6 addresses.

Counts: dotted-quad IPv4 with every octet 0-255 (no leading zeros), also
with a port or prefix length after it (the span is the address alone); IPv6
in full, compressed (``::``) or with an embedded IPv4 tail, as the stdlib
``ipaddress`` module accepts it, with at least one digit and either ``::`` or
all eight groups.

Does not count: longer dotted runs (``1.2.3.4.5``), dates (``10.11.2026``),
version, build and section numbers (``v1.2.3.4``, ``version 1.2.3.4``,
``section 1.2.3.4``), version pins (``pkg==0.0.2.2``, ``pkg>=1.2.3.4``,
``~=``, ``^``; a spaced ``==`` is a comparison), times and timestamps
(``10:30:00``), MAC addresses and other colon-separated hex that is not a
valid IPv6, a bare ``::``, and addresses glued to letters (``std::vector``, ``build12.0.0.1``).

A dotted quad is a version when the word closest to it in its sentence names
one: before it (``the app version is 10.2.0.1``, ``updated the app to
10.2.0.1``), or, with no label before, after it (``10.2.0.1 is the latest
release``). A network word closer to it (``server``, ``IP``, ``connect``,
``gateway``, ...) makes it an address again: ``after the update, connect to
10.0.0.1``. Right after an app or platform name it is a version too
(``the iOS app 10.2.0.1``, ``Android 10.2.0.1``).
"""

from __future__ import annotations

import ipaddress
from bisect import bisect_right
from collections.abc import Iterator

import regex

from turncheck.worker.checks import scan
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.sensitive.context import DetectorContext

_IPV4 = regex.compile(
    r"(?<![\p{L}0-9_.\-]|[0-9]\.)(?:[0-9]{1,3}\.){3}[0-9]{1,3}(?![\p{L}0-9_]|\.[0-9])"
)
_IPV6 = regex.compile(
    r"""
    (?<![\p{L}0-9_:.\-])
    (?:[0-9A-Fa-f]{1,4}|(?=::))
    (?::[0-9A-Fa-f]{0,4}){2,7}
    (?:\.[0-9]{1,3}){0,3}
    (?![\p{L}0-9_:]|\.[0-9])
    """,
    regex.VERBOSE,
)
# "version 1.2.3.4", "firmware 10.2.0.1", "iOS app 10.2.0.1": numbers named as releases
# or sections, right after the word.
_VERSION_WORD = regex.compile(
    r"(?<!\p{L})(?:version|versions|ver|release|build|firmware|update|upgrade|patch|"
    r"section|step|chapter|clause|rule|item|v|app|ios|ipados|android|macos|plugin|extension)"
    r"\.?[\s:#]{0,3}$",
    regex.IGNORECASE,
)

# Words that name what a dotted quad in their sentence is: a release, or a network address.
_LABELS = regex.compile(
    r"(?<!\p{L})(?:(?P<version>versions?|ver|v|releases?|released|builds?|firmware|updates?|"
    r"updated|upgrades?|upgraded|patch(?:ed|es)?|sdk|changelog|hotfix|"
    # The same words in the languages whose digits normalisation reads.
    r"versión|versão|versione|versie|wersja|sürüm|версия|версии|релиз|"
    r"(?:ال)?إصدار|(?:ال)?نسخة|نسخه|संस्करण|সংস্করণ|เวอร์ชัน|รุ่น)"
    r"|(?P<address>ip|ips|ipv4|address|addresses|addr|host|hosts|hostname|server|servers|"
    r"gateway|dns|subnet|router|ping|connect|connects|connected|connection|network|firewall|"
    r"proxy|vpn|whitelist|allowlist|blocklist|login|logged|endpoint|node|listen|listens|"
    r"bind|nat|cidr|lan|wan|wifi|origin))(?!\p{L})",
    regex.IGNORECASE,
)
# Where a sentence or line ends: labels beyond it are about something else.
_SENTENCE_END = regex.compile(r"[.!?;](?:\s|$)|\n")
# Another number: a label on its far side is that number's ("version 10.2.0.1 ... from
# 203.0.113.9": the version is the first one's).
_NUMBER = regex.compile(r"[0-9]+(?:[.:][0-9]+)*")
_LAST_NUMBER = regex.compile(r"[0-9]+(?:[.:][0-9]+)*", regex.REVERSE)
# A version pin's operator right before it: glued to a package name ("pkg==0.0.2.2",
# "pkg>=1.2.3.4"), or one only pins use ("~= 1.2.3.4", "^4.2.0.1", ">= 1.2.3.4"). A
# spaced "==" or "!=" is a comparison in code: "if ip == 203.0.113.9".
_PIN = regex.compile(r"(?:[\p{L}0-9_\-\]][=!~<>]=|(?:[~<>]=|[~^])[ ]?)$")
_CONNECTIVE = regex.compile(r"\s*(?:to|and|or|through|vs\.?|-+>?|→)\s*", regex.IGNORECASE)
_LABEL_BEFORE_CHARS = 48
_LABEL_AFTER_CHARS = 32

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def iter_ip_addresses(text: str, budget: Budget) -> Iterator[tuple[int, int, IPAddress]]:
    """Yield ``(start, end, address)`` for each IP address in ``text``, in order."""
    found: list[tuple[int, int, IPAddress]] = []
    if ":" in text:
        found.extend(_ipv6(text, budget))
    if "." in text:
        # An IPv4 tail of an IPv6 address ("::ffff:10.0.0.1") is part of that one. The
        # IPv6 spans are in order and apart: only the last one starting before can hold it.
        starts = [start for start, _, _ in found]
        ends = [end for _, end, _ in found]
        for start, end, address in _ipv4(text, budget):
            k = bisect_right(starts, start)
            if k == 0 or start >= ends[k - 1]:
                found.append((start, end, address))
    found.sort(key=lambda item: item[0])
    yield from found


def _ipv4(text: str, budget: Budget) -> Iterator[tuple[int, int, IPAddress]]:
    for match in scan.finditer(_IPV4, text, budget):
        if _VERSION_WORD.search(text, max(0, match.start() - 16), match.start()):
            continue
        if _PIN.search(text, max(0, match.start() - 4), match.start()):
            continue
        if _named_a_version(text, match.start(), match.end()):
            continue
        try:
            yield match.start(), match.end(), ipaddress.IPv4Address(match.group())
        except ipaddress.AddressValueError:
            continue


def _named_a_version(text: str, start: int, end: int) -> bool:
    """Whether the label closest to ``text[start:end]`` in its sentence, with no other
    number between them, names a release."""
    lo = max(0, start - _LABEL_BEFORE_CHARS)
    ends = list(_SENTENCE_END.finditer(text, lo, start))
    if ends:
        lo = ends[-1].end()
    previous = _LAST_NUMBER.search(text, lo, start)
    if previous is not None:
        if _CONNECTIVE.fullmatch(text, previous.end(), start) and "." in previous.group():
            # "upgraded from 10.2.0.0 to 10.2.0.1": the second is what the first is.
            return _named_a_version(text, previous.start(), previous.end())
        lo = previous.end()
    labels = list(_LABELS.finditer(text, lo, start))
    if labels:
        return labels[-1].lastgroup == "version"
    hi = min(len(text), end + _LABEL_AFTER_CHARS)
    for stop in (_SENTENCE_END.search(text, end, hi), _NUMBER.search(text, end, hi)):
        if stop is not None:
            hi = min(hi, stop.start())
    label = _LABELS.search(text, end, hi)
    return label is not None and label.lastgroup == "version"


def _ipv6(text: str, budget: Budget) -> Iterator[tuple[int, int, IPAddress]]:
    for match in scan.finditer(_IPV6, text, budget):
        candidate = match.group()
        if not any("0" <= ch <= "9" for ch in candidate):
            continue
        if "::" not in candidate and candidate.count(":") + candidate.count(".") // 3 < 7:
            continue
        try:
            yield match.start(), match.end(), ipaddress.IPv6Address(candidate)
        except ipaddress.AddressValueError:
            continue


def find_ip_address(text: str, ctx: DetectorContext) -> Iterator[tuple[int, int]]:
    """Yield ``(start, end)`` of each IP address in ``text``."""
    for start, end, _address in iter_ip_addresses(text, ctx.budget):
        yield start, end
