"""The address rule and the backoff, as pure functions."""

from __future__ import annotations

import ipaddress
from datetime import UTC, datetime

import pytest

from tests.webhooks.support import endpoint
from turncheck.worker.webhooks import WebhookPolicy, WebhookSender
from turncheck.worker.webhooks.guard import AddressRefused, refusal, resolve


@pytest.mark.parametrize(
    ("address", "expected"),
    [
        ("93.184.215.14", None),
        ("2606:4700::1111", None),
        ("169.254.169.254", "a link-local address"),
        ("fe80::1", "a link-local address"),
        ("fd00::1", "a private address"),
        ("100.64.0.1", "a non-public address"),
        ("::", "an unspecified address"),
    ],
)
def test_only_public_unicast_addresses_pass(address: str, expected: str | None) -> None:
    """Shared (CGNAT), unique-local and link-local ranges count as not public."""
    assert refusal(ipaddress.ip_address(address)) == expected


@pytest.mark.parametrize(
    ("address", "expected"),
    [
        ("2002:a9fe:a9fe::", "a link-local address"),  # 6to4 of 169.254.169.254
        ("2002:7f00:1::1", "a loopback address"),  # 6to4 of 127.0.0.1
        ("2002:c0a8:101::", "a private address"),  # 6to4 of 192.168.1.1
        ("2001:0:a9fe:a9fe::1", "a link-local address"),  # Teredo, server 169.254.169.254
        ("2001:0:5db8:d822::5601:f7f7", "a link-local address"),  # Teredo, client 169.254.8.8
        ("64:ff9b::a9fe:a9fe", "a link-local address"),  # NAT64
        ("64:ff9b:1::7f00:1", "a loopback address"),  # local-use NAT64
        ("2002:5db8:d822::1", None),  # 6to4 of a public address is public
    ],
)
def test_an_ipv6_address_embedding_a_refused_ipv4_one_is_refused_for_it(
    address: str, expected: str | None
) -> None:
    """6to4, Teredo and NAT64 addresses reach the IPv4 address inside them: a refused one
    refuses them, named by what it is."""
    assert refusal(ipaddress.ip_address(address)) == expected


async def test_the_send_path_refuses_a_6to4_address_of_the_metadata_service(
    senders: list[WebhookSender],
) -> None:
    """A post to http://[2002:a9fe:a9fe::]/ is refused before any connection: a failure
    recorded as "refused: a link-local address"."""
    sender = WebhookSender(timeout_s=5, allow_private=False)
    senders.append(sender)
    hook = endpoint("http://[2002:a9fe:a9fe::]/hooks")
    reply = await sender.post(hook, "evt_1", b"{}", datetime.now(UTC))
    assert (reply.status, reply.error) == (None, "refused: a link-local address")


async def test_a_name_resolving_to_loopback_is_refused() -> None:
    """`localhost` resolves to loopback: refused unless private addresses are allowed."""
    with pytest.raises(AddressRefused, match="loopback"):
        await resolve("localhost", 80, allow_private=False)
    assert (await resolve("localhost", 80, allow_private=True)).is_loopback


async def test_a_name_that_does_not_resolve_is_refused() -> None:
    """An unknown host is a refusal to retry, not a crash."""
    with pytest.raises(AddressRefused, match="does not resolve"):
        await resolve("no-such-host.invalid", 80, allow_private=True)


def test_the_backoff_is_full_jitter_doubling_to_its_cap_and_retry_after_wins() -> None:
    """Without Retry-After the wait is jitter x first x 2^attempts, capped; with it, that value, capped."""
    policy = WebhookPolicy(retry_first_s=1, retry_max_s=60)
    assert [policy.retry_delay_s(n, 0.5, None) for n in range(8)] == [0.5, 1, 2, 4, 8, 16, 30, 30]
    assert policy.retry_delay_s(3, 0.0, None) == 0
    assert policy.retry_delay_s(10_000, 0.999, None) == pytest.approx(59.94)
    assert policy.retry_delay_s(0, 0.5, 45) == 45
    assert policy.retry_delay_s(0, 0.5, 4000) == 60
