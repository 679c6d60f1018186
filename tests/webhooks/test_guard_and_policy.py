"""The address rule and the backoff, as pure functions."""

from __future__ import annotations

import ipaddress

import pytest

from turncheck.worker.webhooks import WebhookPolicy
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
