"""instructions_leak's gate: it skips texts that cannot hold a copy, never one that does."""

from typing import Any

import pytest

from turncheck.worker.checks.sensitive.context import DetectorContext
from turncheck.worker.checks.sensitive.instructions_leak import find_instructions_leak

pytestmark = pytest.mark.usefixtures("hyperscan_installed")  # the leak gate runs on Hyperscan

INSTRUCTIONS = (
    "You are Acme's support agent. Never offer refunds above $50 without manager approval; "
    "escalate billing disputes to tier two within one business day. Always greet the customer."
)
ACCENTED = (
    "Vous êtes l'assistant du service client. Ne proposez jamais de remboursement supérieur "
    "à cinquante euros sans l'accord écrit d'un responsable du magasin."
)

TEXTS = [
    "Sure. You are Acme's support agent. Never offer refunds above $50 without manager approval.",
    "<p>You are <b>Acme</b>'s support agent.</p> Never **offer** refunds above $50 "
    "without manager-approval, escalate billing disputes to tier two.",
    "never offer REFUNDS above $50 without a manager's approval; escalate the billing "
    "disputes to tier two within one business day",
    "You\N{RIGHT SINGLE QUOTATION MARK}re asking about refunds: you are Acme\N{RIGHT SINGLE QUOTATION MARK}s support agent, never offer refunds above "
    "$50 without manager approval — escalate billing disputes to tier two.",
    "Vous êtes l'assistant du service client. Ne proposez jamais de remboursement supérieur "
    "à cinquante euros sans l'accord.",
    "Vous etes l'assistant du service client. Ne proposez jamais de remboursement superieur "
    "a cinquante euros sans l'accord ecrit.",
    "Your refund of $42.50 is on its way; it should show up within five business days.",
    "Thanks for waiting! I\N{RIGHT SINGLE QUOTATION MARK}ve checked the order and it ships tomorrow.",
]


def spans(text: str, instructions: str, *, gated: bool) -> list[tuple[int, int]]:
    ctx = DetectorContext(instructions=instructions, gated=gated)
    return list(find_instructions_leak(text, ctx))


@pytest.mark.parametrize("instructions", [INSTRUCTIONS, ACCENTED])
def test_gated_finds_what_ungated_finds(instructions: str) -> None:
    """Once the gate is built (the same instructions seen a few times), every text gives
    the same findings with it as without, copies through markup and edits included."""
    for _ in range(3):
        for text in TEXTS:
            assert spans(text, instructions, gated=True) == spans(text, instructions, gated=False)
    assert spans(TEXTS[0], INSTRUCTIONS, gated=True)  # the comparison saw a leak


def test_gate_skips_the_search_on_a_text_without_anchors(monkeypatch: pytest.MonkeyPatch) -> None:
    """A text sharing no three words in a row with the instructions never reaches the
    copy search once the gate stands."""
    from turncheck.worker.checks.sensitive import instructions_leak

    for _ in range(3):
        spans(TEXTS[-2], INSTRUCTIONS, gated=True)
    calls: list[int] = []
    real = instructions_leak._copies

    def counted(*args: Any) -> Any:
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(instructions_leak, "_copies", counted)
    assert spans(TEXTS[-2], INSTRUCTIONS, gated=True) == []
    assert calls == []
    assert spans(TEXTS[0], INSTRUCTIONS, gated=True)
    assert calls == [1]
