"""Tables a person reads in a terminal."""

from __future__ import annotations

from datetime import datetime

from rich.table import Table

from turncheck.worker.store import PassRate, StoredResult
from turncheck.worker.store.rates import Split

VERDICT_STYLE = {"passed": "green", "failed": "red", "errored": "yellow"}


def results_table(results: list[StoredResult]) -> Table:
    first = results[0]
    table = Table(title=f"turn {first.turn_id} · agent {first.agent_id} v{first.agent_version}")
    for column in ("check", "version", "verdict", "score", "reason", "matches"):
        table.add_column(column)
    for r in results:
        spans = ", ".join(f"{s['field']}[{s['start']}:{s['end']}] {s['label']}" for s in r.spans)
        table.add_row(
            r.check,
            r.check_version,
            f"[{VERDICT_STYLE.get(r.verdict, '')}]{r.verdict}[/]",
            "" if r.score is None else f"{r.score:.2f}",
            r.reason or "",
            spans,
        )
    return table


def not_passed_table(results: list[StoredResult], check: str, since: datetime) -> Table:
    table = Table(title=f"{check}: not passed in turns since {since:%Y-%m-%d %H:%M} UTC")
    for column in ("turn time", "turn", "agent", "verdict", "reason"):
        table.add_column(column)
    for r in results:
        table.add_row(
            f"{r.turn_created_at:%Y-%m-%d %H:%M:%S}",
            r.turn_id,
            f"{r.agent_id} v{r.agent_version}",
            f"[{VERDICT_STYLE.get(r.verdict, '')}]{r.verdict}[/]",
            r.reason or "",
        )
    return table


MIXED = "*"
"""Beside a check's name in a row that counts more than one check version."""


def pass_rate_table(rows: list[PassRate], since: datetime, split: Split = Split.NONE) -> Table:
    mixed = any(r.mixed_versions for r in rows)
    table = Table(
        title=f"pass rates since {since:%Y-%m-%d %H:%M} UTC",
        caption=f"{MIXED} counts more than one check version" if mixed else None,
    )
    judged = any(r.judge_input_tokens or r.judge_output_tokens for r in rows)
    columns = ["check", "agent"]
    if split.by_agent_version:
        columns.append("agent version")
    if split.by_check_version:
        columns.append("check version")
    columns += ["passed", "failed", "errored", "total", "pass rate"]
    if judged:
        columns.append("judge tokens in/out")
    for column in columns:
        table.add_column(column, justify="left" if column in LEFT else "right")
    for r in rows:
        rate = "" if r.pass_rate is None else f"{r.pass_rate:.1%}"
        cells = [f"{r.check} {MIXED}" if r.mixed_versions else r.check, r.agent_id]
        if split.by_agent_version:
            cells.append(r.agent_version or "")
        if split.by_check_version:
            cells.append(r.check_version or "")
        cells += [str(r.passed), str(r.failed), str(r.errored), str(r.total), rate]
        if judged:
            cells.append(f"{r.judge_input_tokens}/{r.judge_output_tokens}")
        table.add_row(*cells)
    return table


LEFT = ("check", "agent", "agent version", "check version")


__all__ = ["PassRate", "StoredResult", "not_passed_table", "pass_rate_table", "results_table"]
