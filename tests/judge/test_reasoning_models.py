"""OpenAI's reasoning models judge turns, a refusal is one errored result, and a custom
template that JSON mode would refuse is refused at start; against a loopback server that
answers the way the OpenAI API does, error bodies included."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_commands import turncheck
from tests.factories import check_set, make_turn, turn_bytes
from tests.judge.fake_provider import REASONING_MODELS, FakeProvider, Scripted
from turncheck.worker.app import plan
from turncheck.worker.checks import CheckSet, Verdict
from turncheck.worker.errors import CheckDefinitionError, JudgeConfigError
from turncheck.worker.judge.config import JudgeEndpoint, load_judges
from turncheck.worker.judge.direct import judge_now
from turncheck.worker.judge.http import HttpJudgeClient
from turncheck.worker.settings import Settings

FAIL = '{"verdict": "fail", "score": 0.2, "reason": "The reply is curt."}'
RUBRIC_REPLY = '{"answers": {"answers_question": "yes", "tone": "warm"}, "reason": "Helpful."}'
JUDGED = """
agent: support-bot
checks:
  - {{name: polite, kind: judge, criteria: polite_tone, mode: background, judge_model: {model}}}
  - name: resolution
    kind: rubric
    mode: background
    judge_model: {model}
    questions:
      - {{id: answers_question, type: yes_no, text: "Does the reply answer the question?"}}
      - {{id: tone, type: scale, text: "How is the tone?", labels: [hostile, cold, fine, warm]}}
    verdict: {{question: answers_question, passing: ["yes"]}}
"""
NO_JSON_TEMPLATE = (
    "{# a reviewer's own prompt #}\n"
    "{% block system %}\n"
    'Say whether the answer is polite: {"verdict": "pass", "score": 1, "reason": "..."}\n'
    "{% endblock %}\n"
    "{% block user %}{{ answer | quoted }}{% endblock %}\n"
)


def reply_for(request_json: Any) -> str:
    """A judge reply or a rubric reply, whichever the system prompt asks for."""
    return RUBRIC_REPLY if '"answers"' in request_json["messages"][0]["content"] else FAIL


async def judge_all(
    checks: CheckSet, endpoints: dict[str, JudgeEndpoint], output: str = "Figure it out."
) -> dict[str, Any]:
    """Every judged result of one turn, by check name, through the real HTTP client."""
    judged = checks.judged_for_agent("support-bot", 7)
    async with HttpJudgeClient(endpoints, {}) as client:
        results = await judge_now(
            make_turn("t-1", output), judged, client, frozenset(endpoints), deadline_s=10
        )
    return {r.check.name: r for r in results}


@pytest.mark.parametrize("model", REASONING_MODELS)
async def test_a_reasoning_model_decides_judged_checks_instead_of_erroring(
    tmp_path: Path, fake_provider: FakeProvider, model: str
) -> None:
    """o-series and gpt-5 judges are sent max_completion_tokens and the reply's JSON schema,
    no sampling or logprob parameters, and their verdicts are stored, not errored."""
    fake_provider.responder = reply_for
    checks = check_set(tmp_path, JUDGED.format(model=model))
    endpoint = JudgeEndpoint(provider="openai", base_url=fake_provider.openai_url)
    results = await judge_all(checks, {model: endpoint})
    assert (results["polite"].verdict, results["polite"].reason) == (
        Verdict.FAILED,
        "The reply is curt.",
    )
    assert results["resolution"].verdict == Verdict.PASSED
    # Reasoning models return no logprobs, so a rubric answer has no probability.
    assert results["resolution"].answers == {
        "answers_question": {"answer": "yes", "probability": None},
        "tone": {"answer": "warm", "probability": None},
    }
    sent = [r.json for r in fake_provider.requests]
    assert len(sent) == 2
    for body in sent:
        assert not {"max_tokens", "temperature", "logprobs", "top_logprobs"} & body.keys()
        assert body["max_completion_tokens"] > 400
        assert body["response_format"]["type"] == "json_schema"
        assert body["response_format"]["json_schema"]["strict"] is True
    schemas = [body["response_format"]["json_schema"]["schema"] for body in sent]
    [rubric] = [s for s in schemas if "answers" in s["properties"]]
    tone = rubric["properties"]["answers"]["properties"]["tone"]
    assert tone == {"type": "string", "enum": ["hostile", "cold", "fine", "warm"]}


async def test_other_models_keep_json_mode_and_logprob_scoring(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    """A judge that is not a reasoning model is asked as before: max_tokens, temperature 0,
    JSON mode and logprobs, so a rubric answer carries its probability."""
    fake_provider.responder = reply_for
    fake_provider.json_word_required = True
    checks = check_set(tmp_path, JUDGED.format(model="gpt-4o-mini"))
    endpoint = JudgeEndpoint(provider="openai", base_url=fake_provider.openai_url)
    results = await judge_all(checks, {"gpt-4o-mini": endpoint})
    assert results["polite"].verdict == Verdict.FAILED
    assert results["resolution"].answers is not None
    assert results["resolution"].answers["tone"]["probability"] == pytest.approx(0.8825)
    for request in fake_provider.requests:
        body = request.json
        assert "max_completion_tokens" not in body and body["max_tokens"] > 0
        assert (body["temperature"], body["logprobs"], body["top_logprobs"]) == (0, True, 1)
        assert body["response_format"] == {"type": "json_object"}


async def test_the_judges_file_says_which_models_reason_whatever_their_names(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    """``reasoning: true`` makes a deployment with any name a reasoning judge, and
    ``reasoning: false`` keeps a local model named like one on the usual parameters."""
    fake_provider.responder = reply_for
    fake_provider.reasoning_models = ("prod-judge",)
    judges = load_judges(
        json.dumps(
            {
                "prod-judge": {
                    "provider": "openai",
                    "base_url": fake_provider.openai_url,
                    "reasoning": True,
                },
                "o1": {
                    "provider": "openai",
                    "base_url": fake_provider.openai_url,
                    "reasoning": False,
                },
            }
        )
    )
    for name in ("prod-judge", "o1"):
        results = await judge_all(check_set(tmp_path, JUDGED.format(model=name)), judges)
        assert results["polite"].verdict == Verdict.FAILED, results["polite"].reason
    by_model = {r.json["model"]: r.json for r in fake_provider.requests}
    assert "max_completion_tokens" in by_model["prod-judge"]
    assert by_model["o1"]["logprobs"] is True and "max_tokens" in by_model["o1"]


@pytest.mark.parametrize("model", ["gpt-4o-mini", "o4-mini"])
async def test_a_refusal_is_errored_once_and_not_asked_again(
    tmp_path: Path, fake_provider: FakeProvider, model: str
) -> None:
    """A reply with null content and a refusal is errored "the judge refused", without the
    refusal's words (they may quote the turn) and without paying for a second request."""
    fake_provider.script(Scripted(refusal="I can't help with Figure it out."))
    checks = check_set(tmp_path, JUDGED.format(model=model))
    endpoint = JudgeEndpoint(provider="openai", base_url=fake_provider.openai_url)
    judged = checks.judged_for_agent("support-bot", 7)[:1]
    async with HttpJudgeClient({model: endpoint}, {}) as client:
        [result] = await judge_now(
            make_turn("t-1", "Figure it out."), judged, client, frozenset({model}), deadline_s=10
        )
    assert result.verdict == Verdict.ERRORED
    # Not "refused the request (HTTP 400)": the judge answered, and declined.
    assert result.reason == "The judge refused to judge this turn."
    assert len(fake_provider.requests) == 1


def test_check_judges_with_a_reasoning_model_from_a_judges_file(tmp_path: Path) -> None:
    """`turncheck check` with an o3-mini judge from a YAML judges file prints the verdict."""
    checks = tmp_path / "checks.yaml"
    checks.write_text(JUDGED.format(model="o3-mini"))
    with FakeProvider() as server:
        server.responder = reply_for
        judges = tmp_path / "judges.yaml"
        judges.write_text(f"o3-mini:\n  provider: openai\n  base_url: {server.openai_url}\n")
        done = turncheck(
            "check",
            "--checks",
            str(checks),
            cwd=tmp_path,
            stdin=turn_bytes("t-1", "Figure it out yourself.") + b"\n",
            TURNCHECK_JUDGES=str(judges),
        )
        sent = server.requests
    assert done.returncode == 0, done.stderr
    [line] = [json.loads(x) for x in done.stdout.splitlines()]
    verdicts = {r["check"]: r["verdict"] for r in line["results"]}
    assert verdicts == {"polite": "failed", "resolution": "passed"}
    assert len(sent) == 2


def test_a_custom_template_that_never_says_json_is_refused_for_json_mode(tmp_path: Path) -> None:
    """A check's own template without the word JSON, sent to an OpenAI judge in JSON mode
    (which the API would refuse every time), stops `check` with exit 2 and one line naming
    the template, its line and the field."""
    (tmp_path / "polite.j2").write_text(NO_JSON_TEMPLATE)
    checks = tmp_path / "checks.yaml"
    checks.write_text(
        "agent: support-bot\nchecks:\n"
        "  - {name: polite, kind: judge, criteria: polite_tone, judge_model: gpt-4o-mini,"
        " template: polite.j2}\n"
    )
    judges = json.dumps(
        {"gpt-4o-mini": {"provider": "openai", "base_url": "http://127.0.0.1:9/v1"}}
    )
    done = turncheck(
        "check", "--checks", str(checks), cwd=tmp_path, stdin=b"", TURNCHECK_JUDGES=judges
    )
    assert done.returncode == 2
    [line] = done.stderr.decode().splitlines()
    assert f"{tmp_path / 'polite.j2'}:2" in line
    assert "check 'polite'" in line and "field 'template'" in line and "JSON" in line
    assert "Traceback" not in line


async def test_a_template_without_json_is_fine_with_structured_output(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    """With structured output the API needs no word JSON: the same template, judged by the
    turn's own model, loads and judges; an Anthropic judge beside it never needed the word."""
    fake_provider.responder = reply_for
    fake_provider.json_word_required = True
    (tmp_path / "polite.j2").write_text(NO_JSON_TEMPLATE)
    checks = tmp_path / "checks.yaml"
    checks.write_text(
        "agent: support-bot\nchecks:\n"
        "  - {name: polite, kind: judge, criteria: polite_tone, template: polite.j2}\n"
    )
    judges = {
        "gpt-4o-mini": {
            "provider": "openai",
            "base_url": fake_provider.openai_url,
            "structured_output": True,
        },
        "claude": {"provider": "anthropic", "base_url": fake_provider.anthropic_url},
    }
    parts = plan(Settings(checks=[checks], judges=json.dumps(judges)))
    endpoints = dict(parts.judge.endpoints)
    await parts.judge.aclose()
    results = await judge_all(parts.checks, {"gpt-4o-mini": endpoints["gpt-4o-mini"]})
    assert results["polite"].verdict == Verdict.FAILED
    del judges["gpt-4o-mini"]["structured_output"]
    with pytest.raises(CheckDefinitionError, match="judge 'gpt-4o-mini' is in JSON mode"):
        plan(Settings(checks=[checks], judges=json.dumps(judges)))


@pytest.mark.parametrize(
    ("field", "value"), [("reasoning", "maybe"), ("structured_output", '"yes"')]
)
def test_a_bad_reasoning_setting_is_refused_with_its_line(
    tmp_path: Path, field: str, value: str
) -> None:
    """The judges file refuses a reasoning or structured-output value that is not a boolean,
    naming the file, the line and the field."""
    judges = tmp_path / "judges.yaml"
    judges.write_text(
        f"gpt-5:\n  provider: openai\n  base_url: https://api.openai.com/v1\n  {field}: {value}\n"
    )
    with pytest.raises(JudgeConfigError) as refused:
        load_judges(str(judges))
    assert str(refused.value).startswith(f"{judges}:4: gpt-5.{field}: Input should be")
