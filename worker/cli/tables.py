"""Tables a person reads in a terminal."""

from __future__ import annotations

from datetime import datetime

from rich.style import Style
from rich.table import Table
from rich.text import Text

from turncheck.worker.pipeline.records import ResultKey
from turncheck.worker.runtime.links import link_of
from turncheck.worker.store import KnownRollouts, PassRate, StoredResult
from turncheck.worker.store.labels import StoredLabel, key_of
from turncheck.worker.store.rates import Split

VERDICT_STYLE = {"passed": "green", "failed": "red", "errored": "yellow"}
LABEL_SHOWN = {"false_alarm": "false alarm", "confirmed": "confirmed"}
ALL_LIVE = KnownRollouts()


def _rollouts(rows: list[StoredResult] | list[PassRate], rollouts: KnownRollouts) -> list[str]:
    """Each row's rollout, or nothing when every row is live: the column is shown only
    when a shadow check is among them."""
    marks: list[str] = [rollouts.of(r.agent_id, r.check) for r in rows]
    return marks if "shadow" in marks else []


def results_table(
    results: list[StoredResult],
    labelled: dict[ResultKey, StoredLabel] | None = None,
    rollouts: KnownRollouts = ALL_LIVE,
) -> Table:
    """A turn's results; a ``label`` column (with the note) once any of them has a label,
    a ``rollout`` column once any is a shadow check's."""
    labelled = labelled or {}
    first = results[0]
    table = Table(title=f"turn {first.turn_id} · agent {first.agent_id} v{first.agent_version}")
    marks = _rollouts(results, rollouts)
    columns = ["check", "version", "verdict", "score", "reason", "matches"]
    columns += ["label"] if labelled else []
    for column in columns + (["rollout"] if marks else []):
        table.add_column(column)
    for n, r in enumerate(results):
        spans = ", ".join(f"{s['field']}[{s['start']}:{s['end']}] {s['label']}" for s in r.spans)
        cells: list[str | Text] = [
            r.check,
            r.check_version,
            f"[{VERDICT_STYLE.get(r.verdict, '')}]{r.verdict}[/]",
            "" if r.score is None else f"{r.score:.2f}",
            r.reason or "",
            spans,
        ]
        if labelled:
            cells.append(_label_cell(labelled.get(key_of(r)), note=True))
        table.add_row(*cells, *marks[n : n + 1])
    return table


def not_passed_table(
    results: list[StoredResult],
    check: str,
    since: datetime,
    labelled: dict[ResultKey, StoredLabel] | None = None,
    rollouts: KnownRollouts = ALL_LIVE,
    turn_url: str | None = None,
) -> Table:
    """A check's failures; a ``label`` column once any has a label (no note: a list), a
    ``rollout`` column when it is a shadow check's. With ``turn_url``, a turn id is a
    link in terminals that show them (the full links are ``turn_links``'s, printed under
    the table)."""
    labelled = labelled or {}
    table = Table(title=f"{check}: not passed in turns since {since:%Y-%m-%d %H:%M} UTC")
    marks = _rollouts(results, rollouts)
    columns = ["turn time", "turn", "agent", "verdict", "reason"]
    columns += ["label"] if labelled else []
    for column in columns + (["rollout"] if marks else []):
        table.add_column(column)
    for n, r in enumerate(results):
        url = link_of(turn_url, r)
        cells: list[str | Text] = [
            f"{r.turn_created_at:%Y-%m-%d %H:%M:%S}",
            Text(r.turn_id, style=Style(link=url)) if url else r.turn_id,
            f"{r.agent_id} v{r.agent_version}",
            f"[{VERDICT_STYLE.get(r.verdict, '')}]{r.verdict}[/]",
            r.reason or "",
        ]
        if labelled:
            cells.append(_label_cell(labelled.get(key_of(r)), note=False))
        table.add_row(*cells, *marks[n : n + 1])
    return table


def turn_links(results: list[StoredResult], turn_url: str | None) -> str | None:
    """Each listed turn's page on the chat platform, one line per turn (``turn_id  URL``),
    whole so it can be copied or clicked; None without ``TURNCHECK_TURN_URL``."""
    if turn_url is None:
        return None
    lines, seen = [], set()
    for r in results:
        url = link_of(turn_url, r)
        if url is not None and r.turn_id not in seen:
            seen.add(r.turn_id)
            lines.append(f"{r.turn_id}  {url}")
    return "\n".join(lines) if lines else None


MIXED = "*"
"""Beside a check's name in a row that counts more than one check version."""


def _label_cell(label: StoredLabel | None, *, note: bool) -> Text:
    """Plain text: a note is a person's words, never read as markup."""
    if label is None:
        return Text("")
    shown = LABEL_SHOWN[label.label]
    return Text(f"{shown}: {label.note}" if note and label.note else shown)


def pass_rate_table(
    rows: list[PassRate],
    since: datetime,
    split: Split = Split.NONE,
    exclude_false_alarms: bool = False,
    rollouts: KnownRollouts = ALL_LIVE,
) -> Table:
    """The rates; the precision against the labels once any row has labelled failures, a
    ``rollout`` column once any row is a shadow check's."""
    title = f"pass rates since {since:%Y-%m-%d %H:%M} UTC"
    if exclude_false_alarms:
        title += ", false alarms counted as passed"
    mixed = any(r.mixed_versions for r in rows)
    table = Table(
        title=title, caption=f"{MIXED} counts more than one check version" if mixed else None
    )
    judged = any(r.judge_input_tokens or r.judge_output_tokens for r in rows)
    labelled = any(r.labelled_failures for r in rows)
    columns = ["check", "agent"]
    if split.by_agent_version:
        columns.append("agent version")
    if split.by_check_version:
        columns.append("check version")
    columns += ["passed", "failed", "errored", "total", "pass rate"]
    if labelled:
        # One narrow column, so the table still fits 100 columns: "75% (3/4)" is 3 of
        # the 4 labelled failures confirmed (the fourth a false alarm).
        columns.append("precision")
    if judged:
        columns.append("judge tokens in/out")
    marks = _rollouts(rows, rollouts)
    if marks:
        columns.append("rollout")
    for column in columns:
        table.add_column(column, justify="left" if column in LEFT else "right")
    for n, r in enumerate(rows):
        rate = "" if r.pass_rate is None else f"{r.pass_rate:.1%}"
        cells = [f"{r.check} {MIXED}" if r.mixed_versions else r.check, r.agent_id]
        if split.by_agent_version:
            cells.append(r.agent_version or "")
        if split.by_check_version:
            cells.append(r.check_version or "")
        cells += [str(r.passed), str(r.failed), str(r.errored), str(r.total), rate]
        if labelled:
            precision = r.precision
            labels = f"({r.confirmed}/{r.labelled_failures})"
            cells.append("" if precision is None else f"{precision:.0%} {labels}")
        if judged:
            cells.append(f"{r.judge_input_tokens}/{r.judge_output_tokens}")
        table.add_row(*cells, *marks[n : n + 1])
    return table


LEFT = ("check", "agent", "agent version", "check version", "rollout")


__all__ = [
    "PassRate",
    "StoredResult",
    "not_passed_table",
    "pass_rate_table",
    "results_table",
    "turn_links",
]
