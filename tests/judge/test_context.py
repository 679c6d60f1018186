"""What an output judge reads when a check asks for context, and when it does not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.factories import check_set, make_turn
from tests.judge.test_prompts import HIDDEN, LAST_USER, RULE, judge, marked_turn, rendered
from turncheck.worker.checks import CheckSet
from turncheck.worker.errors import CheckDefinitionError
from turncheck.worker.turns.structs import Turn

GOLDEN = Path(__file__).parent / "golden" / "judge_prompts_before_context.json"
"""The prompts the shipped templates rendered for ``marked_turn`` before ``context``,
placeholders and ``no_unsupported_action_claims`` existed (main at 73e9206)."""


def exchanges_turn(count: int, **overrides: Any) -> Turn:
    """A turn whose history holds ``count`` exchanges, U1/A1 oldest, then this turn's
    question; a developer message sits among them."""
    history: list[dict[str, str]] = []
    for n in range(1, count + 1):
        history += [
            {"role": "user", "content": f"U{n}-MARK"},
            {"role": "assistant", "content": f"A{n}-MARK"},
        ]
    fields: dict[str, Any] = {
        "history": [{"role": "assistant", "content": "GREETING-MARK"}, *history],
        "input": {
            "messages": [
                {"role": "developer", "content": "DEVELOPER-MARK"},
                {"role": "user", "content": f"Question {LAST_USER}"},
            ]
        },
    }
    fields.update(overrides)
    return make_turn(output="ANSWER-MARK", **fields)


@pytest.mark.parametrize("name", ["rule", "polite_tone", "input_rule"])
def test_without_context_the_prompt_is_byte_for_byte_what_it_was(name: str) -> None:
    """A check that asks for no context sends the judge exactly the prompt it sent before."""
    checks = {
        "rule": judge(rule=RULE),
        "polite_tone": judge(criteria="polite_tone"),
        "input_rule": judge(rule=RULE, stage="input"),
    }
    system, user = rendered(checks[name], marked_turn())
    before = json.loads(GOLDEN.read_text())[name]
    assert (system, user) == (before["system"], before["user"])


def test_context_with_nothing_in_it_switched_on_renders_the_default_prompt() -> None:
    """Zero exchanges and no tool results is the same prompt as no context at all."""
    quiet = judge(rule=RULE, context={"exchanges": 0, "tool_results": False})
    assert rendered(quiet, marked_turn()) == rendered(judge(rule=RULE), marked_turn())


def test_the_judge_reads_the_last_exchanges_oldest_first_and_no_further_back() -> None:
    """With two exchanges asked for, the judge reads the two before the last user message,
    in order, and neither older ones nor other roles nor the answer among them."""
    _, user = rendered(judge(rule=RULE, context={"exchanges": 2}), exchanges_turn(4))
    conversation = user[user.index("<conversation>") : user.index("</conversation>")]
    order = ["U3-MARK", "A3-MARK", "U4-MARK", "A4-MARK"]
    assert [conversation.index(m) for m in order] == sorted(conversation.index(m) for m in order)
    for hidden in ("U2-MARK", "A2-MARK", "GREETING-MARK", "DEVELOPER-MARK", "ANSWER-MARK"):
        assert hidden not in conversation
    assert LAST_USER not in conversation
    assert user.index("</conversation>") < user.index(LAST_USER) < user.index("ANSWER-MARK")


def test_an_empty_context_reads_three_exchanges_and_the_tool_results() -> None:
    """``context: {}`` takes the seed's defaults: three exchanges and the tool results."""
    turn = exchanges_turn(
        5,
        rounds=[
            {
                "tool_calls": [{"id": "c1", "name": "refunds", "arguments": {"card": "ARGS-MARK"}}],
                "tool_results": [{"call_id": "c1", "content": {"status": "RESULT-MARK"}}],
            }
        ],
    )
    _, user = rendered(judge(rule=RULE, context={}), turn)
    assert all(f"U{n}-MARK" in user for n in (3, 4, 5))
    assert "U2-MARK" not in user
    assert '<tool_result name="refunds">' in user and "RESULT-MARK" in user
    assert "ARGS-MARK" not in user


def test_a_tool_call_without_a_result_is_shown_as_one() -> None:
    """A call the turn holds no result for is named and marked as having none."""
    turn = make_turn(rounds=[{"tool_calls": [{"id": "c1", "name": "cancel_order"}]}])
    _, user = rendered(judge(rule=RULE, context={"exchanges": 0}), turn)
    assert '<tool_result name="cancel_order">\n(The turn holds no result for this call.)' in user


def test_the_system_text_tells_the_judge_what_it_reads() -> None:
    """The system text lists the conversation and tool results only when they are shown,
    and says the judge cannot see the tools only when it cannot."""
    plain, _ = rendered(judge(rule=RULE), marked_turn())
    assert "<conversation>" not in plain and "<tool_results>" not in plain
    assert "its tools, its sources or the rest of the conversation" in plain
    full, _ = rendered(judge(rule=RULE, context={}), marked_turn())
    assert "- <conversation>: up to the last 3 exchanges" in full
    assert "- <tool_results>:" in full
    assert "its tools" not in full and "the conversation before those exchanges" in full
    tools_only, _ = rendered(judge(rule=RULE, context={"exchanges": 0}), marked_turn())
    assert "<conversation>" not in tools_only and "- <tool_results>:" in tools_only
    assert "the rest of the conversation" in tools_only


def test_unsupported_action_claims_reads_the_tool_results_but_not_the_history() -> None:
    """The built-in criterion shows the tool calls by name with their results, and still
    hides the history, the instructions and the calls' arguments."""
    system, user = rendered(judge(criteria="no_unsupported_action_claims"), marked_turn())
    assert HIDDEN["tool result"] in user
    assert f'<tool_result name="{HIDDEN["tool call name"]}">' in user
    for hidden in ("tool call arguments", "older history", "instructions", "knowledge"):
        assert HIDDEN[hidden] not in system + user
    assert "- <tool_results>:" in system and "<conversation>" not in system


def load(tmp_path: Path, check: str) -> CheckSet:
    return check_set(tmp_path, f"agent: support-bot\nchecks:\n{check}")


def test_context_is_part_of_the_checks_version(tmp_path: Path) -> None:
    """Asking for context makes a new version; writing the defaults out does not."""

    def version(extra: str) -> str:
        checks = load(tmp_path, f"  - name: j\n    kind: judge\n    rule: {{good: [x]}}\n{extra}")
        return str(checks.judged_by_agent["support-bot"][0].id.version)

    without = version("")
    empty = version("    context: {}\n")
    spelled = version("    context: {exchanges: 3, tool_results: true}\n")
    fewer = version("    context: {exchanges: 1}\n")
    assert empty == spelled
    assert len({without, empty, fewer}) == 3


@pytest.mark.parametrize(
    ("check", "line", "field"),
    [
        (
            "  - name: j\n    kind: judge\n    stage: input\n    rule: {good: [x]}\n"
            "    context: {exchanges: 1}\n",
            7,
            "context",
        ),
        (
            "  - name: j\n    kind: judge\n    rule: {good: [x]}\n    context: {exchanges: 21}\n",
            6,
            "context.exchanges",
        ),
        (
            "  - name: j\n    kind: judge\n    criteria: no_unsupported_action_claims\n"
            "    context: {tool_results: false}\n",
            6,
            "context",
        ),
    ],
)
def test_a_context_that_cannot_be_read_is_refused_at_load(
    tmp_path: Path, check: str, line: int, field: str
) -> None:
    """Context on an input check, more than 20 exchanges, or tool results switched off for
    the criterion that needs them is refused with its line and field."""
    with pytest.raises(CheckDefinitionError) as caught:
        load(tmp_path, check)
    assert (caught.value.line, caught.value.check, caught.value.field) == (line, "j", field)
