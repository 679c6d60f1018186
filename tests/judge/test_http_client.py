"""The HTTP judge client against a real local provider: wire shapes, retries, deadlines."""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from typing import Any

import pytest

from tests.judge.fake_provider import FakeProvider, Scripted
from tests.judge.provider_bodies import (
    ANTHROPIC_CREDIT_TOO_LOW,
    ANTHROPIC_OVERLOADED,
    ANTHROPIC_RATE_LIMIT,
    ANTHROPIC_SPEND_LIMIT,
    MESSAGE_WORDS,
    OPENAI_PROJECT_SPEND_LIMIT,
    OPENAI_QUOTA,
    OPENAI_RATE_LIMIT,
)
from turncheck.worker.errors import JudgeRejected, JudgeUnavailable
from turncheck.worker.judge.config import JudgeEndpoint
from turncheck.worker.judge.http import HttpJudgeClient, JudgeRetry
from turncheck.worker.judge.types import JudgeRequest

KEY = "sk-test-do-not-leak-4242"
ENVIRON = {"JUDGE_KEY": KEY}
FAST = JudgeRetry(min_wait_s=0.01, first_backoff_s=0.02, max_backoff_s=0.1)


def client_for(
    server: FakeProvider, provider: str = "openai", retry: JudgeRetry = FAST, **options: Any
) -> HttpJudgeClient:
    """A client with one judge, ``judge``, on the fake provider."""
    url = server.openai_url if provider == "openai" else server.anthropic_url
    endpoint = JudgeEndpoint.model_validate({"provider": provider, "base_url": url, **options})
    return HttpJudgeClient({"judge": endpoint}, ENVIRON, retry=retry)


def ask(*, logprobs: bool = False, model: str = "judge") -> JudgeRequest:
    return JudgeRequest(
        model=model, system="You grade.", user="Grade this turn.", want_logprobs=logprobs
    )


async def test_openai_request_has_model_messages_json_mode_logprobs_and_bearer_key(
    fake_provider: FakeProvider,
) -> None:
    """The chat-completions body places system and user, asks for JSON and logprobs."""
    async with client_for(fake_provider, api_key_env="JUDGE_KEY", model="served") as client:
        await client.complete(ask(logprobs=True), deadline_s=5)
    [sent] = fake_provider.requests
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    assert sent.json == {
        "model": "served",
        "messages": [
            {"role": "system", "content": "You grade."},
            {"role": "user", "content": "Grade this turn."},
        ],
        "max_tokens": 400,
        "temperature": 0,
        "response_format": {"type": "json_object"},
        "logprobs": True,
        "top_logprobs": 1,
    }


async def test_openai_request_without_key_or_logprobs_sends_neither(
    fake_provider: FakeProvider,
) -> None:
    """No key variable: no Authorization; no logprobs wanted: no flag; model is the configured name."""
    async with client_for(fake_provider) as client:
        await client.complete(ask(), deadline_s=5)
    [sent] = fake_provider.requests
    assert "authorization" not in sent.headers
    assert "logprobs" not in sent.json and "top_logprobs" not in sent.json
    assert sent.json["model"] == "judge"


async def test_anthropic_request_has_system_apart_and_key_headers(
    fake_provider: FakeProvider,
) -> None:
    """The Messages body has a top-level system, one user message, and the key in x-api-key."""
    async with client_for(fake_provider, "anthropic", api_key_env="JUDGE_KEY") as client:
        reply = await client.complete(ask(logprobs=True), deadline_s=5)
    [sent] = fake_provider.requests
    assert sent.path == "/v1/messages"
    assert sent.headers["x-api-key"] == KEY
    assert sent.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in sent.headers
    assert sent.json == {
        "model": "judge",
        "system": "You grade.",
        "messages": [{"role": "user", "content": "Grade this turn."}],
        "max_tokens": 400,
        "temperature": 0,
    }
    assert reply.logprobs is None


async def test_openai_reply_gives_text_usage_and_logprobs_whose_offsets_slice_the_text(
    fake_provider: FakeProvider,
) -> None:
    """Each logprob's offset points at its token in the reply text."""
    text = '{"verdict": "fail",  "reason": "naïve café\\nclaim"}'
    fake_provider.script(Scripted(text, input_tokens=31))
    async with client_for(fake_provider) as client:
        reply = await client.complete(ask(logprobs=True), deadline_s=5)
    assert reply.text == text
    assert reply.logprobs is not None and len(reply.logprobs) > 3
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (31, len(reply.logprobs))
    for item in reply.logprobs:
        assert text[item.offset : item.offset + len(item.token)] == item.token
        assert item.logprob == -0.125
    assert "".join(item.token for item in reply.logprobs) == text


async def test_openai_reply_without_logprobs_has_none(fake_provider: FakeProvider) -> None:
    """A server that returns no logprobs gives ``logprobs=None``."""
    async with client_for(fake_provider) as client:
        reply = await client.complete(ask(), deadline_s=5)
    assert reply.logprobs is None
    assert reply.text == fake_provider.responder(None)


async def test_anthropic_reply_joins_its_text_blocks(fake_provider: FakeProvider) -> None:
    """Text blocks are concatenated in order; other blocks are skipped."""
    body = (
        b'{"type": "message", "content": [{"type": "text", "text": "{\\"verdict\\": "},'
        b' {"type": "tool_use", "id": "x", "name": "n", "input": {}},'
        b' {"type": "text", "text": "\\"pass\\"}"}], "usage": {"input_tokens": 9, "output_tokens": 4}}'
    )
    fake_provider.script(Scripted(body=body))
    async with client_for(fake_provider, "anthropic") as client:
        reply = await client.complete(ask(), deadline_s=5)
    assert reply.text == '{"verdict": "pass"}'
    assert reply.usage.as_dict() == {"input_tokens": 9, "output_tokens": 4}


async def test_429_waits_for_retry_after_then_succeeds(fake_provider: FakeProvider) -> None:
    """Retry-After in seconds is waited out before the next attempt."""
    fake_provider.script(Scripted(status=429, headers={"Retry-After": "1"}), Scripted("{}"))
    async with client_for(fake_provider) as client:
        started = time.monotonic()
        reply = await client.complete(ask(), deadline_s=30)
        waited = time.monotonic() - started
    assert reply.text == "{}"
    assert len(fake_provider.requests) == 2
    # At least the 1 s asked, not the 0.02 s backoff of its own; the upper bound is
    # only far short of the deadline, as a loaded machine may be slow to answer.
    assert 1 <= waited < 10


async def test_429_whose_retry_after_passes_the_deadline_fails_at_once(
    fake_provider: FakeProvider,
) -> None:
    """No point waiting past the deadline: JudgeUnavailable names the last status."""
    fake_provider.script(Scripted(status=429, headers={"Retry-After": "30"}))
    async with client_for(fake_provider) as client:
        started = time.monotonic()
        with pytest.raises(JudgeUnavailable) as caught:
            await client.complete(ask(), deadline_s=20)
    assert time.monotonic() - started < 10  # well before the 20 s deadline, let alone 30 s
    assert caught.value.reason == "The judge did not answer before the deadline (last: HTTP 429)."


async def test_5xx_and_408_are_retried(fake_provider: FakeProvider) -> None:
    """Server errors and request timeouts are transient: the next attempt answers."""
    fake_provider.script(Scripted(status=500), Scripted(status=503), Scripted(status=408))
    async with client_for(fake_provider) as client:
        reply = await client.complete(ask(), deadline_s=5)
    assert reply.text == fake_provider.responder(None)
    assert len(fake_provider.requests) == 4


async def test_attempt_past_its_timeout_is_retried(fake_provider: FakeProvider) -> None:
    """One attempt lasts at most ``timeout_s``; the next one may still answer in time."""
    fake_provider.script(Scripted(delay_s=2))
    async with client_for(fake_provider, timeout_s=0.2) as client:
        reply = await client.complete(ask(), deadline_s=5)
    assert reply.text == fake_provider.responder(None)
    assert len(fake_provider.requests) == 2


@pytest.mark.parametrize("where", ["call", "endpoint"])
async def test_slow_answer_past_the_deadline_is_unavailable(
    fake_provider: FakeProvider, where: str
) -> None:
    """The deadline is the smaller of the caller's and the endpoint's, retries included."""
    fake_provider.responder = lambda request_json: "{}"
    # Closing the fake wakes its delayed answers, so the 60 s ones cost the test nothing.
    fake_provider.script(Scripted(delay_s=60), Scripted(delay_s=60))
    options: dict[str, Any] = {} if where == "call" else {"deadline_s": 0.3}
    deadline_s = 0.3 if where == "call" else 30
    async with client_for(fake_provider, **options) as client:
        started = time.monotonic()
        with pytest.raises(JudgeUnavailable) as caught:
            await client.complete(ask(), deadline_s=deadline_s)
    assert 0.3 <= time.monotonic() - started < 10  # neither the answer nor 30 s was waited for
    assert caught.value.reason == "The judge did not answer before the deadline (last: timeout)."


async def test_connection_refused_is_retried_until_the_attempts_or_the_deadline_run_out() -> None:
    """Nobody listening is a connection error: retried, then JudgeUnavailable."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    endpoint = JudgeEndpoint(provider="openai", base_url=f"http://127.0.0.1:{port}/v1")
    async with HttpJudgeClient({"judge": endpoint}, {}, retry=FAST) as client:
        with pytest.raises(JudgeUnavailable) as caught:
            # Long enough that a loaded machine still sees a refusal before it ends.
            await client.complete(ask(), deadline_s=3)
    assert caught.value.reason.endswith("(last: connection error).")


async def test_401_is_rejected_without_retry(fake_provider: FakeProvider) -> None:
    """A refused request would be refused again: one attempt, JudgeRejected."""
    fake_provider.script(Scripted(status=401))
    async with client_for(fake_provider) as client:
        with pytest.raises(JudgeRejected) as caught:
            await client.complete(ask(), deadline_s=5)
    assert caught.value.reason == "The judge refused the request (HTTP 401)."
    assert len(fake_provider.requests) == 1


@pytest.mark.parametrize(
    "body", [b"<html>gateway</html>", b'{"choices": []}', b'{"choices": [{"message": {}}]}']
)
async def test_malformed_body_is_retried_once_then_unavailable(
    fake_provider: FakeProvider, body: bytes
) -> None:
    """A 2xx that is not a chat completion is tried once more, then JudgeUnavailable."""
    fake_provider.script(Scripted(body=body), Scripted(body=body), Scripted("{}"))
    async with client_for(fake_provider) as client:
        with pytest.raises(JudgeUnavailable) as caught:
            await client.complete(ask(), deadline_s=5)
    assert caught.value.reason == "The judge's response was malformed."
    assert len(fake_provider.requests) == 2


async def test_one_malformed_body_then_a_good_one_succeeds(fake_provider: FakeProvider) -> None:
    """A body cut short once does not fail the result."""
    fake_provider.script(Scripted(body=b'{"content": [{"type": "te'), Scripted("{}"))
    async with client_for(fake_provider, "anthropic") as client:
        reply = await client.complete(ask(), deadline_s=5)
    assert reply.text == "{}"


async def test_unknown_model_is_rejected_without_a_request(fake_provider: FakeProvider) -> None:
    """A model missing from the configuration is named in the reason."""
    async with client_for(fake_provider) as client:
        with pytest.raises(JudgeRejected) as caught:
            await client.complete(ask(model="gpt-9"), deadline_s=5)
    assert caught.value.reason == "No judge is configured for model 'gpt-9'."
    assert fake_provider.requests == []


async def test_missing_key_variable_is_rejected_without_a_request(
    fake_provider: FakeProvider,
) -> None:
    """The reason names the variable, never a value."""
    async with client_for(fake_provider, api_key_env="OTHER_KEY") as client:
        with pytest.raises(JudgeRejected) as caught:
            await client.complete(ask(), deadline_s=5)
    assert caught.value.reason == "The judge's key variable OTHER_KEY is not set."
    assert fake_provider.requests == []


async def test_no_key_or_prompt_in_reasons_or_logs(
    fake_provider: FakeProvider, caplog: pytest.LogCaptureFixture
) -> None:
    """Whatever fails, reasons and logs hold neither the key nor the prompt or reply."""
    caplog.set_level(logging.DEBUG)
    fake_provider.script(
        Scripted(status=503),
        Scripted(body=b"secret reply"),
        Scripted(body=b"secret reply"),
        Scripted(status=429, headers={"Retry-After": "60"}),
        Scripted(status=403),
        Scripted(delay_s=60),
        Scripted(delay_s=60),
    )
    reasons = []
    # An attempt's timeout far above a loaded machine's answer time, yet below the delays:
    # every scripted answer lands on the call it was written for.
    async with client_for(fake_provider, api_key_env="JUDGE_KEY", timeout_s=2) as client:
        for deadline_s in (10, 10, 10, 3):
            with pytest.raises((JudgeUnavailable, JudgeRejected)) as caught:
                await client.complete(ask(), deadline_s=deadline_s)
            reasons.append(caught.value.reason)
    assert len(set(reasons)) == 4
    for text in [*reasons, caplog.text]:
        assert KEY not in text
        assert "Grade this turn" not in text and "secret reply" not in text


async def test_concurrency_is_bounded_per_endpoint(fake_provider: FakeProvider) -> None:
    """20 calls at once with ``max_concurrency=3``: never more than 3 in flight."""
    fake_provider.script([Scripted("{}", delay_s=0.2)] * 20)
    async with client_for(fake_provider, max_concurrency=3) as client:
        replies = await asyncio.gather(*(client.complete(ask(), deadline_s=10) for _ in range(20)))
    assert len(replies) == 20
    assert fake_provider.max_in_flight == 3


async def test_waiting_for_a_slot_counts_against_the_deadline(fake_provider: FakeProvider) -> None:
    """A call that never gets a slot before its deadline is unavailable."""
    fake_provider.script(Scripted("{}", delay_s=0.6))
    async with client_for(fake_provider, max_concurrency=1) as client:
        first = asyncio.create_task(client.complete(ask(), deadline_s=5))
        await asyncio.sleep(0.05)
        with pytest.raises(JudgeUnavailable) as caught:
            await client.complete(ask(), deadline_s=0.2)
        assert (await first).text == "{}"
    assert caught.value.reason.endswith("(last: no free slot).")
    assert len(fake_provider.requests) == 1


async def test_client_reopens_after_aclose(fake_provider: FakeProvider) -> None:
    """``aclose`` is not final: the next call opens a new pool (close it again after)."""
    client = client_for(fake_provider)
    await client.complete(ask(), deadline_s=5)
    await client.aclose()
    await client.complete(ask(), deadline_s=5)
    await client.aclose()
    await client.aclose()
    assert len(fake_provider.requests) == 2


@pytest.mark.parametrize(
    ("provider", "status", "body", "said"),
    [
        ("openai", 429, OPENAI_RATE_LIMIT, "HTTP 429 rate_limit_exceeded"),
        ("anthropic", 429, ANTHROPIC_RATE_LIMIT, "HTTP 429 rate_limit_error"),
        ("anthropic", 529, ANTHROPIC_OVERLOADED, "HTTP 529 overloaded_error"),
    ],
)
async def test_a_judge_asking_to_retry_at_once_forever_is_asked_only_the_attempts(
    fake_provider: FakeProvider,
    caplog: pytest.LogCaptureFixture,
    provider: str,
    status: int,
    body: bytes,
    said: str,
) -> None:
    """Every answer a rate limit or an overload with ``Retry-After: 0``: ``attempts``
    requests, one log line each, then JudgeUnavailable naming the status and error type."""
    caplog.set_level(logging.DEBUG, logger="turncheck")
    fake_provider.script([Scripted(status=status, headers={"Retry-After": "0"}, body=body)] * 1000)
    retry = JudgeRetry(attempts=5, min_wait_s=0.01)
    async with client_for(fake_provider, provider, retry=retry) as client:
        with pytest.raises(JudgeUnavailable) as caught:
            await client.complete(ask(), deadline_s=20)
    assert len(fake_provider.requests) == 5
    assert caught.value.reason == f"The judge did not answer in 5 attempts (last: {said})."
    assert len([r for r in caplog.records if r.name.startswith("turncheck")]) == 5
    for words in MESSAGE_WORDS:
        assert words not in caplog.text


async def test_retry_after_0_still_waits_the_floor(fake_provider: FakeProvider) -> None:
    """A judge asking to be asked again at once still gets ``min_wait_s`` between requests."""
    limited = Scripted(status=429, headers={"Retry-After": "0"}, body=OPENAI_RATE_LIMIT)
    fake_provider.script(limited, limited, Scripted("{}"))
    async with client_for(fake_provider, retry=JudgeRetry(min_wait_s=0.3)) as client:
        started = time.monotonic()
        reply = await client.complete(ask(), deadline_s=30)
        waited = time.monotonic() - started
    assert (reply.text, len(fake_provider.requests)) == ("{}", 3)
    assert waited >= 0.6  # two floors; a loaded machine only adds to it


@pytest.mark.parametrize(
    ("provider", "body", "code"),
    [
        ("openai", OPENAI_QUOTA, "insufficient_quota"),
        ("openai", OPENAI_PROJECT_SPEND_LIMIT, "project_spend_limit_exceeded"),
        ("anthropic", ANTHROPIC_SPEND_LIMIT, "enforced_spend_limit_reached"),
    ],
)
async def test_a_429_for_an_exhausted_quota_is_not_retried(
    fake_provider: FakeProvider,
    caplog: pytest.LogCaptureFixture,
    provider: str,
    body: bytes,
    code: str,
) -> None:
    """A quota or spend limit clears only when a person acts: one request, JudgeRejected
    naming the status and the provider's code, never its message."""
    caplog.set_level(logging.DEBUG)
    fake_provider.script([Scripted(status=429, headers={"Retry-After": "0"}, body=body)] * 100)
    async with client_for(fake_provider, provider) as client:
        with pytest.raises(JudgeRejected) as caught:
            await client.complete(ask(), deadline_s=20)
    assert len(fake_provider.requests) == 1
    assert (
        caught.value.reason == f"The judge's quota or spend limit is exhausted (HTTP 429 {code})."
    )
    for words in MESSAGE_WORDS:
        assert words not in caplog.text


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (ANTHROPIC_CREDIT_TOO_LOW, "HTTP 400 invalid_request_error"),
        (b'{"error": {"type": "Grade this turn", "code": "sk-test-do-not-leak-4242"}}', "HTTP 400"),
        (b"[" * 100_000, "HTTP 400"),
    ],
    ids=["anthropic-credit", "unknown-names", "not-json"],
)
async def test_a_refused_request_names_a_known_error_type_and_nothing_else(
    fake_provider: FakeProvider, body: bytes, said: str
) -> None:
    """The reason names the provider's error type when it is one the providers document;
    any other name in the body might quote a prompt or a key and is left out."""
    fake_provider.script(Scripted(status=400, body=body))
    async with client_for(fake_provider, "anthropic") as client:
        with pytest.raises(JudgeRejected) as caught:
            await client.complete(ask(), deadline_s=5)
    assert caught.value.reason == f"The judge refused the request ({said})."
    assert len(fake_provider.requests) == 1


def test_the_backoff_after_any_number_of_attempts_stays_under_its_ceiling() -> None:
    """Doubling never overflows: attempt 10,000 waits at most ``max_backoff_s``."""
    retry = JudgeRetry(first_backoff_s=0.5, max_backoff_s=8.0)
    for attempt in (1, 2, 5, 1024, 1025, 10_000, 10**9):
        assert 0.25 <= retry.backoff_s(attempt) <= 8.0
