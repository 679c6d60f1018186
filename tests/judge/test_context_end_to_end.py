"""Context, placeholders and unsupported action claims through the background pipeline,
a real loopback judge server and a real store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.judge.fake_provider import FakeProvider
from tests.judge.test_background import _commit, build, stored_turn
from turncheck.worker.pipeline.batch import RawMessage
from turncheck.worker.store import Store, StoredResult

ACTION_CLAIMS = """
agent: support-bot
checks:
  - name: no-false-refunds
    kind: judge
    criteria: no_unsupported_action_claims
    mode: background
    sample_rate: 1.0
    judge_model: judge-small
"""

PLAN_RULE = """
agent: support-bot
checks:
  - name: fits-plan
    kind: judge
    mode: background
    sample_rate: 1.0
    judge_model: judge-small
    context: {exchanges: 1}
    rule:
      good: ["Offers only what the @@{plan} plan includes."]
"""

APPROVAL_PENDING = '{"refund_id": "R-88", "status": "needs_approval"}'


def messages(server: FakeProvider, index: int = 0) -> tuple[str, str]:
    sent: list[dict[str, Any]] = server.requests[index].json["messages"]
    return str(sent[0]["content"]), str(sent[1]["content"])


async def judged(
    tmp_path: Path, store: Store, server: FakeProvider, checks: str, turn: bytes
) -> dict[str, StoredResult]:
    """The turn's stored results by check, once the pipeline and the runner are done."""
    pipeline, runner, client = build(tmp_path, store, server, checks=checks)
    runner.start()
    await pipeline.handle_batch([RawMessage(turn)], _commit)
    await runner.join()
    await runner.stop()
    await client.aclose()
    return {r.check: r for r in await store.queries.results_for_turn("t-1")}


async def test_a_refund_claimed_while_the_tool_awaits_approval_is_stored_failed(
    tmp_path: Path, store: Store, fake_provider: FakeProvider
) -> None:
    """The seed's case: the refund tool reports it needs approval, the answer says it was
    issued; the judge reads the tool result, and its "fail" is stored as failed."""
    fake_provider.responder = lambda request: (
        '{"verdict": "fail", "score": 0.0, "reason": "The tool reports a pending approval."}'
    )
    rounds = [
        {
            "tool_calls": [{"id": "c1", "name": "issue_refund", "arguments": {"order": "ARG-9"}}],
            "tool_results": [{"call_id": "c1", "content": APPROVAL_PENDING}],
        }
    ]
    turn = stored_turn("t-1", rounds=rounds).replace(
        b"It ships Friday.", b"Your refund has been issued."
    )
    results = await judged(tmp_path, store, fake_provider, ACTION_CLAIMS, turn)
    result = results["no-false-refunds"]
    assert (result.verdict, result.score) == ("failed", 0.0)
    system, user = messages(fake_provider)
    assert '<tool_result name="issue_refund">' in user
    assert "needs_approval" in user and "Your refund has been issued." in user
    assert "ARG-9" not in system + user
    assert "needs_approval" not in system


async def test_a_placeholders_value_travels_in_the_user_message_only(
    tmp_path: Path, store: Store, fake_provider: FakeProvider
) -> None:
    """The judge's request names the variable in the system message and carries its value,
    with the last exchange asked for, in the user message; a reason quoting the value is
    stored without it."""
    fake_provider.responder = lambda request: (
        '{"verdict": "pass", "score": 1.0, "reason": "The PLATINUM-VALUE plan covers it."}'
    )
    turn = stored_turn(
        "t-1",
        history=[
            {"role": "user", "content": "EARLIER-QUESTION"},
            {"role": "assistant", "content": "EARLIER-REPLY"},
        ],
        input={
            "messages": [{"role": "user", "content": "Can I get lounge access?"}],
            "prompt_variables": {"plan": "PLATINUM-VALUE", "unused": "UNUSED-VALUE"},
        },
    )
    results = await judged(tmp_path, store, fake_provider, PLAN_RULE, turn)
    result = results["fits-plan"]
    assert result.verdict == "passed" and result.reason is not None
    assert "[quoted]" in result.reason and "PLATINUM" not in result.reason
    system, user = messages(fake_provider)
    assert 'the value of prompt variable "plan"' in system
    assert "PLATINUM-VALUE" not in system
    assert '<variable name="plan">\nPLATINUM-VALUE\n</variable>' in user
    assert "UNUSED-VALUE" not in user
    assert "EARLIER-QUESTION" in user and "EARLIER-REPLY" in user


async def test_a_turn_without_the_variable_is_errored_and_the_judge_is_not_asked(
    tmp_path: Path, store: Store, fake_provider: FakeProvider
) -> None:
    """A turn lacking the variable a rule names is stored errored, naming the variable."""
    results = await judged(tmp_path, store, fake_provider, PLAN_RULE, stored_turn("t-1"))
    assert (results["fits-plan"].verdict, results["fits-plan"].reason) == (
        "errored",
        'The turn has no prompt variable "plan" as a string or a number,'
        " and the check's text names it.",
    )
    assert fake_provider.requests == []
