"""find_ip_address: IPv4 and IPv6 addresses, not versions, dates or times."""

import pytest

from turncheck.worker.checks.sensitive.context import DetectorContext
from turncheck.worker.checks.sensitive.ip_address import find_ip_address


def found(text: str) -> list[str]:
    return [text[start:end] for start, end in find_ip_address(text, DetectorContext())]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The API lives at 203.0.113.7, DNS at 8.8.8.8.", ["203.0.113.7", "8.8.8.8"]),
        ("Connect to 192.168.1.10:8080 now", ["192.168.1.10"]),
        ("Allow 10.0.0.0/8 in the firewall", ["10.0.0.0"]),
        ("Bind to 0.0.0.0 and 255.255.255.255", ["0.0.0.0", "255.255.255.255"]),
        ("IPv6 host 2001:db8::1 and loopback ::1.", ["2001:db8::1", "::1"]),
        (
            "Full form 2001:0db8:85a3:0000:0000:8a2e:0370:7334 ok",
            ["2001:0db8:85a3:0000:0000:8a2e:0370:7334"],
        ),
        ("Mapped ::ffff:192.0.2.128 address", ["::ffff:192.0.2.128"]),
        ("Link fe80::1%eth0 and [2001:db8::2]:443", ["fe80::1", "2001:db8::2"]),
    ],
)
def test_finds_ip_addresses_with_exact_offsets(text: str, expected: list[str]) -> None:
    """Each address is found and its span slices exactly the address."""
    assert found(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Please update to version 1.2.3.4 today.",
        "We shipped v1.2.3.4 and v2.14.3.",
        "Firmware 10.2.0.1 fixes it.",
        "See section 1.2.3.4 of the terms.",
        "Build 1.2.3.4.5 is broken.",
        "Delivered on 10.11.2026 at 10:30:00.",
        "Stamped 2026-11-29T10:00:00Z.",
        "Octets too big: 256.1.1.1 and 300.300.300.300.",
        "Leading zeros 01.02.03.04 are not an address.",
        "MAC 00:1A:2B:3C:4D:5E is the device.",
        "Use std::vector and Foo::Bar here.",
        "Order 4821-3 costs $1,249.99, ref 123e4567-e89b-12d3-a456-426614174000.",
    ],
)
def test_ignores_versions_dates_times_and_macs(text: str) -> None:
    """Versions, dates, times, MACs and scope operators are not IP addresses."""
    assert found(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "The app version is 10.2.0.1.",
        "App version: 10.2.0.1 (build 5512).",
        "We updated the app to 10.2.0.1 last night.",
        "10.2.0.1 is the latest release of the app.",
        "Your firmware, now 10.2.0.1, is current.",
        "Install the 10.2.0.1 update from the store.",
        "Upgraded from 10.2.0.0 to 10.2.0.1.",
        "The version number of your client is 10.2.0.1.",
        "The iOS app 10.2.0.1 fixes the login bug.",
        "Android 10.2.0.1 and the Chrome extension 10.2.0.1 are out.",
        "La versión 10.2.0.1 ya está disponible.",
        "\u0625\u0635\u062f\u0627\u0631 \u0627\u0644\u062a\u0637\u0628\u064a\u0642 10.2.0.1 \u0645\u062a\u0627\u062d.",
    ],
)
def test_a_four_part_version_named_in_its_sentence_is_not_an_address(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("After the update, connect to 10.0.0.1 again.", "10.0.0.1"),
        ("Update your DNS server to 10.2.0.1.", "10.2.0.1"),
        ("We shipped version 4.2. The server is 10.2.0.1 now.", "10.2.0.1"),
        ("10.2.0.1 is the gateway; the version is 4.2.", "10.2.0.1"),
        ("Point the app to 10.0.0.5 for staging.", "10.0.0.5"),
        ("App version 10.2.0.1 reported the error from 203.0.113.9.", "203.0.113.9"),
        ("Version 4 of 10.0.0.7 is the one to ping.", "10.0.0.7"),
    ],
)
def test_an_address_near_a_version_word_in_another_sentence_or_with_a_closer_network_word(
    text: str, address: str
) -> None:
    assert found(text) == [address]


@pytest.mark.parametrize(
    "text",
    [
        "pip install wireguard-manager==0.0.2.2",
        "Pin requests-toolbelt>=1.2.3.4 and urllib3<=2.0.0.1 in the lock file.",
        "Use foo ~= 3.1.4.1 or bar!=1.0.0.1.",
        "Set the dependency to ^4.2.0.1 in package.json.",
        "Windows version 10.0.19041.1 is required.",
        "Tested on v1.2.3.4 only.",
    ],
)
def test_version_pins_are_not_addresses(text: str) -> None:
    """A four-part version after a pin operator (==, >=, <=, ~=, !=, ^) is not an IP."""
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("host=10.20.30.40 port=22", ["10.20.30.40"]),
        ("<td>192.168.1.10</td>", ["192.168.1.10"]),
        ("if ip == 203.0.113.9: block()", ["203.0.113.9"]),
    ],
)
def test_addresses_after_an_equals_sign_or_a_tag_still_count(
    text: str, expected: list[str]
) -> None:
    """A single = or a markup tag before an address does not make it a version."""
    assert found(text) == expected
