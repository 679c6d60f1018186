"""The ``turncheck`` command line."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from turncheck.worker import report
from turncheck.worker.app import build_worker, judge_client, open_store, replay, utc_now
from turncheck.worker.checks import CheckSet, load_checks
from turncheck.worker.errors import CheckDefinitionError, JudgeConfigError
from turncheck.worker.judge.http import HttpJudgeClient
from turncheck.worker.settings import Settings
from turncheck.worker.store.migrate import migrate as run_migrations

app = typer.Typer(
    help="Hold every stored turn of a chat agent to its checks, after the fact.",
    no_args_is_help=True,
    add_completion=False,
)
err = Console(stderr=True)

JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]


def _settings() -> Settings:
    return Settings()


def _checks(settings: Settings, override: Path | None = None) -> CheckSet:
    try:
        return load_checks([override] if override else settings.checks)
    except CheckDefinitionError as exc:
        err.print(f"[red]invalid checks:[/red] {exc}", highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None


def _judge_client(settings: Settings) -> HttpJudgeClient:
    try:
        return judge_client(settings)
    except JudgeConfigError as exc:
        err.print(f"[red]invalid judges:[/red] {exc}", highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None


def _embedded_schema(settings: Settings) -> None:
    """The embedded SQLite store sets itself up; a server database is migrated on purpose."""
    if settings.embedded:
        run_migrations(settings.database_url)


def _logging(level: int = logging.INFO) -> None:
    logging.basicConfig(
        level=level, stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s %(message)s"
    )


@app.command()
def migrate() -> None:
    """Create or upgrade the database schema (TURNCHECK_DATABASE_URL)."""
    settings = _settings()
    run_migrations(settings.database_url)
    err.print("database is up to date")


@app.command()
def run() -> None:
    """Run the worker: consume Kafka when TURNCHECK_KAFKA_BOOTSTRAP is set, else the turns file."""
    settings = _settings()
    _logging()
    checks = _checks(settings)
    _judge_client(settings)  # refuse bad judge settings at start, not on the first turn
    _embedded_schema(settings)
    if settings.kafka_bootstrap:
        asyncio.run(build_worker(settings, checks=checks).run())
        return
    _replay(settings, checks, settings.turns_file)


@app.command("replay")
def replay_command(
    file: Annotated[Path, typer.Argument(help="JSON Lines of turns ('-' for standard input).")],
) -> None:
    """Process a file of turns into the store, exactly as the consumer would."""
    settings = _settings()
    _logging(logging.WARNING)
    checks = _checks(settings)
    _judge_client(settings)
    _embedded_schema(settings)
    _replay(settings, checks, file)


def _replay(settings: Settings, checks: CheckSet, file: Path) -> None:
    if str(file) != "-" and not file.exists():
        err.print(f"[red]no such file:[/red] {file}")
        raise typer.Exit(2)
    if sys.stderr.isatty() and str(file) != "-":
        total = sum(1 for line in file.open("rb") if line.strip())
        columns = (TextColumn("turns"), BarColumn(), MofNCompleteColumn())
        with Progress(*columns, console=err, transient=True) as progress:
            task = progress.add_task("turns", total=total)
            totals = asyncio.run(
                replay(
                    settings,
                    str(file),
                    checks=checks,
                    on_progress=lambda n: progress.advance(task, n),
                )
            )
    else:
        totals = asyncio.run(replay(settings, str(file), checks=checks))
    for rejected in totals.rejected:
        err.print(f"line {rejected.message.offset}: {rejected.reason}", highlight=False)
    err.print(
        f"{totals.turns} turns, {totals.results} results ({totals.new_results} new, "
        f"{totals.not_passed} not passed), {len(totals.rejected)} lines rejected",
        highlight=False,
    )
    if totals.rejected:
        raise typer.Exit(1)


@app.command()
def check(
    checks_file: Annotated[
        Path | None, typer.Option("--checks", help="A check file; default: TURNCHECK_CHECKS.")
    ] = None,
) -> None:
    """Read turns (JSON Lines) on standard input and print each turn's results; store nothing.

    Judged checks run on every turn (no sample) when judges are configured.
    """
    settings = _settings()
    checks = _checks(settings, checks_file)
    client = _judge_client(settings)
    if asyncio.run(_check_lines(settings, checks, client)):
        raise typer.Exit(1)


async def _check_lines(settings: Settings, checks: CheckSet, client: HttpJudgeClient) -> int:
    """Print one line per input line; return how many lines were not turns."""
    from turncheck.worker.decode import decode_turn
    from turncheck.worker.errors import InvalidTurn
    from turncheck.worker.evaluate import evaluate, warm_up
    from turncheck.worker.judge.direct import judge_now

    warm_up(checks)
    configured = frozenset(client.endpoints)
    bad = 0
    try:
        for number, line in enumerate(sys.stdin.buffer, start=1):
            if not line.strip():
                continue
            try:
                turn = decode_turn(line)
            except InvalidTurn as exc:
                bad += 1
                print(json.dumps({"line": number, "error": exc.reason}), flush=True)
                continue
            found = evaluate(turn, checks)
            judged = checks.judged_for_agent(turn.agent.id)
            if judged:
                found += await judge_now(
                    turn, judged, client, configured, settings.judge_deadline_s
                )
            results = [r.as_dict() for r in found]
            for result in results:
                del result["check_version"]
            print(json.dumps({"turn_id": turn.turn_id, "results": results}), flush=True)
    finally:
        await client.aclose()
    return bad


@app.command()
def results(
    turn_id: Annotated[str, typer.Argument(help="The turn's id.")],
    as_json: JsonOption = False,
) -> None:
    """Show the stored results of one turn."""
    settings = _settings()
    _embedded_schema(settings)
    found = asyncio.run(_results(settings, turn_id))
    if as_json:
        print(json.dumps([r.as_dict() for r in found], indent=2))
    elif not found:
        err.print(f"no results for turn {turn_id}", highlight=False)
        raise typer.Exit(1)
    else:
        Console().print(report.results_table(found))


async def _results(settings: Settings, turn_id: str) -> list[report.StoredResult]:
    store = open_store(settings)
    try:
        return await store.queries.results_for_turn(turn_id)
    finally:
        await store.close()


def parse_since(text: str, now: datetime) -> datetime:
    """``7d``, ``12h``, ``30m``, ``2w`` back from now, or an ISO date or time."""
    match = re.fullmatch(r"(\d+)([mhdw])", text.strip())
    if match:
        unit = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}[match[2]]
        return now - timedelta(**{unit: int(match[1])})
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise typer.BadParameter("use 7d, 12h, 30m, 2w or an ISO date") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=now.tzinfo)


@app.command("pass-rates")
def pass_rates(
    check: Annotated[str | None, typer.Option(help="Only this check.")] = None,
    agent: Annotated[str | None, typer.Option(help="Only this agent id.")] = None,
    since: Annotated[
        str, typer.Option(help="How far back: 7d, 12h, 30m, 2w or an ISO date.")
    ] = "7d",
    as_json: JsonOption = False,
) -> None:
    """Show each check's pass rate from its passed, failed and errored counts."""
    settings = _settings()
    _embedded_schema(settings)
    start = parse_since(since, utc_now())
    rows = asyncio.run(_pass_rates(settings, start, check, agent))
    if as_json:
        print(
            json.dumps({"since": start.isoformat(), "rates": [r.as_dict() for r in rows]}, indent=2)
        )
    else:
        Console().print(report.pass_rate_table(rows, start))


async def _pass_rates(
    settings: Settings, since: datetime, check: str | None, agent: str | None
) -> list[report.PassRate]:
    store = open_store(settings)
    try:
        return await store.queries.pass_rates(since=since, check=check, agent=agent)
    finally:
        await store.close()


def main() -> None:
    app()
