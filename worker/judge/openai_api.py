"""The OpenAI-compatible chat-completions wire format (OpenAI, vLLM, Ollama, llama.cpp, gateways).

Pure functions, no I/O: ``request`` builds what to POST, ``parse`` reads a 2xx
body. ``parse`` returns None when the body is not a chat completion and
``JudgeRefusal`` when the model declined (``content`` null, ``refusal`` set), and
the caller decides what that means; it never raises on foreign input.

A reasoning model (o-series, gpt-5; ``JudgeEndpoint.is_reasoning``) answers 400 to
``max_tokens``, to a ``temperature`` other than 1 and to logprobs: it is sent
``max_completion_tokens`` (the reply plus the endpoint's ``reasoning_tokens``, since
its thinking counts against the cap) and no sampling or logprob parameters. With
structured output the reply's JSON schema is sent (``json_schema``, strict); else
JSON mode (``json_object``), which needs the word JSON in the messages.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from turncheck.worker.judge.config import JudgeEndpoint
from turncheck.worker.judge.types import (
    JudgeRefusal,
    JudgeReply,
    JudgeRequest,
    TokenLogprob,
    Usage,
)

SCHEMA_NAME = "judge_reply"


def request(
    name: str, endpoint: JudgeEndpoint, judge_request: JudgeRequest, key: str | None
) -> tuple[str, dict[str, str], dict[str, Any]]:
    """The URL, headers and JSON body of one chat completion."""
    headers = {"Authorization": f"Bearer {key}"} if key is not None else {}
    body: dict[str, Any] = {
        "model": endpoint.model or name,
        "messages": [
            {"role": "system", "content": judge_request.system},
            {"role": "user", "content": judge_request.user},
        ],
    }
    if endpoint.is_reasoning(name):
        body["max_completion_tokens"] = judge_request.max_tokens + endpoint.reasoning_tokens
    else:
        body["max_tokens"] = judge_request.max_tokens
        body["temperature"] = 0
        if judge_request.want_logprobs:
            body["logprobs"] = True
            body["top_logprobs"] = 1
    schema = judge_request.reply_schema
    if endpoint.uses_structured_output(name) and schema is not None:
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": SCHEMA_NAME, "strict": True, "schema": dict(schema)},
        }
    else:
        body["response_format"] = {"type": "json_object"}
    return f"{endpoint.base_url.rstrip('/')}/chat/completions", headers, body


class _Token(BaseModel):
    token: str
    logprob: float


class _Logprobs(BaseModel):
    content: list[_Token] | None = None


class _Message(BaseModel):
    content: str | None = None
    refusal: str | None = None


class _Choice(BaseModel):
    message: _Message
    logprobs: _Logprobs | None = None


class _Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0


class _Completion(BaseModel):
    choices: list[_Choice]
    # Some local servers omit usage; a good answer is not thrown away for it.
    usage: _Usage | None = None


def parse(body: bytes) -> JudgeReply | JudgeRefusal | None:
    """The reply of ``choices[0]``, ``JudgeRefusal`` if the model declined, or None if
    ``body`` is not a chat completion.

    Logprob offsets are cumulative character offsets of the tokens into the
    reply text; logprobs are None when the server returned none.
    """
    try:
        completion = _Completion.model_validate_json(body)
    except ValidationError:
        return None
    if not completion.choices:
        return None
    choice = completion.choices[0]
    if choice.message.content is None:
        # A refusal is the model's answer, not a body cut short: asking again pays again.
        return JudgeRefusal() if choice.message.refusal else None
    usage = completion.usage or _Usage()
    logprobs: tuple[TokenLogprob, ...] | None = None
    if choice.logprobs is not None and choice.logprobs.content is not None:
        offset, tokens = 0, []
        for item in choice.logprobs.content:
            tokens.append(TokenLogprob(token=item.token, logprob=item.logprob, offset=offset))
            offset += len(item.token)
        logprobs = tuple(tokens)
    return JudgeReply(
        text=choice.message.content,
        usage=Usage(input_tokens=usage.prompt_tokens, output_tokens=usage.completion_tokens),
        logprobs=logprobs,
    )
