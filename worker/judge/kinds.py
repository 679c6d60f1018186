"""The judged check kinds, ``judge`` and ``rubric``: compile once, then for each turn
build the judge's request and read its reply into a decision.

``request`` and ``decide`` are pure: no I/O, no clock. Compiling reads an overridden
template file, once. Asking the judge is the caller's part (``JudgeClient``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from turncheck.schemas.agent_versions import EVERY_VERSION, VersionScope
from turncheck.schemas.judged import JudgeCheck, RubricCheck
from turncheck.worker.checks.result import CheckId, IdentifiedCheck
from turncheck.worker.judge.prompts import Prompt, judge_prompt, rubric_prompt
from turncheck.worker.judge.replies import (
    JudgedDecision,
    RubricAnswer,
    RubricForm,
    judge_schema,
    read_judge,
    read_rubric,
)
from turncheck.worker.judge.types import JudgeReply, JudgeRequest
from turncheck.worker.turns.structs import Turn

__all__ = ["CompiledJudged", "JudgedDecision", "RubricAnswer", "compile_judged"]

JUDGE_MAX_TOKENS = 400
RUBRIC_BASE_TOKENS = 200
RUBRIC_TOKENS_PER_QUESTION = 60


@dataclass(frozen=True, slots=True)
class CompiledJudged(IdentifiedCheck):
    id: CheckId
    sample_rate: float
    on_error: str
    judge_model: str | None
    """The check's own judge model; None: the turn's model."""
    prompt: Prompt = field(repr=False, compare=False)
    read: Callable[[JudgeReply], JudgedDecision] = field(repr=False, compare=False)
    max_tokens: int = JUDGE_MAX_TOKENS
    reply_schema: Mapping[str, object] | None = field(default=None, repr=False, compare=False)
    """The JSON schema ``read`` accepts, for judges that take structured output."""
    scope: VersionScope = EVERY_VERSION
    """The agent versions whose turns it judges (``CheckSet.judged_for_agent``)."""

    def request(self, turn: Turn, model: str) -> JudgeRequest:
        """What to ask ``model`` about ``turn``; the same turn gives the same request.

        Raises ``PromptError`` only if an overridden template fails on this turn
        though it rendered at compile time; the shipped templates do not.
        """
        system, user = self.prompt.render(turn)
        return JudgeRequest(
            model=model,
            system=system,
            user=user,
            want_logprobs=True,
            max_tokens=self.max_tokens,
            reply_schema=self.reply_schema,
        )

    def decide(self, reply: JudgeReply) -> JudgedDecision:
        """Never raises: a reply that does not parse is ``errored``, never passed."""
        return self.read(reply)


def compile_judged(
    definition: JudgeCheck | RubricCheck, version: str, base_dir: Path | None = None
) -> CompiledJudged:
    """Raises ``PromptError`` when the check's template cannot be loaded or rendered.

    ``base_dir``: where a relative ``template`` path is looked up (the check file's
    folder); None: the working directory.
    """
    read: Callable[[JudgeReply], JudgedDecision]
    if isinstance(definition, JudgeCheck):
        prompt = judge_prompt(definition, base_dir)
        read, max_tokens, schema = read_judge, JUDGE_MAX_TOKENS, judge_schema()
    else:
        prompt = rubric_prompt(definition, base_dir)
        form = RubricForm.of(definition)
        read, schema = functools.partial(read_rubric, form), form.schema()
        max_tokens = RUBRIC_BASE_TOKENS + RUBRIC_TOKENS_PER_QUESTION * len(definition.questions)
    return CompiledJudged(
        id=CheckId(definition.name, version, definition.kind, definition.stage, definition.mode),
        sample_rate=definition.sample_rate,
        on_error=definition.on_error,
        judge_model=definition.judge_model,
        prompt=prompt,
        read=read,
        max_tokens=max_tokens,
        reply_schema=schema,
    )
