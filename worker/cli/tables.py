"""Tables a person reads in a terminal."""

from __future__ import annotations

from datetime import datetime

from rich.style import Style
from rich.table import Table
from rich.text import Text

from turncheck.worker.runtime.links import link_of
from turncheck.worker.store import PassRate, StoredResult

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


def not_passed_table(
    results: list[StoredResult], check: str, since: datetime, turn_url: str | None = None
) -> Table:
    """With ``turn_url``, a turn id is a link in terminals that show them (the full
    links are ``turn_links``'s, printed under the table)."""
    table = Table(title=f"{check}: not passed in turns since {since:%Y-%m-%d %H:%M} UTC")
    for column in ("turn time", "turn", "agent", "verdict", "reason"):
        table.add_column(column)
    for r in results:
        url = link_of(turn_url, r)
        table.add_row(
            f"{r.turn_created_at:%Y-%m-%d %H:%M:%S}",
            Text(r.turn_id, style=Style(link=url)) if url else r.turn_id,
            f"{r.agent_id} v{r.agent_version}",
            f"[{VERDICT_STYLE.get(r.verdict, '')}]{r.verdict}[/]",
            r.reason or "",
        )
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


def pass_rate_table(rows: list[PassRate], since: datetime) -> Table:
    table = Table(title=f"pass rates since {since:%Y-%m-%d %H:%M} UTC")
    judged = any(r.judge_input_tokens or r.judge_output_tokens for r in rows)
    columns = ["check", "agent", "passed", "failed", "errored", "total", "pass rate"]
    if judged:
        columns.append("judge tokens in/out")
    for column in columns:
        table.add_column(column, justify="right" if column not in ("check", "agent") else "left")
    for r in rows:
        rate = "" if r.pass_rate is None else f"{r.pass_rate:.1%}"
        cells = [r.check, r.agent_id, str(r.passed), str(r.failed), str(r.errored), str(r.total)]
        cells.append(rate)
        if judged:
            cells.append(f"{r.judge_input_tokens}/{r.judge_output_tokens}")
        table.add_row(*cells)
    return table


__all__ = [
    "PassRate",
    "StoredResult",
    "not_passed_table",
    "pass_rate_table",
    "results_table",
    "turn_links",
]
