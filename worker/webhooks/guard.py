"""Which addresses a webhook may reach (SSRF): only public unicast ones, unless allowed.

A URL's host is checked twice: a literal IP when the configuration is read, and every
address the name resolves to right before each send. The request then goes to the very
address that was checked (the URL keeps its name in ``Host`` and, for https, in SNI and
the certificate check), so a name that resolves elsewhere a moment later (DNS
rebinding) cannot redirect it.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class AddressRefused(Exception):
    """The host is, or resolves to, an address webhooks may not reach; or it does not
    resolve. ``reason`` names the kind of address ("loopback"), never the URL."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
"""The well-known and the local-use NAT64 prefixes (RFC 6052, RFC 8215): a translator
reaches the IPv4 address in the last 32 bits."""


def embedded_ipv4(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 one carries and a relay or translator would reach: 6to4
    (``2002::/16``), Teredo's server and client (``2001::/32``), NAT64."""
    embedded: list[ipaddress.IPv4Address] = []
    if address.sixtofour is not None:
        embedded.append(address.sixtofour)
    if address.teredo is not None:
        embedded.extend(address.teredo)
    if any(address in prefix for prefix in NAT64):
        embedded.append(ipaddress.IPv4Address(int(address) & 0xFFFF_FFFF))
    return embedded


def refusal(address: Address) -> str | None:
    """Why ``address`` is not a public unicast address, or None when it is. An IPv6
    address that embeds a refused IPv4 one is refused for it: ``2002:a9fe:a9fe::``
    reaches 169.254.169.254 through any 6to4 relay."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return refusal(address.ipv4_mapped)
        # A 6to4 address is its IPv4 one, wherever a relay is: judged by it alone, as
        # Python releases differ on whether all of 2002::/16 is private.
        if address.sixtofour is not None:
            return refusal(address.sixtofour)
        for inner in embedded_ipv4(address):
            if why := refusal(inner):
                return why
    # Order matters: the most telling word first (169.254.169.254 is "link-local").
    kinds = (
        ("unspecified", address.is_unspecified),
        ("loopback", address.is_loopback),
        ("link-local", address.is_link_local),
        ("multicast", address.is_multicast),
        ("reserved", address.is_reserved),
        ("private", address.is_private),
        # Shared address space (100.64/10), documentation and benchmarking ranges…
        ("non-public", not address.is_global),
    )
    return next((f"{_article(kind)} {kind} address" for kind, hit in kinds if hit), None)


def literal_address(host: str) -> Address | None:
    """``host`` as an IP address when it is one (IPv6 with or without brackets)."""
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


def check_literal(host: str, allow_private: bool) -> None:
    """Raise ``AddressRefused`` when ``host`` is an IP literal webhooks may not reach."""
    address = literal_address(host)
    if address is not None and not allow_private and (why := refusal(address)):
        raise AddressRefused(why)


async def resolve(host: str, port: int, allow_private: bool) -> Address:
    """The address to connect to: the first ``host`` resolves to, once every one of them
    is allowed (one private answer among public ones refuses the host)."""
    address = literal_address(host)
    if address is not None:
        addresses = [address]
    else:
        try:
            infos = await asyncio.get_running_loop().getaddrinfo(
                host, port, type=socket.SOCK_STREAM
            )
        except (OSError, UnicodeError):
            raise AddressRefused("the host does not resolve") from None
        addresses = [ipaddress.ip_address(info[4][0]) for info in infos]
        if not addresses:
            raise AddressRefused("the host does not resolve")
    if not allow_private:
        for candidate in addresses:
            if why := refusal(candidate):
                raise AddressRefused(why)
    return addresses[0]


def _article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"
