"""The ``turncheck`` command line. Each command runs its start-up steps first
(``worker/startup.py``); ``worker/exits.py`` prints any refusal as one line and exits."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from importlib.metadata import version as installed_version
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from turncheck.alerts import cli as alerts_cli
from turncheck.alerts.setup import check_alert_settings
from turncheck.worker import cli_read, cli_retention, cli_serve, exits, startup
from turncheck.worker.app import build_worker, replay
from turncheck.worker.checks import CheckSet, load_checks
from turncheck.worker.judge.http import HttpJudgeClient
from turncheck.worker.parts import judge_client
from turncheck.worker.settings import Settings
from turncheck.worker.webhooks import cli as webhooks_cli
from turncheck.worker.webhooks.setup import webhook_endpoints

app = typer.Typer(
    help="Hold every stored turn of a chat agent to its checks, after the fact.",
    no_args_is_help=True,
    add_completion=False,
    # Plain help shows a flag as a flag ("--json", not "--json <bool>") and a usage error as
    # text, not a panel. A bug's traceback leaves out locals: they may hold a turn or a URL.
    rich_markup_mode=None,
    pretty_exceptions_show_locals=False,
)
err = Console(stderr=True)
app.add_typer(alerts_cli.app, name="alerts")
app.add_typer(webhooks_cli.app, name="webhooks")

JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]


def _print_version(show: bool) -> None:
    if show:
        print(f"turncheck {installed_version('turncheck')}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Options before the command; the help shown is the app's own."""


@app.command()
def migrate() -> None:
    """Create or upgrade the database schema.

    The database is TURNCHECK_DATABASE_URL; run this before starting workers on PostgreSQL.
    """
    settings = startup.settings()
    startup.reach(settings)
    startup.migrate(settings)
    err.print("database is up to date")


@app.command()
def run() -> None:
    """Run the worker on Kafka, or on the turns file without it.

    With TURNCHECK_KAFKA_BOOTSTRAP set it consumes until SIGTERM or SIGINT; without it, it
    processes TURNCHECK_TURNS_FILE and exits.
    """
    settings = startup.settings(logging.INFO)
    checks = load_checks(settings.checks)
    judge_client(settings)  # refuse bad judge settings at start, not on the first turn
    if settings.kafka_bootstrap:
        check_alert_settings(settings, checks)  # alerts run with the Kafka worker only
        webhook_endpoints(settings)  # so do webhooks
    if not settings.kafka_bootstrap:
        startup.require_readable(settings.turns_file)
    if settings.kafka_bootstrap and settings.api_in_run:
        from turncheck.worker.api import check_api_settings  # FastAPI only when it serves

        check_api_settings(settings)
    startup.reach(settings, broker=True)
    startup.embedded_schema(settings)
    if settings.kafka_bootstrap:
        asyncio.run(build_worker(settings, checks=checks).run())
        return
    _replay(settings, checks, settings.turns_file)


@app.command("replay")
def replay_command(
    file: Annotated[Path, typer.Argument(help="JSON Lines of turns ('-' for standard input).")],
) -> None:
    """Process a file of turns into the store, as the consumer would."""
    settings = startup.settings()
    checks = load_checks(settings.checks)
    judge_client(settings)
    startup.require_readable(file)
    startup.reach(settings, broker=True)  # with a broker set, replay sends its events too
    startup.embedded_schema(settings)
    _replay(settings, checks, file)


def _replay(settings: Settings, checks: CheckSet, file: Path) -> None:
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
        raise typer.Exit(exits.REJECTED)


@app.command()
def check(
    checks_file: Annotated[
        Path | None, typer.Option("--checks", help="A check file; default: TURNCHECK_CHECKS.")
    ] = None,
) -> None:
    """Print the results of turns read on stdin; store nothing.

    Reads JSON Lines on standard input and prints one JSON line per turn. Judged checks run
    on every turn (no sample) when judges are configured.
    """
    settings = startup.settings()
    checks = load_checks([checks_file] if checks_file else settings.checks)
    client = judge_client(settings)
    if asyncio.run(_check_lines(settings, checks, client)):
        raise typer.Exit(exits.REJECTED)


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


app.command()(cli_read.results)
app.command("pass-rates")(cli_read.pass_rates)
app.command()(cli_read.failures)
app.command()(cli_retention.purge)
app.command()(cli_retention.erase)
app.command()(cli_serve.serve)


def main() -> None:
    exits.run_command_line(app, err)
