"""The Anthropic Messages API wire format.

Pure functions, no I/O: ``request`` builds what to POST, ``parse`` reads a 2xx
body. ``parse`` returns None when the body is not a message with text, and the
caller decides what that means; it never raises on foreign input.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from turncheck.worker.judge.config import JudgeEndpoint
from turncheck.worker.judge.types import JudgeReply, JudgeRequest, Usage

API_VERSION = "2023-06-01"


def request(
    name: str, endpoint: JudgeEndpoint, judge_request: JudgeRequest, key: str | None
) -> tuple[str, dict[str, str], dict[str, Any]]:
    """The URL, headers and JSON body of one message."""
    headers = {"anthropic-version": API_VERSION}
    if key is not None:
        headers["x-api-key"] = key
    body: dict[str, Any] = {
        "model": endpoint.model or name,
        "system": judge_request.system,
        "messages": [{"role": "user", "content": judge_request.user}],
        "max_tokens": judge_request.max_tokens,
        "temperature": 0,
    }
    return f"{endpoint.base_url.rstrip('/')}/v1/messages", headers, body


class _Block(BaseModel):
    type: str
    text: str | None = None


class _Usage(BaseModel):
    input_tokens: int = 0
    output_tokens: int = 0


class _Message(BaseModel):
    content: list[_Block]
    usage: _Usage | None = None


def parse(body: bytes) -> JudgeReply | None:
    """The concatenated text blocks, or None if ``body`` is not a message with text.

    The Messages API gives no logprobs, so ``logprobs`` is always None.
    """
    try:
        message = _Message.model_validate_json(body)
    except ValidationError:
        return None
    texts = [
        block.text for block in message.content if block.type == "text" and block.text is not None
    ]
    if not texts:
        return None
    usage = message.usage or _Usage()
    return JudgeReply(
        text="".join(texts),
        usage=Usage(input_tokens=usage.input_tokens, output_tokens=usage.output_tokens),
    )
