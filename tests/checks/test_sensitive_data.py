from pathlib import Path

from tests.factories import check_set, make_turn
from turncheck.worker.checks import Verdict
from turncheck.worker.pipeline.evaluate import evaluate

ALL = "agent: support-bot\nchecks:\n  - {name: sensitive, kind: sensitive_data}\n"


def test_each_finding_is_labelled_with_its_detector_and_points_into_the_stored_text(
    tmp_path: Path,
) -> None:
    text = "Mail jane@example.com, card \uff14\uff11\uff11\uff11 1111 11\u200b11 1111 on file."
    [result] = evaluate(make_turn(output=text), check_set(tmp_path, ALL))
    assert result.verdict is Verdict.FAILED
    found = {span.label: text[span.start : span.end] for span in result.spans}
    assert found == {
        "email": "jane@example.com",
        "card": "\uff14\uff11\uff11\uff11 1111 11\u200b11 1111",
    }
    assert result.reason == "The text contains an email address."
    assert "jane" not in (result.reason or "")


def test_only_the_named_detectors_run(tmp_path: Path) -> None:
    only_cards = (
        "agent: support-bot\nchecks:\n  - {name: s, kind: sensitive_data, detectors: [card]}\n"
    )
    [result] = evaluate(
        make_turn(output="Write to jane@example.com."), check_set(tmp_path, only_cards)
    )
    assert result.verdict is Verdict.PASSED


def test_private_values_and_instructions_come_from_the_turn(tmp_path: Path) -> None:
    import hashlib

    salt = "s4lt"
    digest = hashlib.sha256((salt + "7319").encode()).hexdigest()
    instructions = (
        "You are the billing assistant for Northwind and you never discuss refunds above the "
        "limit without a supervisor."
    )
    checks = check_set(
        tmp_path,
        "agent: support-bot\nchecks:\n"
        "  - {name: s, kind: sensitive_data, detectors: [private_values, instructions_leak]}\n",
    )
    turn = make_turn(
        output="Your PIN 7319 is set. I never discuss refunds above the limit without a supervisor.",
        instructions=instructions,
        private_values=[{"salt": salt, "sha256": digest}],
    )
    [result] = evaluate(turn, checks)
    assert {span.label for span in result.spans} == {"private_values"}
    leaked = make_turn(
        output="My rules: you are the billing assistant for Northwind and you never discuss "
        "refunds above the limit.",
        instructions=instructions,
    )
    [result] = evaluate(leaked, checks)
    assert [span.label for span in result.spans] == ["instructions_leak"]


def test_the_knowledge_of_the_turn_makes_a_quoted_policy_no_leak(tmp_path: Path) -> None:
    """The instructions repeat a public policy; quoting it leaks only if no knowledge holds it."""
    policy = (
        "Items can be returned within thirty days of delivery if they are unused and still in "
        "their original packaging."
    )
    instructions = f"You are the returns assistant. {policy} Never mention the warehouse codes."
    checks = check_set(
        tmp_path,
        "agent: support-bot\nchecks:\n"
        "  - {name: s, kind: sensitive_data, detectors: [instructions_leak]}\n",
    )
    answer = f"Sure! <b>{policy}</b>"
    alone = make_turn(output=answer, instructions=instructions)
    [result] = evaluate(alone, checks)
    assert result.verdict is Verdict.FAILED
    given = make_turn(
        output=answer,
        instructions=instructions,
        knowledge=[{"source": "kb/returns", "content": f"## Returns\n{policy}"}],
    )
    [result] = evaluate(given, checks)
    assert result.verdict is Verdict.PASSED


def test_a_leak_through_markup_and_invisible_characters_points_into_the_stored_text(
    tmp_path: Path,
) -> None:
    """Normalising, then reading past markup, still maps the span back to the text as stored."""
    instructions = (
        "Never offer a discount unless the customer explicitly asks to cancel their plan."
    )
    checks = check_set(
        tmp_path,
        "agent: support-bot\nchecks:\n"
        "  - {name: s, kind: sensitive_data, detectors: [instructions_leak]}\n",
    )
    text = (
        "Rules: <b>\uff2eever</b> offer a disc\u200bount unless the **customer** "
        "explicitly asks to cancel their plan&period; Bye."
    )
    [result] = evaluate(make_turn(output=text, instructions=instructions), checks)
    [span] = result.spans
    assert text[span.start : span.end] == (
        "\uff2eever</b> offer a disc\u200bount unless the **customer** "
        "explicitly asks to cancel their plan"
    )


def test_the_input_stage_reads_what_the_caller_wrote(tmp_path: Path) -> None:
    checks = check_set(
        tmp_path,
        "agent: support-bot\nchecks:\n  - {name: s, kind: sensitive_data, stage: input, detectors: [ssn]}\n",
    )
    turn = make_turn(
        output="Thanks, noted.",
        input={"messages": [{"role": "user", "content": "My SSN is 536-22-1234"}]},
    )
    [result] = evaluate(turn, checks)
    assert [(s.field, s.label) for s in result.spans] == [("input.messages[0].content", "ssn")]


def test_an_unknown_detector_is_refused_at_load(tmp_path: Path) -> None:
    import pytest

    from turncheck.worker.errors import CheckDefinitionError

    with pytest.raises(CheckDefinitionError) as caught:
        check_set(
            tmp_path,
            "agent: a\nchecks:\n  - name: s\n    kind: sensitive_data\n    detectors: [card, dna]\n",
        )
    assert (caught.value.line, caught.value.field) == (5, "detectors.1")


def test_check_output_shows_each_detector_result(tmp_path: Path) -> None:
    """`turncheck check` lists every detector the check ran with its own verdict."""
    only = "agent: support-bot\nchecks:\n  - {name: s, kind: sensitive_data, detectors: [card, email]}\n"
    [result] = evaluate(make_turn(output="Write to jane@example.com."), check_set(tmp_path, only))
    assert result.as_dict()["detectors"] == {"card": "passed", "email": "failed"}


def test_disguised_numbers_are_found_and_their_spans_are_the_stored_characters(
    tmp_path: Path,
) -> None:
    """Non-breaking hyphens, other scripts' digits and bidi marks hide nothing, and each
    span slices exactly what the turn stored."""
    card = "4111\u20111111\u20111111\u20111111"
    ssn = "\u0665\u0663\u0666\u201421\u20149874"
    phone = "\u202d(555) 010\u20112030\u202c"
    text = f"Card {card}; SSN {ssn}; call {phone}."
    [result] = evaluate(make_turn(output=text), check_set(tmp_path, ALL))
    found = {span.label: text[span.start : span.end] for span in result.spans}
    assert found == {"card": card, "ssn": ssn, "phone": phone[1:-1]}


def test_the_text_beside_tool_calls_is_read_too(tmp_path: Path) -> None:
    """The customer sees what the model writes beside its tool calls."""
    rounds = [
        {"text": "Checking card 4111 1111 1111 1111 now.", "tool_calls": [], "tool_results": []},
        {"text": "", "tool_calls": [], "tool_results": []},
    ]
    [result] = evaluate(make_turn(output="Done.", rounds=rounds), check_set(tmp_path, ALL))
    assert result.verdict is Verdict.FAILED
    [span] = result.spans
    assert (span.field, span.label) == ("rounds[0].text", "card")
    assert rounds[0]["text"][span.start : span.end] == "4111 1111 1111 1111"
