"""Rows the store writes, built from results: pure functions, no database."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from turncheck.worker.checks import CheckId, CheckResult, Verdict
from turncheck.worker.outbox.events import check_failed_event
from turncheck.worker.pipeline.records import PendingJudgement, TurnRef
from turncheck.worker.store.passed import Entry, encode

ROLLUP_BUCKET = timedelta(hours=1)
ROLLUP_KEY = ("check_name", "agent_id", "agent_version", "check_version", "bucket_start")
ROLLUP_COUNTS = ("passed", "failed", "errored", "judge_input_tokens", "judge_output_tokens")


def bucket_of(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(minute=0, second=0, microsecond=0)


RESULT_KEY = ("turn_id", "check_name", "check_version")


def check_columns(check: CheckId) -> dict[str, str]:
    return {
        "check_name": check.name,
        "check_version": check.version,
        "check_kind": check.kind,
        "stage": check.stage,
        "mode": check.mode,
    }


def check_of(row: Mapping[Any, Any]) -> CheckId:
    return CheckId(
        row["check_name"], row["check_version"], row["check_kind"], row["stage"], row["mode"]
    )


def turn_columns(turn: TurnRef) -> dict[str, Any]:
    return {
        "turn_id": turn.turn_id,
        "thread_id": turn.thread_id,
        "person_id": turn.person_id,
        "agent_id": turn.agent_id,
        "agent_version": str(turn.agent_version),
        "turn_created_at": turn.created_at,
    }


def turn_of(row: Mapping[Any, Any]) -> TurnRef:
    version: int | str = row["agent_version"]
    if isinstance(version, str) and version.isdigit():
        version = int(version)  # stored as text; events carry the producer's number
    return TurnRef(
        row["turn_id"],
        row["thread_id"],
        row["person_id"],
        row["agent_id"],
        version,
        row["turn_created_at"],
    )


def result_row(
    turn: TurnRef,
    result: CheckResult,
    now: datetime,
    expires_at: datetime,
    write: tuple[int, int],
) -> dict[str, Any]:
    """A full ``check_results`` row; ``write``: (the write's id, the result's position)."""
    return {
        **turn_columns(turn),
        **check_columns(result.check),
        "write_id": write[0],
        "position": write[1],
        "verdict": result.verdict.value,
        "score": result.score,
        "reason": result.reason,
        "spans": [span.as_dict() for span in result.spans],
        "usage": result.usage,
        "answers": result.answers,
        "checked_at": now,
        "expires_at": expires_at,
    }


def passed_row(
    turn: TurnRef, entries: list[Entry], part: int, now: datetime, expires_at: datetime
) -> dict[str, Any]:
    """A write's ``passed_results`` row, holding its compact results."""
    return {
        **turn_columns(turn),
        "part": part,
        "checks": encode(entries),
        "passed": len(entries),
        "checked_at": now,
        "expires_at": expires_at,
    }


COUNTED = {Verdict.PASSED: 0, Verdict.FAILED: 1, Verdict.ERRORED: 2}
"""A verdict's place among ``ROLLUP_COUNTS``."""


def rollup_values(
    results: Iterable[tuple[TurnRef, Sequence[CheckResult]]],
) -> list[dict[str, Any]]:
    """Counts per (check, agent, agent version, check version, hour) of each turn's
    results, sorted: every
    writer takes rows in one order, so replicas never deadlock on each other."""
    sums: dict[tuple[Any, ...], list[int]] = {}
    for turn, of_turn in results:
        agent, version, bucket = turn.agent_id, str(turn.agent_version), bucket_of(turn.created_at)
        for result in of_turn:
            key = (result.check.name, agent, version, result.check.version, bucket)
            counts = sums.get(key)
            if counts is None:
                counts = sums[key] = [0, 0, 0, 0, 0]
            counts[COUNTED[result.verdict]] += 1
            if result.usage:
                counts[3] += int(result.usage.get("input_tokens", 0))
                counts[4] += int(result.usage.get("output_tokens", 0))
    return [
        {**dict(zip(ROLLUP_KEY, key, strict=True)), **dict(zip(ROLLUP_COUNTS, counts, strict=True))}
        for key, counts in sorted(sums.items(), key=lambda item: item[0])
    ]


def event_row(turn: TurnRef, result: CheckResult, topic: str, now: datetime) -> dict[str, Any]:
    event = check_failed_event(turn, result, now)
    return {
        "event_id": event.id,
        "topic": topic,
        "key": turn.turn_id,
        "payload": event.model_dump_json(),
        "created_at": now,
        "attempts": 0,
    }


def pending_row(item: PendingJudgement, expires_at: datetime, now: datetime) -> dict[str, Any]:
    return {
        **turn_columns(item.turn),
        **check_columns(item.check),
        "expires_at": expires_at,
        "enqueued_at": now,
        "deadline_at": item.deadline_at,
    }


def pending_from_row(row: Mapping[Any, Any]) -> tuple[PendingJudgement, datetime]:
    """A pending row back as a judgement, with its expiry."""
    return PendingJudgement(turn_of(row), check_of(row), row["deadline_at"]), row["expires_at"]
