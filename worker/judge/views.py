"""What the judge reads of a turn: the one place that decides it.

* ``judge`` on ``stage: output``: the last user message (the last user entry of
  ``input.messages``, else of ``history``, else none) and the answer.
* ``judge`` on ``stage: input``: the caller's text (``input.messages``,
  ``input.transcript``, string ``input.prompt_variables``).
* ``rubric``: exactly the fields it names (``FIELD_VIEWS``).

Never the agent's instructions, its tool calls and results, its knowledge or the
rest of the history, unless a rubric names them. Tool call arguments are never
shown: a tool result carries only its tool's name.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from turncheck.schemas.judged import RubricField
from turncheck.worker.checks.texts import stage_texts
from turncheck.worker.turns.structs import Turn


@dataclass(frozen=True, slots=True)
class Message:
    role: str
    name: str | None
    content: str


@dataclass(frozen=True, slots=True)
class Source:
    kind: str
    """``knowledge`` or ``tool_result``."""
    name: str | None
    content: str


@dataclass(frozen=True, slots=True)
class CallerText:
    field: str
    """Where the text is in the turn, e.g. ``input.messages[0].content``."""
    text: str


def last_user_message(turn: Turn) -> str | None:
    for message in reversed(turn.input.messages):
        if message.role == "user":
            return message.content
    for entry in reversed(turn.history):
        if entry.role == "user":
            return entry.content
    return None


def caller_texts(turn: Turn) -> list[CallerText]:
    return [CallerText(f, t) for f, t in stage_texts(turn, "input", with_rounds=False)]


def conversation(turn: Turn) -> list[Message]:
    """The history, then this turn's messages: latest last. Not the answer."""
    earlier = [Message(m.role, m.name, m.content) for m in turn.history]
    return earlier + [Message(m.role, None, m.content) for m in turn.input.messages]


def tool_results(turn: Turn) -> list[Source]:
    names = {call.id: call.name for round_ in turn.rounds for call in round_.tool_calls}
    return [
        Source("tool_result", result.name or names.get(result.call_id), _as_text(result.content))
        for round_ in turn.rounds
        for result in round_.tool_results
    ]


def sources(turn: Turn) -> list[Source]:
    """Knowledge passages, then tool results."""
    knowledge = [Source("knowledge", p.source, p.content) for p in turn.knowledge]
    return knowledge + tool_results(turn)


FIELD_VIEWS: dict[RubricField, Callable[[Turn], object]] = {
    "last_user_message": last_user_message,
    "answer": lambda turn: turn.output.text,
    "conversation": conversation,
    "sources": sources,
    "tool_results": tool_results,
    "instructions": lambda turn: turn.instructions,
    "input": caller_texts,
}


def judge_view(turn: Turn, stage: str) -> dict[str, object]:
    """A ``judge`` check's view: on output the last user message and the answer; on
    input the caller's text."""
    if stage == "output":
        return {"last_user_message": last_user_message(turn), "answer": turn.output.text}
    return {"caller": caller_texts(turn)}


def _as_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return json.dumps(content, ensure_ascii=False, sort_keys=True, default=str)
