"""``find_internal_links``: links and bare addresses of local or internal places.

Counts, as a URL (``http://10.0.0.5:8080/admin``, the span is the whole URL),
as a Windows share (``\\\\fileserver.lan\\finance\\q3.xlsx``, the whole path)
or bare with an optional port and path (``grafana.corp``, ``db.internal:5432``):
``localhost`` (and ``*.localhost``); loopback ``127.0.0.0/8`` and ``::1``;
``0.0.0.0``; private IPv4 (10/8, 172.16/12, 192.168/16); link-local
(169.254/16, fe80::/10); unique-local IPv6 (fc00::/7); hosts whose last
label(s) are internal-only (``.internal .local .corp .lan .intranet
.home.arpa .localdomain``); any host equal to or under one of
``ctx.internal_domains``; and the host of a share whose name has no dot
(``\\\\fileserver\\share``: a LAN machine's name). A host after ``user@``
counts when it is a login, not a mailbox: after ``ssh``, ``scp``, ``sftp``,
``rsync``, ``mosh`` or ``telnet`` on the same line (``ssh ops@bastion.corp``),
or before ``:path`` (``git@gitlab.acme.internal:team/app.git``).

Does not count: public addresses and domains (``8.8.8.8``, ``example.com``),
an internal word elsewhere than at the end (``corporation.com``,
``local.example.com``), the word ``localhost`` with no port or path after it
(``the app runs on localhost``: prose, not an address), email addresses at
internal domains (``jane@acme.corp``: the email detector's), file names and
paths (``.env.local``, ``/etc/app.local``), a ``.local`` name that is not shown to
be a host (``threading.local``, ``foo.local()``, ``rc.local``, ``adduser.local``: a
Python attribute or a file name; it is one with a port or path, after ``user@``, with
a hyphen in it, or with a network word on its line: ``ping nas.local``, ``the printer
at office.local``), and IPs that ``find_ip_address``
leaves out (versions).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator

import regex

from turncheck.worker.checks import scan
from turncheck.worker.checks.sensitive.context import DetectorContext
from turncheck.worker.checks.sensitive.ip_address import IPAddress, iter_ip_addresses

_INTERNAL_SUFFIXES = ("internal", "local", "corp", "lan", "intranet", "home.arpa", "localdomain")
HOST_HINTS = (*("." + suffix for suffix in _INTERNAL_SUFFIXES), "localhost")
_INTERNAL_NETWORKS = tuple(
    ipaddress.ip_network(net)
    for net in (
        "127.0.0.0/8", "0.0.0.0/32", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16",
        "169.254.0.0/16", "::1/128", "::/128", "fe80::/10", "fc00::/7",
    )
)  # fmt: skip

_URL = regex.compile(
    r"(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]{1,15}://"
    r"(?:[^\s/?#@\[\]]*@)?(?P<host>\[[0-9A-Fa-f:.%\w]+\]|[^\s/?#:\[\]<>\"'`]+)"
    r"[^\s<>\"'`]*"
)
# A dotted host name (or the bare word localhost) not glued to a path, a file
# name or an email's local part.
_HOST = regex.compile(
    r"(?<![\p{L}0-9_./\\\-])"
    r"(?:(?:[\p{L}0-9](?:[\p{L}0-9\-]{0,61}[\p{L}0-9])?\.)+[\p{L}][\p{L}0-9\-]{0,62}|localhost)"
    r"(?![\p{L}0-9_\-@]|\.[\p{L}0-9])",
    regex.IGNORECASE,
)
_PORT_PATH = regex.compile(r"(?::[0-9]{1,5})?(?:/[^\s<>\"'`]*)?")
# ``user@host`` is a login, not a mailbox, after a remote-login or copy command on the
# same line (``ssh ops@bastion.corp``) or before ``:path`` (``git@git.acme.internal:x.git``).
_LOGIN_COMMAND = regex.compile(
    r"(?<![\p{L}0-9_\-])(?:ssh|scp|sftp|rsync|mosh|telnet)(?![\p{L}0-9_\-])"
)
_LOGIN_CHARS = 64
# A Windows share, ``\\host\share\path``: its host is a LAN machine when it has no dot.
_UNC = regex.compile(
    r"(?<![\\\p{L}0-9_])\\\\(?P<host>[\p{L}0-9][\p{L}0-9_.\-]*|\[[0-9A-Fa-f:.]+\])"
    r"\\[^\s\\<>\"'`|]+(?:\\[^\s\\<>\"'`|]+)*\\?"
)
# Words that make a bare ``.local`` name a machine on the network (mDNS), not a name in code.
_HOST_WORD = regex.compile(
    r"(?<![\p{L}0-9_])(?:ping|ssh|scp|sftp|rsync|curl|wget|telnet|nslookup|dig|traceroute|"
    r"host|hostname|hosts|server|servers|connect|connects|connected|connection|resolve|resolves|"
    r"resolved|mdns|bonjour|avahi|zeroconf|browser|browse|navigate|reach|reachable|url|domain|"
    r"dns|printer|nas|router|camera|address|device|machine|dashboard|website|portal|"
    r"http|https)(?![\p{L}0-9_])",
    regex.IGNORECASE,
)
_HOST_WORD_CHARS = 40
_TRAILING = ".,;:!?)]}*'\""


def find_internal_links(text: str, ctx: DetectorContext) -> Iterator[tuple[int, int]]:
    """Yield ``(start, end)`` of each internal link or address in ``text``, in order."""
    domains = tuple(d.lower().strip(".") for d in ctx.internal_domains)
    budget = ctx.budget
    spans: list[tuple[int, int]] = []
    if "://" in text:
        for match in scan.finditer(_URL, text, budget):
            host = match.group("host").strip("[]")
            if _is_internal_host(host, domains):
                spans.append((match.start(), match.start() + len(match.group().rstrip(_TRAILING))))
    for start, end, address in iter_ip_addresses(text, budget):
        if _is_internal_address(address):
            spans.append((start, _extend(text, end)))
    if "\\\\" in text:
        for match in scan.finditer(_UNC, text, budget):
            host = match.group("host").strip("[]")
            if "." not in host or _is_internal_host(host, domains):
                spans.append((match.start(), match.start() + len(match.group().rstrip(_TRAILING))))
    lowered = text.lower()
    # Most texts name no internal place: skip the host scan unless a suffix is there.
    if any(hint in lowered for hint in HOST_HINTS + domains):
        for match in scan.finditer(_HOST, text, budget):
            if _is_internal_name(match.group().lower(), domains) and _is_place(text, match):
                spans.append((match.start(), _extend(text, match.end())))
    yield from _outside_urls(spans)


def _is_place(text: str, match: regex.Match[str]) -> bool:
    """Whether a bare host names a place: ``localhost`` alone is a word until a port or path
    follows it; a host after ``user@`` is a mailbox's domain unless it is a login."""
    start, end = match.span()
    if match.group().lower() == "localhost" and _extend(text, end) == end:
        return False
    if not text.startswith("@", start - 1):
        return not match.group().lower().endswith(".local") or _local_host(text, start, end)
    if text.startswith(":", end) and not text[end + 1 : end + 2].isspace():
        return True
    # The line's start, but no further back than a login command can be.
    reach = max(0, start - _LOGIN_CHARS)
    line_start = text.rfind("\n", reach, start) + 1 or reach
    return _LOGIN_COMMAND.search(text, line_start, start) is not None


def _local_host(text: str, start: int, end: int) -> bool:
    """Whether a bare ``x.local`` is a host, not a Python attribute (``threading.local``,
    ``foo.local()``) or a file (``rc.local``): a port or path follows, its name holds a
    hyphen (no identifier does), or a network word stands near it on its line."""
    if text.startswith("(", end):
        return False
    if _extend(text, end) != end or "-" in text[start:end]:
        return True
    line_start = text.rfind("\n", max(0, start - _HOST_WORD_CHARS), start) + 1
    line_end = text.find("\n", end, end + _HOST_WORD_CHARS)
    after = text[end : end + _HOST_WORD_CHARS if line_end < 0 else line_end]
    before = text[max(line_start, start - _HOST_WORD_CHARS) : start]
    return _HOST_WORD.search(before) is not None or _HOST_WORD.search(after) is not None


def _extend(text: str, end: int) -> int:
    """``end`` moved past a ``:port`` and ``/path`` right after a bare host."""
    tail = _PORT_PATH.match(text, end)
    if tail is None or tail.end() == end:
        return end
    return end + len(tail.group().rstrip(_TRAILING))


def _outside_urls(spans: list[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    # A bare host or IP inside a URL already reported is not a second finding.
    last_end = -1
    for start, end in sorted(spans, key=lambda span: (span[0], -span[1])):
        if start >= last_end:
            yield start, end
            last_end = end


def _is_internal_host(host: str, domains: tuple[str, ...]) -> bool:
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return _is_internal_name(host.lower().rstrip("."), domains)
    return _is_internal_address(address)


def _is_internal_address(address: IPAddress) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return _is_internal_address(address.ipv4_mapped)
    return any(address in network for network in _INTERNAL_NETWORKS)


def _is_internal_name(host: str, domains: tuple[str, ...]) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    return any(
        host == domain or host.endswith("." + domain) for domain in _INTERNAL_SUFFIXES + domains
    )
