"""Tables a person reads in a terminal."""

from __future__ import annotations

from datetime import datetime

from rich.table import Table

from turncheck.worker.store import KnownRollouts, PassRate, StoredResult

VERDICT_STYLE = {"passed": "green", "failed": "red", "errored": "yellow"}
ALL_LIVE = KnownRollouts()


def _rollouts(rows: list[StoredResult] | list[PassRate], rollouts: KnownRollouts) -> list[str]:
    """Each row's rollout, or nothing when every row is live: the column is shown only
    when a shadow check is among them."""
    marks: list[str] = [rollouts.of(r.agent_id, r.check) for r in rows]
    return marks if "shadow" in marks else []


def results_table(results: list[StoredResult], rollouts: KnownRollouts = ALL_LIVE) -> Table:
    first = results[0]
    table = Table(title=f"turn {first.turn_id} · agent {first.agent_id} v{first.agent_version}")
    marks = _rollouts(results, rollouts)
    for column in ("check", "version", "verdict", "score", "reason", "matches"):
        table.add_column(column)
    if marks:
        table.add_column("rollout")
    for n, r in enumerate(results):
        spans = ", ".join(f"{s['field']}[{s['start']}:{s['end']}] {s['label']}" for s in r.spans)
        table.add_row(
            r.check,
            r.check_version,
            f"[{VERDICT_STYLE.get(r.verdict, '')}]{r.verdict}[/]",
            "" if r.score is None else f"{r.score:.2f}",
            r.reason or "",
            spans,
            *marks[n : n + 1],
        )
    return table


def not_passed_table(
    results: list[StoredResult],
    check: str,
    since: datetime,
    rollouts: KnownRollouts = ALL_LIVE,
) -> Table:
    table = Table(title=f"{check}: not passed in turns since {since:%Y-%m-%d %H:%M} UTC")
    marks = _rollouts(results, rollouts)
    for column in ("turn time", "turn", "agent", "verdict", "reason"):
        table.add_column(column)
    if marks:
        table.add_column("rollout")
    for n, r in enumerate(results):
        table.add_row(
            f"{r.turn_created_at:%Y-%m-%d %H:%M:%S}",
            r.turn_id,
            f"{r.agent_id} v{r.agent_version}",
            f"[{VERDICT_STYLE.get(r.verdict, '')}]{r.verdict}[/]",
            r.reason or "",
            *marks[n : n + 1],
        )
    return table


def pass_rate_table(
    rows: list[PassRate], since: datetime, rollouts: KnownRollouts = ALL_LIVE
) -> Table:
    table = Table(title=f"pass rates since {since:%Y-%m-%d %H:%M} UTC")
    judged = any(r.judge_input_tokens or r.judge_output_tokens for r in rows)
    marks = _rollouts(rows, rollouts)
    columns = ["check", "agent", "passed", "failed", "errored", "total", "pass rate"]
    if judged:
        columns.append("judge tokens in/out")
    if marks:
        columns.append("rollout")
    for column in columns:
        left = column in ("check", "agent", "rollout")
        table.add_column(column, justify="left" if left else "right")
    for n, r in enumerate(rows):
        rate = "" if r.pass_rate is None else f"{r.pass_rate:.1%}"
        cells = [r.check, r.agent_id, str(r.passed), str(r.failed), str(r.errored), str(r.total)]
        cells.append(rate)
        if judged:
            cells.append(f"{r.judge_input_tokens}/{r.judge_output_tokens}")
        table.add_row(*cells, *marks[n : n + 1])
    return table


__all__ = ["PassRate", "StoredResult", "not_passed_table", "pass_rate_table", "results_table"]
