"""Compiling judged checks, the requests they build and how they read the judge's reply."""

from __future__ import annotations

import json
import math
import re
from typing import Any

import pytest

from tests.factories import make_turn
from turncheck.schemas.judged import JudgeCheck, RubricCheck
from turncheck.worker.checks.result import Verdict
from turncheck.worker.judge.kinds import CompiledJudged, RubricAnswer, compile_judged
from turncheck.worker.judge.replies import REASON_MAX_CHARS, UNREADABLE
from turncheck.worker.judge.types import JudgeReply, TokenLogprob, Usage

USAGE = Usage(input_tokens=10, output_tokens=5)


def judge_check(**fields: Any) -> CompiledJudged:
    data = {"name": "polite", "kind": "judge", "criteria": "polite_tone", **fields}
    return compile_judged(JudgeCheck.model_validate(data), "v1")


def rubric_check(verdict: dict[str, Any] | None = None) -> CompiledJudged:
    data: dict[str, Any] = {
        "name": "policy",
        "kind": "rubric",
        "questions": [
            {"id": "answers_question", "type": "yes_no", "text": "Does it respond?"},
            {
                "id": "grounding",
                "type": "scale",
                "text": "How well is it supported?",
                "labels": ["Contradicts", "Unsupported", "Minor gaps", "Fully supported"],
            },
            {"id": "tone", "type": "choice", "text": "Which tone?", "labels": ["Warm", "Cold"]},
        ],
        "verdict": verdict or {"question": "answers_question", "passing": ["yes"]},
    }
    return compile_judged(RubricCheck.model_validate(data), "v2")


def reply(text: str, logprobs: tuple[TokenLogprob, ...] | None = None) -> JudgeReply:
    return JudgeReply(text=text, usage=USAGE, logprobs=logprobs)


def tokens(text: str, logprobs: dict[str, float]) -> tuple[TokenLogprob, ...]:
    """Split a reply into word, space and punctuation tokens, each with its offset."""
    return tuple(
        TokenLogprob(m.group(), logprobs.get(m.group(), -0.01), m.start())
        for m in re.finditer(r"\w+|\s+|[^\w\s]", text)
    )


RUBRIC_REPLY = json.dumps(
    {
        "answers": {"answers_question": "yes", "grounding": "Minor gaps", "tone": "Cold"},
        "reason": "The answer responds to the refund question.",
    }
)


def test_compile_copies_the_definition_and_its_version() -> None:
    """A compiled check keeps the definition's name, kind, stage, mode, sampling and judge model."""
    check = judge_check(mode="background", sample_rate=0.25, on_error="pass", judge_model="small")
    assert (check.id.name, check.id.version, check.id.kind, check.id.stage, check.id.mode) == (
        "polite",
        "v1",
        "judge",
        "output",
        "background",
    )
    assert (check.sample_rate, check.on_error, check.judge_model) == (0.25, "pass", "small")


def test_requests_ask_the_given_model_for_logprobs() -> None:
    """Judge and rubric requests name the given model and ask for logprobs."""
    turn = make_turn(output="Happy to help.")
    for check in (judge_check(), rubric_check()):
        request = check.request(turn, "judge-model")
        assert request.model == "judge-model"
        assert request.want_logprobs is True
        assert "Happy to help." in request.user
        assert request == check.request(turn, "judge-model")


def test_a_pass_verdict_is_passed_with_the_judges_score_and_reason() -> None:
    """A pass is passed, with the score as given and the judge's sentence as the reason."""
    text = '{"verdict": "pass", "score": 0.9, "reason": "  The answer is courteous.  "}'
    outcome = judge_check().decide(reply(text)).outcome
    assert outcome.verdict is Verdict.PASSED
    assert outcome.score == 0.9
    assert outcome.reason == "The answer is courteous."


def test_a_fail_verdict_is_failed_with_an_integer_score() -> None:
    """A fail is failed; an integer score is read as a number."""
    text = '{"verdict": "fail", "score": 0, "reason": "It mocks the customer."}'
    decision = judge_check().decide(reply(text))
    assert decision.outcome.verdict is Verdict.FAILED
    assert decision.outcome.score == 0.0
    assert decision.answers == ()


def test_a_reply_in_one_fenced_json_block_is_read() -> None:
    """One fenced json block with whitespace around it is allowed."""
    text = '\n```json\n{"verdict": "pass", "score": 1, "reason": "Polite."}\n```\n'
    assert judge_check().decide(reply(text)).outcome.verdict is Verdict.PASSED


def test_a_long_reason_is_capped() -> None:
    """A reason longer than the cap is cut, so a rambling judge cannot fill the store."""
    text = json.dumps({"verdict": "fail", "score": 0.1, "reason": "Rude. " * 200})
    reason = judge_check().decide(reply(text)).outcome.reason
    assert reason is not None
    assert len(reason) == REASON_MAX_CHARS
    assert reason.endswith("…")


MALFORMED_JUDGE_REPLIES = [
    "",
    "pass",
    'Sure! {"verdict": "pass", "score": 1, "reason": "Fine."}',
    '{"verdict": "pass", "score": 1, "reason": "Fine."} I hope this helps.',
    '{"verdict": "pass", "score": 1, "reason": "Fine."}{"verdict": "fail"}',
    '```json\n{"verdict": "pass", "score": 1, "reason": "Fine."}\n```\n```json\n{}\n```',
    '```json\n{"verdict": "pass", "score": 1, "reason": "Fine."}',
    '{"verdict": "PASS", "score": 1, "reason": "Fine."}',
    '{"verdict": "maybe", "score": 0.5, "reason": "Unsure."}',
    '{"verdict": "pass", "score": 1.5, "reason": "Fine."}',
    '{"verdict": "pass", "score": -0.1, "reason": "Fine."}',
    '{"verdict": "pass", "score": "1", "reason": "Fine."}',
    '{"verdict": "pass", "score": true, "reason": "Fine."}',
    '{"verdict": "pass", "score": NaN, "reason": "Fine."}',
    '{"verdict": "pass", "score": 1e999, "reason": "Fine."}',
    '{"verdict": "pass", "score": 1}',
    '{"verdict": "pass", "score": 1, "reason": "   "}',
    '{"verdict": "pass", "score": 1, "reason": ["Fine."]}',
    '{"verdict": "pass", "score": 1, "reason": "Fine.", "confidence": 0.9}',
    '{"verdict": "fail", "verdict": "pass", "score": 1, "reason": "Fine."}',
    '{"verdict": "pass", "score": 1, "reason": "Fine.",}',
    "{'verdict': 'pass', 'score': 1, 'reason': 'Fine.'}",
    '["pass", 1, "Fine."]',
    '{"verdict": "pass", "score": 1, "reason": "Fine."',
]


@pytest.mark.parametrize("text", MALFORMED_JUDGE_REPLIES)
def test_a_judge_reply_that_does_not_parse_is_errored(text: str) -> None:
    """Prose, extra keys, bad types, out-of-range scores and broken JSON are errored, never passed."""
    decision = judge_check().decide(reply(text))
    assert decision.outcome == UNREADABLE
    assert decision.outcome.reason == "The judge's reply did not parse."


def test_a_rubric_answers_every_question_and_maps_the_verdict() -> None:
    """The verdict question's answer in passing is passed; every answer is kept in question order."""
    decision = rubric_check().decide(reply(RUBRIC_REPLY))
    assert decision.outcome.verdict is Verdict.PASSED
    assert decision.outcome.score == 1.0
    assert decision.outcome.reason == "The answer responds to the refund question."
    assert decision.answers == (
        RubricAnswer("answers_question", "yes", None),
        RubricAnswer("grounding", "Minor gaps", None),
        RubricAnswer("tone", "Cold", None),
    )


def test_a_rubric_answer_outside_passing_fails_with_score_zero() -> None:
    """A non-scale verdict question scores 0.0 when its answer is not passing."""
    check = rubric_check({"question": "tone", "passing": ["Warm"]})
    outcome = check.decide(reply(RUBRIC_REPLY)).outcome
    assert outcome.verdict is Verdict.FAILED
    assert outcome.score == 0.0


@pytest.mark.parametrize(
    ("passing", "verdict"),
    [(["Minor gaps", "Fully supported"], "passed"), (["Fully supported"], "failed")],
)
def test_a_scale_verdict_scores_its_place_from_worst_to_best(
    passing: list[str], verdict: str
) -> None:
    """A scale verdict question scores index / (labels - 1), whether it passes or not."""
    check = rubric_check({"question": "grounding", "passing": passing})
    outcome = check.decide(reply(RUBRIC_REPLY)).outcome
    assert outcome.verdict == verdict
    assert outcome.score == pytest.approx(2 / 3)


def rubric_reply(answers: Any, reason: Any = "Because.", **extra: Any) -> str:
    return json.dumps({"answers": answers, "reason": reason, **extra})


GOOD = {"answers_question": "yes", "grounding": "Minor gaps", "tone": "Cold"}

MALFORMED_RUBRIC_REPLIES = [
    rubric_reply({"answers_question": "yes", "grounding": "Minor gaps"}),
    rubric_reply({**GOOD, "extra": "yes"}),
    rubric_reply({**GOOD, "answers_question": "Yes"}),
    rubric_reply({**GOOD, "answers_question": "maybe"}),
    rubric_reply({**GOOD, "grounding": "Somewhat supported"}),
    rubric_reply({**GOOD, "tone": ["Cold"]}),
    rubric_reply({**GOOD, "answers_question": True}),
    rubric_reply(list(GOOD.values())),
    rubric_reply(GOOD, reason=""),
    rubric_reply(GOOD, reason=None),
    rubric_reply(GOOD, verdict="pass"),
    json.dumps({"answers": GOOD}),
    '{"answers": {"answers_question": "yes", "answers_question": "no", "grounding": "Minor gaps", "tone": "Cold"}, "reason": "x"}',
    "The answers are yes, Minor gaps and Cold.",
    rubric_reply(GOOD) + "\nLet me know if you need more.",
]


@pytest.mark.parametrize("text", MALFORMED_RUBRIC_REPLIES)
def test_a_rubric_reply_that_does_not_parse_is_errored(text: str) -> None:
    """Missing, unknown, duplicate or disallowed answers and extra prose are errored."""
    decision = rubric_check().decide(reply(text))
    assert decision.outcome == UNREADABLE
    assert decision.answers == ()


def test_rubric_probabilities_come_from_the_token_that_starts_each_answer() -> None:
    """Each answer's probability is exp(logprob) of the token at the start of its value."""
    logprobs = tokens(RUBRIC_REPLY, {"yes": -0.05, "Minor": -0.7, "Cold": -1.2})
    answers = rubric_check().decide(reply(RUBRIC_REPLY, logprobs)).answers
    assert [a.probability for a in answers] == [
        round(math.exp(-0.05), 4),
        round(math.exp(-0.7), 4),
        round(math.exp(-1.2), 4),
    ]


def test_a_token_that_joins_the_quote_and_the_answer_still_counts() -> None:
    """A token spanning the opening quote and the answer's first letters covers the value."""
    text = RUBRIC_REPLY
    start = text.index('"yes"')
    logprobs = (
        TokenLogprob(text[:start], -0.001, 0),
        TokenLogprob('"ye', -0.3, start),
        TokenLogprob(text[start + 3 :], -0.001, start + 3),
    )
    answers = rubric_check().decide(reply(text, logprobs)).answers
    assert answers[0].probability == round(math.exp(-0.3), 4)


def test_probabilities_are_found_inside_a_fenced_reply_and_ignore_the_reason() -> None:
    """Offsets count from the start of the reply text, and a reason quoting an answer is not read."""
    body = json.dumps(
        {
            "reason": 'It said "answers_question": "no" earlier, then yes.',
            "answers": {"answers_question": "yes", "grounding": "Minor gaps", "tone": "Cold"},
        }
    )
    text = f"```json\n{body}\n```"
    logprobs = tokens(text, {"no": -3.0, "yes": -0.2})
    answers = rubric_check().decide(reply(text, logprobs)).answers
    assert answers[0] == RubricAnswer("answers_question", "yes", round(math.exp(-0.2), 4))


def test_probabilities_are_none_without_logprobs_or_a_matching_token() -> None:
    """No logprobs gives None; logprobs that stop before an answer give None for it."""
    assert all(a.probability is None for a in rubric_check().decide(reply(RUBRIC_REPLY)).answers)
    cut = RUBRIC_REPLY.index('"Minor gaps"')
    logprobs = tokens(RUBRIC_REPLY[:cut], {"yes": -0.1})
    answers = rubric_check().decide(reply(RUBRIC_REPLY, logprobs)).answers
    assert [a.probability for a in answers] == [round(math.exp(-0.1), 4), None, None]


def test_without_a_covering_token_the_first_token_inside_the_answer_counts() -> None:
    """When no token covers an answer's first character, the first token starting inside it counts."""
    start = RUBRIC_REPLY.index("Minor gaps")
    logprobs = (TokenLogprob("gaps", -0.4, start + len("Minor ")),)
    answers = rubric_check().decide(reply(RUBRIC_REPLY, logprobs)).answers
    assert [a.probability for a in answers] == [None, round(math.exp(-0.4), 4), None]
