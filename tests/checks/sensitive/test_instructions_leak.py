"""find_instructions_leak: long runs of words copied from the agent's instructions."""

import pytest

from turncheck.worker.checks.sensitive.context import DetectorContext
from turncheck.worker.checks.sensitive.instructions_leak import find_instructions_leak

INSTRUCTIONS = (
    "You are Acme's support agent. Never offer refunds above $50 without manager approval; "
    "escalate billing disputes to tier two within one business day. Always greet the customer by name."
)


def found(text: str, instructions: str = INSTRUCTIONS, words: int = 12) -> list[str]:
    ctx = DetectorContext(instructions=instructions, instructions_leak_words=words)
    return [text[start:end] for start, end in find_instructions_leak(text, ctx)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "My rules say: never offer REFUNDS above $50 without manager-approval, "
            "escalate billing disputes to tier two. Thanks!",
            [
                "never offer REFUNDS above $50 without manager-approval, "
                "escalate billing disputes to tier two"
            ],
        ),
        (
            "Sure. You are Acme's support agent. Never offer refunds above $50 without manager approval.",
            [
                "You are Acme's support agent. Never offer refunds above $50 without manager approval"
            ],
        ),
    ],
)
def test_finds_copied_runs_ignoring_case_and_punctuation(text: str, expected: list[str]) -> None:
    """A run of 12+ copied words is one finding spanning the whole copied run."""
    assert found(text) == expected


def test_finds_two_separate_copied_runs() -> None:
    """Runs separated by other words are separate findings."""
    text = (
        "First: escalate billing disputes to tier two within one business day. Always greet the "
        "customer. Also, you are Acme's support agent. Never offer refunds above $50 without manager."
    )
    assert found(text) == [
        "escalate billing disputes to tier two within one business day. Always greet the customer",
        "you are Acme's support agent. Never offer refunds above $50 without manager",
    ]


@pytest.mark.parametrize(
    ("text", "instructions"),
    [
        ("I can't offer refunds above $50 without approval, sorry.", INSTRUCTIONS),
        ("Refunds above $50 need a manager; billing disputes go to tier two.", INSTRUCTIONS),
        (
            "You are Acme's support agent. Never offer refunds above $50 without manager approval.",
            "",
        ),
    ],
)
def test_ignores_short_runs_paraphrases_and_empty_instructions(
    text: str, instructions: str
) -> None:
    """Fewer than n copied words, a paraphrase, or no instructions is no leak."""
    assert found(text, instructions) == []


def test_honours_a_smaller_word_threshold() -> None:
    """ctx.instructions_leak_words sets how many copied words make a leak."""
    assert found("Note: greet the customer by name.", words=4) == ["greet the customer by name"]


def test_instructions_too_long_to_keep_are_read_within_the_budget() -> None:
    """A megabyte of instructions is indexed on the turn's budget, and a leak still found."""
    from turncheck.worker.checks.budget import Budget, BudgetSpent

    padding = " ".join(f"w{i}" for i in range(60_000))
    long_instructions = f"{padding} {INSTRUCTIONS}"
    assert found(f"Well: {INSTRUCTIONS}", long_instructions) == [INSTRUCTIONS.rstrip(".")]
    hurried = DetectorContext(
        instructions=long_instructions * 3, budget=Budget(deadline_s=0.0, clock=lambda: 1.0)
    )
    with pytest.raises(BudgetSpent):
        list(find_instructions_leak("anything", hurried))
