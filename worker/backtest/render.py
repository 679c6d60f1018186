"""A backtest report as a person reads it in a terminal: one table per draft check's
figures, the comparison with the live checks, the labelled turns, and the totals."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group
from rich.table import Table
from rich.text import Text

from turncheck.worker.backtest.report import CheckReport, Report
from turncheck.worker.backtest.tallies import REASONS_SHOWN, Examples

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
    judged = [row for row in rows if row.not_judged_cap or row.judge_input_tokens]
    if judged:
        parts.append(Text(judged_text(judged)))
    compared = [row for row in rows if row.live is not None and row.live.stored]
    if compared:
        parts += [live_table(compared), Text(changed_text(compared))]
    labelled = [row for row in rows if row.labelled is not None and row.labelled.total]
    if labelled:
        parts += [labelled_table(labelled), Text(regressions_text(labelled))]
    return Group(*parts)


def links_text(urls: dict[str, str]) -> str | None:
    """The example turns' links, one ``TURN_ID  URL`` line each; None when there is none."""
    return "\n".join(f"{turn_id}  {url}" for turn_id, url in urls.items()) or None


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


def judged_text(rows: list[CheckReport]) -> str:
    """The judged checks of a ``--judge`` run: what the cap left out, the tokens spent."""
    return "\n".join(
        f"{row.check} ({row.agent_id}): {row.turns_read} judged, {row.not_judged_cap} "
        f"not judged (cap); judge tokens {row.judge_input_tokens:,} in, "
        f"{row.judge_output_tokens:,} out"
        for row in rows
    )


def live_table(rows: list[CheckReport]) -> Table:
    counted = []
    for row in rows:
        live = row.live
        assert live is not None
        counts = (live.newly_failing, live.newly_passing, live.unchanged, live.no_live_result)
        counted.append((row, counts))
    columns = ("newly failing", "newly passing", "unchanged", "no live result")
    return _counts_table(
        "against the stored results of the live check of the same name", columns, counted
    )


def changed_text(rows: list[CheckReport]) -> str:
    """The turns a draft check would newly fail or newly pass."""
    listed = []
    for row in rows:
        live = row.live
        assert live is not None
        listed.append((row, "newly failing", live.newly_failing_examples))
        listed.append((row, "newly passing", live.newly_passing_examples))
    return _examples_text(listed)


def labelled_table(rows: list[CheckReport]) -> Table:
    counted = []
    for row in rows:
        labelled = row.labelled
        assert labelled is not None
        counts = (
            labelled.confirmed_caught,
            labelled.confirmed_missed,
            labelled.false_alarms_raised,
            labelled.false_alarms_cleared,
        )
        counted.append((row, counts))
    columns = ("confirmed caught", "confirmed missed", "false alarms raised", "cleared")
    return _counts_table("on turns labelled for a check of the same name", columns, counted)


def regressions_text(rows: list[CheckReport]) -> str:
    """The labelled turns the draft gets wrong: confirmed failures missed, false alarms raised."""
    listed = []
    for row in rows:
        labelled = row.labelled
        assert labelled is not None
        listed.append((row, "misses confirmed failures on", labelled.missed_examples))
        listed.append((row, "still raises false alarms on", labelled.raised_examples))
    return _examples_text(listed)


def _counts_table(
    title: str, columns: tuple[str, ...], counted: Sequence[tuple[CheckReport, tuple[int, ...]]]
) -> Table:
    """A table of counts per draft check: its name and agent, then one column a count."""
    table = Table(title=title)
    table.add_column("check", no_wrap=True)
    table.add_column("agent", no_wrap=True)
    for column in columns:
        table.add_column(column, justify="right")
    for row, counts in counted:
        table.add_row(row.check, row.agent_id, *map(str, counts))
    return table


def _examples_text(listed: Sequence[tuple[CheckReport, str, Examples]]) -> str:
    """One line per check and list that holds turns: ``check (agent) what: ids``."""
    return "\n".join(
        f"{row.check} ({row.agent_id}) {what}: {_ids(examples.as_list())}"
        for row, what, examples in listed
        if examples.ids
    )


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
    speed = "-" if report.turns_per_s is None else f"{report.turns_per_s:,.0f}"
    processes = f"{report.processes} process{'es' if report.processes != 1 else ''}"
    line = (
        f"{report.turns_read} turns read from {where} in {report.wall_time_s:.1f} s "
        f"({speed} turns/s, {processes}); {report.unreadable} unreadable, "
        f"{report.unchecked} of agents the draft has no check for"
    )
    if report.erased:
        line += f", {report.erased} of erased persons left out"
    if report.judged_skipped:
        line += f"; judged checks not run: {', '.join(report.judged_skipped)}"
    return line
