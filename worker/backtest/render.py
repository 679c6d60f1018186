"""A backtest report as a person reads it in a terminal: one table per draft check's
figures, the comparison with the live checks, the labelled turns, and the totals."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text

from turncheck.worker.backtest.report import REASONS_SHOWN, CheckReport, Report

EXAMPLES_SHOWN = 5


def _rate(rate: float | None) -> str:
    return "" if rate is None else f"{rate:.1%}"


def _ids(ids: list[str]) -> str:
    shown = ", ".join(ids[:EXAMPLES_SHOWN])
    return shown + (" …" if len(ids) > EXAMPLES_SHOWN else "")


def report_view(report: Report) -> Group:
    """The tables; ``totals_line`` is printed after them, as one line at any width."""
    rows = [report.checks[key] for key in sorted(report.checks)]
    parts: list[Table | Text] = [checks_table(rows), Text(reasons_text(rows))]
    compared = [row for row in rows if row.live is not None and row.live.stored]
    if compared:
        parts.append(live_table(compared))
    labelled = [row for row in rows if row.labelled is not None and row.labelled.total]
    if labelled:
        parts.append(labelled_table(labelled))
    return Group(*parts)


def checks_table(rows: list[CheckReport]) -> Table:
    table = Table(title="draft checks on past turns")
    table.add_column("check", no_wrap=True)
    table.add_column("agent", no_wrap=True)
    for column in ("turns", "would fail", "errored"):
        table.add_column(column, justify="right", no_wrap=True)
    for row in rows:
        table.add_row(
            row.check,
            row.agent_id,
            str(row.turns_read),
            f"{row.would_fail} {_rate(row.would_fail_rate)}",
            f"{row.errored} {_rate(row.errored_rate)}",
        )
    return table


def reasons_text(rows: list[CheckReport]) -> str:
    """Each check that did not always pass: its most frequent reasons, example turns."""
    lines = []
    for row in rows:
        if not row.reasons.counts:
            continue
        lines.append(f"{row.check} ({row.agent_id}): examples {_ids(row.examples.as_list())}")
        lines += [f"  {n:>6}  {text}" for text, n in row.reasons.top(REASONS_SHOWN)]
    return "\n".join(lines)


def live_table(rows: list[CheckReport]) -> Table:
    table = Table(title="against the live check of the same name (its stored results)")
    for column in ("check", "agent", "newly failing", "newly passing", "unchanged", "no result"):
        table.add_column(column, justify="left" if column in ("check", "agent") else "right")
    table.add_column("newly failing turns")
    table.add_column("newly passing turns")
    for row in rows:
        live = row.live
        assert live is not None
        table.add_row(
            row.check,
            row.agent_id,
            str(live.newly_failing),
            str(live.newly_passing),
            str(live.unchanged),
            str(live.no_live_result),
            _ids(live.newly_failing_examples.as_list()),
            _ids(live.newly_passing_examples.as_list()),
        )
    return table


def labelled_table(rows: list[CheckReport]) -> Table:
    table = Table(title="on labelled turns")
    columns = ("check", "agent", "confirmed caught", "confirmed missed", "false alarms raised")
    for column in (*columns, "false alarms cleared"):
        table.add_column(column, justify="left" if column in ("check", "agent") else "right")
    table.add_column("missed turns")
    table.add_column("still raised on")
    for row in rows:
        labelled = row.labelled
        assert labelled is not None
        table.add_row(
            row.check,
            row.agent_id,
            str(labelled.confirmed_caught),
            str(labelled.confirmed_missed),
            str(labelled.false_alarms_raised),
            str(labelled.false_alarms_cleared),
            _ids(labelled.missed_examples.as_list()),
            _ids(labelled.raised_examples.as_list()),
        )
    return table


def partitions_text(partitions: tuple[int, ...]) -> str:
    """``0-5,8``: runs of consecutive partitions as ranges."""
    runs: list[str] = []
    for p in partitions:
        if runs and runs[-1].split("-")[-1] == str(p - 1):
            runs[-1] = f"{runs[-1].split('-')[0]}-{p}"
        else:
            runs.append(str(p))
    return ",".join(runs)


def totals_line(report: Report) -> str:
    where = report.source
    if report.partitions:
        where += f" partitions {partitions_text(report.partitions)}"
    speed = "" if report.turns_per_s is None else f", {report.turns_per_s:,.0f} turns/s"
    line = (
        f"{report.turns_read} turns read from {where} ({report.unreadable} unreadable, "
        f"{report.unchecked} of agents without a draft check) in {report.wall_time_s:.1f} s"
        f"{speed}, {report.processes} process{'es' if report.processes != 1 else ''}"
    )
    if report.judged_skipped:
        line += f"; judged checks not run: {', '.join(report.judged_skipped)}"
    return line
