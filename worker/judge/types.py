"""What passes between a judged check and a judge model, whatever the provider.

The client raises ``JudgeError`` (``worker/errors.py``); its ``reason`` is safe
to store: it names what went wrong, never text of the turn, the prompt or the reply.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True, slots=True)
class Usage:
    input_tokens: int
    output_tokens: int

    def as_dict(self) -> dict[str, int]:
        return {"input_tokens": self.input_tokens, "output_tokens": self.output_tokens}


@dataclass(frozen=True, slots=True)
class TokenLogprob:
    """One generated token: its text, log-probability and offset in the reply text."""

    token: str
    logprob: float
    offset: int


@dataclass(frozen=True, slots=True)
class JudgeRequest:
    model: str
    """The judge model's name as configured in ``TURNCHECK_JUDGES``."""
    system: str
    user: str
    want_logprobs: bool = False
    max_tokens: int = 400
    # The check's own schema, shared by its requests; a dict, so left out of eq and hash.
    reply_schema: Mapping[str, object] | None = field(default=None, compare=False)
    """The JSON schema of the asked reply, sent where the endpoint takes structured output."""


@dataclass(frozen=True, slots=True)
class JudgeReply:
    text: str
    usage: Usage
    logprobs: tuple[TokenLogprob, ...] | None = None
    """Per-token log-probabilities where the provider returns them; else None."""


@dataclass(frozen=True, slots=True)
class JudgeRefusal:
    """The judge declined to answer (OpenAI's ``message.refusal``). Its words are not kept:
    they may quote the turn."""


REFUSED_REASON = "The judge refused to judge this turn."


class JudgeClient(Protocol):
    async def complete(self, request: JudgeRequest, *, deadline_s: float) -> JudgeReply:
        """Ask the judge; retry within ``deadline_s`` (seconds from now); raise ``JudgeError``.

        Unknown models raise ``JudgeRejected``. Bounded concurrency per endpoint.
        """
        ...
