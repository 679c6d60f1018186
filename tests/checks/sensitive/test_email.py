"""find_email: email addresses in chat text, and the look-alikes it leaves alone."""

import pytest

from turncheck.worker.checks.sensitive.context import DetectorContext
from turncheck.worker.checks.sensitive.email import find_email


def found(text: str) -> list[str]:
    return [text[start:end] for start, end in find_email(text, DetectorContext())]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Please write to jane.doe@acme-shop.com for a refund.", ["jane.doe@acme-shop.com"]),
        (
            "Use billing+invoices@acme.co.uk, not sales@acme.io.",
            ["billing+invoices@acme.co.uk", "sales@acme.io"],
        ),
        ("Is o'brien_k-2@mail.example.org right?", ["o'brien_k-2@mail.example.org"]),
        ("mailto:help@support.example.net", ["help@support.example.net"]),
        ("<ops@example.com>", ["ops@example.com"]),
        ("Ping ANA.GARCIA@EXAMPLE.COM today", ["ANA.GARCIA@EXAMPLE.COM"]),
        (
            "Unsubscribe: https://shop.example.com/unsub?email=lena.berg%40example.se",
            ["lena.berg%40example.se"],
        ),
        ("[mail](mailto:jo%40example.org) or a@b.io", ["jo%40example.org", "a@b.io"]),
    ],
)
def test_finds_email_addresses_with_exact_offsets(text: str, expected: list[str]) -> None:
    """Each address is found and its span slices exactly the address."""
    assert found(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Thanks @sam, I'll ask @support-team to look.",
        "It runs on sam@localhost only.",
        "Upload logo@2x.png and banner@3x.jpg for retina screens.",
        "We pinned lodash@4.17.21 and @types/node@18.0.0.",
        "Clone git@github.com:acme/app.git first.",
        "Version v2.14.3 shipped 2026-11-29T10:00:00Z for $1,249.99.",
        "The order a1b2@c3 is weird but not mail.",
        "Dots in a row: first..last@example.com is invalid.",
        "Escaped outside a link: lena%40example.se is not an address.",
    ],
)
def test_ignores_mentions_files_versions_and_remotes(text: str) -> None:
    """Mentions, retina file names, version pins and git remotes are not addresses."""
    assert found(text) == []


def _addresses_at_every_at_sign(text: str) -> list[tuple[int, int]]:
    """The scan as it was before at signs that join nothing were skipped: the specification."""
    from turncheck.worker.checks.sensitive.email import _EMAIL, _counts

    spans, pos, at = [], 0, text.find("@")
    while at != -1:
        match = _EMAIL.search(text, max(pos, at - 64), at + 256)
        if match is None:
            at = text.find("@", at + 1)
            continue
        # The domain as long as its own at sign allows, not the window of an earlier one.
        match = _EMAIL.match(text, match.start(), match.start("domain") + 256) or match
        if _counts(text, match):
            spans.append(match.span())
        pos = match.end()
        at = text.find("@", pos)
    return spans


def test_skipping_at_signs_that_join_nothing_finds_the_same_addresses() -> None:
    """Runs of "@" and stray ones, near addresses and far from them: the same findings."""
    import random

    rng = random.Random(11)
    pieces = ["@", "@@@@", "a@b.co", " ", "x", "@" * 90, " " * 90, "jo.doe@mail.example.org"]
    for _ in range(200):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 40)))
        assert list(find_email(text, DetectorContext())) == _addresses_at_every_at_sign(text)


def test_two_hundred_thousand_at_signs_are_read_in_one_pass() -> None:
    """An "@" that no local part ends at and no domain starts from is skipped, not searched."""
    import time

    text = "@" * 200_000 + " " * 300 + "write to jane@example.com " + "@" * 200_000
    start = time.thread_time()
    assert found(text) == ["jane@example.com"]
    assert time.thread_time() - start < 0.5  # each "@" searched on its own took seconds


@pytest.mark.parametrize("gap", range(220, 270))
def test_an_address_after_a_stray_at_sign_keeps_its_whole_domain(gap: int) -> None:
    """The window an earlier "@" sets no longer cuts the domain ("jane@example.co")."""
    text = "Ping @ " + "x " * (gap // 2) + " jane@example.com ok"
    assert found(text) == ["jane@example.com"]


@pytest.mark.parametrize(
    "address",
    [
        "jane [at] example [dot] com",
        "jane[at]example[dot]com",
        "jane (at) example (dot) co (dot) uk",
        "jane{at}example{dot}org",
        "jane <AT> example <DOT> net",
        "jane [ at ] mail.example.com",
        "jane(at)example.com",
        "jane[@]example[.]com",
        "jane@example[dot]com",
        "jane @ example.com",
        "jane@ example.com",
        "jane AT example DOT com",
        "Jane.Doe [at] Example [dot] Com",
        "jane [dot] doe [at] example [dot] com",
        "JANE DOT DOE AT EXAMPLE DOT COM",
        "JANE DOT DOE AT MAIL DOT EXAMPLE DOT CO DOT UK",
        "jane at example dot com",
        "jane dot doe at mail dot example dot co dot uk",
        "l.moreau @ example . fr",
        "p.ng (at) example . com",
    ],
)
def test_obfuscated_addresses_are_found_with_their_whole_span(address: str) -> None:
    assert found(f"You can reach {address} any time.") == [address]


@pytest.mark.parametrize(
    "text", ["Reach me @jane.doe@example.org any time.", "Reach me @@jane.doe@example.org."]
)
def test_an_address_right_after_a_lone_at_sign_is_found(text: str) -> None:
    """A stray "@" glued before an address (an "at" written as a sign) does not hide it."""
    assert found(text) == ["jane.doe@example.org"]


def test_the_tail_of_a_doubled_address_is_not_an_address() -> None:
    assert found("Odd: x@jane@example.org") == []


def test_obfuscated_and_plain_addresses_in_one_text_are_each_found_once() -> None:
    text = "Write a@b.io or c [at] d [dot] io, or e @ f.org."
    assert found(text) == ["a@b.io", "c [at] d [dot] io", "e @ f.org"]


@pytest.mark.parametrize(
    "text",
    [
        "Have a look at example dot com for the docs.",
        "Find us at acme dot com or visit us at shop dot acme dot com.",
        "FIND US AT ACME DOT COM OR VISIT US AT SHOP DOT ACME DOT COM.",
        "Visit us at acme-shop dot example for the catalogue.",
        "The guide is available at docs dot example dot com.",
        "Ellipsis . . . and we met at noon . Then left.",
        "Meet me at example.com's booth at noon.",
        "We met at polka dot party dot",
        "I'm at Acme dot com today, and I\u2019m at Acme dot com tomorrow.",
        "EMAIL US AT HELP.EXAMPLE.COM OR CALL.",
        "out = inputs @ self.weight + bias",
        "y = a @ b.mT",
        "Two coffees @ $3.50 each, see you @ 5pm.",
        "Meet me at the office, [at] noon.",
        "Retina logo [at] 2x.png is in the repo.",
        "Thanks @sam, and @ everyone.",
        "All @example.com addresses are blocked from signup.",
    ],
)
def test_prose_code_and_prices_are_not_obfuscated_addresses(text: str) -> None:
    assert found(text) == []
