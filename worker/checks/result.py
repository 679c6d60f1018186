"""What a check decides about a turn."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

MAX_SPANS = 100
"""Spans kept per result: where a check matched first. A hostile turn can match
thousands of times; the verdict needs one, and a person reads a few."""


class Verdict(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    ERRORED = "errored"
    """The check could not decide; never counted as passed."""


@dataclass(frozen=True, slots=True)
class Span:
    """Where a check matched, as offsets into the field it read; never the text itself."""

    field: str
    start: int
    end: int
    label: str

    def as_dict(self) -> dict[str, str | int]:
        return {"field": self.field, "start": self.start, "end": self.end, "label": self.label}


@dataclass(frozen=True, slots=True)
class Outcome:
    """A check kind's answer for one turn, before it is tied to a check's name and version."""

    verdict: Verdict
    reason: str | None = None
    spans: tuple[Span, ...] = ()
    score: float | None = None
    parts: tuple[tuple[str, Verdict], ...] = ()
    """Verdicts of the parts a check is made of (a sensitive_data check's detectors)."""

    @classmethod
    def errored(cls, reason: str) -> Outcome:
        return cls(Verdict.ERRORED, reason)


PASSED = Outcome(Verdict.PASSED)


@dataclass(frozen=True, slots=True)
class CheckId:
    """What names a check wherever its results go (rows, events, pass rates): rule and
    judged checks alike. ``version`` is a digest of the definition, so an edited check
    starts new results beside the old ones."""

    name: str
    version: str
    kind: str
    stage: str
    mode: str


class IdentifiedCheck:
    """A compiled check of any kind: it answers to its ``id``'s name and mode."""

    __slots__ = ()
    id: CheckId

    @property
    def name(self) -> str:
        return self.id.name

    @property
    def mode(self) -> str:
        return self.id.mode


@dataclass(frozen=True, slots=True)
class CheckResult:
    """One check's result for one turn: the unit that is stored, counted and evented."""

    check: CheckId
    verdict: Verdict
    reason: str | None = None
    score: float | None = None
    spans: tuple[Span, ...] = field(default=())
    usage: dict[str, int] | None = None
    """A judge's token use: ``{"input_tokens": …, "output_tokens": …}``."""
    answers: dict[str, dict[str, object]] | None = None
    """A rubric's answers: ``{question: {"answer": …, "probability": float | None}}``."""
    parts: tuple[tuple[str, Verdict], ...] = ()

    @classmethod
    def of(
        cls,
        check: CheckId,
        outcome: Outcome,
        usage: dict[str, int] | None = None,
        answers: dict[str, dict[str, object]] | None = None,
    ) -> CheckResult:
        return cls(
            check=check,
            verdict=outcome.verdict,
            reason=outcome.reason,
            score=outcome.score,
            spans=outcome.spans[:MAX_SPANS],
            usage=usage,
            answers=answers,
            parts=outcome.parts,
        )

    def as_dict(self) -> dict[str, object]:
        data: dict[str, object] = {
            "check": self.check.name,
            "check_version": self.check.version,
            "verdict": self.verdict.value,
            "reason": self.reason,
            "score": self.score,
            "spans": [span.as_dict() for span in self.spans],
        }
        if self.usage is not None:
            data["usage"] = self.usage
        if self.answers is not None:
            data["answers"] = self.answers
        if self.parts:
            data["detectors"] = {name: verdict.value for name, verdict in self.parts}
        return data
