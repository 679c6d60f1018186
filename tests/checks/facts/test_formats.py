"""Formatting differences never matter: facts compare by canonical value."""

import pytest

from tests.checks.facts.turns import check, support_turn, tool_round
from turncheck.worker.checks.result import Verdict


@pytest.mark.parametrize(
    ("source", "answer"),
    [
        ("Refund approved: 1200", "Your refund of $1,200.00 is on its way."),
        ("Refund approved: $1,200.00", "Your refund of 1200 dollars is on its way."),
        ("Budget: 500k", "A budget of 500,000 is plenty."),
        ("Funding: 1.5 million", "The grant is $1,500,000."),
        ("Funding: $1.5M", "The grant is 1.5 million."),
        ("I can pay nine hundred", "Great, $900 it is."),
        ("I can pay NINE-Hundred", "Great, $900 it is."),
        ("Budget: twelve_hundred.", "A budget of $1,200 is plenty."),
        ("I need twelve chairs", "Twelve chairs are in stock."),
        ("I need 12 chairs", "I reserved twelve chairs for you."),
        ("discount_rate: 0.15", "You get 15% off."),
        ("Your discount is 15", "You get 15% off."),
        ("Rated 3.50 stars", "It is rated 3.5 stars."),
        ("delivery on 2026-03-04", "It arrives on March 4, 2026."),
        ("delivery on March 4, 2026", "It arrives on 4 March 2026."),
        ("delivery on 4 March 2026", "It arrives on 03/04/2026."),
        ("delivery on 2026-03-04T09:00:00Z", "It arrives Mar 4."),
        ("delivery on Mar 4", "It arrives on the 4th of March."),
        ("call 5550102030", "Call us at (555) 010-2030."),
        ("call (555) 010-2030", "Call us at +1 555 010 2030."),
        ("call +1-555-010-2030", "Call us at 555.010.2030."),
        ("order a-88213", "Order A-88213 is packed."),
        ("order A88213", "Order A-88213 is packed."),
        ("order #88213", "Order 88213 is packed."),
        ("mail Returns@Acme.com", "Write to returns@acme.com."),
        ("see https://www.shop.example.com/returns/", "See shop.example.com/returns."),
        ("see shop.example.com/returns", "See https://shop.example.com/returns"),
        ("see https://acme.com/help/faq", "Everything is on acme.com."),
        ("Customer said: My parcel NEVER arrived!!", 'You wrote "my parcel never arrived".'),
        ("label reads “Fragile, handle with care”", "It says 'fragile handle with care'."),
    ],
)
def test_the_same_fact_in_another_format_passes(source: str, answer: str) -> None:
    """A fact stated in a tool result passes whatever format the answer writes it in."""
    turn = support_turn(answer, rounds=[tool_round("lookup", {"note": source})])
    assert check(turn).verdict is Verdict.PASSED, (source, answer)


@pytest.mark.parametrize(
    ("source", "answer", "kind"),
    [
        ("Refund approved: 1200", "Your refund of $1,250.00 is on its way.", "amount"),
        ("Budget: 500k", "A budget of 50,000 is plenty.", "amount"),
        ("I can pay nine hundred", "Great, $9,000 it is.", "amount"),
        ("discount_rate: 0.15", "You get 20% off.", "amount"),
        ("delivery on 2026-03-04", "It arrives on March 5, 2026.", "date"),
        ("delivery on 2026-03-04", "It arrives on 4 March 2027.", "date"),
        ("call 5550102030", "Call us at (555) 010-2031.", "phone"),
        ("order A-88213", "Order A-88231 is packed.", "id"),
        ("order A-88213", "Your tracking number is 1Z999AA10123456784.", "id"),
        ("mail returns@acme.com", "Write to refunds@acme.com.", "email"),
        ("see https://shop.example.com/returns", "See shop.example.com/refunds.", "link"),
        ("see https://shop.example.com/returns", "Go to https://acme-help.com/start", "link"),
        ("Customer said: my parcel never arrived", 'You wrote "my parcel was damaged".', "quote"),
    ],
)
def test_a_different_fact_fails_with_its_kind(source: str, answer: str, kind: str) -> None:
    """A fact close to a source one but not equal to it is unsupported, labelled by kind."""
    turn = support_turn(answer, rounds=[tool_round("lookup", {"note": source})])
    outcome = check(turn)
    assert outcome.verdict is Verdict.FAILED, (source, answer)
    assert [s.label for s in outcome.spans] == [kind]


def test_every_source_field_counts() -> None:
    """Knowledge, instructions, prompt variables, history, transcript, round text and arguments."""
    turn = support_turn(
        "Plan Gold costs $49, support is at help@acme.com, your agent is ID-7731, "
        "your account 44120 since 2021-06-01, hotline (555) 010-9999, ticket TCK-004211, "
        "and the outlet at 88 Main St is 20% off.",
        customer="Hello",
        input={
            "messages": [{"role": "user", "content": "Hello"}],
            "prompt_variables": {"account": {"number": 44120, "since": "2021-06-01"}},
            "transcript": "caller: my agent was ID-7731",
        },
        instructions="Escalations: help@acme.com or (555) 010-9999.",
        knowledge=[{"source": "pricing.md", "content": "Gold plan: $49 a month."}],
        history=[{"role": "tool", "name": "promo", "content": "Outlet: 20% off"}],
        rounds=[
            {"text": "Let me open ticket TCK-004211.", "tool_calls": []},
            tool_round("store", "ok", '{"address": "88 Main St"}'),
        ],
    )
    assert check(turn).verdict is Verdict.PASSED


def test_a_number_with_a_hyphenated_unit_is_an_amount_not_an_id() -> None:
    """ "A 120-night trial" states the amount 120: when the source says 100, the reason says so."""
    from tests.checks.facts.turns import check, support_turn

    turn = support_turn(
        "Every mattress has a 120-night trial.",
        customer="How long is the trial?",
        knowledge=[{"source": "policy", "content": "Mattresses come with a 100-night trial."}],
    )
    outcome = check(turn)
    assert outcome.reason == "An amount is not supported by the conversation."


def test_a_national_phone_number_with_a_trunk_zero_is_a_phone() -> None:
    """UK numbers like 07700 900132 are phones: a changed digit is named as a phone number."""
    from tests.checks.facts.turns import check, support_turn

    turn = support_turn(
        "We'll text 07700 900123 when the engineer is on the way.",
        customer="Text me on +44 7700 900132 please.",
    )
    assert check(turn).reason == "A phone number is not supported by the conversation."
    same = support_turn(
        "We'll text 07700 900132 when the engineer is on the way.",
        customer="Text me on +44 7700 900132 please.",
    )
    assert check(same).verdict.value == "passed"
