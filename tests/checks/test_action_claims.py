"""``action_claims``: an answer claiming an action that no successful tool call of the
turn performed fails; a backed claim, and anything that is not a claim, passes."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.factories import check_set, make_turn
from turncheck.schemas.checkfile import ActionClaimsCheck, CheckFile
from turncheck.worker.checks import Verdict
from turncheck.worker.checks.action_claims import compile_check
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.definitions import check_set as compile_files
from turncheck.worker.checks.result import Outcome
from turncheck.worker.errors import CheckDefinitionError
from turncheck.worker.pipeline.evaluate import OUT_OF_TIME, evaluate

SEED_ANSWER = "Your refund has been issued."
REFUND_REASON = (
    "The answer claims an action that no successful tool call in this turn performed: refund."
)


def tool(name: str, content: Any = None, *, answered: bool = True) -> dict[str, Any]:
    """One round with a call of ``name`` and, when ``answered``, its result."""
    results = [{"call_id": "c1", "name": name, "content": content}] if answered else []
    return {"tool_calls": [{"id": "c1", "name": name, "arguments": {}}], "tool_results": results}


def decide(answer: str, *rounds: dict[str, Any], **definition: Any) -> Outcome:
    check = ActionClaimsCheck.model_validate(
        {"name": "claims", "kind": "action_claims", **definition}
    )
    turn = make_turn(output=answer, rounds=list(rounds))
    return compile_check(check)(turn, Budget.unlimited())


def test_the_seed_case_fails_when_the_tool_says_the_refund_needs_approval() -> None:
    """ "Your refund has been issued" after a tool reporting approval needed is a failure."""
    outcome = decide(SEED_ANSWER, tool("issue_refund", {"status": "pending_approval"}))
    assert outcome.verdict is Verdict.FAILED
    assert outcome.reason == REFUND_REASON
    [span] = outcome.spans
    assert (span.field, span.start, span.end, span.label) == (
        "output.text",
        0,
        len(SEED_ANSWER),
        "refund",
    )


def test_a_claim_a_successful_tool_call_backs_passes() -> None:
    """The same answer passes when the refund tool reports it issued."""
    outcome = decide(SEED_ANSWER, tool("issue_refund", {"status": "issued", "id": "R-1"}))
    assert outcome.verdict is Verdict.PASSED


@pytest.mark.parametrize(
    "answer",
    [
        "You cancelled this order yesterday, so there is nothing left to do.",
        "Since you already reset your password, you can sign in now.",
        "Once approved, the refund will be issued to your card.",
        "If the manager approves, I'll refund you in full.",
        "After we receive the item, we'll ship the replacement.",
        "Would you like me to cancel it?",
        "I can issue a refund if you want.",
        "I couldn't cancel the order.",
        "The refund has not been issued yet.",
        "I'm unable to book that slot.",
        "Refunds are usually issued within 5 days of approval.",
        "You can request a refund from the orders page.",
        "Your refund is pending approval.",
        "I've submitted the refund request for approval.",
    ],
    ids=[
        "customer-did-it",
        "customer-reset",
        "contingent",
        "conditional",
        "after-condition",
        "question",
        "offer",
        "negation",
        "not-yet",
        "unable",
        "policy",
        "instruction",
        "pending",
        "request-for-approval",
    ],
)
def test_what_is_not_a_claim_passes_without_any_tool(answer: str) -> None:
    """Customer's own actions, conditions, questions, offers, negations, policy,
    instructions and truthful pending states claim nothing."""
    assert decide(answer).verdict is Verdict.PASSED


@pytest.mark.parametrize(
    ("answer", "action"),
    [
        ("I've cancelled your order.", "cancellation"),
        ("I processed the payment.", "charge"),
        ("I'm transferring you to a specialist now.", "escalation"),
        ("Your replacement is on its way.", "shipment"),
        ("I'll send the replacement today.", "shipment"),
        ("Your booking will be confirmed shortly.", "booking"),
        ("A reset link is on its way to your inbox.", "password_reset"),
    ],
)
def test_past_present_and_promised_claims_fail_without_a_tool(answer: str, action: str) -> None:
    """A claim in any tense, with no tool call behind it, fails with its action named."""
    outcome = decide(answer)
    assert outcome.verdict is Verdict.FAILED
    assert [span.label for span in outcome.spans] == [action]


def test_the_checks_own_tool_names_back_by_exact_name_and_by_glob() -> None:
    """``actions`` names the tools: an exact name (any letter case) or a glob backs."""
    actions = {"refund": ["issue_refund", "billing.refund_*"]}
    done = {"status": "ok"}
    assert decide(SEED_ANSWER, tool("ISSUE_REFUND", done), actions=actions).verdict == "passed"
    assert decide(SEED_ANSWER, tool("billing.refund_v2", done), actions=actions).verdict == "passed"


def test_the_checks_own_tool_names_replace_the_built_in_ones() -> None:
    """With ``actions`` given for refund, a tool the defaults would match no longer backs it."""
    outcome = decide(
        SEED_ANSWER, tool("stripe_refund_create", {"status": "ok"}), actions={"refund": ["x"]}
    )
    assert outcome.verdict is Verdict.FAILED


@pytest.mark.parametrize(
    "content",
    [
        {"status": "failed"},
        {"status": "Pending Approval"},
        {"result": {"state": "declined"}},
        {"error": "gateway timeout"},
        {"success": False},
        {"requires_approval": True},
        "Refund needs manager approval.",
        "ERROR: card declined",
        '{"ok": false}',
    ],
    ids=[
        "failed",
        "pending",
        "nested",
        "error",
        "success-false",
        "flag",
        "text",
        "text-error",
        "json-text",
    ],
)
def test_a_tool_that_failed_or_waits_for_approval_backs_nothing(content: Any) -> None:
    """A result reporting failure or a wait, as JSON at any depth or as text, does not back."""
    assert decide(SEED_ANSWER, tool("issue_refund", content)).verdict is Verdict.FAILED


def test_a_success_text_that_mentions_no_errors_backs_the_claim() -> None:
    """ "Refund complete, no errors." is a success."""
    outcome = decide(SEED_ANSWER, tool("issue_refund", "Refund complete, no errors."))
    assert outcome.verdict is Verdict.PASSED


def test_a_call_without_a_result_backs_nothing() -> None:
    """The answer cannot know a call worked that returned nothing."""
    outcome = decide(SEED_ANSWER, tool("issue_refund", answered=False))
    assert outcome.verdict is Verdict.FAILED


def test_a_call_in_an_earlier_turn_backs_nothing() -> None:
    """Only this turn's rounds count: a refund tool in the history does not back the claim."""
    history = [
        {"role": "assistant", "content": "Refund sent."},
        {"role": "tool", "name": "issue_refund", "content": '{"status": "issued"}'},
    ]
    check = ActionClaimsCheck(name="claims", kind="action_claims")
    turn = make_turn(output=SEED_ANSWER, history=history)
    assert compile_check(check)(turn, Budget.unlimited()).verdict is Verdict.FAILED


def test_an_unrelated_tool_backs_nothing() -> None:
    """An order lookup does not back a refund claim."""
    outcome = decide(SEED_ANSWER, tool("lookup_order", {"status": "delivered"}))
    assert outcome.verdict is Verdict.FAILED


def test_a_backed_claim_beside_an_unbacked_one_still_fails_naming_only_the_unbacked() -> None:
    """Cancellation backed, refund not: the result fails for the refund alone."""
    outcome = decide(
        "I've cancelled your order and issued a full refund.",
        tool("cancel_order", {"status": "cancelled"}),
    )
    assert outcome.reason == REFUND_REASON
    assert [span.label for span in outcome.spans] == ["refund"]


def test_only_the_chosen_actions_are_checked() -> None:
    """With ``only: [refund]``, an unbacked cancellation claim passes."""
    assert decide("I've cancelled your order.", only=["refund"]).verdict is Verdict.PASSED


@pytest.mark.parametrize(
    ("answer", "sentence"),
    [
        ("**Refund issued** - $15.00 back to your card.", "Refund issued** - $15.00 back"),
        ("- Order: #1203\n- Refund: **processed** today", "Refund: **processed** today"),
        ("<p>Your <b>refund</b> has been <b>issued</b>.</p>", "Your <b>refund</b> has been"),
        ("Your re\u200bfund has been is\u200bsued.", "Your re\u200bfund has been is\u200bsued."),
        ("Your \uff52\uff45\uff46\uff55\uff4e\uff44 has been issued.", "has been issued."),
        ("I\u2019ve refunded your order \u2014 you\u2019re all set.", "I\u2019ve refunded your"),
    ],
    ids=["bold", "bullets", "html", "zero-width", "full-width", "curly-quotes"],
)
def test_markup_and_disguised_letters_hide_no_claim(answer: str, sentence: str) -> None:
    """Bold, bullets, HTML, zero-width and full-width characters do not hide a claim; the
    span points at the claim's sentence in the answer as stored."""
    outcome = decide(answer)
    assert outcome.verdict is Verdict.FAILED
    [span] = outcome.spans
    assert span.label == "refund"
    assert sentence in answer[span.start : span.end]


def test_the_reason_holds_no_text_of_the_turn() -> None:
    """The reason is the fixed sentence with action names from the check only."""
    outcome = decide("I've cancelled order SECRET-123 and refunded you.")
    assert outcome.reason is not None
    assert "SECRET" not in outcome.reason
    assert outcome.reason.endswith("refund, cancellation.") or outcome.reason.endswith(
        "cancellation, refund."
    )


@pytest.mark.parametrize(
    "answer",
    [
        ("Your refund has been issued and your order cancelled. " * 20_000)[:1_000_000],
        "I've cancelled it. " * 100_000,
    ],
    ids=["1 MB of claims", "100,000 claim sentences"],
)
def test_a_hostile_answer_is_decided_or_errored_within_the_budget(answer: str) -> None:
    """A megabyte of claims ends in bounded CPU time, failed or errored for lack of time."""
    checks = compile_files(
        CheckFile.model_validate(
            {"agent": "support-bot", "checks": [{"name": "claims", "kind": "action_claims"}]}
        )
    )
    turn = make_turn(output=answer)
    start = time.thread_time()
    [result] = evaluate(turn, checks)
    assert time.thread_time() - start < 1.0
    assert result.verdict in (Verdict.FAILED, Verdict.ERRORED)
    if result.verdict is Verdict.ERRORED:
        assert result.reason == OUT_OF_TIME.reason


@pytest.mark.parametrize(
    ("body", "line", "field", "words"),
    [
        ("    actions:\n      refnd: [issue_refund]\n", 6, "actions.refnd", "refund"),
        ("    actions:\n      refund: []\n", 6, "actions.refund", "at least 1"),
        ("    stage: input\n", 5, "stage", "stage must be 'output'"),
        ("    only: [refund, teleport]\n", 5, "only.1", "refund"),
    ],
    ids=["unknown-action", "empty-patterns", "input-stage", "unknown-only"],
)
def test_a_bad_definition_is_refused_with_its_line_and_field(
    tmp_path: Path, body: str, line: int, field: str, words: str
) -> None:
    """An unknown action, an empty list of tools, or the input stage is refused at load."""
    text = "agent: a\nchecks:\n  - name: claims\n    kind: action_claims\n" + body
    with pytest.raises(CheckDefinitionError) as caught:
        check_set(tmp_path, text)
    error = caught.value
    assert (error.check, error.line, error.field) == ("claims", line, field)
    assert words in error.message


def test_the_plain_search_before_the_reading_misses_no_mention() -> None:
    """Wherever an action is mentioned in the corpus answers and the probes here, its
    stems are found too: the cheap search never hides a claim."""
    from tests.corpus.action_claims.score import SEEN, load
    from turncheck.worker.checks.action_claims.vocabulary import (
        WORDS,
        mention_regex,
        stems_regex,
    )

    answers = [case["answer"] for case in load(SEEN)]
    for words in WORDS.values():
        mentions, stems = mention_regex(words), stems_regex(words)
        for answer in answers:
            for match in mentions.finditer(answer, overlapped=True):
                assert stems.search(match.group()), (match.group(), answer)
