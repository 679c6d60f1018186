"""Judged check definitions: a judge model decides, on every turn or on a sample.

``judge`` asks one question (a built-in criterion, or the check's own rule of
good and bad criteria); ``rubric`` asks several typed questions over named
fields of the turn and maps one of them to the verdict. A rule's items and a
question's text may name prompt variables with ``@@{name}`` (``placeholders``).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from turncheck.schemas.checkbase import BaseCheck
from turncheck.schemas.placeholders import well_formed

Criterion = Literal[
    "correct_format", "polite_tone", "no_made_up_facts", "no_unsupported_action_claims"
]

RubricField = Literal[
    "last_user_message",
    "answer",
    "conversation",
    "sources",
    "tool_results",
    "instructions",
    "input",
]
"""What a rubric may show the judge. ``instructions`` and ``tool_results`` are
never shown unless a rubric names them."""

Text = Annotated[str, Field(min_length=1)]
AuthorText = Annotated[str, Field(min_length=1), AfterValidator(well_formed)]
"""A text the check's author wrote for the judge: it may hold ``@@{name}`` placeholders."""

MAX_EXCHANGES = 20


class _Judged(BaseCheck):
    sample_rate: float = Field(
        default=0.1, ge=0, le=1, description="Background only: the share of turns judged."
    )
    on_error: Literal["block", "pass"] = Field(
        default="block",
        description="What a live system does when the judge cannot decide; stored errored anyway.",
    )
    judge_model: str | None = Field(
        default=None, description="The judge's model; else the turn's own model."
    )
    template: str | None = Field(
        default=None, description="A jinja2 template file that replaces the shipped prompt."
    )

    @model_validator(mode="after")
    def _background_is_output(self) -> _Judged:
        if self.mode == "background" and self.stage != "output":
            raise ValueError("only output checks can run in the background")
        return self


class JudgeRule(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    good: list[AuthorText] = Field(default_factory=list, description="What every reply must do.")
    bad: list[AuthorText] = Field(default_factory=list, description="What no reply may do.")

    @model_validator(mode="after")
    def _not_empty(self) -> JudgeRule:
        if not self.good and not self.bad:
            raise ValueError("a rule needs at least one good or bad criterion")
        return self


class JudgeContext(BaseModel):
    """What an output ``judge`` reads beside the last user message and the answer.
    Written at all, it takes seed 000's AI review defaults: three exchanges and the
    tool results."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    exchanges: int = Field(
        default=3,
        ge=0,
        le=MAX_EXCHANGES,
        description="How many exchanges (a user message and the agent's reply to it) before "
        "the last user message the judge reads, latest last.",
    )
    tool_results: bool = Field(
        default=True,
        description="Whether the judge reads this turn's tool calls, by name, and their "
        "results; never the calls' arguments.",
    )


class JudgeCheck(_Judged):
    kind: Literal["judge"]
    criteria: Criterion | None = None
    rule: JudgeRule | None = None
    context: JudgeContext | None = Field(
        default=None,
        description="Output only. Left out: the judge reads the last user message and the "
        "answer alone.",
    )

    @field_validator("context")
    @classmethod
    def _context_on_output(
        cls, value: JudgeContext | None, info: ValidationInfo
    ) -> JudgeContext | None:
        if value is None:
            return value
        if info.data.get("stage") == "input":
            raise ValueError(
                "context is for output checks: an input check judges what the caller sent,"
                " before any answer"
            )
        if info.data.get("criteria") == "no_unsupported_action_claims" and not value.tool_results:
            raise ValueError("no_unsupported_action_claims reads the tool results; leave them on")
        return value

    @model_validator(mode="after")
    def _one_question(self) -> JudgeCheck:
        if (self.criteria is None) == (self.rule is None):
            raise ValueError("a judge check needs exactly one of 'criteria' and 'rule'")
        return self


class RubricQuestion(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]{0,63}$")]
    type: Literal["yes_no", "scale", "choice"]
    text: AuthorText
    labels: list[Text] = Field(
        default_factory=list,
        description="scale: ordered worst to best; choice: the options. yes_no: none.",
    )

    @model_validator(mode="after")
    def _labels_fit(self) -> RubricQuestion:
        if self.type == "yes_no" and self.labels:
            raise ValueError("a yes_no question has no labels")
        if self.type != "yes_no" and len(self.labels) < 2:
            raise ValueError(f"a {self.type} question needs at least two labels")
        if len(set(self.labels)) != len(self.labels):
            raise ValueError("labels must be distinct")
        return self

    @property
    def answers(self) -> list[str]:
        return ["yes", "no"] if self.type == "yes_no" else list(self.labels)


class RubricVerdict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    question: str
    passing: list[Text] = Field(min_length=1, description="Answers that make the result pass.")


def _default_fields() -> list[RubricField]:
    return ["last_user_message", "answer"]


class RubricCheck(_Judged):
    kind: Literal["rubric"]
    fields: list[RubricField] = Field(default_factory=_default_fields, min_length=1)
    questions: list[RubricQuestion] = Field(min_length=1)
    verdict: RubricVerdict

    @model_validator(mode="after")
    def _verdict_names_a_question(self) -> RubricCheck:
        ids = [q.id for q in self.questions]
        if len(set(ids)) != len(ids):
            raise ValueError("question ids must be distinct")
        by_id = {q.id: q for q in self.questions}
        question = by_id.get(self.verdict.question)
        if question is None:
            raise ValueError(f"verdict.question {self.verdict.question!r} is not a question id")
        unknown = [a for a in self.verdict.passing if a not in question.answers]
        if unknown:
            raise ValueError(f"verdict.passing holds answers the question cannot give: {unknown}")
        return self
