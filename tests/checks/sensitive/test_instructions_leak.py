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


RULES = (
    "You are Nova, the support assistant for Brightline Mobile. Never offer a discount unless "
    "the customer explicitly asks to cancel their plan. Refunds are allowed within thirty days "
    "of delivery for unused items in their original packaging. Escalate to a human agent when "
    "the customer mentions a legal complaint or asks for a supervisor."
)
DISCOUNT = "Never offer a discount unless the customer explicitly asks to cancel their plan"
POLICY = "Refunds are allowed within thirty days of delivery for unused items in their original packaging."


def leaks(text: str, knowledge: tuple[str, ...] = (), instructions: str = RULES) -> list[str]:
    ctx = DetectorContext(instructions=instructions, knowledge=knowledge)
    return [text[start:end] for start, end in find_instructions_leak(text, ctx)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "**Never** offer a _discount_ unless the customer `explicitly` asks to cancel their plan.",
            "Never** offer a _discount_ unless the customer `explicitly` asks to cancel their plan",
        ),
        (
            "<p>Never offer a <b>discount</b> unless the customer</p>\n"
            "<p>explicitly asks to cancel their plan.</p>",
            "Never offer a <b>discount</b> unless the customer</p>\n"
            "<p>explicitly asks to cancel their plan",
        ),
        (
            "## My rules\n1. Never offer a discount unless the customer explicitly asks to "
            "cancel their plan.",
            DISCOUNT,
        ),
        (
            "> Never offer a discount unless the [customer](https://help.example/who?id=7) "
            "explicitly asks to cancel their plan.",
            "Never offer a discount unless the [customer](https://help.example/who?id=7) "
            "explicitly asks to cancel their plan",
        ),
        (
            "- Never offer a discount unless the customer explicitly asks to cancel their "
            "plan&nbsp;&mdash; that's it.",
            DISCOUNT,
        ),
    ],
)
def test_finds_a_copy_through_markup(text: str, expected: str) -> None:
    """HTML tags, emphasis, code ticks, headings, list numbers, links and quotes hide no copy;
    the span points into the text as written."""
    assert leaks(text) == [expected]


@pytest.mark.parametrize(
    "text",
    [
        "Never offer any discount unless the customer explicitly asks to cancel their plan.",
        "Never offer a discount unless a customer explicitly asks to cancel their plan.",
        "Never offer a discount unless the customer explicitly asks you to cancel their plan.",
        "Never offer a discount unless the customer asks to cancel their plan.",
        "Never offer a discount, unless the customer explicitly asks to cancel their plan!",
        "Never offer any discount unless the customer really explicitly asks to cancel their plan.",
    ],
    ids=["changed", "changed-article", "inserted", "dropped", "punctuation", "two-edits"],
)
def test_finds_a_copy_through_small_edits(text: str) -> None:
    """A word changed, inserted or dropped, or punctuation changed, still leaks the rule."""
    [found] = leaks(text)
    assert found.startswith("Never offer") and found.endswith("plan")


@pytest.mark.parametrize(
    "text",
    [
        "We never offer discounts unless you really want to cancel the plan, sorry.",
        "I can't offer a discount unless you explicitly ask to cancel your plan.",
        "Never offer a discount unless the client explicitly wants to cancel the plan.",
        "A human agent can help when you mention a legal complaint or ask for a supervisor.",
        "Refunds are allowed within 14 days of delivery for unused items in their original packaging.",
    ],
    ids=["paraphrase", "every-third-word", "three-edits", "short-runs", "number-changed"],
)
def test_paraphrases_and_heavy_edits_are_no_leak(text: str) -> None:
    """More edits than one per six words, short common runs or another number: no copy."""
    assert leaks(text) == []


def test_a_sentence_the_knowledge_also_holds_is_no_leak() -> None:
    """Quoting a policy the agent was given as knowledge reveals nothing of the instructions."""
    knowledge = (
        "# Returns\n\n**Refunds** are allowed within thirty days of delivery for unused "
        "items in their original packaging. Shipping is free over $50.",
    )
    text = f"As our policy says: {POLICY}"
    assert leaks(text) == [POLICY.rstrip(".")]
    assert leaks(text, knowledge) == []
    assert leaks(f"Quote: *{POLICY}*", knowledge) == []


def test_a_private_rule_beside_public_knowledge_still_leaks() -> None:
    """Knowledge clears only what it holds: the private rule next to it is still a leak."""
    knowledge = (POLICY,)
    text = f"{POLICY} Also: {DISCOUNT}."
    assert leaks(text, knowledge) == [DISCOUNT]


def test_public_words_do_not_make_up_a_leak() -> None:
    """A public sentence and a few private words after it copy too little of what is private."""
    knowledge = (POLICY,)
    text = f"{POLICY} Escalate to a human agent."
    assert leaks(text) != []
    assert leaks(text, knowledge) == []


def test_knowledge_is_read_only_when_the_text_holds_a_copy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Most turns copy nothing: their knowledge, however large, is never read."""
    from turncheck.worker.checks.sensitive import instructions_leak

    read: list[int] = []
    shared = instructions_leak._shared
    monkeypatch.setattr(instructions_leak, "_shared", lambda *args: read.append(1) or shared(*args))
    knowledge = (POLICY * 2000,)
    assert leaks("Happy to help with your plan today!", knowledge) == []
    assert read == []
    assert leaks(f"Rule: {DISCOUNT}.", knowledge) == [DISCOUNT]
    assert read == [1]


def test_offsets_point_into_the_text_as_stored() -> None:
    """Through markup the span still starts and ends on the copied words of the text given."""
    text = "Intro <em>text</em>. <b>Escalate</b> to a human agent when the <i>customer</i> mentions a legal complaint!"
    [found] = leaks(text)
    assert (
        found == "Escalate</b> to a human agent when the <i>customer</i> mentions a legal complaint"
    )
