"""The bodies of ``/v1/backtests``: what a caller sends to start one, and what it reads."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from turncheck.worker.api.drafts import MAX_DRAFT_CHARS
from turncheck.worker.api.models import ErrorBody
from turncheck.worker.api.query import MOMENT
from turncheck.worker.backtest.judging import DEFAULT_MAX_JUDGEMENTS, MAX_JUDGEMENTS_LIMIT
from turncheck.worker.backtest.report import Report
from turncheck.worker.store.backtests import BacktestRow

StatusName = Literal["queued", "running", "done", "failed"]


class BacktestIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    checks: str = Field(
        min_length=1,
        max_length=MAX_DRAFT_CHARS,
        description="The draft check file, as YAML text (a check file's contract); no "
        "anchors or aliases, no judged check's `template`.",
    )
    since: str | None = Field(
        default=None, description=f"Turns from: {MOMENT}; default: the oldest kept."
    )
    until: str | None = Field(default=None, description=f"Turns before: {MOMENT}; default: now.")
    limit: int | None = Field(default=None, ge=1, le=10**12, description="At most this many turns.")
    partitions: str | None = Field(
        default=None,
        max_length=1000,
        description='Partitions of the turns topic: "0-5", "0,2,4"; default: every one.',
    )
    judge: bool = Field(
        default=False,
        description="Run the draft's judged checks on their sample through the configured "
        "judges; the estimate shows while the backtest is queued.",
    )
    max_judgements: int = Field(
        default=DEFAULT_MAX_JUDGEMENTS,
        ge=1,
        le=MAX_JUDGEMENTS_LIMIT,
        description="With `judge`: judgements past this many are counted as not judged (cap).",
    )


class BacktestLinks(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    self_: str = Field(alias="self", description="Where to read the backtest.")


def links(backtest_id: str) -> BacktestLinks:
    return BacktestLinks(self_=f"/v1/backtests/{backtest_id}")


class BacktestAccepted(BaseModel):
    id: str
    status: StatusName
    links: BacktestLinks


class ProgressOut(BaseModel):
    turns_read: int
    turns_expected: int | None = Field(description="null when it cannot be known beforehand.")
    elapsed_s: float


class BacktestOut(BaseModel):
    id: str
    status: StatusName
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    options: dict[str, Any] = Field(
        description="As asked, with the draft's digest and its checks' names (never its text)."
    )
    estimate: dict[str, Any] | None = Field(
        description="With `judge`: turns, sample, judgements, tokens and cost expected."
    )
    progress: ProgressOut | None
    report: dict[str, Any] | None = Field(
        description="When done: the report, as `turncheck backtest --json` prints it, with "
        "`turn_urls` (each example turn's page, from this server's `TURNCHECK_TURN_URL`; "
        "`{}` without it). Left out of the list."
    )
    error: str | None = Field(description="When failed: why, in a fixed sentence.")
    links: BacktestLinks

    @classmethod
    def of(cls, row: BacktestRow, *, turn_url: str | None = None) -> BacktestOut:
        """``turn_url``: the answering process's ``TURNCHECK_TURN_URL``, which links the
        report's example turns now, whichever replica ran it."""
        return cls(
            id=row.id,
            status=row.status,
            created_at=row.created_at,
            started_at=row.started_at,
            finished_at=row.finished_at,
            options=dict(row.options),
            estimate=None if row.estimate is None else dict(row.estimate),
            progress=None if row.progress is None else ProgressOut.model_validate(row.progress),
            report=None if row.report is None else _linked(row.report, turn_url),
            error=row.error,
            links=links(row.id),
        )


def _linked(report: Mapping[str, Any], turn_url: str | None) -> dict[str, Any]:
    return {**report, "turn_urls": Report.from_dict(report).turn_urls(turn_url)}


class BacktestsOut(BaseModel):
    backtests: list[BacktestOut] = Field(description="Newest first.")


class DraftErrorBody(ErrorBody):
    """A draft the loader refused: where, as the command line says it."""

    line: int | None = Field(default=None, description="The draft's line at fault.")
    check: str | None = Field(default=None, description="The check at fault, by name.")
    field: str | None = Field(default=None, description="The field at fault.")
