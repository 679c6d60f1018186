"""The API's response bodies: pydantic models, so /openapi.json documents each one.

Built from the store's plain values by the ``of`` class methods; none has a field
for text of a turn, and a person appears only as the erasure ledger's keyed hash.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from pydantic import BaseModel, Field

from turncheck.schemas.checkbase import Rollout
from turncheck.schemas.label import LabelName, Note
from turncheck.worker.retention.erasure import ErasureReceipt
from turncheck.worker.runtime.links import link_of
from turncheck.worker.store.alerts import HistoryRow
from turncheck.worker.store.labels import StoredLabel
from turncheck.worker.store.views import PassRate, StoredResult

VerdictName = Literal["passed", "failed", "errored"]
ROLLOUT = (
    "`shadow`: a check being watched before it counts; its results are stored and counted, "
    "but raise no alert and emit no event or webhook. `live` otherwise."
)


class ErrorBody(BaseModel):
    error: str = Field(description="What is wrong, naming the parameter or the service.")


class PassRateOut(BaseModel):
    check: str
    agent_id: str
    bucket_start: datetime | None = Field(
        description="Start of the hour or UTC day; null without `bucket`."
    )
    passed: int
    failed: int
    errored: int
    total: int
    pass_rate: float | None = Field(description="passed / total; errored counts against it.")
    judge_input_tokens: int
    judge_output_tokens: int
    rollout: Rollout = Field(default="live", description=ROLLOUT)
    check_version: str | None = Field(
        default=None, description="The check version counted; null unless split by it."
    )
    agent_version: str | None = Field(
        default=None, description="The agent version counted; null unless split by it."
    )
    check_versions: list[str] = Field(
        default_factory=list,
        description="Every check version counted, oldest first; `unknown` for counts kept "
        "before rollups had check versions.",
    )
    agent_versions: list[str] = Field(
        default_factory=list, description="Every agent version counted."
    )
    mixed_versions: bool = Field(
        default=False, description="True when more than one check version is counted."
    )
    labelled_failures: int = Field(description="Failures a person labelled.")
    false_alarms: int = Field(
        description="Failures labelled false alarms; with `exclude_false_alarms` they are "
        "counted in `passed`, not `failed`."
    )
    confirmed: int = Field(description="Failures labelled confirmed.")
    precision: float | None = Field(
        description="confirmed / labelled_failures; null with no labelled failure."
    )

    @classmethod
    def of(
        cls, rate: PassRate, bucket_start: datetime | None = None, rollout: Rollout = "live"
    ) -> PassRateOut:
        return cls(
            rollout=rollout,
            check=rate.check,
            agent_id=rate.agent_id,
            bucket_start=bucket_start,
            passed=rate.passed,
            failed=rate.failed,
            errored=rate.errored,
            total=rate.total,
            pass_rate=rate.pass_rate,
            judge_input_tokens=rate.judge_input_tokens,
            judge_output_tokens=rate.judge_output_tokens,
            check_version=rate.check_version,
            agent_version=rate.agent_version,
            check_versions=list(rate.check_versions),
            agent_versions=list(rate.agent_versions),
            mixed_versions=rate.mixed_versions,
            labelled_failures=rate.labelled_failures,
            false_alarms=rate.false_alarms,
            confirmed=rate.confirmed,
            precision=rate.precision,
        )


class PassRatesOut(BaseModel):
    since: datetime
    until: datetime | None
    bucket: Literal["hour", "day"] | None
    split: Literal["none", "check_version", "agent_version", "both"] = "none"
    exclude_false_alarms: bool = Field(
        description="Whether failures labelled false alarms were counted as passed."
    )
    rates: list[PassRateOut]


class SpanOut(BaseModel):
    """Where a check matched, as offsets; the matched text is never stored."""

    field: str
    start: int
    end: int
    label: str


class ResultOut(BaseModel):
    turn_id: str
    thread_id: str | None
    agent_id: str
    agent_version: str
    check: str
    check_version: str
    kind: str
    stage: str
    mode: str
    verdict: VerdictName
    score: float | None
    reason: str | None = Field(
        description="A rule check's reason names a kind of finding, never the finding; a "
        "judged check's reason is the judge's own sentence."
    )
    spans: list[SpanOut]
    checked_at: datetime = Field(description="When the result was stored.")
    turn_created_at: datetime = Field(
        description="When the turn ended: the time results are ordered and filtered by."
    )
    label: LabelName | None = Field(
        default=None, description="A person's label of this result (a failure), if any."
    )
    rollout: Rollout = Field(default="live", description=ROLLOUT)
    turn_url: str | None = Field(
        default=None,
        description="The turn's page on the chat platform (TURNCHECK_TURN_URL); null "
        "without it, or when it needs a thread and the turn has none.",
    )

    @classmethod
    def of(
        cls,
        row: StoredResult,
        *,
        label: StoredLabel | None = None,
        rollout: Rollout = "live",
        turn_url: str | None = None,
    ) -> ResultOut:
        """``turn_url`` is the TURNCHECK_TURN_URL template the link is made with."""
        return cls(
            rollout=rollout,
            turn_id=row.turn_id,
            thread_id=row.thread_id,
            agent_id=row.agent_id,
            agent_version=row.agent_version,
            check=row.check,
            check_version=row.check_version,
            kind=row.kind,
            stage=row.stage,
            mode=row.mode,
            verdict=row.verdict,
            score=row.score,
            reason=row.reason,
            spans=[SpanOut.model_validate(span) for span in row.spans],
            checked_at=row.checked_at,
            turn_created_at=row.turn_created_at,
            label=label.label if label else None,
            turn_url=link_of(turn_url, row),
        )


class TurnResultOut(ResultOut):
    """A result in its turn's own view, with the label's note: free text a person wrote,
    shown where one turn is looked at, left out of a check's pages of results."""

    label_note: str | None = Field(default=None, description="The label's note, if any.")

    @classmethod
    def of(
        cls,
        row: StoredResult,
        *,
        label: StoredLabel | None = None,
        rollout: Rollout = "live",
        turn_url: str | None = None,
    ) -> TurnResultOut:
        shown = ResultOut.of(row, label=label, rollout=rollout, turn_url=turn_url).model_dump()
        return cls(**shown, label_note=label.note if label else None)


class LabelIn(BaseModel):
    label: LabelName
    note: Note | None = Field(default=None, description="At most 1000 characters, no NUL.")


class LabelOut(BaseModel):
    turn_id: str
    check: str
    check_version: str = Field(description="The version of the result labelled: its newest.")
    agent_id: str
    label: LabelName
    note: str | None
    labelled_at: datetime

    @classmethod
    def of(cls, label: StoredLabel) -> LabelOut:
        return cls.model_validate(label, from_attributes=True)


class LabelClearedOut(BaseModel):
    turn_id: str
    check: str
    cleared: bool = Field(description="Whether the result had a label.")


class ResultsPage(BaseModel):
    results: list[ResultOut] = Field(
        description="Newest turn first (turn_created_at, then storage order)."
    )
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page; null: last.")
    next: str | None = Field(description="The next page's path and query; null on the last page.")


class TurnResultsOut(BaseModel):
    turn_id: str
    results: list[TurnResultOut]


class AlertOut(BaseModel):
    day: date
    kind: Literal["check", "digest"]
    check: str
    agent_id: str
    channel: str
    status: Literal["pending", "sent", "failed"]
    attempts: int
    last_error: str | None
    sent_at: datetime | None
    suppressed: int = Field(description="Crossings that day after the alert was raised.")

    @classmethod
    def of(cls, row: HistoryRow) -> AlertOut:
        return cls.model_validate(row, from_attributes=True)


class AlertsOut(BaseModel):
    since: date
    alerts: list[AlertOut]


class Deleted(BaseModel):
    results: int
    pending_judgements: int
    events: int = Field(description="Unsent events of the person's turns.")
    labels: int = Field(description="Labels of the person's results.")


class ErasureOut(BaseModel):
    person_key: str = Field(description="The ledger's keyed hash of the person id.")
    requested_at: datetime
    erased_at: datetime
    deleted: Deleted

    @classmethod
    def of(cls, receipt: ErasureReceipt) -> ErasureOut:
        return cls.model_validate(receipt.as_dict())


class HealthOut(BaseModel):
    status: Literal["ok"] = "ok"


class ReadyOut(BaseModel):
    database: str = Field(description="`ok`, or why it does not answer.")
    broker: str = Field(description="`ok`, `not configured`, or why it does not answer.")
