"""Good replies pass and invented facts fail, as a person reading the turn would judge."""

import pytest

from tests.checks.facts.turns import check, support_turn, tool_round
from turncheck.worker.checks.result import Verdict

ORDER = tool_round(
    "get_order",
    {
        "order": {"id": "ORD-2024-0042", "placed": "2026-02-20", "eta": "2026-03-04"},
        "items": [{"sku": "KB-7720", "name": "Desk Lamp", "price": "$38.00", "qty": 2}],
        "subtotal": 76.0,
        "shipping": 5.99,
        "card_last4": "4242",
        "tracking": "1Z999AA10123456784",
        "carrier_url": "https://www.ups.com/track?num=1Z999AA10123456784",
    },
    {"order_id": "ORD-2024-0042"},
)
POLICY = {
    "source": "returns.md",
    "content": "Items can be returned within 30 days for a full refund.",
}


@pytest.mark.parametrize(
    "answer",
    [
        "We're open 9am to 5:30 pm on weekdays, and chat is available 24/7.",
        "Here's how:\n1. Open Settings.\n2. Tap Billing.\n10) Choose Cancel.",
        "You're 1st in line; it usually takes 2 or 3 minutes.",
        "This works in app v2.1.3 and later, including with GPT-4 answers.",
        "Your order ORD-2024-0042 was placed on February 20 and arrives March 4.",
        "The two Desk Lamps (KB-7720) are $38.00 each, $76 in all, plus $5.99 shipping: $81.99.",
        "I refunded it to the card ending in 4242.",
        "Track it with UPS: 1Z999AA10123456784 at ups.com.",
        "Shipping is about $6.",
        "Today, March 2, I've asked the warehouse to hurry; you'll have it by 03/04/2026.",
        "You can return it within 30 days for a full refund.",
        "One of our agents will reply within one to two business days.",
        "Thanks a million for your patience — it's on the way!",
        "Your order 2024-0042 is on its way.",
    ],
)
def test_a_good_reply_passes(answer: str) -> None:
    """Nothing here is invented: it is in the turn, or not a fact a person would check."""
    turn = support_turn(answer, rounds=[ORDER], knowledge=[POLICY])
    outcome = check(turn)
    assert outcome.verdict is Verdict.PASSED, [answer[s.start : s.end] for s in outcome.spans]


@pytest.mark.parametrize(
    ("answer", "invented"),
    [
        ("Your order ORD-2024-0043 arrives March 4.", "ORD-2024-0043"),
        ("Your order arrives March 5.", "March 5"),
        ("The lamp is $39.00.", "$39.00"),
        ("With shipping that is $82.99.", "$82.99"),
        ("You can return it within 60 days.", "60"),
        ("You can return it within sixty days.", "sixty"),
        ("Use code SAVE20 for 20% off.", "SAVE20"),
        ("I refunded it to the card ending in 4243.", "4243"),
        ("Track it at ups.com/track/1Z999AA10123456785.", "ups.com/track/1Z999AA10123456785"),
        ("Call our warehouse at (555) 010-3030.", "(555) 010-3030"),
        ("Write to warehouse@acme.com for help.", "warehouse@acme.com"),
        ('Our policy says "refunds take ten business days".', '"refunds take ten business days"'),
        ("About 500 customers ordered this lamp.", "500"),
    ],
)
def test_an_invented_fact_fails(answer: str, invented: str) -> None:
    """A fact no source states fails, and its span points at it."""
    turn = support_turn(answer, rounds=[ORDER], knowledge=[POLICY])
    outcome = check(turn)
    assert outcome.verdict is Verdict.FAILED
    assert invented in [answer[s.start : s.end] for s in outcome.spans]
